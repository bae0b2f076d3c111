//! Runs the finders and `decide` over page-text dumps and writes one JSON
//! record per PDF, in the shape `shared/corpus/score.py` reads:
//!
//! ```text
//! cargo run --example score_dumps -- /work/dumps OUT.jsonl [-v] [STEM...]
//! python3 /work/shared/corpus/score.py OUT.jsonl --details
//! ```
//!
//! A dump is `{"file", "page_count", "info": InfoMeta, "pages": [PageText]}`
//! (the first and last pages of one PDF, as `inspect` reads them). With
//! `-v` every candidate is printed to stderr, best first per field; STEMs
//! restrict the run to those dumps.

use anyhow::{Context, Result};
use colophon::decide::decide;
use colophon::extract::{info_candidates, text_candidates};
use colophon::model::{DocText, InfoMeta, PageText};
use serde::Deserialize;
use std::io::Write;
use std::path::{Path, PathBuf};

#[derive(Deserialize)]
struct Dump {
    page_count: u32,
    #[serde(default)]
    info: InfoMeta,
    pages: Vec<PageText>,
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let rest: Vec<&String> = args.iter().filter(|a| *a != "-v").collect();
    let (Some(dir), Some(out)) = (rest.first(), rest.get(1)) else {
        anyhow::bail!("usage: score_dumps DUMP_DIR OUT.jsonl [-v] [STEM...]");
    };
    let only: Vec<&str> = rest[2..].iter().map(|s| s.as_str()).collect();

    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .with_context(|| format!("reading {dir}"))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();

    let mut w = std::io::BufWriter::new(
        std::fs::File::create(out).with_context(|| format!("creating {out}"))?,
    );
    for path in files {
        let stem = stem(&path);
        if !only.is_empty() && !only.contains(&stem.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("reading {}", path.display()))?;
        let dump: Dump =
            serde_json::from_str(&text).with_context(|| format!("parsing {}", path.display()))?;
        let doc = DocText {
            pages: &dump.pages,
            page_count: dump.page_count,
        };
        let mut candidates = text_candidates(&doc);
        candidates.extend(info_candidates(&dump.info));
        let decision = decide(&candidates);
        if verbose {
            eprintln!("== {stem}");
            candidates.sort_by(|a, b| a.field.cmp(&b.field).then(b.score.total_cmp(&a.score)));
            for c in &candidates {
                eprintln!(
                    "  {:<9} {:.2} p{:<3} {:<8} {:?}  [{}]",
                    c.field.as_str(),
                    c.score,
                    c.page.map_or("-".into(), |p| p.to_string()),
                    c.via.as_str(),
                    c.value,
                    c.why
                );
            }
        }
        let record = serde_json::json!({
            "path": format!("pdfs/{stem}.pdf"),
            "metadata": decision.metadata,
        });
        writeln!(w, "{record}")?;
    }
    w.flush()?;
    Ok(())
}

fn stem(p: &Path) -> String {
    p.file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default()
}
