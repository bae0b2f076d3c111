//! The quick reader (`inspect::quick`) against pdfium on the same pages:
//! how many documents and pages it reads, why it leaves the others to
//! pdfium, how many of its pages give the same lines as pdfium's, and the
//! time each reader took.
//!
//! ```text
//! cargo run --release --example quick_compare -- FILE.pdf...
//! ```
//!
//! `PAGES` (default 3) pages of each file are read; `SHOW` (default 0)
//! differing pages are printed with their first `SHOW_LINES` (default 4)
//! differing lines (`SHOW_ALL=1`: all lines, side by side).
//!
//! `ONLY=LIST`: only the pages a list names (`FILE<TAB>PAGE` lines).
//!
//! `REASONS=1`: no comparison, only why the quick reader leaves documents
//! and pages to pdfium, counted over the pages the pipeline can read (the
//! first `PAGES` and the last `BACK`, default 5), against all those pages.

use colophon::inspect::PageRead;
use colophon::inspect::pdfium::Document;
use std::collections::BTreeMap;
use std::time::{Duration, Instant};

#[derive(Default)]
struct Tally {
    docs: u32,
    quick_docs: u32,
    pages: u32,
    quick_pages: u32,
    same_text: u32,
    same_lines: u32,
    same_layout: u32,
    same_images: u32,
    reasons: BTreeMap<String, u32>,
    quick_time: Duration,
    pdfium_time: Duration,
}

fn env_num(key: &str, default: u32) -> u32 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

fn texts(p: &PageRead) -> Vec<&str> {
    p.text.lines.iter().map(|l| l.text.as_str()).collect()
}

/// Same sizes (within 1%), weights and boxes (within 1 pt) line by line.
fn same_layout(a: &PageRead, b: &PageRead) -> bool {
    a.text.lines.iter().zip(&b.text.lines).all(|(x, y)| {
        (x.size - y.size).abs() <= 0.01 * y.size.max(1.0)
            && x.bold == y.bold
            && (x.bbox.x0 - y.bbox.x0).abs() <= 1.0
            && (x.bbox.x1 - y.bbox.x1).abs() <= 1.0
            && (x.bbox.top - y.bbox.top).abs() <= 1.0
            && (x.bbox.bottom - y.bbox.bottom).abs() <= 1.0
    })
}

/// `GLYPHS=FILE:PAGE:TEXT`: both readers' glyphs from the first glyph of
/// TEXT on that page (1-based), twenty of them.
fn dump_glyphs(spec: &str) {
    let mut it = spec.splitn(3, ':');
    let (Some(f), Some(p), Some(text)) = (it.next(), it.next(), it.next()) else {
        return;
    };
    let doc = Document::open(f.as_ref()).expect("opens");
    let index = p.parse::<u32>().expect("a page number") - 1;
    let (quick, pdfium) = doc.glyphs_by_both(index).expect("reads");
    for (name, glyphs) in [("quick", quick.unwrap_or_default()), ("pdfium", pdfium)] {
        let s: String = glyphs.iter().map(|g| g.ch).collect();
        let Some(at) = s.find(text) else {
            println!("{name}: not found");
            continue;
        };
        let start = s[..at].chars().count();
        println!("{name}:");
        for g in glyphs.iter().skip(start).take(20) {
            println!(
                "  {:?} x {:.2}-{:.2} y {:.2}-{:.2} origin {:.2},{:.2} size {:.2} gen {}",
                g.ch,
                g.bbox.x0,
                g.bbox.x1,
                g.bbox.top,
                g.bbox.bottom,
                g.origin.0,
                g.origin.1,
                g.size,
                g.generated
            );
        }
    }
}

/// The pages read of a document of `count` pages: the first `front`,
/// the last `back`.
fn pages_read(count: u32, front: u32, back: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..count.min(front)).collect();
    v.extend(count.saturating_sub(back).max(front)..count);
    v
}

/// `REASONS=1`: the fallback reasons, by documents and by pages, and the
/// share of pages each takes.
fn reasons(files: &[String], front: u32, back: u32) {
    let mut by_why: BTreeMap<String, (u32, u32)> = BTreeMap::new();
    let (mut pages, mut docs) = (0u32, 0u32);
    let mut count = |why: String, n: u32| {
        let e = by_why.entry(why).or_default();
        e.0 += 1;
        e.1 += n;
    };
    for f in files {
        let doc = match Document::open(f.as_ref()) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{f}: {e}");
                continue;
            }
        };
        docs += 1;
        let read = pages_read(doc.page_count(), front, back);
        pages += read.len() as u32;
        if !doc.is_quick() {
            let bytes = std::fs::read(f).unwrap_or_default();
            let why = match colophon::inspect::quick::QuickDoc::open(bytes.into()) {
                Ok(_) => "(document) not kept in memory (4 MiB and more)".to_string(),
                Err(e) => format!("(document) {}", e.why),
            };
            if std::env::var_os("LIST").is_some() {
                println!("{f}\t{why}");
            }
            count(why, read.len() as u32);
            continue;
        }
        for i in read {
            if let Some(Err(why)) = doc.read_page_quick(i) {
                let key: String = why.why.chars().take(70).collect();
                if std::env::var_os("LIST").is_some() {
                    println!("{f}\t{}\t{key}", i + 1);
                }
                count(key, 1);
            }
        }
    }
    let fallen: u32 = by_why.values().map(|v| v.1).sum();
    println!(
        "documents {docs}, pages read {pages}, to pdfium {fallen} ({:.1}%)",
        100.0 * fallen as f64 / pages.max(1) as f64
    );
    let mut rows: Vec<_> = by_why.into_iter().collect();
    rows.sort_by_key(|r| std::cmp::Reverse(r.1.1));
    for (why, (n, p)) in rows {
        println!(
            "  {p:6} pages {:5.1}%  {n:5} times  {why}",
            100.0 * p as f64 / pages.max(1) as f64
        );
    }
}

