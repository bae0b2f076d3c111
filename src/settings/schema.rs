//! The schema of the settings: every key once, in [`LEAVES`], with what it
//! accepts ([`Kind`]), its default, the cached results it changes
//! ([`Affects`]) and how it is written to and read from [`Settings`].
//!
//! Adding a setting is adding a field to [`Settings`] (and to
//! `Settings::blank`) and one row here; the tests in `settings/tests.rs`
//! fail when a field has no row, when a row's default is not allowed by its
//! own kind, or when a row's setter and getter disagree, and those in
//! `cache/keys.rs` when a key does not follow the `affects` column.

use super::{BackMode, ReviewThumbnails, Settings, TextReader};

/// The cached results a setting can change, and so the cache keys it
/// enters (cargo's fingerprint rule: a setting is in every key whose result
/// it can change, and declared `Run` only when it changes none).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Affects {
    /// No cached result: how a run reaches the files, the backends and the
    /// catalogues, and how it names, writes and shows what it found
    /// (thread and host counts, timeouts, URLs, the name template, write
    /// mode, sharding). Online answers are merged into a record when it is
    /// reported, so the `ONLINE_*` settings are here too.
    Run,
    /// The decided record (which pages are read, what is decided), when
    /// the condition holds: a setting that cannot change the record under
    /// the other settings stays out of its key, so changing it recomputes
    /// nothing.
    Record(When),
    /// Each page's OCR text ([`Stage::Ocr`]), and so the record.
    Ocr,
    /// Each page's vision answer ([`Stage::Vision`]), and the record when
    /// vision is on.
    Vision,
    /// Each page's text as read (`PDF_TEXT_READER`): enters no key as a
    /// value, but changes the inspect stage's version
    /// (`cache::keys::StageVersions::for_settings`), which the document,
    /// page and record keys hold.
    Read,
}

/// When an [`Affects::Record`] setting can change the record.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum When {
    Always,
    /// Back matter can be read: `MATTER_CONFIG.back.mode` is not `never`.
    BackMatterRead,
    /// `MATTER_CONFIG.back.mode` is `fallback`, whose fields say when.
    Fallback,
    /// `ANALYZE_WITH_VISION` is on.
    VisionOn,
}

impl When {
    pub fn holds(self, s: &Settings) -> bool {
        match self {
            When::Always => true,
            When::BackMatterRead => s.matter.back.mode != BackMode::Never,
            When::Fallback => s.matter.back.mode == BackMode::Fallback,
            When::VisionOn => s.analyze_with_vision,
        }
    }
}

/// A cached result whose key holds settings (see `cache::keys`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// One page's OCR text (`keys::ocr_key`).
    Ocr,
    /// One page's vision answer (`vision::VisionKey`, which holds the
    /// model as it is sent).
    Vision,
    /// A document's decided record (`keys::record_key`).
    Record,
}

impl Affects {
    /// Whether a setting of this class enters `stage`'s key under `s`.
    pub fn enters(self, stage: Stage, s: &Settings) -> bool {
        match (self, stage) {
            (Affects::Run, _) => false,
            (Affects::Record(when), Stage::Record) => when.holds(s),
            (Affects::Ocr, Stage::Ocr | Stage::Record) => true,
            (Affects::Vision, Stage::Vision) => true,
            (Affects::Vision, Stage::Record) => s.analyze_with_vision,
            (Affects::Record(_) | Affects::Ocr | Affects::Vision | Affects::Read, _) => false,
        }
    }
}

/// The values of the settings that enter `stage`'s cache key under `s`,
/// in table order. Every value that decides a [`When`] is itself in the
/// record's key, so leaving the other values out cannot make two
/// different settings collide.
pub fn key_values(s: &Settings, stage: Stage) -> impl Iterator<Item = toml::Value> + '_ {
    LEAVES
        .iter()
        .filter(move |l| l.affects.enters(stage, s))
        .map(move |l| (l.get)(s))
}

/// Every setting key with its class, in table order (for the cache-key
/// tests, which change each setting and check which keys follow).
pub fn affects() -> impl Iterator<Item = (&'static str, Affects)> {
    LEAVES.iter().map(|l| (l.key, l.affects))
}

