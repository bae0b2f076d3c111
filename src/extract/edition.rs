//! Finder for `edition` candidates: edition statements ("Second edition",
//! "2nd ed.", "Third edition, revised", "Edition 3", "4., durchgesehene
//! Auflage", "Quatrième édition", "segunda edición", "第3版", the CIP "—3
//! 版") normalised to the edition number as a string ("2", "3", "4"), or
//! "revised" for an unnumbered revised edition.
//!
//! Where the statement is printed decides its weight: the title page and
//! the copyright page state this book's edition; a printing history on the
//! copyright page ("First edition published 2015 / Second edition published
//! 2022", "1. Auflage 2009 ... 4. Auflage 2019") names earlier editions too,
//! so on one page the highest number wins and the others are history; a
//! preface heading ("Preface to the second edition") is supporting
//! evidence; reference lists and citations ("4th edition. Springer") are
//! other books. A lone "first edition" is weak evidence: most first
//! editions print no statement, and the corpus convention is to report none.
//! Software versions ("version 2.85") are never editions.
//!
//! Score semantics (`Candidate::score`):
//! - `>= 0.8`: a statement standing on the title page or the copyright page
//!   (the highest one there); report it.
//! - `0.5 ..< 0.8`: confident enough to report alone: a statement inside a
//!   title-page line, a CIP edition, a colophon, or a first edition on the
//!   title page.
//! - `0.2 ..< 0.5`: weak: preface/contents headings, prose mentions, first
//!   editions off the title page, earlier editions in a printing history;
//!   use only when corroborated.
//! - `< 0.2`: in a reference list or citation; never report.

use super::pattern::Pattern;
use crate::extract::context::{self, PageCtx, PageKind, Part};
use crate::model::{Candidate, DocText, Field, Value};
use std::sync::LazyLock;

/// Every `edition` candidate in the document's page text.
pub fn find(doc: &DocText) -> Vec<Candidate> {
    find_in(&context::read(doc))
}

/// [`find`] over pages already read by [`context::read`] (which
/// `text_candidates` does once for all finders of a document).
pub fn find_in(pages: &[PageCtx]) -> Vec<Candidate> {
    let mut out: Vec<Candidate> = Vec::new();
    for p in pages {
        let mut hits: Vec<(Edition, f32, String)> = Vec::new();
        for i in 0..p.len() {
            let t = p.text(i);
            for st in statements(t) {
                let (s, why) = score(p, i, &st);
                hits.push((st.edition, s, why));
            }
        }
        // A printing history: on one page the highest edition is this one.
        let max = hits
            .iter()
            .filter(|h| h.1 >= 0.2)
            .filter_map(|h| match h.0 {
                Edition::Number(n) => Some(n),
                Edition::Revised => None,
            })
            .max();
        for (ed, mut s, mut why) in hits {
            if let (Edition::Number(n), Some(m)) = (ed, max) {
                if n < m && s >= 0.2 {
                    s *= 0.35;
                    why.push_str(", earlier edition in a printing history");
                }
            }
            let value = Value::Text(match ed {
                Edition::Number(n) => n.to_string(),
                Edition::Revised => "revised".to_string(),
            });
            match out
                .iter_mut()
                .find(|c| c.value == value && c.page == Some(p.index()))
            {
                Some(c) if c.score >= s => {}
                Some(c) => {
                    c.score = s;
                    c.why = why;
                }
                None => out.push(Candidate {
                    field: Field::Edition,
                    value,
                    score: s,
                    page: Some(p.index()),
                    via: p.via(),
                    why,
                }),
            }
        }
    }
    out
}

/// An edition as printed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Edition {
    Number(u32),
    /// "Revised edition" without a number.
    Revised,
}

/// One edition statement found in a line: the edition and its byte span.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Statement {
    pub edition: Edition,
    pub start: usize,
    pub end: usize,
}

/// Every edition statement in `text` (any supported language).
pub fn statements(text: &str) -> Vec<Statement> {
    let mut out: Vec<Statement> = Vec::new();
    if !MAY_STATE.is_match(text) {
        return out;
    }
    for re in NUMBERED.iter() {
        for c in re.captures_iter(text) {
            let m = c.get(0).unwrap();
            if out.iter().any(|s| m.start() < s.end && s.start < m.end()) {
                continue;
            }
            if let Some(n) = ordinal(&c[1]) {
                out.push(Statement {
                    edition: Edition::Number(n),
                    start: m.start(),
                    end: m.end(),
                });
            }
        }
    }
    if out.is_empty() {
        if let Some(m) = REVISED.find(text) {
            out.push(Statement {
                edition: Edition::Revised,
                start: m.start(),
                end: m.end(),
            });
        }
    }
    out.sort_by_key(|s| s.start);
    out
}

