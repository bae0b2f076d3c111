//! The metadata update of one PDF as an incremental update (ISO 32000-1
//! 7.5.6): new versions of the Info dictionary, the XMP stream and (when it
//! gains a `/Metadata` entry) the catalog are appended after the original
//! bytes, followed by a cross-reference section of the same kind as the
//! file's last one (a table, or a stream when the file used xref streams)
//! whose `/Prev` is the original `startxref`. The original bytes stay an
//! exact prefix, which is what makes undo a truncation.
//!
//! lopdf parses the original (including xref and object streams) and
//! serialises the few objects we write; the framing — object headers, xref
//! section, trailer — is written here so that nothing but our objects is
//! appended. Files that are encrypted, signed or whose cross-reference data
//! had to be repaired to be read are refused: an update would break the
//! signature, need the key, or chain onto offsets that are wrong.

use super::xmp::{self, XmpFields};
use crate::inspect::quick::encoding::PDF_DOC_SPECIAL;
use crate::model::Metadata;
use lopdf::{Dictionary, Document, Object, ObjectId, StringFormat, Writer};
use std::collections::HashSet;
use std::fmt;
use unicode_normalization::UnicodeNormalization;

/// Why a PDF is left untouched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// `/Encrypt` in the trailer: strings would need the key to be written.
    Encrypted,
    /// Signature fields or `/SigFlags`: any change invalidates the signature.
    Signed,
    /// lopdf had to repair the cross-reference data (or could not find the
    /// last `startxref`): an update chained onto it would inherit the damage.
    DamagedXref(String),
    /// lopdf cannot parse the file at all.
    Unreadable(String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::Encrypted => write!(f, "encrypted PDF: not modified"),
            Refusal::Signed => write!(
                f,
                "signed PDF (signature fields): not modified, a change would invalidate the signature"
            ),
            Refusal::DamagedXref(why) => {
                write!(f, "cross-reference data is damaged ({why}): not modified")
            }
            Refusal::Unreadable(why) => write!(f, "cannot parse PDF ({why}): not modified"),
        }
    }
}

/// What the update of one file consists of.
#[derive(Debug, Clone)]
pub struct Update {
    /// Bytes to append to the original. Empty when the Info dictionary and
    /// the XMP packet already hold these values (idempotent second run).
    pub appended: Vec<u8>,
    /// Page count of the original, to compare after writing.
    pub page_count: usize,
    /// Info entries written (key, text), to read back after writing.
    pub info: Vec<(&'static str, String)>,
    /// Offset of the appended cross-reference section (the new `startxref`).
    pub new_startxref: Option<usize>,
    /// Things worth telling the user (an unreadable XMP packet replaced).
    pub warnings: Vec<String>,
}

/// The Info entries colophon writes, from decided metadata. Keys without a
/// value are left as the file has them.
pub fn info_entries(meta: &Metadata) -> Vec<(&'static str, String)> {
    let nfc = |s: &str| -> String { s.nfc().collect::<String>().trim().to_string() };
    let mut out = Vec::new();
    let mut push = |key: &'static str, v: Option<String>| {
        if let Some(v) = v.filter(|v| !v.is_empty()) {
            out.push((key, v));
        }
    };
    push("Title", meta.title.as_deref().map(nfc));
    if !meta.authors.is_empty() {
        let authors: Vec<String> = meta.authors.iter().map(|a| nfc(a)).collect();
        push("Author", Some(authors.join("; ")));
    }
    push("Subject", meta.subtitle.as_deref().map(nfc));
    push("ISBN", meta.isbn.as_deref().map(nfc));
    push("DOI", meta.doi.as_deref().map(nfc));
    push("LCCN", meta.loc.as_deref().map(nfc));
    push("Publisher", meta.publisher.as_deref().map(nfc));
    push("Edition", meta.edition.as_deref().map(nfc));
    push("Year", meta.year.map(|y| y.to_string()));
    out
}

