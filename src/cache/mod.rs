//! The embedded cache (sled under `cache/db`, page texts in files under
//! `cache/pages/`, see [`pages`]): every stage's result, keyed by the
//! content hash of the document plus a fingerprint of exactly the inputs
//! that can change that result. Values are postcard.
//!
//! Which input reaches which stage (each row is proved by a unit test in
//! `keys.rs`: "X changed → only these keys changed"; page files are named
//! by content hash and inspect version, `pages.rs` tests them). The
//! settings enter the OCR and record keys from the `affects` column of the
//! settings' schema (`settings::Affects`, `KeyBuilder::settings`), and
//! `every_setting_enters_exactly_the_keys_its_row_names` changes every
//! setting in turn against that column:
//!
//! | input                                   | memo | doc | page | ocr | vision | record | written |
//! |-----------------------------------------|------|-----|------|-----|--------|--------|---------|
//! | file content (blake3)                   |      |  ✓  |  ✓   |  ✓  |        |   ✓    |    ✓    |
//! | (device, inode, size, mtime)            |  ✓   |     |      |     |        |        |         |
//! | page index                              |      |     |  ✓   |  ✓  |        |        |         |
//! | rendered page image (blake3)            |      |     |      |     |   ✓    |        |         |
//! | `MATTER_CONFIG.front.max_pages`         |      |     |      |     |        |   ✓    |         |
//! | `MATTER_CONFIG.front.stop_when_sure`    |      |     |      |     |        |   ✓    |         |
//! | `MATTER_CONFIG.back` (mode, max, fields)|      |     |      |     |        |   ✓    |         |
//! | `OCR_LANGUAGES`, `OCR_DPI`, tesseract   |      |     |      |  ✓  |        |   ✓    |         |
//! | `ANALYZE_WITH_VISION`, thresholds       |      |     |      |     |        |   ✓    |         |
//! | `VLM_MODEL`, prompt version             |      |     |      |     |   ✓    |   ✓ (when vision is on) | |
//! | decided metadata, proposed and current name |  |     |      |     |        |        |    ✓    |
//! | stage versions (`*_VERSION`)            |      | own | own  | own | own    | all upstream |   |
//!
//! The `online` tree holds the online catalogues' answers, keyed by
//! source, identifier and `online::ONLINE_VERSION` (the parsers' version)
//! only: an answer is about an identifier, not about a file or a setting.
//! Catalogue answers are merged into the record when it is reported, so
//! `ONLINE_LOOKUP` and the `ONLINE_*` settings enter no record key and
//! turning `--online` on or off recomputes nothing. "Not found" answers
//! carry their time and expire after `ONLINE_NEGATIVE_TTL_DAYS`; failed
//! lookups are never stored.
//!
//! Not in any key, because they do not change a result: `--jobs`, `--json`,
//! `-q`/`-v`, `PAGE_NUM_OFFSET` (records store 0-based pages and convert
//! when shown), `FILENAME_TEMPLATE` and `MAX_FILENAME_LENGTH` (names are
//! computed from the cached metadata on every run, which is cheap),
//! `WRITE_PDF_CHANGES`, `VLM_TIMEOUT`/retries/endpoint/port/concurrency
//! (how to reach the backend, not what it answers), `SHARDS` and the
//! shard (which files a run takes, not what it finds in one: a shard's
//! entries are valid in every other store, which is how `merge` can
//! import them).
//!
//! The cache never fails a run: an entry that does not decode (corrupt, or
//! written by an older layout) is a miss with one warning, a failed store is
//! a warning. Failed results are never stored, with one exception: the
//! failure of a document that reading the same bytes again would repeat (a
//! broken or encrypted PDF) is stored in the record tree under
//! `keys::failure_key` (the record key plus the colophon version), so a
//! warm rerun does not read it again; `--retry-errors` or a new version
//! does. Timeouts, crashed workers, I/O errors and missing installations
//! are never stored.

