//! Dumps what `inspect` reads from PDFs, for people and for the finders'
//! authors:
//!
//! ```text
//! cargo run --example dump_pages -- [--jobs N] [--front-only] [--no-write] OUT_DIR FILE...
//! ```
//!
//! writes `OUT_DIR/<stem>.json` = {"file", "page_count", "info", "pages"}
//! with the [`PageText`](colophon::model::PageText) of the first 8 and last
//! 5 pages (`--front-only`: the first 8). Without `--jobs` it reads
//! in-process; with it, through a pool of N worker processes (this example
//! doubles as the worker: `dump_pages worker`), which is how the pages/s of
//! the pool are measured. A file that fails is reported on stderr and
//! skipped.

use anyhow::{Context, Result, bail};
use colophon::inspect::{Document, PoolConfig, WorkerPool};
use colophon::model::{DocInfo, PageText};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

const FRONT: u32 = 8;
const BACK: u32 = 5;

struct Options {
    out_dir: PathBuf,
    files: Vec<PathBuf>,
    jobs: Option<usize>,
    front_only: bool,
    write: bool,
}

fn main() -> Result<()> {
    let mut args = std::env::args_os().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "worker") {
        return colophon::inspect::worker::serve_stdio();
    }
    let mut opts = Options {
        out_dir: PathBuf::new(),
        files: Vec::new(),
        jobs: None,
        front_only: false,
        write: true,
    };
    let mut positional = Vec::new();
    while let Some(a) = args.next() {
        match a.to_str() {
            Some("--jobs") => {
                let n = args.next().and_then(|n| n.to_str()?.parse().ok());
                opts.jobs = Some(n.context("--jobs needs a number")?);
            }
            Some("--front-only") => opts.front_only = true,
            Some("--no-write") => opts.write = false,
            _ => positional.push(PathBuf::from(a)),
        }
    }
    if positional.len() < 2 {
        bail!("usage: dump_pages [--jobs N] [--front-only] [--no-write] OUT_DIR FILE...");
    }
    opts.out_dir = positional.remove(0);
    opts.files = positional;
    std::fs::create_dir_all(&opts.out_dir)
        .with_context(|| format!("creating {}", opts.out_dir.display()))?;

    let started = std::time::Instant::now();
    let pages_read = AtomicUsize::new(0);
    let failed = AtomicUsize::new(0);
    let record = |file: &Path, got: Result<(DocInfo, Vec<PageText>)>| match got
        .and_then(|(info, pages)| write(&opts, file, &info, &pages).map(|_| pages.len()))
    {
        Ok(n) => {
            pages_read.fetch_add(n, Ordering::Relaxed);
        }
        Err(e) => {
            failed.fetch_add(1, Ordering::Relaxed);
            eprintln!("{}: {e:#}", file.display());
        }
    };
    match opts.jobs {
        None => {
            for file in &opts.files {
                record(file, read_in_process(file, opts.front_only));
            }
        }
        Some(jobs) => {
            let pool = WorkerPool::new(PoolConfig::new(jobs, 120.0));
            let queue = Mutex::new(opts.files.iter());
            std::thread::scope(|s| {
                for _ in 0..jobs {
                    s.spawn(|| {
                        loop {
                            let Some(file) = queue.lock().unwrap().next() else {
                                break;
                            };
                            record(file, read_in_pool(&pool, file, opts.front_only));
                        }
                    });
                }
            });
        }
    }
    let secs = started.elapsed().as_secs_f64();
    let pages = pages_read.into_inner();
    eprintln!(
        "{pages} pages in {secs:.2} s ({:.0} pages/s), {} files failed",
        pages as f64 / secs.max(1e-9),
        failed.into_inner()
    );
    Ok(())
}

fn wanted(n: u32, front_only: bool) -> Vec<u32> {
    let mut v: Vec<u32> = (0..n.min(FRONT)).collect();
    if !front_only {
        v.extend(n.saturating_sub(BACK).max(n.min(FRONT))..n);
    }
    v
}

fn read_in_process(file: &Path, front_only: bool) -> Result<(DocInfo, Vec<PageText>)> {
    let doc = Document::open(file)?;
    let info = doc.info();
    let mut pages = Vec::new();
    for i in wanted(info.page_count, front_only) {
        pages.push(
            doc.read_page(i)
                .with_context(|| format!("page {}", i + 1))?
                .text,
        );
    }
    Ok((info, pages))
}

fn read_in_pool(
    pool: &WorkerPool,
    file: &Path,
    front_only: bool,
) -> Result<(DocInfo, Vec<PageText>)> {
    let mut w = pool.checkout()?;
    let info = w.open(file)?;
    let pages = w.read_pages(&wanted(info.page_count, front_only))?;
    Ok((info, pages.into_iter().map(|p| p.text).collect()))
}

fn write(opts: &Options, file: &Path, info: &DocInfo, pages: &[PageText]) -> Result<()> {
    if !opts.write {
        return Ok(());
    }
    let stem = file.file_stem().unwrap_or_default().to_string_lossy();
    let json = serde_json::json!({
        "file": file.file_name().map(|f| f.to_string_lossy()),
        "page_count": info.page_count,
        "info": info.info,
        "pages": pages,
    });
    let out = opts.out_dir.join(format!("{stem}.json"));
    std::fs::write(&out, serde_json::to_string_pretty(&json)?)
        .with_context(|| format!("writing {}", out.display()))
}
