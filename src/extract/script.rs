//! Cyrillic read as Latin by OCR. Given several languages ("eng+rus"),
//! Tesseract often reads a line of large Cyrillic type with the Latin
//! model, whose letters look the same: "ОТКРЫТОЕ МОРЕ" comes back as
//! "OTKpbiToe Mope". In a document whose OCR text is mostly Cyrillic, a
//! line made only of such look-alike letters is set back in Cyrillic
//! before the finders read it.

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

/// The pages with their look-alike lines set in Cyrillic, or `None` when
/// nothing changes (no OCR page, a document mostly in Latin letters, no
/// such line).
pub fn repair_cyrillic(pages: &[PageText]) -> Option<Vec<PageText>> {
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
    if total < MIN_LETTERS || (cyrillic as f64) < CYRILLIC_SHARE * total as f64 {
        return None;
    }
    let mut changed = false;
    let out = pages
        .iter()
        .map(|p| {
            let mut p = p.clone();
            if p.via == Via::Ocr {
                for l in &mut p.lines {
                    if let Some(text) = as_cyrillic(&l.text) {
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

fn is_cyrillic(c: char) -> bool {
    ('\u{0400}'..='\u{04FF}').contains(&c)
}

/// A line of four or more letters, all Latin look-alikes of Cyrillic
/// ones, without digits, in Cyrillic; each word with capitals after a
/// lower-case letter ("ОТКрыТое") keeps only its first capital.
fn as_cyrillic(line: &str) -> Option<String> {
    if line.chars().filter(|c| c.is_alphabetic()).count() < 4
        || line.chars().any(|c| c.is_ascii_digit() || is_cyrillic(c))
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
            ],
        ));
        let pages = repair_cyrillic(&[title]).expect("a line repaired");
        let texts: Vec<&str> = pages[0].lines.iter().map(|l| l.text.as_str()).collect();
        assert_eq!(texts[0], "Открытое Море");
        // Lines with other letters or digits stay as they are.
        assert_eq!(texts[1], "Курс лекций");
        assert_eq!(texts[6], "ISBN 5-00-000000-0");
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
        assert!(repair_cyrillic(&[english]).is_none());
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
        assert!(repair_cyrillic(&[layer]).is_none());
    }
}
