//! `colophon run` and `colophon show FILE...`: the pipeline
//! ([`crate::pipeline`]) over the data folder or over some files, under
//! the project lock, with the reporter owning the terminal, Ctrl-C and
//! SIGTERM handled, and the records streamed to stdout.
//!
//! `show` is a look at some files, not a run of the library: its outputs
//! go to `cache/shows/` (so `cache/runs/latest`, which `export`, `review`
//! and `merge` read, stays the last run's), and it never writes a PDF (so
//! `undo` never meets it).

use super::{Setup, signals};
use crate::cli::Command;
use crate::exit::ExitStatus;
use crate::pipeline::{Env, Selection};
use crate::progress::Reporter;
use anyhow::Result;
use std::io::Write;
use std::sync::Arc;

/// Runs the pipeline for `run` (the data folder) or `show` (`files`).
pub fn run(
    setup: &Setup,
    command: Command,
    jobs_flag: Option<std::num::NonZeroUsize>,
) -> Result<ExitStatus> {
    let paths = &setup.paths;
    let show = matches!(command, Command::Show { .. });
    if !paths.data_dir.exists() && !show {
        eprintln!(
            "colophon: no PDF found: there is no data folder at {} (colophon reads <project>/data; \
             put your PDFs there, or link your library: `ln -s ~/papers data`)",
            paths.data_dir.display()
        );
        return Ok(ExitStatus::BadUsage);
    }
    // Held for the whole run: the cleanup may then delete every leftover
    // it finds (a shard: its own only).
    let Some(_lock) = setup.lock() else {
        return Ok(ExitStatus::BadUsage);
    };
    // From here on every line goes through the reporter: the bars own the
    // terminal, and `-q` keeps errors only.
    let reporter: Arc<dyn Reporter> = crate::progress::reporter(setup.opts.quiet).into();
    let Some(cache) = super::open_cache(&paths.cache_dir, Some(reporter.as_ref())) else {
        return Ok(ExitStatus::BadUsage);
    };
    let mut settings = setup.settings.clone();
    if show && settings.write_pdf_changes {
        reporter.message(
            "colophon: show only looks: nothing is written (`colophon run --write` writes)",
        );
        settings.write_pdf_changes = false;
    }
    if !approvals_usable(&setup.opts, &settings, reporter.as_ref()) {
        return Ok(ExitStatus::BadUsage);
    }
    let selection = match command {
        Command::Show { files } => Selection::Files(files),
        _ => Selection::DataFolder,
    };
    let pool = crate::inspect::WorkerPool::new(pool_config(&settings, setup.opts.jobs));
    signals::install_ctrl_c(reporter.clone());
    signals::install_sigterm(reporter.clone());
    cache.report_warnings_to(reporter.clone());
    if let (_, Some(notice)) = crate::cli::jobs(jobs_flag, crate::cli::cpus()) {
        reporter.message(&notice);
    }
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let env = Env {
        paths,
        settings: &settings,
        opts: &setup.opts,
        cache: &cache,
        sessions: &pool,
        reporter: reporter.as_ref(),
    };
    let (_, status) = crate::pipeline::run(&env, selection, &mut out)?;
    let _ = out.flush();
    Ok(status)
}

/// The worker pool's configuration: `jobs` workers, the settings' time
/// limit, and what a worker needs of the settings in its environment.
pub(super) fn pool_config(
    settings: &crate::settings::Settings,
    jobs: usize,
) -> crate::inspect::PoolConfig {
    let mut config = crate::inspect::PoolConfig::from_settings(settings, jobs);
    config
        .env
        .extend(crate::inspect::pdfium::worker_env(settings));
    config
}

/// `--approved FILE` is readable (else bad usage, said); without `--write`
/// the run is said to be a dry run.
fn approvals_usable(
    opts: &crate::cli::RunOptions,
    settings: &crate::settings::Settings,
    reporter: &dyn Reporter,
) -> bool {
    let Some(file) = &opts.approved else {
        return true;
    };
    match crate::review::approvals::Approvals::load(file) {
        Err(e) => {
            reporter.error(&format!("colophon: {e:#}"));
            false
        }
        Ok(_) if !settings.write_pdf_changes => {
            reporter
                .message("colophon: --approved applies to writes; this is a dry run (add --write)");
            true
        }
        Ok(_) => true,
    }
}
