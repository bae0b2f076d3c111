//! Everything that touches pdfium but the page walk: finding and binding
//! `libpdfium.so`, and one document in-process ([`Document`]): page count,
//! Info metadata, reading pages (through [`super::page`]) and grayscale
//! rendering.
//!
//! Pdfium is not thread-safe and `pdfium-render` serialises every call behind
//! one global mutex, so one process gains nothing from threads here: the
//! coordinator runs this code in worker processes (`super::worker`). Tests
//! and tools may call it directly.
//!
//! Rendering straight to pdfium's grayscale bitmap format aborts the process
//! on pages with images (measured), so pages are rendered BGRA and converted.

use super::lines::Glyph;
use super::page::{Geometry, Page, PageObjects};
use super::quick::{QuickDoc, Unsupported};
use super::source::Source;
use super::{PageRead, PdfError, area, lines};
use crate::model::{DocInfo, InfoMeta, PageImage, PageText, Rect, Via};
use image::GrayImage;
use pdfium_render::prelude::*;
use std::cell::Cell;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The setting naming libpdfium.so or the folder holding it.
pub const LIBRARY_KEY: &str = "PDFIUM_LIBRARY";

/// This process's resolved `PDFIUM_LIBRARY` ([`configure`]).
static LIBRARY: OnceLock<String> = OnceLock::new();

/// Sets the resolved `PDFIUM_LIBRARY` for this process, before pdfium is
/// first bound; the workers it starts are given it ([`child_env`]).
pub fn configure(value: &str) {
    let _ = LIBRARY.set(value.to_string());
}

/// `PDFIUM_LIBRARY` as configured, else as the environment gives the
/// setting (a worker process, whose coordinator put it there).
fn library_setting() -> Option<String> {
    LIBRARY
        .get()
        .cloned()
        .or_else(|| crate::settings::process_env(LIBRARY_KEY))
        .filter(|v| !v.trim().is_empty())
}

/// The environment a worker process is started with so that it binds the
/// library the settings name.
pub fn child_env() -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    library_setting()
        .map(|v| vec![(LIBRARY_KEY.into(), v.into())])
        .unwrap_or_default()
}

/// File name of the library on this platform (`libpdfium.so` on Linux).
fn lib_name() -> std::ffi::OsString {
    Pdfium::pdfium_platform_library_name()
}

/// Where libpdfium is looked for, in order: `PDFIUM_LIBRARY` (a
/// directory or the file itself), beside the executable, `<exe>/../../.pdfium/`
/// (a `target/release` binary finds the repository's `.pdfium/`), the
/// repository this crate was built from, then the system library path.
pub fn library_candidates() -> Vec<PathBuf> {
    candidates_from(
        library_setting().map(Into::into),
        std::env::current_exe().ok(),
    )
}

fn candidates_from(env: Option<std::ffi::OsString>, exe: Option<PathBuf>) -> Vec<PathBuf> {
    let mut out = Vec::new();
    if let Some(p) = env.filter(|p| !p.is_empty()) {
        let p = PathBuf::from(p);
        if p.is_dir() {
            out.push(p.join(lib_name()));
        } else {
            out.push(p);
        }
    }
    if let Some(dir) = exe.as_deref().and_then(Path::parent) {
        out.push(dir.join(lib_name()));
        out.push(dir.join("../../.pdfium").join(lib_name()));
    }
    out.push(Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/.pdfium")).join(lib_name()));
    out
}

static PDFIUM: OnceLock<Result<Pdfium, String>> = OnceLock::new();

/// The process-wide pdfium instance, bound on first use.
pub fn pdfium() -> Result<&'static Pdfium, PdfError> {
    PDFIUM
        .get_or_init(bind)
        .as_ref()
        .map_err(|e| PdfError::PdfiumMissing(e.clone()))
}

fn bind() -> Result<Pdfium, String> {
    bind_from(&library_candidates(), true)
}

/// Binds the first candidate that loads (then, with `system`, the system
/// library); the error lists every attempt and says how to fix it.
fn bind_from(candidates: &[PathBuf], system: bool) -> Result<Pdfium, String> {
    let mut tried = Vec::new();
    for path in candidates {
        if !path.exists() {
            tried.push(format!("{} (absent)", path.display()));
            continue;
        }
        match Pdfium::bind_to_library(path) {
            Ok(b) => return Ok(Pdfium::new(b)),
            Err(e) => tried.push(format!("{} ({e})", path.display())),
        }
    }
    if system {
        match Pdfium::bind_to_system_library() {
            Ok(b) => return Ok(Pdfium::new(b)),
            Err(e) => tried.push(format!("system library path ({e})")),
        }
    }
    Err(format!(
        "libpdfium.so could not be loaded; tried: {}. Run scripts/fetch-pdfium.sh, \
         or set {LIBRARY_KEY} to the directory holding libpdfium.so",
        tried.join("; ")
    ))
}

fn map_err(e: PdfiumError) -> PdfError {
    match e {
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::PasswordError)
        | PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::SecurityError) => {
            PdfError::Encrypted
        }
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FormatError) => {
            PdfError::Malformed("not a PDF, or damaged beyond repair".into())
        }
        PdfiumError::PdfiumLibraryInternalError(PdfiumInternalError::FileError) => {
            PdfError::Io("pdfium could not read the file".into())
        }
        PdfiumError::IoError(e) => PdfError::Io(e.to_string()),
        other => PdfError::Pdfium(format!("{other:?}")),
    }
}

/// An open document. One at a time per process is the intended use.
///
/// Pages are read through pdfium's C API ([`super::page`]); rendering (OCR
/// and vision pages only) goes through `pdfium-render`, with the same file
/// loaded a second time on first use.
///
/// The file is read whole once, when opened, and hashed: the coordinator
/// checks that [`Document::content_hash`] is the hash it fingerprinted (a
/// file changed in between must not have its record cached under the old
/// content's hash). A small file is then kept and read in place; a large
/// one is read by pdfium in blocks ([`super::source`]), and every page read
/// or rendered from it is checked to come from a file not written to since.
pub struct Document {
    lib: &'static dyn PdfiumLibraryBindings,
    /// Pdfium's document; null until first needed when the quick reader
    /// has the file (see [`Document::handle`]).
    handle: Cell<FPDF_DOCUMENT>,
    /// The quick reader (`super::quick`), for files kept in memory that it
    /// can read; pages it cannot read go to pdfium.
    quick: Option<QuickDoc>,
    page_count: u32,
    hash: [u8; 32],
    /// Files of this size or more go to pdfium in blocks ([`Source`]).
    in_memory: usize,
    /// Read at open, while the file's bytes are at hand for the XMP packet.
    info: DocInfo,
    /// Declared before `source`: fields drop in order, after `Drop::drop`
    /// has closed `handle`, so both pdfium documents are closed before the
    /// file they read is.
    rendering: OnceLock<PdfDocument<'static>>,
    source: Box<Source>,
}

impl Document {
    /// Opens a PDF. A password-protected file gives [`PdfError::Encrypted`].
    ///
    /// A file without pages is [`PdfError::Malformed`]: nothing in it can
    /// be read, and saying so beats an empty record.
    pub fn open(path: &Path) -> Result<Document, PdfError> {
        use super::source::{IN_MEMORY, QUICK_IN_MEMORY};
        Document::open_keeping(path, IN_MEMORY, QUICK_IN_MEMORY)
    }

