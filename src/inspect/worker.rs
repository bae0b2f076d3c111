//! The PDF worker process (`colophon worker`): one pdfium, one open
//! document at a time, driven by the coordinator over its stdin/stdout.
//!
//! Why a process: pdfium is not thread-safe (one global mutex in
//! `pdfium-render`), so processes are the only way to use every core; and a
//! malformed PDF that crashes or hangs pdfium takes down this process only,
//! which the pool (`super::pool`) kills and replaces while the run goes on.
//!
//! Protocol: after start the worker writes [`HANDSHAKE`]; then it answers
//! each [`Request`] frame with exactly one [`Response`] frame, in order,
//! except [`Request::Close`], which has no answer (so dropping a handle
//! never waits on a worker). The coordinator may send several requests
//! before reading their answers (the pages of a batch, so that the worker
//! never waits on the coordinator between them).
//!
//! A worker keeps its few most recently used documents open (at most
//! [`KEEP_OPEN`], and at most [`KEEP_OPEN_BYTES`] of file besides the
//! newest), each under the id the coordinator gave it when opening: a
//! document's thread gives the worker back while it decides what to read
//! next, and when it comes back to the same worker its document is still
//! open. A request for a document no longer open answers `NotOpen`. A frame is a little-endian `u32` length followed by that
//! many bytes of postcard. Anything a library prints to stdout would corrupt
//! the frames, so the worker moves fd 1 to stderr and writes frames to a
//! private duplicate of the original stdout.
//!
//! The worker exits on stdin EOF (the coordinator closed the pipe or died)
//! and, through `PR_SET_PDEATHSIG` set by the pool, when its parent dies
//! while it is busy.

use super::pdfium::Document;
use super::{PageRead, PdfError};
use crate::model::DocInfo;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::PathBuf;

/// First bytes a worker writes: proves the executable really is a colophon
/// worker speaking this protocol version. Bump the digit when a message
/// changes shape.
pub const HANDSHAKE: &[u8] = b"colophon-worker 4\n";

/// Documents a worker keeps open at most (the one in use included).
pub const KEEP_OPEN: usize = 4;

/// File bytes a worker keeps in documents other than the newest one.
pub const KEEP_OPEN_BYTES: usize = 48 << 20;

/// Frames larger than this are garbage (a rendered A0 page at the default
/// pixel cap is about 40 MB).
pub const MAX_FRAME: u32 = 256 << 20;

/// What the coordinator asks a worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Request {
    /// Open a document under the id `doc` (the oldest open ones may be
    /// closed to make room); answered by `Opened`. The path travels as raw
    /// bytes: file names need not be UTF-8. With `expect`, the blake3 of
    /// the bytes read must be that hash, or the answer is `Failed(Changed)`
    /// and the document stays closed: the file changed after the
    /// coordinator fingerprinted it.
    Open {
        doc: u64,
        path: Vec<u8>,
        expect: Option<[u8; 32]>,
    },
    /// Read one page of document `doc`; answered by `Page`. One page per
    /// request, so a crash is attributed to the page being read.
    ReadPage { doc: u64, index: u32 },
    /// Render one page of document `doc` to 8-bit gray; answered by
    /// `Rendered`.
    Render {
        doc: u64,
        index: u32,
        dpi: u32,
        max_pixels: u64,
    },
    /// Close document `doc`. No answer.
    Close { doc: u64 },
    /// Test hook: abort the process as a crashing pdfium would.
    #[doc(hidden)]
    DebugAbort,
    /// Test hook: sleep, as a pdfium stuck in a loop would; then `Closed`.
    #[doc(hidden)]
    DebugSleep { millis: u64 },
}

/// What a worker answers.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Response {
    Opened(DocInfo),
    Page(PageRead),
    Rendered {
        width: u32,
        height: u32,
        /// As serde bytes (`serde_bytes`): postcard copies a page's pixels
        /// in one go instead of making one serde call a byte (a page at
        /// 200 dpi is 2.3 MB; `perf` over a run of scans had 2.4% of its
        /// CPU there). The bytes on the wire are a sequence's: a varint
        /// length, then the bytes.
        #[serde(with = "serde_bytes")]
        pixels: Vec<u8>,
    },
    /// Answer to `DebugSleep`.
    Slept,
    /// The request failed; the worker is fine and can take the next one.
    Failed(PdfError),
    /// The request failed and the worker is about to exit (a panic inside
    /// the reader may leave pdfium's state poisoned): discard this worker.
    Fatal(PdfError),
}

