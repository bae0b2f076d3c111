//! Stage 10, report: records (SPEC 7) on stdout and in
//! `cache/runs/<run-id>/records.jsonl`, the table's rows, and the run
//! summary with the per-stage outcomes it counts. It takes data (records,
//! outcomes) and imports no stage: the record is assembled in
//! [`crate::record`].

use crate::model::{Record, Status, is_refusal, write_failure};
use crate::util::escape::controls as escape_controls;
use anyhow::{Context, Result};
use std::fs;
use std::io::{BufWriter, Write};
use std::ops::AddAssign;
use std::path::Path;

/// What became of a record, as the table's status says it: the write's
/// outcome first (failed, not approved, left unwritten, written), else
/// the record's status.
fn row_status(r: &Record) -> &'static str {
    if r.warnings.iter().any(|w| write_failure(w).is_some()) {
        "write failed"
    } else if r.warnings.iter().any(|w| is_refusal(w)) {
        "not approved"
    } else if r.warnings.iter().any(|w| w.starts_with(NOT_WRITTEN)) {
        "not written"
    } else if r.written {
        "written"
    } else {
        r.status.as_str()
    }
}

/// How a write stage's warning starts when it left a file alone (a
/// read-only file, a changed file, a refused PDF).
pub const NOT_WRITTEN: &str = "not written: ";

/// One row of the stdout table: current name → proposed name, status
/// (the write's outcome when there was one), then the warnings and the
/// main fields, an unsure value (below
/// `MIN_CONFIDENCE`: shown, never written) with a `?` after it.
///
/// `width`: the terminal's columns, when the table goes to one: the row is
/// cut to fit, each part of it with `…` (`--json` and a table sent to a
/// file or a pipe keep everything).
pub fn table_row(r: &Record, width: Option<usize>) -> String {
    let status = row_status(r);
    let proposed = r.proposed_filename.as_deref().unwrap_or("-");
    let fields = fields(r).join(" | ");
    let (path, proposed, fields) = (
        escape_controls(&r.path),
        escape_controls(proposed),
        escape_controls(&fields),
    );
    let Some(width) = width else {
        let row = format!("{path}  →  {proposed}  [{status}]  {fields}");
        return row.trim_end().to_string();
    };
    let fixed = format!("  →    [{status}]  ");
    let avail = width.saturating_sub(text_width(&fixed));
    // The names first (the proposed name holds the title, authors and
    // year), the fields the rest, and at least a quarter: warnings and
    // unsure values lead them.
    let fields_min = text_width(&fields).min(avail / 4);
    let [p, n] = share(
        avail - fields_min,
        [text_width(&path), text_width(&proposed)],
    );
    let (path, proposed) = (clip(&path, p), clip(&proposed, n));
    let fields = clip(&fields, avail - text_width(&path) - text_width(&proposed));
    let row = format!("{path}  →  {proposed}  [{status}]  {fields}");
    clip(row.trim_end(), width)
}

/// The row's fields: the error, the warnings, then title, authors, year,
/// ISBN, DOI, each sure value as it is and an unsure one with a `?`.
fn fields(r: &Record) -> Vec<String> {
    let (m, u) = (&r.metadata, &r.unsure);
    let mut fields = Vec::new();
    if let Some(e) = &r.error {
        fields.push(format!("error: {e}"));
    }
    for w in &r.warnings {
        fields.push(format!("warning: {w}"));
    }
    let pick = |sure: Option<String>, unsure: Option<String>| match (sure, unsure) {
        (Some(v), _) => Some(v),
        (None, Some(v)) => Some(format!("{v}?")),
        (None, None) => None,
    };
    let joined = |a: &[String]| (!a.is_empty()).then(|| a.join("; "));
    for (name, value) in [
        ("title", pick(m.title.clone(), u.title.clone())),
        ("authors", pick(joined(&m.authors), joined(&u.authors))),
        (
            "year",
            pick(m.year.map(|y| y.to_string()), u.year.map(|y| y.to_string())),
        ),
        ("isbn", pick(m.isbn.clone(), u.isbn.clone())),
        ("doi", pick(m.doi.clone(), u.doi.clone())),
    ] {
        if let Some(v) = value {
            fields.push(format!("{name}: {v}"));
        }
    }
    fields
}

