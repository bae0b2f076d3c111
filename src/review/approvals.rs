//! The approvals file the review page offers for download, and its use by
//! `colophon run --write --approved FILE`: only the rows a person left
//! ticked are written, only while each file still has the content
//! (blake3) that was reviewed, and with the values decided on the page,
//! one by one: a value rejected is not written, a value typed in is
//! written instead of the one found, and an unsure value accepted is
//! written as if it were sure. So a write does exactly what was looked at.
//!
//! ```json
//! {"colophon_approvals": 2, "run": "20260101-120000-42",
//!  "approved": [{"path": "books/a.pdf", "blake3": "…",
//!                "fields": {"authors": ["Agnes Thornquist"], "publisher": null,
//!                           "year": 1972}}]}
//! ```
//!
//! `fields` holds only the decisions: a field left out is written as the
//! run decided it; `null` rejects the field; a value (a list of names for
//! `authors`, a number for `year`) replaces it. Version 1 files (ticks
//! only, no `fields`) are read too. Every value is checked when the file
//! is read, so a bad one stops the run before any file is written.

use crate::model::{Field, Metadata, Record, Status};
use crate::settings::Settings;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use crate::model::NOT_APPROVED;

/// What the reviewer decided for one field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decided {
    /// Not written (the field is left empty).
    Rejected,
    /// Written with this value: typed in, or an unsure value accepted.
    Text(String),
    Names(Vec<String>),
    Year(i32),
}

/// The approved files of one review, each with its per-field decisions.
#[derive(Debug, Clone)]
pub struct Approvals {
    file: PathBuf,
    /// The run that was reviewed.
    pub run: String,
    /// (path, blake3) → decisions.
    approved: HashMap<(String, String), BTreeMap<Field, Decided>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileForm {
    colophon_approvals: u32,
    run: String,
    approved: Vec<EntryForm>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct EntryForm {
    path: String,
    blake3: String,
    #[serde(default)]
    fields: BTreeMap<Field, serde_json::Value>,
}

/// The newest version this colophon reads (it reads every older one).
const VERSION: u32 = 2;

impl Approvals {
    /// Reads an approvals file; a file of another kind or version, or a
    /// decision that is no value of its field, is refused with the file,
    /// the record and the field named.
    pub fn load(path: &Path) -> Result<Approvals> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let form: FileForm = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not an approvals file of the review page (review.html, \"Download approvals\")",
                path.display()
            )
        })?;
        if !(1..=VERSION).contains(&form.colophon_approvals) {
            bail!(
                "{}: approvals format {} is not known to this colophon (1 to {VERSION} are)",
                path.display(),
                form.colophon_approvals
            );
        }
        let mut approved = HashMap::new();
        for e in form.approved {
            let mut decisions = BTreeMap::new();
            for (field, v) in e.fields {
                let d = decided(field, &v).map_err(|why| {
                    anyhow::anyhow!(
                        "{}: {}: {}: {why}",
                        path.display(),
                        crate::util::escape::controls(&e.path),
                        field.as_str()
                    )
                })?;
                decisions.insert(field, d);
            }
            approved.insert((e.path, e.blake3), decisions);
        }
        Ok(Approvals {
            file: path.to_path_buf(),
            run: form.run,
            approved,
        })
    }

    /// The record's file was approved with this very content.
    pub fn allows(&self, r: &Record) -> bool {
        self.decisions(r).is_some()
    }

    fn decisions(&self, r: &Record) -> Option<&BTreeMap<Field, Decided>> {
        let hash = r.blake3.as_ref()?;
        self.approved.get(&(r.path.clone(), hash.clone()))
    }

    /// Puts the reviewer's decisions for `r` into its metadata (an
    /// approved record without decisions is left as it is), then its
    /// status and proposed name follow the new values. An edited or
    /// rejected field loses its source (no page holds the typed value);
    /// a warning lists what the review changed, and another says when
    /// the values left are not enough to write the file.
    pub fn apply(&self, r: &mut Record, settings: &Settings) {
        let Some(decisions) = self.decisions(r).filter(|d| !d.is_empty()) else {
            return;
        };
        let mut changed = Vec::new();
        for (&field, d) in decisions {
            let before = field_value(&r.metadata, field);
            set_field(&mut r.metadata, field, d);
            // Decided: no longer an unsure value beside it.
            set_field(&mut r.unsure, field, &Decided::Rejected);
            if field_value(&r.metadata, field) != before {
                r.sources.remove(field.as_str());
                let how = if *d == Decided::Rejected {
                    "rejected"
                } else {
                    "set"
                };
                changed.push(format!("{} {how}", field.as_str()));
            }
        }
        if changed.is_empty() {
            return;
        }
        r.warnings.push(format!(
            "decided on the review page ({}): {}",
            self.file.display(),
            changed.join(", ")
        ));
        if r.status != Status::Error {
            r.status = if r.metadata.is_complete() {
                Status::Complete
            } else {
                Status::Incomplete
            };
        }
        crate::name::propose(r, settings);
        if r.status == Status::Incomplete {
            r.warnings.push(
                "not written: the values approved on the review page have no title or no author"
                    .into(),
            );
        }
    }

    pub fn len(&self) -> usize {
        self.approved.len()
    }

    pub fn is_empty(&self) -> bool {
        self.approved.is_empty()
    }

    /// The warning of a record left unwritten.
    pub fn refusal(&self) -> String {
        format!(
            "{NOT_APPROVED}{} (or changed since the review)",
            self.file.display()
        )
    }
}

