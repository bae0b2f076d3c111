//! Data passed between the pipeline stages (SPEC 5): what `discover` finds,
//! what `inspect` reads off a page, what `extract` proposes and what
//! `decide` turns into a [`Record`].
//!
//! Everything here is plain data with serde derives, so it can cross the
//! worker pipe and live in the cache (postcard) and in `records.jsonl`
//! (JSON) without conversion layers.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

/// A file found under `data/` that claims to be a PDF (by name or header).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PdfFile {
    /// Absolute path (under the resolved data folder).
    pub path: PathBuf,
    /// Path relative to the data folder, as shown to people and in records.
    pub rel: PathBuf,
    /// Lies under a directory named `RUNTIME_IGNORE_DIR_NAME`: analysed, never written.
    pub ignored: bool,
    /// `%PDF-` seen in the first 1024 bytes. A `.pdf` without it gets an error record.
    pub has_pdf_header: bool,
}

/// blake3 of a file's whole content: the identity of a document everywhere.
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct DocHash(pub [u8; 32]);

impl DocHash {
    pub fn hex(&self) -> String {
        crate::util::hex::lower(&self.0)
    }
}

impl fmt::Debug for DocHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DocHash({})", &self.hex()[..16])
    }
}

/// Document-level facts read by `inspect` once per content hash.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocInfo {
    pub page_count: u32,
    /// The existing Info dictionary / XMP metadata, untrusted (see `extract::info`).
    pub info: InfoMeta,
}

/// Existing metadata as found in the file. Any field may be junk.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct InfoMeta {
    pub title: Option<String>,
    pub author: Option<String>,
    pub subject: Option<String>,
    pub keywords: Option<String>,
    pub creator: Option<String>,
    pub producer: Option<String>,
}

/// Where a page's text came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Via {
    /// The PDF's own text layer.
    Text,
    /// Tesseract on a rendered page.
    Ocr,
    /// A vision-language model's answer about the page image.
    Vision,
    /// The existing Info dictionary / XMP packet.
    PdfInfo,
    /// Open Library's answer about the document's ISBN (`--online`).
    #[serde(rename = "online:openlibrary")]
    OnlineOpenLibrary,
    /// The DOI resolver's CSL-JSON about the document's DOI (`--online`).
    #[serde(rename = "online:doi")]
    OnlineDoi,
    /// Crossref's REST API about the document's DOI (`--online`).
    #[serde(rename = "online:crossref")]
    OnlineCrossref,
    /// The Library of Congress about the document's LCCN (`--online`).
    #[serde(rename = "online:loc")]
    OnlineLoc,
}

impl Via {
    /// Whether the ranker's training data holds candidates of this source
    /// (page text, OCR, the Info dictionary); vision and catalogue answers
    /// are judged otherwise (`decide::ranker::unmeasured_probability`,
    /// `decide::catalogue`).
    pub fn is_trained_source(self) -> bool {
        matches!(self, Via::Text | Via::Ocr | Via::PdfInfo)
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Via::Text => "text",
            Via::Ocr => "ocr",
            Via::Vision => "vision",
            Via::PdfInfo => "pdf-info",
            Via::OnlineOpenLibrary => "online:openlibrary",
            Via::OnlineDoi => "online:doi",
            Via::OnlineCrossref => "online:crossref",
            Via::OnlineLoc => "online:loc",
        }
    }

    /// An answer of an online catalogue rather than something read in the PDF.
    pub fn is_online(self) -> bool {
        matches!(
            self,
            Via::OnlineOpenLibrary | Via::OnlineDoi | Via::OnlineCrossref | Via::OnlineLoc
        )
    }
}

/// An axis-aligned box in PDF points, origin at the page's top-left corner
/// (y grows downwards), so that "higher on the page" means smaller `top`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct Rect {
    pub x0: f32,
    pub top: f32,
    pub x1: f32,
    pub bottom: f32,
}

