//! Text folding and tokens: the forms in which finders and `decide`
//! compare values (`fold`, `tokens`, `token_f1`), so that they agree on
//! what "same" means, and the joining of a block's lines. Shared by the
//! page model ([`layout`](super::layout)), the line classifier
//! ([`lines`](super::lines)) and the name reader ([`names`](super::names)).

use std::collections::HashMap;

/// Lower-case, accents removed, punctuation turned into spaces, whitespace
/// collapsed: the form in which two spellings of one title compare equal.
///
/// One pass, without allocating more than the result: fold runs on every
/// line several times. Each character is decomposed on its own (NFKD of a
/// string is the NFKD of each character, then combining marks reordered;
/// the marks are dropped here, so their order does not matter), and ASCII
/// is its own decomposition.
pub fn fold(s: &str) -> String {
    let mut out = Folded {
        text: String::with_capacity(s.len()),
        gap: false,
    };
    for c in s.chars() {
        if c.is_ascii_alphanumeric() {
            out.space();
            out.text.push(c.to_ascii_lowercase());
        } else if c.is_ascii() && c != '&' {
            out.gap = true;
        } else if c.is_ascii() {
            out.push(c);
        } else {
            unicode_normalization::char::decompose_compatible(c, |d| {
                if !unicode_normalization::char::is_combining_mark(d) {
                    out.push(d);
                }
            });
        }
    }
    out.text
}

/// The text [`fold`] builds, and whether a space is due before the next
/// word character.
struct Folded {
    text: String,
    gap: bool,
}

impl Folded {
    fn push(&mut self, c: char) {
        match c {
            'ß' => self.word("ss"),
            'ø' | 'Ø' => self.word("o"),
            'ł' | 'Ł' => self.word("l"),
            'æ' | 'Æ' => self.word("ae"),
            'œ' | 'Œ' => self.word("oe"),
            'ı' => self.word("i"),
            '&' => {
                self.gap = true;
                self.word("and");
                self.gap = true;
            }
            c if c.is_ascii_alphanumeric() => {
                self.space();
                self.text.push(c.to_ascii_lowercase());
            }
            c if c.is_alphanumeric() => {
                self.space();
                self.text.extend(c.to_lowercase());
            }
            _ => self.gap = true,
        }
    }

    fn word(&mut self, w: &str) {
        self.space();
        self.text.push_str(w);
    }

    fn space(&mut self) {
        if self.gap && !self.text.is_empty() {
            self.text.push(' ');
        }
        self.gap = false;
    }
}

/// [`fold`] as first written (through the NFKD iterator, then collapsing
/// spaces): the reference its tests compare with.
#[cfg(test)]
fn fold_unicode(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    let mut out = String::with_capacity(s.len());
    for c in s.nfkd() {
        if unicode_normalization::char::is_combining_mark(c) {
            continue;
        }
        match c {
            'ß' => out.push_str("ss"),
            'ø' | 'Ø' => out.push('o'),
            'ł' | 'Ł' => out.push('l'),
            'æ' | 'Æ' => out.push_str("ae"),
            'œ' | 'Œ' => out.push_str("oe"),
            'ı' => out.push('i'),
            '&' => out.push_str(" and "),
            c if c.is_alphanumeric() => out.extend(c.to_lowercase()),
            _ => out.push(' '),
        }
    }
    collapse_spaces(&out)
}

/// Words separated by single spaces, no space at either end.
#[cfg(test)]
fn collapse_spaces(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for w in s.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(w);
    }
    out
}

/// The superscript digits and letters the reading layer writes for raised
/// footnote and affiliation marks (see `inspect::lines`).
pub const SUPERSCRIPTS: &str = "⁰¹²³⁴⁵⁶⁷⁸⁹ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖ\u{107A5}ʳˢᵗᵘᵛʷˣʸᶻ";

/// A superscript mark of [`SUPERSCRIPTS`].
pub fn is_superscript(c: char) -> bool {
    SUPERSCRIPTS.contains(c)
}

