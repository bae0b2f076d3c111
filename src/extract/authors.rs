//! Finder for `authors` candidates: the people a document is by, as printed.
//!
//! Where names are found, strongest first:
//! - under (or over) the title on the title page, or under a paper's title
//!   before its abstract: a list split on commas, "and", "&", semicolons,
//!   with affiliations, e-mails and footnote marks dropped and "by" /
//!   "edited by" / "(eds.)" / CJK role markers (著, 编著, 主编) removed;
//! - library cataloguing data ("Names: Last, First, author." and the
//!   statement of responsibility after " / " in a CIP title line);
//! - "The right of X to be identified as author", "X, 1967–." headings;
//! - copyright lines that name people ("© 2004 Greg Tillinghast, John
//!   Dorsey"): weak, since the holder is often the publisher;
//! - "Also by X" pages and "About the author" paragraphs: weak.
//!
//! Names come out in "First Last" order; an all-capitals name is set in
//! title case. Credits that are not authorship (photographs, drawings,
//! translation, cover design, 责任编辑) are not names of authors.

use super::layout::{Layout, PageLayout, fold, is_cjk, same_size_within};
use super::pattern::Pattern;
use crate::model::{Candidate, DocText, Field, TextLine, Value};
use std::collections::HashSet;
use std::sync::LazyLock;

/// Every `authors` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&Layout::new(doc))
}

/// [`find`] over a layout already built (`text_candidates` builds one
/// for the title and author finders of a document).
pub fn find_in(layout: &Layout) -> Vec<Candidate> {
    let mut out = Vec::new();
    for pl in &layout.pages {
        title_page_names(layout, pl, &mut out);
        statement_names(pl, &mut out);
    }
    out
}

/// What one line says about people.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum LineKind {
    /// Person names in "First Last" order; `marked` when a role word
    /// ("by", "edited by", "(eds.)", 著) says these are the authors.
    Names {
        names: Vec<String>,
        marked: bool,
        /// The role word makes them editors or compilers, not authors.
        editor: bool,
    },
    /// "and", "by", "edited by" alone: joins the lines around it.
    Connector {
        marked: bool,
        editor: bool,
    },
    /// Affiliation, address, e-mail or URL: may sit between name lines.
    Affiliation,
    /// A credit that is not authorship ("Photographs by Neil Garside").
    Credit,
    Other,
}

static EMAIL: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"\S+@\S+|(?i)\bhttps?://\S+|\bwww\.\S+").unwrap());
static CREDIT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)^(?:\w+\s+){0,3}?
        (photo\w*|drawings?|drawn|illustrat\w*|pictures|images|maps|translat\w*|übersetz\w*|traduit|traducción|
         foreword|preface|introduction|afterword|cover|jacket|design\w*|typeset\w*|set|printed|
         published|distributed|sponsored|supported|produced|revised|reviewed|indexed?|
         maintained|funded|hosted|bound|read|narrated|music|cartography)
        \b.*\b(by|von|par|de)\b",
    )
    .unwrap()
});
static CJK_CREDIT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(责任编辑|責任編輯|封面设计|封面設計|装帧设计|版式设计|责任校对|责任印制|翻译|译者|插图|摄影|策划)").unwrap()
});
static LEAD_ROLE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)^(?:
            (?:(?:written|edited|compiled|selected|collected|arranged|prepared)(?:\s+and\s+(?:edited|compiled|introduced|annotated))?|ed\.|eds\.|text)?\s*by
          | herausgegeben\s+von | hrsg\.\s+von | von | par | sous\s+la\s+direction\s+de | a\s+cura\s+di
          | editors? | edited\s+by | author(?:s)?\s*: | editor(?:s)?\s*:
        )\s+",
    )
    .unwrap()
});
static TRAIL_ROLE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)(?:\s*\((?:eds?|hrsg|dir|coord|comp|ed\.\s*by)\.?\)|,\s*(?:editors?|eds?\.?|compilers?))\.?\s*$")
        .unwrap()
});
static CJK_ROLE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"\s*(?:等)?(?:编著|編著|主编|主編|编撰|編撰|合著|著者|監修|编|編|著|撰|지음|저)\s*$",
    )
    .unwrap()
});
static CJK_LEAD: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^(?:作者|著者|编者|編者|主编|主編)\s*[:：]\s*").unwrap());
static FOOTNOTE: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"[*†‡§¶⁎∗✉⋆★♠♣♦♥#]|[⁰¹²³⁴⁵⁶⁷⁸⁹]+").unwrap());
/// Marks that OCR reads from superscripts: a quote or "!" glued to the end
/// of a name ("Chaluvadi'", "Barzel!").
static OCR_MARK: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r#"(\p{L})['’”"!]+(\s|,|;|$)"#).unwrap());
/// Digits glued to a name ("Chaluvadi1") or standing alone before a comma,
/// "and" or the end of the line ("Chaluvadi 1 , Kolesnikov 2").
static NOTE_DIGITS: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(\p{L})\d{1,2}(?:,\d{1,2})*\b|\s\d{1,2}(?:,\d{1,2})*(\s*[,;]|\s+and\b|\s*$)")
        .unwrap()
});
/// A footnote or affiliation mark glued to a name and followed by the next
/// name: names set apart by their marks alone ("Ann Lee1 Bo Chen2",
/// "Ann Lee∗ Bo Chen†"). The mark then separates them like a comma.
static MARK_BETWEEN: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(\p{L})(?:\d{1,2}(?:,\d{1,2})*|[*†‡§¶⁎∗✉⋆★]+|[⁰¹²³⁴⁵⁶⁷⁸⁹]+)\s+(\p{Lu})").unwrap()
});
static SPLIT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"\s*(?:[;,，、·•|]|\s(?i:and|und|et)\s|\s(?:y|e|i|och|og|en)\s|\s*&\s*|\s+with\s+)\s*",
    )
    .unwrap()
});
static HONORIFIC: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^(?:(?:Dr|Prof|RNDr|Mgr|Ing|Doc|Mr|Mrs|Ms|Sir|Dame|Rev|Fr|Hon)\.?\s+)+|,?\s+(?:Ph\.?\s?D\.?|M\.?D\.?|M\.?A\.?|M\.?Sc\.?|B\.?A\.?|CSc\.?|DrSc\.?|FRS)\.?$")
        .unwrap()
});