impl Rect {
    pub fn width(&self) -> f32 {
        self.x1 - self.x0
    }
    pub fn height(&self) -> f32 {
        self.bottom - self.top
    }
}

/// One visual line of text: characters on one baseline, in reading order,
/// with spaces inserted where the glyphs are apart.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TextLine {
    pub text: String,
    pub bbox: Rect,
    /// Dominant (most frequent by character count) font size in points,
    /// scaled by the text matrix.
    pub size: f32,
    /// Dominant font is bold (by weight or name).
    pub bold: bool,
}

/// The text of one page with positions, as `extract` consumes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PageText {
    /// 0-based page index in the document.
    pub index: u32,
    /// Page size in points.
    pub width: f32,
    pub height: f32,
    /// Lines from top to bottom (then left to right).
    pub lines: Vec<TextLine>,
    /// Share of the page area covered by images (union of image rectangles
    /// clipped to the page), in [0, 1].
    pub image_ratio: f32,
    /// The page's largest raster image (its share of the page and its
    /// resolution as placed), `None` when the page has no image: what
    /// tells a scan from a page of vector drawings, and the resolution a
    /// scan is rendered at for OCR.
    pub image: Option<PageImage>,
    /// `Text` for a text layer, `Ocr` when the lines come from Tesseract.
    pub via: Via,
    /// Mean word confidence 0-100 when `via` is `Ocr`.
    pub ocr_confidence: Option<f32>,
}

/// One raster image as placed on a page.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct PageImage {
    /// Share of the page area its rectangle covers (clipped to the page),
    /// in [0, 1].
    pub share: f32,
    /// Its pixels per inch as placed: the square root of its pixel count
    /// over its area in square inches (a stretched image gets the mean of
    /// its two resolutions).
    pub dpi: f32,
}

impl PageText {
    /// All lines joined with newlines.
    pub fn plain_text(&self) -> String {
        let mut s = String::new();
        for l in &self.lines {
            s.push_str(&l.text);
            s.push('\n');
        }
        s
    }

    /// Count of words with at least two letters: "is there a usable text layer".
    pub fn word_count(&self) -> usize {
        self.lines
            .iter()
            .flat_map(|l| l.text.split_whitespace())
            .filter(|w| w.chars().filter(|c| c.is_alphabetic()).count() >= 2)
            .count()
    }
}

/// The text of a document as `extract` sees it: the pages read, in index
/// order, plus the total page count (to tell front from back matter).
#[derive(Debug, Clone, Copy)]
pub struct DocText<'a> {
    pub pages: &'a [PageText],
    pub page_count: u32,
}

/// The metadata fields of SPEC 7.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Field {
    Title,
    Subtitle,
    Authors,
    Publisher,
    Year,
    Edition,
    Isbn,
    Doi,
    Loc,
}

impl Field {
    pub const ALL: [Field; 9] = [
        Field::Title,
        Field::Subtitle,
        Field::Authors,
        Field::Publisher,
        Field::Year,
        Field::Edition,
        Field::Isbn,
        Field::Doi,
        Field::Loc,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Subtitle => "subtitle",
            Field::Authors => "authors",
            Field::Publisher => "publisher",
            Field::Year => "year",
            Field::Edition => "edition",
            Field::Isbn => "isbn",
            Field::Doi => "doi",
            Field::Loc => "loc",
        }
    }
}

/// A candidate value, already normalised to the SPEC 7 form of its field.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Value {
    /// title, subtitle, publisher, edition, isbn (13 digits), doi, loc
    Text(String),
    /// authors, "First Last"
    Names(Vec<String>),
    /// year
    Number(i32),
}

