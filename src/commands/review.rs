//! `colophon review`: the review page of the latest (or a given) run
//! ([`crate::review`]), its missing thumbnails drawn first.

use super::Setup;
use crate::exit::ExitStatus;
use anyhow::Result;

/// Writes the page and opens it (with `BROWSER`) unless `no_open`.
pub fn review(setup: &Setup, run_id: Option<&str>, no_open: bool) -> Result<ExitStatus> {
    let (settings, jobs) = (&setup.settings, setup.opts.jobs);
    // Thumbnails are drawn by pdfium worker processes, as every PDF read is.
    let pool = crate::inspect::WorkerPool::new(super::run::pool_config(settings, jobs));
    crate::review::command(
        &pool,
        jobs,
        &setup.paths.cache_dir,
        &setup.paths.data_dir,
        settings.page_num_offset,
        run_id,
        (!no_open).then_some(settings.browser.as_str()),
    )?;
    Ok(ExitStatus::Success)
}
