//! BibTeX and BibLaTeX entries.
//!
//! Both escape LaTeX's special characters (`\ { } & % $ # _ ~ ^`), so a
//! title like "50% of {R} & C#" survives any reader. They differ where
//! the dialects do: BibTeX gets accented Latin letters as LaTeX accents
//! (`{\'e}`, `{\ss}`), other scripts braced as they are, the subtitle in
//! the title, `year` and an ordinal `edition`; BibLaTeX keeps Unicode and
//! has `subtitle`, `date` and entry types of its own (`@report`,
//! `@thesis` with a `type`). Words with capitals after their first letter
//! ("NASA", "LaTeX") are braced so styles that change case keep them.

use super::names::Person;
use super::{Entry, Kind};
use crate::model::Metadata;
use std::fmt::Write as _;
use unicode_normalization::UnicodeNormalization;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    Bibtex,
    Biblatex,
}

pub fn render(entries: &[Entry], dialect: Dialect) -> String {
    let mut out = String::new();
    for e in entries {
        entry(&mut out, e, dialect);
        out.push('\n');
    }
    out
}

/// The entry type and, for BibLaTeX's `@report` and `@thesis`, its
/// `type`. BibLaTeX gets a type only when the entry holds the fields
/// biber's data model makes mandatory for it (an `@article` needs a
/// `journaltitle`, which colophon does not read; a `@report` or
/// `@thesis` an institution; a `@book` an author), else `@misc`, so that
/// `biber --validate-datamodel` has nothing to warn about but what no
/// export can make up (a missing year).
fn entry_type(e: &Entry, d: Dialect) -> (&'static str, Option<&'static str>) {
    let has_publisher = e.meta.publisher.is_some();
    let has_author = !e.authors.is_empty();
    match (e.kind, d) {
        (Kind::Book, Dialect::Biblatex) if !has_author => ("misc", None),
        (Kind::Book, _) => ("book", None),
        (Kind::Article, Dialect::Bibtex) => ("article", None),
        (Kind::Article, Dialect::Biblatex) => ("misc", None),
        (Kind::Manual, _) => ("manual", None),
        (Kind::Misc, _) => ("misc", None),
        (Kind::TechReport, Dialect::Bibtex) => ("techreport", None),
        (Kind::TechReport, Dialect::Biblatex) if has_publisher && has_author => {
            ("report", Some("techreport"))
        }
        (Kind::TechReport, Dialect::Biblatex) => ("misc", Some("techreport")),
        (Kind::Thesis, Dialect::Bibtex) => ("phdthesis", None),
        (Kind::Thesis, Dialect::Biblatex) if has_publisher && has_author => {
            ("thesis", Some("phdthesis"))
        }
        (Kind::Thesis, Dialect::Biblatex) => ("misc", Some("phdthesis")),
    }
}

fn entry(out: &mut String, e: &Entry, d: Dialect) {
    let latex = |s: &str| escape(s, d);
    let (ty, subtype) = entry_type(e, d);
    let m = &e.meta;
    let mut fields: Vec<(&str, String)> = Vec::new();
    if !e.authors.is_empty() {
        let names: Vec<String> = e.authors.iter().map(|p| name(p, d)).collect();
        fields.push(("author", names.join(" and ")));
    }
    title_fields(m, d, &mut fields);
    if let Some(t) = subtype {
        fields.push(("type", t.to_string()));
    }
    // "2", as Zotero and JabRef export it: BibLaTeX and pandoc print
    // "2nd ed.".
    if let Some(ed) = &m.edition {
        fields.push(("edition", latex(ed)));
    }
    if let Some(p) = &m.publisher {
        fields.push((publisher_field(ty, d), latex(p)));
    }
    if let Some(y) = m.year {
        let field = match d {
            Dialect::Bibtex => "year",
            Dialect::Biblatex => "date",
        };
        fields.push((field, y.to_string()));
    }
    if let Some(i) = &m.isbn {
        fields.push(("isbn", latex(i)));
    }
    if let Some(doi) = &m.doi {
        // Verbatim in BibLaTeX and read so by BibTeX tools (pandoc, the
        // `doi` styles): no escapes, or `\_` would become part of it.
        fields.push(("doi", verbatim(doi)));
    }
    if let Some(loc) = &m.loc {
        match d {
            // The field BibTeX exports of the Library of Congress use.
            Dialect::Bibtex => fields.push(("lccn", latex(loc))),
            // BibLaTeX has no LCCN field; `library` is its "where to find it".
            Dialect::Biblatex => fields.push(("library", latex(&format!("LCCN {loc}")))),
        }
    }
    if let Some(n) = &e.note {
        fields.push(("note", latex(n)));
    }
    if d == Dialect::Biblatex {
        homeless_to_note(ty, &mut fields);
    }
    fields.push(("file", file_field(e)));

    let _ = writeln!(out, "@{ty}{{{},", e.key);
    let width = fields.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    for (k, v) in &fields {
        let _ = writeln!(out, "  {k:<width$} = {{{v}}},");
    }
    out.push_str("}\n");
}

