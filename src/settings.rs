//! The effective settings of a run (SPEC 3, seed 2.1): one documented
//! struct, built once by [`Settings::resolve`] from defaults, `colophon.toml`,
//! environment variables and command-line flags, then borrowed by every stage.
//!
//! Precedence: flag > environment > file > default.
//!
//! Resolution is a walk over one table of every setting key (`LEAVES`):
//! each layer (file, environment, flags) is turned into `toml::Value`s and
//! assigned key by key, so a partial table in a higher layer (only
//! `MATTER_CONFIG.front.max_pages`, say) merges over the lower one instead of
//! replacing it. The same walk checks types and ranges, so every error can name
//! the full key, the value, the layer it came from and what is allowed, and
//! records where each effective value came from ([`Provenance`]) for
//! `colophon config`.

use std::collections::BTreeMap;
use std::fmt::{self, Write as _};
use std::path::{Path, PathBuf};

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
    fn default() -> Self {
        MatterConfig {
            front: FrontMatter { max_pages: 8 },
            back: BackMatter {
                mode: BackMode::Never,
                max_pages: 5,
                fields: BackFields::default(),
            },
        }
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
    fn default() -> Self {
        VisionThresholds {
            full_page_image_ratio: 0.90,
            early_pages_cutoff: 1,
            low_ocr_confidence: 30.0,
        }
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
    fn default() -> Self {
        OnlineRates {
            openlibrary: 1.0,
            doi: 5.0,
            crossref: 5.0,
            loc: 0.5,
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
    /// `MAX_FILENAME_LENGTH`: cap in characters for every created name, >= 40.
    pub max_filename_length: usize,
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
    /// `OCR_LANGUAGES`: Tesseract language codes joined with `+`.
    pub ocr_languages: String,
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
    fn default() -> Self {
        Settings {
            matter: MatterConfig::default(),
            page_num_offset: 1,
            min_confidence: crate::decide::ranker::DEFAULT_MIN_CONFIDENCE,
            write_pdf_changes: false,
            max_filename_length: 250,
            analyze_with_vision: false,
            vlm_model: "qwen2.5vl:7b".to_string(),
            vlm_port: 11434,
            vlm_timeout: 60.0,
            vlm_max_retries: 3,
            vlm_retry_delay: 1.0,
            vlm_endpoint: "http://localhost:11434/api/chat".to_string(),
            vlm_endpoints: Vec::new(),
            vlm_concurrency: 2,
            vision_thresholds: VisionThresholds::default(),
            runtime_ignore_dir_name: "_ignore".to_string(),
            filename_template: "{authors} - {title} ({year})".to_string(),
            pdf_timeout: 120.0,
            ocr_languages: "eng".to_string(),
            ocr_dpi: 300,
            online_lookup: false,
            online_contact: String::new(),
            online_timeout: 10.0,
            online_negative_ttl_days: 30,
            online_openlibrary_url: "https://openlibrary.org".to_string(),
            online_doi_url: "https://doi.org".to_string(),
            online_crossref_url: "https://api.crossref.org".to_string(),
            online_loc_url: "https://www.loc.gov".to_string(),
            online_rate_limits: OnlineRates::default(),
            shards: 1,
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

/// What a setting accepts. Checking a value yields a [`Typed`] of the
/// matching variant or the "what is allowed" text of the error.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Bool,
    /// Inclusive range; `max == U32` means "no practical upper bound".
    Int {
        min: i64,
        max: i64,
    },
    /// Inclusive range of finite numbers; integers are accepted too.
    Float {
        min: f64,
        max: f64,
    },
    /// A duration in seconds: a finite number in 0..=MAX_SECONDS.
    Seconds,
    /// A time limit in seconds: a finite number in (0, MAX_SECONDS]. Zero
    /// is refused rather than given a meaning: as "no limit" one hostile
    /// PDF or a silent backend would stall the run forever, and as a
    /// literal limit every document would fail.
    Limit,
    Choice(&'static [&'static str]),
    /// An http(s) URL.
    Url,
    /// A list of distinct http(s) URLs: a TOML array of strings, or one
    /// string of them separated by commas or spaces (an environment
    /// variable's form).
    UrlList,
    /// A non-empty string.
    Text,
    /// A single directory name (no separators).
    DirName,
    /// A `FILENAME_TEMPLATE` with known placeholders.
    Template,
    /// Tesseract language codes joined with `+`.
    OcrLanguages,
    /// An e-mail address, or empty for none.
    Email,
}

const U32: i64 = u32::MAX as i64;
/// Upper bound for durations: `Duration::from_secs_f64` panics far above it,
/// and nobody waits 31 years for a PDF.
const MAX_SECONDS: f64 = 1e9;

/// A checked value, of the variant its [`Kind`] promises.
#[derive(Debug, Clone)]
enum Typed {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    List(Vec<String>),
}

impl Typed {
    // The accessors are only called by setters whose leaf kind guarantees the
    // variant; the table test in this module exercises every setter.
    fn bool(&self) -> bool {
        match self {
            Typed::Bool(b) => *b,
            other => unreachable!("kind-checked bool, got {other:?}"),
        }
    }
    fn int(&self) -> i64 {
        match self {
            Typed::Int(i) => *i,
            other => unreachable!("kind-checked integer, got {other:?}"),
        }
    }
    fn float(&self) -> f64 {
        match self {
            Typed::Float(f) => *f,
            other => unreachable!("kind-checked number, got {other:?}"),
        }
    }
    fn string(&self) -> String {
        match self {
            Typed::Str(s) => s.clone(),
            other => unreachable!("kind-checked string, got {other:?}"),
        }
    }
    fn list(&self) -> Vec<String> {
        match self {
            Typed::List(l) => l.clone(),
            other => unreachable!("kind-checked list, got {other:?}"),
        }
    }
}

impl Kind {
    /// Checks a value from any layer; `Err` is the "what is allowed" text.
    fn check(self, value: &toml::Value) -> Result<Typed, String> {
        use toml::Value as V;
        match (self, value) {
            (Kind::Bool, V::Boolean(b)) => Ok(Typed::Bool(*b)),
            (Kind::Bool, _) => Err("must be true or false".into()),
            (Kind::Int { min, max }, V::Integer(i)) if (min..=max).contains(i) => {
                Ok(Typed::Int(*i))
            }
            (Kind::Int { min, max }, value) => Err(int_allowed(min, max, value)),
            (Kind::Float { min, max }, value) => match number(value) {
                Some(f) if f.is_finite() && (min..=max).contains(&f) => Ok(Typed::Float(f)),
                _ => Err(format!("must be a number from {min} to {max}")),
            },
            (Kind::Seconds, value) => match number(value) {
                Some(f) if f.is_finite() && (0.0..=MAX_SECONDS).contains(&f) => Ok(Typed::Float(f)),
                Some(f) if f > MAX_SECONDS => Err(format!(
                    "must be a number of seconds from 0 to {MAX_SECONDS}"
                )),
                _ => Err("must be a number of seconds >= 0".into()),
            },
            (Kind::Limit, value) => match number(value) {
                Some(f) if f.is_finite() && f > 0.0 && f <= MAX_SECONDS => Ok(Typed::Float(f)),
                _ => Err(format!(
                    "must be a number of seconds > 0 and at most {MAX_SECONDS} (0 is not \"no \
                     limit\": raise the limit instead)"
                )),
            },
            (Kind::Choice(options), V::String(s)) if options.contains(&s.as_str()) => {
                Ok(Typed::Str(s.clone()))
            }
            (Kind::Choice(options), _) => Err(choice_allowed(options)),
            (Kind::Url, V::String(s)) if is_http_url(s) => Ok(Typed::Str(s.clone())),
            (Kind::Url, _) => Err(
                "must be an http:// or https:// URL such as http://localhost:11434/api/chat".into(),
            ),
            (Kind::UrlList, value) => url_list(value).map(Typed::List),
            (Kind::Text, V::String(s)) if !s.trim().is_empty() => Ok(Typed::Str(s.clone())),
            (Kind::Text, _) => Err("must be a non-empty string".into()),
            (Kind::DirName, V::String(s)) if is_dir_name(s) => Ok(Typed::Str(s.clone())),
            (Kind::DirName, _) => {
                Err("must be a single directory name (not empty, no / or \\)".into())
            }
            (Kind::Template, V::String(s)) => check_template(s).map(|()| Typed::Str(s.clone())),
            (Kind::Template, _) => Err(format!(
                "must be a string such as \"{{authors}} - {{title}} ({{year}})\"; {}",
                placeholders_allowed()
            )),
            (Kind::OcrLanguages, V::String(s)) if is_ocr_languages(s) => Ok(Typed::Str(s.clone())),
            (Kind::OcrLanguages, _) => {
                Err("must be Tesseract language codes joined with +, such as eng or eng+deu".into())
            }
            (Kind::Email, V::String(s)) if s.is_empty() || is_email(s) => Ok(Typed::Str(s.clone())),
            (Kind::Email, _) => {
                Err("must be an e-mail address such as you@example.org (or \"\" for none)".into())
            }
        }
    }

    /// Reads an environment variable's text as a value of this kind
    /// (environment variables carry scalars as text). `Err` as in `check`.
    fn parse_text(self, text: &str) -> Result<toml::Value, String> {
        use toml::Value as V;
        let t = text.trim();
        match self {
            Kind::Bool => match t.to_ascii_lowercase().as_str() {
                "true" | "yes" | "on" | "1" => Ok(V::Boolean(true)),
                "false" | "no" | "off" | "0" => Ok(V::Boolean(false)),
                _ => Err("must be true or false".into()),
            },
            Kind::Int { min, max } => t
                .parse::<i64>()
                .map(V::Integer)
                .map_err(|_| int_allowed(min, max, &V::String(text.into()))),
            // A string never passes a number kind, so `check` yields the
            // "what is allowed" text for unparsable input.
            Kind::Float { .. } | Kind::Seconds | Kind::Limit => {
                t.parse::<f64>().map(V::Float).map_err(|_| {
                    self.check(&V::String(text.into()))
                        .err()
                        .unwrap_or_default()
                })
            }
            // A JSON array of URLs, as well as the plain list `check` splits.
            Kind::UrlList if t.starts_with('[') => serde_json::from_str::<Vec<String>>(t)
                .map(|urls| V::Array(urls.into_iter().map(V::String).collect()))
                .map_err(|_| url_list(&V::Boolean(false)).unwrap_err()),
            _ => Ok(V::String(text.to_string())),
        }
    }
}

fn number(value: &toml::Value) -> Option<f64> {
    match value {
        toml::Value::Float(f) => Some(*f),
        toml::Value::Integer(i) => Some(*i as f64),
        _ => None,
    }
}

fn int_allowed(min: i64, max: i64, value: &toml::Value) -> String {
    let too_big = matches!(value, toml::Value::Integer(i) if *i > max);
    if max == min + 1 {
        format!("allowed values are {min} or {max}")
    } else if max == U32 && !too_big {
        format!("must be an integer >= {min}")
    } else {
        format!("must be an integer from {min} to {max}")
    }
}

fn choice_allowed(options: &[&str]) -> String {
    match options {
        [] => "no value is allowed".into(),
        [only] => format!("the only allowed value is {only}"),
        [init @ .., last] => format!("allowed values are {} or {last}", init.join(", ")),
    }
}

fn placeholders_allowed() -> String {
    let list: Vec<String> = crate::name::PLACEHOLDERS
        .iter()
        .map(|p| format!("{{{p}}}"))
        .collect();
    format!("allowed placeholders are {}", list.join(", "))
}

/// Checks that every `{...}` in a filename template is a known placeholder
/// and that braces are balanced; the name stage can then fill it blindly.
fn check_template(template: &str) -> Result<(), String> {
    if template.trim().is_empty() {
        return Err(format!(
            "must not be empty; {} (for example \"{{authors}} - {{title}} ({{year}})\")",
            placeholders_allowed()
        ));
    }
    let mut rest = template;
    while let Some(i) = rest.find(['{', '}']) {
        if rest[i..].starts_with('}') {
            return Err(format!("has a }} without {{; {}", placeholders_allowed()));
        }
        let after = &rest[i + 1..];
        let Some(end) = after
            .find(['{', '}'])
            .filter(|&e| after[e..].starts_with('}'))
        else {
            return Err(format!("has an unclosed {{; {}", placeholders_allowed()));
        };
        let name = &after[..end];
        if !crate::name::PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{name}}}; {}",
                placeholders_allowed()
            ));
        }
        rest = &after[end + 1..];
    }
    if !crate::name::template_can_name(template) {
        return Err(format!(
            "can never give a file name: nothing is left once the dots, spaces and \
             separators a name cannot start or end with are removed; {} (for example \
             \"{{authors}} - {{title}} ({{year}})\")",
            placeholders_allowed()
        ));
    }
    Ok(())
}

