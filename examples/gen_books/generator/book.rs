//! One generated book from start to finish: invent it, compose its pages,
//! typeset and write them (lopdf), and build its truth record from what
//! was actually printed.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use super::fonts::Fonts;
use super::invent::{self, Book};
use super::lang::Lang;
use super::latex::{self, Tex};
use super::layout::{self, Page, PageKind};
use super::pages::{self, Composed, Features, Field};
use super::pdf::{self, Info};
use super::rng::Rng;

/// A generated book before it is written to disk.
pub struct Generated {
    pub book: Book,
    pub composed: Composed,
    pub pages: Vec<Page>,
    pub pdf: Vec<u8>,
    pub producer: String,
}

pub fn pick_lang(rng: &mut Rng, fonts: &Fonts) -> Lang {
    let weights = if fonts.has_unicode() {
        [0.45, 0.2, 0.2, 0.15]
    } else {
        [0.5, 0.25, 0.25, 0.0]
    };
    [Lang::En, Lang::De, Lang::Fr, Lang::Ru][rng.weighted(&weights)]
}

fn junk_title(rng: &mut Rng, book: &Book) -> String {
    let slug: String = book
        .title
        .split_whitespace()
        .take(2)
        .collect::<Vec<_>>()
        .join("_")
        .to_lowercase();
    match rng.below(4) {
        0 => format!("Microsoft Word - {slug}_final.docx"),
        1 => format!("{slug}.indd"),
        2 => "untitled".into(),
        _ => format!("{}_{}_print", book.id, rng.range(1, 9)),
    }
}

/// Invents, composes and writes book `id`: with pdflatex for a share of
/// the Latin-script books when `tex` is given, else (or when pdflatex
/// fails) with lopdf.
pub fn generate(
    rng: &mut Rng,
    id: &str,
    fonts: &Fonts,
    features: Features,
    tex: Option<&Tex>,
) -> Generated {
    let lang = pick_lang(rng, fonts);
    let book = invent::book(rng, id.to_string(), lang);
    let design = pages::design(rng, lang, fonts);
    let mut composed = pages::compose(rng, &book, &design, fonts, features);
    let pages: Vec<Page> = composed
        .specs
        .iter_mut()
        .map(|s| layout::layout_fitting(fonts, &design.geometry, s))
        .collect();
    let info = Info {
        title: match rng.below(5) {
            0 | 1 => Some(book.title.clone()),
            2 => Some(junk_title(rng, &book)),
            _ => None,
        },
        author: rng.chance(0.4).then(|| book.creators[0].display()),
        producer: "colophon gen_books (lopdf)".into(),
        creator: None,
    };
    let use_tex = tex.filter(|_| lang != Lang::Ru && rng.chance(0.35));
    if let Some(tex) = use_tex {
        let choice = latex::choose(tex, rng);
        let epoch = (book.year as i64 - 1970) * 31_557_600 + rng.range(0, 31_000_000);
        match latex::render(&composed.specs, &design.geometry, &choice, epoch) {
            Ok(pdf) => {
                let producer = choice.describe();
                return Generated {
                    book,
                    composed,
                    pages,
                    pdf,
                    producer,
                };
            }
            Err(e) => composed
                .notes
                .push(format!("(pdflatex failed, lopdf used: {e})")),
        }
    }
    let pdf = pdf::write(fonts, &pages, &info);
    let producer = format!(
        "lopdf ({} / {}, {:.0}x{:.0} pt, {} column{})",
        design.text.name(),
        design.display.name(),
        design.geometry.w,
        design.geometry.h,
        design.columns,
        if design.columns > 1 { "s" } else { "" }
    );
    Generated {
        book,
        composed,
        pages,
        pdf,
        producer,
    }
}

