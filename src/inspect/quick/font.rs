//! Fonts as text extraction needs them: character codes, widths, Unicode
//! text, ascent and descent, name, flags and weight. No font program is
//! run: widths come from the font dictionary, text from `/ToUnicode`, the
//! encoding's glyph names or a Type 1 program's clear-text encoding.
//!
//! What pdfium does is followed (`CPDF_SimpleFont::LoadCommon`,
//! `CPDF_Type1Font::LoadGlyphMap`, `CPDF_TrueTypeFont::LoadGlyphMap`,
//! `CPDF_CIDFont::Load`, `CPDF_Font::CheckFontMetrics`):
//! - the text of a code is the ToUnicode map's, else the Unicode of the
//!   glyph name the encoding gives it (`/Differences` over the base
//!   encoding). A font without the symbolic flag has StandardEncoding
//!   under its `/Differences`, embedded or not; a symbolic embedded Type 1
//!   font without a base encoding has its program's built-in encoding,
//!   read from the program's clear-text part;
//! - widths are `/Widths` (or a CID font's `/W`, `/DW`), as integers;
//! - ascent and descent are the descriptor's; when both are 0 pdfium
//!   measures the glyphs `A` and `g`, for which the font box stands in
//!   (a simple TrueType font is left to pdfium).
//!
//! [`Unsupported`]: fonts whose text or metrics need the font program
//! (a symbolic CFF or TrueType font without usable glyph names or
//! ToUnicode map, a font without `/Widths` other than Courier, a font
//! without a descriptor or font box), Type 3 fonts, vertical writing,
//! CMaps other than `Identity-H` or embedded ones, and CID fonts without
//! a ToUnicode map or of a CJK collection (pdfium falls back on its CJK
//! tables).

use super::Unsupported;
use super::cmap::{CidCMap, ToUnicode};
use super::encoding::BaseEncoding;
use super::file::File;
use super::glyphs;
use super::object::{Dict, ObjRef, Object, Stream};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

/// Font descriptor flags (ISO 32000-1, 9.8.2).
const FIXED_PITCH: i32 = 1;
const SYMBOLIC: i32 = 4;
const NONSYMBOLIC: i32 = 32;
const ITALIC: i32 = 64;
const ALL_CAP: i32 = 0x10000;
/// pdfium's flag for a descriptor with all of ItalicAngle, Ascent,
/// Descent, CapHeight and StemV.
const USE_EXTERNAL_ATTRIBUTES: i32 = 0x80000;

/// A font of a page's resources.
#[derive(Debug)]
pub struct Font {
    name: Vec<u8>,
    flags: i32,
    stem_v: i32,
    ascent: f64,
    descent: f64,
    to_unicode: Option<ToUnicode>,
    /// A simple font without a program, drawn with pdfium's substitute.
    substituted: bool,
    kind: Kind,
}

#[derive(Debug)]
enum Kind {
    /// One-byte codes. Widths in glyph units; Unicode 0 for none.
    Simple {
        widths: Box<[i32; 256]>,
        unicode: Box<[u32; 256]>,
    },
    /// Codes through a CMap to CIDs; `widths` are `(first, last, width)`
    /// of `/W` in order (the first that takes a CID counts).
    Cid {
        cmap: CidCMap,
        widths: Vec<(u16, u16, i32)>,
        default_width: i32,
    },
}

/// What the loading reads objects and streams through: the file, or in
/// tests direct objects only.
trait Source {
    fn resolve(&self, o: &Object) -> Result<Object, Unsupported>;
    fn decode(&self, s: &Stream) -> Result<Vec<u8>, Unsupported>;

    fn get_in(&self, d: &Dict, key: &[u8]) -> Result<Option<Object>, Unsupported> {
        match d.get(key) {
            Some(o) => self.resolve(o).map(|o| (!o.is_null()).then_some(o)),
            None => Ok(None),
        }
    }

    fn dict_in(&self, d: &Dict, key: &[u8]) -> Result<Option<Dict>, Unsupported> {
        Ok(self.get_in(d, key)?.and_then(|o| o.as_dict().cloned()))
    }

    fn int_in(&self, d: &Dict, key: &[u8]) -> Result<Option<i32>, Unsupported> {
        Ok(self.get_in(d, key)?.as_ref().and_then(pdfium_int))
    }
}

impl Source for File {
    fn resolve(&self, o: &Object) -> Result<Object, Unsupported> {
        File::resolve(self, o)
    }

    fn decode(&self, s: &Stream) -> Result<Vec<u8>, Unsupported> {
        File::decode(self, s)
    }
}

/// A number as pdfium's `GetInteger` takes it: reals truncated.
fn pdfium_int(o: &Object) -> Option<i32> {
    match *o {
        Object::Int(i) => Some(i.clamp(i32::MIN as i64, i32::MAX as i64) as i32),
        Object::Real(r) => Some(r as i32),
        _ => None,
    }
}

impl Font {
    /// Reads a font dictionary. Fonts whose text cannot be had without
    /// running the font program, Type 3 fonts and vertical writing are
    /// [`Unsupported`].
    pub fn load(file: &File, dict: &Dict) -> Result<Font, Unsupported> {
        load(file, dict)
    }

    /// The character code at the start of `s` and its length in bytes
    /// (at least 1 when `s` is not empty).
    pub fn next_code(&self, s: &[u8]) -> (u32, usize) {
        match &self.kind {
            Kind::Simple { .. } => match s.first() {
                Some(&b) => (b as u32, 1),
                None => (0, 0),
            },
            Kind::Cid { cmap, .. } => cmap.next_code(s),
        }
    }

    /// The glyph width of `code` in text space units for a font size of 1
    /// (glyph space / 1000, e.g. 0.5).
    pub fn width(&self, code: u32) -> f64 {
        let w = match &self.kind {
            Kind::Simple { widths, .. } => widths[if code > 255 { 0 } else { code as usize }],
            Kind::Cid {
                cmap,
                widths,
                default_width,
            } => {
                let cid = cmap.cid(code);
                widths
                    .iter()
                    .find(|&&(lo, hi, _)| lo <= cid && cid <= hi)
                    .map_or(*default_width, |&(_, _, w)| w)
            }
        };
        w as f64 / 1000.0
    }

    /// Appends the Unicode text of `code` to `out` (several characters for
    /// a ligature); nothing when the font does not say. True when the
    /// text came from the `/ToUnicode` map, false when from the encoding's
    /// glyph names (or there is none): pdfium holds a character beyond the
    /// Basic Multilingual Plane as one character only in the second case.
    pub fn unicode(&self, code: u32, out: &mut String) -> bool {
        if let Some(map) = &self.to_unicode {
            let len = out.len();
            if map.append(code, out) && out.len() > len {
                return true;
            }
        }
        if let Kind::Simple { unicode, .. } = &self.kind {
            if let Some(c) = unicode.get(code as usize).and_then(|&u| char::from_u32(u)) {
                if c != '\0' {
                    out.push(c);
                }
            }
        }
        false
    }

    /// A simple font without a program: pdfium draws it with a
    /// substitute of its own.
    pub fn substituted(&self) -> bool {
        self.substituted
    }

    /// Ascent and descent in text space units for a font size of 1 (e.g.
    /// 0.7 and -0.2).
    pub fn ascent(&self) -> f64 {
        self.ascent
    }

    pub fn descent(&self) -> f64 {
        self.descent
    }

    /// `/BaseFont` as written (with a subset prefix, if any); a Type 0
    /// font's is its descendant's, as pdfium reports it.
    pub fn name(&self) -> &[u8] {
        &self.name
    }

