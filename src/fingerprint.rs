//! Stage 2, fingerprint: blake3 of every file's whole content, the identity
//! of a document in the cache. Files are read (not memory-mapped: a
//! truncation must be an error, not SIGBUS) and hashed in parallel
//! (rayon); a memo of (device, inode, size, mtime) → hash lets an
//! unchanged library skip re-reading every byte. `--rehash` ignores the memo.

use crate::cache::{Cache, Tree, keys};
use crate::model::{DocHash, PdfFile};
use anyhow::{Context, Result};
use rayon::prelude::*;
use std::fs::File;
use std::io::{self, Read};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

/// Files at least this large are hashed with blake3's own rayon split too.
const LARGE_FILE: u64 = 32 * 1024 * 1024;

pub use crate::report::HashOutcome;

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
    let memo = memo_key(&meta);
    if !rehash {
        if let Some(h) = cache.get::<DocHash>(Tree::Memo, &memo) {
            return Ok((h, HashOutcome::Memo));
        }
    }
    let h = hash_file(path)?;
    cache.put(Tree::Memo, &memo, &h);
    Ok((h, HashOutcome::Hashed))
}

/// Notes that the file at `path`, as it is now, has content hash `hash`
/// (write mode, after writing a file whose new hash it knows), so that the
/// next run need not read it.
pub fn remember(path: &Path, hash: &DocHash, cache: &Cache) {
    if let Ok(meta) = std::fs::metadata(path) {
        cache.put(Tree::Memo, &memo_key(&meta), hash);
    }
}

/// The stat-memo key of a file: the one place it is computed.
fn memo_key(meta: &std::fs::Metadata) -> keys::Key {
    let mtime_ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
    keys::memo_key(meta.dev(), meta.ino(), meta.size(), mtime_ns)
}

/// blake3 of a file's content, read with ordinary reads.
///
/// Not memory-mapped: a file truncated by another process while it is
/// mapped raises SIGBUS, which would kill the whole run (issue 19); a read
/// simply returns fewer bytes. Large files are read in bounded chunks and
/// each chunk is hashed with blake3's rayon split, so memory stays at one
/// chunk per file however large the file is.
pub fn hash_file(path: &Path) -> Result<DocHash> {
    let file = File::open(path).with_context(|| format!("opening {}", path.display()))?;
    let (hash, _) = hash_open_file(file).with_context(|| format!("reading {}", path.display()))?;
    Ok(hash)
}

/// blake3 of an open file's content and the number of bytes read: the one
/// implementation of file hashing (write mode checks files with it too).
pub fn hash_open_file(file: File) -> io::Result<(DocHash, u64)> {
    let len = file.metadata()?.len();
    let mut hasher = blake3::Hasher::new();
    if len >= LARGE_FILE {
        hash_chunks(&mut hasher, file, CHUNK)?;
    } else {
        hasher.update_reader(file)?;
    }
    Ok((DocHash(*hasher.finalize().as_bytes()), hasher.count()))
}

/// blake3 of a whole file and its length (write mode checks files with it).
pub fn hash_file_len(path: &Path) -> io::Result<(DocHash, u64)> {
    hash_open_file(File::open(path)?)
}

/// blake3 of bytes in memory (a PDF as written, before it is renamed in).
pub fn hash_bytes(bytes: &[u8]) -> DocHash {
    DocHash(*blake3::hash(bytes).as_bytes())
}

/// The hash of `path`, or `None` when it does not exist.
pub fn hash_if_exists(path: &Path) -> io::Result<Option<DocHash>> {
    match hash_file_len(path) {
        Ok((h, _)) => Ok(Some(h)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Bytes read at a time from a large file: its chunks are hashed in
/// parallel (blake3's rayon split needs them in memory).
const CHUNK: usize = 8 * 1024 * 1024;

/// Feeds `reader` to `hasher` in chunks of `chunk` bytes, each hashed
/// with `update_rayon`. Interrupted reads are retried; a file that shrinks
/// meanwhile just ends early (the stat memo then differs next run).
fn hash_chunks(hasher: &mut blake3::Hasher, mut reader: impl Read, chunk: usize) -> io::Result<()> {
    let mut buf = vec![0u8; chunk];
    loop {
        let mut filled = 0;
        while filled < buf.len() {
            match reader.read(&mut buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        if filled == 0 {
            return Ok(());
        }
        hasher.update_rayon(&buf[..filled]);
        if filled < buf.len() {
            return Ok(());
        }
    }
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
    fn chunked_hash_matches_the_whole_hash() {
        let data: Vec<u8> = (0..100_000u32).map(|i| (i * 7 + i / 251) as u8).collect();
        for chunk in [1, 1000, 4096, 99_999, 100_000, 100_001] {
            let mut h = blake3::Hasher::new();
            hash_chunks(&mut h, &data[..], chunk).unwrap();
            assert_eq!(h.finalize(), blake3::hash(&data), "chunk {chunk}");
        }
        let mut h = blake3::Hasher::new();
        hash_chunks(&mut h, &[][..], 10).unwrap();
        assert_eq!(h.finalize(), blake3::hash(b""));
    }

    /// Issue 19: a file truncated while it is hashed killed the run with
    /// SIGBUS (it was memory-mapped). Read, a file that shrinks under the
    /// hash is just shorter; a file that is truncated and grows again is
    /// hashed without a signal either.
    #[test]
    fn file_truncated_while_hashed_is_no_crash() {
        let t = tempfile::tempdir().unwrap();
        let big = t.path().join("big.pdf");
        std::fs::write(&big, vec![b'x'; LARGE_FILE as usize + CHUNK]).unwrap();
        let stop = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|s| {
            s.spawn(|| {
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let f = std::fs::OpenOptions::new().write(true).open(&big).unwrap();
                    f.set_len(0).unwrap();
                    f.set_len(LARGE_FILE + CHUNK as u64).unwrap();
                }
            });
            for _ in 0..20 {
                // Any outcome but a signal: Ok with some hash, or an error.
                let _ = hash_file(&big);
            }
            stop.store(true, std::sync::atomic::Ordering::Relaxed);
        });
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
