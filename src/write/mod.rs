//! The write stage (SPEC 9): puts decided metadata into a PDF and gives it
//! its proposed name, without ever risking the user's only copy.
//!
//! Guarantees, and how they are kept:
//!
//! - **Only when allowed**: `WRITE_PDF_CHANGES`, not under a
//!   `RUNTIME_IGNORE_DIR_NAME` directory, a `complete` record, and the file
//!   still has the blake3 hash that was analysed. Encrypted and signed PDFs,
//!   symlinks and files whose cross-reference data is damaged are left
//!   alone ([`SkipReason`] says why).
//! - **Append only**: metadata goes in as an incremental update
//!   (`pdf.rs`); the original bytes are an exact prefix of the new file.
//! - **Atomic**: the new content is written to a temporary file in the same
//!   folder (`.colophon-tmp-…`, never `*.pdf`), fsynced, read back and
//!   checked (lopdf parses it without repair, same page count, the Info
//!   entries read back, the XMP parses), journaled, and only then renamed
//!   into place: over the original when the name stays, else onto the new
//!   name without overwriting anything, then the old name is removed. A
//!   kill leaves the original or the new file; in the one window where both
//!   names exist, the journal tells the next run ([`cleanup_leftovers`])
//!   which one to keep, by hash.
//! - **A failed write changes nothing**: when a step after the rename
//!   fails (the old name cannot be removed — an immutable file, a folder
//!   the user may not change — or an export cannot be written), the write
//!   is taken back at once (the new copy removed, or the write undone) and
//!   journaled `failed`; the error names the file and says what became of
//!   it. Settling and undo handle each journal entry on its own, so one
//!   file that cannot be changed never stops the others.
//! - **Reversible**: every change is journaled (`journal.rs`) before it
//!   happens; [`undo`] truncates to the original length, restores the old
//!   name and removes the annotation exports the run created.
//! - **Idempotent**: when the Info dictionary and XMP already hold these
//!   values and the name is already right, nothing is touched.
//! - **Names** come from [`crate::name`]; a name taken by another file gets
//!   ` (2)`, ` (3)` …; a file never leaves its folder.
//!
//! How the application uses it:
//!
//! 1. At the start of every run, before `discover` (which would otherwise
//!    see temporary files with a `%PDF-` header), holding the project
//!    lock: in write mode [`cleanup_leftovers`]`(data_dir, cache_dir,
//!    settings)`, in a dry run [`remove_stale_temps`]`(data_dir, settings)`
//!    (it settles nothing, it only deletes colophon's own temporary files).
//! 2. Per PDF with a record, in write mode: [`apply`]`(&WriteJob { .. })`.
//!    It does all the policy checks itself, so it can be called for every
//!    record; [`WriteOutcome::Skipped`] carries the reason for the record's
//!    warnings, [`Written::new_path`] / [`Written::new_hash`] the file's new
//!    identity. Calls may run in parallel. An `Err` is a failed write: put
//!    it in the record's warnings behind [`WRITE_FAILED`].
//! 3. For every run's exports under `cache/runs/<run-id>/ann/`: the paths
//!    from [`annotation_paths`], the text from [`render_markdown`] and
//!    [`render_json`], each written with [`write_or_link`] (a hard link to
//!    the previous run's copy when nothing changed, no fsync: losing them
//!    loses nothing of the user's). [`write_annotations`] is for the
//!    exports beside a written PDF, which `apply` writes itself, atomically.
//! 4. `colophon undo [RUN-ID]`: [`undo`]`(cache_dir, run_id)`.
//!
//! The journal lives in [`journal_dir`]`(cache_dir)`, with paths relative
//! to the project root (the cache folder's parent); `cache clear` should
//! keep it, or undo loses what it needs. Only one colophon process may
//! write a library at a time (the cleanup deletes temporary files it
//! finds): the project lock ([`crate::project::Project::lock`]) sees to it.

mod annotations;
mod journal;
mod pdf;
mod undo;
mod xmp;

pub use annotations::{annotation_paths, render_json, render_markdown, write_annotations};
pub use journal::{Journal, journal_dir};
pub use pdf::Refusal;
pub use undo::{
    CleanupReport, UndoReport, cleanup_leftovers, remove_stale_temps, settle_journals, undo,
};

