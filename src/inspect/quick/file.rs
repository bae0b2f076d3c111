//! The file: cross-reference tables and streams, the trailer, objects read
//! on demand (and kept), stream data decoded, the page tree.
//!
//! Only files whose cross-reference data is sound are read: pdfium repairs
//! a damaged file by scanning it for objects, and such a file is better
//! left to it ([`Unsupported`]). Offsets in the file are taken from the
//! `%PDF-` header, so junk before it (a mail header, a MacBinary block)
//! does not matter.
//!
//! Pages are counted and found as pdfium does: the root's `/Count` when it
//! is plausible, the kids walked in order (and only as far as needed).
//!
//! Every limit below is there so that a hostile file cannot loop, recurse
//! without end or take the memory: the reader gives up instead.
//!
//! Why this is not `lopdf::Document` (measured 2026-11-28 with
//! `examples/lopdf_measure.rs`, release build; the figures are in
//! `docs/history/performance.md`): lopdf parses every object of a file
//! when it loads it, and copies every stream, where the pipeline reads a
//! book's first 8 and last 2 pages. Over the 650 PDFs of the real library
//! that work took 4.2 CPU-s through lopdf against 0.9 here (3.6 with
//! lopdf and nom at opt-level 3), and 188 MB of peak memory against 84;
//! on a 1,720-page book 650 ms against 55. The run as a whole takes
//! 18.9 CPU-s there, so the switch would cost about a sixth of it. lopdf
//! also repairs what pdfium would repair otherwise (it opened 52 of the 66
//! pdf.js problem files refused here, 33 by rebuilding the
//! cross-reference table), so the text of those files would no longer be
//! pdfium's. lopdf reads objects on demand only for
//! `Document::load_metadata_mem` (the reader behind it is private), and
//! even that took 0.45 CPU-s against 0.21 here to open the same 650 files
//! and count their pages.

use super::Unsupported;
use super::filter::{self, Step};
use super::lexer::{Lexer, Token, is_white};
use super::object::{Dict, ObjRef, Object, Stream};
use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};
use std::ops::Range;
use std::rc::Rc;

/// Object numbers from this up are refused, as pdfium refuses them
/// (`CPDF_Parser::kMaxObjectNumber`): the table is a vector indexed by
/// object number.
const MAX_OBJECT_NUMBER: u64 = 1 << 20;
/// How far from the end `startxref` is looked for (pdfium: 4096).
const STARTXREF_WINDOW: usize = 4096;
/// How far from the start `%PDF-` is looked for (pdfium: 1024).
const HEADER_WINDOW: usize = 1024;
/// More cross-reference sections than this is a loop or a hostile file.
const MAX_SECTIONS: usize = 1024;
/// Nested reads: a stream's `/Length` read while reading the stream, an
/// object stream read while reading an object in it.
const MAX_READ_DEPTH: u32 = 16;
/// References to references to...
const MAX_REF_CHAIN: usize = 32;
/// Page tree levels.
const MAX_TREE_DEPTH: usize = 64;
/// pdfium takes a root `/Count` from 1 up to this as the page count.
const MAX_PAGE_COUNT: i64 = 0xFFFFF;
/// Decoded object streams kept at once, in bytes in all.
const MAX_OBJECT_STREAM_BYTES: usize = 128 << 20;
/// US Letter, the media box of a page that has none.
const LETTER: [f64; 4] = [0.0, 0.0, 612.0, 792.0];

/// Where an object is, by the newest cross-reference section that lists it.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Entry {
    Free,
    /// At this offset of the file bytes (the header's place added).
    InFile {
        offset: usize,
    },
    /// The `index`th object of object stream `stream`.
    InStream {
        stream: u32,
        index: u32,
    },
}

/// A decoded object stream: its data and where each object starts.
struct ObjectStream {
    data: Vec<u8>,
    /// Object number and offset (from the start of `data`) of each object,
    /// in order.
    objects: Vec<(u32, usize)>,
}

/// The attributes a page inherits from its ancestors (unresolved), the
/// nearest definition of each.
#[derive(Debug, Default)]
struct Inherited {
    resources: Option<Object>,
    media_box: Option<Object>,
    crop_box: Option<Object>,
    rotate: Option<Object>,
}

impl Inherited {
    /// The attributes below `node`: its own where it has them, else its
    /// parent's. Shared with the parent when `node` defines none.
    fn under(parent: &Rc<Inherited>, node: &Dict) -> Rc<Inherited> {
        let keys: [&[u8]; 4] = [b"Resources", b"MediaBox", b"CropBox", b"Rotate"];
        if keys.iter().all(|k| node.get(k).is_none()) {
            return Rc::clone(parent);
        }
        let pick =
            |key: &[u8], old: &Option<Object>| node.get(key).cloned().or_else(|| old.clone());
        Rc::new(Inherited {
            resources: pick(b"Resources", &parent.resources),
            media_box: pick(b"MediaBox", &parent.media_box),
            crop_box: pick(b"CropBox", &parent.crop_box),
            rotate: pick(b"Rotate", &parent.rotate),
        })
    }
}

/// A leaf of the page tree and what its ancestors give it.
#[derive(Clone)]
struct PageSlot {
    dict: Rc<Dict>,
    inherited: Rc<Inherited>,
}

/// One cross-reference section's trailer and the offset of the one before.
struct Section {
    trailer: Dict,
    prev: Option<usize>,
}

/// An open PDF file.
pub struct File {
    bytes: Rc<[u8]>,
    /// Where `%PDF-` is: offsets in the file count from here.
    header: usize,
    /// Indexed by object number; `None` where no section lists the object.
    xref: Vec<Option<Entry>>,
    trailer: Dict,
    /// Every object read so far, by number.
    objects: RefCell<HashMap<u32, Object>>,
    object_streams: RefCell<HashMap<u32, Rc<ObjectStream>>>,
    object_stream_bytes: Cell<usize>,
    /// How deep reads are nested now (see [`MAX_READ_DEPTH`]).
    read_depth: Cell<u32>,
    page_tree: RefCell<PageTree>,
    page_count: u32,
}

/// A page's dictionary with the inherited attributes resolved.
#[derive(Debug, Clone)]
pub struct PageDict {
    pub dict: Rc<Dict>,
    /// `/Resources`, inherited from an ancestor when the page has none;
    /// resolved (an empty dictionary when there is none at all).
    pub resources: Rc<Dict>,
    /// `/MediaBox` as [x0 y0 x1 y1] normalised (x0 < x1, y0 < y1),
    /// inherited; US Letter when missing.
    pub media_box: [f64; 4],
    /// `/CropBox`, inherited, intersected with the media box; the media
    /// box when missing.
    pub crop_box: [f64; 4],
    /// `/Rotate` inherited, normalised to 0, 90, 180 or 270.
    pub rotate: u32,
}

