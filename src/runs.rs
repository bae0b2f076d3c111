//! The run folders under `cache/runs/` (SPEC 7): one per run, named by a
//! sortable id, with `latest` pointing at the last one that finished, and
//! their pruning. Every run writes two annotation files per PDF, so only
//! the newest [`KEEP_RUNS`] are kept: old folders are deleted at a low
//! priority while a run computes documents ([`Pruner`]), the oldest one
//! within a time budget at the end of every run, and all of them by
//! `colophon cache prune`. The commands that read a run's outputs
//! (`export`, `review`) find its folder here too ([`RunDir::find`]).

use anyhow::{Context, Result, bail};
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

/// The folder of one run's outputs.
#[derive(Debug, Clone)]
pub struct RunDir {
    pub id: String,
    pub path: PathBuf,
}

impl RunDir {
    /// Creates `cache/runs/<run-id>/` with a new, sortable, unique id.
    pub fn create(cache_dir: &Path) -> Result<RunDir> {
        RunDir::create_in(cache_dir.join("runs"))
    }

    /// Creates `cache/shows/<run-id>/`, the outputs of `colophon show`: a
    /// look at some files, which must not become the run that `export`,
    /// `review`, `merge` (all through `cache/runs/latest`) and the pruning
    /// of `cache/runs/` see. Its own `latest` and pruning stay under
    /// `cache/shows/`.
    pub fn create_show(cache_dir: &Path) -> Result<RunDir> {
        RunDir::create_in(cache_dir.join(SHOWS))
    }

    /// A new run folder under `runs`.
    fn create_in(runs: PathBuf) -> Result<RunDir> {
        fs::create_dir_all(&runs).with_context(|| format!("creating {}", runs.display()))?;
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap_or_default();
        let base = format!("{}-{}", format_utc(now.as_secs()), std::process::id());
        for n in 0.. {
            let id = if n == 0 {
                base.clone()
            } else {
                format!("{base}-{n}")
            };
            let path = runs.join(&id);
            match fs::create_dir(&path) {
                Ok(()) => return Ok(RunDir { id, path }),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
                Err(e) => return Err(e).with_context(|| format!("creating {}", path.display())),
            }
        }
        unreachable!()
    }

    /// The folder of run `id` under `cache_dir/runs/`, or of the last run
    /// that finished (`latest`), for the commands that read a run's
    /// outputs; an error says where the run ids are when there is no such
    /// run or it has no records.
    pub fn find(cache_dir: &Path, id: Option<&str>) -> Result<RunDir> {
        let runs = cache_dir.join("runs");
        let id = match id {
            Some(id) => id.to_string(),
            None => fs::read_link(runs.join(LATEST))
                .with_context(|| {
                    format!(
                        "no finished run under {} (run `colophon` first)",
                        runs.display()
                    )
                })?
                .to_string_lossy()
                .into_owned(),
        };
        let path = runs.join(&id);
        if !path.join("records.jsonl").is_file() {
            bail!(
                "{} has no records.jsonl (see the run ids under {})",
                path.display(),
                runs.display()
            );
        }
        Ok(RunDir { id, path })
    }

    pub fn ann_dir(&self) -> PathBuf {
        self.path.join("ann")
    }

    /// `diagnostics/<relative stem>/` of one PDF.
    pub fn diagnostics_dir(&self, rel: &Path) -> PathBuf {
        self.path.join("diagnostics").join(rel.with_extension(""))
    }

    /// Output folders of earlier runs beyond the newest `keep` (this run
    /// counted, never returned): what [`KEEP_RUNS`] lets go.
    pub fn older_runs(&self, keep: usize) -> Vec<PathBuf> {
        let runs = self.path.parent().expect("run dir has a parent");
        runs_beyond(runs, keep.max(1))
            .into_iter()
            .filter(|p| *p != self.path)
            .collect()
    }

    /// The run `cache/runs/latest` points at (the last one that finished),
    /// when it is another run whose folder is still there.
    pub fn previous(&self) -> Option<RunDir> {
        let runs = self.path.parent()?;
        let id = fs::read_link(runs.join(LATEST)).ok()?.to_str()?.to_string();
        let path = runs.join(&id);
        (is_run_id(&id) && path != self.path && path.is_dir()).then_some(RunDir { id, path })
    }

    /// Writes `summary.json`, what `colophon merge` reads of a run.
    pub fn write_end(&self, end: &RunEnd) -> Result<()> {
        let path = self.path.join(RUN_END_FILE);
        let text = serde_json::to_string_pretty(end)?;
        fs::write(&path, text).with_context(|| format!("writing {}", path.display()))
    }