/// The title fields of an entry: BibTeX's one `title` ("Title: Subtitle"),
/// BibLaTeX's `title` and `subtitle`.
fn title_fields(m: &Metadata, d: Dialect, fields: &mut Vec<(&str, String)>) {
    let latex = |s: &str| escape(s, d);
    match d {
        Dialect::Bibtex => {
            // Each part balanced on its own: a lone brace of the title
            // never pairs with one of the subtitle.
            let part = |v: &Option<String>| v.as_deref().map(balanced);
            let t = match (part(&m.title), part(&m.subtitle)) {
                (Some(t), Some(s)) => Some(format!("{t}: {s}")),
                (t, s) => t.or(s),
            };
            if let Some(t) = t {
                fields.push(("title", protect_caps(&latex(&t))));
            }
        }
        Dialect::Biblatex => {
            if let Some(t) = &m.title {
                fields.push(("title", protect_caps(&latex(t))));
            }
            if let Some(s) = &m.subtitle {
                fields.push(("subtitle", protect_caps(&latex(s))));
            }
        }
    }
}

/// The field an entry of type `ty` names its publisher in.
fn publisher_field(ty: &str, d: Dialect) -> &'static str {
    match ty {
        "techreport" | "report" => "institution",
        "phdthesis" => "school",
        "thesis" => "institution",
        "manual" => "organization",
        // BibLaTeX's `@misc` has no publisher: the issuer is its
        // `organization`.
        "misc" if d == Dialect::Biblatex => "organization",
        _ => "publisher",
    }
}

/// The `file` field: JabRef's `description:path:type` (Zotero reads it
/// too); `:` and `;` in the path are escaped as JabRef expects.
fn file_field(e: &Entry) -> String {
    let path = e.file.to_string_lossy();
    let path = path
        .replace('\\', "\\\\")
        .replace(':', "\\:")
        .replace(';', "\\;");
    format!(":{}:PDF", verbatim(&path))
}

/// The fields of biber's data model that a BibLaTeX entry type takes
/// beyond those of every type (`doi`, `file`, `library`, `date`, …),
/// among the ones colophon writes (`blx-dm.def`).
fn biblatex_takes(ty: &str, field: &str) -> bool {
    const COMMON: &[&str] = &["author", "title", "subtitle", "note", "type", "date"];
    let own: &[&str] = match ty {
        "book" => &["edition", "isbn", "publisher"],
        "manual" => &["edition", "isbn", "publisher", "organization"],
        "report" | "thesis" => &["institution"],
        "misc" => &["organization", "howpublished"],
        _ => &[],
    };
    COMMON.contains(&field) || own.contains(&field) || matches!(field, "doi" | "file" | "library")
}