    /// [`Document::open`], with files smaller than `in_memory` bytes read
    /// in place and larger ones in blocks, except that files smaller than
    /// `quick_in_memory` that the quick reader opens stay in memory for it.
    fn open_keeping(
        path: &Path,
        in_memory: usize,
        quick_in_memory: usize,
    ) -> Result<Document, PdfError> {
        let lib = <Pdfium as PdfiumLibraryBindingsAccessor<'static>>::bindings(pdfium()?);
        let (mut source, bytes) = Source::open(path)?;
        let hash = *blake3::hash(&bytes).as_bytes();
        if bytes.is_empty() {
            return Err(PdfError::Malformed(
                "not a PDF, or damaged beyond repair".into(),
            ));
        }
        let quick_on = quick_enabled();
        let limit = match quick_on {
            true => in_memory.max(quick_in_memory),
            false => in_memory,
        };
        let bytes = source.keep_if_small(bytes, limit);
        let quick = match source.kept_shared() {
            Some(kept) if quick_on => QuickDoc::open(kept).ok(),
            _ => None,
        };
        // A large file kept for a quick reader that cannot read it goes to
        // pdfium in blocks after all (see `source::QUICK_IN_MEMORY`).
        let unkept = match quick {
            None if bytes.is_none() && source.len() >= in_memory => source.unkeep(),
            _ => None,
        };
        let handle = match (&quick, source.kept()) {
            (Some(_), _) => std::ptr::null_mut(),
            // SAFETY: `source` and its kept bytes (shared, so their
            // addresses are stable) outlive the handle, closed in `drop`
            // before the fields drop.
            (None, Some(kept)) => unsafe { lib.FPDF_LoadMemDocument64(kept, None) },
            // SAFETY: `source` (boxed, so the reader pdfium calls back stays at one address)
            // outlives the handle, closed in `drop` before the fields drop.
            (None, None) => unsafe { lib.FPDF_LoadCustomDocument(source.access(), None) },
        };
        if handle.is_null() && quick.is_none() {
            return Err(last_error(lib));
        }
        let page_count = match &quick {
            Some(q) => q.page_count(),
            // SAFETY: `handle` was checked non-null above and is open until `drop`.
            None => unsafe { lib.FPDF_GetPageCount(handle) }.max(0) as u32,
        };
        let mut doc = Document {
            lib,
            handle: Cell::new(handle),
            quick,
            page_count,
            hash,
            in_memory,
            info: DocInfo::default(),
            rendering: OnceLock::new(),
            source,
        };
        if doc.page_count == 0 {
            return Err(PdfError::Malformed("the PDF has no pages".into()));
        }
        // Pdfium has parsed the cross-reference table and the trailer only:
        // the bytes go before it loads any page.
        let read = bytes.as_deref().or(unkept.as_deref());
        let info = doc.read_info(read.or(doc.source.kept()).unwrap_or_default());
        doc.info = info;
        drop((bytes, unkept));
        doc.source.unchanged()?;
        Ok(doc)
    }

    /// blake3 of the bytes this document was read from.
    pub fn content_hash(&self) -> [u8; 32] {
        self.hash
    }

    pub fn page_count(&self) -> u32 {
        self.page_count
    }

    /// Size of the file this document was read from, in bytes.
    pub fn byte_len(&self) -> usize {
        self.source.len()
    }

    /// Page count and the Info dictionary (untrusted, see `extract::info`);
    /// a title or author missing there is taken from the XMP packet.
    pub fn info(&self) -> DocInfo {
        self.info.clone()
    }

    /// Pdfium's document, opened now if the quick reader had the file
    /// until now (its bytes are kept in memory).
    fn handle(&self) -> Result<FPDF_DOCUMENT, PdfError> {
        let handle = self.handle.get();
        if !handle.is_null() {
            return Ok(handle);
        }
        let kept = self.source.kept().ok_or(PdfError::NotOpen)?;
        // SAFETY: as in `open_keeping`: the kept bytes outlive the handle.
        let handle = unsafe { self.lib.FPDF_LoadMemDocument64(kept, None) };
        if handle.is_null() {
            return Err(last_error(self.lib));
        }
        self.handle.set(handle);
        Ok(handle)
    }

    /// [`Document::info`], from the quick reader or pdfium and the file's
    /// `bytes`.
    fn read_info(&self, bytes: &[u8]) -> DocInfo {
        let get = |tag| {
            self.meta_text(tag)
                .map(|v| clean_info(&v))
                .filter(|s| !s.is_empty())
        };
        let mut info = InfoMeta {
            title: get("Title"),
            author: get("Author"),
            subject: get("Subject"),
            keywords: get("Keywords"),
            creator: get("Creator"),
            producer: get("Producer"),
        };
        if info.title.is_none() || info.author.is_none() {
            if let Some(x) = super::xmp::parse(bytes) {
                info.title = info.title.or(x.title);
                if info.author.is_none() && !x.creators.is_empty() {
                    info.author = Some(x.creators.join("; "));
                }
            }
        }
        DocInfo {
            page_count: self.page_count,
            info,
        }
    }

    /// One Info entry as pdfium decodes it (UTF-16LE with a final NUL),
    /// or the quick reader.
    fn meta_text(&self, tag: &str) -> Option<String> {
        if let Some(text) = self.quick.as_ref().and_then(|q| q.info_text(tag).ok()) {
            return text;
        }
        let handle = self.handle().ok()?;
        // SAFETY: a null buffer asks for the length in bytes; the second
        // call writes at most `len` bytes into a buffer of that size.
        let len = unsafe {
            self.lib
                .FPDF_GetMetaText(handle, tag, std::ptr::null_mut(), 0)
        };
        if len <= 2 {
            return None;
        }
        let mut buf = vec![0u16; (len as usize).div_ceil(2)];
        // SAFETY: `handle` is open, and `buf` holds at least `len` bytes (`len` rounded up to
        // whole u16s), which is all pdfium writes.
        unsafe {
            self.lib
                .FPDF_GetMetaText(handle, tag, buf.as_mut_ptr().cast(), len);
        }
        while buf.last() == Some(&0) {
            buf.pop();
        }
        Some(String::from_utf16_lossy(&buf))
    }

    fn check_index(&self, index: u32) -> Result<(), PdfError> {
        if index >= self.page_count {
            return Err(PdfError::NoSuchPage {
                index,
                page_count: self.page_count,
            });
        }
        Ok(())
    }

    fn page(&self, index: u32) -> Result<Page, PdfError> {
        self.check_index(index)?;
        // SAFETY: the document is open; the page is closed by `Page` before
        // `self` can be dropped (it borrows nothing, but lives only inside
        // `read_page`).
        let page = unsafe { self.lib.FPDF_LoadPage(self.handle()?, index as i32) };
        if page.is_null() {
            return Err(last_error(self.lib));
        }
        // SAFETY: `page` is a non-null handle just loaded from this open document and owned by
        // nothing else; the document outlives the `Page` (see above).
        unsafe { Page::new(self.lib, page) }
    }

    /// Text lines and image coverage of one page (0-based index): by the
    /// quick reader when it has the file and can read the page, else by
    /// pdfium.
    pub fn read_page(&self, index: u32) -> Result<PageRead, PdfError> {
        self.check_index(index)?;
        if let Some(q) = &self.quick {
            if let Ok(p) = q.read_page(index) {
                return self.page_read(index, p.geo, p.objects, p.glyphs);
            }
        }
        self.read_page_pdfium(index)
    }