/// The XMP values matching [`info_entries`].
fn xmp_fields(meta: &Metadata) -> XmpFields {
    let nfc = |s: &String| -> String { s.nfc().collect::<String>().trim().to_string() };
    let some = |s: Option<&String>| s.map(nfc).filter(|s| !s.is_empty());
    let identifier = if let Some(isbn) = some(meta.isbn.as_ref()) {
        Some(format!("urn:isbn:{isbn}"))
    } else {
        some(meta.doi.as_ref()).map(|doi| format!("doi:{doi}"))
    };
    XmpFields {
        title: some(meta.title.as_ref()),
        description: some(meta.subtitle.as_ref()),
        creators: meta
            .authors
            .iter()
            .map(nfc)
            .filter(|s| !s.is_empty())
            .collect(),
        publisher: some(meta.publisher.as_ref()),
        date: meta.year.map(|y| y.to_string()),
        identifier,
        doi: some(meta.doi.as_ref()),
        isbn: some(meta.isbn.as_ref()),
    }
}

/// Works out the update that puts `meta` into the PDF `bytes`.
pub fn plan(bytes: &[u8], meta: &Metadata) -> Result<Update, Refusal> {
    let (doc, prev) = load_for_update(bytes)?;
    let root_id = doc
        .trailer
        .get(b"Root")
        .and_then(Object::as_reference)
        .map_err(|_| Refusal::Unreadable("trailer has no /Root reference".into()))?;
    let catalog = doc
        .get_dictionary(root_id)
        .map_err(|e| Refusal::Unreadable(format!("catalog: {e}")))?;
    let page_count = doc.get_pages().len();

    let mut ids = Ids {
        next: trailer_size(&doc).max(doc.max_id.saturating_add(1)),
    };
    let mut objects: Vec<(ObjectId, Vec<u8>)> = Vec::new();
    let mut warnings = Vec::new();
    let info = info_entries(meta);
    let trailer_info = update_info(&doc, &info, &mut ids, &mut objects);
    let xmp_update = XmpUpdate {
        doc: &doc,
        catalog,
        root_id,
    };
    warnings.extend(xmp_update.apply(meta, &mut ids, &mut objects));

    if objects.is_empty() {
        return Ok(Update {
            appended: Vec::new(),
            page_count,
            info,
            new_startxref: None,
            warnings,
        });
    }
    let section = Section {
        doc: &doc,
        base: bytes.len(),
        root_id,
        trailer_info,
        prev,
        next_id: ids.next,
    };
    let (out, xref_at) = section.frame(bytes, objects);
    Ok(Update {
        appended: out,
        page_count,
        info,
        new_startxref: Some(xref_at),
        warnings,
    })
}

/// Loads `bytes` for an incremental update: refuses an encrypted or signed
/// file and one whose cross-reference data needed repair. Returns the
/// document and the offset of its last cross-reference section.
fn load_for_update(bytes: &[u8]) -> Result<(Document, usize), Refusal> {
    let doc = match Document::load_mem(bytes) {
        Ok(doc) => doc,
        // A PDF whose key we lack often fails to load at all.
        Err(_) if mentions_encrypt(bytes) => return Err(Refusal::Encrypted),
        Err(e) => return Err(Refusal::Unreadable(e.to_string())),
    };
    if doc.trailer.has(b"Encrypt")
        || doc.is_encrypted()
        || doc.was_encrypted()
        || doc.encryption_state.is_some()
    {
        return Err(Refusal::Encrypted);
    }
    if let Some(how) = doc.xref_recovery {
        return Err(Refusal::DamagedXref(format!("{how:?}")));
    }
    let prev = last_startxref(bytes)
        .ok_or_else(|| Refusal::DamagedXref("no startxref at the end".into()))?;
    if prev != doc.xref_start || prev == 0 {
        return Err(Refusal::DamagedXref(format!(
            "startxref {prev} vs. section read at {}",
            doc.xref_start
        )));
    }
    if is_signed(&doc) {
        return Err(Refusal::Signed);
    }
    Ok((doc, prev))
}

/// The object numbers handed out to new objects of the update.
struct Ids {
    /// The next free object number.
    next: u32,
}

impl Ids {
    fn alloc(&mut self) -> ObjectId {
        let id = (self.next, 0u16);
        self.next += 1;
        id
    }
}

