//! Property test (issue 13): colophon reads back the metadata of books
//! invented by `examples/gen_books` (born-digital, lopdf producer only,
//! a handful of seeds, a few seconds). The generator's modules are
//! included by path so that the test and the example share one copy.
//!
//! Fields colophon gets right on every generated book are asserted
//! exactly; for the others (KNOWN_GAPS) the test asserts a floor, prints
//! every miss and fails only on a drop below that floor.

/// The generator of `examples/gen_books`, one copy shared with the example;
/// not every item of it is used here.
#[allow(dead_code)]
#[path = "../../examples/gen_books/generator/mod.rs"]
mod generator;

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::util::TestProject;
use generator::{book, check, fonts, pages, rng};

const SEEDS: [u64; 3] = [11, 12, 13];
const BOOKS_PER_SEED: usize = 4;

/// Fields colophon must get right on every generated born-digital book.
const EXACT: [&str; 5] = ["isbn", "doi", "loc", "publisher", "edition"];

/// Fields colophon still misses on some generated books, with the lowest
/// accuracy accepted here: one miss in these 12 books (7 with a subtitle).
/// On them at EXTRACT_VERSION 13 every field is 1.00; on 540 held-out
/// books (seeds 14-16, docs/accuracy.md): title 0.99, subtitle 0.98,
/// authors 0.98, year 0.99. Known causes: right values whose confidence
/// stays under the threshold (names on a title page and nowhere else), a
/// byline wrapped over two lines, a subtitle under a title set in two
/// sizes.
const KNOWN_GAPS: [(&str, f64); 4] = [
    ("title", 0.9),
    ("year", 0.9),
    ("subtitle", 0.85),
    ("authors", 0.9),
];

fn fold(s: &str) -> Vec<String> {
    use unicode_normalization::UnicodeNormalization;
    let s: String = s
        .nfkd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .flat_map(char::to_lowercase)
        .map(|c| if c.is_alphanumeric() { c } else { ' ' })
        .collect();
    s.split_whitespace().map(str::to_string).collect()
}