/// Values a BibLaTeX entry type has no field for (an edition or ISBN of
/// a `@misc` or `@report`) go into its note, named, rather than being
/// lost or drawing biber's "Invalid field" warning.
fn homeless_to_note(ty: &str, fields: &mut Vec<(&str, String)>) {
    let (kept, homeless): (Vec<_>, Vec<_>) =
        fields.drain(..).partition(|(k, _)| biblatex_takes(ty, k));
    *fields = kept;
    if homeless.is_empty() {
        return;
    }
    let words: Vec<String> = homeless
        .into_iter()
        .map(|(k, v)| match k {
            "isbn" => format!("ISBN {v}"),
            k => format!("{k} {v}"),
        })
        .collect();
    let words = words.join("; ");
    match fields.iter_mut().find(|(k, _)| *k == "note") {
        Some((_, note)) => *note = format!("{note}; {words}"),
        None => {
            let at = fields
                .iter()
                .position(|(k, _)| *k == "file")
                .unwrap_or(fields.len());
            fields.insert(at, ("note", words));
        }
    }
}

/// One name in the "von Last, Jr, First" form BibTeX and biber parse
/// without guessing; an organisation in braces (so "and" inside it is not
/// a separator and it is never reordered).
fn name(p: &Person, d: Dialect) -> String {
    match p {
        Person::Corporate(n) => format!("{{{}}}", escape(n, d)),
        Person::Personal(p) => {
            // A family name starting with a lower-case letter ("bell
            // hooks") would be read as a particle: braced.
            let family = escape(&p.family, d);
            let family = if p.family.chars().next().is_some_and(char::is_lowercase)
                || p.family.contains(' ')
            {
                format!("{{{family}}}")
            } else {
                family
            };
            let mut s = if p.particle.is_empty() {
                family
            } else {
                format!("{} {family}", escape(&p.particle, d))
            };
            if !p.suffix.is_empty() {
                s = format!("{s}, {}", escape(&p.suffix, d));
            }
            if !p.given.is_empty() {
                s = format!("{s}, {}", escape(&p.given, d));
            }
            s
        }
    }
}

/// `s` as LaTeX text for a field value: special characters escaped, and
/// for BibTeX non-ASCII letters written as LaTeX (or braced).
pub fn escape(s: &str, d: Dialect) -> String {
    let s: String = s.nfc().collect();
    // bibtex and biber count `\{` and `\}` as braces too: a lone one
    // swallows the rest of the file (bibtex) or stops the parse (biber).
    // Pairs are kept, escaped; a brace without its partner is dropped.
    let s = balanced(&s);
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push_str("\\textbackslash{}"),
            '{' | '}' | '&' | '%' | '$' | '#' | '_' => {
                out.push('\\');
                out.push(c);
            }
            '~' => out.push_str("\\textasciitilde{}"),
            '^' => out.push_str("\\textasciicircum{}"),
            c if c.is_control() => out.push(' '),
            c if c.is_ascii() || d == Dialect::Biblatex => out.push(c),
            c => {
                if let Some(t) = latex_letter(c) {
                    out.push_str(&t);
                } else {
                    // No LaTeX spelling: kept, braced as one unit (with
                    // the rest of its run) so styles never change its case.
                    out.push('{');
                    out.push(c);
                    while let Some(&n) = chars.peek() {
                        if n.is_ascii() || latex_letter(n).is_some() {
                            break;
                        }
                        out.push(n);
                        chars.next();
                    }
                    out.push('}');
                }
            }
        }
    }
    out
}

/// `s` without the braces that have no partner (a `}` before any `{`, a
/// `{` never closed); the pairs are kept.
fn balanced(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut keep = vec![true; chars.len()];
    let mut open = Vec::new();
    for (i, &c) in chars.iter().enumerate() {
        match c {
            '{' => open.push(i),
            '}' if open.pop().is_none() => keep[i] = false,
            _ => {}
        }
    }
    for i in open {
        keep[i] = false;
    }
    chars
        .into_iter()
        .zip(keep)
        .filter_map(|(c, k)| k.then_some(c))
        .collect()
}

