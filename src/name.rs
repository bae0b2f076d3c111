//! Proposed filenames (SPEC 8): `FILENAME_TEMPLATE` filled in from the
//! decided [`Metadata`], made safe for common file systems and short enough
//! that every name colophon creates for a PDF fits.
//!
//! Every created name — `<stem>.pdf`, `<stem>--ann.md`, `<stem>--ann.json`,
//! and the same with a collision suffix ` (2)`, ` (3)` … — must have at most
//! `MAX_FILENAME_LENGTH` characters and at most 255 bytes of UTF-8 (the
//! limit of ext4, APFS, NTFS in bytes or UTF-16 units). The longest of those
//! suffixes is `--ann.json`, so the stem is budgeted against it; when the
//! filled template is too long the *title* is shortened at a word boundary
//! (between any two CJK characters, which have no spaces), never inside a
//! character, until the name fits.
//!
//! Text is NFC-normalised first, so that "ö" is one character whether the
//! PDF spelled it precomposed or with a combining diaeresis, and so that a
//! second run produces the very same bytes (idempotent renames).

use crate::model::{Metadata, Record};
use crate::settings::Settings;
use crate::settings::template::{collapse_whitespace, fill, parse_template, tidy, usable_stem};
use unicode_normalization::UnicodeNormalization;
use unicode_normalization::char::is_combining_mark;

pub use crate::settings::template::{PLACEHOLDERS, sanitize, template_can_name, validate_template};

/// Extension of the PDF itself.
pub const PDF_EXT: &str = ".pdf";
/// Suffix of the readable annotation export, after the stem.
pub const ANN_MD_SUFFIX: &str = "--ann.md";
/// Suffix of the JSON annotation export (the record), after the stem.
pub const ANN_JSON_SUFFIX: &str = "--ann.json";

/// Hard cap of common file systems on one path component, in UTF-8 bytes.
pub const MAX_NAME_BYTES: usize = 255;

/// How many surnames `{authors}` lists before ` et al.`.
const MAX_AUTHORS_IN_NAME: usize = 3;

/// Stage 8 for one record: its proposed file name, or, when a complete
/// record gets none from `FILENAME_TEMPLATE`, a note saying so.
pub fn propose(record: &mut Record, settings: &Settings) {
    record.proposed_filename = proposed_filename(&record.metadata, settings);
    if record.proposed_filename.is_none() && record.metadata.is_complete() {
        record.warnings.push(no_name_note(settings));
    }
}

/// The proposed file name (with `.pdf`) or `None` without title and author.
pub fn proposed_filename(meta: &Metadata, settings: &Settings) -> Option<String> {
    numbered_filename(meta, settings, 1)
}

/// The proposed name with collision number `n`: `n <= 1` gives the plain
/// name, `n >= 2` adds ` (n)` before `.pdf`. The title is shortened so that
/// the numbered name and its annotation exports fit both limits too.
pub fn numbered_filename(meta: &Metadata, settings: &Settings, n: u32) -> Option<String> {
    numbered_stem(meta, settings, n).map(|stem| format!("{stem}{PDF_EXT}"))
}

/// The stem (name without `.pdf`) for collision number `n`, see
/// [`numbered_filename`]. `None` without title and at least one author.
pub fn numbered_stem(meta: &Metadata, settings: &Settings, n: u32) -> Option<String> {
    if !meta.is_complete() {
        return None;
    }
    let collision = if n >= 2 {
        format!(" ({n})")
    } else {
        String::new()
    };
    let budget = Budget::for_suffix(settings.max_filename_length, &collision);
    // A template whose placeholders are all empty for this document
    // ("{doi}" on a book) renders nothing: no name rather than ".pdf", a
    // hidden file, and "--ann.json" beside it.
    let stem = fitted_stem(meta, &settings.filename_template, budget).filter(|s| usable_stem(s))?;
    Some(format!("{stem}{collision}"))
}

/// The note a record carries when `FILENAME_TEMPLATE` gives a complete
/// document no name, so that the kept name is explained.
pub fn no_name_note(settings: &Settings) -> String {
    format!(
        "FILENAME_TEMPLATE {:?} gives this document no name (its placeholders are empty \
         here); the current name is kept",
        settings.filename_template
    )
}

/// Names of the annotation exports for a stem: (`<stem>--ann.md`, `<stem>--ann.json`).
pub fn annotation_names(stem: &str) -> (String, String) {
    (
        format!("{stem}{ANN_MD_SUFFIX}"),
        format!("{stem}{ANN_JSON_SUFFIX}"),
    )
}

