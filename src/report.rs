//! Stage 10, report: records (SPEC 7) on stdout and in
//! `cache/runs/<run-id>/records.jsonl`, the run summary, diagnostics, and
//! the `cache/runs/latest` link.

use crate::model::{DocResult, PdfFile, Record, Source, Status};
use crate::settings::Settings;
use anyhow::{Context, Result};
use std::collections::BTreeMap;
use std::fs;
use std::io::{BufWriter, Write};
use std::ops::AddAssign;
use std::path::{Path, PathBuf};

/// The folder of one run's outputs.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub id: String,
    pub path: PathBuf,
}

impl RunDir {
    /// Creates `cache/runs/<run-id>/` with a new, sortable, unique id.
    pub fn create(cache_dir: &Path) -> Result<RunDir> {
        let runs = cache_dir.join("runs");
        fs::create_dir_all(&runs).with_context(|| format!("creating {}", runs.display()))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let base = format!("{}-{}", format_utc(now.as_secs()), std::process::id());
        for n in 0.. {
            let id = if n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let path = runs.join(&id);
            match fs::create_dir(&path) {
                Ok(()) => return Ok(RunDir { id, path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
            }
        }
        unreachable!()
    }

    pub fn ann_dir(&self) -> PathBuf {
        self.path.join("ann")
    }

    /// `diagnostics/<relative stem>/` of one PDF.
    pub fn diagnostics_dir(&self, rel: &Path) -> PathBuf {
        self.path.join("diagnostics").join(rel.with_extension(""))
    }

    /// Output folders of earlier runs beyond the newest `keep` (this run
    /// counted, never returned): what [`KEEP_RUNS`] lets go.
    pub fn older_runs(&self, keep: usize) -> Vec<PathBuf> {
        let runs = self.path.parent().expect("run dir has a parent");
        runs_beyond(runs, keep.max(1))
            .into_iter()
            .filter(|p| *p != self.path)
            .collect()
    }

    /// The run `cache/runs/latest` points at (the last one that finished),
    /// when it is another run whose folder is still there.
    pub fn previous(&self) -> Option<RunDir> {
        let runs = self.path.parent()?;
        let id = fs::read_link(runs.join("latest"))
            .ok()?
            .to_str()?
            .to_string();
        let path = runs.join(&id);
        (is_run_id(&id) && path != self.path && path.is_dir()).then_some(RunDir { id, path })
    }

    /// Points `cache/runs/latest` at this run (replacing the link atomically).
    pub fn mark_latest(&self) -> Result<()> {
        let runs = self.path.parent().expect("run dir has a parent");
        let tmp = runs.join(format!(".latest-{}", std::process::id()));
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&self.id, &tmp).context("linking cache/runs/latest")?;
        fs::rename(&tmp, runs.join("latest")).context("linking cache/runs/latest")?;
        Ok(())
    }
}

/// How many runs keep their outputs under `cache/runs/`: every run writes
/// two annotation files per PDF, so a large library rerun often would
/// otherwise fill the disk with old runs.
pub const KEEP_RUNS: usize = 10;

/// The run folders in `runs` (`cache/runs/`) beyond the newest `keep`,
/// oldest first. Only folders named like a run id count; undo journals
/// live elsewhere (`cache/journal/`), so `colophon undo` loses nothing.
pub fn runs_beyond(runs: &Path, keep: usize) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(runs) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|id| is_run_id(id))
        .collect();
    // Ids start with the UTC time, so they sort by age.
    ids.sort();
    let surplus = ids.len().saturating_sub(keep);
    ids.into_iter()
        .take(surplus)
        .map(|id| runs.join(id))
        .collect()
}

/// Deletes the folder `dir` and everything under it (symbolic links are
/// removed, never followed) until `stop()` says so; true when it is gone.
/// Errors are skipped: an old run folder left half-deleted is taken up
/// again by the next run.
pub fn remove_tree_until(dir: &Path, stop: &dyn Fn() -> bool) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return fs::remove_dir(dir).is_ok() || !dir.exists();
    };
    for entry in entries.flatten() {
        if stop() {
            return false;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                if !remove_tree_until(&path, stop) {
                    return false;
                }
            }
            _ => {
                let _ = fs::remove_file(&path);
            }
        }
    }
    !stop() && fs::remove_dir(dir).is_ok()
}

/// `YYYYMMDD-HHMMSS-PID` or `YYYYMMDD-HHMMSS-PID-N`, as [`RunDir::create`] names runs.
fn is_run_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let digits = |p: &str, n: Option<usize>| {
        !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && n.is_none_or(|n| p.len() == n)
    };
    matches!(parts.len(), 3 | 4)
        && digits(parts[0], Some(8))
        && digits(parts[1], Some(6))
        && parts[2..].iter().all(|p| digits(p, None))
}