/// Writes one frame.
pub fn write_frame<W: Write, T: Serialize>(w: &mut W, msg: &T) -> io::Result<()> {
    let bytes = postcard::to_stdvec(msg).map_err(io::Error::other)?;
    let len = u32::try_from(bytes.len())
        .ok()
        .filter(|&n| n <= MAX_FRAME)
        .ok_or_else(|| io::Error::other(format!("frame of {} bytes is too large", bytes.len())))?;
    w.write_all(&len.to_le_bytes())?;
    w.write_all(&bytes)?;
    w.flush()
}

/// Reads one frame; `Ok(None)` on a clean end of stream before a frame.
pub fn read_frame<R: Read, T: DeserializeOwned>(r: &mut R) -> io::Result<Option<T>> {
    let mut len = [0u8; 4];
    let mut got = 0;
    while got < 4 {
        match r.read(&mut len[got..]) {
            Ok(0) if got == 0 => return Ok(None),
            Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
            Ok(n) => got += n,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    let len = u32::from_le_bytes(len);
    if len > MAX_FRAME {
        return Err(io::Error::new(
            io::ErrorKind::InvalidData,
            format!("frame length {len} exceeds the limit"),
        ));
    }
    let mut buf = vec![0u8; len as usize];
    r.read_exact(&mut buf)?;
    postcard::from_bytes(&buf)
        .map(Some)
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e))
}

/// Entry point of `colophon worker`: serves requests on stdin/stdout until
/// stdin closes. Returns an error only when the pipes themselves fail.
pub fn serve_stdio() -> anyhow::Result<()> {
    let out = private_stdout()?;
    let mut out = BufWriter::new(out);
    out.write_all(HANDSHAKE)?;
    out.flush()?;
    let stdin = io::stdin();
    let mut input = BufReader::new(stdin.lock());
    serve(&mut input, &mut out)
}

/// Duplicates fd 1 for the frames and points fd 1 at stderr, so stray
/// prints from any library cannot corrupt the protocol.
pub(crate) fn private_stdout() -> anyhow::Result<std::fs::File> {
    use std::os::fd::FromRawFd;
    io::stdout().flush()?;
    // SAFETY: plain fd syscalls; the duplicate is owned by the File below.
    unsafe {
        let fd = libc::fcntl(1, libc::F_DUPFD_CLOEXEC, 3);
        if fd < 0 {
            return Err(io::Error::last_os_error().into());
        }
        if libc::dup2(2, 1) < 0 {
            return Err(io::Error::last_os_error().into());
        }
        Ok(std::fs::File::from_raw_fd(fd))
    }
}

/// The documents a worker keeps open, most recently used last.
#[derive(Default)]
struct OpenDocs(Vec<(u64, OpenDoc)>);

/// A document open in a worker.
struct OpenDoc {
    doc: Document,
    /// Set when the quick reader refused one of its pages as too large
    /// ([`PdfError::TooLarge`]): every later page and render fails the
    /// same way, so pdfium never reads what the quick reader refused.
    too_large: Option<PdfError>,
}

impl OpenDoc {
    /// Page `index`, as [`Document::read_page`] reads it (the quick reader,
    /// else pdfium), except that a page the quick reader refuses as too
    /// large fails instead of going to pdfium: pdfium would read the same
    /// bomb whole (gigabytes from a few kilobytes) or abort on it.
    fn read_page(&mut self, index: u32) -> Result<PageRead, PdfError> {
        if let Some(e) = &self.too_large {
            return Err(e.clone());
        }
        match self.doc.read_page_quick(index) {
            None => self.doc.read_page(index),
            Some(Ok(page)) => Ok(page),
            Some(Err(why)) => match why.too_large {
                Some(what) => {
                    let e = PdfError::TooLarge(what);
                    self.too_large = Some(e.clone());
                    Err(e)
                }
                None => {
                    self.doc.leave_large_to_pdfium()?;
                    self.doc.read_page_pdfium(index)
                }
            },
        }
    }