    /// [`Document::read_page`] by pdfium alone (the reference the quick
    /// reader is compared with).
    pub fn read_page_pdfium(&self, index: u32) -> Result<PageRead, PdfError> {
        let page = self.page(index)?;
        let geo = page.geometry();
        let objects = page.objects(&geo);
        let glyphs = page.glyphs(&geo, objects.invisible_text);
        drop(page);
        self.page_read(index, geo, objects, glyphs)
    }

    /// [`Document::read_page`] by the quick reader alone: `None` when it
    /// does not have the document, the reason when it leaves the page to
    /// pdfium (for `examples/quick_compare`).
    pub fn read_page_quick(&self, index: u32) -> Option<Result<PageRead, Unsupported>> {
        let q = self.quick.as_ref()?;
        Some(match q.read_page(index) {
            Ok(p) => self
                .page_read(index, p.geo, p.objects, p.glyphs)
                .map_err(|e| Unsupported::new(e.to_string())),
            Err(e) => Err(e),
        })
    }

    /// A page's glyphs by the quick reader (when it reads the page) and by
    /// pdfium, before lines are built (for `examples/quick_compare`).
    #[doc(hidden)]
    pub fn glyphs_by_both(&self, index: u32) -> Result<(Option<Vec<Glyph>>, Vec<Glyph>), PdfError> {
        let quick = self.quick.as_ref().and_then(|q| q.read_page(index).ok());
        let page = self.page(index)?;
        let geo = page.geometry();
        let objects = page.objects(&geo);
        Ok((
            quick.map(|q| q.glyphs),
            page.glyphs(&geo, objects.invisible_text),
        ))
    }

    /// Hands a large file the quick reader had in memory to pdfium, read
    /// in blocks, once the quick reader has left one of its pages to
    /// pdfium: pdfium would otherwise parse the page beside the whole
    /// file (21 MB more at the peak of a 21 MB manual set in Type 3
    /// fonts, every page of which goes to pdfium). Small files, files
    /// pdfium already has open, and files rendered from memory stay as
    /// they are. From then on pdfium reads every page of the document.
    pub fn leave_large_to_pdfium(&mut self) -> Result<(), PdfError> {
        let large = self.source.len() >= self.in_memory;
        let loaded = !self.handle.get().is_null() || self.rendering.get().is_some();
        if !large || loaded || self.quick.is_none() {
            return Ok(());
        }
        self.quick = None;
        drop(self.source.unkeep());
        // SAFETY: as in `open_keeping`: `source` (boxed) outlives the
        // handle, closed in `drop` before the fields drop.
        let handle = unsafe { self.lib.FPDF_LoadCustomDocument(self.source.access(), None) };
        if handle.is_null() {
            return Err(last_error(self.lib));
        }
        self.handle.set(handle);
        self.source.unchanged()
    }

    /// Whether the quick reader reads this document (else pdfium does).
    pub fn is_quick(&self) -> bool {
        self.quick.is_some()
    }

    /// A page's lines, image coverage and largest image from what one of
    /// the readers found.
    fn page_read(
        &self,
        index: u32,
        geo: Geometry,
        objects: PageObjects,
        glyphs: Vec<Glyph>,
    ) -> Result<PageRead, PdfError> {
        let built = lines::build_lines(&glyphs);
        let rects = objects.images;
        let page_rect = Rect {
            x0: 0.0,
            top: 0.0,
            x1: geo.width,
            bottom: geo.height,
        };
        let image_ratio = area::covered_ratio(&rects, page_rect);
        let image = objects
            .largest
            .and_then(|(clip, rect, px)| placed_image(clip, rect, px, geo.width, geo.height));
        let hidden_lines = built
            .iter()
            .enumerate()
            .filter(|(_, l)| l.hidden)
            .map(|(i, _)| i as u32)
            .collect();
        self.source.unchanged()?;
        Ok(PageRead {
            text: PageText {
                index,
                width: geo.width,
                height: geo.height,
                lines: built.into_iter().map(|l| l.line).collect(),
                image_ratio,
                image,
                via: Via::Text,
                ocr_confidence: None,
            },
            hidden_lines,
        })
    }

    /// Renders a page to 8-bit gray at `dpi`, scaled down so the image has
    /// at most `max_pixels` pixels (memory stays bounded on poster-sized
    /// pages). A page larger than [`MAX_PAGE_PT`] on a side (or of no
    /// finite size) is [`PdfError::PageTooLarge`]: no reader shows it.
    pub fn render_page(
        &self,
        index: u32,
        dpi: u32,
        max_pixels: u64,
    ) -> Result<GrayImage, PdfError> {
        self.check_index(index)?;
        let doc = match self.rendering.get() {
            Some(doc) => doc,
            None => {
                let doc = match self.source.kept() {
                    Some(kept) => {
                        // SAFETY: the slice lives as long as `self.source`,
                        // which drops after `rendering` (field order), and
                        // is never changed; 'static only names that for the
                        // OnceLock.
                        let kept: &'static [u8] =
                            unsafe { std::slice::from_raw_parts(kept.as_ptr(), kept.len()) };
                        pdfium()?.load_pdf_from_byte_slice(kept, None)
                    }
                    None => {
                        let file = self.source.file().try_clone();
                        let file = file.map_err(|e| PdfError::Io(e.to_string()))?;
                        pdfium()?.load_pdf_from_reader(file, None)
                    }
                }
                .map_err(map_err)?;
                self.rendering.get_or_init(|| doc)
            }
        };
        let page = doc.pages().get(index as PdfPageIndex).map_err(map_err)?;
        let (w_pt, h_pt) = (page.width().value, page.height().value);
        check_page_size(index, w_pt, h_pt)?;
        let (w, h) = render_size(w_pt.max(1.0), h_pt.max(1.0), dpi, max_pixels);
        // BGRA, not pdfium's Gray format: that one aborts the process on
        // pages with images (measured with pdfium 8149).
        let config = PdfRenderConfig::new()
            .set_target_size(w as Pixels, h as Pixels)
            .set_maximum_width(w as Pixels)
            .set_maximum_height(h as Pixels)
            .set_format(PdfBitmapFormat::BGRA)
            .set_reverse_byte_order(false)
            .render_form_data(true)
            .render_annotations(true);
        let bitmap = page.render_with_config(&config).map_err(map_err)?;
        let (bw, bh) = (bitmap.width().max(0) as u32, bitmap.height().max(0) as u32);
        let raw = bitmap.as_raw_bytes();
        let gray = bgra_to_gray(&raw, bw, bh)
            .ok_or_else(|| PdfError::Pdfium("render returned a short bitmap".into()))?;
        self.source.unchanged()?;
        Ok(gray)
    }
}

impl Drop for Document {
    fn drop(&mut self) {
        let handle = self.handle.get();
        if !handle.is_null() {
            // SAFETY: the handle is live and owned; no page outlives
            // `read_page`.
            unsafe { self.lib.FPDF_CloseDocument(handle) };
        }
    }
}