    /// The font descriptor's `/Flags` (0 without one), with pdfium's
    /// additions: italic for a negative `/ItalicAngle`, fixed pitch for a
    /// non-embedded font whose widths are all the same, and its
    /// "external attributes" bit (0x80000).
    pub fn flags(&self) -> i32 {
        self.flags
    }

    /// Weight as pdfium reports it (`CPDF_Font::GetFontWeight`): from the
    /// descriptor's `/StemV` (`StemV * 5` under 140, else
    /// `StemV * 4 + 140`), so 0 without one; `/FontWeight` is not read.
    pub fn weight(&self) -> i32 {
        let v = self.stem_v as i64;
        let w = if v < 140 { v * 5 } else { v * 4 + 140 };
        w.clamp(i32::MIN as i64, i32::MAX as i64) as i32
    }
}

/// Fonts of a document, each loaded once.
#[derive(Default)]
pub struct Fonts {
    by_ref: RefCell<HashMap<ObjRef, Rc<Font>>>,
    failed: RefCell<HashMap<ObjRef, Unsupported>>,
    /// Fonts given as direct dictionaries, by the dictionary's address:
    /// the file keeps the objects it read, so each `Tf` on the same
    /// resources meets the same `Rc`, which is held here so that the
    /// address cannot be reused. Issue 38: loaded again on every `Tf`, a
    /// 166 KB PDF ran past `PDF_TIMEOUT`.
    direct: RefCell<HashMap<*const Dict, DirectFont>>,
}

/// A direct font dictionary and what loading it gave.
type DirectFont = (Rc<Dict>, Result<Rc<Font>, Unsupported>);

/// Direct font dictionaries also compared by content when met at a new
/// address (a dictionary read twice); beyond this many, by address only.
const DIRECT_COMPARED: usize = 64;

impl Fonts {
    /// The font a `/Font` resource entry names (a reference, or a direct
    /// dictionary).
    pub fn get(&self, file: &File, entry: &Object) -> Result<Rc<Font>, Unsupported> {
        let Object::Ref(r) = entry else {
            let Object::Dict(dict) = entry else {
                let dict = entry.dict_or("a font")?;
                return Font::load(file, dict).map(Rc::new);
            };
            return self.direct(file, dict);
        };
        if let Some(font) = self.by_ref.borrow().get(r) {
            return Ok(font.clone());
        }
        if let Some(why) = self.failed.borrow().get(r) {
            return Err(why.clone());
        }
        let loaded = file
            .get(*r)
            .and_then(|o| Font::load(file, o.dict_or("a font")?));
        match loaded {
            Ok(font) => {
                let font = Rc::new(font);
                self.by_ref.borrow_mut().insert(*r, font.clone());
                Ok(font)
            }
            Err(why) => {
                self.failed.borrow_mut().insert(*r, why.clone());
                Err(why)
            }
        }
    }
}

impl Fonts {
    /// The font of a direct dictionary, loaded once per dictionary.
    fn direct(&self, file: &File, dict: &Rc<Dict>) -> Result<Rc<Font>, Unsupported> {
        let key = Rc::as_ptr(dict);
        let mut direct = self.direct.borrow_mut();
        if let Some((_, loaded)) = direct.get(&key) {
            return loaded.clone();
        }
        if direct.len() <= DIRECT_COMPARED
            && let Some((_, loaded)) = direct.values().find(|(d, _)| **d == **dict)
        {
            let loaded = loaded.clone();
            direct.insert(key, (dict.clone(), loaded.clone()));
            return loaded;
        }
        drop(direct);
        let loaded = Font::load(file, dict).map(Rc::new);
        self.direct
            .borrow_mut()
            .insert(key, (dict.clone(), loaded.clone()));
        loaded
    }
}

fn load(src: &dyn Source, dict: &Dict) -> Result<Font, Unsupported> {
    let subtype = dict.name(b"Subtype").unwrap_or(b"");
    match subtype {
        b"Type3" => Err(Unsupported::new("a Type 3 font")),
        b"Type0" => load_cid(src, dict),
        b"TrueType" if is_chinese_truetype(src, dict)? => {
            Err(Unsupported::new("a Chinese TrueType font read as CID font"))
        }
        _ => load_simple(src, dict, subtype == b"TrueType"),
    }
}

/// pdfium reads a TrueType font named in GBK `宋体`, `楷体`... without a
/// FontFile2 as a CID font.
fn is_chinese_truetype(src: &dyn Source, dict: &Dict) -> Result<bool, Unsupported> {
    const NAMES: [&[u8]; 5] = [
        b"\xCB\xCE\xCC\xE5",
        b"\xBF\xAC\xCC\xE5",
        b"\xBA\xDA\xCC\xE5",
        b"\xB7\xC2\xCB\xCE",
        b"\xD0\xC2\xCB\xCE",
    ];
    let name = dict.name(b"BaseFont").unwrap_or(b"");
    if !NAMES.iter().any(|n| name.starts_with(n)) {
        return Ok(false);
    }
    let desc = src.dict_in(dict, b"FontDescriptor")?;
    Ok(desc.is_none_or(|d| d.get(b"FontFile2").is_none()))
}

/// The font descriptor's numbers as pdfium keeps them.
#[derive(Debug, Default)]
struct Descriptor {
    flags: i32,
    stem_v: i32,
    ascent: i32,
    descent: i32,
    bbox: [i32; 4],
    missing_width: Option<i32>,
}

fn read_descriptor(src: &dyn Source, desc: &Dict) -> Result<Descriptor, Unsupported> {
    let mut d = Descriptor {
        flags: src.int_in(desc, b"Flags")?.unwrap_or(NONSYMBOLIC),
        stem_v: src.int_in(desc, b"StemV")?.unwrap_or(0),
        ascent: src.int_in(desc, b"Ascent")?.unwrap_or(0),
        descent: src.int_in(desc, b"Descent")?.unwrap_or(0),
        missing_width: src.int_in(desc, b"MissingWidth")?,
        ..Descriptor::default()
    };
    if src.int_in(desc, b"ItalicAngle")?.unwrap_or(0) < 0 {
        d.flags |= ITALIC;
    }
    let all = [
        b"ItalicAngle" as &[u8],
        b"Ascent",
        b"Descent",
        b"CapHeight",
        b"StemV",
    ];
    if all.iter().all(|k| desc.get(k).is_some()) {
        d.flags |= USE_EXTERNAL_ATTRIBUTES;
    }
    if d.descent > 10 {
        d.descent = -d.descent;
    }
    if let Some(Object::Array(a)) = src.get_in(desc, b"FontBBox")? {
        for (i, v) in a.iter().take(4).enumerate() {
            d.bbox[i] = pdfium_int(&src.resolve(v)?).unwrap_or(0);
        }
    }
    Ok(d)
}

/// A standard font without a descriptor: pdfium takes ascent and descent
/// from the font it substitutes (its built-in fonts' ascender and
/// descender, through FreeType). The text fonts' values are pdfium's own,
/// measured from its character boxes on a page of each font at 1000 pt;
/// for Symbol and ZapfDingbats the box of Adobe's metrics stands in.
/// Symbolic fonts are flagged so.
fn standard_descriptor(name: &str) -> Descriptor {
    let (bottom, top) = match name {
        "Helvetica" => (-224, 945),
        "Helvetica-Oblique" => (-224, 951),
        "Helvetica-Bold" | "Helvetica-BoldOblique" => (-227, 962),
        "Times-Roman" => (-249, 878),
        "Times-Bold" => (-249, 889),
        "Times-Italic" => (-249, 868),
        "Times-BoldItalic" => (-249, 869),
        "Courier" | "Courier-Oblique" => (-248, 803),
        "Courier-Bold" | "Courier-BoldOblique" => (-248, 811),
        "Symbol" => (-293, 1010),
        _ => (-143, 820),
    };
    let symbolic = matches!(name, "Symbol" | "ZapfDingbats");
    Descriptor {
        flags: if symbolic { SYMBOLIC } else { NONSYMBOLIC },
        ascent: top,
        descent: bottom,
        bbox: [0, bottom, 1000, top],
        ..Descriptor::default()
    }
}

