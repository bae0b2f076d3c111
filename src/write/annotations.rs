//! Annotation exports (SPEC 7): `<stem>--ann.md`, a page a person can read,
//! and `<stem>--ann.json`, the record itself. Written beside a PDF in write
//! mode and under `cache/runs/<run-id>/ann/` in every run, each file by a
//! synced temporary file and one rename.

use crate::model::{Field, Metadata, OnlineReport, Record, Status};
use crate::name::{ANN_JSON_SUFFIX, ANN_MD_SUFFIX, MAX_NAME_BYTES};
use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Paths of the two exports of `stem` in `dir`. A stem too long for the
/// 255-byte name limit (possible for the cache mirror of an existing long
/// file name) is cut at a character boundary.
pub fn annotation_paths(dir: &Path, stem: &str) -> (PathBuf, PathBuf) {
    let budget = MAX_NAME_BYTES - ANN_JSON_SUFFIX.len().max(ANN_MD_SUFFIX.len());
    let mut cut = stem.len().min(budget);
    while !stem.is_char_boundary(cut) {
        cut -= 1;
    }
    let stem = &stem[..cut];
    (
        dir.join(format!("{stem}{ANN_MD_SUFFIX}")),
        dir.join(format!("{stem}{ANN_JSON_SUFFIX}")),
    )
}

/// Writes `<stem>--ann.md` and `<stem>--ann.json` for `record` into `dir`
/// (created if missing), replacing existing ones atomically. Returns the
/// paths (md, json).
pub fn write_annotations(dir: &Path, stem: &str, record: &Record) -> Result<(PathBuf, PathBuf)> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    let (md, json) = annotation_paths(dir, stem);
    crate::util::fs::write_atomic(&md, render_markdown(record).as_bytes())
        .with_context(|| format!("writing {}", md.display()))?;
    crate::util::fs::write_atomic(&json, render_json(record).as_bytes())
        .with_context(|| format!("writing {}", json.display()))?;
    Ok((md, json))
}

/// The `--ann.json` content: the record, pretty-printed, newline-terminated.
pub fn render_json(record: &Record) -> String {
    let mut s = serde_json::to_string_pretty(record).expect("records serialise");
    s.push('\n');
    s
}

/// The `--ann.md` content: the title, the table of fields, the facts about
/// the file and the run, what the online catalogues said, the warnings.
pub fn render_markdown(r: &Record) -> String {
    let mut s = md_heading(&r.metadata);
    s.push_str(&md_field_table(r));
    s.push_str(&md_facts(r));
    if let Some(o) = &r.online {
        s.push_str(&md_online(o));
    }
    s.push_str(&md_warnings(&r.warnings));
    s
}

/// The title as the page heading, and the subtitle in italics below it.
fn md_heading(m: &Metadata) -> String {
    let mut s = String::new();
    let title = m.title.as_deref().unwrap_or("(no title found)");
    let _ = writeln!(s, "# {}", md_inline(title));
    if let Some(sub) = &m.subtitle {
        let _ = writeln!(s, "\n*{}*", md_inline(sub));
    }
    s
}

/// The table of set fields with where each was found and how sure:
/// confident values first, then the unsure ones (below MIN_CONFIDENCE:
/// not proposed, named or written).
fn md_field_table(r: &Record) -> String {
    let mut s = String::new();
    let _ = writeln!(
        s,
        "\n| Field | Value | Found on | Confidence |\n|---|---|---|---|"
    );
    for (values, unsure) in [(&r.metadata, false), (&r.unsure, true)] {
        for (name, key, value) in field_rows(values) {
            let (at, conf) = source_cells(r, key);
            let conf = if unsure {
                format!("{conf} (unsure)")
            } else {
                conf
            };
            let _ = writeln!(
                s,
                "| {name} | {} | {at} | {} |",
                md_cell(&value),
                conf.trim()
            );
        }
    }
    s
}