/// The number an ordinal word or numeral stands for, in English, German,
/// French, Spanish, Italian, Portuguese, Russian or Chinese ("second", "2nd",
/// "zweite", "troisième", "3e", "segunda", "三", "3").
pub fn ordinal(word: &str) -> Option<u32> {
    let w = word.trim().to_lowercase();
    let w = w.trim_end_matches('.');
    let digits: String = w.chars().take_while(|c| c.is_ascii_digit()).collect();
    if !digits.is_empty() {
        return digits.parse().ok().filter(|n| (1..=99).contains(n));
    }
    if w.chars().all(|c| "一二三四五六七八九十".contains(c)) {
        return chinese_number(w);
    }
    let n = match w {
        "first" | "erste" | "erster" | "ersten" | "première" | "premiere" | "premier"
        | "primera" | "primero" | "prima" | "primeira" => 1,
        "second" | "zweite" | "zweiter" | "zweiten" | "deuxième" | "deuxieme" | "seconde"
        | "segunda" | "seconda" => 2,
        "third" | "dritte" | "dritter" | "dritten" | "troisième" | "troisieme" | "tercera"
        | "terza" | "terceira" => 3,
        "fourth" | "vierte" | "vierter" | "vierten" | "quatrième" | "quatrieme" | "cuarta"
        | "quarta" => 4,
        "fifth" | "fünfte" | "fünfter" | "fünften" | "cinquième" | "cinquieme" | "quinta" => 5,
        "sixth" | "sechste" | "sechster" | "sechsten" | "sixième" | "sixieme" | "sexta"
        | "sesta" => 6,
        "seventh" | "siebte" | "siebente" | "siebten" | "septième" | "septieme" | "séptima"
        | "septima" | "settima" | "sétima" => 7,
        "eighth" | "achte" | "achten" | "huitième" | "huitieme" | "octava" | "ottava"
        | "oitava" => 8,
        "ninth" | "neunte" | "neunten" | "neuvième" | "neuvieme" | "novena" | "nona" => 9,
        "tenth" | "zehnte" | "zehnten" | "dixième" | "dixieme" | "décima" | "decima" => 10,
        "первое" => 1,
        "второе" => 2,
        "третье" => 3,
        "четвёртое" | "четвертое" => 4,
        "пятое" => 5,
        "шестое" => 6,
        "седьмое" => 7,
        "восьмое" => 8,
        "девятое" => 9,
        "десятое" => 10,
        "eleventh" => 11,
        "twelfth" => 12,
        "thirteenth" => 13,
        "fourteenth" => 14,
        "fifteenth" => 15,
        "sixteenth" => 16,
        "seventeenth" => 17,
        "eighteenth" => 18,
        "nineteenth" => 19,
        "twentieth" => 20,
        _ => return None,
    };
    Some(n)
}

fn chinese_number(w: &str) -> Option<u32> {
    let d = |c: char| "一二三四五六七八九".find(c).map(|i| i as u32 / 3 + 1);
    let chars: Vec<char> = w.chars().collect();
    match chars.as_slice() {
        [c] if *c == '十' => Some(10),
        [c] => d(*c),
        ['十', u] => Some(10 + d(*u)?),
        [t, '十'] => Some(10 * d(*t)?),
        [t, '十', u] => Some(10 * d(*t)? + d(*u)?),
        _ => None,
    }
}

const EN_WORDS: &str = "first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth";

