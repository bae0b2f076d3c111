//! `colophon export`: the latest (or a given) run's records as BibTeX,
//! BibLaTeX, CSL-JSON, RIS, CSV or OPF (the formats are [`crate::export`]).

use super::Setup;
use crate::exit::ExitStatus;
use anyhow::Result;

/// Writes the export (a failure is an error naming the run or the file).
pub fn export(setup: &Setup, req: &crate::export::Request) -> Result<ExitStatus> {
    let paths = &setup.paths;
    crate::export::command(&paths.cache_dir, &paths.data_dir, &setup.settings, req)?;
    Ok(ExitStatus::Success)
}
