//! What a line or block of a page is, read from its words alone: names,
//! a connector ("and", "edited by"), an affiliation, a credit that is not
//! authorship ([`classify`]), and how unlikely it is to be a title
//! ([`title_penalty`]). Part of the shared page model: [`layout`](super::layout)
//! computes both once per line and block, and the title and author
//! finders read them.

use super::names::{EDITOR_WORD, read_names};
use super::pattern::Pattern;
use super::text::{fold, is_cjk, is_superscript};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::LazyLock;
use std::thread::LocalKey;

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
        (photo\w*|drawings?|drawn|illustr\w*|pictures|images|maps|dessins?|gravures?|zeichnungen|bilder|translat\w*|übersetz\w*|traduit|traducción|traduction|
         foreword|preface|introduction|afterword|cover|jacket|design\w*|typeset\w*|set|printed|
         published|distributed|sponsored|supported|produced|revised|reviewed|indexed?|
         maintained|funded|hosted|bound|read|narrated|music|cartography)
        \b.*\b(by|von|par|de)\b
        |^(?:перевод|пер\.|иллюстрации|рисунки|фотографии|художник|художественное\s+оформление)\b",
    )
    .unwrap()
});
static CJK_CREDIT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(责任编辑|責任編輯|封面设计|封面設計|装帧设计|版式设计|责任校对|责任印制|翻译|译者|插图|摄影|策划)").unwrap()
});

/// Classifies one line of text as names, connector, affiliation, credit or
/// other. Used for title pages and paper headings.
pub(crate) fn classify(text: &str) -> LineKind {
    memoized(&KINDS, text, || match classify_wording(text) {
        Ok(kind) => kind,
        Err((t, had_link)) => classify_names(&t, had_link),
    })
}

/// Results of a function of a line's text alone, kept per thread.
///
/// A document is decided several times as its pages are read (front
/// matter, then more pages, then the back), and every decision lays out
/// all the pages read so far again; the title and author finders then
/// ask again about blocks that are single lines. [`classify`] and
/// [`title_penalty`] depend on the text only, so the same line is worked
/// out once and its answer reused: byte-identical, and the decider thread
/// spends most of its layout time in these two. Bounded: emptied when it
/// holds [`MEMO_CAPACITY`] texts, and texts longer than [`MEMO_TEXT`]
/// bytes (paragraphs, rarely met twice) are not kept, so it stays within
/// a few MB.
struct Memo<V> {
    map: HashMap<Box<str>, V>,
}

/// Texts a [`Memo`] holds before it is emptied: the lines of some hundred
/// pages, the pages of a few documents.
const MEMO_CAPACITY: usize = 8192;

/// The longest text (bytes) a [`Memo`] keeps.
const MEMO_TEXT: usize = 400;

impl<V: Clone> Memo<V> {
    fn new() -> Self {
        Memo {
            map: HashMap::new(),
        }
    }

    /// The value kept for `text`, if any.
    fn get(&self, text: &str) -> Option<V> {
        self.map.get(text).cloned()
    }

    /// Keeps `v` as the value for `text`.
    fn put(&mut self, text: &str, v: V) {
        if text.len() > MEMO_TEXT {
            return;
        }
        if self.map.len() >= MEMO_CAPACITY {
            self.map.clear();
        }
        self.map.insert(text.into(), v);
    }
}

/// The value `memo` keeps for `text`, from `compute` the first time.
/// `compute` runs with the memo released, so it may ask the memos again.
fn memoized<V: Clone + 'static>(
    memo: &'static LocalKey<RefCell<Memo<V>>>,
    text: &str,
    compute: impl FnOnce() -> V,
) -> V {
    if let Some(v) = memo.with(|m| m.borrow().get(text)) {
        return v;
    }
    let v = compute();
    memo.with(|m| m.borrow_mut().put(text, v.clone()));
    v
}

