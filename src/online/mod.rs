//! Stage "online" (opt-in: `ONLINE_LOOKUP`, `--online`): the ISBN, DOI and
//! LCCN decided for a document are looked up in open catalogues, and their
//! answers are merged into the record by `decide::catalogue`.
//!
//! - Only the identifier leaves the machine (plus `ONLINE_CONTACT`, in the
//!   User-Agent and as Crossref's `mailto`): no file name, text or image.
//! - Sources: Open Library for ISBNs; the DOI resolver's content
//!   negotiation (CSL-JSON, any registration agency) for DOIs, with
//!   Crossref's REST API when the resolver fails; loc.gov for LCCNs. Each
//!   has a base-URL setting and a rate limit ([`http`]).
//! - Answers are cached in the `online` tree ([`Tree::Online`]) by source,
//!   identifier and [`ONLINE_VERSION`]: found ones for good, "not found"
//!   for `ONLINE_NEGATIVE_TTL_DAYS`, failures never. A rerun sends nothing.
//! - The merge happens when a record is reported, not in the cached record:
//!   turning `--online` on over a warm library recomputes nothing but the
//!   lookups, and `MIN_CONFIDENCE` keeps changing no cached work.
//!
//! Lookups run on the run's lookup threads ([`LOOKUP_THREADS`] of them,
//! between the document threads and the thread that reports records), so
//! a slow catalogue holds no pdfium worker and no document thread, and
//! several documents' lookups are in flight at once; each source's token
//! bucket, shared by all of them, keeps its rate limit. Every failure is a
//! warning on the record.

pub mod http;
pub mod parse;

use crate::cache::{Cache, Tree, keys};
use crate::model::{
    Candidate, DocResult, Field, LookupReport, Metadata, OnlineReport, PdfFile, Record, Value, Via,
};
use crate::progress::Reporter;
use crate::report::Summary;
use crate::settings::Settings;
use http::{Fetched, SourceClient};
use serde::{Deserialize, Serialize};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// Documents whose identifiers a run looks up at once (threads between
/// the document threads and the reporting thread). The per-source rate
/// limits, not this, bound the requests per second: it only lets a
/// second document's lookup start while a first one waits on an answer
/// (a catalogue's latency is 0.2-1 s, its rate limit a few a second).
pub const LOOKUP_THREADS: usize = 8;

/// Bump when a parser or the stored answer changes: every answer is then
/// asked again.
pub const ONLINE_VERSION: u32 = 1;

/// An online catalogue.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Catalogue {
    OpenLibrary,
    /// The DOI resolver (content negotiation).
    Doi,
    Crossref,
    Loc,
}

impl Catalogue {
    pub const ALL: [Catalogue; 4] = [
        Catalogue::OpenLibrary,
        Catalogue::Doi,
        Catalogue::Crossref,
        Catalogue::Loc,
    ];

