//! CSV: one row per PDF of the run, errors included (with the error), so
//! a spreadsheet shows the whole library. Quoting is the `csv` crate's
//! (RFC 4180). A value a spreadsheet would run as a formula (starting
//! with `=`, `+`, `@`) gets a leading `'`, as spreadsheets themselves do.

use super::{Entries, Entry};
use crate::model::{Metadata, Record};
use anyhow::Result;
use std::collections::HashMap;
use std::path::Path;

const HEADER: [&str; 17] = [
    "path",
    "status",
    "proposed_filename",
    "key",
    "title",
    "subtitle",
    "authors",
    "publisher",
    "year",
    "edition",
    "isbn",
    "doi",
    "lccn",
    "file",
    "unsure",
    "error",
    "warnings",
];

pub fn render(records: &[Record], entries: &Entries, data_dir: &Path) -> Result<String> {
    let by_path: HashMap<&str, &Entry> = entries
        .entries
        .iter()
        .map(|e| (e.record.path.as_str(), e))
        .collect();
    let mut sorted: Vec<&Record> = records.iter().collect();
    sorted.sort_by(|a, b| a.path.cmp(&b.path));
    let mut w = ::csv::Writer::from_writer(Vec::new());
    w.write_record(HEADER)?;
    for r in sorted {
        // A refused path (see `export::current_path`) has no row: the
        // command said so.
        let Ok(file) = super::current_path(r, data_dir) else {
            continue;
        };
        let e = by_path.get(r.path.as_str());
        let m: &Metadata = &r.metadata;
        let status = r.status.as_str();
        let opt = |v: &Option<String>| v.clone().unwrap_or_default();
        let row = [
            r.path.clone(),
            status.to_string(),
            opt(&r.proposed_filename),
            e.map(|e| e.key.clone()).unwrap_or_default(),
            opt(&m.title),
            opt(&m.subtitle),
            m.authors.join("; "),
            opt(&m.publisher),
            m.year.map(|y| y.to_string()).unwrap_or_default(),
            opt(&m.edition),
            opt(&m.isbn),
            opt(&m.doi),
            opt(&m.loc),
            file.to_string_lossy().into_owned(),
            e.and_then(|e| e.note.clone()).unwrap_or_default(),
            opt(&r.error),
            r.warnings.join("; "),
        ]
        .map(|v| super::one_line(&v));
        w.write_record(row.iter().map(|v| defuse(v)))?;
    }
    Ok(String::from_utf8(w.into_inner()?)?)
}

/// A leading `'` on values a spreadsheet would evaluate.
fn defuse(v: &str) -> String {
    if v.starts_with(['=', '+', '@']) {
        format!("'{v}")
    } else {
        v.to_string()
    }
}
