//! The write journal: one JSON Lines file per run under
//! `<cache>/journal/<run-id>.jsonl`, appended and fsynced *before* each
//! step that changes the library, so that after a crash the next run knows
//! what was in flight and `undo` knows what to reverse.
//!
//! A file's write is a [`WriteEntry`] followed by events naming its `id`:
//! `done` (finished), `abandoned` (never took effect, e.g. the rename lost
//! a race), `failed` (an error stopped it and what it had made was taken
//! back, with the reason), `undo-begin` and `undone`. The last event
//! decides the entry's [`State`]. A line cut short by a crash is ignored, and the next append
//! starts on a fresh line.
//!
//! Paths are stored relative to the project root (the cache folder's
//! parent, SPEC 2), so a copied or moved project undoes its own files and
//! never those of the place it was copied from. Journals of older versions
//! hold absolute paths: they are used only when the path lies inside the
//! current root. An entry naming a path outside the root (or climbing out
//! of it with `..`) is never acted on; [`Contents::refused`] lists it with
//! the reason.
//!
//! A line that is not valid UTF-8 or not a journal record (a torn append,
//! a disk error, an edit) is skipped; [`Journal::repair`] moves such lines
//! to `<run-id>.jsonl.damaged` so that they are reported once, not on
//! every run.

use crate::util::relpath::{RelPathError, library_relative};
use serde::{Deserialize, Serialize};
use std::fs::{self, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::Mutex;
use std::time::{SystemTime, UNIX_EPOCH};

/// One PDF write (or rename, or creation of annotation exports only).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct WriteEntry {
    /// Unique within the journal; events refer to it.
    pub id: String,
    pub run_id: String,
    /// Milliseconds since the Unix epoch when the entry was made.
    pub ts_ms: u64,
    /// Where the PDF was, and where it is after the write (may be equal).
    pub old_path: PathBuf,
    pub new_path: PathBuf,
    /// The temporary file holding the new content before the rename.
    pub temp_path: Option<PathBuf>,
    /// blake3 (hex) before and after; equal for a pure rename.
    pub old_hash: String,
    pub new_hash: String,
    /// Length of the original: undo truncates to it (the update is a pure append).
    pub original_len: u64,
    pub new_len: u64,
    /// Modification time of the original (seconds, nanoseconds since the
    /// epoch), restored by undo.
    pub original_mtime: Option<(u64, u32)>,
    /// Annotation exports this write creates or replaces.
    pub annotations: Vec<AnnotationBackup>,
}

/// An annotation export and what was at its path before (base64), so undo
/// can delete a created file or put back a replaced one.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AnnotationBackup {
    pub path: PathBuf,
    pub previous_base64: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
enum Line {
    Write(Box<WriteEntry>),
    Done { id: String },
    Abandoned { id: String },
    Failed { id: String, reason: String },
    UndoBegin { id: String },
    Undone { id: String },
}

/// Where an entry stands, from its last event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum State {
    /// Journaled, not known to be finished: a crash may have cut it short.
    Pending,
    Done,
    Abandoned,
    /// An error stopped the write (or a crash left it half done and it
    /// could not be finished) and the library was put back as it was: never
    /// in effect, nothing to undo.
    Failed,
    /// Undo started, not known to be finished.
    Undoing,
    Undone,
}

/// Serialises appends from parallel writers in this process; each append
/// is one `write` of a whole line in append mode, then fsync.
static APPEND_LOCK: Mutex<()> = Mutex::new(());

/// The journal of one run.
#[derive(Debug, Clone)]
pub struct Journal {
    path: PathBuf,
    /// The project root: stored paths are relative to it.
    root: PathBuf,
}

/// What a journal file holds, as [`Journal::read`] found it.
#[derive(Debug, Clone, Default)]
pub struct Contents {
    /// Entries inside the project, paths made absolute, in the order
    /// written, each with its state.
    pub entries: Vec<(WriteEntry, State)>,
    /// Entries that name a path outside the project root: never acted on.
    /// The paths are as stored; the string says why.
    pub refused: Vec<(WriteEntry, State, String)>,
    /// 1-based numbers of the lines that were skipped as damaged.
    pub damaged: Vec<usize>,
}