/// "front p2 (title page), p3 (copyright page); back p-1 (back cover)".
fn seen(kinds: &[PageKind], pages: &BTreeSet<usize>) -> String {
    let first_body = kinds
        .iter()
        .position(|k| *k == PageKind::Body)
        .unwrap_or(kinds.len());
    let last_body = kinds
        .iter()
        .rposition(|k| *k == PageKind::Body)
        .unwrap_or(0);
    let n = kinds.len();
    let mut front = Vec::new();
    let mut back = Vec::new();
    for &p in pages {
        let label = kinds[p].label();
        if p < first_body || p <= last_body {
            front.push(format!("p{} ({label})", p + 1));
        } else {
            back.push(format!("p-{} ({label})", n - p));
        }
    }
    let mut parts = Vec::new();
    if !front.is_empty() {
        parts.push(format!("front {}", front.join(", ")));
    }
    if !back.is_empty() {
        parts.push(format!("back {}", back.join(", ")));
    }
    parts.join("; ")
}

/// The truth record of a generated book, in the corpus schema.
pub fn truth(g: &Generated, file: &str, condition: &str, source: &str) -> Value {
    let b = &g.book;
    let printed = &g.composed.printed;
    let kinds: Vec<PageKind> = g.composed.specs.iter().map(|s| s.kind).collect();
    let has = |f: Field| printed.iter().any(|p| p.field == f);
    let keys = |f: Field| -> BTreeSet<String> {
        printed
            .iter()
            .filter(|p| p.field == f)
            .map(|p| p.key.clone())
            .collect()
    };
    let authors: Vec<String> = b
        .creators
        .iter()
        .map(|p| p.display())
        .filter(|n| keys(Field::Authors).contains(n))
        .collect();
    let isbn_keys = keys(Field::Isbn);
    let isbns: Vec<String> = b
        .formats
        .iter()
        .map(|f| f.isbn.isbn13())
        .filter(|i| isbn_keys.contains(i))
        .collect();
    let mut seen_map = serde_json::Map::new();
    for f in Field::ALL {
        let pages: BTreeSet<usize> = printed
            .iter()
            .filter(|p| p.field == f)
            .map(|p| p.page)
            .collect();
        if !pages.is_empty() {
            let mut s = seen(&kinds, &pages);
            if printed.iter().any(|p| p.field == f && p.picture) {
                s.push_str(" [cover: in the picture only]");
            }
            seen_map.insert(f.key().into(), Value::String(s));
        }
    }
    let mut rec = json!({
        "file": file,
        "doc": b.id,
        "kind": "book",
        "condition": condition,
        "truth": {
            "title": b.title,
            "subtitle": if has(Field::Subtitle) { json!(b.subtitle) } else { Value::Null },
            "authors": authors,
            "publisher": if has(Field::Publisher) { json!(b.publisher) } else { Value::Null },
            "year": if has(Field::Year) { json!(b.year) } else { Value::Null },
            "edition": match b.edition { Some(n) if has(Field::Edition) => json!(n.to_string()), None if has(Field::Edition) => json!("1"), _ => Value::Null },
            "isbn": isbns,
            "doi": if has(Field::Doi) { json!(b.doi) } else { Value::Null },
            "loc": match &b.lccn { Some(l) if has(Field::Loc) => json!(l.normalised()), _ => Value::Null },
        },
        "seen": seen_map,
        "source": source,
        "lang": b.lang.code(),
    });
    let mut alt = BTreeMap::new();
    if let Some(e) = &b.lccn_ebook {
        if has(Field::Loc) {
            alt.insert("loc", json!([e.normalised()]));
        }
    }
    if !alt.is_empty() {
        rec["alt"] = json!(alt);
    }
    let mut notes = g.composed.notes.clone();
    if let Some(first) = b.first_year {
        notes.push(format!(
            "Edition {} of {}; first edition {first}.",
            b.edition.unwrap_or(1),
            b.year
        ));
    }
    if !b.reprints.is_empty() {
        notes.push("Reprint years are printed; they are not the edition year.".into());
    }
    if b.role == invent::Role::Editors {
        notes.push("Editors, not authors: the truth authors are the editors.".into());
    }
    if !b.translators.is_empty() {
        notes.push("A translator is named; translators are not authors.".into());
    }
    rec["notes"] = Value::String(notes.join(" "));
    rec
}
