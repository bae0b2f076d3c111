//! The whole run in one place (SPEC 5): discover → fingerprint → per
//! document (record cache, or inspect/OCR/vision/extract/decide in a pool
//! of document threads) → name → write → report.
//!
//! Threads: rayon for hashing, each fingerprint sent on as it is done; a
//! feeder thread that answers cached records at once and queues the rest;
//! `2 x --jobs` plain document threads that each run one document at a
//! time (holding a pdfium worker process only while they read it, so some
//! extract while the workers read); a thread compiling the finders'
//! patterns when the first document is sent for reading; a low-priority
//! thread deleting old run folders while documents are computed; the
//! calling thread alone
//! writes outputs, so records stream to disk in completion order and
//! memory does not grow with the library.

use crate::cache::{Cache, Tree, keys};
use crate::cli::{CacheAction, Cli, Command, RunOptions};
use crate::document::{self, Context, SessionSource};
use crate::model::{DocHash, DocResult, PdfFile, Record};
use crate::progress::Reporter;
use crate::report::{self, RecordsFile, RunDir, Summary};
use crate::settings::Settings;
use crate::{discover, fingerprint};
use anyhow::{Context as _, Result};
use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// How a command ended; `main` maps it to the process exit code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitStatus {
    /// Every PDF processed (0).
    Success,
    /// Some PDFs had errors; the rest were processed (1).
    SomeFailed,
    /// Bad usage or settings; nothing processed (2).
    BadUsage,
    /// A part of the installation is missing or broken (pdfium, Tesseract,
    /// the worker executable): every document would fail the same way, so
    /// the run stopped (2, as documented for errors that are not a PDF's).
    Installation,
    /// Ctrl-C (130).
    Interrupted,
}

impl ExitStatus {
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::SomeFailed => 1,
            ExitStatus::BadUsage | ExitStatus::Installation => 2,
            ExitStatus::Interrupted => 130,
        }
    }
}

/// Set by Ctrl-C: no new document is started, finished ones are reported,
/// the cache is flushed.
pub static QUIT: AtomicBool = AtomicBool::new(false);

/// An error of the installation rather than of one PDF (pdfium or
/// Tesseract missing, a worker that cannot start): every document would
/// fail the same way, so the run stops with [`ExitStatus::Installation`]
/// and this message, once.
fn installation_error(e: &anyhow::Error) -> bool {
    use crate::inspect::PdfError;
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
    use crate::inspect::PdfError;
    e.chain().any(|cause| {
        matches!(
            cause.downcast_ref::<PdfError>(),
            Some(PdfError::Encrypted | PdfError::Malformed(_) | PdfError::PageTooLarge { .. })
        )
    })
}

/// Where a run reads and writes.
#[derive(Debug, Clone)]
pub struct Paths {
    pub data_dir: PathBuf,
    pub cache_dir: PathBuf,
}

/// What to process: the whole data folder, or the given files (`show`).
pub enum Selection {
    DataFolder,
    Files(Vec<PathBuf>),
}

/// Versions of every stage, for the cache keys.
pub fn stage_versions() -> keys::StageVersions {
    keys::StageVersions {
        inspect: crate::inspect::INSPECT_VERSION,
        ocr: crate::ocr::OCR_VERSION,
        extract: crate::extract::EXTRACT_VERSION,
        decide: crate::decide::DECIDE_VERSION,
        vision_prompt: crate::vision::PROMPT_VERSION,
    }
}