    /// The name in records, warnings and cache keys.
    pub fn name(self) -> &'static str {
        match self {
            Catalogue::OpenLibrary => "openlibrary",
            Catalogue::Doi => "doi",
            Catalogue::Crossref => "crossref",
            Catalogue::Loc => "loc",
        }
    }

    pub fn via(self) -> Via {
        match self {
            Catalogue::OpenLibrary => Via::OnlineOpenLibrary,
            Catalogue::Doi => Via::OnlineDoi,
            Catalogue::Crossref => Via::OnlineCrossref,
            Catalogue::Loc => Via::OnlineLoc,
        }
    }

    fn base_url(self, s: &Settings) -> &str {
        match self {
            Catalogue::OpenLibrary => &s.online_openlibrary_url,
            Catalogue::Doi => &s.online_doi_url,
            Catalogue::Crossref => &s.online_crossref_url,
            Catalogue::Loc => &s.online_loc_url,
        }
    }

    fn rate(self, s: &Settings) -> f64 {
        let r = &s.online_rate_limits;
        match self {
            Catalogue::OpenLibrary => r.openlibrary,
            Catalogue::Doi => r.doi,
            Catalogue::Crossref => r.crossref,
            Catalogue::Loc => r.loc,
        }
    }

    /// Requests in flight at once at most: Crossref's public pool allows
    /// one concurrent request, loc.gov blocks bursts; Open Library and the
    /// DOI resolver take two (so that one slow answer does not halve the
    /// rate the token bucket allows).
    fn max_in_flight(self) -> usize {
        match self {
            Catalogue::OpenLibrary | Catalogue::Doi => 2,
            Catalogue::Crossref | Catalogue::Loc => 1,
        }
    }

    fn accept(self) -> &'static str {
        match self {
            Catalogue::Doi => "application/vnd.citationstyles.csl+json",
            _ => "application/json",
        }
    }

    /// The request URL for `id` (which this catalogue serves).
    fn url(self, base: &str, id: &Identifier, contact: &str) -> String {
        let base = base.trim_end_matches('/');
        match (self, id) {
            (Catalogue::OpenLibrary, Identifier::Isbn(i)) => {
                format!("{base}/api/books?bibkeys=ISBN:{i}&jscmd=data&format=json")
            }
            (Catalogue::Doi, Identifier::Doi(d)) => format!("{base}/{}", escape(d)),
            (Catalogue::Crossref, Identifier::Doi(d)) => {
                let mailto = if contact.is_empty() {
                    String::new()
                } else {
                    format!("?mailto={}", escape(contact))
                };
                format!("{base}/works/{}{mailto}", escape(d))
            }
            (Catalogue::Loc, Identifier::Lccn(l)) => format!("{base}/item/{l}/?fo=json"),
            _ => unreachable!("{self:?} is not asked about {id:?}"),
        }
    }

    fn parse(self, body: &str, id: &Identifier) -> Result<Option<Metadata>, String> {
        match (self, id) {
            (Catalogue::OpenLibrary, Identifier::Isbn(i)) => parse::open_library(body, i),
            (Catalogue::Doi, _) => parse::csl(body),
            (Catalogue::Crossref, _) => parse::crossref(body),
            (Catalogue::Loc, _) => parse::loc(body),
            _ => Err("not this catalogue's identifier".into()),
        }
    }
}

/// Percent-encodes what may not stand in a URL path or query as it is
/// (a DOI may hold `#`, `?`, `<`, spaces...).
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/:@()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// An identifier as it is sent, normalised (SPEC 7 forms).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Identifier {
    Isbn(String),
    Doi(String),
    Lccn(String),
}

impl Identifier {
    /// Reads an identifier typed by a person (`colophon lookup`): an ISBN
    /// (10 or 13, any hyphens), a DOI (also as a doi.org URL) or an LCCN,
    /// with an optional `isbn:`, `doi:` or `lccn:` prefix.
    pub fn parse(text: &str) -> Option<Identifier> {
        let t = text.trim();
        let lower = t.to_lowercase();
        if let Some(rest) = lower.strip_prefix("isbn:") {
            return crate::extract::isbn::to_isbn13(rest.trim()).map(Identifier::Isbn);
        }
        if let Some(rest) = lower.strip_prefix("lccn:") {
            return crate::extract::lccn::normalize(rest.trim()).map(Identifier::Lccn);
        }
        if let Some(d) = crate::extract::doi::normalize(t) {
            return Some(Identifier::Doi(d));
        }
        if let Some(i) = crate::extract::isbn::to_isbn13(t) {
            return Some(Identifier::Isbn(i));
        }
        crate::extract::lccn::normalize(t).map(Identifier::Lccn)
    }

    /// `isbn:…`, `doi:…`, `lccn:…`: the form in records and cache keys.
    pub fn key(&self) -> String {
        match self {
            Identifier::Isbn(i) => format!("isbn:{i}"),
            Identifier::Doi(d) => format!("doi:{d}"),
            Identifier::Lccn(l) => format!("lccn:{l}"),
        }
    }

    /// The catalogues asked, in order; the next only when one fails.
    fn catalogues(&self) -> &'static [Catalogue] {
        match self {
            Identifier::Isbn(_) => &[Catalogue::OpenLibrary],
            Identifier::Doi(_) => &[Catalogue::Doi, Catalogue::Crossref],
            Identifier::Lccn(_) => &[Catalogue::Loc],
        }
    }

    /// The identifiers decided for a document.
    pub fn of(m: &Metadata) -> Vec<Identifier> {
        let mut out = Vec::new();
        out.extend(m.isbn.clone().map(Identifier::Isbn));
        out.extend(m.doi.clone().map(Identifier::Doi));
        out.extend(m.loc.clone().map(Identifier::Lccn));
        out
    }
}

/// A cached answer: found (the catalogue's reading) or not found, and when.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Stored {
    /// Seconds since the epoch.
    at: u64,
    answer: Option<Metadata>,
}

