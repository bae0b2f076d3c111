//! Reads Tesseract's hOCR output into lines of words with pixel boxes.
//!
//! hOCR rather than TSV because only hOCR carries Tesseract's per-line size
//! estimate (`x_size`: descender line to ascender line, in pixels), which is
//! a far steadier font-size estimate than a line's box: a line like "arena"
//! has no ascenders, "NOTES" no descenders, and the box height of each would
//! say a different size for the same type. The title finder compares line
//! sizes, so that steadiness matters.
//!
//! The markup is Tesseract's XHTML (`<span class='ocrx_word' id='…'
//! title='bbox …; x_wconf …'>text</span>` inside `ocr_line` spans), read
//! with quick-xml's event reader, the XML crate the XMP reader and writer
//! use too.

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

/// A box in image pixels, origin top-left, `x1`/`y1` exclusive.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PxBox {
    pub x0: f32,
    pub y0: f32,
    pub x1: f32,
    pub y1: f32,
}

impl PxBox {
    pub fn union(&self, o: &PxBox) -> PxBox {
        PxBox {
            x0: self.x0.min(o.x0),
            y0: self.y0.min(o.y0),
            x1: self.x1.max(o.x1),
            y1: self.y1.max(o.y1),
        }
    }
    pub fn height(&self) -> f32 {
        self.y1 - self.y0
    }
}

/// One recognised word.
#[derive(Debug, Clone, PartialEq)]
pub struct Word {
    pub text: String,
    pub bbox: PxBox,
    /// Tesseract's word confidence, 0-100.
    pub conf: f32,
}

/// One line as Tesseract segmented it.
#[derive(Debug, Clone, PartialEq)]
pub struct Line {
    pub bbox: PxBox,
    /// Tesseract's row height estimate in pixels (descender to ascender),
    /// `None` when the line carried none.
    pub x_size: Option<f32>,
    pub words: Vec<Word>,
}

/// hOCR classes Tesseract 5 uses for a line of text (headers, captions and
/// floating text are lines too).
const LINE_CLASSES: [&str; 4] = ["ocr_line", "ocr_header", "ocr_caption", "ocr_textfloat"];

/// Every line with its words, in Tesseract's reading order. Words outside
/// any line (never seen in practice) are dropped; lines without words too.
/// Markup that is not well-formed ends the reading there: what was read
/// before it is kept.
pub fn parse(hocr: &str) -> Vec<Line> {
    parse_pages(hocr).into_iter().flatten().collect()
}

/// [`parse`] for a document of several pages: the lines of each
/// `ocr_page`, one list per page in document order. Lines before any page
/// (never seen in practice) go with the first.
pub fn parse_pages(hocr: &str) -> Vec<Vec<Line>> {
    let mut reader = Reader::from_str(hocr);
    let config = reader.config_mut();
    // Tolerant of what a hand-edited or cut-off file may hold: a stray `&`,
    // an end tag that does not match.
    config.allow_dangling_amp = true;
    config.check_end_names = false;
    config.allow_unmatched_ends = true;

    let mut pages: Vec<Vec<Line>> = Vec::new();
    let mut lines: Vec<Line> = Vec::new();
    let mut in_page = false;
    // The word being read: its title, its text so far, and the depth of
    // markup inside it (`<strong>`, `<em>` when font info is on).
    let mut word: Option<(String, String, usize)> = None;
    loop {
        let event = match reader.read_event() {
            Ok(Event::Eof) | Err(_) => break,
            Ok(event) => event,
        };
        match event {
            Event::Start(tag) => {
                if let Some((_, _, depth)) = &mut word {
                    *depth += 1;
                    continue;
                }
                let (class, title) = class_and_title(&tag);
                if class == "ocrx_word" {
                    word = Some((title, String::new(), 0));
                } else if class == "ocr_page" {
                    if in_page {
                        end_page(&mut pages, &mut lines);
                    }
                    in_page = true;
                } else {
                    start_line(&mut lines, &class, &title);
                }
            }
            Event::Empty(tag) if word.is_none() => {
                let (class, title) = class_and_title(&tag);
                start_line(&mut lines, &class, &title);
            }
            Event::Text(text) => {
                if let Some((_, buf, _)) = &mut word {
                    buf.push_str(&String::from_utf8_lossy(&text));
                }
            }
            Event::CData(text) => {
                if let Some((_, buf, _)) = &mut word {
                    buf.push_str(&String::from_utf8_lossy(&text));
                }
            }
            Event::GeneralRef(reference) => {
                if let Some((_, buf, _)) = &mut word {
                    crate::util::xml::push_reference(buf, &reference);
                }
            }
            Event::End(_) => match &mut word {
                Some((_, _, depth)) if *depth > 0 => *depth -= 1,
                Some(_) => {
                    if let Some((title, text, _)) = word.take() {
                        end_word(&mut lines, &title, &text);
                    }
                }
                None => {}
            },
            _ => {}
        }
    }
    end_page(&mut pages, &mut lines);
    pages
}

