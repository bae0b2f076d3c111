//! `colophon cache clear|clear --online|prune|stats`: the cache folder
//! (a shard's when working in one) kept in shape by hand.

use super::Setup;
use crate::cache::Tree;
use crate::cli::CacheAction;
use crate::exit::ExitStatus;
use anyhow::{Context as _, Result};

/// Runs one cache action.
pub fn cache(setup: &Setup, action: &CacheAction) -> Result<ExitStatus> {
    let dir = &setup.paths.cache_dir;
    match action {
        CacheAction::Clear { online: true } => {
            let Some(cache) = super::open_cache(dir, None) else {
                return Ok(ExitStatus::BadUsage);
            };
            let n = cache
                .clear_tree(Tree::Online)
                .context("clearing the online answers")?;
            println!("cleared {n} online catalogue answers (everything else kept)");
            Ok(ExitStatus::Success)
        }
        CacheAction::Clear { online: false } => {
            crate::cache::clear(dir)?;
            println!(
                "cleared {} and {} (write journals kept for undo)",
                dir.join("db").display(),
                dir.join("pages").display()
            );
            Ok(ExitStatus::Success)
        }
        CacheAction::Prune => {
            let (gone, found) = crate::runs::prune_all(dir);
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
        CacheAction::Stats => stats(dir),
    }
}

/// Entries and bytes per tree, the size on disk, the online answers.
fn stats(dir: &std::path::Path) -> Result<ExitStatus> {
    let Some(cache) = super::open_cache(dir, None) else {
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
