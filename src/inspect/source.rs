//! A PDF file as a worker's pdfium reads it: [`Source`], the file opened
//! once, read by pdfium a block at a time (`FPDF_LoadCustomDocument`).
//!
//! Why not the whole file in memory: pdfium then held every byte of every
//! open document besides what it parsed from them. On the wild library a
//! 22 MB manual took its worker to 62 MB, and the two copies of such a file
//! read side by side made the run's peak. Read in blocks, pdfium holds only
//! what it parses. Not a memory map either: a file truncated under a map
//! raises SIGBUS, while a short read is an error pdfium reports.
//!
//! Files under [`IN_MEMORY`] are still given to pdfium whole, as before:
//! for them the copies cost more than the memory.
//!
//! The file is still read whole once, when opened, so that its blake3 can
//! be checked against the coordinator's fingerprint (and its XMP packet
//! found); for a large file those bytes are dropped before pdfium loads
//! any page. From then on, every answer from a large file is checked
//! against the file's [`Stamp`] taken before that read: a file written to
//! since (size, modification or change time, or a different file under the
//! name) fails with [`PdfError::Changed`], so nothing read from other bytes
//! is cached under the old hash.

use super::PdfError;
use pdfium_render::prelude::FPDF_FILEACCESS;
use std::ffi::{c_int, c_uchar, c_ulong, c_void};
use std::fs::File;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::rc::Rc;

/// What identifies a file's content without reading it: any write changes
/// the change time (which no user tool can set back), a replacement the
/// inode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Stamp {
    dev: u64,
    ino: u64,
    len: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Stamp {
    fn of(file: &File) -> Result<Stamp, PdfError> {
        let m = file.metadata().map_err(io)?;
        Ok(Stamp {
            dev: m.dev(),
            ino: m.ino(),
            len: m.len(),
            mtime: (m.mtime(), m.mtime_nsec()),
            ctime: (m.ctime(), m.ctime_nsec()),
        })
    }
}

/// An open PDF file and the callback table pdfium reads it through. Boxed
/// by [`Source::open`]: pdfium keeps the table's address, and the callback
/// the reader's.
pub struct Source {
    access: FPDF_FILEACCESS,
    reader: Reader,
    stamp: Stamp,
    /// The whole file, kept when smaller than [`IN_MEMORY`] (or than
    /// [`QUICK_IN_MEMORY`], for the quick reader); pdfium then
    /// reads it in place and the file is not read again.
    kept: Option<Rc<[u8]>>,
}

/// Files smaller than this stay in memory for pdfium: reading in blocks
/// cost about 4% more CPU on the wild library (pdfium copies every stream
/// it reads through the callback), and what matters for memory is the
/// large files.
pub const IN_MEMORY: usize = 4 << 20;

/// Files smaller than this stay in memory when the quick reader
/// (`super::quick`) reads them, whatever [`IN_MEMORY`] says: it needs the
/// whole file (which [`Source::open`] reads anyway, to hash it), and on
/// the pages it reads it costs far less than pdfium, which builds every
/// path of a page. Measured on 650 Debian documentation PDFs (11 of 4 MiB
/// or more): a 15 MB manual of plots went from 0.86 to 0.42 CPU-s and its
/// worker from 102 to 63 MB. A large file the quick reader cannot open is
/// read by pdfium in blocks as before ([`Source::unkeep`]), and so is one
/// once the quick reader leaves one of its pages to pdfium
/// (`Document::leave_large_to_pdfium`).
pub const QUICK_IN_MEMORY: usize = 64 << 20;

/// Bytes read from the file at a time. Pdfium's parser asks for 512 bytes
/// at a time (about 170 calls a document on the wild library), so each
/// call read from the file alone cost a system call.
const WINDOW: usize = 64 << 10;

/// The file and the last window read from it.
struct Reader {
    file: File,
    len: u64,
    start: u64,
    window: Vec<u8>,
}

impl Reader {
    /// Copies `buf.len()` bytes at `at` into `buf`, from the window when it
    /// holds them; false when the file cannot give them (truncated).
    fn read(&mut self, at: u64, buf: &mut [u8]) -> bool {
        let end = at + buf.len() as u64;
        let held = self.start + self.window.len() as u64;
        if at >= self.start && end <= held {
            let from = (at - self.start) as usize;
            buf.copy_from_slice(&self.window[from..from + buf.len()]);
            return true;
        }
        if buf.len() >= WINDOW {
            return self.file.read_exact_at(buf, at).is_ok();
        }
        let size = (self.len.saturating_sub(at) as usize).clamp(buf.len(), WINDOW);
        self.window.resize(size, 0);
        if self.file.read_exact_at(&mut self.window, at).is_err() {
            self.window.clear();
            return false;
        }
        self.start = at;
        buf.copy_from_slice(&self.window[..buf.len()]);
        true
    }
}

