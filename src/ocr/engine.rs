//! Runs the `tesseract` program on one page image and returns its hOCR.
//!
//! Why the program and not libtesseract (crate `tesseract`): see the module
//! docs of `ocr`. In short, OpenMP reads `OMP_THREAD_LIMIT` only when
//! libgomp is loaded, so a linked library cannot be limited to one thread
//! from inside colophon, while a child process gets it in its environment;
//! a child can also be killed on a timeout and cannot take colophon down
//! with it.
//!
//! The image goes in as binary PGM on stdin and hOCR comes back on stdout:
//! no temporary files, no PNG encoding.

use anyhow::{Context, Result, bail};
use image::GrayImage;
use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::sync::mpsc;
use std::time::Duration;

/// The program run, found on `PATH`.
const PROGRAM: &str = "tesseract";

/// Recognises `img` (`dpi` pixels per inch) with Tesseract in automatic page
/// segmentation (PSM 3) and returns the hOCR document. Kills tesseract and
/// fails when it takes longer than `timeout`.
pub fn run(img: &GrayImage, dpi: u32, languages: &str, timeout: Duration) -> Result<String> {
    check_languages(languages)?;
    let mut child = Command::new(PROGRAM)
        .args(["stdin", "stdout", "--dpi"])
        .arg(dpi.to_string())
        .args(["--psm", "3", "-l", languages, "hocr"])
        // One thread per tesseract: the caller runs one page per core, and
        // OpenMP threads on top of that made two jobs ~4x slower.
        .env("OMP_THREAD_LIMIT", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => anyhow::anyhow!(
                "the `{PROGRAM}` program was not found on PATH: install Tesseract \
                 (Debian: tesseract-ocr and tesseract-ocr-eng)"
            ),
            _ => anyhow::Error::new(e).context(format!("starting {PROGRAM}")),
        })?;

    let pid = child.id();
    let mut stdin = child.stdin.take().expect("piped stdin");
    let mut stdout = child.stdout.take().expect("piped stdout");
    let mut stderr = child.stderr.take().expect("piped stderr");
    let (done_tx, done_rx) = mpsc::channel::<()>();

    let (out, err, timed_out) = std::thread::scope(|s| {
        // The image is several MB: write it from its own thread so that a
        // tesseract that fails early (bad language) cannot leave us blocked
        // on a full pipe. A write error just means tesseract exited; its
        // status and stderr say why.
        s.spawn(move || {
            let _ = stdin.write_all(&pgm_header(img));
            let _ = stdin.write_all(img.as_raw());
        });
        let err = s.spawn(move || {
            let mut e = Vec::new();
            let _ = stderr.read_to_end(&mut e);
            e
        });
        // Watchdog: the child is only reaped after this thread is joined,
        // so its pid cannot have been reused when the kill is sent.
        let watchdog = s.spawn(move || match done_rx.recv_timeout(timeout) {
            Err(mpsc::RecvTimeoutError::Timeout) => {
                // SAFETY: plain kill(2) on our own unreaped child.
                unsafe { libc::kill(pid as libc::pid_t, libc::SIGKILL) };
                true
            }
            _ => false,
        });
        let mut out = Vec::new();
        let read = stdout.read_to_end(&mut out);
        let err = err.join().unwrap_or_default();
        let _ = done_tx.send(());
        let timed_out = watchdog.join().unwrap_or(false);
        (read.map(|_| out), err, timed_out)
    });
    let status = child
        .wait()
        .with_context(|| format!("waiting for {PROGRAM}"))?;
    if timed_out {
        bail!(
            "{PROGRAM} took longer than {:.0} s on one page and was stopped",
            timeout.as_secs_f64()
        );
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

/// Binary PGM header; the pixels follow as they are in a `GrayImage`.
fn pgm_header(img: &GrayImage) -> Vec<u8> {
    format!("P5\n{} {}\n255\n", img.width(), img.height()).into_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn version_names_tesseract() {
        assert!(version().starts_with("tesseract "), "{}", version());
    }
}
