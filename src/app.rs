//! The commands (SPEC 10): each is dispatched here; `run` and `show` go
//! through the pipeline in [`crate::run`]. Also what every command shares:
//! the exit status, the project lock, opening the cache, Ctrl-C.

use crate::cache::{Cache, Tree};
use crate::cli::{CacheAction, Cli, Command, RunOptions};
use crate::progress::Reporter;
use crate::run::{Env, Paths, Selection};
use crate::settings::Settings;
use anyhow::{Context as _, Result};
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

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
    /// SIGTERM, a scheduler stopping the task (143, as a shell reports a
    /// process killed by it): the finished documents are kept (records,
    /// cache closed cleanly), the ones in progress were abandoned, and a
    /// rerun resumes. The job files in docs/cluster have the engine retry
    /// it.
    Terminated,
}

impl ExitStatus {
    pub fn code(self) -> i32 {
        match self {
            ExitStatus::Success => 0,
            ExitStatus::SomeFailed => 1,
            ExitStatus::BadUsage | ExitStatus::Installation => 2,
            ExitStatus::Interrupted => 130,
            ExitStatus::Terminated => 143,
        }
    }
}

/// Set by Ctrl-C: no new document is started, finished ones are reported,
/// the cache is flushed.
pub static QUIT: AtomicBool = AtomicBool::new(false);

/// Set by SIGTERM (with [`QUIT`]): the documents in progress are abandoned
/// rather than finished, since a scheduler's SIGKILL follows within its
/// grace period (Slurm's KillWait, Kubernetes'
/// terminationGracePeriodSeconds: 30 s by default). See [`install_sigterm`].
pub static TERMINATED: AtomicBool = AtomicBool::new(false);