/// Words that never occur in a person's name but often in the lines next
/// to names: institutions, imprints, places, and generic title words.
#[rustfmt::skip]
const NOT_NAME_WORDS: &[&str] = &[
    "the", "of", "for", "and", "in", "on", "at", "from", "with", "an", "into", "about",
    "university", "universitat", "universite", "universidad", "universita", "universiteit",
    "univ", "institute", "institut", "instituto", "istituto", "college", "school", "department",
    "dept", "faculty", "laboratory", "laboratories", "lab", "labs", "center", "centre",
    "research", "inc", "ltd", "llc", "gmbh", "corp", "corporation", "company", "press",
    "verlag", "fachverlag", "books", "publishing", "publishers", "publisher", "publications",
    "editions", "edizioni", "editorial", "editorа", "media", "house", "society", "association",
    "foundation", "library", "museum", "academy", "hospital", "clinic", "ministry", "agency",
    "council", "office", "bureau", "services", "associates", "partners", "consulting",
    "software", "systems", "technologies", "technology", "project", "group", "network",
    "introduction", "manual", "guide", "handbook", "edition", "volume", "chapter", "contents",
    "report", "abstract", "technical", "notes", "methods", "language", "graphics", "data",
    "science", "sciences", "studies", "series", "journal", "proceedings", "conference",
    "review", "letters", "version", "release", "draft", "copyright", "rights", "reserved",
    "printed", "published", "keywords", "street", "road", "avenue", "lane", "square",
    "place", "drive", "building", "floor", "usa", "u s a", "uk", "america", "canada", "germany",
    "deutschland", "france", "england", "scotland", "ireland", "wales", "china", "japan",
    "india", "australia", "switzerland", "austria", "netherlands", "italy", "spain", "sweden",
    "norway", "denmark", "finland", "belgium", "poland", "czech", "republic", "kingdom",
    "states", "united", "city", "county", "province", "state", "national", "international",
    "federal", "royal", "imperial", "general", "preface", "foreword", "index", "appendix",
    "bibliography", "references", "acknowledgements", "acknowledgments", "dedication", "table",
    "figure", "part", "book", "vol", "photographs", "drawings", "illustrations", "chapters",
    "authors", "author", "editor", "editors", "contributors", "package", "tutorial", "primer",
    "companion", "reader", "history", "theory", "principles", "fundamentals", "elements",
    "essentials", "basics", "foundations", "practice", "art", "types", "type", "request",
    "requests", "functions", "function", "examples", "example", "overview", "results",
    "discussion", "conclusion", "conclusions", "background", "methodology", "evaluation",
    "implementation", "design", "analysis", "approach", "model", "models", "problem",
    "problems", "exercises", "solutions", "lectures", "course", "workshop", "documentation",
    "specification", "reference", "collection", "catalogue", "catalog", "dictionary",
    "encyclopedia", "atlas", "programming", "mathematics", "physics", "chemistry", "biology",
    "economics", "law", "engineering", "computing", "computer", "statistics", "algorithms",
    "structures", "networks", "received", "accepted", "revised", "submitted", "available",
    "online", "eingegangen", "angenommen", "recu", "accepte", "hochschule", "fachhochschule",
    "technische", "ecole", "akademie", "politecnico", "polytechnic", "polytechnique", "released",
    "updated", "modified",
    // Institutions in the languages papers are written in.
    "forschungszentrum", "zentrum", "forschungsinstitut", "fakultat", "lehrstuhl", "abteilung",
    "laboratoire", "laboratorium", "laboratorio", "laboratori", "faculte", "facultad", "facolta",
    "departement", "departamento", "dipartimento", "centro", "centrum", "universidade",
    "uniwersytet", "instytut", "politechnika", "academia", "academie", "scuola", "escuela",
    "университет", "институт", "академия", "лаборатория", "факультет", "кафедра", "центр",
    "отдел", "школа",
    // Labels and section heads of article pages.
    "article", "articles", "related", "verwandte", "arbeiten", "forschungsbeitrag", "travaux",
    "connexes", "статья", "работы", "введение", "аннотация",
];

/// Places that look like a first and last name.
#[rustfmt::skip]
const PLACES: &[&str] = &[
    "new york", "new jersey", "new haven", "new delhi", "new orleans", "new zealand",
    "new south wales", "new brunswick", "new hampshire", "new mexico", "san francisco",
    "san diego", "san jose", "santa clara", "santa barbara", "santa cruz", "santa monica",
    "los angeles", "las vegas", "hong kong", "tel aviv", "buenos aires", "cape town",
    "rio de janeiro", "sao paulo", "mexico city", "kuala lumpur", "st louis", "saint louis",
    "salt lake city", "palo alto", "menlo park", "mountain view", "ann arbor", "boca raton",
    "thousand oaks", "upper saddle river", "englewood cliffs", "reading massachusetts",
    "north holland", "great britain", "united kingdom", "united states", "west sussex",
    "east sussex", "basel boston", "boston basel", "frankfurt am main", "den haag", "the hague",
    "baton rouge", "college station", "chapel hill", "research triangle park", "redwood city",
    "sebastopol", "fort worth", "el paso", "abu dhabi", "sri lanka", "south africa",
    "north carolina", "south carolina", "north dakota", "south dakota", "west virginia",
    "rhode island", "puerto rico", "costa rica", "saudi arabia",
];

/// Lower-case words allowed inside a name ("Ludwig van Beethoven").
#[rustfmt::skip]
const PARTICLES: &[&str] = &[
    "van", "von", "der", "den", "de", "du", "da", "das", "dos", "del", "della", "di", "le",
    "la", "bin", "ibn", "al", "el", "y", "ten", "ter", "zu", "af", "av", "d'", "l'", "mac",
    "st.", "des", "vom", "zur", "dei", "degli", "delle", "dello", "op", "het",
];

/// [`NOT_NAME_WORDS`] for lookups: every word of every piece of every
/// line is looked up, and a list scan of a few hundred words was a
/// noticeable share of extraction.
static NOT_NAME_SET: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| NOT_NAME_WORDS.iter().copied().collect());

const SUFFIXES: &[&str] = &["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"];

/// Classifies one line of text as names, connector, affiliation, credit or
/// other. Used for title pages and paper headings.
pub(crate) fn classify(text: &str) -> LineKind {
    match classify_wording(text) {
        Ok(kind) => kind,
        Err((t, had_link)) => classify_names(&t, had_link),
    }
}

/// Whether [`classify`] says credit or connector, without reading the line
/// as a list of names (which never gives those kinds, and is the slow part
/// on a long paragraph).
pub(crate) fn is_credit_or_connector(text: &str) -> bool {
    matches!(
        classify_wording(text),
        Ok(LineKind::Credit | LineKind::Connector { .. })
    )
}

/// The kinds [`classify`] tells from wording alone; otherwise the line
/// (e-mail addresses and URLs blanked) to read as names, and whether it
/// had one.
fn classify_wording(text: &str) -> Result<LineKind, (String, bool)> {
    let raw = text.trim();
    if raw.is_empty() {
        return Ok(LineKind::Other);
    }
    if CREDIT.is_match(raw) || CJK_CREDIT.is_match(raw) {
        return Ok(LineKind::Credit);
    }
    if COPYRIGHT.is_match(raw) {
        // Copyright holders are read apart (see `statement_names`): they are
        // as often the publisher as the authors.
        return Ok(LineKind::Other);
    }
    let had_link = EMAIL.is_match(raw);
    let mut t = EMAIL.replace_all(raw, " ").to_string();
    t = t
        .trim_matches(|c: char| c.is_whitespace() || ",;".contains(c))
        .to_string();
    if !t.chars().any(char::is_alphanumeric) {
        return Ok(if had_link {
            LineKind::Affiliation
        } else {
            LineKind::Other
        });
    }
    let folded = fold(&t);
    if matches!(
        folded.as_str(),
        "and" | "und" | "et" | "y" | "with" | "and the" | "avec" | "mit" | "con"
    ) {
        return Ok(LineKind::Connector {
            marked: false,
            editor: false,
        });
    }
    if matches!(
        folded.as_str(),
        "by" | "edited by"
            | "compiled by"
            | "written by"
            | "edited and compiled by"
            | "compiled and edited by"
            | "selected and edited by"
            | "edited with an introduction by"
            | "herausgegeben von"
            | "hrsg von"
            | "von"
            | "par"
            | "sous la direction de"
            | "a cura di"
            | "editors"
            | "editor"
            | "edited and introduced by"
            | "编著"
            | "主编"
            | "著"
            | "编"
    ) {
        let editor = EDITOR_WORD.is_match(&folded);
        return Ok(LineKind::Connector {
            marked: true,
            editor,
        });
    }
    Err((t, had_link))
}

/// [`classify`] of a line that must be read as a list of names.
fn classify_names(t: &str, had_link: bool) -> LineKind {
    let list = read_names(t, true);
    if list.others > 0 {
        return LineKind::Other;
    }
    if !list.names.is_empty() {
        return LineKind::Names {
            names: list.names,
            marked: list.marked,
            editor: list.editor,
        };
    }
    if list.orgs > 0 || had_link {
        return LineKind::Affiliation;
    }
    LineKind::Other
}