/// The "Found on" and "Confidence" cells for the record key `field`:
/// the page and how it was read, and the confidence with two decimals;
/// both empty when the record has no source for it.
fn source_cells(r: &Record, field: &str) -> (String, String) {
    r.sources
        .get(field)
        .map(|src| {
            let at = match src.page {
                Some(p) => format!("page {p} ({})", src.via.as_str()),
                None => src.via.as_str().to_string(),
            };
            (
                at,
                src.confidence.map_or(String::new(), |c| format!("{c:.2}")),
            )
        })
        .unwrap_or_default()
}

/// The list of facts about the file and how it was read: path, hash,
/// pages, status, error, pages read, vision, proposed name, written.
fn md_facts(r: &Record) -> String {
    let mut s = String::new();
    let status = match r.status {
        Status::Complete => "complete",
        Status::Incomplete => "incomplete (title or author missing)",
        Status::Error => "error",
    };
    let _ = writeln!(s, "\n- File: `{}`", r.path);
    if let Some(h) = &r.blake3 {
        let _ = writeln!(s, "- BLAKE3: `{h}`");
    }
    if let Some(p) = r.pages {
        let _ = writeln!(s, "- Pages: {p}");
    }
    let _ = writeln!(s, "- Status: {status}");
    if let Some(e) = &r.error {
        let _ = writeln!(s, "- Error: {}", md_inline(e));
    }
    let _ = writeln!(
        s,
        "- Pages read: front {}; back {}",
        page_list(&r.pages_read.front),
        page_list(&r.pages_read.back)
    );
    if !r.vision.pages.is_empty() || !r.vision.failed.is_empty() {
        let _ = writeln!(
            s,
            "- Vision: pages {}; failed {}",
            page_list(&r.vision.pages),
            page_list(&r.vision.failed)
        );
    }
    if let Some(name) = &r.proposed_filename {
        let _ = writeln!(s, "- Proposed file name: `{name}`");
    }
    let _ = writeln!(s, "- Written: {}", if r.written { "yes" } else { "no" });
    s
}

/// Page numbers joined with ", ", or "none".
fn page_list(v: &[u32]) -> String {
    if v.is_empty() {
        "none".into()
    } else {
        v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
    }
}

/// The "Online catalogues" section: each lookup and its result, the fields
/// a catalogue confirmed or filled, and each conflict with what was done.
fn md_online(o: &OnlineReport) -> String {
    let mut s = String::new();
    let _ = writeln!(s, "\n## Online catalogues\n");
    for l in &o.lookups {
        let cached = if l.cached { " (from the cache)" } else { "" };
        let detail = l
            .detail
            .as_deref()
            .map_or(String::new(), |d| format!(": {d}"));
        let _ = writeln!(
            s,
            "- {} `{}`: {}{cached}{}",
            l.source,
            l.id,
            l.result,
            md_inline(&detail)
        );
    }
    if !o.confirmed.is_empty() {
        let _ = writeln!(
            s,
            "- Confirmed by a catalogue: {}",
            field_names(&o.confirmed)
        );
    }
    if !o.filled.is_empty() {
        let _ = writeln!(s, "- From a catalogue only: {}", field_names(&o.filled));
    }
    for c in &o.conflicts {
        let _ = writeln!(
            s,
            "- Conflict on {}: the page says \u{ab}{}\u{bb}, {} says \u{ab}{}\u{bb}: {}",
            c.field.as_str(),
            md_inline(&c.page),
            c.via.as_str(),
            md_inline(&c.catalogue),
            c.outcome
        );
    }
    s
}