/// Runs one command of the command line.
pub fn main(cli: Cli) -> Result<ExitStatus> {
    let command = cli.command_or_run();
    if command == Command::Worker {
        crate::inspect::worker::serve_stdio()?;
        return Ok(ExitStatus::Success);
    }
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let (project, settings, provenance) = crate::project::load(&cli, &cwd)?;
    let opts = RunOptions::from_cli(&cli);
    let paths = Paths {
        data_dir: project.data_dir.clone(),
        cache_dir: project.cache_dir.clone(),
    };
    match command {
        Command::Worker => unreachable!("handled above"),
        Command::Config => {
            print!("{}", settings.describe(&provenance));
            Ok(ExitStatus::Success)
        }
        Command::Cache {
            action: CacheAction::Clear { online: true },
        } => {
            let Some(cache) = open_cache(&paths.cache_dir) else {
                return Ok(ExitStatus::BadUsage);
            };
            let n = cache
                .clear_tree(Tree::Online)
                .context("clearing the online answers")?;
            println!("cleared {n} online catalogue answers (everything else kept)");
            Ok(ExitStatus::Success)
        }
        Command::Lookup { ids } => {
            let Some(cache) = open_cache(&paths.cache_dir) else {
                return Ok(ExitStatus::BadUsage);
            };
            let reporter = crate::progress::reporter(opts.quiet);
            let online = crate::online::Online::new(&settings, &cache, reporter.as_ref(), &QUIT);
            online.announce();
            match crate::online::lookup_ids(&online, &ids) {
                Err(e) => {
                    eprintln!("colophon: {e}");
                    Ok(ExitStatus::BadUsage)
                }
                Ok(answers) => {
                    for a in &answers {
                        if opts.json {
                            println!("{}", serde_json::to_string(a)?);
                        } else {
                            print!("{}", a.text());
                        }
                    }
                    Ok(if answers.iter().any(|a| a.result == "failed") {
                        ExitStatus::SomeFailed
                    } else {
                        ExitStatus::Success
                    })
                }
            }
        }
        Command::Cache {
            action: CacheAction::Clear { online: false },
        } => {
            crate::cache::clear(&paths.cache_dir)?;
            println!(
                "cleared {} and {} (write journals kept for undo)",
                paths.cache_dir.join("db").display(),
                paths.cache_dir.join("pages").display()
            );
            Ok(ExitStatus::Success)
        }
        Command::Cache {
            action: CacheAction::Prune,
        } => {
            let old = report::runs_beyond(&paths.cache_dir.join("runs"), report::KEEP_RUNS);
            let gone = old
                .iter()
                .filter(|dir| report::remove_tree_until(dir, &|| false))
                .count();
            println!(
                "deleted {gone} old run folder(s); the {} newest runs are kept",
                report::KEEP_RUNS
            );
            Ok(if gone == old.len() {
                ExitStatus::Success
            } else {
                ExitStatus::SomeFailed
            })
        }
        Command::Cache {
            action: CacheAction::Stats,
        } => {
            let Some(cache) = open_cache(&paths.cache_dir) else {
                return Ok(ExitStatus::BadUsage);
            };
            let stats = cache.stats();
            for t in &stats {
                println!(
                    "{:<8} {:>9} entries {:>12} bytes",
                    t.name, t.entries, t.bytes
                );
            }
            println!("on disk  {:>31} bytes", cache.size_on_disk(&stats));
            println!("{}", crate::online::cache_line(&cache));
            Ok(ExitStatus::Success)
        }
        Command::Undo { run_id } => {
            let Some(_lock) = lock_project(&project) else {
                return Ok(ExitStatus::BadUsage);
            };
            let report = crate::write::undo(&paths.cache_dir, run_id.as_deref())?;
            for w in &report.warnings {
                eprintln!("colophon: warning: {w}");
            }
            match &report.run_id {
                None => println!("nothing to undo"),
                Some(id) => {
                    for (from, to) in &report.restored {
                        println!("{}  →  {}", from.display(), to.display());
                    }
                    println!("undid {} writes of run {id}", report.restored.len());
                }
            }
            // Whatever stays in effect is named, and the undo is not a success.
            for p in &report.problems {
                eprintln!("colophon: not undone: {p}");
            }
            if report.problems.is_empty() {
                Ok(ExitStatus::Success)
            } else {
                eprintln!(
                    "colophon: {} write(s) could not be undone (listed above); the rest were",
                    report.problems.len()
                );
                Ok(ExitStatus::SomeFailed)
            }
        }
        Command::VlmCheck => vlm_check(&settings),
        Command::Export {
            run_id,
            format,
            output,
            include_unsure,
        } => {
            let req = crate::export::Request {
                run_id,
                format,
                output,
                include_unsure,
            };
            crate::export::command(&paths.cache_dir, &paths.data_dir, &settings, &req)?;
            Ok(ExitStatus::Success)
        }
        Command::Review { run_id, no_open } => {
            crate::review::command(
                &paths.cache_dir,
                &paths.data_dir,
                settings.page_num_offset,
                run_id.as_deref(),
                !no_open,
            )?;
            Ok(ExitStatus::Success)
        }
        Command::Run | Command::Show { .. } => {
            if !paths.data_dir.exists() && matches!(command, Command::Run) {
                eprintln!(
                    "colophon: there is no data folder at {} (put your PDFs there, or make it a symlink to your library)",
                    paths.data_dir.display()
                );
                return Ok(ExitStatus::BadUsage);
            }
            // Held for the whole run: the cleanup below may then delete
            // every leftover it finds.
            let Some(_lock) = lock_project(&project) else {
                return Ok(ExitStatus::BadUsage);
            };
            let Some(cache) = open_cache(&paths.cache_dir) else {
                return Ok(ExitStatus::BadUsage);
            };
            if let Some(file) = &opts.approved {
                match crate::review::approvals::Approvals::load(file) {
                    Err(e) => {
                        eprintln!("colophon: {e:#}");
                        return Ok(ExitStatus::BadUsage);
                    }
                    Ok(_) if !settings.write_pdf_changes => eprintln!(
                        "colophon: --approved applies to writes; this is a dry run (add --write)"
                    ),
                    Ok(_) => {}
                }
            }
            install_ctrl_c();
            let selection = match command {
                Command::Show { files } => Selection::Files(files),
                _ => Selection::DataFolder,
            };
            let pool = crate::inspect::WorkerPool::new(crate::inspect::PoolConfig::from_settings(
                &settings, opts.jobs,
            ));
            let reporter = crate::progress::reporter(opts.quiet);
            if let (_, Some(notice)) = crate::cli::jobs(cli.flags.jobs, crate::cli::cpus()) {
                reporter.message(&notice);
            }
            let stdout = std::io::stdout();
            let mut out = std::io::BufWriter::new(stdout.lock());
            let env = Env {
                paths: &paths,
                settings: &settings,
                opts: &opts,
                cache: &cache,
                sessions: &pool,
                reporter: reporter.as_ref(),
            };
            let (_, status) = run(&env, selection, &mut out)?;
            let _ = out.flush();
            Ok(status)
        }
    }
}