/// One proposed value for a field, with where it came from and how much we
/// believe it. Finders emit every candidate they see; `decide` picks.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Candidate {
    pub field: Field,
    pub value: Value,
    /// Higher is better. Finders use roughly 0..=1; `decide` may add
    /// agreement bonuses across sources.
    pub score: f32,
    /// 0-based page index, `None` for document-level sources (Info).
    pub page: Option<u32>,
    pub via: Via,
    /// A few words on why (label seen, position, font size), for
    /// `candidates.json`, `-vv` and debugging.
    pub why: String,
}

/// The decided metadata of one document (SPEC 7 `metadata`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Metadata {
    pub title: Option<String>,
    pub subtitle: Option<String>,
    pub authors: Vec<String>,
    pub publisher: Option<String>,
    pub year: Option<i32>,
    pub edition: Option<String>,
    pub isbn: Option<String>,
    pub doi: Option<String>,
    pub loc: Option<String>,
}

impl Metadata {
    /// Title and at least one author: the minimum to name a file.
    pub fn is_complete(&self) -> bool {
        self.title.as_deref().is_some_and(|t| !t.trim().is_empty()) && !self.authors.is_empty()
    }

    /// No field set.
    pub fn is_empty(&self) -> bool {
        Field::ALL.iter().all(|f| !self.has(*f))
    }

    pub fn has(&self, field: Field) -> bool {
        match field {
            Field::Title => self.title.is_some(),
            Field::Subtitle => self.subtitle.is_some(),
            Field::Authors => !self.authors.is_empty(),
            Field::Publisher => self.publisher.is_some(),
            Field::Year => self.year.is_some(),
            Field::Edition => self.edition.is_some(),
            Field::Isbn => self.isbn.is_some(),
            Field::Doi => self.doi.is_some(),
            Field::Loc => self.loc.is_some(),
        }
    }
}

/// Where a decided field came from (SPEC 7 `sources`). `page` follows
/// `PAGE_NUM_OFFSET`; it is absent for `pdf-info`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Source {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub page: Option<u32>,
    pub via: Via,
    /// The ranker's probability that the value is right, 0-1 (absent for
    /// fields without trained weights).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub confidence: Option<f32>,
}

/// Output of `decide`: the metadata and, per field, the winning source
/// (0-based page indices; the record converts them with the offset).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Decision {
    /// The best value of every field, however unsure.
    pub metadata: Metadata,
    pub sources: BTreeMap<Field, (Option<u32>, Via)>,
    /// The ranker's probability that each decided value is right (fields
    /// with trained weights only).
    pub confidence: BTreeMap<Field, f32>,
    /// Every cluster of candidates per field, best first: what
    /// `candidates.json` and `-vv` show.
    pub ranked: Vec<Ranked>,
}

/// One cluster of agreeing candidates for a field, as the ranker saw it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Ranked {
    pub field: Field,
    /// The leader's value (the value reported if this cluster wins).
    pub value: Value,
    /// For a title: the subtitle that would be reported with it.
    pub subtitle: Option<String>,
    pub page: Option<u32>,
    pub via: Via,
    pub why: String,
    /// Candidates in the cluster (the leader included).
    pub members: u32,
    /// The rule score: the leader's finder score plus agreement bonuses.
    pub score: f32,
    /// `None` when the field has no trained weights.
    pub probability: Option<f32>,
    /// In `decide::features::NAMES` order.
    pub features: Vec<f32>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Status {
    Complete,
    Incomplete,
    Error,
}