/// Closes the page whose lines are `lines` (lines without words dropped).
fn end_page(pages: &mut Vec<Vec<Line>>, lines: &mut Vec<Line>) {
    let mut done = std::mem::take(lines);
    done.retain(|l| !l.words.is_empty());
    pages.push(done);
}

/// The `class` and `title` attributes of a tag, empty when absent.
fn class_and_title(tag: &BytesStart) -> (String, String) {
    let mut class = String::new();
    let mut title = String::new();
    for attr in tag.attributes().with_checks(false).flatten() {
        let value = || String::from_utf8_lossy(&attr.value).into_owned();
        match attr.key.as_ref() {
            b"class" => class = value(),
            b"title" => title = value(),
            _ => {}
        }
    }
    (class, title)
}

fn start_line(lines: &mut Vec<Line>, class: &str, title: &str) {
    if LINE_CLASSES.contains(&class) {
        if let Some(bbox) = prop_bbox(title) {
            lines.push(Line {
                bbox,
                x_size: prop_num(title, "x_size"),
                words: Vec::new(),
            });
        }
    }
}

fn end_word(lines: &mut [Line], title: &str, text: &str) {
    let (Some(bbox), Some(line)) = (prop_bbox(title), lines.last_mut()) else {
        return;
    };
    let text = text.trim();
    if !text.is_empty() {
        line.words.push(Word {
            text: text.to_string(),
            bbox,
            conf: prop_num(title, "x_wconf").unwrap_or(0.0),
        });
    }
}

/// `bbox x0 y0 x1 y1` from an hOCR title.
fn prop_bbox(title: &str) -> Option<PxBox> {
    let v = prop(title, "bbox")?;
    let n: Vec<f32> = v
        .split_whitespace()
        .map(|x| x.parse().ok())
        .collect::<Option<_>>()?;
    match n[..] {
        [x0, y0, x1, y1] if x1 >= x0 && y1 >= y0 => Some(PxBox { x0, y0, x1, y1 }),
        _ => None,
    }
}

fn prop_num(title: &str, name: &str) -> Option<f32> {
    prop(title, name)?.trim().parse().ok()
}