/// Runs one command of the command line.
pub fn main(cli: Cli) -> Result<ExitStatus> {
    crate::run::fix_mmap_threshold();
    let command = cli.command_or_run();
    if command == Command::Worker {
        crate::inspect::worker::serve_stdio()?;
        return Ok(ExitStatus::Success);
    }
    if command == Command::OcrServer {
        crate::ocr::server::serve_stdio()?;
        return Ok(ExitStatus::Success);
    }
    let cwd = std::env::current_dir().context("reading the current directory")?;
    let (project, settings, provenance) = crate::project::load(&cli, &cwd)?;
    let mut opts = RunOptions::from_cli(&cli);
    let mut paths = Paths {
        data_dir: project.data_dir.clone(),
        cache_dir: project.cache_dir.clone(),
    };
    let shards = crate::shard::ShardsSetting {
        count: settings.shards,
        source: provenance.source("SHARDS"),
    };
    let shard = crate::shard::resolve(
        cli.flags.shard.as_deref(),
        shards,
        crate::settings::process_env,
    );
    let run_group = crate::shard::run_group(crate::settings::process_env);
    if command == Command::Config {
        print!("{}", settings.describe(&provenance));
        print!(
            "{}",
            crate::shard::describe(&shard, run_group.as_ref(), &paths.cache_dir)
        );
        return Ok(match shard {
            Ok(_) => ExitStatus::Success,
            Err(_) => ExitStatus::BadUsage,
        });
    }
    match command_shard(&command, cli.flags.shard.is_some(), shard) {
        Err(e) => {
            eprintln!("colophon: {e}");
            return Ok(ExitStatus::BadUsage);
        }
        Ok(Some(shard)) => {
            paths.cache_dir = shard.cache_dir(&project.cache_dir);
            opts.shard = Some(shard);
            opts.run_group = run_group.as_ref().map(|(id, _)| id.clone());
        }
        Ok(None) => {}
    }
    match command {
        Command::Worker | Command::OcrServer | Command::Config => unreachable!("handled above"),
        Command::Merge {
            group,
            run_group: asked,
            allow_partial,
        } => {
            let Some(_lock) = lock_project(&project, None) else {
                return Ok(ExitStatus::BadUsage);
            };
            let request = crate::merge::Request {
                group,
                run_group: asked.or(run_group.map(|(id, _)| id)),
                allow_partial,
            };
            crate::merge::command(&paths, &settings, &request)
        }
        Command::Cache {
            action: CacheAction::Clear { online: true },
        } => {
            let Some(cache) = open_cache(&paths.cache_dir, None) else {
                return Ok(ExitStatus::BadUsage);
            };
            let n = cache
                .clear_tree(Tree::Online)
                .context("clearing the online answers")?;
            println!("cleared {n} online catalogue answers (everything else kept)");
            Ok(ExitStatus::Success)
        }
        Command::Lookup { ids } => {
            let Some(cache) = open_cache(&paths.cache_dir, None) else {
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
            let (gone, found) = crate::runs::prune_all(&paths.cache_dir);
            println!(
                "deleted {gone} old run folder(s); the {} newest runs are kept",
                crate::runs::KEEP_RUNS
            );
            Ok(if gone == found {
                ExitStatus::Success
            } else {
                ExitStatus::SomeFailed
            })
        }
        Command::Cache {
            action: CacheAction::Stats,
        } => {
            let Some(cache) = open_cache(&paths.cache_dir, None) else {
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
            let Some(_lock) = lock_project(&project, opts.shard.map(|_| &*paths.cache_dir)) else {
                return Ok(ExitStatus::BadUsage);
            };
            let report = crate::write::undo(&paths.cache_dir, run_id.as_deref())?;
            for w in &report.warnings {
                eprintln!("colophon: warning: {w}");
            }
            match &report.run_id {
                None => println!("nothing to undo"),
                Some(id) => {
                    for line in report.restored_lines() {
                        println!("{line}");
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
            // Thumbnails are drawn by pdfium worker processes, as every
            // PDF read is.
            let pool = crate::inspect::WorkerPool::new(crate::inspect::PoolConfig::from_settings(
                &settings, opts.jobs,
            ));
            crate::review::command(
                &pool,
                opts.jobs,
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
            // every leftover it finds (a shard: its own only).
            let Some(_lock) = lock_project(&project, opts.shard.map(|_| &*paths.cache_dir)) else {
                return Ok(ExitStatus::BadUsage);
            };
            // From here on every line goes through the reporter: the bars
            // own the terminal, and `-q` keeps errors only.
            let reporter: Arc<dyn Reporter> = crate::progress::reporter(opts.quiet).into();
            let Some(cache) = open_cache(&paths.cache_dir, Some(reporter.as_ref())) else {
                return Ok(ExitStatus::BadUsage);
            };
            if let Some(file) = &opts.approved {
                match crate::review::approvals::Approvals::load(file) {
                    Err(e) => {
                        reporter.error(&format!("colophon: {e:#}"));
                        return Ok(ExitStatus::BadUsage);
                    }
                    Ok(_) if !settings.write_pdf_changes => reporter.message(
                        "colophon: --approved applies to writes; this is a dry run (add --write)",
                    ),
                    Ok(_) => {}
                }
            }
            let selection = match command {
                Command::Show { files } => Selection::Files(files),
                _ => Selection::DataFolder,
            };
            let pool = crate::inspect::WorkerPool::new(crate::inspect::PoolConfig::from_settings(
                &settings, opts.jobs,
            ));
            install_ctrl_c(reporter.clone());
            install_sigterm(reporter.clone());
            cache.report_warnings_to(reporter.clone());
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
            let (_, status) = crate::run::run(&env, selection, &mut out)?;
            let _ = out.flush();
            Ok(status)
        }
    }
}

/// `colophon vlm-check`: is every backend up and the model there?
fn vlm_check(settings: &Settings) -> Result<ExitStatus> {
    let checks = crate::vision::vlm_check_hosts(settings);
    for check in &checks {
        println!("{}", check.message);
    }
    Ok(if checks.iter().all(|c| c.ok()) {
        ExitStatus::Success
    } else {
        ExitStatus::SomeFailed
    })
}

/// The shard a command works in: `run`, `undo` and `cache` work in a
/// shard's folder when one is given (`--shard`, a Slurm array task, a
/// Kubernetes Indexed Job) and refuse a shard that cannot be used; the
/// other commands work on the whole project whatever the environment
/// says (a merge job may run inside the array's allocation), and refuse
/// an explicit `--shard`.
fn command_shard(
    command: &Command,
    flag_given: bool,
    resolved: Result<Option<crate::shard::Resolved>, crate::shard::ShardError>,
) -> Result<Option<crate::shard::Shard>, String> {
    match command {
        Command::Run | Command::Undo { .. } | Command::Cache { .. } => resolved
            .map(|r| r.map(|r| r.shard))
            .map_err(|e| e.to_string()),
        _ if flag_given => Err(
            "--shard applies to run, undo, cache and config; merge takes the number of \
             shards (colophon merge N)"
                .to_string(),
        ),
        _ => Ok(None),
    }
}

/// Takes the project lock (a shard's lock when `shard_cache` is its
/// folder), or says why not (exit 2: nothing was processed).
fn lock_project(
    project: &crate::project::Project,
    shard_cache: Option<&Path>,
) -> Option<crate::project::ProjectLock> {
    let lock = match shard_cache {
        Some(dir) => project.lock_shard(dir),
        None => project.lock(),
    };
    match lock {
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
///
/// A store sled reopened with less than its last clean close left (a
/// damaged log, see [`Cache::open`]) is used, with a warning naming it: the
/// lost results are recomputed.
///
/// Its lines go to `reporter` when there is one (a run: `-q` keeps the
/// errors only), else to stderr.
fn open_cache(dir: &Path, reporter: Option<&dyn Reporter>) -> Option<Cache> {
    let warn = |msg: String| match reporter {
        Some(r) => r.message(&msg),
        None => eprintln!("{msg}"),
    };
    let error = |msg: String| match reporter {
        Some(r) => r.error(&msg),
        None => eprintln!("{msg}"),
    };
    match Cache::open(dir) {
        Ok(c) => {
            if c.lost_on_recovery() {
                warn(format!(
                    "colophon: warning: the cache {} was damaged; sled recovered it only up to \
                     the damage, and the results stored after it will be recomputed (delete the \
                     folder to start afresh)",
                    dir.join("db").display()
                ));
            }
            Some(c)
        }
        Err(crate::cache::CacheError::Open { path, source }) => {
            let secs = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let aside = path.with_file_name(format!("db.damaged-{secs}"));
            if let Err(e) = std::fs::rename(&path, &aside) {
                error(format!(
                    "colophon: cannot open the cache {} ({source}) nor move it aside ({e})",
                    path.display()
                ));
                return None;
            }
            warn(format!(
                "colophon: warning: the cache {} was damaged ({source}); moved to {} and started afresh",
                path.display(),
                aside.display()
            ));
            Cache::open(dir)
                .map_err(|e| error(format!("colophon: {e}")))
                .ok()
        }
        Err(e) => {
            error(format!("colophon: {e}"));
            None
        }
    }
}

/// The write end of the pipe that wakes [`install_sigterm`]'s thread.
static SIGTERM_PIPE: std::sync::atomic::AtomicI32 = std::sync::atomic::AtomicI32::new(-1);

extern "C" fn on_sigterm(_: libc::c_int) {
    // Only atomics and write(2) here: async-signal-safe. A repeated
    // SIGTERM (Slurm signals every process of the step, a wrapper shell
    // may forward it again) changes nothing.
    if TERMINATED.swap(true, Ordering::SeqCst) {
        return;
    }
    QUIT.store(true, Ordering::SeqCst);
    let fd = SIGTERM_PIPE.load(Ordering::SeqCst);
    if fd >= 0 {
        // SAFETY: write(2) of one byte from a static buffer.
        unsafe { libc::write(fd, b"t".as_ptr().cast(), 1) };
    }
}

/// SIGTERM, how Slurm and Kubernetes stop a task (preemption, a time
/// limit, a drained node, a deleted pod): no new document is started; the
/// documents in progress are abandoned: their pdfium workers and
/// tesseracts are killed (and any started while the run winds down), so
/// their documents fail with a transient error that is neither cached nor
/// reported; the finished ones are reported, `records.jsonl` and
/// `summary.md` written, the cache flushed and closed with its clean-close
/// mark, and the run exits 143 ([`ExitStatus::Terminated`]). A restarted
/// task finds every reported document in its cache. SIGKILL stays safe
/// too: the workers and tesseracts die with the run (`PR_SET_PDEATHSIG`)
/// and the cache recovers as after any crash.
fn install_sigterm(reporter: Arc<dyn Reporter>) {
    let mut fds = [0; 2];
    // SAFETY: pipe2(2) into a two-int array.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return;
    }
    let read_end = fds[0];
    let woken = std::thread::Builder::new()
        .name("sigterm".into())
        .spawn(move || {
            let mut byte = [0u8; 1];
            loop {
                // SAFETY: read(2) of one byte into a local buffer.
                let n = unsafe { libc::read(read_end, byte.as_mut_ptr().cast(), 1) };
                if n == 1 {
                    break;
                }
                if n < 0
                    && std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted
                {
                    continue;
                }
                return;
            }
            reporter.error(
                "colophon: SIGTERM: abandoning the documents in progress; finished ones are \
                 kept, and a rerun resumes (exit 143)",
            );
            // Until the process exits: a document thread may render one
            // more page for OCR, or start a worker, before it sees its
            // document fail.
            loop {
                kill_children();
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
        });
    if woken.is_err() {
        return;
    }
    SIGTERM_PIPE.store(fds[1], Ordering::SeqCst);
    // SAFETY: a zeroed sigaction with a handler that is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = on_sigterm as extern "C" fn(libc::c_int) as libc::sighandler_t;
        action.sa_flags = libc::SA_RESTART;
        libc::sigemptyset(&mut action.sa_mask);
        libc::sigaction(libc::SIGTERM, &action, std::ptr::null_mut());
    }
}

/// SIGKILLs every child process of every thread of this process (the
/// pdfium workers, the tesseracts): `/proc/self/task/*/children`.
fn kill_children() {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return;
    };
    for task in tasks.flatten() {
        let Ok(children) = std::fs::read_to_string(task.path().join("children")) else {
            continue;
        };
        for pid in children
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
        {
            // SAFETY: kill(2) on a child of ours (not yet reaped, so its
            // pid cannot have been reused).
            unsafe { libc::kill(pid, libc::SIGKILL) };
        }
    }
}

/// First Ctrl-C: finish the documents in progress (the vision pool skips
/// the pages still queued), report, flush the cache. Second: stop at once.
fn install_ctrl_c(reporter: Arc<dyn Reporter>) {
    let _ = ctrlc::set_handler(move || {
        if QUIT.swap(true, Ordering::SeqCst) {
            std::process::exit(ExitStatus::Interrupted.code());
        }
        // Shown with -q too, as it explains why the run ends early.
        reporter
            .error("colophon: stopping after the documents in progress (Ctrl-C again to stop now)");
    });
}