mod answers;
pub mod keys;
mod pages;

pub use answers::VisionAnswers;

pub use keys::Key;

use crate::model::{DocHash, PageText};
use pages::PageStore;

use serde::Serialize;
use serde::de::DeserializeOwned;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

/// The kinds of entries, one sled tree each (page texts, the largest by
/// far, are files: [`Cache::pages`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Tree {
    /// (device, inode, size, mtime) → content hash.
    Memo,
    /// content hash → page count and existing metadata.
    Doc,
    /// content hash + page index + dpi, languages, engine and OCR version →
    /// OCR text ([`keys::ocr_key`]: looked up without rendering the page).
    Ocr,
    /// page image + model + prompt → vision answer.
    Vision,
    /// content hash + every setting the result reads → the decided record.
    Record,
    /// content hash + metadata + name → "written already" (write mode).
    Written,
    /// source + identifier + parser version → a catalogue's answer.
    Online,
}

impl Tree {
    pub const ALL: [Tree; 7] = [
        Tree::Memo,
        Tree::Doc,
        Tree::Ocr,
        Tree::Vision,
        Tree::Record,
        Tree::Written,
        Tree::Online,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Tree::Memo => "memo",
            Tree::Doc => "doc",
            Tree::Ocr => "ocr",
            Tree::Vision => "vision",
            Tree::Record => "record",
            Tree::Written => "written",
            Tree::Online => "online",
        }
    }
}

/// Opening the store can fail in one way a user must act on.
#[derive(Debug, thiserror::Error)]
pub enum CacheError {
    #[error(
        "the cache {0} is in use by another colophon process; wait for it to finish \
         (only one run at a time may use a project's cache)"
    )]
    Locked(PathBuf),
    #[error(
        "cannot open the cache {path}: {source}; delete the folder to start afresh (it only holds results that can be recomputed)"
    )]
    Open {
        path: PathBuf,
        #[source]
        source: sled::Error,
    },
}

pub struct Cache {
    db: sled::Db,
    trees: Vec<sled::Tree>,
    pages: PageStore,
    dir: PathBuf,
    /// sled recovered less than the last clean close left (see
    /// [`Cache::open`]).
    lost_on_recovery: bool,
    warned: AtomicBool,
    /// Where warnings go during a run (else stderr).
    reporter: std::sync::OnceLock<std::sync::Arc<dyn crate::progress::Reporter>>,
}

impl fmt::Debug for Cache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Cache").field("dir", &self.dir).finish()
    }
}

/// Entries and stored bytes of one tree.
#[derive(Debug, Clone, PartialEq)]
pub struct TreeStats {
    pub name: &'static str,
    pub entries: usize,
    pub bytes: u64,
}