static NUMBERED: LazyLock<Vec<Pattern>> = LazyLock::new(|| {
    [
        // English: "Second edition", "2nd ed.", "Third revised edition".
        format!(
            r"(?i)\b({EN_WORDS}|\d{{1,2}}\s?(?:st|nd|rd|th))\s+(?:(?:revised|expanded|updated|enlarged|international|new|rev\.|and|corrected|augmented),?\s+){{0,3}}(?:edition\b|ed\.|edn\b)"
        ),
        // "Edition 3", "Edition: 2" (not "Edition 2.85": a version).
        r"(?i)\bedition\s*[:#]?\s*(\d{1,2})(?:[\s,;)]|$)".to_string(),
        // German: "4., durchgesehene Auflage", "2. Auflage", "Zweite, überarbeitete Auflage".
        r"(?i)(?:^|[^\d.])(\d{1,2})\.\s*,?\s*(?:[\p{L}-]+\s+(?:und\s+[\p{L}-]+\s+)?)?auflage\b"
            .to_string(),
        r"(?i)\b(erste|zweite|dritte|vierte|fünfte|sechste|siebte|siebente|achte|neunte|zehnte)[rn]?\s*,?\s*(?:[\p{L}-]+\s+)?auflage\b"
            .to_string(),
        // French: "Quatrième édition", "3e édition".
        r"(?i)(?:^|[^\p{L}])(premi[eè]re|deuxi[eè]me|seconde|troisi[eè]me|quatri[eè]me|cinqui[eè]me|sixi[eè]me|septi[eè]me|huiti[eè]me|neuvi[eè]me|dixi[eè]me|\d{1,2}\s?(?:e|è|ème|eme|re|ère))\s+(?:[\p{L}]+\s+)?[ée]dition\b"
            .to_string(),
        // Spanish, Italian, Portuguese.
        r"(?i)(?:^|[^\p{L}])(primera|segunda|tercera|cuarta|quinta|sexta|s[ée]ptima|octava|novena|d[ée]cima|prima|seconda|terza|quarta|sesta|settima|ottava|nona|decima|primeira|terceira|oitava)\s+(?:edici[óo]n|edizione|edi[çc][ãa]o)\b"
            .to_string(),
        r"(?i)\b(\d{1,2})\s?[ªa°º]\.?\s+(?:edici[óo]n|edizione|edi[çc][ãa]o|ed\.)".to_string(),
        // Czech, Polish, Hungarian, Scandinavian: "2. vydání", "3. wydanie".
        r"(?i)\b(\d{1,2})\.\s*(?:[\p{L}]+\s+)?(?:vydání|wydanie|kiadás|izdanje|upplagan|udgave|utgave|painos)\b"
            .to_string(),
        // Russian: "Шестое издание", "6-е издание", "Изд. 3-е, испр.".
        r"(?i)(?:^|[^\p{L}])(первое|второе|третье|четв[её]ртое|пятое|шестое|седьмое|восьмое|девятое|десятое|\d{1,2}-?е)\s*,?\s*(?:[\p{L}]+\s+(?:и\s+[\p{L}]+\s+)?)?издание\b"
            .to_string(),
        r"(?i)(?:^|[^\p{L}])изд(?:ание|\.)\s*(\d{1,2})-?е\b".to_string(),
        // Chinese / Japanese: "第3版", "第三版" (not "第1次印刷").
        r"第\s*([0-9一二三四五六七八九十]{1,3})\s*版".to_string(),
        // Chinese CIP: "—3 版".
        r"[—－]\s*(\d{1,2})\s*版".to_string(),
    ]
    .iter()
    .map(|p| Pattern::new(p).unwrap())
    .collect()
});

/// A word that every pattern of [`NUMBERED`] and [`REVISED`] needs: a line
/// without one is not asked each of them (most lines have none).
static MAY_STATE: LazyLock<regex::Regex> = LazyLock::new(|| {
    regex::Regex::new(
        r"(?i)edi|ed\.|edn|dition|auflage|vydán|wydanie|kiadás|izdanje|upplagan|udgave|utgave|painos|изд|版",
    )
    .unwrap()
});

static REVISED: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)\b(?:revised\s+edition|revised\s+and\s+(?:expanded|updated)\s+edition|édition\s+revue|überarbeitete\s+auflage)\b")
        .unwrap()
});

