//! Tokens and objects of PDF syntax (ISO 32000-1, 7.2 and 7.3), shared by
//! the file's objects and the pages' content streams.
//!
//! Not lopdf's: its object parser is private (see `super::file` for why
//! its whole-document load is not used), and its content parser
//! (`lopdf::content::Content::decode`) builds every operation of a stream
//! before the first is run: on the 4,776 content streams (202 MB) of the
//! pages the pipeline reads in the real library it took 17.6 s against
//! 2.3 s for this lexer (`examples/lopdf_measure.rs parse`, 2026-11-28).

use super::Unsupported;
use super::object::{Dict, ObjRef, Object};
use std::rc::Rc;

/// Nesting deeper than this is a hostile file, not a document.
const MAX_DEPTH: usize = 64;

/// One token: a value, a delimiter of a compound value, or a keyword
/// (an operator in a content stream; `obj`, `R`, `stream`... in a file).
#[derive(Debug, Clone, PartialEq)]
pub enum Token<'a> {
    Int(i64),
    Real(f64),
    Name(Rc<[u8]>),
    String(Rc<[u8]>),
    ArrayOpen,
    ArrayClose,
    DictOpen,
    DictClose,
    Keyword(&'a [u8]),
}

/// What a content stream is made of: operands, then their operator.
#[derive(Debug, Clone, PartialEq)]
pub enum Item<'a> {
    Operand(Object),
    Operator(&'a [u8]),
}

pub fn is_white(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\0')
}

