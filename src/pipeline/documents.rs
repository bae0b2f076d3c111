//! The document threads: each takes one queued document at a time through
//! the per-document stages ([`super::document::process`]), stores its
//! record (or its deterministic failure) in the cache, and hands it on. A
//! panic fails that document only; an installation error (pdfium or
//! Tesseract missing) stops the run once ([`Stop`]).

use super::document::{self, Context, OcrSlots};
use super::feed::Job;
use super::{Done, Env, RecordOutcome};
use crate::cache::Tree;
use crate::exit::{ExitStatus, QUIT, TERMINATED};
use crate::inspect::PdfError;
use crate::progress::Reporter;
use crate::report::{Got, StageOutcome, Summary};
use crate::runs::RunDir;
use crate::vision::VisionPool;
use anyhow::{Context as _, Result};
use crossbeam_channel::{Receiver, Sender};
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::Scope;

/// The vision callers when `ANALYZE_WITH_VISION` is on, answering from the
/// cache first and cancelled by Ctrl-C.
pub(super) fn vision_pool(env: &Env) -> Option<VisionPool<u32>> {
    env.settings.analyze_with_vision.then(|| {
        let store = std::sync::Arc::new(env.cache.vision_answers());
        VisionPool::from_settings(env.settings, store, &QUIT)
    })
}

/// What a document's flow needs from the run.
pub(super) fn context<'a>(
    env: &Env<'a>,
    vision: Option<&'a VisionPool<u32>>,
    ocr_slots: &'a OcrSlots,
    deciders: &'a rayon::ThreadPool,
) -> Context<'a> {
    Context {
        settings: env.settings,
        cache: env.cache,
        sessions: env.sessions,
        versions: crate::cache::keys::StageVersions::for_settings(env.settings),
        vision,
        ocr_slots,
        deciders,
        reporter: env.reporter,
    }
}

/// The decider threads ([`Context::deciders`]): one for every two workers.
/// Every thread that runs the finders' patterns fills its own lazy-DFA
/// cache for each of them (about 20 MiB a thread on real libraries), and
/// deciding is a small share of a run: on the wild library (`--jobs 2`,
/// cold, 1,280 files) the decider threads used 19 of 92 CPU-s, so one
/// thread is busy 40% of the run. With one decider instead of two the
/// coordinator's peak went from 94-96 to 71 MiB, wall and CPU the same
/// (47.6 and 48.7 s against 47.2 and 47.9, interleaved).
pub(super) fn deciders(env: &Env) -> Result<rayon::ThreadPool> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(env.opts.jobs.max(1).div_ceil(2))
        .thread_name(|i| format!("decider-{i}"))
        .build()
        .context("starting the decider threads")
}

/// Set when a document fails for a reason every document would share (an
/// installation error): no new document is started, and the run ends with
/// [`ExitStatus::Installation`] and the message, once.
#[derive(Default)]
pub(super) struct Stop {
    fatal: AtomicBool,
    message: Mutex<String>,
}

impl Stop {
    fn stopping(&self) -> bool {
        QUIT.load(Ordering::Relaxed) || self.fatal.load(Ordering::Relaxed)
    }

    fn installation_error(&self, e: &anyhow::Error) {
        if installation_error(e) && !self.fatal.swap(true, Ordering::SeqCst) {
            *self.message.lock().unwrap_or_else(|p| p.into_inner()) = format!("{e:#}");
        }
    }

    /// Whether the run got through every document it found (no Ctrl-C or
    /// termination signal, no installation error).
    pub fn complete(&self) -> bool {
        !self.stopping()
    }