fn score(p: &PageCtx, i: usize, st: &Statement) -> (f32, String) {
    let t = p.text(i);
    let where_ = format!("p{}", p.index());
    if p.in_references(i) || context::citation_like(t) {
        return (0.05, format!("edition in a citation ({where_})"));
    }
    if matches!(p.kind, PageKind::AlsoBy | PageKind::Index) || p.in_also_by(i) {
        return (0.05, format!("edition on an also-by/index page ({where_})"));
    }
    let trimmed = t.trim();
    let stated = (st.end - st.start) as f32;
    let standalone = stated >= 0.5 * trimmed.len() as f32
        || context::words(trimmed) <= 5
        || trimmed.starts_with(t[st.start..st.end].trim())
        || t[..st.start]
            .trim_end()
            .ends_with(['|', ':', '：', '(', '（']);
    // "the 25th edition of the conference", "since the second edition":
    // an edition talked about, not this book's statement.
    let talked_about = t[..st.start]
        .split_whitespace()
        .next_back()
        .is_some_and(|w| {
            ["the", "this", "that", "its", "der", "die", "la", "le", "l'"]
                .contains(&w.to_lowercase().as_str())
        });
    let n1 = st.edition == Edition::Number(1);
    let (mut s, why) = match p.kind {
        PageKind::Title | PageKind::HalfTitle if standalone => {
            (0.85, "edition line on the title page")
        }
        PageKind::Title | PageKind::HalfTitle => (0.7, "edition on the title page"),
        PageKind::Imprint if p.part == Part::Back => (0.6, "edition in the colophon"),
        PageKind::Imprint if standalone => (0.85, "edition statement on the copyright page"),
        PageKind::Imprint => (0.5, "edition mentioned on the copyright page"),
        _ if p.part == Part::Back => (0.25, "edition mentioned in the back matter"),
        _ if context::words(trimmed) <= 8 => (0.45, "edition in a heading"),
        _ => (0.3, "edition mentioned in the text"),
    };
    if talked_about && !standalone_heading(trimmed) {
        s = f32::min(s, 0.3);
    }
    if n1 {
        let cap = if matches!(p.kind, PageKind::Title | PageKind::HalfTitle) {
            0.65
        } else {
            0.45
        };
        s = f32::min(s, cap);
    }
    if st.edition == Edition::Revised {
        s *= 0.7;
    }
    (s, format!("{why} ({where_})"))
}