/// Adds the new Info dictionary to `objects` when its entries change, and
/// returns what the new trailer's /Info is: the old entry when unchanged
/// (a trailer of an update must repeat it), else a reference to the new
/// version (same object number when it was indirect).
fn update_info(
    doc: &Document,
    info: &[(&'static str, String)],
    ids: &mut Ids,
    objects: &mut Vec<(ObjectId, Vec<u8>)>,
) -> Option<Object> {
    // An /Info reference that does not lead to a dictionary is not reused:
    // its object number may belong to something else in a sloppy file.
    let (info_id, old_info) = match doc.trailer.get(b"Info") {
        Ok(Object::Reference(id)) => match doc.get_dictionary(*id) {
            Ok(d) => (Some(*id), d.clone()),
            Err(_) => (None, Dictionary::new()),
        },
        Ok(Object::Dictionary(d)) => (None, d.clone()),
        _ => (None, Dictionary::new()),
    };
    let info_same = info.iter().all(|(k, v)| {
        old_info
            .get(k.as_bytes())
            .ok()
            .and_then(|o| lopdf::decode_text_string(o).ok())
            .is_some_and(|old| old == *v)
    });
    if info_same {
        return doc.trailer.get(b"Info").ok().cloned();
    }
    let mut dict = old_info;
    for (k, v) in info {
        dict.set(k.as_bytes().to_vec(), text_string(v));
    }
    let id = info_id.unwrap_or_else(|| ids.alloc());
    objects.push((id, serialize(&Object::Dictionary(dict))));
    Some(Object::Reference(id))
}

/// The document's catalog, for updating its XMP packet.
struct XmpUpdate<'d> {
    doc: &'d Document,
    catalog: &'d Dictionary,
    root_id: ObjectId,
}

impl XmpUpdate<'_> {
    /// Adds the merged XMP packet to `objects` when it changes, and the
    /// catalog when it gains a /Metadata entry. Returns the merge's warning.
    fn apply(
        &self,
        meta: &Metadata,
        ids: &mut Ids,
        objects: &mut Vec<(ObjectId, Vec<u8>)>,
    ) -> Option<String> {
        let meta_ref = self
            .catalog
            .get(b"Metadata")
            .and_then(Object::as_reference)
            .ok();
        let old_xmp = meta_ref
            .and_then(|id| self.doc.get_object(id).ok())
            .and_then(|o| o.as_stream().ok())
            .and_then(|s| s.get_plain_content().ok());
        let (packet, warning) = xmp::merge(old_xmp.as_deref(), &xmp_fields(meta));
        if old_xmp.as_deref() == Some(packet.as_slice()) {
            return warning;
        }
        let xmp_id = match (meta_ref, &old_xmp) {
            (Some(id), Some(_)) => id,
            _ => {
                let id = ids.alloc();
                let mut cat = self.catalog.clone();
                cat.set("Metadata", Object::Reference(id));
                objects.push((self.root_id, serialize(&Object::Dictionary(cat))));
                id
            }
        };
        let mut body = format!(
            "<</Type/Metadata/Subtype/XML/Length {}>>\nstream\n",
            packet.len()
        )
        .into_bytes();
        body.extend_from_slice(&packet);
        body.extend_from_slice(b"\nendstream");
        objects.push((xmp_id, body));
        warning
    }
}

/// What the appended section's trailer needs besides its objects.
struct Section<'d> {
    doc: &'d Document,
    /// The length of the file the section is appended to.
    base: usize,
    root_id: ObjectId,
    trailer_info: Option<Object>,
    /// The offset of the previous cross-reference section.
    prev: usize,
    /// The first object number not used by the update.
    next_id: u32,
}