/// The quick reader is used unless the setting `PDF_TEXT_READER` is
/// `pdfium` (to compare with pdfium alone, or to set the quick reader
/// aside should it misread a library). A worker process reads no settings
/// file: the coordinator puts the resolved value in each worker's
/// environment ([`worker_env`]), read here as the settings read it.
fn quick_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| {
        crate::settings::process_env(TEXT_READER_KEY)
            .is_none_or(|v| v != crate::settings::TextReader::Pdfium.as_str())
    })
}

/// The setting that chooses the text reader, by its name.
const TEXT_READER_KEY: &str = "PDF_TEXT_READER";

/// What a worker process needs of the settings, as environment for the
/// worker (`inspect::PoolConfig::env`): the resolved `PDF_TEXT_READER`,
/// whether it came from the environment, `colophon.toml` or the default.
pub fn worker_env(
    settings: &crate::settings::Settings,
) -> Vec<(std::ffi::OsString, std::ffi::OsString)> {
    vec![(
        TEXT_READER_KEY.into(),
        settings.pdf_text_reader.as_str().into(),
    )]
}

/// Why pdfium's last call failed (`FPDF_GetLastError`, fpdfview.h codes).
fn last_error(lib: &dyn PdfiumLibraryBindings) -> PdfError {
    // SAFETY: takes no argument and only reads pdfium's thread-local error code.
    match unsafe { lib.FPDF_GetLastError() } {
        4 | 5 => PdfError::Encrypted,
        3 => PdfError::Malformed("not a PDF, or damaged beyond repair".into()),
        2 => PdfError::Io("pdfium could not read the file".into()),
        code => PdfError::Pdfium(format!("error code {code}")),
    }
}

/// An image of `pixels` placed in `rect` (points), of which `clip` lies
/// on a `w`x`h` page, as a [`PageImage`]; `None` for a degenerate one.
fn placed_image(clip: Rect, rect: Rect, pixels: (u32, u32), w: f32, h: f32) -> Option<PageImage> {
    let area = |r: &Rect| (r.x1 - r.x0) * (r.bottom - r.top);
    let page = w * h;
    if !(area(&clip) > 0.0 && area(&rect) > 0.0 && page > 0.0) {
        return None;
    }
    let inches = f64::from(area(&rect)) / (72.0 * 72.0);
    let dpi = (f64::from(pixels.0) * f64::from(pixels.1) / inches).sqrt() as f32;
    let share = (area(&clip) / page).clamp(0.0, 1.0);
    (dpi.is_finite() && share.is_finite()).then_some(PageImage { share, dpi })
}

/// The largest page side colophon renders, in points: 14,400 pt (200
/// inches) is the largest page size the PDF format allows (ISO 32000-1,
/// annex C), so a page beyond it is damaged or hostile (issue 19: a page of
/// 100,000 pt made the OCR allocate 174 GB).
pub const MAX_PAGE_PT: f32 = 14_400.0;

/// [`PdfError::PageTooLarge`] for a page larger than [`MAX_PAGE_PT`] on a
/// side or whose size is not a finite number (0-based `index`).
pub fn check_page_size(index: u32, w_pt: f32, h_pt: f32) -> Result<(), PdfError> {
    let ok = |v: f32| v.is_finite() && v <= MAX_PAGE_PT;
    if ok(w_pt) && ok(h_pt) {
        return Ok(());
    }
    Err(PdfError::PageTooLarge {
        index,
        width: w_pt,
        height: h_pt,
    })
}

/// Pixel size for rendering a `w_pt` x `h_pt` page at `dpi`, capped to
/// `max_pixels` pixels (aspect kept, at least 1x1). The cap holds for any
/// input, a page a million times wider than high included: a side clamped
/// up to one pixel shrinks the other.
pub fn render_size(w_pt: f32, h_pt: f32, dpi: u32, max_pixels: u64) -> (u32, u32) {
    let size = |v: f32| {
        if v.is_finite() {
            f64::from(v).max(0.0)
        } else {
            0.0
        }
    };
    let scale = f64::from(dpi.max(1)) / 72.0;
    let (mut w, mut h) = (size(w_pt) * scale, size(h_pt) * scale);
    let max = max_pixels.max(1) as f64;
    if w * h > max {
        let k = (max / (w * h)).sqrt();
        w *= k;
        h *= k;
    }
    // `as` saturates; clamping to at least one pixel can only grow the
    // small side, so the long one is cut to what the cap leaves.
    let (w, h) = ((w.floor() as u64).max(1), (h.floor() as u64).max(1));
    let max = max_pixels.max(1);
    let (w, h) = if w >= h {
        (w.min(max / h), h)
    } else {
        (w, h.min(max / w))
    };
    let clamp = |v: u64| u32::try_from(v).unwrap_or(u32::MAX).max(1);
    (clamp(w), clamp(h))
}

/// BGRA rows (any stride) to luma (ITU-R BT.601 weights).
pub fn bgra_to_gray(raw: &[u8], w: u32, h: u32) -> Option<GrayImage> {
    if w == 0 || h == 0 {
        return None;
    }
    let stride = raw.len() / h as usize;
    if stride < w as usize * 4 {
        return None;
    }
    let mut out = Vec::with_capacity(w as usize * h as usize);
    for row in raw.chunks_exact(stride).take(h as usize) {
        for px in row[..w as usize * 4].chunks_exact(4) {
            let (b, g, r) = (px[0] as u32, px[1] as u32, px[2] as u32);
            out.push(((r * 299 + g * 587 + b * 114 + 500) / 1000) as u8);
        }
    }
    GrayImage::from_raw(w, h, out)
}