/// A short heading such as "Preface to the second edition".
fn standalone_heading(line: &str) -> bool {
    context::words(line) <= 6 && !line.trim_end().ends_with('.') && !line.contains(',')
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::context::testutil::*;
    use crate::model::PageText;

    fn run(pages: &[PageText], count: u32) -> Vec<Candidate> {
        find(&DocText {
            pages,
            page_count: count,
        })
    }

    fn best(c: &[Candidate]) -> Option<(String, f32)> {
        c.iter()
            .max_by(|a, b| a.score.total_cmp(&b.score))
            .map(|c| match &c.value {
                Value::Text(s) => (s.clone(), c.score),
                _ => unreachable!(),
            })
    }

    fn one(s: &str) -> Option<Edition> {
        statements(s).first().map(|s| s.edition)
    }

    #[test]
    fn parses_statements_in_several_languages() {
        use Edition::*;
        assert_eq!(one("Second Edition"), Some(Number(2)));
        assert_eq!(one("2nd ed."), Some(Number(2)));
        assert_eq!(one("Third edition, revised"), Some(Number(3)));
        assert_eq!(one("Fourth revised and expanded edition"), Some(Number(4)));
        assert_eq!(
            one("Builder's Guide, Edition 1 for release 1.2.7"),
            Some(Number(1))
        );
        assert_eq!(one("4., durchgesehene Auflage"), Some(Number(4)));
        assert_eq!(one("2. Auflage 2012"), Some(Number(2)));
        assert_eq!(one("Zweite, überarbeitete Auflage"), Some(Number(2)));
        assert_eq!(one("Шестое издание"), Some(Number(6)));
        assert_eq!(one("6-е издание"), Some(Number(6)));
        assert_eq!(one("Второе, исправленное издание"), Some(Number(2)));
        assert_eq!(one("Изд. 3-е, испр. и доп."), Some(Number(3)));
        assert_eq!(one("Издательство «Светлояр»"), None);
        assert_eq!(one("Quatrième édition"), Some(Number(4)));
        assert_eq!(one("3e édition revue et augmentée"), Some(Number(3)));
        assert_eq!(one("segunda edición"), Some(Number(2)));
        assert_eq!(one("（第 3 版）"), Some(Number(3)));
        assert_eq!(one("第三版"), Some(Number(3)));
        assert_eq!(one("2. vydání"), Some(Number(2)));
        assert_eq!(one("Revised edition"), Some(Revised));
        assert_eq!(one("For version 2.85"), None);
        assert_eq!(one("Edition 2.85"), None);
        assert_eq!(one("Kindle edition"), None);
        assert_eq!(one("印 次：2021 年 3 月第 1 次印刷"), None);
    }

    #[test]
    fn title_page_edition_beats_printing_history() {
        let title = page(
            3,
            &[
                ("The Ledger and the", 24.0, 132.0),
                ("Lantern", 24.0, 160.0),
                ("Rosalind Ashcombe", 14.0, 285.0),
                ("Second edition", 11.0, 463.0),
                ("Ashdown & Pryce", 10.5, 559.0),
            ],
        );
        let copy = body(
            4,
            300.0,
            &[
                "Second edition published 2022",
                "by Ashdown & Pryce",
                "First edition published 2015",
                "Reprinted 2023",
                "© 2015, 2022 Rosalind Ashcombe",
                "Description: Second edition. | London ; New York : Ashdown & Pryce, 2022.",
            ],
        );
        let contents = body(
            5,
            100.0,
            &[
                "Contents",
                "Preface to the second edition . . . . . . . ix",
                "1 Sources . . . . . . . 1",
            ],
        );
        let c = run(&[title, copy, contents], 16);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "2");
        assert!(s >= 0.8);
        let first = c
            .iter()
            .filter(|c| c.value == Value::Text("1".into()))
            .map(|c| c.score)
            .fold(0.0, f32::max);
        assert!(first < 0.2, "{first}");
    }

    #[test]
    fn german_edition_list_takes_highest() {
        let p = body(
            2,
            300.0,
            &[
                "Bibliografische Information der Deutschen Nationalbibliothek",
                "1. Auflage 2009",
                "2. Auflage 2012",
                "3., erweiterte Auflage 2016",
                "4., durchgesehene Auflage 2019",
                "ISBN 978-1-80466-211-3",
                "© Rabenau Fachverlag GmbH, Leipzig 2009, 2019",
            ],
        );
        let c = run(&[p], 15);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "4");
        assert!(s >= 0.8);
        assert!(
            c.iter()
                .filter(|c| c.value != Value::Text("4".into()))
                .all(|c| c.score < 0.5)
        );
    }

    #[test]
    fn chinese_title_and_imprint() {
        let title = page(
            0,
            &[
                ("纸本保护方法", 26.0, 150.0),
                ("——概论与案例", 16.0, 190.0),
                ("（第 3 版）", 14.0, 220.0),
                ("青峦大学出版社", 14.0, 600.0),
            ],
        );
        let copy = body(
            1,
            200.0,
            &[
                "图书在版编目（CIP）数据",
                "纸本保护方法：概论与案例 / 刘雨桐编著. —3 版. —苏州：青峦大学出版社，2021.3",
                "ISBN 978-1-63179-512-1",
                "版     次：2011 年 5 月第 1 版          2021 年 3 月第 3 版",
                "印     次：2021 年 3 月第 1 次印刷",
            ],
        );
        let c = run(&[title, copy], 16);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "3");
        assert!(s >= 0.8);
    }

    #[test]
    fn conference_edition_in_prose_is_weak() {
        let p = page(
            0,
            &[
                ("To Fuse or Not", 24.0, 150.0),
                (
                    "This paper is included in the proceedings of the 25th edition",
                    14.0,
                    300.0,
                ),
                (
                    "of the Symposium on Storage, held in Santa Clara.",
                    14.0,
                    320.0,
                ),
            ],
        );
        let c = run(&[p], 15);
        assert!(c.iter().all(|c| c.score < 0.5), "{c:?}");
    }

    #[test]
    fn citations_and_versions_are_not_editions() {
        let mut lines: Vec<&str> = std::iter::repeat_n(PROSE, 6).collect();
        lines.push("References");
        lines.push("Farrow KJ, Mercer PD (2002). Practical Applied Statistics with Q. 4th edition. Feldmann-");
        let refs = body(15, 100.0, &lines);
        let title = page(
            0,
            &[
                ("Lattice: the Plot Description Language", 24.0, 150.0),
                ("For version 2.85", 12.0, 200.0),
            ],
        );
        let c = run(&[title, refs], 18);
        assert!(c.iter().all(|c| c.score < 0.2), "{c:?}");
    }

    #[test]
    fn manual_first_edition_on_title_page_is_reportable_elsewhere_weak() {
        let title = page(
            0,
            &[
                ("The Pyxis Markov Toolbox", 24.0, 150.0),
                ("Builder's Guide, Edition 1 for release 1.2.7", 14.0, 190.0),
                ("2020-03-21", 12.0, 210.0),
                ("Fabio Cervellin", 14.0, 600.0),
            ],
        );
        let c = run(&[title], 101);
        let (v, s) = best(&c).unwrap();
        assert_eq!(v, "1");
        assert!((0.5..0.8).contains(&s), "{s}");
        let prose = body(
            1,
            100.0,
            &[
                "Copyright © 2020 Fabio Cervellin",
                "This is the first edition of the Markov toolbox documentation, and is consistent with",
                "Permission is granted to make and distribute verbatim copies of this manual.",
            ],
        );
        let c = run(&[prose], 101);
        assert!(best(&c).unwrap().1 < 0.5);
    }
}
