//! PDF objects as the quick reader holds them (ISO 32000-1, 7.3). Compound
//! values sit behind `Rc`, so a resolved object is cloned by reference
//! count, not copied. A stream holds where its data is in the file, not a
//! copy of it (`lopdf::Object` copies it; see `super::file` for why lopdf
//! does not read the file).

use super::Unsupported;
use std::ops::Range;
use std::rc::Rc;

/// An indirect object's number and generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ObjRef {
    pub num: u32,
    pub generation: u16,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Object {
    Null,
    Bool(bool),
    Int(i64),
    Real(f64),
    /// A name without its slash, `#xx` escapes decoded.
    Name(Rc<[u8]>),
    /// A string's bytes, escapes (literal) or hex digits decoded.
    String(Rc<[u8]>),
    Array(Rc<[Object]>),
    Dict(Rc<Dict>),
    Stream(Rc<Stream>),
    Ref(ObjRef),
}

impl Object {
    /// A number as `f64` (integers too).
    pub fn as_f64(&self) -> Option<f64> {
        match *self {
            Object::Int(i) => Some(i as f64),
            Object::Real(r) => Some(r),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match *self {
            Object::Int(i) => Some(i),
            Object::Real(r) if r.fract() == 0.0 && r.abs() < 9e15 => Some(r as i64),
            _ => None,
        }
    }

    pub fn as_name(&self) -> Option<&[u8]> {
        match self {
            Object::Name(n) => Some(n),
            _ => None,
        }
    }

    pub fn as_string(&self) -> Option<&[u8]> {
        match self {
            Object::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&[Object]> {
        match self {
            Object::Array(a) => Some(a),
            _ => None,
        }
    }

    /// A dictionary, or a stream's dictionary.
    pub fn as_dict(&self) -> Option<&Dict> {
        match self {
            Object::Dict(d) => Some(d),
            Object::Stream(s) => Some(&s.dict),
            _ => None,
        }
    }

    pub fn as_stream(&self) -> Option<&Stream> {
        match self {
            Object::Stream(s) => Some(s),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Object::Null)
    }

    /// The object as a dictionary, or the reader gives up with `what`.
    pub fn dict_or(&self, what: &str) -> Result<&Dict, Unsupported> {
        self.as_dict()
            .ok_or_else(|| Unsupported::new(format!("{what} is not a dictionary")))
    }
}

/// A dictionary: keys (names without the slash) in file order. Dictionaries
/// are small, so lookup is a scan.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Dict {
    pub entries: Vec<(Rc<[u8]>, Object)>,
}

impl Dict {
    /// The value of `key`, unresolved (it may be a [`Object::Ref`]); a key
    /// given twice counts at its last place, and a null value as absent.
    pub fn get(&self, key: &[u8]) -> Option<&Object> {
        self.entries
            .iter()
            .rev()
            .find(|(k, _)| &**k == key)
            .map(|(_, v)| v)
            .filter(|v| !v.is_null())
    }

    /// The name under `key`, when it is a direct name.
    pub fn name(&self, key: &[u8]) -> Option<&[u8]> {
        self.get(key).and_then(Object::as_name)
    }

    /// The number under `key`, when it is a direct number.
    pub fn number(&self, key: &[u8]) -> Option<f64> {
        self.get(key).and_then(Object::as_f64)
    }
}

/// A stream: its dictionary and where its raw (still encoded) bytes are in
/// the file.
#[derive(Debug, Clone, PartialEq)]
pub struct Stream {
    pub dict: Dict,
    pub data: Range<usize>,
}