/// `local@domain.tld`, nothing a header could be broken with.
fn is_email(s: &str) -> bool {
    let Some((local, domain)) = s.split_once('@') else {
        return false;
    };
    !local.is_empty()
        && domain.contains('.')
        && !domain.starts_with('.')
        && !domain.ends_with('.')
        && !domain.contains('@')
        && s.chars().all(|c| {
            c.is_ascii_graphic() && !matches!(c, '(' | ')' | '<' | '>' | ',' | ';' | '"' | '\\')
        })
}

/// The URLs of a `VLM_ENDPOINTS` value; `Err` says what is allowed.
fn url_list(value: &toml::Value) -> Result<Vec<String>, String> {
    let allowed = || {
        "must be a list of distinct http:// or https:// URLs, such as \
         [\"http://gpu1:11434/api/chat\", \"http://gpu2:11434/api/chat\"] (in the \
         environment: separated by commas)"
            .to_string()
    };
    let urls: Vec<String> = match value {
        toml::Value::Array(items) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(allowed))
            .collect::<Result<_, _>>()?,
        toml::Value::String(s) => s
            .split([',', ' ', '\n', '\t'])
            .filter(|u| !u.is_empty())
            .map(str::to_string)
            .collect(),
        _ => return Err(allowed()),
    };
    let distinct = urls.iter().enumerate().all(|(i, u)| !urls[..i].contains(u));
    if urls.len() > MAX_VLM_HOSTS || !distinct || !urls.iter().all(|u| is_http_url(u)) {
        return Err(allowed() + &format!(", at most {MAX_VLM_HOSTS}"));
    }
    Ok(urls)
}

/// The most vision hosts `VLM_ENDPOINTS` may list.
const MAX_VLM_HOSTS: usize = 64;

fn is_dir_name(s: &str) -> bool {
    !s.is_empty() && s != "." && s != ".." && !s.contains(['/', '\\', '\0'])
}

fn is_ocr_languages(s: &str) -> bool {
    s.split('+').all(|code| {
        !code.is_empty()
            && code
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '/'))
    })
}

/// A small syntactic check of an http(s) URL: scheme, a host (name, IPv4 or
/// bracketed IPv6), an optional numeric port, no whitespace. Enough to catch
/// typos before the first request; reachability is `vlm-check`'s job.
fn is_http_url(s: &str) -> bool {
    let rest = if s
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("http://"))
    {
        &s[7..]
    } else if s
        .get(..8)
        .is_some_and(|p| p.eq_ignore_ascii_case("https://"))
    {
        &s[8..]
    } else {
        return false;
    };
    if s.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return false;
    }
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let host_port = authority.rsplit_once('@').map_or(authority, |(_, h)| h);
    let (host_ok, port) = if let Some(inner) = host_port.strip_prefix('[') {
        let Some((host, after)) = inner.split_once(']') else {
            return false;
        };
        let port = match after {
            "" => None,
            p => match p.strip_prefix(':') {
                Some(p) => Some(p),
                None => return false,
            },
        };
        let ok = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_hexdigit() || c == ':' || c == '.');
        (ok, port)
    } else {
        let (host, port) = match host_port.split_once(':') {
            Some((h, p)) => (h, Some(p)),
            None => (host_port, None),
        };
        let ok = !host.is_empty()
            && host
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_'));
        (ok, port)
    };
    host_ok && port.is_none_or(|p| p.parse::<u16>().is_ok_and(|p| p > 0))
}

/// One setting: its full key, what it accepts, and how to write/read it on
/// [`Settings`]. The order is the order of `colophon config` output (top-level
/// scalars first, as TOML requires, then the tables).
struct Leaf {
    key: &'static str,
    kind: Kind,
    set: fn(&mut Settings, &Typed),
    get: fn(&Settings) -> toml::Value,
}

const BACK_MODES: &[&str] = &["never", "always", "fallback"];

