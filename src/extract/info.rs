//! Candidates from the existing Info dictionary / XMP packet.
//!
//! Existing metadata is one witness among others, never trusted blindly:
//! word processors and typesetters fill it with file names ("Microsoft
//! Word - draft_v3.docx", "phonetique_3e_ed_BAT"), placeholders ("untitled")
//! and their own names ("LaTeX with hyperref"), and an Author is often a
//! login name ("liisa") or a department ("Varène PAO"). Such values are
//! dropped here. What survives is proposed with a low score: `decide` lets
//! it win only when the page text agrees or says nothing better.

use super::names::{parse_names, person_name};
use super::pattern::Pattern;
use super::text::fold;
use crate::model::{Candidate, Field, InfoMeta, Value, Via};
use std::sync::LazyLock;

/// Score of an Info title that passed the junk filter.
pub const INFO_TITLE_SCORE: f32 = 0.35;
/// Score of Info authors that read as person names.
pub const INFO_AUTHORS_SCORE: f32 = 0.3;

/// Candidates from the Info dictionary, junk rejected.
pub fn find(info: &InfoMeta) -> Vec<Candidate> {
    let mut out = Vec::new();
    if let Some(t) = info.title.as_deref().and_then(|t| clean_title(t, info)) {
        out.push(Candidate {
            field: Field::Title,
            value: Value::Text(t),
            score: INFO_TITLE_SCORE,
            page: None,
            via: Via::PdfInfo,
            why: "Info title".into(),
        });
    }
    if let Some(names) = info.author.as_deref().and_then(clean_authors) {
        out.push(Candidate {
            field: Field::Authors,
            value: Value::Names(names),
            score: INFO_AUTHORS_SCORE,
            page: None,
            via: Via::PdfInfo,
            why: "Info author".into(),
        });
    }
    out
}

static JUNK_TITLE: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(
        r"(?ix)
        ^(?:microsoft\s+(?:word|powerpoint|excel)|untitled)\b
        | ^(?:untitled\s+document|document\s*\d*|no\s+title|unknown|none|null|n/?a|title|
             book\s*title|your\s+title.*|insert\s+title.*|slide\s*\d*|presentation\s*\d*|
             print|default|template|new\s+document|doc\s*\d*|layout\s*\d*|master|final|
             draft\s*\d*)$
        | \.(?:docx?|rtf|odt|ott|indd|indb|qxd|qxp|pdf|tex|dvi|ps|eps|p65|pm\d|fm|book|txt|html?|
             xml|md|pages|sla|wpd|xlsx?|pptx?|ai|psd|cdr|pub|wps|key)\b
        | ^[a-z]:\\ | ^/ | ^file:
        ",
    )
    .unwrap()
});

/// Names of tools that write PDFs: a "title" made of them is a tool name.
const TOOLS: &[&str] = &[
    "latex",
    "tex",
    "pdftex",
    "pdflatex",
    "xetex",
    "luatex",
    "dvips",
    "dvipdfm",
    "dvipdfmx",
    "xdvipdfmx",
    "ghostscript",
    "gs",
    "acrobat",
    "distiller",
    "pdfcreator",
    "pdfmaker",
    "word",
    "writer",
    "quartz",
    "itext",
    "reportlab",
    "openoffice",
    "libreoffice",
    "framemaker",
    "indesign",
    "quarkxpress",
    "scribus",
    "prince",
    "wkhtmltopdf",
    "cairo",
    "skia",
    "chrome",
    "mozilla",
    "groff",
    "gropdf",
    "hyperref",
    "pandoc",
    "calibre",
    "adobe",
    "pdf",
    "output",
    "version",
    "with",
    "microsoft",
    "office",
    "apache",
    "fop",
    "texinfo",
    "context",
];

fn clean_title(raw: &str, info: &InfoMeta) -> Option<String> {
    let t = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    let t = t.trim_matches(|c: char| c.is_whitespace() || c == '"' || c == '\'');
    let letters = t.chars().filter(|c| c.is_alphabetic()).count();
    if letters < 3 || JUNK_TITLE.is_match(t) {
        return None;
    }
    // A file name: one "word" with underscores, dots or slashes.
    if !t.contains(' ') && t.contains(['_', '/', '\\', '.']) {
        return None;
    }
    let f = fold(t);
    if f.split(' ')
        .all(|w| TOOLS.contains(&w) || w.chars().all(|c| c.is_ascii_digit()))
    {
        return None;
    }
    for other in [&info.creator, &info.producer].into_iter().flatten() {
        if fold(other) == f {
            return None;
        }
    }
    Some(t.to_string())
}

