//! The XMP packet written beside the Info dictionary (SPEC 9): dc:title,
//! dc:description (subtitle, as Info /Subject), dc:creator (rdf:Seq),
//! dc:publisher, dc:date, dc:identifier, prism:doi and prism:isbn.
//!
//! An existing packet is edited, not replaced: every property colophon sets
//! is removed wherever it appears (element or attribute form, any prefix
//! bound to the namespace), and one `rdf:Description` holding the new values
//! is added at the end of `rdf:RDF`. Everything else — foreign namespaces,
//! properties, comments, formatting — is copied byte for byte. The edit is
//! a fixed point: merging the same values into its own output gives the
//! same bytes, which is what makes a second write run a no-op.
//!
//! The packet is read with quick-xml's event reader into a tree of
//! elements that keep their byte spans (the surgery above needs them),
//! with namespace scoping on top. Anything it cannot read is reported as
//! unreadable and the caller writes a fresh packet (the old one stays in
//! the file's earlier revision, since updates are append-only).

use crate::util::xml::{escape, unescape};
use std::collections::HashMap;
use std::ops::Range;

use quick_xml::Reader;
use quick_xml::events::{BytesStart, Event};

const RDF_NS: &str = "http://www.w3.org/1999/02/22-rdf-syntax-ns#";
const DC_NS: &str = "http://purl.org/dc/elements/1.1/";
/// Namespace colophon writes PRISM properties in.
const PRISM_NS: &str = "http://prismstandard.org/namespaces/basic/2.0/";
/// Any PRISM basic version (2.0, 2.1, 3.0) counts as the same property.
const PRISM_NS_PREFIX: &str = "http://prismstandard.org/namespaces/basic/";

/// The values colophon puts into XMP; `None`/empty leaves a property as it is.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct XmpFields {
    pub title: Option<String>,
    pub description: Option<String>,
    pub creators: Vec<String>,
    pub publisher: Option<String>,
    pub date: Option<String>,
    pub identifier: Option<String>,
    pub doi: Option<String>,
    pub isbn: Option<String>,
}

