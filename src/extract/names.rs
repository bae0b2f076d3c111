//! Reading people's names from a line of text: a list split on commas,
//! "and", "&", semicolons, with role words ("by", "edited by", "(eds.)",
//! 著), footnote marks, honorifics and institutions dropped, each name in
//! "First Last" order and an all-capitals name in title case. Shared by
//! the line classifier ([`lines`](super::lines)), the author finder and
//! the Info reader.

use super::pattern::Pattern;
use super::text::{SUPERSCRIPTS, fold, is_cjk};
use std::collections::HashSet;
use std::sync::LazyLock;

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
/// Footnote and affiliation marks: symbols, and the superscript digits and
/// letters the reading layer writes for raised marks ("Tollanᵃ,ᵇ").
static FOOTNOTE: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(&format!(r"[*†‡§¶⁎∗✉⋆★♠♣♦♥#]|[{SUPERSCRIPTS}]+")).unwrap());
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
    Pattern::new(&format!(
        r"(\p{{L}})(?:\d{{1,2}}(?:,\d{{1,2}})*|[*†‡§¶⁎∗✉⋆★]+|[{SUPERSCRIPTS}]+(?:,[{SUPERSCRIPTS}]+)*)\s+(\p{{Lu}})"
    ))
    .unwrap()
});
/// A note or affiliation mark glued to the end of a word ("Lee1,*",
/// "Chen2", "Orrin†", "Vantassᵃ"): two or more on a line make it a byline
/// whatever its given names (the rows of labels on forms carry none).
static GLUED_MARK: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(&format!(
        r"\p{{L}}(?:\d{{1,2}}(?:,\d{{1,2}})*(?:,?[*†‡])?|[*†‡§¶⁎∗✉⋆★]+|[{SUPERSCRIPTS}]+)(?:[\s,;]|$)"
    ))
    .unwrap()
});
/// "et al." closing a list: more names, none given.
static ET_AL: LazyLock<Pattern> = LazyLock::new(|| Pattern::new(r"^(?i:et\.?\s*al)\.?$").unwrap());
static SPLIT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"\s*(?:[;,，、·•|]|\s(?i:and|und|et)\s|\s(?:y|e|i|och|og|en|и)\s|\s*&\s*|\s+with\s+)\s*",
    )
    .unwrap()
});
static HONORIFIC: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"^(?:(?:Dr|Prof|RNDr|Mgr|Ing|Doc|Mr|Mrs|Ms|Sir|Dame|Rev|Fr|Hon)\.?\s+)+|,?\s+(?:Ph\.?\s?D\.?|M\.?D\.?|M\.?A\.?|M\.?Sc\.?|B\.?A\.?|CSc\.?|DrSc\.?|FRS)\.?$")
        .unwrap()
});

