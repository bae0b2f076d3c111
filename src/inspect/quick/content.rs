//! A page's content streams run for their text and images: what each text
//! operator shows, where, in which font and size, and where each image is
//! placed (also inside form XObjects).
//!
//! The operators are followed as ISO 32000-1 (8.4, 9.3, 9.4) describes
//! them, with pdfium's leniencies where they change what text is read, so
//! that a page reads the same here as through pdfium. Each quirk mirrored
//! is noted where it is handled; in short:
//! - operands are counted from the last one (pdfium keeps the last 16); a
//!   missing or non-numeric operand is 0;
//! - the text matrix lives in the graphics state: `Q` restores it;
//! - text shown before any `Tf` is not shown at all, and does not move;
//! - `Tz` needs exactly one operand; `Tr` outside 0 to 7 is ignored;
//! - a form starts with the caller's CTM, font, size, `Tc`, `Tw` and `Tr`,
//!   but with `Tz` 100, `TL` and `Ts` 0 and the text matrix reset;
//! - a form missing a kind of resource (`/Font`, `/XObject`...) takes the
//!   page's;
//! - a form drawn inside itself draws nothing.

use super::Unsupported;
use super::file::{File, PageDict};
use super::font::{Font, Fonts};
use super::lexer::{Item, Lexer};
use super::object::{Dict, ObjRef, Object, Stream};
use std::collections::HashMap;
use std::rc::Rc;

/// One character shown by a text operator, in content order. A code
/// whose Unicode text has several characters (a ligature) gives one
/// `Shown` per character, all with the code's place and width.
#[derive(Debug, Clone)]
pub struct Shown {
    /// The character; a code without Unicode text is shown as the code
    /// itself taken as a character (what pdfium does).
    pub ch: char,
    /// Index into [`PageContent::fonts`].
    pub font: u16,
    /// Counts the text-showing operators (`Tj`, `TJ`, `'`, `"`) of the
    /// page: characters with the same number were shown by one operator.
    pub object: u32,
    /// The text rendering matrix at the glyph's origin, `[a b c d e f]`:
    /// `[Tfs*Th 0 0 Tfs 0 Trise] × Tm × CTM`. A point (x, y) in text space
    /// for a font size of 1 is at (a x + c y + e, b x + d y + f) in user
    /// space.
    pub trm: [f64; 6],
    /// [`Font::width`] of the code.
    pub width: f64,
    /// The text render mode (`Tr`), 0 to 7.
    pub render_mode: u8,
    /// A character beyond the Basic Multilingual Plane that pdfium's text
    /// page holds as two UTF-16 halves, which are no characters: one from
    /// a `/ToUnicode` map (pdfium reads its targets unit by unit). The
    /// same character from a glyph name (`u1D461`) is one character there.
    pub halves: bool,
}

/// An image drawn on the page (an image XObject or an inline image).
#[derive(Debug, Clone)]
pub struct PlacedImage {
    /// The unit square's corners (0,0), (1,0), (1,1), (0,1) mapped by the
    /// CTM at the `Do` or `BI`, in user space.
    pub corners: [(f64, f64); 4],
    /// `/Width` and `/Height` of the image, when given.
    pub pixels: Option<(u32, u32)>,
}

#[derive(Debug, Default)]
pub struct PageContent {
    pub shown: Vec<Shown>,
    pub fonts: Vec<Rc<Font>>,
    pub images: Vec<PlacedImage>,
}

/// Runs the page's content (and the forms it draws, nested up to 12
/// deep). Anything the reader cannot follow faithfully (a font it cannot
/// read, a damaged stream) is [`Unsupported`]: the page goes to pdfium.
pub fn read(file: &File, fonts: &Fonts, page: &PageDict) -> Result<PageContent, Unsupported> {
    let data = page_contents(file, &page.dict)?;
    let resources = Resources::new(file, &page.resources, None)?;
    let mut reader = Reader {
        file,
        fonts,
        page_resources: resources.clone(),
        out: PageContent::default(),
        objects: 0,
        forms: Vec::new(),
        form_data: HashMap::new(),
        bytes_run: 0,
        unicode: String::new(),
    };
    reader.run(&data, &resources, GraphicsState::default())?;
    Ok(reader.out)
}

/// `q` nesting kept; deeper saves are counted, and a `Q` of one of them
/// gives up (the state it should restore was not kept).
const MAX_SAVED_STATES: usize = 256;
/// Forms drawn inside forms, the page's content being depth 0.
const MAX_FORM_DEPTH: usize = 12;
/// Operands kept before an operator: pdfium keeps the last 16 in a ring
/// (`kParamBufSize`), so with more, the last ones count.
const MAX_OPERANDS: usize = 16;
/// Content bytes run for a page, forms counted each time they are drawn:
/// a form drawn many times inside forms drawn many times is a bomb.
const MAX_BYTES_RUN: usize = 64 << 20;
/// Characters and images kept for one page (memory stays bounded).
const MAX_SHOWN: usize = 500_000;
const MAX_IMAGES: usize = 100_000;

/// An affine matrix `[a b c d e f]`, row-vector convention as in the spec:
/// (x, y) maps to (a x + c y + e, b x + d y + f).
type Matrix = [f64; 6];

const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// `m × n`: `m` applied first, then `n`.
fn concat(m: &Matrix, n: &Matrix) -> Matrix {
    [
        m[0] * n[0] + m[1] * n[2],
        m[0] * n[1] + m[1] * n[3],
        m[2] * n[0] + m[3] * n[2],
        m[2] * n[1] + m[3] * n[3],
        m[4] * n[0] + m[5] * n[2] + n[4],
        m[4] * n[1] + m[5] * n[3] + n[5],
    ]
}

fn apply(m: &Matrix, x: f64, y: f64) -> (f64, f64) {
    (m[0] * x + m[2] * y + m[4], m[1] * x + m[3] * y + m[5])
}

