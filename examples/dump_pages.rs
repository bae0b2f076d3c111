//! Dumps what `inspect` reads from PDFs, for people and for the finders'
//! authors: `cargo run --example dump_pages -- OUT_DIR FILE...` writes
//! `OUT_DIR/<stem>.json` = {"file", "page_count", "info", "pages"} with the
//! [`PageText`](colophon::model::PageText) of the first 8 and last 5 pages.
//!
//! Reads in-process (no worker pool); a file that fails is reported on
//! stderr and skipped.

use anyhow::{Context, Result, bail};
use colophon::inspect::Document;
use std::path::{Path, PathBuf};

const FRONT: u32 = 8;
const BACK: u32 = 5;

fn main() -> Result<()> {
    let mut args = std::env::args_os().skip(1);
    let Some(out_dir) = args.next().map(PathBuf::from) else {
        bail!("usage: dump_pages OUT_DIR FILE...");
    };
    std::fs::create_dir_all(&out_dir).with_context(|| format!("creating {}", out_dir.display()))?;
    let mut failed = 0;
    let mut pages_read = 0usize;
    let started = std::time::Instant::now();
    for file in args.map(PathBuf::from) {
        match dump(&out_dir, &file) {
            Ok(n) => pages_read += n,
            Err(e) => {
                failed += 1;
                eprintln!("{}: {e:#}", file.display());
            }
        }
    }
    let secs = started.elapsed().as_secs_f64();
    eprintln!(
        "{pages_read} pages in {secs:.2} s ({:.0} pages/s), {failed} files failed",
        pages_read as f64 / secs.max(1e-9)
    );
    Ok(())
}

fn dump(out_dir: &Path, file: &Path) -> Result<usize> {
    let doc = Document::open(file)?;
    let info = doc.info();
    let n = info.page_count;
    let mut indices: Vec<u32> = (0..n.min(FRONT)).collect();
    indices.extend(n.saturating_sub(BACK).max(n.min(FRONT))..n);
    let mut pages = Vec::new();
    for i in indices {
        pages.push(
            doc.read_page(i)
                .with_context(|| format!("page {}", i + 1))?
                .text,
        );
    }
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    let json = serde_json::json!({
        "file": file.file_name().map(|f| f.to_string_lossy()),
        "page_count": n,
        "info": info.info,
        "pages": pages,
    });
    let out = out_dir.join(format!("{stem}.json"));
    std::fs::write(&out, serde_json::to_string_pretty(&json)?)
        .with_context(|| format!("writing {}", out.display()))?;
    Ok(pages.len())
}