/// A non-ASCII character written with LaTeX's accents and named letters,
/// braced: `é` → `{\'e}`, `ß` → `{\ss}`, `“` → ``` `` ```.
fn latex_letter(c: char) -> Option<String> {
    let named = match c {
        'ß' => Some("{\\ss}"),
        'æ' => Some("{\\ae}"),
        'Æ' => Some("{\\AE}"),
        'œ' => Some("{\\oe}"),
        'Œ' => Some("{\\OE}"),
        'ø' => Some("{\\o}"),
        'Ø' => Some("{\\O}"),
        'ł' => Some("{\\l}"),
        'Ł' => Some("{\\L}"),
        'ı' => Some("{\\i}"),
        'å' => Some("{\\aa}"),
        'Å' => Some("{\\AA}"),
        '“' => Some("``"),
        '”' => Some("''"),
        '‘' => Some("`"),
        '’' => Some("'"),
        '–' => Some("--"),
        '—' => Some("---"),
        '…' => Some("\\ldots{}"),
        '\u{a0}' => Some("~"),
        '«' => Some("{\\guillemotleft}"),
        '»' => Some("{\\guillemotright}"),
        _ => None,
    };
    if let Some(n) = named {
        return Some(n.to_string());
    }
    // A Latin letter with combining accents: base letter + accent commands.
    let mut parts = c.to_string().nfd().collect::<Vec<char>>().into_iter();
    let base = parts.next()?;
    if !base.is_ascii_alphabetic() {
        return None;
    }
    // `\'i`, not `\'\i`: LaTeX has printed both alike since 2017, and
    // readers such as pandoc turn the dotless form into a dotless ı.
    let mut s = base.to_string();
    let mut any = false;
    for mark in parts {
        let cmd = match mark {
            '\u{300}' => "\\`",
            '\u{301}' => "\\'",
            '\u{302}' => "\\^",
            '\u{303}' => "\\~",
            '\u{304}' => "\\=",
            '\u{306}' => "\\u",
            '\u{307}' => "\\.",
            '\u{308}' => "\\\"",
            '\u{30a}' => "\\r",
            '\u{30b}' => "\\H",
            '\u{30c}' => "\\v",
            '\u{323}' => "\\d",
            '\u{327}' => "\\c",
            '\u{328}' => "\\k",
            _ => return None,
        };
        s = if cmd.chars().nth(1).is_some_and(|c| c.is_ascii_alphabetic()) {
            format!("{cmd}{{{s}}}")
        } else {
            format!("{cmd}{s}")
        };
        any = true;
    }
    any.then(|| format!("{{{s}}}"))
}

/// BibLaTeX verbatim fields (`doi`, `file`) take no escapes, but braces
/// must balance: unbalanced ones are dropped.
fn verbatim(s: &str) -> String {
    let mut depth = 0usize;
    let mut out = String::new();
    for c in s.chars().filter(|c| !c.is_control()) {
        match c {
            '{' => {
                depth += 1;
                out.push(c);
            }
            '}' if depth == 0 => {}
            '}' => {
                depth -= 1;
                out.push(c);
            }
            c => out.push(c),
        }
    }
    // Close what is still open rather than break the entry.
    out.extend(std::iter::repeat_n('}', depth));
    out
}

