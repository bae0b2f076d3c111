//! Test fixture: a temporary project root with `colophon.toml`, `data/`,
//! and a command builder for the built binary; fixture PDFs by name, and
//! the synthetic PDFs that several tests build.

#![allow(dead_code, clippy::new_without_default)]

use std::collections::BTreeMap;

/// colophon's setting `OCR_LIBTESSERACT`: `off` makes it read scans with the
/// `tesseract` program instead of its OCR servers (libtesseract), so a
/// stand-in program on `PATH` is what reads them.
pub const LIBTESSERACT_ENV: &str = "OCR_LIBTESSERACT";
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

pub use crate::test_pdfs::{SyntheticPdf, fixture};

pub struct TestProject {
    pub dir: tempfile::TempDir,
}

impl TestProject {
    pub fn new() -> TestProject {
        let dir = tempfile::tempdir().expect("tempdir");
        std::fs::create_dir(dir.path().join("data")).unwrap();
        std::fs::write(dir.path().join("colophon.toml"), "").unwrap();
        TestProject { dir }
    }

    pub fn root(&self) -> &Path {
        self.dir.path()
    }

    pub fn data(&self) -> PathBuf {
        self.root().join("data")
    }

    pub fn config(&self, toml: &str) {
        std::fs::write(self.root().join("colophon.toml"), toml).unwrap();
    }

    /// Copies a fixture into data/ under `rel`.
    pub fn add(&self, fixture_name: &str, rel: &str) -> PathBuf {
        let dest = self.data().join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::copy(fixture(fixture_name), &dest).unwrap();
        dest
    }

    pub fn write(&self, rel: &str, bytes: &[u8]) -> PathBuf {
        let dest = self.data().join(rel);
        std::fs::create_dir_all(dest.parent().unwrap()).unwrap();
        std::fs::write(&dest, bytes).unwrap();
        dest
    }

    /// The colophon binary, run from the project root with a clean
    /// environment of colophon settings.
    pub fn cmd(&self) -> Command {
        let mut c = Command::new(env!("CARGO_BIN_EXE_colophon"));
        c.current_dir(self.root());
        // Every setting's variable, from the settings' own table.
        for name in colophon::settings::env_names() {
            c.env_remove(name);
        }
        // The batch schedulers' shard index and the run group.
        for (k, _) in std::env::vars() {
            if k.starts_with("SLURM_ARRAY_") || k == "JOB_COMPLETION_INDEX" || k == "RUN_GROUP" {
                c.env_remove(k);
            }
        }
        c.env("WORKER_EXECUTABLE", env!("CARGO_BIN_EXE_colophon"));
        c
    }

    /// Runs `colophon <args> --json -q` and parses the records.
    pub fn run_json(&self, args: &[&str]) -> (Output, Vec<serde_json::Value>) {
        let out = self
            .cmd()
            .args(args)
            .args(["--json", "-q"])
            .output()
            .expect("running colophon");
        let records = String::from_utf8_lossy(&out.stdout)
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON: {l}: {e}")))
            .collect();
        (out, records)
    }

    /// The counts of the latest run's summary.md.
    pub fn summary(&self) -> BTreeMap<String, u64> {
        let text = std::fs::read_to_string(self.root().join("cache/runs/latest/summary.md"))
            .expect("summary.md");
        text.lines()
            .filter_map(|l| {
                let cells: Vec<_> = l.trim_matches('|').split('|').map(str::trim).collect();
                (cells.len() == 2).then(|| Some((cells[0].to_string(), cells[1].parse().ok()?)))?
            })
            .collect()
    }

    /// Every file under data/ with its blake3, to prove a dry run changed nothing.
    pub fn snapshot(&self) -> BTreeMap<PathBuf, String> {
        fn walk(dir: &Path, base: &Path, out: &mut BTreeMap<PathBuf, String>) {
            for e in std::fs::read_dir(dir).unwrap().flatten() {
                let p = e.path();
                let meta = std::fs::symlink_metadata(&p).unwrap();
                if meta.is_dir() {
                    walk(&p, base, out);
                } else {
                    let bytes = std::fs::read(&p).unwrap_or_default();
                    out.insert(
                        p.strip_prefix(base).unwrap().into(),
                        blake3::hash(&bytes).to_hex().to_string(),
                    );
                }
            }
        }
        let mut out = BTreeMap::new();
        walk(&self.data(), &self.data(), &mut out);
        out
    }
}

/// A command's stderr, as text.
pub fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A command's stdout, as text.
pub fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// Asserts the exit code of a colophon run, showing its stderr otherwise.
#[track_caller]
pub fn assert_exit(out: &Output, code: i32) {
    assert_eq!(out.status.code(), Some(code), "stderr: {}", stderr(out));
}

pub fn record_for<'a>(records: &'a [serde_json::Value], path: &str) -> &'a serde_json::Value {
    records
        .iter()
        .find(|r| r["path"] == path)
        .unwrap_or_else(|| panic!("no record for {path} in {records:#?}"))
}

/// Writes a PDF whose pages are each one full-page picture with no text at
/// all (a photographed cover: smooth shading and a few blocks, nothing
/// Tesseract can read).
pub fn photo_pdf(path: &Path, pages: u32) {
    photo_pdf_variant(path, pages, 0);
}

/// [`photo_pdf`] with pictures shaded by `variant`: PDFs of different
/// variants have no page image in common (each is a vision request of
/// its own).
pub fn photo_pdf_variant(path: &Path, pages: u32, variant: u32) {
    let (w, h) = (300u32, 400u32);
    let mut pdf = SyntheticPdf::new();
    for n in 0..pages {
        let mut pixels = Vec::with_capacity((w * h) as usize);
        for y in 0..h {
            for x in 0..w {
                let shade =
                    ((x + y + n * 40 + variant * 7) * 255 / (w + h + 200 + variant * 7)) as u8;
                let block = (x / 60 + y / 80) % 3 == 0;
                pixels.push(if block { shade / 2 } else { shade });
            }
        }
        pdf = pdf.image_page(612.0, 792.0, w, h, pixels);
    }
    pdf.save(path);
}

/// Writes an image-only PDF made of the given pages of `source`, each
/// rendered to gray at `dpi` by pdfium (in this process) and embedded as a
/// picture: the text is there to read, but only for OCR.
pub fn image_only_copy(source: &Path, pages: &[u32], dpi: u32, dest: &Path) {
    let src = colophon::inspect::Document::open(source).expect("source opens");
    let mut pdf = SyntheticPdf::new().compressed();
    for &i in pages {
        let img = src.render_page(i, dpi, 50_000_000).expect("page renders");
        let (w, h) = (img.width(), img.height());
        let pt = |px: u32| px as f32 * 72.0 / dpi as f32;
        pdf = pdf.image_page(pt(w), pt(h), w, h, img.into_raw());
    }
    pdf.save(dest);
}
