//! Measures the OCR stage on real PDFs: renders each page with poppler's
//! `pdftoppm` (as the renderer would hand it over: 8-bit gray at a chosen
//! DPI), runs `colophon::ocr::ocr_page` on one core, and prints seconds
//! (wall and tesseract CPU) and confidence per page and in total.
//!
//! ```text
//! cargo run --example ocr_corpus -- [--dpi 300] [--text-dir DIR] [--dump-dir DIR] [--languages eng+deu] FILE.pdf...
//! cargo run --example ocr_corpus -- ../shared/corpus/pdfs/*-scanned.pdf
//! ```
//!
//! With `--text-dir`, each page's OCR text is written to
//! `DIR/<pdf stem>-<page>.txt` (1-based page) for comparison with a reference.
//!
//! With `--dump-dir`, each PDF's OCRed pages are written as
//! `DIR/<pdf stem>.json` in the page-dump shape `score_dumps` reads, so the
//! finders' candidates on a scan can be looked at with `score_dumps -v`.
//!
//! With `--needs-ocr`, the files are page-text dumps (JSON objects with a
//! `pages` array of `PageText`, as written for the corpus) and the example
//! prints, per file, which pages `needs_ocr` would send to OCR.

use anyhow::{Context, Result, bail};
use colophon::model::PageText;
use colophon::ocr::{OcrOptions, needs_ocr, ocr_page};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

fn main() -> Result<()> {
    let mut dpi = 300u32;
    let mut text_dir: Option<PathBuf> = None;
    let mut dump_dir: Option<PathBuf> = None;
    let mut opts = OcrOptions::default();
    let mut dumps = false;
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--dpi" => dpi = args.next().context("--dpi N")?.parse()?,
            "--text-dir" => text_dir = Some(args.next().context("--text-dir DIR")?.into()),
            "--dump-dir" => dump_dir = Some(args.next().context("--dump-dir DIR")?.into()),
            "--languages" => opts.languages = args.next().context("--languages eng+deu")?,
            "--needs-ocr" => dumps = true,
            _ => files.push(PathBuf::from(a)),
        }
    }
    if files.is_empty() {
        bail!(
            "usage: ocr_corpus [--dpi N] [--text-dir DIR] [--dump-dir DIR] [--languages L] FILE.pdf..."
        );
    }
    if dumps {
        return report_needs_ocr(&files);
    }
    for d in text_dir.iter().chain(&dump_dir) {
        std::fs::create_dir_all(d)?;
    }
    let tmp = tempfile::tempdir()?;
    let (mut pages, mut wall, mut cpu, mut conf_sum, mut conf_n, mut words) =
        (0, 0.0, 0.0, 0.0, 0, 0);
    for file in &files {
        let stem = file.file_stem().unwrap().to_string_lossy().to_string();
        let sizes = page_sizes(file)?;
        let page_count = sizes.len();
        let mut read = Vec::new();
        for (n, (w_pt, h_pt)) in sizes.into_iter().enumerate() {
            let n = n as u32 + 1;
            let img = render(file, n, dpi, tmp.path())?;
            let c0 = children_cpu();
            let t0 = Instant::now();
            let page = ocr_page(&img, w_pt, h_pt, n - 1, &opts)?;
            let dt = t0.elapsed().as_secs_f64();
            let dc = children_cpu() - c0;
            pages += 1;
            wall += dt;
            cpu += dc;
            words += page.word_count();
            if let Some(c) = page.ocr_confidence {
                conf_sum += c as f64;
                conf_n += 1;
            }
            let top = page
                .lines
                .iter()
                .max_by(|a, b| a.size.total_cmp(&b.size))
                .map(|l| format!("{:.1}pt {:?}", l.size, l.text))
                .unwrap_or_default();
            println!(
                "{stem} p{n}: {dt:.2}s wall {dc:.2}s cpu conf {} words {} lines {} largest {top}",
                page.ocr_confidence
                    .map_or("-".into(), |c| format!("{c:.1}")),
                page.word_count(),
                page.lines.len(),
            );
            if let Some(d) = &text_dir {
                std::fs::write(d.join(format!("{stem}-{n}.txt")), page.plain_text())?;
            }
            read.push(page);
        }
        if let Some(d) = &dump_dir {
            let dump = serde_json::json!({
                "file": file.display().to_string(),
                "page_count": page_count,
                "pages": read,
            });
            std::fs::write(d.join(format!("{stem}.json")), dump.to_string())?;
        }
    }
    println!(
        "pages {pages}: {:.3} s/page wall, {:.3} s/page tesseract cpu, mean page confidence {:.1}, real words {words}",
        wall / pages as f64,
        cpu / pages as f64,
        conf_sum / conf_n.max(1) as f64
    );
    Ok(())
}