impl Journal {
    /// `<cache_dir>/journal/<run_id>.jsonl` (characters outside
    /// `[A-Za-z0-9._-]` in the run id become `_`).
    pub fn for_run(cache_dir: &Path, run_id: &str) -> Journal {
        let safe: String = run_id
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                    c
                } else {
                    '_'
                }
            })
            .collect();
        Journal {
            path: journal_dir(cache_dir).join(format!("{safe}.jsonl")),
            root: root_of(cache_dir),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `path` relative to the project root, as the journal stores it;
    /// `None` when it lies outside the root (such a file is not written).
    pub(crate) fn relative(&self, path: &Path) -> Option<PathBuf> {
        relative_to(&self.root, path)
    }

    /// Journals `entry` (absolute paths), storing its paths relative to
    /// the project root. A path outside the root is an error.
    pub(crate) fn record_write(&self, entry: &WriteEntry) -> io::Result<()> {
        let rel = |p: &Path| {
            self.relative(p).ok_or_else(|| {
                io::Error::other(format!(
                    "{} is outside the project {}",
                    p.display(),
                    self.root.display()
                ))
            })
        };
        let mut stored = entry.clone();
        stored.old_path = rel(&entry.old_path)?;
        stored.new_path = rel(&entry.new_path)?;
        stored.temp_path = entry.temp_path.as_deref().map(rel).transpose()?;
        for a in &mut stored.annotations {
            a.path = rel(&a.path)?;
        }
        self.append(&Line::Write(Box::new(stored)))
    }
    pub(crate) fn record_done(&self, id: &str) -> io::Result<()> {
        self.append(&Line::Done { id: id.into() })
    }
    pub(crate) fn record_abandoned(&self, id: &str) -> io::Result<()> {
        self.append(&Line::Abandoned { id: id.into() })
    }
    pub(crate) fn record_failed(&self, id: &str, reason: &str) -> io::Result<()> {
        self.append(&Line::Failed {
            id: id.into(),
            reason: reason.into(),
        })
    }
    pub(crate) fn record_undo_begin(&self, id: &str) -> io::Result<()> {
        self.append(&Line::UndoBegin { id: id.into() })
    }
    pub(crate) fn record_undone(&self, id: &str) -> io::Result<()> {
        self.append(&Line::Undone { id: id.into() })
    }

    fn append(&self, line: &Line) -> io::Result<()> {
        let mut text = serde_json::to_string(line).map_err(io::Error::other)?;
        text.push('\n');
        self.append_text(text)
    }

    /// Appends whole lines (`text` ends with a newline) in one write, then
    /// fsyncs.
    fn append_text(&self, mut text: String) -> io::Result<()> {
        let _guard = APPEND_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let dir = self.path.parent().expect("journal path has a parent");
        let created = !self.path.exists();
        if created {
            fs::create_dir_all(dir)?;
        }
        let mut f = OpenOptions::new()
            .create(true)
            .append(true)
            .read(true)
            .open(&self.path)?;
        // A crash mid-append leaves a partial line; start a new one so the
        // next record is not glued to it.
        let len = f.metadata()?.len();
        if len > 0 {
            let mut last = [0u8; 1];
            f.seek(SeekFrom::Start(len - 1))?;
            f.read_exact(&mut last)?;
            if last[0] != b'\n' {
                text.insert(0, '\n');
            }
        }
        f.write_all(text.as_bytes())?;
        f.sync_data()?;
        if created {
            crate::util::fs::sync_dir(dir)?;
        }
        Ok(())
    }

    /// Moves this journal (a shard's run) to the end of `into` (the
    /// merged run's, `colophon merge`), its writes renamed to `run_id`:
    /// every write keeps one journal, so `undo` of the merged run reverses
    /// the writes of every shard, and none can be undone twice. Damaged
    /// lines stay behind (in this file's `.damaged` companion). Appended
    /// and fsynced before this file is removed: a crash in between leaves
    /// the writes in both, where the second undo finds them undone.
    /// Returns the number of writes moved.
    pub fn move_into(&self, into: &Journal, run_id: &str) -> io::Result<usize> {
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(0),
            Err(e) => return Err(e),
        };
        let (mut text, mut writes) = (String::new(), 0);
        for line in bytes.split(|&b| b == b'\n') {
            let Some(mut parsed) = std::str::from_utf8(line)
                .ok()
                .and_then(|l| serde_json::from_str::<Line>(l).ok())
            else {
                continue;
            };
            if let Line::Write(e) = &mut parsed {
                e.run_id = run_id.to_string();
                writes += 1;
            }
            text.push_str(&serde_json::to_string(&parsed).map_err(io::Error::other)?);
            text.push('\n');
        }
        if !text.is_empty() {
            into.append_text(text)?;
        }
        fs::remove_file(&self.path)?;
        Ok(writes)
    }

    /// Entries inside the project in the order written, each with its
    /// current state (see [`Journal::read`] for the rest).
    #[cfg(test)]
    pub fn entries(&self) -> io::Result<Vec<(WriteEntry, State)>> {
        Ok(self.read()?.entries)
    }

    /// The whole journal: entries inside the project (paths resolved
    /// against the root), entries refused for naming paths outside it, and
    /// the damaged lines that were skipped. A missing journal is empty.
    pub fn read(&self) -> io::Result<Contents> {
        let bytes = match fs::read(&self.path) {
            Ok(b) => b,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Contents::default()),
            Err(e) => return Err(e),
        };
        // (entry, state, why refused) in the order written.
        let mut all: Vec<(WriteEntry, State, Option<String>)> = Vec::new();
        let mut damaged = Vec::new();
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            // A torn line may end inside a multi-byte character: judge
            // each line on its own, never the file as one string.
            let Some(parsed) = std::str::from_utf8(line)
                .ok()
                .and_then(|l| serde_json::from_str::<Line>(l).ok())
            else {
                damaged.push(n + 1);
                continue;
            };
            let (id, state) = match parsed {
                Line::Write(e) => {
                    let resolved = self.resolve(&e);
                    match resolved {
                        Ok(e) => all.push((e, State::Pending, None)),
                        Err(why) => all.push((*e, State::Pending, Some(why))),
                    }
                    continue;
                }
                Line::Done { id } => (id, State::Done),
                Line::Abandoned { id } => (id, State::Abandoned),
                Line::Failed { id, .. } => (id, State::Failed),
                Line::UndoBegin { id } => (id, State::Undoing),
                Line::Undone { id } => (id, State::Undone),
            };
            if let Some(slot) = all.iter_mut().rev().find(|(e, _, _)| e.id == id) {
                slot.1 = state;
            }
        }
        let mut out = Contents {
            damaged,
            ..Contents::default()
        };
        for (e, state, why) in all {
            match why {
                None => out.entries.push((e, state)),
                Some(why) => out.refused.push((e, state, why)),
            }
        }
        Ok(out)
    }

    /// The entry with its paths made absolute, or why it must not be
    /// acted on.
    fn resolve(&self, stored: &WriteEntry) -> Result<WriteEntry, String> {
        let abs = |p: &Path| resolve_in(&self.root, p);
        let mut e = stored.clone();
        e.old_path = abs(&stored.old_path)?;
        e.new_path = abs(&stored.new_path)?;
        e.temp_path = stored.temp_path.as_deref().map(abs).transpose()?;
        for a in &mut e.annotations {
            a.path = abs(&a.path)?;
        }
        // Settling and undo delete a write's temporary file and the
        // annotation exports it created: an entry whose paths are anything
        // else (an edited journal) must never make them delete a PDF.
        if let Some(t) = &e.temp_path
            && !crate::util::fs::is_temp_file(t)
        {
            return Err(format!("{} is not a colophon temporary file", t.display()));
        }
        if let Some(a) = e.annotations.iter().find(|a| {
            let name = a.path.to_string_lossy();
            !name.ends_with(crate::name::ANN_MD_SUFFIX)
                && !name.ends_with(crate::name::ANN_JSON_SUFFIX)
        }) {
            return Err(format!("{} is not an annotation export", a.path.display()));
        }
        Ok(e)
    }

    /// Moves the damaged lines of this journal to `<journal>.damaged`
    /// (appended, so nothing is lost) and rewrites the journal without
    /// them, atomically. Returns a warning naming both files when there
    /// was anything to move. Only while no other process writes the
    /// journal (the caller holds the project lock).
    pub(crate) fn repair(&self) -> io::Result<Option<String>> {
        let contents = self.read()?;
        if contents.damaged.is_empty() {
            return Ok(None);
        }
        let bytes = fs::read(&self.path)?;
        let (mut keep, mut bad) = (Vec::new(), Vec::new());
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            let target = if contents.damaged.contains(&(n + 1)) {
                &mut bad
            } else if line.is_empty() {
                continue;
            } else {
                &mut keep
            };
            target.extend_from_slice(line);
            target.push(b'\n');
        }
        let aside = self.damaged_path();
        let _guard = APPEND_LOCK.lock().unwrap_or_else(|p| p.into_inner());
        let mut f = OpenOptions::new().create(true).append(true).open(&aside)?;
        f.write_all(&bad)?;
        f.sync_data()?;
        crate::util::fs::write_atomic(&self.path, &keep)?;
        let lines = contents
            .damaged
            .iter()
            .map(usize::to_string)
            .collect::<Vec<_>>()
            .join(", ");
        Ok(Some(format!(
            "the write journal {} had {} damaged line(s) (line {lines}: not valid UTF-8 or not a journal record); skipped them and moved them to {}",
            self.path.display(),
            contents.damaged.len(),
            aside.display()
        )))
    }

    /// `<journal>.damaged`: where [`Journal::repair`] keeps the lines it removed.
    pub fn damaged_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".damaged");
        PathBuf::from(name)
    }

    /// Time of the first entry (for "the last run"), else 0.
    pub(crate) fn started_ms(&self) -> u64 {
        self.read()
            .ok()
            .and_then(|c| {
                let first = c.entries.first().map(|(e, _)| e.ts_ms);
                let refused = c.refused.first().map(|(e, _, _)| e.ts_ms);
                first.into_iter().chain(refused).min()
            })
            .unwrap_or(0)
    }
}

