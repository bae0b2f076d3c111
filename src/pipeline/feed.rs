//! The front of a run, up to the documents that need reading: settling
//! what an earlier run left behind, discover (or the files `show` names),
//! fingerprint, and the record cache. A document whose record (or whose
//! deterministic failure) is cached never reaches a document thread.

use super::document::Context;
use super::{Done, Env, RecordOutcome, Selection};
use crate::cache::Tree;
use crate::model::{DocHash, DocResult, PdfFile};
use crate::report::{Got, StageOutcome};
use crate::{discover, fingerprint};
use anyhow::{Context as _, Result};
use crossbeam_channel::{Receiver, Sender};
use std::path::{Path, PathBuf};
use std::thread::Scope;

/// A document for the document threads: the file and its place in the
/// run's list, its content hash, and what was done for it so far (its
/// fingerprint).
pub(super) struct Job<'f> {
    pub index: usize,
    pub file: &'f PdfFile,
    pub hash: DocHash,
    pub work: Vec<StageOutcome>,
}

/// Before discover sees them: in write mode, settles writes a kill
/// interrupted; in any run, deletes colophon's own stale temporary files
/// (the caller holds the project lock, so none belongs to a live process).
/// A dry run settles nothing: that would change the library. A shard
/// settles its own journal only: the other shards, running beside it, may
/// own the temporary files (`merge` deletes those left over).
pub(super) fn settle_leftovers(env: &Env) -> Result<()> {
    let (paths, settings, reporter) = (env.paths, env.settings, env.reporter);
    let sharded = env.opts.shard.is_some();
    let cleanup = match (settings.write_pdf_changes, sharded) {
        (true, false) => {
            crate::write::cleanup_leftovers(&paths.data_dir, &paths.cache_dir, settings)?
        }
        (true, true) => crate::write::settle_journals(&paths.cache_dir)?,
        (false, false) => crate::write::remove_stale_temps(&paths.data_dir, settings),
        (false, true) => crate::write::CleanupReport::default(),
    };
    for p in cleanup.completed.iter().chain(&cleanup.abandoned) {
        reporter.message(&format!("settled an interrupted write of {}", p.display()));
    }
    for w in cleanup.warnings.iter().chain(&cleanup.problems) {
        reporter.message(&format!("colophon: warning: {w}"));
    }
    Ok(())
}

/// Stage 1: the PDFs of the data folder (of a sharded run, those of its
/// shard), or the files given to `show`.
pub(super) fn discover(env: &Env, selection: Selection) -> Result<Vec<PdfFile>> {
    let (data_dir, ignore) = (&env.paths.data_dir, &env.settings.runtime_ignore_dir_name);
    match selection {
        Selection::DataFolder => {
            let warn = |w: &str| env.reporter.message(w);
            match env.opts.shard {
                Some(shard) => {
                    discover::discover_where(data_dir, ignore, &|rel| shard.contains(rel), &warn)
                }
                None => discover::discover(data_dir, ignore, &warn),
            }
        }
        Selection::Files(list) => given_files(data_dir, &list, ignore),
    }
}

/// Where the data folder is, as `colophon config` and the "no PDF" notice
/// say it: the path, and whether it is a link (and to where) or missing.
/// The folder is `<project>/data` by design: a library elsewhere is
/// linked there (`ln -s ~/papers data`).
pub fn data_folder(data_dir: &Path) -> String {
    let shown = data_dir.display();
    match std::fs::symlink_metadata(data_dir) {
        Err(_) => {
            format!("{shown} (missing: `ln -s ~/papers data` in the project links a library there)")
        }
        Ok(m) if m.file_type().is_symlink() => {
            let target = std::fs::read_link(data_dir)
                .map(|t| t.display().to_string())
                .unwrap_or_else(|e| format!("unreadable link: {e}"));
            match data_dir.is_dir() {
                true => format!("{shown} (a link to {target})"),
                false => format!("{shown} (a link to {target}, which is not a folder)"),
            }
        }
        Ok(m) if m.is_dir() => format!("{shown} (a folder)"),
        Ok(_) => format!("{shown} (not a folder)"),
    }
}

/// The notice of a run that found no PDF: where it looked.
pub fn no_pdf_found(data_dir: &Path) -> String {
    format!(
        "colophon: no PDF found in the data folder {}; colophon reads <project>/data \
         (a library elsewhere: `ln -s ~/papers data`)",
        data_folder(data_dir)
    )
}

/// A file's fingerprint, or why it has none.
type HashResult = Result<(DocHash, fingerprint::HashOutcome)>;