impl Section<'_> {
    /// Frames the objects and the cross-reference section (a table or a
    /// stream, as the file has) to append to `bytes`. Returns the bytes to
    /// append and the new section's offset.
    fn frame(self, bytes: &[u8], mut objects: Vec<(ObjectId, Vec<u8>)>) -> (Vec<u8>, usize) {
        let mut out = Vec::new();
        if !matches!(bytes.last(), Some(b'\n' | b'\r')) {
            out.push(b'\n');
        }
        let mut offsets: Vec<(ObjectId, usize)> = Vec::new();
        objects.sort_by_key(|(id, _)| *id);
        for (id, body) in &objects {
            offsets.push((*id, self.base + out.len()));
            out.extend_from_slice(format!("{} {} obj\n", id.0, id.1).as_bytes());
            out.extend_from_slice(body);
            out.extend_from_slice(b"\nendobj\n");
        }
        let mut trailer = Dictionary::new();
        trailer.set("Root", Object::Reference(self.root_id));
        if let Some(info) = self.trailer_info {
            trailer.set("Info", info);
        }
        trailer.set("Prev", Object::Integer(self.prev as i64));
        if let Some(id) = new_file_id(self.doc, &objects) {
            trailer.set("ID", id);
        }
        let xref_at = self.base + out.len();
        match self.doc.reference_table.cross_reference_type {
            lopdf::xref::XrefType::CrossReferenceTable => {
                xref_table(&mut out, trailer, &offsets, self.next_id)
            }
            lopdf::xref::XrefType::CrossReferenceStream => {
                xref_stream(&mut out, trailer, offsets, self.next_id, xref_at)
            }
        }
        out.extend_from_slice(format!("startxref\n{xref_at}\n%%EOF\n").as_bytes());
        (out, xref_at)
    }
}

/// Writes a classic cross-reference table and its trailer to `out`.
fn xref_table(
    out: &mut Vec<u8>,
    mut trailer: Dictionary,
    offsets: &[(ObjectId, usize)],
    next_id: u32,
) {
    trailer.set("Size", Object::Integer(next_id as i64));
    out.extend_from_slice(b"xref\n");
    for run in runs(offsets) {
        out.extend_from_slice(format!("{} {}\n", run[0].0.0, run.len()).as_bytes());
        for ((_, generation), off) in run {
            // Exactly 20 bytes per entry, with a two-byte end of line.
            out.extend_from_slice(format!("{off:010} {generation:05} n\r\n").as_bytes());
        }
    }
    out.extend_from_slice(b"trailer\n");
    out.extend_from_slice(&serialize(&Object::Dictionary(trailer)));
    out.push(b'\n');
}

/// Writes a cross-reference stream (object `next_id`, at `xref_at`) whose
/// dictionary is the trailer to `out`.
fn xref_stream(
    out: &mut Vec<u8>,
    mut trailer: Dictionary,
    mut offsets: Vec<(ObjectId, usize)>,
    next_id: u32,
    xref_at: usize,
) {
    // The stream is an object too and lists itself.
    let xref_id = (next_id, 0u16);
    offsets.push((xref_id, xref_at));
    let width = bytes_for(xref_at as u64);
    let mut data = Vec::new();
    let mut index = Vec::new();
    for run in runs(&offsets) {
        index.push(Object::Integer(run[0].0.0 as i64));
        index.push(Object::Integer(run.len() as i64));
        for ((_, generation), off) in run {
            data.push(1u8);
            data.extend_from_slice(&(*off as u64).to_be_bytes()[8 - width..]);
            data.extend_from_slice(&generation.to_be_bytes());
        }
    }
    trailer.set("Type", Object::Name(b"XRef".to_vec()));
    trailer.set("Size", Object::Integer(next_id as i64 + 1));
    trailer.set("Index", Object::Array(index));
    trailer.set(
        "W",
        Object::Array(vec![1.into(), (width as i64).into(), 2.into()]),
    );
    trailer.set("Length", Object::Integer(data.len() as i64));
    out.extend_from_slice(format!("{} 0 obj\n", xref_id.0).as_bytes());
    out.extend_from_slice(&serialize(&Object::Dictionary(trailer)));
    out.extend_from_slice(b"\nstream\n");
    out.extend_from_slice(&data);
    out.extend_from_slice(b"\nendstream\nendobj\n");
}