/// A title or subtitle without the footnote marks set after its words:
/// superscript digits and letters glued to a word ("Guide¹") and note
/// symbols at its end ("LaTeX∗", "Tides*†").
pub fn without_note_marks(s: &str) -> String {
    let chars: Vec<char> = s.chars().collect();
    let mut out = String::with_capacity(s.len());
    let mut i = 0;
    while i < chars.len() {
        let after_word = i > 0 && chars[i - 1].is_alphabetic() && !is_superscript(chars[i - 1]);
        if is_superscript(chars[i]) && after_word {
            // The run of marks and the commas between them ("ᵃ,ᵇ"). A
            // superscript after a digit is an exponent ("10⁶") and stays.
            while i < chars.len()
                && (is_superscript(chars[i])
                    || (chars[i] == ',' && chars.get(i + 1).is_some_and(|&d| is_superscript(d))))
            {
                i += 1;
            }
            continue;
        }
        out.push(chars[i]);
        i += 1;
    }
    out.trim_end()
        .trim_end_matches(['*', '∗', '†', '‡', '§', '¶', '⁎', '⋆', '★', '✉'])
        .trim_end()
        .to_string()
}

/// Han, kana and hangul: scripts written without spaces between words.
pub fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30ff | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xac00..=0xd7af | 0xf900..=0xfaff)
}

/// Folded words; CJK text counts one token per character, since it has no
/// spaces to split on.
pub fn tokens(s: &str) -> Vec<String> {
    token_slices(&fold(s))
        .into_iter()
        .map(str::to_string)
        .collect()
}

/// The [`tokens`] of an already folded text, as slices of it (no copy per
/// token: `decide` compares every pair of candidates with [`token_f1`]).
fn token_slices(folded: &str) -> Vec<&str> {
    let mut out = Vec::new();
    for w in folded.split(' ') {
        if w.is_empty() {
            continue;
        }
        if !w.chars().any(is_cjk) {
            out.push(w);
            continue;
        }
        let mut run_start: Option<usize> = None;
        for (i, c) in w.char_indices() {
            if is_cjk(c) {
                if let Some(s) = run_start.take() {
                    out.push(&w[s..i]);
                }
                out.push(&w[i..i + c.len_utf8()]);
            } else if run_start.is_none() {
                run_start = Some(i);
            }
        }
        if let Some(s) = run_start {
            out.push(&w[s..]);
        }
    }
    out
}

/// Token F1 between two texts (bag of folded tokens), 0 when either is empty.
pub fn token_f1(a: &str, b: &str) -> f32 {
    let (fa, fb) = (fold(a), fold(b));
    let (ta, tb) = (token_slices(&fa), token_slices(&fb));
    if ta.is_empty() || tb.is_empty() {
        return 0.0;
    }
    let mut bag: HashMap<&str, i32> = HashMap::new();
    for t in &tb {
        *bag.entry(t).or_default() += 1;
    }
    let mut common = 0;
    for t in &ta {
        if let Some(n) = bag.get_mut(t)
            && *n > 0
        {
            *n -= 1;
            common += 1;
        }
    }
    if common == 0 {
        return 0.0;
    }
    let p = common as f32 / ta.len() as f32;
    let r = common as f32 / tb.len() as f32;
    2.0 * p * r / (p + r)
}

/// Joins the lines of one visual block into one string: a space at each
/// line break, except after a hyphen that splits a word, and between two
/// CJK characters.
pub fn join_lines<'a>(parts: impl IntoIterator<Item = &'a str>) -> String {
    let mut out = String::new();
    for part in parts {
        let part = part.trim();
        if part.is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push_str(part);
            continue;
        }
        let last = out.chars().last().unwrap_or(' ');
        let next = part.chars().next().unwrap_or(' ');
        let before_hyphen = out.chars().rev().nth(1).unwrap_or(' ');
        if last == '-' && before_hyphen.is_alphabetic() {
            if next.is_lowercase() || camel_case(part) {
                // "imple-" + "menting": a soft break inside one word. So is
                // a break before a word with a capital inside it: the
                // hyphen split a compound name ("Open-" + "StreetMap"),
                // where a hyphenated compound has its own capitals only
                // at the start of its parts ("Log-" + "Structured").
                out.pop();
            }
        } else if !(is_cjk(last) && is_cjk(next)) {
            out.push(' ');
        }
        out.push_str(part);
    }
    out
}