impl File {
    /// Reads the trailer and cross-reference data. Encrypted files and
    /// files whose cross-reference data cannot be read are
    /// [`Unsupported`]. The page tree is walked only as far as the first
    /// page here (a file without one is [`Unsupported`] too), further as
    /// pages are asked for.
    pub fn open(bytes: Rc<[u8]>) -> Result<File, Unsupported> {
        let header = find_header(&bytes)?;
        let startxref = find_startxref(&bytes)?;
        let mut file = File {
            bytes,
            header,
            xref: Vec::new(),
            trailer: Dict::default(),
            objects: RefCell::default(),
            object_streams: RefCell::default(),
            object_stream_bytes: Cell::new(0),
            read_depth: Cell::new(0),
            page_tree: RefCell::default(),
            page_count: 0,
        };
        let start = header
            .checked_add(startxref)
            .ok_or_else(|| Unsupported::new("startxref is out of range"))?;
        file.trailer = file.load_xref(start)?;
        // Objects read while the table was incomplete (a `/Length` of a
        // cross-reference stream) may have been taken as missing.
        file.objects.borrow_mut().clear();
        file.object_streams.borrow_mut().clear();
        file.object_stream_bytes.set(0);
        if file.trailer.get(b"Encrypt").is_some() {
            return Err(Unsupported::new("encrypted"));
        }
        let (tree, page_count) = file.start_page_tree()?;
        file.page_tree = RefCell::new(tree);
        file.page_count = page_count;
        Ok(file)
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn trailer(&self) -> &Dict {
        &self.trailer
    }

    /// Indirect object `r`; a missing object is [`Object::Null`].
    pub fn get(&self, r: ObjRef) -> Result<Object, Unsupported> {
        if let Some(o) = self.objects.borrow().get(&r.num) {
            return Ok(o.clone());
        }
        let object = match self.xref.get(r.num as usize).copied().flatten() {
            None | Some(Entry::Free) => Object::Null,
            Some(Entry::InFile { offset }) => {
                self.nested(|| self.read_indirect(offset, Some(r.num)))?
            }
            Some(Entry::InStream { stream, index }) => {
                self.nested(|| self.read_from_object_stream(r.num, stream, index))?
            }
        };
        self.objects.borrow_mut().insert(r.num, object.clone());
        Ok(object)
    }

    /// `o` itself, or the object it refers to (following chains of
    /// references).
    pub fn resolve(&self, o: &Object) -> Result<Object, Unsupported> {
        let mut current = o.clone();
        for _ in 0..MAX_REF_CHAIN {
            match current {
                Object::Ref(r) => current = self.get(r)?,
                other => return Ok(other),
            }
        }
        Err(Unsupported::new("a chain of references is too long"))
    }

    /// `dict[key]`, resolved; `None` when absent or null.
    pub fn get_in(&self, dict: &Dict, key: &[u8]) -> Result<Option<Object>, Unsupported> {
        let Some(o) = dict.get(key) else {
            return Ok(None);
        };
        let o = self.resolve(o)?;
        Ok(if o.is_null() { None } else { Some(o) })
    }

    /// A stream's data with its filters applied.
    pub fn decode(&self, stream: &Stream) -> Result<Vec<u8>, Unsupported> {
        if stream.dict.get(b"F").is_some() {
            return Err(Unsupported::new("a stream's data is in an external file"));
        }
        let raw = self
            .bytes
            .get(stream.data.clone())
            .ok_or_else(|| Unsupported::new("a stream's data is outside the file"))?;
        let chain = self.filter_chain(&stream.dict)?;
        let steps: Vec<Step> = chain
            .iter()
            .map(|(name, params)| Step {
                name,
                params: params.as_deref(),
            })
            .collect();
        filter::decode(raw, &steps)
    }

    /// The document information dictionary, when there is one.
    pub fn info(&self) -> Option<Rc<Dict>> {
        match self.get_in(&self.trailer, b"Info").ok()?? {
            Object::Dict(d) => Some(d),
            _ => None,
        }
    }

    /// The root's `/Count` when it is 1 to 0xFFFFE (pdfium takes it at
    /// its word), else the leaves of the page tree.
    pub fn page_count(&self) -> u32 {
        self.page_count
    }

    /// Page `index` (0-based) of the page tree. A page the tree does not
    /// have (fewer leaves than `/Count`), or that lies past damage in the
    /// tree, is [`Unsupported`] (pdfium cannot load it either).
    pub fn page(&self, index: u32) -> Result<PageDict, Unsupported> {
        let slot = self.page_slot(index)?;
        let attrs = Inherited::under(&slot.inherited, &slot.dict);
        let resources = match self.resolve_opt(&attrs.resources)? {
            Some(Object::Dict(d)) => d,
            _ => Rc::default(),
        };
        let media_box = self.rect(&attrs.media_box)?.unwrap_or(LETTER);
        let crop_box = match self.rect(&attrs.crop_box)? {
            Some(crop) => intersect(crop, media_box),
            None => media_box,
        };
        let rotate = self.resolve_opt(&attrs.rotate)?.and_then(|r| r.as_f64());
        Ok(PageDict {
            dict: Rc::clone(&slot.dict),
            resources,
            media_box,
            crop_box,
            rotate: normalise_rotation(rotate.unwrap_or(0.0)),
        })
    }
}

/// Reading objects.
impl File {
    /// Runs a read one level deeper, or gives up when reads nest too deep
    /// (a stream whose `/Length` is in an object stream whose `/Length`...).
    fn nested<T>(&self, read: impl FnOnce() -> Result<T, Unsupported>) -> Result<T, Unsupported> {
        let depth = self.read_depth.get();
        if depth >= MAX_READ_DEPTH {
            return Err(Unsupported::new("object reads nested too deeply"));
        }
        self.read_depth.set(depth + 1);
        let result = read();
        self.read_depth.set(depth);
        result
    }

    /// `num gen obj <object> [stream ... endstream]` at `pos`. `expect`:
    /// the object number the cross-reference data gave.
    fn read_indirect(&self, pos: usize, expect: Option<u32>) -> Result<Object, Unsupported> {
        let mut lx = Lexer::at(&self.bytes, pos);
        let num = match lx.token()? {
            Some(Token::Int(n)) => u32::try_from(n).ok(),
            _ => None,
        };
        let generation_ok = matches!(lx.token()?, Some(Token::Int(_)));
        let obj_ok = matches!(lx.token()?, Some(Token::Keyword(b"obj")));
        let Some(num) = num.filter(|_| generation_ok && obj_ok) else {
            return Err(Unsupported::new(
                "no object where the cross-reference data says",
            ));
        };
        if expect.is_some_and(|e| e != num) {
            return Err(Unsupported::new(
                "another object where the cross-reference data says",
            ));
        }
        let object = object_before_endobj(&mut lx)?;
        let Object::Dict(dict) = object else {
            return Ok(object);
        };
        lx.skip_space();
        if !self.bytes[lx.pos.min(self.bytes.len())..].starts_with(b"stream") {
            return Ok(Object::Dict(dict));
        }
        let start = after_eol(&self.bytes, lx.pos + b"stream".len());
        let length = self.stream_length(&dict);
        let data = stream_extent(&self.bytes, start, length)?;
        let dict = Rc::try_unwrap(dict).unwrap_or_else(|d| (*d).clone());
        Ok(Object::Stream(Rc::new(Stream { dict, data })))
    }

    /// `/Length` of a stream dictionary, when it is a number or refers to
    /// one that can be read.
    fn stream_length(&self, dict: &Dict) -> Option<usize> {
        let length = match dict.get(b"Length")? {
            Object::Ref(r) => self.get(*r).ok()?.as_i64()?,
            other => other.as_i64()?,
        };
        usize::try_from(length).ok()
    }

