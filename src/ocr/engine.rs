//! Reads page images with Tesseract and returns their hOCR: through an
//! OCR server process (`server`, libtesseract loaded once), or, where the
//! library cannot be loaded, through one run of the `tesseract` program.
//!
//! Why processes and not libtesseract inside colophon: see the module docs
//! of `ocr`. In short, OpenMP reads `OMP_THREAD_LIMIT` only when libgomp is
//! loaded, so a library loaded by colophon cannot be limited to one thread,
//! while a child process gets it in its environment; a child can also be
//! killed on a timeout and cannot take colophon down with it.
//!
//! The image goes in as an uncompressed 8-bit BMP (one page) or TIFF
//! (several) in a temporary file that is removed after the call, and hOCR
//! comes back on stdout. No PNG encoding. BMP rather than PGM because
//! Leptonica reads binary PGM a byte at a time: on a letter page at 300 dpi
//! (8.4 MB) BMP saved 0.1 s of tesseract CPU (0.86 → 0.76 s) for the same
//! output. A file rather than stdin because tesseract reads stdin through
//! `std::cin` a character at a time: on the 22 calls of the scanned gold
//! PDFs (issue 18) a file took 20.6 and 21.3 CPU-s against 25.6 and 25.7
//! for stdin, with the same hOCR.

use super::call::{PROGRAM, Psm, TimedOut, kill_after};
use anyhow::{Context, Result, bail};
use image::GrayImage;
use std::io::{Read, Write};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::Duration;

/// Tesseract is not installed: an error of the installation, not of a
/// page, so the run stops once with this message (as for a missing
/// pdfium) instead of failing every scanned PDF with it.
#[derive(Debug, thiserror::Error)]
#[error(
    "the `tesseract` program was not found on PATH, and scanned pages need it: install \
     Tesseract (Debian/Ubuntu: sudo apt-get install tesseract-ocr tesseract-ocr-eng; \
     macOS: brew install tesseract)"
)]
pub struct TesseractMissing;

/// Recognises `img` (`dpi` pixels per inch) with Tesseract in automatic page
/// segmentation (PSM 3) and returns the hOCR document. Kills tesseract and
/// fails when it takes longer than `timeout`.
pub fn run(img: &GrayImage, dpi: u32, languages: &str, timeout: Duration) -> Result<String> {
    run_pages(&[(img, dpi)], Psm::Auto, languages, timeout)
}

/// Recognises several page images in one Tesseract call and returns one
/// hOCR document with one `ocr_page` per image, in order. One page goes in
/// as a BMP with `--dpi`; several as one multi-page TIFF, each page
/// carrying its own resolution (Tesseract gives the same words and boxes
/// either way). Through the program, one call loads the models once
/// (about 0.13 CPU-s with English); a server has them loaded already.
/// `timeout` is for the whole call.
pub fn run_pages(
    pages: &[(&GrayImage, u32)],
    psm: Psm,
    languages: &str,
    timeout: Duration,
) -> Result<String> {
    run_pages_in(&std::env::temp_dir(), pages, psm, languages, timeout)
}

/// `run_pages` with the temporary image file in `dir`.
fn run_pages_in(
    dir: &Path,
    pages: &[(&GrayImage, u32)],
    psm: Psm,
    languages: &str,
    timeout: Duration,
) -> Result<String> {
    check_languages(languages)?;
    let image = write_image(dir, pages)?;
    let dpi = match pages {
        [(_, dpi)] => Some(*dpi),
        _ => None,
    };
    match super::server::read(image.path(), psm, dpi, languages, timeout) {
        Some(read) => read,
        None => run_program(image.path(), dpi, psm, languages, timeout),
    }
}

/// Reads the image file `image` with one run of the `tesseract` program:
/// the route when no OCR server can run (see `server`).
fn run_program(
    image: &Path,
    dpi: Option<u32>,
    psm: Psm,
    languages: &str,
    timeout: Duration,
) -> Result<String> {
    let mut command = Command::new(PROGRAM);
    crate::inspect::pool::die_with_spawning_thread(&mut command);
    command.arg(image).arg("stdout");
    if let Some(dpi) = dpi {
        command.arg("--dpi").arg(dpi.to_string());
    }
    let mut child = command
        .args(["--psm", &psm.number().to_string(), "-l", languages, "hocr"])
        // One thread per tesseract: the caller runs one page per core, and
        // OpenMP threads on top of that made two jobs ~4x slower.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => anyhow::Error::new(TesseractMissing),
            _ => anyhow::Error::new(e).context(format!("starting {PROGRAM}")),
        })?;

    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let ((out, err), timed_out) = kill_after(child.id(), timeout, || {
        std::thread::scope(|s| {
            let err = s.spawn(move || {
                let mut e = Vec::new();
                let _ = stderr.read_to_end(&mut e);
                e
            });
            let mut out = Vec::new();
            let read = stdout.read_to_end(&mut out).map(|_| out);
            (read, err.join().unwrap_or_default())
        })
    });
    let status = child
        .wait()
        .with_context(|| format!("waiting for {PROGRAM}"))?;
    if timed_out {
        return Err(anyhow::Error::new(TimedOut {
            secs: timeout.as_secs_f64(),
        }));
    }
    let out = out.with_context(|| format!("reading {PROGRAM} output"))?;
    if !status.success() {
        bail!(
            "{PROGRAM} failed ({status}): {}",
            String::from_utf8_lossy(&err).trim()
        );
    }
    String::from_utf8(out).with_context(|| format!("{PROGRAM} wrote invalid UTF-8"))
}