/// The first word of `s` has a capital after a lower-case letter
/// ("StreetMap", "PostScript").
fn camel_case(s: &str) -> bool {
    let word = s.split(|c: char| !c.is_alphabetic()).next().unwrap_or("");
    let mut prev_lower = false;
    for c in word.chars() {
        if c.is_uppercase() && prev_lower {
            return true;
        }
        prev_lower = c.is_lowercase();
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fold_is_the_nfkd_fold() {
        for s in [
            "Manuál k CSTeXu!",
            "Straße & Øresund — Łódź, Æsop, Œuvres",
            "İstanbul ıi",
            "ﬁnal ﬂow ½ ² Ⅻ",
            "Ångström e\u{301}e\u{301}\u{323}",
            "中文 标题：第三版 한국어 カタカナ",
            "«Les Misérables» — “quoted” ‘text’",
            "\u{a0}nbsp\u{2009}thin\u{3000}ideographic ",
            "Ⓐ ⓑ ㈱ ㎏",
            "",
            "   ",
            "&",
            "A&B",
            "&Lead & trail&",
            "  The  Art of--Computer   Programming, Vol. 1 (3rd ed.)  ",
            "R&D: 50% off!!",
            "a\tb\nc",
            "x&&y",
        ] {
            assert_eq!(fold(s), fold_unicode(s), "{s:?}");
        }
    }

    #[test]
    fn fold_ignores_case_accents_and_punctuation() {
        assert_eq!(fold("Návod k QZTeXu!"), "navod k qztexu");
        assert_eq!(fold("  Möllendorf-Berg "), "mollendorf berg");
        assert_eq!(
            tokens("纸本保护方法"),
            vec!["纸", "本", "保", "护", "方", "法"]
        );
        assert!(token_f1("The Ledger and the Lantern", "the ledger & the lantern") > 0.99);
        assert_eq!(token_f1("", "x"), 0.0);
    }

    #[test]
    fn note_marks_leave_titles() {
        assert_eq!(without_note_marks("A Field Guide¹"), "A Field Guide");
        assert_eq!(without_note_marks("Notes on Kelp∗"), "Notes on Kelp");
        assert_eq!(
            without_note_marks("Tides and Shoalsᵃ,ᵇ of Vell"),
            "Tides and Shoals of Vell"
        );
        // Exponents and marks that are the text itself stay.
        assert_eq!(
            without_note_marks("Scaling to 10⁶ Nodes"),
            "Scaling to 10⁶ Nodes"
        );
        assert_eq!(without_note_marks("C* Algebras"), "C* Algebras");
    }

    #[test]
    fn join_lines_keeps_spaces_and_mends_hyphens() {
        assert_eq!(
            join_lines(["Lattice: the Plot Description", "Language"]),
            "Lattice: the Plot Description Language"
        );
        assert_eq!(join_lines(["imple-", "menting"]), "implementing");
        assert_eq!(
            join_lines(["Log-", "Structured File Systems"]),
            "Log-Structured File Systems"
        );
        assert_eq!(join_lines(["纸本保护", "方法"]), "纸本保护方法");
        // A compound name broken at the line end is one word again.
        assert_eq!(
            join_lines(["Routing Bicycles with Open-", "TrailMap Data"]),
            "Routing Bicycles with OpenTrailMap Data"
        );
        assert_eq!(join_lines(["Self-", "Healing Nets"]), "Self-Healing Nets");
    }
}