/// Every setting key. Adding a setting = adding a field with its default and
/// one line here.
const LEAVES: &[Leaf] = &[
    Leaf {
        key: "PAGE_NUM_OFFSET",
        kind: Kind::Int { min: 0, max: 1 },
        set: |s, v| s.page_num_offset = v.int() as u32,
        get: |s| int(s.page_num_offset),
    },
    Leaf {
        key: "MIN_CONFIDENCE",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        set: |s, v| s.min_confidence = v.float() as f32,
        get: |s| float32(s.min_confidence),
    },
    Leaf {
        key: "WRITE_PDF_CHANGES",
        kind: Kind::Bool,
        set: |s, v| s.write_pdf_changes = v.bool(),
        get: |s| toml::Value::Boolean(s.write_pdf_changes),
    },
    Leaf {
        key: "MAX_FILENAME_LENGTH",
        kind: Kind::Int { min: 40, max: U32 },
        set: |s, v| s.max_filename_length = v.int() as usize,
        get: |s| int(s.max_filename_length),
    },
    Leaf {
        key: "ANALYZE_WITH_VISION",
        kind: Kind::Bool,
        set: |s, v| s.analyze_with_vision = v.bool(),
        get: |s| toml::Value::Boolean(s.analyze_with_vision),
    },
    Leaf {
        key: "VLM_MODEL",
        kind: Kind::Text,
        set: |s, v| s.vlm_model = v.string(),
        get: |s| toml::Value::String(s.vlm_model.clone()),
    },
    Leaf {
        key: "VLM_PORT",
        kind: Kind::Int { min: 1, max: 65535 },
        set: |s, v| s.vlm_port = v.int() as u16,
        get: |s| int(s.vlm_port),
    },
    Leaf {
        key: "VLM_TIMEOUT",
        kind: Kind::Limit,
        set: |s, v| s.vlm_timeout = v.float(),
        get: |s| toml::Value::Float(s.vlm_timeout),
    },
    Leaf {
        key: "VLM_MAX_RETRIES",
        kind: Kind::Int { min: 0, max: U32 },
        set: |s, v| s.vlm_max_retries = v.int() as u32,
        get: |s| int(s.vlm_max_retries),
    },
    Leaf {
        key: "VLM_RETRY_DELAY",
        kind: Kind::Seconds,
        set: |s, v| s.vlm_retry_delay = v.float(),
        get: |s| toml::Value::Float(s.vlm_retry_delay),
    },
    Leaf {
        key: "VLM_ENDPOINT",
        kind: Kind::Url,
        set: |s, v| s.vlm_endpoint = v.string(),
        get: |s| toml::Value::String(s.vlm_endpoint.clone()),
    },
    Leaf {
        key: "VLM_ENDPOINTS",
        kind: Kind::UrlList,
        set: |s, v| s.vlm_endpoints = v.list(),
        get: |s| {
            toml::Value::Array(
                s.vlm_endpoints
                    .iter()
                    .cloned()
                    .map(toml::Value::String)
                    .collect(),
            )
        },
    },
    Leaf {
        key: "VLM_CONCURRENCY",
        // Each caller is a thread holding a page image; a few hundred is far
        // beyond what one backend serves in parallel.
        kind: Kind::Int { min: 1, max: 256 },
        set: |s, v| s.vlm_concurrency = v.int() as usize,
        get: |s| int(s.vlm_concurrency),
    },
    Leaf {
        key: "RUNTIME_IGNORE_DIR_NAME",
        kind: Kind::DirName,
        set: |s, v| s.runtime_ignore_dir_name = v.string(),
        get: |s| toml::Value::String(s.runtime_ignore_dir_name.clone()),
    },
    Leaf {
        key: "FILENAME_TEMPLATE",
        kind: Kind::Template,
        set: |s, v| s.filename_template = v.string(),
        get: |s| toml::Value::String(s.filename_template.clone()),
    },
    Leaf {
        key: "PDF_TIMEOUT",
        kind: Kind::Limit,
        set: |s, v| s.pdf_timeout = v.float(),
        get: |s| toml::Value::Float(s.pdf_timeout),
    },
    Leaf {
        key: "OCR_LANGUAGES",
        kind: Kind::OcrLanguages,
        set: |s, v| s.ocr_languages = v.string(),
        get: |s| toml::Value::String(s.ocr_languages.clone()),
    },
    Leaf {
        key: "OCR_DPI",
        kind: Kind::Int { min: 50, max: 1200 },
        set: |s, v| s.ocr_dpi = v.int() as u32,
        get: |s| int(s.ocr_dpi),
    },
    Leaf {
        key: "ONLINE_LOOKUP",
        kind: Kind::Bool,
        set: |s, v| s.online_lookup = v.bool(),
        get: |s| toml::Value::Boolean(s.online_lookup),
    },
    Leaf {
        key: "ONLINE_CONTACT",
        kind: Kind::Email,
        set: |s, v| s.online_contact = v.string(),
        get: |s| toml::Value::String(s.online_contact.clone()),
    },
    Leaf {
        key: "ONLINE_TIMEOUT",
        kind: Kind::Limit,
        set: |s, v| s.online_timeout = v.float(),
        get: |s| toml::Value::Float(s.online_timeout),
    },
    Leaf {
        key: "ONLINE_NEGATIVE_TTL_DAYS",
        kind: Kind::Int { min: 0, max: 36500 },
        set: |s, v| s.online_negative_ttl_days = v.int() as u32,
        get: |s| int(s.online_negative_ttl_days),
    },
    Leaf {
        key: "ONLINE_OPENLIBRARY_URL",
        kind: Kind::Url,
        set: |s, v| s.online_openlibrary_url = v.string(),
        get: |s| toml::Value::String(s.online_openlibrary_url.clone()),
    },
    Leaf {
        key: "ONLINE_DOI_URL",
        kind: Kind::Url,
        set: |s, v| s.online_doi_url = v.string(),
        get: |s| toml::Value::String(s.online_doi_url.clone()),
    },
    Leaf {
        key: "ONLINE_CROSSREF_URL",
        kind: Kind::Url,
        set: |s, v| s.online_crossref_url = v.string(),
        get: |s| toml::Value::String(s.online_crossref_url.clone()),
    },
    Leaf {
        key: "ONLINE_LOC_URL",
        kind: Kind::Url,
        set: |s, v| s.online_loc_url = v.string(),
        get: |s| toml::Value::String(s.online_loc_url.clone()),
    },
    Leaf {
        key: "SHARDS",
        kind: Kind::Int {
            min: 1,
            max: MAX_SHARDS,
        },
        set: |s, v| s.shards = v.int() as u32,
        get: |s| int(s.shards),
    },
    Leaf {
        key: "MATTER_CONFIG.front.max_pages",
        kind: Kind::Int { min: 1, max: U32 },
        set: |s, v| s.matter.front.max_pages = v.int() as u32,
        get: |s| int(s.matter.front.max_pages),
    },
    Leaf {
        key: "MATTER_CONFIG.back.mode",
        kind: Kind::Choice(BACK_MODES),
        set: |s, v| {
            s.matter.back.mode = match v.string().as_str() {
                "always" => BackMode::Always,
                "fallback" => BackMode::Fallback,
                _ => BackMode::Never,
            }
        },
        get: |s| {
            let mode = match s.matter.back.mode {
                BackMode::Never => "never",
                BackMode::Always => "always",
                BackMode::Fallback => "fallback",
            };
            toml::Value::String(mode.into())
        },
    },
    Leaf {
        key: "MATTER_CONFIG.back.max_pages",
        kind: Kind::Int { min: 0, max: U32 },
        set: |s, v| s.matter.back.max_pages = v.int() as u32,
        get: |s| int(s.matter.back.max_pages),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.publisher",
        kind: Kind::Bool,
        set: |s, v| s.matter.back.fields.publisher = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.publisher),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.year",
        kind: Kind::Bool,
        set: |s, v| s.matter.back.fields.year = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.year),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.edition",
        kind: Kind::Bool,
        set: |s, v| s.matter.back.fields.edition = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.edition),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.isbn",
        kind: Kind::Bool,
        set: |s, v| s.matter.back.fields.isbn = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.isbn),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.doi",
        kind: Kind::Bool,
        set: |s, v| s.matter.back.fields.doi = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.doi),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.loc",
        kind: Kind::Bool,
        set: |s, v| s.matter.back.fields.loc = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.loc),
    },
    Leaf {
        key: "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        set: |s, v| s.vision_thresholds.full_page_image_ratio = v.float() as f32,
        get: |s| float32(s.vision_thresholds.full_page_image_ratio),
    },
    Leaf {
        key: "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff",
        kind: Kind::Int { min: 0, max: U32 },
        set: |s, v| s.vision_thresholds.early_pages_cutoff = v.int() as u32,
        get: |s| int(s.vision_thresholds.early_pages_cutoff),
    },
    Leaf {
        key: "VISION_ANALYSIS_THRESHOLDS.low_ocr_confidence",
        kind: Kind::Float {
            min: 0.0,
            max: 100.0,
        },
        set: |s, v| s.vision_thresholds.low_ocr_confidence = v.float() as f32,
        get: |s| float32(s.vision_thresholds.low_ocr_confidence),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.openlibrary",
        kind: RATE,
        set: |s, v| s.online_rate_limits.openlibrary = v.float(),
        get: |s| toml::Value::Float(s.online_rate_limits.openlibrary),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.doi",
        kind: RATE,
        set: |s, v| s.online_rate_limits.doi = v.float(),
        get: |s| toml::Value::Float(s.online_rate_limits.doi),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.crossref",
        kind: RATE,
        set: |s, v| s.online_rate_limits.crossref = v.float(),
        get: |s| toml::Value::Float(s.online_rate_limits.crossref),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.loc",
        kind: RATE,
        set: |s, v| s.online_rate_limits.loc = v.float(),
        get: |s| toml::Value::Float(s.online_rate_limits.loc),
    },
];

/// The most shards a run group may have (a Slurm array's default
/// `MaxArraySize` is 1001; Kubernetes allows 100,000 completions).
const MAX_SHARDS: i64 = 100_000;

/// Requests per second: above zero (a source that may never be asked is
/// one to leave out of the run instead), at most a thousand.
const RATE: Kind = Kind::Float {
    min: 0.001,
    max: 1000.0,
};

/// Keys accepted and ignored: the seed shows `author`/`title` inside
/// `back.fields`, but title and authors are always wanted (SPEC 3).
const IGNORED: &[&str] = &[
    "MATTER_CONFIG.back.fields.author",
    "MATTER_CONFIG.back.fields.title",
];

fn int(n: impl TryInto<i64>) -> toml::Value {
    toml::Value::Integer(n.try_into().unwrap_or(i64::MAX))
}

/// An `f32` as the TOML float a person wrote (0.9, not 0.8999999761581421).
fn float32(x: f32) -> toml::Value {
    toml::Value::Float(x.to_string().parse().unwrap_or(f64::from(x)))
}

fn leaf(key: &str) -> Option<&'static Leaf> {
    LEAVES.iter().find(|l| l.key == key)
}