/// A line read as a list of names.
#[derive(Debug, Clone, Default)]
pub(crate) struct NameList {
    /// "First Last", in order, without duplicates.
    pub names: Vec<String>,
    /// A role word ("by", "(eds.)", 著) was there.
    pub marked: bool,
    /// The role word names editors or compilers.
    pub editor: bool,
    /// Pieces that are institutions, places or addresses (dropped).
    pub orgs: usize,
    /// Pieces that are neither names nor institutions: when any, the line
    /// is not a list of names.
    pub others: usize,
}

impl NameList {
    /// Names and nothing else that cannot be explained.
    pub fn is_clean(&self) -> bool {
        !self.names.is_empty() && self.others == 0
    }
}

/// Editing and compiling, as opposed to writing.
static EDITOR_WORD: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)edit|compil|herausg|hrsg|direction|cura|\beds?\b|主编|主編|^编$|^編$")
        .unwrap()
});

/// Splits a list of names, dropping role words, footnote marks and
/// institutions.
pub(crate) fn parse_names(text: &str) -> NameList {
    read_names(text, false)
}

/// [`parse_names`]; with `stop_at_other`, the reading stops at the first
/// piece that is neither a name nor an institution (the list then has
/// `others == 1`): that is all [`classify`] needs to know, and most lines
/// of a page are such text.
fn read_names(text: &str, stop_at_other: bool) -> NameList {
    let mut t = text.trim().to_string();
    let mut marked = false;
    let mut editor = false;
    let mut cjk_marked = false;
    if let Some(m) = CJK_LEAD.find(&t) {
        t = t[m.end()..].to_string();
        cjk_marked = true;
    }
    if let Some(m) = CJK_ROLE.find(&t)
        && t[..m.start()].chars().any(is_cjk)
    {
        editor |= EDITOR_WORD.is_match(m.as_str().trim().trim_start_matches('等'));
        t.truncate(m.start());
        cjk_marked = true;
    }
    if let Some(m) = LEAD_ROLE.find(&t) {
        editor |= EDITOR_WORD.is_match(m.as_str());
        t = t[m.end()..].to_string();
        marked = true;
    }
    if let Some(m) = TRAIL_ROLE.find(&t) {
        editor = true;
        t.truncate(m.start());
        marked = true;
    }
    t = MARK_BETWEEN.replace_all(&t, "$1, $2").to_string();
    t = FOOTNOTE.replace_all(&t, " ").to_string();
    t = OCR_MARK.replace_all(&t, "$1$2").to_string();
    t = NOTE_DIGITS.replace_all(&t, "$1$2").to_string();
    t = t.trim().trim_end_matches(['.', ',', ';', ':']).to_string();

    let mut pieces: Vec<String> = SPLIT.split(&t).map(|s| s.trim().to_string()).collect();
    // CJK names are often set apart by spaces only: "刘雨桐 吴建国 郑浩".
    if pieces.len() == 1 && t.chars().any(is_cjk) {
        pieces = t.split_whitespace().map(str::to_string).collect();
    }
    // "Smith, Jr." : a suffix belongs to the name before it.
    let mut merged: Vec<String> = Vec::new();
    for p in pieces {
        if SUFFIXES.contains(&p.to_lowercase().as_str())
            && let Some(last) = merged.last_mut()
        {
            last.push_str(", ");
            last.push_str(&p);
            continue;
        }
        merged.push(p);
    }

    let (mut names, mut orgs, mut others) = (Vec::new(), 0, 0);
    for p in merged {
        let p = p
            .trim()
            .trim_start_matches("and ")
            .trim_start_matches("the ")
            .trim_start_matches("The ")
            .trim();
        let p = HONORIFIC.replace_all(p, "").trim().to_string();
        if p.is_empty() {
            continue;
        }
        match piece_kind(&p, cjk_marked) {
            Piece::Name(n) => {
                if !names.contains(&n) {
                    names.push(n)
                }
            }
            Piece::Org => orgs += 1,
            Piece::Other => {
                others += 1;
                if stop_at_other {
                    break;
                }
            }
        }
    }
    NameList {
        names,
        marked: marked || cjk_marked,
        editor,
        orgs,
        others,
    }
}

enum Piece {
    Name(String),
    Org,
    Other,
}

fn piece_kind(p: &str, cjk_marked: bool) -> Piece {
    let folded = fold(p);
    if p.chars().any(|c| c.is_ascii_digit()) {
        // Addresses, postcodes, years: part of an affiliation.
        return Piece::Org;
    }
    if folded.split(' ').any(|w| NOT_NAME_SET.contains(w)) || PLACES.iter().any(|pl| folded == *pl)
    {
        return Piece::Org;
    }
    let cjk = p.chars().filter(|c| is_cjk(*c)).count();
    if cjk > 0 {
        let n = p.chars().filter(|c| !c.is_whitespace()).count();
        if cjk_marked && cjk == n && (2..=4).contains(&cjk) {
            return Piece::Name(p.split_whitespace().collect());
        }
        return Piece::Other;
    }
    match person_name(p) {
        Some(n) => Piece::Name(n),
        None => Piece::Other,
    }
}

/// `Some("First Last")` when `p` reads as one person's name: two to six
/// words, each capitalised (or an initial, or a particle such as "van"),
/// ending in a surname. An all-capitals name is set in title case.
pub(crate) fn person_name(p: &str) -> Option<String> {
    let letters: Vec<char> = p.chars().filter(|c| c.is_alphabetic()).collect();
    if letters.len() < 3 {
        return None;
    }
    let all_caps = letters.iter().all(|c| !c.is_lowercase()) && letters.len() > 3;
    let words: Vec<String> = p
        .split_whitespace()
        .map(|w| {
            if all_caps {
                title_case(w)
            } else {
                w.to_string()
            }
        })
        .collect();
    if !(2..=6).contains(&words.len()) {
        return None;
    }
    let mut real = 0;
    for (i, w) in words.iter().enumerate() {
        let lw = w.to_lowercase();
        let last = i == words.len() - 1;
        let bare = w.trim_end_matches(',');
        if i > 0 && SUFFIXES.contains(&lw.trim_start_matches(',').trim()) {
            if !last {
                return None;
            }
            continue;
        }
        if PARTICLES.contains(&lw.as_str()) {
            if i == 0 && words.len() == 2 || last {
                return None;
            }
            continue;
        }
        if is_initial(bare) {
            if last {
                return None;
            }
            real += 1;
            continue;
        }
        if !is_name_word(bare) {
            return None;
        }
        real += 1;
    }
    if real < 2 {
        return None;
    }
    Some(words.join(" "))
}

/// "W.", "J.-P.", "R" (as in "Q Core Team"), "Ó" (as in "Cathal Ó Murchadha").
fn is_initial(w: &str) -> bool {
    let mut cs = w.chars();
    match (cs.next(), cs.as_str()) {
        (Some(c), rest) if c.is_uppercase() => {
            rest.is_empty()
                || rest == "."
                || (rest.starts_with(".-")
                    && rest[2..].chars().next().is_some_and(|c| c.is_uppercase())
                    && rest.ends_with('.')
                    && rest.len() <= 5)
                || (rest.len() <= 4 && rest.starts_with('.') && rest.ends_with('.'))
        }
        _ => false,
    }
}

/// A capitalised word with at least one lower-case letter after the first:
/// "Tillinghast", "O'Brien", "Möllendorf-Berg", "McDonald". An all-capitals
/// word ("IBM", "PAO") inside a mixed-case name is an acronym, not a name.
fn is_name_word(w: &str) -> bool {
    let mut cs = w.chars();
    let Some(first) = cs.next() else {
        return false;
    };
    let rest: Vec<char> = cs.collect();
    first.is_uppercase()
        && rest.iter().any(|c| c.is_lowercase())
        && rest
            .iter()
            .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’'))
}