/// pdfium's `CheckFontMetrics`: a zero font box is measured from the
/// program, zero ascent and descent from the glyphs `A` and `g`, for which
/// the font box stands in here. Not for a simple TrueType font
/// (`truetype`): there the box made lines up to a third of an em taller
/// than pdfium's (LibreOffice writes zeros), so it is left to pdfium.
fn metrics(d: &Descriptor, truetype: bool) -> Result<(f64, f64), Unsupported> {
    if d.bbox == [0; 4] {
        return Err(Unsupported::new(
            "no font box: metrics from the font program",
        ));
    }
    let (a, de) = if d.ascent == 0 && d.descent == 0 {
        if truetype {
            return Err(Unsupported::new(
                "a TrueType font without ascent or descent: pdfium measures its glyphs",
            ));
        }
        (d.bbox[3], d.bbox[1])
    } else {
        (d.ascent, d.descent)
    };
    Ok((a as f64 / 1000.0, de as f64 / 1000.0))
}

/// The embedded font program, by kind.
enum Program {
    None,
    Type1(Rc<Stream>),
    TrueType(Rc<Stream>),
    Cff,
}

fn program(src: &dyn Source, desc: Option<&Dict>) -> Result<Program, Unsupported> {
    let Some(desc) = desc else {
        return Ok(Program::None);
    };
    if let Some(Object::Stream(s)) = src.get_in(desc, b"FontFile")? {
        return Ok(Program::Type1(s));
    }
    if let Some(Object::Stream(s)) = src.get_in(desc, b"FontFile2")? {
        return Ok(Program::TrueType(s));
    }
    if let Some(Object::Stream(s)) = src.get_in(desc, b"FontFile3")? {
        if s.dict.name(b"Subtype") == Some(b"OpenType") {
            return Err(Unsupported::new("an OpenType font program"));
        }
        return Ok(Program::Cff);
    }
    Ok(Program::None)
}

/// The standard 14 font a name stands for (pdfium's
/// `CFX_FontMapper::GetStandardFontName`, common aliases).
fn standard_font(name: &[u8]) -> Option<&'static str> {
    let lower = String::from_utf8_lossy(name).to_ascii_lowercase();
    let plain: String = lower
        .chars()
        .filter(|c| !matches!(c, ' ' | '-' | ','))
        .collect();
    let plain = plain.strip_suffix("mt").unwrap_or(&plain);
    let styled = |base: &'static [&'static str; 4]| -> &'static str {
        let bold = plain.contains("bold");
        let italic = plain.contains("italic") || plain.contains("oblique");
        base[bold as usize + 2 * italic as usize]
    };
    const HELVETICA: [&str; 4] = [
        "Helvetica",
        "Helvetica-Bold",
        "Helvetica-Oblique",
        "Helvetica-BoldOblique",
    ];
    const TIMES: [&str; 4] = [
        "Times-Roman",
        "Times-Bold",
        "Times-Italic",
        "Times-BoldItalic",
    ];
    const COURIER: [&str; 4] = [
        "Courier",
        "Courier-Bold",
        "Courier-Oblique",
        "Courier-BoldOblique",
    ];
    let family = plain
        .trim_end_matches("bolditalic")
        .trim_end_matches("boldoblique")
        .trim_end_matches("italic")
        .trim_end_matches("oblique")
        .trim_end_matches("bold")
        .trim_end_matches("roman")
        .trim_end_matches("regular")
        .trim_end_matches("ps");
    match family {
        "helvetica" | "arial" => Some(styled(&HELVETICA)),
        "times" | "timesnew" | "timesnewroman" => Some(styled(&TIMES)),
        "courier" | "couriernew" => Some(styled(&COURIER)),
        "symbol" => Some("Symbol"),
        "zapfdingbats" | "dingbats" => Some("ZapfDingbats"),
        _ => None,
    }
}

/// A simple font's descriptor: its own, or a standard font's made up as
/// pdfium makes it up.
fn simple_descriptor(
    src: &dyn Source,
    desc_dict: Option<&Dict>,
    standard: Option<&str>,
) -> Result<Descriptor, Unsupported> {
    match (desc_dict, standard) {
        (Some(d), _) => read_descriptor(src, d),
        (None, Some(name)) => Ok(standard_descriptor(name)),
        (None, None) => Err(Unsupported::new(
            "no font descriptor: metrics from the font program",
        )),
    }
}

fn load_simple(src: &dyn Source, dict: &Dict, truetype: bool) -> Result<Font, Unsupported> {
    let written = dict.name(b"BaseFont").unwrap_or(b"").to_vec();
    let desc_dict = src.dict_in(dict, b"FontDescriptor")?;
    let program = program(src, desc_dict.as_ref())?;
    let embedded = !matches!(program, Program::None);
    let standard = if truetype {
        None
    } else {
        standard_font(&written)
    };

    let desc = simple_descriptor(src, desc_dict.as_ref(), standard)?;
    let (ascent, descent) = metrics(&desc, truetype)?;
    let mut flags = desc.flags;

    let given = read_widths(src, dict, desc.missing_width)?;
    if let Some(w) = &given {
        if !embedded && flags & FIXED_PITCH == 0 {
            flags |= fixed_pitch(w);
        }
    }
    // The name pdfium compares with "Symbol": the standard name, or the
    // name without its subset prefix.
    let plain: &[u8] = match standard {
        Some(s) => s.as_bytes(),
        None if embedded && written.len() > 7 && written[6] == b'+' => &written[7..],
        None => &written,
    };
    let to_unicode = read_to_unicode(src, dict)?;
    let encoding = Encoding::read(src, dict)?;
    let ctx = SimpleContext {
        flags,
        embedded,
        standard,
        plain,
        has_to_unicode: to_unicode.is_some(),
    };
    let unicode = if truetype {
        truetype_unicode(src, &ctx, &encoding, &program)?
    } else {
        type1_unicode(src, &ctx, &encoding, &program)?
    };
    let mut widths = match (given, standard) {
        (Some(w), _) => w,
        (None, Some(s)) if s.starts_with("Courier") => [Some(600); 256],
        (None, Some(s)) if !embedded => substituted_widths(s, &ctx, &encoding, &program)?,
        (None, _) => {
            return Err(Unsupported::new("no /Widths: widths from the font program"));
        }
    };
    if flags & ALL_CAP != 0 {
        let glyphless = if !embedded {
            // A substituted font: every lower-case code is drawn so.
            [true; 256]
        } else if truetype {
            return Err(Unsupported::new("an embedded all-caps TrueType font"));
        } else {
            type1_glyphless(&ctx, &encoding, &program)?
        };
        all_caps_widths(&mut widths, &glyphless);
    }
    let widths = Box::new(widths.map(|w| w.unwrap_or(0)));
    Ok(Font {
        name: written,
        flags,
        stem_v: desc.stem_v,
        ascent,
        descent,
        to_unicode,
        substituted: !embedded,
        kind: Kind::Simple { widths, unicode },
    })
}

