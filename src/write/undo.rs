//! Recovery and undo.
//!
//! [`cleanup_leftovers`] runs at the start of every run: it settles journal
//! entries a crash left unfinished — by hashing what is on disk, never by
//! guessing — and deletes stray temporary files. [`undo`] reverses the
//! writes of one run, newest first, with the same write-temp-then-rename
//! discipline as the write itself, and checks that every restored file has
//! its original hash.

use super::fsutil::{self, TEMP_PREFIX};
use super::journal::{self, Journal, State, WriteEntry};
use crate::model::DocHash;
use crate::settings::Settings;
use anyhow::{Context, Result, bail};
use base64::Engine as _;
use std::collections::HashSet;
use std::fs;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, UNIX_EPOCH};

/// What [`cleanup_leftovers`] found and did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CleanupReport {
    /// Temporary files deleted.
    pub temp_files_removed: Vec<PathBuf>,
    /// Interrupted writes completed (the old name removed; new file kept).
    pub completed: Vec<PathBuf>,
    /// Interrupted writes that had not taken effect (original kept).
    pub abandoned: Vec<PathBuf>,
    /// Situations that need a person (named, with what was found).
    pub problems: Vec<String>,
    /// Things worth telling that needed no action (damaged journal lines
    /// set aside).
    pub warnings: Vec<String>,
}

/// What [`undo`] restored.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct UndoReport {
    /// The run whose writes were undone (`None`: there was nothing to undo).
    pub run_id: Option<String>,
    /// (path the file had after the write, path restored to), in the order undone.
    pub restored: Vec<(PathBuf, PathBuf)>,
    /// Annotation exports removed or put back.
    pub annotations: Vec<PathBuf>,
    /// Entries that could not be undone, each naming its file and why.
    /// Not empty means the undo is incomplete (exit status 1).
    pub problems: Vec<String>,
    /// Damaged journal lines that were skipped (naming the journal).
    pub warnings: Vec<String>,
}

/// Settles every unfinished journal entry (setting damaged journal lines
/// aside), then deletes `.colophon-tmp-*` files under `data_dir` (see
/// [`remove_stale_temps`]). Call it before `discover`, in write mode, while
/// holding the project lock ([`crate::project::Project::lock`]).
pub fn cleanup_leftovers(
    data_dir: &Path,
    cache_dir: &Path,
    settings: &Settings,
) -> Result<CleanupReport> {
    let mut report = settle_journals(cache_dir)?;
    sweep(data_dir, settings, &mut report);
    Ok(report)
}

/// Settles every unfinished entry of the journals in `cache_dir` (setting
/// damaged journal lines aside), and nothing else: what a shard of a
/// sharded run does, as the temporary files under `data/` may belong to
/// its sibling shards, running now (`merge` sweeps them afterwards).
pub fn settle_journals(cache_dir: &Path) -> Result<CleanupReport> {
    let mut report = CleanupReport::default();
    for j in journal::all_journals(cache_dir)? {
        repair(&j, &mut report.warnings);
        settle(&j, &mut report)?;
    }
    Ok(report)
}

/// Deletes the `.colophon-tmp-*` files a kill left under `data_dir` (not
/// inside `RUNTIME_IGNORE_DIR_NAME` directories, where colophon never
/// creates anything), and nothing else. Every run does this, dry runs
/// too, so that no stale copy waits for the next write run.
///
/// Safe only while no other colophon process works on the project: the
/// caller holds the project lock. A temporary file is never the only copy
/// of anything: a write's original stays in place until the temporary
/// file is renamed over it, and an undo's truncated copy is a prefix of
/// the written file, which stays until the copy is in place. A folder
/// that cannot be listed is a problem in the report, never an error.
pub fn remove_stale_temps(data_dir: &Path, settings: &Settings) -> CleanupReport {
    let mut report = CleanupReport::default();
    sweep(data_dir, settings, &mut report);
    report
}

fn sweep(data_dir: &Path, settings: &Settings, report: &mut CleanupReport) {
    let mut seen = HashSet::new();
    sweep_temps(
        data_dir,
        &settings.runtime_ignore_dir_name,
        &mut seen,
        report,
    );
}

