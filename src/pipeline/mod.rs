//! The pipeline in one place: one run (SPEC 5), its stages in the order
//! [`run`] shows them: settle leftovers → discover → fingerprint → record
//! cache ([`feed`]) → per document inspect/OCR/vision/extract/decide
//! ([`documents`] threads, the flow of one document in
//! [`document::process`]) → online lookups → name → write ([`writeback`])
//! → report ([`emit`]).
//!
//! Each document ends as one value (its record and its outcome: what each
//! stage did for it), and the calling thread folds the outcomes into the
//! run's [`Summary`] (`summary += outcome`), so no thread shares a counter.
//!
//! After the documents, with `REVIEW_THUMBNAILS = "run"`, the worker
//! processes draw the review page's missing thumbnails
//! (`review::make_thumbnails`; by default `colophon review` draws them).
//!
//! Threads: rayon hashes and sends each fingerprint on as it is done; a
//! feeder answers cached records at once and queues the rest for `2 x
//! --jobs` document threads (each holds a pdfium worker process only while
//! it reads, so some extract while the workers read); a vision job carries
//! its document's reply channel; with `--online`, lookup threads ask the
//! catalogues about finished documents ([`crate::online::LOOKUP_THREADS`]
//! at once, each source's rate limit shared); the calling thread alone
//! merges their answers, names, writes and reports, so records stream out
//! in completion order and memory does not grow with the library; two
//! threads write the annotation exports, and a low-priority one deletes
//! old run folders ([`crate::runs::Pruner`]).

pub mod document;
mod documents;
mod emit;
mod feed;
mod writeback;

use crate::cache::Cache;
use crate::cli::RunOptions;
use crate::exit::{ExitStatus, QUIT};
use crate::inspect::session::SessionSource;
use crate::model::{DocHash, DocResult, PdfFile, Record};
use crate::online::Online;
use crate::progress::Reporter;
use crate::report::{StageOutcome, Summary};
use crate::runs::{Pruner, RunDir};
use crate::settings::{ReviewThumbnails, Settings};
use anyhow::Result;
use document::OcrSlots;
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::Ordering;
use std::time::Instant;

/// Runs the pipeline and reports every record. Returns the summary and
/// the exit status.
pub fn run(
    env: &Env,
    selection: Selection,
    stdout: &mut dyn Write,
) -> Result<(Summary, ExitStatus)> {
    let started = Instant::now();
    crate::ocr::configure(env.settings);
    feed::settle_leftovers(env)?;
    let show = matches!(selection, Selection::Files(_));
    let files = feed::discover(env, selection)?;
    if files.is_empty() && !show {
        env.reporter
            .message(&feed::no_pdf_found(&env.paths.data_dir));
    }
    env.reporter.files_total(files.len() as u64);
    // A look at some files (`show`) keeps its outputs apart: the library's
    // latest run stays what `export`, `review` and `merge` read.
    let run_dir = match show {
        true => RunDir::create_show(&env.paths.cache_dir)?,
        false => RunDir::create(&env.paths.cache_dir)?,
    };
    let pruner = Pruner::start(&run_dir);
    let vision = documents::vision_pool(env);
    let ocr_slots = OcrSlots::new(env.opts.jobs);
    let deciders = documents::deciders(env)?;
    let ctx = documents::context(env, vision.as_ref(), &ocr_slots, &deciders);
    let online = lookups(env);
    let writer = writeback::Writer::new(env, &ctx, &run_dir)?;
    let stop = documents::Stop::default();
    let mut out = emit::Outputs::create(env, &run_dir, stdout)?;
    let mut summary = Summary::default();
    // The review page's thumbnails still to draw, drawn once the
    // documents are done (by the worker processes, now idle), when
    // `REVIEW_THUMBNAILS = "run"`; else `colophon review` draws them.
    let mut thumbs = Vec::new();
    std::thread::scope(|scope| -> Result<()> {
        // discover → fingerprint → record cache → inspect, OCR, vision,
        // extract, decide (document threads) → online lookups → here:
        // name, write, report, one document at a time.
        let (done_tx, done_rx) = crossbeam_channel::unbounded::<Done>();
        let hashes = feed::fingerprint(scope, &files, env);
        let jobs = feed::records(scope, &files, &ctx, env, hashes, done_tx.clone(), &pruner);
        let threads = threads(env);
        documents::start(scope, &ctx, &run_dir, &stop, jobs, done_tx, threads);
        let exports = emit::Exports::start(scope, &run_dir);
        for (doc, lookups) in look_up(scope, online.as_ref(), done_rx) {
            let file = &files[doc.index];
            let lookups = online.is_some().then_some(lookups.as_slice());
            let (record, outcome) = finish(env, &writer, &out, &doc, file, lookups);
            out.emit(&record)?;
            // The one place the run's counts change: each document's
            // outcome folded in, on this thread.
            summary += outcome;
            thumbs.extend(thumb_job(env, &record));
            if !exports.send(record) {
                break; // the writer failed: its error is returned below
            }
        }
        exports.finish()
    })?;
    crate::ocr::server::stop_idle();
    if !QUIT.load(Ordering::Relaxed) {
        crate::review::make_thumbnails(env.sessions, &env.paths.cache_dir, &thumbs, env.opts.jobs);
    }
    drop(thumbs);
    if let Some(hosts) = vision.as_ref().map(|pool| pool.host_counts())
        && hosts.iter().any(|h| h.sent > 0)
    {
        summary.vision_hosts = hosts;
    }
    let seconds = out.finish(&summary, started, stop.complete())?;
    let left = pruner.finish(&run_dir, started, QUIT.load(Ordering::Relaxed));
    emit::closing_lines(env, &summary, seconds, left, &run_dir);
    let status = stop.status(&summary, env.reporter);
    Ok((summary, status))
}

