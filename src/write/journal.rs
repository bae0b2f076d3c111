//! The write journal: one JSON Lines file per run under
//! `<cache>/journal/<run-id>.jsonl`, appended and fsynced *before* each
//! step that changes the library, so that after a crash the next run knows
//! what was in flight and `undo` knows what to reverse.
//!
//! A file's write is a [`WriteEntry`] followed by events naming its `id`:
//! `done` (finished), `abandoned` (never took effect, e.g. the rename lost
//! a race), `undo-begin` and `undone`. The last event decides the entry's
//! [`State`]. A line cut short by a crash is ignored, and the next append
//! starts on a fresh line.

use serde::{Deserialize, Serialize};
use std::fs::{self, File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
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
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn record_write(&self, entry: &WriteEntry) -> io::Result<()> {
        self.append(&Line::Write(Box::new(entry.clone())))
    }
    pub(crate) fn record_done(&self, id: &str) -> io::Result<()> {
        self.append(&Line::Done { id: id.into() })
    }
    pub(crate) fn record_abandoned(&self, id: &str) -> io::Result<()> {
        self.append(&Line::Abandoned { id: id.into() })
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
            super::fsutil::sync_dir(dir)?;
        }
        Ok(())
    }

    /// Entries in the order written, each with its current state. A missing
    /// journal has no entries; unreadable lines are skipped.
    pub fn entries(&self) -> io::Result<Vec<(WriteEntry, State)>> {
        let text = match File::open(&self.path) {
            Ok(mut f) => {
                let mut s = String::new();
                f.read_to_string(&mut s)?;
                s
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(e),
        };
        let mut out: Vec<(WriteEntry, State)> = Vec::new();
        for line in text.lines() {
            let Ok(parsed) = serde_json::from_str::<Line>(line) else {
                continue;
            };
            let (id, state) = match parsed {
                Line::Write(e) => {
                    out.push((*e, State::Pending));
                    continue;
                }
                Line::Done { id } => (id, State::Done),
                Line::Abandoned { id } => (id, State::Abandoned),
                Line::UndoBegin { id } => (id, State::Undoing),
                Line::Undone { id } => (id, State::Undone),
            };
            if let Some(slot) = out.iter_mut().rev().find(|(e, _)| e.id == id) {
                slot.1 = state;
            }
        }
        Ok(out)
    }

    /// Time of the first entry (for "the last run"), else 0.
    pub(crate) fn started_ms(&self) -> u64 {
        self.entries()
            .ok()
            .and_then(|e| e.first().map(|(e, _)| e.ts_ms))
            .unwrap_or(0)
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
            out.push(Journal { path: p });
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

    fn entry(id: &str) -> WriteEntry {
        WriteEntry {
            id: id.into(),
            run_id: "r1".into(),
            ts_ms: 5,
            old_path: "/a/old.pdf".into(),
            new_path: "/a/new.pdf".into(),
            temp_path: None,
            old_hash: "00".into(),
            new_hash: "11".into(),
            original_len: 10,
            new_len: 20,
            original_mtime: Some((1, 2)),
            annotations: vec![AnnotationBackup {
                path: "/a/new--ann.md".into(),
                previous_base64: None,
            }],
        }
    }

    #[test]
    fn states_follow_last_event_and_partial_lines_are_skipped() {
        let dir = tempfile::tempdir().unwrap();
        let j = Journal::for_run(dir.path(), "run/1");
        assert!(j.path().ends_with("journal/run_1.jsonl"));
        j.record_write(&entry("a")).unwrap();
        j.record_write(&entry("b")).unwrap();
        j.record_done("a").unwrap();
        // Simulate a crash in the middle of an append.
        let mut f = OpenOptions::new().append(true).open(j.path()).unwrap();
        f.write_all(b"{\"event\":\"done\",\"i").unwrap();
        drop(f);
        j.record_abandoned("b").unwrap();
        j.record_write(&entry("c")).unwrap();
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
        assert_eq!(e[0].0, entry("a"));
        j.record_undone("a").unwrap();
        assert_eq!(j.entries().unwrap()[0].1, State::Undone);
        assert_eq!(all_journals(dir.path()).unwrap().len(), 1);
    }

    #[test]
    fn ids_differ() {
        let p = Path::new("/x");
        assert_ne!(new_id(p), new_id(p));
    }
}