impl Cache {
    /// Opens (or creates) the store under `cache_dir/db`.
    ///
    /// sled recovers a damaged log silently: it replays the log up to the
    /// first message whose checksum fails and drops the rest, and says so
    /// only through the `log` crate at debug level, the same words it uses
    /// for the torn tail a kill leaves. Nor does its API tell (`was_recovered`
    /// only means "an existing store was opened"). So colophon checks for
    /// itself: every clean close writes a fresh mark into the store as the
    /// last entry, flushes, and writes the same mark to the file
    /// `CLOSE_MARK_FILE` beside sled's files. sled's recovery keeps a prefix
    /// of the log, so if the mark is not back on the next open, something
    /// written before it was lost too: [`Cache::lost_on_recovery`] is true
    /// and the caller warns. The file is removed on open, so after a killed
    /// run (whose last two seconds of writes are lost by design) nothing is
    /// compared and nothing is said. Damage sled does not recover (the
    /// snapshot or config) is an [`CacheError::Open`]; an entry that cannot
    /// be read later is a miss with a warning ([`Cache::get`]).
    pub fn open(cache_dir: &Path) -> Result<Cache, CacheError> {
        let path = cache_dir.join("db");
        let db = sled::Config::new()
            .path(&path)
            // A modest page cache: the working set of a run is small, and
            // a large library must not grow our memory.
            .cache_capacity(16 * 1024 * 1024)
            .flush_every_ms(Some(2000))
            .open()
            .map_err(|source| match &source {
                sled::Error::Io(e)
                    if e.kind() == std::io::ErrorKind::WouldBlock || is_lock_error(e) =>
                {
                    CacheError::Locked(path.clone())
                }
                _ => CacheError::Open {
                    path: path.clone(),
                    source,
                },
            })?;
        let trees = Tree::ALL
            .iter()
            .map(|t| db.open_tree(t.name()))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|source| CacheError::Open {
                path: path.clone(),
                source,
            })?;
        // Caches of earlier versions kept page texts in a sled tree.
        if db
            .tree_names()
            .iter()
            .any(|n| n.as_ref() == LEGACY_PAGE_TREE)
        {
            let _ = db.drop_tree(LEGACY_PAGE_TREE);
        }
        let lost_on_recovery = lost_since_clean_close(&db, &path);
        Ok(Cache {
            db,
            trees,
            pages: PageStore::new(cache_dir),
            dir: cache_dir.to_path_buf(),
            lost_on_recovery,
            warned: AtomicBool::new(false),
            reporter: std::sync::OnceLock::new(),
        })
    }

    fn tree(&self, t: Tree) -> &sled::Tree {
        &self.trees[t as usize]
    }

    /// The cached value, or `None` on a miss. An entry that does not decode
    /// is a miss too (with one warning per run).
    pub fn get<T: DeserializeOwned>(&self, t: Tree, key: &Key) -> Option<T> {
        match self.tree(t).get(key.as_bytes()) {
            Ok(Some(bytes)) => match postcard::from_bytes(&bytes) {
                Ok(v) => Some(v),
                Err(e) => {
                    self.warn_once(&format!(
                        "unreadable {} cache entry ignored ({e})",
                        t.name()
                    ));
                    None
                }
            },
            Ok(None) => None,
            Err(e) => {
                self.warn_once(&format!(
                    "cannot read an entry of the cache {} ({e}); recomputing (delete the \
                     folder to start afresh)",
                    self.dir.join("db").display()
                ));
                None
            }
        }
    }

    /// Stores a value; failure is a warning, never an error.
    pub fn put<T: Serialize>(&self, t: Tree, key: &Key, value: &T) {
        match postcard::to_stdvec(value) {
            Ok(bytes) => {
                if let Err(e) = self.tree(t).insert(key.as_bytes(), bytes) {
                    self.warn_once(&format!(
                        "cache write failed ({e}); results will be recomputed next run"
                    ));
                }
            }
            Err(e) => self.warn_once(&format!("cannot encode a {} cache entry ({e})", t.name())),
        }
    }

    /// Every page text stored for the document (read by `inspect` at
    /// `inspect_version`), in index order; none on a miss. A file that does
    /// not decode is a miss (with one warning per run).
    pub fn pages(&self, hash: &DocHash, inspect_version: u32) -> Vec<PageText> {
        self.pages.get(hash, inspect_version).unwrap_or_else(|e| {
            self.warn_once(&format!("unreadable page cache file ignored ({e})"));
            Vec::new()
        })
    }

    /// Adds page texts to the document's stored pages; failure is a warning.
    pub fn put_pages(&self, hash: &DocHash, inspect_version: u32, pages: &[PageText]) {
        if let Err(e) = self.pages.put(hash, inspect_version, pages) {
            self.warn_once(&format!(
                "page cache write failed ({e}); pages will be read again next run"
            ));
        }
    }

    /// Every value of a tree that decodes (the others are skipped).
    pub fn values<T: DeserializeOwned>(&self, t: Tree) -> Vec<T> {
        self.tree(t)
            .iter()
            .values()
            .flatten()
            .filter_map(|v| postcard::from_bytes(&v).ok())
            .collect()
    }

    /// Removes every entry of one tree; returns how many there were.
    pub fn clear_tree(&self, t: Tree) -> Result<usize, sled::Error> {
        let n = self.tree(t).len();
        self.tree(t).clear()?;
        self.tree(t).flush()?;
        Ok(n)
    }

    /// Raw put, for tests that plant corrupt entries.
    #[doc(hidden)]
    pub fn put_raw(&self, t: Tree, key: &Key, bytes: &[u8]) {
        let _ = self.tree(t).insert(key.as_bytes(), bytes);
    }

    /// The vision answer store, for the vision pool's threads (a handle
    /// that outlives borrows of the cache: sled trees are reference-counted).
    pub fn vision_answers(&self) -> VisionAnswers {
        VisionAnswers(self.tree(Tree::Vision).clone())
    }

    /// Writes everything to disk (end of run, Ctrl-C).
    pub fn flush(&self) {
        if let Err(e) = self.db.flush() {
            self.warn_once(&format!("cache flush failed ({e})"));
        }
    }

    /// Entries and bytes of every tree, and of the page files (entries
    /// there are documents).
    pub fn stats(&self) -> Vec<TreeStats> {
        let (files, bytes) = self.pages.stats();
        let pages = TreeStats {
            name: PAGE_STATS,
            entries: files,
            bytes,
        };
        Tree::ALL
            .iter()
            .map(|&t| {
                let tree = self.tree(t);
                let mut entries = 0;
                let mut bytes = 0u64;
                for (k, v) in tree.iter().flatten() {
                    entries += 1;
                    bytes += (k.len() + v.len()) as u64;
                }
                TreeStats {
                    name: t.name(),
                    entries,
                    bytes,
                }
            })
            .chain(std::iter::once(pages))
            .collect()
    }

    /// Size on disk of the store, given its [`stats`](Self::stats): sled's
    /// files plus the page files (already summed there, so the folder is
    /// walked once).
    pub fn size_on_disk(&self, stats: &[TreeStats]) -> u64 {
        let pages: u64 = stats
            .iter()
            .filter(|s| s.name == PAGE_STATS)
            .map(|s| s.bytes)
            .sum();
        self.db.size_on_disk().unwrap_or(0) + pages
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Whether sled, reopening a store that was closed cleanly, recovered
    /// less than was there at the close (a damaged log: see
    /// [`Cache::open`]). What was lost is recomputed when needed.
    pub fn lost_on_recovery(&self) -> bool {
        self.lost_on_recovery
    }

    /// Copies every entry of the cache under `other_dir` (a shard's, for
    /// `colophon merge`) into this one, so that a later run here finds
    /// the shard's work done: every sled tree (keys are content-addressed
    /// and carry every input, so an entry both stores have is the same
    /// result; the other's wins) and the page files. Returns the number
    /// of entries and page files brought in.
    pub fn import(&self, other_dir: &Path) -> Result<usize, CacheError> {
        let other = Cache::open(other_dir)?;
        let open_err = |source| CacheError::Open {
            path: self.dir.join("db"),
            source,
        };
        let mut n = 0;
        for t in Tree::ALL {
            let mut batch = sled::Batch::default();
            let mut in_batch = 0;
            for (k, v) in other.tree(t).iter().flatten() {
                batch.insert(k, v);
                in_batch += 1;
                if in_batch == IMPORT_BATCH {
                    self.tree(t)
                        .apply_batch(std::mem::take(&mut batch))
                        .map_err(open_err)?;
                    n += in_batch;
                    in_batch = 0;
                }
            }
            self.tree(t).apply_batch(batch).map_err(open_err)?;
            n += in_batch;
        }
        let pages = self
            .pages
            .import(&other.pages)
            .map_err(|e| open_err(e.into()))?;
        self.flush();
        Ok(n + pages)
    }

    /// Sends the cache's warnings to `reporter` (a run's progress bars own
    /// the terminal) rather than straight to stderr.
    pub fn report_warnings_to(&self, reporter: std::sync::Arc<dyn crate::progress::Reporter>) {
        let _ = self.reporter.set(reporter);
    }

    fn warn_once(&self, msg: &str) {
        if !self.warned.swap(true, Ordering::Relaxed) {
            match self.reporter.get() {
                Some(r) => r.message(&format!("warning: {msg}")),
                None => eprintln!("warning: {msg}"),
            }
        }
    }
}