/// The surname used in file names: the last word of "First Last", keeping
/// lower-case particles ("van Gogh", "de La Fontaine"), dropping
/// generational suffixes ("Jr."), the part before the comma of
/// "Last, First", and CJK names whole (family name first, no spaces).
pub fn surname(name: &str) -> String {
    let name: String = name.nfc().collect();
    let name = collapse_whitespace(&name);
    if name.chars().any(is_cjk) {
        return name;
    }
    // "Last, First" (but not "First Last, Jr.").
    let mut main = name.as_str();
    if let Some((before, after)) = name.split_once(',') {
        let after = after.trim();
        if is_suffix(after) || after.is_empty() {
            main = before.trim();
        } else if !before.trim().is_empty() {
            return before.trim().to_string();
        }
    }
    let mut words: Vec<&str> = main.split(' ').filter(|w| !w.is_empty()).collect();
    while words.len() > 1 && words.last().is_some_and(|w| is_suffix(w)) {
        words.pop();
    }
    let Some(mut start) = words.len().checked_sub(1) else {
        return String::new();
    };
    // Walk back over particles, but never eat the first word: "De Morgan"
    // alone is a surname, "Augustus De Morgan" gives "De Morgan".
    while start > 1 && is_particle(words[start - 1]) {
        start -= 1;
    }
    words[start..].join(" ")
}

/// `{authors}`: up to three surnames joined by ", ", then " et al.".
pub fn authors_part(authors: &[String]) -> String {
    let names: Vec<String> = authors
        .iter()
        .map(|a| surname(a))
        .filter(|s| !s.is_empty())
        .collect();
    let mut out = names
        .iter()
        .take(MAX_AUTHORS_IN_NAME)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if names.len() > MAX_AUTHORS_IN_NAME {
        out.push_str(" et al.");
    }
    out
}

/// Length limits for a stem, already net of the suffixes that follow it.
#[derive(Debug, Clone, Copy)]
struct Budget {
    chars: usize,
    bytes: usize,
}

impl Budget {
    /// The stem must leave room for `collision` plus the longest of `.pdf`,
    /// `--ann.md`, `--ann.json` under both limits.
    fn for_suffix(max_chars: usize, collision: &str) -> Budget {
        let longest = [PDF_EXT, ANN_MD_SUFFIX, ANN_JSON_SUFFIX]
            .iter()
            .map(|s| (s.chars().count(), s.len()))
            .fold((0, 0), |a, b| (a.0.max(b.0), a.1.max(b.1)));
        Budget {
            chars: max_chars.saturating_sub(longest.0 + collision.chars().count()),
            bytes: MAX_NAME_BYTES.saturating_sub(longest.1 + collision.len()),
        }
    }

    fn fits(&self, s: &str) -> bool {
        s.len() <= self.bytes && s.chars().count() <= self.chars
    }
}

/// The filled template with the title shortened until it fits `budget`.
fn fitted_stem(meta: &Metadata, template: &str, budget: Budget) -> Option<String> {
    let title = sanitize(meta.title.as_deref().unwrap_or(""));
    let full = render(meta, template, &title);
    if budget.fits(&full) && !full.is_empty() {
        return Some(full);
    }
    // Longest title prefix ending at a word boundary that fits.
    for cut in word_cuts(&title).into_iter().rev() {
        let short = trim_cut(&title[..cut]);
        if short.is_empty() {
            continue;
        }
        let stem = render(meta, template, short);
        if budget.fits(&stem) {
            return Some(stem);
        }
    }
    // Even the first word is too long: cut it at a character boundary.
    let boundaries: Vec<usize> = char_cuts(&title);
    for &cut in boundaries.iter().rev() {
        let short = trim_cut(&title[..cut]);
        if short.is_empty() {
            continue;
        }
        let stem = render(meta, template, short);
        if budget.fits(&stem) {
            return Some(stem);
        }
    }
    // The rest of the template alone is too long (very long publisher,
    // subtitle…): cut the whole stem at a character boundary.
    let stem = render(meta, template, "");
    let cut = char_cuts(&stem)
        .into_iter()
        .rev()
        .find(|&c| budget.fits(&stem[..c]))?;
    let short = tidy(&stem[..cut]);
    (!short.is_empty()).then_some(short)
}