/// How one lookup ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Outcome {
    Found(Metadata),
    NotFound,
    Failed(String),
    Skipped(String),
}

/// One lookup of one identifier at one catalogue.
#[derive(Debug, Clone, PartialEq)]
pub struct Lookup {
    pub catalogue: Catalogue,
    pub id: Identifier,
    pub outcome: Outcome,
    /// From the cache, no request made.
    pub cached: bool,
    /// HTTP requests sent for it.
    pub requests: u32,
}

impl Lookup {
    fn report(&self) -> LookupReport {
        let (result, detail, metadata) = match &self.outcome {
            Outcome::Found(m) => ("found", None, Some(m.clone())),
            Outcome::NotFound => ("not-found", None, None),
            Outcome::Failed(why) => ("failed", Some(why.clone()), None),
            Outcome::Skipped(why) => ("skipped", Some(why.clone()), None),
        };
        LookupReport {
            source: self.catalogue.name().to_string(),
            id: self.id.key(),
            result: result.to_string(),
            cached: self.cached,
            detail,
            metadata,
        }
    }

    /// The record's warning for a lookup that got no answer.
    fn warning(&self) -> Option<String> {
        let (what, why) = match &self.outcome {
            Outcome::Failed(why) => ("failed", why),
            Outcome::Skipped(why) => ("skipped", why),
            _ => return None,
        };
        Some(format!(
            "online: {} lookup of {} {what}: {why}; not cached, asked again next run",
            self.catalogue.name(),
            self.id.key()
        ))
    }
}

/// The online stage for one run: a client per catalogue and the cache.
pub struct Online<'a> {
    cache: &'a Cache,
    clients: Vec<SourceClient>,
    contact: String,
    negative_ttl: Duration,
    reporter: &'a dyn Reporter,
    quit: &'a AtomicBool,
}

impl<'a> Online<'a> {
    /// The stage, from `ONLINE_*` settings. Says once when no contact is set.
    pub fn new(
        settings: &Settings,
        cache: &'a Cache,
        reporter: &'a dyn Reporter,
        quit: &'a AtomicBool,
    ) -> Online<'a> {
        let ua = user_agent(&settings.online_contact);
        let timeout = Duration::from_secs_f64(settings.online_timeout.max(0.001));
        let clients = Catalogue::ALL
            .iter()
            .map(|&c| {
                SourceClient::new(
                    c.name(),
                    c.base_url(settings),
                    c.rate(settings),
                    c.max_in_flight(),
                    timeout,
                    &ua,
                    c.accept(),
                )
            })
            .collect();
        Online {
            cache,
            clients,
            contact: settings.online_contact.clone(),
            negative_ttl: Duration::from_secs(
                u64::from(settings.online_negative_ttl_days) * 86_400,
            ),
            reporter,
            quit,
        }
    }

    /// Says once per run what a user should set, when it is not set.
    pub fn announce(&self) {
        if self.contact.is_empty() {
            self.reporter.message(
                "colophon: online lookups without ONLINE_CONTACT; set it to your e-mail address \
                 so that the catalogues can reach you rather than block you",
            );
        }
    }

    fn client(&self, c: Catalogue) -> &SourceClient {
        &self.clients[c as usize]
    }

    /// Looks `id` up: the first catalogue, then the next while they fail.
    pub fn lookup(&self, id: &Identifier) -> Vec<Lookup> {
        let mut out = Vec::new();
        for &c in id.catalogues() {
            let l = self.ask(c, id);
            let answered = matches!(l.outcome, Outcome::Found(_) | Outcome::NotFound);
            out.push(l);
            if answered {
                break;
            }
        }
        out
    }

    /// One catalogue about one identifier: the cache, else a request.
    fn ask(&self, c: Catalogue, id: &Identifier) -> Lookup {
        let key = keys::online_key(c.name(), &id.key(), ONLINE_VERSION);
        let now = now_secs();
        let lookup = |outcome, cached, requests| Lookup {
            catalogue: c,
            id: id.clone(),
            outcome,
            cached,
            requests,
        };
        if let Some(s) = self.cache.get::<Stored>(Tree::Online, &key) {
            match s.answer {
                Some(m) => return lookup(Outcome::Found(m), true, 0),
                None if now.saturating_sub(s.at) < self.negative_ttl.as_secs() => {
                    return lookup(Outcome::NotFound, true, 0);
                }
                None => {} // expired: ask again
            }
        }
        if self.quit.load(Ordering::Relaxed) {
            return lookup(Outcome::Skipped("the run is stopping".into()), false, 0);
        }
        let url = c.url(self.client(c).base_url(), id, &self.contact);
        let quit = || self.quit.load(Ordering::Relaxed);
        let exchange = self.client(c).get(&url, &quit);
        if let Some(msg) = &exchange.switched_off {
            self.reporter.message(&format!("colophon: {msg}"));
        }
        let outcome = match exchange.fetched {
            Fetched::Body(body) => match c.parse(&body, id) {
                Ok(Some(m)) => Outcome::Found(m),
                Ok(None) => Outcome::NotFound,
                Err(why) => Outcome::Failed(format!("unreadable answer: {why}")),
            },
            Fetched::NotFound => Outcome::NotFound,
            Fetched::Failed(why) => Outcome::Failed(why),
            Fetched::Skipped(why) => Outcome::Skipped(why),
        };
        match &outcome {
            Outcome::Found(m) => self.cache.put(
                Tree::Online,
                &key,
                &Stored {
                    at: now,
                    answer: Some(m.clone()),
                },
            ),
            Outcome::NotFound if !self.negative_ttl.is_zero() => self.cache.put(
                Tree::Online,
                &key,
                &Stored {
                    at: now,
                    answer: None,
                },
            ),
            _ => {}
        }
        lookup(outcome, false, exchange.requests)
    }

    /// The lookups of the identifiers decided for a document (requests,
    /// unless cached): what [`record`] merges. Any thread may ask: the
    /// run asks from its lookup threads, each source's token bucket and
    /// failure count shared by all of them.
    pub fn lookups_for(&self, result: &DocResult) -> Vec<Lookup> {
        Identifier::of(&result.decision.metadata)
            .iter()
            .flat_map(|id| self.lookup(id))
            .collect()
    }
}