fn title_case(w: &str) -> String {
    let mut out = String::with_capacity(w.len());
    let mut start = true;
    for c in w.chars() {
        if start {
            out.extend(c.to_uppercase());
        } else {
            out.extend(c.to_lowercase());
        }
        start = matches!(c, '-' | '\'' | '’' | '.');
    }
    out
}

fn candidate(names: Vec<String>, score: f32, pl: &PageLayout, why: String) -> Candidate {
    Candidate {
        field: Field::Authors,
        value: Value::Names(names),
        score,
        page: Some(pl.page.index),
        via: pl.page.via,
        why,
    }
}

/// Names set as lines of their own near a title: on a display page with a
/// heading, or in the header of a paper (between its title and abstract).
fn title_page_names(layout: &Layout, pl: &PageLayout, out: &mut Vec<Candidate>) {
    // The title: the largest block that could be one (not a masthead or
    // a "TECHNICAL REPORT" label), else the largest block.
    let head = (0..pl.blocks.len())
        .filter(|&i| pl.ranks_as_title(i))
        .max_by(|&a, &b| pl.blocks[a].size.total_cmp(&pl.blocks[b].size))
        .or_else(|| pl.largest_block());
    let Some(head) = head else {
        return;
    };
    let mut heading = &pl.blocks[head];
    let front = layout.is_front(pl.page);
    let display = pl.is_display();
    let has_heading = heading.size >= layout.body_size * 1.2;
    let base = if display || has_heading && heading.top < pl.page.height * 0.45 {
        match (front, display, has_heading) {
            (true, _, true) => 0.7,
            (true, true, false) => 0.3,
            // Back covers quote reviewers by name: only support, never alone.
            (false, true, _) => 0.25,
            _ => return,
        }
    } else {
        // An article set in one size: its title is the block right over
        // the first line of names in the upper part of its first page.
        match bylined_block(pl).filter(|_| pl.page.index <= 1) {
            Some(b) => {
                heading = &pl.blocks[b];
                0.35
            }
            None => return,
        }
    };

    struct Group {
        names: Vec<String>,
        marked: bool,
        editor: bool,
        top: f32,
        bottom: f32,
    }
    let mut groups: Vec<Group> = Vec::new();
    let mut open: Option<Group> = None;
    // The last line read together with lines above it (a name broken in
    // two, a list set as a paragraph).
    let mut joined_until: Option<usize> = None;
    // A role line ("Edited by") alone marks the names that follow it.
    let mut pending_mark = false;
    let mut pending_editor = false;
    let close = |open: &mut Option<Group>, groups: &mut Vec<Group>| {
        if let Some(g) = open.take()
            && !g.names.is_empty()
        {
            groups.push(g);
        }
    };
    for (i, l) in pl.content_lines() {
        let in_heading = heading.lines.contains(&i);
        if !display {
            // A paper: only the lines between its title and the abstract.
            if l.bbox.top < heading.bottom - 1.0 || in_heading {
                continue;
            }
            let f = fold(&l.text);
            // The byline sits right under the title, and a long one goes
            // on for as long as its lines follow each other.
            let above = open.as_ref().map_or(heading.bottom, |g| g.bottom);
            let far = l.bbox.top - above > heading.size * 5.0;
            // (A long line of affiliations or names is not prose.)
            let prose = is_long_line(l, pl)
                && l.size <= layout.body_size * 1.1
                && !matches!(pl.kinds[i], LineKind::Affiliation | LineKind::Names { .. })
                && !mostly_capitalised(&l.text);
            if is_paper_section(&f) || prose || far {
                break;
            }
        }
        if in_heading {
            close(&mut open, &mut groups);
            (pending_mark, pending_editor) = (false, false);
            continue;
        }
        if joined_until.is_some_and(|last| i <= last) {
            // Already read with the lines above it.
            if let Some(g) = open.as_mut() {
                g.bottom = g.bottom.max(l.bbox.bottom);
            }
            continue;
        }
        let near = |g: &Group| l.bbox.top - g.bottom <= l.size.max(8.0) * 2.6;
        let mut kind = pl.kinds[i].clone();
        // A list of names with one broken at the end of the line ("…,
        // Anna" / "Berg, …") reads as names together with the line that
        // goes on with it.
        if matches!(kind, LineKind::Other)
            && let Some((head, _)) = l.text.trim_end().rsplit_once(char::is_whitespace)
            && matches!(classify(head), LineKind::Names { .. })
            && let Some(next) = pl.rows.get(i + 1)
            && next.bbox.top - l.bbox.bottom <= l.size.max(8.0) * 1.5
            && let joined @ LineKind::Names { .. } = classify(&format!("{} {}", l.text, next.text))
        {
            kind = joined;
            joined_until = Some(i + 1);
        } else if let Some((joined, last)) = names_paragraph(pl, i) {
            kind = joined;
            joined_until = Some(last);
        }
        match kind {
            LineKind::Names {
                names,
                marked,
                editor,
            } => {
                let editor = editor || pending_editor;
                // Authors and editors on one page are two lists.
                if let Some(g) = open.as_mut().filter(|g| near(g) && g.editor == editor) {
                    for n in names {
                        if !g.names.contains(&n) {
                            g.names.push(n);
                        }
                    }
                    g.marked |= marked;
                    g.bottom = g.bottom.max(l.bbox.bottom);
                } else {
                    close(&mut open, &mut groups);
                    open = Some(Group {
                        names,
                        marked: marked || pending_mark,
                        editor,
                        top: l.bbox.top,
                        bottom: l.bbox.bottom,
                    });
                }
                (pending_mark, pending_editor) = (false, false);
            }
            LineKind::Connector { marked, editor } => {
                match open.as_mut().filter(|g| near(g) && g.editor == editor) {
                    Some(g) => {
                        g.bottom = l.bbox.bottom;
                        g.marked |= marked;
                    }
                    None => close(&mut open, &mut groups),
                }
                pending_mark |= marked;
                pending_editor |= editor;
            }
            LineKind::Affiliation => {
                if let Some(g) = open.as_mut().filter(|g| near(g)) {
                    g.bottom = l.bbox.bottom;
                }
            }
            // Each author may be followed by lines of their own (a
            // department, a town, a note) that read as neither names nor
            // institutions: the list goes on after them. (A line as large
            // as the title is not one of those.)
            LineKind::Other if l.size < heading.size * 0.8 && open.as_ref().is_some_and(near) => {
                if let Some(g) = open.as_mut() {
                    g.bottom = l.bbox.bottom;
                }
            }
            LineKind::Credit | LineKind::Other => {
                close(&mut open, &mut groups);
                (pending_mark, pending_editor) = (false, false);
            }
        }
    }
    close(&mut open, &mut groups);

    // The group nearest the title is the byline; later ones (an imprint
    // town, a dedicatee) are weaker.
    let dist = |g: &Group| {
        if g.top >= heading.bottom {
            g.top - heading.bottom
        } else {
            heading.top - g.bottom
        }
    };
    let nearest = groups
        .iter()
        .enumerate()
        .min_by(|a, b| dist(a.1).total_cmp(&dist(b.1)))
        .map(|(i, _)| i);
    // Editors count only where no author is named.
    let has_authors = groups.iter().any(|g| !g.editor);
    for (i, g) in groups.into_iter().enumerate() {
        let mut score = if Some(i) == nearest {
            base
        } else {
            base * 0.65
        };
        if g.marked {
            score += 0.1;
        }
        if g.editor && has_authors {
            score *= 0.5;
        }
        let why = format!(
            "{} names near the title{}",
            if display {
                "title page"
            } else {
                "paper heading"
            },
            match (g.marked, g.editor) {
                (_, true) => " (editors)",
                (true, false) => " (by-line)",
                _ => "",
            }
        );
        out.push(candidate(g.names, score, pl, why));
    }
}