/// `colophon vlm-check`: is the backend up and the model there?
fn vlm_check(settings: &Settings) -> Result<ExitStatus> {
    let check = crate::vision::vlm_check(settings);
    println!("{}", check.message);
    Ok(if check.ok() {
        ExitStatus::Success
    } else {
        ExitStatus::SomeFailed
    })
}

/// Takes the project lock, or says why not (exit 2: nothing was processed).
fn lock_project(project: &crate::project::Project) -> Option<crate::project::ProjectLock> {
    match project.lock() {
        Ok(l) => Some(l),
        Err(e) => {
            eprintln!("colophon: {e}");
            None
        }
    }
}

/// Opens the cache, or says why not (exit 2: nothing was processed). A
/// store that cannot be opened because it is damaged is moved aside with a
/// warning and a new one is started: it only holds what can be recomputed.
fn open_cache(dir: &Path) -> Option<Cache> {
    match Cache::open(dir) {
        Ok(c) => Some(c),
        Err(crate::cache::CacheError::Open { path, source }) => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let aside = path.with_file_name(format!("db.damaged-{secs}"));
            if let Err(e) = std::fs::rename(&path, &aside) {
                eprintln!(
                    "colophon: cannot open the cache {} ({source}) nor move it aside ({e})",
                    path.display()
                );
                return None;
            }
            eprintln!(
                "colophon: warning: the cache {} was damaged ({source}); moved to {} and started afresh",
                path.display(),
                aside.display()
            );
            Cache::open(dir)
                .map_err(|e| eprintln!("colophon: {e}"))
                .ok()
        }
        Err(e) => {
            eprintln!("colophon: {e}");
            None
        }
    }
}

/// First Ctrl-C: finish the documents in progress, report, flush the cache.
/// Second: stop at once.
fn install_ctrl_c() {
    let _ = ctrlc::set_handler(|| {
        if QUIT.swap(true, Ordering::SeqCst) {
            std::process::exit(ExitStatus::Interrupted.code());
        }
        eprintln!("colophon: stopping after the documents in progress (Ctrl-C again to stop now)");
    });
}

/// A file's fingerprint, or why it has none.
type HashResult = Result<(DocHash, fingerprint::HashOutcome)>;