/// What a simple font's encoding depends on.
struct SimpleContext<'a> {
    flags: i32,
    embedded: bool,
    standard: Option<&'static str>,
    plain: &'a [u8],
    has_to_unicode: bool,
}

/// `/Widths` from `/FirstChar` (pdfium's `LoadCharWidths`), `None` per
/// code it does not give (and `/MissingWidth` does not fill); `None`
/// without `/Widths`.
fn read_widths(
    src: &dyn Source,
    dict: &Dict,
    missing: Option<i32>,
) -> Result<Option<[Option<i32>; 256]>, Unsupported> {
    let Some(Object::Array(array)) = src.get_in(dict, b"Widths")? else {
        return Ok(None);
    };
    let mut widths = [missing; 256];
    let first = src.int_in(dict, b"FirstChar")?.unwrap_or(0);
    let last = src.int_in(dict, b"LastChar")?.unwrap_or(0);
    if !(0..=255).contains(&first) {
        return Ok(Some(widths));
    }
    let (first, n) = (first as i64, array.len() as i64);
    let mut last = last as i64;
    if last == 0 || last >= first + n {
        last = first + n - 1;
    }
    for code in first..=last.min(255) {
        let w = match array.get((code - first) as usize) {
            Some(o) => pdfium_int(&src.resolve(o)?).unwrap_or(0),
            None => 0,
        };
        widths[code as usize] = Some(w);
    }
    Ok(Some(widths))
}

/// pdfium's `LoadSubstFont`: a non-embedded font whose given widths are
/// all equal is fixed pitch.
fn fixed_pitch(widths: &[Option<i32>; 256]) -> i32 {
    let mut seen = None;
    for w in widths.iter().flatten().filter(|&&w| w != 0) {
        match seen {
            None => seen = Some(*w),
            Some(s) if s != *w => return 0,
            _ => {}
        }
    }
    if seen.is_some() { FIXED_PITCH } else { 0 }
}

/// The codes pdfium's all-caps rule takes for lower-case letters (each
/// 32 above its capital).
const LOWER_CASE: [std::ops::RangeInclusive<u8>; 3] = [b'a'..=b'z', 0xE0..=0xF6, 0xF8..=0xFD];

fn is_lower_case(code: usize) -> bool {
    code < 256 && LOWER_CASE.iter().any(|r| r.contains(&(code as u8)))
}

/// An all-caps font draws lower-case codes with the capitals (and their
/// widths, when known): pdfium's `LoadCommon` does so for every code of a
/// substituted font, and for the codes of an embedded one that have no
/// glyph (`glyphless`, see [`type1_glyphless`]).
fn all_caps_widths(widths: &mut [Option<i32>; 256], glyphless: &[bool; 256]) {
    for range in LOWER_CASE {
        for i in range {
            if !glyphless[i as usize] {
                continue;
            }
            let upper = widths[i as usize - 32];
            if upper != Some(0) {
                widths[i as usize] = upper;
            }
        }
    }
}

fn read_to_unicode(src: &dyn Source, dict: &Dict) -> Result<Option<ToUnicode>, Unsupported> {
    match src.get_in(dict, b"ToUnicode")? {
        Some(Object::Stream(s)) => Ok(Some(ToUnicode::parse(&src.decode(&s)?)?)),
        _ => Ok(None),
    }
}

/// A simple font's `/Encoding`.
struct Encoding {
    /// `/Encoding` itself is there.
    present: bool,
    /// A name (`/Encoding /WinAnsiEncoding`), not a dictionary.
    name: Option<Vec<u8>>,
    /// `/BaseEncoding` of a dictionary.
    base_name: Option<Vec<u8>>,
    /// `/Differences` names by code, when there are differences.
    differences: Option<Vec<Option<Vec<u8>>>>,
}

impl Encoding {
    fn read(src: &dyn Source, dict: &Dict) -> Result<Encoding, Unsupported> {
        let mut enc = Encoding {
            present: false,
            name: None,
            base_name: None,
            differences: None,
        };
        match src.get_in(dict, b"Encoding")? {
            None => {}
            Some(Object::Name(n)) => {
                enc.present = true;
                enc.name = Some(n.to_vec());
            }
            Some(o) => {
                enc.present = true;
                if let Some(d) = o.as_dict() {
                    enc.base_name = d.name(b"BaseEncoding").map(<[u8]>::to_vec);
                    if let Some(Object::Array(a)) = src.get_in(d, b"Differences")? {
                        enc.differences = Some(differences(src, &a)?);
                    }
                }
            }
        }
        Ok(enc)
    }

    /// Whether `/Encoding` is a dictionary (pdfium's other branch).
    fn is_dict(&self) -> bool {
        self.present && self.name.is_none()
    }

    fn difference(&self, code: usize) -> Option<&[u8]> {
        self.differences.as_ref()?.get(code)?.as_deref()
    }
}

fn differences(src: &dyn Source, array: &[Object]) -> Result<Vec<Option<Vec<u8>>>, Unsupported> {
    let mut names = vec![None; 256];
    let mut code: i64 = 0;
    for item in array {
        match src.resolve(item)? {
            Object::Name(n) => {
                if (0..256).contains(&code) {
                    names[code as usize] = Some(n.to_vec());
                }
                code += 1;
            }
            other => code = pdfium_int(&other).unwrap_or(0) as i64,
        }
    }
    Ok(names)
}

/// pdfium's `LoadPDFEncoding`: the base encoding (`None`: the font's
/// built-in one). `truetype`: the font program is TrueType (`None`: not
/// known, for a font pdfium substitutes).
fn base_encoding(
    ctx: &SimpleContext,
    start: Option<BaseEncoding>,
    enc: &Encoding,
    truetype: Option<bool>,
) -> Result<Option<BaseEncoding>, Unsupported> {
    let unknown_tt = || Unsupported::new("depends on the substituted font's kind");
    let mut base = start;
    if ctx.flags & SYMBOLIC == 0 {
        base = Some(BaseEncoding::Standard);
    }
    if !enc.present {
        if ctx.plain == b"Symbol" {
            return match truetype {
                Some(false) => Ok(Some(BaseEncoding::Symbol)),
                Some(true) => Err(Unsupported::new("a TrueType Symbol font")),
                None => Err(unknown_tt()),
            };
        }
        if !ctx.embedded && base.is_none() {
            base = Some(BaseEncoding::WinAnsi);
        }
        return Ok(base);
    }
    let special = matches!(
        base,
        Some(BaseEncoding::Symbol | BaseEncoding::ZapfDingbats)
    );
    if let Some(name) = &enc.name {
        if special {
            return Ok(base);
        }
        if ctx.flags & SYMBOLIC != 0 && ctx.plain == b"Symbol" {
            return match truetype {
                Some(false) => Ok(Some(BaseEncoding::Symbol)),
                Some(true) => Ok(base),
                None => Err(unknown_tt()),
            };
        }
        let name: &[u8] = if name == b"MacExpertEncoding" {
            b"WinAnsiEncoding"
        } else {
            name
        };
        return Ok(BaseEncoding::from_pdf_name(name).or(base));
    }
    if !enc.is_dict() {
        return Ok(base);
    }
    if !special {
        if let Some(name) = &enc.base_name {
            let mut name: &[u8] = name;
            if name == b"MacExpertEncoding" {
                match truetype {
                    Some(true) => name = b"WinAnsiEncoding",
                    Some(false) => {}
                    None => return Err(unknown_tt()),
                }
            }
            base = BaseEncoding::from_pdf_name(name).or(base);
        }
    }
    if (!ctx.embedded || truetype == Some(true)) && base.is_none() {
        base = Some(BaseEncoding::Standard);
    }
    Ok(base)
}