/// Writes `pages` to a new temporary file in `dir`, removed when the
/// returned handle is dropped: one page as a BMP, several as one
/// multi-page TIFF, each page carrying its own resolution. The file's path
/// is absolute, so it cannot read as an option on tesseract's command line.
fn write_image(dir: &Path, pages: &[(&GrayImage, u32)]) -> Result<tempfile::NamedTempFile> {
    let dir =
        std::path::absolute(dir).with_context(|| format!("temporary folder {}", dir.display()))?;
    let suffix = if pages.len() == 1 { ".bmp" } else { ".tif" };
    let mut file = tempfile::Builder::new()
        .prefix("colophon-ocr-")
        .suffix(suffix)
        .tempfile_in(&dir)
        .with_context(|| format!("creating a page image in {}", dir.display()))?;
    match pages {
        [(img, dpi)] => write_bmp(file.as_file_mut(), img, *dpi),
        _ => write_tiff(file.as_file_mut(), pages),
    }
    .with_context(|| format!("writing a page image to {}", file.path().display()))?;
    Ok(file)
}

/// The first line of `tesseract --version` ("tesseract 5.3.0"), asked once
/// per process, or "unavailable". Part of the cache key: another Tesseract
/// reads pages differently.
pub fn version() -> &'static str {
    static VERSION: OnceLock<String> = OnceLock::new();
    VERSION.get_or_init(|| {
        Command::new(PROGRAM)
            .arg("--version")
            .stdin(Stdio::null())
            .stderr(Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| {
                String::from_utf8_lossy(&o.stdout)
                    .lines()
                    .next()
                    .map(|l| l.trim().to_string())
            })
            .unwrap_or_else(|| "unavailable".to_string())
    })
}

/// Language codes as Tesseract names them ("eng", "chi_sim", "eng+deu",
/// "script/Latin"). Anything else is refused before it reaches a command
/// line, where a leading `-` would read as an option.
fn check_languages(languages: &str) -> Result<()> {
    let ok = !languages.is_empty()
        && languages.split('+').all(|code| {
            code.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
                && code
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '/' || c == '-')
        });
    if !ok {
        bail!(
            "OCR_LANGUAGES {languages:?} is not a list of Tesseract language codes \
             joined with '+' (for example \"eng\" or \"eng+deu\")"
        );
    }
    Ok(())
}

/// Writes `img` as an 8-bit palette BMP (gray ramp palette, rows bottom-up,
/// each padded to 4 bytes) with its resolution set to `dpi`.
fn write_bmp(out: &mut impl Write, img: &GrayImage, dpi: u32) -> std::io::Result<()> {
    let (w, h) = (img.width() as usize, img.height() as usize);
    let stride = (w + 3) & !3;
    let offset = 14 + 40 + 256 * 4;
    let size = offset + stride * h;
    let ppm = (dpi as f64 / 0.0254).round() as i32;
    let mut head = Vec::with_capacity(offset);
    head.extend_from_slice(b"BM");
    head.extend_from_slice(&(size as u32).to_le_bytes());
    head.extend_from_slice(&0u32.to_le_bytes());
    head.extend_from_slice(&(offset as u32).to_le_bytes());
    head.extend_from_slice(&40u32.to_le_bytes());
    head.extend_from_slice(&(w as i32).to_le_bytes());
    head.extend_from_slice(&(h as i32).to_le_bytes());
    head.extend_from_slice(&1u16.to_le_bytes()); // planes
    head.extend_from_slice(&8u16.to_le_bytes()); // bits per pixel
    head.extend_from_slice(&0u32.to_le_bytes()); // no compression
    head.extend_from_slice(&((stride * h) as u32).to_le_bytes());
    head.extend_from_slice(&ppm.to_le_bytes());
    head.extend_from_slice(&ppm.to_le_bytes());
    head.extend_from_slice(&256u32.to_le_bytes()); // palette entries
    head.extend_from_slice(&256u32.to_le_bytes()); // all of them used
    for v in 0..=255u8 {
        head.extend_from_slice(&[v, v, v, 0]);
    }
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    out.write_all(&head)?;
    let pad = [0u8; 3];
    for row in img.as_raw().chunks_exact(w).rev() {
        out.write_all(row)?;
        out.write_all(&pad[..stride - w])?;
    }
    out.flush()
}

