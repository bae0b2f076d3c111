//! The effective settings of a run (SPEC 3, seed 2.1): one documented
//! struct, built once by [`Settings::resolve`] from defaults, `colophon.toml`,
//! environment variables and command-line flags, then borrowed by every stage.
//!
//! Precedence: flag > environment > file > default.
//!
//! Every key is declared once, in the table of [`schema`]: its type and
//! allowed values, its default, and the cached results it changes
//! ([`Affects`]). Everything else walks that table:
//!
//! - [`resolve`]: each layer (file, environment, flags) is turned into
//!   `toml::Value`s and assigned key by key, so a partial table in a higher
//!   layer (only `MATTER_CONFIG.front.max_pages`, say) merges over the lower
//!   one instead of replacing it. The same walk checks types and ranges, so
//!   every error can name the full key, the value, the layer it came from
//!   and what is allowed, and records where each effective value came from
//!   ([`Provenance`]);
//! - [`describe`]: the effective settings as a `colophon.toml` for
//!   `colophon config`;
//! - [`Settings::default`];
//! - the cache keys (`cache::keys`), from the `affects` column
//!   ([`key_values`]);
//! - the integration tests' clean environment ([`env_names`]).

mod describe;
mod resolve;
mod schema;
pub mod template;
#[cfg(test)]
mod tests;

#[cfg(test)]
pub(crate) use resolve::env_of;
pub use resolve::{process_env, read_config_file};
#[cfg(test)]
pub(crate) use schema::set_other_value;
pub use schema::{Affects, Stage, When, affects, env_names, key_values, setting_keys};

use std::collections::BTreeMap;
use std::fmt;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// Back-matter mode (seed 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackMode {
    Never,
    Always,
    Fallback,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontMatter {
    /// Pages read from the start. Larger than the page count = whole document.
    pub max_pages: u32,
    /// Stop reading front matter once title, authors and year are sure
    /// (after pages 2 or 4, and never before the back of the title page):
    /// fewer pages for the same decision on most documents. Off by default,
    /// so that `max_pages` pages are processed as the seed says.
    pub stop_when_sure: bool,
}

/// Which extra fields make `fallback` mode read back matter when missing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BackFields {
    pub publisher: bool,
    pub year: bool,
    pub edition: bool,
    pub isbn: bool,
    pub doi: bool,
    pub loc: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackMatter {
    pub mode: BackMode,
    /// Last pages read when back matter is read.
    pub max_pages: u32,
    pub fields: BackFields,
}

/// `MATTER_CONFIG`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatterConfig {
    pub front: FrontMatter,
    pub back: BackMatter,
}

impl Default for MatterConfig {
    /// The `MATTER_CONFIG` part of [`Settings::default`].
    fn default() -> Self {
        Settings::default().matter
    }
}

/// `VISION_ANALYSIS_THRESHOLDS` (seed 2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VisionThresholds {
    /// Image share of the page at or above which a page goes to vision.
    pub full_page_image_ratio: f32,
    /// The first N pages always go to vision.
    pub early_pages_cutoff: u32,
    /// OCR confidence (0-100) below which a page goes to vision.
    pub low_ocr_confidence: f32,
}

impl Default for VisionThresholds {
    /// The `VISION_ANALYSIS_THRESHOLDS` part of [`Settings::default`].
    fn default() -> Self {
        Settings::default().vision_thresholds
    }
}

/// `ONLINE_RATE_LIMITS`: requests per second each online source is sent
/// at most (a token bucket per source; see `online::http`). The defaults
/// follow each service's published policy with room to spare.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct OnlineRates {
    pub openlibrary: f64,
    pub doi: f64,
    pub crossref: f64,
    pub loc: f64,
}

impl Default for OnlineRates {
    /// The `ONLINE_RATE_LIMITS` part of [`Settings::default`].
    fn default() -> Self {
        Settings::default().online_rate_limits
    }
}

/// When the review page's thumbnails are drawn (`REVIEW_THUMBNAILS`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ReviewThumbnails {
    /// By `colophon review`, for the run it opens.
    Review,
    /// At the end of every run, and by `colophon review` if any are missing.
    Run,
}