fn same_tokens(a: &str, b: &str) -> bool {
    !fold(a).is_empty() && fold(a) == fold(b)
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn surname(name: &str) -> String {
    if let Some((head, _)) = name.split_once(',') {
        return fold(head).last().cloned().unwrap_or_default();
    }
    fold(name).last().cloned().unwrap_or_default()
}

fn isbn13(s: &str) -> String {
    let d: String = s
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect::<String>()
        .to_uppercase();
    if d.len() == 10 {
        let core = format!("978{}", &d[..9]);
        let sum: u32 = core
            .bytes()
            .enumerate()
            .map(|(i, b)| (b - b'0') as u32 * if i % 2 == 0 { 1 } else { 3 })
            .sum();
        return format!("{core}{}", (10 - sum % 10) % 10);
    }
    d
}

fn lccn(s: &str) -> String {
    let s = s.trim().to_lowercase();
    match s.split_once('-') {
        Some((head, tail)) => format!(
            "{head}{:0>6}",
            tail.chars()
                .filter(char::is_ascii_digit)
                .collect::<String>()
        ),
        None => s.chars().filter(|c| c.is_ascii_alphanumeric()).collect(),
    }
}

fn edition_number(s: &str) -> Option<String> {
    let words = fold(s);
    for w in &words {
        let digits: String = w.chars().take_while(char::is_ascii_digit).collect();
        if !digits.is_empty() {
            return Some(digits.trim_start_matches('0').to_string());
        }
    }
    let ordinals = [
        "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth",
    ];
    words.iter().find_map(|w| {
        ordinals
            .iter()
            .position(|o| o == w)
            .map(|i| (i + 1).to_string())
    })
}

/// One field of one record: `Some(true)` correct, `Some(false)` wrong,
/// missing or a false positive, `None` nothing to count. A simplified form
/// of ../shared/corpus/score.py's rules.
fn judge(field: &str, got: &Value, truth: &Value, alt: &Value) -> Option<bool> {
    let t = &truth[field];
    let g = &got[field];
    let truth_empty = t.is_null() || t.as_array().is_some_and(|a| a.is_empty());
    let got_text = text(g);
    if truth_empty {
        return got_text.map(|_| false);
    }
    let Some(gv) = got_text.or_else(|| {
        (field == "authors" && g.as_array().is_some_and(|a| !a.is_empty())).then(String::new)
    }) else {
        return Some(false);
    };
    Some(match field {
        "title" => {
            let tt = text(&truth["title"]).unwrap_or_default();
            let full = format!("{tt} {}", text(&truth["subtitle"]).unwrap_or_default());
            let gfull = format!("{gv} {}", text(&got["subtitle"]).unwrap_or_default());
            same_tokens(&gv, &tt) || same_tokens(&gv, &full) || same_tokens(&gfull, &full)
        }
        "subtitle" => {
            let ts = text(t).unwrap_or_default();
            same_tokens(&gv, &ts)
        }
        "authors" => {
            let want: BTreeSet<String> = t
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_str)
                .map(surname)
                .collect();
            let have: BTreeSet<String> = g
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(surname)
                .collect();
            want == have
        }
        "publisher" => {
            let a: BTreeSet<String> = fold(&gv).into_iter().collect();
            let b: BTreeSet<String> = fold(&text(t).unwrap_or_default()).into_iter().collect();
            !a.is_empty() && (a.is_subset(&b) || b.is_subset(&a))
        }
        "year" => gv.trim() == text(t).unwrap_or_default(),
        "edition" => {
            edition_number(&gv).is_some()
                && edition_number(&gv) == edition_number(&text(t).unwrap_or_default())
        }
        "isbn" => t
            .as_array()
            .unwrap()
            .iter()
            .filter_map(Value::as_str)
            .any(|i| isbn13(i) == isbn13(&gv)),
        "doi" => {
            gv.trim()
                .to_lowercase()
                .trim_start_matches("https://doi.org/")
                .trim_start_matches("doi:")
                .trim()
                == text(t).unwrap_or_default().to_lowercase()
        }
        "loc" => {
            let ok = lccn(&gv) == lccn(&text(t).unwrap_or_default());
            ok || alt["loc"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .any(|a| lccn(a) == lccn(&gv))
        }
        _ => unreachable!(),
    })
}

#[test]
fn colophon_reads_back_generated_books() {
    let project = TestProject::new();
    project.config(
        "[MATTER_CONFIG.front]\nmax_pages = 8\n[MATTER_CONFIG.back]\nmode = \"fallback\"\nmax_pages = 5\n\
         fields = { publisher = true, year = true, edition = true, isbn = true, doi = true, loc = true }\n",
    );
    let fonts = fonts::Fonts::load(std::path::Path::new(fonts::DEJAVU_DIR));
    let features = pages::Features {
        picture_covers: true,
    };
    let can_check = check::pdftotext_available();
    let mut truths: BTreeMap<String, Value> = BTreeMap::new();
    for seed in SEEDS {
        for i in 0..BOOKS_PER_SEED {
            let id = format!("gen-{seed}-{i:05}");
            let mut rng = rng::Rng::derive(seed, (i as u64) << 2);
            let g = book::generate(&mut rng, &id, &fonts, features, None);
            let name = format!("{id}-born.pdf");
            let path = project.write(&name, &g.pdf);
            if can_check {
                let bad = check::missing(&path, &g.composed.printed).unwrap();
                assert!(
                    bad.is_empty(),
                    "{name}: the generator's own check fails: {bad:?}"
                );
            }
            truths.insert(name.clone(), book::truth(&g, &name, "asis", "test"));
        }
    }
    let (out, records) = project.run_json(&["run"]);
    assert!(
        out.status.success(),
        "colophon failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let fields = [
        "title",
        "subtitle",
        "authors",
        "publisher",
        "year",
        "edition",
        "isbn",
        "doi",
        "loc",
    ];
    let mut tally: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
    let mut misses = Vec::new();
    for r in &records {
        let path = r["path"].as_str().unwrap_or_default();
        let name = path.rsplit('/').next().unwrap_or(path);
        let Some(t) = truths.get(name) else { continue };
        for f in fields {
            if let Some(ok) = judge(f, &r["metadata"], &t["truth"], &t["alt"]) {
                let e = tally.entry(f).or_default();
                e.1 += 1;
                if ok {
                    e.0 += 1;
                } else {
                    misses.push(format!(
                        "{name} {f}: truth {} got {}",
                        t["truth"][f], r["metadata"][f]
                    ));
                }
            }
        }
    }
    assert_eq!(records.len(), truths.len(), "one record per generated book");
    eprintln!("per-field accuracy on {} generated books:", truths.len());
    for (f, (ok, n)) in &tally {
        eprintln!("  {f:<10} {ok:>3}/{n:<3} {:.2}", *ok as f64 / *n as f64);
    }
    for m in &misses {
        eprintln!("  miss: {m}");
    }
    for f in EXACT {
        let (ok, n) = tally.get(f).copied().unwrap_or_default();
        assert_eq!(
            ok, n,
            "{f}: colophon must read it on every generated book (see the misses above)"
        );
    }
    for (f, floor) in KNOWN_GAPS {
        let (ok, n) = tally.get(f).copied().unwrap_or_default();
        if n > 0 {
            let acc = ok as f64 / n as f64;
            assert!(
                acc >= floor,
                "{f}: accuracy {acc:.2} fell below the known-gap floor {floor}"
            );
        }
    }
}