impl XmpFields {
    /// (namespace test, local name) of every property this set of values
    /// replaces.
    fn managed(&self) -> Vec<(Ns, &'static str)> {
        let mut out = Vec::new();
        let mut add = |present: bool, ns: Ns, local: &'static str| {
            if present {
                out.push((ns, local));
            }
        };
        add(self.title.is_some(), Ns::Dc, "title");
        add(self.description.is_some(), Ns::Dc, "description");
        add(!self.creators.is_empty(), Ns::Dc, "creator");
        add(self.publisher.is_some(), Ns::Dc, "publisher");
        add(self.date.is_some(), Ns::Dc, "date");
        add(self.identifier.is_some(), Ns::Dc, "identifier");
        add(self.doi.is_some(), Ns::Prism, "doi");
        add(self.isbn.is_some(), Ns::Prism, "isbn");
        out
    }

    fn is_empty(&self) -> bool {
        self.managed().is_empty()
    }

    /// The `rdf:Description` carrying these values, indented to sit inside
    /// `rdf:RDF`.
    fn description_element(&self, about: &str) -> String {
        let mut s = format!(
            "<rdf:Description rdf:about=\"{about}\" xmlns:rdf=\"{RDF_NS}\" \
             xmlns:dc=\"{DC_NS}\" xmlns:prism=\"{PRISM_NS}\">"
        );
        let lang_alt = |s: &mut String, name: &str, v: &str| {
            s.push_str(&format!(
                "\n   <{name}><rdf:Alt><rdf:li xml:lang=\"x-default\">{}</rdf:li></rdf:Alt></{name}>",
                escape(v)
            ));
        };
        let container = |s: &mut String, name: &str, kind: &str, items: &[String]| {
            s.push_str(&format!("\n   <{name}><rdf:{kind}>"));
            for v in items {
                s.push_str(&format!("<rdf:li>{}</rdf:li>", escape(v)));
            }
            s.push_str(&format!("</rdf:{kind}></{name}>"));
        };
        let simple = |s: &mut String, name: &str, v: &str| {
            s.push_str(&format!("\n   <{name}>{}</{name}>", escape(v)));
        };
        if let Some(v) = &self.title {
            lang_alt(&mut s, "dc:title", v);
        }
        if let Some(v) = &self.description {
            lang_alt(&mut s, "dc:description", v);
        }
        if !self.creators.is_empty() {
            container(&mut s, "dc:creator", "Seq", &self.creators);
        }
        if let Some(v) = &self.publisher {
            container(&mut s, "dc:publisher", "Bag", std::slice::from_ref(v));
        }
        if let Some(v) = &self.date {
            container(&mut s, "dc:date", "Seq", std::slice::from_ref(v));
        }
        if let Some(v) = &self.identifier {
            simple(&mut s, "dc:identifier", v);
        }
        if let Some(v) = &self.doi {
            simple(&mut s, "prism:doi", v);
        }
        if let Some(v) = &self.isbn {
            simple(&mut s, "prism:isbn", v);
        }
        s.push_str("\n  </rdf:Description>");
        s
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Ns {
    Dc,
    Prism,
}

impl Ns {
    fn matches(self, uri: &str) -> bool {
        match self {
            Ns::Dc => uri == DC_NS,
            Ns::Prism => uri.starts_with(PRISM_NS_PREFIX),
        }
    }
}

/// The packet with `fields` merged into `existing` (or into an empty
/// packet), and a warning when `existing` could not be read and was
/// replaced.
pub(crate) fn merge(existing: Option<&[u8]>, fields: &XmpFields) -> (Vec<u8>, Option<String>) {
    if let Some(old) = existing {
        match std::str::from_utf8(old)
            .map_err(|_| "not UTF-8".to_string())
            .and_then(|text| merge_text(text, fields))
        {
            Ok(merged) => return (merged.into_bytes(), None),
            Err(why) => {
                let fresh = merge_text(&empty_packet(), fields).expect("own template parses");
                return (
                    fresh.into_bytes(),
                    Some(format!(
                        "existing XMP packet unreadable ({why}); replaced by a new one \
                         (the old one stays in the file's previous revision)"
                    )),
                );
            }
        }
    }
    let fresh = merge_text(&empty_packet(), fields).expect("own template parses");
    (fresh.into_bytes(), None)
}

/// Checks that `packet` parses and contains an `rdf:RDF` element: the
/// read-back check on a freshly written file.
pub(crate) fn check_readable(packet: &[u8]) -> Result<(), String> {
    let text = std::str::from_utf8(packet).map_err(|_| "not UTF-8".to_string())?;
    let doc = parse(text)?;
    find_rdf(&doc, &Scope::default())
        .map(|_| ())
        .ok_or_else(|| "no rdf:RDF".into())
}

fn empty_packet() -> String {
    format!(
        "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n\
         <x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n \
         <rdf:RDF xmlns:rdf=\"{RDF_NS}\">\n \
         </rdf:RDF>\n\
         </x:xmpmeta>\n\
         <?xpacket end=\"w\"?>"
    )
}

/// `text` (an XMP packet) with the properties colophon manages taken out
/// of every rdf:Description and one Description of `fields` added at the
/// end of rdf:RDF; everything else keeps its bytes.
fn merge_text(text: &str, fields: &XmpFields) -> Result<String, String> {
    let doc = parse(text)?;
    let (rdf, scope) = find_rdf(&doc, &Scope::default()).ok_or("no rdf:RDF element")?;
    if rdf.self_closing {
        return Err("empty <rdf:RDF/>".into());
    }
    let (mut removals, about) = managed_spans(rdf, &scope, fields);
    // Take the whitespace before each removed piece with it, so that the
    // formatting of what remains stays as it was.
    let bytes = text.as_bytes();
    for r in &mut removals {
        while r.start > 0 && matches!(bytes[r.start - 1], b' ' | b'\t' | b'\r' | b'\n') {
            r.start -= 1;
        }
    }
    removals.sort_by_key(|r| r.start);

    let mut insert_at = rdf.end_tag_start;
    while insert_at > 0 && matches!(bytes[insert_at - 1], b' ' | b'\t' | b'\r' | b'\n') {
        insert_at -= 1;
    }
    let insertion = if fields.is_empty() {
        String::new()
    } else {
        format!(
            "\n  {}",
            fields.description_element(about.as_deref().unwrap_or(""))
        )
    };
    Ok(splice(text, &removals, insert_at, &insertion))
}

/// The spans of `rdf`'s Descriptions that hold properties colophon
/// manages (a whole Description when it holds nothing else), in document
/// order, and the first Description's rdf:about (escaped for a
/// double-quoted attribute).
fn managed_spans(
    rdf: &Element,
    scope: &Scope,
    fields: &XmpFields,
) -> (Vec<Range<usize>>, Option<String>) {
    let managed = fields.managed();
    let is_managed = |scope: &Scope, qname: &str| {
        let (uri, local) = scope.resolve(qname);
        managed
            .iter()
            .any(|(ns, l)| *l == local && uri.is_some_and(|u| ns.matches(u)))
    };
    let mut removals: Vec<Range<usize>> = Vec::new();
    let mut about: Option<String> = None;
    for desc in &rdf.children {
        let dscope = scope.enter(desc);
        if dscope.resolve(&desc.name) != (Some(RDF_NS), "Description") {
            continue;
        }
        let mut kept = 0;
        let mut dropped = Vec::new();
        for a in &desc.attrs {
            if a.name == "xmlns" || a.name.starts_with("xmlns:") {
                continue;
            }
            if dscope.resolve(&a.name) == (Some(RDF_NS), "about") {
                // Raw (already escaped) text; ours is double-quoted, so a
                // `"` of a single-quoted value is escaped too.
                about.get_or_insert_with(|| a.raw_value.replace('"', "&quot;"));
                continue;
            }
            if is_managed(&dscope, &a.name) {
                dropped.push(a.span.clone());
            } else {
                kept += 1;
            }
        }
        for p in &desc.children {
            if is_managed(&dscope.enter(p), &p.name) {
                dropped.push(p.span.clone());
            } else {
                kept += 1;
            }
        }
        if dropped.is_empty() {
            continue;
        }
        if kept == 0 {
            // Only colophon's properties were in it (typically our own
            // earlier Description): drop it whole so that re-adding ours
            // at the end reproduces the same bytes.
            removals.push(desc.span.clone());
        } else {
            removals.extend(dropped);
        }
    }
    (removals, about)
}

/// `text` without the sorted `removals` and with `insertion` at byte
/// `insert_at` (where a removal spans it, right after the removal's
/// start).
fn splice(text: &str, removals: &[Range<usize>], insert_at: usize, insertion: &str) -> String {
    let mut out = String::with_capacity(text.len() + insertion.len());
    let mut pos = 0;
    let mut inserted = false;
    for r in removals {
        if !inserted && insert_at <= r.start {
            out.push_str(&text[pos..insert_at]);
            out.push_str(insertion);
            pos = insert_at;
            inserted = true;
        }
        out.push_str(&text[pos..r.start]);
        pos = r.end;
        if !inserted && insert_at <= r.end {
            out.push_str(insertion);
            inserted = true;
        }
    }
    if !inserted {
        out.push_str(&text[pos..insert_at]);
        out.push_str(insertion);
        pos = insert_at;
    }
    out.push_str(&text[pos..]);
    out
}

/// One parsed element with the byte spans needed for surgery.
#[derive(Debug)]
struct Element {
    name: String,
    attrs: Vec<Attr>,
    children: Vec<Element>,
    /// From `<` of the start tag to `>` of the end tag (or of `/>`).
    span: Range<usize>,
    /// Where `</name>` begins (equals `span.end` for `<x/>`).
    end_tag_start: usize,
    self_closing: bool,
}

#[derive(Debug)]
struct Attr {
    name: String,
    raw_value: String,
    /// From the attribute name to its closing quote.
    span: Range<usize>,
}

/// Namespace bindings in scope.
#[derive(Debug, Default, Clone)]
struct Scope {
    map: HashMap<String, String>,
}

impl Scope {
    fn enter(&self, e: &Element) -> Scope {
        let mut s = self.clone();
        for a in &e.attrs {
            if let Some(prefix) = a.name.strip_prefix("xmlns:") {
                s.map.insert(prefix.to_string(), unescape(&a.raw_value));
            } else if a.name == "xmlns" {
                s.map.insert(String::new(), unescape(&a.raw_value));
            }
        }
        s
    }

    fn resolve<'a>(&'a self, qname: &'a str) -> (Option<&'a str>, &'a str) {
        match qname.split_once(':') {
            Some(("xml", local)) => (Some("http://www.w3.org/XML/1998/namespace"), local),
            Some((prefix, local)) => (self.map.get(prefix).map(String::as_str), local),
            None => (self.map.get("").map(String::as_str), qname),
        }
    }
}