    fn render_page(&self, index: u32, dpi: u32, max_pixels: u64) -> Result<Response, PdfError> {
        if let Some(e) = &self.too_large {
            return Err(e.clone());
        }
        let img = self.doc.render_page(index, dpi, max_pixels)?;
        Ok(Response::Rendered {
            width: img.width(),
            height: img.height(),
            pixels: img.into_raw(),
        })
    }
}

impl OpenDocs {
    /// Document `id`, now the most recently used.
    fn get(&mut self, id: u64) -> Option<&mut OpenDoc> {
        let at = self.0.iter().position(|(d, _)| *d == id)?;
        let entry = self.0.remove(at);
        self.0.push(entry);
        self.0.last_mut().map(|(_, d)| d)
    }

    /// Adds a document, closing the least recently used ones beyond
    /// [`KEEP_OPEN`] documents or [`KEEP_OPEN_BYTES`] besides this one.
    fn add(&mut self, id: u64, doc: Document) {
        self.close(id);
        self.0.push((
            id,
            OpenDoc {
                doc,
                too_large: None,
            },
        ));
        let mut bytes: usize = 0;
        let mut keep = 1;
        for (_, d) in self.0.iter().rev().skip(1) {
            bytes += d.doc.byte_len();
            if keep >= KEEP_OPEN || bytes > KEEP_OPEN_BYTES {
                break;
            }
            keep += 1;
        }
        let excess = self.0.len() - keep;
        self.0.drain(..excess);
    }

    fn close(&mut self, id: u64) {
        self.0.retain(|(d, _)| *d != id);
    }
}

/// A worker whose resident memory passes this gives its freed memory back
/// to the system ([`crate::util::alloc::trim_above`]).
const TRIM_ABOVE: u64 = 64 << 20;

/// Once trimmed, a worker trims again only after growing this much more:
/// the documents it keeps open may hold more than [`TRIM_ABOVE`] live.
const TRIM_GROWTH: u64 = 32 << 20;

/// The request loop, over any pipes (unit-testable in-process).
///
/// After each answer the worker gives freed memory back when it holds
/// much: pdfium frees a page's objects when the page is closed, but glibc
/// keeps the freed middle of its heap resident, so a worker that had read
/// one page of a million path points (a 21 MB manual of plots) stayed at
/// 140 MB for the rest of the run, beside the other workers.
pub fn serve<R: Read, W: Write>(input: &mut R, out: &mut W) -> anyhow::Result<()> {
    let mut docs = OpenDocs::default();
    let mut trim_above = TRIM_ABOVE;
    while let Some(req) = read_frame::<_, Request>(input)? {
        let answer =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| handle(&mut docs, req)));
        match answer {
            Ok(Some(resp)) => write_frame(out, &resp)?,
            Ok(None) => {}
            Err(panic) => {
                let msg = crate::util::panic::text(panic.as_ref(), "unknown panic");
                write_frame(
                    out,
                    &Response::Fatal(PdfError::Pdfium(format!("internal error: {msg}"))),
                )?;
                return Ok(());
            }
        }
        // After the answer is sent: the coordinator does not wait for this.
        trim_above = give_back_memory(trim_above);
    }
    Ok(())
}

/// Trims the allocator's free memory when the worker's resident memory
/// is above `above`; returns the threshold for next time: [`TRIM_GROWTH`]
/// above what stays resident (what the open documents hold), at least
/// [`TRIM_ABOVE`].
fn give_back_memory(above: u64) -> u64 {
    use crate::util::alloc::{resident_bytes, trim};
    let Some(resident) = resident_bytes() else {
        return above;
    };
    if resident > above {
        trim();
        let after = resident_bytes().unwrap_or(resident);
        return TRIM_ABOVE.max(after + TRIM_GROWTH);
    }
    above.min(TRIM_ABOVE.max(resident + TRIM_GROWTH))
}