/// Words that never occur in a person's name but often in the lines next
/// to names: institutions, imprints, places, labels. A piece of a line
/// with one of them is an institution or an address, which a list of
/// names may carry; title words are [`TITLE_WORDS`].
#[rustfmt::skip]
const NOT_NAME_WORDS: &[&str] = &[
    "university", "universitat", "universite", "universidad", "universita", "universiteit",
    "univ", "institute", "institut", "instituto", "istituto", "college", "school", "department",
    "dept", "faculty", "laboratory", "laboratories", "lab", "labs", "center", "centre",
    "research", "inc", "ltd", "llc", "gmbh", "corp", "corporation", "company", "press",
    "verlag", "fachverlag", "verlagsanstalt", "librairie", "presses", "academic", "imprimerie",
    "druckerei", "buchhandlung", "издательство", "типография", "books", "publishing",
    "publishers", "publisher", "publications", "editions", "edizioni", "editorial", "editorа",
    "media", "house", "society", "association",
    "foundation", "library", "museum", "academy", "hospital", "clinic", "ministry", "agency",
    "council", "office", "bureau", "services", "associates", "partners", "consulting",
    "software", "systems", "technologies", "technology", "project", "group", "network",
    "edition", "report", "abstract", "technical", "notes", "methods", "language", "graphics",
    "data",
    "science", "sciences", "studies", "series", "journal", "proceedings", "conference",
    "review", "letters", "version", "release", "draft", "copyright", "rights", "reserved",
    "printed", "published", "keywords", "street", "road", "avenue", "lane", "square",
    "place", "drive", "building", "floor", "service", "revenue",
    // Streets and postal words of addresses in several languages, and the
    // labels of contact lines.
    "via", "viale", "piazza", "corso", "strasse", "str", "gasse", "platz", "allee", "rue",
    "boulevard", "blvd", "avenida", "avda", "calle", "rua", "ave", "highway", "hwy",
    "parkway", "pkwy", "suite", "plaza", "campus", "postfach", "cedex",
    "email", "mail", "homepage", "phone", "tel", "fax", "url", "orcid", "correspondence",
    "corresponding", "entertainment", "enterprises", "industries", "solutions", "usa", "u s a", "uk", "america", "canada", "germany",
    "deutschland", "france", "england", "scotland", "ireland", "wales", "china", "japan",
    "india", "australia", "switzerland", "austria", "netherlands", "italy", "spain", "sweden",
    "norway", "denmark", "finland", "belgium", "poland", "czech", "republic", "kingdom",
    "states", "united", "city", "county", "province", "state", "national", "international",
    "federal", "royal", "imperial", "general", "references", "acknowledgements",
    "acknowledgments", "table", "figure", "part", "book", "vol", "photographs", "drawings",
    "illustrations", "chapters", "authors", "author", "editor", "editors", "contributors",
    "package", "reader", "types", "type", "request", "requests", "functions", "function",
    "examples", "example", "overview", "results",
    "discussion", "conclusion", "conclusions", "background", "methodology", "evaluation",
    "implementation", "design", "analysis", "approach", "model", "models", "problem",
    "problems", "course", "workshop", "documentation", "specification", "reference",
    "collection", "catalogue", "catalog", "dictionary",
    "encyclopedia", "atlas", "programming", "mathematics", "physics", "chemistry", "biology",
    "economics", "law", "engineering", "computing", "computer", "statistics", "algorithms",
    "structures", "networks", "received", "accepted", "revised", "submitted", "available",
    "online", "eingegangen", "angenommen", "recu", "accepte", "hochschule", "fachhochschule",
    "technische", "ecole", "akademie", "politecnico", "polytechnic", "polytechnique",
    "released",
    "updated", "modified",
    // Institutions in the languages papers are written in.
    "forschungszentrum", "zentrum", "forschungsinstitut", "fakultat", "lehrstuhl", "abteilung",
    "laboratoire", "laboratorium", "laboratorio", "laboratori", "faculte", "facultad",
    "facolta",
    "departement", "departamento", "dipartimento", "centro", "centrum", "universidade",
    "uniwersytet", "instytut", "politechnika", "academia", "academie", "scuola", "escuela",
    "университет", "институт", "академия", "лаборатория", "факультет", "кафедра", "центр",
    "отдел", "школа",
    // Edition, series and role words of German and Russian books.
    "auflage", "ausgabe", "reihe", "серия", "издание", "редактор", "перевод",
    // Labels and section heads of article pages.
    "article", "articles", "related", "verwandte", "arbeiten", "forschungsbeitrag", "travaux",
    "connexes", "статья", "работы", "введение", "аннотация",
    // Firms and units of them under a byline.
    "productions", "studio", "studios", "consultants", "division", "programme", "region",
];

/// The heads of institutions' names that German (and Dutch) write as one
/// word with what qualifies them ("Wirtschaftsuniversität",
/// "Handelshochschule", "Max-Planck-Institut"): a word ending in one of
/// them (folded) is an institution, as the head alone is.
const INSTITUTION_HEADS: &[&str] = &[
    "universitat",
    "universiteit",
    "hochschule",
    "institut",
    "zentrum",
    "akademie",
    "gesellschaft",
    "bibliothek",
    "verlag",
    "klinikum",
    "ministerium",
];

