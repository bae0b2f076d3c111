//! Typefaces: the base-14 families every PDF reader has (Times, Helvetica,
//! Courier, WinAnsiEncoding) and DejaVu TrueType faces from
//! fonts-dejavu-core, embedded whole, for Cyrillic and for title pictures.
//! Widths of the base-14 faces are their AFM widths for ASCII; accented
//! letters take their base letter's width.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use unicode_normalization::UnicodeNormalization;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Family {
    Times,
    Helvetica,
    Courier,
    /// DejaVu Serif, embedded.
    Serif,
    /// DejaVu Sans, embedded.
    Sans,
}

impl Family {
    pub fn embedded(self) -> bool {
        matches!(self, Family::Serif | Family::Sans)
    }

    pub fn name(self) -> &'static str {
        match self {
            Family::Times => "Times",
            Family::Helvetica => "Helvetica",
            Family::Courier => "Courier",
            Family::Serif => "DejaVu Serif",
            Family::Sans => "DejaVu Sans",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Face {
    pub family: Family,
    pub bold: bool,
    pub italic: bool,
}

impl Face {
    pub fn new(family: Family, bold: bool, italic: bool) -> Face {
        Face {
            family,
            bold,
            italic,
        }
    }

    /// The PostScript name of a base-14 face.
    pub fn base14_name(self) -> &'static str {
        match (self.family, self.bold, self.italic) {
            (Family::Times, false, false) => "Times-Roman",
            (Family::Times, true, false) => "Times-Bold",
            (Family::Times, false, true) => "Times-Italic",
            (Family::Times, true, true) => "Times-BoldItalic",
            (Family::Helvetica, false, false) => "Helvetica",
            (Family::Helvetica, true, false) => "Helvetica-Bold",
            (Family::Helvetica, false, true) => "Helvetica-Oblique",
            (Family::Helvetica, true, true) => "Helvetica-BoldOblique",
            (Family::Courier, false, false) => "Courier",
            (Family::Courier, true, false) => "Courier-Bold",
            (Family::Courier, false, true) => "Courier-Oblique",
            (Family::Courier, true, true) => "Courier-BoldOblique",
            _ => "Helvetica",
        }
    }

    fn ttf_file(self) -> &'static str {
        match (self.family, self.bold, self.italic) {
            (Family::Serif, false, false) => "DejaVuSerif.ttf",
            (Family::Serif, true, false) => "DejaVuSerif-Bold.ttf",
            (Family::Serif, false, true) => "DejaVuSerif-Italic.ttf",
            (Family::Serif, true, true) => "DejaVuSerif-BoldItalic.ttf",
            (Family::Sans, false, false) => "DejaVuSans.ttf",
            (Family::Sans, true, false) => "DejaVuSans-Bold.ttf",
            (Family::Sans, false, true) => "DejaVuSans-Oblique.ttf",
            _ => "DejaVuSans-BoldOblique.ttf",
        }
    }
}

/// Where fonts-dejavu-core puts its files on Debian and Ubuntu.
pub const DEJAVU_DIR: &str = "/usr/share/fonts/truetype/dejavu";

/// One TrueType file with the tables the writer needs, read once.
pub struct TtfFont {
    pub data: Vec<u8>,
    pub units_per_em: f32,
    pub ascender: f32,
    pub descender: f32,
    pub cap_height: f32,
    pub bbox: [f32; 4],
    pub italic_angle: f32,
    pub postscript_name: String,
    /// char -> (glyph id, advance in 1/1000 em)
    glyphs: BTreeMap<char, (u16, f32)>,
}

impl TtfFont {
    pub fn load(path: &Path) -> Option<TtfFont> {
        let data = std::fs::read(path).ok()?;
        let face = ttf_parser::Face::parse(&data, 0).ok()?;
        let upem = face.units_per_em() as f32;
        let mut glyphs = BTreeMap::new();
        let ranges = [
            (0x20u32, 0x24Fu32),
            (0x370, 0x3FF),
            (0x400, 0x4FF),
            (0x2000, 0x2122),
        ];
        for (lo, hi) in ranges {
            for cp in lo..=hi {
                let Some(c) = char::from_u32(cp) else {
                    continue;
                };
                if let Some(g) = face.glyph_index(c) {
                    let adv = face.glyph_hor_advance(g).unwrap_or(0) as f32 * 1000.0 / upem;
                    glyphs.insert(c, (g.0, adv));
                }
            }
        }
        let bb = face.global_bounding_box();
        let s = 1000.0 / upem;
        let postscript_name = path
            .file_stem()
            .map(|s| s.to_string_lossy().replace(' ', ""))
            .unwrap_or_default();
        Some(TtfFont {
            units_per_em: upem,
            ascender: face.ascender() as f32 * s,
            descender: face.descender() as f32 * s,
            cap_height: face.capital_height().unwrap_or(face.ascender()) as f32 * s,
            bbox: [
                bb.x_min as f32 * s,
                bb.y_min as f32 * s,
                bb.x_max as f32 * s,
                bb.y_max as f32 * s,
            ],
            italic_angle: face.italic_angle(),
            postscript_name,
            glyphs,
            data,
        })
    }

    pub fn glyph(&self, c: char) -> Option<(u16, f32)> {
        self.glyphs.get(&c).copied()
    }

