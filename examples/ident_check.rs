//! Throwaway checker for the identifier/imprint finders: runs isbn, doi,
//! lccn, year, edition and publisher over the page-text dumps
//! (`/work/dumps/*.json`), takes the best candidate per field at or above a
//! threshold, and compares with the corpus truth (`truth.json`), printing
//! per-field correct / wrong / missing / false positives and the accuracy
//! `correct / (with_truth + fp)` the corpus scorer uses.
//!
//! Usage: `cargo run --example ident_check -- [DUMPS_DIR] [TRUTH_JSON] [-v] [--min SCORE]`

use colophon::extract::{doi, edition, isbn, lccn, publisher, year};
use colophon::model::{Candidate, DocText, PageText, Value};
use serde_json::Value as J;
use std::collections::BTreeMap;
use unicode_normalization::UnicodeNormalization;

#[derive(serde::Deserialize)]
struct Dump {
    file: String,
    page_count: u32,
    pages: Vec<PageText>,
}

fn fold(s: &str) -> Vec<String> {
    let s: String = s
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect::<String>()
        .replace('&', " and ")
        .to_lowercase();
    s.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(|w| w.to_string())
        .collect()
}

fn contains(a: &[String], b: &[String]) -> bool {
    !b.is_empty() && b.iter().all(|w| a.contains(w))
}

fn edition_num(s: &str) -> String {
    let d: String = s.chars().filter(|c| c.is_ascii_digit()).collect();
    if d.is_empty() { s.to_lowercase() } else { d }
}

fn value_str(v: &Value) -> String {
    match v {
        Value::Text(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        Value::Names(n) => n.join("; "),
    }
}

fn matches(field: &str, got: &str, truth: &J) -> bool {
    match field {
        "isbn" => truth
            .as_array()
            .is_some_and(|a| a.iter().any(|t| t.as_str() == Some(got))),
        "doi" => truth.as_str().is_some_and(|t| t.eq_ignore_ascii_case(got)),
        "loc" => truth.as_str() == Some(got),
        "year" => truth.as_i64().map(|t| t.to_string()).as_deref() == Some(got),
        "edition" => truth
            .as_str()
            .is_some_and(|t| edition_num(t) == edition_num(got)),
        "publisher" => truth.as_str().is_some_and(|t| {
            let (a, b) = (fold(t), fold(got));
            contains(&a, &b) || contains(&b, &a)
        }),
        _ => false,
    }
}

fn has_truth(t: &J) -> bool {
    match t {
        J::Null => false,
        J::Array(a) => !a.is_empty(),
        J::String(s) => !s.trim().is_empty(),
        _ => true,
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let verbose = args.iter().any(|a| a == "-v");
    let min: f32 = args
        .iter()
        .position(|a| a == "--min")
        .and_then(|i| args.get(i + 1))
        .and_then(|s| s.parse().ok())
        .unwrap_or(0.5);
    let pos: Vec<&String> = args
        .iter()
        .enumerate()
        .filter(|(i, a)| !a.starts_with('-') && (*i == 0 || args[i - 1] != "--min"))
        .map(|(_, a)| a)
        .collect();
    let dumps = pos.first().map_or("/work/dumps", |s| s.as_str());
    let truth_path = pos
        .get(1)
        .map_or("/work/shared/corpus/truth.json", |s| s.as_str());
    let truth: Vec<J> =
        serde_json::from_str(&std::fs::read_to_string(truth_path).unwrap()).unwrap();
    let by_stem: BTreeMap<String, &J> = truth
        .iter()
        .map(|t| {
            let f = t["file"].as_str().unwrap();
            let stem = f.rsplit('/').next().unwrap().trim_end_matches(".pdf");
            (stem.to_string(), t)
        })
        .collect();

    let fields = ["isbn", "doi", "loc", "year", "edition", "publisher"];
    // field -> [correct, wrong, missing, fp, with_truth]
    let mut tally: BTreeMap<&str, [u32; 5]> = fields.iter().map(|f| (*f, [0; 5])).collect();
    let mut entries: Vec<_> = std::fs::read_dir(dumps)
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .collect();
    entries.sort();
    for path in entries {
        let dump: Dump = match serde_json::from_str(&std::fs::read_to_string(&path).unwrap()) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{}: {e}", path.display());
                continue;
            }
        };
        let stem = dump
            .file
            .rsplit('/')
            .next()
            .unwrap()
            .trim_end_matches(".pdf")
            .to_string();
        let Some(t) = by_stem.get(&stem) else {
            continue;
        };
        let doc = DocText {
            pages: &dump.pages,
            page_count: dump.page_count,
        };
        let per: Vec<(&str, Vec<Candidate>)> = vec![
            ("isbn", isbn::find(&doc)),
            ("doi", doi::find(&doc)),
            ("loc", lccn::find(&doc)),
            ("year", year::find(&doc)),
            ("edition", edition::find(&doc)),
            ("publisher", publisher::find(&doc)),
        ];
        for (field, cands) in per {
            let tv = &t["truth"][field];
            let alt = &t["alt"][field];
            let best = cands
                .iter()
                .filter(|c| c.score >= min)
                .max_by(|a, b| a.score.total_cmp(&b.score));
            let got = best.map(|c| value_str(&c.value));
            let ok_alt = |g: &str| {
                alt.as_array().is_some_and(|a| {
                    a.iter().any(|x| {
                        let xv = if field == "isbn" {
                            J::Array(vec![x.clone()])
                        } else {
                            x.clone()
                        };
                        matches(field, g, &xv)
                    })
                })
            };
            let e = tally.get_mut(field).unwrap();
            let verdict = match (&got, has_truth(tv)) {
                (Some(g), true) => {
                    e[4] += 1;
                    if matches(field, g, tv) || ok_alt(g) {
                        e[0] += 1;
                        "ok"
                    } else {
                        e[1] += 1;
                        "WRONG"
                    }
                }
                (None, true) => {
                    e[4] += 1;
                    e[2] += 1;
                    "MISSING"
                }
                (Some(g), false) => {
                    if ok_alt(g) {
                        "ok(alt)"
                    } else {
                        e[3] += 1;
                        "FP"
                    }
                }
                (None, false) => "",
            };
            if verbose || (verdict != "ok" && !verdict.is_empty() && verdict != "ok(alt)") {
                let shown = best.map_or("-".to_string(), |c| {
                    format!(
                        "{} ({:.2}, p{:?}: {})",
                        value_str(&c.value),
                        c.score,
                        c.page,
                        c.why
                    )
                });
                println!("{stem:22} {field:9} {verdict:8} got {shown} | truth {tv}");
                if verbose {
                    let mut all: Vec<&Candidate> = cands.iter().collect();
                    all.sort_by(|a, b| b.score.total_cmp(&a.score));
                    for c in all.iter().take(4) {
                        println!(
                            "      {:.2} {} p{:?} {}",
                            c.score,
                            value_str(&c.value),
                            c.page,
                            c.why
                        );
                    }
                }
            }
        }
    }
    println!("\nthreshold {min}");
    println!("field      correct wrong missing fp with_truth  accuracy");
    for f in fields {
        let e = tally[f];
        let acc = if e[4] + e[3] > 0 {
            e[0] as f32 / (e[4] + e[3]) as f32
        } else {
            f32::NAN
        };
        println!(
            "{f:10} {:7} {:5} {:7} {:2} {:10}  {acc:.3}",
            e[0], e[1], e[2], e[3], e[4]
        );
    }
}