/// Answers one request; `None` for `Close`, which has no answer.
fn handle(docs: &mut OpenDocs, req: Request) -> Option<Response> {
    let resp = match req {
        Request::Open { doc, path, expect } => {
            docs.close(doc);
            let path = path_from_bytes(path);
            match Document::open(&path) {
                Ok(d) if expect.is_some_and(|h| h != d.content_hash()) => {
                    Response::Failed(PdfError::Changed)
                }
                Ok(d) => {
                    let info = d.info();
                    docs.add(doc, d);
                    Response::Opened(info)
                }
                Err(e) => Response::Failed(e),
            }
        }
        Request::ReadPage { doc, index } => match docs.get(doc) {
            Some(d) => d
                .read_page(index)
                .map_or_else(Response::Failed, Response::Page),
            None => Response::Failed(PdfError::NotOpen),
        },
        Request::Render {
            doc,
            index,
            dpi,
            max_pixels,
        } => match docs.get(doc) {
            Some(d) => d
                .render_page(index, dpi, max_pixels)
                .unwrap_or_else(Response::Failed),
            None => Response::Failed(PdfError::NotOpen),
        },
        Request::Close { doc } => {
            docs.close(doc);
            return None;
        }
        Request::DebugAbort => std::process::abort(),
        Request::DebugSleep { millis } => {
            std::thread::sleep(std::time::Duration::from_millis(millis));
            Response::Slept
        }
    };
    Some(resp)
}

/// Raw path bytes, as [`Request::Open`] carries them.
pub fn path_to_bytes(path: &std::path::Path) -> Vec<u8> {
    use std::os::unix::ffi::OsStrExt;
    path.as_os_str().as_bytes().to_vec()
}

