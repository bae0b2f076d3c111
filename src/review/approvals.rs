//! The approvals file the review page offers for download, and its use by
//! `colophon run --write --approved FILE`: only the rows a person left
//! ticked are written, and only while each file still has the content
//! (blake3) that was reviewed, so a write does exactly what was looked at.
//!
//! ```json
//! {"colophon_approvals": 1, "run": "20260101-120000-42",
//!  "approved": [{"path": "books/a.pdf", "blake3": "…"}]}
//! ```

use crate::model::Record;
use anyhow::{Context, Result, bail};
use serde::Deserialize;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

/// The approved (path, blake3) pairs of one review.
#[derive(Debug, Clone)]
pub struct Approvals {
    file: PathBuf,
    /// The run that was reviewed.
    pub run: String,
    approved: HashSet<(String, String)>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FileForm {
    colophon_approvals: u32,
    run: String,
    approved: Vec<Entry>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    path: String,
    blake3: String,
}

impl Approvals {
    /// Reads an approvals file; a file of another kind or version is refused.
    pub fn load(path: &Path) -> Result<Approvals> {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let form: FileForm = serde_json::from_str(&text).with_context(|| {
            format!(
                "{} is not an approvals file of the review page (review.html, \"Download approvals\")",
                path.display()
            )
        })?;
        if form.colophon_approvals != 1 {
            bail!(
                "{}: approvals format {} is not known to this colophon (1 is)",
                path.display(),
                form.colophon_approvals
            );
        }
        Ok(Approvals {
            file: path.to_path_buf(),
            run: form.run,
            approved: form
                .approved
                .into_iter()
                .map(|e| (e.path, e.blake3))
                .collect(),
        })
    }

    /// The record's file was approved with this very content.
    pub fn allows(&self, r: &Record) -> bool {
        r.blake3
            .as_ref()
            .is_some_and(|h| self.approved.contains(&(r.path.clone(), h.clone())))
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
            "not written: not approved in {} (or changed since the review)",
            self.file.display()
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_approved_paths_with_the_reviewed_content_pass() {
        let dir = tempfile::tempdir().unwrap();
        let f = dir.path().join("approved.json");
        let (h1, h2) = ("a".repeat(64), "b".repeat(64));
        std::fs::write(
            &f,
            format!(
                r#"{{"colophon_approvals": 1, "run": "r1", "approved": [{{"path": "x/a.pdf", "blake3": "{h1}"}}]}}"#
            ),
        )
        .unwrap();
        let a = Approvals::load(&f).unwrap();
        assert_eq!((a.run.as_str(), a.len()), ("r1", 1));
        let rec = |p: &str, h: &str| Record::error(p.into(), Some(h.into()), String::new());
        assert!(a.allows(&rec("x/a.pdf", &h1)));
        assert!(!a.allows(&rec("x/a.pdf", &h2)), "content changed");
        assert!(!a.allows(&rec("x/b.pdf", &h1)), "not ticked");
        assert!(a.refusal().contains("approved.json"));

        std::fs::write(&f, r#"{"run": "r1", "approved": []}"#).unwrap();
        let err = format!("{:#}", Approvals::load(&f).unwrap_err());
        assert!(err.contains("not an approvals file"), "{err}");
        std::fs::write(
            &f,
            r#"{"colophon_approvals": 2, "run": "r", "approved": []}"#,
        )
        .unwrap();
        assert!(Approvals::load(&f).is_err());
    }
}