/// Columns shared among parts that want `wants` columns: each gets what it
/// wants when all fit, else the short ones keep theirs and the long ones
/// share the rest equally (water-filling).
fn share<const N: usize>(avail: usize, wants: [usize; N]) -> [usize; N] {
    let mut got = [0; N];
    let mut left = avail;
    let mut open: Vec<usize> = (0..N).collect();
    while !open.is_empty() {
        let each = left / open.len();
        let (fit, long): (Vec<usize>, Vec<usize>) = open.iter().partition(|&&i| wants[i] <= each);
        if fit.is_empty() {
            for (k, &i) in long.iter().enumerate() {
                // The remainder goes to the first ones.
                got[i] = each + usize::from(k < left % long.len());
            }
            break;
        }
        for i in fit {
            got[i] = wants[i];
            left -= wants[i];
        }
        open = long;
    }
    got
}

/// Columns `s` takes on a terminal (a wide character takes two).
fn text_width(s: &str) -> usize {
    unicode_width::UnicodeWidthStr::width(s)
}

/// `s` cut to `max` columns, the last one a `…` when something was cut.
fn clip(s: &str, max: usize) -> String {
    if text_width(s) <= max {
        return s.to_string();
    }
    let mut t = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = unicode_width::UnicodeWidthChar::width(c).unwrap_or(0);
        if used + w + 1 > max {
            break;
        }
        used += w;
        t.push(c);
    }
    if max > 0 {
        t.push('…');
    }
    t
}

/// Streams records to `records.jsonl` as they are made.
pub struct RecordsFile {
    out: BufWriter<fs::File>,
}

impl RecordsFile {
    /// `records.jsonl` in the run folder `run_dir`.
    pub fn create(run_dir: &Path) -> Result<RecordsFile> {
        let path = run_dir.join("records.jsonl");
        let f = fs::File::create(&path).with_context(|| format!("creating {}", path.display()))?;
        Ok(RecordsFile {
            out: BufWriter::new(f),
        })
    }

    pub fn push(&mut self, r: &Record) -> Result<()> {
        serde_json::to_writer(&mut self.out, r)?;
        self.out.write_all(b"\n")?;
        Ok(())
    }

    pub fn finish(mut self) -> Result<()> {
        self.out.flush()?;
        Ok(())
    }
}

/// Where one stage's result for one item (a file, a document, a page) came
/// from. The stages return these and the run counts them into its
/// [`Summary`] (sccache's `CompileResult`), so that no counter rides along
/// with the work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StageOutcome {
    /// fingerprint: from the stat memo, or read and hashed.
    Hash(HashOutcome),
    /// inspect: a document opened by a pdfium worker.
    Opened,
    /// inspect: one page's text layer.
    Page(Got),
    /// OCR of one page.
    Ocr(Got),
    /// One page's vision answer.
    Vision(VisionGot),
    /// A document's record (a cached failure counts as cached; a failure
    /// now is neither).
    Record(Got),
}

/// How the fingerprint stage got a file's hash (counted in the run summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashOutcome {
    /// From the stat memo: the file was not read.
    Memo,
    /// Read and hashed now.
    Hashed,
}

/// A result from the cache, or computed now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Got {
    Cached,
    Computed,
}

/// What became of one page sent to the vision stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VisionGot {
    /// The backend answered now.
    Answered,
    /// The answer came from the cache.
    Cached,
    /// No answer (failed, or skipped because vision is off or cancelled).
    Failed,
}

/// Counts of what a run did, per stage and outcome (STYLE "say why work
/// was redone"). Summed across documents, and across the shards of a
/// sharded run by `merge` (from each run's `summary.json`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default)]
pub struct Summary {
    pub files: u64,
    pub complete: u64,
    pub incomplete: u64,
    pub errors: u64,
    pub written: u64,
    /// Writes that failed (an I/O error, a copy that failed its check):
    /// the run's exit status is then 1.
    pub write_failed: u64,
    /// Files left unwritten by `--approved FILE` (not ticked on the
    /// review page, or changed since).
    pub not_approved: u64,
    /// fingerprint: hashes taken from the stat memo / computed.
    pub hash_memo: u64,
    pub hash_computed: u64,
    /// record: whole documents answered from the cache / computed.
    pub record_cached: u64,
    pub record_computed: u64,
    /// inspect: document opens and pages read by pdfium / from the cache.
    pub docs_opened: u64,
    pub pages_read: u64,
    pub pages_cached: u64,
    /// OCR: pages OCRed / from the cache.
    pub ocr_pages: u64,
    pub ocr_cached: u64,
    /// vision: requests sent, answers from the cache, pages failed.
    pub vision_requests: u64,
    pub vision_cached: u64,
    pub vision_failed: u64,
    /// online: HTTP requests sent, answers from the cache, lookups that
    /// failed or were skipped.
    pub online_requests: u64,
    pub online_cached: u64,
    pub online_failed: u64,
    /// Each vision host's pages (`VLM_ENDPOINTS`), when the run sent any.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub vision_hosts: Vec<HostCount>,
}