/// One field's decision from its JSON value, in the field's SPEC 7 form
/// (one line, an ISBN as 13 digits, a year as a number).
fn decided(field: Field, v: &serde_json::Value) -> Result<Decided, String> {
    use serde_json::Value as J;
    let text = |v: &J| -> Result<String, String> {
        let s = v
            .as_str()
            .ok_or_else(|| format!("{v} is not a text"))
            .map(crate::export::one_line)?;
        if s.is_empty() {
            Err("an empty value (use null to reject the field)".into())
        } else {
            Ok(s)
        }
    };
    Ok(match (field, v) {
        (_, J::Null) => Decided::Rejected,
        (Field::Authors, J::Array(names)) => {
            let names: Vec<String> = names.iter().map(text).collect::<Result<_, _>>()?;
            if names.is_empty() {
                Decided::Rejected
            } else {
                Decided::Names(names)
            }
        }
        (Field::Authors, _) => return Err(format!("{v} is not a list of names")),
        (Field::Year, v) => {
            let year = match v {
                J::Number(n) => n.as_i64(),
                J::String(s) => s.trim().parse().ok(),
                _ => None,
            };
            match year.and_then(|y| i32::try_from(y).ok()) {
                Some(y) if (1000..=9999).contains(&y) => Decided::Year(y),
                _ => return Err(format!("{v} is not a year")),
            }
        }
        (Field::Isbn, v) => {
            let raw = text(v)?;
            Decided::Text(
                crate::extract::isbn::to_isbn13(&raw)
                    .ok_or_else(|| format!("{raw:?} is not a valid ISBN"))?,
            )
        }
        (_, v) => Decided::Text(text(v)?),
    })
}

/// The field's value as text, for telling whether a decision changed it.
fn field_value(m: &Metadata, field: Field) -> Option<String> {
    match field {
        Field::Authors => (!m.authors.is_empty()).then(|| m.authors.join("\n")),
        Field::Year => m.year.map(|y| y.to_string()),
        _ => text_slot(&mut m.clone(), field).clone(),
    }
}

fn text_slot(m: &mut Metadata, field: Field) -> &mut Option<String> {
    match field {
        Field::Title => &mut m.title,
        Field::Subtitle => &mut m.subtitle,
        Field::Publisher => &mut m.publisher,
        Field::Edition => &mut m.edition,
        Field::Isbn => &mut m.isbn,
        Field::Doi => &mut m.doi,
        Field::Loc => &mut m.loc,
        // Not text fields: callers handle them before.
        Field::Authors | Field::Year => unreachable!("{field:?} is not a text field"),
    }
}

