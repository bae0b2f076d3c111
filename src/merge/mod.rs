//! `colophon merge [RUN-GROUP]` (issue 16): after the N shards of a
//! sharded run have finished (`colophon run --shard I/N`, a Slurm array, a
//! Kubernetes Indexed Job), puts their results together as if one process
//! had done the work:
//!
//! 1. [`survey`]: every shard `cache/shards/<N>/<I>/` must have a last run
//!    that got to its end and processed every file it found, with records
//!    that pass [`records::read`]'s checks (paths inside the library, of
//!    this shard, as many as its summary counts; bounded sizes); a shard
//!    that never ran, was killed, was stopped or left damaged records is
//!    named with what to do, and nothing is merged unless
//!    `--allow-partial` says so.
//! 2. [`outputs`]: one new run folder under `cache/runs/` with the records
//!    of all shards, their exports and diagnostics, the summed summary,
//!    the review page and the shards' write journals (so that `undo`
//!    reverts the merged write run); `latest` points at it.
//! 3. The shards' caches are imported into the project's cache
//!    ([`crate::cache::Cache::import`]), so a later unsharded run is warm.
//! 4. Temporary files left under `data/` by killed shards are deleted:
//!    merge holds the project lock exclusively, so no shard is running.
//!
//! The folder `cache/shards/<N>/` holds the state of every shard of runs
//! of N shards, and the run group ([`crate::shard::run_group`]: the Slurm
//! array's job id, a Kubernetes Job's uid, `RUN_GROUP`) tells which job
//! each shard's last run belonged to: merge combines one group only (the
//! one asked with `--group` or `RUN_GROUP`, else that of the newest shard
//! run) and names a shard whose last run is of another group as stale (an
//! earlier job's), so that a shard that failed to run in this job is not
//! silently replaced by its results from the last one.

mod outputs;
mod records;

use crate::exit::ExitStatus;
use crate::project::Paths;
use crate::runs::{RunDir, RunEnd};
use crate::settings::Settings;
use crate::shard::{self, Shard};
use anyhow::{Context as _, Result};
use std::path::{Path, PathBuf};

/// What `colophon merge` was asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Request {
    /// The number of shards; `None`: `SHARDS`, or the only group there is.
    pub group: Option<u32>,
    /// The run group; `None`: that of the newest shard run.
    pub run_group: Option<String>,
    /// Merge what finished even when some shards did not.
    pub allow_partial: bool,
}

/// One shard's finished run, ready to be merged.
#[derive(Debug, Clone)]
pub(crate) struct ShardRun {
    pub shard: Shard,
    /// The shard's cache folder (`cache/shards/<N>/<I>`).
    pub cache_dir: PathBuf,
    pub run: RunDir,
    pub end: RunEnd,
    /// Its `records.jsonl`, checked.
    pub records: records::ShardRecords,
}

/// `colophon merge`: the exit status is 0 when every shard was merged and
/// no record is an error, 1 when records are errors (as for a run) or
/// shards are missing (then nothing is merged, unless `--allow-partial`),
/// 2 when there is no such run group.
pub fn command(paths: &Paths, settings: &Settings, req: &Request) -> Result<ExitStatus> {
    let count = match group(&paths.cache_dir, req.group, settings) {
        Ok(n) => n,
        Err(msg) => {
            eprintln!("colophon: {msg}");
            return Ok(ExitStatus::BadUsage);
        }
    };
    let (ready, problems, run_group) = survey(&paths.cache_dir, count, req.run_group.as_deref());
    for p in &problems {
        eprintln!("colophon: {p}");
    }
    if ready.is_empty() || (!problems.is_empty() && !req.allow_partial) {
        let hint = if ready.is_empty() || req.allow_partial {
            ""
        } else {
            "; --allow-partial merges the shards that finished"
        };
        eprintln!(
            "colophon: nothing merged: {} of {count} shards are not ready{hint}",
            problems.len()
        );
        return Ok(ExitStatus::SomeFailed);
    }
    let merged = outputs::write(paths, settings, &ready, &problems, run_group.as_deref())?;
    let cache = crate::cache::Cache::open(&paths.cache_dir)?;
    let mut imported = 0;
    for part in &ready {
        imported += cache.import(&part.cache_dir).with_context(|| {
            format!(
                "importing the cache of shard {} ({})",
                part.shard,
                part.cache_dir.display()
            )
        })?;
    }
    let swept = crate::write::remove_stale_temps(&paths.data_dir, settings);
    for p in &swept.problems {
        eprintln!("colophon: warning: {p}");
    }
    merged.run.mark_latest()?;
    for part in &ready {
        println!(
            "shard {}: run {} ({} files, {:.1} s)",
            part.shard, part.run.id, part.end.summary.files, part.end.seconds
        );
    }
    let of_group = run_group.map_or(String::new(), |g| format!(" of run group {g}"));
    println!(
        "merged {} of {count} shards{of_group} into {}: {} records, {} writes journaled, {imported} cache entries imported",
        ready.len(),
        merged.run.path.display(),
        merged.summary.files,
        merged.writes
    );
    if !problems.is_empty() {
        eprintln!(
            "colophon: the merged run is partial: {} shard(s) missing (listed above)",
            problems.len()
        );
    }
    let s = &merged.summary;
    Ok(if s.errors > 0 || s.write_failed > 0 {
        ExitStatus::SomeFailed
    } else {
        ExitStatus::Success
    })
}