/// Braces around words with a capital after their first letter ("NASA",
/// "LaTeX", "McGraw"), which case-changing styles would otherwise lower.
/// Works on escaped text: a word holding a LaTeX command or a brace is
/// left as it is.
fn protect_caps(s: &str) -> String {
    s.split(' ')
        .map(|w| {
            let inner_cap = w.chars().skip(1).any(char::is_uppercase);
            if inner_cap && !w.contains(['\\', '{', '}']) {
                format!("{{{w}}}")
            } else {
                w.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn special_characters_are_escaped() {
        assert_eq!(
            escape("50% of {R} & C# $5 a_b ~ ^ \\", Dialect::Biblatex),
            "50\\% of \\{R\\} \\& C\\# \\$5 a\\_b \\textasciitilde{} \\textasciicircum{} \\textbackslash{}"
        );
    }

    #[test]
    fn bibtex_spells_accents_in_latex_and_braces_other_scripts() {
        assert_eq!(
            escape("Müller, Søren Å. Ça Straße naïve", Dialect::Bibtex),
            "M{\\\"u}ller, S{\\o}ren {\\AA}. {\\c{C}}a Stra{\\ss}e na{\\\"i}ve"
        );
        assert_eq!(escape("Łódź", Dialect::Bibtex), "{\\L}{\\'o}d{\\'z}");
        assert_eq!(escape("村上 春樹", Dialect::Bibtex), "{村上} {春樹}");
        assert_eq!(
            escape("“Nord” – x…", Dialect::Bibtex),
            "``Nord'' -- x\\ldots{}"
        );
        assert_eq!(escape("Ελληνικά", Dialect::Bibtex), "{Ελληνικά}");
        // BibLaTeX keeps Unicode.
        assert_eq!(escape("Müller 村上", Dialect::Biblatex), "Müller 村上");
    }

    #[test]
    fn names_in_von_last_jr_first_form() {
        let n = |s: &str, d| name(&super::super::names::split(s), d);
        assert_eq!(
            n("Ludwig van Beethoven", Dialect::Bibtex),
            "van Beethoven, Ludwig"
        );
        assert_eq!(
            n("Martin Luther King Jr.", Dialect::Bibtex),
            "King, Jr., Martin Luther"
        );
        assert_eq!(
            n("Augustus De Morgan", Dialect::Bibtex),
            "{De Morgan}, Augustus"
        );
        assert_eq!(
            n("Research & Development Team", Dialect::Bibtex),
            "{Research \\& Development Team}"
        );
        assert_eq!(n("bell hooks", Dialect::Bibtex), "{hooks}, bell");
        assert_eq!(
            n("Jürgen Müller", Dialect::Bibtex),
            "M{\\\"u}ller, J{\\\"u}rgen"
        );
    }

    #[test]
    fn capitals_inside_words_are_protected() {
        assert_eq!(
            protect_caps("Programming in LaTeX for NASA and Me"),
            "Programming in {LaTeX} for {NASA} and Me"
        );
        assert_eq!(protect_caps("M{\\\"U}LLER"), "M{\\\"U}LLER");
    }

    #[test]
    fn lone_braces_are_dropped_and_pairs_kept() {
        assert_eq!(balanced("a { b"), "a  b");
        assert_eq!(balanced("} a {b} c {"), " a {b} c ");
        assert_eq!(balanced("{{x}"), "{x}");
        for d in [Dialect::Bibtex, Dialect::Biblatex] {
            assert_eq!(escape("Set {x} and } or {", d), "Set \\{x\\} and  or ");
        }
    }

    #[test]
    fn names_keep_their_particles_and_multi_word_surnames() {
        let n = |s: &str, d| name(&super::super::names::split(s), d);
        assert_eq!(
            n("Mohamed El Morabity", Dialect::Biblatex),
            "{El Morabity}, Mohamed"
        );
        assert_eq!(
            n("Seán Ó Laoghaire", Dialect::Bibtex),
            "{{\\'O} Laoghaire}, Se{\\'a}n"
        );
        assert_eq!(n("Juan de la Cruz", Dialect::Biblatex), "de la Cruz, Juan");
        assert_eq!(
            n("Jan van der Berg", Dialect::Biblatex),
            "van der Berg, Jan"
        );
    }

    #[test]
    fn biblatex_values_without_a_field_of_their_type_go_to_the_note() {
        let mut fields = vec![
            ("title", "T".to_string()),
            ("edition", "2".to_string()),
            ("isbn", "9780876112038".to_string()),
            ("organization", "PIARC".to_string()),
            ("file", ":x:PDF".to_string()),
        ];
        homeless_to_note("misc", &mut fields);
        assert_eq!(
            fields,
            [
                ("title", "T".to_string()),
                ("organization", "PIARC".to_string()),
                ("note", "edition 2; ISBN 9780876112038".to_string()),
                ("file", ":x:PDF".to_string()),
            ]
        );
        let mut book = vec![("edition", "2".to_string()), ("isbn", "1".to_string())];
        homeless_to_note("book", &mut book);
        assert_eq!(book.len(), 2);
    }

    #[test]
    fn verbatim_keeps_braces_balanced() {
        assert_eq!(verbatim("10.1000/a}b{c"), "10.1000/ab{c}");
    }
}