/// Whether `key` names a table of settings (`MATTER_CONFIG`,
/// `MATTER_CONFIG.back`, ...).
fn is_table(key: &str) -> bool {
    LEAVES
        .iter()
        .any(|l| l.key.strip_prefix(key).is_some_and(|r| r.starts_with('.')))
}

/// The keys directly inside `prefix` ("" = top level), in [`LEAVES`] order.
fn children(prefix: &str) -> Vec<&'static str> {
    let mut out: Vec<&'static str> = Vec::new();
    for l in LEAVES {
        let rest = if prefix.is_empty() {
            Some(l.key)
        } else {
            l.key.strip_prefix(prefix).and_then(|r| r.strip_prefix('.'))
        };
        if let Some(rest) = rest {
            let child = rest.split('.').next().unwrap_or(rest);
            if !out.contains(&child) {
                out.push(child);
            }
        }
    }
    out
}

/// All setting keys, in `colophon config` order (e.g. for cache-key tables).
pub fn setting_keys() -> impl Iterator<Item = &'static str> {
    LEAVES.iter().map(|l| l.key)
}

/// Settings under construction plus where each value came from.
struct Layers {
    settings: Settings,
    provenance: Provenance,
}

impl Layers {
    /// Checks `value` for `leaf` and assigns it. `shown` is the value as the
    /// user wrote it, for the error (raw text for environment and flags).
    fn assign(
        &mut self,
        leaf: &'static Leaf,
        value: &toml::Value,
        origin: Source,
        shown: Option<&str>,
    ) -> Result<(), SettingsError> {
        let typed = leaf
            .kind
            .check(value)
            .map_err(|allowed| SettingsError::Invalid {
                key: leaf.key.to_string(),
                value: shown.map_or_else(|| value.to_string(), str::to_string),
                origin,
                allowed,
            })?;
        (leaf.set)(&mut self.settings, &typed);
        self.provenance.sources.insert(leaf.key, origin);
        Ok(())
    }

    /// Assigns every key of `table` (found at `prefix`, "" = top level),
    /// recursing into nested tables; a key not set keeps the lower layer.
    fn walk(
        &mut self,
        prefix: &str,
        table: &toml::Table,
        origin: Source,
    ) -> Result<(), SettingsError> {
        for (name, value) in table {
            let key = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}.{name}")
            };
            if let Some(leaf) = leaf(&key) {
                self.assign(leaf, value, origin, None)?;
            } else if is_table(&key) {
                match value {
                    toml::Value::Table(inner) => self.walk(&key, inner, origin)?,
                    other => {
                        return Err(SettingsError::Invalid {
                            value: other.to_string(),
                            origin,
                            allowed: format!(
                                "must be a table with keys {}",
                                children(&key).join(", ")
                            ),
                            key,
                        });
                    }
                }
            } else if IGNORED.contains(&key.as_str()) {
                if !value.is_bool() {
                    return Err(SettingsError::Invalid {
                        key,
                        value: value.to_string(),
                        origin,
                        allowed: "must be true or false (it is ignored: title and \
                                  authors are always wanted)"
                            .into(),
                    });
                }
            } else {
                return Err(unknown(key, prefix, name, origin));
            }
        }
        Ok(())
    }
}

fn unknown(key: String, prefix: &str, name: &str, origin: Source) -> SettingsError {
    let known = children(prefix);
    let hint = known
        .iter()
        .find(|k| k.eq_ignore_ascii_case(name))
        .map(|k| format!("did you mean {k}? "))
        .unwrap_or_default();
    let place = if prefix.is_empty() {
        String::new()
    } else {
        format!(" in {prefix}")
    };
    SettingsError::Unknown {
        key,
        origin,
        allowed: format!("{hint}allowed keys{place} are {}", known.join(", ")),
    }
}

/// Parses the text of a table-valued environment variable: a JSON object,
/// a TOML inline table, or TOML key/value lines.
fn env_table(name: &str, text: &str) -> Result<toml::Table, SettingsError> {
    let text = text.trim();
    let not_table = |value: String| SettingsError::Invalid {
        key: name.to_string(),
        value,
        origin: Source::Env,
        allowed: format!(
            "must be a table with keys {} (JSON object or TOML inline table)",
            children(name).join(", ")
        ),
    };
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(text) {
        return match json {
            serde_json::Value::Object(map) => json_table(name, map),
            _ => Err(not_table(text.to_string())),
        };
    }
    match text.parse::<toml::Value>() {
        Ok(toml::Value::Table(t)) => Ok(t),
        Ok(_) => Err(not_table(text.to_string())),
        Err(inline_err) => text.parse::<toml::Table>().map_err(|doc_err| {
            let err = if text.starts_with('{') {
                inline_err
            } else {
                doc_err
            };
            SettingsError::Parse {
                what: format!("environment variable {name}"),
                message: format!(
                    "expected a JSON object or a TOML inline table: {}",
                    err.to_string().trim_end()
                ),
            }
        }),
    }
}

/// JSON → TOML, so that one walk checks every layer. `null` has no TOML
/// form; it is refused with its key rather than guessed at.
fn json_table(
    key: &str,
    map: serde_json::Map<String, serde_json::Value>,
) -> Result<toml::Table, SettingsError> {
    map.into_iter()
        .map(|(k, v)| {
            let sub = format!("{key}.{k}");
            json_value(&sub, v).map(|v| (k, v))
        })
        .collect()
}