/// Reads a freshly written file back: it parses without repair, its last
/// section is the one we appended, the page count is unchanged, the Info
/// entries read back as written and the XMP packet parses.
pub fn verify(new_bytes: &[u8], update: &Update) -> Result<(), String> {
    let doc = Document::load_mem(new_bytes).map_err(|e| format!("does not parse: {e}"))?;
    if let Some(how) = doc.xref_recovery {
        return Err(format!("cross-reference data needed repair ({how:?})"));
    }
    if let Some(at) = update.new_startxref
        && doc.xref_start != at
    {
        return Err(format!(
            "last cross-reference section read at {}, written at {at}",
            doc.xref_start
        ));
    }
    let pages = doc.get_pages().len();
    if pages != update.page_count {
        return Err(format!(
            "page count {pages}, expected {}",
            update.page_count
        ));
    }
    let info = match doc.trailer.get(b"Info") {
        Ok(Object::Reference(id)) => doc.get_dictionary(*id).ok(),
        Ok(Object::Dictionary(d)) => Some(d),
        _ => None,
    }
    .ok_or("no Info dictionary")?;
    for (k, v) in &update.info {
        let got = info
            .get(k.as_bytes())
            .ok()
            .and_then(|o| lopdf::decode_text_string(o).ok());
        if got.as_deref() != Some(v.as_str()) {
            return Err(format!("/{k} reads back as {got:?}, wrote {v:?}"));
        }
    }
    let root = doc.catalog().map_err(|e| format!("catalog: {e}"))?;
    let id = root
        .get(b"Metadata")
        .and_then(Object::as_reference)
        .map_err(|_| "catalog has no /Metadata")?;
    let packet = doc
        .get_object(id)
        .and_then(Object::as_stream)
        .and_then(|s| s.get_plain_content())
        .map_err(|e| format!("XMP stream: {e}"))?;
    xmp::check_readable(&packet).map_err(|e| format!("XMP packet: {e}"))
}

/// Encodes a text string: PDFDocEncoding when every character has a code
/// there (short, readable by every reader), else UTF-16BE with a BOM.
pub fn text_string(text: &str) -> Object {
    match text.chars().map(pdfdoc_byte).collect::<Option<Vec<u8>>>() {
        Some(bytes) => Object::String(bytes, StringFormat::Literal),
        None => {
            let mut bytes = vec![0xFE, 0xFF];
            for unit in text.encode_utf16() {
                bytes.extend_from_slice(&unit.to_be_bytes());
            }
            Object::String(bytes, StringFormat::Hexadecimal)
        }
    }
}

/// The PDFDocEncoding byte of `c` (ISO 32000-1 Annex D), if it has one.
fn pdfdoc_byte(c: char) -> Option<u8> {
    match c as u32 {
        0x09 | 0x0A | 0x0D | 0x20..=0x7E => Some(c as u8),
        0x20AC => Some(0xA0),
        // Latin-1 above 0xA0 maps to itself, except the undefined 0xAD.
        0xA1..=0xFF if c as u32 != 0xAD => Some(c as u8),
        _ => PDF_DOC_SPECIAL
            .iter()
            .find(|(_, ch)| *ch == c)
            .map(|(b, _)| *b),
    }
}

fn serialize(object: &Object) -> Vec<u8> {
    let mut out = Vec::new();
    Writer::write_object(&mut out, object).expect("writing to a Vec cannot fail");
    out
}

/// Consecutive object numbers, for xref subsections.
fn runs(sorted: &[(ObjectId, usize)]) -> Vec<&[(ObjectId, usize)]> {
    let mut out = Vec::new();
    let mut start = 0;
    for i in 1..=sorted.len() {
        if i == sorted.len() || sorted[i].0.0 != sorted[i - 1].0.0 + 1 {
            out.push(&sorted[start..i]);
            start = i;
        }
    }
    out
}

fn bytes_for(v: u64) -> usize {
    (((64 - v.leading_zeros()) as usize).div_ceil(8)).max(1)
}

fn trailer_size(doc: &Document) -> u32 {
    doc.trailer
        .get(b"Size")
        .and_then(Object::as_i64)
        .ok()
        .and_then(|s| u32::try_from(s).ok())
        .unwrap_or(0)
        .max(doc.reference_table.size)
}

/// Keeps the permanent first half of `/ID` and derives a new second half
/// from the old one and what was written, so it changes with the content
/// but the same update always gives the same bytes.
fn new_file_id(doc: &Document, objects: &[(ObjectId, Vec<u8>)]) -> Option<Object> {
    let arr = doc.trailer.get(b"ID").ok()?.as_array().ok()?;
    let first = arr.first()?.as_str().ok()?.to_vec();
    let mut h = blake3::Hasher::new();
    for o in arr {
        h.update(o.as_str().unwrap_or_default());
    }
    for (_, body) in objects {
        h.update(body);
    }
    let second = h.finalize().as_bytes()[..16].to_vec();
    Some(Object::Array(vec![
        Object::String(first, StringFormat::Hexadecimal),
        Object::String(second, StringFormat::Hexadecimal),
    ]))
}

