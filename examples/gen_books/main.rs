//! gen_books: writes N invented books with labelled front and back matter
//! (issue 13), for training the ranker and for property tests.
//!
//! ```text
//! cargo run --release --example gen_books -- --seed 7 --count 300 --out /tmp/gen [--scanned]
//! cargo run --release --example gen_books -- --kind papers --count 300 --out /tmp/papers
//! ```
//!
//! `--kind papers` writes scholarly papers (journal, proceedings, preprint
//! and manuscript layouts), with a share of technical reports and slide
//! decks, instead of books (`generator/paper.rs`).
//!
//! Output: `OUT/pdfs/<id>-born.pdf` (and `<id>-scanned.pdf`), and
//! `OUT/truth.json` in the schema of `../shared/corpus/truth.json`. Book `i`
//! of seed `s` depends on nothing else, so runs are reproducible byte for
//! byte and can be split or extended.

mod generator;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use anyhow::{Context, Result};
use clap::Parser;
use rayon::prelude::*;

use generator::fonts::Fonts;
use generator::pages::Features;
use generator::rng::Rng;
use generator::{book, check, fonts, latex, paper, pdf, scan};

#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum What {
    Books,
    /// Papers, with about 15 % reports and 10 % slide decks.
    Papers,
}

#[derive(Parser, Debug)]
#[command(about = "Writes invented books with labelled front and back matter")]
struct Args {
    /// Seed of the run; the same seed writes the same bytes.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Number of books.
    #[arg(long, default_value_t = 20)]
    count: usize,
    /// Index of the first book (to extend a run).
    #[arg(long, default_value_t = 0)]
    start: usize,
    /// What to invent.
    #[arg(long, value_enum, default_value_t = What::Books)]
    kind: What,
    /// Output folder (pdfs/ and truth.json go in it).
    #[arg(long)]
    out: PathBuf,
    /// Also write a scanned variant of every book.
    #[arg(long)]
    scanned: bool,
    /// Use only the lopdf producer, even when pdflatex is installed.
    #[arg(long)]
    no_latex: bool,
    /// Skip the pdftotext self-check.
    #[arg(long)]
    no_check: bool,
    /// Say why books were regenerated.
    #[arg(long, short)]
    verbose: bool,
    /// Worker threads.
    #[arg(long, default_value_t = 2)]
    jobs: usize,
    /// Folder with the DejaVu TrueType faces (Cyrillic, title pictures).
    #[arg(long, default_value = fonts::DEJAVU_DIR)]
    fonts: PathBuf,
}

/// What happened to one book.
enum Outcome {
    /// Truth records, and the self-check failures of earlier attempts.
    Written(Vec<serde_json::Value>, Vec<String>),
    Dropped(String),
}

fn book_id(seed: u64, i: usize) -> String {
    format!("gen-{seed}-{i:05}")
}

/// Writes a PDF and runs the self-check on it: `Some(what is missing)`
/// (and the file removed) when a printed truth value is not found.
fn write_checked(
    path: &Path,
    pdf: &[u8],
    printed: &[generator::pages::Printed],
    check: bool,
) -> Result<Option<String>> {
    std::fs::write(path, pdf).with_context(|| format!("writing {}", path.display()))?;
    if check {
        let bad = check::missing(path, printed).map_err(anyhow::Error::msg)?;
        if !bad.is_empty() {
            let _ = std::fs::remove_file(path);
            return Ok(Some(bad.join("; ")));
        }
    }
    Ok(None)
}

/// The scanned variant of a written PDF.
fn scan_variant(
    args: &Args,
    i: usize,
    path: &Path,
    name: &str,
    sizes: &[(f32, f32)],
) -> Result<String> {
    let pdfs = args.out.join("pdfs");
    let sname = name.replace("-born.pdf", "-scanned.pdf");
    let spath = pdfs.join(&sname);
    let info = pdf::Info {
        producer: "colophon gen_books (scan)".into(),
        ..Default::default()
    };
    let mut srng = Rng::derive(args.seed ^ 0x5CA7, i as u64);
    scan::scan(path, &spath, &mut srng, sizes, &info).map_err(anyhow::Error::msg)?;
    Ok(sname)
}

const SCANNED: &str = "scanned: rendered, turned, blurred, noised, JPEG, no text layer";

/// One invented paper, report or slide deck (`--kind papers`).
fn one_paper(
    args: &Args,
    fonts: &Fonts,
    tex: Option<&latex::Tex>,
    check: bool,
    i: usize,
) -> Result<Outcome> {
    let id = format!("paper-{}-{i:05}", args.seed);
    let pdfs = args.out.join("pdfs");
    let mut failures = Vec::new();
    for attempt in 0..3u64 {
        let mut rng = Rng::derive(args.seed ^ 0x9A9E, (i as u64) << 2 | attempt);
        let kind = [paper::Kind::Paper, paper::Kind::Report, paper::Kind::Slides]
            [rng.weighted(&[0.75, 0.15, 0.1])];
        let g = paper::generate(&mut rng, &id, kind, fonts, tex);
        let name = format!("{id}-born.pdf");
        let path = pdfs.join(&name);
        if let Some(bad) = write_checked(&path, &g.pdf, &g.printed, check)? {
            failures.push(format!("{}: {bad}", g.producer));
            continue;
        }
        let source = format!(
            "generated: gen_books --kind papers seed {} item {i}, {}",
            args.seed, g.producer
        );
        let mut records = vec![paper::truth(&g, &format!("pdfs/{name}"), "asis", &source)];
        if args.scanned && !g.sizes.is_empty() {
            let sname = scan_variant(args, i, &path, &name, &g.sizes)?;
            records.push(paper::truth(
                &g,
                &format!("pdfs/{sname}"),
                "scanned",
                &format!("{source}; {SCANNED}"),
            ));
        }
        return Ok(Outcome::Written(records, failures));
    }
    Ok(Outcome::Dropped(format!("{id}: {}", failures.join(" | "))))
}