fn json_value(key: &str, value: serde_json::Value) -> Result<toml::Value, SettingsError> {
    use serde_json::Value as J;
    Ok(match value {
        J::Null => {
            return Err(SettingsError::Invalid {
                key: key.to_string(),
                value: "null".into(),
                origin: Source::Env,
                allowed: "null is not a value; leave the key out to keep the lower layer".into(),
            });
        }
        J::Bool(b) => toml::Value::Boolean(b),
        J::Number(n) => match n.as_i64() {
            Some(i) => toml::Value::Integer(i),
            None => toml::Value::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        J::String(s) => toml::Value::String(s),
        J::Array(items) => toml::Value::Array(
            items
                .into_iter()
                .map(|v| json_value(key, v))
                .collect::<Result<_, _>>()?,
        ),
        J::Object(map) => toml::Value::Table(json_table(key, map)?),
    })
}

impl Settings {
    /// Builds the effective settings from four layers, each overriding the
    /// one before it, key by key:
    ///
    /// **flag > environment > file > default**
    ///
    /// - default: [`Settings::default`];
    /// - file: the text of `colophon.toml` (`None` when there is none), keys
    ///   named exactly like the seed settings; tables may be inline or
    ///   `[MATTER_CONFIG.back]` sections;
    /// - environment: `env(NAME)` for every top-level key; scalars as text
    ///   (booleans also as yes/no/on/off/1/0), `MATTER_CONFIG` and
    ///   `VISION_ANALYSIS_THRESHOLDS` as a JSON object or TOML inline table.
    ///   An empty variable counts as unset;
    /// - flags: [`Overrides`].
    ///
    /// A partial table merges over the lower layer (only
    /// `front.max_pages`, say). `VLM_ENDPOINT` follows `VLM_PORT`
    /// (`http://localhost:{port}/api/chat`) unless set explicitly.
    ///
    /// Every layer is checked completely, even when a higher one overrides
    /// a key, so a broken file is reported rather than hidden. Unknown keys,
    /// wrong types and out-of-range values are errors naming key, value,
    /// layer and what is allowed.
    pub fn resolve(
        flags: &Overrides,
        env: impl Fn(&str) -> Option<String>,
        file_text: Option<&str>,
    ) -> Result<Settings, SettingsError> {
        Self::resolve_with_provenance(flags, env, file_text).map(|(s, _)| s)
    }

    /// [`Settings::resolve`], also returning where each value came from.
    pub fn resolve_with_provenance(
        flags: &Overrides,
        env: impl Fn(&str) -> Option<String>,
        file_text: Option<&str>,
    ) -> Result<(Settings, Provenance), SettingsError> {
        let mut layers = Layers {
            settings: Settings::default(),
            provenance: Provenance::default(),
        };

        if let Some(text) = file_text {
            let table: toml::Table = toml::from_str(text).map_err(|e| SettingsError::Parse {
                what: CONFIG_FILE.to_string(),
                message: e.to_string().trim_end().to_string(),
            })?;
            layers.walk("", &table, Source::File)?;
        }

        for name in children("") {
            let Some(text) = env(name).filter(|t| !t.trim().is_empty()) else {
                continue;
            };
            if let Some(leaf) = leaf(name) {
                let value =
                    leaf.kind
                        .parse_text(&text)
                        .map_err(|allowed| SettingsError::Invalid {
                            key: name.to_string(),
                            value: text.clone(),
                            origin: Source::Env,
                            allowed,
                        })?;
                layers.assign(leaf, &value, Source::Env, Some(&text))?;
            } else {
                let table = env_table(name, &text)?;
                layers.walk(name, &table, Source::Env)?;
            }
        }

        let flag_values = [
            (
                flags.write.then_some(toml::Value::Boolean(true)),
                "WRITE_PDF_CHANGES",
                "--write",
            ),
            (
                flags.vision.then_some(toml::Value::Boolean(true)),
                "ANALYZE_WITH_VISION",
                "--vision",
            ),
            (
                flags.front_pages.map(int),
                "MATTER_CONFIG.front.max_pages",
                "--front-pages",
            ),
            (
                flags.back_mode.clone().map(toml::Value::String),
                "MATTER_CONFIG.back.mode",
                "--back-mode",
            ),
            (
                flags.back_pages.map(int),
                "MATTER_CONFIG.back.max_pages",
                "--back-pages",
            ),
            (
                flags.online.then_some(toml::Value::Boolean(true)),
                "ONLINE_LOOKUP",
                "--online",
            ),
            (flags.shards.map(int), "SHARDS", "--shards"),
        ];
        for (value, key, flag) in flag_values {
            if let (Some(value), Some(leaf)) = (value, leaf(key)) {
                let shown = match &value {
                    toml::Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                layers.assign(leaf, &value, Source::Flag(flag), Some(&shown))?;
            }
        }

        if layers.provenance.source("VLM_ENDPOINT") == Source::Default {
            layers.settings.vlm_endpoint =
                format!("http://localhost:{}/api/chat", layers.settings.vlm_port);
        }
        Ok((layers.settings, layers.provenance))
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

    /// Reads `colophon.toml` under `root`, then resolves with the process
    /// environment and `flags` (see [`Settings::resolve`]).
    pub fn load(flags: &Overrides, root: &Path) -> Result<(Settings, Provenance), SettingsError> {
        let text = read_config_file(&root.join(CONFIG_FILE))?;
        Self::resolve_with_provenance(flags, process_env, text.as_deref())
    }

    /// The effective settings as a `colophon.toml`, each key with a comment
    /// saying where its value came from. Feeding the output back as the
    /// file gives the same settings.
    pub fn describe(&self, provenance: &Provenance) -> String {
        let mut out = String::from(
            "# Effective colophon settings.\n\
             # Precedence: flag > environment > colophon.toml > default.\n",
        );
        let mut section = "";
        for leaf in LEAVES {
            let (parent, name) = leaf.key.rsplit_once('.').unwrap_or(("", leaf.key));
            if parent != section {
                let _ = write!(out, "\n[{parent}]\n");
                section = parent;
            }
            let source = provenance.source(leaf.key);
            let note = if leaf.key == "VLM_ENDPOINT" && source == Source::Default {
                "default (follows VLM_PORT)".to_string()
            } else {
                source.to_string()
            };
            let _ = writeln!(out, "{name} = {}  # {note}", (leaf.get)(self));
        }
        out
    }
}

/// The process environment as [`Settings::resolve`] wants it. A value that is
/// not UTF-8 is passed on lossily so that validation names it, rather than
/// being silently treated as unset.
pub fn process_env(name: &str) -> Option<String> {
    std::env::var_os(name).map(|v| v.to_string_lossy().into_owned())
}

/// The text of a config file, `None` when it does not exist.
pub fn read_config_file(path: &Path) -> Result<Option<String>, SettingsError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(source) => Err(SettingsError::Read {
            path: path.to_path_buf(),
            source,
        }),
    }
}

/// An environment made of literal pairs, for tests of what reads one.
#[cfg(test)]
pub(crate) fn env_of(
    pairs: &'static [(&'static str, &'static str)],
) -> impl Fn(&str) -> Option<String> {
    move |name| {
        pairs
            .iter()
            .find(|(k, _)| *k == name)
            .map(|(_, v)| v.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn no_env(_: &str) -> Option<String> {
        None
    }

    fn from_file(text: &str) -> Result<(Settings, Provenance), SettingsError> {
        Settings::resolve_with_provenance(&Overrides::default(), no_env, Some(text))
    }

    fn file_error(text: &str) -> String {
        from_file(text).unwrap_err().to_string()
    }

    fn env_error(pairs: &'static [(&'static str, &'static str)]) -> String {
        Settings::resolve(&Overrides::default(), env_of(pairs), None)
            .unwrap_err()
            .to_string()
    }

    #[test]
    fn nothing_given_means_defaults() {
        let (s, p) =
            Settings::resolve_with_provenance(&Overrides::default(), no_env, None).unwrap();
        assert_eq!(s, Settings::default());
        assert_eq!(p, Provenance::default());
        // An empty file and empty variables change nothing either.
        let env = env_of(&[("PAGE_NUM_OFFSET", ""), ("MATTER_CONFIG", "  ")]);
        let (s2, p2) =
            Settings::resolve_with_provenance(&Overrides::default(), env, Some("")).unwrap();
        assert_eq!(s2, Settings::default());
        assert_eq!(p2, Provenance::default());
    }

    #[test]
    fn precedence_is_flag_over_env_over_file_over_default() {
        let file = "MATTER_CONFIG.front.max_pages = 3\nPAGE_NUM_OFFSET = 0\n";
        let env = &[
            ("MATTER_CONFIG", r#"{"front": {"max_pages": 4}}"#),
            ("PAGE_NUM_OFFSET", "1"),
        ];
        let flags = Overrides {
            front_pages: Some(5),
            ..Overrides::default()
        };
        let key = "MATTER_CONFIG.front.max_pages";

        let (s, p) = Settings::resolve_with_provenance(&flags, env_of(env), Some(file)).unwrap();
        assert_eq!(s.matter.front.max_pages, 5);
        assert_eq!(p.source(key), Source::Flag("--front-pages"));
        assert_eq!(s.page_num_offset, 1);
        assert_eq!(p.source("PAGE_NUM_OFFSET"), Source::Env);

        let no_flags = Overrides::default();
        let (s, p) = Settings::resolve_with_provenance(&no_flags, env_of(env), Some(file)).unwrap();
        assert_eq!(s.matter.front.max_pages, 4);
        assert_eq!(p.source(key), Source::Env);

        let (s, p) = Settings::resolve_with_provenance(&no_flags, no_env, Some(file)).unwrap();
        assert_eq!(s.matter.front.max_pages, 3);
        assert_eq!(s.page_num_offset, 0);
        assert_eq!(p.source(key), Source::File);

        let (s, p) = Settings::resolve_with_provenance(&no_flags, no_env, None).unwrap();
        assert_eq!(s.matter.front.max_pages, 8);
        assert_eq!(p.source(key), Source::Default);
    }

    #[test]
    fn partial_tables_merge_over_lower_layers() {
        let file = r#"
            [MATTER_CONFIG.back]
            mode = "fallback"
            max_pages = 20
            [MATTER_CONFIG.back.fields]
            isbn = true
        "#;
        let env = env_of(&[
            (
                "MATTER_CONFIG",
                r#"{"front": {"max_pages": 3}, "back": {"fields": {"year": true}}}"#,
            ),
            ("VISION_ANALYSIS_THRESHOLDS", "{ early_pages_cutoff = 3 }"),
        ]);
        let (s, p) =
            Settings::resolve_with_provenance(&Overrides::default(), env, Some(file)).unwrap();
        assert_eq!(s.matter.front.max_pages, 3);
        assert_eq!(s.matter.back.mode, BackMode::Fallback);
        assert_eq!(s.matter.back.max_pages, 20);
        assert!(s.matter.back.fields.isbn && s.matter.back.fields.year);
        assert!(!s.matter.back.fields.doi);
        assert_eq!(s.vision_thresholds.early_pages_cutoff, 3);
        assert_eq!(s.vision_thresholds.full_page_image_ratio, 0.90);
        assert_eq!(p.source("MATTER_CONFIG.back.fields.isbn"), Source::File);
        assert_eq!(p.source("MATTER_CONFIG.back.fields.year"), Source::Env);
        assert_eq!(p.source("MATTER_CONFIG.back.fields.doi"), Source::Default);
        assert_eq!(
            p.overridden().map(|(k, _)| k).collect::<Vec<_>>(),
            [
                "MATTER_CONFIG.back.fields.isbn",
                "MATTER_CONFIG.back.fields.year",
                "MATTER_CONFIG.back.max_pages",
                "MATTER_CONFIG.back.mode",
                "MATTER_CONFIG.front.max_pages",
                "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff",
            ]
        );
    }

    #[test]
    fn file_accepts_inline_and_nested_tables_alike() {
        let inline = r#"MATTER_CONFIG = { front = { max_pages = 15 }, back = { mode = "always", max_pages = 20, fields = { publisher = true, loc = true } } }"#;
        let nested = r#"
            [MATTER_CONFIG]
            front = { max_pages = 15 }
            [MATTER_CONFIG.back]
            mode = "always"
            max_pages = 20
            fields.publisher = true
            fields.loc = true
        "#;
        let (a, _) = from_file(inline).unwrap();
        let (b, _) = from_file(nested).unwrap();
        assert_eq!(a, b);
        assert_eq!(a.matter.front.max_pages, 15);
        assert_eq!(a.matter.back.mode, BackMode::Always);
        assert!(a.matter.back.fields.publisher && a.matter.back.fields.loc);
    }

    #[test]
    fn every_scalar_from_the_file() {
        let file = r#"
            PAGE_NUM_OFFSET = 0
            WRITE_PDF_CHANGES = true
            MAX_FILENAME_LENGTH = 120
            ANALYZE_WITH_VISION = true
            VLM_MODEL = "llava:13b"
            VLM_PORT = 8080
            VLM_TIMEOUT = 90
            VLM_MAX_RETRIES = 0
            VLM_RETRY_DELAY = 2.5
            VLM_ENDPOINT = "https://gpu.example.org:8443/api/chat"
            VLM_CONCURRENCY = 4
            RUNTIME_IGNORE_DIR_NAME = "skip"
            FILENAME_TEMPLATE = "{title} - {authors} [{isbn}]"
            PDF_TIMEOUT = 30.5
            OCR_LANGUAGES = "eng+deu"
            OCR_DPI = 200
            VISION_ANALYSIS_THRESHOLDS = { full_page_image_ratio = 0.75, early_pages_cutoff = 2, low_ocr_confidence = 45 }
        "#;
        let (s, p) = from_file(file).unwrap();
        assert_eq!(s.page_num_offset, 0);
        assert!(s.write_pdf_changes && s.analyze_with_vision);
        assert_eq!(s.max_filename_length, 120);
        assert_eq!(s.vlm_model, "llava:13b");
        assert_eq!(s.vlm_port, 8080);
        assert_eq!(s.vlm_timeout, 90.0);
        assert_eq!(s.vlm_max_retries, 0);
        assert_eq!(s.vlm_retry_delay, 2.5);
        assert_eq!(s.vlm_endpoint, "https://gpu.example.org:8443/api/chat");
        assert_eq!(s.vlm_concurrency, 4);
        assert_eq!(s.runtime_ignore_dir_name, "skip");
        assert_eq!(s.filename_template, "{title} - {authors} [{isbn}]");
        assert_eq!(s.pdf_timeout, 30.5);
        assert_eq!(s.ocr_languages, "eng+deu");
        assert_eq!(s.ocr_dpi, 200);
        assert_eq!(s.vision_thresholds.full_page_image_ratio, 0.75);
        assert_eq!(s.vision_thresholds.early_pages_cutoff, 2);
        assert_eq!(s.vision_thresholds.low_ocr_confidence, 45.0);
        assert!(p.overridden().all(|(_, src)| src == Source::File));
        assert_eq!(p.overridden().count(), 19);
    }

    #[test]
    fn env_scalars_are_text() {
        let env = env_of(&[
            ("WRITE_PDF_CHANGES", "yes"),
            ("ANALYZE_WITH_VISION", "TRUE"),
            ("VLM_TIMEOUT", " 12.5 "),
            ("VLM_PORT", "9000"),
            ("VLM_MODEL", "minicpm-v"),
            ("OCR_DPI", "150"),
        ]);
        let (s, p) = Settings::resolve_with_provenance(&Overrides::default(), env, None).unwrap();
        assert!(s.write_pdf_changes && s.analyze_with_vision);
        assert_eq!(s.vlm_timeout, 12.5);
        assert_eq!(s.vlm_port, 9000);
        assert_eq!(s.vlm_model, "minicpm-v");
        assert_eq!(s.ocr_dpi, 150);
        assert_eq!(p.source("VLM_MODEL"), Source::Env);
        // The endpoint follows the port from the environment.
        assert_eq!(s.vlm_endpoint, "http://localhost:9000/api/chat");

        let off = env_of(&[("WRITE_PDF_CHANGES", "0")]);
        let s = Settings::resolve(&Overrides::default(), off, Some("WRITE_PDF_CHANGES = true"))
            .unwrap();
        assert!(!s.write_pdf_changes);
    }

    #[test]
    fn env_tables_as_json_inline_toml_or_toml_lines() {
        for text in [
            r#"{"back": {"mode": "always", "max_pages": 7}}"#,
            r#"{ back = { mode = "always", max_pages = 7 } }"#,
            "back.mode = \"always\"\nback.max_pages = 7",
        ] {
            let env = move |name: &str| (name == "MATTER_CONFIG").then(|| text.to_string());
            let s = Settings::resolve(&Overrides::default(), env, None).unwrap();
            assert_eq!(s.matter.back.mode, BackMode::Always, "{text}");
            assert_eq!(s.matter.back.max_pages, 7, "{text}");
        }
    }

    #[test]
    fn online_settings_from_file_and_environment() {
        let file = "ONLINE_CONTACT = \"me@example.org\"\nONLINE_RATE_LIMITS.loc = 0.2\n";
        let env = env_of(&[
            ("ONLINE_LOOKUP", "yes"),
            ("ONLINE_DOI_URL", "http://127.0.0.1:8080"),
            ("ONLINE_RATE_LIMITS", r#"{"openlibrary": 3}"#),
            ("ONLINE_NEGATIVE_TTL_DAYS", "0"),
        ]);
        let s = Settings::resolve(&Overrides::default(), env, Some(file)).unwrap();
        assert!(s.online_lookup);
        assert_eq!(s.online_contact, "me@example.org");
        assert_eq!(s.online_doi_url, "http://127.0.0.1:8080");
        assert_eq!(s.online_negative_ttl_days, 0);
        assert_eq!(s.online_rate_limits.openlibrary, 3.0);
        assert_eq!(s.online_rate_limits.loc, 0.2);
        assert_eq!(
            s.online_rate_limits.crossref, 5.0,
            "the rest keep their default"
        );
        assert!(!Settings::default().online_lookup, "off unless asked");
        for (text, wanted) in [
            ("ONLINE_CONTACT = \"not an address\"", "e-mail address"),
            ("ONLINE_CONTACT = \"a@b.org\\r\\nX: y\"", "e-mail address"),
            ("ONLINE_TIMEOUT = 0", "> 0"),
            ("ONLINE_RATE_LIMITS.doi = 0", "from 0.001"),
            ("ONLINE_LOC_URL = \"ftp://x\"", "http"),
            (
                "ONLINE_RATE_LIMITS.worldcat = 1",
                "allowed keys in ONLINE_RATE_LIMITS",
            ),
        ] {
            let e = file_error(text);
            assert!(e.contains(wanted), "{text}: {e}");
        }
    }

    #[test]
    fn flags_set_their_settings() {
        let flags = Overrides {
            write: true,
            vision: true,
            front_pages: Some(2),
            back_mode: Some("always".into()),
            back_pages: Some(0),
            online: true,
            shards: Some(4),
        };
        let file = "WRITE_PDF_CHANGES = false\nANALYZE_WITH_VISION = false\nONLINE_LOOKUP = false\nSHARDS = 2";
        let env = env_of(&[("SHARDS", "3")]);
        let (s, p) = Settings::resolve_with_provenance(&flags, env, Some(file)).unwrap();
        assert_eq!(
            (s.shards, p.source("SHARDS")),
            (4, Source::Flag("--shards"))
        );
        assert!(s.write_pdf_changes && s.analyze_with_vision);
        assert!(s.online_lookup);
        assert_eq!(p.source("ONLINE_LOOKUP"), Source::Flag("--online"));
        assert_eq!(s.matter.front.max_pages, 2);
        assert_eq!(s.matter.back.mode, BackMode::Always);
        assert_eq!(s.matter.back.max_pages, 0);
        assert_eq!(p.source("WRITE_PDF_CHANGES"), Source::Flag("--write"));
        assert_eq!(p.source("ANALYZE_WITH_VISION"), Source::Flag("--vision"));
        assert_eq!(
            p.source("MATTER_CONFIG.back.mode"),
            Source::Flag("--back-mode")
        );
        // `--write` absent leaves the lower layer alone.
        let s = Settings::resolve(
            &Overrides::default(),
            no_env,
            Some("WRITE_PDF_CHANGES = true"),
        )
        .unwrap();
        assert!(s.write_pdf_changes);
    }

    #[test]
    fn endpoint_follows_port_unless_set() {
        let (s, p) = from_file("VLM_PORT = 12345").unwrap();
        assert_eq!(s.vlm_endpoint, "http://localhost:12345/api/chat");
        assert_eq!(p.source("VLM_ENDPOINT"), Source::Default);

        let file = "VLM_PORT = 12345\nVLM_ENDPOINT = \"http://10.0.0.5:11434/api/chat\"";
        let (s, p) = from_file(file).unwrap();
        assert_eq!(s.vlm_endpoint, "http://10.0.0.5:11434/api/chat");
        assert_eq!(p.source("VLM_ENDPOINT"), Source::File);
    }

    #[test]
    fn author_and_title_in_back_fields_are_accepted_and_ignored() {
        let file = "[MATTER_CONFIG.back.fields]\nauthor = true\ntitle = false\nyear = true";
        let (s, p) = from_file(file).unwrap();
        let mut expected = Settings::default();
        expected.matter.back.fields.year = true;
        assert_eq!(s, expected);
        assert_eq!(p.overridden().count(), 1);
        assert_eq!(
            file_error("MATTER_CONFIG.back.fields.author = \"yes\""),
            "invalid setting MATTER_CONFIG.back.fields.author = \"yes\" (from colophon.toml): \
             must be true or false (it is ignored: title and authors are always wanted)"
        );
    }

    #[test]
    fn error_names_key_value_origin_and_what_is_allowed() {
        assert_eq!(
            env_error(&[("PAGE_NUM_OFFSET", "7")]),
            "invalid setting PAGE_NUM_OFFSET = 7 (from environment): allowed values are 0 or 1"
        );
        assert_eq!(
            file_error("PAGE_NUM_OFFSET = 2"),
            "invalid setting PAGE_NUM_OFFSET = 2 (from colophon.toml): allowed values are 0 or 1"
        );
        let flags = Overrides {
            front_pages: Some(0),
            ..Overrides::default()
        };
        assert_eq!(
            Settings::resolve(&flags, no_env, None)
                .unwrap_err()
                .to_string(),
            "invalid setting MATTER_CONFIG.front.max_pages = 0 (from flag --front-pages): \
             must be an integer >= 1"
        );
        let flags = Overrides {
            back_mode: Some("sometimes".into()),
            ..Overrides::default()
        };
        assert_eq!(
            Settings::resolve(&flags, no_env, None)
                .unwrap_err()
                .to_string(),
            "invalid setting MATTER_CONFIG.back.mode = sometimes (from flag --back-mode): \
             allowed values are never, always or fallback"
        );
    }

    /// What `VLM_TIMEOUT` and `PDF_TIMEOUT` accept.
    const LIMIT: &str = "must be a number of seconds > 0 and at most 1000000000 (0 is not \"no limit\": raise the limit instead)";

    #[test]
    fn out_of_range_values_are_refused() {
        let cases: &[(&str, &str, &str)] = &[
            (
                "SHARDS = 0",
                "SHARDS = 0",
                "must be an integer from 1 to 100000",
            ),
            (
                "MATTER_CONFIG.front.max_pages = 0",
                "MATTER_CONFIG.front.max_pages = 0",
                "must be an integer >= 1",
            ),
            (
                "MATTER_CONFIG.back.max_pages = -1",
                "MATTER_CONFIG.back.max_pages = -1",
                "must be an integer >= 0",
            ),
            (
                "MATTER_CONFIG.back.mode = \"sometimes\"",
                "MATTER_CONFIG.back.mode = \"sometimes\"",
                "allowed values are never, always or fallback",
            ),
            (
                "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = 1.5",
                "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = 1.5",
                "must be a number from 0 to 1",
            ),
            (
                "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = -0.1",
                "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = -0.1",
                "must be a number from 0 to 1",
            ),
            (
                "VISION_ANALYSIS_THRESHOLDS.low_ocr_confidence = 101",
                "VISION_ANALYSIS_THRESHOLDS.low_ocr_confidence = 101",
                "must be a number from 0 to 100",
            ),
            (
                "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff = -2",
                "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff = -2",
                "must be an integer >= 0",
            ),
            (
                "MAX_FILENAME_LENGTH = 39",
                "MAX_FILENAME_LENGTH = 39",
                "must be an integer >= 40",
            ),
            ("VLM_TIMEOUT = -1", "VLM_TIMEOUT = -1", LIMIT),
            ("VLM_TIMEOUT = 0", "VLM_TIMEOUT = 0", LIMIT),
            ("PDF_TIMEOUT = 0", "PDF_TIMEOUT = 0", LIMIT),
            ("PDF_TIMEOUT = 0.0", "PDF_TIMEOUT = 0.0", LIMIT),
            (
                "VLM_RETRY_DELAY = -0.5",
                "VLM_RETRY_DELAY = -0.5",
                "must be a number of seconds >= 0",
            ),
            ("PDF_TIMEOUT = nan", "PDF_TIMEOUT = nan", LIMIT),
            ("PDF_TIMEOUT = 1e12", "PDF_TIMEOUT = 1000000000000.0", LIMIT),
            (
                "VLM_MAX_RETRIES = -1",
                "VLM_MAX_RETRIES = -1",
                "must be an integer >= 0",
            ),
            (
                "VLM_MAX_RETRIES = 5000000000",
                "VLM_MAX_RETRIES = 5000000000",
                "must be an integer from 0 to 4294967295",
            ),
            (
                "VLM_CONCURRENCY = 0",
                "VLM_CONCURRENCY = 0",
                "must be an integer from 1 to 256",
            ),
            (
                "VLM_PORT = 70000",
                "VLM_PORT = 70000",
                "must be an integer from 1 to 65535",
            ),
            (
                "OCR_DPI = 10",
                "OCR_DPI = 10",
                "must be an integer from 50 to 1200",
            ),
            (
                "VLM_MODEL = \"  \"",
                "VLM_MODEL = \"  \"",
                "must be a non-empty string",
            ),
            (
                "RUNTIME_IGNORE_DIR_NAME = \"a/b\"",
                "RUNTIME_IGNORE_DIR_NAME = \"a/b\"",
                "must be a single directory name (not empty, no / or \\)",
            ),
            (
                "OCR_LANGUAGES = \"eng+\"",
                "OCR_LANGUAGES = \"eng+\"",
                "must be Tesseract language codes joined with +, such as eng or eng+deu",
            ),
        ];
        for (file, shown, allowed) in cases {
            assert_eq!(
                file_error(file),
                format!("invalid setting {shown} (from colophon.toml): {allowed}"),
                "{file}"
            );
        }
    }

    #[test]
    fn endpoint_must_be_an_http_url() {
        for bad in [
            "ftp://localhost/api/chat",
            "http://",
            "localhost:11434/api/chat",
            "http://local host/api",
            "http://localhost:99999/api/chat",
            "http://localhost:/api/chat",
            "https://[::1/api",
        ] {
            let err = file_error(&format!("VLM_ENDPOINT = \"{bad}\""));
            assert_eq!(
                err,
                format!(
                    "invalid setting VLM_ENDPOINT = \"{bad}\" (from colophon.toml): must be an \
                     http:// or https:// URL such as http://localhost:11434/api/chat"
                )
            );
        }
        for good in [
            "http://localhost:11434/api/chat",
            "HTTPS://gpu-box.lan/api/chat",
            "http://192.168.1.20:11434/api/chat",
            "http://[::1]:11434/api/chat",
            "http://user@host/api/chat?x=1",
        ] {
            let (s, _) = from_file(&format!("VLM_ENDPOINT = \"{good}\"")).unwrap();
            assert_eq!(s.vlm_endpoint, good);
        }
    }

    #[test]
    fn vision_hosts_are_a_list_of_distinct_urls() {
        let a = "http://gpu1:11434/api/chat";
        let b = "http://10.0.0.2:11434/api/chat";
        let (s, _) = from_file(&format!("VLM_ENDPOINTS = [\"{a}\", \"{b}\"]")).unwrap();
        assert_eq!(s.vlm_endpoints, [a, b]);
        assert_eq!(s.vlm_hosts(), [a, b]);
        // In the environment: separated by commas or spaces, or a JSON array.
        for text in [
            "http://gpu1:11434/api/chat, http://10.0.0.2:11434/api/chat",
            "http://gpu1:11434/api/chat http://10.0.0.2:11434/api/chat",
            r#"["http://gpu1:11434/api/chat","http://10.0.0.2:11434/api/chat"]"#,
        ] {
            let s = Settings::resolve(
                &Overrides::default(),
                |k| (k == "VLM_ENDPOINTS").then(|| text.to_string()),
                None,
            )
            .unwrap();
            assert_eq!(s.vlm_endpoints, [a, b], "{text}");
        }
        // None listed: the one VLM_ENDPOINT.
        let s = Settings::default();
        assert_eq!(s.vlm_hosts(), std::slice::from_ref(&s.vlm_endpoint));
        for bad in [
            format!("VLM_ENDPOINTS = [\"{a}\", \"{a}\"]"),
            format!("VLM_ENDPOINTS = [\"{a}\", \"gpu2:11434\"]"),
            "VLM_ENDPOINTS = [1]".to_string(),
            "VLM_ENDPOINTS = true".to_string(),
        ] {
            let err = file_error(&bad);
            assert!(
                err.contains("must be a list of distinct http"),
                "{bad}: {err}"
            );
        }
        let err = env_error(&[("VLM_ENDPOINTS", "[\"http://a\", 3]")]);
        assert!(err.contains("must be a list of distinct http"), "{err}");
    }

    #[test]
    fn template_placeholders_are_checked() {
        assert_eq!(
            file_error("FILENAME_TEMPLATE = \"{auther} - {title}\""),
            "invalid setting FILENAME_TEMPLATE = \"{auther} - {title}\" (from colophon.toml): \
             unknown placeholder {auther}; allowed placeholders are {authors}, {title}, \
             {subtitle}, {year}, {publisher}, {edition}, {isbn}, {doi}"
        );
        assert!(file_error("FILENAME_TEMPLATE = \"{title\"").contains("has an unclosed {"));
        assert!(file_error("FILENAME_TEMPLATE = \"title}\"").contains("has a } without {"));
        assert!(file_error("FILENAME_TEMPLATE = \"\"").contains("must not be empty"));
        for never in [".", "..", " - ", "-.-"] {
            assert!(
                file_error(&format!("FILENAME_TEMPLATE = \"{never}\""))
                    .contains("can never give a file name"),
                "{never:?}"
            );
        }
        let (s, _) = from_file("FILENAME_TEMPLATE = \"{year} {doi}\"").unwrap();
        assert_eq!(s.filename_template, "{year} {doi}");
    }

    #[test]
    fn wrong_types_are_refused() {
        let cases: &[(&str, &str)] = &[
            (
                "PAGE_NUM_OFFSET = \"1\"",
                "invalid setting PAGE_NUM_OFFSET = \"1\" (from colophon.toml): allowed values are 0 or 1",
            ),
            (
                "WRITE_PDF_CHANGES = 1",
                "invalid setting WRITE_PDF_CHANGES = 1 (from colophon.toml): must be true or false",
            ),
            (
                "MAX_FILENAME_LENGTH = 100.5",
                "invalid setting MAX_FILENAME_LENGTH = 100.5 (from colophon.toml): must be an integer >= 40",
            ),
            (
                "VLM_MODEL = 7",
                "invalid setting VLM_MODEL = 7 (from colophon.toml): must be a non-empty string",
            ),
            (
                "VLM_TIMEOUT = \"60\"",
                "invalid setting VLM_TIMEOUT = \"60\" (from colophon.toml): must be a number of seconds > 0 and at most 1000000000 (0 is not \"no limit\": raise the limit instead)",
            ),
            (
                "MATTER_CONFIG = 3",
                "invalid setting MATTER_CONFIG = 3 (from colophon.toml): must be a table with keys front, back",
            ),
            (
                "MATTER_CONFIG.back = \"always\"",
                "invalid setting MATTER_CONFIG.back = \"always\" (from colophon.toml): must be a table with keys mode, max_pages, fields",
            ),
            (
                "MATTER_CONFIG.back.fields.isbn = \"true\"",
                "invalid setting MATTER_CONFIG.back.fields.isbn = \"true\" (from colophon.toml): must be true or false",
            ),
            (
                "OCR_LANGUAGES = [\"eng\", \"deu\"]",
                "invalid setting OCR_LANGUAGES = [\"eng\", \"deu\"] (from colophon.toml): must be Tesseract language codes joined with +, such as eng or eng+deu",
            ),
            (
                "PAGE_NUM_OFFSET = { a = 1 }",
                "invalid setting PAGE_NUM_OFFSET = { a = 1 } (from colophon.toml): allowed values are 0 or 1",
            ),
        ];
        for (file, message) in cases {
            assert_eq!(file_error(file), *message, "{file}");
        }
    }

    #[test]
    fn unknown_keys_are_refused_at_every_level() {
        assert_eq!(
            file_error("PAGE_OFFSET = 1"),
            "unknown setting PAGE_OFFSET (from colophon.toml): allowed keys are \
             PAGE_NUM_OFFSET, MIN_CONFIDENCE, WRITE_PDF_CHANGES, MAX_FILENAME_LENGTH, \
             ANALYZE_WITH_VISION, \
             VLM_MODEL, VLM_PORT, VLM_TIMEOUT, VLM_MAX_RETRIES, VLM_RETRY_DELAY, VLM_ENDPOINT, \
             VLM_ENDPOINTS, VLM_CONCURRENCY, RUNTIME_IGNORE_DIR_NAME, FILENAME_TEMPLATE, PDF_TIMEOUT, \
             OCR_LANGUAGES, OCR_DPI, ONLINE_LOOKUP, ONLINE_CONTACT, ONLINE_TIMEOUT, \
             ONLINE_NEGATIVE_TTL_DAYS, ONLINE_OPENLIBRARY_URL, ONLINE_DOI_URL, ONLINE_CROSSREF_URL, \
             ONLINE_LOC_URL, SHARDS, MATTER_CONFIG, VISION_ANALYSIS_THRESHOLDS, ONLINE_RATE_LIMITS"
        );
        assert!(
            file_error("page_num_offset = 1").contains("did you mean PAGE_NUM_OFFSET?"),
            "case slips get a hint"
        );
        assert_eq!(
            file_error("[MATTER_CONFIG.back]\ncolour = \"red\""),
            "unknown setting MATTER_CONFIG.back.colour (from colophon.toml): allowed keys in \
             MATTER_CONFIG.back are mode, max_pages, fields"
        );
        assert_eq!(
            file_error("MATTER_CONFIG.back.fields.subtitle = true"),
            "unknown setting MATTER_CONFIG.back.fields.subtitle (from colophon.toml): allowed \
             keys in MATTER_CONFIG.back.fields are publisher, year, edition, isbn, doi, loc"
        );
        assert_eq!(
            file_error("VISION_ANALYSIS_THRESHOLDS = { ratio = 0.5 }"),
            "unknown setting VISION_ANALYSIS_THRESHOLDS.ratio (from colophon.toml): allowed \
             keys in VISION_ANALYSIS_THRESHOLDS are full_page_image_ratio, \
             early_pages_cutoff, low_ocr_confidence"
        );
        assert_eq!(
            env_error(&[("MATTER_CONFIG", r#"{"front": {"maxpages": 3}}"#)]),
            "unknown setting MATTER_CONFIG.front.maxpages (from environment): allowed keys in \
             MATTER_CONFIG.front are max_pages"
        );
    }

    #[test]
    fn bad_env_values_are_refused() {
        assert_eq!(
            env_error(&[("WRITE_PDF_CHANGES", "maybe")]),
            "invalid setting WRITE_PDF_CHANGES = maybe (from environment): must be true or false"
        );
        assert_eq!(
            env_error(&[("VLM_TIMEOUT", "soon")]),
            format!("invalid setting VLM_TIMEOUT = soon (from environment): {LIMIT}")
        );
        assert_eq!(
            env_error(&[("MAX_FILENAME_LENGTH", "12.5")]),
            "invalid setting MAX_FILENAME_LENGTH = 12.5 (from environment): must be an integer >= 40"
        );
        assert_eq!(
            env_error(&[("VLM_ENDPOINT", "localhost:11434")]),
            "invalid setting VLM_ENDPOINT = localhost:11434 (from environment): must be an \
             http:// or https:// URL such as http://localhost:11434/api/chat"
        );
        assert_eq!(
            env_error(&[("MATTER_CONFIG", "[1, 2]")]),
            "invalid setting MATTER_CONFIG = [1, 2] (from environment): must be a table with \
             keys front, back (JSON object or TOML inline table)"
        );
        assert_eq!(
            env_error(&[("MATTER_CONFIG", r#"{"back": {"mode": null}}"#)]),
            "invalid setting MATTER_CONFIG.back.mode = null (from environment): null is not a \
             value; leave the key out to keep the lower layer"
        );
        assert_eq!(
            env_error(&[("MATTER_CONFIG", r#"{"back": {"max_pages": 2.5}}"#)]),
            "invalid setting MATTER_CONFIG.back.max_pages = 2.5 (from environment): must be an \
             integer >= 0"
        );
        let err = Settings::resolve(
            &Overrides::default(),
            env_of(&[("VISION_ANALYSIS_THRESHOLDS", "{ early_pages_cutoff = }")]),
            None,
        )
        .unwrap_err();
        assert!(matches!(err, SettingsError::Parse { .. }), "{err:?}");
        assert!(
            err.to_string()
                .starts_with("cannot parse environment variable VISION_ANALYSIS_THRESHOLDS: expected a JSON object or a TOML inline table"),
            "{err}"
        );
    }

    #[test]
    fn a_broken_file_is_a_parse_error_even_when_overridden() {
        let err = from_file("PAGE_NUM_OFFSET = = 1").unwrap_err();
        assert!(matches!(err, SettingsError::Parse { ref what, .. } if what == "colophon.toml"));
        // A bad file value is reported even if the environment overrides it.
        let err = Settings::resolve(
            &Overrides::default(),
            env_of(&[("PAGE_NUM_OFFSET", "1")]),
            Some("PAGE_NUM_OFFSET = 9"),
        )
        .unwrap_err();
        assert!(matches!(
            err,
            SettingsError::Invalid {
                origin: Source::File,
                ..
            }
        ));
    }

    #[test]
    fn describe_names_every_source_and_reads_back_as_the_same_settings() {
        let file = r#"
            PAGE_NUM_OFFSET = 0
            VLM_MODEL = "llava:13b"
            VLM_PORT = 9999
            FILENAME_TEMPLATE = "{authors} - {title} [{isbn}]"
            [MATTER_CONFIG.back.fields]
            isbn = true
            [VISION_ANALYSIS_THRESHOLDS]
            full_page_image_ratio = 0.8
        "#;
        let env = env_of(&[
            ("VLM_TIMEOUT", "45"),
            ("MATTER_CONFIG", "{ back = { mode = \"fallback\" } }"),
        ]);
        let flags = Overrides {
            front_pages: Some(12),
            ..Overrides::default()
        };
        let (s, p) = Settings::resolve_with_provenance(&flags, env, Some(file)).unwrap();
        let text = s.describe(&p);
        for line in [
            "PAGE_NUM_OFFSET = 0  # colophon.toml",
            "WRITE_PDF_CHANGES = false  # default",
            "VLM_TIMEOUT = 45.0  # environment",
            "VLM_ENDPOINT = \"http://localhost:9999/api/chat\"  # default (follows VLM_PORT)",
            "[MATTER_CONFIG.front]",
            "max_pages = 12  # flag --front-pages",
            "mode = \"fallback\"  # environment",
            "[MATTER_CONFIG.back.fields]",
            "isbn = true  # colophon.toml",
            "full_page_image_ratio = 0.8  # colophon.toml",
            "low_ocr_confidence = 30.0  # default",
        ] {
            assert!(
                text.lines().any(|l| l == line),
                "missing {line:?} in\n{text}"
            );
        }
        // Every key appears exactly once.
        for key in setting_keys() {
            let name = key.rsplit('.').next().unwrap();
            assert!(
                text.lines().any(|l| l.starts_with(&format!("{name} = "))),
                "{key} missing"
            );
        }
        let (again, _) = from_file(&text).unwrap();
        assert_eq!(again, s);
        let (defaults, _) =
            from_file(&Settings::default().describe(&Provenance::default())).unwrap();
        assert_eq!(defaults, Settings::default());
    }
}