/// Template with values filled in; groups whose placeholders are all empty
/// dropped; sanitised; dangling separators removed.
fn render(meta: &Metadata, template: &str, title: &str) -> String {
    let value = |name: &str| -> String {
        match name {
            "authors" => sanitize(&authors_part(&meta.authors)),
            "title" => title.to_string(),
            "subtitle" => sanitize(meta.subtitle.as_deref().unwrap_or("")),
            "year" => meta.year.map(|y| y.to_string()).unwrap_or_default(),
            "publisher" => sanitize(meta.publisher.as_deref().unwrap_or("")),
            "edition" => sanitize(meta.edition.as_deref().unwrap_or("")),
            "isbn" => sanitize(meta.isbn.as_deref().unwrap_or("")),
            "doi" => sanitize(meta.doi.as_deref().unwrap_or("")),
            _ => String::new(),
        }
    };
    let tokens = parse_template(template);
    let mut out = String::new();
    fill(&tokens, &value, &mut out);
    tidy(&sanitize(&out))
}

/// Byte offsets at which the title may be cut: before a space, and on both
/// sides of a CJK character (those scripts do not separate words).
fn word_cuts(title: &str) -> Vec<usize> {
    let mut cuts = Vec::new();
    let mut prev: Option<char> = None;
    for (i, c) in title.char_indices() {
        if let Some(p) = prev
            && !p.is_whitespace()
            && (c.is_whitespace() || ((is_cjk(c) || is_cjk(p)) && !is_combining_mark(c)))
        {
            cuts.push(i);
        }
        prev = Some(c);
    }
    cuts
}

/// Every character boundary except those before a combining mark (which
/// would separate a letter from its accent).
fn char_cuts(s: &str) -> Vec<usize> {
    s.char_indices()
        .skip(1)
        .filter(|(_, c)| !is_combining_mark(*c))
        .map(|(i, _)| i)
        .collect()
}

/// A shortened title without trailing punctuation that only made sense
/// before the part that was cut.
fn trim_cut(s: &str) -> &str {
    s.trim_end_matches(|c: char| {
        c.is_whitespace() || matches!(c, ',' | ';' | '-' | '–' | '—' | '.' | '、' | '，')
    })
}

/// Han, kana, CJK punctuation and full-width forms: scripts whose names are
/// written without spaces and kept whole.
pub(crate) fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3000..=0x30FF      // CJK punctuation, hiragana, katakana
        | 0x3400..=0x4DBF    // extension A
        | 0x4E00..=0x9FFF    // unified ideographs
        | 0xF900..=0xFAFF    // compatibility ideographs
        | 0xFF00..=0xFFEF    // full-width forms
        | 0x20000..=0x2FA1F) // extensions B..
}

pub(crate) fn is_suffix(word: &str) -> bool {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    matches!(
        w.as_str(),
        "jr" | "sr" | "ii" | "iii" | "iv" | "phd" | "ph.d" | "md"
    )
}