/// The offset after the last `startxref` keyword.
fn last_startxref(bytes: &[u8]) -> Option<usize> {
    let tail_start = bytes.len().saturating_sub(4096);
    let tail = &bytes[tail_start..];
    let pos = tail.windows(9).rposition(|w| w == b"startxref")?;
    let digits: String = tail[pos + 9..]
        .iter()
        .skip_while(|b| b.is_ascii_whitespace())
        .take_while(|b| b.is_ascii_digit())
        .map(|&b| b as char)
        .collect();
    digits.parse().ok()
}

fn mentions_encrypt(bytes: &[u8]) -> bool {
    bytes.windows(8).any(|w| w == b"/Encrypt")
}

/// Signature fields, `/SigFlags` or `/Perms` (DocMDP, usage rights).
fn is_signed(doc: &Document) -> bool {
    let Ok(catalog) = doc.catalog() else {
        return false;
    };
    if catalog.has(b"Perms") {
        return true;
    }
    let Some(form) = catalog
        .get(b"AcroForm")
        .ok()
        .and_then(|o| doc.dereference(o).ok())
        .and_then(|(_, o)| o.as_dict().ok())
    else {
        return false;
    };
    if form
        .get(b"SigFlags")
        .and_then(Object::as_i64)
        .is_ok_and(|f| f != 0)
    {
        return true;
    }
    let mut seen = HashSet::new();
    let mut stack: Vec<&Object> = form
        .get(b"Fields")
        .and_then(Object::as_array)
        .map(|a| a.iter().collect())
        .unwrap_or_default();
    while let Some(o) = stack.pop() {
        if let Object::Reference(id) = o
            && !seen.insert(*id)
        {
            continue;
        }
        let Some(field) = doc.dereference(o).ok().and_then(|(_, o)| o.as_dict().ok()) else {
            continue;
        };
        if field
            .get(b"FT")
            .and_then(Object::as_name)
            .is_ok_and(|n| n == b"Sig")
        {
            return true;
        }
        if let Ok(kids) = field.get(b"Kids").and_then(Object::as_array)
            && seen.len() < 100_000
        {
            stack.extend(kids.iter());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_strings_pdfdoc_or_utf16() {
        assert_eq!(
            text_string("Gödel, Escher"),
            Object::String(b"G\xf6del, Escher".to_vec(), StringFormat::Literal)
        );
        assert_eq!(
            text_string("“Œuvres” – €"),
            Object::String(
                vec![
                    0x8D, 0x96, b'u', b'v', b'r', b'e', b's', 0x8E, b' ', 0x85, b' ', 0xA0
                ],
                StringFormat::Literal
            )
        );
        let cjk = text_string("数学");
        assert_eq!(
            cjk,
            Object::String(
                vec![0xFE, 0xFF, 0x65, 0x70, 0x5B, 0x66],
                StringFormat::Hexadecimal
            )
        );
        // Round trip through lopdf's decoder for every form.
        for s in [
            "Gödel, Escher",
            "“Œuvres” – €",
            "数学",
            "ﬁsh (x) \\ y",
            "Ωmega",
        ] {
            assert_eq!(lopdf::decode_text_string(&text_string(s)).unwrap(), s);
        }
    }

    #[test]
    fn xref_runs_and_widths() {
        let offs = [((3, 0), 10), ((4, 0), 20), ((9, 0), 30)];
        let r = runs(&offs);
        assert_eq!(r.len(), 2);
        assert_eq!(r[0].len(), 2);
        assert_eq!(bytes_for(0), 1);
        assert_eq!(bytes_for(255), 1);
        assert_eq!(bytes_for(256), 2);
        assert_eq!(bytes_for(70_000), 3);
    }

    #[test]
    fn startxref_found_at_end() {
        assert_eq!(
            last_startxref(b"%PDF-1.4\n...startxref\n1234\n%%EOF\n"),
            Some(1234)
        );
        assert_eq!(
            last_startxref(b"startxref\n1\n%%EOF\nstartxref\r\n99\r\n%%EOF"),
            Some(99)
        );
        assert_eq!(last_startxref(b"%PDF-1.4 nothing"), None);
    }
}
