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
    /// Entries that could not be undone, and why.
    pub problems: Vec<String>,
}

/// Settles every unfinished journal entry, then deletes `.colophon-tmp-*`
/// files under `data_dir` (not inside `RUNTIME_IGNORE_DIR_NAME` directories,
/// where colophon never creates anything). Call it before `discover`.
pub fn cleanup_leftovers(
    data_dir: &Path,
    cache_dir: &Path,
    settings: &Settings,
) -> Result<CleanupReport> {
    let mut report = CleanupReport::default();
    for j in journal::all_journals(cache_dir)? {
        settle(&j, &mut report)?;
    }
    let mut seen = HashSet::new();
    sweep_temps(
        data_dir,
        &settings.runtime_ignore_dir_name,
        &mut seen,
        &mut report,
    )?;
    Ok(report)
}

/// Resolves the pending and half-undone entries of one journal.
fn settle(j: &Journal, report: &mut CleanupReport) -> Result<()> {
    for (e, state) in j.entries()? {
        match state {
            State::Pending => settle_write(j, &e, report)?,
            State::Undoing => settle_undo(j, &e, report)?,
            State::Done | State::Abandoned | State::Undone => {}
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
) -> Result<()> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        // Directory symlinks are followed (the data folder may be one, and
        // so may subfolders); a loop is cut by remembering (dev, inode).
        let m = fs::metadata(dir).with_context(|| format!("reading {}", dir.display()))?;
        if !seen.insert((m.dev(), m.ino())) {
            return Ok(());
        }
    }
    let rd = match fs::read_dir(dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e).with_context(|| format!("listing {}", dir.display())),
    };
    for ent in rd {
        let ent = ent?;
        let path = ent.path();
        let ft = ent.file_type()?;
        let is_dir = ft.is_dir() || (ft.is_symlink() && path.is_dir());
        if is_dir {
            if ent.file_name() != ignore {
                sweep_temps(&path, ignore, seen, report)?;
            }
        } else if ft.is_file()
            && ent
                .file_name()
                .to_str()
                .is_some_and(|n| n.starts_with(TEMP_PREFIX))
        {
            fsutil::remove_if_exists(&path)?;
            report.temp_files_removed.push(path);
        }
    }
    Ok(())
}

/// Reverses the writes of run `run_id`, or of the most recent run that has
/// writes still in effect. Settles that run's interrupted entries first.
/// Every restored file is checked against its original hash.
pub fn undo(cache_dir: &Path, run_id: Option<&str>) -> Result<UndoReport> {
    let journal = match run_id {
        Some(id) => {
            let j = Journal::for_run(cache_dir, id);
            if !j.path().exists() {
                bail!(
                    "no journal for run {id:?} in {}",
                    journal::journal_dir(cache_dir).display()
                );
            }
            j
        }
        None => {
            let mut candidates = Vec::new();
            for j in journal::all_journals(cache_dir)? {
                let live = j
                    .entries()?
                    .iter()
                    .any(|(_, s)| matches!(s, State::Done | State::Pending | State::Undoing));
                if live {
                    candidates.push((j.started_ms(), j));
                }
            }
            match candidates.into_iter().max_by_key(|(t, _)| *t) {
                Some((_, j)) => j,
                None => return Ok(UndoReport::default()),
            }
        }
    };
    let mut settle_report = CleanupReport::default();
    settle(&journal, &mut settle_report)?;
    let mut report = UndoReport {
        problems: settle_report.problems,
        ..UndoReport::default()
    };
    let entries = journal.entries()?;
    report.run_id = entries
        .first()
        .map(|(e, _)| e.run_id.clone())
        .or_else(|| run_id.map(str::to_string));
    for (e, state) in entries.iter().rev() {
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