impl Drop for Cache {
    fn drop(&mut self) {
        // The close mark goes in last, so that sled's prefix recovery
        // keeps it only if it keeps everything before it; the file is
        // written only once the mark is on disk.
        let mark = close_mark();
        if self.db.insert(CLOSE_MARK_KEY, &mark[..]).is_ok() && self.db.flush().is_ok() {
            let file = self.dir.join("db").join(CLOSE_MARK_FILE);
            let tmp = file.with_extension("tmp");
            if std::fs::write(&tmp, mark).is_ok() {
                let _ = std::fs::rename(&tmp, &file);
            }
        } else {
            let _ = self.db.flush();
        }
    }
}

/// The key of the close mark, in sled's default tree (not one of [`Tree`]).
const CLOSE_MARK_KEY: &[u8] = b"colophon.closed";

/// The file beside sled's own that holds the mark of the last clean close.
const CLOSE_MARK_FILE: &str = "colophon-closed";

/// A mark no earlier close wrote: the time in nanoseconds and the process.
fn close_mark() -> [u8; 20] {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut mark = [0u8; 20];
    mark[..16].copy_from_slice(&nanos.to_le_bytes());
    mark[16..].copy_from_slice(&std::process::id().to_le_bytes());
    mark
}

/// Whether the store under `path` lacks the mark its last clean close
/// wrote (false when no clean close was recorded: a new store, a killed
/// run, an older colophon). Consumes the record of that close.
fn lost_since_clean_close(db: &sled::Db, path: &Path) -> bool {
    let file = path.join(CLOSE_MARK_FILE);
    let Ok(expected) = std::fs::read(&file) else {
        return false;
    };
    let _ = std::fs::remove_file(&file);
    !matches!(db.get(CLOSE_MARK_KEY), Ok(Some(v)) if v.as_ref() == expected.as_slice())
}