/// The first block in the upper part of the page with a line of names right
/// under it.
fn bylined_block(pl: &PageLayout) -> Option<usize> {
    let upper = pl.page.height * 0.45;
    (0..pl.blocks.len()).find(|&bi| {
        let b = &pl.blocks[bi];
        b.top < upper
            && !b
                .lines
                .iter()
                .any(|&i| matches!(pl.kinds[i], LineKind::Names { .. }))
            && pl.byline_under(bi, 2.5)
    })
}

/// A list of names set as a paragraph, with names broken across its lines
/// ("…, Hans Peter" / "Ellerbeck, Mia van" / "Dorn and Karl Ekberg"):
/// the lines from `i` on that follow it tightly in its size, read as one
/// list of more names than line `i` alone gives, and the last line read.
/// Not a date or a section head under a name.
fn names_paragraph(pl: &PageLayout, i: usize) -> Option<(LineKind, usize)> {
    let first = &pl.rows[i];
    if !matches!(pl.kinds[i], LineKind::Names { .. } | LineKind::Other) {
        return None;
    }
    let alone = match &pl.kinds[i] {
        LineKind::Names { names, .. } => names.len(),
        _ => 0,
    };
    let mut best = None;
    let mut last = i;
    let mut text = first.text.clone();
    while let Some(next) = pl.rows.get(last + 1) {
        let prev = &pl.rows[last];
        let follows = matches!(pl.kinds[last + 1], LineKind::Names { .. } | LineKind::Other)
            && same_size_within(first.size, next.size, 0.05)
            && next.bbox.top - prev.bbox.bottom <= first.size.max(8.0) * 0.8
            && !next.text.split_whitespace().any(is_number)
            && !is_paper_section(&fold(&next.text));
        if !follows || last - i >= MAX_LIST_LINES {
            break;
        }
        text = format!("{} {}", text.trim_end(), next.text.trim_start());
        last += 1;
        // The longest run of lines that still reads as one list.
        let joined = classify(&text);
        if matches!(&joined, LineKind::Names { names, .. } if names.len() >= 2 && names.len() > alone)
        {
            best = Some((joined, last));
        }
    }
    best
}

/// Lines of one list of names read together, at most.
const MAX_LIST_LINES: usize = 8;

/// A word of digits (a day, a year), not a name with a mark ("Berg1").
fn is_number(w: &str) -> bool {
    w.chars().any(|c| c.is_ascii_digit())
        && w.chars()
            .all(|c| c.is_ascii_digit() || ",.;:–-".contains(c))
}

/// Section heads that end a paper's title block.
fn is_paper_section(f: &str) -> bool {
    let f = f.trim_start_matches(|c: char| c.is_ascii_digit() || c == ' ');
    [
        "abstract",
        "summary",
        "keywords",
        "introduction",
        "contents",
        "zusammenfassung",
        "resume",
        "résumé",
        "related work",
        "einleitung",
        "schlagworter",
        "mots cles",
        "index terms",
        "аннотация",
        "введение",
        "ключевые слова",
    ]
    .iter()
    .any(|s| f == *s || f.starts_with(&format!("{s} ")))
}

/// Most words start with a capital: a line of names and institutions
/// ("Department of Physics, University of Morford, London"), not a
/// sentence.
fn mostly_capitalised(text: &str) -> bool {
    let words: Vec<&str> = text.split_whitespace().collect();
    let caps = words
        .iter()
        .filter(|w| w.chars().next().is_some_and(char::is_uppercase))
        .count();
    caps * 2 > words.len()
}

fn is_long_line(l: &TextLine, pl: &PageLayout) -> bool {
    l.bbox.width() >= pl.page.width * 0.55 && l.text.split_whitespace().count() >= 10
}

static COPYRIGHT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^\s*(?:text\s+)?(?:copyright\s*(?:©|\(c\)|c\b)?|©|\(c\))\s*(.+)$").unwrap()
});
static YEARS: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"\b(?:1[5-9]|20)\d\d(?:\s*[-–—/]\s*\d{2,4})?\b[,.]?").unwrap());
static ALL_RIGHTS: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:all|some) rights reserved.*$|^\s*by\s+|\.\s*$").unwrap()
});
static ALSO_BY: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^\s*(?:also|other books|more books)\s+by\s+(.+?)\s*:?\s*$").unwrap()
});
static MORAL_RIGHT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\bright of (.{3,120}?) to be identified as (?:the )?(?:authors?|editors?|compilers?)\b").unwrap()
});
static CATALOG_HEADING: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^\s*([^,]{3,60}),\s*(?:\d{4})\s*[-–—]\s*(?:\d{4})?\s*\.?\s*$").unwrap()
});
static ABOUT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^((?:\p{Lu}[\p{L}.'’-]*\s+){1,3}\p{Lu}[\p{L}'’-]+)\s+(?:is|was|has|had|lives|lived|grew|teaches|taught|works|worked|holds|received|studied|writes|wrote|spent|began|trained)\b").unwrap()
});
static CIP_LABEL: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?m)^(Names|Title|Other titles|Description|Identifiers|Subjects|Classification|LC record|LC ebook record|Series|Summary|Audience)\s*:").unwrap()
});

/// Names in sentences and labelled lines anywhere in the pages read:
/// copyright lines, CIP data, "Also by", moral-rights notices, "About the
/// author".
fn statement_names(pl: &PageLayout, out: &mut Vec<Candidate>) {
    let lines: Vec<&TextLine> = pl.content_lines().map(|(_, l)| l).collect();
    let mut about = false;
    for l in &lines {
        let text = l.text.trim();
        // TeX's © often comes out as a bare "c" before the year or name.
        let bare_c = text
            .strip_prefix("c ")
            .filter(|r| r.starts_with(|c: char| c.is_ascii_digit() || c.is_uppercase()));
        let holder = COPYRIGHT
            .captures(text)
            .map(|c| c[1].to_string())
            .or(bare_c.map(str::to_string));
        if let Some(holder) = holder {
            let rest = YEARS.replace_all(&holder, " ");
            let rest = ALL_RIGHTS.replace_all(rest.trim(), "");
            let list = parse_names(rest.trim());
            if list.is_clean() {
                out.push(candidate(list.names, 0.35, pl, "copyright holder".into()));
            }
            continue;
        }
        if let Some(c) = ALSO_BY.captures(text) {
            if let LineKind::Names { names, .. } = classify(&c[1]) {
                out.push(candidate(names, 0.3, pl, "'also by' page".into()));
            }
            continue;
        }
        if let Some(c) = CATALOG_HEADING.captures(text)
            && let Some(n) = person_name(c[1].trim())
        {
            out.push(candidate(
                vec![n],
                0.45,
                pl,
                "catalogue heading 'Name, born-'".into(),
            ));
            continue;
        }
        let f = fold(text);
        if f == "about the author"
            || f == "about the authors"
            || f == "about the editor"
            || f == "about the editors"
        {
            about = true;
            continue;
        }
        if about {
            about = false;
            if let Some(c) = ABOUT.captures(text)
                && let Some(n) = person_name(c[1].trim())
            {
                out.push(candidate(vec![n], 0.3, pl, "about the author".into()));
            }
        }
    }

    // Sentences and labelled blocks may run over several lines.
    let joined = lines
        .iter()
        .map(|l| l.text.trim())
        .collect::<Vec<_>>()
        .join("\n");
    let flat = joined.replace('\n', " ");
    if let Some(c) = MORAL_RIGHT.captures(&flat) {
        let list = parse_names(&c[1]);
        if list.is_clean() {
            out.push(candidate(list.names, 0.5, pl, "moral-rights notice".into()));
        }
    }
    cip_names(&joined, pl, out);
}

