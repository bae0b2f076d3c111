//! The merged run folder: what a run writes (SPEC 7), made from the
//! shards' runs instead of from documents. Records are sorted by path
//! (each shard's are in completion order, which means nothing across
//! shards); the exports and diagnostics are hard links to the shards'
//! files (copies across file systems); the summary is the sum of the
//! shards'; the review page is made from the merged records; the shards'
//! write journals move to the merged run's.

use super::ShardRun;
use crate::project::Paths;
use crate::report::Summary;
use crate::runs::{RunDir, RunEnd};
use crate::settings::Settings;
use anyhow::{Context as _, Result};
use std::fmt::Write as _;
use std::fs;
use std::io::Write as _;
use std::path::Path;

/// The merged run, before `latest` points at it.
pub(super) struct Merged {
    pub run: RunDir,
    pub summary: Summary,
    /// Writes moved from the shards' journals to the merged run's.
    pub writes: usize,
}

/// Makes the merged run folder from the shards' runs (`missing`: the
/// messages of the shards left out of a partial merge).
pub(super) fn write(
    paths: &Paths,
    settings: &Settings,
    parts: &[ShardRun],
    missing: &[String],
    group: Option<&str>,
) -> Result<Merged> {
    let run = RunDir::create(&paths.cache_dir)?;
    records(parts, &run.path.join("records.jsonl"))?;
    for sub in ["ann", "diagnostics"] {
        for part in parts {
            link_tree(&part.run.path.join(sub), &run.path.join(sub))?;
        }
    }
    let mut summary = Summary::default();
    for part in parts {
        summary += part.end.summary.clone();
    }
    // The shards ran side by side: the merged run took as long as the
    // slowest of them.
    let seconds = parts.iter().map(|p| p.end.seconds).fold(0.0, f64::max);
    let dry_run = parts.iter().all(|p| p.end.dry_run);
    let markdown = summary.markdown(&run.id, seconds, dry_run) + &shards_section(parts, missing);
    fs::write(run.path.join("summary.md"), markdown).context("writing summary.md")?;
    run.write_end(&RunEnd {
        run_id: run.id.clone(),
        seconds,
        dry_run,
        complete: missing.is_empty(),
        summary: summary.clone(),
        group: group.map(str::to_string),
    })?;
    // The shards' thumbnails, for the merged review page (which points at
    // cache/thumbs/): hard links, as for the exports.
    for part in parts {
        link_tree(
            &part.cache_dir.join("thumbs"),
            &paths.cache_dir.join("thumbs"),
        )?;
    }
    if let Err(e) = crate::review::write_page(&run.path, settings.page_num_offset) {
        eprintln!("colophon: warning: no review page: {e:#}");
    }
    let writes = journals(paths, parts, &run)?;
    Ok(Merged {
        run,
        summary,
        writes,
    })
}

/// Writes the records of every shard's run to `dest`, sorted by path.
/// They were checked when the shards were surveyed ([`super::records`]):
/// each line is read again from its shard's file, so that only the paths
/// are held in memory.
fn records(parts: &[ShardRun], dest: &Path) -> Result<()> {
    let mut order: Vec<(&str, usize, usize)> = Vec::new();
    for (p, part) in parts.iter().enumerate() {
        for (i, e) in part.records.entries.iter().enumerate() {
            order.push((&e.path, p, i));
        }
    }
    order.sort_unstable();
    let mut files = parts
        .iter()
        .map(|part| {
            let file = &part.records.file;
            fs::File::open(file).with_context(|| format!("reading {}", file.display()))
        })
        .collect::<Result<Vec<_>>>()?;
    let out = fs::File::create(dest).with_context(|| format!("writing {}", dest.display()))?;
    let mut out = std::io::BufWriter::new(out);
    for (_, p, i) in order {
        let records = &parts[p].records;
        let line = records
            .line(&mut files[p], &records.entries[i])
            .with_context(|| format!("reading {}", records.file.display()))?;
        out.write_all(&line)?;
        out.write_all(b"\n")?;
    }
    out.flush()
        .with_context(|| format!("writing {}", dest.display()))
}

/// Hard-links (or copies) every file under `from` to the same place under
/// `to`. A missing `from` is nothing to do.
fn link_tree(from: &Path, to: &Path) -> Result<()> {
    let Ok(entries) = fs::read_dir(from) else {
        return Ok(());
    };
    fs::create_dir_all(to).with_context(|| format!("creating {}", to.display()))?;
    for entry in entries.flatten() {
        let (src, dest) = (entry.path(), to.join(entry.file_name()));
        if entry.file_type()?.is_dir() {
            link_tree(&src, &dest)?;
        } else {
            crate::util::fs::link_or_copy(&src, &dest)
                .with_context(|| format!("linking {} to {}", src.display(), dest.display()))?;
        }
    }
    Ok(())
}

/// The part of `summary.md` that names the shards' runs (and, for a
/// partial merge, the shards left out).
fn shards_section(parts: &[ShardRun], missing: &[String]) -> String {
    let mut s =
        String::from("\n## Shards\n\n| shard | run | files | seconds |\n|---|---|---:|---:|\n");
    for p in parts {
        let _ = writeln!(
            s,
            "| {} | {} | {} | {:.2} |",
            p.shard, p.run.id, p.end.summary.files, p.end.seconds
        );
    }
    if !missing.is_empty() {
        s.push_str("\n**Partial merge** (`--allow-partial`); left out:\n\n");
        for m in missing {
            let _ = writeln!(s, "- {m}");
        }
    }
    s
}

/// Moves the write journal of every shard's run to the merged run's, so
/// that `colophon undo <merged run>` reverts the writes of every shard.
/// Returns the number of writes moved.
fn journals(paths: &Paths, parts: &[ShardRun], run: &RunDir) -> Result<usize> {
    let into = crate::write::Journal::for_run(&paths.cache_dir, &run.id);
    let mut writes = 0;
    for part in parts {
        let from = crate::write::Journal::for_run(&part.cache_dir, &part.run.id);
        writes += from.move_into(&into, &run.id).with_context(|| {
            format!(
                "moving the write journal {} to {}",
                from.path().display(),
                into.path().display()
            )
        })?;
    }
    Ok(writes)
}