/// The glyph name of `code`: the difference, else the base encoding's.
fn glyph_name(enc: &Encoding, base: Option<BaseEncoding>, code: usize) -> Option<&[u8]> {
    enc.difference(code)
        .or_else(|| base.and_then(|b| b.name(code as u8)).map(str::as_bytes))
}

/// The widths of a standard font without `/Widths` that pdfium
/// substitutes (not embedded, not symbolic): its substitute's advance
/// widths, by the glyph name the encoding gives each code
/// ([`super::standard_widths`]). A code without a name, or named
/// `.notdef`, has no glyph in pdfium's map (`CPDF_Type1Font::LoadGlyphMap`)
/// and takes the width of code 32 (`CPDF_SimpleFont::LoadCharMetrics`).
/// A name outside the standard metrics would be looked up in the
/// substitute by its Unicode: left to pdfium.
fn substituted_widths(
    standard: &str,
    ctx: &SimpleContext,
    enc: &Encoding,
    program: &Program,
) -> Result<[Option<i32>; 256], Unsupported> {
    let unknown = || Unsupported::new("no /Widths: widths from the font program");
    if ctx.flags & SYMBOLIC != 0 {
        return Err(unknown());
    }
    let base = type1_base(ctx, enc, program)?;
    let width = |name: &[u8]| super::standard_widths::width(standard, name);
    let mut widths = [None; 256];
    for (code, w) in widths.iter_mut().enumerate() {
        match glyph_name(enc, base, code) {
            None | Some(b".notdef") => {}
            Some(n) => *w = Some(width(n).ok_or_else(unknown)?),
        }
    }
    // Code 32's own width is the one of codes without a glyph; without a
    // glyph itself, its width is not followed here.
    let space = match glyph_name(enc, base, 32) {
        None | Some(b".notdef") => return Err(unknown()),
        Some(n) => width(n).ok_or_else(unknown)?,
    };
    for w in widths.iter_mut().filter(|w| w.is_none()) {
        *w = Some(space);
    }
    Ok(widths)
}

/// The codes an embedded Type 1 or CFF font has no glyph for, as pdfium's
/// `CPDF_Type1Font::LoadGlyphMap` leaves them (glyph index 0xFFFF): in a
/// non-symbolic font, the codes the encoding does not name or names
/// `.notdef` (a name it does not find in the program gives glyph 0, or the
/// glyph of its Unicode, not 0xFFFF); in a symbolic font none (a code
/// without a name takes the program's glyph for the code). A code named
/// `space` has no glyph only when the program lacks one, which is not read
/// here.
fn type1_glyphless(
    ctx: &SimpleContext,
    enc: &Encoding,
    program: &Program,
) -> Result<[bool; 256], Unsupported> {
    let mut glyphless = [false; 256];
    if ctx.flags & SYMBOLIC != 0 {
        return Ok(glyphless);
    }
    let base = type1_base(ctx, enc, program)?;
    for (code, g) in glyphless.iter_mut().enumerate() {
        match glyph_name(enc, base, code) {
            None | Some(b".notdef") => *g = true,
            Some(b"space") if is_lower_case(code) => {
                return Err(Unsupported::new(
                    "an all-caps font naming a letter's code space",
                ));
            }
            Some(_) => {}
        }
    }
    Ok(glyphless)
}

/// The base encoding of a Type 1 (or CFF, or substituted) font.
fn type1_base(
    ctx: &SimpleContext,
    enc: &Encoding,
    program: &Program,
) -> Result<Option<BaseEncoding>, Unsupported> {
    let start = match ctx.standard {
        Some("Symbol") => Some(BaseEncoding::Symbol),
        Some("ZapfDingbats") => Some(BaseEncoding::ZapfDingbats),
        _ if ctx.flags & NONSYMBOLIC != 0 && ctx.standard.is_some() => Some(BaseEncoding::Standard),
        _ => None,
    };
    // A standard font pdfium substitutes is not TrueType; other
    // substitutes may be.
    let truetype = match program {
        Program::None if ctx.standard.is_some() => Some(false),
        Program::None => None,
        Program::TrueType(_) => Some(true),
        _ => Some(false),
    };
    base_encoding(ctx, start, enc, truetype)
}

fn type1_unicode(
    src: &dyn Source,
    ctx: &SimpleContext,
    enc: &Encoding,
    program: &Program,
) -> Result<Box<[u32; 256]>, Unsupported> {
    let base = type1_base(ctx, enc, program)?;
    let mut unicode = Box::new([0u32; 256]);
    if ctx.flags & SYMBOLIC == 0 {
        for (code, u) in unicode.iter_mut().enumerate() {
            if let Some(name) = glyph_name(enc, base, code) {
                // A `.notdef` the program has no glyph for shows as a space.
                *u = if name == b".notdef" {
                    0x20
                } else {
                    glyphs::unicode_of(name).unwrap_or(0)
                };
            }
        }
        return Ok(unicode);
    }
    let mut gaps = false;
    for (code, u) in unicode.iter_mut().enumerate() {
        match glyph_name(enc, base, code) {
            Some(name) => *u = glyphs::unicode_of(name).unwrap_or(0),
            None => gaps = true,
        }
    }
    if !gaps {
        return Ok(unicode);
    }
    // Codes without a name: the program's own encoding.
    match program {
        Program::Type1(stream) => {
            let builtin = builtin_encoding(&src.decode(stream)?, &stream.dict, src)?;
            for (code, u) in unicode.iter_mut().enumerate() {
                if glyph_name(enc, base, code).is_none() {
                    if let Some(name) = builtin[code].as_deref().filter(|&n| n != b".notdef") {
                        *u = glyphs::unicode_of(name).unwrap_or(0);
                    }
                }
            }
            Ok(unicode)
        }
        Program::Cff if enc.differences.is_some() || ctx.has_to_unicode => Ok(unicode),
        Program::Cff | Program::TrueType(_) => Err(Unsupported::new(
            "a symbolic font: text from the program's encoding",
        )),
        Program::None => Err(Unsupported::new(
            "a symbolic substituted font: text from the substitute's encoding",
        )),
    }
}