pub fn is_delimiter(b: u8) -> bool {
    matches!(
        b,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

fn is_regular(b: u8) -> bool {
    !is_white(b) && !is_delimiter(b)
}

pub struct Lexer<'a> {
    data: &'a [u8],
    pub pos: usize,
}

impl<'a> Lexer<'a> {
    pub fn new(data: &'a [u8]) -> Lexer<'a> {
        Lexer { data, pos: 0 }
    }

    pub fn at(data: &'a [u8], pos: usize) -> Lexer<'a> {
        Lexer { data, pos }
    }

    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Skips white space and comments.
    pub fn skip_space(&mut self) {
        while let Some(&b) = self.data.get(self.pos) {
            if is_white(b) {
                self.pos += 1;
            } else if b == b'%' {
                while let Some(&c) = self.data.get(self.pos) {
                    if c == b'\n' || c == b'\r' {
                        break;
                    }
                    self.pos += 1;
                }
            } else {
                break;
            }
        }
    }

    /// The next token, `None` at the end of the data.
    pub fn token(&mut self) -> Result<Option<Token<'a>>, Unsupported> {
        self.skip_space();
        let Some(&b) = self.data.get(self.pos) else {
            return Ok(None);
        };
        let tok = match b {
            b'/' => {
                self.pos += 1;
                Token::Name(self.name().into())
            }
            b'(' => {
                self.pos += 1;
                Token::String(self.literal()?.into())
            }
            b'<' if self.data.get(self.pos + 1) == Some(&b'<') => {
                self.pos += 2;
                Token::DictOpen
            }
            b'<' => {
                self.pos += 1;
                Token::String(self.hex()?.into())
            }
            b'>' if self.data.get(self.pos + 1) == Some(&b'>') => {
                self.pos += 2;
                Token::DictClose
            }
            b'[' => {
                self.pos += 1;
                Token::ArrayOpen
            }
            b']' => {
                self.pos += 1;
                Token::ArrayClose
            }
            b'0'..=b'9' | b'+' | b'-' | b'.' => self.number(),
            _ => {
                let start = self.pos;
                while self.data.get(self.pos).is_some_and(|&c| is_regular(c)) {
                    self.pos += 1;
                }
                if self.pos == start {
                    // A lone delimiter that starts nothing (`)`, `>`, `{`):
                    // taken as a one-byte keyword, which no caller knows.
                    self.pos += 1;
                }
                Token::Keyword(&self.data[start..self.pos])
            }
        };
        Ok(Some(tok))
    }

    fn name(&mut self) -> Vec<u8> {
        let mut out = Vec::new();
        while let Some(&c) = self.data.get(self.pos) {
            if !is_regular(c) {
                break;
            }
            self.pos += 1;
            if c == b'#' {
                let hex = self.data.get(self.pos..self.pos + 2);
                if let Some(v) = hex.and_then(|h| Some(hex_val(h[0])? * 16 + hex_val(h[1])?)) {
                    out.push(v);
                    self.pos += 2;
                    continue;
                }
            }
            out.push(c);
        }
        out
    }

    fn literal(&mut self) -> Result<Vec<u8>, Unsupported> {
        let mut out = Vec::new();
        let mut depth = 1usize;
        loop {
            let Some(&c) = self.data.get(self.pos) else {
                return Err(Unsupported::new("a string runs to the end of the data"));
            };
            self.pos += 1;
            match c {
                b'(' => {
                    depth += 1;
                    out.push(c);
                }
                b')' => {
                    depth -= 1;
                    if depth == 0 {
                        return Ok(out);
                    }
                    out.push(c);
                }
                b'\\' => {
                    let Some(&e) = self.data.get(self.pos) else {
                        continue;
                    };
                    self.pos += 1;
                    match e {
                        b'n' => out.push(b'\n'),
                        b'r' => out.push(b'\r'),
                        b't' => out.push(b'\t'),
                        b'b' => out.push(8),
                        b'f' => out.push(12),
                        b'0'..=b'7' => {
                            let mut v = (e - b'0') as u32;
                            for _ in 0..2 {
                                match self.data.get(self.pos) {
                                    Some(&d @ b'0'..=b'7') => {
                                        v = v * 8 + (d - b'0') as u32;
                                        self.pos += 1;
                                    }
                                    _ => break,
                                }
                            }
                            out.push(v as u8);
                        }
                        b'\r' => {
                            if self.data.get(self.pos) == Some(&b'\n') {
                                self.pos += 1;
                            }
                        }
                        b'\n' => {}
                        other => out.push(other),
                    }
                }
                b'\r' => {
                    // An end of line in a string is a line feed.
                    if self.data.get(self.pos) == Some(&b'\n') {
                        self.pos += 1;
                    }
                    out.push(b'\n');
                }
                _ => out.push(c),
            }
        }
    }

    fn hex(&mut self) -> Result<Vec<u8>, Unsupported> {
        let mut out = Vec::new();
        let mut high: Option<u8> = None;
        loop {
            let Some(&c) = self.data.get(self.pos) else {
                return Err(Unsupported::new("a hex string runs to the end of the data"));
            };
            self.pos += 1;
            if c == b'>' {
                break;
            }
            let Some(v) = hex_val(c) else { continue };
            match high.take() {
                Some(h) => out.push(h * 16 + v),
                None => high = Some(v),
            }
        }
        if let Some(h) = high {
            out.push(h * 16);
        }
        Ok(out)
    }

    /// A number as readers take it: signs repeated or misplaced are
    /// tolerated, a number with no digits is 0.
    fn number(&mut self) -> Token<'a> {
        let mut neg = false;
        while let Some(&c) = self.data.get(self.pos) {
            match c {
                b'-' => neg = !neg,
                b'+' => {}
                _ => break,
            }
            self.pos += 1;
        }
        let mut int: i64 = 0;
        while let Some(&c @ b'0'..=b'9') = self.data.get(self.pos) {
            int = int.saturating_mul(10).saturating_add((c - b'0') as i64);
            self.pos += 1;
        }
        if self.data.get(self.pos) != Some(&b'.') {
            // A number glued to letters (`12Tf`) ends where the digits do.
            return Token::Int(if neg { -int } else { int });
        }
        self.pos += 1;
        let mut frac = 0f64;
        let mut scale = 1f64;
        while let Some(&c) = self.data.get(self.pos) {
            match c {
                b'0'..=b'9' => {
                    if scale > 1e-15 {
                        scale /= 10.0;
                        frac += (c - b'0') as f64 * scale;
                    }
                }
                // Some writers print `1.-5` or `0.5.3`: the rest is dropped.
                b'.' | b'-' => {}
                _ => break,
            }
            self.pos += 1;
        }
        let v = int as f64 + frac;
        Token::Real(if neg { -v } else { v })
    }

    /// A whole object from a token already read. `refs`: `n g R` is an
    /// indirect reference (in a file; content streams have none).
    fn object_from(
        &mut self,
        tok: Token<'a>,
        refs: bool,
        depth: usize,
    ) -> Result<Object, Unsupported> {
        if depth > MAX_DEPTH {
            return Err(Unsupported::new("objects nested too deeply"));
        }
        Ok(match tok {
            Token::Int(i) => {
                if refs && (0..=u32::MAX as i64).contains(&i) {
                    if let Some(r) = self.reference_after(i as u32) {
                        return Ok(Object::Ref(r));
                    }
                }
                Object::Int(i)
            }
            Token::Real(r) => Object::Real(r),
            Token::Name(n) => Object::Name(n),
            Token::String(s) => Object::String(s),
            Token::ArrayOpen => {
                let mut items = Vec::new();
                loop {
                    match self.token()? {
                        None => return Err(Unsupported::new("an array is not closed")),
                        Some(Token::ArrayClose) => break,
                        Some(t) => items.push(self.object_from(t, refs, depth + 1)?),
                    }
                }
                Object::Array(items.into())
            }
            Token::DictOpen => Object::Dict(Rc::new(self.dict_body(refs, depth)?)),
            Token::Keyword(b"true") => Object::Bool(true),
            Token::Keyword(b"false") => Object::Bool(false),
            Token::Keyword(b"null") => Object::Null,
            Token::ArrayClose | Token::DictClose | Token::Keyword(_) => {
                return Err(Unsupported::new("a value was expected"));
            }
        })
    }

    /// After `<<`: key and value pairs up to `>>`. A key without a value
    /// (a damaged file) is dropped.
    fn dict_body(&mut self, refs: bool, depth: usize) -> Result<Dict, Unsupported> {
        let mut dict = Dict::default();
        loop {
            let key = match self.token()? {
                None => return Err(Unsupported::new("a dictionary is not closed")),
                Some(Token::DictClose) => return Ok(dict),
                Some(Token::Name(n)) => n,
                Some(_) => return Err(Unsupported::new("a dictionary key is not a name")),
            };
            match self.token()? {
                None => return Err(Unsupported::new("a dictionary is not closed")),
                Some(Token::DictClose) => return Ok(dict),
                Some(t) => {
                    let v = self.object_from(t, refs, depth + 1)?;
                    dict.entries.push((key, v));
                }
            }
        }
    }

    /// `g R` after an object number, or nothing (the position is kept).
    fn reference_after(&mut self, num: u32) -> Option<ObjRef> {
        let save = self.pos;
        if let Ok(Some(Token::Int(generation))) = self.token() {
            if let Ok(Some(Token::Keyword(b"R"))) = self.token() {
                if (0..=u16::MAX as i64).contains(&generation) {
                    return Some(ObjRef {
                        num,
                        generation: generation as u16,
                    });
                }
            }
        }
        self.pos = save;
        None
    }

    /// The next whole object of a file (references allowed); `None` at the
    /// end, a keyword is an error.
    pub fn object(&mut self) -> Result<Option<Object>, Unsupported> {
        match self.token()? {
            None => Ok(None),
            Some(t) => self.object_from(t, true, 0).map(Some),
        }
    }

    /// The next keyword, or an error naming `what` was expected.
    pub fn keyword(&mut self, what: &str) -> Result<&'a [u8], Unsupported> {
        match self.token()? {
            Some(Token::Keyword(k)) => Ok(k),
            _ => Err(Unsupported::new(format!("`{what}` was expected"))),
        }
    }

    /// The next item of a content stream.
    pub fn item(&mut self) -> Result<Option<Item<'a>>, Unsupported> {
        Ok(match self.token()? {
            None => None,
            Some(Token::Keyword(k)) if !matches!(k, b"true" | b"false" | b"null") => {
                Some(Item::Operator(k))
            }
            Some(t) => Some(Item::Operand(self.object_from(t, false, 0)?)),
        })
    }

    /// After a content stream's `BI`: the inline image's dictionary, its
    /// data skipped up to and including `EI`.
    pub fn inline_image(&mut self) -> Result<Dict, Unsupported> {
        let mut dict = Dict::default();
        loop {
            match self.token()? {
                Some(Token::Keyword(b"ID")) => break,
                Some(Token::Name(k)) => {
                    let Some(t) = self.token()? else {
                        return Err(Unsupported::new("an inline image is not closed"));
                    };
                    let v = self.object_from(t, false, 0)?;
                    dict.entries.push((k, v));
                }
                _ => return Err(Unsupported::new("an inline image is damaged")),
            }
        }
        // One white-space byte after `ID`, then the data up to an `EI`
        // standing alone between white space (or the end).
        self.pos += 1;
        let d = self.data;
        let mut i = self.pos;
        while i + 1 < d.len() {
            if d[i] == b'E'
                && d[i + 1] == b'I'
                && i > 0
                && is_white(d[i - 1])
                && d.get(i + 2).is_none_or(|&c| is_white(c) || is_delimiter(c))
            {
                self.pos = i + 2;
                return Ok(dict);
            }
            i += 1;
        }
        Err(Unsupported::new("an inline image has no `EI`"))
    }
}