/// A document's lookups counted for the run summary: requests sent,
/// answers from the cache, lookups that failed (or were skipped).
pub fn counts(lookups: &[Lookup]) -> Summary {
    let mut summary = Summary::default();
    for l in lookups {
        summary.online_requests += u64::from(l.requests);
        match l.outcome {
            _ if l.cached => summary.online_cached += 1,
            Outcome::Failed(_) | Outcome::Skipped(_) => summary.online_failed += 1,
            _ => {}
        }
    }
    summary
}

/// The record of a read document with the catalogues' answers about its
/// identifiers (`lookups`, from [`Online::lookups_for`]) merged in
/// (`decide::catalogue`); [`counts`] counts the lookups. Sends nothing.
pub fn record(
    file: &PdfFile,
    hash_hex: String,
    result: &DocResult,
    lookups: &[Lookup],
    settings: &Settings,
) -> Record {
    if lookups.is_empty() {
        return crate::record::record(file, hash_hex, result, settings);
    }
    let online: Vec<Candidate> = lookups
        .iter()
        .filter_map(|l| match &l.outcome {
            Outcome::Found(m) => Some(candidates(l.catalogue.via(), m)),
            _ => None,
        })
        .flatten()
        .collect();
    let merged =
        crate::decide::catalogue::merge(&result.decision, &online, settings.min_confidence);
    let merged_result = DocResult {
        decision: merged.decision,
        ..result.clone()
    };
    let mut record = crate::record::record(file, hash_hex, &merged_result, settings);
    // A printed reading a catalogue value replaced is still shown, unsure.
    for f in Field::ALL {
        if merged.replaced.has(f) && !record.unsure.has(f) {
            copy_field(&merged.replaced, &mut record.unsure, f);
        }
    }
    record
        .warnings
        .extend(lookups.iter().filter_map(Lookup::warning));
    record.warnings.extend(
        merged
            .conflicts
            .iter()
            .map(|c| format!("online: {}", crate::decide::catalogue::warning(c))),
    );
    record.online = Some(OnlineReport {
        lookups: lookups.iter().map(Lookup::report).collect(),
        confirmed: merged.confirmed,
        filled: merged.filled,
        conflicts: merged.conflicts,
    });
    record
}

/// The User-Agent every request carries: what asks, and whom to write to.
pub fn user_agent(contact: &str) -> String {
    let version = env!("CARGO_PKG_VERSION");
    if contact.is_empty() {
        format!("colophon/{version} (PDF library metadata; no contact set)")
    } else {
        format!("colophon/{version} (PDF library metadata; mailto:{contact})")
    }
}

