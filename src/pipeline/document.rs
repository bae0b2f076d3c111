//! One document through the per-document stages: inspect (via a pdfium
//! worker), OCR, vision, extract, decide — each step answered from the cache
//! when it can be. This is where page selection meets the decisions:
//! front matter is read in batches and decided on after each, until the
//! values are sure enough (`select::front_settled`); back matter is read
//! only after front matter (with its vision answers) has been decided on
//! and found lacking.
//!
//! The PDF side is behind [`PdfSession`] so that the flow can be tested
//! without worker processes and so that a warm run never starts one: a
//! session is only checked out when a page or the page count is missing
//! from the cache.

use crate::cache::{Cache, Tree, keys};
use crate::extract;
use crate::inspect::session::{PdfSession, SessionSource};
use crate::model::{
    Decision, DocHash, DocInfo, DocResult, DocText, Field, Metadata, PageText, PagesRead,
};
use crate::ocr::Matter;
use crate::progress::Reporter;
use crate::report::{Got, StageOutcome, VisionGot};
use crate::select;
use crate::settings::Settings;
use crate::vision::VisionPool;
use anyhow::Result;
use std::path::Path;

/// What a document's flow needs from the run.
pub struct Context<'a> {
    pub settings: &'a Settings,
    pub cache: &'a Cache,
    pub sessions: &'a dyn SessionSource,
    pub versions: keys::StageVersions,
    /// The vision callers, when `ANALYZE_WITH_VISION` is on; a job's tag
    /// is its 0-based page index.
    pub vision: Option<&'a VisionPool<u32>>,
    /// Tesseract processes allowed at once, across all documents.
    pub ocr_slots: &'a OcrSlots,
    /// The threads the finders and the decision run on (one for every two
    /// workers). Every thread that runs a pattern keeps its own lazy-DFA
    /// cache for it, so a few fixed threads keep the caches few, whereas
    /// the document threads, twice as many as workers, would each fill a
    /// set.
    pub deciders: &'a rayon::ThreadPool,
    /// For the one message of a vision pool that switched itself off.
    pub reporter: &'a dyn Reporter,
}

impl Context<'_> {
    /// The key of a document's record under this run's settings and stage
    /// versions: the one place it is computed (the feeder looks it up, the
    /// document threads store under it, write mode stores the written
    /// file's record under it).
    pub fn record_key(&self, hash: &DocHash) -> keys::Key {
        keys::record_key(hash, self.settings, &self.versions)
    }

    /// The key of a document's cached failure (a broken or encrypted PDF):
    /// its record key plus this colophon's version.
    pub fn failure_key(&self, hash: &DocHash) -> keys::Key {
        keys::failure_key(&self.record_key(hash), env!("CARGO_PKG_VERSION"))
    }
}

/// A counting semaphore for Tesseract processes (one core each). A
/// document OCRs its pages on as many threads as there are slots, so that
/// the last scanned book of a run uses every core rather than one, while
/// documents OCRing side by side share the slots instead of overloading
/// the machine.
pub struct OcrSlots {
    size: usize,
    free: std::sync::Mutex<usize>,
    freed: std::sync::Condvar,
}

impl OcrSlots {
    /// `size` slots (at least one); `--jobs` in a run.
    pub fn new(size: usize) -> OcrSlots {
        let size = size.max(1);
        OcrSlots {
            size,
            free: std::sync::Mutex::new(size),
            freed: std::sync::Condvar::new(),
        }
    }

    /// Runs `f` once a slot is free, holding the slot meanwhile.
    fn with_slot<T>(&self, f: impl FnOnce() -> T) -> T {
        {
            let mut free = self.free.lock().unwrap_or_else(|p| p.into_inner());
            while *free == 0 {
                free = self.freed.wait(free).unwrap_or_else(|p| p.into_inner());
            }
            *free -= 1;
        }
        // Given back even if `f` panics (the panic then fails this document only).
        struct Release<'s>(&'s OcrSlots);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                *self.0.free.lock().unwrap_or_else(|p| p.into_inner()) += 1;
                self.0.freed.notify_one();
            }
        }
        let _release = Release(self);
        f()
    }
}

/// A session opened on first need.
struct LazySession<'a, 'b> {
    ctx: &'b Context<'a>,
    path: &'b Path,
    hash: &'b DocHash,
    session: Option<Box<dyn PdfSession + 'a>>,
}