fn path_from_bytes(bytes: Vec<u8>) -> PathBuf {
    use std::os::unix::ffi::OsStringExt;
    PathBuf::from(std::ffi::OsString::from_vec(bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A worker trims only above its threshold, and the threshold follows
    /// what stays resident: never below [`TRIM_ABOVE`], and back down
    /// from a high one to [`TRIM_GROWTH`] above what this process holds.
    #[test]
    fn memory_is_given_back_above_a_threshold_that_follows_the_resident_size() {
        let high = give_back_memory(u64::MAX);
        let resident = crate::util::alloc::resident_bytes().unwrap();
        assert!((TRIM_ABOVE..u64::MAX).contains(&high), "{high}");
        // Other tests run beside this one: allow for their allocations.
        assert!(high <= TRIM_ABOVE.max(resident + TRIM_GROWTH) + (64 << 20));
        assert!(give_back_memory(0) >= TRIM_ABOVE);
    }

    #[test]
    fn frames_round_trip_and_eof_is_clean() {
        let mut buf = Vec::new();
        let reqs = [
            Request::Open {
                doc: 3,
                path: b"/tmp/\xffodd name.pdf".to_vec(),
                expect: Some([7; 32]),
            },
            Request::ReadPage { doc: 3, index: 7 },
            Request::Close { doc: 3 },
        ];
        for r in &reqs {
            write_frame(&mut buf, r).unwrap();
        }
        let mut rd = &buf[..];
        for r in &reqs {
            assert_eq!(read_frame::<_, Request>(&mut rd).unwrap().as_ref(), Some(r));
        }
        assert_eq!(read_frame::<_, Request>(&mut rd).unwrap(), None);
    }

    #[test]
    fn truncated_and_oversized_frames_are_errors() {
        let mut buf = Vec::new();
        write_frame(&mut buf, &Request::ReadPage { doc: 0, index: 1 }).unwrap();
        buf.pop();
        assert!(read_frame::<_, Request>(&mut &buf[..]).is_err());
        let huge = (MAX_FRAME + 1).to_le_bytes();
        let err = read_frame::<_, Request>(&mut &huge[..]).unwrap_err();
        assert_eq!(err.kind(), io::ErrorKind::InvalidData);
    }

    #[test]
    fn serve_answers_each_request_and_close_silently() {
        let mut input = Vec::new();
        write_frame(&mut input, &Request::ReadPage { doc: 0, index: 0 }).unwrap();
        write_frame(&mut input, &Request::Close { doc: 0 }).unwrap();
        write_frame(&mut input, &Request::DebugSleep { millis: 1 }).unwrap();
        let mut out = Vec::new();
        serve(&mut &input[..], &mut out).unwrap();
        let mut rd = &out[..];
        assert_eq!(
            read_frame::<_, Response>(&mut rd).unwrap(),
            Some(Response::Failed(PdfError::NotOpen))
        );
        assert_eq!(
            read_frame::<_, Response>(&mut rd).unwrap(),
            Some(Response::Slept)
        );
        assert_eq!(read_frame::<_, Response>(&mut rd).unwrap(), None);
    }

    /// Issue 19: a worker that reads other bytes than the coordinator
    /// hashed says so, and keeps no document open to read pages from.
    #[test]
    fn open_with_another_content_hash_is_changed() {
        let path = crate::inspect::pdfium::tests::fixture("book-p03-asis.pdf");
        let real = *blake3::hash(&std::fs::read(&path).unwrap()).as_bytes();
        let mut input = Vec::new();
        for (doc, expect) in [(1, Some([0u8; 32])), (2, None), (3, Some(real))] {
            let req = Request::Open {
                doc,
                path: path_to_bytes(&path),
                expect,
            };
            write_frame(&mut input, &req).unwrap();
            write_frame(&mut input, &Request::ReadPage { doc, index: 0 }).unwrap();
        }
        let mut out = Vec::new();
        serve(&mut &input[..], &mut out).unwrap();
        let mut rd = &out[..];
        let mut next = || read_frame::<_, Response>(&mut rd).unwrap().unwrap();
        assert_eq!(next(), Response::Failed(PdfError::Changed));
        assert_eq!(next(), Response::Failed(PdfError::NotOpen));
        for _ in 0..2 {
            assert!(matches!(next(), Response::Opened(_)));
            assert!(matches!(next(), Response::Page(_)));
        }
    }

    /// A worker keeps its recent documents open under their ids, answers
    /// for each its own pages, and forgets a closed one and the oldest
    /// beyond `KEEP_OPEN`.
    #[test]
    fn recent_documents_stay_open_under_their_ids() {
        use crate::inspect::pdfium::tests::fixture;
        let (a, b) = (fixture("book-p03-asis.pdf"), fixture("book-p02-asis.pdf"));
        let mut input = Vec::new();
        let mut send = |r: Request| write_frame(&mut input, &r).unwrap();
        let open = |doc, p: &std::path::Path| Request::Open {
            doc,
            path: path_to_bytes(p),
            expect: None,
        };
        send(open(1, &a));
        send(open(2, &b));
        // Pipelined: both pages asked before either answer is read.
        send(Request::ReadPage { doc: 1, index: 1 });
        send(Request::ReadPage { doc: 2, index: 0 });
        send(Request::Close { doc: 1 });
        send(Request::ReadPage { doc: 1, index: 1 });
        for doc in 3..3 + KEEP_OPEN as u64 {
            send(open(doc, &a));
        }
        // Document 2 was used before the last KEEP_OPEN opens: closed.
        send(Request::ReadPage { doc: 2, index: 0 });
        send(Request::ReadPage { doc: 3, index: 1 });
        let mut out = Vec::new();
        serve(&mut &input[..], &mut out).unwrap();
        let mut rd = &out[..];
        let mut next = || read_frame::<_, Response>(&mut rd).unwrap().unwrap();
        let page_count = |r: Response| match r {
            Response::Opened(info) => info.page_count,
            other => panic!("{other:?}"),
        };
        assert_eq!((page_count(next()), page_count(next())), (15, 16));
        let first_line = |r: Response| match r {
            Response::Page(p) => p.text.lines[0].text.clone(),
            other => panic!("{other:?}"),
        };
        assert_eq!(first_line(next()), "Weaving on Simple Looms");
        assert_eq!(first_line(next()), "Recipes from a");
        assert_eq!(next(), Response::Failed(PdfError::NotOpen));
        for _ in 0..KEEP_OPEN {
            assert_eq!(page_count(next()), 15);
        }
        assert_eq!(next(), Response::Failed(PdfError::NotOpen));
        assert_eq!(first_line(next()), "Weaving on Simple Looms");
        assert_eq!(read_frame::<_, Response>(&mut rd).unwrap(), None);
    }

    /// Issue 38: a page whose content the quick reader refuses as too
    /// large (here a Flate-of-Flate bomb of about a kilobyte) fails its
    /// document with `TooLarge` instead of going to pdfium, which would
    /// inflate it whole; the document's other pages and renders fail the
    /// same way, and the worker goes on with the next document.
    #[test]
    fn a_bomb_fails_its_document_as_too_large_without_pdfium() {
        use crate::inspect::pdfium::tests::fixture;
        use crate::inspect::quick::fuzz;
        let base = std::fs::read(fixture("book-p03-asis.pdf")).unwrap();
        let flate = fuzz::KINDS.iter().position(|k| *k == "flate-bomb").unwrap();
        let bomb = fuzz::mutate(&base, flate, &mut fuzz::Rng::new(1));
        assert!(bomb.len() < base.len() + 4096, "{}", bomb.len());
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("bomb.pdf");
        std::fs::write(&path, &bomb).unwrap();
        let mut input = Vec::new();
        let mut send = |r: Request| write_frame(&mut input, &r).unwrap();
        for (doc, p) in [(1, &path), (2, &fixture("book-p03-asis.pdf"))] {
            send(Request::Open {
                doc,
                path: path_to_bytes(p),
                expect: None,
            });
        }
        send(Request::ReadPage { doc: 1, index: 0 });
        send(Request::ReadPage { doc: 1, index: 0 });
        send(Request::Render {
            doc: 1,
            index: 0,
            dpi: 72,
            max_pixels: 1_000_000,
        });
        send(Request::ReadPage { doc: 2, index: 1 });
        let mut out = Vec::new();
        serve(&mut &input[..], &mut out).unwrap();
        let mut rd = &out[..];
        let mut next = || read_frame::<_, Response>(&mut rd).unwrap().unwrap();
        assert!(matches!(next(), Response::Opened(i) if i.page_count == 1));
        assert!(matches!(next(), Response::Opened(i) if i.page_count == 15));
        let too_large = PdfError::TooLarge(
            "a stream decodes to more than 64 MiB (a decompression bomb)".into(),
        );
        assert_eq!(
            too_large.to_string(),
            "too large to read: a stream decodes to more than 64 MiB (a decompression bomb)"
        );
        for _ in 0..3 {
            assert_eq!(next(), Response::Failed(too_large.clone()));
        }
        assert!(
            matches!(next(), Response::Page(p) if p.text.lines[0].text == "Weaving on Simple Looms")
        );
    }

    #[test]
    fn rendered_pixels_travel_as_a_sequence_of_bytes_would() {
        #[derive(serde::Serialize)]
        enum Plain {
            #[allow(dead_code)]
            Opened,
            Rendered {
                width: u32,
                height: u32,
                pixels: Vec<u8>,
            },
        }
        let pixels: Vec<u8> = (0..=255).cycle().take(1000).collect();
        let plain = Plain::Rendered {
            width: 40,
            height: 25,
            pixels: pixels.clone(),
        };
        let ours = Response::Rendered {
            width: 40,
            height: 25,
            pixels,
        };
        let wire = postcard::to_stdvec(&ours).unwrap();
        let variant = postcard::to_stdvec(&Response::Rendered {
            width: 0,
            height: 0,
            pixels: vec![],
        })
        .unwrap()[0];
        let mut plain_wire = postcard::to_stdvec(&plain).unwrap();
        plain_wire[0] = variant;
        assert_eq!(wire, plain_wire);
        let mut framed = Vec::new();
        write_frame(&mut framed, &ours).unwrap();
        let back: Response = read_frame(&mut framed.as_slice()).unwrap().unwrap();
        assert_eq!(back, ours);
    }

    /// Not a test: the body of the worker processes that the pool tests
    /// spawn from this test binary (`--ignored --exact` with
    /// `COLOPHON_TEST_WORKER=1`), since the real `colophon worker`
    /// subcommand lives in the binary.
    #[test]
    #[ignore = "worker process entry for the pool tests"]
    fn worker_process_entry() {
        if std::env::var_os("COLOPHON_TEST_WORKER").is_some() {
            serve_stdio().unwrap();
        }
    }
}
