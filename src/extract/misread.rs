//! OCR misreadings the finders can undo, repaired on OCR pages before
//! they read them:
//! - Cyrillic read as Latin. Given several languages ("eng+rus"),
//!   Tesseract often reads a line of large Cyrillic type with the Latin
//!   model, whose letters look the same: "ОТКРЫТОЕ МОРЕ" comes back as
//!   "OTKpbiToe Mope". In a document whose OCR text is mostly Cyrillic, a
//!   line made only of such look-alike letters is set back in Cyrillic.
//! - An elided article read as a bar: "Histoire de l'apiculture" comes
//!   back as "Histoire de | apiculture". A bar standing alone before a
//!   word that starts with a vowel or "h" is "l'" glued to it.

use crate::model::{PageText, Via};

/// Latin letters (and the pair "bi") that OCR gives for Cyrillic ones.
const LOOK_ALIKES: &[(&str, char)] = &[
    ("bI", 'Ы'),
    ("bi", 'ы'),
    ("A", 'А'),
    ("B", 'В'),
    ("C", 'С'),
    ("E", 'Е'),
    ("H", 'Н'),
    ("K", 'К'),
    ("M", 'М'),
    ("O", 'О'),
    ("P", 'Р'),
    ("T", 'Т'),
    ("X", 'Х'),
    ("Y", 'У'),
    ("a", 'а'),
    ("b", 'ь'),
    ("c", 'с'),
    ("e", 'е'),
    ("k", 'к'),
    ("m", 'м'),
    ("n", 'п'),
    ("o", 'о'),
    ("p", 'р'),
    ("r", 'г'),
    ("u", 'и'),
    ("x", 'х'),
    ("y", 'у'),
];

/// Share of Cyrillic among the letters of a document's OCR text from which
/// its Latin-only lines are read as Cyrillic, and the fewest letters.
const CYRILLIC_SHARE: f64 = 0.6;
const MIN_LETTERS: usize = 50;

/// The pages with their misread lines repaired, or `None` when nothing
/// changes (no OCR page, no such line).
pub fn repair(pages: &[PageText]) -> Option<Vec<PageText>> {
    if pages.iter().all(|p| p.via != Via::Ocr) {
        return None;
    }
    let cyrillic = cyrillic_document(pages);
    let mut changed = false;
    let out = pages
        .iter()
        .map(|p| {
            let mut p = p.clone();
            if p.via == Via::Ocr {
                for l in &mut p.lines {
                    let mut text = elided_article(&l.text);
                    if cyrillic && let Some(t) = as_cyrillic(text.as_deref().unwrap_or(&l.text)) {
                        text = Some(t);
                    }
                    if let Some(text) = text {
                        l.text = text;
                        changed = true;
                    }
                }
            }
            p
        })
        .collect();
    changed.then_some(out)
}

/// "de | apiculture" -> "de l'apiculture".
fn elided_article(line: &str) -> Option<String> {
    if !line.contains(" | ") {
        return None;
    }
    let words: Vec<&str> = line.split(' ').collect();
    let mut out: Vec<String> = Vec::with_capacity(words.len());
    let mut changed = false;
    let mut i = 0;
    while i < words.len() {
        let next = words.get(i + 1).copied().unwrap_or("");
        let vowel = next
            .chars()
            .next()
            .is_some_and(|c| "aeiouhâàéèêîôûAEIOUHÉ".contains(c));
        if words[i] == "|" && i > 0 && vowel {
            out.push(format!("l'{next}"));
            changed = true;
            i += 2;
            continue;
        }
        out.push(words[i].to_string());
        i += 1;
    }
    changed.then(|| out.join(" "))
}

/// Whether a document's OCR text is mostly Cyrillic.
fn cyrillic_document(pages: &[PageText]) -> bool {
    let ocr = |p: &&PageText| p.via == Via::Ocr;
    let (mut cyrillic, mut latin) = (0usize, 0usize);
    for l in pages.iter().filter(ocr).flat_map(|p| &p.lines) {
        for c in l.text.chars() {
            if is_cyrillic(c) {
                cyrillic += 1;
            } else if c.is_ascii_alphabetic() {
                latin += 1;
            }
        }
    }
    let total = cyrillic + latin;
    total >= MIN_LETTERS && cyrillic as f64 >= CYRILLIC_SHARE * total as f64
}