/// Small words of institutions' names, and of titles: a piece with one
/// of them and no title word is read as an institution ("Bank of Ashby").
const LINKING_WORDS: &[&str] = &[
    "the", "of", "for", "and", "in", "on", "at", "from", "with", "an", "into", "about",
];

/// Words of titles and subtitles ("Essays on Faith and Folk Music",
/// "Eine Geschichte der Imkerei"): a piece of a line with one of them is
/// neither a name nor an institution, so the line is no list of names.
/// An institution word in the same piece wins ("Department of History").
#[rustfmt::skip]
const TITLE_WORDS: &[&str] = &[
    "introduction", "manual", "guide", "handbook", "volume", "chapter", "contents", "history",
    "theory", "principles", "fundamentals", "elements", "essentials", "basics", "foundations",
    "practice", "art", "essays", "stories", "poems", "novel", "tutorial", "primer",
    "companion", "preface", "foreword", "index", "appendix", "bibliography", "dedication",
    "exercises", "solutions", "lectures", "eine", "ein", "einer", "eines", "einfuhrung",
    "geschichte", "studien", "grundlagen", "lehrbuch", "handbuch", "aufsatze", "vortrage",
    "beitrage", "erzahlungen", "gedichte", "une", "histoire", "etudes", "essais", "initiation",
    "principes", "nouvelles", "poemes", "очерки", "основы", "история", "рассказы", "повесть",
    "стихи", "сборник", "учебник", "пособие",
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
    // Labels of contact lines under a name.
    "home page", "web page", "web site", "e mail",
];

/// Towns that publishers print under their name, folded. A piece made only
/// of them ("PARIS · MONTRÉAL", its dot lost to OCR) is a place, not a
/// name; one of them beside a surname ("Paris Halvorsen") is still a name.
#[rustfmt::skip]
const TOWNS: &[&str] = &[
    "london", "paris", "berlin", "oxford", "cambridge", "edinburgh", "boston", "chicago",
    "toronto", "montreal", "quebec", "sydney", "melbourne", "dublin", "glasgow", "manchester",
    "leeds", "bristol", "york", "philadelphia", "princeton", "baltimore", "washington",
    "heidelberg", "leipzig", "munchen", "munich", "stuttgart", "hamburg", "koln", "cologne",
    "frankfurt", "wien", "vienna", "zurich", "basel", "bern", "geneve", "geneva", "lausanne",
    "bruxelles", "brussels", "lyon", "marseille", "bordeaux", "toulouse", "lille", "strasbourg",
    "amsterdam", "leiden", "rotterdam", "milano", "milan", "roma", "rome", "torino", "madrid",
    "barcelona", "lisboa", "lisbon", "stockholm", "oslo", "copenhagen", "helsinki", "warszawa",
    "praha", "prague", "budapest", "moskva", "moscow", "москва", "петербург", "санкт-петербург",
    "санкт", "ленинград", "новосибирск", "казань", "киев", "минск", "tokyo", "beijing", "shanghai",
    "singapore", "delhi", "mumbai",
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
static TITLE_SET: LazyLock<HashSet<&'static str>> =
    LazyLock::new(|| TITLE_WORDS.iter().copied().collect());

/// Name suffixes ("Jr.", "III"), lower-cased; the vision answers' reader
/// ([`crate::vision::answer`]) uses the same list.
pub(crate) const SUFFIXES: &[&str] = &["jr", "jr.", "sr", "sr.", "ii", "iii", "iv"];

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
pub(super) static EDITOR_WORD: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)edit|compil|herausg|hrsg|direction|cura|r[ée]uni|\beds?\b|редак|состав|主编|主編|^编$|^編$",
    )
    .unwrap()
});