impl<'a, 'b> LazySession<'a, 'b> {
    /// Gives the worker back to the pool (before waiting on vision, so
    /// that other documents can use it meanwhile).
    fn release(&mut self) {
        self.session = None;
    }

    /// The open session, opening the document first when needed (an
    /// [`StageOutcome::Opened`] in `work`).
    fn get(&mut self, work: &mut Vec<StageOutcome>) -> Result<&mut Box<dyn PdfSession + 'a>> {
        if self.session.is_none() {
            let mut s = self.ctx.sessions.session()?;
            s.open(self.path, self.hash)?;
            work.push(StageOutcome::Opened);
            self.session = Some(s);
        }
        Ok(self.session.as_mut().expect("just set"))
    }
}

/// Runs the per-document stages for one PDF whose record was not cached:
/// SPEC 5's inspect, OCR, vision, extract and decide, page batch by page
/// batch, each step answered from the cache when it can be.
///
/// `diagnostics`: the folder for this PDF's `page-<N>.txt` files, if any.
/// `work` receives what each stage did (also when the document then
/// fails), for the caller to count.
pub fn process(
    ctx: &Context,
    path: &Path,
    hash: &DocHash,
    diagnostics: Option<&Path>,
    work: &mut Vec<StageOutcome>,
) -> Result<DocResult> {
    let mut doc = Doc::new(ctx, path, hash, diagnostics, work);
    let info = doc.info()?;
    let (front, decision, sure) = doc.front_matter(&info)?;
    let (back, decision) = doc.back_matter(&info, front.len() as u32, &sure, decision)?;
    let decision = doc.whole_scans(&info, decision)?;
    doc.pdf.release();
    Ok(doc.result(&info, decision, front, back))
}

/// One document on its way through [`process`]: what its stages read and
/// found so far.
struct Doc<'a, 'b> {
    ctx: &'b Context<'a>,
    hash: &'b DocHash,
    diagnostics: Option<&'b Path>,
    pdf: LazySession<'a, 'b>,
    ocr_budget: OcrBudget,
    seen: Seen,
    pages: Vec<PageText>,
    work: &'b mut Vec<StageOutcome>,
}

impl<'a, 'b> Doc<'a, 'b> {
    fn new(
        ctx: &'b Context<'a>,
        path: &'b Path,
        hash: &'b DocHash,
        diagnostics: Option<&'b Path>,
        work: &'b mut Vec<StageOutcome>,
    ) -> Self {
        let pdf = LazySession {
            ctx,
            path,
            hash,
            session: None,
        };
        let timeout = crate::ocr::OcrOptions::from_settings(ctx.settings).timeout;
        Doc {
            ctx,
            hash,
            diagnostics,
            pdf,
            ocr_budget: OcrBudget::new(timeout),
            seen: Seen::default(),
            pages: Vec::new(),
            work,
        }
    }

    /// Inspect: the page count and existing metadata, from the cache or
    /// by opening the document (through the session, so that the same
    /// worker then reads the pages).
    fn info(&mut self) -> Result<DocInfo> {
        let ctx = self.ctx;
        let doc_key = keys::doc_key(self.hash, ctx.versions.inspect);
        if let Some(info) = ctx.cache.get(Tree::Doc, &doc_key) {
            return Ok(info);
        }
        let mut session = ctx.sessions.session()?;
        let info = session.open(self.pdf.path, self.hash)?;
        self.work.push(StageOutcome::Opened);
        self.pdf.session = Some(session);
        ctx.cache.put(Tree::Doc, &doc_key, &info);
        Ok(info)
    }

    /// Reads the pages at `indices` (text layer, OCR, vision) into the
    /// document's pages.
    fn read(&mut self, indices: &[u32], matter: Matter) -> Result<()> {
        let read = read_matter(
            self.ctx,
            self.hash,
            indices,
            matter,
            &mut self.pdf,
            &self.ocr_budget,
            self.diagnostics,
            &mut self.seen,
            &mut *self.work,
        )?;
        self.pages.extend(read);
        Ok(())
    }

    /// Extract and decide over every page read so far.
    fn decide(&self, info: &DocInfo) -> (Decision, Option<u32>) {
        decide_all(self.ctx, info, &self.pages, &self.seen)
    }

