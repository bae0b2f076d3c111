//! Recovery and undo.
//!
//! [`cleanup_leftovers`] runs at the start of every run: it settles journal
//! entries a crash left unfinished — by hashing what is on disk, never by
//! guessing — and deletes stray temporary files. [`undo`] reverses the
//! writes of one run, newest first, with the same write-temp-then-rename
//! discipline as the write itself, and checks that every restored file has
//! its original hash.
//!
//! Every entry is settled or undone on its own: a file that cannot be
//! read, removed or replaced makes a problem naming it, and the other
//! entries go on. A step that fails half way is settled at once from what
//! is on disk, as after a kill, so no second copy of a PDF stays behind;
//! undo's temporary copy has a name fixed by its entry
//! ([`undo_temp_path`]), so whatever settles a killed undo deletes it.

use super::journal::{self, Journal, State, WriteEntry};
use crate::model::DocHash;
use crate::settings::Settings;
use crate::util::fs::TEMP_PREFIX;
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
///
/// Nothing here stops the caller: an entry that cannot be settled (a file
/// that cannot be read, removed or renamed; a journal that cannot be read
/// or appended to) is a problem in the report naming its file, and the
/// other entries are settled all the same.
pub fn settle_journals(cache_dir: &Path) -> Result<CleanupReport> {
    let mut report = CleanupReport::default();
    let journals = match journal::all_journals(cache_dir) {
        Ok(j) => j,
        Err(e) => {
            report.problems.push(format!(
                "the write journals in {} could not be listed, interrupted writes were not settled: {e}",
                journal::journal_dir(cache_dir).display()
            ));
            return Ok(report);
        }
    };
    for j in journals {
        repair(&j, &mut report.warnings);
        settle(&j, &mut report);
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

/// Resolves the pending and half-undone entries of one journal, each on
/// its own: one that cannot be settled is a problem naming its file, never
/// a reason to leave the others. Entries naming paths outside the project
/// are never touched: an unfinished one is a problem.
fn settle(j: &Journal, report: &mut CleanupReport) {
    let contents = match j.read() {
        Ok(c) => c,
        Err(e) => {
            report.problems.push(format!(
                "the write journal {} could not be read, its interrupted writes were not settled: {e}",
                j.path().display()
            ));
            return;
        }
    };
    for (e, state) in contents.entries {
        let (what, settled) = match state {
            State::Pending => ("write", settle_write(j, &e, report)),
            State::Undoing => ("undo", settle_undo(j, &e, report)),
            State::Done | State::Abandoned | State::Failed | State::Undone => continue,
        };
        if let Err(err) = settled {
            report.problems.push(format!(
                "{}: an interrupted {what} journaled in {} could not be settled: {err:#}",
                e.new_path.display(),
                j.path().display()
            ));
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
}

fn matches(path: &Path, hex: &str) -> Result<bool> {
    Ok(crate::fingerprint::hash_if_exists(path)
        .with_context(|| format!("hashing {}", path.display()))?
        .is_some_and(|h| h.hex() == hex))
}

/// Removes the temporary files an entry's write or undo may have left.
fn remove_temps(e: &WriteEntry, report: &mut CleanupReport) -> Result<()> {
    let undo_temp = undo_temp_path(e);
    for t in e.temp_path.iter().chain([&undo_temp]) {
        if crate::util::fs::remove_if_exists(t)
            .with_context(|| format!("removing {}", t.display()))?
        {
            report.temp_files_removed.push(t.clone());
        }
    }
    Ok(())
}

/// Where an undo of `e` puts the truncated copy before it is renamed into
/// place: a name fixed by the entry (a hash of its id, so the journal's
/// text never makes a file name), so that whatever settles an interrupted
/// undo — the next `undo` or run — knows the file to delete, instead of
/// leaving a copy of a whole PDF in `data/`.
pub(super) fn undo_temp_path(e: &WriteEntry) -> PathBuf {
    let id = blake3::hash(e.id.as_bytes()).to_hex();
    crate::util::fs::parent_of(&e.old_path).join(format!("{TEMP_PREFIX}undo-{}", &id[..16]))
}

/// A write interrupted somewhere between its journal line and `done`.
fn settle_write(j: &Journal, e: &WriteEntry, report: &mut CleanupReport) -> Result<()> {
    remove_temps(e, report)?;
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
        (true, true) => match fs::remove_file(&e.old_path) {
            // Killed between "new name exists" and "old name removed":
            // finish the write (the new file is complete: it was checked
            // before the rename and its hash matches).
            Ok(()) => {
                crate::util::fs::sync_dir(&crate::util::fs::parent_of(&e.old_path))?;
                report.completed.push(e.new_path.clone());
                j.record_done(&e.id)?;
            }
            // The old name cannot go (an immutable file, a folder the user
            // may not change): the write cannot be finished, so it is
            // taken back instead.
            Err(why) => {
                match take_back_copy(j, e, &format!("the old name could not be removed ({why})")) {
                    Ok(told) => {
                        report.warnings.push(told);
                        report.abandoned.push(e.old_path.clone());
                    }
                    Err(told) => report.problems.push(told),
                }
            }
        },
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

/// A renaming write whose new name exists (checked, with its new content)
/// while its old name could not be removed (`why`): removes the new copy,
/// which only colophon made, so that the library is as it was, and
/// journals the write as failed. `Ok` says what was done, `Err` why both
/// names are still there; both name the files.
pub(super) fn take_back_copy(
    j: &Journal,
    e: &WriteEntry,
    why: &str,
) -> std::result::Result<String, String> {
    let (old, new) = (e.old_path.display(), e.new_path.display());
    // Both names are in one folder: the new one by its file name.
    let new_name = e.new_path.file_name().unwrap_or_default().to_string_lossy();
    match fs::remove_file(&e.new_path) {
        Ok(()) => {
            let _ = crate::util::fs::sync_dir(&crate::util::fs::parent_of(&e.new_path));
            // Exports come after the old name is gone, so there are none
            // of this write's; whatever is there of them goes too.
            let left = restore_annotations(e, &mut Vec::new());
            let mut told = format!(
                "{old}: {why}, so the write was taken back: its new copy {new_name:?} was \
                 removed and the file is as it was"
            );
            for l in left {
                told = format!("{told}; {l}");
            }
            match j.record_failed(&e.id, &told) {
                Ok(()) => Ok(told),
                Err(je) => Err(format!(
                    "{told}; journaling that in {} failed: {je}",
                    j.path().display()
                )),
            }
        }
        // Still pending: the next run (or undo) tries again.
        Err(again) => Err(format!(
            "{old}: {why} after the write made {new}, and removing {new} failed too \
             ({again}): both files exist (the new one with the new metadata); delete one of \
             them, or make {old} removable and run again"
        )),
    }
}

/// A write that took effect but could not be finished (`reason`: its
/// annotation exports could not be written): undone at once, as `colophon
/// undo` would, and journaled as failed. Returns the message for the
/// record, naming the file and what became of it.
pub(super) fn take_back_write(j: &Journal, e: &WriteEntry, reason: &str) -> String {
    let mut report = UndoReport::default();
    let told = match undo_entry(j, e, &mut report) {
        Ok(()) if report.problems.is_empty() => format!(
            "{reason}; the write was taken back, {} is as it was",
            e.old_path.display()
        ),
        Ok(()) => format!(
            "{reason}; the write was taken back, but {}",
            report.problems.join("; ")
        ),
        Err(err) => {
            return format!(
                "{reason}; taking the write back failed ({err:#}): {} stays written, and \
                 `colophon undo` reverts it",
                e.new_path.display()
            );
        }
    };
    match j.record_failed(&e.id, &told) {
        Ok(()) => told,
        Err(je) => format!(
            "{told}; journaling that in {} failed: {je}",
            j.path().display()
        ),
    }
}

/// An undo interrupted before `undone` (a kill, or an error that stopped
/// it): finish it when the original is back, else the write still stands.
fn settle_undo(j: &Journal, e: &WriteEntry, report: &mut CleanupReport) -> Result<()> {
    remove_temps(e, report)?;
    let old_ok = matches(&e.old_path, &e.old_hash)?;
    if old_ok {
        if e.old_path != e.new_path && matches(&e.new_path, &e.new_hash)? {
            if let Err(why) = fs::remove_file(&e.new_path) {
                // The written file cannot go: the undo cannot be finished,
                // so the copy of the original it restored is removed (the
                // old name was free when the undo began, which checks
                // that) and the write stays in effect.
                fs::remove_file(&e.old_path).with_context(|| {
                    format!(
                        "removing {} (which cannot be removed: {why}) failed; removing the restored {} failed too: both files exist",
                        e.new_path.display(),
                        e.old_path.display()
                    )
                })?;
                crate::util::fs::sync_dir(&crate::util::fs::parent_of(&e.old_path))?;
                j.record_done(&e.id)?;
                report.problems.push(format!(
                    "{}: could not be removed ({why}), so its undo was taken back; the write stays in effect",
                    e.new_path.display()
                ));
                return Ok(());
            }
            crate::util::fs::sync_dir(&crate::util::fs::parent_of(&e.new_path))?;
        }
        // The PDF is back: the undo is done, whatever becomes of its
        // exports (one that cannot be put back is named).
        report
            .problems
            .extend(restore_annotations(e, &mut Vec::new()));
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
        match crate::util::fs::remove_if_exists(&path) {
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
/// the interrupted entries of every journal first (as the next write run
/// would: a killed undo leaves no copy behind). Every restored file is
/// checked against its original hash. Nothing is skipped silently: every
/// entry that stays in effect (a file edited or missing since, an old name
/// taken again, a file that cannot be removed or replaced, a path outside
/// the project) is in [`UndoReport::problems`] with its file and reason,
/// and never keeps the other entries from being undone. Call it while
/// holding the project lock.
pub fn undo(cache_dir: &Path, run_id: Option<&str>) -> Result<UndoReport> {
    let mut warnings = Vec::new();
    let chosen = chosen_journal(cache_dir, run_id)?;
    let mut problems = Vec::new();
    let candidates = settle_for_undo(cache_dir, chosen.as_deref(), &mut warnings, &mut problems)?;
    let journal = match chosen {
        Some(_) => Journal::for_run(cache_dir, run_id.unwrap_or_default()),
        None => match candidates.into_iter().max_by_key(|(t, _)| *t) {
            Some((_, j)) => j,
            None => {
                return Ok(UndoReport {
                    warnings: escaped(warnings),
                    ..UndoReport::default()
                });
            }
        },
    };
    let mut report = UndoReport {
        problems,
        warnings,
        ..UndoReport::default()
    };
    undo_journal(&journal, run_id, &mut report)?;
    report.problems = escaped(report.problems);
    report.warnings = escaped(report.warnings);
    Ok(report)
}

/// Whether a journal entry in this state may still be in effect.
fn live(s: &State) -> bool {
    matches!(s, State::Done | State::Pending | State::Undoing)
}

/// The path of the journal of run `run_id` when one is asked for; an
/// error when that run has none.
fn chosen_journal(cache_dir: &Path, run_id: Option<&str>) -> Result<Option<PathBuf>> {
    let Some(id) = run_id else {
        return Ok(None);
    };
    let j = Journal::for_run(cache_dir, id);
    if !j.path().exists() {
        bail!(
            "no journal for run {id:?} in {}",
            journal::journal_dir(cache_dir).display()
        );
    }
    Ok(Some(j.path().to_path_buf()))
}

/// Repairs and settles every journal (the `chosen` one's problems go to
/// `problems`, the others' to `warnings`). Without a chosen journal,
/// returns the journals with entries still in effect and their start
/// times, to undo the latest of them.
fn settle_for_undo(
    cache_dir: &Path,
    chosen: Option<&Path>,
    warnings: &mut Vec<String>,
    problems: &mut Vec<String>,
) -> Result<Vec<(u64, Journal)>> {
    let mut candidates = Vec::new();
    for j in journal::all_journals(cache_dir).with_context(|| {
        format!(
            "listing the write journals in {}",
            journal::journal_dir(cache_dir).display()
        )
    })? {
        repair(&j, warnings);
        let mut settled = CleanupReport::default();
        settle(&j, &mut settled);
        warnings.extend(settled.warnings);
        if chosen == Some(j.path()) {
            problems.extend(settled.problems);
            continue;
        }
        // Another run's: worth knowing, but not this undo's failure.
        warnings.extend(settled.problems);
        if chosen.is_none() {
            // An unreadable journal must not make an older run "the
            // latest": that would undo the wrong run.
            let c = j
                .read()
                .with_context(|| format!("reading the write journal {}", j.path().display()))?;
            let any_live =
                c.entries.iter().any(|(_, s)| live(s)) || c.refused.iter().any(|(_, s, _)| live(s));
            if any_live {
                candidates.push((j.started_ms(), j));
            }
        }
    }
    Ok(candidates)
}

/// Undoes the done entries of `journal`, latest first, into `report`
/// (a failed entry is a problem and never stops the others); a write
/// that was refused is a problem too.
fn undo_journal(journal: &Journal, run_id: Option<&str>, report: &mut UndoReport) -> Result<()> {
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
        match undo_entry(journal, e, report) {
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
    Ok(())
}

/// Messages for the terminal: a file name's newlines and escape sequences
/// written as escapes (as the run's table does), so that one line is one
/// message and a name cannot drive the terminal.
fn escaped(lines: Vec<String>) -> Vec<String> {
    lines
        .into_iter()
        .map(|l| crate::util::escape::controls(&l).into_owned())
        .collect()
}

impl UndoReport {
    /// One line per restored file, `written name  →  restored name`, with
    /// control characters in the names escaped (see [`escaped`]).
    pub fn restored_lines(&self) -> Vec<String> {
        self.restored
            .iter()
            .map(|(from, to)| {
                let line = format!("{}  →  {}", from.display(), to.display());
                crate::util::escape::controls(&line).into_owned()
            })
            .collect()
    }
}

/// Undoes one finished write. Checks first, changing nothing, that the
/// written file is as the write left it and the old name is free; once
/// `undo-begin` is journaled, an error at any step is settled at once
/// from what is on disk (as after a kill): the original back means the
/// undo is finished, else whatever the undo made is removed and the write
/// stays in effect. The error is returned either way, for the report.
fn undo_entry(j: &Journal, e: &WriteEntry, report: &mut UndoReport) -> Result<()> {
    let current = crate::fingerprint::hash_if_exists(&e.new_path)
        .with_context(|| format!("hashing {}", e.new_path.display()))?;
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
    if let Err(err) = restore(e) {
        let mut settled = CleanupReport::default();
        match settle_undo(j, e, &mut settled) {
            // The original is back all the same (the error came after it
            // was in place): the undo is finished.
            Ok(()) if !settled.abandoned.is_empty() => {
                report.problems.extend(settled.problems);
                report
                    .restored
                    .push((e.new_path.clone(), e.old_path.clone()));
                return Ok(());
            }
            Ok(()) if settled.problems.is_empty() => {
                bail!("{err:#}; the write stays in effect")
            }
            Ok(()) => bail!("{err:#}; {}", settled.problems.join("; ")),
            Err(again) => bail!("{err:#}; settling that failed too: {again:#}"),
        }
    }
    // The PDF is back; an export that cannot be put back is named, and
    // does not make the PDF's undo fail.
    report
        .problems
        .extend(restore_annotations(e, &mut report.annotations));
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

/// Puts the original of `e` back under its old name: the first
/// `original_len` bytes of the written file (the update is a pure
/// append), through a temporary copy renamed into place, or a rename back
/// when only the name changed.
fn restore(e: &WriteEntry) -> Result<()> {
    let old_dir = crate::util::fs::parent_of(&e.old_path);
    let new = e.new_path.display();
    if e.old_hash != e.new_hash {
        let mut f = fs::File::open(&e.new_path).with_context(|| format!("opening {new}"))?;
        let perms = f.metadata()?.permissions();
        let mut original = Vec::with_capacity(e.original_len as usize);
        (&mut f)
            .take(e.original_len)
            .read_to_end(&mut original)
            .with_context(|| format!("reading {new}"))?;
        let h: DocHash = crate::fingerprint::hash_bytes(&original);
        if h.hex() != e.old_hash {
            bail!("truncating does not give the original bytes back, not undone");
        }
        let tmp = undo_temp_path(e);
        crate::util::fs::remove_if_exists(&tmp)?;
        let file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .with_context(|| format!("creating {}", tmp.display()))?;
        // Deleted on drop unless renamed into place.
        let mut t =
            tempfile::NamedTempFile::from_parts(file, tempfile::TempPath::try_from_path(&tmp)?);
        t.write_all(&original)?;
        t.as_file().set_permissions(perms)?;
        if let Some((s, n)) = e.original_mtime {
            t.as_file().set_modified(UNIX_EPOCH + Duration::new(s, n))?;
        }
        t.as_file()
            .sync_all()
            .with_context(|| format!("writing {}", tmp.display()))?;
        if e.old_path == e.new_path {
            t.persist(&e.old_path)
                .map_err(|err| err.error)
                .with_context(|| format!("replacing {new} with its original"))?;
            crate::util::fs::sync_dir(&old_dir)?;
        } else {
            t.persist_noclobber(&e.old_path)
                .map_err(|err| err.error)
                .with_context(|| format!("restoring {}", e.old_path.display()))?;
            crate::util::fs::sync_dir(&old_dir)?;
            fs::remove_file(&e.new_path).with_context(|| format!("removing {new}"))?;
            crate::util::fs::sync_dir(&crate::util::fs::parent_of(&e.new_path))?;
        }
    } else if e.old_path != e.new_path {
        crate::util::fs::rename_noreplace(&e.new_path, &e.old_path)
            .with_context(|| format!("renaming {new} back to {}", e.old_path.display()))?;
        crate::util::fs::sync_dir(&old_dir)?;
    }
    Ok(())
}

/// Removes the exports a write created and puts back those it replaced.
/// Returns a message for each one that could not be (naming it); the
/// others are done all the same.
fn restore_annotations(e: &WriteEntry, touched: &mut Vec<PathBuf>) -> Vec<String> {
    let mut problems = Vec::new();
    for a in &e.annotations {
        let done = match &a.previous_base64 {
            None => crate::util::fs::remove_if_exists(&a.path).map_err(anyhow::Error::from),
            Some(b64) => base64::engine::general_purpose::STANDARD
                .decode(b64)
                .context("the journal holds a corrupt copy of it")
                .and_then(|bytes| {
                    // Already as it was (the write never got to it):
                    // nothing to put back, and nothing to fail at.
                    if fs::read(&a.path).is_ok_and(|now| now == bytes) {
                        return Ok(false);
                    }
                    crate::util::fs::write_atomic(&a.path, &bytes)?;
                    Ok(true)
                }),
        };
        match done {
            Ok(true) => touched.push(a.path.clone()),
            Ok(false) => {}
            Err(err) => problems.push(format!(
                "{}: this annotation export could not be put back as it was before the write: {err:#}",
                a.path.display()
            )),
        }
    }
    if let Some(dir) = e
        .annotations
        .first()
        .map(|a| crate::util::fs::parent_of(&a.path))
    {
        let _ = crate::util::fs::sync_dir(&dir);
    }
    problems
}
