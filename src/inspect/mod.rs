//! Stage 3, inspect (SPEC 5): open a PDF with pdfium and read its page
//! count, existing Info metadata and, for the pages asked for, the text
//! lines with positions and font sizes and the share of the page covered by
//! images; render pages to gray for OCR and vision.
//!
//! Pdfium is not thread-safe (`pdfium-render` serialises every call behind
//! one mutex), so the coordinator reads PDFs in a pool of worker processes:
//!
//! - [`pdfium`]: binding `libpdfium.so` and reading one [`Document`]
//!   in-process (the code a worker runs; tests use it directly);
//! - [`page`]: one page's glyphs, image rectangles and geometry through
//!   pdfium's C API;
//! - [`source`]: the file as pdfium reads it, a block at a time, checked
//!   against the bytes first hashed;
//! - [`lines`]: turning glyphs into [`TextLine`](crate::model::TextLine)s;
//! - [`area`]: the union of image rectangles;
//! - [`xmp`]: `dc:title`/`dc:creator` when the Info dictionary lacks them;
//! - [`worker`]: the `colophon worker` process, postcard frames over pipes;
//! - [`pool`]: lazily spawned workers with a per-document deadline; a worker
//!   that crashes or hangs fails that document only and is replaced.

pub mod area;
pub mod lines;
mod page;
pub mod pdfium;
pub mod pool;
pub mod quick;
pub mod session;
mod source;
pub mod worker;
pub mod xmp;

pub use pdfium::Document;
pub use pool::{DocSession, PoolConfig, WorkerHandle, WorkerPool};

use crate::model::PageText;

/// Bump when an input or the stored layout of `DocInfo`/`PageText` changes
/// (line building, font sizes, image ratio...): cached pages are read again.
pub const INSPECT_VERSION: u32 = 9;
use serde::{Deserialize, Serialize};

/// Why a document (or one of its pages) could not be read. The coordinator
/// branches on the kind: `Encrypted` and `Malformed` are the file's fault,
/// `PdfiumMissing` is the installation's, `WorkerCrashed`/`Timeout` are
/// recorded for that document and the run goes on.
#[derive(Debug, Clone, PartialEq, thiserror::Error, Serialize, Deserialize)]
pub enum PdfError {
    #[error("the PDF is password-protected (encrypted); colophon cannot read it")]
    Encrypted,
    #[error("unreadable PDF: {0}")]
    Malformed(String),
    #[error("cannot read the file: {0}")]
    Io(String),
    #[error("page {} does not exist (the document has {page_count} pages)", index + 1)]
    NoSuchPage { index: u32, page_count: u32 },
    #[error("pdfium failed: {0}")]
    Pdfium(String),
    #[error("{0}")]
    PdfiumMissing(String),
    /// The worker process died (crash, abort, killed) or sent garbage.
    #[error("worker crashed while {0}")]
    WorkerCrashed(String),
    /// The document used up its `PDF_TIMEOUT` budget; the worker was killed.
    #[error("timed out after {0} s (PDF_TIMEOUT)")]
    Timeout(u64),
    /// The worker executable could not be started or did not answer as a
    /// colophon worker.
    #[error("cannot start a PDF worker: {0}")]
    WorkerStart(String),
    /// A request that needs an open document came without one.
    #[error("no document is open in the worker")]
    NotOpen,
    /// The page is larger than any PDF page may be (see
    /// `pdfium::MAX_PAGE_PT`), so it is not rendered: its pixels alone
    /// could exhaust memory.
    #[error(
        "page {} is {} x {} pt, too large to render (a PDF page is at most 14400 pt a side)",
        index + 1, fmt_pt(*width), fmt_pt(*height)
    )]
    PageTooLarge { index: u32, width: f32, height: f32 },
    /// The document holds data that would take the worker's memory if
    /// read (a decompression bomb, a CMap that expands to millions of
    /// codes): refused by the quick reader before pdfium reads it.
    #[error("too large to read: {0}")]
    TooLarge(String),
    /// The bytes the worker read are not the bytes the coordinator hashed:
    /// the file was changed (or replaced) in between. Nothing read from it
    /// may be cached under the hash the coordinator has.
    #[error("the file changed while it was read; run again to read its new content")]
    Changed,
}

/// A page side for a message: whole points as integers ("100000"), others
/// with one decimal; a size that is not a number as pdfium gave it.
fn fmt_pt(v: f32) -> String {
    if v.is_finite() && v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else if v.is_finite() {
        format!("{v:.1}")
    } else {
        format!("{v}")
    }
}

/// One page as `inspect` reads it: the [`PageText`] `extract` consumes,
/// plus which of its lines are an invisible OCR layer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageRead {
    pub text: PageText,
    /// Indices into `text.lines` of lines drawn with an invisible text
    /// render mode: the OCR layer a scanner or OCR tool put under a page
    /// image. Their text is kept (it is often all there is) but it is OCR
    /// quality, not typeset text.
    pub hidden_lines: Vec<u32>,
}

impl PageRead {
    /// The page's text comes (mostly) from an invisible OCR layer.
    pub fn is_ocr_layer(&self) -> bool {
        !self.hidden_lines.is_empty() && self.hidden_lines.len() * 2 >= self.text.lines.len()
    }
}