    /// Front matter in batches, deciding after each, until the pages read
    /// settle the document (`select::front_settled`) or the bound is
    /// reached. The worker stays this document's between batches: giving
    /// it back would mean opening the document again for the next one.
    /// Returns the pages read, the decision and its sure values.
    fn front_matter(&mut self, info: &DocInfo) -> Result<(Vec<u32>, Decision, Metadata)> {
        let s = self.ctx.settings;
        let mut front = Vec::new();
        let batches = select::front_batches(info.page_count, &s.matter);
        let last = batches.len().saturating_sub(1);
        for (n, batch) in batches.into_iter().enumerate() {
            self.read(&batch, Matter::Front)?;
            front.extend(batch);
            if n == last && s.matter.back.mode == crate::settings::BackMode::Never {
                // Nothing more to read: extraction needs no pdfium, another
                // document reads meanwhile.
                self.pdf.release();
            }
            let (decision, title_page) = self.decide(info);
            let (sure, _) = crate::decide::split_by_confidence(&decision, s.min_confidence);
            if select::front_settled(&sure, title_page, front.len() as u32) || n == last {
                return Ok((front, decision, sure));
            }
        }
        let (decision, _) = self.decide(info);
        let (sure, _) = crate::decide::split_by_confidence(&decision, s.min_confidence);
        Ok((front, decision, sure))
    }

    /// Back matter: in `always` mode, and in `fallback` mode when front
    /// matter (with its vision answers, awaited above) lacks a wanted field
    /// at MIN_CONFIDENCE (a value found but unsure counts as missing).
    /// Returns the pages read and the decision.
    fn back_matter(
        &mut self,
        info: &DocInfo,
        front: u32,
        sure: &Metadata,
        decision: Decision,
    ) -> Result<(Vec<u32>, Decision)> {
        let s = self.ctx.settings;
        if !select::wants_back_matter(&s.matter, sure) {
            return Ok((Vec::new(), decision));
        }
        let back = select::back_pages(info.page_count, front, &s.matter);
        if back.is_empty() {
            return Ok((back, decision));
        }
        self.read(&back, Matter::Back)?;
        Ok((back, self.decide(info).0))
    }

    /// Scanned pages were read without their body text first; read them
    /// whole when that left no value at all for the title, the authors or
    /// the year. A value found but unsure is not reason enough: measured on
    /// the scanned gold PDFs, reading the body text never made one sure,
    /// and it costs most of a scanned page's OCR time.
    fn whole_scans(&mut self, info: &DocInfo, decision: Decision) -> Result<Decision> {
        let found = [Field::Title, Field::Authors, Field::Year]
            .iter()
            .all(|&f| decision.metadata.has(f));
        if self.seen.ocr_partial.is_empty() || found {
            return Ok(decision);
        }
        let mut partial = std::mem::take(&mut self.seen.ocr_partial);
        ocr_where_needed(
            self.ctx,
            self.hash,
            &mut self.pages,
            Pass::Whole(&mut partial),
            &mut self.pdf,
            &self.ocr_budget,
            self.diagnostics,
            &mut *self.work,
        )?;
        Ok(self.decide(info).0)
    }

    /// The document's result, its diagnostics written when asked for.
    fn result(
        self,
        info: &DocInfo,
        decision: Decision,
        front: Vec<u32>,
        back: Vec<u32>,
    ) -> DocResult {
        let offset = self.ctx.settings.page_num_offset;
        if let Some(dir) = self.diagnostics {
            write_page_diagnostics(dir, &self.pages, offset);
            crate::decide::explain::write_candidates(dir, &decision, offset);
        }
        DocResult {
            page_count: info.page_count,
            decision,
            pages_read: PagesRead { front, back },
            ocr_pages: self
                .pages
                .iter()
                .filter_map(|p| p.ocr_confidence.map(|c| (p.index, c)))
                .collect(),
            vision: crate::model::VisionPages {
                pages: self.seen.pages,
                failed: self.seen.failed,
            },
            warnings: self.seen.warnings,
        }
    }
}

/// The pages at `indices` as colophon reads them: the text layer (cached),
/// OCR where it is missing, and the vision model's answers where asked.
#[allow(clippy::too_many_arguments)]
fn read_matter(
    ctx: &Context,
    hash: &DocHash,
    indices: &[u32],
    matter: Matter,
    pdf: &mut LazySession,
    ocr_budget: &OcrBudget,
    diagnostics: Option<&Path>,
    seen: &mut Seen,
    work: &mut Vec<StageOutcome>,
) -> Result<Vec<PageText>> {
    let mut pages = load_pages(ctx, hash, indices, pdf, work)?;
    let mut partial = std::mem::take(&mut seen.ocr_partial);
    let ocred = ocr_where_needed(
        ctx,
        hash,
        &mut pages,
        Pass::First(&mut partial, matter),
        pdf,
        ocr_budget,
        diagnostics,
        work,
    );
    seen.ocr_partial = partial;
    ocred?;
    if let Some(pool) = ctx.vision {
        ask_vision(ctx, pool, &pages, pdf, diagnostics, seen, work)?;
    }
    Ok(pages)
}