use crate::model::{DocHash, PdfFile, Record, Status};
use crate::name;
use crate::settings::Settings;
use anyhow::{Context, Result, bail};
use base64::Engine as _;
use journal::{AnnotationBackup, WriteEntry};
use std::fmt;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::time::UNIX_EPOCH;

pub use crate::model::{WRITE_FAILED, write_failure};

/// Everything [`apply`] needs for one PDF.
#[derive(Debug, Clone, Copy)]
pub struct WriteJob<'a> {
    /// The PDF as discovered (absolute path, path relative to `data/`,
    /// whether it lies under an ignored directory).
    pub file: &'a PdfFile,
    /// The content hash the record was computed from.
    pub expected_hash: DocHash,
    /// The decided record; must be `complete`. Its metadata is written, and
    /// it is exported (with `written: true`) as `<stem>--ann.json`.
    pub record: &'a Record,
    pub settings: &'a Settings,
    /// `<root>/cache`: the journal lives in `cache/journal/<run_id>.jsonl`.
    pub cache_dir: &'a Path,
    pub run_id: &'a str,
}

/// What [`apply`] did.
#[derive(Debug, Clone, PartialEq)]
pub enum WriteOutcome {
    /// The metadata was updated and/or the file renamed.
    Written(Written),
    /// The file already holds these values under this name; its bytes and
    /// name were not touched. Annotation exports that were missing beside
    /// it were created (listed here).
    Unchanged {
        path: PathBuf,
        annotations: Vec<PathBuf>,
    },
    /// Nothing was done, for this reason (put it in the record's warnings).
    Skipped(SkipReason),
}

/// Details of a successful write.
#[derive(Debug, Clone, PartialEq)]
pub struct Written {
    pub old_path: PathBuf,
    /// Where the PDF is now (equal to `old_path` when only the metadata changed).
    pub new_path: PathBuf,
    /// The Info dictionary / XMP packet were updated.
    pub metadata_updated: bool,
    pub renamed: bool,
    pub old_hash: DocHash,
    /// Hash of the file now at `new_path` (the record's new identity).
    pub new_hash: DocHash,
    /// The annotation exports written beside it (md, json).
    pub annotations: Vec<PathBuf>,
    /// E.g. an unreadable XMP packet that was replaced.
    pub warnings: Vec<String>,
}

/// Why a PDF was not written.
#[derive(Debug, Clone, PartialEq)]
pub enum SkipReason {
    /// `WRITE_PDF_CHANGES` is false (dry run).
    WriteDisabled,
    /// Under a `RUNTIME_IGNORE_DIR_NAME` directory.
    Ignored,
    /// The record is not `complete` (no title or no author).
    Incomplete,
    /// The file changed since it was analysed.
    HashChanged { expected: DocHash, found: DocHash },
    /// The path is a symbolic link; replacing it would turn it into a file.
    Symlink,
    /// The path is not valid UTF-8 and cannot be journaled faithfully.
    NonUtf8Path,
    /// The file has no write permission (`chmod 444`): a user's "do not
    /// touch", unless `WRITE_READ_ONLY_FILES` says otherwise.
    ReadOnly,
    /// The file lies outside the project root (a `show` of a file
    /// elsewhere): the journal, which holds paths relative to the root,
    /// could not undo it.
    OutsideProject,
    /// Encrypted, signed, damaged or unparsable PDF.
    Refused(Refusal),
}

impl fmt::Display for SkipReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SkipReason::WriteDisabled => {
                write!(f, "dry run: set WRITE_PDF_CHANGES = true or pass --write")
            }
            SkipReason::Ignored => write!(f, "under an ignored directory: never written"),
            SkipReason::Incomplete => write!(f, "no title or no author: not written"),
            SkipReason::HashChanged { expected, found } => write!(
                f,
                "file changed since it was analysed (blake3 {} now {}): not written",
                &expected.hex()[..12],
                &found.hex()[..12]
            ),
            SkipReason::Symlink => write!(f, "symbolic link: not written"),
            SkipReason::NonUtf8Path => write!(f, "path is not valid UTF-8: not written"),
            SkipReason::ReadOnly => write!(
                f,
                "read-only file: left alone (WRITE_READ_ONLY_FILES = true writes it)"
            ),
            SkipReason::OutsideProject => {
                write!(
                    f,
                    "outside the project folder: not written (undo could not reach it)"
                )
            }
            SkipReason::Refused(r) => write!(f, "{r}"),
        }
    }
}

