//! `colophon undo [RUN-ID]`: the writes of the latest (or a given) write
//! run reverted ([`crate::write::undo`]), under the project lock.

use super::Setup;
use crate::exit::ExitStatus;
use anyhow::Result;

/// Reverts and lists what was restored; whatever stays in effect is
/// named, and the undo is then not a success.
pub fn undo(setup: &Setup, run_id: Option<&str>) -> Result<ExitStatus> {
    let Some(_lock) = setup.lock() else {
        return Ok(ExitStatus::BadUsage);
    };
    let report = crate::write::undo(&setup.paths.cache_dir, run_id)?;
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
    for p in &report.problems {
        eprintln!("colophon: not undone: {p}");
    }
    if report.problems.is_empty() {
        return Ok(ExitStatus::Success);
    }
    eprintln!(
        "colophon: {} write(s) could not be undone (listed above); the rest were",
        report.problems.len()
    );
    Ok(ExitStatus::SomeFailed)
}