/// Which reader gives a page's text (`PDF_TEXT_READER`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TextReader {
    /// colophon's own reader (`inspect::quick`) where it can read the
    /// page, pdfium where it cannot: the same text, several times faster.
    Quick,
    /// pdfium for every page (to compare with the quick reader).
    Pdfium,
}

impl TextReader {
    /// The value as written in settings and in a worker's environment.
    pub fn as_str(self) -> &'static str {
        match self {
            TextReader::Quick => "quick",
            TextReader::Pdfium => "pdfium",
        }
    }
}

/// Every setting that can change what colophon computes or writes.
/// Field names map to the seed's setting names (upper case in files and
/// environment variables).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// `MATTER_CONFIG`
    pub matter: MatterConfig,
    /// `PAGE_NUM_OFFSET`: 0 or 1, base of page numbers shown to people.
    pub page_num_offset: u32,
    /// `MIN_CONFIDENCE`: a value whose probability (from the trained
    /// ranker) is below this is not proposed, named or written; it appears
    /// in the annotation exports as unsure.
    pub min_confidence: f32,
    /// `WRITE_PDF_CHANGES`: write metadata and names (default: dry run).
    pub write_pdf_changes: bool,
    /// `WRITE_READ_ONLY_FILES`: also write files without write permission
    /// (`chmod 444`). Off by default: a read-only file is a user's "do
    /// not touch", left alone with a warning.
    pub write_read_only_files: bool,
    /// `MAX_FILENAME_LENGTH`: cap in characters for every created name, >= 40.
    pub max_filename_length: usize,
    /// `REVIEW_THUMBNAILS`: when the review page's thumbnails are drawn:
    /// `"review"` (default) when `colophon review` opens the page, `"run"`
    /// at the end of every run as well. Drawing a page means rendering it,
    /// which loads every font program on it: on a library of real PDFs
    /// that was about as much CPU as reading the documents.
    pub review_thumbnails: ReviewThumbnails,
    /// `ANALYZE_WITH_VISION`
    pub analyze_with_vision: bool,
    /// `VLM_MODEL`
    pub vlm_model: String,
    /// `VLM_PORT`
    pub vlm_port: u16,
    /// `VLM_TIMEOUT` seconds per request, > 0.
    pub vlm_timeout: f64,
    /// `VLM_MAX_RETRIES`
    pub vlm_max_retries: u32,
    /// `VLM_RETRY_DELAY` seconds between attempts.
    pub vlm_retry_delay: f64,
    /// `VLM_ENDPOINT`: full chat URL; default `http://localhost:{VLM_PORT}/api/chat`.
    pub vlm_endpoint: String,
    /// `VLM_ENDPOINTS`: several chat URLs the pool shares by load, each
    /// switched off alone when it is down (`vision::hosts`); empty = the
    /// one `VLM_ENDPOINT`.
    pub vlm_endpoints: Vec<String>,
    /// `VLM_CONCURRENCY`: size of the fixed pool of vision callers.
    pub vlm_concurrency: usize,
    /// `VISION_ANALYSIS_THRESHOLDS`
    pub vision_thresholds: VisionThresholds,
    /// `RUNTIME_IGNORE_DIR_NAME`: directories never written to.
    pub runtime_ignore_dir_name: String,
    /// `FILENAME_TEMPLATE`
    pub filename_template: String,
    /// `PDF_TIMEOUT`: seconds a worker may spend on one document before it
    /// is killed and the document fails, > 0.
    pub pdf_timeout: f64,
    /// `WORKER_MEMORY_LIMIT_MB`: address space each PDF worker may map,
    /// in MiB.
    pub worker_memory_limit_mb: u64,
    /// `OCR_LANGUAGES`: Tesseract language codes joined with `+`.
    pub ocr_languages: String,
    /// `OCR_LIBTESSERACT`: how scans are read: `auto` (libtesseract,
    /// loaded once in an OCR server process, where `libtesseract.so.5` is
    /// installed, else the `tesseract` program), `off` (always the
    /// program), or the path of the library to load. The same text either
    /// way: enters no cache key.
    pub ocr_libtesseract: String,
    /// `PDF_TEXT_READER`: `quick` (colophon's reader, pdfium where it
    /// cannot read a page) or `pdfium` (every page). Changes the inspect
    /// stage's version in the document, page and record keys.
    pub pdf_text_reader: TextReader,
    /// `WORKER_EXECUTABLE`: the colophon executable that worker processes
    /// (pdfium, OCR servers) run; empty: this executable. Enters no key.
    pub worker_executable: String,
    /// `PDFIUM_LIBRARY`: `libpdfium.so`, or the folder holding it, tried
    /// before the places colophon looks by itself; empty: only those.
    /// Enters no key (the text is pdfium's whichever build reads it).
    pub pdfium_library: String,
    /// `BROWSER`: the program `colophon review` opens its page with;
    /// empty: `xdg-open`.
    pub browser: String,
    /// `OCR_DPI`: render resolution for OCR.
    pub ocr_dpi: u32,
    /// `ONLINE_LOOKUP`: look the ISBN, DOI and LCCN found up in online
    /// catalogues (`--online`). Off: no network connection at all.
    pub online_lookup: bool,
    /// `ONLINE_CONTACT`: an e-mail address sent in the User-Agent (and as
    /// Crossref's `mailto`), so that a service can reach the user rather
    /// than block them; empty = none.
    pub online_contact: String,
    /// `ONLINE_TIMEOUT`: seconds per request, > 0.
    pub online_timeout: f64,
    /// `ONLINE_NEGATIVE_TTL_DAYS`: days a "not in the catalogue" answer is
    /// kept before it is asked again (0 = never kept).
    pub online_negative_ttl_days: u32,
    /// `ONLINE_OPENLIBRARY_URL`: base URL of Open Library (or a mirror).
    pub online_openlibrary_url: String,
    /// `ONLINE_DOI_URL`: base URL of the DOI resolver.
    pub online_doi_url: String,
    /// `ONLINE_CROSSREF_URL`: base URL of Crossref's REST API.
    pub online_crossref_url: String,
    /// `ONLINE_LOC_URL`: base URL of the loc.gov JSON API.
    pub online_loc_url: String,
    /// `ONLINE_RATE_LIMITS`
    pub online_rate_limits: OnlineRates,
    /// `SHARDS`: the number of shards of a sharded run (`--shards`); the
    /// count of a Kubernetes Indexed Job, whose pods know only their index
    /// (see `shard::resolve`). 1 = not sharded.
    pub shards: u32,
}