    /// The run's `summary.json`; `None` when the run did not get to its
    /// end (killed) or the file is unreadable.
    pub fn read_end(&self) -> Option<RunEnd> {
        let text = fs::read(self.path.join(RUN_END_FILE)).ok()?;
        serde_json::from_slice(&text).ok()
    }

    /// The run folder `id` under `runs` (`cache/runs/`), when it is one.
    pub fn existing(runs: &Path, id: &str) -> Option<RunDir> {
        let path = runs.join(id);
        (is_run_id(id) && path.is_dir()).then(|| RunDir {
            id: id.to_string(),
            path,
        })
    }

    /// The run `runs/latest` points at (the last one that finished).
    pub fn latest(runs: &Path) -> Option<RunDir> {
        let id = fs::read_link(runs.join(LATEST)).ok()?;
        RunDir::existing(runs, id.to_str()?)
    }

    /// The newest run folder under `runs`, finished or not.
    pub fn newest(runs: &Path) -> Option<RunDir> {
        let id = runs_beyond(runs, 0).pop()?;
        let id = id.file_name()?.to_str()?.to_string();
        RunDir::existing(runs, &id)
    }

    /// Points `cache/runs/latest` at this run (replacing the link atomically).
    pub fn mark_latest(&self) -> Result<()> {
        let runs = self.path.parent().expect("run dir has a parent");
        let tmp = runs.join(format!(".latest-{}", std::process::id()));
        let _ = fs::remove_file(&tmp);
        std::os::unix::fs::symlink(&self.id, &tmp).context("linking cache/runs/latest")?;
        fs::rename(&tmp, runs.join(LATEST)).context("linking cache/runs/latest")?;
        Ok(())
    }
}

/// The link in `cache/runs/` to the last run that finished.
const LATEST: &str = "latest";

/// The folder of `colophon show`'s outputs under the cache folder.
const SHOWS: &str = "shows";

/// How a run ended, in its folder's `summary.json`: the counts, and
/// whether it processed every file it found (`complete`: not stopped by
/// Ctrl-C, a termination signal or an installation error).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct RunEnd {
    pub run_id: String,
    pub seconds: f64,
    pub dry_run: bool,
    pub complete: bool,
    pub summary: crate::report::Summary,
    /// A shard's run group (`shard::run_group`), which `merge` matches;
    /// a merged run's, the group it merged.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<String>,
}

/// The file of a run folder holding its [`RunEnd`].
pub const RUN_END_FILE: &str = "summary.json";

/// How many runs keep their outputs under `cache/runs/`: every run writes
/// two annotation files per PDF, so a large library rerun often would
/// otherwise fill the disk with old runs.
pub const KEEP_RUNS: usize = 10;

/// The run folders in `runs` (`cache/runs/`) beyond the newest `keep`,
/// oldest first. Only folders named like a run id count; undo journals
/// live elsewhere (`cache/journal/`), so `colophon undo` loses nothing.
pub fn runs_beyond(runs: &Path, keep: usize) -> Vec<PathBuf> {
    let Ok(entries) = fs::read_dir(runs) else {
        return Vec::new();
    };
    let mut ids: Vec<String> = entries
        .flatten()
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter_map(|e| e.file_name().into_string().ok())
        .filter(|id| is_run_id(id))
        .collect();
    // Ids start with the UTC time, so they sort by age.
    ids.sort();
    let surplus = ids.len().saturating_sub(keep);
    ids.into_iter()
        .take(surplus)
        .map(|id| runs.join(id))
        .collect()
}

/// Deletes the folder `dir` and everything under it (symbolic links are
/// removed, never followed) until `stop()` says so; true when it is gone.
/// Errors are skipped: an old run folder left half-deleted is taken up
/// again by the next run.
pub fn remove_tree_until(dir: &Path, stop: &dyn Fn() -> bool) -> bool {
    let Ok(entries) = fs::read_dir(dir) else {
        return fs::remove_dir(dir).is_ok() || !dir.exists();
    };
    for entry in entries.flatten() {
        if stop() {
            return false;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(t) if t.is_dir() => {
                if !remove_tree_until(&path, stop) {
                    return false;
                }
            }
            _ => {
                let _ = fs::remove_file(&path);
            }
        }
    }
    !stop() && fs::remove_dir(dir).is_ok()
}