/// The project root of the cache folder `cache_dir` (`<root>/cache`, SPEC 2,
/// or a shard's `<root>/cache/shards/<N>/<I>`: a shard's journal names the
/// project's files, so that `merge` can move it to the project's journals).
pub(crate) fn root_of(cache_dir: &Path) -> PathBuf {
    match crate::shard::main_cache_dir(cache_dir).parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    }
}

/// `path` relative to `root`, when it lies inside it: lexically, or after
/// resolving symbolic links of the root, or under the resolved `data/`
/// folder (which may be a symlink to the library, SPEC 2; `show` names
/// files by their resolved path).
fn relative_to(root: &Path, path: &Path) -> Option<PathBuf> {
    let plain = |base: &Path| {
        path.strip_prefix(base)
            .ok()
            .filter(|r| r.components().all(|c| matches!(c, Component::Normal(_))))
            .map(Path::to_path_buf)
    };
    if let Some(r) = plain(root) {
        return Some(r);
    }
    if let Some(r) = fs::canonicalize(root).ok().and_then(|c| plain(&c)) {
        return Some(r);
    }
    fs::canonicalize(root.join("data"))
        .ok()
        .and_then(|c| plain(&c))
        .map(|r| Path::new("data").join(r))
}

/// A stored path made absolute under `root`, or why it is refused: a
/// relative path must not climb out of the root, and an absolute one (a
/// journal of an older version) must already lie inside it.
fn resolve_in(root: &Path, stored: &Path) -> Result<PathBuf, String> {
    if stored.is_absolute() {
        return match relative_to(root, stored) {
            Some(rel) => Ok(root.join(rel)),
            None => Err(format!(
                "{} is outside this project ({}); the journal may come from a copy of the project elsewhere",
                stored.display(),
                root.display()
            )),
        };
    }
    // Paths from disk may have been edited: normalised, and refused when
    // they climb out of the root (the ground floor's rule for every path
    // read back from a file).
    match stored
        .to_str()
        .ok_or(RelPathError::Nul)
        .and_then(library_relative)
    {
        Ok(rel) => Ok(root.join(rel)),
        Err(why) => Err(format!(
            "{} is not a path inside this project ({}): {why}",
            stored.display(),
            root.display()
        )),
    }
}