impl Default for Settings {
    /// Every setting at the default written in its row of the schema
    /// (`schema::LEAVES`).
    fn default() -> Self {
        let mut s = Settings::blank();
        for leaf in schema::LEAVES {
            (leaf.set)(&mut s, &leaf.default.typed());
        }
        s
    }
}

impl Settings {
    /// Zeros, overwritten key by key by [`Settings::default`]; a field no
    /// row sets would keep its zero, which the test
    /// `every_field_has_one_row` catches.
    fn blank() -> Settings {
        Settings {
            matter: MatterConfig {
                front: FrontMatter {
                    max_pages: 0,
                    stop_when_sure: false,
                },
                back: BackMatter {
                    mode: BackMode::Never,
                    max_pages: 0,
                    fields: BackFields::default(),
                },
            },
            page_num_offset: 0,
            min_confidence: 0.0,
            write_pdf_changes: false,
            write_read_only_files: false,
            review_thumbnails: ReviewThumbnails::Review,
            max_filename_length: 0,
            analyze_with_vision: false,
            vlm_model: String::new(),
            vlm_port: 0,
            vlm_timeout: 0.0,
            vlm_max_retries: 0,
            vlm_retry_delay: 0.0,
            vlm_endpoint: String::new(),
            vlm_endpoints: Vec::new(),
            vlm_concurrency: 0,
            vision_thresholds: VisionThresholds {
                full_page_image_ratio: 0.0,
                early_pages_cutoff: 0,
                low_ocr_confidence: 0.0,
            },
            runtime_ignore_dir_name: String::new(),
            filename_template: String::new(),
            pdf_timeout: 0.0,
            worker_memory_limit_mb: 0,
            ocr_languages: String::new(),
            ocr_libtesseract: String::new(),
            pdf_text_reader: TextReader::Quick,
            worker_executable: String::new(),
            pdfium_library: String::new(),
            browser: String::new(),
            ocr_dpi: 0,
            online_lookup: false,
            online_contact: String::new(),
            online_timeout: 0.0,
            online_negative_ttl_days: 0,
            online_openlibrary_url: String::new(),
            online_doi_url: String::new(),
            online_crossref_url: String::new(),
            online_loc_url: String::new(),
            online_rate_limits: OnlineRates {
                openlibrary: 0.0,
                doi: 0.0,
                crossref: 0.0,
                loc: 0.0,
            },
            shards: 0,
        }
    }