/// Writes the metadata of `job.record` into `job.file` and gives it its
/// proposed name, safely (see the module docs). Errors are I/O failures or
/// a written file that failed its check (the original is then untouched);
/// everything that is a policy decision is a [`WriteOutcome::Skipped`].
pub fn apply(job: &WriteJob) -> Result<WriteOutcome> {
    let (link, journal) = match check_policy(job)? {
        Ok(allowed) => allowed,
        Err(reason) => return Ok(WriteOutcome::Skipped(reason)),
    };
    let path = job.file.path.as_path();
    let meta = &job.record.metadata;
    let dir = crate::util::fs::parent_of(path);
    let Planned {
        bytes,
        hash: old_hash,
        update,
    } = match read_and_plan(job)? {
        Ok(read) => read,
        Err(reason) => return Ok(WriteOutcome::Skipped(reason)),
    };
    let mut collision = 1;
    let mut target = free_name(&dir, path, meta, job.settings, &mut collision)?;
    if update.appended.is_empty() && target == path {
        let created = create_missing_annotations(job, &journal, path, old_hash, bytes.len())?;
        return Ok(WriteOutcome::Unchanged {
            path: path.to_path_buf(),
            annotations: created,
        });
    }
    let (mut temp, new) = stage_new_copy(path, &dir, (&bytes, old_hash), &update, &link)?;
    ensure_untouched(path, &link)?;
    let original = Original {
        hash: old_hash,
        len: bytes.len() as u64,
        mtime: mtime_of(&link),
    };
    let entry = loop {
        let entry = journal_entry(job, &target, temp.as_ref(), &original, &new)?;
        journal
            .record_write(&entry)
            .with_context(|| format!("writing the journal {}", journal.path().display()))?;
        let (committed, left) = commit(temp.take(), path, &target);
        temp = left;
        match committed {
            Ok(()) => break entry,
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                // Another file took the name since we looked (a parallel
                // write of a duplicate): try the next number.
                journal
                    .record_abandoned(&entry.id)
                    .with_context(|| format!("writing the journal {}", journal.path().display()))?;
                collision += 1;
                target = free_name(&dir, path, meta, job.settings, &mut collision)?;
            }
            // The temporary copy, if any, is deleted when `temp` is dropped,
            // after the failure is journaled.
            Err(e) => bail!(commit_failed(&journal, &entry, temp.is_none(), e)),
        }
    };
    let renamed = target != path;
    // From here on the library holds the new file. A step that fails
    // now takes the write back, so that a failed write leaves the
    // library as it was (and never a copy beside the original).
    if renamed && entry.temp_path.is_some() {
        drop_old_name(&journal, &entry, &dir)?;
    }
    let mut record = job.record.clone();
    record.written = true;
    let (md, json) = write_exports(&journal, &entry, &dir, &record)?;
    let mut warnings = update.warnings;
    mark_done(&journal, &entry, &mut warnings);
    Ok(WriteOutcome::Written(Written {
        old_path: path.to_path_buf(),
        new_path: target,
        metadata_updated: !update.appended.is_empty(),
        renamed,
        old_hash,
        new_hash: new.hash,
        annotations: vec![md, json],
        warnings,
    }))
}

/// The file as it was analysed: what the journal keeps to take a write back.
struct Original {
    hash: DocHash,
    len: u64,
    /// Modification time as (seconds, nanoseconds) since the epoch.
    mtime: Option<(u64, u32)>,
}

/// The content the file will have once written.
struct NewContent {
    hash: DocHash,
    len: u64,
}

/// The policy checks that need no reading of the file's content: write
/// mode, ignored folder, complete record, a regular (not symlinked, not
/// read-only) file with a UTF-8 path inside the project. Returns the
/// file's metadata (to notice a change while writing) and the run's
/// journal, or why the file is left alone.
fn check_policy(job: &WriteJob) -> Result<Result<(fs::Metadata, Journal), SkipReason>> {
    let settings = job.settings;
    if !settings.write_pdf_changes {
        return Ok(Err(SkipReason::WriteDisabled));
    }
    if job.file.ignored
        || job
            .file
            .rel
            .components()
            .any(|c| c.as_os_str() == settings.runtime_ignore_dir_name.as_str())
    {
        return Ok(Err(SkipReason::Ignored));
    }
    if job.record.status != Status::Complete || !job.record.metadata.is_complete() {
        return Ok(Err(SkipReason::Incomplete));
    }
    let path = job.file.path.as_path();
    let link = fs::symlink_metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if link.file_type().is_symlink() {
        return Ok(Err(SkipReason::Symlink));
    }
    if !link.is_file() {
        bail!("{} is not a regular file", path.display());
    }
    // A file the user made read-only is not rewritten nor renamed behind
    // their back (the rename would succeed: it needs the folder's
    // permission, not the file's).
    if link.permissions().readonly() && !settings.write_read_only_files {
        return Ok(Err(SkipReason::ReadOnly));
    }
    if path.to_str().is_none() {
        return Ok(Err(SkipReason::NonUtf8Path));
    }
    let journal = Journal::for_run(job.cache_dir, job.run_id);
    if journal.relative(path).is_none() {
        return Ok(Err(SkipReason::OutsideProject));
    }
    Ok(Ok((link, journal)))
}