/// `YYYYMMDD-HHMMSS-PID` or `YYYYMMDD-HHMMSS-PID-N`, as [`RunDir::create`] names runs.
fn is_run_id(s: &str) -> bool {
    let parts: Vec<&str> = s.split('-').collect();
    let digits = |p: &str, n: Option<usize>| {
        !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()) && n.is_none_or(|n| p.len() == n)
    };
    matches!(parts.len(), 3 | 4)
        && digits(parts[0], Some(8))
        && digits(parts[1], Some(6))
        && parts[2..].iter().all(|p| digits(p, None))
}

/// `YYYYMMDD-HHMMSS` in UTC, without a date crate.
fn format_utc(secs: u64) -> String {
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil-from-days (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}{m:02}{d:02}-{:02}{:02}{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Deletes the run folders beyond [`KEEP_RUNS`] while this run computes
/// documents, and only then: deleting the hundreds of thousands of small
/// files a large library's runs leave competes with writing this run's,
/// and a warm rerun (nothing computed) must stay instant. The thread waits
/// for [`Pruner::go`] (the first document sent to the workers); [`finish`](Pruner::finish)
/// stops it and deletes the oldest surplus folder within a time budget.
pub struct Pruner {
    go: crossbeam_channel::Sender<()>,
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<()>,
}

impl Pruner {
    /// Starts the (waiting) pruning thread for the folders older than `run`.
    pub fn start(run: &RunDir) -> Pruner {
        let stop = Arc::new(AtomicBool::new(false));
        let (go, wait) = crossbeam_channel::bounded::<()>(1);
        let old = run.older_runs(KEEP_RUNS);
        let thread = {
            let stop = stop.clone();
            std::thread::spawn(move || {
                if old.is_empty() || wait.recv().is_err() {
                    return;
                }
                // The lowest CPU priority: the run's own work goes first.
                // SAFETY: setpriority on this thread's id changes nothing else.
                unsafe {
                    let tid = libc::gettid() as libc::id_t;
                    libc::setpriority(libc::PRIO_PROCESS, tid, 19);
                }
                for dir in old {
                    if !remove_tree_until(&dir, &|| stop.load(Ordering::Relaxed)) {
                        break;
                    }
                }
            })
        };
        Pruner { go, stop, thread }
    }

    /// Documents are being computed: deleting may start.
    pub fn go(&self) {
        let _ = self.go.try_send(());
    }

    /// Stops the thread, then deletes the oldest surplus folder within
    /// half of this run's time so far (at least 0.2 s) unless `quitting`.
    /// Every run leaves a folder, and a rerun that computes nothing gives
    /// the thread no time: this keeps their number at `KEEP_RUNS + 1` once
    /// runs share unchanged exports by hard links (deleting a 10,000-PDF
    /// run's folder then takes 0.13 s); older folders of real files go
    /// over several runs. Returns how many surplus folders are left.
    pub fn finish(self, run: &RunDir, started: Instant, quitting: bool) -> usize {
        let Pruner { go, stop, thread } = self;
        // Dropping `go` wakes a thread still waiting for it (a run that
        // computed nothing): it then returns without deleting anything.
        drop(go);
        stop.store(true, Ordering::Relaxed);
        let _ = thread.join();
        let mut old = run.older_runs(KEEP_RUNS);
        if !old.is_empty() && !quitting {
            let budget = started
                .elapsed()
                .div_f64(2.0)
                .max(Duration::from_millis(200));
            let deadline = Instant::now() + budget;
            if remove_tree_until(&old[0], &|| Instant::now() >= deadline) {
                old.remove(0);
            }
        }
        old.len()
    }
}

/// `colophon cache prune`: deletes every run folder beyond [`KEEP_RUNS`];
/// (deleted, found).
pub fn prune_all(cache_dir: &Path) -> (usize, usize) {
    let old = runs_beyond(&cache_dir.join("runs"), KEEP_RUNS);
    let gone = old
        .iter()
        .filter(|dir| remove_tree_until(dir, &|| false))
        .count();
    (gone, old.len())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utc_format() {
        assert_eq!(format_utc(0), "19700101-000000");
        assert_eq!(format_utc(1_795_158_309), "20261120-070509");
        assert_eq!(format_utc(951_782_400), "20000229-000000");
    }

    #[test]
    fn only_the_newest_runs_are_kept() {
        let t = tempfile::tempdir().unwrap();
        let runs = t.path().join("runs");
        fs::create_dir_all(&runs).unwrap();
        // Twelve earlier runs (two in the same second), a folder of the
        // user's and a file that only look alike.
        let mut old: Vec<String> = (0..11)
            .map(|i| format!("202601{:02}-120000-4242", i + 10))
            .collect();
        old.push("20260110-120000-4242-1".into());
        for id in &old {
            fs::create_dir(runs.join(id)).unwrap();
        }
        fs::create_dir(runs.join("notes-20260101")).unwrap();
        fs::write(runs.join("20250101-000000-1"), "not a folder").unwrap();
        let now = RunDir::create(t.path()).unwrap();
        now.mark_latest().unwrap();

        let gone = now.older_runs(10);
        let names: Vec<String> = gone
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        // 13 runs with this one: the 3 oldest go, in order.
        assert_eq!(
            names,
            [
                "20260110-120000-4242",
                "20260110-120000-4242-1",
                "20260111-120000-4242"
            ]
        );
        assert!(now.older_runs(100).is_empty());
        // Never this run, even when asked to keep none.
        assert!(!now.older_runs(0).contains(&now.path));
        assert!(is_run_id(&now.id), "{}", now.id);
        for bad in [
            "latest",
            "notes-20260101",
            "2026011-120000-1",
            "20260110-12000-1",
            "x-y-z",
        ] {
            assert!(!is_run_id(bad), "{bad}");
        }
    }

    #[test]
    fn tree_removal_stops_when_asked_and_never_follows_links() {
        let t = tempfile::tempdir().unwrap();
        let keep = t.path().join("keep");
        fs::create_dir(&keep).unwrap();
        fs::write(keep.join("precious.pdf"), "%PDF-").unwrap();
        let old = t.path().join("old");
        fs::create_dir_all(old.join("ann/sub")).unwrap();
        for i in 0..5 {
            fs::write(old.join(format!("ann/sub/{i}.json")), "{}").unwrap();
        }
        std::os::unix::fs::symlink(&keep, old.join("link-to-keep")).unwrap();

        // Asked to stop at once: nothing is lost, the folder stays.
        assert!(!remove_tree_until(&old, &|| true));
        assert!(old.join("ann/sub/0.json").exists());

        assert!(remove_tree_until(&old, &|| false));
        assert!(!old.exists());
        assert!(
            keep.join("precious.pdf").exists(),
            "a link's target survives"
        );
    }

    #[test]
    fn a_show_never_becomes_the_latest_run() {
        let t = tempfile::tempdir().unwrap();
        let run = RunDir::create(t.path()).unwrap();
        fs::write(run.path.join("records.jsonl"), "{}\n").unwrap();
        run.mark_latest().unwrap();
        let show = RunDir::create_show(t.path()).unwrap();
        fs::write(show.path.join("records.jsonl"), "{}\n").unwrap();
        show.mark_latest().unwrap();
        let runs = t.path().join("runs");
        assert_eq!(RunDir::find(t.path(), None).unwrap().id, run.id);
        assert_eq!(RunDir::latest(&runs).unwrap().id, run.id);
        assert_eq!(RunDir::newest(&runs).unwrap().id, run.id);
        assert_eq!(show.previous().map(|p| p.id), None);
        assert!(show.path.starts_with(t.path().join("shows")));
    }

    #[test]
    fn run_dirs_are_unique_and_latest_moves() {
        let t = tempfile::tempdir().unwrap();
        let a = RunDir::create(t.path()).unwrap();
        let b = RunDir::create(t.path()).unwrap();
        assert_ne!(a.id, b.id);
        a.mark_latest().unwrap();
        b.mark_latest().unwrap();
        let target = fs::read_link(t.path().join("runs/latest")).unwrap();
        assert_eq!(target, PathBuf::from(&b.id));
    }

    #[test]
    fn find_gives_the_latest_or_the_named_run_with_records() {
        let t = tempfile::tempdir().unwrap();
        let err = RunDir::find(t.path(), None).unwrap_err().to_string();
        assert!(err.contains("no finished run under"), "{err}");

        let a = RunDir::create(t.path()).unwrap();
        let b = RunDir::create(t.path()).unwrap();
        for r in [&a, &b] {
            fs::write(r.path.join("records.jsonl"), "").unwrap();
        }
        a.mark_latest().unwrap();
        let found = RunDir::find(t.path(), None).unwrap();
        assert_eq!((found.id, found.path), (a.id.clone(), a.path.clone()));
        let found = RunDir::find(t.path(), Some(&b.id)).unwrap();
        assert_eq!((found.id, found.path), (b.id.clone(), b.path.clone()));

        fs::remove_file(b.path.join("records.jsonl")).unwrap();
        let err = RunDir::find(t.path(), Some(&b.id)).unwrap_err().to_string();
        assert!(err.contains("has no records.jsonl"), "{err}");
        assert!(RunDir::find(t.path(), Some("20990101-000000-1")).is_err());
    }
}