    /// The vision hosts of a run: `VLM_ENDPOINTS` when it lists any, else
    /// the one `VLM_ENDPOINT`.
    pub fn vlm_hosts(&self) -> Vec<String> {
        if self.vlm_endpoints.is_empty() {
            vec![self.vlm_endpoint.clone()]
        } else {
            self.vlm_endpoints.clone()
        }
    }
}

/// Name of the configuration file at the project root (SPEC 2).
pub const CONFIG_FILE: &str = "colophon.toml";

/// Where an effective setting came from. Later layers win:
/// `Flag` > `Env` > `File` > `Default`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Source {
    /// The default written in [`Settings::default`].
    Default,
    /// `colophon.toml` at the project root.
    File,
    /// An environment variable named like the top-level key.
    Env,
    /// A command-line flag, e.g. `--front-pages`.
    Flag(&'static str),
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Source::Default => f.write_str("default"),
            Source::File => f.write_str(CONFIG_FILE),
            Source::Env => f.write_str("environment"),
            Source::Flag(name) => write!(f, "flag {name}"),
        }
    }
}

/// The command-line flags that override settings (SPEC 10). Kept free of
/// clap so that [`Settings::resolve`] stays a pure function of literal inputs;
/// `cli::Cli::overrides` builds it. `false`/`None` means "not given".
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Overrides {
    /// `--write`: `WRITE_PDF_CHANGES = true`.
    pub write: bool,
    /// `--vision`: `ANALYZE_WITH_VISION = true`.
    pub vision: bool,
    /// `--front-pages N`: `MATTER_CONFIG.front.max_pages`.
    pub front_pages: Option<u32>,
    /// `--back-mode MODE`: `MATTER_CONFIG.back.mode`, checked like the file value.
    pub back_mode: Option<String>,
    /// `--back-pages N`: `MATTER_CONFIG.back.max_pages`.
    pub back_pages: Option<u32>,
    /// `--online`: `ONLINE_LOOKUP = true`.
    pub online: bool,
    /// `--shards N`: `SHARDS`.
    pub shards: Option<u32>,
}

/// Where each setting's effective value came from, by full key
/// (`PAGE_NUM_OFFSET`, `MATTER_CONFIG.back.mode`, ...).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Provenance {
    sources: BTreeMap<&'static str, Source>,
}

impl Provenance {
    /// The layer that set `key`; [`Source::Default`] for keys nobody set
    /// (and for unknown keys).
    pub fn source(&self, key: &str) -> Source {
        self.sources.get(key).copied().unwrap_or(Source::Default)
    }

    /// The keys set by a file, environment variable or flag, in key order.
    pub fn overridden(&self) -> impl Iterator<Item = (&'static str, Source)> + '_ {
        self.sources.iter().map(|(k, s)| (*k, *s))
    }
}

/// A setting that cannot be used. Every variant is a usage error (exit 2):
/// nothing is processed.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    /// A known key with a wrong type or an out-of-range value.
    #[error("invalid setting {key} = {value} (from {origin}): {allowed}")]
    Invalid {
        /// Full key, e.g. `MATTER_CONFIG.back.mode`.
        key: String,
        /// The value as given (TOML form for file values, raw text for
        /// environment variables and flags).
        value: String,
        origin: Source,
        /// What is allowed, e.g. `allowed values are 0 or 1`.
        allowed: String,
    },
    /// A key that is not a setting, at the top level or inside a table.
    #[error("unknown setting {key} (from {origin}): {allowed}")]
    Unknown {
        key: String,
        origin: Source,
        /// The keys allowed at that place (and a close match, if any).
        allowed: String,
    },
    /// `colophon.toml` or a table-valued environment variable is not valid
    /// TOML / JSON.
    #[error("cannot parse {what}: {message}")]
    Parse { what: String, message: String },
    /// `colophon.toml` exists but cannot be read.
    #[error("cannot read {}", path.display())]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}