fn is_lock_error(e: &std::io::Error) -> bool {
    // sled takes an advisory lock on its `db` file and reports EWOULDBLOCK
    // or a message mentioning the lock.
    e.raw_os_error() == Some(libc::EWOULDBLOCK) || e.to_string().to_lowercase().contains("lock")
}

/// Entries per write when [`Cache::import`] copies a tree.
const IMPORT_BATCH: usize = 10_000;

/// The name of the page files' line in [`Cache::stats`].
const PAGE_STATS: &str = "page";

/// The sled tree page texts lived in before they moved to files.
const LEGACY_PAGE_TREE: &[u8] = b"page";

/// Removes the store and the page files (and nothing else under the cache
/// folder). Deleting them loses nothing but time.
pub fn clear(cache_dir: &Path) -> std::io::Result<()> {
    let db = cache_dir.join("db");
    match std::fs::remove_dir_all(&db) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    PageStore::clear(cache_dir)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roundtrip_and_corrupt_entry_is_a_miss() {
        let t = tempfile::tempdir().unwrap();
        let c = Cache::open(t.path()).unwrap();
        let k = Key::domain("test").u32(1).finish();
        c.put(Tree::Doc, &k, &(7u32, "seven".to_string()));
        assert_eq!(
            c.get::<(u32, String)>(Tree::Doc, &k),
            Some((7, "seven".to_string()))
        );
        c.put_raw(Tree::Doc, &k, &[0xff, 0xff, 0xff]);
        assert_eq!(c.get::<(u32, String)>(Tree::Doc, &k), None);
        assert_eq!(
            c.get::<(u32, String)>(Tree::Ocr, &k),
            None,
            "trees are separate"
        );
    }

    #[test]
    fn second_process_gets_a_clear_lock_error() {
        let t = tempfile::tempdir().unwrap();
        let _c = Cache::open(t.path()).unwrap();
        // sled locks its file with flock, which is per open file, so a
        // second open in this same process stands in for a second process.
        match Cache::open(t.path()) {
            Err(CacheError::Locked(p)) => assert!(p.ends_with("db")),
            Err(other) => panic!("expected a lock error, got {other}"),
            Ok(_) => panic!("a second open of a locked cache succeeded"),
        }
    }

    #[test]
    fn page_texts_of_earlier_versions_leave_sled() {
        let t = tempfile::tempdir().unwrap();
        {
            let db = sled::open(t.path().join("db")).unwrap();
            db.open_tree(LEGACY_PAGE_TREE)
                .unwrap()
                .insert(b"k", b"a page")
                .unwrap();
            db.flush().unwrap();
        }
        let c = Cache::open(t.path()).unwrap();
        assert!(
            !c.db
                .tree_names()
                .iter()
                .any(|n| n.as_ref() == LEGACY_PAGE_TREE)
        );
        let h = DocHash([7; 32]);
        assert!(c.pages(&h, 1).is_empty());
        c.put_pages(&h, 1, &[]);
        assert_eq!(
            c.stats().iter().find(|s| s.name == "page").unwrap().entries,
            0
        );
    }

    #[test]
    fn a_clean_close_is_checked_on_the_next_open_only() {
        let t = tempfile::tempdir().unwrap();
        let mark_file = t.path().join("db").join(CLOSE_MARK_FILE);
        drop(Cache::open(t.path()).unwrap());
        assert!(mark_file.is_file(), "a clean close leaves its mark");
        let c = Cache::open(t.path()).unwrap();
        assert!(!c.lost_on_recovery(), "everything came back");
        assert!(!mark_file.exists(), "the mark is consumed on open");
        drop(c);

        // The store holds another mark than the one written beside it, as
        // when sled's recovery stopped before the last close's writes.
        std::fs::write(&mark_file, b"a mark from a later close").unwrap();
        let c = Cache::open(t.path()).unwrap();
        assert!(c.lost_on_recovery());
        // Until this one closes, nothing is recorded: a kill now leaves no
        // mark, and the next open compares nothing.
        assert!(!mark_file.exists());
    }

    #[test]
    fn import_copies_every_tree_and_the_pages() {
        let (main, shard) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let k = |i: u32| Key::domain("t").u32(i).finish();
        {
            let s = Cache::open(shard.path()).unwrap();
            for t in Tree::ALL {
                s.put(t, &k(t as u32), &(t as u32 * 10));
            }
        }
        let c = Cache::open(main.path()).unwrap();
        c.put(Tree::Record, &k(99), &1u32);
        assert_eq!(c.import(shard.path()).unwrap(), Tree::ALL.len());
        for t in Tree::ALL {
            assert_eq!(c.get::<u32>(t, &k(t as u32)), Some(t as u32 * 10), "{t:?}");
        }
        assert_eq!(
            c.get::<u32>(Tree::Record, &k(99)),
            Some(1),
            "its own entries stay"
        );
        // The shard's store is closed again: it opens.
        drop(Cache::open(shard.path()).unwrap());
    }

    #[test]
    fn survives_reopen() {
        let t = tempfile::tempdir().unwrap();
        let k = Key::domain("x").str("y").finish();
        {
            let c = Cache::open(t.path()).unwrap();
            c.put(Tree::Record, &k, &42u64);
        }
        let c = Cache::open(t.path()).unwrap();
        assert_eq!(c.get::<u64>(Tree::Record, &k), Some(42));
        let stats = c.stats();
        assert_eq!(
            stats.iter().find(|s| s.name == "record").unwrap().entries,
            1
        );
    }
}