/// A document finished by a document thread (or answered from the cache).
struct Done {
    index: usize,
    /// The content hash, when the file could be read.
    hash: Option<DocHash>,
    outcome: Result<DocResult, String>,
    cached: bool,
    summary: Summary,
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

/// Runs the pipeline and reports every record. Returns the summary and
/// the exit status.
pub fn run(
    env: &Env,
    selection: Selection,
    stdout: &mut dyn Write,
) -> Result<(Summary, ExitStatus)> {
    let Env {
        paths,
        settings,
        opts: cfg,
        cache,
        sessions,
        reporter,
    } = *env;
    let started = Instant::now();
    // Before discover sees them: in write mode, settle writes a kill
    // interrupted; in any run, delete colophon's own stale temporary files
    // (the caller holds the project lock, so none belongs to a live
    // process). A dry run settles nothing: that would change the library.
    let cleanup = if settings.write_pdf_changes {
        crate::write::cleanup_leftovers(&paths.data_dir, &paths.cache_dir, settings)?
    } else {
        crate::write::remove_stale_temps(&paths.data_dir, settings)
    };
    for p in cleanup.completed.iter().chain(&cleanup.abandoned) {
        reporter.message(&format!("settled an interrupted write of {}", p.display()));
    }
    for w in cleanup.warnings.iter().chain(&cleanup.problems) {
        reporter.message(&format!("colophon: warning: {w}"));
    }
    let files = match selection {
        Selection::DataFolder => {
            discover::discover(&paths.data_dir, &settings.runtime_ignore_dir_name)?
        }
        Selection::Files(list) => {
            given_files(&paths.data_dir, &list, &settings.runtime_ignore_dir_name)?
        }
    };
    reporter.files_total(files.len() as u64);
    let run_dir = RunDir::create(&paths.cache_dir)?;
    // Outputs of old runs go while this run computes documents, and only
    // then: deleting the hundreds of thousands of small files a large
    // library's runs leave competes with writing this run's, and a warm
    // rerun (nothing computed) must stay instant. The thread waits for the
    // first document sent to the workers; the end of the run deletes the
    // oldest surplus folder within a time budget (below), and `colophon
    // cache prune` all of them at once.
    let prune_stop = std::sync::Arc::new(AtomicBool::new(false));
    let (prune_go, prune_wait) = crossbeam_channel::bounded::<()>(1);
    let pruning = {
        let old = run_dir.older_runs(report::KEEP_RUNS);
        let stop = prune_stop.clone();
        std::thread::spawn(move || {
            if old.is_empty() || prune_wait.recv().is_err() {
                return;
            }
            // The lowest CPU priority: the run's own work goes first.
            // SAFETY: setpriority on this thread's id changes nothing else.
            unsafe {
                let tid = libc::gettid() as libc::id_t;
                libc::setpriority(libc::PRIO_PROCESS, tid, 19);
            }
            for dir in old {
                if !report::remove_tree_until(&dir, &|| stop.load(Ordering::Relaxed)) {
                    break;
                }
            }
        })
    };
    let mut records = RecordsFile::create(&run_dir)?;
    let mut summary = Summary::default();
    let approvals = match &cfg.approved {
        Some(file) => Some(crate::review::approvals::Approvals::load(file)?),
        None => None,
    };

    let versions = stage_versions();
    let vision_pool: Option<crate::vision::VisionPool<document::VisionTag>> =
        settings.analyze_with_vision.then(|| {
            let store = document::SledAnswers(cache.tree_handle(Tree::Vision));
            crate::vision::VisionPool::from_settings(settings, std::sync::Arc::new(store))
        });
    let vision_done = AtomicBool::new(false);
    // Online lookups (ONLINE_LOOKUP): made by this thread as records are
    // reported; off, nothing here opens a connection.
    let online = settings
        .online_lookup
        .then(|| crate::online::Online::new(settings, cache, reporter, &QUIT));
    if let Some(o) = &online {
        o.announce();
    }
    let ocr_slots = document::OcrSlots::new(cfg.jobs);
    let ctx = Context {
        ocr_slots: &ocr_slots,
        vision: vision_pool.as_ref(),
        settings,
        cache,
        sessions,
        versions,
    };
    // Twice as many threads as workers: a document's extraction (no
    // pdfium) runs while the workers read the next ones. With one spare
    // thread only, two documents finishing their reading together left a
    // worker idle until one of them was extracted (measured: 8% of the CPU
    // idle in a cold run at --jobs 2, against 4% with two).
    let doc_threads = 2 * cfg.jobs.max(1)
        + if settings.analyze_with_vision {
            2 * settings.vlm_concurrency
        } else {
            0
        };

    let fatal = AtomicBool::new(false);
    let fatal_msg = std::sync::Mutex::new(String::new());
    let (job_tx, job_rx) = crossbeam_channel::bounded::<(usize, DocHash, Summary)>(doc_threads * 2);
    let (done_tx, done_rx) = crossbeam_channel::unbounded::<Done>();

    std::thread::scope(|scope| -> Result<()> {
        // Fingerprints stream out of rayon's pool in completion order, so
        // that documents start while the rest of the library is hashed.
        let (hash_tx, hash_rx) = crossbeam_channel::bounded::<(usize, HashResult)>(256);
        {
            let (files, cache, rehash) = (&files, cache, cfg.rehash);
            scope.spawn(move || {
                use rayon::prelude::*;
                // Stops early once the feeder is gone (Ctrl-C, fatal error).
                let _ = files
                    .par_iter()
                    .enumerate()
                    .try_for_each_with(hash_tx, |tx, (i, f)| {
                        // A FIFO or a device is never opened (it may block
                        // or never end): its record says what it is.
                        let hash = match discover::not_a_regular_file(&f.path) {
                            Some(why) => Err(anyhow::anyhow!(why)),
                            None => fingerprint::fingerprint_one(&f.path, cache, rehash),
                        };
                        tx.send((i, hash))
                    });
            });
        }
        // The finders' patterns compile while the first documents are read.
        let (warm_go, warm_wait) = crossbeam_channel::bounded::<()>(1);
        scope.spawn(move || {
            if warm_wait.recv().is_ok() {
                crate::extract::warm_up();
            }
        });
        // Feeder: cached records go straight to the reporter; the rest are queued.
        {
            let done_tx = done_tx.clone();
            let (files, ctx, retry_errors) = (&files, &ctx, cfg.retry_errors);
            scope.spawn(move || {
                for (index, hash) in hash_rx {
                    let file = &files[index];
                    let mut counted = Summary::default();
                    match &hash {
                        Ok((_, fingerprint::HashOutcome::Memo)) => counted.hash_memo += 1,
                        Ok((_, fingerprint::HashOutcome::Hashed)) => counted.hash_computed += 1,
                        Err(_) => {}
                    }
                    // (outcome, from the cache)
                    let early = match &hash {
                        Err(e) => Some((Err(format!("{e:#}")), false)),
                        Ok(_) if !file.has_pdf_header => Some((
                            Err("not a PDF: no %PDF- header in the first 1024 bytes".to_string()),
                            false,
                        )),
                        Ok((h, _)) => {
                            let key = keys::record_key(h, ctx.settings, &ctx.versions);
                            let failed = || {
                                let key = keys::failure_key(&key, env!("CARGO_PKG_VERSION"));
                                ctx.cache.get::<String>(Tree::Record, &key).map(Err)
                            };
                            ctx.cache
                                .get::<DocResult>(Tree::Record, &key)
                                .map(Ok)
                                .or_else(|| if retry_errors { None } else { failed() })
                                .map(|outcome| (outcome, true))
                        }
                    };
                    let doc_hash = hash.as_ref().ok().map(|(h, _)| *h);
                    let sent = match early {
                        Some((outcome, cached)) => done_tx
                            .send(Done {
                                index,
                                hash: doc_hash,
                                outcome,
                                cached,
                                summary: counted,
                            })
                            .is_ok(),
                        None if QUIT.load(Ordering::Relaxed) => false,
                        None => {
                            let _ = prune_go.try_send(());
                            let _ = warm_go.try_send(());
                            job_tx
                                .send((index, doc_hash.expect("checked"), counted))
                                .is_ok()
                        }
                    };
                    if !sent {
                        break;
                    }
                }
                // dropping job_tx ends the document threads
            });
        }
        for _ in 0..doc_threads {
            let (job_rx, done_tx, ctx, files, run_dir) =
                (job_rx.clone(), done_tx.clone(), &ctx, &files, &run_dir);
            let (fatal, fatal_msg) = (&fatal, &fatal_msg);
            scope.spawn(move || {
                for (index, hash, counted) in job_rx {
                    if QUIT.load(Ordering::Relaxed) || fatal.load(Ordering::Relaxed) {
                        continue; // drain without work
                    }
                    let file = &files[index];
                    let mut summary = counted;
                    let diag = run_dir.diagnostics_dir(&file.rel);
                    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        document::process(ctx, &file.path, &hash, Some(&diag), &mut summary)
                    }));
                    let outcome = match outcome {
                        Ok(Ok(result)) => {
                            // Failed results are not stored: a page whose
                            // vision call failed is asked again next run.
                            if result.vision.failed.is_empty() {
                                let key = keys::record_key(&hash, ctx.settings, &ctx.versions);
                                ctx.cache.put(Tree::Record, &key, &result);
                            }
                            Ok(result)
                        }
                        Ok(Err(e)) => {
                            if content_failure(&e) {
                                let key = keys::record_key(&hash, ctx.settings, &ctx.versions);
                                let key = keys::failure_key(&key, env!("CARGO_PKG_VERSION"));
                                ctx.cache.put(Tree::Record, &key, &format!("{e:#}"));
                            }
                            if installation_error(&e) && !fatal.swap(true, Ordering::SeqCst) {
                                *fatal_msg.lock().unwrap_or_else(|p| p.into_inner()) =
                                    format!("{e:#}");
                            }
                            Err(format!("{e:#}"))
                        }
                        Err(panic) => Err(format!(
                            "internal error while reading this PDF: {}",
                            panic_text(&panic)
                        )),
                    };
                    if done_tx
                        .send(Done {
                            index,
                            hash: Some(hash),
                            outcome,
                            cached: false,
                            summary,
                        })
                        .is_err()
                    {
                        break;
                    }
                }
            });
        }
        // Vision router: answers go back to the document that asked.
        if let Some(pool) = &vision_pool {
            let vision_done = &vision_done;
            scope.spawn(move || {
                loop {
                    match pool
                        .results()
                        .recv_timeout(std::time::Duration::from_millis(100))
                    {
                        Ok(r) => {
                            if let Some(msg) = &r.switched_off {
                                reporter.message(&format!("colophon: {msg}"));
                            }
                            let (page, tx) = r.tag;
                            let routed = crate::vision::VisionResult {
                                tag: (),
                                key: r.key,
                                outcome: r.outcome,
                                diagnostics: r.diagnostics,
                                switched_off: r.switched_off,
                            };
                            let _ = tx.send((page, routed));
                        }
                        Err(crossbeam_channel::RecvTimeoutError::Timeout) => {
                            if vision_done.load(Ordering::Relaxed) {
                                break;
                            }
                        }
                        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => break,
                    }
                }
            });
        }
        drop(done_tx);
        drop(job_rx);