    /// Object `num`, the `index`th of object stream `stream`; null when
    /// the stream has another object there (as pdfium reads it).
    fn read_from_object_stream(
        &self,
        num: u32,
        stream: u32,
        index: u32,
    ) -> Result<Object, Unsupported> {
        let os = self.object_stream(stream)?;
        let index = index as usize;
        let Some(&(_, offset)) = os.objects.get(index).filter(|(n, _)| *n == num) else {
            return Ok(Object::Null);
        };
        // The object ends where the next one starts (when they are in
        // order): a number at the end must not take the next object's
        // first tokens for `g R`.
        let end = match os.objects.get(index + 1) {
            Some(&(_, next)) if next > offset => next,
            _ => os.data.len(),
        };
        let object = Lexer::new(&os.data[offset..end])
            .object()?
            .unwrap_or(Object::Null);
        if object.as_stream().is_some() {
            return Err(Unsupported::new("a stream inside an object stream"));
        }
        Ok(object)
    }

    /// Object stream `num`, decoded and its offsets read once.
    fn object_stream(&self, num: u32) -> Result<Rc<ObjectStream>, Unsupported> {
        if let Some(os) = self.object_streams.borrow().get(&num) {
            return Ok(Rc::clone(os));
        }
        let object = self.get(ObjRef { num, generation: 0 })?;
        let stream = object
            .as_stream()
            .filter(|s| s.dict.name(b"Type") == Some(b"ObjStm"))
            .ok_or_else(|| Unsupported::new("an object stream is not one"))?;
        let data = self.decode(stream)?;
        let kept = self.object_stream_bytes.get() + data.len();
        if kept > MAX_OBJECT_STREAM_BYTES {
            return Err(Unsupported::new("object streams too large"));
        }
        self.object_stream_bytes.set(kept);
        let count = self.get_in(&stream.dict, b"N")?.and_then(|n| n.as_i64());
        let first = self
            .get_in(&stream.dict, b"First")?
            .and_then(|n| n.as_i64());
        let (Some(count), Some(first)) = (count, first) else {
            return Err(Unsupported::new("an object stream without /N or /First"));
        };
        let objects = object_stream_offsets(&data, count, first)?;
        let os = Rc::new(ObjectStream { data, objects });
        self.object_streams.borrow_mut().insert(num, Rc::clone(&os));
        Ok(os)
    }

    /// `/Filter` and `/DecodeParms` of a stream, resolved and paired as
    /// pdfium pairs them: an array of filters takes an array of
    /// parameters, one filter a dictionary.
    #[allow(clippy::type_complexity)]
    fn filter_chain(&self, dict: &Dict) -> Result<Vec<(Rc<[u8]>, Option<Rc<Dict>>)>, Unsupported> {
        let params = self.get_in(dict, b"DecodeParms")?;
        let (names, params): (Vec<Rc<[u8]>>, Vec<Object>) = match self.get_in(dict, b"Filter")? {
            None => return Ok(Vec::new()),
            Some(Object::Name(n)) => {
                let params = params.filter(|p| p.as_array().is_none());
                (vec![n], params.into_iter().collect())
            }
            Some(Object::Array(items)) => {
                let names = items
                    .iter()
                    .map(|item| match self.resolve(item)? {
                        Object::Name(n) => Ok(n),
                        _ => Err(Unsupported::new("a /Filter that is not a name")),
                    })
                    .collect::<Result<_, _>>()?;
                let params = match params {
                    Some(Object::Array(p)) => p.to_vec(),
                    _ => Vec::new(),
                };
                (names, params)
            }
            Some(_) => return Err(Unsupported::new("a /Filter that is not a name")),
        };
        names
            .into_iter()
            .enumerate()
            .map(|(i, name)| {
                let param = match params.get(i) {
                    Some(p) => self.params_dict(p)?,
                    None => None,
                };
                Ok((name, param))
            })
            .collect()
    }

    /// A `/DecodeParms` entry as a dictionary whose values are direct.
    fn params_dict(&self, o: &Object) -> Result<Option<Rc<Dict>>, Unsupported> {
        let Object::Dict(d) = self.resolve(o)? else {
            return Ok(None);
        };
        if !d.entries.iter().any(|(_, v)| matches!(v, Object::Ref(_))) {
            return Ok(Some(d));
        }
        let entries = d
            .entries
            .iter()
            .map(|(k, v)| Ok((Rc::clone(k), self.resolve(v)?)))
            .collect::<Result<_, Unsupported>>()?;
        Ok(Some(Rc::new(Dict { entries })))
    }

    fn resolve_opt(&self, o: &Option<Object>) -> Result<Option<Object>, Unsupported> {
        o.as_ref().map(|o| self.resolve(o)).transpose()
    }

    /// A rectangle `[x0 y0 x1 y1]` normalised; `None` when it is not four
    /// numbers or is empty (pdfium: a non-number counts as 0).
    fn rect(&self, o: &Option<Object>) -> Result<Option<[f64; 4]>, Unsupported> {
        let Some(Object::Array(items)) = self.resolve_opt(o)? else {
            return Ok(None);
        };
        if items.len() != 4 {
            return Ok(None);
        }
        let mut v = [0.0; 4];
        for (slot, item) in v.iter_mut().zip(items.iter()) {
            *slot = self.resolve(item)?.as_f64().unwrap_or(0.0);
        }
        let r = [
            v[0].min(v[2]),
            v[1].min(v[3]),
            v[0].max(v[2]),
            v[1].max(v[3]),
        ];
        Ok((r[2] > r[0] && r[3] > r[1]).then_some(r))
    }
}

/// Reading the cross-reference data.
impl File {
    /// Reads the section at `start` and those before it (`/Prev`), newest
    /// first; returns the newest trailer.
    fn load_xref(&mut self, start: usize) -> Result<Dict, Unsupported> {
        let mut seen = HashSet::new();
        let mut trailer = None;
        let mut next = Some(start);
        while let Some(pos) = next {
            if !seen.insert(pos) || seen.len() > MAX_SECTIONS {
                return Err(Unsupported::new("the cross-reference sections loop"));
            }
            let section = self.read_section(pos)?;
            next = match section.prev {
                Some(prev) => Some(
                    self.header
                        .checked_add(prev)
                        .ok_or_else(|| Unsupported::new("/Prev is out of range"))?,
                ),
                None => None,
            };
            match &mut trailer {
                None => trailer = Some(section.trailer),
                Some(newer) => merge_older_trailer(newer, section.trailer),
            }
        }
        trailer.ok_or_else(|| Unsupported::new("no trailer"))
    }

    fn read_section(&mut self, pos: usize) -> Result<Section, Unsupported> {
        let at = skip_white(&self.bytes, pos);
        if self
            .bytes
            .get(at..)
            .is_some_and(|rest| rest.starts_with(b"xref"))
        {
            self.read_table(at + b"xref".len())
        } else {
            self.read_xref_stream(at)
        }
    }