/// A Type 1 program's built-in encoding, from its clear-text part:
/// `/Encoding StandardEncoding def`, or `dup <code> /<name> put` lines.
fn builtin_encoding(
    data: &[u8],
    dict: &Dict,
    src: &dyn Source,
) -> Result<Vec<Option<Vec<u8>>>, Unsupported> {
    let clear_len = src
        .int_in(dict, b"Length1")?
        .filter(|&n| n > 0)
        .map_or(data.len(), |n| (n as usize).min(data.len()));
    let clear = &data[..clear_len];
    let clear = match find(clear, b"eexec") {
        Some(i) => &clear[..i],
        None => clear,
    };
    let Some(at) = find(clear, b"/Encoding") else {
        return Err(Unsupported::new("a Type 1 program without an encoding"));
    };
    let rest = &clear[at + b"/Encoding".len()..];
    let mut names = vec![None; 256];
    let first_word = rest
        .split(|c| c.is_ascii_whitespace())
        .find(|w| !w.is_empty());
    if first_word == Some(b"StandardEncoding") {
        for (code, n) in names.iter_mut().enumerate() {
            *n = BaseEncoding::Standard
                .name(code as u8)
                .map(|s| s.as_bytes().to_vec());
        }
        return Ok(names);
    }
    let words: Vec<&[u8]> = rest
        .split(|c| c.is_ascii_whitespace())
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    while i < words.len() {
        if words[i] == b"def" || words[i] == b"readonly" {
            break;
        }
        if words[i] == b"dup" && i + 3 < words.len() && words[i + 3] == b"put" {
            let code = std::str::from_utf8(words[i + 1])
                .ok()
                .and_then(|s| s.parse::<usize>().ok());
            if let (Some(code), Some(name)) = (code, words[i + 2].strip_prefix(b"/")) {
                if code < 256 {
                    names[code] = Some(name.to_vec());
                }
            }
            i += 4;
            continue;
        }
        i += 1;
    }
    Ok(names)
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

fn truetype_unicode(
    src: &dyn Source,
    ctx: &SimpleContext,
    enc: &Encoding,
    program: &Program,
) -> Result<Box<[u32; 256]>, Unsupported> {
    let stream = match program {
        Program::TrueType(s) => Some(s),
        Program::None => None,
        _ => {
            return Err(Unsupported::new(
                "a TrueType font with a non-TrueType program",
            ));
        }
    };
    let truetype = if stream.is_some() { Some(true) } else { None };
    let mut base = base_encoding(ctx, None, enc, truetype)?;
    let symbolic = ctx.flags & SYMBOLIC != 0;
    let win_or_mac =
        |b: Option<BaseEncoding>| matches!(b, Some(BaseEncoding::WinAnsi | BaseEncoding::MacRoman));
    let mut cmaps = None;
    // pdfium's `DetermineEncoding`: the base encoding must have a cmap.
    if let Some(s) = stream {
        if symbolic && win_or_mac(base) {
            let ids = cmap_ids(&src.decode(s)?)?;
            let win = ids.iter().any(|&(p, _)| p == 0 || p == 3);
            let mac = ids.iter().any(|&(p, _)| p == 1);
            base = match base {
                Some(BaseEncoding::WinAnsi) if !win => mac.then_some(BaseEncoding::MacRoman),
                Some(BaseEncoding::MacRoman) if !mac => win.then_some(BaseEncoding::WinAnsi),
                b => b,
            };
            cmaps = Some(ids);
        }
    }
    let mut unicode = Box::new([0u32; 256]);
    let by_names = |unicode: &mut [u32; 256]| {
        for (code, u) in unicode.iter_mut().enumerate() {
            if let Some(name) = glyph_name(enc, base, code) {
                *u = glyphs::unicode_of(name).unwrap_or(0);
            }
        }
    };
    if (win_or_mac(base) && enc.differences.is_none()) || ctx.flags & NONSYMBOLIC != 0 {
        by_names(&mut unicode);
        return Ok(unicode);
    }
    let Some(s) = stream else {
        return Err(Unsupported::new("a symbolic substituted TrueType font"));
    };
    let ids = match cmaps {
        Some(ids) => ids,
        None => cmap_ids(&src.decode(s)?)?,
    };
    let has = |p: u16, e: u16| ids.contains(&(p, e));
    if has(3, 0) {
        if base.is_some() {
            by_names(&mut unicode);
            return Ok(unicode);
        }
        if has(1, 0) {
            return mac_roman_symbolic(ctx, unicode);
        }
        return Ok(unicode);
    }
    if has(1, 0) {
        return mac_roman_symbolic(ctx, unicode);
    }
    if has(3, 1) || has(3, 10) || ids.iter().any(|&(p, _)| p == 0) {
        for (code, u) in unicode.iter_mut().enumerate() {
            *u = code as u32;
        }
    }
    Ok(unicode)
}

/// A symbolic TrueType font whose codes pdfium reads through the
/// program's Mac Roman cmap: the names it gets there are in the program.
/// With a `/ToUnicode` (LibreOffice's and Word's subsets have one for
/// every code they show) the text comes from it, as in pdfium, and a code
/// it leaves out gives no text; without one the font is left to pdfium.
fn mac_roman_symbolic(
    ctx: &SimpleContext,
    unicode: Box<[u32; 256]>,
) -> Result<Box<[u32; 256]>, Unsupported> {
    if ctx.has_to_unicode {
        Ok(unicode)
    } else {
        Err(Unsupported::new(
            "a symbolic TrueType font read as Mac Roman",
        ))
    }
}

/// The `(platform, encoding)` of a TrueType program's cmap subtables.
fn cmap_ids(font: &[u8]) -> Result<Vec<(u16, u16)>, Unsupported> {
    let bad = || Unsupported::new("a damaged TrueType program");
    let u16_at = |i: usize| -> Result<u16, Unsupported> {
        font.get(i..i + 2)
            .map(|b| u16::from_be_bytes([b[0], b[1]]))
            .ok_or_else(bad)
    };
    let u32_at = |i: usize| -> Result<u32, Unsupported> {
        font.get(i..i + 4)
            .map(|b| u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
            .ok_or_else(bad)
    };
    if font.starts_with(b"ttcf") {
        return Err(Unsupported::new("a TrueType collection"));
    }
    let tables = u16_at(4)? as usize;
    let mut cmap = None;
    for t in 0..tables {
        let rec = 12 + 16 * t;
        if font.get(rec..rec + 4) == Some(b"cmap") {
            cmap = Some(u32_at(rec + 8)? as usize);
        }
    }
    let Some(at) = cmap else {
        return Err(Unsupported::new("a TrueType program without a cmap"));
    };
    let n = u16_at(at + 2)? as usize;
    (0..n)
        .map(|i| Ok((u16_at(at + 4 + 8 * i)?, u16_at(at + 6 + 8 * i)?)))
        .collect()
}

fn load_cid(src: &dyn Source, dict: &Dict) -> Result<Font, Unsupported> {
    let descendants = src.get_in(dict, b"DescendantFonts")?;
    let descendant = match descendants.as_ref().and_then(Object::as_array) {
        Some([one]) => src.resolve(one)?,
        _ => return Err(Unsupported::new("not one descendant font")),
    };
    let cid_font = descendant.dict_or("a descendant font")?;
    let cmap = match src.get_in(dict, b"Encoding")? {
        Some(Object::Name(n)) if &*n == b"Identity-H" => CidCMap::identity_h(),
        Some(Object::Name(n)) => {
            return Err(Unsupported::new(format!(
                "CMap {}",
                String::from_utf8_lossy(&n)
            )));
        }
        Some(Object::Stream(s)) => CidCMap::parse(&src.decode(&s)?)?,
        _ => return Err(Unsupported::new("a Type 0 font without a CMap")),
    };
    if let Some(info) = src.dict_in(cid_font, b"CIDSystemInfo")? {
        let ordering = src.get_in(&info, b"Ordering")?;
        let ordering = ordering.as_ref().and_then(Object::as_string).unwrap_or(b"");
        if matches!(ordering, b"GB1" | b"CNS1" | b"Japan1" | b"Korea1" | b"UCS") {
            return Err(Unsupported::new("a CJK collection: pdfium's CID tables"));
        }
    }
    let Some(to_unicode) = read_to_unicode(src, dict)? else {
        return Err(Unsupported::new("a CID font without ToUnicode"));
    };
    let Some(desc_dict) = src.dict_in(cid_font, b"FontDescriptor")? else {
        return Err(Unsupported::new(
            "no font descriptor: metrics from the font program",
        ));
    };
    let desc = read_descriptor(src, &desc_dict)?;
    let (ascent, descent) = metrics(&desc, false)?;
    let widths = match src.get_in(cid_font, b"W")? {
        Some(Object::Array(a)) => cid_widths(src, &a)?,
        _ => Vec::new(),
    };
    Ok(Font {
        name: cid_font.name(b"BaseFont").unwrap_or(b"").to_vec(),
        flags: desc.flags,
        stem_v: desc.stem_v,
        ascent,
        descent,
        to_unicode: Some(to_unicode),
        substituted: false,
        kind: Kind::Cid {
            cmap,
            widths,
            default_width: src.int_in(cid_font, b"DW")?.unwrap_or(1000),
        },
    })
}

/// `/W` as pdfium's `LoadMetricsArray` reads it: `c [w1 w2 ...]` and
/// `cfirst clast w`; an array out of place ends the reading.
fn cid_widths(src: &dyn Source, array: &[Object]) -> Result<Vec<(u16, u16, i32)>, Unsupported> {
    let mut out = Vec::new();
    let (mut status, mut first, mut last) = (0, 0i32, 0i32);
    for item in array {
        match src.resolve(item)? {
            Object::Null => continue,
            Object::Array(ws) => {
                if status != 1 {
                    return Ok(out);
                }
                for (k, w) in ws.iter().enumerate() {
                    let cid = first.saturating_add(k as i32);
                    let w = pdfium_int(&src.resolve(w)?).unwrap_or(0);
                    out.push((cid as u16, cid as u16, w));
                }
                status = 0;
            }
            other => {
                let v = pdfium_int(&other).unwrap_or(0);
                match status {
                    0 => {
                        first = v;
                        status = 1;
                    }
                    1 => {
                        last = v;
                        status = 2;
                    }
                    _ => {
                        out.push((first as u16, last as u16, v));
                        status = 0;
                    }
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::inspect::quick::lexer::Lexer;

    /// Direct objects only; no streams.
    struct Direct;

    impl Source for Direct {
        fn resolve(&self, o: &Object) -> Result<Object, Unsupported> {
            Ok(o.clone())
        }
        fn decode(&self, _: &Stream) -> Result<Vec<u8>, Unsupported> {
            Err(Unsupported::new("no streams in tests"))
        }
    }

    fn dict(text: &str) -> Dict {
        let o = Lexer::new(text.as_bytes()).object().unwrap().unwrap();
        o.as_dict().unwrap().clone()
    }

    fn text(font: &Font, codes: &[u8]) -> String {
        let mut s = String::new();
        for &c in codes {
            font.unicode(c as u32, &mut s);
        }
        s
    }

    const DESC: &str = "/FontDescriptor << /Flags 32 /FontBBox [-100 -200 1000 900] \
        /Ascent 700 /Descent -250 /StemV 80 /ItalicAngle 0 /CapHeight 680 >>";

    #[test]
    fn nonsymbolic_type1_with_differences_over_standard() {
        let d = dict(&format!(
            "<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+Foo /FirstChar 32 /LastChar 35 \
             /Widths [250 300 400.7 500] /Encoding << /Differences [33 /fi /eacute] >> {DESC} >>"
        ));
        let f = load(&Direct, &d).unwrap();
        assert_eq!(text(&f, b" !\"'`#"), " \u{FB01}é\u{2019}\u{2018}#");
        assert_eq!(f.width(34), 0.4);
        assert_eq!(f.width(36), 0.0);
        assert_eq!(f.ascent(), 0.7);
        assert_eq!(f.descent(), -0.25);
        assert_eq!(f.weight(), 400);
        assert_eq!(f.flags(), 32 | USE_EXTERNAL_ATTRIBUTES);
        assert_eq!(f.name(), b"ABCDEF+Foo");
        assert_eq!(f.next_code(b"ab"), (b'a' as u32, 1));
    }

    #[test]
    fn truetype_win_ansi() {
        let d = dict(&format!(
            "<< /Subtype /TrueType /BaseFont /Arial /Encoding /WinAnsiEncoding \
             /FirstChar 128 /Widths [556] {DESC} >>"
        ));
        let f = load(&Direct, &d).unwrap();
        assert_eq!(text(&f, b"\x80\xe9'"), "€é'");
        assert_eq!(f.width(128), 0.556);
    }

    #[test]
    fn standard_font_without_widths() {
        // Not embedded, no /Widths: the substitute's (Adobe's) widths by
        // glyph name; a code without a glyph has the space's width.
        let d = dict(&format!(
            "<< /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [66 /.notdef 67 /eacute] >> {DESC} >>"
        ));
        let f = load(&Direct, &d).unwrap();
        assert_eq!(
            (f.width(65), f.width(66), f.width(67)),
            (0.667, 0.278, 0.556)
        );
        assert_eq!((f.width(32), f.width(0)), (0.278, 0.278));
        let d = dict("<< /Subtype /Type1 /BaseFont /Times-Bold /Encoding /WinAnsiEncoding >>");
        let f = load(&Direct, &d).unwrap();
        assert_eq!((f.width(b'I' as u32), f.width(0xE9)), (0.389, 0.444));
        // A glyph outside the standard metrics, a symbolic or an embedded
        // font: the program's widths, left to pdfium.
        for d in [
            format!(
                "<< /Subtype /Type1 /BaseFont /Helvetica /Encoding << /Differences [65 /uni0041] >> {DESC} >>"
            ),
            format!("<< /Subtype /Type1 /BaseFont /Symbol {DESC} >>"),
            format!("<< /Subtype /Type1 /BaseFont /Foo {DESC} >>"),
        ] {
            assert!(load(&Direct, &dict(&d)).is_err(), "{d}");
        }
        let d = dict(&format!(
            "<< /Subtype /Type1 /BaseFont /Helvetica {DESC} >>"
        ));
        assert!(load(&Direct, &embedded(d, b"FontFile")).is_err());
        let d = dict("<< /Subtype /Type1 /BaseFont /Helvetica /Widths [500] /FirstChar 65 >>");
        let f = load(&Direct, &d).unwrap();
        assert_eq!((f.ascent(), f.descent(), f.flags()), (0.945, -0.224, 33));
        assert_eq!(text(&f, b"A'"), "A\u{2019}");
        let d = dict(&format!(
            "<< /Subtype /Type1 /BaseFont /CourierNew,Bold {DESC} >>"
        ));
        let f = load(&Direct, &d).unwrap();
        assert_eq!(f.width(65), 0.6);
        assert_eq!(text(&f, b"A"), "A");
    }

    #[test]
    fn missing_width_and_zero_ascent() {
        let d = dict(
            "<< /Subtype /Type1 /BaseFont /Foo /FirstChar 65 /Widths [500] \
             /FontDescriptor << /Flags 34 /MissingWidth 250 /FontBBox [0 -210 900 880] >> >>",
        );
        let f = load(&Direct, &d).unwrap();
        assert_eq!(f.width(66), 0.25);
        assert_eq!((f.ascent(), f.descent()), (0.88, -0.21));
        assert_eq!(f.weight(), 0);
        assert_eq!(f.flags(), 34, "widths 500 and 250 differ");
    }

    /// `d` with an (empty) embedded program of kind `key` in its
    /// descriptor.
    fn embedded(mut d: Dict, key: &[u8]) -> Dict {
        let program = Object::Stream(Rc::new(Stream {
            dict: Dict::default(),
            data: 0..0,
        }));
        for (k, v) in d.entries.iter_mut() {
            if &**k == b"FontDescriptor" {
                let mut desc = v.as_dict().unwrap().clone();
                desc.entries.push((key.into(), program.clone()));
                *v = Object::Dict(Rc::new(desc));
            }
        }
        d
    }

    /// pdfium draws an all-caps font's lower-case codes with the capitals'
    /// widths only where the code has no glyph: in an embedded
    /// non-symbolic Type 1 or CFF font, a code its encoding does not name
    /// or names `.notdef`; in a substituted font, every one.
    #[test]
    fn all_caps_widths_follow_pdfiums_glyph_map() {
        let caps = |flags: i32, differences: &str| {
            dict(&format!(
                "<< /Subtype /Type1 /BaseFont /ABCDEF+Foo-Caps /FirstChar 65 /LastChar 98 \
                 /Widths [700 600 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 0 500 400] \
                 /Encoding << /Differences [{differences}] >> \
                 /FontDescriptor << /Flags {flags} /FontBBox [0 -200 1000 900] \
                 /Ascent 700 /Descent -200 /StemV 80 /ItalicAngle 0 /CapHeight 700 >> >>"
            ))
        };
        let all_caps = ALL_CAP | NONSYMBOLIC;
        // Embedded, `b` named `.notdef`: `a` keeps its width, `b` takes B's.
        let f = load(
            &Direct,
            &embedded(caps(all_caps, "98 /.notdef"), b"FontFile3"),
        )
        .unwrap();
        assert_eq!((f.width(97), f.width(98)), (0.5, 0.6));
        assert_eq!(text(&f, b"aA"), "aA");
        // Embedded, every code named: widths as given.
        let f = load(&Direct, &embedded(caps(all_caps, "98 /b"), b"FontFile")).unwrap();
        assert_eq!((f.width(97), f.width(98)), (0.5, 0.4));
        // Embedded symbolic: the program has a glyph for every code.
        let symbolic = ALL_CAP | SYMBOLIC;
        let f = load(
            &Direct,
            &embedded(caps(symbolic, "98 /.notdef"), b"FontFile3"),
        )
        .unwrap();
        assert_eq!((f.width(97), f.width(98)), (0.5, 0.4));
        // Substituted: the capitals' widths throughout.
        let f = load(&Direct, &caps(all_caps, "98 /b")).unwrap();
        assert_eq!((f.width(97), f.width(98)), (0.7, 0.6));
        // Whether the program has a `space` glyph, or what an embedded
        // TrueType font maps, is not read: left to pdfium.
        assert!(
            load(
                &Direct,
                &embedded(caps(all_caps, "97 /space"), b"FontFile3")
            )
            .is_err()
        );
        let tt = dict(&format!(
            "<< /Subtype /TrueType /BaseFont /Foo /FirstChar 97 /Widths [500] \
             /FontDescriptor << /Flags {all_caps} /FontBBox [0 -200 1000 900] \
             /Ascent 700 /Descent -200 >> >>"
        ));
        assert!(load(&Direct, &embedded(tt, b"FontFile2")).is_err());
    }

    /// Direct objects, and one stream: `/ToUnicode`'s data.
    struct OneStream(&'static [u8]);

    impl Source for OneStream {
        fn resolve(&self, o: &Object) -> Result<Object, Unsupported> {
            Ok(o.clone())
        }
        fn decode(&self, _: &Stream) -> Result<Vec<u8>, Unsupported> {
            Ok(self.0.to_vec())
        }
    }

    /// A symbolic CFF math font (LaTeX's, through Ghostscript): glyph
    /// names `u1D431` give their characters beyond the Basic Multilingual
    /// Plane, as pdfium gives them whole; a `/ToUnicode` target beyond it
    /// is told apart (pdfium holds it as two UTF-16 halves), and a code
    /// the map leaves out takes its glyph name's character.
    #[test]
    fn glyph_names_beyond_the_bmp() {
        let d = dict(
            "<< /Subtype /Type1 /BaseFont /PCFEHA+LibertinusT1Math /FirstChar 46 /LastChar 47 \
             /Widths [356 356] /Encoding << /BaseEncoding /WinAnsiEncoding \
             /Differences [46 /parenleft /parenright 116 /u1D461 120 /u1D431] >> \
             /FontDescriptor << /Flags 4 /FontBBox [0 -200 1000 900] \
             /Ascent 700 /Descent -200 /StemV 80 /ItalicAngle 0 /CapHeight 700 >> >>",
        );
        let f = load(&Direct, &embedded(d.clone(), b"FontFile3")).unwrap();
        assert_eq!(text(&f, b"x.t/"), "\u{1D431}(\u{1D461})");
        let mut s = String::new();
        assert!(!f.unicode(b't' as u32, &mut s));

        let mut with_map = d;
        let stream = Object::Stream(Rc::new(Stream {
            dict: Dict::default(),
            data: 0..0,
        }));
        with_map
            .entries
            .push((b"ToUnicode".as_slice().into(), stream));
        let map = b"1 begincodespacerange <00> <ff> endcodespacerange \
            2 beginbfchar <2e> <0028> <78> <D835DC31> endbfchar";
        let f = load(&OneStream(map), &embedded(with_map, b"FontFile3")).unwrap();
        let mut s = String::new();
        assert!(f.unicode(b'x' as u32, &mut s));
        assert!(f.unicode(b'.' as u32, &mut s));
        assert!(!f.unicode(b't' as u32, &mut s));
        assert_eq!(s, "\u{1D431}(\u{1D461}");
    }

    #[test]
    fn unsupported_fonts() {
        let type3 = dict("<< /Subtype /Type3 >>");
        assert!(load(&Direct, &type3).is_err());
        let no_desc = dict("<< /Subtype /TrueType /BaseFont /Foo /Widths [1] >>");
        assert!(load(&Direct, &no_desc).is_err());
        let vertical = dict("<< /Subtype /Type0 /Encoding /Identity-V /DescendantFonts [<< >>] >>");
        assert!(load(&Direct, &vertical).is_err());
    }

    #[test]
    fn builtin_type1_encoding() {
        let program = b"%!PS-AdobeFont-1.0: CMR10\n/Encoding 256 array\n0 1 255 {1 index exch /.notdef put} for\n\
            dup 11 /ff put\ndup 65 /A put\nreadonly def\ncurrentfile eexec\x80\x81";
        let names = builtin_encoding(program, &Dict::default(), &Direct).unwrap();
        assert_eq!(names[11].as_deref(), Some(&b"ff"[..]));
        assert_eq!(names[65].as_deref(), Some(&b"A"[..]));
        assert_eq!(names[66], None);
        let standard =
            builtin_encoding(b"/Encoding StandardEncoding def", &Dict::default(), &Direct).unwrap();
        assert_eq!(standard[39].as_deref(), Some(&b"quoteright"[..]));
    }

    #[test]
    fn cid_widths_both_forms() {
        let d = dict("<< /W [1 [100 200] 10 20 300 5 [50]] >>");
        let Some(Object::Array(a)) = d.get(b"W") else {
            panic!()
        };
        let w = cid_widths(&Direct, a).unwrap();
        assert_eq!(w, vec![(1, 1, 100), (2, 2, 200), (10, 20, 300), (5, 5, 50)]);
    }

    #[test]
    fn standard_names() {
        assert_eq!(standard_font(b"Arial,Bold"), Some("Helvetica-Bold"));
        assert_eq!(
            standard_font(b"TimesNewRomanPS-BoldItalicMT"),
            Some("Times-BoldItalic")
        );
        assert_eq!(standard_font(b"Times-Roman"), Some("Times-Roman"));
        assert_eq!(standard_font(b"Courier"), Some("Courier"));
        assert_eq!(standard_font(b"Symbol"), Some("Symbol"));
        assert_eq!(standard_font(b"CMR10"), None);
    }
}
