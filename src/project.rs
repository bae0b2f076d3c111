//! Where a project lives (SPEC 2): the root is the nearest directory, from
//! the current one upwards, holding `colophon.toml` (else the current
//! directory); `data/` and `cache/` sit under it at fixed places. Also the
//! one-call entry point [`load`] that the binary uses to get the project and
//! its effective settings before any work starts, and the project lock
//! ([`Project::lock`]) that keeps two colophon processes from changing one
//! library at once.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use crate::cli::Cli;
use crate::settings::{CONFIG_FILE, Provenance, Settings, SettingsError};

/// The folders of one project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Project {
    /// The directory holding `colophon.toml` (or the start directory).
    pub root: PathBuf,
    /// `<root>/data`: fixed, not configurable (seed 1.1); a symlink there is
    /// the supported way to point elsewhere.
    pub data_dir: PathBuf,
    /// `<root>/cache`: the store and run outputs; deleting it loses only time.
    pub cache_dir: PathBuf,
}

/// Where a run reads and writes.
#[derive(Debug, Clone)]
pub struct Paths {
    pub data_dir: PathBuf,
    pub cache_dir: PathBuf,
}

impl Project {
    /// The project rooted at `root`.
    pub fn at(root: impl Into<PathBuf>) -> Project {
        let root = root.into();
        Project {
            data_dir: root.join("data"),
            cache_dir: root.join("cache"),
            root,
        }
    }

    /// The project containing `start` (see [`find_root`]).
    pub fn find(start: &Path) -> Project {
        Project::at(find_root(start))
    }

    /// `<root>/colophon.toml` (which may not exist).
    pub fn config_path(&self) -> PathBuf {
        self.root.join(CONFIG_FILE)
    }

    /// `<root>/cache/lock`: the file [`Project::lock`] locks.
    pub fn lock_path(&self) -> PathBuf {
        self.cache_dir.join(LOCK_FILE)
    }

    /// Takes the project lock, or says that another colophon process holds
    /// it. Every command that changes files under `data/` or reads the
    /// write journal (`run`, `show`, `undo`) holds it for its whole length,
    /// so that what one of them finds unfinished (a journal entry, a
    /// `.colophon-tmp-*` file) is a leftover of a process that is gone,
    /// never the work of one still running.
    ///
    /// The lock is `flock(LOCK_EX | LOCK_NB)` on `cache/lock` (created if
    /// missing; it holds the owner's process id, for the message only).
    /// The kernel releases it when the process ends, however it ends, so a
    /// kill never leaves a stale lock; file descriptors are opened
    /// close-on-exec, so worker processes do not inherit it.
    pub fn lock(&self) -> Result<ProjectLock, LockError> {
        let file = flock(&self.cache_dir, &self.lock_path(), libc::LOCK_EX)?;
        Ok(ProjectLock { _files: vec![file] })
    }

    /// The lock of one shard of a sharded run (`shard_cache` is its
    /// folder, `cache/shards/<N>/<I>`): the project lock *shared* with the
    /// other shards, so that they run side by side while an unsharded run,
    /// an `undo` or a `merge` (which take it exclusively) waits for all of
    /// them, and the shard's own lock exclusively, so that one shard never
    /// runs twice at once (a scheduler's retry while the first attempt
    /// still runs). On shared storage this needs `flock` to work across
    /// nodes (NFSv4 and Lustre with `-o flock` do).
    pub fn lock_shard(&self, shard_cache: &Path) -> Result<ProjectLock, LockError> {
        let project = flock(&self.cache_dir, &self.lock_path(), libc::LOCK_SH)?;
        let own = flock(shard_cache, &shard_cache.join(LOCK_FILE), libc::LOCK_EX)?;
        Ok(ProjectLock {
            _files: vec![project, own],
        })
    }
}