/// Writes `pages` as one little-endian multi-page TIFF: per page an
/// uncompressed 8-bit gray strip (0 = black), then its resolution and its
/// directory, each directory pointing at the next.
fn write_tiff(out: &mut impl Write, pages: &[(&GrayImage, u32)]) -> std::io::Result<()> {
    const ENTRIES: u32 = 12;
    let ifd_len = 2 + 12 * ENTRIES + 4;
    let mut out = std::io::BufWriter::with_capacity(1 << 16, out);
    out.write_all(b"II*\0")?;
    // Each page: pixels (padded to an even length), 16 bytes of
    // resolution, the directory. The first directory follows the first
    // page's pixels and resolution.
    let mut at: u64 = 8;
    let mut layout = Vec::with_capacity(pages.len());
    for (img, _) in pages {
        let pixels = u64::from(img.width()) * u64::from(img.height());
        let res = at + pixels + (pixels & 1);
        let ifd = res + 16;
        layout.push((at, res, ifd));
        at = ifd + u64::from(ifd_len);
    }
    let offset = |v: u64| -> std::io::Result<u32> {
        u32::try_from(v).map_err(|_| std::io::Error::other("pages too large for one TIFF"))
    };
    out.write_all(&offset(layout.first().map_or(0, |l| l.2))?.to_le_bytes())?;
    for (n, ((img, dpi), &(pixels_at, res_at, _))) in pages.iter().zip(&layout).enumerate() {
        let (w, h) = (img.width(), img.height());
        out.write_all(img.as_raw())?;
        if (u64::from(w) * u64::from(h)) & 1 == 1 {
            out.write_all(&[0])?;
        }
        for _ in 0..2 {
            out.write_all(&dpi.to_le_bytes())?;
            out.write_all(&1u32.to_le_bytes())?;
        }
        let next = layout.get(n + 1).map_or(Ok(0), |l| offset(l.2))?;
        let short = |tag: u16, v: u16| (tag, 3u16, 1u32, u32::from(v));
        let long = |tag: u16, v: u32| (tag, 4u16, 1u32, v);
        let entries = [
            long(256, w),                     // ImageWidth
            long(257, h),                     // ImageLength
            short(258, 8),                    // BitsPerSample
            short(259, 1),                    // Compression: none
            short(262, 1),                    // Photometric: black is zero
            long(273, offset(pixels_at)?),    // StripOffsets
            short(277, 1),                    // SamplesPerPixel
            long(278, h),                     // RowsPerStrip: one strip
            long(279, w * h),                 // StripByteCounts
            (282, 5, 1, offset(res_at)?),     // XResolution (rational)
            (283, 5, 1, offset(res_at + 8)?), // YResolution
            short(296, 2),                    // ResolutionUnit: inch
        ];
        debug_assert_eq!(entries.len() as u32, ENTRIES);
        out.write_all(&(ENTRIES as u16).to_le_bytes())?;
        for (tag, kind, count, value) in entries {
            out.write_all(&tag.to_le_bytes())?;
            out.write_all(&kind.to_le_bytes())?;
            out.write_all(&count.to_le_bytes())?;
            // A SHORT value sits in the first two bytes of the field.
            out.write_all(&value.to_le_bytes())?;
        }
        out.write_all(&next.to_le_bytes())?;
    }
    out.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 38: `PDF_TIMEOUT = 5` with slow OCR said "took longer than
    /// 0 s" when the document had less than half a second left.
    #[test]
    fn a_short_time_limit_is_not_shown_as_zero() {
        let text = |secs| TimedOut { secs }.to_string();
        assert_eq!(
            text(0.3),
            "tesseract took longer than 0.3 s and was stopped \
             (the time left of this document's PDF_TIMEOUT)"
        );
        assert!(text(0.01).contains("than 0.1 s"), "{}", text(0.01));
        assert!(text(4.96).contains("than 5.0 s"), "{}", text(4.96));
        assert!(text(120.0).contains("than 120 s"), "{}", text(120.0));
    }

    #[test]
    fn languages_are_checked() {
        for ok in ["eng", "eng+deu", "chi_sim", "script/Latin"] {
            assert!(check_languages(ok).is_ok(), "{ok}");
        }
        for bad in ["", "-l", "eng+", "eng deu", "eng;rm", "+eng"] {
            assert!(check_languages(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn missing_language_is_an_error_naming_it() {
        let img = GrayImage::from_pixel(50, 50, image::Luma([255]));
        let err = run(&img, 300, "zzz", Duration::from_secs(30)).unwrap_err();
        assert!(format!("{err:#}").contains("zzz"), "{err:#}");
    }

    #[test]
    fn bmp_layout_is_bottom_up_padded_with_resolution() {
        // 5 px wide: rows need padding; distinct values show orientation.
        let img = GrayImage::from_fn(5, 3, |x, y| image::Luma([(y * 5 + x) as u8 * 10]));
        let mut bmp = Vec::new();
        write_bmp(&mut bmp, &img, 300).unwrap();
        assert_eq!(bmp.len(), 14 + 40 + 1024 + 8 * 3);
        // Layout checked by hand (the image crate is built without BMP);
        // that Tesseract reads it upright is shown by the boxes in the
        // `ocr` page test.
        let pixels = &bmp[14 + 40 + 1024..];
        assert_eq!(&pixels[..5], &[100, 110, 120, 130, 140], "bottom row first");
        assert_eq!(&pixels[5..8], &[0, 0, 0], "padded to 4 bytes");
        assert_eq!(&pixels[16..21], &[0, 10, 20, 30, 40], "top row last");
        let ppm = i32::from_le_bytes(bmp[38..42].try_into().unwrap());
        assert_eq!(ppm, 11811);
    }

    #[test]
    fn a_page_over_time_is_stopped() {
        // Starting tesseract alone takes far more than 1 ms.
        let img = GrayImage::from_pixel(600, 600, image::Luma([255]));
        let t = std::time::Instant::now();
        let err = run(&img, 300, "eng", Duration::from_millis(1)).unwrap_err();
        assert!(format!("{err:#}").contains("longer than"), "{err:#}");
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn the_page_image_file_is_removed_after_each_call() {
        let dir = tempfile::tempdir().unwrap();
        let left = || std::fs::read_dir(dir.path()).unwrap().count();
        let blank = GrayImage::from_pixel(60, 60, image::Luma([255]));
        let two = [(&blank, 200), (&blank, 200)];
        let out = run_pages_in(dir.path(), &two, Psm::Auto, "eng", Duration::from_secs(60));
        assert_eq!(out.unwrap().matches("class='ocr_page'").count(), 2);
        assert_eq!(left(), 0, "after a read");
        let err = run_pages_in(dir.path(), &two, Psm::Auto, "zzz", Duration::from_secs(60));
        assert!(err.is_err());
        assert_eq!(left(), 0, "after a failure");
        let one = [(&blank, 300)];
        let err = run_pages_in(dir.path(), &one, Psm::Auto, "eng", Duration::from_millis(1));
        assert!(format!("{:#}", err.unwrap_err()).contains("longer than"));
        assert_eq!(left(), 0, "after a timeout");
    }

    /// A real scanned page: page 1 of a fixture, rendered at 200 dpi.
    fn scanned_page() -> GrayImage {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("page");
        let pdf = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/fixtures/book-p01-scanned.pdf"
        );
        let status = Command::new("pdftoppm")
            .args(["-r", "200", "-gray", "-png", "-singlefile", pdf])
            .arg(&out)
            .status()
            .expect("pdftoppm (poppler-utils) is needed by this test");
        assert!(status.success());
        image::open(dir.path().join("page.png")).unwrap().to_luma8()
    }

    #[test]
    fn the_ocr_server_reads_as_the_program_does() {
        let page = scanned_page();
        let dir = tempfile::tempdir().unwrap();
        let without_name = |h: &str| {
            let name = regex::Regex::new(r#"image "[^"]*""#).unwrap();
            name.replace_all(h, "").into_owned()
        };
        let long = Duration::from_secs(300);
        for (pages, dpi) in [
            (vec![(&page, 200)], Some(200)),
            (vec![(&page, 200); 2], None),
        ] {
            let image = write_image(dir.path(), &pages).unwrap();
            let served = super::super::server::read(image.path(), Psm::Auto, dpi, "eng", long)
                .expect("unit tests run an OCR server")
                .unwrap();
            let program = run_program(image.path(), dpi, Psm::Auto, "eng", long).unwrap();
            assert_eq!(without_name(&served), without_name(&program));
            let pages_read = served.matches("class='ocr_page'").count();
            assert_eq!(pages_read, pages.len());
            assert!(served.contains("ocrx_word"), "{served}");
        }
    }

    #[test]
    fn version_names_tesseract() {
        assert!(version().starts_with("tesseract "), "{}", version());
    }
}