/// Stage 2: the content hash of every file, on rayon's pool, each sent on
/// in completion order so that documents start while the rest of the
/// library is hashed. Stops early once the receiver is gone.
pub(super) fn fingerprint<'s>(
    scope: &'s Scope<'s, '_>,
    files: &'s [PdfFile],
    env: &Env<'s>,
) -> Receiver<(usize, HashResult)> {
    let (tx, rx) = crossbeam_channel::bounded::<(usize, HashResult)>(256);
    let (cache, rehash) = (env.cache, env.opts.rehash);
    scope.spawn(move || {
        use rayon::prelude::*;
        let _ = files
            .par_iter()
            .enumerate()
            .try_for_each_with(tx, |tx, (i, f)| {
                // A FIFO or a device is never opened (it may block or
                // never end): its record says what it is.
                let hash = match discover::not_a_regular_file(&f.path) {
                    Some(why) => Err(anyhow::anyhow!(why)),
                    None => fingerprint::fingerprint_one(&f.path, cache, rehash),
                };
                tx.send((i, hash))
            });
    });
    rx
}

/// The feeder: a document whose record (or cached failure) is in the cache,
/// or that cannot be read at all, goes straight to `done`; the rest become
/// [`Job`]s for the document threads. The first job queued starts the
/// finders' warm-up (on a decider thread, which then owns each pattern's
/// first lazy-DFA cache) and the deletion of old run folders (`pruner`),
/// which a warm run never pays for. Stops queueing at Ctrl-C; dropping the
/// job sender ends the document threads.
pub(super) fn records<'s>(
    scope: &'s Scope<'s, '_>,
    files: &'s [PdfFile],
    ctx: &'s Context,
    env: &Env,
    hashes: Receiver<(usize, HashResult)>,
    done: Sender<Done>,
    pruner: &'s crate::runs::Pruner,
) -> Receiver<Job<'s>> {
    let (job_tx, job_rx) = crossbeam_channel::bounded::<Job>(super::threads(env) * 2);
    let retry_errors = env.opts.retry_errors;
    scope.spawn(move || {
        let mut warmed_up = false;
        for (index, hash) in hashes {
            let file = &files[index];
            let mut work = Vec::new();
            let early = match &hash {
                Err(e) => Some(RecordOutcome::Failed(format!("{e:#}"))),
                Ok((_, how)) => {
                    work.push(StageOutcome::Hash(*how));
                    if file.has_pdf_header {
                        None
                    } else {
                        Some(RecordOutcome::Failed(
                            "not a PDF: no %PDF- header in the first 1024 bytes".to_string(),
                        ))
                    }
                }
            };
            let early = early.or_else(|| cached(ctx, &hash.as_ref().ok()?.0, retry_errors));
            if matches!(
                early,
                Some(RecordOutcome::Cached(_) | RecordOutcome::CachedFailure(_))
            ) {
                work.push(StageOutcome::Record(Got::Cached));
            }
            let doc_hash = hash.as_ref().ok().map(|(h, _)| *h);
            let sent = match early {
                Some(outcome) => done
                    .send(Done {
                        index,
                        hash: doc_hash,
                        outcome,
                        work,
                    })
                    .is_ok(),
                None if crate::exit::QUIT.load(std::sync::atomic::Ordering::Relaxed) => false,
                None => {
                    pruner.go();
                    if !std::mem::replace(&mut warmed_up, true) {
                        ctx.deciders.spawn(crate::extract::warm_up);
                    }
                    let hash = doc_hash.expect("an unreadable file is answered above");
                    let job = Job {
                        index,
                        file,
                        hash,
                        work,
                    };
                    job_tx.send(job).is_ok()
                }
            };
            if !sent {
                break;
            }
        }
    });
    job_rx
}

/// The cached record of a document, or its cached failure (unless
/// `--retry-errors`).
fn cached(ctx: &Context, hash: &DocHash, retry_errors: bool) -> Option<RecordOutcome> {
    if let Some(result) = ctx
        .cache
        .get::<DocResult>(Tree::Record, &ctx.record_key(hash))
    {
        return Some(RecordOutcome::Cached(result));
    }
    if retry_errors {
        return None;
    }
    ctx.cache
        .get::<String>(Tree::Record, &ctx.failure_key(hash))
        .map(RecordOutcome::CachedFailure)
}

/// Files named on the command line (`show`): relative to the data folder
/// when they lie in it, else by their name.
fn given_files(data_dir: &Path, list: &[PathBuf], ignore_dir_name: &str) -> Result<Vec<PdfFile>> {
    let data = std::fs::canonicalize(data_dir).ok();
    list.iter()
        .map(|p| {
            let path =
                std::fs::canonicalize(p).with_context(|| format!("reading {}", p.display()))?;
            let rel = data
                .as_ref()
                .and_then(|d| path.strip_prefix(d).ok())
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from(path.file_name().unwrap_or_default()));
            let ignored = rel
                .parent()
                .is_some_and(|d| d.components().any(|c| c.as_os_str() == ignore_dir_name));
            Ok(PdfFile {
                has_pdf_header: discover::has_pdf_header(&path),
                path,
                rel,
                ignored,
            })
        })
        .collect()
}