/// Depth-first search for the first `rdf:RDF`, with the scope inside it.
fn find_rdf<'a>(elems: &'a [Element], scope: &Scope) -> Option<(&'a Element, Scope)> {
    for e in elems {
        let inner = scope.enter(e);
        if inner.resolve(&e.name) == (Some(RDF_NS), "RDF") {
            return Some((e, inner));
        }
        if let Some(found) = find_rdf(&e.children, &inner) {
            return Some(found);
        }
    }
    None
}

/// Parses a whole packet into its top-level elements, with quick-xml's
/// event reader; the spans of elements come from its byte positions, those
/// of attributes from the start tag's own bytes.
fn parse(text: &str) -> Result<Vec<Element>, String> {
    let mut reader = Reader::from_str(text);
    reader.config_mut().allow_dangling_amp = true;
    // Open elements, innermost last; the finished top-level ones.
    let mut open: Vec<Element> = Vec::new();
    let mut top: Vec<Element> = Vec::new();
    loop {
        let before = position(&reader);
        let event = reader
            .read_event()
            .map_err(|e| format!("{e} at byte {}", reader.error_position()))?;
        let after = position(&reader);
        let finished = match event {
            Event::Eof => break,
            Event::DocType(_) => return Err("DTD declarations are not allowed in XMP".into()),
            Event::Start(tag) => {
                open.push(element(text, &tag, before..after, false)?);
                continue;
            }
            Event::Empty(tag) => element(text, &tag, before..after, true)?,
            Event::End(_) => {
                // quick-xml has checked that the name matches.
                let mut e = open.pop().ok_or("end tag without a start")?;
                e.end_tag_start = before;
                e.span.end = after;
                e
            }
            _ => continue,
        };
        match open.last_mut() {
            Some(parent) => parent.children.push(finished),
            None => top.push(finished),
        }
    }
    match open.last() {
        Some(e) => Err(format!("<{}> not closed", e.name)),
        None => Ok(top),
    }
}