/// Sets the damaged lines of `j` aside, with a warning naming it; a
/// journal that cannot be rewritten is left as it is (its damaged lines
/// are skipped on every read) with a warning saying so.
fn repair(j: &Journal, warnings: &mut Vec<String>) {
    match j.repair() {
        Ok(None) => {}
        Ok(Some(w)) => warnings.push(w),
        Err(e) => warnings.push(format!(
            "the write journal {} has damaged lines, skipped; setting them aside failed: {e}",
            j.path().display()
        )),
    }
}

/// Resolves the pending and half-undone entries of one journal. Entries
/// naming paths outside the project are never touched: an unfinished one
/// is a problem.
fn settle(j: &Journal, report: &mut CleanupReport) -> Result<()> {
    let contents = j
        .read()
        .with_context(|| format!("reading the write journal {}", j.path().display()))?;
    for (e, state) in contents.entries {
        match state {
            State::Pending => settle_write(j, &e, report)?,
            State::Undoing => settle_undo(j, &e, report)?,
            State::Done | State::Abandoned | State::Undone => {}
        }
    }
    for (e, state, why) in contents.refused {
        if matches!(state, State::Pending | State::Undoing) {
            report.problems.push(format!(
                "{}: an interrupted write journaled in {} was left as it is: {why}",
                e.new_path.display(),
                j.path().display()
            ));
        }
    }
    Ok(())
}

fn matches(path: &Path, hex: &str) -> Result<bool> {
    Ok(fsutil::hash_if_exists(path)
        .with_context(|| format!("hashing {}", path.display()))?
        .is_some_and(|h| h.hex() == hex))
}

fn remove_temp(e: &WriteEntry, report: &mut CleanupReport) -> Result<()> {
    if let Some(t) = &e.temp_path
        && fsutil::remove_if_exists(t)?
    {
        report.temp_files_removed.push(t.clone());
    }
    Ok(())
}

/// A write interrupted somewhere between its journal line and `done`.
fn settle_write(j: &Journal, e: &WriteEntry, report: &mut CleanupReport) -> Result<()> {
    remove_temp(e, report)?;
    let new_ok = matches(&e.new_path, &e.new_hash)?;
    if e.old_path == e.new_path {
        if new_ok && e.old_hash != e.new_hash {
            report.completed.push(e.new_path.clone());
            j.record_done(&e.id)?;
        } else if matches(&e.old_path, &e.old_hash)? {
            // Content never replaced (or an annotation-only entry).
            if e.old_hash == e.new_hash {
                j.record_done(&e.id)?;
            } else {
                report.abandoned.push(e.old_path.clone());
                j.record_abandoned(&e.id)?;
            }
        } else {
            report.problems.push(format!(
                "{}: has neither the hash before nor after an interrupted write",
                e.old_path.display()
            ));
        }
        return Ok(());
    }
    let old_ok = matches(&e.old_path, &e.old_hash)?;
    match (new_ok, old_ok) {
        (true, true) => {
            // Killed between "new name exists" and "old name removed":
            // finish the write (the new file is complete: it was checked
            // before the rename and its hash matches).
            fs::remove_file(&e.old_path)?;
            fsutil::sync_dir(&fsutil::parent_of(&e.old_path))?;
            report.completed.push(e.new_path.clone());
            j.record_done(&e.id)?;
        }
        (true, false) => {
            report.completed.push(e.new_path.clone());
            j.record_done(&e.id)?;
        }
        (false, true) => {
            report.abandoned.push(e.old_path.clone());
            j.record_abandoned(&e.id)?;
        }
        (false, false) => report.problems.push(format!(
            "{} → {}: neither name holds the expected content after an interrupted write",
            e.old_path.display(),
            e.new_path.display()
        )),
    }
    Ok(())
}