/// Splits a list of names, dropping role words, footnote marks and
/// institutions.
pub(crate) fn parse_names(text: &str) -> NameList {
    read_names(text, false)
}

/// [`parse_names`]; with `stop_at_other`, the reading stops at the first
/// piece that is neither a name nor an institution (the list then has
/// `others == 1`): that is all [`classify`](super::lines::classify) needs
/// to know, and most lines of a page are such text.
pub(super) fn read_names(text: &str, stop_at_other: bool) -> NameList {
    let roles = strip_roles(text);
    let pieces = split_pieces(&roles.text);
    let mut read = read_pieces(pieces, roles.cjk_marked, stop_at_other);
    if let Some(body) = read
        .collective
        .take()
        .filter(|_| read.names.is_empty() && read.others == 0)
    {
        // The body named alone on its line is its author.
        let body = match text.trim_start().get(..4) {
            Some(the) if the.eq_ignore_ascii_case("the ") && !body.starts_with("The ") => {
                format!("The {body}")
            }
            _ => body,
        };
        read.names.push(body);
        read.orgs = read.orgs.saturating_sub(1);
    }
    if !(roles.marked || roles.cjk_marked || roles.noted) && is_label_row(&read.names) {
        read.others += read.names.len();
        read.names.clear();
    }
    NameList {
        names: read.names,
        marked: roles.marked || roles.cjk_marked,
        editor: roles.editor,
        orgs: read.orgs,
        others: read.others,
    }
}

/// A line of names with its role words taken off and its note marks
/// cleaned away.
struct Roles {
    text: String,
    /// A role word ("by", "edited by", "(eds.)") was on the line.
    marked: bool,
    /// The role is editing.
    editor: bool,
    /// A CJK role marker (著, 编著, 主编) was on the line.
    cjk_marked: bool,
    /// Several words carried note or affiliation marks ([`GLUED_MARK`]).
    noted: bool,
}

/// Takes the role words off `text` (leading, trailing, CJK) and cleans
/// footnote marks and trailing punctuation away.
fn strip_roles(text: &str) -> Roles {
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
    let noted = GLUED_MARK.find_iter(&t).count() >= 2;
    t = MARK_BETWEEN.replace_all(&t, "$1, $2").to_string();
    t = FOOTNOTE.replace_all(&t, " ").to_string();
    t = OCR_MARK.replace_all(&t, "$1$2").to_string();
    t = NOTE_DIGITS.replace_all(&t, "$1$2").to_string();
    t = t.trim().trim_end_matches(['.', ',', ';', ':']).to_string();
    Roles {
        text: t,
        marked,
        editor,
        cjk_marked,
        noted,
    }
}

/// Splits a cleaned line into the pieces that may each be one name.
fn split_pieces(t: &str) -> Vec<String> {
    let mut pieces: Vec<String> = SPLIT.split(t).map(|s| s.trim().to_string()).collect();
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
    merged
}

/// The pieces of a line read one by one.
struct Pieces {
    names: Vec<String>,
    orgs: usize,
    others: usize,
    /// The line's only piece, when it names a collective author.
    collective: Option<String>,
}

/// Reads each piece as a name, an institution or other text; with
/// `stop_at_other`, stops at the first other text.
fn read_pieces(pieces: Vec<String>, cjk_marked: bool, stop_at_other: bool) -> Pieces {
    let mut read = Pieces {
        names: Vec::new(),
        orgs: 0,
        others: 0,
        collective: None,
    };
    let single = pieces.len() == 1;
    for p in pieces {
        let p = clean_piece(&p);
        if p.is_empty() || ET_AL.is_match(&p) {
            continue;
        }
        if single && COLLECTIVE.is_match(&p) && p.split_whitespace().count() >= 2 {
            read.collective = Some(p.clone());
        }
        match piece_kind(&p, cjk_marked) {
            Piece::Name(n) => {
                if !read.names.contains(&n) {
                    read.names.push(n)
                }
            }
            Piece::Org => read.orgs += 1,
            Piece::Other => {
                read.others += 1;
                if stop_at_other {
                    break;
                }
            }
        }
    }
    read
}

