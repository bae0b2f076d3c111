//! CSL-JSON: an array of CSL items, as pandoc's citeproc and Zotero read
//! them. Names are split into `family`/`given` with the particle in
//! `non-dropping-particle` ("van Beethoven" sorts under B in styles that
//! drop it, and keeps it otherwise); a capitalised prefix that is part of
//! the surname ("El Morabity", "Ó Laoghaire") stays in `family`; an
//! organisation is a `literal`. The year is `issued.date-parts`.
//!
//! Types are CSL 1.0.2's: a manual is a `report` (the specification's
//! "also used for manuals and similar technical documentation"), with
//! the `genre` saying which kind of report it is.

use super::names::Person;
use super::{Entry, Kind};
use anyhow::Result;
use serde_json::{Map, Value, json};

pub fn render(entries: &[Entry]) -> Result<String> {
    let items: Vec<Value> = entries.iter().map(item).collect();
    let mut s = serde_json::to_string_pretty(&items)?;
    s.push('\n');
    Ok(s)
}

fn item(e: &Entry) -> Value {
    let m = &e.meta;
    let mut o = Map::new();
    o.insert("id".into(), json!(e.key));
    let (ty, genre) = match e.kind {
        Kind::Book => ("book", None),
        Kind::Manual => ("report", Some("Manual")),
        Kind::Article => ("article-journal", None),
        Kind::TechReport => ("report", Some("Technical report")),
        Kind::Thesis => ("thesis", Some("PhD thesis")),
        Kind::Misc => ("document", None),
    };
    o.insert("type".into(), json!(ty));
    if let Some(t) = e.full_title() {
        o.insert("title".into(), json!(t));
    }
    if !e.authors.is_empty() {
        o.insert(
            "author".into(),
            Value::Array(e.authors.iter().map(name).collect()),
        );
    }
    if let Some(g) = genre {
        o.insert("genre".into(), json!(g));
    }
    if let Some(p) = &m.publisher {
        o.insert("publisher".into(), json!(p));
    }
    if let Some(y) = m.year {
        o.insert("issued".into(), json!({ "date-parts": [[y]] }));
    }
    if let Some(ed) = &m.edition {
        o.insert("edition".into(), json!(ed));
    }
    if let Some(i) = &m.isbn {
        o.insert("ISBN".into(), json!(i));
    }
    if let Some(d) = &m.doi {
        o.insert("DOI".into(), json!(d));
    }
    if let Some(l) = &m.loc {
        o.insert("call-number".into(), json!(l));
    }
    if let Some(n) = &e.note {
        o.insert("note".into(), json!(n));
    }
    Value::Object(o)
}

fn name(p: &Person) -> Value {
    match p {
        Person::Corporate(n) => json!({ "literal": n }),
        Person::Personal(p) => {
            let mut o = Map::new();
            o.insert("family".into(), json!(p.family));
            for (k, v) in [
                ("given", &p.given),
                ("non-dropping-particle", &p.particle),
                ("suffix", &p.suffix),
            ] {
                if !v.is_empty() {
                    o.insert(k.into(), json!(v));
                }
            }
            Value::Object(o)
        }
    }
}
