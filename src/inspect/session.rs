//! Reading a PDF as a document's flow sees it: a [`PdfSession`] opens one
//! document, reads pages, renders them, and a [`SessionSource`] hands
//! sessions out. The worker pool is the one real source; the pipeline's
//! tests give their own. Here, in `inspect`, so that the pipeline and the
//! review page's thumbnails use it without importing each other.

use crate::model::{DocHash, DocInfo, PageText};
use anyhow::Result;
use image::GrayImage;
use std::path::Path;

/// Reading a PDF: what the inspect stage offers to a document's flow.
pub trait PdfSession {
    /// Opens the document; page count and existing metadata. Fails with
    /// [`PdfError::Changed`](crate::inspect::PdfError::Changed) unless the
    /// bytes read have the content hash `hash`, so that nothing read from
    /// another content is cached under it.
    fn open(&mut self, path: &Path, hash: &DocHash) -> Result<DocInfo>;
    /// Text with positions and image ratio of the given 0-based pages of
    /// the open document.
    fn pages(&mut self, indices: &[u32]) -> Result<Vec<PageText>>;
    /// The page rendered to 8-bit gray at `dpi`.
    fn render(&mut self, index: u32, dpi: u32) -> Result<GrayImage>;
}

/// Renders are capped at this many pixels (a 300 dpi A3 page) so that a
/// huge page size cannot exhaust memory.
const MAX_RENDER_PIXELS: u64 = 5000 * 7000;

/// Hands out sessions, each reading one document through the worker
/// processes (a session waits for a free worker when it needs one).
pub trait SessionSource: Sync {
    fn session(&self) -> Result<Box<dyn PdfSession + '_>>;
}

/// A document read through the worker pool: the worker is held only
/// while it reads or renders for this document (see
/// [`DocSession`](crate::inspect::DocSession)).
impl PdfSession for crate::inspect::DocSession<'_> {
    fn open(&mut self, path: &Path, hash: &DocHash) -> Result<DocInfo> {
        Ok(crate::inspect::DocSession::open(self, path, Some(hash.0))?)
    }

    fn pages(&mut self, indices: &[u32]) -> Result<Vec<PageText>> {
        let pages = self.read_pages(indices)?;
        Ok(pages
            .into_iter()
            .map(|p| {
                let ocr_layer = p.is_ocr_layer();
                let mut text = p.text;
                // An invisible text layer under a page image is some OCR
                // tool's output: say so in the record's sources.
                if ocr_layer {
                    text.via = crate::model::Via::Ocr;
                }
                text
            })
            .collect())
    }

    fn render(&mut self, index: u32, dpi: u32) -> Result<GrayImage> {
        Ok(self.render_page(index, dpi, MAX_RENDER_PIXELS)?)
    }
}

impl SessionSource for crate::inspect::WorkerPool {
    fn session(&self) -> Result<Box<dyn PdfSession + '_>> {
        Ok(Box::new(crate::inspect::WorkerPool::session(self)))
    }
}