/// `flock(mode | LOCK_NB)` on `path` (created in `dir` if missing; an
/// exclusive holder writes its process id into it, for the message only).
/// The kernel releases it when the process ends, however it ends, so a
/// kill never leaves a stale lock; file descriptors are opened
/// close-on-exec, so worker processes do not inherit it.
fn flock(dir: &Path, path: &Path, mode: i32) -> Result<File, LockError> {
    let io_err = |source| LockError::Io {
        path: path.to_path_buf(),
        source,
    };
    fs::create_dir_all(dir).map_err(io_err)?;
    let mut file = fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(path)
        .map_err(io_err)?;
    #[cfg(unix)]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: flock on a descriptor this function owns.
        let rc = unsafe { libc::flock(file.as_raw_fd(), mode | libc::LOCK_NB) };
        if rc != 0 {
            let e = io::Error::last_os_error();
            if e.raw_os_error() == Some(libc::EWOULDBLOCK) {
                let holder = fs::read_to_string(path)
                    .ok()
                    .and_then(|s| s.trim().parse::<u32>().ok());
                return Err(LockError::Busy {
                    path: path.to_path_buf(),
                    holder,
                });
            }
            return Err(io_err(e));
        }
    }
    // Only an exclusive holder writes its id; a reader may see it
    // half-written, which only spoils the message. Shared holders leave
    // it alone (there are several).
    if mode == libc::LOCK_EX {
        let _ = file.set_len(0);
        let _ = write!(file, "{}", std::process::id());
    }
    Ok(file)
}

/// Name of the lock file in the cache folder.
pub const LOCK_FILE: &str = "lock";

/// The project lock, held until dropped (or the process ends).
#[derive(Debug)]
pub struct ProjectLock {
    _files: Vec<File>,
}

/// Why [`Project::lock`] failed.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error(
        "the project is in use by another colophon process{}; wait for it to finish (lock file {})",
        holder.map(|p| format!(" (pid {p})")).unwrap_or_default(),
        path.display()
    )]
    Busy { path: PathBuf, holder: Option<u32> },
    #[error("cannot take the project lock {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// The nearest of `start` and its ancestors that holds a `colophon.toml`
/// file; `start` itself when none does. `start` should be absolute (the
/// current directory), or the search stops at its first component.
pub fn find_root(start: &Path) -> PathBuf {
    start
        .ancestors()
        .find(|dir| dir.join(CONFIG_FILE).is_file())
        .unwrap_or(start)
        .to_path_buf()
}