/// The file's bytes as read (still the ones analysed), their hash, and the
/// incremental update planned for them.
struct Planned {
    bytes: Vec<u8>,
    hash: DocHash,
    update: pdf::Update,
}

/// Reads the file, checks it is still the one analysed (by hash) and plans
/// the incremental update; or says why the file is left alone (changed, or
/// a PDF that is refused).
fn read_and_plan(job: &WriteJob) -> Result<Result<Planned, SkipReason>> {
    let path = job.file.path.as_path();
    let bytes = fs::read(path).with_context(|| format!("reading {}", path.display()))?;
    let old_hash = crate::fingerprint::hash_bytes(&bytes);
    if old_hash != job.expected_hash {
        return Ok(Err(SkipReason::HashChanged {
            expected: job.expected_hash,
            found: old_hash,
        }));
    }
    match pdf::plan(&bytes, &job.record.metadata) {
        Ok(update) => Ok(Ok(Planned {
            bytes,
            hash: old_hash,
            update,
        })),
        Err(refusal) => Ok(Err(SkipReason::Refused(refusal))),
    }
}

/// The new content, on disk beside the original, checked from disk: a
/// synced temporary file holding the original bytes plus the update, with
/// the original's permissions. No temporary file when only the name
/// changes. Takes the original bytes with their hash. Returns the copy
/// with the hash and length the file will have.
fn stage_new_copy(
    path: &Path,
    dir: &Path,
    (bytes, hash): (&[u8], DocHash),
    update: &pdf::Update,
    link: &fs::Metadata,
) -> Result<(Option<tempfile::NamedTempFile>, NewContent)> {
    if update.appended.is_empty() {
        let unchanged = NewContent {
            hash,
            len: bytes.len() as u64,
        };
        return Ok((None, unchanged));
    }
    let mut t = crate::util::fs::temp_in(dir)
        .with_context(|| format!("creating a temporary file in {}", dir.display()))?;
    let tpath = t.path().to_path_buf();
    t.write_all(bytes)
        .and_then(|()| t.write_all(&update.appended))
        .and_then(|()| t.as_file().set_permissions(link.permissions()))
        .and_then(|()| t.as_file().sync_all())
        .with_context(|| format!("writing the new copy {}", tpath.display()))?;
    let written = fs::read(&tpath).with_context(|| format!("reading back {}", tpath.display()))?;
    if written.len() != bytes.len() + update.appended.len() || written[..bytes.len()] != bytes[..] {
        bail!(
            "{}: temporary copy does not start with the original bytes",
            path.display()
        );
    }
    pdf::verify(&written, update).map_err(|why| {
        anyhow::anyhow!("{}: written file failed its check: {why}", path.display())
    })?;
    let new = NewContent {
        hash: crate::fingerprint::hash_bytes(&written),
        len: written.len() as u64,
    };
    Ok((Some(t), new))
}

/// Fails when the original changed (length or modification time) since
/// `link` was read: nothing may have changed it while we worked.
fn ensure_untouched(path: &Path, link: &fs::Metadata) -> Result<()> {
    let now = fs::symlink_metadata(path).with_context(|| format!("reading {}", path.display()))?;
    if now.len() != link.len() || now.modified().ok() != link.modified().ok() {
        bail!(
            "{} changed while it was being written; left as it is",
            path.display()
        );
    }
    Ok(())
}

/// The modification time in `link` as the journal keeps it.
fn mtime_of(link: &fs::Metadata) -> Option<(u64, u32)> {
    link.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| (d.as_secs(), d.subsec_nanos()))
}