    pub fn covers(&self, text: &str) -> bool {
        text.chars().all(|c| self.glyphs.contains_key(&c))
    }
}

/// The faces a run can use. The DejaVu faces are `None` when the font
/// files are missing: books then stay in base-14 Latin-script faces.
#[derive(Clone, Default)]
pub struct Fonts {
    ttf: BTreeMap<Face, Arc<TtfFont>>,
}

impl Fonts {
    pub fn load(dir: &Path) -> Fonts {
        let mut ttf = BTreeMap::new();
        for family in [Family::Serif, Family::Sans] {
            for bold in [false, true] {
                for italic in [false, true] {
                    let face = Face::new(family, bold, italic);
                    if let Some(f) = TtfFont::load(&dir.join(face.ttf_file())) {
                        ttf.insert(face, Arc::new(f));
                    }
                }
            }
        }
        Fonts { ttf }
    }

    /// Are the embedded faces there (all eight)?
    pub fn has_unicode(&self) -> bool {
        self.ttf.len() == 8
    }

    pub fn ttf(&self, face: Face) -> Option<&Arc<TtfFont>> {
        self.ttf.get(&face)
    }

    /// Width of `text` at `size` points.
    pub fn width(&self, face: Face, text: &str, size: f32) -> f32 {
        if face.family.embedded() {
            if let Some(f) = self.ttf.get(&face) {
                return text
                    .chars()
                    .map(|c| f.glyph(c).map_or(600.0, |g| g.1))
                    .sum::<f32>()
                    * size
                    / 1000.0;
            }
        }
        text.chars().map(|c| base14_width(face, c)).sum::<f32>() * size / 1000.0
    }
}

// AFM widths of Helvetica and Times-Roman for ASCII 32..=126.
const HELVETICA: [u16; 95] = [
    278, 278, 355, 556, 556, 889, 667, 191, 333, 333, 389, 584, 278, 333, 278, 278, 556, 556, 556,
    556, 556, 556, 556, 556, 556, 556, 278, 278, 584, 584, 584, 556, 1015, 667, 667, 722, 722, 667,
    611, 778, 722, 278, 500, 667, 556, 833, 722, 778, 667, 778, 722, 667, 611, 722, 667, 944, 667,
    667, 611, 278, 278, 278, 469, 556, 333, 556, 556, 500, 556, 556, 278, 556, 556, 222, 222, 500,
    222, 833, 556, 556, 556, 556, 333, 500, 278, 556, 500, 722, 500, 500, 500, 334, 260, 334, 584,
];
const TIMES: [u16; 95] = [
    250, 333, 408, 500, 500, 833, 778, 180, 333, 333, 500, 564, 250, 333, 250, 278, 500, 500, 500,
    500, 500, 500, 500, 500, 500, 500, 278, 278, 564, 564, 564, 444, 921, 722, 667, 667, 722, 611,
    556, 722, 722, 333, 389, 722, 611, 889, 722, 722, 556, 722, 667, 556, 611, 722, 722, 944, 722,
    722, 611, 333, 278, 333, 469, 500, 333, 444, 500, 444, 500, 444, 333, 500, 500, 278, 278, 500,
    278, 778, 500, 500, 500, 500, 333, 389, 278, 500, 500, 722, 500, 500, 444, 480, 200, 480, 541,
];

fn base14_width(face: Face, c: char) -> f32 {
    if face.family == Family::Courier {
        return 600.0;
    }
    let table = if face.family == Family::Times {
        &TIMES
    } else {
        &HELVETICA
    };
    let base = if c.is_ascii() {
        c
    } else {
        match c {
            'ß' | '«' | '»' | '–' | '\u{2019}' | '\u{2018}' | '\u{201C}' | '\u{201D}' | '„' => {
                'n'
            }
            'æ' | 'œ' | 'Æ' | 'Œ' | '©' | '®' => 'M',
            '—' | '…' | '€' => 'W',
            '·' | '•' => '.',
            _ => c.nfd().next().filter(char::is_ascii).unwrap_or('n'),
        }
    };
    let i = (base as usize).saturating_sub(32).min(94);
    let w = table[i] as f32;
    if face.bold { w * 1.06 } else { w }
}

/// Windows-1252 byte for a character, if it has one.
pub fn winansi(c: char) -> Option<u8> {
    let cp = c as u32;
    if (0x20..0x7F).contains(&cp) || (0xA0..=0xFF).contains(&cp) {
        return Some(cp as u8);
    }
    Some(match c {
        '€' => 0x80,
        '‚' => 0x82,
        'ƒ' => 0x83,
        '„' => 0x84,
        '…' => 0x85,
        '†' => 0x86,
        '‡' => 0x87,
        'ˆ' => 0x88,
        '‰' => 0x89,
        'Š' => 0x8A,
        '‹' => 0x8B,
        'Œ' => 0x8C,
        'Ž' => 0x8E,
        '\u{2018}' => 0x91,
        '\u{2019}' => 0x92,
        '\u{201C}' => 0x93,
        '\u{201D}' => 0x94,
        '•' => 0x95,
        '–' => 0x96,
        '—' => 0x97,
        '˜' => 0x98,
        '™' => 0x99,
        'š' => 0x9A,
        '›' => 0x9B,
        'œ' => 0x9C,
        'ž' => 0x9E,
        'Ÿ' => 0x9F,
        _ => return None,
    })
}