/// Library of Congress and Chinese CIP data: "Names: Last, First, author.
/// | ...", "Title: X : Y / by A and B." and "X：Y / 甲，乙编著".
fn cip_names(joined: &str, pl: &PageLayout, out: &mut Vec<Candidate>) {
    // Cut the text into labelled fields ("Names: ..." up to the next label).
    let starts: Vec<(usize, &str)> = CIP_LABEL
        .captures_iter(joined)
        .map(|c| (c.get(0).unwrap().start(), c.get(1).unwrap().as_str()))
        .collect();
    for (k, (start, label)) in starts.iter().enumerate() {
        let end = starts.get(k + 1).map_or(joined.len(), |s| s.0);
        let body = joined[*start..end].replace('\n', " ");
        let body = body.split_once(':').map_or("", |b| b.1).trim();
        match *label {
            "Names" => {
                let mut names = Vec::new();
                for part in body.split('|') {
                    if let Some(n) = inverted_name(part) {
                        names.push(n);
                    }
                }
                if !names.is_empty() {
                    out.push(candidate(names, 0.55, pl, "CIP names".into()));
                }
            }
            "Title" => {
                if let Some((_, resp)) = body.split_once(" / ") {
                    let resp = resp.split(" | ").next().unwrap_or(resp);
                    let resp = resp.split(". ").next().unwrap_or(resp);
                    let list = parse_names(resp);
                    if list.is_clean() {
                        out.push(candidate(
                            list.names,
                            0.55,
                            pl,
                            "CIP statement of responsibility".into(),
                        ));
                    }
                }
            }
            _ => {}
        }
    }
    // Chinese CIP: "书名：副书名 / 甲，乙，丙编著. —3 版. —城市：出版社，2021".
    if joined.contains("CIP") {
        for line in joined.lines() {
            if let Some((_, resp)) = line.split_once('/')
                && line.chars().any(is_cjk)
            {
                let resp = resp.split(['.', '—']).next().unwrap_or("").trim();
                let list = parse_names(resp);
                if list.is_clean() && list.marked {
                    out.push(candidate(
                        list.names,
                        0.55,
                        pl,
                        "CIP statement of responsibility".into(),
                    ));
                }
            }
        }
    }
}

/// "Ashcombe, Rosalind, author." → "Rosalind Ashcombe"; roles other than
/// author/editor/compiler (illustrator, translator) are not authors.
fn inverted_name(part: &str) -> Option<String> {
    let fields: Vec<&str> = part
        .split(',')
        .map(|s| s.trim().trim_end_matches('.'))
        .collect();
    let (last, first) = (fields.first()?.trim(), fields.get(1)?.trim());
    let rest = fields[2..].join(" ").to_lowercase();
    if [
        "illustrat",
        "translat",
        "photograph",
        "design",
        "writer of foreword",
    ]
    .iter()
    .any(|r| rest.contains(r))
    {
        return None;
    }
    let first = first.trim_end_matches(|c: char| c.is_ascii_digit() || "-–— ".contains(c));
    person_name(&format!("{first} {last}"))
}

#[cfg(test)]
mod tests {
    use super::super::layout::testutil::*;
    use super::*;
    use crate::model::PageText;

    fn names(c: &Candidate) -> Vec<String> {
        match &c.value {
            Value::Names(n) => n.clone(),
            v => panic!("not names: {v:?}"),
        }
    }

    /// The best candidate's names on a paper's first page: `lines`, then
    /// 25 lines of running text from `prose_top` down.
    fn heading_names(mut lines: Vec<TextLine>, prose_top: f32) -> Vec<String> {
        lines.extend(prose(
            "We show how the matter at hand can be read by anyone who has time and",
            prose_top,
            25,
            14.0,
            54.0,
            378.0,
        ));
        names(&best(&[page_of(0, lines)], 12))
    }

    fn best(pages: &[PageText], count: u32) -> Candidate {
        let doc = DocText {
            pages,
            page_count: count,
        };
        let mut c = find(&doc);
        c.sort_by(|a, b| b.score.total_cmp(&a.score));
        c.into_iter().next().expect("a candidate")
    }

    #[test]
    fn name_lines_split_and_cleaned() {
        let n = |s: &str| match classify(s) {
            LineKind::Names { names, .. } => names,
            k => panic!("{s:?} -> {k:?}"),
        };
        assert_eq!(
            n("K. J. Farrow, P. L. Jones"),
            vec!["K. J. Farrow", "P. L. Jones"]
        );
        assert_eq!(n("and the Q Core Team"), vec!["Q Core Team"]);
        // Names set apart by their affiliation marks only.
        assert_eq!(
            n("Ann Lee1 Bo Chen1,2 Carl Diaz2"),
            vec!["Ann Lee", "Bo Chen", "Carl Diaz"]
        );
        assert_eq!(n("Ann Lee∗ Bo Chen†"), vec!["Ann Lee", "Bo Chen"]);
        assert_eq!(
            n("Venkata Sai Ravi Chaluvadi 1 , Dmitri Kolesnikov 2 , and Amit Barzel 1"),
            vec![
                "Venkata Sai Ravi Chaluvadi",
                "Dmitri Kolesnikov",
                "Amit Barzel"
            ]
        );
        assert_eq!(
            n("Venkata Sai Ravi Chaluvadi, Harbor Point University; Dmitri Kolesnikov,"),
            vec!["Venkata Sai Ravi Chaluvadi", "Dmitri Kolesnikov"]
        );
        assert_eq!(
            n("Hildur Ragnarsdóttir and Cathal Ó Murchadha"),
            vec!["Hildur Ragnarsdóttir", "Cathal Ó Murchadha"]
        );
        assert_eq!(n("by JOHN SMITH"), vec!["John Smith"]);
        assert_eq!(
            n("Jane Doe* and Max Mustermann†"),
            vec!["Jane Doe", "Max Mustermann"]
        );
        assert_eq!(
            n("Anna Berg and Bo Lind (eds.)"),
            vec!["Anna Berg", "Bo Lind"]
        );
        assert_eq!(
            n("刘雨桐 吴建国 郑浩 编著"),
            vec!["刘雨桐", "吴建国", "郑浩"]
        );
        assert_eq!(
            n("刘雨桐，吴建国，郑浩编著"),
            vec!["刘雨桐", "吴建国", "郑浩"]
        );
    }

    #[test]
    fn non_names_are_not_names() {
        for s in [
            "Hoogeveld University & Research",
            "Harbor Point University and 2 Norvale Research—Eastfield",
            "Department of Mathematics",
            "fabio.cervellin@unival.it",
        ] {
            assert_eq!(classify(s), LineKind::Affiliation, "{s}");
        }
        for s in [
            "LONDON AND NEW YORK",
            "Ashdown & Pryce",
            "Quantitative Tools for Archivists",
            "Second edition",
            "Varène PAO",
            "苏州",
            "Revised 14 March 2021",
            "Brandon, Keewatin, Canada R7A 5K9",
        ] {
            assert!(!matches!(classify(s), LineKind::Names { .. }), "{s}");
        }
        assert_eq!(classify("Photographs by Neil Garside"), LineKind::Credit);
        assert_eq!(classify("Drawings by the authors"), LineKind::Credit);
        assert_eq!(classify("责任编辑：吴倩"), LineKind::Credit);
        assert_eq!(
            classify("Edited by"),
            LineKind::Connector {
                marked: true,
                editor: true
            }
        );
        assert!(matches!(classify("New York"), LineKind::Affiliation));
    }