fn main() {
    if let Ok(spec) = std::env::var("GLYPHS") {
        dump_glyphs(&spec);
        return;
    }
    if std::env::var_os("REASONS").is_some() {
        let files: Vec<String> = std::env::args().skip(1).collect();
        reasons(&files, env_num("PAGES", 8), env_num("BACK", 5));
        return;
    }
    let pages = env_num("PAGES", 3);
    let mut show = env_num("SHOW", 0);
    // `ONLY=LIST`: only the pages LIST names, `FILE<TAB>PAGE` (1-based) a
    // line, as `REASONS=1 LIST=1` prints them.
    let only: Option<std::collections::HashSet<(String, u32)>> =
        std::env::var("ONLY").ok().map(|l| {
            std::fs::read_to_string(l)
                .unwrap_or_default()
                .lines()
                .filter_map(|l| {
                    let mut it = l.split('\t');
                    Some((it.next()?.to_string(), it.next()?.parse().ok()?))
                })
                .collect()
        });
    let mut t = Tally::default();
    for f in std::env::args().skip(1) {
        let doc = match Document::open(f.as_ref()) {
            Ok(d) => d,
            Err(e) => {
                eprintln!("{f}: {e}");
                continue;
            }
        };
        t.docs += 1;
        if !doc.is_quick() {
            *t.reasons.entry("(document)".into()).or_default() += 1;
            continue;
        }
        t.quick_docs += 1;
        for i in 0..pages.min(doc.page_count()) {
            if only
                .as_ref()
                .is_some_and(|o| !o.contains(&(f.clone(), i + 1)))
            {
                continue;
            }
            t.pages += 1;
            let start = Instant::now();
            let quick = doc.read_page_quick(i).expect("a quick document");
            t.quick_time += start.elapsed();
            let start = Instant::now();
            let Ok(reference) = doc.read_page_pdfium(i) else {
                continue;
            };
            t.pdfium_time += start.elapsed();
            let quick = match quick {
                Ok(q) => q,
                Err(why) => {
                    let key: String = why.why.chars().take(60).collect();
                    *t.reasons.entry(key).or_default() += 1;
                    continue;
                }
            };
            t.quick_pages += 1;
            let (a, b) = (texts(&quick), texts(&reference));
            if a == b {
                t.same_lines += 1;
                if same_layout(&quick, &reference) {
                    t.same_layout += 1;
                } else if show > 0 && std::env::var_os("SHOW_LAYOUT").is_some() {
                    show -= 1;
                    println!("== {f} page {} (layout)", i + 1);
                    for (x, y) in quick.text.lines.iter().zip(&reference.text.lines) {
                        if x != y {
                            println!("  quick : {x:?}\n  pdfium: {y:?}");
                            break;
                        }
                    }
                }
            }
            let same_images = quick.text.image == reference.text.image
                && (quick.text.image_ratio - reference.text.image_ratio).abs() < 0.01;
            if same_images {
                t.same_images += 1;
            } else if show > 0 && std::env::var_os("SHOW_IMAGES").is_some() {
                show -= 1;
                println!(
                    "== {f} page {} (images)\n  quick : {} {:?}\n  pdfium: {} {:?}",
                    i + 1,
                    quick.text.image_ratio,
                    quick.text.image,
                    reference.text.image_ratio,
                    reference.text.image
                );
            }
            let squash = |v: &[&str]| -> String { v.concat().split_whitespace().collect() };
            if squash(&a) == squash(&b) {
                t.same_text += 1;
            } else if show > 0 {
                show -= 1;
                println!("== {f} page {}", i + 1);
                let n = a.len().max(b.len());
                let mut shown = 0;
                for k in 0..n {
                    let (x, y) = (a.get(k).copied(), b.get(k).copied());
                    if std::env::var_os("SHOW_ALL").is_some() {
                        println!("  {} {x:?} | {y:?}", if x == y { "=" } else { "≠" });
                    } else if x != y && shown < env_num("SHOW_LINES", 4) {
                        println!("  quick : {x:?}\n  pdfium: {y:?}");
                        shown += 1;
                    }
                }
            }
        }
    }
    println!(
        "documents {} (quick {}), pages {} (quick {}), same lines {} (and layout {}), same text {}, same images {}",
        t.docs,
        t.quick_docs,
        t.pages,
        t.quick_pages,
        t.same_lines,
        t.same_layout,
        t.same_text,
        t.same_images
    );
    println!(
        "time: quick {:.2} s, pdfium {:.2} s",
        t.quick_time.as_secs_f64(),
        t.pdfium_time.as_secs_f64()
    );
    for (why, n) in &t.reasons {
        println!("  {n:5}  {why}");
    }
}