/// Tesseract time one document may use, over all its pages (front and
/// back matter): `PDF_TIMEOUT`, like the worker's time for the document,
/// so that a document of many hard pages fails in bounded time instead of
/// taking `PDF_TIMEOUT` per page. Waiting for an OCR slot does not count.
struct OcrBudget {
    left: std::sync::Mutex<std::time::Duration>,
    total: std::time::Duration,
}

impl OcrBudget {
    fn new(total: std::time::Duration) -> OcrBudget {
        OcrBudget {
            left: std::sync::Mutex::new(total),
            total,
        }
    }

    /// OCRs prepared pages (one tesseract process, `ocr::read_pages`)
    /// within what is left (and at most `opts.timeout`), then takes the
    /// time spent off the budget; once it is used up, pages fail without
    /// running Tesseract.
    fn ocr_pages(
        &self,
        pages: Vec<crate::ocr::Prepared>,
        opts: &crate::ocr::OcrOptions,
    ) -> Vec<Result<crate::ocr::FirstReading>> {
        let left = *self.left.lock().unwrap_or_else(|p| p.into_inner());
        if left.is_zero() {
            return pages
                .iter()
                .map(|p| {
                    Err(anyhow::anyhow!(
                        "page {} not OCRed: OCR of this document used up its {:.0} s (PDF_TIMEOUT)",
                        p.index() + 1,
                        self.total.as_secs_f64()
                    ))
                })
                .collect();
        }
        let opts = crate::ocr::OcrOptions {
            timeout: opts.timeout.min(left),
            ..opts.clone()
        };
        let started = std::time::Instant::now();
        let results = crate::ocr::read_pages(pages, &opts);
        let mut left = self.left.lock().unwrap_or_else(|p| p.into_inner());
        *left = left.saturating_sub(started.elapsed());
        results
    }
}