    #[test]
    fn book_title_page_byline_with_and_on_its_own_line() {
        let pages = [
            page(0, &[("Spinning on Hand Wheels", 9.8, 224.6)]),
            page(
                1,
                &[
                    ("Spinning on Hand Wheels", 18.0, 126.8),
                    ("A Course for Students and Tutors", 9.8, 161.6),
                    ("Mildred Halvorsen", 9.8, 215.2),
                    ("and", 9.8, 232.8),
                    ("Dorothy K. Pell", 9.8, 250.4),
                    ("Drawings by the authors", 9.8, 285.6),
                    ("THISTLEDOWN CRAFT BOOKS", 7.9, 410.5),
                    ("New York", 7.9, 424.7),
                ],
            ),
            body_page(2, None),
        ];
        let c = best(&pages, 15);
        assert_eq!(names(&c), vec!["Mildred Halvorsen", "Dorothy K. Pell"]);
        assert_eq!(c.page, Some(1));
    }

    #[test]
    fn editors_count_and_credits_do_not() {
        let pages = [
            page(
                0,
                &[
                    ("Suppers from a", 30.0, 166.0),
                    ("Canalside Kitchen", 30.0, 198.0),
                    ("Easy Meals for Days on the Water", 15.0, 243.0),
                    ("Photographs by Neil Garside", 14.0, 295.0),
                ],
            ),
            page(
                1,
                &[
                    ("Upland Pastures", 31.0, 131.0),
                    ("Edited by", 13.3, 227.0),
                    ("Hildur Ragnarsdóttir and Cathal Ó Murchadha", 13.3, 243.0),
                    ("WESTERLY UNIVERSITY PRESS", 11.7, 551.0),
                ],
            ),
            body_page(2, None),
        ];
        let c = best(&pages, 15);
        assert_eq!(
            names(&c),
            vec!["Hildur Ragnarsdóttir", "Cathal Ó Murchadha"]
        );
        assert!(c.why.contains("editors"), "{}", c.why);
    }

    #[test]
    fn paper_authors_between_title_and_abstract() {
        let mut lines = vec![
            line_at("Journal of Modelling Software", 21.5, 96.0, 202.0),
            line_at("October 2018, Volume 64, Issue 4.", 8.3, 130.0, 187.0),
            line_at(
                "Robust Self-Adjusting Trees in arborist 3.0",
                12.9,
                222.0,
                112.0,
            ),
            line_at("Bas Veldkamp", 9.0, 268.4, 166.0),
            line_at("Maarten Oosterbroek", 9.0, 268.4, 331.0),
            line_at("Hoogeveld University & Research", 9.1, 282.1, 122.0),
            line_at("Hoogeveld University & Research", 9.1, 282.1, 316.0),
            line_at("Abstract", 7.5, 331.6, 279.0),
        ];
        for k in 0..20 {
            let mut l = line_at(
                "Self-adjusting trees (SATs) are popular tools for indexing and searching data in",
                9.0,
                350.0 + k as f32 * 12.0,
                80.0,
            );
            l.bbox.x1 = 400.0;
            lines.push(l);
        }
        let pages = [page_of(0, lines), body_page(1, None), body_page(2, None)];
        let c = best(&pages, 18);
        assert_eq!(names(&c), vec!["Bas Veldkamp", "Maarten Oosterbroek"]);
    }

    #[test]
    fn manual_with_a_package_name_title_and_a_long_subtitle() {
        // A lower-case program name set large over the byline: the byline,
        // not a heading further down, is what follows the title.
        let prose = |lines: &mut Vec<TextLine>, from: f32| {
            for k in 0..20 {
                let mut l = line_at(
                    "The quillmark package lets you set marks in the margin of a page",
                    10.0,
                    from + k as f32 * 12.0,
                    60.0,
                );
                l.bbox.x1 = 380.0;
                lines.push(l);
            }
        };
        let mut lines = vec![
            line_at("quillmark", 26.0, 110.0, 160.0),
            line_at("(version 1.0)", 14.3, 140.0, 170.0),
            line_at("Ada Lindqvist", 17.2, 175.0, 150.0),
            line_at("April 30, 2019", 17.2, 228.0, 160.0),
        ];
        prose(&mut lines, 280.0);
        lines.push(line_at("Basic usage", 17.2, 540.0, 60.0));
        let pages = [page_of(0, lines), body_page(1, None)];
        assert_eq!(names(&best(&pages, 9)), vec!["Ada Lindqvist"]);

        // A long subtitle set above body size is not running text.
        let mut subtitle = line_at(
            "The Quill fonts for XeLaTeX and LuaLaTeX through fontspec and friends",
            12.0,
            150.0,
            50.0,
        );
        subtitle.bbox.x1 = 390.0;
        let mut lines = vec![
            line_at("The quillmark package", 17.2, 120.0, 120.0),
            subtitle,
            line_at("Ada Lindqvist", 12.0, 180.0, 170.0),
            line_at("January 30, 2021", 12.0, 210.0, 165.0),
        ];
        prose(&mut lines, 260.0);
        let pages = [page_of(0, lines), body_page(1, None)];
        assert_eq!(names(&best(&pages, 9)), vec!["Ada Lindqvist"]);
    }

    #[test]
    fn copyright_holder_is_a_weak_candidate() {
        let pages = [
            page(
                0,
                &[
                    ("Lattice: the Plot Description", 15.3, 215.0),
                    ("Language", 15.3, 242.0),
                    ("For version 2.85", 9.1, 272.0),
                ],
            ),
            // The text layer cuts the copyright line after the © sign.
            page_of(
                1,
                vec![
                    line_at(
                        "This file documents Lattice, version 2.85.",
                        10.9,
                        627.2,
                        90.0,
                    ),
                    line_at("Copyright ©", 10.9, 659.1, 90.0),
                    line_at(
                        "2004-23 Greg Tillinghast, Paul Dorsey, and Sam Keller.",
                        10.9,
                        659.4,
                        155.8,
                    ),
                ],
            ),
        ];
        let c = best(&pages, 196);
        assert_eq!(
            names(&c),
            vec!["Greg Tillinghast", "Paul Dorsey", "Sam Keller"]
        );
        assert!(c.score < 0.5);
    }

    #[test]
    fn cataloguing_data_names() {
        let pages = [page(
            4,
            &[
                (
                    "Library of Congress Cataloging-in-Publication Data",
                    7.9,
                    442.0,
                ),
                (
                    "Names: Ragnarsdóttir, Hildur, editor. | Ó Murchadha, Cathal, editor.",
                    7.9,
                    451.0,
                ),
                (
                    "Title: Upland pastures : grazing, tenure and common rights / edited by Hildur",
                    7.9,
                    460.0,
                ),
                ("Ragnarsdóttir and Cathal Ó Murchadha.", 7.9, 469.0),
                (
                    "Description: Edinburgh : Westerly University Press, 2021.",
                    7.9,
                    478.0,
                ),
            ],
        )];
        let doc = DocText {
            pages: &pages,
            page_count: 16,
        };
        let found: Vec<Vec<String>> = find(&doc).iter().map(names).collect();
        let want = vec![
            "Hildur Ragnarsdóttir".to_string(),
            "Cathal Ó Murchadha".to_string(),
        ];
        assert!(
            found.iter().filter(|n| **n == want).count() >= 2,
            "{found:?}"
        );
    }