/// `YYYYMMDD-HHMMSS` in UTC, without a date crate.
fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The SPEC 7 record of a document that was read.
pub fn record(file: &PdfFile, hash_hex: String, result: &DocResult, settings: &Settings) -> Record {
    let offset = settings.page_num_offset;
    let decision = &result.decision;
    let sources: BTreeMap<String, Source> = decision
        .sources
        .iter()
        .map(|(field, (page, via))| {
            (
                field.as_str().to_string(),
                Source {
                    page: page.map(|p| p + offset),
                    via: *via,
                    confidence: decision.confidence.get(field).copied(),
                },
            )
        })
        .collect();
    let shift = |v: &[u32]| v.iter().map(|p| p + offset).collect::<Vec<_>>();
    let (metadata, unsure) = crate::decide::split_by_confidence(decision, settings.min_confidence);
    let status = if metadata.is_complete() {
        Status::Complete
    } else {
        Status::Incomplete
    };
    let proposed_filename = crate::name::proposed_filename(&metadata, settings);
    let mut warnings = result.warnings.clone();
    if proposed_filename.is_none() && metadata.is_complete() {
        warnings.push(crate::name::no_name_note(settings));
    }
    Record {
        path: rel_string(&file.rel),
        blake3: Some(hash_hex),
        pages: Some(result.page_count),
        status,
        error: None,
        metadata,
        unsure,
        sources,
        pages_read: crate::model::PagesRead {
            front: shift(&result.pages_read.front),
            back: shift(&result.pages_read.back),
        },
        vision: crate::model::VisionPages {
            pages: shift(&result.vision.pages),
            failed: shift(&result.vision.failed),
        },
        proposed_filename,
        written: false,
        warnings,
        online: None,
    }
}

/// A relative path as shown in records (always `/`-separated).
pub fn rel_string(rel: &Path) -> String {
    rel.to_string_lossy().into_owned()
}

/// One row of the stdout table: current name → proposed name, main fields, status.
pub fn table_row(r: &Record) -> String {
    let failed_write = r
        .warnings
        .iter()
        .find_map(|w| crate::write::write_failure(w));
    let status = match (r.status, failed_write) {
        (_, Some(_)) => "write failed",
        (Status::Complete, None) => "complete",
        (Status::Incomplete, None) => "incomplete",
        (Status::Error, None) => "error",
    };
    let proposed = r.proposed_filename.as_deref().unwrap_or("-");
    let m = &r.metadata;
    let mut fields = Vec::new();
    if let Some(t) = &m.title {
        fields.push(format!("title: {}", clip(t, 60)));
    }
    if !m.authors.is_empty() {
        fields.push(format!("authors: {}", clip(&m.authors.join("; "), 50)));
    }
    if let Some(y) = m.year {
        fields.push(format!("year: {y}"));
    }
    if let Some(i) = &m.isbn {
        fields.push(format!("isbn: {i}"));
    }
    if let Some(d) = &m.doi {
        fields.push(format!("doi: {d}"));
    }
    if let Some(e) = &r.error {
        fields.push(format!("error: {e}"));
    }
    if let Some(why) = failed_write {
        fields.push(format!("write failed: {why}"));
    }
    let row = format!(
        "{}  →  {}  [{}]  {}",
        r.path,
        proposed,
        status,
        fields.join(" | ")
    );
    escape_controls(&row).into_owned()
}

