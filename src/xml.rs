//! What the XML readers (XMP in `inspect` and `write`, hOCR in `ocr`) share
//! on top of quick-xml, the one XML crate colophon uses.

use quick_xml::events::BytesRef;

/// Appends what an entity or character reference in text stands for: the
/// five XML entities (Tesseract's `HOcrEscape` writes `&amp;`, `&lt;`,
/// `&gt;`, `&quot;`, `&#39;`) and numeric references. Anything else (an
/// HTML entity, `&D;` in "R&D;") is kept as written.
pub(crate) fn push_reference(buf: &mut String, reference: &BytesRef) {
    let name = reference.decode().unwrap_or_default();
    if let Some(text) = quick_xml::escape::resolve_predefined_entity(&name) {
        buf.push_str(text);
    } else if let Ok(Some(c)) = reference.resolve_char_ref() {
        buf.push(c);
    } else {
        buf.push('&');
        buf.push_str(&name);
        buf.push(';');
    }
}