    #[test]
    fn chinese_title_page_with_role_marker() {
        let pages = [page(
            0,
            &[
                ("纸本保护方法", 24.9, 185.0),
                ("——概论与案例", 12.4, 235.0),
                ("（第 3 版）", 12.4, 259.0),
                ("刘雨桐 吴建国 郑浩 编著", 11.6, 320.0),
                ("青峦大学出版社", 8.7, 622.0),
                ("苏州", 8.7, 640.0),
            ],
        )];
        let c = best(&pages, 16);
        assert_eq!(names(&c), vec!["刘雨桐", "吴建国", "郑浩"]);
    }

    #[test]
    fn about_the_author_and_copyright_agree() {
        let pages = [
            page(1, &[("Copyright © Liisa Harjunen 2020", 9.2, 307.0)]),
            page(
                16,
                &[
                    ("About the Author", 14.0, 100.0),
                    (
                        "Liisa Harjunen grew up on an island in the Vaasa",
                        10.0,
                        130.0,
                    ),
                ],
            ),
        ];
        let doc = DocText {
            pages: &pages,
            page_count: 17,
        };
        let c = find(&doc);
        assert_eq!(c.len(), 2);
        assert!(c.iter().all(|c| names(c) == vec!["Liisa Harjunen"]));
    }

    #[test]
    fn paper_authors_each_followed_by_their_own_lines() {
        // One author a line, each with a department and town that read as
        // neither names nor institutions ("Holmwald-Institut, Hamburg").
        let lines = vec![
            line("Analysis of Historical Newspapers", 17.0, 90.0),
            line("Otto Berghof", 11.0, 125.0),
            line("Holmwald-Institut, Hamburg", 10.0, 139.0),
            line("Rita Sandmeier", 11.0, 156.0),
            line("Tallberg-Werke, Kiel", 10.0, 170.0),
            line("rita@tallberg.example", 10.0, 183.0),
            line("Hans zu Ellerbeck", 11.0, 200.0),
            line_at(
                "Department of Physics, University of Morford, London; Institute of Advanced Studies, Bristol",
                10.0,
                214.0,
                20.0,
            ),
            line("Anna Marie Quist, Lena des Rovin, Karl", 11.0, 230.0),
            line("Ekberg and Mia van Dorn", 11.0, 244.0),
            line("Received August 2019; Accepted February 2020", 10.0, 259.0),
            line("Abstract", 10.0, 276.0),
        ];
        assert_eq!(
            heading_names(lines, 290.0),
            vec![
                "Otto Berghof",
                "Rita Sandmeier",
                "Hans zu Ellerbeck",
                "Anna Marie Quist",
                "Lena des Rovin",
                "Karl Ekberg",
                "Mia van Dorn"
            ]
        );
    }

    #[test]
    fn institutions_in_other_languages_end_no_name_and_start_none() {
        // Each author over an institution and town in German, French and
        // Russian: the town must not be read as the next author's first
        // name, nor the institution as an author.
        let lines = vec![
            line("Über die Messung von Flussläufen", 17.0, 90.0),
            line("Greta Almsfeld", 11.0, 125.0),
            line("Forschungszentrum Ostbach, Kassel", 10.0, 139.0),
            line("Pierre du Clairmont", 11.0, 156.0),
            line("Laboratoire Vernaison, Lyon", 10.0, 170.0),
            line("Ирина Соколова", 11.0, 187.0),
            line("Университет Северогорск", 10.0, 201.0),
            line("Related Work", 10.0, 230.0),
        ];
        let found = heading_names(lines, 250.0);
        assert_eq!(
            found,
            vec!["Greta Almsfeld", "Pierre du Clairmont", "Ирина Соколова"]
        );
        for s in [
            "Forschungszentrum Ostbach",
            "Laboratoire Vernaison",
            "Университет Северогорск",
        ] {
            assert_eq!(classify(s), LineKind::Affiliation, "{s}");
        }
        for s in ["Related Work", "Research Article"] {
            assert!(!matches!(classify(s), LineKind::Names { .. }), "{s}");
        }
    }

    #[test]
    fn names_side_by_side_an_em_apart_are_two_authors() {
        // A LaTeX `\and` byline: two names on one baseline 1.3 em apart
        // ("Ulla Berg" is 9 characters of 5 pt at 10 pt), each over its
        // institution.
        let lines = vec![
            line("Counting Birds from the Shore", 17.0, 90.0),
            line_at("Ulla Berg", 10.0, 125.0, 150.0),
            line_at("Anna de Wit", 10.0, 125.0, 208.0),
            line_at("Ostmark Institute", 10.0, 139.0, 150.0),
            line_at("Westfold University", 10.0, 139.0, 240.0),
            line("Abstract", 10.0, 170.0),
        ];
        let found = heading_names(lines, 190.0);
        assert_eq!(found, vec!["Ulla Berg", "Anna de Wit"]);
    }

    #[test]
    fn a_name_broken_at_the_end_of_a_names_line_is_read_whole() {
        let lines = vec![
            line("Tidal Records of the Northern Harbours", 17.0, 90.0),
            line("Otto Berghof1, Rita Sandmeier2, Hans Peter", 11.0, 125.0),
            line("Ellerbeck1, Mia van", 11.0, 139.0),
            line("Dorn2 and Karl Ekberg1", 11.0, 153.0),
            line("1Tidewater Institute, Bremen", 10.0, 170.0),
            line("Abstract", 10.0, 190.0),
        ];
        let found = heading_names(lines, 210.0);
        assert_eq!(
            found,
            vec![
                "Otto Berghof",
                "Rita Sandmeier",
                "Hans Peter Ellerbeck",
                "Mia van Dorn",
                "Karl Ekberg"
            ]
        );
    }

    #[test]
    fn article_set_in_one_size_names_its_author() {
        // Running head, bold title, byline and abstract, all in the body size.
        let c = best(&[bulletin_article_page()], 9);
        assert_eq!(names(&c), vec!["Ada Lindqvist"]);
    }

    #[test]
    fn paper_byline_with_superscripts_and_emails() {
        let lines = vec![
            line("Sparse Grids for Everyone", 17.0, 90.0),
            line(
                "Jane Q. Public1,2, Max Mustermann2∗ and Chen Wei3",
                12.0,
                125.0,
            ),
            line(
                "1University of Somewhere, 2Institute of Things",
                10.0,
                140.0,
            ),
            line("{jane,max}@example.org", 10.0, 153.0),
            line("Abstract", 10.0, 190.0),
        ];
        assert_eq!(
            heading_names(lines, 210.0),
            vec!["Jane Q. Public", "Max Mustermann", "Chen Wei"]
        );
    }

    #[test]
    fn editor_of_an_authored_book_is_not_an_author() {
        let pages = [
            page(
                0,
                &[
                    ("Persuasion", 30.0, 150.0),
                    ("Jane Austen", 16.0, 220.0),
                    ("Edited by Gillian Beer", 12.0, 300.0),
                    ("HARBOR LIGHT BOOKS", 10.0, 580.0),
                ],
            ),
            body_page(1, None),
        ];
        let doc = DocText {
            pages: &pages,
            page_count: 300,
        };
        let c = find(&doc);
        let author = c
            .iter()
            .find(|c| names(c) == vec!["Jane Austen"])
            .expect("author");
        let editor = c
            .iter()
            .find(|c| names(c) == vec!["Gillian Beer"])
            .expect("editor");
        assert!(author.score > editor.score + 0.2, "{c:?}");
        assert!(matches!(
            classify("Anna Berg and Bo Lind (eds.)"),
            LineKind::Names { editor: true, .. }
        ));
        assert!(matches!(
            classify("刘雨桐 主编"),
            LineKind::Names { editor: true, .. }
        ));
        assert!(matches!(
            classify("刘雨桐 编著"),
            LineKind::Names { editor: false, .. }
        ));
    }
}