/// `translate(tx, ty) × m`, in place.
fn pre_translate(m: &mut Matrix, tx: f64, ty: f64) {
    m[4] += tx * m[0] + ty * m[2];
    m[5] += tx * m[1] + ty * m[3];
}

/// The graphics state as far as text and images need it.
#[derive(Debug, Clone)]
struct GraphicsState {
    ctm: Matrix,
    /// The text matrix and text line matrix. In the spec they exist only
    /// between `BT` and `ET`; pdfium keeps them with the graphics state
    /// (`CPDF_AllStates`), so a `Q` inside a text object restores them.
    /// Mirrored.
    tm: Matrix,
    tlm: Matrix,
    font: FontSlot,
    font_size: f64,
    char_space: f64,
    word_space: f64,
    /// `Tz` / 100.
    horizontal_scale: f64,
    leading: f64,
    rise: f64,
    render_mode: u8,
}

impl Default for GraphicsState {
    fn default() -> GraphicsState {
        GraphicsState {
            ctm: IDENTITY,
            tm: IDENTITY,
            tlm: IDENTITY,
            font: FontSlot::None,
            font_size: 0.0,
            char_space: 0.0,
            word_space: 0.0,
            horizontal_scale: 1.0,
            leading: 0.0,
            rise: 0.0,
            render_mode: 0,
        }
    }
}

impl GraphicsState {
    /// The state a form drawn in this one starts with. Pdfium
    /// (`CPDF_StreamContentParser::AddForm`) passes the form its general,
    /// graphic, colour and text states only: font, size, `Tc`, `Tw` and
    /// `Tr` carry over, while `Tz`, `TL`, `Ts` and the text matrix (kept
    /// elsewhere) start afresh. Mirrored.
    fn for_form(&self, matrix: &Matrix) -> GraphicsState {
        GraphicsState {
            ctm: concat(matrix, &self.ctm),
            font: self.font.clone(),
            font_size: self.font_size,
            char_space: self.char_space,
            word_space: self.word_space,
            render_mode: self.render_mode,
            ..GraphicsState::default()
        }
    }

    /// `[Tfs×Th 0 0 Tfs 0 Trise] × Tm × CTM`.
    fn text_rendering_matrix(&self) -> Matrix {
        let size = [
            self.font_size * self.horizontal_scale,
            0.0,
            0.0,
            self.font_size,
            0.0,
            self.rise,
        ];
        concat(&concat(&size, &self.tm), &self.ctm)
    }

    /// Moves the text position by `tx` text space units (already scaled
    /// by `Th`) along the line: `Tm = translate(tx, 0) × Tm`.
    fn advance(&mut self, tx: f64) {
        pre_translate(&mut self.tm, tx, 0.0);
    }

    /// The advance after a glyph of width `w0` (font size 1) whose code
    /// was `len` bytes long (ISO 32000-1, 9.4.4): word spacing counts for
    /// the one-byte code 32 only.
    fn glyph_advance(&self, w0: f64, code: u32, len: usize) -> f64 {
        let word_space = if len == 1 && code == 32 {
            self.word_space
        } else {
            0.0
        };
        (w0 * self.font_size + self.char_space + word_space) * self.horizontal_scale
    }

    /// A number of a `TJ` array: thousandths of a text space unit, moving
    /// left when positive.
    fn kern(&mut self, n: f64) {
        self.advance(-n / 1000.0 * self.font_size * self.horizontal_scale);
    }

    /// `Td`: the next line starts at (tx, ty) from this line's start.
    fn move_line(&mut self, tx: f64, ty: f64) {
        pre_translate(&mut self.tlm, tx, ty);
        self.tm = self.tlm;
    }
}

/// The font of the text state.
#[derive(Debug, Clone)]
enum FontSlot {
    /// Before the first `Tf`.
    None,
    /// The font and its index in [`PageContent::fonts`].
    Ready(Rc<Font>, u16),
    /// A font this reader cannot read. Only text shown in it makes the
    /// page unsupported: a `Tf` whose font shows nothing (a font set only
    /// for its size, or before an empty string) changes no text.
    Failed(Rc<Unsupported>),
}

/// The current state and the states saved by `q`, for one content stream
/// (a form has its own: an unbalanced `Q` in it cannot reach the caller's).
struct States {
    current: GraphicsState,
    saved: Vec<GraphicsState>,
    /// `q`s past [`MAX_SAVED_STATES`] not yet closed.
    overflow: usize,
}

impl States {
    fn save(&mut self) {
        if self.saved.len() < MAX_SAVED_STATES {
            self.saved.push(self.current.clone());
        } else {
            self.overflow += 1;
        }
    }

    /// `Q`: an unbalanced one is ignored (as pdfium does).
    fn restore(&mut self) -> Result<(), Unsupported> {
        if self.overflow > 0 {
            return Err(Unsupported::new("q nested too deeply"));
        }
        if let Some(s) = self.saved.pop() {
            self.current = s;
        }
        Ok(())
    }
}

/// The resource sub-dictionaries a content stream looks names up in,
/// resolved once per stream. Pdfium looks a kind of resource a form does
/// not have up in the page's (`FindResourceHolder`): mirrored.
#[derive(Clone, Default)]
struct Resources {
    fonts: Option<Object>,
    xobjects: Option<Object>,
    ext_gstates: Option<Object>,
}

impl Resources {
    fn new(file: &File, dict: &Dict, page: Option<&Resources>) -> Result<Resources, Unsupported> {
        let kind = |key: &[u8], fallback: Option<&Object>| -> Result<Option<Object>, Unsupported> {
            Ok(match file.get_in(dict, key)? {
                Some(o) if o.as_dict().is_some() => Some(o),
                _ => fallback.cloned(),
            })
        };
        Ok(Resources {
            fonts: kind(b"Font", page.and_then(|p| p.fonts.as_ref()))?,
            xobjects: kind(b"XObject", page.and_then(|p| p.xobjects.as_ref()))?,
            ext_gstates: kind(b"ExtGState", page.and_then(|p| p.ext_gstates.as_ref()))?,
        })
    }