/// Which OCR reading [`ocr_where_needed`] does.
enum Pass<'p> {
    /// Pages without a usable text layer, read without their body blocks
    /// (`ocr::ocr_page_first`, or for back matter without the paragraphs
    /// of pages full of text); the pages left partial are added to the
    /// list.
    First(&'p mut Vec<u32>, Matter),
    /// The listed pages (0-based), read whole; the list is emptied of the
    /// pages found in `pages`.
    Whole(&'p mut Vec<u32>),
}

/// Replaces the text of pages without a usable text layer by Tesseract's
/// reading of the rendered page (cached by document hash, page, pass and
/// OCR settings, so a rerun renders and OCRs nothing).
///
/// Each page's result is cached as soon as it is read, so that the pages
/// of a document that then fails, times out or is killed with the run are
/// not OCRed again (the cache writes them out within its flush interval).
#[allow(clippy::too_many_arguments)]
fn ocr_where_needed(
    ctx: &Context,
    hash: &DocHash,
    pages: &mut [PageText],
    mut pass: Pass,
    pdf: &mut LazySession,
    budget: &OcrBudget,
    diagnostics: Option<&Path>,
    work: &mut Vec<StageOutcome>,
) -> Result<()> {
    let reading = match pass {
        Pass::First(_, matter) => crate::ocr::Reading::First(matter),
        Pass::Whole(_) => crate::ocr::Reading::Whole,
    };
    let todo = ocr_from_cache(ctx, hash, pages, &mut pass, work);
    if todo.is_empty() {
        return Ok(());
    }
    let job = OcrJob {
        ctx,
        todo: &todo,
        reading,
        budget,
        diagnostics,
    };
    let (mut read, rendered) = job.run(pages, pdf, work);

    // Pages read are kept (and were cached) even when another one failed;
    // the first failure in page order fails the document (a failed render
    // comes after every page OCRed, since pages are rendered in order).
    read.sort_by_key(|(slot, _)| *slot);
    let mut first_err = None;
    for (slot, result) in read {
        match result {
            Ok(read) => {
                work.push(StageOutcome::Ocr(Got::Computed));
                if let (Pass::First(partial, _), true) = (&mut pass, read.partial) {
                    partial.push(read.page.index);
                }
                pages[slot] = read.page;
            }
            Err(e) => {
                first_err.get_or_insert(e);
            }
        }
    }
    match first_err.or(rendered.err()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}

/// The pages of `pages` that `pass` OCRs, answered from the cache where
/// they can be; returns the others (their slot in `pages`, their key).
fn ocr_from_cache(
    ctx: &Context,
    hash: &DocHash,
    pages: &mut [PageText],
    pass: &mut Pass,
    work: &mut Vec<StageOutcome>,
) -> Vec<(usize, keys::Key)> {
    let s = ctx.settings;
    let mut todo = Vec::new();
    for (slot, page) in pages.iter_mut().enumerate() {
        let key_args = (
            hash,
            page.index,
            s,
            crate::ocr::engine_version(),
            ctx.versions.ocr,
        );
        match pass {
            Pass::First(partial, matter) => {
                if !crate::ocr::needs_ocr(page) {
                    continue;
                }
                let key = keys::ocr_first_key(
                    key_args.0, key_args.1, key_args.2, key_args.3, key_args.4, *matter,
                );
                let cached = ctx.cache.get::<crate::ocr::FirstReading>(Tree::Ocr, &key);
                if let Some(cached) = cached {
                    work.push(StageOutcome::Ocr(Got::Cached));
                    if cached.partial {
                        partial.push(page.index);
                    }
                    *page = cached.page;
                    continue;
                }
                todo.push((slot, key));
            }
            Pass::Whole(partial) => {
                let Some(at) = partial.iter().position(|&i| i == page.index) else {
                    continue;
                };
                partial.swap_remove(at);
                let key = keys::ocr_key(key_args.0, key_args.1, key_args.2, key_args.3, key_args.4);
                if let Some(cached) = ctx.cache.get::<PageText>(Tree::Ocr, &key) {
                    work.push(StageOutcome::Ocr(Got::Cached));
                    *page = cached;
                    continue;
                }
                todo.push((slot, key));
            }
        }
    }
    todo
}

/// The pages one OCR pass reads now (not in the cache).
struct OcrJob<'j, 'c> {
    ctx: &'j Context<'c>,
    /// Slot in the document's pages, and the cache key, of each page.
    todo: &'j [(usize, keys::Key)],
    reading: crate::ocr::Reading,
    budget: &'j OcrBudget,
    diagnostics: Option<&'j Path>,
}

/// A batch of prepared pages for one tesseract call: each with its slot
/// and cache key.
type OcrBatch<'k> = Vec<(usize, &'k keys::Key, crate::ocr::Prepared)>;

/// What the OCR threads read: each page's slot and result.
type OcrRead = Vec<(usize, Result<crate::ocr::FirstReading>)>;

impl OcrJob<'_, '_> {
    /// This thread renders (the worker is this document's) and prepares
    /// the pages, and OCR threads read them a batch at a time, one
    /// tesseract process a batch (`ocr::BATCH_PAGES`: the model is loaded
    /// once a batch, not once a page); the bounded channel keeps at most a
    /// few batches in memory. Returns what was read (cached as it was) and
    /// how rendering ended.
    fn run(
        &self,
        pages: &[PageText],
        pdf: &mut LazySession,
        work: &mut Vec<StageOutcome>,
    ) -> (OcrRead, Result<()>) {
        let (ctx, todo) = (self.ctx, self.todo);
        let per_batch = {
            let batches = todo.len().div_ceil(crate::ocr::BATCH_PAGES);
            todo.len().div_ceil(batches.max(1))
        };
        let opts = crate::ocr::OcrOptions::from_settings(ctx.settings);
        let read = std::sync::Mutex::new(Vec::with_capacity(todo.len()));
        let rendered = std::thread::scope(|scope| -> Result<()> {
            // Made here so that returning (an error too) drops the sender,
            // which ends the OCR threads the scope then waits for.
            let (tx, rx) = crossbeam_channel::bounded::<OcrBatch>(1);
            for _ in 0..ctx.ocr_slots.size.min(todo.len().div_ceil(per_batch)) {
                let (rx, read, opts) = (rx.clone(), &read, &opts);
                scope.spawn(move || {
                    for batch in rx {
                        self.read_batch(batch, pages, opts, read);
                    }
                });
            }
            drop(rx);
            self.render(pages, pdf, work, per_batch, &tx, &read)
        });
        (
            read.into_inner().unwrap_or_else(|e| e.into_inner()),
            rendered,
        )
    }

    /// On an OCR thread: one batch read by one tesseract call (within the
    /// document's time budget), each page cached as it was read.
    fn read_batch(
        &self,
        batch: OcrBatch,
        pages: &[PageText],
        opts: &crate::ocr::OcrOptions,
        read: &std::sync::Mutex<OcrRead>,
    ) {
        let ctx = self.ctx;
        let (places, prepared): (Vec<_>, Vec<_>) = batch
            .into_iter()
            .map(|(slot, key, page)| ((slot, key), page))
            .unzip();
        let results = ctx
            .ocr_slots
            .with_slot(|| self.budget.ocr_pages(prepared, opts));
        let mut read = read.lock().unwrap_or_else(|e| e.into_inner());
        for ((slot, key), result) in places.into_iter().zip(results) {
            let p: &PageText = &pages[slot];
            let result = result.map(|mut read| {
                read.page.image_ratio = p.image_ratio;
                read.page.image = p.image;
                if self.reading != crate::ocr::Reading::Whole {
                    ctx.cache.put(Tree::Ocr, key, &read);
                } else {
                    ctx.cache.put(Tree::Ocr, key, &read.page);
                }
                read
            });
            read.push((slot, result));
        }
    }

    /// On the document's thread: renders and prepares each page in turn,
    /// sending them to the OCR threads in batches of at most `per_batch`
    /// pages and `ocr::BATCH_PIXELS` pixels. A page that cannot be
    /// prepared is a failed read; a failed render ends the pass.
    fn render<'k>(
        &'k self,
        pages: &[PageText],
        pdf: &mut LazySession,
        work: &mut Vec<StageOutcome>,
        per_batch: usize,
        tx: &crossbeam_channel::Sender<OcrBatch<'k>>,
        read: &std::sync::Mutex<OcrRead>,
    ) -> Result<()> {
        let s = self.ctx.settings;
        let mut batch: OcrBatch = Vec::new();
        let mut pixels = 0;
        for (slot, key) in self.todo {
            let (slot, index) = (*slot, pages[*slot].index);
            let dpi = crate::ocr::render_dpi(&pages[slot], s.ocr_dpi);
            let image = pdf.get(work)?.render(index, dpi)?;
            if let Some(dir) = self.diagnostics {
                save_render(dir, index + s.page_num_offset, &image);
            }
            let (w, h) = (pages[slot].width, pages[slot].height);
            match crate::ocr::prepare(image, w, h, index, self.reading) {
                Ok(page) => {
                    let full = batch.len() >= per_batch
                        || pixels + page.pixels() > crate::ocr::BATCH_PIXELS;
                    if !batch.is_empty() && full {
                        if tx.send(std::mem::take(&mut batch)).is_err() {
                            break;
                        }
                        pixels = 0;
                    }
                    pixels += page.pixels();
                    batch.push((slot, key, page));
                }
                Err(e) => read
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((slot, Err(e))),
            }
        }
        if !batch.is_empty() {
            let _ = tx.send(batch);
        }
        Ok(())
    }
}

