//! Where extraction time goes: runs each stage of `text_candidates` (the
//! layout, the page reading, every finder) and `decide` over page-text
//! dumps (see `score_dumps`), and prints milliseconds per page for each,
//! plus a digest of every candidate so that a speed-up can be checked to
//! change no answer.
//!
//! ```text
//! cargo run --release --example time_finders -- /work/dumps [ROUNDS]
//! ```

use anyhow::{Context, Result};
use colophon::extract::{self, authors, context, doi, edition, isbn, layout, lccn, publisher};
use colophon::extract::{title, year};
use colophon::model::{DocText, PageText};
use serde::Deserialize;
use std::time::{Duration, Instant};

#[derive(Deserialize)]
struct Dump {
    page_count: u32,
    pages: Vec<PageText>,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = args
        .first()
        .context("usage: time_finders DUMP_DIR [ROUNDS]")?;
    let rounds: u32 = args.get(1).map_or(Ok(20), |r| r.parse())?;
    let mut dumps = Vec::new();
    let mut paths: Vec<_> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    paths.sort();
    for p in &paths {
        let text = std::fs::read_to_string(p)?;
        let dump: Dump = serde_json::from_str(&text).with_context(|| p.display().to_string())?;
        dumps.push(dump);
    }
    let pages: usize = dumps.iter().map(|d| d.pages.len()).sum();

    let mut times: Vec<(&str, Duration)> = Vec::new();
    let mut add = |name: &'static str, d: Duration| match times.iter_mut().find(|t| t.0 == name) {
        Some(t) => t.1 += d,
        None => times.push((name, d)),
    };
    let mut digest = blake3::Hasher::new();
    for round in 0..rounds {
        for dump in &dumps {
            let doc = DocText {
                pages: &dump.pages,
                page_count: dump.page_count,
            };
            let t = Instant::now();
            let lay = layout::Layout::new(&doc);
            add("layout", t.elapsed());
            let t = Instant::now();
            let ctx = context::read(&doc);
            add("context", t.elapsed());
            let mut all = Vec::new();
            macro_rules! stage {
                ($name:literal, $e:expr) => {{
                    let t = Instant::now();
                    let found = $e;
                    add($name, t.elapsed());
                    all.extend(found);
                }};
            }
            stage!("title", title::find_in(&lay));
            stage!("authors", authors::find_in(&lay));
            stage!("publisher", publisher::find_in(&ctx));
            stage!("year", year::find_in(&ctx));
            stage!("edition", edition::find_in(&ctx));
            stage!("isbn", isbn::find_in(&ctx));
            stage!("doi", doi::find_in(&ctx));
            stage!("lccn", lccn::find_in(&ctx));
            let t = Instant::now();
            let decision = colophon::decide::decide(&all);
            add("decide", t.elapsed());
            if round == 0 {
                digest.update(format!("{all:?}{decision:?}").as_bytes());
            }
        }
    }
    let _ = extract::EXTRACT_VERSION;
    let per_page = |d: Duration| d.as_secs_f64() * 1e3 / (pages as f64 * rounds as f64);
    let total: Duration = times.iter().map(|t| t.1).sum();
    println!("{} dumps, {pages} pages, {rounds} rounds", dumps.len());
    for (name, d) in &times {
        println!("{name:<10} {:7.4} ms/page", per_page(*d));
    }
    println!("{:<10} {:7.4} ms/page", "total", per_page(total));
    println!("candidates digest {}", digest.finalize().to_hex());
    Ok(())
}