/// The value of one `name value…` property of an hOCR title (properties are
/// separated by `;`).
fn prop<'a>(title: &'a str, name: &str) -> Option<&'a str> {
    title.split(';').find_map(|p| {
        let p = p.trim_start();
        p.strip_prefix(name)
            .filter(|v| v.starts_with(' '))
            .map(str::trim)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    // Shape copied from `tesseract page.png stdout --psm 3 hocr` (5.3.0).
    const SAMPLE: &str = r#"
  <div class='ocr_page' id='page_1' title='image "stdin"; bbox 0 0 1500 2343; ppageno 0; scan_res 300 300'>
   <div class='ocr_carea' id='block_1_1' title="bbox 245 833 1262 935">
    <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 245 833 1262 935">
     <span class='ocr_line' id='line_1_1' title="bbox 245 833 1262 935; baseline 0.017 -36; x_size 93; x_descenders 25; x_ascenders 24">
      <span class='ocrx_word' id='word_1_1' title='bbox 245 833 479 903; x_wconf 96'>Notes</span>
      <span class='ocrx_word' id='word_1_2' title='bbox 506 835 699 906; x_wconf 95.5'>Ashdown &amp; Pryce&#39;s</span>
     </span>
    </p>
   </div>
   <div class='ocr_carea' id='block_1_2' title="bbox 508 1816 965 1856">
    <p class='ocr_par' id='par_1_2' lang='eng' title="bbox 508 1816 965 1856">
     <span class='ocr_header' id='line_1_3' title="bbox 508 1816 965 1856; baseline 0.018 -8; x_size 37.5; x_descenders 5.5; x_ascenders 9.5">
      <span class='ocrx_word' id='word_1_8' title='bbox 508 1816 658 1850; x_wconf 94'><strong>SMALL</strong></span>
      <span class='ocrx_word' id='word_1_9' title='bbox 671 1820 826 1854; x_wconf 12'> </span>
     </span>
     <span class='ocr_line' id='line_1_4' title="bbox 1 1 2 2; baseline 0 0">
     </span>
    </p>
   </div>
  </div>"#;

    #[test]
    fn parses_lines_words_sizes_and_entities() {
        let lines = parse(SAMPLE);
        assert_eq!(lines.len(), 2, "{lines:#?}");
        assert_eq!(lines[0].x_size, Some(93.0));
        assert_eq!(lines[0].words.len(), 2);
        assert_eq!(lines[0].words[0].text, "Notes");
        assert_eq!(lines[0].words[0].conf, 96.0);
        assert_eq!(
            lines[0].words[0].bbox,
            PxBox {
                x0: 245.0,
                y0: 833.0,
                x1: 479.0,
                y1: 903.0
            }
        );
        assert_eq!(lines[0].words[1].text, "Ashdown & Pryce's");
        assert_eq!(lines[0].words[1].conf, 95.5);
        // A header line counts as a line; markup inside a word is dropped,
        // blank words are not kept.
        assert_eq!(lines[1].x_size, Some(37.5));
        assert_eq!(lines[1].words.len(), 1);
        assert_eq!(lines[1].words[0].text, "SMALL");
    }

    #[test]
    fn garbage_input_gives_nothing() {
        assert!(parse("").is_empty());
        assert!(parse("<span class='ocrx_word' title='bbox 1 2").is_empty());
        assert!(parse("<span class=").is_empty());
    }

    /// Issue 17: an `&` followed by multi-byte text within 12 bytes (a
    /// table of a manual read by Tesseract) panicked the hand-written
    /// reader slicing a `str`.
    #[test]
    fn ampersand_before_multibyte_text_does_not_panic() {
        let word = |text: &str| {
            let hocr = format!(
                "<span class='ocr_line' title='bbox 0 0 9 9'>\
                 <span class='ocrx_word' title='bbox 0 0 9 9; x_wconf 90'>{text}</span></span>"
            );
            parse(&hocr)[0].words[0].text.clone()
        };
        assert_eq!(word("R&—–—–"), "R&—–—–");
        assert_eq!(word("A & B — ‘x’"), "A & B — ‘x’");
    }

    #[test]
    fn references_known_numeric_and_unknown() {
        let word = |text: &str| {
            let hocr = format!(
                "<span class='ocr_line' title='bbox 0 0 9 9'>\
                 <span class='ocrx_word' title='bbox 0 0 9 9; x_wconf 90'>{text}</span></span>"
            );
            parse(&hocr)[0].words[0].text.clone()
        };
        assert_eq!(word("a &amp; b"), "a & b");
        assert_eq!(word("&#233;t&#xE9;"), "été");
        assert_eq!(word("R&D; x"), "R&D; x");
        assert_eq!(word("&lt;&quot;&#39;&gt;"), "<\"'>");
    }

    /// A page of a package manual (a table layout) as Tesseract 5.3.0
    /// wrote it, declaration, doctype, head and all (see
    /// `tests/fixtures/SOURCES.md`): every line and word is read.
    #[test]
    fn reads_real_tesseract_output() {
        let hocr = include_str!("../../tests/fixtures/wild_calendar_code_manual_p3.hocr");
        let lines = parse(hocr);
        assert_eq!(lines.len(), 32);
        let words: Vec<&Word> = lines.iter().flat_map(|l| &l.words).collect();
        assert_eq!(words.len(), 140);
        assert_eq!(
            words[..4]
                .iter()
                .map(|w| w.text.as_str())
                .collect::<Vec<_>>(),
            ["2", "HEADER", "wallcalendar.cls;", "Don't"]
        );
        assert_eq!(lines[0].x_size, Some(28.333334));
        assert_eq!(
            lines[0].bbox,
            PxBox {
                x0: 93.0,
                y0: 175.0,
                x1: 232.0,
                y1: 198.0
            }
        );
        assert!(words.iter().any(|w| w.text == "'org-babel-tar"));
        // Every word lies in its line, and has a confidence.
        for l in &lines {
            for w in &l.words {
                assert!(w.bbox.x0 >= l.bbox.x0 && w.bbox.x1 <= l.bbox.x1, "{w:?}");
                assert!((0.0..=100.0).contains(&w.conf), "{w:?}");
            }
        }
    }

    /// No input makes the parser panic: many pseudo-random documents built
    /// from hOCR fragments, multi-byte text and stray markup, each also cut
    /// at every char boundary, and arbitrary bytes.
    /// Several pages in one document (one tesseract call over a
    /// multi-page TIFF): one list of lines per `ocr_page`, an empty page
    /// keeping its place.
    #[test]
    fn pages_are_kept_apart() {
        let blank = "<div class='ocr_page' id='page_2' title='bbox 0 0 10 10'>\n  </div>";
        let doc = format!("<body>{SAMPLE}{blank}{SAMPLE}</body>");
        let pages = parse_pages(&doc);
        assert_eq!(pages.len(), 3);
        assert_eq!(pages[0], parse(SAMPLE));
        assert!(pages[1].is_empty());
        assert_eq!(pages[2], parse(SAMPLE));
        assert_eq!(parse(&doc).len(), 4, "parse gives every page's lines");
        assert_eq!(parse_pages(SAMPLE).len(), 1);
    }

    #[test]
    fn arbitrary_input_never_panics() {
        const PIECES: [&str; 26] = [
            "<span class=",
            "'ocr_line'",
            "\"ocrx_word\"",
            "'ocr_header'",
            " title='bbox 1 2 30 40; x_size 12; x_wconf 91'",
            " title=\"bbox 5 5 1 1\"",
            " title='bbox 1 2 3'",
            " title=",
            ">",
            "/>",
            "</span>",
            "<strong>",
            "&amp;",
            "&#233;",
            "&#x1F600;",
            "&#xFFFFFFFF;",
            "&",
            ";",
            "é",
            "—",
            "‘€’",
            "\u{1F600}",
            "'",
            "\"",
            " word ",
            "<![CDATA[x]]>",
        ];
        let mut rng = crate::testing::Rng::new(0x9E37_79B9_7F4A_7C15);
        for _ in 0..2000 {
            let len = rng.below(40);
            let doc: String = (0..len).map(|_| *rng.pick(&PIECES)).collect();
            for (cut, _) in doc.char_indices() {
                let _ = parse(&doc[..cut]);
                let _ = parse(&doc[cut..]);
            }
        }
        // Raw bytes decoded lossily, as the engine's output would be if it
        // were not UTF-8, and the real page cut anywhere.
        for _ in 0..2000 {
            let bytes = rng.bytes(200);
            let _ = parse(&String::from_utf8_lossy(&bytes));
        }
        let real = include_str!("../../tests/fixtures/wild_calendar_code_manual_p3.hocr");
        for _ in 0..200 {
            let (a, b) = (rng.below(real.len() + 1), rng.below(real.len() + 1));
            let cut = String::from_utf8_lossy(&real.as_bytes()[a.min(b)..a.max(b)]);
            let _ = parse(&cut);
        }
    }
}