pub(crate) fn is_particle(word: &str) -> bool {
    let w = word.to_lowercase();
    matches!(
        w.as_str(),
        "van"
            | "von"
            | "de"
            | "der"
            | "den"
            | "del"
            | "della"
            | "di"
            | "da"
            | "du"
            | "des"
            | "la"
            | "le"
            | "ten"
            | "ter"
            | "dos"
            | "das"
            | "do"
            | "zu"
            | "af"
            | "av"
            | "bin"
            | "ibn"
            | "ben"
            | "st."
            | "mac"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta(title: &str, authors: &[&str], year: Option<i32>) -> Metadata {
        Metadata {
            title: Some(title.to_string()),
            authors: authors.iter().map(|s| s.to_string()).collect(),
            year,
            ..Metadata::default()
        }
    }

    fn settings(max: usize) -> Settings {
        Settings {
            max_filename_length: max,
            ..Settings::default()
        }
    }

    /// Every name created for this stem fits both limits.
    fn assert_fits(name: &str, max: usize) {
        let stem = name.strip_suffix(".pdf").expect("ends in .pdf");
        let (md, json) = annotation_names(stem);
        for n in [name, &md, &json] {
            assert!(n.chars().count() <= max, "{n:?} longer than {max} chars");
            assert!(n.len() <= 255, "{n:?} longer than 255 bytes");
        }
    }

    #[test]
    fn a_template_that_renders_nothing_gives_no_name() {
        let book = meta("The Ledger and the Lantern", &["Ada Lovelace"], Some(2004));
        for template in [
            "{doi}",
            "{doi}.",
            ".{isbn}",
            "({doi}) - [{isbn}]",
            "{doi} - {isbn}",
        ] {
            let s = Settings {
                filename_template: template.into(),
                ..settings(100)
            };
            assert_eq!(proposed_filename(&book, &s), None, "{template}");
            assert_eq!(numbered_filename(&book, &s, 2), None, "{template}");
            assert!(template_can_name(template), "{template} names a paper");
        }
        let mut paper = book.clone();
        paper.doi = Some("10.1000/xyz".into());
        let s = Settings {
            filename_template: "{doi}".into(),
            ..settings(100)
        };
        assert_eq!(
            proposed_filename(&paper, &s).as_deref(),
            Some("10.1000-xyz.pdf")
        );
    }

    #[test]
    fn templates_that_can_never_name_are_recognised() {
        for never in [".", "..", "...", " - ", " . ", "-.-", ", ;"] {
            assert!(!template_can_name(never), "{never:?}");
        }
        for some in ["{title}", "x", "{year}.", "()", ".{doi}", "book"] {
            assert!(template_can_name(some), "{some:?}");
        }
    }

    #[test]
    fn default_template() {
        let m = meta("The Ledger and the Lantern", &["Ada Lovelace"], Some(2004));
        assert_eq!(
            proposed_filename(&m, &settings(250)).unwrap(),
            "Lovelace - The Ledger and the Lantern (2004).pdf"
        );
    }

    #[test]
    fn empty_year_group_is_dropped() {
        let m = meta("Title", &["Ada Lovelace"], None);
        assert_eq!(
            proposed_filename(&m, &settings(250)).unwrap(),
            "Lovelace - Title.pdf"
        );
    }

    #[test]
    fn literal_group_stays_and_brackets_group() {
        let m = meta("Title", &["Ada Lovelace"], None);
        let s = Settings {
            filename_template: "{title} [{publisher}, {isbn}] (ebook) - {authors}".into(),
            ..Settings::default()
        };
        assert_eq!(
            proposed_filename(&m, &s).unwrap(),
            "Title (ebook) - Lovelace.pdf"
        );
        let m2 = Metadata {
            publisher: Some("Acme".into()),
            ..m
        };
        assert_eq!(
            proposed_filename(&m2, &s).unwrap(),
            "Title [Acme] (ebook) - Lovelace.pdf"
        );
    }

    #[test]
    fn no_name_without_title_or_author() {
        assert_eq!(
            proposed_filename(&meta("T", &[], None), &settings(250)),
            None
        );
        let mut m = meta("", &["A B"], None);
        assert_eq!(proposed_filename(&m, &settings(250)), None);
        m.title = None;
        assert_eq!(proposed_filename(&m, &settings(250)), None);
    }

    #[test]
    fn authors_up_to_three_then_et_al() {
        let two = meta("T", &["Ada Lovelace", "Charles Babbage"], None);
        assert_eq!(
            proposed_filename(&two, &settings(250)).unwrap(),
            "Lovelace, Babbage - T.pdf"
        );
        let four = meta("T", &["A Aa", "B Bb", "C Cc", "D Dd"], None);
        assert_eq!(
            proposed_filename(&four, &settings(250)).unwrap(),
            "Aa, Bb, Cc et al. - T.pdf"
        );
    }

    #[test]
    fn surnames() {
        assert_eq!(surname("Vincent van Gogh"), "van Gogh");
        assert_eq!(surname("Jean de La Fontaine"), "de La Fontaine");
        assert_eq!(surname("Augustus De Morgan"), "De Morgan");
        assert_eq!(surname("Martin Luther King Jr."), "King");
        assert_eq!(surname("Martin Luther King, Jr."), "King");
        assert_eq!(surname("Knuth, Donald E."), "Knuth");
        assert_eq!(surname("Guðrún Jónsdóttir"), "Jónsdóttir");
        assert_eq!(surname("王小明"), "王小明");
        assert_eq!(surname("Plato"), "Plato");
        assert_eq!(surname("  Ludwig   van  der Rohe "), "van der Rohe");
    }

    #[test]
    fn forbidden_characters_replaced() {
        let m = meta(
            "TCP/IP: Who Am I? A \"Guide\" <draft> *x* a|b c\\d",
            &["A B"],
            None,
        );
        let name = proposed_filename(&m, &settings(250)).unwrap();
        assert_eq!(name, "B - TCP-IP - Who Am I A 'Guide' draft x a-b c-d.pdf");
        for bad in ['/', '\\', ':', '*', '?', '"', '<', '>', '|'] {
            assert!(!name.contains(bad), "{name} contains {bad}");
        }
    }

    #[test]
    fn control_chars_whitespace_and_dots() {
        let m = meta("...Hidden\tTitle\n\u{7}with   gaps...", &["A B"], None);
        let s = Settings {
            filename_template: "{title}".into(),
            ..Settings::default()
        };
        assert_eq!(
            proposed_filename(&m, &s).unwrap(),
            "Hidden Title with gaps.pdf"
        );
    }

    #[test]
    fn unicode_kept_and_nfc() {
        // "ö" written as o + combining diaeresis becomes the precomposed letter.
        let m = meta(
            "Go\u{308}del, Escher, Bach",
            &["Douglas Hofstadter"],
            Some(1979),
        );
        let name = proposed_filename(&m, &settings(250)).unwrap();
        assert_eq!(name, "Hofstadter - Gödel, Escher, Bach (1979).pdf");
        assert!(name.contains('\u{f6}'));
    }

    #[test]
    fn long_title_cut_at_word_boundary() {
        let words: Vec<String> = (0..120).map(|i| format!("word{i}")).collect();
        let title = words.join(" ");
        assert!(title.chars().count() > 600);
        for max in [250usize, 60, 40] {
            let m = meta(&title, &["Ada Lovelace"], Some(2001));
            let name = proposed_filename(&m, &settings(max)).unwrap();
            assert_fits(&name, max);
            // Cut between words: the kept title is a prefix of whole words.
            let kept = name
                .strip_prefix("Lovelace - ")
                .unwrap()
                .strip_suffix(" (2001).pdf")
                .unwrap();
            assert!(title.starts_with(kept), "{kept}");
            assert!(
                title[kept.len()..].starts_with(' '),
                "cut inside a word: {kept}"
            );
            // And as long as possible: one more word would not fit.
            let next = &title[..title[kept.len() + 1..].find(' ').unwrap() + kept.len() + 1];
            let longer = format!("Lovelace - {next} (2001){ANN_JSON_SUFFIX}");
            assert!(longer.chars().count() > max);
        }
    }

    #[test]
    fn cjk_title_fits_by_bytes_and_chars() {
        // 3 bytes per character: the 255-byte cap binds before 250 characters.
        let title: String = std::iter::repeat_n("数学分析教程", 30).collect();
        for max in [250usize, 60] {
            let m = meta(&title, &["张三"], Some(2020));
            let name = proposed_filename(&m, &settings(max)).unwrap();
            assert_fits(&name, max);
            let kept = name
                .strip_prefix("张三 - ")
                .unwrap()
                .strip_suffix(" (2020).pdf")
                .unwrap();
            assert!(title.starts_with(kept));
            assert!(kept.chars().count() > 10);
        }
    }

    #[test]
    fn accents_never_split_from_their_letter() {
        // Decomposed text that NFC cannot compose (q + combining dot below).
        let word: String = std::iter::repeat_n("q\u{323}", 200).collect();
        let m = meta(&word, &["A B"], None);
        let name = proposed_filename(&m, &settings(60)).unwrap();
        assert_fits(&name, 60);
        let stem = name.strip_suffix(".pdf").unwrap();
        assert!(!is_combining_mark(
            stem.strip_prefix("B - ").unwrap().chars().next().unwrap()
        ));
        assert!(stem.ends_with('\u{323}'));
    }

    #[test]
    fn numbered_names_fit_too() {
        let title = "x".repeat(600);
        let m = meta(&title, &["Ada Lovelace"], None);
        let s = settings(60);
        let one = numbered_filename(&m, &s, 1).unwrap();
        let two = numbered_filename(&m, &s, 2).unwrap();
        let many = numbered_filename(&m, &s, 1234).unwrap();
        assert!(two.ends_with(" (2).pdf"));
        assert!(many.ends_with(" (1234).pdf"));
        for n in [&one, &two, &many] {
            assert_fits(n, 60);
        }
    }

    #[test]
    fn long_other_fields_still_fit() {
        let m = Metadata {
            publisher: Some("P".repeat(400)),
            ..meta("Title", &["Ada Lovelace"], None)
        };
        let s = Settings {
            filename_template: "{publisher} - {authors} - {title}".into(),
            ..settings(60)
        };
        let name = proposed_filename(&m, &s).unwrap();
        assert_fits(&name, 60);
    }

    #[test]
    fn template_validation() {
        assert!(validate_template("{authors} - {title} ({year})").is_ok());
        assert!(
            validate_template("{author}")
                .unwrap_err()
                .contains("{author}")
        );
        assert!(validate_template("{title").is_err());
        assert!(validate_template("title}").is_err());
    }
}