        // Annotation exports are written by a thread of their own: creating
        // two small files per record is most of a warm run's time (kernel
        // time), and reporting need not wait for it. The channel is bounded
        // so that records do not pile up in memory when the disk is slow.
        let (ann_tx, ann_rx) = crossbeam_channel::bounded::<Record>(256);
        let previous_ann = run_dir.previous().map(|p| p.ann_dir());
        let ann_writers: Vec<_> = (0..ANN_WRITERS)
            .map(|_| {
                let (ann_dir, ann_rx) = (run_dir.ann_dir(), ann_rx.clone());
                let previous = previous_ann.clone();
                scope.spawn(move || write_exports(&ann_dir, previous.as_deref(), ann_rx))
            })
            .collect();
        drop(ann_rx);

        // The calling thread reports, in completion order.
        for done in done_rx {
            let file = &files[done.index];
            let hash_hex = done.hash.map(|h| h.hex());
            reporter.pages_done(done.summary.pages_read + done.summary.ocr_pages);
            if cfg.verbose > 0 && done.outcome.is_ok() {
                let path = report::rel_string(&file.rel);
                reporter.message(&done.summary.document_line(&path, done.cached));
                if let (true, Ok(result)) = (cfg.verbose > 1, &done.outcome) {
                    for line in crate::decide::explain::top_lines(&result.decision, 3) {
                        reporter.message(&line);
                    }
                    // A computed document wrote its own; with -vv a cached
                    // one explains itself too.
                    if done.cached {
                        crate::decide::explain::write_candidates(
                            &run_dir.diagnostics_dir(&file.rel),
                            &result.decision,
                            settings.page_num_offset,
                        );
                    }
                }
            }
            summary += done.summary;
            let mut record = match &done.outcome {
                Ok(result) => {
                    if done.cached {
                        summary.record_cached += 1;
                    } else {
                        summary.record_computed += 1;
                    }
                    let hash_hex = hash_hex.unwrap_or_default();
                    match &online {
                        Some(o) => o.record(file, hash_hex, result, settings, &mut summary),
                        None => report::record(file, hash_hex, result, settings),
                    }
                }
                Err(e) => {
                    if done.cached {
                        // A broken PDF's failure, from the cache: not read again.
                        summary.record_cached += 1;
                        if cfg.verbose > 0 {
                            reporter.message(&format!(
                                "{}: failure from the cache (--retry-errors reads it again)",
                                report::rel_string(&file.rel)
                            ));
                        }
                    }
                    Record::error(report::rel_string(&file.rel), hash_hex, e.clone())
                }
            };
            if let (true, Ok(result), Some(hash)) =
                (settings.write_pdf_changes, &done.outcome, done.hash)
            {
                match &approvals {
                    Some(a) if !a.allows(&record) => {
                        if record.status == crate::model::Status::Complete {
                            record.warnings.push(a.refusal());
                        }
                    }
                    _ => write_one(file, hash, result, &mut record, env, &run_dir),
                }
            }
            emit(&record, cfg, &mut records, stdout)?;
            summary.count(&record);
            reporter.file_done();
            if ann_tx.send(record).is_err() {
                break; // the writer failed: its error is returned below
            }
        }
        drop(ann_tx);
        for w in ann_writers {
            w.join()
                .unwrap_or_else(|p| Err(anyhow::anyhow!("{}", panic_text(&p))))?;
        }
        // Every document thread is done: no more vision answers to route.
        vision_done.store(true, Ordering::Relaxed);
        Ok(())
    })?;

    records.finish()?;
    if let Err(e) = crate::review::write_page(&run_dir.path, settings.page_num_offset) {
        reporter.message(&format!("colophon: warning: no review page: {e:#}"));
    }
    reporter.finish();
    cache.flush();
    let seconds = started.elapsed().as_secs_f64();
    let dry_run = !settings.write_pdf_changes;
    std::fs::write(
        run_dir.path.join("summary.md"),
        summary.markdown(&run_dir.id, seconds, dry_run),
    )
    .context("writing summary.md")?;
    run_dir.mark_latest()?;
    prune_stop.store(true, Ordering::Relaxed);
    let _ = pruning.join();
    // Every run leaves a folder, and a rerun that computes nothing gives
    // the thread above no time: the oldest surplus folder is deleted here,
    // within half of this run's time (at least 0.2 s), which keeps their
    // number at KEEP_RUNS + 1 once runs share unchanged exports by hard
    // links (deleting a 10,000-PDF run's folder then takes 0.13 s); older
    // folders of real files go over several runs.
    let mut old = run_dir.older_runs(report::KEEP_RUNS);
    if !old.is_empty() && !QUIT.load(Ordering::Relaxed) {
        let budget = started
            .elapsed()
            .div_f64(2.0)
            .max(Duration::from_millis(200));
        let deadline = Instant::now() + budget;
        if report::remove_tree_until(&old[0], &|| Instant::now() >= deadline) {
            old.remove(0);
        }
    }
    let left = old.len();
    if left >= report::KEEP_RUNS {
        reporter.message(&format!(
            "colophon: {left} old run folders under {}; `colophon cache prune` deletes them",
            run_dir
                .path
                .parent()
                .map(|p| p.display().to_string())
                .unwrap_or_default()
        ));
    }
    if cfg.verbose > 0 {
        reporter.message(&summary.counts());
    }
    reporter.message(&summary.line(seconds));
    if fatal.load(Ordering::Relaxed) {
        reporter.error(&format!(
            "colophon: stopped: {}",
            fatal_msg.lock().unwrap_or_else(|p| p.into_inner())
        ));
        return Ok((summary, ExitStatus::Installation));
    }
    let status = if QUIT.load(Ordering::Relaxed) {
        ExitStatus::Interrupted
    } else if summary.errors > 0 || summary.write_failed > 0 {
        ExitStatus::SomeFailed
    } else {
        ExitStatus::Success
    };
    Ok((summary, status))
}