/// Everything the vision stage added for one document.
#[derive(Default)]
struct Seen {
    candidates: Vec<crate::model::Candidate>,
    /// Pages sent to vision (0-based), answered or not.
    pages: Vec<u32>,
    /// Pages whose vision call failed or was skipped.
    failed: Vec<u32>,
    warnings: Vec<String>,
    /// Pages (0-based) OCRed without their body blocks so far.
    ocr_partial: Vec<u32>,
}

/// Candidates from the existing metadata, the page text and vision, merged;
/// with the last page (0-based) whose text gives the chosen title, if any.
fn decide_all(
    ctx: &Context,
    info: &DocInfo,
    pages: &[PageText],
    seen: &Seen,
) -> (crate::model::Decision, Option<u32>) {
    ctx.deciders.install(|| decide_here(info, pages, seen))
}

/// [`decide_all`] on the calling thread.
fn decide_here(
    info: &DocInfo,
    pages: &[PageText],
    seen: &Seen,
) -> (crate::model::Decision, Option<u32>) {
    let page_count = pages
        .iter()
        .map(|p| p.index + 1)
        .max()
        .unwrap_or(0)
        .max(info.page_count);
    let mut candidates = extract::info_candidates(&info.info);
    candidates.extend(extract::text_candidates(&DocText { pages, page_count }));
    candidates.extend(seen.candidates.iter().cloned());
    let decision = crate::decide::decide_pages(&candidates, pages, page_count);
    let title = decision.metadata.title.as_deref().map(str::to_lowercase);
    let title_page = candidates
        .iter()
        .filter(|c| c.field == crate::model::Field::Title && c.via != crate::model::Via::PdfInfo)
        .filter(|c| match (&c.value, &title) {
            (crate::model::Value::Text(t), Some(title)) => t.to_lowercase() == *title,
            _ => false,
        })
        .filter_map(|c| c.page)
        .max();
    (decision, title_page)
}