    /// The entry `name` of a kind, unresolved.
    fn entry<'r>(kind: &'r Option<Object>, name: &[u8]) -> Option<&'r Object> {
        kind.as_ref()?.as_dict()?.get(name)
    }
}

/// Operand `i` counted from the last one, as a number (pdfium's
/// `GetNumber(i)`): 0 when missing or not a number.
fn number(operands: &[Object], i: usize) -> f64 {
    operands
        .len()
        .checked_sub(i + 1)
        .and_then(|k| operands[k].as_f64())
        .unwrap_or(0.0)
}

/// Operand `i` counted from the last one, as bytes: a name's or a
/// string's (pdfium's `GetString(i)` takes both); empty otherwise.
fn bytes(operands: &[Object], i: usize) -> &[u8] {
    let Some(k) = operands.len().checked_sub(i + 1) else {
        return &[];
    };
    match &operands[k] {
        Object::Name(b) | Object::String(b) => b,
        _ => &[],
    }
}

/// The six operands of `cm` and `Tm`.
fn matrix_operands(operands: &[Object]) -> Matrix {
    std::array::from_fn(|i| number(operands, 5 - i))
}

/// The page's `/Contents`: a stream, or an array of streams joined with a
/// space between them (as pdfium's `CPDF_ContentParser` joins them), so an
/// operator may start in one part and end in the next. Parts that are not
/// streams are skipped.
fn page_contents(file: &File, page: &Dict) -> Result<Vec<u8>, Unsupported> {
    match file.get_in(page, b"Contents")? {
        Some(Object::Stream(s)) => file.decode(&s),
        Some(Object::Array(parts)) => {
            let mut data = Vec::new();
            for part in parts.iter() {
                if let Some(s) = file.resolve(part)?.as_stream() {
                    data.extend_from_slice(&file.decode(s)?);
                    if data.len() > MAX_BYTES_RUN {
                        return Err(Unsupported::new("page content too large"));
                    }
                }
                data.push(b' ');
            }
            Ok(data)
        }
        _ => Ok(Vec::new()),
    }
}

/// The reader of one page: what it found so far and what it keeps while
/// running the page's streams.
struct Reader<'a> {
    file: &'a File,
    fonts: &'a Fonts,
    page_resources: Resources,
    out: PageContent,
    /// Text-showing operators run so far ([`Shown::object`]).
    objects: u32,
    /// The forms being run, outermost first.
    forms: Vec<ObjRef>,
    /// Forms' decoded data: a form drawn many times (a logo, a running
    /// header) is decoded once.
    form_data: HashMap<ObjRef, Rc<Vec<u8>>>,
    bytes_run: usize,
    /// Scratch for a code's Unicode text.
    unicode: String,
}