/// Write mode for one record: metadata and name, with the outcome in the
/// record (`written`, or a warning saying why not).
///
/// After a write, the new file's hash, record and "already written" mark
/// go into the cache, so the next run over the written library is as warm
/// as a dry rerun: no re-hash, no re-read, and no re-parse of the PDF to
/// find that nothing is left to do.
fn write_one(
    file: &PdfFile,
    hash: DocHash,
    result: &DocResult,
    record: &mut Record,
    env: &Env,
    run_dir: &RunDir,
) {
    use crate::write::{WriteJob, WriteOutcome};
    let (settings, cache) = (env.settings, env.cache);
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
        settings,
        cache_dir: &env.paths.cache_dir,
        run_id: &run_dir.id,
    };
    match crate::write::apply(&job) {
        Ok(WriteOutcome::Written(w)) => {
            record.written = true;
            record.warnings.extend(w.warnings);
            if let Ok(meta) = std::fs::metadata(&w.new_path) {
                let mtime_ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
                cache.put(
                    Tree::Memo,
                    &keys::memo_key(meta.dev(), meta.ino(), meta.size(), mtime_ns),
                    &w.new_hash,
                );
            }
            cache.put(
                Tree::Record,
                &keys::record_key(&w.new_hash, settings, &stage_versions()),
                result,
            );
            cache.put(Tree::Written, &done(&w.new_hash, &w.new_path), &true);
        }
        Ok(WriteOutcome::Unchanged { path, .. }) => {
            cache.put(Tree::Written, &done(&hash, &path), &true)
        }
        Ok(WriteOutcome::Skipped(reason)) => {
            if !matches!(reason, crate::write::SkipReason::Incomplete) {
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

/// Threads writing annotation exports. File creation is kernel work that
/// runs in parallel (two were measurably faster than one on two cores).
const ANN_WRITERS: usize = 2;

/// Writes the run's annotation exports (`cache/runs/<id>/ann/`, mirroring
/// the data tree) of every record received, until the channel closes.
/// An export identical to the previous run's (`previous`, that run's
/// `ann/`) is hard-linked to it rather than written again.
fn write_exports(
    ann_dir: &Path,
    previous: Option<&Path>,
    records: crossbeam_channel::Receiver<Record>,
) -> Result<()> {
    // Records of one folder mostly come in a row: create each folder once
    // rather than asking the file system again for every record.
    let mut made: Option<PathBuf> = None;
    for record in records {
        let ann_base = ann_dir.join(&record.path);
        let dir = ann_base.parent().unwrap_or(Path::new("."));
        if made.as_deref() != Some(dir) {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            made = Some(dir.to_path_buf());
        }
        let stem = ann_base.file_stem().unwrap_or_default().to_string_lossy();
        // The run's own copies need no fsync (unlike the exports beside a
        // written PDF): losing them in a crash loses nothing of the user's.
        let (md, json) = crate::write::annotation_paths(dir, &stem);
        let earlier = |p: &Path| Some(previous?.join(p.strip_prefix(ann_dir).ok()?));
        for (path, content) in [
            (&md, crate::write::render_markdown(&record)),
            (&json, crate::write::render_json(&record)),
        ] {
            crate::write::write_or_link(path, content.as_bytes(), earlier(path).as_deref())
                .with_context(|| format!("writing {}", path.display()))?;
        }
    }
    Ok(())
}

/// Prints one record and adds it to `records.jsonl`.
fn emit(
    record: &Record,
    cfg: &RunOptions,
    records: &mut RecordsFile,
    stdout: &mut dyn Write,
) -> Result<()> {
    records.push(record)?;
    let line = if cfg.json {
        serde_json::to_string(record)?
    } else {
        report::table_row(record)
    };
    if let Err(e) = writeln!(stdout, "{line}") {
        // A closed pipe (`colophon | head`) is not an error of the run.
        if e.kind() != std::io::ErrorKind::BrokenPipe {
            return Err(e.into());
        }
    }
    Ok(())
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

fn panic_text(panic: &Box<dyn std::any::Any + Send>) -> String {
    panic
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "panic".to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(path: &str) -> Record {
        Record::error(path.to_string(), None, format!("test record of {path}"))
    }

    #[test]
    fn exports_mirror_the_data_tree_from_several_writers() {
        let t = tempfile::tempdir().unwrap();
        let ann = t.path().join("ann");
        let paths = ["a/b.pdf", "a/c.pdf", "d.pdf", "e/f/g.PDF"];
        let (tx, rx) = crossbeam_channel::bounded::<Record>(1);
        std::thread::scope(|s| {
            let writers: Vec<_> = (0..ANN_WRITERS)
                .map(|_| {
                    let (ann, rx) = (&ann, rx.clone());
                    s.spawn(move || write_exports(ann, None, rx))
                })
                .collect();
            for p in paths {
                tx.send(record(p)).unwrap();
            }
            drop(tx);
            for w in writers {
                w.join().unwrap().unwrap();
            }
        });
        for (p, stem) in paths.iter().zip(["a/b", "a/c", "d", "e/f/g"]) {
            let json = std::fs::read_to_string(ann.join(format!("{stem}--ann.json"))).unwrap();
            let back: Record = serde_json::from_str(&json).unwrap();
            assert_eq!(back, record(p));
            let md = std::fs::read_to_string(ann.join(format!("{stem}--ann.md"))).unwrap();
            assert!(md.contains(&format!("test record of {p}")), "{md}");
        }
    }

    #[test]
    fn an_export_that_cannot_be_written_is_an_error() {
        let t = tempfile::tempdir().unwrap();
        // A file where the folder of the exports should be.
        let ann = t.path().join("ann");
        std::fs::write(&ann, b"in the way").unwrap();
        let (tx, rx) = crossbeam_channel::bounded::<Record>(1);
        tx.send(record("x/y.pdf")).unwrap();
        drop(tx);
        let err = write_exports(&ann, None, rx).unwrap_err();
        assert!(format!("{err:#}").contains("creating"), "{err:#}");
    }
}
