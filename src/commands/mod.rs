//! The commands of SPEC 10, one module each, and what they share: the
//! project loaded with its settings ([`Setup`]), the project lock, the
//! cache opened with recovery, the shard a command works in. `app`
//! dispatches to them; none imports the app.

pub mod cache;
pub mod config;
pub mod export;
pub mod lookup;
pub mod merge;
pub mod review;
pub mod run;
mod signals;
pub mod undo;
pub mod vlm_check;

use crate::cache::Cache;
use crate::cli::{Cli, Command, RunOptions};
use crate::progress::Reporter;
use crate::project::{Paths, Project};
use crate::settings::{Provenance, Settings};
use crate::shard::{Resolved, Shard, ShardError};
use anyhow::{Context as _, Result};
use std::path::Path;

/// What every command but the two internal servers starts from: the
/// project found from the current directory, its settings, the run
/// options from the flags, and the folders, a shard's when it works in one.
pub struct Setup {
    pub project: Project,
    pub settings: Settings,
    pub provenance: Provenance,
    pub opts: RunOptions,
    pub paths: Paths,
    /// The shard the environment or `--shard` asks for (or why it cannot
    /// be used): `config` describes it, [`Setup::enter_shard`] applies it.
    pub shard: Result<Option<Resolved>, ShardError>,
    /// The run group of a sharded run (`shard::run_group`) and where it
    /// came from.
    pub run_group: Option<(String, &'static str)>,
}

impl Setup {
    /// Loads the project and its settings (a bad setting is an error for
    /// `main`, exit 2).
    pub fn load(cli: &Cli) -> Result<Setup> {
        let cwd = std::env::current_dir().context("reading the current directory")?;
        let (project, settings, provenance) = crate::project::load(cli, &cwd)?;
        let opts = RunOptions::from_cli(cli);
        let paths = Paths {
            data_dir: project.data_dir.clone(),
            cache_dir: project.cache_dir.clone(),
        };
        let shards = crate::shard::ShardsSetting {
            count: settings.shards,
            source: provenance.source("SHARDS"),
        };
        let env = crate::settings::process_env;
        let shard = crate::shard::resolve(cli.flags.shard.as_deref(), shards, env);
        let run_group = crate::shard::run_group(env);
        Ok(Setup {
            project,
            settings,
            provenance,
            opts,
            paths,
            shard,
            run_group,
        })
    }

    /// Works in the shard the command takes (see [`command_shard`]): its
    /// cache folder, its run group. `Err` is the message for a shard that
    /// cannot be used (exit 2).
    pub fn enter_shard(&mut self, command: &Command, flag_given: bool) -> Result<(), String> {
        let resolved = std::mem::replace(&mut self.shard, Ok(None));
        if let Some(shard) = command_shard(command, flag_given, resolved)? {
            self.paths.cache_dir = shard.cache_dir(&self.project.cache_dir);
            self.opts.shard = Some(shard);
            self.opts.run_group = self.run_group.as_ref().map(|(id, _)| id.clone());
        }
        Ok(())
    }

    /// Takes the project lock (the shard's when working in one), or says
    /// why not (exit 2: nothing was processed).
    pub fn lock(&self) -> Option<crate::project::ProjectLock> {
        lock_project(
            &self.project,
            self.opts.shard.map(|_| &*self.paths.cache_dir),
        )
    }
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
    resolved: Result<Option<Resolved>, ShardError>,
) -> Result<Option<Shard>, String> {
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
pub fn lock_project(
    project: &Project,
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
/// Its lines go to `reporter` when there is one, else to stderr. They
/// are shown even with `-q` (which keeps only results and errors): a
/// damaged store is news about the user's disk, not progress.
pub fn open_cache(dir: &Path, reporter: Option<&dyn Reporter>) -> Option<Cache> {
    let warn = |msg: String| match reporter {
        Some(r) => r.error(&msg),
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