impl Reader<'_> {
    /// Runs one content stream from state `initial`.
    fn run(
        &mut self,
        data: &[u8],
        resources: &Resources,
        initial: GraphicsState,
    ) -> Result<(), Unsupported> {
        self.bytes_run += data.len();
        if self.bytes_run > MAX_BYTES_RUN {
            return Err(Unsupported::new("page content too large"));
        }
        let mut states = States {
            current: initial,
            saved: Vec::new(),
            overflow: 0,
        };
        let mut operands: Vec<Object> = Vec::with_capacity(MAX_OPERANDS);
        let mut lexer = Lexer::new(data);
        while let Some(item) = lexer.item()? {
            match item {
                Item::Operand(o) => {
                    if operands.len() == MAX_OPERANDS {
                        operands.remove(0);
                    }
                    operands.push(o);
                }
                Item::Operator(op) => {
                    self.operator(op, &operands, &mut states, resources, &mut lexer)?;
                    operands.clear();
                }
            }
        }
        Ok(())
    }

    /// One operator; those that matter neither to text nor to images
    /// (paths, colours, shadings, marked content...) are skipped.
    fn operator(
        &mut self,
        op: &[u8],
        operands: &[Object],
        states: &mut States,
        resources: &Resources,
        lexer: &mut Lexer,
    ) -> Result<(), Unsupported> {
        let gs = &mut states.current;
        match op {
            b"q" => states.save(),
            b"Q" => states.restore()?,
            b"cm" => gs.ctm = concat(&matrix_operands(operands), &gs.ctm),
            b"BT" | b"Td" | b"TD" | b"Tm" | b"T*" => text_position(gs, op, operands),
            b"Tc" | b"Tw" | b"Tz" | b"TL" | b"Ts" | b"Tr" => text_state(gs, op, operands),
            b"Tf" => self.set_font(gs, operands, resources)?,
            b"Tj" | b"TJ" | b"'" | b"\"" => self.show_text(gs, op, operands)?,
            b"Do" => self.draw_xobject(gs, operands, resources)?,
            b"BI" => {
                let dict = lexer.inline_image()?;
                let pixels = inline_image_pixels(&dict);
                self.place_image(&gs.ctm, pixels)?;
            }
            b"gs" => self.check_ext_gstate(operands, resources)?,
            _ => {}
        }
        Ok(())
    }

    /// `Tf`: the font is looked up and loaded here, once per operator; a
    /// font that cannot be had fails the page when text is shown in it.
    fn set_font(
        &mut self,
        gs: &mut GraphicsState,
        operands: &[Object],
        resources: &Resources,
    ) -> Result<(), Unsupported> {
        gs.font_size = number(operands, 0);
        let name = bytes(operands, 1);
        // Pdfium shows text in a font missing from the resources in its
        // stock Helvetica; that font is not one this reader has.
        let Some(entry) = Resources::entry(&resources.fonts, name) else {
            gs.font = FontSlot::Failed(Rc::new(Unsupported::new(format!(
                "font /{} is not in the resources",
                String::from_utf8_lossy(name)
            ))));
            return Ok(());
        };
        gs.font = match self.fonts.get(self.file, entry) {
            Ok(font) => {
                let index = self.intern(&font)?;
                FontSlot::Ready(font, index)
            }
            Err(why) => FontSlot::Failed(Rc::new(why)),
        };
        Ok(())
    }

    /// The index of `font` in [`PageContent::fonts`], added when new.
    fn intern(&mut self, font: &Rc<Font>) -> Result<u16, Unsupported> {
        let fonts = &mut self.out.fonts;
        let index = match fonts.iter().position(|f| Rc::ptr_eq(f, font)) {
            Some(i) => i,
            None => {
                fonts.push(font.clone());
                fonts.len() - 1
            }
        };
        u16::try_from(index).map_err(|_| Unsupported::new("too many fonts on a page"))
    }

    /// `Tj`, `TJ`, `'` and `"`.
    fn show_text(
        &mut self,
        gs: &mut GraphicsState,
        op: &[u8],
        operands: &[Object],
    ) -> Result<(), Unsupported> {
        self.objects = self.objects.wrapping_add(1);
        match op {
            b"TJ" => self.show_array(gs, operands.last()),
            b"'" => {
                next_line(gs);
                self.show_string(gs, bytes(operands, 0))
            }
            b"\"" => {
                gs.word_space = number(operands, 2);
                gs.char_space = number(operands, 1);
                next_line(gs);
                self.show_string(gs, bytes(operands, 0))
            }
            _ => self.show_string(gs, bytes(operands, 0)),
        }
    }

    /// `TJ`: strings shown, numbers moving the text position.
    fn show_array(
        &mut self,
        gs: &mut GraphicsState,
        array: Option<&Object>,
    ) -> Result<(), Unsupported> {
        let Some(items) = array.and_then(Object::as_array) else {
            return Ok(());
        };
        // Pdfium (`Handle_ShowText_Positioning`, `AddTextObject`): an
        // array without strings moves the text position even without a
        // font; one with strings does nothing at all without a font.
        let has_string = items.iter().any(|o| matches!(o, Object::String(_)));
        if has_string && matches!(gs.font, FontSlot::None) {
            return Ok(());
        }
        for item in items.iter() {
            match item {
                Object::String(s) => self.show_string(gs, s)?,
                other => gs.kern(other.as_f64().unwrap_or(0.0)),
            }
        }
        Ok(())
    }

    /// Shows the codes of `s` one by one, each advancing the text matrix.
    /// Without a font nothing is shown and the position stays (pdfium's
    /// `AddTextObject` returns first thing).
    fn show_string(&mut self, gs: &mut GraphicsState, s: &[u8]) -> Result<(), Unsupported> {
        let (font, index) = match &gs.font {
            FontSlot::Ready(font, index) => (font.clone(), *index),
            FontSlot::None => return Ok(()),
            FontSlot::Failed(why) if !s.is_empty() => return Err((**why).clone()),
            FontSlot::Failed(_) => return Ok(()),
        };
        // Text at a negative size runs right to left, upside down; pdfium's
        // text page orders its characters otherwise than here.
        if gs.font_size < 0.0 && !s.is_empty() {
            return Err(Unsupported::new("text at a negative font size"));
        }
        let mut rest = s;
        while !rest.is_empty() {
            let (code, len) = font.next_code(rest);
            let len = len.clamp(1, rest.len());
            rest = &rest[len..];
            let width = font.width(code);
            let glyph = Shown {
                ch: '\0',
                halves: false,
                font: index,
                object: self.objects,
                trm: gs.text_rendering_matrix(),
                width,
                render_mode: gs.render_mode,
            };
            self.emit(&font, code, glyph)?;
            gs.advance(gs.glyph_advance(width, code, len));
        }
        Ok(())
    }

    /// One `Shown` per character of the code's Unicode text; without any,
    /// the code itself as a character, as pdfium's text page does (code 0
    /// and codes that are no character give nothing).
    fn emit(&mut self, font: &Font, code: u32, glyph: Shown) -> Result<(), Unsupported> {
        self.unicode.clear();
        let mapped = font.unicode(code, &mut self.unicode);
        let shown = &mut self.out.shown;
        let line_break = code == 0x0A || code == 0x0D;
        if self.unicode.is_empty() && (1..0x20).contains(&code) && !line_break && font.substituted()
        {
            // The code itself would stand for the text here, but pdfium's
            // text page gives the control codes a substituted font has no
            // name for otherwise (none, on a table of a standard font's
            // codes 1 to 31; `(\x01) Tj`). Higher codes without a name
            // (`\x7F`, or 0x80 to 0x9F in StandardEncoding) read as pdfium
            // reads them, and so do line feed and carriage return (`(\012)
            // Tj` as a report generator's line end), which neither reader
            // keeps as text.
            return Err(Unsupported::new(
                "a control code without text in a substituted font",
            ));
        }
        if self.unicode.is_empty() {
            if let Some(ch) = char::from_u32(code).filter(|_| code != 0) {
                shown.push(Shown { ch, ..glyph });
            }
        } else {
            for ch in self.unicode.chars() {
                shown.push(Shown {
                    ch,
                    halves: mapped && ch > '\u{FFFF}',
                    ..glyph.clone()
                });
            }
        }
        if shown.len() > MAX_SHOWN {
            return Err(Unsupported::new("too many characters on a page"));
        }
        Ok(())
    }

    /// `Do`: a form is run, an image placed; a name missing from the
    /// resources, or anything else, is skipped (as pdfium does).
    fn draw_xobject(
        &mut self,
        gs: &GraphicsState,
        operands: &[Object],
        resources: &Resources,
    ) -> Result<(), Unsupported> {
        let Some(entry) = Resources::entry(&resources.xobjects, bytes(operands, 0)) else {
            return Ok(());
        };
        let xobject = self.file.resolve(entry)?;
        let Some(stream) = xobject.as_stream() else {
            return Ok(());
        };
        let subtype = self.file.get_in(&stream.dict, b"Subtype")?;
        match subtype.as_ref().and_then(Object::as_name) {
            Some(b"Form") => {
                let id = match entry {
                    Object::Ref(r) => Some(*r),
                    _ => None,
                };
                self.run_form(gs, stream, id, resources)
            }
            Some(b"Image") => {
                let width = self.file.get_in(&stream.dict, b"Width")?;
                let height = self.file.get_in(&stream.dict, b"Height")?;
                self.place_image(&gs.ctm, pixels(width.as_ref(), height.as_ref()))
            }
            _ => Ok(()),
        }
    }

    /// Runs a form XObject: its own resources (the caller's when it has
    /// none), its `/Matrix` before the CTM, in a state of its own (an
    /// implicit `q`/`Q`).
    fn run_form(
        &mut self,
        gs: &GraphicsState,
        form: &Stream,
        id: Option<ObjRef>,
        resources: &Resources,
    ) -> Result<(), Unsupported> {
        // Pdfium skips a form already being parsed (its recursion guard).
        if id.is_some_and(|id| self.forms.contains(&id)) {
            return Ok(());
        }
        if self.forms.len() >= MAX_FORM_DEPTH {
            return Err(Unsupported::new("forms nested too deeply"));
        }
        let data = self.form_data(form, id)?;
        let own = match self.file.get_in(&form.dict, b"Resources")? {
            Some(o) => o
                .as_dict()
                .map(|d| Resources::new(self.file, d, Some(&self.page_resources))),
            None => None,
        };
        let own = own.transpose()?;
        let matrix = form_matrix(self.file, &form.dict)?;
        let initial = gs.for_form(&matrix);
        self.forms.extend(id);
        let result = self.run(&data, own.as_ref().unwrap_or(resources), initial);
        if id.is_some() {
            self.forms.pop();
        }
        result
    }

    /// A form's decoded data, decoded once per page.
    fn form_data(&mut self, form: &Stream, id: Option<ObjRef>) -> Result<Rc<Vec<u8>>, Unsupported> {
        let Some(id) = id else {
            return Ok(Rc::new(self.file.decode(form)?));
        };
        if let Some(data) = self.form_data.get(&id) {
            return Ok(data.clone());
        }
        let data = Rc::new(self.file.decode(form)?);
        self.form_data.insert(id, data.clone());
        Ok(data)
    }

    /// An image drawn with the CTM `ctm`.
    fn place_image(&mut self, ctm: &Matrix, pixels: Option<(u32, u32)>) -> Result<(), Unsupported> {
        if self.out.images.len() >= MAX_IMAGES {
            return Err(Unsupported::new("too many images on a page"));
        }
        self.out.images.push(PlacedImage {
            corners: [
                apply(ctm, 0.0, 0.0),
                apply(ctm, 1.0, 0.0),
                apply(ctm, 1.0, 1.0),
                apply(ctm, 0.0, 1.0),
            ],
            pixels,
        });
        Ok(())
    }

    /// `gs`: only an ExtGState that sets the font matters to text, and
    /// this reader does not follow it.
    fn check_ext_gstate(
        &self,
        operands: &[Object],
        resources: &Resources,
    ) -> Result<(), Unsupported> {
        let Some(entry) = Resources::entry(&resources.ext_gstates, bytes(operands, 0)) else {
            return Ok(());
        };
        let state = self.file.resolve(entry)?;
        if state.as_dict().is_some_and(|d| d.get(b"Font").is_some()) {
            return Err(Unsupported::new("an ExtGState sets the font"));
        }
        Ok(())
    }
}