/// One piece without a leading "and"/"the", honorifics and a remark in
/// brackets after the name.
fn clean_piece(p: &str) -> String {
    let p = p
        .trim()
        .trim_start_matches("and ")
        .trim_start_matches("the ")
        .trim_start_matches("The ")
        .trim();
    let p = HONORIFIC.replace_all(p, "").trim().to_string();
    // A remark in brackets after a name: a role, a pen name, a status.
    match p.split_once(" (") {
        Some((name, remark)) if remark.ends_with(')') && !name.contains('(') => {
            name.trim().to_string()
        }
        _ => p,
    }
}

/// Whether an unmarked list of names is a row of labels set in capitals
/// ("Amount Carried, Current Year, Prior Years"), not people: a long one
/// in which hardly any name starts with a known given name.
fn is_label_row(names: &[String]) -> bool {
    if names.len() < 3 {
        return false;
    }
    let full: Vec<&str> = names
        .iter()
        .filter_map(|n| n.split_whitespace().next())
        .filter(|w| !is_initial(w))
        .collect();
    let known = full.iter().filter(|w| is_given_name(w)).count();
    (full.len() >= 3 && known == 0) || (full.len() >= 4 && known * 4 < full.len())
}

/// A collective author: a body named as the author of a work ("The
/// Harbour Survey Group", "Working Group on Tide Tables", "International
/// Commission on Salt Marshes"). Read as the author only where a line
/// names it alone.
static COLLECTIVE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"^(?:\p{Lu}[\p{L}&'’.-]*\s+){0,6}(?:Group|Team|Workgroup|Working\s+Group|Consortium|Collaboration|Committee|Commission|Task\s+Force|Council|Panel)(?:\s+(?:on|for|of)(?:\s+(?:\p{Lu}[\p{L}'’-]*|and|the|of)){1,8})?$",
    )
    .unwrap()
});

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
    if folded
        .split(' ')
        .any(|w| NOT_NAME_SET.contains(w) || INSTITUTION_HEADS.iter().any(|h| w.ends_with(h)))
        || PLACES.iter().any(|pl| folded == *pl)
        || folded.split(' ').all(|w| TOWNS.contains(&w))
    {
        return Piece::Org;
    }
    if folded.split(' ').any(|w| TITLE_SET.contains(w)) {
        return Piece::Other;
    }
    if folded.split(' ').any(|w| LINKING_WORDS.contains(&w)) {
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
    let mut words: Vec<String> = p
        .split_whitespace()
        .enumerate()
        .map(|(k, w)| {
            if !all_caps {
                w.to_string()
            } else if k > 0 && PARTICLES.contains(&w.to_lowercase().as_str()) {
                // "GUNMAR VON ARNSTEIN" -> "Gunmar von Arnstein".
                w.to_lowercase()
            } else {
                title_case(w)
            }
        })
        .collect();
    if !(2..=6).contains(&words.len()) {
        return None;
    }
    let mut real = 0;
    // Whether a given name in mixed case came before: then a last word in
    // capitals is a surname set in capitals ("Odile MARCHETEAU").
    let mut given = false;
    // The index of a surname set in capitals, put in title case at the end.
    let mut capitals = None;
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
        if last && given && is_capitals_surname(bare) {
            capitals = Some(i);
            real += 1;
            continue;
        }
        if !is_name_word(bare) {
            return None;
        }
        given = true;
        real += 1;
    }
    if real < 2 {
        return None;
    }
    if let Some(i) = capitals {
        words[i] = title_case(&words[i]);
    }
    Some(words.join(" "))
}