fn now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// A catalogue's answer as candidates for `decide::catalogue`.
pub fn candidates(via: Via, m: &Metadata) -> Vec<Candidate> {
    let mut out = Vec::new();
    let mut push = |field: Field, value: Value| {
        out.push(Candidate {
            field,
            value,
            score: crate::decide::catalogue::reliability(via, field),
            page: None,
            via,
            why: format!("{} answer", via.as_str()),
        })
    };
    let texts = [
        (Field::Title, &m.title),
        (Field::Subtitle, &m.subtitle),
        (Field::Publisher, &m.publisher),
        (Field::Edition, &m.edition),
        (Field::Isbn, &m.isbn),
        (Field::Doi, &m.doi),
        (Field::Loc, &m.loc),
    ];
    for (f, v) in texts {
        if let Some(v) = v {
            push(f, Value::Text(v.clone()));
        }
    }
    if !m.authors.is_empty() {
        push(Field::Authors, Value::Names(m.authors.clone()));
    }
    if let Some(y) = m.year {
        push(Field::Year, Value::Number(y));
    }
    out
}

fn copy_field(from: &Metadata, to: &mut Metadata, f: Field) {
    crate::decide::move_field(&mut from.clone(), to, f);
}

/// `colophon cache stats`: the online answers kept, found and not found.
pub fn cache_line(cache: &Cache) -> String {
    let stored: Vec<Stored> = cache.values(Tree::Online);
    let found = stored.iter().filter(|s| s.answer.is_some()).count();
    format!(
        "online lookups kept: {found} found, {} not found",
        stored.len() - found
    )
}

/// What `colophon lookup` found about one identifier: the catalogues'
/// answers merged (the first catalogue's value of each field, then the
/// next's where it had none).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LookupAnswer {
    pub id: String,
    /// `found`, `not-found` or `failed`.
    pub result: String,
    pub metadata: Metadata,
    /// Per field, the catalogue it came from (`online:<source>`).
    pub sources: std::collections::BTreeMap<String, Via>,
    pub lookups: Vec<LookupReport>,
}

impl LookupAnswer {
    fn of(id: &Identifier, lookups: &[Lookup]) -> LookupAnswer {
        let mut metadata = Metadata::default();
        let mut sources = std::collections::BTreeMap::new();
        for l in lookups {
            if let Outcome::Found(m) = &l.outcome {
                for f in Field::ALL {
                    if m.has(f) && !metadata.has(f) {
                        copy_field(m, &mut metadata, f);
                        sources.insert(f.as_str().to_string(), l.catalogue.via());
                    }
                }
            }
        }
        let result = if !metadata.is_empty() {
            "found"
        } else if lookups.iter().any(|l| l.outcome == Outcome::NotFound) {
            "not-found"
        } else {
            "failed"
        };
        LookupAnswer {
            id: id.key(),
            result: result.to_string(),
            metadata,
            sources,
            lookups: lookups.iter().map(Lookup::report).collect(),
        }
    }

    /// The lines `colophon lookup` prints without `--json`.
    pub fn text(&self) -> String {
        let mut s = format!("{}: {}\n", self.id, self.result);
        let m = &self.metadata;
        let rows: [(&str, Option<String>); 9] = [
            ("title", m.title.clone()),
            ("subtitle", m.subtitle.clone()),
            (
                "authors",
                (!m.authors.is_empty()).then(|| m.authors.join("; ")),
            ),
            ("publisher", m.publisher.clone()),
            ("year", m.year.map(|y| y.to_string())),
            ("edition", m.edition.clone()),
            ("isbn", m.isbn.clone()),
            ("doi", m.doi.clone()),
            ("loc", m.loc.clone()),
        ];
        for (name, value) in rows {
            if let Some(v) = value {
                let via = self.sources.get(name).map_or("", |v| v.as_str());
                s.push_str(&format!(
                    "  {name:<10} {}  ({via})\n",
                    crate::util::escape::controls(&v)
                ));
            }
        }
        for l in &self.lookups {
            let cached = if l.cached { ", from the cache" } else { "" };
            let detail = l
                .detail
                .as_deref()
                .map_or(String::new(), |d| format!(": {d}"));
            s.push_str(&format!("  [{} {}{cached}{detail}]\n", l.source, l.result));
        }
        s
    }
}