/// One finished document's last stages, on the calling thread: its record
/// (the catalogues' answers merged in when `lookups`), name and write; and
/// its outcome, the counts of every stage it went through, which the run
/// folds into its [`Summary`].
fn finish(
    env: &Env,
    writer: &writeback::Writer,
    out: &emit::Outputs,
    doc: &Done,
    file: &PdfFile,
    lookups: Option<&[crate::online::Lookup]>,
) -> (Record, Summary) {
    let settings = env.settings;
    let mut outcome = out.progress(doc, file);
    if let Some(lookups) = lookups {
        outcome += crate::online::counts(lookups);
    }
    let mut record = doc.record(file, settings, lookups);
    crate::name::propose(&mut record, settings);
    if let (true, Some(hash), Some(result)) = (settings.write_pdf_changes, doc.hash, doc.result()) {
        writer.write(file, hash, result, &mut record);
    }
    outcome += Summary::of_record(&record);
    (record, outcome)
}

/// The review page's thumbnails `record` still lacks, when
/// `REVIEW_THUMBNAILS = "run"` has the run draw them.
fn thumb_job(env: &Env, record: &Record) -> Option<crate::review::ThumbJob> {
    if env.settings.review_thumbnails != ReviewThumbnails::Run {
        return None;
    }
    let (cache_dir, data_dir) = (&env.paths.cache_dir, &env.paths.data_dir);
    let offset = env.settings.page_num_offset;
    crate::review::thumb_job(cache_dir, data_dir, record, offset).filter(|j| !j.missing.is_empty())
}

/// The online catalogues when `ONLINE_LOOKUP` is on, asked by the lookup
/// threads ([`look_up`]); off, nothing opens a connection.
fn lookups<'a>(env: &Env<'a>) -> Option<Online<'a>> {
    let online = env
        .settings
        .online_lookup
        .then(|| Online::new(env.settings, env.cache, env.reporter, &QUIT))?;
    online.announce();
    Some(online)
}