/// The value of a hexadecimal digit (also for `cmap`'s codes).
pub(super) fn hex_val(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(s: &str) -> Object {
        Lexer::new(s.as_bytes()).object().unwrap().unwrap()
    }

    #[test]
    fn values_of_every_kind_parse() {
        assert_eq!(obj("  % c\n -12"), Object::Int(-12));
        assert_eq!(obj("+.5"), Object::Real(0.5));
        assert_eq!(obj("/A#20b"), Object::Name(b"A b".as_slice().into()));
        assert_eq!(
            obj(r"(a\(b\)\101\n(c))"),
            Object::String(b"a(b)A\n(c)".as_slice().into())
        );
        assert_eq!(obj("<48 6 >"), Object::String(b"H`".as_slice().into()));
        assert_eq!(
            obj("3 0 R"),
            Object::Ref(ObjRef {
                num: 3,
                generation: 0
            })
        );
        let d = obj("<< /Type /Page /Kids [1 0 R 2 0 R] /N 7 /X null >>");
        let d = d.as_dict().unwrap();
        assert_eq!(d.name(b"Type"), Some(b"Page".as_slice()));
        assert_eq!(d.get(b"Kids").unwrap().as_array().unwrap().len(), 2);
        assert_eq!(d.number(b"N"), Some(7.0));
        assert!(d.get(b"X").is_none());
    }

    #[test]
    fn content_items_and_inline_images() {
        let mut lx =
            Lexer::new(b"BT /F1 12 Tf [(a) -20 (b)] TJ ET BI /W 2 /H 1 ID \x00\xffEI\xff EI Q");
        let mut ops = Vec::new();
        while let Some(it) = lx.item().unwrap() {
            if let Item::Operator(op) = it {
                if op == b"BI" {
                    let d = lx.inline_image().unwrap();
                    assert_eq!(d.number(b"W"), Some(2.0));
                }
                ops.push(String::from_utf8_lossy(op).into_owned());
            }
        }
        assert_eq!(ops, ["BT", "Tf", "TJ", "ET", "BI", "Q"]);
    }
}