/// `<cache_dir>/journal`.
pub fn journal_dir(cache_dir: &Path) -> PathBuf {
    cache_dir.join("journal")
}

/// Every run journal in the cache.
pub fn all_journals(cache_dir: &Path) -> io::Result<Vec<Journal>> {
    let dir = journal_dir(cache_dir);
    let rd = match fs::read_dir(&dir) {
        Ok(rd) => rd,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let mut out = Vec::new();
    for e in rd {
        let p = e?.path();
        if p.extension().is_some_and(|x| x == "jsonl") {
            out.push(Journal {
                path: p,
                root: root_of(cache_dir),
            });
        }
    }
    out.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(out)
}

pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as u64)
        .unwrap_or(0)
}

/// A fresh entry id: unique enough across processes and threads.
pub(crate) fn new_id(seed: &Path) -> String {
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let mut h = blake3::Hasher::new();
    h.update(&std::process::id().to_le_bytes());
    h.update(&COUNTER.fetch_add(1, Ordering::Relaxed).to_le_bytes());
    h.update(
        &SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0)
            .to_le_bytes(),
    );
    h.update(seed.as_os_str().as_encoded_bytes());
    h.finalize().to_hex()[..16].to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(root: &Path, id: &str) -> WriteEntry {
        WriteEntry {
            id: id.into(),
            run_id: "r1".into(),
            ts_ms: 5,
            old_path: root.join("data/old.pdf"),
            new_path: root.join("data/new.pdf"),
            temp_path: None,
            old_hash: "00".into(),
            new_hash: "11".into(),
            original_len: 10,
            new_len: 20,
            original_mtime: Some((1, 2)),
            annotations: vec![AnnotationBackup {
                path: root.join("data/new--ann.md"),
                previous_base64: None,
            }],
        }
    }

    /// A project root and its journal of run `run`.
    fn project(run: &str) -> (tempfile::TempDir, Journal) {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::for_run(&dir.path().join("cache"), run);
        (dir, j)
    }

    #[test]
    fn states_follow_last_event_and_partial_lines_are_skipped() {
        let (dir, j) = project("run/1");
        let root = dir.path();
        assert!(j.path().ends_with("cache/journal/run_1.jsonl"));
        j.record_write(&entry(root, "a")).unwrap();
        j.record_write(&entry(root, "b")).unwrap();
        j.record_done("a").unwrap();
        // Simulate a crash in the middle of an append.
        let mut f = OpenOptions::new().append(true).open(j.path()).unwrap();
        f.write_all(b"{\"event\":\"done\",\"i").unwrap();
        drop(f);
        j.record_abandoned("b").unwrap();
        j.record_write(&entry(root, "c")).unwrap();
        j.record_undo_begin("a").unwrap();
        let e = j.entries().unwrap();
        let states: Vec<_> = e.iter().map(|(e, s)| (e.id.as_str(), *s)).collect();
        assert_eq!(
            states,
            [
                ("a", State::Undoing),
                ("b", State::Abandoned),
                ("c", State::Pending)
            ]
        );
        assert_eq!(e[0].0, entry(root, "a"));
        j.record_undone("a").unwrap();
        assert_eq!(j.entries().unwrap()[0].1, State::Undone);
        assert_eq!(all_journals(&root.join("cache")).unwrap().len(), 1);
    }

    #[test]
    fn paths_are_stored_relative_to_the_project_root() {
        let (dir, j) = project("r");
        j.record_write(&entry(dir.path(), "a")).unwrap();
        let text = fs::read_to_string(j.path()).unwrap();
        assert!(text.contains("\"old_path\":\"data/old.pdf\""), "{text}");
        assert!(text.contains("\"path\":\"data/new--ann.md\""), "{text}");
        assert!(!text.contains(&*dir.path().to_string_lossy()), "{text}");

        // The same journal in a copy of the project names the copy's files.
        let copy = tempfile::tempdir().unwrap();
        let moved = Journal::for_run(&copy.path().join("cache"), "r");
        fs::create_dir_all(moved.path().parent().unwrap()).unwrap();
        fs::copy(j.path(), moved.path()).unwrap();
        assert_eq!(moved.entries().unwrap()[0].0, entry(copy.path(), "a"));

        // A file outside the root cannot be journaled.
        let mut outside = entry(dir.path(), "b");
        outside.new_path = copy.path().join("data/x.pdf");
        assert!(j.record_write(&outside).is_err());
        assert!(j.relative(&copy.path().join("data/x.pdf")).is_none());
    }

    #[test]
    fn old_absolute_paths_count_only_inside_the_root() {
        let (dir, j) = project("old");
        let other = tempfile::tempdir().unwrap();
        fs::create_dir_all(j.path().parent().unwrap()).unwrap();
        // Journals of older versions: whole entries with absolute paths.
        let line = |root: &Path, id: &str| {
            serde_json::to_string(&Line::Write(Box::new(entry(root, id)))).unwrap()
        };
        let climbing = serde_json::to_string(&Line::Write(Box::new(WriteEntry {
            old_path: "data/../../elsewhere.pdf".into(),
            ..entry(Path::new(""), "c")
        })))
        .unwrap();
        fs::write(
            j.path(),
            format!(
                "{}\n{}\n{climbing}\n{{\"event\":\"done\",\"id\":\"b\"}}\n",
                line(dir.path(), "a"),
                line(other.path(), "b")
            ),
        )
        .unwrap();
        let c = j.read().unwrap();
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.entries[0].0, entry(dir.path(), "a"));
        let refused: Vec<_> = c
            .refused
            .iter()
            .map(|(e, s, _)| (e.id.as_str(), *s))
            .collect();
        assert_eq!(refused, [("b", State::Done), ("c", State::Pending)]);
        assert!(c.refused[0].2.contains("outside this project"), "{c:?}");
        assert!(c.refused[1].2.contains("leaves the library"), "{c:?}");
        assert!(c.damaged.is_empty());
    }

    #[test]
    fn a_line_torn_inside_a_character_is_set_aside_with_a_warning() {
        let (dir, j) = project("torn");
        let mut e = entry(dir.path(), "a");
        e.new_path = dir.path().join("data/Gödel, Escher, Bach.pdf");
        j.record_write(&e).unwrap();
        // A torn append: the line stops after the first byte of "ö".
        let full = serde_json::to_string(&Line::Write(Box::new(entry(dir.path(), "b")))).unwrap();
        let torn = format!("{}\"Gö", &full[..40]);
        let cut = torn.len() - 1;
        let mut f = OpenOptions::new().append(true).open(j.path()).unwrap();
        f.write_all(&torn.as_bytes()[..cut]).unwrap();
        drop(f);
        // The next append starts a fresh line after the torn one.
        j.record_done("a").unwrap();
        assert!(std::str::from_utf8(&fs::read(j.path()).unwrap()).is_err());

        let c = j.read().unwrap();
        assert_eq!(c.damaged, [2]);
        assert_eq!(c.entries.len(), 1);
        assert_eq!(c.entries[0], (e.clone(), State::Done));

        let warning = j.repair().unwrap().expect("a warning");
        assert!(warning.contains(&*j.path().to_string_lossy()), "{warning}");
        assert!(warning.contains("line 2"), "{warning}");
        let aside = fs::read(j.damaged_path()).unwrap();
        assert!(aside.starts_with(&torn.as_bytes()[..cut]));
        // Repaired: valid UTF-8, same entries, nothing more to report.
        assert!(String::from_utf8(fs::read(j.path()).unwrap()).is_ok());
        assert_eq!(j.read().unwrap().entries, [(e, State::Done)]);
        assert!(j.repair().unwrap().is_none());
    }

    #[test]
    fn ids_differ() {
        let p = Path::new("/x");
        assert_ne!(new_id(p), new_id(p));
    }
}