/// The journal entry for writing `job.file` to `target` (from `temp`, or a
/// plain rename when there is none), with the current content of the
/// annotation exports it will replace.
fn journal_entry(
    job: &WriteJob,
    target: &Path,
    temp: Option<&tempfile::NamedTempFile>,
    original: &Original,
    new: &NewContent,
) -> Result<WriteEntry> {
    let path = job.file.path.as_path();
    let annotations = plan_annotations(target)?;
    Ok(WriteEntry {
        id: journal::new_id(path),
        run_id: job.run_id.to_string(),
        ts_ms: journal::now_ms(),
        old_path: path.to_path_buf(),
        new_path: target.to_path_buf(),
        temp_path: temp.map(|t| t.path().to_path_buf()),
        old_hash: original.hash.hex(),
        new_hash: new.hash.hex(),
        original_len: original.len,
        new_len: new.len,
        original_mtime: original.mtime,
        annotations,
    })
}

/// The one step that changes what the library holds: the temporary copy
/// replaces `path` (same name) or takes `target` without overwriting
/// anything; with no copy, `path` is renamed to `target`, again without
/// overwriting. Returns the outcome and the temporary copy when it is
/// still there (a refused `target`), so the caller can try another name.
fn commit(
    temp: Option<tempfile::NamedTempFile>,
    path: &Path,
    target: &Path,
) -> (io::Result<()>, Option<tempfile::NamedTempFile>) {
    match temp {
        Some(t) if target == path => (t.persist(path).map(drop).map_err(|e| e.error), None),
        Some(t) => match t.persist_noclobber(target) {
            Ok(_) => (Ok(()), None),
            Err(e) => (Err(e.error), Some(e.file)),
        },
        None => (crate::util::fs::rename_noreplace(path, target), None),
    }
}

/// After a failed [`commit`] (other than a taken name): removes a second
/// name a link + unlink rename may have left, journals the failure and
/// returns the message naming the file. `no_temp`: there is no temporary
/// copy left (a plain rename, or a copy already gone).
fn commit_failed(journal: &Journal, entry: &WriteEntry, no_temp: bool, e: io::Error) -> String {
    let (path, target) = (entry.old_path.as_path(), entry.new_path.as_path());
    // Nothing took effect. A rename done as link + unlink (where the
    // atomic rename is missing) may have left the second name: the same
    // file, so removing it loses nothing.
    if no_temp && target != path && crate::util::fs::same_file(path, target) {
        let _ = fs::remove_file(target);
    }
    let (p, t) = (path.display(), target.display());
    let why = match entry.temp_path {
        Some(_) => format!("moving the new {t} into place: {e}; {p} is as it was"),
        None => format!("renaming {p} to {t}: {e}; {p} is as it was"),
    };
    let _ = journal.record_failed(&entry.id, &why);
    why
}

/// After the new copy took the new name: makes that durable, and only then
/// removes the old name. On failure the new copy is taken back and the
/// error says what became of the file.
fn drop_old_name(journal: &Journal, entry: &WriteEntry, dir: &Path) -> Result<()> {
    let path = entry.old_path.as_path();
    let dropped = crate::util::fs::sync_dir(dir)
        .map_err(|e| format!("syncing the folder {} failed ({e})", dir.display()))
        .and_then(|()| {
            fs::remove_file(path).map_err(|e| format!("the old name could not be removed ({e})"))
        });
    if let Err(why) = dropped {
        match undo::take_back_copy(journal, entry, &why) {
            Ok(told) | Err(told) => bail!(told),
        }
    }
    Ok(())
}

/// Makes the committed file durable and writes its annotation exports
/// beside it. Returns their paths (md, json); on failure the write is
/// taken back and the error says so.
fn write_exports(
    journal: &Journal,
    entry: &WriteEntry,
    dir: &Path,
    record: &Record,
) -> Result<(PathBuf, PathBuf)> {
    let stem = stem_of(&entry.new_path);
    let finished = crate::util::fs::sync_dir(dir)
        .with_context(|| format!("syncing the folder {}", dir.display()))
        .and_then(|()| write_annotations(dir, &stem, record));
    match finished {
        Ok(paths) => Ok(paths),
        Err(e) => bail!(undo::take_back_write(journal, entry, &format!("{e:#}"))),
    }
}