    /// The run's exit status.
    pub fn status(&self, summary: &Summary, reporter: &dyn Reporter) -> ExitStatus {
        if TERMINATED.load(Ordering::Relaxed) {
            // Before an installation error: a worker killed while it
            // started looks like one.
            ExitStatus::Terminated
        } else if self.fatal.load(Ordering::Relaxed) {
            let msg = self.message.lock().unwrap_or_else(|p| p.into_inner());
            reporter.error(&format!("colophon: stopped: {msg}"));
            ExitStatus::Installation
        } else if QUIT.load(Ordering::Relaxed) {
            ExitStatus::Interrupted
        } else if summary.errors > 0 || summary.write_failed > 0 {
            ExitStatus::SomeFailed
        } else {
            ExitStatus::Success
        }
    }
}

/// Starts the document threads on `jobs`; each finished document goes to
/// `done`. After Ctrl-C or an installation error the queue is drained
/// without work.
pub(super) fn start<'s>(
    scope: &'s Scope<'s, '_>,
    ctx: &'s Context,
    run_dir: &'s RunDir,
    stop: &'s Stop,
    jobs: Receiver<Job<'s>>,
    done: Sender<Done>,
    threads: usize,
) {
    for _ in 0..threads {
        let (jobs, done) = (jobs.clone(), done.clone());
        scope.spawn(move || {
            for job in jobs {
                if stop.stopping() {
                    continue;
                }
                let done_doc = one(ctx, run_dir, stop, job);
                // After SIGTERM the documents in progress are abandoned:
                // one that failed then (its worker or tesseract killed) is
                // not reported; the rerun reads it.
                if TERMINATED.load(Ordering::SeqCst)
                    && matches!(done_doc.outcome, RecordOutcome::Failed(_))
                {
                    continue;
                }
                if done.send(done_doc).is_err() {
                    break;
                }
            }
        });
    }
}

/// One document through the per-document stages, its outcome cached.
fn one(ctx: &Context, run_dir: &RunDir, stop: &Stop, job: Job) -> Done {
    let Job {
        index,
        file,
        hash,
        mut work,
    } = job;
    let diag = run_dir.diagnostics_dir(&file.rel);
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        document::process(ctx, &file.path, &hash, Some(&diag), &mut work)
    }));
    let outcome = match outcome {
        Ok(Ok(result)) => {
            // Failed results are not stored: a page whose vision call
            // failed is asked again next run.
            if result.vision.failed.is_empty() {
                ctx.cache.put(Tree::Record, &ctx.record_key(&hash), &result);
            }
            work.push(StageOutcome::Record(Got::Computed));
            RecordOutcome::Computed(result)
        }
        Ok(Err(e)) => {
            if content_failure(&e) {
                ctx.cache
                    .put(Tree::Record, &ctx.failure_key(&hash), &format!("{e:#}"));
            }
            stop.installation_error(&e);
            RecordOutcome::Failed(format!("{e:#}"))
        }
        Err(panic) => RecordOutcome::Failed(format!(
            "internal error while reading this PDF: {}",
            crate::util::panic::text(panic.as_ref(), "panic")
        )),
    };
    Done {
        index,
        hash: Some(hash),
        outcome,
        work,
    }
}

/// An error of the installation rather than of one PDF (pdfium or
/// Tesseract missing, a worker that cannot start): every document would
/// fail the same way.
fn installation_error(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        cause.is::<crate::ocr::TesseractMissing>()
            || matches!(
                cause.downcast_ref::<PdfError>(),
                Some(PdfError::PdfiumMissing(_) | PdfError::WorkerStart(_))
            )
    })
}

/// A failure that reading the same bytes again would repeat (a broken or
/// encrypted PDF): cached by content, so a warm rerun reports it without
/// reading the file. Never a transient failure: a timeout, a killed or
/// crashed worker, an I/O error, a file that changed while it was read, an
/// installation error, a panic; those are tried again on the next run.
fn content_failure(e: &anyhow::Error) -> bool {
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<PdfError>(),
            Some(
                PdfError::Encrypted
                    | PdfError::Malformed(_)
                    | PdfError::PageTooLarge { .. }
                    | PdfError::TooLarge(_)
            )
        )
    })
}