/// An undo interrupted before `undone`: finish it when the original is
/// back, else the write still stands.
fn settle_undo(j: &Journal, e: &WriteEntry, report: &mut CleanupReport) -> Result<()> {
    remove_temp(e, report)?;
    let old_ok = matches(&e.old_path, &e.old_hash)?;
    if old_ok {
        if e.old_path != e.new_path && matches(&e.new_path, &e.new_hash)? {
            fs::remove_file(&e.new_path)?;
            fsutil::sync_dir(&fsutil::parent_of(&e.new_path))?;
        }
        let mut ignored = Vec::new();
        restore_annotations(e, &mut ignored)?;
        report.abandoned.push(e.old_path.clone());
        j.record_undone(&e.id)?;
    } else if matches(&e.new_path, &e.new_hash)? {
        j.record_done(&e.id)?;
    } else {
        report.problems.push(format!(
            "{}: interrupted undo left neither the original nor the written file",
            e.old_path.display()
        ));
    }
    Ok(())
}

fn sweep_temps(
    dir: &Path,
    ignore: &str,
    seen: &mut HashSet<(u64, u64)>,
    report: &mut CleanupReport,
) {
    fn problem(report: &mut CleanupReport, what: &str, path: &Path, e: io::Error) {
        report.problems.push(format!(
            "{what} {} to remove stale temporary files: {e}",
            path.display()
        ))
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Directory symlinks are followed (the data folder may be one, and
        // so may subfolders); a loop is cut by remembering (dev, inode).
        match fs::metadata(dir) {
            Ok(m) => {
                if !seen.insert((m.dev(), m.ino())) {
                    return;
                }
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return,
            Err(e) => return problem(report, "reading", dir, e),
        }
    }
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return,
        Err(e) => return problem(report, "listing", dir, e),
    };
    let mut temps = Vec::new();
    for ent in rd {
        let ent = match ent {
            Ok(ent) => ent,
            Err(e) => return problem(report, "listing", dir, e),
        };
        let path = ent.path();
        let Ok(ft) = ent.file_type() else { continue };
        let is_dir = ft.is_dir() || (ft.is_symlink() && path.is_dir());
        if is_dir {
            if ent.file_name() != ignore {
                sweep_temps(&path, ignore, seen, report);
            }
        } else if ft.is_file()
            && ent
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(TEMP_PREFIX))
        {
            temps.push(path);
        }
    }
    for path in temps {
        match fsutil::remove_if_exists(&path) {
            Ok(_) => report.temp_files_removed.push(path),
            Err(e) => report.problems.push(format!(
                "{}: a stale temporary file could not be removed: {e}",
                path.display()
            )),
        }
    }
}

/// Reverses the writes of run `run_id`, or of the most recent run that has
/// writes still in effect. Sets damaged journal lines aside and settles
/// that run's interrupted entries first. Every restored file is checked
/// against its original hash. Nothing is skipped silently: every entry
/// that stays in effect (a file edited or missing since, an old name taken
/// again, a failed write, a path outside the project) is in
/// [`UndoReport::problems`] with its file and reason. Call it while
/// holding the project lock.
pub fn undo(cache_dir: &Path, run_id: Option<&str>) -> Result<UndoReport> {
    let live = |s: &State| matches!(s, State::Done | State::Pending | State::Undoing);
    let mut warnings = Vec::new();
    let journal = match run_id {
        Some(id) => {
            let j = Journal::for_run(cache_dir, id);
            if !j.path().exists() {
                bail!(
                    "no journal for run {id:?} in {}",
                    journal::journal_dir(cache_dir).display()
                );
            }
            repair(&j, &mut warnings);
            j
        }
        None => {
            let mut candidates = Vec::new();
            for j in journal::all_journals(cache_dir)? {
                repair(&j, &mut warnings);
                let c = j
                    .read()
                    .with_context(|| format!("reading the write journal {}", j.path().display()))?;
                let any_live = c.entries.iter().any(|(_, s)| live(s))
                    || c.refused.iter().any(|(_, s, _)| live(s));
                if any_live {
                    candidates.push((j.started_ms(), j));
                }
            }
            match candidates.into_iter().max_by_key(|(t, _)| *t) {
                Some((_, j)) => j,
                None => {
                    return Ok(UndoReport {
                        warnings,
                        ..UndoReport::default()
                    });
                }
            }
        }
    };
    let mut settle_report = CleanupReport::default();
    settle(&journal, &mut settle_report)?;
    let mut report = UndoReport {
        problems: settle_report.problems,
        warnings,
        ..UndoReport::default()
    };
    let contents = journal
        .read()
        .with_context(|| format!("reading the write journal {}", journal.path().display()))?;
    report.run_id = contents
        .entries
        .first()
        .map(|(e, _)| e.run_id.clone())
        .or_else(|| contents.refused.first().map(|(e, _, _)| e.run_id.clone()))
        .or_else(|| run_id.map(str::to_string));
    for (e, state) in contents.entries.iter().rev() {
        if *state != State::Done {
            continue;
        }
        match undo_entry(&journal, e, &mut report) {
            Ok(()) => {}
            Err(err) => report
                .problems
                .push(format!("{}: {err:#}", e.new_path.display())),
        }
    }
    for (e, state, why) in &contents.refused {
        // Pending and undoing ones were reported by `settle`.
        if *state == State::Done {
            report
                .problems
                .push(format!("{}: not undone: {why}", e.new_path.display()));
        }
    }
    Ok(report)
}