/// `BT`, `Td`, `TD`, `Tm` and `T*`.
fn text_position(gs: &mut GraphicsState, op: &[u8], operands: &[Object]) {
    match op {
        b"BT" => {
            gs.tm = IDENTITY;
            gs.tlm = IDENTITY;
        }
        b"Td" => gs.move_line(number(operands, 1), number(operands, 0)),
        b"TD" => {
            gs.move_line(number(operands, 1), number(operands, 0));
            gs.leading = -number(operands, 0);
        }
        b"Tm" => {
            gs.tm = matrix_operands(operands);
            gs.tlm = gs.tm;
        }
        _ => next_line(gs),
    }
}

/// `T*`, also the first half of `'` and `"`.
fn next_line(gs: &mut GraphicsState) {
    gs.move_line(0.0, -gs.leading);
}

/// `Tc`, `Tw`, `Tz`, `TL`, `Ts` and `Tr`.
fn text_state(gs: &mut GraphicsState, op: &[u8], operands: &[Object]) {
    let n = number(operands, 0);
    match op {
        b"Tc" => gs.char_space = n,
        b"Tw" => gs.word_space = n,
        // Pdfium ignores a `Tz` without exactly one operand.
        b"Tz" if operands.len() == 1 => gs.horizontal_scale = n / 100.0,
        b"TL" => gs.leading = n,
        b"Ts" => gs.rise = n,
        // Pdfium truncates the operand to an integer and ignores a mode
        // outside 0 to 7.
        b"Tr" if (0..8).contains(&(n as i64)) => gs.render_mode = n as u8,
        _ => {}
    }
}

/// A form's `/Matrix`; the identity unless it is an array of six numbers
/// (pdfium's `CPDF_Array::GetMatrix`).
fn form_matrix(file: &File, form: &Dict) -> Result<Matrix, Unsupported> {
    let Some(m) = file.get_in(form, b"Matrix")? else {
        return Ok(IDENTITY);
    };
    match m.as_array() {
        Some(a) if a.len() == 6 => {
            let mut out = IDENTITY;
            for (o, v) in out.iter_mut().zip(a.iter()) {
                *o = file.resolve(v)?.as_f64().unwrap_or(0.0);
            }
            Ok(out)
        }
        _ => Ok(IDENTITY),
    }
}

/// An image's size in pixels from its width and height entries.
fn pixels(width: Option<&Object>, height: Option<&Object>) -> Option<(u32, u32)> {
    let w = u32::try_from(width?.as_i64()?).ok()?;
    let h = u32::try_from(height?.as_i64()?).ok()?;
    Some((w, h))
}