/// The run group to merge: the one asked for, else `SHARDS` when set
/// above 1, else the only group under `cache/shards/`. `Err` says which
/// groups there are.
fn group(cache_dir: &Path, requested: Option<u32>, settings: &Settings) -> Result<u32, String> {
    let groups = groups(cache_dir);
    let root = cache_dir.join(shard::SHARDS_DIR);
    let listed = || {
        groups
            .iter()
            .map(u32::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    match requested.or((settings.shards > 1).then_some(settings.shards)) {
        Some(n) if groups.contains(&n) => Ok(n),
        Some(n) if groups.is_empty() => Err(format!(
            "no sharded run with {n} shards: {} does not exist (run `colophon run --shard I/{n}` first)",
            root.join(n.to_string()).display()
        )),
        Some(n) => Err(format!(
            "no sharded run with {n} shards under {} (there are runs of {} shards)",
            root.display(),
            listed()
        )),
        None => match groups.as_slice() {
            [one] => Ok(*one),
            [] => Err(format!(
                "nothing to merge: no sharded runs under {} (run `colophon run --shard I/N` first)",
                root.display()
            )),
            _ => Err(format!(
                "several sharded runs under {} (of {} shards): name one, as in `colophon merge N`",
                root.display(),
                listed()
            )),
        },
    }
}

/// The shard counts with a folder under `cache/shards/`, ascending.
fn groups(cache_dir: &Path) -> Vec<u32> {
    let dir = cache_dir.join(shard::SHARDS_DIR);
    let mut out: Vec<u32> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().to_str()?.parse().ok())
        .filter(|&n| n > 0)
        .collect();
    out.sort_unstable();
    out
}

/// Every shard of the group with a run of the run group to merge, a
/// message for each shard without one, and the run group: `wanted`, else
/// that of the newest shard run (`None`: shards run without one).
fn survey(
    cache_dir: &Path,
    count: u32,
    wanted: Option<&str>,
) -> (Vec<ShardRun>, Vec<String>, Option<String>) {
    let mut found: Vec<Result<ShardRun, String>> = (0..count)
        .map(|index| shard_run(cache_dir, Shard { index, count }))
        .collect();
    let group = match wanted {
        Some(g) => Some(g.to_string()),
        None => found
            .iter()
            .flatten()
            .max_by(|a, b| a.run.id.cmp(&b.run.id))
            .and_then(|r| r.end.group.clone()),
    };
    for f in &mut found {
        if let Ok(r) = f
            && r.end.group != group
        {
            let named = |g: &Option<String>| g.as_deref().map_or("none".into(), |g| g.to_string());
            *f = Err(format!(
                "shard {}: its last finished run {} is of run group {}, not {}: a stale run of \
                 an earlier job; run this shard again in this job (it resumes from its cache)",
                r.shard,
                r.run.id,
                named(&r.end.group),
                named(&group)
            ));
        }
    }
    let (mut ready, mut problems) = (Vec::new(), Vec::new());
    for f in found {
        match f {
            Ok(r) => ready.push(r),
            Err(p) => problems.push(p),
        }
    }
    (ready, problems, group)
}

/// The shard's last run, when it got to its end and processed every
/// file; otherwise what is wrong and what to do.
fn shard_run(cache_dir: &Path, shard: Shard) -> Result<ShardRun, String> {
    let dir = shard.cache_dir(cache_dir);
    let runs = dir.join("runs");
    let again = "run it again (it resumes from its cache)";
    let Some(run) = RunDir::latest(&runs) else {
        return Err(format!(
            "shard {shard}: no finished run in {} (it never ran, or was killed before it finished: {again})",
            dir.display()
        ));
    };
    if let Some(newest) = RunDir::newest(&runs)
        && newest.id > run.id
        && newest.read_end().is_none()
    {
        return Err(format!(
            "shard {shard}: its last run {} did not finish (killed?): {again}",
            newest.id
        ));
    }
    // Read by `read_end` whole: a link to a device, or a file no run
    // writes, is refused before.
    let end_file = run.path.join(crate::runs::RUN_END_FILE);
    if let Ok(m) = std::fs::metadata(&end_file)
        && (!m.is_file() || m.len() > MAX_END_BYTES)
    {
        return Err(format!(
            "shard {shard}: {} is not a run summary (not a regular file, or over {MAX_END_BYTES} \
             bytes): {again}",
            end_file.display()
        ));
    }
    let Some(end) = run.read_end() else {
        return Err(format!(
            "shard {shard}: run {} has no {} (made by an older colophon?): {again}",
            run.id,
            crate::runs::RUN_END_FILE
        ));
    };
    if !end.complete {
        return Err(format!(
            "shard {shard}: run {} was stopped before it processed every file (Ctrl-C, a \
             termination signal or an installation error): {again}",
            run.id
        ));
    }
    let records = records::read(&run.path.join("records.jsonl"), shard, end.summary.files)?;
    Ok(ShardRun {
        shard,
        cache_dir: dir,
        run,
        end,
        records,
    })
}

/// The largest `summary.json` merge reads (a run writes about 2 KB).
const MAX_END_BYTES: u64 = 1 << 20;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::report::Summary;

    /// A shard folder with one run that ended as `complete` says (`None`:
    /// a run that was killed, with no `summary.json`).
    fn shard_with_run(cache: &Path, shard: Shard, complete: Option<bool>) -> RunDir {
        shard_with_group_run(cache, shard, complete, None)
    }

    fn shard_with_group_run(
        cache: &Path,
        shard: Shard,
        complete: Option<bool>,
        group: Option<&str>,
    ) -> RunDir {
        let dir = shard.cache_dir(cache);
        let run = RunDir::create(&dir).unwrap();
        std::fs::write(run.path.join("records.jsonl"), "").unwrap();
        if let Some(complete) = complete {
            run.write_end(&RunEnd {
                run_id: run.id.clone(),
                seconds: 1.0,
                dry_run: true,
                complete,
                summary: Summary::default(),
                group: group.map(str::to_string),
            })
            .unwrap();
            run.mark_latest().unwrap();
        }
        run
    }

    #[test]
    fn the_group_is_asked_set_or_the_only_one() {
        let t = tempfile::tempdir().unwrap();
        let s = Settings::default();
        assert!(
            group(t.path(), None, &s)
                .unwrap_err()
                .contains("nothing to merge")
        );
        assert!(
            group(t.path(), Some(4), &s)
                .unwrap_err()
                .contains("--shard I/4")
        );
        std::fs::create_dir_all(t.path().join("shards/4/0")).unwrap();
        assert_eq!(group(t.path(), None, &s), Ok(4));
        std::fs::create_dir_all(t.path().join("shards/2")).unwrap();
        assert!(
            group(t.path(), None, &s)
                .unwrap_err()
                .contains("of 2, 4 shards")
        );
        assert_eq!(group(t.path(), Some(2), &s), Ok(2));
        let four = Settings {
            shards: 4,
            ..Settings::default()
        };
        assert_eq!(group(t.path(), None, &four), Ok(4));
        assert!(
            group(t.path(), Some(3), &s)
                .unwrap_err()
                .contains("there are runs of 2, 4")
        );
    }

    #[test]
    fn missing_killed_and_stopped_shards_are_named() {
        let t = tempfile::tempdir().unwrap();
        let shard = |index| Shard { index, count: 4 };
        shard_with_run(t.path(), shard(0), Some(true));
        shard_with_run(t.path(), shard(1), Some(false));
        shard_with_run(t.path(), shard(2), None);
        let (ready, problems, _) = survey(t.path(), 4, None);
        assert_eq!(ready.len(), 1);
        assert_eq!(ready[0].shard, shard(0));
        assert_eq!(problems.len(), 3, "{problems:#?}");
        assert!(problems[0].starts_with("shard 1/4: run ") && problems[0].contains("stopped"));
        assert!(problems[1].starts_with("shard 2/4: no finished run"));
        assert!(problems[2].starts_with("shard 3/4: no finished run"));

        // A run killed after an earlier one finished: not the old one.
        shard_with_run(t.path(), shard(0), None);
        let (ready, problems, _) = survey(t.path(), 4, None);
        assert!(ready.is_empty());
        assert!(
            problems[0].contains("did not finish (killed?)"),
            "{problems:#?}"
        );
    }

    #[test]
    fn a_stale_shard_of_an_earlier_job_is_named_not_merged() {
        let t = tempfile::tempdir().unwrap();
        let shard = |index| Shard { index, count: 3 };
        // Job 41 ran all three shards; job 42 ran two of them again.
        for i in 0..3 {
            shard_with_group_run(t.path(), shard(i), Some(true), Some("41"));
        }
        std::thread::sleep(std::time::Duration::from_millis(1100)); // newer run ids
        shard_with_group_run(t.path(), shard(0), Some(true), Some("42"));
        shard_with_group_run(t.path(), shard(2), Some(true), Some("42"));
        let (ready, problems, group) = survey(t.path(), 3, None);
        assert_eq!(group.as_deref(), Some("42"), "the newest run's group");
        let merged: Vec<u32> = ready.iter().map(|r| r.shard.index).collect();
        assert_eq!(merged, [0, 2]);
        assert_eq!(problems.len(), 1, "{problems:#?}");
        assert!(
            problems[0].starts_with("shard 1/3: its last finished run")
                && problems[0].contains("is of run group 41, not 42: a stale run"),
            "{problems:#?}"
        );
        // Asked for the earlier job: the two shards run again are its stale ones.
        let (ready, problems, _) = survey(t.path(), 3, Some("41"));
        assert_eq!(ready.len(), 1);
        assert_eq!(problems.len(), 2);
        assert!(problems[0].contains("of run group 42, not 41"));
    }
}