fn undo_entry(j: &Journal, e: &WriteEntry, report: &mut UndoReport) -> Result<()> {
    let current = fsutil::hash_if_exists(&e.new_path)?;
    if current.map(|h| h.hex()) != Some(e.new_hash.clone()) {
        bail!(
            "changed or missing since the write (expected blake3 {}), not undone",
            &e.new_hash[..12.min(e.new_hash.len())]
        );
    }
    if e.old_path != e.new_path && e.old_path.exists() {
        bail!("{} exists again, not overwritten", e.old_path.display());
    }
    j.record_undo_begin(&e.id)?;
    let old_dir = fsutil::parent_of(&e.old_path);
    if e.old_hash != e.new_hash {
        // Original bytes = the first original_len bytes (pure append).
        let mut f = fs::File::open(&e.new_path)?;
        let perms = f.metadata()?.permissions();
        let mut original = Vec::with_capacity(e.original_len as usize);
        (&mut f).take(e.original_len).read_to_end(&mut original)?;
        let h: DocHash = fsutil::hash_bytes(&original);
        if h.hex() != e.old_hash {
            j.record_done(&e.id)?;
            bail!("truncating does not give the original bytes back, not undone");
        }
        let mut t = fsutil::temp_in(&old_dir)?;
        t.write_all(&original)?;
        t.as_file().set_permissions(perms)?;
        if let Some((s, n)) = e.original_mtime {
            t.as_file().set_modified(UNIX_EPOCH + Duration::new(s, n))?;
        }
        t.as_file().sync_all()?;
        if e.old_path == e.new_path {
            t.persist(&e.old_path).map_err(|err| err.error)?;
            fsutil::sync_dir(&old_dir)?;
        } else {
            t.persist_noclobber(&e.old_path).map_err(|err| err.error)?;
            fsutil::sync_dir(&old_dir)?;
            fs::remove_file(&e.new_path)?;
            fsutil::sync_dir(&fsutil::parent_of(&e.new_path))?;
        }
    } else if e.old_path != e.new_path {
        fsutil::rename_noreplace(&e.new_path, &e.old_path)?;
        fsutil::sync_dir(&old_dir)?;
    }
    restore_annotations(e, &mut report.annotations)?;
    if !matches(&e.old_path, &e.old_hash)? {
        bail!("restored file does not have its original hash");
    }
    j.record_undone(&e.id)?;
    if e.old_path != e.new_path || e.old_hash != e.new_hash {
        report
            .restored
            .push((e.new_path.clone(), e.old_path.clone()));
    }
    Ok(())
}

/// Removes the exports a write created and puts back those it replaced.
fn restore_annotations(e: &WriteEntry, touched: &mut Vec<PathBuf>) -> Result<()> {
    for a in &e.annotations {
        match &a.previous_base64 {
            None => {
                if fsutil::remove_if_exists(&a.path)? {
                    touched.push(a.path.clone());
                }
            }
            Some(b64) => {
                let bytes = base64::engine::general_purpose::STANDARD
                    .decode(b64)
                    .context("journal holds a corrupt annotation backup")?;
                fsutil::write_atomic(&a.path, &bytes)?;
                touched.push(a.path.clone());
            }
        }
    }
    if let Some(dir) = e.annotations.first().map(|a| fsutil::parent_of(&a.path)) {
        fsutil::sync_dir(&dir)?;
    }
    Ok(())
}
