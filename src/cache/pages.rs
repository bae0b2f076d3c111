//! Page texts, one file per document under `cache/pages/`, not in sled.
//!
//! They are nearly all of the cache's bytes (about 2.8 KB a page: 221 MB
//! for 10,000 documents of 8 pages), and sled's memory grows with the size
//! of its trees whatever its cache capacity: a cold run's peak memory went
//! from 101 to 148 MB between 1,000 and 4,000 PDFs with the pages in sled,
//! and from 83 to 96 MB without them (capacities of 256 KiB to 16 MiB made
//! no difference). A document's pages are read and stored together anyway.
//!
//! `pages/<2 hex>/<content hash>-v<INSPECT_VERSION>` holds the postcard of
//! every page read so far, sorted by index. New pages are merged in and the
//! file replaced by a rename, so a reader sees the old or the new file,
//! never half of one; two runs of the same content racing lose at most a
//! page, which is read again.

use crate::model::{DocHash, PageText};
use std::collections::BTreeMap;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Each page file starts with the blake3 of the rest.
const CHECKSUM_LEN: usize = 32;

/// The pages of one page file; none when there is no file. A file whose
/// checksum does not match its content (changed on disk, cut short) is an
/// error, never pages that were not read.
fn read_file(path: &Path) -> io::Result<Vec<PageText>> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let invalid = |msg: &str| {
        io::Error::new(
            io::ErrorKind::InvalidData,
            format!("{}: {msg}", path.display()),
        )
    };
    if bytes.len() < CHECKSUM_LEN {
        return Err(invalid("page cache file cut short"));
    }
    let (sum, payload) = bytes.split_at(CHECKSUM_LEN);
    if blake3::hash(payload).as_bytes() != sum {
        return Err(invalid("page cache file damaged: checksum mismatch"));
    }
    postcard::from_bytes(payload).map_err(|e| invalid(&e.to_string()))
}