fn is_cyrillic(c: char) -> bool {
    ('\u{0400}'..='\u{04FF}').contains(&c)
}

/// A line of four or more letters, all Latin look-alikes of Cyrillic
/// ones, without digits, in Cyrillic; each word with capitals after a
/// lower-case letter ("ОТКрыТое") keeps only its first capital.
fn as_cyrillic(line: &str) -> Option<String> {
    let mut letters = line.chars().filter(|c| c.is_alphabetic());
    if line.chars().filter(|c| c.is_alphabetic()).count() < 4
        || line.chars().any(|c| c.is_ascii_digit() || is_cyrillic(c))
        // A year in Roman numerals ("MMXX") is one.
        || letters.all(|c| "MDCLXVI".contains(c))
    {
        return None;
    }
    let words: Option<Vec<String>> = line.split(' ').map(word_as_cyrillic).collect();
    Some(words?.join(" "))
}

fn word_as_cyrillic(word: &str) -> Option<String> {
    let mut out = String::with_capacity(word.len() * 2);
    let mut rest = word;
    while let Some(c) = rest.chars().next() {
        if !c.is_alphabetic() {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        let (latin, cyr) = LOOK_ALIKES.iter().find(|(l, _)| rest.starts_with(l))?;
        out.push(*cyr);
        rest = &rest[latin.len()..];
    }
    let chars: Vec<char> = out.chars().collect();
    let odd_capitals = chars
        .windows(2)
        .any(|w| w[0].is_lowercase() && w[1].is_uppercase());
    if !odd_capitals {
        return Some(out);
    }
    let mut fixed = String::with_capacity(out.len());
    for (i, c) in chars.iter().enumerate() {
        if i == 0 {
            fixed.push(*c);
        } else {
            fixed.extend(c.to_lowercase());
        }
    }
    Some(fixed)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extract::context::testutil::{ocr, page};

    #[test]
    fn look_alike_lines_of_a_cyrillic_scan_are_set_in_cyrillic() {
        let title = ocr(page(
            2,
            &[
                ("OTKpbiToe Mope", 24.0, 150.0),
                ("Курс лекций", 14.0, 200.0),
                ("Ольга Ветрова", 12.0, 300.0),
                ("Издательство «Светлояр»", 11.0, 600.0),
                ("Москва", 11.0, 614.0),
                ("Все права защищены", 9.0, 640.0),
                ("ISBN 5-00-000000-0", 9.0, 660.0),
                ("MMXX", 9.0, 680.0),
            ],
        ));
        let pages = repair(&[title]).expect("a line repaired");
        let texts: Vec<&str> = pages[0].lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts[0], "Открытое Море");
        // Lines with other letters or digits stay as they are.
        assert_eq!(texts[1], "Курс лекций");
        assert_eq!(texts[6], "ISBN 5-00-000000-0");
        assert_eq!(texts[7], "MMXX");
    }

    #[test]
    fn a_bar_before_a_vowel_is_an_elided_article() {
        let p = ocr(page(
            0,
            &[
                ("Histoire de | apiculture", 24.0, 150.0),
                ("Tableau | 2 | 3", 10.0, 300.0),
            ],
        ));
        let pages = repair(&[p]).expect("a line repaired");
        assert_eq!(pages[0].lines[0].text, "Histoire de l'apiculture");
        assert_eq!(pages[0].lines[1].text, "Tableau | 2 | 3");
    }

    #[test]
    fn latin_documents_and_text_layers_are_left_alone() {
        let english = ocr(page(
            2,
            &[
                ("Open Sea", 24.0, 150.0),
                (
                    "A Course of Lectures on the Sea and its Coasts",
                    14.0,
                    200.0,
                ),
                ("COPE", 12.0, 300.0),
            ],
        ));
        assert!(repair(&[english]).is_none());
        // A text layer is what the PDF says, not a reading.
        let layer = page(
            2,
            &[
                ("OTKpbiToe Mope", 24.0, 150.0),
                (
                    "Издательство «Светлояр» Москва Все права защищены",
                    11.0,
                    600.0,
                ),
            ],
        );
        assert!(repair(&[layer]).is_none());
    }
}