/// One vision host's pages in a run: sent there, answered there, failed
/// there (a page that failed at one host may be answered by another), and
/// whether its circuit breaker switched it off.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct HostCount {
    pub endpoint: String,
    pub sent: u64,
    pub answered: u64,
    pub failed: u64,
    pub switched_off: bool,
}

impl AddAssign for Summary {
    fn add_assign(&mut self, o: Summary) {
        self.files += o.files;
        self.complete += o.complete;
        self.incomplete += o.incomplete;
        self.errors += o.errors;
        self.written += o.written;
        self.write_failed += o.write_failed;
        self.not_approved += o.not_approved;
        self.hash_memo += o.hash_memo;
        self.hash_computed += o.hash_computed;
        self.record_cached += o.record_cached;
        self.record_computed += o.record_computed;
        self.docs_opened += o.docs_opened;
        self.pages_read += o.pages_read;
        self.pages_cached += o.pages_cached;
        self.ocr_pages += o.ocr_pages;
        self.ocr_cached += o.ocr_cached;
        self.vision_requests += o.vision_requests;
        self.vision_cached += o.vision_cached;
        self.vision_failed += o.vision_failed;
        self.online_requests += o.online_requests;
        self.online_cached += o.online_cached;
        self.online_failed += o.online_failed;
        // The shards of a merged run: summed per host.
        for h in o.vision_hosts {
            match self
                .vision_hosts
                .iter_mut()
                .find(|m| m.endpoint == h.endpoint)
            {
                Some(m) => {
                    m.sent += h.sent;
                    m.answered += h.answered;
                    m.failed += h.failed;
                    m.switched_off |= h.switched_off;
                }
                None => self.vision_hosts.push(h),
            }
        }
    }
}

impl Summary {
    /// Counts one stage's outcome.
    pub fn add(&mut self, outcome: StageOutcome) {
        let n = match outcome {
            StageOutcome::Hash(HashOutcome::Memo) => &mut self.hash_memo,
            StageOutcome::Hash(HashOutcome::Hashed) => &mut self.hash_computed,
            StageOutcome::Opened => &mut self.docs_opened,
            StageOutcome::Page(Got::Computed) => &mut self.pages_read,
            StageOutcome::Page(Got::Cached) => &mut self.pages_cached,
            StageOutcome::Ocr(Got::Computed) => &mut self.ocr_pages,
            StageOutcome::Ocr(Got::Cached) => &mut self.ocr_cached,
            StageOutcome::Vision(VisionGot::Answered) => &mut self.vision_requests,
            StageOutcome::Vision(VisionGot::Cached) => &mut self.vision_cached,
            StageOutcome::Vision(VisionGot::Failed) => &mut self.vision_failed,
            StageOutcome::Record(Got::Cached) => &mut self.record_cached,
            StageOutcome::Record(Got::Computed) => &mut self.record_computed,
        };
        *n += 1;
    }

    /// The counts of a list of outcomes (one document's).
    pub fn of(outcomes: &[StageOutcome]) -> Summary {
        let mut s = Summary::default();
        for &o in outcomes {
            s.add(o);
        }
        s
    }

    /// The counts of one finished record.
    pub fn of_record(r: &Record) -> Summary {
        let mut s = Summary {
            files: 1,
            ..Summary::default()
        };
        match r.status {
            Status::Complete => s.complete += 1,
            Status::Incomplete => s.incomplete += 1,
            Status::Error => s.errors += 1,
        }
        if r.written {
            s.written += 1;
        }
        if r.warnings.iter().any(|w| write_failure(w).is_some()) {
            s.write_failed += 1;
        }
        if r.warnings.iter().any(|w| is_refusal(w)) {
            s.not_approved += 1;
        }
        s
    }

