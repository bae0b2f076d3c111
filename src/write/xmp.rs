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
//! There is no XML crate in the dependency tree, and XMP needs little: a
//! tokenizer that knows tags, attributes, comments, PIs and CDATA, plus
//! namespace scoping. Anything it cannot read is reported as unreadable and
//! the caller writes a fresh packet (the old one stays in the file's earlier
//! revision, since updates are append-only).

use std::collections::HashMap;
use std::ops::Range;

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

fn merge_text(text: &str, fields: &XmpFields) -> Result<String, String> {
    let doc = parse(text)?;
    let (rdf, scope) = find_rdf(&doc, &Scope::default()).ok_or("no rdf:RDF element")?;
    if rdf.self_closing {
        return Err("empty <rdf:RDF/>".into());
    }
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
                about.get_or_insert_with(|| a.raw_value.clone());
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

    let mut out = String::with_capacity(text.len() + insertion.len());
    let mut pos = 0;
    let mut inserted = false;
    for r in removals {
        if !inserted && insert_at <= r.start {
            out.push_str(&text[pos..insert_at]);
            out.push_str(&insertion);
            pos = insert_at;
            inserted = true;
        }
        out.push_str(&text[pos..r.start]);
        pos = r.end;
        if !inserted && insert_at <= r.end {
            out.push_str(&insertion);
            inserted = true;
        }
    }
    if !inserted {
        out.push_str(&text[pos..insert_at]);
        out.push_str(&insertion);
        pos = insert_at;
    }
    out.push_str(&text[pos..]);
    Ok(out)
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

fn unescape(s: &str) -> String {
    s.replace("&quot;", "\"")
        .replace("&apos;", "'")
        .replace("&lt;", "<")
        .replace("&gt;", ">")
        .replace("&amp;", "&")
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

/// Parses a whole packet into its top-level elements.
fn parse(text: &str) -> Result<Vec<Element>, String> {
    let mut p = Parser {
        s: text.as_bytes(),
        text,
        i: 0,
    };
    let (elems, close) = p.content()?;
    match close {
        None => Ok(elems),
        Some(name) => Err(format!("unexpected </{name}>")),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    text: &'a str,
    i: usize,
}

impl Parser<'_> {
    /// Parses siblings until an end tag (consumed; its name returned) or EOF.
    fn content(&mut self) -> Result<(Vec<Element>, Option<String>), String> {
        let mut out = Vec::new();
        while self.i < self.s.len() {
            if self.s[self.i] != b'<' {
                self.i += 1;
                continue;
            }
            let rest = &self.s[self.i..];
            if rest.starts_with(b"<?") {
                self.skip_past(b"?>")?;
            } else if rest.starts_with(b"<!--") {
                self.skip_past(b"-->")?;
            } else if rest.starts_with(b"<![CDATA[") {
                self.skip_past(b"]]>")?;
            } else if rest.starts_with(b"<!") {
                return Err("DTD declarations are not allowed in XMP".into());
            } else if rest.starts_with(b"</") {
                self.i += 2;
                let name = self.name()?;
                self.skip_ws();
                self.expect(b'>')?;
                return Ok((out, Some(name)));
            } else {
                out.push(self.element()?);
            }
        }
        Ok((out, None))
    }

    fn element(&mut self) -> Result<Element, String> {
        let start = self.i;
        self.i += 1;
        let name = self.name()?;
        let mut attrs = Vec::new();
        loop {
            self.skip_ws();
            match self.s.get(self.i) {
                None => return Err("unterminated start tag".into()),
                Some(b'>') => {
                    self.i += 1;
                    break;
                }
                Some(b'/') => {
                    self.i += 1;
                    self.expect(b'>')?;
                    return Ok(Element {
                        name,
                        attrs,
                        children: Vec::new(),
                        span: start..self.i,
                        end_tag_start: self.i,
                        self_closing: true,
                    });
                }
                Some(_) => {
                    let astart = self.i;
                    let aname = self.name()?;
                    self.skip_ws();
                    self.expect(b'=')?;
                    self.skip_ws();
                    let quote = *self.s.get(self.i).ok_or("unterminated attribute")?;
                    if quote != b'"' && quote != b'\'' {
                        return Err(format!("unquoted value of {aname}"));
                    }
                    let vstart = self.i + 1;
                    let len = self.s[vstart..]
                        .iter()
                        .position(|&b| b == quote)
                        .ok_or("unterminated attribute value")?;
                    self.i = vstart + len + 1;
                    attrs.push(Attr {
                        name: aname,
                        raw_value: self.text[vstart..vstart + len].to_string(),
                        span: astart..self.i,
                    });
                }
            }
        }
        let (children, close) = self.content()?;
        match close {
            Some(c) if c == name => {}
            Some(c) => return Err(format!("<{name}> closed by </{c}>")),
            None => return Err(format!("<{name}> not closed")),
        }
        // `content` consumed `</name>`; find where it began.
        let end = self.i;
        let end_tag_start = self.text[..end].rfind("</").ok_or("lost end tag")?;
        Ok(Element {
            name,
            attrs,
            children,
            span: start..end,
            end_tag_start,
            self_closing: false,
        })
    }

    fn name(&mut self) -> Result<String, String> {
        let start = self.i;
        while let Some(&b) = self.s.get(self.i) {
            if b.is_ascii_whitespace() || matches!(b, b'>' | b'/' | b'=' | b'<' | b'"' | b'\'') {
                break;
            }
            self.i += 1;
        }
        if self.i == start {
            return Err(format!("expected a name at byte {start}"));
        }
        Ok(self.text[start..self.i].to_string())
    }

    fn skip_ws(&mut self) {
        while self.s.get(self.i).is_some_and(|b| b.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn expect(&mut self, b: u8) -> Result<(), String> {
        if self.s.get(self.i) == Some(&b) {
            self.i += 1;
            Ok(())
        } else {
            Err(format!("expected '{}' at byte {}", b as char, self.i))
        }
    }

    fn skip_past(&mut self, end: &[u8]) -> Result<(), String> {
        let pos = self.s[self.i..]
            .windows(end.len())
            .position(|w| w == end)
            .ok_or("unterminated markup")?;
        self.i += pos + end.len();
        Ok(())
    }
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

    #[test]
    fn about_value_is_reused() {
        let packet = GS_PACKET.replace("rdf:about=\"\"", "rdf:about=\"uuid:1\"");
        let (p, _) = merge(Some(packet.as_bytes()), &fields());
        let s = String::from_utf8(p).unwrap();
        assert_eq!(s.matches("rdf:about=\"\"").count(), 0);
    }
}