/// Sends the pages that meet a vision threshold to the vision callers and
/// waits for their answers. The worker is given back before waiting, so
/// a slow backend holds no pdfium process.
fn ask_vision(
    ctx: &Context,
    pool: &VisionPool<u32>,
    pages: &[PageText],
    pdf: &mut LazySession,
    diagnostics: Option<&Path>,
    seen: &mut Seen,
    work: &mut Vec<StageOutcome>,
) -> Result<()> {
    let thresholds = &ctx.settings.vision_thresholds;
    let (tx, rx) = crossbeam_channel::unbounded();
    let mut sent = 0;
    for page in pages {
        let (index, ratio, confidence) = (page.index, page.image_ratio, page.ocr_confidence);
        if crate::vision::should_send(index, ratio, confidence, thresholds).is_none() {
            continue;
        }
        seen.pages.push(page.index);
        let Some(image) = vision_image(ctx, page, pdf, diagnostics, seen, work)? else {
            continue;
        };
        let job = crate::vision::pool::VisionJob {
            tag: page.index,
            image,
            reply: tx.clone(),
        };
        if pool.submit(job).is_err() {
            seen.failed.push(page.index);
            continue;
        }
        ctx.reporter.vision_queue(pool.queue_len() as u64);
        sent += 1;
    }
    drop(tx);
    if sent == 0 {
        return Ok(());
    }
    pdf.release();
    // One reply per job sent: each job carries this document's sender.
    for result in rx.iter().take(sent) {
        ctx.reporter.vision_queue(pool.queue_len() as u64);
        take_vision_answer(ctx, &result, diagnostics, seen, work);
    }
    seen.failed.sort_unstable();
    Ok(())
}

/// A page rendered and encoded for the vision model (`None`, with a
/// warning, when it cannot be encoded), saved as a diagnostic with `-vv`.
fn vision_image(
    ctx: &Context,
    page: &PageText,
    pdf: &mut LazySession,
    diagnostics: Option<&Path>,
    seen: &mut Seen,
    work: &mut Vec<StageOutcome>,
) -> Result<Option<crate::vision::EncodedImage>> {
    let shown = page.index + ctx.settings.page_num_offset;
    // About TARGET_LONG_SIDE pixels on the long side: what vision models read well.
    let long_pt = page.width.max(page.height).max(1.0);
    let dpi = ((crate::vision::image::TARGET_LONG_SIDE as f32 * 72.0 / long_pt).ceil() as u32)
        .clamp(36, 300);
    let image = pdf.get(work)?.render(page.index, dpi)?;
    let encoded = match crate::vision::image::prepare(&image) {
        Ok(e) => e,
        Err(e) => {
            seen.failed.push(page.index);
            seen.warnings
                .push(format!("page {shown}: cannot encode for vision: {e}"));
            return Ok(None);
        }
    };
    drop(image);
    if let Some(dir) = diagnostics
        && encoded.format == crate::vision::image::ImageFormat::Png
        && std::fs::create_dir_all(dir).is_ok()
    {
        let _ = std::fs::write(dir.join(format!("page-{shown}.png")), &encoded.bytes);
    }
    Ok(Some(encoded))
}

/// One vision answer taken in: counted, its candidates kept, a failure
/// noted, the answer saved as a diagnostic with `-vv`.
fn take_vision_answer(
    ctx: &Context,
    result: &crate::vision::pool::VisionResult<u32>,
    diagnostics: Option<&Path>,
    seen: &mut Seen,
    work: &mut Vec<StageOutcome>,
) {
    use crate::vision::pool::Outcome;
    let index = result.tag;
    if let Some(msg) = &result.switched_off {
        ctx.reporter.message(&format!("colophon: {msg}"));
    }
    work.push(StageOutcome::Vision(match &result.outcome {
        Outcome::Answered(_) => VisionGot::Answered,
        Outcome::Cached(_) => VisionGot::Cached,
        Outcome::Failed(_) | Outcome::Skipped(_) => {
            seen.failed.push(index);
            VisionGot::Failed
        }
    }));
    seen.candidates.extend(result.candidates(index));
    if let Some(dir) = diagnostics
        && std::fs::create_dir_all(dir).is_ok()
        && let Ok(json) = serde_json::to_vec_pretty(&result.diagnostics)
    {
        let shown = index + ctx.settings.page_num_offset;
        let _ = std::fs::write(dir.join(format!("page-{shown}.vlm.json")), json);
    }
}