/// Adds `pages` to the page file at `path` (a page read again replaces
/// the stored one; a damaged file is started afresh), replacing the file
/// by a rename.
fn merge_into(path: &Path, pages: impl IntoIterator<Item = PageText>) -> io::Result<()> {
    let mut all: BTreeMap<u32, PageText> = read_file(path)
        .unwrap_or_default()
        .into_iter()
        .map(|p| (p.index, p))
        .collect();
    for p in pages {
        all.insert(p.index, p);
    }
    let all: Vec<&PageText> = all.values().collect();
    let bytes =
        postcard::to_stdvec(&all).map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))?;
    let dir = path.parent().expect("page files live in a folder");
    std::fs::create_dir_all(dir)?;
    // A cache file: no fsync, a crash loses pages that are read again.
    let mut tmp = tempfile::NamedTempFile::new_in(dir)?;
    tmp.write_all(blake3::hash(&bytes).as_bytes())?;
    tmp.write_all(&bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The folder of page files.
#[derive(Debug, Clone)]
pub(crate) struct PageStore {
    dir: PathBuf,
}

impl PageStore {
    pub(crate) fn new(cache_dir: &Path) -> PageStore {
        PageStore {
            dir: cache_dir.join("pages"),
        }
    }

    fn path(&self, hash: &DocHash, inspect_version: u32) -> PathBuf {
        let hex = hash.hex();
        self.dir
            .join(&hex[..2])
            .join(format!("{hex}-v{inspect_version}"))
    }

    /// Every page stored for the document; none when there is no file. A
    /// file whose checksum does not match its content (changed on disk,
    /// cut short) is an error, never pages that were not read.
    pub(crate) fn get(&self, hash: &DocHash, inspect_version: u32) -> io::Result<Vec<PageText>> {
        read_file(&self.path(hash, inspect_version))
    }

    /// Adds `pages` to the document's file (a page read again replaces the
    /// stored one).
    pub(crate) fn put(
        &self,
        hash: &DocHash,
        inspect_version: u32,
        pages: &[PageText],
    ) -> io::Result<()> {
        if pages.is_empty() {
            return Ok(());
        }
        merge_into(&self.path(hash, inspect_version), pages.iter().cloned())
    }

    /// Brings in the page files of `other` (a shard's cache, `merge`):
    /// a document this store lacks gets the other's file (hard-linked
    /// where possible, which is safe as files are only ever replaced,
    /// never changed in place); one both have gets the pages of both.
    /// Returns how many documents' files were brought in. A damaged file
    /// of the other store is skipped (its pages are read again).
    pub(crate) fn import(&self, other: &PageStore) -> io::Result<usize> {
        let mut n = 0;
        for sub in std::fs::read_dir(&other.dir)
            .into_iter()
            .flatten()
            .flatten()
        {
            for file in std::fs::read_dir(sub.path())?.flatten() {
                let from = file.path();
                // `.tmp*`: a page file being written when a kill came.
                let hidden = file.file_name().to_string_lossy().starts_with('.');
                if hidden || !file.file_type()?.is_file() {
                    continue;
                }
                let to = self.dir.join(sub.file_name()).join(file.file_name());
                if to.exists() {
                    match read_file(&from) {
                        Ok(theirs) => merge_into(&to, theirs)?,
                        Err(_) => continue,
                    }
                } else {
                    std::fs::create_dir_all(to.parent().expect("page files live in a folder"))?;
                    crate::util::fs::link_or_copy(&from, &to)?;
                }
                n += 1;
            }
        }
        Ok(n)
    }

    /// Number of page files and their bytes.
    pub(crate) fn stats(&self) -> (usize, u64) {
        let (mut files, mut bytes) = (0, 0);
        for sub in std::fs::read_dir(&self.dir).into_iter().flatten().flatten() {
            for f in std::fs::read_dir(sub.path())
                .into_iter()
                .flatten()
                .flatten()
            {
                if let Ok(m) = f.metadata()
                    && m.is_file()
                {
                    files += 1;
                    bytes += m.len();
                }
            }
        }
        (files, bytes)
    }

    /// Deletes every page file.
    pub(crate) fn clear(cache_dir: &Path) -> io::Result<()> {
        match std::fs::remove_dir_all(cache_dir.join("pages")) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{TextLine, Via};

    fn page(index: u32, text: &str) -> PageText {
        PageText {
            index,
            width: 432.0,
            height: 648.0,
            lines: vec![TextLine {
                text: text.into(),
                bbox: Default::default(),
                size: 10.0,
                bold: false,
            }],
            image_ratio: 0.0,
            image: None,
            via: Via::Text,
            ocr_confidence: None,
        }
    }

    #[test]
    fn a_page_file_changed_on_disk_is_an_error_not_other_text() {
        let t = tempfile::tempdir().unwrap();
        let store = PageStore::new(t.path());
        let h = DocHash([7; 32]);
        store.put(&h, 1, &[page(0, "The Harbour Ledger")]).unwrap();
        let path = store.path(&h, 1);
        let mut bytes = std::fs::read(&path).unwrap();
        let at = bytes
            .windows(7)
            .position(|w| w == b"Harbour")
            .expect("the text is in the file");
        bytes[at..at + 7].copy_from_slice(b"Harvest");
        std::fs::write(&path, &bytes).unwrap();
        let err = store.get(&h, 1).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
        assert!(err.to_string().contains("checksum"), "{err}");
        std::fs::write(&path, &bytes[..10]).unwrap();
        assert!(store.get(&h, 1).is_err());
    }

    #[test]
    fn pages_merge_per_document_and_version() {
        let t = tempfile::tempdir().unwrap();
        let store = PageStore::new(t.path());
        let (a, b) = (DocHash([1; 32]), DocHash([2; 32]));
        assert!(store.get(&a, 1).unwrap().is_empty(), "a miss is no pages");
        store
            .put(&a, 1, &[page(3, "three"), page(0, "zero")])
            .unwrap();
        store
            .put(&a, 1, &[page(1, "one"), page(3, "three again")])
            .unwrap();
        let got = store.get(&a, 1).unwrap();
        let texts: Vec<(u32, &str)> = got
            .iter()
            .map(|p| (p.index, p.lines[0].text.as_str()))
            .collect();
        assert_eq!(texts, [(0, "zero"), (1, "one"), (3, "three again")]);
        assert!(store.get(&a, 2).unwrap().is_empty(), "other version");
        assert!(store.get(&b, 1).unwrap().is_empty(), "other document");
        assert_eq!(store.stats().0, 1);

        // A damaged file is an error the caller treats as a miss.
        let hex = a.hex();
        std::fs::write(
            t.path()
                .join("pages")
                .join(&hex[..2])
                .join(format!("{hex}-v1")),
            [0xff, 0xff],
        )
        .unwrap();
        assert!(store.get(&a, 1).is_err());
        // Storing over it starts afresh.
        store.put(&a, 1, &[page(5, "five")]).unwrap();
        assert_eq!(store.get(&a, 1).unwrap().len(), 1);

        PageStore::clear(t.path()).unwrap();
        assert_eq!(store.stats(), (0, 0));
    }

    #[test]
    fn import_brings_new_documents_and_merges_shared_ones() {
        let (mine, theirs) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let (a, b) = (DocHash([1; 32]), DocHash([2; 32]));
        let main = PageStore::new(mine.path());
        let shard = PageStore::new(theirs.path());
        main.put(&a, 1, &[page(0, "zero")]).unwrap();
        shard.put(&a, 1, &[page(2, "two")]).unwrap();
        shard.put(&b, 1, &[page(0, "only in the shard")]).unwrap();
        assert_eq!(main.import(&shard).unwrap(), 2);
        let indices = |h| {
            main.get(h, 1)
                .unwrap()
                .iter()
                .map(|p| p.index)
                .collect::<Vec<_>>()
        };
        assert_eq!(indices(&a), [0, 2]);
        assert_eq!(
            main.get(&b, 1).unwrap()[0].lines[0].text,
            "only in the shard"
        );
        // The shard's own files are untouched by later changes of the main store.
        main.put(&b, 1, &[page(1, "one")]).unwrap();
        assert_eq!(shard.get(&b, 1).unwrap().len(), 1);
    }
}