    /// The `summary.md` text.
    pub fn markdown(&self, run_id: &str, seconds: f64, dry_run: bool) -> String {
        let mut s = format!(
            "# colophon run {run_id}\n\n{} in {seconds:.2} s.\n\n| what | count |\n|---|---:|\n",
            if dry_run {
                "Dry run (nothing under data/ was changed)"
            } else {
                "Write run"
            }
        );
        for (k, v) in self.rows() {
            s.push_str(&format!("| {k} | {v} |\n"));
        }
        if !self.vision_hosts.is_empty() {
            s.push_str(
                "\n## Vision hosts\n\n| host | pages sent | answered | failed | switched off |\n\
                 |---|---:|---:|---:|---|\n",
            );
            for h in &self.vision_hosts {
                s.push_str(&format!(
                    "| {} | {} | {} | {} | {} |\n",
                    h.endpoint,
                    h.sent,
                    h.answered,
                    h.failed,
                    if h.switched_off { "yes" } else { "no" }
                ));
            }
        }
        s
    }

    /// The stage counts, as `-v` prints them at the end of a run.
    pub fn counts(&self) -> String {
        self.rows()
            .iter()
            .map(|(k, v)| format!("  {k:<30} {v}"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// What each stage did for one document, for `-v`: where its hash,
    /// record, pages, OCR and vision answers came from (this summary being
    /// that document's own).
    pub fn document_line(&self, path: &str, cached: bool) -> String {
        let path = escape_controls(path);
        let hash = if self.hash_memo > 0 {
            "hash from the stat memo"
        } else {
            "hashed"
        };
        if cached {
            return format!("{path}: {hash}; record from the cache");
        }
        format!(
            "{path}: {hash}; record computed: {} pages read, {} from the cache; {} OCRed, {} from the cache; {} vision requests, {} from the cache, {} failed",
            self.pages_read,
            self.pages_cached,
            self.ocr_pages,
            self.ocr_cached,
            self.vision_requests,
            self.vision_cached,
            self.vision_failed
        )
    }

    fn rows(&self) -> [(&'static str, u64); 22] {
        [
            ("files", self.files),
            ("complete", self.complete),
            ("incomplete", self.incomplete),
            ("errors", self.errors),
            ("written", self.written),
            ("write failures", self.write_failed),
            ("not approved", self.not_approved),
            ("hashes from the stat memo", self.hash_memo),
            ("hashes computed", self.hash_computed),
            ("records from the cache", self.record_cached),
            ("records computed", self.record_computed),
            ("documents opened", self.docs_opened),
            ("pages read by pdfium", self.pages_read),
            ("pages from the cache", self.pages_cached),
            ("pages OCRed", self.ocr_pages),
            ("OCR pages from the cache", self.ocr_cached),
            ("vision requests", self.vision_requests),
            ("vision answers from the cache", self.vision_cached),
            ("vision pages failed", self.vision_failed),
            ("online requests", self.online_requests),
            ("online answers from the cache", self.online_cached),
            ("online lookups failed", self.online_failed),
        ]
    }

    /// One line for stderr at the end of a run.
    pub fn line(&self, seconds: f64) -> String {
        let failed = match self.write_failed {
            0 => String::new(),
            n => format!(", {n} writes FAILED (see the table)"),
        };
        let failed = match self.not_approved {
            0 => failed,
            n => format!("{failed}, {n} not approved (not written)"),
        };
        format!(
            "{} files: {} complete, {} incomplete, {} errors{failed}; {} computed, {} from cache; {} pages read, {} OCRed, {} vision requests ({} failed) in {seconds:.2} s",
            self.files,
            self.complete,
            self.incomplete,
            self.errors,
            self.record_computed,
            self.record_cached,
            self.pages_read,
            self.ocr_pages,
            self.vision_requests,
            self.vision_failed
        ) + &self.online_part()
    }

    /// `; N online requests (M lookups failed)` when the run went online.
    fn online_part(&self) -> String {
        if self.online_requests + self.online_cached + self.online_failed == 0 {
            return String::new();
        }
        format!(
            "; {} online requests, {} answers from the cache, {} lookups failed",
            self.online_requests, self.online_cached, self.online_failed
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn control_characters_in_names_are_escaped_in_the_table() {
        let name = "evil\nrow\x1b[31mred\u{9b}\u{202e}fdp.exe\t\x7f.pdf";
        let mut r = Record::error(name.to_string(), None, format!("reading data/{name}"));
        r.proposed_filename = Some("a\rb.pdf".into());
        let row = table_row(&r, None);
        assert_eq!(
            row,
            "evil\\nrow\\x1b[31mred\\u{9b}\\u{202e}fdp.exe\\t\\x7f.pdf  →  a\\rb.pdf  [error]  \
             error: reading data/evil\\nrow\\x1b[31mred\\u{9b}\\u{202e}fdp.exe\\t\\x7f.pdf"
        );
        assert!(!row.chars().any(char::is_control), "{row:?}");
        // Plain names, accents and backslashes are shown as they are.
        assert_eq!(
            escape_controls("Müller \\ Søn – Ω.pdf"),
            "Müller \\ Søn – Ω.pdf"
        );
        assert!(matches!(
            escape_controls("plain.pdf"),
            std::borrow::Cow::Borrowed(_)
        ));
        let line = Summary::default().document_line("a\x1b[2Jb.pdf", true);
        assert_eq!(line, "a\\x1b[2Jb.pdf: hashed; record from the cache");
    }

    fn record(path: &str) -> Record {
        let mut r = Record::error(path.to_string(), None, String::new());
        r.error = None;
        r.status = Status::Incomplete;
        r
    }

    #[test]
    fn unsure_values_carry_a_question_mark_and_warnings_are_counted() {
        let mut r = record("shelf/a.pdf");
        r.metadata.title = Some("Sure Title".into());
        r.unsure.authors = vec!["Ada Lovelace".into(), "C. Babbage".into()];
        r.unsure.year = Some(1843);
        r.metadata.year = None;
        assert_eq!(
            table_row(&r, None),
            "shelf/a.pdf  →  -  [incomplete]  title: Sure Title | authors: Ada Lovelace; C. Babbage? | year: 1843?"
        );
        // A sure value wins over an unsure one of the same field.
        r.unsure.title = Some("Other".into());
        assert!(table_row(&r, None).contains("title: Sure Title |"));
        r.warnings = vec![format!("{NOT_WRITTEN}read-only file: left alone")];
        let row = table_row(&r, None);
        assert!(
            row.contains("[not written]  warning: not written: read-only file"),
            "{row}"
        );
    }

    #[test]
    fn the_status_says_what_became_of_the_write() {
        let mut r = record("a.pdf");
        r.status = Status::Complete;
        assert!(table_row(&r, None).contains("[complete]"));
        r.written = true;
        assert!(table_row(&r, None).contains("[written]"));
        r.warnings
            .push(format!("{}disk full", crate::model::WRITE_FAILED));
        r.written = false;
        assert!(table_row(&r, None).contains("[write failed]  warning: write failed: disk full"));
        r.warnings = vec![format!("{}ok.json", crate::model::NOT_APPROVED)];
        assert!(table_row(&r, None).contains("[not approved]"));
    }

    #[test]
    fn rows_fit_the_width_and_each_long_part_is_cut() {
        let mut r = record(&format!("{}/file.pdf", "long folder ".repeat(10)));
        r.proposed_filename = Some(format!("{}.pdf", "Name ".repeat(20)));
        r.metadata.title = Some("ごく長い題名".repeat(8));
        let full = table_row(&r, None);
        for width in [20, 40, 61, 80, 120] {
            let row = table_row(&r, Some(width));
            assert!(text_width(&row) <= width, "{width}: {row:?}");
            assert!(text_width(&row) >= width - 1, "the width is used: {row:?}");
            if width < 61 {
                continue;
            }
            // Each of the three long parts shows its start, cut.
            assert!(row.starts_with("long folder"), "{row}");
            assert!(row.contains("  →  Name Name"), "{row}");
            assert!(row.contains("[incomplete]"), "{row}");
            assert_eq!(row.matches('…').count(), 3, "{row}");
        }
        // Short rows are left whole.
        let short = record("a.pdf");
        assert_eq!(table_row(&short, Some(80)), table_row(&short, None));
        assert!(text_width(&full) > 120);
    }

    #[test]
    fn shares_give_short_parts_their_length_and_split_the_rest() {
        assert_eq!(share(30, [5, 100, 100]), [5, 13, 12]);
        assert_eq!(share(30, [5, 6, 7]), [5, 6, 7]);
        assert_eq!(share(0, [5, 6, 7]), [0, 0, 0]);
        assert_eq!(clip("abcdef", 4), "abc…");
        assert_eq!(clip("日本語", 4), "日…");
        assert_eq!(clip("abc", 3), "abc");
    }
}
