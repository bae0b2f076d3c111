//! Dispatch: one command of the command line to its module under
//! [`crate::commands`]. Nothing else lives here; what the commands share
//! is in `commands` and below.

use crate::cli::{Cli, Command};
use crate::commands::{self, Setup};
use crate::exit::ExitStatus;
use anyhow::Result;

/// Runs one command of the command line.
pub fn main(cli: Cli) -> Result<ExitStatus> {
    crate::util::alloc::fix_mmap_threshold();
    let command = cli.command_or_run();
    // The two internal servers read no project and no settings.
    match command {
        Command::Worker => {
            crate::inspect::worker::serve_stdio()?;
            return Ok(ExitStatus::Success);
        }
        Command::OcrServer => {
            crate::ocr::server::serve_stdio()?;
            return Ok(ExitStatus::Success);
        }
        _ => {}
    }
    let mut setup = Setup::load(&cli)?;
    crate::inspect::pool::configure(&setup.settings);
    if command == Command::Config {
        return Ok(commands::config::config(&setup));
    }
    if let Err(e) = setup.enter_shard(&command, cli.flags.shard.is_some()) {
        eprintln!("colophon: {e}");
        return Ok(ExitStatus::BadUsage);
    }
    let s = &setup;
    match command {
        Command::Worker | Command::OcrServer | Command::Config => unreachable!("handled above"),
        Command::Merge {
            group,
            run_group,
            allow_partial,
        } => commands::merge::merge(s, group, run_group, allow_partial),
        Command::Cache { action } => commands::cache::cache(s, &action),
        Command::Lookup { ids } => commands::lookup::lookup(s, &ids),
        Command::Undo { run_id } => commands::undo::undo(s, run_id.as_deref()),
        Command::VlmCheck => Ok(commands::vlm_check::vlm_check(&s.settings)),
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
            commands::export::export(s, &req)
        }
        Command::Review { run_id, no_open } => {
            commands::review::review(s, run_id.as_deref(), no_open)
        }
        Command::Run | Command::Show { .. } => commands::run::run(s, command, cli.flags.jobs),
    }
}