/// Page texts for `indices`, from the cache or the (lazily opened) session.
fn load_pages(
    ctx: &Context,
    hash: &DocHash,
    indices: &[u32],
    pdf: &mut LazySession,
    work: &mut Vec<StageOutcome>,
) -> Result<Vec<PageText>> {
    let mut stored: std::collections::HashMap<u32, PageText> = ctx
        .cache
        .pages(hash, ctx.versions.inspect)
        .into_iter()
        .map(|p| (p.index, p))
        .collect();
    let mut out: Vec<Option<PageText>> = indices.iter().map(|i| stored.remove(i)).collect();
    let missing: Vec<u32> = indices
        .iter()
        .zip(&out)
        .filter(|(_, p)| p.is_none())
        .map(|(&i, _)| i)
        .collect();
    work.extend(std::iter::repeat_n(
        StageOutcome::Page(Got::Cached),
        indices.len() - missing.len(),
    ));
    if !missing.is_empty() {
        let read = pdf.get(work)?.pages(&missing)?;
        work.extend(std::iter::repeat_n(
            StageOutcome::Page(Got::Computed),
            read.len(),
        ));
        ctx.cache.put_pages(hash, ctx.versions.inspect, &read);
        for page in read {
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

/// Writes a page rendered for OCR as the diagnostic `page-<n>.png`, with
/// the Up filter. The encoder's default (adaptive filters) made these
/// files about 5% of the CPU of a run over scans (`perf`, issue 18).
/// Re-encoding the 9 renders of a scanned gold book (200 dpi, fast
/// deflate): adaptive 198 ms and 3.60 MB, Up 42 ms and 4.29 MB, Sub 61 ms
/// and 5.49 MB, Paeth 186 ms; default deflate about 1 s whatever the filter.
fn save_render(dir: &Path, n: u32, image: &image::GrayImage) {
    use image::ImageEncoder;
    use image::codecs::png::{CompressionType, FilterType, PngEncoder};
    let write = || -> std::io::Result<()> {
        std::fs::create_dir_all(dir)?;
        let file = std::fs::File::create(dir.join(format!("page-{n}.png")))?;
        let mut out = std::io::BufWriter::new(file);
        PngEncoder::new_with_quality(&mut out, CompressionType::Fast, FilterType::Up)
            .write_image(
                image.as_raw(),
                image.width(),
                image.height(),
                image::ExtendedColorType::L8,
            )
            .map_err(std::io::Error::other)?;
        std::io::Write::flush(&mut out)
    };
    let _ = write();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    #[test]
    fn a_render_is_saved_as_a_lossless_png() {
        let dir = tempfile::tempdir().unwrap();
        let img = image::GrayImage::from_fn(37, 23, |x, y| image::Luma([(x * 7 + y * 11) as u8]));
        save_render(&dir.path().join("diag"), 4, &img);
        let back = image::open(dir.path().join("diag/page-4.png")).unwrap();
        assert_eq!(back.to_luma8(), img);
    }

    #[test]
    fn ocr_slots_bound_how_many_run_at_once_and_survive_a_panic() {
        let slots = OcrSlots::new(2);
        let (running, peak, done) = (
            AtomicUsize::new(0),
            AtomicUsize::new(0),
            AtomicUsize::new(0),
        );
        std::thread::scope(|s| {
            for _ in 0..6 {
                s.spawn(|| {
                    slots.with_slot(|| {
                        let now = running.fetch_add(1, Ordering::SeqCst) + 1;
                        peak.fetch_max(now, Ordering::SeqCst);
                        std::thread::sleep(std::time::Duration::from_millis(20));
                        running.fetch_sub(1, Ordering::SeqCst);
                        done.fetch_add(1, Ordering::SeqCst);
                    })
                });
            }
        });
        assert_eq!(done.load(Ordering::SeqCst), 6);
        assert_eq!(peak.load(Ordering::SeqCst), 2, "two slots, six takers");

        // A panicking holder gives its slot back.
        let one = OcrSlots::new(1);
        let caught = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            one.with_slot(|| panic!("tesseract wrapper panicked"))
        }));
        assert!(caught.is_err());
        assert_eq!(one.with_slot(|| 7), 7, "the slot is free again");
    }
}