thread_local! {
    static KINDS: RefCell<Memo<LineKind>> = RefCell::new(Memo::new());
    static PENALTIES: RefCell<Memo<Option<f32>>> = RefCell::new(Memo::new());
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
            | "edite par"
            | "edites par"
            | "ouvrage edite par"
            | "sous la dir de"
            | "herausgegeben"
            | "hrsg"
            // Folded: `fold` drops the breve of "й".
            | "под редакциеи"
            | "ответственныи редактор"
            | "редактор"
            | "составитель"
            | "составители"
            | "textes reunis par"
            | "textes reunis et presentes par"
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
    // A line opened by a raised mark ("¹ Harbour Labs, Quay Road, Port
    // Ellin") is the affiliation or note the mark points to: the town and
    // street on it are no people.
    if t.trim_start().starts_with(is_superscript) {
        return LineKind::Affiliation;
    }
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

pub(super) static COPYRIGHT: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^\s*(?:text\s+)?(?:copyright\s*(?:©|\(c\)|c\b)?|©|\(c\))\s*(.+)$").unwrap()
});

pub(super) static LABEL: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)^(?:contents|table\s+of\s+contents|brief\s+contents|index|preface|foreword|
        introduction|acknowledge?ments?|abstract|summary|bibliography|references|appendix|
        glossary|dedication|epilogue|prologue|afterword|notes|colophon|about\s+the\s+authors?|
        about\s+the\s+editors?|about\s+this\s+book|list\s+of\s+(?:figures|tables|illustrations)|
        inhaltsverzeichnis|inhalt|vorwort|einleitung|sommaire|table\s+des\s+mati[eè]res|
        avant-propos|pr[eé]face|[ií]ndice|prefacio|目录|目\s*录|前言|序言|序|后记|出版说明|
        half[\s-]title|title\s+page|copyright|frontispiece|plates?|illustrations|errata)$",
    )
    .unwrap()
});
static SECTION: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)^(?:(?:chapter|chapitre|kapitel|cap[ií]tulo|capitolo|part|teil|partie|section|
        lecture|lesson|unit|appendix|anhang|volume|vol\.|band|tome|tomo|book|livre|buch)
        \s+(?:\d+|[ivxlc]+|[a-z]|one|two|three|four|five|six|seven|eight|nine|ten)\b
        |第\s*\S{1,3}\s*[章节卷部篇]|\d{1,2}(?:\.\d+)*\.\s+\p{Lu}|\d{1,2}(?:\.\d+)+\s+\p{Lu}|\d{1,2}\s+\p{Lu}\w*$)",
    )
    .unwrap()
});
pub(super) static GENRE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)^(?:technical\s+report|tech\.?\s+rep(?:ort)?\.?|research\s+(?:article|paper|report)|
        original\s+(?:article|paper|research)|review(?:\s+article)?|short\s+communication|letter|
        pre-?print|e-?print|draft|confidential|working\s+paper|white\s+paper|discussion\s+paper|
        (?:bachelor|master|doctoral|ph\.?\s?d\.?)(?:'s)?\s+thesis|dissertation|thesis|
        lecture\s+notes|manuscript|submitted(?:\s+(?:to|for)\b.*)?|accepted(?:\s.*)?|
        under\s+review|in\s+press|article|paper|report|brief\s+report|case\s+report|editorial|
        commentary|perspective|opinion|erratum|corrigendum|supplementary\s+(?:material|information)|
        (?:for\s+)?(?:version|release)\s+[\d.]+.*|draft(?:\s+version)?\s+[\w.]+|for\s+review|not\s+for\s+distribution|
        do\s+not\s+(?:cite|distribute|copy).*|(?:uncorrected\s+)?proofs?|advance\s+(?:praise|copy).*|
        praise\s+for\s+.*|also\s+by\s+.*|by\s+the\s+same\s+author.*|other\s+(?:books|titles)\s+by\s+.*|
        books\s+by\s+.*|(?:a\s+)?novel|roman|poems|stories|essays|open\s+access|
        sample|specimen|watermark|preliminary|reprint|offprint)$",
    )
    .unwrap()
});
pub(super) static NEVER: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)©|\bcopyright\b|\bisbn\b|\bissn\b|\blccn\b|\bdoi\s*:|doi\.org|\bpii\s*:|\b(?:article|manuscript|paper)\s+(?:id|no\.|number)\b|https?://|\bwww\.|@|all rights reserved|^by\s|^edited\s+by\b|^compiled\s+by\b|^\(?\s*第.{1,3}版\s*\)?$|（第.{1,3}版）$",
    )
    .unwrap()
});
pub(super) static DATE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)^(?:(?:revised|updated|printed|published|version|as\s+of)\s+)?
        (?:\d{1,2}\.?\s+)?(?:(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec|janv|févr|fevr|avr|mai|juin|juil|août|aout|déc|mär|okt|dez|ene|abr|ago|dic|gen|giu|lug|ott|set)\p{L}*\.?\s+)?
        (?:\d{1,2},?\s+)?\(?\d{4}(?:[-/.]\d{1,2}(?:[-/.]\d{1,2})?)?\)?\.?$",
    )
    .unwrap()
});
static DEDICATION: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?x)^(?:for|to|para|pour|für|à|a|per|voor|dla|till|til|in\s+memory|in\s+memoriam)\s
        |(?i)^(?:for|to|para|pour|für)\s+(?:my|our|mi|mis|ma|mon|mes|meine[nm]?|the\s+memory)\b
        |(?i)^in\s+(?:loving\s+)?memor(?:y|iam)\b|(?i)^dedicated\s+to\b|(?i)^gewidmet\b
        |^(?:For|To|Pour|À|Für)\s[^,]{1,40},\s+(?:who|whose|without\s+whom|qui|dont|sans\s+qui|die|der|ohne\s+die|ohne\s+den)\b",
    )
    .unwrap()
});
static MASTHEAD: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?i)\b(?:journal|proceedings|transactions|conference|symposium|workshop|magazine|bulletin|annals|newsletter|gazette|quarterly)\b|\bvol(?:ume)?\.?\s*\d+|\bissue\s+\d+|\bno\.\s*\d+",
    )
    .unwrap()
});