    /// A classic `xref` table and its trailer. A hybrid file's
    /// `/XRefStm` is read first: its entries win over the table's (the
    /// table lists the objects in object streams as free).
    fn read_table(&mut self, pos: usize) -> Result<Section, Unsupported> {
        let (entries, trailer_pos) = parse_table(&self.bytes, pos, self.header)?;
        let trailer = match Lexer::at(&self.bytes, trailer_pos).object()? {
            Some(Object::Dict(d)) => Rc::try_unwrap(d).unwrap_or_else(|d| (*d).clone()),
            _ => return Err(Unsupported::new("the trailer is not a dictionary")),
        };
        if let Some(stream_pos) = offset_in(&trailer, b"XRefStm") {
            let at = self
                .header
                .checked_add(stream_pos)
                .ok_or_else(|| Unsupported::new("/XRefStm is out of range"))?;
            self.read_xref_stream(at)?;
        }
        for (num, entry) in entries {
            self.set_entry(num, entry)?;
        }
        Ok(Section {
            prev: offset_in(&trailer, b"Prev"),
            trailer,
        })
    }

    /// A cross-reference stream (`/Type /XRef`): rows of `/W` big-endian
    /// fields for the object numbers of `/Index`.
    fn read_xref_stream(&mut self, pos: usize) -> Result<Section, Unsupported> {
        let object = self.read_indirect(pos, None)?;
        let stream = object
            .as_stream()
            .filter(|s| s.dict.name(b"Type") == Some(b"XRef"))
            .ok_or_else(|| Unsupported::new("no cross-reference data at startxref"))?;
        let data = self.decode(stream)?;
        let widths = xref_widths(&stream.dict)?;
        let row = widths.iter().sum::<usize>();
        let mut rows = data.chunks_exact(row);
        for (first, count) in xref_index(&stream.dict)? {
            for num in first..first.saturating_add(count) {
                let Some(fields) = rows.next() else {
                    // Short data: the rest is not listed (pdfium reads what
                    // is there).
                    break;
                };
                if let Some(entry) = xref_stream_entry(fields, widths, self.header) {
                    self.set_entry(num, entry)?;
                }
            }
        }
        Ok(Section {
            prev: offset_in(&stream.dict, b"Prev"),
            trailer: stream.dict.clone(),
        })
    }

    /// Records where object `num` is, unless a newer section said so.
    fn set_entry(&mut self, num: u64, entry: Entry) -> Result<(), Unsupported> {
        if num >= MAX_OBJECT_NUMBER {
            return Err(Unsupported::new("object numbers too large"));
        }
        let num = num as usize;
        if num >= self.xref.len() {
            self.xref.resize(num + 1, None);
        }
        self.xref[num].get_or_insert(entry);
        Ok(())
    }
}

/// The page tree.
impl File {
    /// Starts the walk of the page tree and settles the page count as
    /// pdfium does: the root's `/Count` when it is 1 to 0xFFFFE, else the
    /// leaves counted by walking the whole tree. The first page must be
    /// reachable: a file whose tree is broken from the start, or that has
    /// no page, is [`Unsupported`].
    fn start_page_tree(&self) -> Result<(PageTree, u32), Unsupported> {
        let catalog = self
            .get_in(&self.trailer, b"Root")?
            .ok_or_else(|| Unsupported::new("no catalog"))?;
        let root = catalog
            .dict_or("the catalog")?
            .get(b"Pages")
            .ok_or_else(|| Unsupported::new("no page tree"))?
            .clone();
        let mut tree = PageTree::default();
        tree.visit(self, &root, &Rc::default())?;
        let root_dict = match tree.stack.first() {
            Some(frame) => Rc::clone(&frame.node),
            // A root without kids is the only page (pdfium).
            None => return Ok((tree, 1)),
        };
        let count = self.get_in(&root_dict, b"Count")?.and_then(|c| c.as_i64());
        let count = match count.filter(|c| (1..MAX_PAGE_COUNT).contains(c)) {
            Some(count) => count as u32,
            None => {
                tree.walk_to(self, usize::MAX)?;
                tree.pages.len() as u32
            }
        };
        tree.walk_to(self, 0)?;
        if count == 0 || tree.pages.is_empty() {
            return Err(Unsupported::new("no page"));
        }
        Ok((tree, count))
    }

    /// Leaf `index` of the page tree, walking on to it when it has not
    /// been met yet.
    fn page_slot(&self, index: u32) -> Result<PageSlot, Unsupported> {
        if index >= self.page_count {
            return Err(Unsupported::new("no such page"));
        }
        let mut tree = self.page_tree.borrow_mut();
        tree.walk_to(self, index as usize)?;
        tree.pages
            .get(index as usize)
            .cloned()
            .ok_or_else(|| Unsupported::new("the page tree has fewer pages than /Count says"))
    }
}

/// A walk down the page tree, depth first, kids in order, taken only as
/// far as the pages asked for: a book's page dictionaries are often each
/// in an object stream of its own, and reading them all would cost more
/// than reading its first pages.
#[derive(Default)]
struct PageTree {
    /// The leaves met so far, in order.
    pages: Vec<PageSlot>,
    /// The inner nodes the walk is in, the root first.
    stack: Vec<Frame>,
    /// Object numbers of the inner nodes met: a node met twice is a loop
    /// (or a shared subtree, which could multiply the pages without end).
    nodes_seen: HashSet<u32>,
    /// Why the walk stopped early, if it did: the pages after those met
    /// cannot be had.
    broken: Option<Unsupported>,
}

/// An inner node of the page tree and the next kid to walk.
struct Frame {
    node: Rc<Dict>,
    kids: Rc<[Object]>,
    next: usize,
    inherited: Rc<Inherited>,
}

impl PageTree {
    /// Walks on until leaf `index` is met or the tree ends.
    fn walk_to(&mut self, file: &File, index: usize) -> Result<(), Unsupported> {
        while self.pages.len() <= index {
            if let Some(why) = &self.broken {
                return Err(why.clone());
            }
            let Some(frame) = self.stack.last_mut() else {
                return Ok(());
            };
            let Some(kid) = frame.kids.get(frame.next).cloned() else {
                self.stack.pop();
                continue;
            };
            frame.next += 1;
            let inherited = Rc::clone(&frame.inherited);
            if let Err(why) = self.visit(file, &kid, &inherited) {
                self.broken = Some(why.clone());
                return Err(why);
            }
        }
        Ok(())
    }