/// Given names known from name-gender data gathered for research on
/// scientific authorship (see `data/make_given_names.py`, which writes the
/// list from the nomquamgender package): lower-case ASCII, one a line.
const GIVEN_NAMES: &str = include_str!("data/given_names.txt");

/// Whether `word` (any case, accents ignored) is a known given name, or a
/// hyphenated pair starting with one ("Jean-Luc").
pub(crate) fn is_given_name(word: &str) -> bool {
    static SET: LazyLock<HashSet<&'static str>> = LazyLock::new(|| GIVEN_NAMES.lines().collect());
    let folded = fold(word);
    let mut parts = folded.split(' ');
    let first = parts.next().unwrap_or("");
    SET.contains(first) || SET.contains(folded.replace(' ', "-").as_str())
}

/// Whether a name (in "First Last" order) opens with a known given name
/// or an initial ("W. Ray", "H.-Martin Kell"). Most people's names do;
/// the form labels, headings, companies and places a byline reader takes
/// for names ("Mooring Fee", "Sandbar Ade", "Tide Tables") seldom do.
/// Not every real name does either (the list is not complete), so this is
/// evidence for the ranker, never a filter.
pub(crate) fn opens_with_given_name(name: &str) -> bool {
    let Some(first) = name.split_whitespace().next() else {
        return false;
    };
    let joined_initial = first
        .split_once(".-")
        .is_some_and(|(i, rest)| i.chars().count() == 1 && is_initial(i) && !rest.is_empty());
    is_initial(first) || joined_initial || is_given_name(first)
}

/// A surname set in capitals after a given name: five letters or more
/// with a vowel, so that acronyms ("PAO", "NASA") and TeX engines
/// ("LATEX", "LUATEX") are not read as one.
fn is_capitals_surname(w: &str) -> bool {
    let letters = w.chars().filter(|c| c.is_alphabetic()).count();
    letters >= 5
        && w.chars()
            .all(|c| c.is_uppercase() || matches!(c, '-' | '\'' | '’'))
        && w.chars().any(|c| "AEIOUYÀÁÂÄÈÉÊËÌÍÎÏÒÓÔÖÙÚÛÜ".contains(c))
        && !w.ends_with("TEX")
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
    // A given name joined to an initial: "H.-Martin".
    let w = match w.split_once(".-") {
        Some((initial, rest)) if initial.chars().count() == 1 && is_initial(initial) => rest,
        _ => w,
    };
    let mut cs = w.chars();
    let Some(first) = cs.next() else {
        return false;
    };
    let rest: Vec<char> = cs.collect();
    first.is_uppercase()
        && !is_roman_numeral(w)
        && rest.iter().any(|c| c.is_lowercase())
        && rest
            .iter()
            .all(|c| c.is_alphabetic() || matches!(c, '-' | '\'' | '’'))
}

/// A year or number in Roman numerals of four letters or more, in any
/// case ("MCMLXXVII", which a title page set in capitals puts under the
/// publisher and a name reader would set as "Mcmlxxvii"). Shorter ones
/// ("Liv", "Dix") are names too.
fn is_roman_numeral(w: &str) -> bool {
    static ROMAN: LazyLock<Pattern> = LazyLock::new(|| {
        Pattern::new(r"(?i)^m{0,4}(?:cm|cd|d?c{0,3})(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})$").unwrap()
    });
    w.chars().count() >= 4 && ROMAN.is_match(w)
}

