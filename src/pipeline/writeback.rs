//! Stage 9, write, for a run in write mode: one record's metadata and name
//! into its PDF ([`crate::write::apply`]), with the outcome in the record,
//! and the cache told about the written file. With `--approved FILE`, only
//! the records reviewed and ticked on the review page are written.

use super::Env;
use super::document::Context;
use crate::cache::{Tree, keys};
use crate::model::{DocHash, DocResult, PdfFile, Record, Status};
use crate::review::approvals::Approvals;
use crate::runs::RunDir;
use crate::write::{SkipReason, WriteJob, WriteOutcome};
use anyhow::Result;
use std::path::Path;

/// What writing needs from the run.
pub(super) struct Writer<'a> {
    env: Env<'a>,
    ctx: &'a Context<'a>,
    run_dir: &'a RunDir,
    /// `--approved FILE`: the rows ticked on the review page.
    approvals: Option<Approvals>,
}

impl<'a> Writer<'a> {
    /// Reads `--approved FILE` when given.
    pub fn new(env: &Env<'a>, ctx: &'a Context<'a>, run_dir: &'a RunDir) -> Result<Writer<'a>> {
        let approvals = match &env.opts.approved {
            Some(file) => Some(Approvals::load(file)?),
            None => None,
        };
        Ok(Writer {
            env: *env,
            ctx,
            run_dir,
            approvals,
        })
    }

    /// Writes one record, unless `--approved` leaves it out (a complete
    /// record then says so in a warning).
    pub fn write(&self, file: &PdfFile, hash: DocHash, result: &DocResult, record: &mut Record) {
        match &self.approvals {
            Some(a) if !a.allows(record) => {
                if record.status == Status::Complete {
                    record.warnings.push(a.refusal());
                }
            }
            // The values decided on the review page, one by one.
            Some(a) => {
                a.apply(record, self.env.settings);
                write_one(file, hash, result, record, self)
            }
            None => write_one(file, hash, result, record, self),
        }
    }
}

/// Writes one record: `written`, or a warning saying why not.
///
/// After a write, the new file's hash, record and "already written" mark
/// go into the cache, so the next run over the written library is as warm
/// as a dry rerun: no re-hash, no re-read, and no re-parse of the PDF to
/// find that nothing is left to do.
fn write_one(file: &PdfFile, hash: DocHash, result: &DocResult, record: &mut Record, w: &Writer) {
    let (env, ctx, run_dir) = (&w.env, w.ctx, w.run_dir);
    let cache = env.cache;
    let done = |hash: &DocHash, path: &Path| {
        let name = path.file_name().unwrap_or_default().to_string_lossy();
        let meta = serde_json::to_string(&record.metadata).unwrap_or_default();
        let proposed = record.proposed_filename.as_deref().unwrap_or("");
        keys::written_key(hash, &meta, proposed, &name)
    };
    if cache
        .get::<bool>(Tree::Written, &done(&hash, &file.path))
        .is_some()
    {
        return; // this content under this name already holds this metadata
    }
    let job = WriteJob {
        file,
        expected_hash: hash,
        record,
        settings: env.settings,
        cache_dir: &env.paths.cache_dir,
        run_id: &run_dir.id,
    };
    match crate::write::apply(&job) {
        Ok(WriteOutcome::Written(w)) => {
            record.written = true;
            record.warnings.extend(w.warnings);
            crate::fingerprint::remember(&w.new_path, &w.new_hash, cache);
            cache.put(Tree::Record, &ctx.record_key(&w.new_hash), result);
            cache.put(Tree::Written, &done(&w.new_hash, &w.new_path), &true);
        }
        Ok(WriteOutcome::Unchanged { path, .. }) => {
            cache.put(Tree::Written, &done(&hash, &path), &true)
        }
        Ok(WriteOutcome::Skipped(reason)) => {
            if !matches!(reason, SkipReason::Incomplete) {
                record.warnings.push(format!("not written: {reason}"));
            }
        }
        Err(e) => {
            // Never silent: the row's status, the summary and the exit
            // status read this warning.
            let msg = format!("{}{e:#}", crate::write::WRITE_FAILED);
            env.reporter
                .error(&format!("colophon: {}: {msg}", file.path.display()));
            record.warnings.push(msg);
        }
    }
}