/// Finds the project from `cwd`, reads its `colophon.toml`, and resolves
/// the settings with the process environment and the flags of `cli`
/// (precedence: flag > environment > file > default). Any error means bad
/// settings: exit 2, nothing processed.
pub fn load(cli: &Cli, cwd: &Path) -> Result<(Project, Settings, Provenance), SettingsError> {
    let project = Project::find(cwd);
    let (settings, provenance) = Settings::load(&cli.overrides(), &project.root)?;
    Ok((project, settings, provenance))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;

    #[test]
    fn root_is_the_nearest_ancestor_with_a_config_file() {
        let tmp = tempfile::tempdir().unwrap();
        let outer = tmp.path().join("outer");
        let inner = outer.join("library");
        let deep = inner.join("data").join("books");
        fs::create_dir_all(&deep).unwrap();
        fs::write(outer.join(CONFIG_FILE), "").unwrap();
        assert_eq!(find_root(&deep), outer);

        // A nearer config file wins over a farther one.
        fs::write(inner.join(CONFIG_FILE), "").unwrap();
        assert_eq!(find_root(&deep), inner);
        assert_eq!(find_root(&inner), inner);
    }

    #[test]
    fn without_a_config_file_the_start_is_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        let start = tmp.path().join("a").join("b");
        fs::create_dir_all(&start).unwrap();
        // Guard: the temp dir itself must not sit under a colophon project.
        assert!(
            tmp.path()
                .ancestors()
                .all(|d| !d.join(CONFIG_FILE).is_file())
        );
        assert_eq!(find_root(&start), start);
    }

    #[test]
    fn a_directory_named_like_the_config_file_does_not_count() {
        let tmp = tempfile::tempdir().unwrap();
        let start = tmp.path().join("x");
        fs::create_dir_all(start.join(CONFIG_FILE)).unwrap();
        fs::write(tmp.path().join(CONFIG_FILE), "").unwrap();
        assert_eq!(find_root(&start), tmp.path());
    }

    #[test]
    fn project_folders_sit_under_the_root() {
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(CONFIG_FILE), "").unwrap();
        let sub = tmp.path().join("data");
        fs::create_dir_all(&sub).unwrap();
        let project = Project::find(&sub);
        assert_eq!(project.root, tmp.path());
        assert_eq!(project.data_dir, tmp.path().join("data"));
        assert_eq!(project.cache_dir, tmp.path().join("cache"));
        assert_eq!(project.config_path(), tmp.path().join(CONFIG_FILE));
    }

    #[test]
    fn a_second_lock_is_refused_until_the_first_is_dropped() {
        let tmp = tempfile::tempdir().unwrap();
        let project = Project::at(tmp.path());
        let first = project.lock().unwrap();
        // flock belongs to the open file, so a second open in the same
        // process conflicts like another process would.
        match project.lock() {
            Err(LockError::Busy { path, holder }) => {
                assert_eq!(path, project.lock_path());
                assert_eq!(holder, Some(std::process::id()));
            }
            other => panic!("expected Busy, got {other:?}"),
        }
        let msg = project.lock().unwrap_err().to_string();
        assert!(msg.contains("in use by another colophon process"), "{msg}");
        drop(first);
        project.lock().unwrap();
    }

    #[test]
    fn shards_share_the_project_lock_but_not_their_own() {
        let tmp = tempfile::tempdir().unwrap();
        let project = Project::at(tmp.path());
        let shard =
            |i: u32| crate::shard::Shard { index: i, count: 2 }.cache_dir(&project.cache_dir);
        let a = project.lock_shard(&shard(0)).unwrap();
        let b = project.lock_shard(&shard(1)).unwrap();
        // The same shard twice, or the whole project, must wait.
        assert!(matches!(
            project.lock_shard(&shard(0)),
            Err(LockError::Busy { path, .. }) if path == shard(0).join(LOCK_FILE)
        ));
        assert!(matches!(project.lock(), Err(LockError::Busy { .. })));
        drop((a, b));
        let whole = project.lock().unwrap();
        assert!(matches!(
            project.lock_shard(&shard(1)),
            Err(LockError::Busy { .. })
        ));
        drop(whole);
    }

    #[test]
    fn load_reads_the_file_and_applies_flags() {
        use clap::Parser;
        let tmp = tempfile::tempdir().unwrap();
        fs::write(
            tmp.path().join(CONFIG_FILE),
            "MATTER_CONFIG = { front = { max_pages = 3 }, back = { mode = \"always\" } }\n",
        )
        .unwrap();
        let cli = Cli::try_parse_from(["colophon", "config", "--back-mode", "fallback"]).unwrap();
        let (project, settings, provenance) = load(&cli, tmp.path()).unwrap();
        assert_eq!(project.root, tmp.path());
        assert_eq!(settings.matter.front.max_pages, 3);
        assert_eq!(
            settings.matter.back.mode,
            crate::settings::BackMode::Fallback
        );
        assert_eq!(
            provenance.source("MATTER_CONFIG.front.max_pages"),
            crate::settings::Source::File
        );
    }

    #[test]
    fn load_reports_a_bad_file() {
        use clap::Parser;
        let tmp = tempfile::tempdir().unwrap();
        fs::write(tmp.path().join(CONFIG_FILE), "PAGE_NUM_OFFSET = 7\n").unwrap();
        let cli = Cli::try_parse_from(["colophon"]).unwrap();
        let err = load(&cli, tmp.path()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid setting PAGE_NUM_OFFSET = 7 (from colophon.toml): allowed values are 0 or 1"
        );
    }
}