/// Finished documents with the catalogues' answers about their
/// identifiers: [`crate::online::LOOKUP_THREADS`] threads look documents
/// up concurrently (in completion order, so a slow answer delays only its
/// own document); without `online`, one thread passes documents on.
fn look_up<'s>(
    scope: &'s std::thread::Scope<'s, '_>,
    online: Option<&'s Online<'_>>,
    done: crossbeam_channel::Receiver<Done>,
) -> crossbeam_channel::Receiver<(Done, Vec<crate::online::Lookup>)> {
    let (tx, rx) = crossbeam_channel::unbounded();
    let threads = online.map_or(1, |_| crate::online::LOOKUP_THREADS);
    for _ in 0..threads {
        let (done, tx) = (done.clone(), tx.clone());
        scope.spawn(move || {
            for doc in done {
                let lookups = match (online, doc.result()) {
                    (Some(o), Some(result)) => o.lookups_for(result),
                    _ => Vec::new(),
                };
                if tx.send((doc, lookups)).is_err() {
                    break;
                }
            }
        });
    }
    rx
}

pub use crate::project::Paths;
pub use feed::data_folder;

/// What to process: the whole data folder, or the given files (`show`).
pub enum Selection {
    DataFolder,
    Files(Vec<PathBuf>),
}

/// What a run works with, borrowed for its whole length.
#[derive(Clone, Copy)]
pub struct Env<'a> {
    pub paths: &'a Paths,
    pub settings: &'a Settings,
    pub opts: &'a RunOptions,
    pub cache: &'a Cache,
    /// Where PDFs are read (the worker pool).
    pub sessions: &'a dyn SessionSource,
    pub reporter: &'a dyn Reporter,
}

/// How a document's record was obtained.
enum RecordOutcome {
    /// From the cache: nothing was read.
    Cached(DocResult),
    /// Read and decided now.
    Computed(DocResult),
    /// A broken PDF's failure, from the cache: not read again
    /// (`--retry-errors` reads it).
    CachedFailure(String),
    /// The file could not be read, now.
    Failed(String),
}

/// One document, done (or answered from the cache): what the calling
/// thread names, writes and reports.
struct Done {
    /// Its place in the run's file list.
    index: usize,
    /// The content hash, when the file could be read.
    hash: Option<DocHash>,
    outcome: RecordOutcome,
    /// What each stage did for it, counted into the run's summary.
    work: Vec<StageOutcome>,
}

impl Done {
    fn result(&self) -> Option<&DocResult> {
        match &self.outcome {
            RecordOutcome::Cached(r) | RecordOutcome::Computed(r) => Some(r),
            RecordOutcome::CachedFailure(_) | RecordOutcome::Failed(_) => None,
        }
    }

    fn cached(&self) -> bool {
        matches!(
            self.outcome,
            RecordOutcome::Cached(_) | RecordOutcome::CachedFailure(_)
        )
    }

    /// The SPEC 7 record, before the name stage, with the catalogues'
    /// answers merged in when `online`.
    fn record(
        &self,
        file: &PdfFile,
        settings: &Settings,
        online: Option<&[crate::online::Lookup]>,
    ) -> Record {
        let (path, hash_hex) = (
            crate::record::rel_string(&file.rel),
            self.hash.map(|h| h.hex()),
        );
        match &self.outcome {
            RecordOutcome::Cached(r) | RecordOutcome::Computed(r) => {
                let hash_hex = hash_hex.unwrap_or_default();
                match online {
                    Some(lookups) => crate::online::record(file, hash_hex, r, lookups, settings),
                    None => crate::record::record(file, hash_hex, r, settings),
                }
            }
            RecordOutcome::CachedFailure(e) | RecordOutcome::Failed(e) => {
                Record::error(path, hash_hex, e.clone())
            }
        }
    }
}

/// How many document threads: twice as many as workers, so that a
/// document's extraction (no pdfium) runs while the workers read the next
/// ones. With one spare thread only, two documents finishing their reading
/// together left a worker idle until one of them was extracted (measured:
/// 8% of the CPU idle in a cold run at --jobs 2, against 4% with two).
/// With vision, two more per vision caller, as those wait on the backend.
fn threads(env: &Env) -> usize {
    let vision = env.settings.analyze_with_vision;
    2 * env.opts.jobs.max(1)
        + if vision {
            2 * env.settings.vlm_concurrency
        } else {
            0
        }
}
