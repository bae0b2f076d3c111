//! Stage 2, fingerprint: blake3 of every file's whole content, the identity
//! of a document in the cache. Files are memory-mapped and hashed in
//! parallel (rayon); a memo of (device, inode, size, mtime) → hash lets an
//! unchanged library skip re-reading every byte. `--rehash` ignores the memo.

use crate::cache::{Cache, Tree, keys};
use crate::model::{DocHash, PdfFile};
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::fs::File;
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Files at least this large are hashed with blake3's own rayon split too.
const LARGE_FILE: u64 = 32 * 1024 * 1024;

/// How a hash was obtained (counted in the run summary).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashOutcome {
    /// From the stat memo: the file was not read.
    Memo,
    /// Read and hashed now.
    Hashed,
}

/// The content hash of each file, in order; a file that cannot be read is
/// an error for that file only.
pub fn fingerprint(
    files: &[PdfFile],
    cache: &Cache,
    rehash: bool,
) -> Vec<Result<(DocHash, HashOutcome)>> {
    files
        .par_iter()
        .map(|f| fingerprint_one(&f.path, cache, rehash))
        .collect()
}

/// [`fingerprint`] of one file: from the stat memo, or hashed (and memoised).
pub fn fingerprint_one(path: &Path, cache: &Cache, rehash: bool) -> Result<(DocHash, HashOutcome)> {
    let meta = std::fs::metadata(path).with_context(|| format!("reading {}", path.display()))?;
    let mtime_ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
    let memo = keys::memo_key(meta.dev(), meta.ino(), meta.size(), mtime_ns);
    if !rehash {
        if let Some(h) = cache.get::<DocHash>(Tree::Memo, &memo) {
            return Ok((h, HashOutcome::Memo));
        }
    }
    let h = hash_file(path)?;
    cache.put(Tree::Memo, &memo, &h);
    Ok((h, HashOutcome::Hashed))
}

/// blake3 of a file's content, memory-mapped.
pub fn hash_file(path: &Path) -> Result<DocHash> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let len = file.metadata()?.len();
    let mut hasher = blake3::Hasher::new();
    if len > 0 {
        // SAFETY: the map is read-only and dropped before we return; a file
        // truncated by another process meanwhile could raise SIGBUS, which
        // is the usual caveat of mmap hashing (ripgrep and b3sum accept it).
        let map = unsafe { memmap2::Mmap::map(&file) }
            .with_context(|| format!("mapping {}", path.display()))?;
        if len >= LARGE_FILE {
            hasher.update_rayon(&map);
        } else {
            hasher.update(&map);
        }
    }
    Ok(DocHash(*hasher.finalize().as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn pdf(path: PathBuf) -> PdfFile {
        PdfFile {
            rel: path.file_name().unwrap().into(),
            path,
            ignored: false,
            has_pdf_header: true,
        }
    }

    #[test]
    fn hashes_match_blake3_and_memo_skips_reading() {
        let t = tempfile::tempdir().unwrap();
        let cache = Cache::open(&t.path().join("cache")).unwrap();
        let a = t.path().join("a.pdf");
        std::fs::write(&a, b"%PDF-1.4 hello").unwrap();
        let empty = t.path().join("empty.pdf");
        std::fs::write(&empty, b"").unwrap();
        let files = vec![pdf(a.clone()), pdf(empty)];

        let first = fingerprint(&files, &cache, false);
        let (h, o) = first[0].as_ref().unwrap();
        assert_eq!(h.0, *blake3::hash(b"%PDF-1.4 hello").as_bytes());
        assert_eq!(*o, HashOutcome::Hashed);
        assert_eq!(
            first[1].as_ref().unwrap().0.0,
            *blake3::hash(b"").as_bytes()
        );

        let second = fingerprint(&files, &cache, false);
        assert_eq!(second[0].as_ref().unwrap().1, HashOutcome::Memo);
        let forced = fingerprint(&files, &cache, true);
        assert_eq!(forced[0].as_ref().unwrap().1, HashOutcome::Hashed);

        // a changed file (other size) is hashed again
        std::fs::write(&a, b"%PDF-1.4 hello, changed").unwrap();
        let third = fingerprint(&files, &cache, false);
        let (h3, o3) = third[0].as_ref().unwrap();
        assert_eq!(*o3, HashOutcome::Hashed);
        assert_ne!(h3, h);
    }

    #[test]
    fn missing_file_fails_alone() {
        let t = tempfile::tempdir().unwrap();
        let cache = Cache::open(&t.path().join("cache")).unwrap();
        let ok = t.path().join("ok.pdf");
        std::fs::write(&ok, b"%PDF-").unwrap();
        let res = fingerprint(&[pdf(t.path().join("gone.pdf")), pdf(ok)], &cache, false);
        assert!(res[0].is_err());
        assert!(res[1].is_ok());
    }
}