static JUNK_AUTHOR: LazyLock<Pattern> = LazyLock::new(|| {
    Pattern::new(r"(?i)^(?:user|admin|administrator|owner|unknown|author|authors?\s+name|anonymous|default|guest|staff|office|compaq|hp|dell|lenovo|microsoft|customer|test|pc|owner-pc)\b")
        .unwrap()
});
static INVERTED: LazyLock<Pattern> =
    LazyLock::new(|| Pattern::new(r"^\s*([\p{L}'’ -]+?),\s*([\p{L}.'’ -]+?)\s*$").unwrap());

/// Person names in an Info Author; `None` when it is not a list of names.
fn clean_authors(raw: &str) -> Option<Vec<String>> {
    let t = raw.split_whitespace().collect::<Vec<_>>().join(" ");
    if t.is_empty() || JUNK_AUTHOR.is_match(&t) {
        return None;
    }
    if fold(&t)
        .split(' ')
        .any(|w| TOOLS.contains(&w) && w != "with")
    {
        return None;
    }
    let list = parse_names(&t);
    if list.is_clean() {
        return Some(list.names);
    }
    // "Altmoser, Bernd; Vereczkey, Tamas" or a single "Last, First".
    let mut out = Vec::new();
    for part in t
        .split(';')
        .flat_map(|p| p.split(" and "))
        .flat_map(|p| p.split(" & "))
    {
        let c = INVERTED.captures(part)?;
        out.push(person_name(&format!("{} {}", &c[2], &c[1]))?);
    }
    (!out.is_empty()).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(title: &str, author: &str) -> InfoMeta {
        InfoMeta {
            title: Some(title.into()),
            author: Some(author.into()),
            creator: Some("LaTeX with hyperref".into()),
            producer: Some("pdfTeX-1.40.24".into()),
            ..Default::default()
        }
    }

    fn title_of(i: &InfoMeta) -> Option<String> {
        find(i)
            .into_iter()
            .find(|c| c.field == Field::Title)
            .map(|c| match c.value {
                Value::Text(t) => t,
                _ => unreachable!(),
            })
    }

    fn authors_of(i: &InfoMeta) -> Option<Vec<String>> {
        find(i)
            .into_iter()
            .find(|c| c.field == Field::Authors)
            .map(|c| match c.value {
                Value::Names(n) => n,
                _ => unreachable!(),
            })
    }

    #[test]
    fn junk_titles_are_dropped() {
        for t in [
            "Microsoft Word - draft_v3.docx",
            "Microsoft Word - Book1_FINAL (2).docx",
            "untitled",
            "phonetique_3e_ed_BAT",
            "cover_final.indd",
            "LaTeX with hyperref",
            "pdfTeX-1.40.24",
            "C:\\Users\\me\\thesis.pdf",
            "Untitled Document",
            "2019",
        ] {
            assert_eq!(title_of(&info(t, "")), None, "{t}");
        }
    }

    #[test]
    fn real_titles_are_kept_weakly() {
        let i = info(
            "Robust Self-Adjusting Trees in arborist 3.0",
            "Bas Veldkamp, Maarten Oosterbroek",
        );
        assert_eq!(
            title_of(&i).as_deref(),
            Some("Robust Self-Adjusting Trees in arborist 3.0")
        );
        assert_eq!(
            authors_of(&i),
            Some(vec![
                "Bas Veldkamp".to_string(),
                "Maarten Oosterbroek".to_string()
            ])
        );
        let c = find(&i);
        assert!(
            c.iter()
                .all(|c| c.score < 0.5 && c.via == Via::PdfInfo && c.page.is_none())
        );
        assert_eq!(title_of(&info("Seedmap3", "")).as_deref(), Some("Seedmap3"));
    }

    #[test]
    fn junk_authors_are_dropped() {
        for a in [
            "liisa",
            "Margaret",
            "Varène PAO",
            "Administrator",
            "user",
            "pdfTeX",
        ] {
            assert_eq!(authors_of(&info("A Title Here", a)), None, "{a}");
        }
        assert_eq!(
            authors_of(&info("A Title", "Petr Krocak")),
            Some(vec!["Petr Krocak".to_string()])
        );
        assert_eq!(
            authors_of(&info("A Title", "Altmoser, Bernd; Vereczkey, Tamas")),
            Some(vec![
                "Bernd Altmoser".to_string(),
                "Tamas Vereczkey".to_string()
            ])
        );
    }
}