/// The names a setting is read from in the environment: the top-level
/// keys (`MATTER_CONFIG` holds its whole table). The integration tests
/// remove them all from the commands they run.
pub fn env_names() -> Vec<&'static str> {
    children("")
}

/// Sets `key` to a value its row allows that differs from the current one
/// (for the tests that change every setting in turn).
#[cfg(test)]
pub(crate) fn set_other_value(s: &mut Settings, key: &str) {
    use toml::Value as V;
    let leaf = leaf(key).unwrap_or_else(|| panic!("no setting {key}"));
    let now = (leaf.get)(s);
    let other = match (leaf.kind, &now) {
        (Kind::Bool, V::Boolean(b)) => V::Boolean(!b),
        (Kind::Int { min, .. }, V::Integer(i)) => V::Integer(if *i == min { min + 1 } else { min }),
        (Kind::Float { min, max }, V::Float(f)) => V::Float(if *f == min { max } else { min }),
        (Kind::Seconds | Kind::Limit, V::Float(f)) => V::Float(f + 1.0),
        (Kind::Choice(options), V::String(now)) => V::String(
            options
                .iter()
                .find(|o| **o != now)
                .map_or_else(String::new, |o| o.to_string()),
        ),
        (Kind::Url, V::String(now)) => V::String(format!("{now}x")),
        (Kind::UrlList, _) => V::Array(vec![V::String("http://gpu9:11434/api/chat".into())]),
        (Kind::Text | Kind::DirName | Kind::Path, V::String(now)) => V::String(format!("{now}x")),
        (Kind::Template, V::String(now)) => V::String(format!("{now} {{year}}")),
        (Kind::OcrLanguages, V::String(now)) => V::String(format!("{now}+deu")),
        (Kind::Email, V::String(now)) if now.is_empty() => V::String("you@example.org".into()),
        (Kind::Email, _) => V::String(String::new()),
        (kind, now) => panic!("{key}: {kind:?} holding {now}"),
    };
    let typed = leaf
        .kind
        .check(&other)
        .unwrap_or_else(|e| panic!("{key} = {other}: {e}"));
    (leaf.set)(s, &typed);
}

/// A default as written in [`LEAVES`].
#[derive(Debug, Clone, Copy)]
pub(super) enum Val {
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(&'static str),
    List(&'static [&'static str]),
}

impl Val {
    pub(super) fn typed(self) -> Typed {
        match self {
            Val::Bool(b) => Typed::Bool(b),
            Val::Int(i) => Typed::Int(i),
            Val::Float(f) => Typed::Float(f),
            Val::Str(s) => Typed::Str(s.to_string()),
            Val::List(l) => Typed::List(l.iter().map(|s| s.to_string()).collect()),
        }
    }

    #[cfg(test)]
    pub(super) fn to_toml(self) -> toml::Value {
        match self {
            Val::Bool(b) => toml::Value::Boolean(b),
            Val::Int(i) => toml::Value::Integer(i),
            Val::Float(f) => toml::Value::Float(f),
            Val::Str(s) => toml::Value::String(s.to_string()),
            Val::List(l) => toml::Value::Array(
                l.iter()
                    .map(|s| toml::Value::String(s.to_string()))
                    .collect(),
            ),
        }
    }
}