/// How unlikely `text` is to be a title: `None` when it never is (labels,
/// chapter heads, dates, copyright lines, dedications), else a penalty
/// (mastheads, logos, acronyms, overlong blocks).
pub(crate) fn title_penalty(text: &str) -> Option<f32> {
    memoized(&PENALTIES, text, || penalty_of(text))
}

/// [`title_penalty`], worked out.
fn penalty_of(text: &str) -> Option<f32> {
    let t = text.trim();
    let bare =
        t.trim_end_matches(|c: char| c.is_ascii_digit() || c.is_whitespace() || ".:".contains(c));
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    let words: Vec<&str> = t.split_whitespace().collect();
    // A sentence of running text, or a contents entry with dot leaders.
    // Tested before the patterns below (same result, any order): most
    // blocks of a text page are such sentences, and the patterns are slow
    // on long non-ASCII text.
    let last_word = words.last().copied().unwrap_or("");
    if (words.len() >= 4
        && t.ends_with('.')
        && last_word.chars().filter(|c| c.is_alphabetic()).count() > 3)
        || t.contains(". . .")
        || t.contains("....")
        || t.contains("···")
    {
        return None;
    }
    if letters < 2
        || LABEL.is_match(bare)
        || SECTION.is_match(t)
        || GENRE.is_match(bare)
        || GENRE.is_match(t)
        || NEVER.is_match(t)
        || DATE.is_match(t)
        || DEDICATION.is_match(t)
        || is_credit_or_connector(t)
        || super::context::is_also_by_heading(t)
    {
        return None;
    }
    let mut penalty = 0.0;
    if MASTHEAD.is_match(t) {
        penalty += 0.35;
    }
    if words.len() == 1 {
        let w = words[0];
        if w.starts_with(|c: char| c.is_lowercase()) {
            // A single lower-case word: a fragment of a logo, or a stray word.
            penalty += 0.4;
        } else if letters <= 5 && w.chars().all(|c| !c.is_lowercase()) && !w.chars().any(is_cjk) {
            // "JMS", "IEEE": a masthead acronym.
            penalty += 0.3;
        }
    }
    if words.len() > 45 {
        penalty += 0.3;
    }
    Some(penalty)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_memo_keeps_short_texts_and_empties_when_full() {
        let mut memo: Memo<usize> = Memo::new();
        let long = "x".repeat(MEMO_TEXT + 1);
        memo.put(&long, 1);
        assert_eq!(memo.get(&long), None);
        for i in 0..MEMO_CAPACITY {
            memo.put(&format!("line {i}"), i);
        }
        assert_eq!(memo.get("line 7"), Some(7));
        memo.put("one more", 0);
        assert_eq!(memo.get("line 7"), None);
        assert_eq!(memo.get("one more"), Some(0));
        // Asked twice, a line reads the same.
        let line = "Ann Lee and Bo Chen";
        assert_eq!(classify(line), classify(line));
        assert!(matches!(classify(line), LineKind::Names { names, .. } if names.len() == 2));
    }

    #[test]
    fn a_line_opened_by_a_mark_is_an_affiliation() {
        assert_eq!(
            classify("¹ Harbour Labs, Room B12, Port Ellin, Wessex 07000"),
            LineKind::Affiliation
        );
        assert_eq!(classify("ᵃ Tollan Park, Maple Hill"), LineKind::Affiliation);
        assert!(matches!(
            classify("Ann Lee¹, Bo Chen²"),
            LineKind::Names { .. }
        ));
    }

    #[test]
    fn article_identifiers_are_never_titles() {
        assert_eq!(title_penalty("PII: S0000-1111(99)00042-7"), None);
        assert_eq!(title_penalty("Article ID 40213"), None);
        assert!(title_penalty("Tide Mills of the Southern Coast").is_some());
    }

    #[test]
    fn also_by_headings_are_never_titles() {
        for head in [
            "Also by Ottilie Marwenau",
            "CHEZ LE MÊME ÉDITEUR",
            "Von Ottilie Marwenau sind außerdem erschienen",
            "Книги Отилии Марвенау в нашем издательстве",
            "Того же автора",
        ] {
            assert_eq!(title_penalty(head), None, "{head}");
        }
        // A title that merely starts like one.
        assert!(title_penalty("Von Mühlen und Wehren").is_some());
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
    fn bylines_of_package_manuals_are_names() {
        let n = |s: &str| match classify(s) {
            LineKind::Names { names, .. } => names,
            k => panic!("{s:?} -> {k:?}"),
        };
        // A surname set in capitals after a given name in mixed case.
        assert_eq!(n("Odile MARCHETEAU"), vec!["Odile Marcheteau"]);
        assert_eq!(n("Ilse KARNOWSKI†"), vec!["Ilse Karnowski"]);
        // A given name joined to an initial.
        assert_eq!(n("H.-Bertil Lindqvist"), vec!["H.-Bertil Lindqvist"]);
        // A remark in brackets after a name: a role, a pen name, a status.
        assert_eq!(
            n("Oda Brennvik (fonts) and Piet Haverkamp (documentation)"),
            vec!["Oda Brennvik", "Piet Haverkamp"]
        );
        assert_eq!(n("Wenli Zhou (Sorrelwood∗)"), vec!["Wenli Zhou"]);
        assert_eq!(n("Tobias Kolumbek†"), vec!["Tobias Kolumbek"]);
        // "et al." ends a list without being a name.
        assert_eq!(
            n("Jean-Luc F. Dorvalle, et al."),
            vec!["Jean-Luc F. Dorvalle"]
        );
    }

    #[test]
    fn names_in_other_languages_and_in_capitals() {
        let n = |s: &str| match classify(s) {
            LineKind::Names { names, .. } => names,
            k => panic!("{s:?} -> {k:?}"),
        };
        // A particle of a name set in capitals stays lower case.
        assert_eq!(n("GUNTRAM VON ARNSTEIN"), vec!["Guntram von Arnstein"]);
        // "Roman" is a genre word under a title and a given name.
        assert_eq!(n("Roman Halvorsen"), vec!["Roman Halvorsen"]);
        assert_eq!(n("Роман Ветров"), vec!["Роман Ветров"]);
        assert_eq!(
            n("Ольга Ветрова и Пётр Лазарев"),
            vec!["Ольга Ветрова", "Пётр Лазарев"]
        );
        // Title words of German books are not names; role lines are credits.
        assert!(!matches!(
            classify("Eine Einführung"),
            LineKind::Names { .. }
        ));
        assert_eq!(classify("Illustriert von Hanne Solberg"), LineKind::Credit);
        assert_eq!(classify("Traduction de Line Marvaud"), LineKind::Credit);
        assert_eq!(classify("Художник Олег Северов"), LineKind::Credit);
        assert_eq!(classify("Dessins de Mireille Tanvart"), LineKind::Credit);
        assert_eq!(classify("Zeichnungen von Hanne Solberg"), LineKind::Credit);
        assert_eq!(classify("Рисунки Олега Северова"), LineKind::Credit);
        assert!(matches!(
            classify("Édité par"),
            LineKind::Connector { editor: true, .. }
        ));
        assert!(matches!(
            classify("Под редакцией"),
            LineKind::Connector { editor: true, .. }
        ));
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
            "Using LATEX",
            "Inside NASA",
            "Written in LUATEX",
            "苏州",
            "Revised 14 March 2021",
            "Brandon, Keewatin, Canada R7A 5K9",
            // The foot of a title page set in capitals, read as one line
            // by OCR: an imprint, a place and a year in Roman numerals.
            "HALLOWAY-BRENT ACADEMIC CAMBRIDGE, MA MCMLXXVII",
            "Librairie Vermandois-Charlet",
            "PRESSES DE LA VALLÉE",
            // A subtitle split on "and": one half is a title phrase, so
            // the other is no name.
            "Essays on Faith and Folk Music",
            // Towns under an imprint, their separating dot lost to OCR.
            "Paris Montreal",
            "LONDON EDINBURGH",
            "Москва Казань",
            "A History of Lanterns and Signal Fires",
        ] {
            assert!(!matches!(classify(s), LineKind::Names { .. }), "{s}");
        }
        // Short Roman numerals and towns are given names too.
        assert!(matches!(classify("Liv Ostrander"), LineKind::Names { .. }));
        assert!(matches!(
            classify("Paris Halvorsen"),
            LineKind::Names { .. }
        ));
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
    fn dedications_chapters_and_labels_are_not_titles() {
        for t in [
            "for Aino",
            "para mi madre",
            "To my mother",
            "For Hester, who waited",
            "To Ilse and Bram, without whom",
            "Pour Mireille, qui savait",
            "Für Lene, die immer fragte",
            "Contents",
            "Chapter 1",
            "Index",
            "TECHNICAL REPORT",
            "Revised 14 March 2021",
            "© 2019 Someone",
            "Also by Rosalind Ashcombe",
            "第一章 纸本与纸本保护",
            "1. Introduction",
            "LCCN 2021038846",
            "ISBN 978-1-915862-40-2",
        ] {
            assert_eq!(title_penalty(t), None, "{t}");
        }
        for t in [
            "To SYNC or Not to SYNC: Durability of Log-Structured File Systems",
            "kite: An S4 Class",
            "Návod k QZTeXu",
            "An Introduction to Q",
            "For Whom the Bell Tolls",
            "To Market, to Market: Trade in the Baltic",
        ] {
            assert_eq!(title_penalty(t), Some(0.0), "{t}");
        }
    }
}