/// `s` with every control character (C0, DEL, C1) and every bidirectional
/// override written as an escape (`\n`, `\t`, `\x1b`, `\u{202e}`), for text
/// meant for a terminal or a person: a file name (or a title, or an error
/// quoting one) can then neither split a row of the table nor send escape
/// codes to the terminal. JSON output keeps names exact. A backslash is
/// left as it is, so names with one read naturally.
pub fn escape_controls(s: &str) -> std::borrow::Cow<'_, str> {
    // Bidirectional embeddings, overrides and isolates reorder what
    // follows them on screen (a name can pose as another).
    let hostile =
        |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(hostile) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hostile(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hostile(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

fn clip(s: &str, max: usize) -> String {
    if s.chars().count() <= max {
        s.to_string()
    } else {
        let mut t: String = s.chars().take(max - 1).collect();
        t.push('…');
        t
    }
}

/// Streams records to `records.jsonl` as they are made.
pub struct RecordsFile {
    out: BufWriter<fs::File>,
}

impl RecordsFile {
    pub fn create(run: &RunDir) -> Result<RecordsFile> {
        let path = run.path.join("records.jsonl");
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

/// Counts of what a run did, per stage and outcome (STYLE "say why work
/// was redone"). Summed across documents.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Summary {
    pub files: u64,
    pub complete: u64,
    pub incomplete: u64,
    pub errors: u64,
    pub written: u64,
    /// Writes that failed (an I/O error, a copy that failed its check):
    /// the run's exit status is then 1.
    pub write_failed: u64,
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
}

impl AddAssign for Summary {
    fn add_assign(&mut self, o: Summary) {
        self.files += o.files;
        self.complete += o.complete;
        self.incomplete += o.incomplete;
        self.errors += o.errors;
        self.written += o.written;
        self.write_failed += o.write_failed;
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
    }
}

impl Summary {
    /// Counts one finished record.
    pub fn count(&mut self, r: &Record) {
        self.files += 1;
        match r.status {
            Status::Complete => self.complete += 1,
            Status::Incomplete => self.incomplete += 1,
            Status::Error => self.errors += 1,
        }
        if r.written {
            self.written += 1;
        }
        if r.warnings
            .iter()
            .any(|w| crate::write::write_failure(w).is_some())
        {
            self.write_failed += 1;
        }
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

    fn rows(&self) -> [(&'static str, u64); 21] {
        [
            ("files", self.files),
            ("complete", self.complete),
            ("incomplete", self.incomplete),
            ("errors", self.errors),
            ("written", self.written),
            ("write failures", self.write_failed),
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
        let row = table_row(&r);
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

    #[test]
    fn utc_format() {
        assert_eq!(format_utc(0), "19700101-000000");
        assert_eq!(format_utc(1_795_158_309), "20261120-070509");
        assert_eq!(format_utc(951_782_400), "20000229-000000");
    }

    #[test]
    fn only_the_newest_runs_are_kept() {
        let t = tempfile::tempdir().unwrap();
        let runs = t.path().join("runs");
        fs::create_dir_all(&runs).unwrap();
        // Twelve earlier runs (two in the same second), a folder of the
        // user's and a file that only look alike.
        let mut old: Vec<String> = (0..11)
            .map(|i| format!("202601{:02}-120000-4242", i + 10))
            .collect();
        old.push("20260110-120000-4242-1".into());
        for id in &old {
            fs::create_dir(runs.join(id)).unwrap();
        }
        fs::create_dir(runs.join("notes-20260101")).unwrap();
        fs::write(runs.join("20250101-000000-1"), "not a folder").unwrap();
        let now = RunDir::create(t.path()).unwrap();
        now.mark_latest().unwrap();

        let gone = now.older_runs(10);
        let names: Vec<String> = gone
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        // 13 runs with this one: the 3 oldest go, in order.
        assert_eq!(
            names,
            [
                "20260110-120000-4242",
                "20260110-120000-4242-1",
                "20260111-120000-4242"
            ]
        );
        assert!(now.older_runs(100).is_empty());
        // Never this run, even when asked to keep none.
        assert!(!now.older_runs(0).contains(&now.path));
        assert!(is_run_id(&now.id), "{}", now.id);
        for bad in [
            "latest",
            "notes-20260101",
            "2026011-120000-1",
            "20260110-12000-1",
            "x-y-z",
        ] {
            assert!(!is_run_id(bad), "{bad}");
        }
    }

    #[test]
    fn tree_removal_stops_when_asked_and_never_follows_links() {
        let t = tempfile::tempdir().unwrap();
        let keep = t.path().join("keep");
        fs::create_dir(&keep).unwrap();
        fs::write(keep.join("precious.pdf"), "%PDF-").unwrap();
        let old = t.path().join("old");
        fs::create_dir_all(old.join("ann/sub")).unwrap();
        for i in 0..5 {
            fs::write(old.join(format!("ann/sub/{i}.json")), "{}").unwrap();
        }
        std::os::unix::fs::symlink(&keep, old.join("link-to-keep")).unwrap();

        // Asked to stop at once: nothing is lost, the folder stays.
        assert!(!remove_tree_until(&old, &|| true));
        assert!(old.join("ann/sub/0.json").exists());

        assert!(remove_tree_until(&old, &|| false));
        assert!(!old.exists());
        assert!(
            keep.join("precious.pdf").exists(),
            "a link's target survives"
        );
    }

    #[test]
    fn run_dirs_are_unique_and_latest_moves() {
        let t = tempfile::tempdir().unwrap();
        let a = RunDir::create(t.path()).unwrap();
        let b = RunDir::create(t.path()).unwrap();
        assert_ne!(a.id, b.id);
        a.mark_latest().unwrap();
        b.mark_latest().unwrap();
        let target = fs::read_link(t.path().join("runs/latest")).unwrap();
        assert_eq!(target, PathBuf::from(&b.id));
    }
}