/// Journals the write as done. A failure to do so is only a warning: the
/// file is written and checked, the entry stays pending, and whatever
/// reads the journal next settles it by hash.
fn mark_done(journal: &Journal, entry: &WriteEntry, warnings: &mut Vec<String>) {
    if let Err(e) = journal.record_done(&entry.id) {
        warnings.push(format!(
            "the write is done, but journaling it in {} failed: {e}",
            journal.path().display()
        ));
    }
}

/// The first name `stem.pdf`, `stem (2).pdf`, … (from `*n` on) that is free
/// in `dir` or is `current` itself. A candidate that is the same file as
/// `current` under another spelling (case-insensitive file systems) keeps
/// the current name, and so does a template that yields no usable name
/// (everything in it sanitised away).
fn free_name(
    dir: &Path,
    current: &Path,
    meta: &crate::model::Metadata,
    settings: &Settings,
    n: &mut u32,
) -> Result<PathBuf> {
    const MAX_TRIES: u32 = 10_000;
    while *n < MAX_TRIES {
        let Some(name) = name::numbered_filename(meta, settings, *n) else {
            return Ok(current.to_path_buf());
        };
        let candidate = dir.join(&name);
        if candidate == current {
            return Ok(candidate);
        }
        match fs::symlink_metadata(&candidate) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(candidate),
            Err(e) => return Err(e).with_context(|| format!("checking {}", candidate.display())),
            Ok(_) if crate::util::fs::same_file(&candidate, current) => {
                return Ok(current.to_path_buf());
            }
            Ok(_) => *n += 1,
        }
    }
    bail!(
        "no free name for {} after {MAX_TRIES} tries",
        current.display()
    )
}

fn stem_of(path: &Path) -> String {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    match name.strip_suffix(name::PDF_EXT) {
        Some(stem) => stem.to_string(),
        None => match name.rsplit_once('.') {
            Some((stem, _)) if !stem.is_empty() => stem.to_string(),
            _ => name,
        },
    }
}

/// The exports of `pdf_path` and their current content (for undo).
fn plan_annotations(pdf_path: &Path) -> Result<Vec<AnnotationBackup>> {
    let (md, json) = annotation_paths(&crate::util::fs::parent_of(pdf_path), &stem_of(pdf_path));
    let mut out = Vec::new();
    for p in [md, json] {
        let previous = match fs::read(&p) {
            Ok(b) => Some(base64::engine::general_purpose::STANDARD.encode(b)),
            Err(e) if e.kind() == io::ErrorKind::NotFound => None,
            Err(e) => return Err(e).with_context(|| format!("reading {}", p.display())),
        };
        out.push(AnnotationBackup {
            path: p,
            previous_base64: previous,
        });
    }
    Ok(out)
}

/// For an unchanged PDF: creates its annotation exports if they are
/// missing (journaled, so undo removes them), never rewrites existing ones
/// (a second run changes no byte).
fn create_missing_annotations(
    job: &WriteJob,
    journal: &Journal,
    path: &Path,
    hash: DocHash,
    len: usize,
) -> Result<Vec<PathBuf>> {
    let missing: Vec<AnnotationBackup> = plan_annotations(path)?
        .into_iter()
        .filter(|a| a.previous_base64.is_none())
        .collect();
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    let entry = WriteEntry {
        id: journal::new_id(path),
        run_id: job.run_id.to_string(),
        ts_ms: journal::now_ms(),
        old_path: path.to_path_buf(),
        new_path: path.to_path_buf(),
        temp_path: None,
        old_hash: hash.hex(),
        new_hash: hash.hex(),
        original_len: len as u64,
        new_len: len as u64,
        original_mtime: None,
        annotations: missing.clone(),
    };
    journal
        .record_write(&entry)
        .with_context(|| format!("writing the journal {}", journal.path().display()))?;
    let mut record = job.record.clone();
    record.written = false;
    let mut created = Vec::new();
    for a in &missing {
        let content = if a.path.to_string_lossy().ends_with(name::ANN_MD_SUFFIX) {
            render_markdown(&record)
        } else {
            render_json(&record)
        };
        if let Err(e) = crate::util::fs::write_atomic(&a.path, content.as_bytes()) {
            // The one written before goes again: a failure changes nothing.
            let reason = format!("writing {}: {e}", a.path.display());
            bail!(undo::take_back_write(journal, &entry, &reason));
        }
        created.push(a.path.clone());
    }
    journal
        .record_done(&entry.id)
        .with_context(|| format!("writing the journal {}", journal.path().display()))?;
    Ok(created)
}

#[cfg(test)]
mod tests;