/// Field names joined with ", ".
fn field_names(fields: &[Field]) -> String {
    fields
        .iter()
        .map(|f| f.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The "Warnings" section, or nothing when there are none.
fn md_warnings(warnings: &[String]) -> String {
    let mut s = String::new();
    if !warnings.is_empty() {
        let _ = writeln!(s, "\n## Warnings\n");
        for w in warnings {
            let _ = writeln!(s, "- {}", md_inline(w));
        }
    }
    s
}

/// The set fields of `m` as (label, record key, value), in SPEC 7 order.
fn field_rows(m: &crate::model::Metadata) -> Vec<(&'static str, &'static str, String)> {
    let authors = (!m.authors.is_empty()).then(|| m.authors.join("; "));
    [
        ("Title", "title", m.title.clone()),
        ("Subtitle", "subtitle", m.subtitle.clone()),
        ("Authors", "authors", authors),
        ("Publisher", "publisher", m.publisher.clone()),
        ("Year", "year", m.year.map(|y| y.to_string())),
        ("Edition", "edition", m.edition.clone()),
        ("ISBN", "isbn", m.isbn.clone()),
        ("DOI", "doi", m.doi.clone()),
        ("LCCN", "loc", m.loc.clone()),
    ]
    .into_iter()
    .filter_map(|(n, k, v)| v.map(|v| (n, k, v)))
    .collect()
}

/// Text on one line, with Markdown's active characters escaped.
fn md_inline(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\n' | '\r' | '\t' => out.push(' '),
            '\\' | '*' | '_' | '`' | '[' | ']' | '<' | '>' | '#' | '|' => {
                out.push('\\');
                out.push(c);
            }
            c => out.push(c),
        }
    }
    out
}

fn md_cell(s: &str) -> String {
    md_inline(s)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Metadata, PagesRead, Source, Via, VisionPages};
    use std::collections::BTreeMap;

    pub(crate) fn sample_record() -> Record {
        let mut sources = BTreeMap::new();
        sources.insert(
            "title".to_string(),
            Source {
                page: Some(3),
                via: Via::Text,
                confidence: Some(0.97),
            },
        );
        Record {
            path: "books/x.pdf".into(),
            blake3: Some("ab".repeat(32)),
            pages: Some(12),
            status: Status::Complete,
            error: None,
            metadata: Metadata {
                title: Some("Gödel, Escher | Bach".into()),
                authors: vec!["Douglas Hofstadter".into()],
                year: Some(1979),
                ..Metadata::default()
            },
            unsure: Metadata {
                year: Some(1997),
                ..Metadata::default()
            },
            sources,
            pages_read: PagesRead {
                front: vec![1, 2, 3],
                back: vec![],
            },
            vision: VisionPages::default(),
            proposed_filename: Some("Hofstadter - Gödel, Escher - Bach (1979).pdf".into()),
            written: false,
            warnings: vec!["something *odd*".into()],
            online: None,
        }
    }

    #[test]
    fn writes_both_files_and_json_round_trips() {
        let dir = tempfile::tempdir().unwrap();
        let r = sample_record();
        let (md, json) = write_annotations(&dir.path().join("sub"), "Stem", &r).unwrap();
        assert!(md.ends_with("Stem--ann.md") && json.ends_with("Stem--ann.json"));
        let back: Record = serde_json::from_str(&std::fs::read_to_string(&json).unwrap()).unwrap();
        assert_eq!(back, r);
        let text = std::fs::read_to_string(&md).unwrap();
        assert!(text.starts_with("# Gödel, Escher \\| Bach\n"));
        assert!(text.contains("| Title | Gödel, Escher \\| Bach | page 3 (text) | 0.97 |"));
        assert!(text.contains("| Year | 1979 |"));
        assert!(text.contains("| Year | 1997 |  | (unsure) |"), "{text}");
        assert!(text.contains("- Pages read: front 1, 2, 3; back none"));
        assert!(text.contains("- something \\*odd\\*"));
    }

    #[test]
    fn overlong_stem_is_cut_to_the_byte_limit() {
        let stem = "é".repeat(200); // 400 bytes
        let (md, json) = annotation_paths(Path::new("/d"), &stem);
        for p in [md, json] {
            let name = p.file_name().unwrap().to_str().unwrap();
            assert!(name.len() <= 255, "{}", name.len());
        }
    }
}