/// Info strings sometimes carry NULs, BOMs or padding.
fn clean_info(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_control() && *c != '\u{FEFF}')
        .collect::<String>()
        .trim()
        .to_string()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use lopdf::content::{Content, Operation};
    use lopdf::{Object, Stream, dictionary};

    pub(crate) use crate::test_pdfs::fixture;

    /// Writes to the end of the file at `path`, as a user changing it
    /// while it is read would.
    fn append_to(path: &std::path::Path) {
        let mut file = std::fs::OpenOptions::new().append(true).open(path).unwrap();
        std::io::Write::write_all(&mut file, b"\n%appended\n").unwrap();
    }

    fn lines_of(p: &PageRead) -> Vec<&str> {
        p.text.lines.iter().map(|l| l.text.as_str()).collect()
    }

    /// Median line size of a page: the body text size.
    fn body_size(p: &PageRead) -> f32 {
        let mut s: Vec<f32> = p.text.lines.iter().map(|l| l.size).collect();
        s.sort_by(f32::total_cmp);
        s[s.len() / 2]
    }

    #[test]
    fn library_is_looked_for_in_the_documented_order() {
        let dir = tempfile::tempdir().unwrap();
        let exe = PathBuf::from("/opt/colophon/target/release/colophon");
        let got = candidates_from(Some(dir.path().into()), Some(exe.clone()));
        let repo = Path::new(env!("CARGO_MANIFEST_DIR")).join(".pdfium/libpdfium.so");
        assert_eq!(
            got,
            [
                dir.path().join("libpdfium.so"),
                PathBuf::from("/opt/colophon/target/release/libpdfium.so"),
                PathBuf::from("/opt/colophon/target/release/../../.pdfium/libpdfium.so"),
                repo.clone(),
            ]
        );
        // A file path is taken as is; an empty variable is no variable.
        let file = dir.path().join("custom-pdfium.so");
        assert_eq!(
            candidates_from(Some(file.clone().into()), None),
            [file, repo.clone()]
        );
        assert_eq!(candidates_from(Some("".into()), None), [repo]);
    }

    #[test]
    fn missing_library_error_says_how_to_fix_it() {
        let nowhere = PathBuf::from("/nonexistent/colophon/libpdfium.so");
        let msg = bind_from(std::slice::from_ref(&nowhere), false)
            .err()
            .unwrap();
        assert!(
            msg.contains("/nonexistent/colophon/libpdfium.so (absent)"),
            "{msg}"
        );
        assert!(msg.contains("Run scripts/fetch-pdfium.sh"), "{msg}");
        assert!(msg.contains("set PDFIUM_LIBRARY"), "{msg}");
    }

    #[test]
    fn typeset_book_title_page_reads_with_spaces_and_large_title() {
        let doc = Document::open(&fixture("book-p03-asis.pdf")).unwrap();
        let info = doc.info();
        assert_eq!(info.page_count, 15);
        assert!(
            info.info.producer.as_deref().unwrap().contains("gropdf"),
            "{info:?}"
        );
        assert_eq!(info.info.title, None);

        let title_page = doc.read_page(1).unwrap();
        assert_eq!(title_page.text.index, 1);
        assert_eq!(
            (title_page.text.width, title_page.text.height),
            (432.0, 648.0)
        );
        let lines = lines_of(&title_page);
        assert_eq!(lines[0], "Weaving on Simple Looms", "{lines:?}");
        assert!(lines.contains(&"Agnes Thornquist"), "{lines:?}");
        let title = &title_page.text.lines[0];
        // Top-left origin: the title sits in the upper third of the page.
        assert!(
            title.bbox.top > 0.0 && title.bbox.bottom < 648.0 / 3.0,
            "{:?}",
            title.bbox
        );
        assert!(
            title.bbox.x0 > 36.0 && title.bbox.x1 < 432.0 - 36.0,
            "{:?}",
            title.bbox
        );
        let body = doc.read_page(4).unwrap();
        assert!(body.text.word_count() > 100);
        assert!(
            title.size > 1.8 * body_size(&body),
            "title {} vs body {}",
            title.size,
            body_size(&body)
        );
        assert!(body.text.image_ratio < 0.01);
        assert!(body.hidden_lines.is_empty());

        let copyright = lines_of(&doc.read_page(2).unwrap()).join("\n");
        assert!(copyright.contains("ISBN 0-87611-203-3"), "{copyright}");
        assert!(
            copyright.contains("Catalog Card Number: 72-81345"),
            "{copyright}"
        );
    }

    #[test]
    fn word_info_title_is_reported_as_found() {
        let doc = Document::open(&fixture("book-p02-asis.pdf")).unwrap();
        let info = doc.info().info;
        assert_eq!(
            info.title.as_deref(),
            Some("Microsoft Word - Book1_FINAL (2).docx")
        );
        assert_eq!(info.author.as_deref(), Some("Pauline"));
        assert_eq!(info.producer.as_deref(), Some("LibreOffice 7.4"));
        let cover = doc.read_page(0).unwrap();
        assert_eq!(
            lines_of(&cover)[..2],
            ["Recipes from a", "Narrowboat Galley"]
        );
        assert!(cover.text.lines[0].bold);
    }

    #[test]
    fn scanned_page_is_all_image_and_no_text() {
        let doc = Document::open(&fixture("book-p03-scanned.pdf")).unwrap();
        assert_eq!(doc.page_count(), 9);
        for i in [0, 8] {
            let p = doc.read_page(i).unwrap();
            assert!(
                p.text.image_ratio > 0.98,
                "page {i}: {}",
                p.text.image_ratio
            );
            assert!(p.text.lines.is_empty());
            // One 921 x 1382 px JPEG over the whole 442 x 663 pt page:
            // scanned at 150 dpi.
            let image = p.text.image.unwrap();
            assert!(image.share > 0.98, "page {i}: {image:?}");
            assert!((image.dpi - 150.0).abs() < 1.0, "page {i}: {image:?}");
        }
    }

    #[test]
    fn tesseract_text_layer_is_read_and_flagged_as_ocr() {
        let doc = Document::open(&fixture("ocr_layer_title_page.pdf")).unwrap();
        let p = doc.read_page(0).unwrap();
        assert!(p.text.image_ratio > 0.98, "{}", p.text.image_ratio);
        assert!(p.is_ocr_layer());
        assert_eq!(p.hidden_lines.len(), p.text.lines.len());
        let lines = lines_of(&p);
        assert_eq!(lines[0], "Weaving on Simple Looms", "{lines:?}");
        assert!(lines.contains(&"Agnes Thornquist"), "{lines:?}");
        // Word boxes are scaled to the scan: the title is still the largest.
        let title = p.text.lines[0].size;
        assert!(
            p.text.lines[1..].iter().all(|l| l.size < title),
            "{:?}",
            p.text.lines
        );
    }

    #[test]
    fn render_is_gray_bounded_and_shows_ink() {
        let doc = Document::open(&fixture("book-p03-scanned.pdf")).unwrap();
        let img = doc.render_page(1, 100, 10_000_000).unwrap();
        // 432 x 648 pt at 100 dpi.
        assert_eq!((img.width(), img.height()), (600, 900));
        let dark = img.pixels().filter(|p| p.0[0] < 128).count();
        let frac = dark as f64 / (600.0 * 900.0);
        assert!(frac > 0.001 && frac < 0.5, "dark share {frac}");
        let capped = doc.render_page(1, 300, 100_000).unwrap();
        assert!(u64::from(capped.width()) * u64::from(capped.height()) <= 100_000);
        assert!(
            capped.width() > 200,
            "aspect kept: {}x{}",
            capped.width(),
            capped.height()
        );
    }

    #[test]
    fn password_protected_pdf_is_a_typed_error_but_owner_only_opens() {
        let err = Document::open(&fixture("encrypted_should_fail.pdf"))
            .err()
            .unwrap();
        assert_eq!(err, PdfError::Encrypted);
        let doc = Document::open(&fixture("owner_password_only_should_open.pdf")).unwrap();
        assert_eq!(doc.page_count(), 15);
    }

    /// The quick reader (`super::quick`) on the born-digital fixtures, made
    /// by six producers (groff, LibreOffice, pdfTeX, LuaTeX, XeTeX,
    /// Tesseract's text layer): it reads most of their pages (a page with a
    /// font whose text or metrics need its program is left to pdfium, and
    /// says why), and every page it reads gives pdfium's lines, sizes,
    /// weights, line boxes and image coverage.
    #[test]
    fn the_quick_reader_reads_fixtures_as_pdfium_does() {
        let (mut read, mut left) = (0, Vec::new());
        for name in [
            "book-p02-asis.pdf",
            "book-p03-asis.pdf",
            "paper_jss_stripped.pdf",
            "wild_beamer_theme_manual.pdf",
            "wild_calendar_code_manual_stripped.pdf",
            "ocr_layer_title_page.pdf",
            "write_classic_xref_with_xmp.pdf",
            "write_xref_stream_objstm.pdf",
            "write_xref_stream_no_info.pdf",
        ] {
            let doc = Document::open(&fixture(name)).unwrap();
            assert!(doc.is_quick(), "{name}: not read by the quick reader");
            for i in 0..doc.page_count().min(4) {
                let quick = match doc.read_page_quick(i).unwrap() {
                    Ok(q) => q,
                    Err(why) => {
                        assert!(!why.why.is_empty());
                        left.push(format!("{name} page {i}: {why}"));
                        continue;
                    }
                };
                read += 1;
                let reference = doc.read_page_pdfium(i).unwrap();
                let (q, r) = (&quick.text, &reference.text);
                assert_eq!(lines_of(&quick), lines_of(&reference), "{name} page {i}");
                for (a, b) in q.lines.iter().zip(&r.lines) {
                    assert!(
                        (a.size - b.size).abs() <= 0.01 * b.size,
                        "{name} {a:?} {b:?}"
                    );
                    assert_eq!(a.bold, b.bold, "{name} {a:?} {b:?}");
                    assert!((a.bbox.x0 - b.bbox.x0).abs() < 1.0, "{name} {a:?} {b:?}");
                    assert!(
                        (a.bbox.bottom - b.bbox.bottom).abs() < 2.0,
                        "{name} {a:?} {b:?}"
                    );
                    // Pdfium grows a box to a glyph's outline: a little.
                    let top = (a.bbox.top - b.bbox.top).abs();
                    assert!(top <= 0.15 * b.size.max(1.0), "{name} {a:?} {b:?}");
                }
                assert!(
                    (q.image_ratio - r.image_ratio).abs() < 0.01,
                    "{name} page {i}"
                );
                assert_eq!(q.image.is_some(), r.image.is_some(), "{name} page {i}");
                assert_eq!(
                    quick.hidden_lines, reference.hidden_lines,
                    "{name} page {i}"
                );
                assert_eq!((q.width, q.height), (r.width, r.height), "{name} page {i}");
            }
        }
        // LibreOffice's TrueType subsets (no ascent or descent) and an
        // all-caps font of a JSS paper are left to pdfium (8 pages).
        assert!(
            read >= 20 && left.len() <= 8,
            "read {read}, left to pdfium {left:?}"
        );
        // An encrypted file is left to pdfium.
        let doc = Document::open(&fixture("owner_password_only_should_open.pdf")).unwrap();
        assert!(!doc.is_quick());
        assert_eq!(doc.page_count(), 15);
    }

    /// A file too large to keep for pdfium alone stays in memory for the
    /// quick reader when the quick reader opens it (and reads as it does
    /// in a small file), and goes to pdfium in blocks when it does not: an
    /// encrypted file, which the quick reader leaves to pdfium, fails its
    /// reads once written to, as only a file read in blocks can.
    #[test]
    fn large_files_stay_in_memory_only_for_the_quick_reader() {
        let small = Document::open(&fixture("book-p03-asis.pdf")).unwrap();
        let large = Document::open_keeping(&fixture("book-p03-asis.pdf"), 0, usize::MAX).unwrap();
        assert!(large.is_quick() && large.source.kept().is_some());
        assert_eq!(large.read_page(0).unwrap(), small.read_page(0).unwrap());
        assert_eq!(large.info(), small.info());
        let too_large = Document::open_keeping(&fixture("book-p03-asis.pdf"), 0, 10).unwrap();
        assert!(!too_large.is_quick() && too_large.source.kept().is_none());

        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("locked.pdf");
        std::fs::copy(fixture("owner_password_only_should_open.pdf"), &path).unwrap();
        let locked = Document::open_keeping(&path, 0, usize::MAX).unwrap();
        assert!(!locked.is_quick() && locked.source.kept().is_none());
        assert_eq!(locked.page_count(), 15);
        let first = locked.read_page(0).unwrap();
        let again = Document::open(&path).unwrap();
        assert_eq!(again.info(), locked.info());
        assert_eq!(again.read_page(0).unwrap(), first);
        append_to(&path);
        assert_eq!(locked.read_page(1).unwrap_err(), PdfError::Changed);
    }

    /// Once the quick reader leaves a page of a large file to pdfium, the
    /// file goes to pdfium in blocks: the same page read, and a file
    /// written to since then fails its reads.
    #[test]
    fn a_large_file_left_to_pdfium_is_read_in_blocks() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("paper.pdf");
        std::fs::copy(fixture("paper_jss_stripped.pdf"), &path).unwrap();
        let reference = Document::open(&path).unwrap();
        let mut doc = Document::open_keeping(&path, 0, usize::MAX).unwrap();
        assert!(doc.is_quick() && doc.source.kept().is_some());
        doc.leave_large_to_pdfium().unwrap();
        assert!(!doc.is_quick() && doc.source.kept().is_none());
        for i in 0..doc.page_count().min(3) {
            assert_eq!(
                doc.read_page(i).unwrap(),
                reference.read_page_pdfium(i).unwrap()
            );
        }
        append_to(&path);
        assert_eq!(doc.read_page(0).unwrap_err(), PdfError::Changed);
        // A small file stays as it was.
        let mut small = Document::open(&fixture("paper_jss_stripped.pdf")).unwrap();
        small.leave_large_to_pdfium().unwrap();
        assert!(small.is_quick());
    }

    /// The Info dictionary as the quick reader decodes it is what pdfium
    /// gives (PDFDocEncoding and UTF-16 strings).
    #[test]
    fn the_quick_reader_gives_pdfiums_info() {
        for name in [
            "book-p02-asis.pdf",
            "book-p03-asis.pdf",
            "write_classic_xref_with_xmp.pdf",
        ] {
            let quick = Document::open(&fixture(name)).unwrap();
            assert!(quick.is_quick());
            let lib =
                <Pdfium as PdfiumLibraryBindingsAccessor<'static>>::bindings(pdfium().unwrap());
            let bytes = std::fs::read(fixture(name)).unwrap();
            // SAFETY: `bytes` outlives `reference`, which closes the handle when dropped at the
            // end of this iteration.
            let handle = unsafe { lib.FPDF_LoadMemDocument64(&bytes, None) };
            assert!(!handle.is_null());
            let reference = Document {
                lib,
                handle: Cell::new(handle),
                quick: None,
                page_count: quick.page_count(),
                hash: quick.hash,
                in_memory: super::super::source::IN_MEMORY,
                info: DocInfo::default(),
                rendering: OnceLock::new(),
                source: Source::open(&fixture(name)).unwrap().0,
            };
            assert_eq!(quick.info(), reference.read_info(&bytes), "{name}");
        }
    }

    #[test]
    fn broken_files_are_errors_not_crashes() {
        let dir = tempfile::tempdir().unwrap();
        let bytes = std::fs::read(fixture("book-p03-asis.pdf")).unwrap();
        // Cut to a third, or missing only its last 100 bytes (the trailer
        // and part of the cross-reference table).
        for len in [bytes.len() / 3, bytes.len() - 100] {
            let cut = dir.path().join(format!("truncated-{len}.pdf"));
            std::fs::write(&cut, &bytes[..len]).unwrap();
            let err = Document::open(&cut).err();
            assert!(
                matches!(err, Some(PdfError::Malformed(_))),
                "{len}: {err:?}"
            );
        }
        let junk = dir.path().join("junk.pdf");
        std::fs::write(&junk, b"%PDF-1.4\nthis is not a pdf at all\n").unwrap();
        assert!(matches!(Document::open(&junk), Err(PdfError::Malformed(_))));
        assert!(matches!(
            Document::open(&dir.path().join("missing.pdf")),
            Err(PdfError::Io(_))
        ));
        let doc = Document::open(&fixture("book-p03-asis.pdf")).unwrap();
        assert_eq!(
            doc.read_page(15).err(),
            Some(PdfError::NoSuchPage {
                index: 15,
                page_count: 15
            })
        );
    }

    /// A one-page PDF made with lopdf: `content` drawn on a `w` x `h` page
    /// with Helvetica as /F1, an 8x8 gray image as /Im1 and a form
    /// XObject /Fm1 that draws /Im1 through its own matrix.
    fn build_pdf(
        content: Vec<Operation>,
        page_extra: lopdf::Dictionary,
        form_matrix: [f32; 6],
    ) -> tempfile::NamedTempFile {
        let mut doc = lopdf::Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let font = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
        });
        let image = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Image", "Width" => 8, "Height" => 8,
                "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
            },
            vec![128u8; 64],
        ));
        let form_content = Content {
            operations: vec![
                Operation::new("q", vec![]),
                // The image fills the form's unit square.
                Operation::new(
                    "cm",
                    vec![1.into(), 0.into(), 0.into(), 1.into(), 0.into(), 0.into()],
                ),
                Operation::new("Do", vec!["Im1".into()]),
                Operation::new("Q", vec![]),
            ],
        };
        let form = doc.add_object(Stream::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form",
                "BBox" => vec![0.into(), 0.into(), 1.into(), 1.into()],
                "Matrix" => form_matrix.iter().map(|&v| Object::Real(v)).collect::<Vec<_>>(),
                "Resources" => dictionary! { "XObject" => dictionary! { "Im1" => image } },
            },
            form_content.encode().unwrap(),
        ));
        let resources = doc.add_object(dictionary! {
            "Font" => dictionary! { "F1" => font },
            "XObject" => dictionary! { "Im1" => image, "Fm1" => form },
        });
        let content_id = doc.add_object(Stream::new(
            dictionary! {},
            Content {
                operations: content,
            }
            .encode()
            .unwrap(),
        ));
        let mut page = dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content_id, "Resources" => resources,
        };
        for (k, v) in page_extra.iter() {
            page.set(k.clone(), v.clone());
        }
        let page_id = doc.add_object(page);
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
                "MediaBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut file = tempfile::Builder::new().suffix(".pdf").tempfile().unwrap();
        doc.save_to(file.as_file_mut()).unwrap();
        file
    }

    fn text_ops(x: f32, y: f32, tf: f32, tm_scale: f32, mode: i64, s: &str) -> Vec<Operation> {
        vec![
            Operation::new("BT", vec![]),
            Operation::new("Tf", vec!["F1".into(), Object::Real(tf)]),
            Operation::new("Tr", vec![mode.into()]),
            Operation::new(
                "Tm",
                vec![
                    Object::Real(tm_scale),
                    0.into(),
                    0.into(),
                    Object::Real(tm_scale),
                    Object::Real(x),
                    Object::Real(y),
                ],
            ),
            Operation::new("Tj", vec![Object::string_literal(s)]),
            Operation::new("ET", vec![]),
        ]
    }

    #[test]
    fn xmp_title_and_creators_fill_in_for_a_missing_info() {
        let f = build_pdf(
            text_ops(72.0, 700.0, 12.0, 1.0, 0, "Body"),
            dictionary! {},
            [1.0, 0.0, 0.0, 1.0, 0.0, 0.0],
        );
        let mut doc = lopdf::Document::load(f.path()).unwrap();
        let xmp = r#"<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
<rdf:Description rdf:about="" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:pdf="http://ns.adobe.com/pdf/1.3/">
<pdf:Producer>Test</pdf:Producer><dc:format>application/pdf</dc:format>
<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Loom Theory</rdf:li></rdf:Alt></dc:title>
<dc:creator><rdf:Seq><rdf:li>Ann Weaver</rdf:li><rdf:li>Bo Spinner</rdf:li></rdf:Seq></dc:creator>
</rdf:Description></rdf:RDF></x:xmpmeta>
<?xpacket end="w"?>"#;
        let meta = doc.add_object(Stream::new(
            dictionary! { "Type" => "Metadata", "Subtype" => "XML" },
            xmp.as_bytes().to_vec(),
        ));
        let catalog = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
        doc.get_object_mut(catalog)
            .unwrap()
            .as_dict_mut()
            .unwrap()
            .set("Metadata", meta);
        let info =
            doc.add_object(dictionary! { "Author" => Object::string_literal("Info Author") });
        doc.trailer.set("Info", info);
        let out = tempfile::Builder::new().suffix(".pdf").tempfile().unwrap();
        doc.save(out.path()).unwrap();
        let got = Document::open(out.path()).unwrap().info().info;
        assert_eq!(got.title.as_deref(), Some("Loom Theory"));
        // Info wins where it has a value.
        assert_eq!(got.author.as_deref(), Some("Info Author"));
        doc.trailer.remove(b"Info");
        doc.save(out.path()).unwrap();
        let got = Document::open(out.path()).unwrap().info().info;
        assert_eq!(got.author.as_deref(), Some("Ann Weaver; Bo Spinner"));
    }

    #[test]
    fn size_in_text_matrix_counts_and_invisible_text_is_flagged() {
        // Distiller style: Tf 1, size in the text matrix.
        let mut ops = text_ops(72.0, 700.0, 1.0, 24.0, 0, "Scaled Title");
        ops.extend(text_ops(72.0, 650.0, 10.0, 1.0, 0, "Body text here"));
        // An OCR layer: render mode 3 (invisible).
        ops.extend(text_ops(72.0, 400.0, 12.0, 1.0, 3, "Hidden words"));
        let f = build_pdf(ops, dictionary! {}, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        let doc = Document::open(f.path()).unwrap();
        let p = doc.read_page(0).unwrap();
        assert_eq!(
            lines_of(&p),
            ["Scaled Title", "Body text here", "Hidden words"]
        );
        assert!(
            (p.text.lines[0].size - 24.0).abs() < 0.1,
            "{}",
            p.text.lines[0].size
        );
        assert!((p.text.lines[1].size - 10.0).abs() < 0.1);
        assert_eq!(p.hidden_lines, [2]);
        assert!(!p.is_ocr_layer());
        // Baseline 700 on an 800 pt page: about 100 pt from the top.
        let b = p.text.lines[0].bbox;
        assert!(
            b.bottom > 95.0 && b.bottom < 110.0 && b.top < b.bottom - 15.0,
            "{b:?}"
        );
    }

    #[test]
    fn images_in_forms_are_placed_by_the_form_matrix_and_unioned() {
        // Page image: left half (300 x 800). Form: the same image through
        // a matrix placing it on the right half's top half (300 x 400).
        let ops = vec![
            Operation::new("q", vec![]),
            Operation::new(
                "cm",
                vec![
                    300.into(),
                    0.into(),
                    0.into(),
                    800.into(),
                    0.into(),
                    0.into(),
                ],
            ),
            Operation::new("Do", vec!["Im1".into()]),
            Operation::new("Q", vec![]),
            Operation::new("q", vec![]),
            // Overlaps the page image by 50 pt: union, not sum.
            Operation::new(
                "cm",
                vec![
                    1.into(),
                    0.into(),
                    0.into(),
                    1.into(),
                    (-50).into(),
                    0.into(),
                ],
            ),
            Operation::new("Do", vec!["Fm1".into()]),
            Operation::new("Q", vec![]),
        ];
        let f = build_pdf(ops, dictionary! {}, [300.0, 0.0, 0.0, 400.0, 300.0, 400.0]);
        let doc = Document::open(f.path()).unwrap();
        let p = doc.read_page(0).unwrap();
        // 300*800 + 300*400 - 50*400 overlap = 340000 of 480000.
        let want = 340_000.0 / 480_000.0;
        assert!(
            (p.text.image_ratio - want).abs() < 0.01,
            "{} vs {want}",
            p.text.image_ratio
        );
        // The largest image is the page's own (half the page), its 8 x 8
        // pixels stretched over 300 x 800 pt: sqrt(64 / (25/6 * 100/9)) dpi.
        let image = p.text.image.unwrap();
        assert!((image.share - 0.5).abs() < 0.01, "{image:?}");
        assert!((image.dpi - 1.176).abs() < 0.01, "{image:?}");
    }

    #[test]
    fn rotated_and_cropped_pages_use_displayed_coordinates() {
        let ops = text_ops(100.0, 700.0, 12.0, 1.0, 0, "Landscape heading");
        let extra = dictionary! {
            "Rotate" => 90,
            "CropBox" => vec![50.into(), 50.into(), 550.into(), 750.into()],
        };
        let f = build_pdf(ops, extra, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        let doc = Document::open(f.path()).unwrap();
        let p = doc.read_page(0).unwrap();
        // 500 x 700 crop box turned a quarter: 700 wide, 500 high.
        assert_eq!((p.text.width, p.text.height), (700.0, 500.0));
        assert_eq!(lines_of(&p), ["Landscape heading"]);
        let b = p.text.lines[0].bbox;
        // Text along x of the unrotated page runs down the turned page,
        // starting where user (100, 700) lands: displayed (650, 50).
        assert!(b.height() > 5.0 * b.width(), "{b:?}");
        assert!(
            (b.x0 - 650.0).abs() < 5.0 && (b.top - 50.0).abs() < 1.0,
            "{b:?}"
        );
        assert!(
            b.x0 >= 0.0 && b.x1 <= 700.0 && b.top >= 0.0 && b.bottom <= 500.0,
            "{b:?}"
        );
        // Rendering shows the page as displayed, text where the bbox says.
        let img = doc.render_page(0, 72, 1_000_000).unwrap();
        assert_eq!((img.width(), img.height()), (700, 500));
        let ink = |x0: f32, y0: f32, x1: f32, y1: f32| {
            let mut n = 0;
            for y in y0 as u32..y1 as u32 {
                for x in x0 as u32..x1 as u32 {
                    n += usize::from(img.get_pixel(x, y).0[0] < 128);
                }
            }
            n
        };
        assert!(ink(b.x0, b.top, b.x1, b.bottom) > 50);
        assert_eq!(ink(0.0, 300.0, 700.0, 500.0), 0);
    }

    /// Issue 19: pixels derived from a page's size are bounded whatever the
    /// size: huge, absurd, infinite or a thin sliver a million times wider
    /// than high (clamping the short side to 1 px used to break the cap).
    #[test]
    fn render_size_never_exceeds_the_cap() {
        let cap = 35_000_000;
        for (w, h) in [
            (612.0, 792.0),
            (14_400.0, 14_400.0),
            (100_000.0, 100_000.0),
            (1e9, 1e9),
            (1e9, 1.0),
            (1.0, 1e9),
            (f32::MAX, f32::MAX),
            (f32::INFINITY, 10.0),
            (f32::NAN, f32::NAN),
            (0.0, 0.0),
            (-5.0, 100.0),
        ] {
            for dpi in [1, 72, 300, u32::MAX] {
                let (pw, ph) = render_size(w, h, dpi, cap);
                assert!(pw >= 1 && ph >= 1, "{w}x{h}@{dpi}");
                assert!(
                    u64::from(pw) * u64::from(ph) <= cap,
                    "{w}x{h}@{dpi}: {pw}x{ph}"
                );
            }
        }
        assert_eq!(render_size(612.0, 792.0, 300, cap), (2550, 3300));
        assert_eq!(render_size(1e9, 1.0, 72, 1000), (1000, 1));
    }

    #[test]
    fn pages_beyond_the_pdf_maximum_are_not_rendered() {
        assert!(check_page_size(0, 14_400.0, 14_400.0).is_ok());
        for (w, h) in [
            (14_401.0, 10.0),
            (10.0, 1e9),
            (f32::INFINITY, 1.0),
            (f32::NAN, 1.0),
        ] {
            assert!(check_page_size(0, w, h).is_err(), "{w} x {h}");
        }
        let big = dictionary! {
            "MediaBox" => vec![0.into(), 0.into(), 100_000.into(), 100_000.into()],
        };
        let f = build_pdf(vec![], big, [1.0, 0.0, 0.0, 1.0, 0.0, 0.0]);
        let doc = Document::open(f.path()).unwrap();
        let err = doc.render_page(0, 300, 35_000_000).unwrap_err();
        assert_eq!(
            err.to_string(),
            "page 1 is 100000 x 100000 pt, too large to render \
             (a PDF page is at most 14400 pt a side)"
        );
        // Reading its (absent) text is fine: only pixels cost memory.
        assert!(doc.read_page(0).unwrap().text.lines.is_empty());
    }

    /// Issue 17: a document without pages said nothing at all.
    #[test]
    fn a_document_without_pages_is_malformed_and_says_so() {
        let file = tempfile::Builder::new().suffix(".pdf").tempfile().unwrap();
        crate::test_pdfs::SyntheticPdf::new().save(file.path());
        let err = Document::open(file.path()).err().unwrap();
        assert_eq!(err, PdfError::Malformed("the PDF has no pages".into()));
    }

    #[test]
    fn content_hash_is_the_hash_of_the_bytes_read() {
        let path = fixture("book-p03-asis.pdf");
        let doc = Document::open(&path).unwrap();
        let want = blake3::hash(&std::fs::read(&path).unwrap());
        assert_eq!(doc.content_hash(), *want.as_bytes());
        // Rendering reads the same bytes (no second open of the path).
        assert!(doc.render_page(0, 36, 1_000_000).is_ok());
    }

    /// Pdfium reads a large file in blocks after the hash was taken, so a
    /// file written to after opening fails every later read instead of
    /// answering from other bytes.
    #[test]
    fn a_file_written_to_after_opening_fails_its_reads() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("book.pdf");
        std::fs::copy(fixture("book-p03-asis.pdf"), &path).unwrap();
        let whole = Document::open(&path).unwrap();
        // Read in blocks, the pages are those read in place.
        let doc = Document::open_keeping(&path, 0, 0).unwrap();
        let first = doc.read_page(0).unwrap();
        assert_eq!(first, whole.read_page_pdfium(0).unwrap());
        assert_eq!(doc.info(), whole.info());
        append_to(&path);
        assert_eq!(doc.read_page(1).unwrap_err(), PdfError::Changed);
        assert_eq!(
            doc.render_page(0, 36, 1_000_000).unwrap_err(),
            PdfError::Changed
        );
        // A file read in place is not read again, so it still answers.
        assert_eq!(whole.read_page(1).unwrap().text.index, 1);
        // Opened again, the new bytes read as before.
        let again = Document::open_keeping(&path, 0, 0).unwrap();
        assert_eq!(again.read_page(0).unwrap(), first);
    }
}
