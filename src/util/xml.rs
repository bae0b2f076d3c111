//! What the XML readers and writers (XMP in `inspect` and `write`, hOCR in
//! `ocr`, the review page) share on top of quick-xml, the one XML crate
//! colophon uses: entity references read, text escaped.

use quick_xml::events::BytesRef;

/// Appends what an entity or character reference in text stands for: the
/// five XML entities (Tesseract's `HOcrEscape` writes `&amp;`, `&lt;`,
/// `&gt;`, `&quot;`, `&#39;`) and numeric references. Anything else (an
/// HTML entity, `&D;` in "R&D;") is kept as written.
pub fn push_reference(buf: &mut String, reference: &BytesRef) {
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

/// XML text escaping, dropping characters XML 1.0 cannot carry (also
/// right for HTML text and double-quoted attributes).
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\t' | '\n' | '\r' => out.push(c),
            c if (c as u32) < 0x20 || c == '\u{FFFE}' || c == '\u{FFFF}' => {}
            c => out.push(c),
        }
    }
    out
}

/// An attribute value's text with its references resolved; a value quick-xml
/// cannot read is kept as written.
pub fn unescape(s: &str) -> String {
    quick_xml::escape::unescape(s).map_or_else(|_| s.to_string(), |text| text.into_owned())
}

#[cfg(test)]
mod tests {
    #[test]
    fn markup_is_escaped_and_characters_xml_cannot_carry_dropped() {
        assert_eq!(
            super::escape("a<b>&\"c\"\u{1}\u{FFFE}\tz"),
            "a&lt;b&gt;&amp;&quot;c&quot;\tz"
        );
        assert_eq!(super::unescape("R&amp;D &#233;"), "R&D é");
        assert_eq!(super::unescape("broken &"), "broken &");
    }
}