fn one(
    args: &Args,
    fonts: &Fonts,
    tex: Option<&latex::Tex>,
    check: bool,
    i: usize,
) -> Result<Outcome> {
    let id = book_id(args.seed, i);
    let pdfs = args.out.join("pdfs");
    let features = Features {
        picture_covers: true,
    };
    let mut failures = Vec::new();
    // A book whose self-check fails is made again from the next stream,
    // up to three times, then dropped.
    for attempt in 0..3u64 {
        let mut rng = Rng::derive(args.seed, (i as u64) << 2 | attempt);
        let g = book::generate(&mut rng, &id, fonts, features, tex);
        let name = format!("{id}-born.pdf");
        let path = pdfs.join(&name);
        if let Some(bad) = write_checked(&path, &g.pdf, &g.composed.printed, check)? {
            failures.push(bad);
            continue;
        }
        let source = format!(
            "generated: gen_books seed {} book {i}, {}",
            args.seed, g.producer
        );
        let mut records = vec![book::truth(&g, &format!("pdfs/{name}"), "asis", &source)];
        if args.scanned {
            let sizes: Vec<(f32, f32)> = g.pages.iter().map(|p| (p.w, p.h)).collect();
            let sname = scan_variant(args, i, &path, &name, &sizes)?;
            let ssource = format!("{source}; {SCANNED}");
            let mut rec = book::truth(&g, &format!("pdfs/{sname}"), "scanned", &ssource);
            for f in ["title", "subtitle"] {
                if let Some(s) = rec["seen"].get_mut(f) {
                    *s = serde_json::Value::String(
                        s.as_str()
                            .unwrap_or("")
                            .replace(" [cover: in the picture only]", ""),
                    );
                }
            }
            records.push(rec);
        }
        return Ok(Outcome::Written(records, failures));
    }
    Ok(Outcome::Dropped(format!("{id}: {}", failures.join(" | "))))
}

fn write_truth(out: &Path, records: &[serde_json::Value]) -> Result<()> {
    let path = out.join("truth.json");
    let text = serde_json::to_string_pretty(records)?;
    std::fs::write(&path, text + "\n").with_context(|| format!("writing {}", path.display()))
}

fn main() -> Result<()> {
    let args = Args::parse();
    std::fs::create_dir_all(args.out.join("pdfs"))
        .with_context(|| format!("creating {}", args.out.display()))?;
    let fonts = Fonts::load(&args.fonts);
    if !fonts.has_unicode() {
        eprintln!(
            "note: DejaVu faces not found in {}: no Cyrillic books and no picture covers",
            args.fonts.display()
        );
    }
    if args.scanned && !scan::pdftoppm_available() {
        anyhow::bail!("--scanned needs pdftoppm (Debian package poppler-utils)");
    }
    let tex = if args.no_latex {
        None
    } else {
        latex::Tex::probe()
    };
    match &tex {
        Some(t) => eprintln!(
            "pdflatex: classes {:?}, fonts {:?}",
            t.classes,
            t.fonts.iter().map(|f| f.0).collect::<Vec<_>>()
        ),
        None if !args.no_latex => eprintln!(
            "note: pdflatex (or geometry/multicol/PSNFSS) not found: the LaTeX producer is skipped, lopdf writes every book"
        ),
        None => {}
    }
    let check = !args.no_check && check::pdftotext_available();
    if !args.no_check && !check {
        eprintln!("note: pdftotext not found: the self-check is skipped");
    }
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.max(1))
        .build()?;
    let retried = AtomicUsize::new(0);
    let results: Vec<Result<Outcome>> = pool.install(|| {
        (args.start..args.start + args.count)
            .into_par_iter()
            .map(|i| match args.kind {
                What::Books => one(&args, &fonts, tex.as_ref(), check, i),
                What::Papers => one_paper(&args, &fonts, tex.as_ref(), check, i),
            })
            .collect()
    });
    let mut records = Vec::new();
    let mut dropped = Vec::new();
    for r in results {
        match r? {
            Outcome::Written(recs, failures) => {
                if !failures.is_empty() {
                    retried.fetch_add(1, Ordering::Relaxed);
                    if args.verbose {
                        eprintln!("regenerated {}: {}", recs[0]["doc"], failures.join(" | "));
                    }
                }
                records.extend(recs);
            }
            Outcome::Dropped(why) => dropped.push(why),
        }
    }
    write_truth(&args.out, &records)?;
    for d in &dropped {
        eprintln!("dropped {d}");
    }
    eprintln!(
        "{} records written to {}, {} books regenerated after a failed self-check, {} dropped",
        records.len(),
        args.out.join("truth.json").display(),
        retried.load(Ordering::Relaxed),
        dropped.len()
    );
    Ok(())
}
