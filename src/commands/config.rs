//! `colophon config`: the effective settings, where each came from, and
//! the shard this process would work in.

use super::Setup;
use crate::exit::ExitStatus;

/// Prints the settings and the shard; a shard that cannot be used is bad
/// usage (exit 2), as `run` would refuse it.
pub fn config(setup: &Setup) -> ExitStatus {
    // Not a setting (fixed by design): said as a comment, so that the
    // output still reads back as a colophon.toml.
    println!(
        "# Data folder: {}",
        crate::pipeline::data_folder(&setup.project.data_dir)
    );
    print!("{}", setup.settings.describe(&setup.provenance));
    print!(
        "{}",
        crate::shard::describe(
            &setup.shard,
            setup.run_group.as_ref(),
            &setup.paths.cache_dir
        )
    );
    match setup.shard {
        Ok(_) => ExitStatus::Success,
        Err(_) => ExitStatus::BadUsage,
    }
}