/// `colophon lookup ID...`: asks the catalogues about each identifier
/// (the cache first) and returns the answers; `Err` names an argument that
/// is no identifier.
pub fn lookup_ids(online: &Online, args: &[String]) -> Result<Vec<LookupAnswer>, String> {
    let ids: Vec<Identifier> = args
        .iter()
        .map(|a| {
            Identifier::parse(a).ok_or_else(|| {
                format!("{a:?} is not an ISBN (with a valid check digit), a DOI or an LCCN")
            })
        })
        .collect::<Result<_, _>>()?;
    Ok(ids
        .iter()
        .map(|id| LookupAnswer::of(id, &online.lookup(id)))
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identifiers_typed_by_people() {
        assert_eq!(
            Identifier::parse("0-201-89683-4"),
            Some(Identifier::Isbn("9780201896831".into()))
        );
        assert_eq!(
            Identifier::parse("https://doi.org/10.18637/JSS.V087.I07"),
            Some(Identifier::Doi("10.18637/jss.v087.i07".into()))
        );
        assert_eq!(
            Identifier::parse("lccn:72-81345"),
            Some(Identifier::Lccn("72081345".into()))
        );
        assert_eq!(
            Identifier::parse("2021038846"),
            Some(Identifier::Lccn("2021038846".into()))
        );
        assert_eq!(Identifier::parse("hello"), None);
        assert_eq!(Identifier::parse("isbn:9780201896832"), None, "check digit");
    }

    #[test]
    fn only_the_identifier_goes_into_the_url() {
        let id = Identifier::Doi("10.1000/a b#c?d".into());
        assert_eq!(
            Catalogue::Doi.url("https://doi.org/", &id, ""),
            "https://doi.org/10.1000/a%20b%23c%3Fd"
        );
        assert_eq!(
            Catalogue::Crossref.url("https://api.crossref.org", &id, "me@example.org"),
            "https://api.crossref.org/works/10.1000/a%20b%23c%3Fd?mailto=me@example.org"
        );
        let isbn = Identifier::Isbn("9781915862402".into());
        assert_eq!(
            Catalogue::OpenLibrary.url("http://127.0.0.1:9", &isbn, "me@example.org"),
            "http://127.0.0.1:9/api/books?bibkeys=ISBN:9781915862402&jscmd=data&format=json"
        );
        let lccn = Identifier::Lccn("72081345".into());
        assert_eq!(
            Catalogue::Loc.url("https://www.loc.gov", &lccn, ""),
            "https://www.loc.gov/item/72081345/?fo=json"
        );
        assert!(user_agent("me@example.org").contains("mailto:me@example.org"));
    }

    #[test]
    fn not_found_expires_and_found_is_kept() {
        let t = tempfile::tempdir().unwrap();
        let cache = Cache::open(t.path()).unwrap();
        let quit = AtomicBool::new(false);
        let reporter = crate::progress::reporter(true);
        let settings = Settings {
            // Nothing listens there: a request would fail, not answer.
            online_openlibrary_url: "http://127.0.0.1:9".into(),
            online_negative_ttl_days: 30,
            ..Settings::default()
        };
        let online = Online::new(&settings, &cache, reporter.as_ref(), &quit);
        let id = Identifier::Isbn("9781915862402".into());
        let key = keys::online_key("openlibrary", &id.key(), ONLINE_VERSION);
        let day = 86_400;
        cache.put(
            Tree::Online,
            &key,
            &Stored {
                at: now_secs() - 29 * day,
                answer: None,
            },
        );
        let l = online.ask(Catalogue::OpenLibrary, &id);
        assert_eq!((l.outcome, l.cached), (Outcome::NotFound, true));
        cache.put(
            Tree::Online,
            &key,
            &Stored {
                at: now_secs() - 31 * day,
                answer: None,
            },
        );
        let l = online.ask(Catalogue::OpenLibrary, &id);
        assert!(matches!(l.outcome, Outcome::Failed(_)), "{l:?}");
        assert!(!l.cached);
        // The failure replaced nothing: the expired entry is still there.
        let m = Metadata {
            title: Some("Kept".into()),
            ..Metadata::default()
        };
        cache.put(
            Tree::Online,
            &key,
            &Stored {
                at: 0,
                answer: Some(m.clone()),
            },
        );
        assert_eq!(
            online.ask(Catalogue::OpenLibrary, &id).outcome,
            Outcome::Found(m)
        );
        assert_eq!(
            cache_line(&cache),
            "online lookups kept: 1 found, 0 not found"
        );
    }
}