fn position(reader: &Reader<&[u8]>) -> usize {
    usize::try_from(reader.buffer_position()).unwrap_or(usize::MAX)
}

/// An element from its start tag at `span` (`<` to `>`), its attributes
/// with their spans (the name to the closing quote).
fn element(
    text: &str,
    tag: &BytesStart,
    span: Range<usize>,
    self_closing: bool,
) -> Result<Element, String> {
    let name = String::from_utf8_lossy(tag.name().as_ref()).into_owned();
    let raw = text.as_bytes();
    // The attributes follow the name; between them only whitespace.
    let mut at = span.start + 1 + tag.name().as_ref().len();
    let mut attrs = Vec::new();
    for attr in tag.attributes() {
        let attr = attr.map_err(|e| format!("in <{name}>: {e}"))?;
        while raw.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        let start = at;
        let key = attr.key.as_ref();
        if raw.get(at..at + key.len()) != Some(key) {
            return Err(format!("lost the attributes of <{name}>"));
        }
        at += key.len();
        while raw
            .get(at)
            .is_some_and(|b| b.is_ascii_whitespace() || *b == b'=')
        {
            at += 1;
        }
        // The quote, the raw value, the quote.
        let value_start = at + 1;
        let value_end = value_start + attr.value.len();
        let value = text
            .get(value_start..value_end)
            .ok_or_else(|| format!("lost the attributes of <{name}>"))?;
        at = value_end + 1;
        attrs.push(Attr {
            name: String::from_utf8_lossy(key).into_owned(),
            raw_value: value.to_string(),
            span: start..at,
        });
    }
    Ok(Element {
        name,
        attrs,
        children: Vec::new(),
        end_tag_start: span.end,
        span,
        self_closing,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields() -> XmpFields {
        XmpFields {
            title: Some("Gödel, Escher, Bach & <More>".into()),
            description: Some("An Eternal Golden Braid".into()),
            creators: vec!["Douglas Hofstadter".into(), "数学 作者".into()],
            publisher: Some("Basic Books".into()),
            date: Some("1979".into()),
            identifier: Some("urn:isbn:9780465026562".into()),
            doi: None,
            isbn: Some("9780465026562".into()),
        }
    }

    /// A Ghostscript-style packet: several Descriptions, attribute-form
    /// properties, empty dc:title/dc:creator, a foreign namespace.
    const GS_PACKET: &str = "<?xpacket begin=\"\u{FEFF}\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n\
<x:xmpmeta xmlns:x=\"adobe:ns:meta/\" x:xmptk=\"XMP toolkit 2.9.1-13, framework 1.6\">\n\
<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:iX=\"http://ns.adobe.com/iX/1.0/\">\n\
<rdf:Description xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\" rdf:about=\"\" pdf:Producer=\"GPL Ghostscript 10.00.0\"/>\n\
<rdf:Description xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" rdf:about=\"\"><xmp:CreatorTool>groff</xmp:CreatorTool></rdf:Description>\n\
<rdf:Description xmlns:dc=\"http://purl.org/dc/elements/1.1/\" rdf:about=\"\" dc:format=\"application/pdf\"><dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\"/></rdf:Alt></dc:title><dc:creator><rdf:Seq><rdf:li/></rdf:Seq></dc:creator></rdf:Description>\n\
<rdf:Description xmlns:d=\"http://purl.org/dc/elements/1.1/\" xmlns:foo=\"urn:example:foo\" rdf:about=\"\" d:identifier=\"old-id\" foo:keep=\"yes\"/>\n\
</rdf:RDF>\n\
</x:xmpmeta>\n\
<?xpacket end=\"w\"?>";

    #[test]
    fn fresh_packet_has_all_properties() {
        let (p, warn) = merge(None, &fields());
        assert!(warn.is_none());
        let s = String::from_utf8(p.clone()).unwrap();
        assert!(s.contains("<dc:title><rdf:Alt><rdf:li xml:lang=\"x-default\">Gödel, Escher, Bach &amp; &lt;More&gt;</rdf:li>"));
        assert!(s.contains("<dc:creator><rdf:Seq><rdf:li>Douglas Hofstadter</rdf:li><rdf:li>数学 作者</rdf:li></rdf:Seq>"));
        assert!(s.contains("<dc:publisher><rdf:Bag><rdf:li>Basic Books</rdf:li>"));
        assert!(s.contains("<dc:date><rdf:Seq><rdf:li>1979</rdf:li>"));
        assert!(s.contains("<prism:isbn>9780465026562</prism:isbn>"));
        assert!(!s.contains("prism:doi>"));
        check_readable(&p).unwrap();
    }

    #[test]
    fn foreign_properties_kept_and_ours_replaced() {
        let (p, warn) = merge(Some(GS_PACKET.as_bytes()), &fields());
        assert!(warn.is_none());
        let s = String::from_utf8(p).unwrap();
        // Foreign content byte for byte.
        assert!(s.contains("pdf:Producer=\"GPL Ghostscript 10.00.0\"/>"));
        assert!(s.contains("<xmp:CreatorTool>groff</xmp:CreatorTool>"));
        assert!(s.contains("xmlns:iX=\"http://ns.adobe.com/iX/1.0/\""));
        assert!(s.contains("rdf:about=\"\" dc:format=\"application/pdf\"></rdf:Description>"));
        assert!(s.contains("foo:keep=\"yes\"/>"));
        // The old (empty) title and creator and the identifier bound to
        // another prefix are gone; exactly one of each now.
        assert!(!s.contains("old-id"));
        assert_eq!(s.matches("<dc:title>").count(), 1);
        assert_eq!(s.matches("<dc:creator>").count(), 1);
        assert!(s.contains("<dc:identifier>urn:isbn:9780465026562</dc:identifier>"));
        check_readable(s.as_bytes()).unwrap();
    }

    #[test]
    fn merge_is_a_fixed_point() {
        let f = fields();
        for start in [None, Some(GS_PACKET.as_bytes())] {
            let (once, _) = merge(start, &f);
            let (twice, _) = merge(Some(&once), &f);
            assert_eq!(
                String::from_utf8_lossy(&once),
                String::from_utf8_lossy(&twice)
            );
            // New values replace the old ones and are again stable.
            let mut g = f.clone();
            g.title = Some("Another Title".into());
            g.publisher = None;
            let (changed, _) = merge(Some(&once), &g);
            let s = String::from_utf8(changed.clone()).unwrap();
            assert!(s.contains("Another Title") && !s.contains("Bach"));
            // Publisher had no new value: the old one stays.
            assert!(s.contains("Basic Books"));
            let (again, _) = merge(Some(&changed), &g);
            assert_eq!(changed, again);
        }
    }

    #[test]
    fn unreadable_packet_is_replaced_with_warning() {
        let (p, warn) = merge(Some(b"<x:xmpmeta><rdf:RDF></x:xmpmeta>"), &fields());
        assert!(warn.unwrap().contains("unreadable"));
        check_readable(&p).unwrap();
        let (_, warn) = merge(Some(&[0xff, 0xfe, 0x3c, 0x00]), &fields());
        assert!(warn.is_some());
    }

    /// A single-quoted `rdf:about` holding a `"` was copied into our
    /// double-quoted one as it was: the packet written could not be read
    /// back, and the next write replaced it.
    #[test]
    fn a_single_quoted_about_with_a_double_quote_stays_readable() {
        let packet = GS_PACKET.replace("rdf:about=\"\"", "rdf:about='say \"hi\" &amp; go'");
        let (once, warn) = merge(Some(packet.as_bytes()), &fields());
        assert!(warn.is_none());
        check_readable(&once).unwrap();
        let s = String::from_utf8(once.clone()).unwrap();
        assert!(
            s.contains("rdf:about=\"say &quot;hi&quot; &amp; go\""),
            "{s}"
        );
        let (twice, warn) = merge(Some(&once), &fields());
        assert!(warn.is_none());
        assert_eq!(once, twice);
    }

    #[test]
    fn about_value_is_reused() {
        let packet = GS_PACKET.replace("rdf:about=\"\"", "rdf:about=\"uuid:1\"");
        let (p, _) = merge(Some(packet.as_bytes()), &fields());
        let s = String::from_utf8(p).unwrap();
        assert_eq!(s.matches("rdf:about=\"\"").count(), 0);
    }

    /// The packet is read with any prefix bound to the namespaces: a packet
    /// whose Dublin Core prefix is `d` and RDF prefix `r` has its title
    /// replaced all the same.
    #[test]
    fn other_prefixes_are_the_same_properties() {
        let packet = "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\"><r:RDF \
            xmlns:r=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n \
            <r:Description r:about='' xmlns:d='http://purl.org/dc/elements/1.1/'>\
            <d:title><r:Alt><r:li>Old</r:li></r:Alt></d:title><d:rights>CC</d:rights>\
            </r:Description>\n </r:RDF></x:xmpmeta>";
        let (p, warn) = merge(Some(packet.as_bytes()), &fields());
        assert!(warn.is_none());
        let s = String::from_utf8(p).unwrap();
        assert!(!s.contains("Old"), "{s}");
        assert!(s.contains("<d:rights>CC</d:rights>"), "{s}");
        assert!(s.contains("<dc:title>"), "{s}");
        check_readable(s.as_bytes()).unwrap();
    }

    /// No packet makes the merge panic or lose its fixed point: packets
    /// built from XMP fragments, cut anywhere, and arbitrary bytes.
    #[test]
    fn arbitrary_packets_never_panic() {
        const PIECES: [&str; 16] = [
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">",
            "</x:xmpmeta>",
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">",
            "</rdf:RDF>",
            "<rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\" dc:identifier='x'>",
            "</rdf:Description>",
            "<dc:title>",
            "</dc:title>",
            "<rdf:li>é &amp; —</rdf:li>",
            "<dc:format/>",
            "<?xpacket end=\"w\"?>",
            "<!-- c -->",
            " ",
            "&",
            "<",
            "'",
        ];
        let mut rng = crate::testing::Rng::new(9);
        let f = fields();
        for _ in 0..250 {
            let len = rng.below(20);
            let packet: String = (0..len).map(|_| *rng.pick(&PIECES)).collect();
            for (cut, _) in packet.char_indices().step_by(7) {
                for part in [&packet[..cut], &packet[cut..]] {
                    let (once, _) = merge(Some(part.as_bytes()), &f);
                    check_readable(&once).unwrap();
                    let (twice, _) = merge(Some(&once), &f);
                    assert_eq!(once, twice, "{part}");
                }
            }
        }
        for _ in 0..300 {
            let bytes = rng.bytes(200);
            let (p, _) = merge(Some(&bytes), &f);
            check_readable(&p).unwrap();
        }
    }
}
