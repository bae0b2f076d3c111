//! `colophon merge [N]`: the shards' runs made one run of the project
//! (the work itself is [`crate::merge`]), under the project lock.

use super::Setup;
use crate::exit::ExitStatus;
use anyhow::Result;

/// Merges the shards of `group` (or of the run group the environment names).
pub fn merge(
    setup: &Setup,
    group: Option<u32>,
    asked: Option<String>,
    allow_partial: bool,
) -> Result<ExitStatus> {
    let Some(_lock) = super::lock_project(&setup.project, None) else {
        return Ok(ExitStatus::BadUsage);
    };
    let request = crate::merge::Request {
        group,
        run_group: asked.or(setup.run_group.clone().map(|(id, _)| id)),
        allow_partial,
    };
    crate::merge::command(&setup.paths, &setup.settings, &request)
}