    /// Meets the node `o` refers to: a page is added to the leaves, an
    /// inner node entered. A node with `/Kids` is an inner node, any other
    /// a page (as pdfium tells them apart, whatever `/Type` says).
    fn visit(
        &mut self,
        file: &File,
        o: &Object,
        inherited: &Rc<Inherited>,
    ) -> Result<(), Unsupported> {
        let dict = match file.resolve(o)? {
            Object::Dict(d) => d,
            _ => return Err(Unsupported::new("a page tree node is not a dictionary")),
        };
        let Some(kids) = dict.get(b"Kids") else {
            self.pages.push(PageSlot {
                dict,
                inherited: Rc::clone(inherited),
            });
            return Ok(());
        };
        if self.stack.len() >= MAX_TREE_DEPTH {
            return Err(Unsupported::new("the page tree is too deep"));
        }
        if let Object::Ref(r) = o {
            if !self.nodes_seen.insert(r.num) {
                return Err(Unsupported::new("the page tree loops"));
            }
        }
        let Object::Array(kids) = file.resolve(kids)? else {
            return Err(Unsupported::new("/Kids is not an array"));
        };
        self.stack.push(Frame {
            inherited: Inherited::under(inherited, &dict),
            node: dict,
            kids,
            next: 0,
        });
        Ok(())
    }
}

/// Adds the keys of an older section's trailer that the newer one does
/// not have: pdfium keeps, say, an `/Info` an update's trailer leaves out.
fn merge_older_trailer(newer: &mut Dict, older: Dict) {
    for (key, value) in older.entries {
        if matches!(&*key, b"Prev" | b"XRefStm") || newer.get(&key).is_some() {
            continue;
        }
        newer.entries.push((key, value));
    }
}

/// Where `%PDF-` starts (within the first KiB).
fn find_header(bytes: &[u8]) -> Result<usize, Unsupported> {
    let window = &bytes[..bytes.len().min(HEADER_WINDOW)];
    find(window, b"%PDF-").ok_or_else(|| Unsupported::new("no %PDF- header"))
}

/// The offset after the last `startxref` near the end of the file.
fn find_startxref(bytes: &[u8]) -> Result<usize, Unsupported> {
    let from = bytes.len().saturating_sub(STARTXREF_WINDOW);
    let at = rfind(&bytes[from..], b"startxref").ok_or_else(|| Unsupported::new("no startxref"))?;
    let mut pos = from + at + b"startxref".len();
    read_uint(bytes, &mut pos)
        .and_then(|v| usize::try_from(v).ok())
        .filter(|&v| v > 0)
        .ok_or_else(|| Unsupported::new("startxref has no offset"))
}

/// The entries of a classic table from after `xref`, and where the
/// trailer dictionary starts. Entries are read as three tokens each, so
/// 19- and 21-byte lines do as well as 20-byte ones.
fn parse_table(
    bytes: &[u8],
    mut pos: usize,
    header: usize,
) -> Result<(Vec<(u64, Entry)>, usize), Unsupported> {
    let damaged = || Unsupported::new("a damaged cross-reference table");
    let mut entries = Vec::new();
    loop {
        pos = skip_white(bytes, pos);
        if bytes
            .get(pos..)
            .is_some_and(|rest| rest.starts_with(b"trailer"))
        {
            return Ok((entries, pos + b"trailer".len()));
        }
        let first = read_uint(bytes, &mut pos).ok_or_else(damaged)?;
        let count = read_uint(bytes, &mut pos).ok_or_else(damaged)?;
        for i in 0..count {
            let offset = read_uint(bytes, &mut pos).ok_or_else(damaged)?;
            read_uint(bytes, &mut pos).ok_or_else(damaged)?;
            pos = skip_white(bytes, pos);
            let entry = match bytes.get(pos) {
                Some(b'n') => Entry::InFile {
                    offset: header.saturating_add(usize::try_from(offset).unwrap_or(usize::MAX)),
                },
                Some(b'f') => Entry::Free,
                _ => return Err(damaged()),
            };
            pos += 1;
            let num = first.saturating_add(i);
            if num >= MAX_OBJECT_NUMBER {
                return Err(Unsupported::new("object numbers too large"));
            }
            entries.push((num, entry));
        }
    }
}

/// `/W` of a cross-reference stream: three field widths of at most 8
/// bytes, not all 0.
fn xref_widths(dict: &Dict) -> Result<[usize; 3], Unsupported> {
    let bad = || Unsupported::new("a bad /W in a cross-reference stream");
    let w = dict.get(b"W").and_then(Object::as_array).ok_or_else(bad)?;
    if w.len() != 3 {
        return Err(bad());
    }
    let mut widths = [0usize; 3];
    for (slot, o) in widths.iter_mut().zip(w) {
        *slot = o.as_i64().filter(|n| (0..=8).contains(n)).ok_or_else(bad)? as usize;
    }
    if widths.iter().sum::<usize>() == 0 {
        return Err(bad());
    }
    Ok(widths)
}

/// `/Index` of a cross-reference stream as (first, count) pairs; `[0
/// /Size]` when absent.
fn xref_index(dict: &Dict) -> Result<Vec<(u64, u64)>, Unsupported> {
    let bad = || Unsupported::new("a bad /Index in a cross-reference stream");
    let number = |o: &Object| o.as_i64().and_then(|n| u64::try_from(n).ok());
    let Some(index) = dict.get(b"Index") else {
        let size = dict.get(b"Size").and_then(number).ok_or_else(bad)?;
        return Ok(vec![(0, size)]);
    };
    let items = index.as_array().ok_or_else(bad)?;
    if items.len() % 2 != 0 {
        return Err(bad());
    }
    items
        .chunks_exact(2)
        .map(|pair| {
            Ok((
                number(&pair[0]).ok_or_else(bad)?,
                number(&pair[1]).ok_or_else(bad)?,
            ))
        })
        .collect()
}

/// One row of a cross-reference stream. Type 1 is the default when the
/// first field is absent; unknown types are not listed.
fn xref_stream_entry(fields: &[u8], widths: [usize; 3], header: usize) -> Option<Entry> {
    let (kind, rest) = fields.split_at(widths[0]);
    let (second, third) = rest.split_at(widths[1]);
    let kind = if widths[0] == 0 { 1 } else { big_endian(kind) };
    let (second, third) = (big_endian(second), big_endian(third));
    match kind {
        0 => Some(Entry::Free),
        1 => Some(Entry::InFile {
            offset: header.saturating_add(usize::try_from(second).unwrap_or(usize::MAX)),
        }),
        2 => Some(Entry::InStream {
            stream: u32::try_from(second).ok()?,
            index: u32::try_from(third).ok()?,
        }),
        _ => None,
    }
}

fn big_endian(field: &[u8]) -> u64 {
    field.iter().fold(0, |acc, &b| (acc << 8) | b as u64)
}

/// The (object number, offset in `data`) pairs at the start of an object
/// stream's data (offsets there count from `/First`). An offset past the
/// data is kept as the data's end, so that the indices stay right: the
/// object there is null.
fn object_stream_offsets(
    data: &[u8],
    count: i64,
    first: i64,
) -> Result<Vec<(u32, usize)>, Unsupported> {
    let bad = || Unsupported::new("a damaged object stream");
    let first = usize::try_from(first)
        .ok()
        .filter(|&f| f <= data.len())
        .ok_or_else(bad)?;
    // Each pair takes at least four bytes: a bigger /N is a lie.
    let count = usize::try_from(count)
        .ok()
        .filter(|&n| n <= first / 4 + 1)
        .ok_or_else(bad)?;
    let mut lx = Lexer::new(&data[..first]);
    let mut objects = Vec::with_capacity(count);
    for _ in 0..count {
        let (Some(Token::Int(num)), Some(Token::Int(offset))) = (lx.token()?, lx.token()?) else {
            return Err(bad());
        };
        let num = u32::try_from(num).map_err(|_| bad())?;
        let offset = usize::try_from(offset).map_err(|_| bad())?;
        let at = first.saturating_add(offset).min(data.len());
        objects.push((num, at));
    }
    Ok(objects)
}

/// The object after `obj`; nothing before `endobj` is the null object.
fn object_before_endobj(lx: &mut Lexer) -> Result<Object, Unsupported> {
    let save = lx.pos;
    if let Ok(Some(Token::Keyword(b"endobj"))) = lx.token() {
        return Ok(Object::Null);
    }
    lx.pos = save;
    Ok(lx.object()?.unwrap_or(Object::Null))
}

/// Where a stream's data ends: at `/Length` when `endstream` follows
/// there, else before the first `endstream`, or `endobj` when that comes
/// first (pdfium does the same).
fn stream_extent(
    bytes: &[u8],
    start: usize,
    length: Option<usize>,
) -> Result<Range<usize>, Unsupported> {
    if let Some(end) = length
        .and_then(|l| start.checked_add(l))
        .filter(|&e| e <= bytes.len())
    {
        let after = skip_white(bytes, end);
        if bytes[after..].starts_with(b"endstream") {
            return Ok(start..end);
        }
    }
    let rest = bytes.get(start..).unwrap_or_default();
    let found =
        find(rest, b"endstream").ok_or_else(|| Unsupported::new("a stream without endstream"))?;
    let found = find(&rest[..found], b"endobj").unwrap_or(found);
    let mut end = start + found;
    if end > start && bytes[end - 1] == b'\n' {
        end -= 1;
    }
    if end > start && bytes[end - 1] == b'\r' {
        end -= 1;
    }
    Ok(start..end)
}

/// After the `stream` keyword: its end of line (CR LF, LF or a lone CR).
fn after_eol(bytes: &[u8], mut pos: usize) -> usize {
    if bytes.get(pos) == Some(&b'\r') {
        pos += 1;
    }
    if bytes.get(pos) == Some(&b'\n') {
        pos += 1;
    }
    pos
}

fn skip_white(bytes: &[u8], mut pos: usize) -> usize {
    while bytes.get(pos).is_some_and(|&b| is_white(b)) {
        pos += 1;
    }
    pos.min(bytes.len())
}

/// An unsigned integer after white space; `None` when there are no
/// digits or too many.
fn read_uint(bytes: &[u8], pos: &mut usize) -> Option<u64> {
    let start = skip_white(bytes, *pos);
    let digits = bytes[start..]
        .iter()
        .take_while(|b| b.is_ascii_digit())
        .count();
    if digits == 0 || digits > 18 {
        return None;
    }
    *pos = start + digits;
    Some(
        bytes[start..start + digits]
            .iter()
            .fold(0, |acc, &d| acc * 10 + (d - b'0') as u64),
    )
}

/// A direct positive integer under `key`, as an offset.
fn offset_in(dict: &Dict, key: &[u8]) -> Option<usize> {
    dict.get(key)
        .and_then(Object::as_i64)
        .filter(|&v| v > 0)
        .and_then(|v| usize::try_from(v).ok())
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn rfind(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).rposition(|w| w == needle)
}

/// The part of `a` inside `b`; all zeros when they do not meet (pdfium's
/// `CFX_FloatRect::Intersect`).
fn intersect(a: [f64; 4], b: [f64; 4]) -> [f64; 4] {
    let r = [
        a[0].max(b[0]),
        a[1].max(b[1]),
        a[2].min(b[2]),
        a[3].min(b[3]),
    ];
    if r[0] > r[2] || r[1] > r[3] {
        [0.0; 4]
    } else {
        r
    }
}

/// `/Rotate` as pdfium reads it: the integer part, in quarter turns
/// toward zero, modulo four (so -90 is 270, 100 is 90 and -45 is 0).
fn normalise_rotation(degrees: f64) -> u32 {
    let degrees = degrees.clamp(i32::MIN as f64, i32::MAX as f64) as i64;
    let quarters = (degrees / 90) % 4;
    (if quarters < 0 { quarters + 4 } else { quarters }) as u32 * 90
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    /// A file with a classic table: `objects[i]` is object i+1, written
    /// after `prefix` (junk before the header, or nothing).
    fn classic(prefix: &[u8], objects: &[Vec<u8>], trailer: &str) -> Vec<u8> {
        let mut out = prefix.to_vec();
        let base = out.len();
        out.extend_from_slice(b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n");
        let mut offsets = Vec::new();
        for (i, body) in objects.iter().enumerate() {
            offsets.push(out.len() - base);
            writeln!(out, "{} 0 obj", i + 1).unwrap();
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let xref = out.len() - base;
        write!(out, "xref\n0 {}\n0000000000 65535 f\r\n", objects.len() + 1).unwrap();
        for o in offsets {
            write!(out, "{o:010} 00000 n\r\n").unwrap();
        }
        let size = objects.len() + 1;
        write!(
            out,
            "trailer\n<< /Size {size} /Root 1 0 R {trailer} >>\nstartxref\n{xref}\n%%EOF\n"
        )
        .unwrap();
        out
    }

    fn text(objects: &[&str]) -> Vec<Vec<u8>> {
        objects.iter().map(|s| s.as_bytes().to_vec()).collect()
    }

    fn zlib(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn stream(dict: &str, data: &[u8]) -> Vec<u8> {
        let mut out = format!("<< {dict} >>\nstream\r\n").into_bytes();
        out.extend_from_slice(data);
        out.extend_from_slice(b"\nendstream");
        out
    }

    fn open(bytes: Vec<u8>) -> Result<File, Unsupported> {
        File::open(bytes.into())
    }

    fn r(num: u32) -> ObjRef {
        ObjRef { num, generation: 0 }
    }

    /// Catalog, a two-level page tree with inherited attributes, three
    /// pages, contents with an indirect and a wrong `/Length`, an info
    /// dictionary.
    fn sample_objects() -> Vec<Vec<u8>> {
        let content = b"BT /F1 12 Tf (Hi) Tj ET";
        let z = zlib(content);
        let mut objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 /MediaBox [0 0 500 700] /Resources << /Font << /F1 9 0 R >> >> >>",
            "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /Rotate -90 /CropBox [-10 10 400 900] >>",
            "<< /Type /Pages /Parent 2 0 R /Kids [11 0 R 10 0 R] /Count 2 /Rotate 180 /MediaBox [600 800 0 0] >>",
        ]);
        objects.push(stream("/Length 8 0 R /Filter /FlateDecode", &z));
        objects.push(stream("/Length 999", content).to_vec());
        objects.push(b"<< /Title (A title) /Producer (test) >>".to_vec());
        objects.push(z.len().to_string().into_bytes());
        objects.push(b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>".to_vec());
        objects
            .push(b"<< /Parent 4 0 R /Resources << >> /MediaBox [0 0 0 0] /Rotate 45 >>".to_vec());
        objects.push(b"<< /Type /Page /Parent 4 0 R /Contents 6 0 R >>".to_vec());
        objects
    }

    #[test]
    fn classic_file_pages_and_streams() {
        let file = open(classic(b"", &sample_objects(), "/Info 7 0 R")).unwrap();
        assert_eq!(file.page_count(), 3);
        let first = file.page(0).unwrap();
        assert_eq!(first.media_box, [0.0, 0.0, 500.0, 700.0]);
        assert_eq!(first.crop_box, [0.0, 10.0, 400.0, 700.0]);
        assert_eq!(first.rotate, 270);
        assert!(first.resources.get(b"Font").is_some());
        let contents = file.get_in(&first.dict, b"Contents").unwrap().unwrap();
        let data = file.decode(contents.as_stream().unwrap()).unwrap();
        assert_eq!(data, b"BT /F1 12 Tf (Hi) Tj ET");

        let second = file.page(1).unwrap();
        assert_eq!(second.media_box, [0.0, 0.0, 600.0, 800.0]);
        assert_eq!(second.crop_box, second.media_box);
        assert_eq!(second.rotate, 180);
        // A wrong /Length: the data ends before `endstream`.
        let raw = file.get(r(6)).unwrap();
        let raw = raw.as_stream().unwrap();
        assert_eq!(&file.bytes()[raw.data.clone()], b"BT /F1 12 Tf (Hi) Tj ET");

        let third = file.page(2).unwrap();
        assert_eq!(third.media_box, LETTER, "an empty media box is Letter");
        assert_eq!(third.rotate, 0);
        assert!(third.resources.entries.is_empty());
        assert!(file.page(3).is_err());

        let info = file.info().unwrap();
        assert_eq!(
            info.get(b"Title").unwrap().as_string(),
            Some(b"A title".as_slice())
        );
        assert_eq!(file.get(r(42)).unwrap(), Object::Null);
        assert_eq!(file.get(r(0)).unwrap(), Object::Null);
    }

    #[test]
    fn junk_before_the_header_and_after_eof() {
        let mut bytes = classic(b"From: someone\r\n\r\n", &sample_objects(), "");
        bytes.extend_from_slice(&[b'x'; 1500]);
        let file = open(bytes).unwrap();
        assert_eq!(file.page_count(), 3);
        assert!(file.info().is_none());
    }

    /// An incremental update: the newer section's object 3 wins; the
    /// older trailer's `/Info` is kept.
    #[test]
    fn newest_section_wins() {
        let mut bytes = classic(b"", &sample_objects(), "/Info 7 0 R");
        let old_xref = find_startxref(&bytes).unwrap();
        let offset = bytes.len();
        bytes.extend_from_slice(b"3 0 obj\n<< /Type /Page /Parent 2 0 R /Rotate 90 >>\nendobj\n");
        let xref = bytes.len();
        write!(
            bytes,
            "xref\n3 1\n{offset:010} 00000 n \n8 1\n0000000000 00001 f \ntrailer\n<< /Size 12 /Root 1 0 R /Prev {old_xref} >>\nstartxref\n{xref}\n%%EOF"
        )
        .unwrap();
        let file = open(bytes).unwrap();
        assert_eq!(file.page(0).unwrap().rotate, 90);
        assert_eq!(file.get(r(8)).unwrap(), Object::Null, "freed in the update");
        assert!(file.info().is_some());
        assert!(
            file.get(r(9)).unwrap().as_dict().is_some(),
            "from the older section"
        );
    }

    /// The pairs and the objects of an object stream holding objects 1,
    /// 2... in order.
    fn object_stream_data(members: &[&str]) -> (String, String) {
        let mut header = String::new();
        let mut body = String::new();
        for (i, m) in members.iter().enumerate() {
            header.push_str(&format!("{} {} ", i + 1, body.len()));
            body.push_str(m);
            body.push(' ');
        }
        (header, body)
    }

    /// Objects 1 to 3 in an object stream, object 5 the contents, object
    /// 6 a cross-reference stream with a PNG predictor.
    fn xref_stream_file() -> Vec<u8> {
        let members = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /Contents 5 0 R /MediaBox [0 0 300 400] >>",
        ];
        let (header, body) = object_stream_data(&members);
        let objstm_data = format!("{header}{body}");
        let first = header.len();

        let mut out = b"%PDF-1.5\n".to_vec();
        let objstm_at = out.len();
        let z = zlib(objstm_data.as_bytes());
        out.extend(format!("4 0 obj\n<< /Type /ObjStm /N 3 /First {first} /Length {} /Filter /FlateDecode >>\nstream\n", z.len()).bytes());
        out.extend_from_slice(&z);
        out.extend_from_slice(b"\nendstream\nendobj\n");
        let contents_at = out.len();
        out.extend_from_slice(b"5 0 obj\n<< /Length 3 0 R >>\nstream\nBT ET\nendstream\nendobj\n");
        let xref_at = out.len();

        // Rows of /W [1 2 1], each with the PNG Up filter.
        let rows: [[u8; 4]; 7] = [
            [0, 0, 0, 0],
            [2, 0, 4, 0],
            [2, 0, 4, 1],
            [2, 0, 4, 2],
            [1, (objstm_at >> 8) as u8, objstm_at as u8, 0],
            [1, (contents_at >> 8) as u8, contents_at as u8, 0],
            [1, (xref_at >> 8) as u8, xref_at as u8, 0],
        ];
        let mut filtered = Vec::new();
        let mut prev = [0u8; 4];
        for row in rows {
            filtered.push(2);
            filtered.extend(row.iter().zip(prev).map(|(b, p)| b.wrapping_sub(p)));
            prev = row;
        }
        let z = zlib(&filtered);
        out.extend(format!("6 0 obj\n<< /Type /XRef /Size 7 /W [1 2 1] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Predictor 12 /Columns 4 >> /Length {} >>\nstream\r\n", z.len()).bytes());
        out.extend_from_slice(&z);
        out.extend(format!("\nendstream\nendobj\nstartxref\n{xref_at}\n%%EOF\n").bytes());
        out
    }

    #[test]
    fn xref_stream_and_object_stream() {
        let file = open(xref_stream_file()).unwrap();
        assert_eq!(file.page_count(), 1);
        let page = file.page(0).unwrap();
        assert_eq!(page.media_box, [0.0, 0.0, 300.0, 400.0]);
        assert_eq!(page.crop_box, page.media_box);
        // /Length 3 0 R refers to a dictionary: the data is found by
        // `endstream`.
        let contents = file.get_in(&page.dict, b"Contents").unwrap().unwrap();
        assert_eq!(
            file.decode(contents.as_stream().unwrap()).unwrap(),
            b"BT ET"
        );
        assert_eq!(file.trailer().name(b"Type"), Some(b"XRef".as_slice()));
    }

    /// A hybrid file: the table lists objects 1 to 3 as free, its
    /// `/XRefStm` puts them in object stream 4.
    #[test]
    fn hybrid_file_reads_its_xref_stream() {
        let members = [
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /Rotate 90 >>",
        ];
        let (header, body) = object_stream_data(&members);
        let mut out = b"%PDF-1.4\n".to_vec();
        let objstm_at = out.len();
        let data = format!("{header}{body}");
        write!(out, "4 0 obj\n<< /Type /ObjStm /N 3 /First {} /Length {} >>\nstream\n{data}\nendstream\nendobj\n", header.len(), data.len()).unwrap();
        let xref_stm_at = out.len();
        let rows = [2u8, 0, 4, 0, 2, 0, 4, 1, 2, 0, 4, 2];
        write!(
            out,
            "5 0 obj\n<< /Type /XRef /Size 6 /W [1 2 1] /Index [1 3] /Length 12 >>\nstream\n"
        )
        .unwrap();
        out.extend_from_slice(&rows);
        out.extend_from_slice(b"\nendstream\nendobj\n");
        let xref_at = out.len();
        write!(out, "xref\n0 6\n0000000000 65535 f \n0000000000 65535 f \n0000000000 65535 f \n0000000000 65535 f \n{objstm_at:010} 00000 n \n{xref_stm_at:010} 00000 n \n").unwrap();
        write!(out, "trailer\n<< /Size 6 /Root 1 0 R /XRefStm {xref_stm_at} >>\nstartxref\n{xref_at}\n%%EOF\n").unwrap();
        let file = open(out).unwrap();
        assert_eq!(file.page_count(), 1);
        assert_eq!(file.page(0).unwrap().rotate, 90);
    }

    #[test]
    fn odd_objects_and_streams() {
        let mut objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
        ]);
        // A wrong /Length and no `endstream` before `endobj`.
        objects.push(b"<< /Length 1 >>\nstream\nq Q\nendobj\n".to_vec());
        objects.push(Vec::new());
        // One filter, its parameters in an array: pdfium uses none.
        let z = zlib(b"abc");
        objects.push(stream(
            &format!(
                "/Length {} /Filter /FlateDecode /DecodeParms [<< /Predictor 12 /Columns 1 >>]",
                z.len()
            ),
            &z,
        ));
        objects.push(stream(
            "/Filter [/AHx /RL] /DecodeParms << /Predictor 12 >>",
            b"02616263 80>",
        ));
        let file = open(classic(b"", &objects, "")).unwrap();
        let contents = file.get(r(4)).unwrap();
        assert_eq!(file.decode(contents.as_stream().unwrap()).unwrap(), b"q Q");
        assert_eq!(file.get(r(5)).unwrap(), Object::Null);
        let six = file.get(r(6)).unwrap();
        assert_eq!(file.decode(six.as_stream().unwrap()).unwrap(), b"abc");
        let seven = file.get(r(7)).unwrap();
        assert_eq!(file.decode(seven.as_stream().unwrap()).unwrap(), b"abc");
    }

