//! One document through the per-document stages: inspect (via a pdfium
//! worker), OCR, vision, extract, decide — each step answered from the cache
//! when it can be. This is where page selection meets the fallback rule:
//! back matter is read only after front matter (with its vision answers)
//! has been decided on and found lacking.
//!
//! The PDF side is behind [`PdfSession`] so that the flow can be tested
//! without worker processes and so that a warm run never starts one: a
//! session is only checked out when a page or the page count is missing
//! from the cache.

use crate::cache::{Cache, Tree, keys};
use crate::extract;
use crate::model::{DocHash, DocInfo, DocResult, DocText, PageText, PagesRead};
use crate::report::Summary;
use crate::select;
use crate::settings::Settings;
use anyhow::Result;
use std::path::Path;

/// Reading a PDF: what the inspect stage offers to a document's flow.
pub trait PdfSession {
    /// Opens the document; page count and existing metadata.
    fn open(&mut self, path: &Path) -> Result<DocInfo>;
    /// Text with positions and image ratio of the given 0-based pages of
    /// the open document.
    fn pages(&mut self, indices: &[u32]) -> Result<Vec<PageText>>;
}

/// Hands out sessions (a worker process each); blocks until one is free.
pub trait SessionSource: Sync {
    fn session(&self) -> Result<Box<dyn PdfSession + '_>>;
}

impl PdfSession for crate::inspect::WorkerHandle<'_> {
    fn open(&mut self, path: &Path) -> Result<DocInfo> {
        Ok(crate::inspect::WorkerHandle::open(self, path)?)
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
}

impl SessionSource for crate::inspect::WorkerPool {
    fn session(&self) -> Result<Box<dyn PdfSession + '_>> {
        Ok(Box::new(self.checkout()?))
    }
}

/// What a document's flow needs from the run.
pub struct Context<'a> {
    pub settings: &'a Settings,
    pub cache: &'a Cache,
    pub sessions: &'a dyn SessionSource,
    pub versions: keys::StageVersions,
}

/// A session opened on first need.
struct LazySession<'a, 'b> {
    ctx: &'b Context<'a>,
    path: &'b Path,
    session: Option<Box<dyn PdfSession + 'a>>,
    summary: &'b mut Summary,
}

impl<'a, 'b> LazySession<'a, 'b> {
    fn get(&mut self) -> Result<&mut Box<dyn PdfSession + 'a>> {
        if self.session.is_none() {
            let mut s = self.ctx.sessions.session()?;
            s.open(self.path)?;
            self.summary.docs_opened += 1;
            self.session = Some(s);
        }
        Ok(self.session.as_mut().expect("just set"))
    }
}

/// Runs the per-document stages for one PDF whose record was not cached.
///
/// `diagnostics`: the folder for this PDF's `page-<N>.txt` files, if any.
pub fn process(
    ctx: &Context,
    path: &Path,
    hash: &DocHash,
    diagnostics: Option<&Path>,
    summary: &mut Summary,
) -> Result<DocResult> {
    let s = ctx.settings;
    let mut pdf = LazySession {
        ctx,
        path,
        session: None,
        summary,
    };

    let doc_key = keys::doc_key(hash, ctx.versions.inspect);
    let info: DocInfo = match ctx.cache.get(Tree::Doc, &doc_key) {
        Some(info) => info,
        None => {
            // open() is what reads the document info; do it through the
            // session so the same worker then reads the pages.
            let mut session = ctx.sessions.session()?;
            let info = session.open(path)?;
            pdf.summary.docs_opened += 1;
            pdf.session = Some(session);
            ctx.cache.put(Tree::Doc, &doc_key, &info);
            info
        }
    };

    let front = select::front_pages(info.page_count, &s.matter);
    let mut pages = load_pages(ctx, hash, &front, &mut pdf)?;
    let mut candidates = extract::info_candidates(&info.info);
    candidates.extend(extract::text_candidates(&DocText {
        pages: &pages,
        page_count: info.page_count,
    }));
    let mut decision = crate::decide::decide(&candidates);

    let mut back = Vec::new();
    if select::wants_back_matter(&s.matter, &decision.metadata) {
        back = select::back_pages(info.page_count, &s.matter);
        if !back.is_empty() {
            pages.extend(load_pages(ctx, hash, &back, &mut pdf)?);
            let mut candidates = extract::info_candidates(&info.info);
            candidates.extend(extract::text_candidates(&DocText {
                pages: &pages,
                page_count: info.page_count,
            }));
            decision = crate::decide::decide(&candidates);
        }
    }

    if let Some(dir) = diagnostics {
        write_page_diagnostics(dir, &pages, s.page_num_offset);
    }
    Ok(DocResult {
        page_count: info.page_count,
        decision,
        pages_read: PagesRead { front, back },
        ocr_pages: pages
            .iter()
            .filter_map(|p| p.ocr_confidence.map(|c| (p.index, c)))
            .collect(),
        vision: Default::default(),
        warnings: Vec::new(),
    })
}

/// Page texts for `indices`, from the cache or the (lazily opened) session.
fn load_pages(
    ctx: &Context,
    hash: &DocHash,
    indices: &[u32],
    pdf: &mut LazySession,
) -> Result<Vec<PageText>> {
    let mut out: Vec<Option<PageText>> = Vec::with_capacity(indices.len());
    let mut missing = Vec::new();
    for &i in indices {
        let page = ctx
            .cache
            .get::<PageText>(Tree::Page, &keys::page_key(hash, i, ctx.versions.inspect));
        if page.is_none() {
            missing.push(i);
        }
        out.push(page);
    }
    pdf.summary.pages_cached += (indices.len() - missing.len()) as u64;
    if !missing.is_empty() {
        let read = pdf.get()?.pages(&missing)?;
        pdf.summary.pages_read += read.len() as u64;
        for page in read {
            ctx.cache.put(
                Tree::Page,
                &keys::page_key(hash, page.index, ctx.versions.inspect),
                &page,
            );
            if let Some(slot) = indices.iter().position(|&i| i == page.index) {
                out[slot] = Some(page);
            }
        }
    }
    Ok(out.into_iter().flatten().collect())
}

/// `page-<N>.txt` for every page read, N following `PAGE_NUM_OFFSET`.
/// Diagnostics are best effort: failing to write them fails nothing.
fn write_page_diagnostics(dir: &Path, pages: &[PageText], offset: u32) {
    if pages.is_empty() || std::fs::create_dir_all(dir).is_err() {
        return;
    }
    for p in pages {
        let _ = std::fs::write(
            dir.join(format!("page-{}.txt", p.index + offset)),
            p.plain_text(),
        );
    }
}