impl Status {
    /// The record's spelling: "complete", "incomplete", "error".
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Complete => "complete",
            Status::Incomplete => "incomplete",
            Status::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PagesRead {
    pub front: Vec<u32>,
    pub back: Vec<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct VisionPages {
    pub pages: Vec<u32>,
    pub failed: Vec<u32>,
}

/// One record per PDF (SPEC 7), also the `--ann.json` content. Page numbers
/// in it follow `PAGE_NUM_OFFSET`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    pub path: String,
    pub blake3: Option<String>,
    pub pages: Option<u32>,
    pub status: Status,
    pub error: Option<String>,
    pub metadata: Metadata,
    /// Values found but below `MIN_CONFIDENCE`: shown, never proposed or written.
    #[serde(default, skip_serializing_if = "Metadata::is_empty")]
    pub unsure: Metadata,
    pub sources: BTreeMap<String, Source>,
    pub pages_read: PagesRead,
    pub vision: VisionPages,
    pub proposed_filename: Option<String>,
    pub written: bool,
    pub warnings: Vec<String>,
    /// What the online catalogues said (`ONLINE_LOOKUP` only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub online: Option<OnlineReport>,
}

/// The record's `online` object: every lookup made for the document's
/// identifiers, what each catalogue answered, and how that changed the
/// record (see `decide::catalogue` for the rule).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct OnlineReport {
    pub lookups: Vec<LookupReport>,
    /// Fields where a catalogue agreed with the page (confidence raised).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub confirmed: Vec<Field>,
    /// Fields taken from a catalogue alone (the page had no sure value):
    /// their `sources.<field>.via` is `online:<source>`.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub filled: Vec<Field>,
    /// Fields where a catalogue disagreed with the page.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conflicts: Vec<Conflict>,
}

/// One lookup of one identifier at one source.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct LookupReport {
    /// `openlibrary`, `doi`, `crossref` or `loc`.
    pub source: String,
    /// `isbn:…`, `doi:…` or `lccn:…`: all that was sent.
    pub id: String,
    /// `found`, `not-found`, `failed` or `skipped`.
    pub result: String,
    /// Answered from the cache (no request).
    #[serde(default)]
    pub cached: bool,
    /// Why it failed or was skipped.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    /// What the catalogue answered (when found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Metadata>,
}

/// A field on which a catalogue and the page disagree.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Conflict {
    pub field: Field,
    /// The value read in the PDF.
    pub page: String,
    /// The catalogue's value.
    pub catalogue: String,
    /// `online:<source>`.
    pub via: Via,
    /// What was done: `page stands`, `unsure`, `another edition: page
    /// stands`, `another work: catalogue not used`, or `catalogue fills`
    /// (the page value was unsure).
    pub outcome: String,
}

impl Record {
    /// A record for a file that could not be read.
    pub fn error(path: String, blake3: Option<String>, error: String) -> Record {
        Record {
            path,
            blake3,
            pages: None,
            status: Status::Error,
            error: Some(error),
            metadata: Metadata::default(),
            unsure: Metadata::default(),
            sources: BTreeMap::new(),
            pages_read: PagesRead::default(),
            vision: VisionPages::default(),
            proposed_filename: None,
            written: false,
            warnings: Vec::new(),
            online: None,
        }
    }
}

/// What the pipeline concluded about one document under the current
/// settings: the cached value of the `record` stage. Page numbers are
/// 0-based here; [`crate::report`] applies `PAGE_NUM_OFFSET`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct DocResult {
    pub page_count: u32,
    pub decision: Decision,
    pub pages_read: PagesRead,
    /// Pages whose text came from OCR, with the mean word confidence.
    pub ocr_pages: Vec<(u32, f32)>,
    pub vision: VisionPages,
    pub warnings: Vec<String>,
}

/// How a record's warning starts when the write stage failed (`write::apply`) (an I/O error, a
/// written copy that failed its check): the run counts these as failed
/// writes (exit status 1, the table's status, the summary).
pub const WRITE_FAILED: &str = "write failed: ";

/// The start of the warning of a record left unwritten because it was not
/// approved on the review page: the table and the summary count it.
pub const NOT_APPROVED: &str = "not written: not approved in ";

/// Whether a record's warning says it was not approved.
pub fn is_refusal(warning: &str) -> bool {
    warning.starts_with(NOT_APPROVED)
}

/// The reason of a failed write, when `warning` reports one.
pub fn write_failure(warning: &str) -> Option<&str> {
    warning.strip_prefix(WRITE_FAILED)
}