/// One word of an all-capitals name in title case, with a capital after a
/// hyphen, an apostrophe or a full stop: "JEAN-PAUL" -> "Jean-Paul",
/// "O’BRIEN" -> "O’Brien", "J.R.R." -> "J.R.R.". The vision answers' reader
/// sets names in the same form.
pub(crate) fn title_case(w: &str) -> String {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superscript_marks_part_names() {
        // The reading layer writes raised affiliation letters and digits
        // as superscripts; they separate and leave the names.
        assert_eq!(
            parse_names("Oriel Vantassᵃ,ᵇ, Pim Duckworthᶜ").names,
            vec!["Oriel Vantass", "Pim Duckworth"]
        );
        assert_eq!(
            parse_names("Anna Vantassᵃ Paul Duckworthᵇ and Lisa Marchbankᵃ").names,
            vec!["Anna Vantass", "Paul Duckworth", "Lisa Marchbank"]
        );
        assert_eq!(parse_names("Oriel Vantass¹²").names, vec!["Oriel Vantass"]);
    }

    #[test]
    fn a_collective_author_alone_on_its_line() {
        assert_eq!(
            parse_names("The Harbour Survey Group").names,
            vec!["The Harbour Survey Group"]
        );
        assert_eq!(
            parse_names("International Commission on Salt Marshes").names,
            vec!["International Commission on Salt Marshes"]
        );
        // Not a name among others, nor a title about one.
        assert!(
            parse_names("Report of the Task Force on Tides")
                .names
                .is_empty()
        );
        let list = parse_names("Ann Lee, Tide Survey Group");
        assert_eq!(list.names, vec!["Ann Lee"]);
        assert!(parse_names("the group met in the harbour").names.is_empty());
    }

    #[test]
    fn addresses_and_contact_labels_are_not_people() {
        for line in [
            "Via Quarzo 12",
            "Sandpiper Blvd",
            "Home Page",
            "E-mail: o.vantass",
            "Lindenstr 4",
            "Kestrel Entertainment",
            "Wirtschaftshochschule Tollan",
            "Handelsuniversität Marrow",
            "Sandbar Productions",
            "Tollan Consultants",
        ] {
            let list = parse_names(line);
            assert!(list.names.is_empty(), "{line:?} -> {:?}", list.names);
        }
    }

    #[test]
    fn institutions_written_as_one_word_leave_the_names_beside_them() {
        assert_eq!(
            parse_names("Anna Vantass, Wirtschaftsuniversität Tollan").names,
            vec!["Anna Vantass"]
        );
        // A surname that merely contains a head is still a name.
        assert_eq!(parse_names("Ida Verlagsson").names, vec!["Ida Verlagsson"]);
    }

    #[test]
    fn rows_of_labels_without_given_names_are_not_a_byline() {
        let list = parse_names("Amount Carried, Current Year, Prior Years, Total Credit");
        assert!(list.names.is_empty(), "{:?}", list.names);
        let list =
            parse_names("Amount Carried, Current Year, Prior Years, Total Credit, Future Years");
        assert!(list.names.is_empty(), "{:?}", list.names);
        // Real bylines with known given names stay, as do marked ones.
        assert_eq!(
            parse_names("Maria Quell, John Orrin, Wei Tamsett").names,
            vec!["Maria Quell", "John Orrin", "Wei Tamsett"]
        );
        assert_eq!(
            parse_names("by Ovan Trell, Ysolde Marr, Quen Adder")
                .names
                .len(),
            3
        );
        assert!(is_given_name("Jean-Luc") && is_given_name("MARIA") && !is_given_name("Amount"));
        // Names no list knows, each with its affiliation mark: a byline.
        assert_eq!(
            parse_names("Orvald T. Quessel1,*, Brisane Tollack2, Ulvane Pexworth3").names,
            vec!["Orvald T. Quessel", "Brisane Tollack", "Ulvane Pexworth"]
        );
    }

    #[test]
    fn names_open_with_a_given_name_or_an_initial() {
        for name in [
            "Maria Quell",
            "W. Ray Tamsett",
            "H.-Martin Kell",
            "JEAN-LUC ORRIN",
            "J.-P. Sarn",
        ] {
            assert!(opens_with_given_name(name), "{name}");
        }
        for name in [
            "Mooring Fee",
            "Sandbar Ade",
            "Tide Tables",
            "Sluice Dues",
            "",
        ] {
            assert!(!opens_with_given_name(name), "{name}");
        }
    }
}