    #[test]
    fn encrypted_is_unsupported() {
        let objects = sample_objects();
        let err = open(classic(b"", &objects, "/Encrypt << /Filter /Standard >>"))
            .err()
            .unwrap();
        assert_eq!(err.why, "encrypted");
    }

    #[test]
    fn page_count_as_pdfium() {
        // /Count is taken at its word; a page the tree lacks, or past
        // damage in it, cannot be had.
        let objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R 4 0 R] /Count 3 >>",
            "<< /Type /Page /Parent 2 0 R >>",
            "<< /Type /Pages /Kids [5 0 R 42] >>",
            "<< /Type /Page /Parent 4 0 R >>",
        ]);
        let file = open(classic(b"", &objects, "")).unwrap();
        assert_eq!(file.page_count(), 3);
        assert!(file.page(1).is_ok());
        assert!(file.page(2).is_err(), "a kid that is not a dictionary");
        assert!(file.page(3).is_err());
        let objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 2 >>",
            "<< /Type /Page /Parent 2 0 R >>",
        ]);
        let file = open(classic(b"", &objects, "")).unwrap();
        assert_eq!(file.page_count(), 2);
        assert!(file.page(1).is_err());
        // No page at all.
        let objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [] /Count 0 >>",
        ]);
        assert!(open(classic(b"", &objects, "")).is_err());
        // Without a /Count, the tree's leaves are counted (damage
        // anywhere is then unsupported); a lone /Pages without kids is
        // the page.
        let objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R 4 0 R] >>",
            "<< /Parent 2 0 R >>",
            "<< /Kids 9 0 R >>",
        ]);
        assert!(open(classic(b"", &objects, "")).is_err());
        let objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R 3 0 R] >>",
            "<< /Parent 2 0 R >>",
        ]);
        assert_eq!(open(classic(b"", &objects, "")).unwrap().page_count(), 2);
        let objects = text(&["<< /Type /Catalog /Pages 2 0 R >>", "<< /Type /Pages >>"]);
        assert_eq!(open(classic(b"", &objects, "")).unwrap().page_count(), 1);
    }

    #[test]
    fn loops_are_unsupported() {
        let kids_loop = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] >>",
            "<< /Type /Pages /Kids [2 0 R] >>",
        ]);
        assert!(open(classic(b"", &kids_loop, "")).is_err());
        let deep: Vec<String> = (1..200)
            .map(|i| format!("<< /Type /Pages /Kids [{} 0 R] >>", i + 1))
            .collect();
        let mut deep: Vec<&str> = deep.iter().map(String::as_str).collect();
        deep[0] = "<< /Type /Catalog /Pages 2 0 R >>";
        assert!(open(classic(b"", &text(&deep), "")).is_err());

        let mut prev_loop = classic(b"", &sample_objects(), "");
        let xref = find_startxref(&prev_loop).unwrap();
        let tail = format!("/Prev {xref} >>");
        let at = rfind(&prev_loop, b">>\nstartxref").unwrap();
        prev_loop.splice(at..at + 2, tail.bytes());
        assert_eq!(find_startxref(&prev_loop).unwrap(), xref);
        assert!(open(prev_loop).is_err());

        let ref_loop = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /Resources 4 0 R >>",
            "5 0 R",
            "4 0 R",
        ]);
        let file = open(classic(b"", &ref_loop, "")).unwrap();
        assert!(file.page(0).is_err());
    }

    #[test]
    fn self_referring_length_is_bounded() {
        let mut objects = text(&[
            "<< /Type /Catalog /Pages 2 0 R >>",
            "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
            "<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>",
        ]);
        objects.push(stream("/Length 4 0 R", b"q Q"));
        let file = open(classic(b"", &objects, "")).unwrap();
        let contents = file.get(r(4)).unwrap();
        assert_eq!(file.decode(contents.as_stream().unwrap()).unwrap(), b"q Q");
    }

    /// Every prefix of a good file, and a good file with bytes
    /// overwritten, opens or fails, without panicking.
    #[test]
    fn damaged_files_do_not_panic() {
        for good in [
            classic(b"", &sample_objects(), "/Info 7 0 R"),
            xref_stream_file(),
        ] {
            for cut in (0..good.len()).step_by(7) {
                let _ = open(good[..cut].to_vec());
            }
            for at in (0..good.len()).step_by(5) {
                let mut bad = good.clone();
                for b in &mut bad[at..(at + 3).min(good.len())] {
                    *b = b'9';
                }
                if let Ok(file) = open(bad) {
                    for i in 0..file.page_count() {
                        if let Ok(page) = file.page(i) {
                            if let Ok(Some(Object::Stream(s))) =
                                file.get_in(&page.dict, b"Contents")
                            {
                                let _ = file.decode(&s);
                            }
                        }
                    }
                    let _ = file.info();
                }
            }
        }
        assert!(open(b"garbage".to_vec()).is_err());
        assert!(open(Vec::new()).is_err());
        assert!(open(b"%PDF-1.4\nstartxref\n99999999999\n%%EOF".to_vec()).is_err());
    }

    #[test]
    fn rotation_as_pdfium() {
        let cases = [
            (0.0, 0),
            (90.0, 90),
            (-90.0, 270),
            (450.0, 90),
            (100.0, 90),
            (-45.0, 0),
            (-180.0, 180),
            (1e30, 90),
        ];
        for (degrees, want) in cases {
            assert_eq!(normalise_rotation(degrees), want, "{degrees}");
        }
    }
}