impl Source {
    /// Opens `path` and reads it whole once. Returns the source and the
    /// bytes read, which the caller hashes and then drops; pdfium reads
    /// through [`Source::access`] afterwards.
    pub fn open(path: &Path) -> Result<(Box<Source>, Vec<u8>), PdfError> {
        let file = File::open(path).map_err(io)?;
        let stamp = Stamp::of(&file)?;
        let mut bytes = vec![0; usize::try_from(stamp.len).map_err(|_| too_large())?];
        file.read_exact_at(&mut bytes, 0)
            .map_err(|e| match e.kind() {
                std::io::ErrorKind::UnexpectedEof => PdfError::Changed,
                _ => io(e),
            })?;
        let mut source = Box::new(Source {
            access: FPDF_FILEACCESS {
                m_FileLen: stamp.len as c_ulong,
                m_GetBlock: Some(get_block),
                m_Param: std::ptr::null_mut(),
            },
            reader: Reader {
                file,
                len: stamp.len,
                start: 0,
                window: Vec::new(),
            },
            stamp,
            kept: None,
        });
        source.access.m_Param = (&mut source.reader as *mut Reader).cast();
        source.unchanged()?;
        Ok((source, bytes))
    }

    /// Keeps `bytes` (what [`Source::open`] read) when the file is smaller
    /// than `limit` ([`IN_MEMORY`]); gives them back otherwise.
    pub fn keep_if_small(&mut self, bytes: Vec<u8>, limit: usize) -> Option<Vec<u8>> {
        if bytes.len() < limit {
            self.kept = Some(bytes.into());
            None
        } else {
            Some(bytes)
        }
    }

    /// Gives back the bytes [`Source::keep_if_small`] kept, so that pdfium
    /// reads the file in blocks from now on (checked against the file's
    /// stamp, as any file not kept).
    pub fn unkeep(&mut self) -> Option<Rc<[u8]>> {
        self.kept.take()
    }

    /// The whole file, when [`Source::keep_if_small`] kept it. Boxed: its
    /// address does not change when the source moves.
    pub fn kept(&self) -> Option<&[u8]> {
        self.kept.as_deref()
    }

    /// [`Source::kept`], shared (the quick reader holds it too).
    pub fn kept_shared(&self) -> Option<Rc<[u8]>> {
        self.kept.clone()
    }

    /// The table to give `FPDF_LoadCustomDocument`; valid while `self` is.
    pub fn access(&mut self) -> *mut FPDF_FILEACCESS {
        &mut self.access
    }

    /// The file's size in bytes.
    pub fn len(&self) -> usize {
        self.stamp.len as usize
    }

    /// The file, for a second reader of the same bytes (rendering).
    pub fn file(&self) -> &File {
        &self.reader.file
    }

    /// [`PdfError::Changed`] when the file is no longer the one first read
    /// (never for a kept file: nothing is read from it again).
    pub fn unchanged(&self) -> Result<(), PdfError> {
        if self.kept.is_some() || Stamp::of(&self.reader.file)? == self.stamp {
            Ok(())
        } else {
            Err(PdfError::Changed)
        }
    }
}

/// pdfium's `m_GetBlock`: `size` bytes at `position` into `buf`; 0 on a
/// failed or short read (a file truncated meanwhile).
unsafe extern "C" fn get_block(
    param: *mut c_void,
    position: c_ulong,
    buf: *mut c_uchar,
    size: c_ulong,
) -> c_int {
    // SAFETY: `param` is the `Reader` inside a boxed `Source` that
    // outlives the document (set in `Source::open`), used by nothing else
    // while pdfium calls this (one thread); pdfium passes a buffer of
    // `size` bytes, never null and never empty (fpdfview.h).
    let (reader, buf) = unsafe {
        (
            &mut *param.cast::<Reader>(),
            std::slice::from_raw_parts_mut(buf, size as usize),
        )
    };
    c_int::from(reader.read(position, buf))
}

fn io(e: std::io::Error) -> PdfError {
    PdfError::Io(e.to_string())
}

fn too_large() -> PdfError {
    PdfError::Io("the file is too large to read".into())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    #[test]
    fn blocks_are_the_file_bytes_and_a_write_is_seen() {
        let mut file = tempfile::NamedTempFile::new().unwrap();
        file.write_all(b"%PDF-1.4 0123456789").unwrap();
        file.flush().unwrap();
        let (mut source, bytes) = Source::open(file.path()).unwrap();
        assert_eq!(bytes, b"%PDF-1.4 0123456789");
        let access = source.access();
        let mut buf = [0u8; 4];
        // SAFETY: the table and its file live in `source`.
        let read = |buf: &mut [u8], at| unsafe {
            ((*access).m_GetBlock.unwrap())((*access).m_Param, at, buf.as_mut_ptr(), 4)
        };
        assert_eq!(read(&mut buf, 9), 1);
        assert_eq!(&buf, b"0123");
        // From the window read by the call before, and outside it.
        assert_eq!(read(&mut buf, 13), 1);
        assert_eq!(&buf, b"4567");
        assert_eq!(read(&mut buf, 0), 1);
        assert_eq!(&buf, b"%PDF");
        // Past the end: a short read fails.
        assert_eq!(read(&mut buf, 17), 0);
        assert!(source.unchanged().is_ok());
        file.write_all(b"more").unwrap();
        file.flush().unwrap();
        assert_eq!(source.unchanged(), Err(PdfError::Changed));
    }
}