/// Which pages of each dump `needs_ocr` flags (1-based page numbers).
fn report_needs_ocr(files: &[PathBuf]) -> Result<()> {
    #[derive(serde::Deserialize)]
    struct Dump {
        pages: Vec<PageText>,
    }
    let (mut total, mut flagged) = (0, 0);
    for file in files {
        let text = std::fs::read_to_string(file)?;
        let dump: Dump =
            serde_json::from_str(&text).with_context(|| format!("{}", file.display()))?;
        let pages: Vec<String> = dump
            .pages
            .iter()
            .filter(|p| needs_ocr(p))
            .map(|p| {
                format!(
                    "p{}(w{} img{:.2})",
                    p.index + 1,
                    p.word_count(),
                    p.image_ratio
                )
            })
            .collect();
        total += dump.pages.len();
        flagged += pages.len();
        println!(
            "{}: {}/{} {}",
            file.display(),
            pages.len(),
            dump.pages.len(),
            pages.join(" ")
        );
    }
    println!("needs_ocr: {flagged} of {total} pages");
    Ok(())
}

/// Page sizes in points from `pdfinfo -f 1 -l N`.
fn page_sizes(file: &Path) -> Result<Vec<(f32, f32)>> {
    let info = Command::new("pdfinfo").arg(file).output()?;
    let info = String::from_utf8_lossy(&info.stdout);
    let count: u32 = info
        .lines()
        .find_map(|l| l.strip_prefix("Pages:"))
        .context("pdfinfo: no page count")?
        .trim()
        .parse()?;
    let out = Command::new("pdfinfo")
        .args(["-f", "1", "-l", &count.to_string()])
        .arg(file)
        .output()?;
    let sizes = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter(|l| l.starts_with("Page") && l.contains(" size:"))
        .filter_map(|l| {
            let v: Vec<f32> = l
                .split(':')
                .nth(1)?
                .split_whitespace()
                .filter_map(|t| t.parse().ok())
                .collect();
            (v.len() >= 2).then(|| (v[0], v[1]))
        })
        .collect();
    Ok(sizes)
}

fn render(file: &Path, page: u32, dpi: u32, tmp: &Path) -> Result<image::GrayImage> {
    let out = tmp.join("page");
    let p = page.to_string();
    let status = Command::new("pdftoppm")
        .args([
            "-r",
            &dpi.to_string(),
            "-gray",
            "-png",
            "-singlefile",
            "-f",
            &p,
            "-l",
            &p,
        ])
        .arg(file)
        .arg(&out)
        .status()?;
    if !status.success() {
        bail!("pdftoppm failed on {} page {page}", file.display());
    }
    Ok(image::open(tmp.join("page.png"))?.to_luma8())
}

/// CPU seconds used by waited-for children (the tesseract processes).
fn children_cpu() -> f64 {
    // SAFETY: getrusage fills the struct it is given.
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut ru) };
    let t = |v: libc::timeval| v.tv_sec as f64 + v.tv_usec as f64 / 1e6;
    t(ru.ru_utime) + t(ru.ru_stime)
}