/// An inline image's size: its keys may be abbreviated (`/W`, `/H`).
fn inline_image_pixels(dict: &Dict) -> Option<(u32, u32)> {
    let width = dict.get(b"W").or_else(|| dict.get(b"Width"));
    let height = dict.get(b"H").or_else(|| dict.get(b"Height"));
    pixels(width, height)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(a: &[f64], b: &[f64]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-9)
    }

    #[test]
    fn matrices_concatenate_in_row_vector_order() {
        let scale = [2.0, 0.0, 0.0, 3.0, 0.0, 0.0];
        let shift = [1.0, 0.0, 0.0, 1.0, 10.0, 20.0];
        // Scale first, then shift.
        assert!(close(
            &concat(&scale, &shift),
            &[2.0, 0.0, 0.0, 3.0, 10.0, 20.0]
        ));
        // Shift first, then scale: the shift is scaled too.
        assert!(close(
            &concat(&shift, &scale),
            &[2.0, 0.0, 0.0, 3.0, 20.0, 60.0]
        ));
        let rotate = [0.0, 1.0, -1.0, 0.0, 0.0, 0.0];
        assert_eq!(apply(&rotate, 1.0, 0.0), (0.0, 1.0));
        let mut m = scale;
        pre_translate(&mut m, 5.0, 1.0);
        assert!(close(&m, &concat(&[1.0, 0.0, 0.0, 1.0, 5.0, 1.0], &scale)));
    }

    #[test]
    fn glyph_advance_follows_the_spec() {
        let mut gs = GraphicsState {
            font_size: 10.0,
            char_space: 1.0,
            word_space: 4.0,
            horizontal_scale: 0.5,
            ..GraphicsState::default()
        };
        // (0.5 × 10 + 1) × 0.5
        assert!((gs.glyph_advance(0.5, 65, 1) - 3.0).abs() < 1e-12);
        // A one-byte space: word spacing too.
        assert!((gs.glyph_advance(0.25, 32, 1) - 3.75).abs() < 1e-12);
        // A two-byte code 32 is no word space.
        assert!((gs.glyph_advance(0.25, 32, 2) - 1.75).abs() < 1e-12);
        gs.tm = [2.0, 0.0, 0.0, 2.0, 100.0, 200.0];
        gs.kern(-200.0);
        // 200/1000 × 10 × 0.5 = 1 text space unit, 2 in user space.
        assert!(close(&gs.tm, &[2.0, 0.0, 0.0, 2.0, 102.0, 200.0]));
        gs.rise = 3.0;
        gs.ctm = [1.0, 0.0, 0.0, 1.0, 0.0, 50.0];
        let trm = gs.text_rendering_matrix();
        assert!(close(&trm, &[10.0, 0.0, 0.0, 20.0, 102.0, 256.0]));
    }

    #[test]
    fn text_positioning_operators() {
        let ops = |s: &[f64]| s.iter().map(|&v| Object::Real(v)).collect::<Vec<_>>();
        let mut gs = GraphicsState::default();
        text_position(&mut gs, b"Tm", &ops(&[2.0, 0.0, 0.0, 2.0, 10.0, 10.0]));
        text_position(&mut gs, b"TD", &ops(&[5.0, -6.0]));
        assert_eq!(gs.leading, 6.0);
        assert!(close(&gs.tm, &[2.0, 0.0, 0.0, 2.0, 20.0, -2.0]));
        gs.advance(100.0);
        text_position(&mut gs, b"T*", &[]);
        // Back to the line start, one leading (times the matrix) down.
        assert!(close(&gs.tm, &[2.0, 0.0, 0.0, 2.0, 20.0, -14.0]));
        // Operands are counted from the last one: extra leading operands
        // are ignored, missing ones are 0.
        text_position(&mut gs, b"Td", &ops(&[99.0, 1.0, 1.0]));
        assert!(close(&gs.tm, &[2.0, 0.0, 0.0, 2.0, 22.0, -12.0]));
        text_position(&mut gs, b"Td", &ops(&[1.0]));
        assert!(close(&gs.tm, &[2.0, 0.0, 0.0, 2.0, 22.0, -10.0]));
        text_state(&mut gs, b"Tz", &ops(&[50.0, 60.0]));
        assert_eq!(gs.horizontal_scale, 1.0);
        text_state(&mut gs, b"Tz", &ops(&[50.0]));
        assert_eq!(gs.horizontal_scale, 0.5);
        text_state(&mut gs, b"Tr", &ops(&[9.0]));
        assert_eq!(gs.render_mode, 0);
        text_state(&mut gs, b"Tr", &ops(&[3.0]));
        assert_eq!(gs.render_mode, 3);
        text_position(&mut gs, b"BT", &[]);
        assert!(close(&gs.tm, &IDENTITY) && close(&gs.tlm, &IDENTITY));
    }

    #[test]
    fn q_depth_is_bounded_and_unbalanced_q_ignored() {
        let mut st = States {
            current: GraphicsState::default(),
            saved: Vec::new(),
            overflow: 0,
        };
        st.restore().unwrap();
        st.current.rise = 1.0;
        st.save();
        st.current.rise = 2.0;
        st.restore().unwrap();
        assert_eq!(st.current.rise, 1.0);
        for _ in 0..MAX_SAVED_STATES + 1 {
            st.save();
        }
        assert_eq!(st.saved.len(), MAX_SAVED_STATES);
        assert!(st.restore().is_err());
    }

    /// Issue 38: a font given as a direct dictionary is loaded once, not
    /// at every `Tf` (which took a 166 KB PDF past `PDF_TIMEOUT`).
    #[test]
    fn a_direct_font_dictionary_is_loaded_once() {
        let c = read_pdf(
            &[b"BT /F3 10 Tf (a) Tj /F1 9 Tf (b) Tj /F3 10 Tf (c) Tj ET"],
            b"",
        )
        .unwrap();
        assert_eq!(text(&c), "abc");
        assert_eq!(c.fonts.len(), 2);
        assert_eq!(c.fonts[0].name(), b"Courier");
    }

    /// A one-page PDF whose content is `parts` (one stream each), with
    /// /F1 a Helvetica with /Widths (500 for every code, 250 for the
    /// space), /Im1 an 8 x 4 image, /Fm1 a form (`form` drawn at twice the
    /// size, with its own /F1), /Fm2 a form that draws itself, /Fm3 a form
    /// with no resources, /GS1 an ExtGState setting the font; read with
    /// [`read`]. /F2 is a Type 3 font, which the reader does not follow; /F3
    /// a Courier given as a direct dictionary.
    fn read_pdf(parts: &[&[u8]], form: &[u8]) -> Result<PageContent, Unsupported> {
        use lopdf::{Object as L, Stream as S, dictionary};
        let mut doc = lopdf::Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let mut widths = vec![L::Integer(250)];
        widths.extend((33..=126).map(|_| L::Integer(500)));
        let font = doc.add_object(dictionary! {
            "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica",
            "FirstChar" => 32, "LastChar" => 126, "Widths" => widths,
            "Encoding" => "WinAnsiEncoding",
            "FontDescriptor" => dictionary! {
                "Type" => "FontDescriptor", "FontName" => "Helvetica", "Flags" => 32,
                "FontBBox" => vec![(-166).into(), (-225).into(), 1000.into(), 931.into()],
                "ItalicAngle" => 0, "Ascent" => 718, "Descent" => -207, "CapHeight" => 718,
                "StemV" => 88,
            },
        });
        let image = doc.add_object(S::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Image", "Width" => 8, "Height" => 4,
                "ColorSpace" => "DeviceGray", "BitsPerComponent" => 8,
            },
            vec![128u8; 32],
        ));
        let form1 = doc.add_object(S::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form",
                "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
                "Matrix" => vec![2.into(), 0.into(), 0.into(), 2.into(), 0.into(), 0.into()],
                "Resources" => dictionary! {
                    "Font" => dictionary! { "F1" => font },
                    "XObject" => dictionary! { "Im1" => image },
                },
            },
            form.to_vec(),
        ));
        let form2 = doc.new_object_id();
        doc.objects.insert(
            form2,
            L::Stream(S::new(
                dictionary! {
                    "Type" => "XObject", "Subtype" => "Form",
                    "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
                    "Resources" => dictionary! {
                        "Font" => dictionary! { "F1" => font },
                        "XObject" => dictionary! { "Fm2" => form2 },
                    },
                },
                b"BT /F1 10 Tf (r) Tj ET /Fm2 Do".to_vec(),
            )),
        );
        let form3 = doc.add_object(S::new(
            dictionary! {
                "Type" => "XObject", "Subtype" => "Form",
                "BBox" => vec![0.into(), 0.into(), 100.into(), 100.into()],
            },
            b"(s) Tj".to_vec(),
        ));
        let resources = doc.add_object(dictionary! {
            "Font" => dictionary! {
                "F1" => font, "F2" => dictionary! { "Type" => "Font", "Subtype" => "Type3" },
                "F3" => dictionary! { "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Courier" },
            },
            "XObject" => dictionary! { "Im1" => image, "Fm1" => form1, "Fm2" => form2, "Fm3" => form3 },
            "ExtGState" => dictionary! {
                "GS1" => dictionary! { "Font" => vec![font.into(), 12.into()] },
                "GS2" => dictionary! { "CA" => 0.5 },
            },
        });
        let contents: Vec<L> = parts
            .iter()
            .map(|p| doc.add_object(S::new(dictionary! {}, p.to_vec())).into())
            .collect();
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => contents, "Resources" => resources,
        });
        doc.objects.insert(
            pages_id,
            L::Dictionary(dictionary! {
                "Type" => "Pages", "Kids" => vec![page_id.into()], "Count" => 1,
                "MediaBox" => vec![0.into(), 0.into(), 600.into(), 800.into()],
            }),
        );
        let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
        doc.trailer.set("Root", catalog);
        let mut bytes = Vec::new();
        doc.save_to(&mut bytes).unwrap();
        let file = File::open(bytes.into()).unwrap();
        let page = file.page(0).unwrap();
        read(&file, &Fonts::default(), &page)
    }

    fn text(c: &PageContent) -> String {
        c.shown.iter().map(|s| s.ch).collect()
    }

    /// The glyph origins, rounded to 1/1000.
    fn origins(c: &PageContent) -> Vec<(f64, f64)> {
        let r = |v: f64| (v * 1000.0).round() / 1000.0;
        c.shown.iter().map(|s| (r(s.trm[4]), r(s.trm[5]))).collect()
    }

    #[test]
    fn tj_places_each_character() {
        let c = read_pdf(&[b"BT /F1 10 Tf 100 700 Td (AB C) Tj ET"], b"").unwrap();
        assert_eq!(text(&c), "AB C");
        assert_eq!(
            origins(&c),
            [
                (100.0, 700.0),
                (105.0, 700.0),
                (110.0, 700.0),
                (112.5, 700.0)
            ]
        );
        assert!(close(
            &c.shown[0].trm,
            &[10.0, 0.0, 0.0, 10.0, 100.0, 700.0]
        ));
        assert_eq!(c.shown[0].width, 0.5);
        assert_eq!(c.shown[2].width, 0.25);
        assert_eq!(c.fonts.len(), 1);
        assert!(
            c.shown
                .iter()
                .all(|s| s.object == c.shown[0].object && s.font == 0)
        );
    }

    #[test]
    fn spacing_scaling_and_rise() {
        let c = read_pdf(
            &[b"BT /F1 10 Tf 2 Tc 3 Tw 50 Tz 5 Ts 3 Tr (A B) Tj ET"],
            b"",
        )
        .unwrap();
        assert_eq!(text(&c), "A B");
        // (5 + 2) x 0.5, then (2.5 + 2 + 3) x 0.5.
        assert_eq!(origins(&c), [(0.0, 5.0), (3.5, 5.0), (7.25, 5.0)]);
        assert!(close(&c.shown[0].trm, &[5.0, 0.0, 0.0, 10.0, 0.0, 5.0]));
        assert!(c.shown.iter().all(|s| s.render_mode == 3));
    }

    #[test]
    fn tj_arrays_quotes_and_leading() {
        let c = read_pdf(
            &[b"BT /F1 10 Tf 12 TL [(A) -500 (B) 250 () (C)] TJ (D) ' 1 2 (E) \" ET"],
            b"",
        )
        .unwrap();
        assert_eq!(text(&c), "ABCDE");
        assert_eq!(
            origins(&c),
            [
                (0.0, 0.0),
                (10.0, 0.0),
                (12.5, 0.0),
                (0.0, -12.0),
                (0.0, -24.0)
            ]
        );
        let objects: Vec<u32> = c.shown.iter().map(|s| s.object).collect();
        assert_eq!(objects[0], objects[2]);
        assert!(objects[2] < objects[3] && objects[3] < objects[4]);
    }

    #[test]
    fn ctm_text_matrix_and_pdfium_s_q_inside_text() {
        let c = read_pdf(
            &[b"2 0 0 2 10 20 cm BT /F1 10 Tf 1 0 0 1 5 5 Tm q (A) Tj Q (B) Tj ET"],
            b"",
        )
        .unwrap();
        assert!(close(&c.shown[0].trm, &[20.0, 0.0, 0.0, 20.0, 20.0, 30.0]));
        // Pdfium restores the text matrix at Q: B is where A was.
        assert_eq!(origins(&c), [(20.0, 30.0), (20.0, 30.0)]);
    }

    #[test]
    fn text_without_a_font_is_not_shown() {
        let c = read_pdf(&[b"BT (A) Tj [(B) 100] TJ /F1 10 Tf (C) Tj ET"], b"").unwrap();
        assert_eq!(text(&c), "C");
        assert_eq!(origins(&c), [(0.0, 0.0)]);
    }

    #[test]
    fn forms_images_and_recursion() {
        let c = read_pdf(
            &[b"q 1 0 0 1 100 100 cm BT 50 Tz 4 Ts ET /Fm1 Do Q /Fm2 Do BT /F1 10 Tf (x) Tj ET"],
            b"BT /F1 10 Tf (A) Tj ET 3 0 0 3 1 1 cm /Im1 Do",
        )
        .unwrap();
        // The form draws at twice the size, from 100,100; the page's Tz and
        // Ts do not reach into it.
        assert_eq!(text(&c), "Arx");
        assert!(close(
            &c.shown[0].trm,
            &[20.0, 0.0, 0.0, 20.0, 100.0, 100.0]
        ));
        assert_eq!(c.images.len(), 1);
        let img = &c.images[0];
        assert_eq!(img.pixels, Some((8, 4)));
        assert_eq!(
            img.corners,
            [
                (102.0, 102.0),
                (108.0, 102.0),
                (108.0, 108.0),
                (102.0, 108.0)
            ]
        );
        // The self-drawing form drew itself once; the page goes on after.
        assert_eq!(origins(&c)[1..], [(0.0, 0.0), (0.0, 0.0)]);
    }

    #[test]
    fn forms_inherit_the_text_state_and_page_resources() {
        let c = read_pdf(&[b"BT /F1 10 Tf 3 Tc ET /Fm3 Do BT (t) Tj ET"], b"").unwrap();
        assert_eq!(text(&c), "st");
        assert_eq!(c.fonts.len(), 1);
    }

    #[test]
    fn inline_images_and_parts_joined() {
        let c = read_pdf(
            &[
                b"q 50 0 0 30 10 20 cm BI /W 3 /H 2 /BPC 8 /CS /G ID \x00\x01\x02\x03\x04\x05 EI Q",
                b"BT /F1 10",
                b"Tf (A) Tj ET",
            ],
            b"",
        )
        .unwrap();
        assert_eq!(c.images.len(), 1);
        assert_eq!(c.images[0].pixels, Some((3, 2)));
        assert_eq!(
            c.images[0].corners,
            [(10.0, 20.0), (60.0, 20.0), (60.0, 50.0), (10.0, 50.0)]
        );
        assert_eq!(text(&c), "A");
    }

    #[test]
    fn what_is_not_followed_is_unsupported() {
        assert!(read_pdf(&[b"/GS2 gs /GS9 gs BT /F1 1 Tf (a) Tj ET"], b"").is_ok());
        assert!(read_pdf(&[b"/GS1 gs BT (a) Tj ET"], b"").is_err());
        assert!(read_pdf(&[b"BT /F9 10 Tf (a) Tj ET"], b"").is_err());
        assert!(read_pdf(&[b"BT /F2 10 Tf (a) Tj ET"], b"").is_err());
        assert!(read_pdf(&[b"BT /F1 -10 Tf (a) Tj ET"], b"").is_err());
        // A code WinAnsi names no glyph for, in a substituted font.
        assert!(read_pdf(&[b"BT /F3 10 Tf (\x01) Tj ET"], b"").is_err());
        assert!(read_pdf(&[b"BT /F3 10 Tf (\x00a\n\r) Tj ET"], b"").is_ok());
        assert!(read_pdf(&[b"BT /F1 -10 Tf () Tj /F1 10 Tf (a) Tj ET"], b"").is_ok());
        // A font that shows nothing does not matter.
        assert!(read_pdf(&[b"BT /F9 10 Tf /F2 5 Tf () Tj [-20] TJ ET"], b"").is_ok());
        let deep = b"q ".repeat(MAX_SAVED_STATES + 1);
        assert!(read_pdf(&[&deep, b"Q"], b"").is_err());
    }

    #[test]
    fn damaged_content_never_panics() {
        let content: &[u8] =
            b"q 1 0 0 1 100 100 cm /Fm1 Do Q BT /F1 10 Tf [(A) -500 <42> 250 (C)] TJ \
            (D) ' 1 2 (E) \" ET BI /W 3 /H 2 ID \x00\x01\x02\x03\x04\x05 EI ] >> } [ << /F1 ] Tj";
        for end in 0..content.len() {
            let _ = read_pdf(&[&content[..end]], &content[..end]);
        }
    }
}
