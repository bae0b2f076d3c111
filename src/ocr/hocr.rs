//! Reads Tesseract's hOCR output into lines of words with pixel boxes.
//!
//! hOCR rather than TSV because only hOCR carries Tesseract's per-line size
//! estimate (`x_size`: descender line to ascender line, in pixels), which is
//! a far steadier font-size estimate than a line's box: a line like "arena"
//! has no ascenders, "NOTES" no descenders, and the box height of each would
//! say a different size for the same type. The title finder compares line
//! sizes, so that steadiness matters.
//!
//! The markup is machine-written by Tesseract with a fixed shape
//! (`<span class='ocrx_word' id='…' title='bbox …; x_wconf …'>text</span>`),
//! so a small scanner is enough; no XML parser needed.

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
pub fn parse(hocr: &str) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    let mut rest = hocr;
    while let Some(at) = rest.find("<span class=") {
        rest = &rest[at + "<span class=".len()..];
        let Some((class, after)) = quoted(rest) else {
            break;
        };
        rest = after;
        let Some(tag_end) = rest.find('>') else {
            break;
        };
        let tag = &rest[..tag_end];
        rest = &rest[tag_end + 1..];
        let title = tag
            .find("title=")
            .and_then(|t| quoted(&tag[t + "title=".len()..]))
            .map(|(v, _)| v)
            .unwrap_or("");
        if LINE_CLASSES.contains(&class) {
            if let Some(bbox) = prop_bbox(title) {
                lines.push(Line {
                    bbox,
                    x_size: prop_num(title, "x_size"),
                    words: Vec::new(),
                });
            }
        } else if class == "ocrx_word" {
            let Some(close) = rest.find("</span>") else {
                break;
            };
            let text = unescape(&strip_tags(&rest[..close]));
            rest = &rest[close + "</span>".len()..];
            let (Some(bbox), Some(line)) = (prop_bbox(title), lines.last_mut()) else {
                continue;
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
    }
    lines.retain(|l| !l.words.is_empty());
    lines
}

/// The value of a `'…'` or `"…"` attribute at the start of `s`, and what follows it.
fn quoted(s: &str) -> Option<(&str, &str)> {
    let q = s.chars().next().filter(|c| *c == '\'' || *c == '"')?;
    let body = &s[1..];
    let end = body.find(q)?;
    Some((&body[..end], &body[end + 1..]))
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

/// Drops inline markup (`<strong>`, `<em>` appear when font info is on).
fn strip_tags(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut in_tag = false;
    for c in s.chars() {
        match c {
            '<' => in_tag = true,
            '>' => in_tag = false,
            c if !in_tag => out.push(c),
            _ => {}
        }
    }
    out
}

/// Undoes Tesseract's HTML escaping (`HOcrEscape`) and numeric references.
fn unescape(s: &str) -> String {
    if !s.contains('&') {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        // An entity is short: look for its `;` in the next 12 bytes only.
        // The window is bytes, so it is searched as bytes (cutting the str
        // there could split a character: issue 17's panic).
        let Some(semi) = rest.as_bytes()[..rest.len().min(12)]
            .iter()
            .position(|&b| b == b';')
        else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let ent = &rest[1..semi];
        let c = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => ent
                .strip_prefix("#x")
                .or_else(|| ent.strip_prefix("#X"))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match c {
            Some(c) => {
                out.push(c);
                rest = &rest[semi + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
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
    /// table of a manual read by Tesseract) panicked slicing a `str`.
    #[test]
    fn ampersand_before_multibyte_text_does_not_panic() {
        assert_eq!(unescape("A & B — ‘x’"), "A & B — ‘x’");
        assert_eq!(unescape("&ééééééééé;"), "&ééééééééé;");
        let hocr = "<span class='ocr_line' title='bbox 0 0 9 9'>\
            <span class='ocrx_word' title='bbox 0 0 9 9; x_wconf 90'>R&—–—–</span></span>";
        assert_eq!(parse(hocr)[0].words[0].text, "R&—–—–");
    }

    /// No input makes the parser panic: many pseudo-random documents built
    /// from hOCR fragments, multi-byte text and stray markup, each also cut
    /// at every char boundary.
    #[test]
    fn arbitrary_input_never_panics() {
        const PIECES: [&str; 24] = [
            "<span class=",
            "'ocr_line'",
            "\"ocrx_word\"",
            "'ocr_header'",
            " title='bbox 1 2 30 40; x_size 12; x_wconf 91'",
            " title=\"bbox 5 5 1 1\"",
            " title='bbox 1 2 3'",
            " title=",
            ">",
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
        ];
        let mut seed: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..2000 {
            let len = (next() % 40) as usize;
            let doc: String = (0..len)
                .map(|_| PIECES[(next() % PIECES.len() as u64) as usize])
                .collect();
            for (cut, _) in doc.char_indices() {
                let _ = parse(&doc[..cut]);
                let _ = unescape(&doc[cut..]);
            }
            let _ = parse(&doc);
        }
        // Raw bytes decoded lossily, as the engine's output would be if it
        // were not UTF-8.
        for _ in 0..2000 {
            let bytes: Vec<u8> = (0..(next() % 200)).map(|_| next() as u8).collect();
            let _ = parse(&String::from_utf8_lossy(&bytes));
        }
    }

    #[test]
    fn unescape_handles_unknown_and_numeric() {
        assert_eq!(unescape("a &amp; b"), "a & b");
        assert_eq!(unescape("&#233;t&#xE9;"), "été");
        assert_eq!(unescape("R&D; x & y"), "R&D; x & y");
    }
}