fn set_field(m: &mut Metadata, field: Field, d: &Decided) {
    match (field, d) {
        (Field::Authors, Decided::Names(n)) => m.authors = n.clone(),
        (Field::Authors, _) => m.authors.clear(),
        (Field::Year, Decided::Year(y)) => m.year = Some(*y),
        (Field::Year, _) => m.year = None,
        (_, Decided::Text(t)) => *text_slot(m, field) = Some(t.clone()),
        (_, _) => *text_slot(m, field) = None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::is_refusal;

    fn write(dir: &Path, text: &str) -> PathBuf {
        let f = dir.join("approved.json");
        std::fs::write(&f, text).unwrap();
        f
    }

    #[test]
    fn only_approved_paths_with_the_reviewed_content_pass() {
        let dir = tempfile::tempdir().unwrap();
        let (h1, h2) = ("a".repeat(64), "b".repeat(64));
        let f = write(
            dir.path(),
            &format!(
                r#"{{"colophon_approvals": 1, "run": "r1", "approved": [{{"path": "x/a.pdf", "blake3": "{h1}"}}]}}"#
            ),
        );
        let a = Approvals::load(&f).unwrap();
        assert_eq!((a.run.as_str(), a.len()), ("r1", 1));
        let rec = |p: &str, h: &str| Record::error(p.into(), Some(h.into()), String::new());
        assert!(a.allows(&rec("x/a.pdf", &h1)));
        assert!(!a.allows(&rec("x/a.pdf", &h2)), "content changed");
        assert!(!a.allows(&rec("x/b.pdf", &h1)), "not ticked");
        assert!(a.refusal().contains("approved.json"));
        assert!(is_refusal(&a.refusal()));

        write(dir.path(), r#"{"run": "r1", "approved": []}"#);
        let err = format!("{:#}", Approvals::load(&f).unwrap_err());
        assert!(err.contains("not an approvals file"), "{err}");
        write(
            dir.path(),
            r#"{"colophon_approvals": 3, "run": "r", "approved": []}"#,
        );
        assert!(Approvals::load(&f).is_err());
    }

    fn record(hash: &str) -> Record {
        let mut r = Record::error("b/w.pdf".into(), Some(hash.into()), String::new());
        r.error = None;
        r.status = Status::Complete;
        r.metadata = Metadata {
            title: Some("Weaving".into()),
            authors: vec!["Agnes Thornquist".into(), "Wrong Person".into()],
            year: Some(1972),
            ..Metadata::default()
        };
        r.unsure.publisher = Some("Millbrook".into());
        r.sources.insert(
            "authors".into(),
            crate::model::Source {
                page: Some(2),
                via: crate::model::Via::Text,
                confidence: Some(0.9),
            },
        );
        r
    }

    #[test]
    fn per_value_decisions_are_applied_and_the_name_follows() {
        let dir = tempfile::tempdir().unwrap();
        let h = "c".repeat(64);
        let f = write(
            dir.path(),
            &format!(
                r#"{{"colophon_approvals": 2, "run": "r1", "approved": [{{"path": "b/w.pdf", "blake3": "{h}",
                   "fields": {{"authors": ["Agnes Thornquist", "Beatrice L.\nHume"], "year": null,
                              "publisher": "Millbrook Craft Books", "isbn": "0-87611-203-3"}}}}]}}"#
            ),
        )
        .to_path_buf();
        let a = Approvals::load(&f).unwrap();
        let mut r = record(&h);
        a.apply(&mut r, &Settings::default());
        assert_eq!(r.metadata.authors, ["Agnes Thornquist", "Beatrice L. Hume"]);
        assert_eq!(r.metadata.year, None);
        assert_eq!(
            r.metadata.publisher.as_deref(),
            Some("Millbrook Craft Books")
        );
        assert_eq!(r.metadata.isbn.as_deref(), Some("9780876112038"));
        assert_eq!(r.unsure.publisher, None, "decided, no longer unsure");
        assert!(
            !r.sources.contains_key("authors"),
            "no page holds the typed names"
        );
        assert_eq!(r.status, Status::Complete);
        let name = r.proposed_filename.clone().unwrap();
        assert!(name.contains("Hume") && !name.contains("1972"), "{name}");
        assert!(
            r.warnings[0]
                .ends_with("approved.json): authors set, publisher set, year rejected, isbn set"),
            "{:?}",
            r.warnings
        );

        // Rejecting the only author leaves nothing to write: said so.
        let f = write(
            dir.path(),
            &format!(
                r#"{{"colophon_approvals": 2, "run": "r1", "approved": [{{"path": "b/w.pdf", "blake3": "{h}",
                   "fields": {{"authors": []}}}}]}}"#
            ),
        );
        let mut r = record(&h);
        Approvals::load(&f)
            .unwrap()
            .apply(&mut r, &Settings::default());
        assert_eq!(r.status, Status::Incomplete);
        assert_eq!(r.proposed_filename, None);
        assert!(
            r.warnings
                .iter()
                .any(|w| w.contains("no title or no author")),
            "{:?}",
            r.warnings
        );
    }

    #[test]
    fn a_bad_value_stops_the_load_naming_file_record_and_field() {
        let dir = tempfile::tempdir().unwrap();
        for (field, value) in [
            ("year", r#""soon""#),
            ("isbn", r#""123""#),
            ("title", r#""  ""#),
            ("authors", r#""Ann Smith""#),
        ] {
            let f = write(
                dir.path(),
                &format!(
                    r#"{{"colophon_approvals": 2, "run": "r", "approved": [{{"path": "b/w.pdf", "blake3": "x",
                       "fields": {{"{field}": {value}}}}}]}}"#
                ),
            );
            let err = format!("{:#}", Approvals::load(&f).unwrap_err());
            assert!(
                err.contains("approved.json") && err.contains("b/w.pdf") && err.contains(field),
                "{err}"
            );
        }
    }
}