/// What a setting accepts. Checking a value yields a [`Typed`] of the
/// matching variant or the "what is allowed" text of the error.
#[derive(Debug, Clone, Copy)]
pub(super) enum Kind {
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
    /// A file or folder path, or empty for colophon's own choice.
    Path,
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
pub(super) enum Typed {
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
    pub(super) fn check(self, value: &toml::Value) -> Result<Typed, String> {
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
            (Kind::Path, V::String(s)) => Ok(Typed::Str(s.trim().to_string())),
            (Kind::Path, _) => Err("must be a path as a string, or empty".into()),
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
    pub(super) fn parse_text(self, text: &str) -> Result<toml::Value, String> {
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
    let list: Vec<String> = super::template::PLACEHOLDERS
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
        if !super::template::PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{name}}}; {}",
                placeholders_allowed()
            ));
        }
        rest = &after[end + 1..];
    }
    if !super::template::template_can_name(template) {
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
pub(super) struct Leaf {
    pub(super) key: &'static str,
    pub(super) kind: Kind,
    /// The value when no layer sets it ([`Settings::default`]).
    pub(super) default: Val,
    /// The cached results it changes, and so the keys it enters.
    pub(super) affects: Affects,
    pub(super) set: fn(&mut Settings, &Typed),
    pub(super) get: fn(&Settings) -> toml::Value,
}

const BACK_MODES: &[&str] = &["never", "always", "fallback"];
const REVIEW_THUMBNAILS: &[&str] = &["review", "run"];
const TEXT_READERS: &[&str] = &["quick", "pdfium"];

/// Every setting key. Adding a setting = adding a field to [`Settings`]
/// and one row here.
pub(super) const LEAVES: &[Leaf] = &[
    Leaf {
        key: "PAGE_NUM_OFFSET",
        kind: Kind::Int { min: 0, max: 1 },
        default: Val::Int(1),
        affects: Affects::Run,
        set: |s, v| s.page_num_offset = v.int() as u32,
        get: |s| int(s.page_num_offset),
    },
    Leaf {
        key: "MIN_CONFIDENCE",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        default: Val::Float(crate::decide::ranker::DEFAULT_MIN_CONFIDENCE as f64),
        affects: Affects::Record(When::Always),
        set: |s, v| s.min_confidence = v.float() as f32,
        get: |s| float32(s.min_confidence),
    },
    Leaf {
        key: "WRITE_PDF_CHANGES",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Run,
        set: |s, v| s.write_pdf_changes = v.bool(),
        get: |s| toml::Value::Boolean(s.write_pdf_changes),
    },
    Leaf {
        key: "WRITE_READ_ONLY_FILES",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Run,
        set: |s, v| s.write_read_only_files = v.bool(),
        get: |s| toml::Value::Boolean(s.write_read_only_files),
    },
    Leaf {
        key: "REVIEW_THUMBNAILS",
        kind: Kind::Choice(REVIEW_THUMBNAILS),
        default: Val::Str("review"),
        affects: Affects::Run,
        set: |s, v| {
            s.review_thumbnails = match v.string().as_str() {
                "run" => ReviewThumbnails::Run,
                _ => ReviewThumbnails::Review,
            }
        },
        get: |s| {
            toml::Value::String(
                match s.review_thumbnails {
                    ReviewThumbnails::Run => "run",
                    ReviewThumbnails::Review => "review",
                }
                .into(),
            )
        },
    },
    Leaf {
        key: "MAX_FILENAME_LENGTH",
        kind: Kind::Int { min: 40, max: U32 },
        default: Val::Int(250),
        affects: Affects::Run,
        set: |s, v| s.max_filename_length = v.int() as usize,
        get: |s| int(s.max_filename_length),
    },
    Leaf {
        key: "ANALYZE_WITH_VISION",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Always),
        set: |s, v| s.analyze_with_vision = v.bool(),
        get: |s| toml::Value::Boolean(s.analyze_with_vision),
    },
    Leaf {
        key: "VLM_MODEL",
        kind: Kind::Text,
        default: Val::Str("qwen2.5vl:7b"),
        affects: Affects::Vision,
        set: |s, v| s.vlm_model = v.string(),
        get: |s| toml::Value::String(s.vlm_model.clone()),
    },
    Leaf {
        key: "VLM_PORT",
        kind: Kind::Int { min: 1, max: 65535 },
        default: Val::Int(11434),
        affects: Affects::Run,
        set: |s, v| s.vlm_port = v.int() as u16,
        get: |s| int(s.vlm_port),
    },
    Leaf {
        key: "VLM_TIMEOUT",
        kind: Kind::Limit,
        default: Val::Float(60.0),
        affects: Affects::Run,
        set: |s, v| s.vlm_timeout = v.float(),
        get: |s| toml::Value::Float(s.vlm_timeout),
    },
    Leaf {
        key: "VLM_MAX_RETRIES",
        kind: Kind::Int { min: 0, max: U32 },
        default: Val::Int(3),
        affects: Affects::Run,
        set: |s, v| s.vlm_max_retries = v.int() as u32,
        get: |s| int(s.vlm_max_retries),
    },
    Leaf {
        key: "VLM_RETRY_DELAY",
        kind: Kind::Seconds,
        default: Val::Float(1.0),
        affects: Affects::Run,
        set: |s, v| s.vlm_retry_delay = v.float(),
        get: |s| toml::Value::Float(s.vlm_retry_delay),
    },
    Leaf {
        key: "VLM_ENDPOINT",
        kind: Kind::Url,
        default: Val::Str("http://localhost:11434/api/chat"),
        affects: Affects::Run,
        set: |s, v| s.vlm_endpoint = v.string(),
        get: |s| toml::Value::String(s.vlm_endpoint.clone()),
    },
    Leaf {
        key: "VLM_ENDPOINTS",
        kind: Kind::UrlList,
        default: Val::List(&[]),
        affects: Affects::Run,
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
        default: Val::Int(2),
        affects: Affects::Run,
        set: |s, v| s.vlm_concurrency = v.int() as usize,
        get: |s| int(s.vlm_concurrency),
    },
    Leaf {
        key: "RUNTIME_IGNORE_DIR_NAME",
        kind: Kind::DirName,
        default: Val::Str("_ignore"),
        affects: Affects::Run,
        set: |s, v| s.runtime_ignore_dir_name = v.string(),
        get: |s| toml::Value::String(s.runtime_ignore_dir_name.clone()),
    },
    Leaf {
        key: "FILENAME_TEMPLATE",
        kind: Kind::Template,
        default: Val::Str("{authors} - {title} ({year})"),
        affects: Affects::Run,
        set: |s, v| s.filename_template = v.string(),
        get: |s| toml::Value::String(s.filename_template.clone()),
    },
    Leaf {
        key: "PDF_TIMEOUT",
        kind: Kind::Limit,
        default: Val::Float(120.0),
        affects: Affects::Run,
        set: |s, v| s.pdf_timeout = v.float(),
        get: |s| toml::Value::Float(s.pdf_timeout),
    },
    Leaf {
        key: "WORKER_MEMORY_LIMIT_MB",
        // Address space, not resident memory: pdfium maps far more than it
        // touches (a worker that has read a page maps about 0.3 GB; see
        // README). Below 512 normal files would fail.
        kind: Kind::Int { min: 512, max: U32 },
        default: Val::Int(2048),
        affects: Affects::Run,
        set: |s, v| s.worker_memory_limit_mb = v.int() as u64,
        get: |s| int(s.worker_memory_limit_mb),
    },
    Leaf {
        key: "OCR_DPI",
        kind: Kind::Int { min: 50, max: 1200 },
        default: Val::Int(300),
        affects: Affects::Ocr,
        set: |s, v| s.ocr_dpi = v.int() as u32,
        get: |s| int(s.ocr_dpi),
    },
    Leaf {
        key: "OCR_LANGUAGES",
        kind: Kind::OcrLanguages,
        default: Val::Str("eng"),
        affects: Affects::Ocr,
        set: |s, v| s.ocr_languages = v.string(),
        get: |s| toml::Value::String(s.ocr_languages.clone()),
    },
    Leaf {
        key: "OCR_LIBTESSERACT",
        kind: Kind::Text,
        default: Val::Str("auto"),
        affects: Affects::Run,
        set: |s, v| s.ocr_libtesseract = v.string(),
        get: |s| toml::Value::String(s.ocr_libtesseract.clone()),
    },
    Leaf {
        key: "PDF_TEXT_READER",
        kind: Kind::Choice(TEXT_READERS),
        default: Val::Str("quick"),
        affects: Affects::Read,
        set: |s, v| {
            s.pdf_text_reader = match v.string().as_str() {
                "pdfium" => TextReader::Pdfium,
                _ => TextReader::Quick,
            }
        },
        get: |s| toml::Value::String(s.pdf_text_reader.as_str().into()),
    },
    Leaf {
        key: "WORKER_EXECUTABLE",
        kind: Kind::Path,
        default: Val::Str(""),
        affects: Affects::Run,
        set: |s, v| s.worker_executable = v.string(),
        get: |s| toml::Value::String(s.worker_executable.clone()),
    },
    Leaf {
        key: "PDFIUM_LIBRARY",
        kind: Kind::Path,
        default: Val::Str(""),
        affects: Affects::Run,
        set: |s, v| s.pdfium_library = v.string(),
        get: |s| toml::Value::String(s.pdfium_library.clone()),
    },
    Leaf {
        key: "BROWSER",
        kind: Kind::Path,
        default: Val::Str(""),
        affects: Affects::Run,
        set: |s, v| s.browser = v.string(),
        get: |s| toml::Value::String(s.browser.clone()),
    },
    Leaf {
        key: "ONLINE_LOOKUP",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Run,
        set: |s, v| s.online_lookup = v.bool(),
        get: |s| toml::Value::Boolean(s.online_lookup),
    },
    Leaf {
        key: "ONLINE_CONTACT",
        kind: Kind::Email,
        default: Val::Str(""),
        affects: Affects::Run,
        set: |s, v| s.online_contact = v.string(),
        get: |s| toml::Value::String(s.online_contact.clone()),
    },
    Leaf {
        key: "ONLINE_TIMEOUT",
        kind: Kind::Limit,
        default: Val::Float(10.0),
        affects: Affects::Run,
        set: |s, v| s.online_timeout = v.float(),
        get: |s| toml::Value::Float(s.online_timeout),
    },
    Leaf {
        key: "ONLINE_NEGATIVE_TTL_DAYS",
        kind: Kind::Int { min: 0, max: 36500 },
        default: Val::Int(30),
        affects: Affects::Run,
        set: |s, v| s.online_negative_ttl_days = v.int() as u32,
        get: |s| int(s.online_negative_ttl_days),
    },
    Leaf {
        key: "ONLINE_OPENLIBRARY_URL",
        kind: Kind::Url,
        default: Val::Str("https://openlibrary.org"),
        affects: Affects::Run,
        set: |s, v| s.online_openlibrary_url = v.string(),
        get: |s| toml::Value::String(s.online_openlibrary_url.clone()),
    },
    Leaf {
        key: "ONLINE_DOI_URL",
        kind: Kind::Url,
        default: Val::Str("https://doi.org"),
        affects: Affects::Run,
        set: |s, v| s.online_doi_url = v.string(),
        get: |s| toml::Value::String(s.online_doi_url.clone()),
    },
    Leaf {
        key: "ONLINE_CROSSREF_URL",
        kind: Kind::Url,
        default: Val::Str("https://api.crossref.org"),
        affects: Affects::Run,
        set: |s, v| s.online_crossref_url = v.string(),
        get: |s| toml::Value::String(s.online_crossref_url.clone()),
    },
    Leaf {
        key: "ONLINE_LOC_URL",
        kind: Kind::Url,
        default: Val::Str("https://www.loc.gov"),
        affects: Affects::Run,
        set: |s, v| s.online_loc_url = v.string(),
        get: |s| toml::Value::String(s.online_loc_url.clone()),
    },
    Leaf {
        key: "SHARDS",
        kind: Kind::Int {
            min: 1,
            max: MAX_SHARDS,
        },
        default: Val::Int(1),
        affects: Affects::Run,
        set: |s, v| s.shards = v.int() as u32,
        get: |s| int(s.shards),
    },
    Leaf {
        key: "MATTER_CONFIG.front.max_pages",
        kind: Kind::Int { min: 1, max: U32 },
        default: Val::Int(8),
        affects: Affects::Record(When::Always),
        set: |s, v| s.matter.front.max_pages = v.int() as u32,
        get: |s| int(s.matter.front.max_pages),
    },
    Leaf {
        key: "MATTER_CONFIG.front.stop_when_sure",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Always),
        set: |s, v| s.matter.front.stop_when_sure = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.front.stop_when_sure),
    },
    Leaf {
        key: "MATTER_CONFIG.back.mode",
        kind: Kind::Choice(BACK_MODES),
        default: Val::Str("never"),
        affects: Affects::Record(When::Always),
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
        default: Val::Int(5),
        affects: Affects::Record(When::BackMatterRead),
        set: |s, v| s.matter.back.max_pages = v.int() as u32,
        get: |s| int(s.matter.back.max_pages),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.publisher",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Fallback),
        set: |s, v| s.matter.back.fields.publisher = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.publisher),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.year",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Fallback),
        set: |s, v| s.matter.back.fields.year = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.year),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.edition",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Fallback),
        set: |s, v| s.matter.back.fields.edition = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.edition),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.isbn",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Fallback),
        set: |s, v| s.matter.back.fields.isbn = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.isbn),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.doi",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Fallback),
        set: |s, v| s.matter.back.fields.doi = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.doi),
    },
    Leaf {
        key: "MATTER_CONFIG.back.fields.loc",
        kind: Kind::Bool,
        default: Val::Bool(false),
        affects: Affects::Record(When::Fallback),
        set: |s, v| s.matter.back.fields.loc = v.bool(),
        get: |s| toml::Value::Boolean(s.matter.back.fields.loc),
    },
    Leaf {
        key: "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio",
        kind: Kind::Float { min: 0.0, max: 1.0 },
        default: Val::Float(0.9),
        affects: Affects::Record(When::VisionOn),
        set: |s, v| s.vision_thresholds.full_page_image_ratio = v.float() as f32,
        get: |s| float32(s.vision_thresholds.full_page_image_ratio),
    },
    Leaf {
        key: "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff",
        kind: Kind::Int { min: 0, max: U32 },
        default: Val::Int(1),
        affects: Affects::Record(When::VisionOn),
        set: |s, v| s.vision_thresholds.early_pages_cutoff = v.int() as u32,
        get: |s| int(s.vision_thresholds.early_pages_cutoff),
    },
    Leaf {
        key: "VISION_ANALYSIS_THRESHOLDS.low_ocr_confidence",
        kind: Kind::Float {
            min: 0.0,
            max: 100.0,
        },
        default: Val::Float(30.0),
        affects: Affects::Record(When::VisionOn),
        set: |s, v| s.vision_thresholds.low_ocr_confidence = v.float() as f32,
        get: |s| float32(s.vision_thresholds.low_ocr_confidence),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.openlibrary",
        kind: RATE,
        default: Val::Float(1.0),
        affects: Affects::Run,
        set: |s, v| s.online_rate_limits.openlibrary = v.float(),
        get: |s| toml::Value::Float(s.online_rate_limits.openlibrary),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.doi",
        kind: RATE,
        default: Val::Float(5.0),
        affects: Affects::Run,
        set: |s, v| s.online_rate_limits.doi = v.float(),
        get: |s| toml::Value::Float(s.online_rate_limits.doi),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.crossref",
        kind: RATE,
        default: Val::Float(5.0),
        affects: Affects::Run,
        set: |s, v| s.online_rate_limits.crossref = v.float(),
        get: |s| toml::Value::Float(s.online_rate_limits.crossref),
    },
    Leaf {
        key: "ONLINE_RATE_LIMITS.loc",
        kind: RATE,
        default: Val::Float(0.5),
        affects: Affects::Run,
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
pub(super) const IGNORED: &[&str] = &[
    "MATTER_CONFIG.back.fields.author",
    "MATTER_CONFIG.back.fields.title",
];

pub(super) fn int(n: impl TryInto<i64>) -> toml::Value {
    toml::Value::Integer(n.try_into().unwrap_or(i64::MAX))
}

/// An `f32` as the TOML float a person wrote (0.9, not 0.8999999761581421).
fn float32(x: f32) -> toml::Value {
    toml::Value::Float(x.to_string().parse().unwrap_or(f64::from(x)))
}

pub(super) fn leaf(key: &str) -> Option<&'static Leaf> {
    LEAVES.iter().find(|l| l.key == key)
}

/// Whether `key` names a table of settings (`MATTER_CONFIG`,
/// `MATTER_CONFIG.back`, ...).
pub(super) fn is_table(key: &str) -> bool {
    LEAVES
        .iter()
        .any(|l| l.key.strip_prefix(key).is_some_and(|r| r.starts_with('.')))
}

/// The keys directly inside `prefix` ("" = top level), in [`LEAVES`] order.
pub(super) fn children(prefix: &str) -> Vec<&'static str> {
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
