//! The document's XMP packet, as a fallback for `dc:title` and `dc:creator`
//! when the Info dictionary lacks a title or an author.
//!
//! Pdfium does not expose the catalog's `/Metadata` stream, and parsing the
//! whole file with lopdf would cost more than the page text. So the raw
//! bytes are searched for the catalog dictionary, its `/Metadata N G R`
//! reference, and the last definition of object `N G` (an incremental
//! update appends newer ones). Any other XMP packet in the file belongs to
//! an image or an embedded page (a logo's title) and is ignored. When the
//! catalog sits in a compressed object stream or the packet is compressed,
//! there is no fallback: this is a bonus, not a parser.
//!
//! The packet itself is read with quick-xml's namespace-aware reader, so
//! `dc:title` and `dc:creator` are found under whatever prefix the packet
//! binds to the Dublin Core namespace (`dc:`, `d:`, a default namespace);
//! a packet that declares no namespace at all is read by the usual `dc:`
//! and `rdf:` prefixes.

use quick_xml::NsReader;
use quick_xml::events::Event;
use quick_xml::name::{Namespace, ResolveResult};
use regex::bytes::Regex;
use std::sync::LazyLock;

const DC_NS: &[u8] = b"http://purl.org/dc/elements/1.1/";
const RDF_NS: &[u8] = b"http://www.w3.org/1999/02/22-rdf-syntax-ns#";

/// Title and creators from the document's XMP packet, if it has any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct XmpMeta {
    pub title: Option<String>,
    /// `dc:creator` entries, in order.
    pub creators: Vec<String>,
}

static CATALOG_METADATA: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"/Metadata\s*(\d+)\s+(\d+)\s+R").expect("valid regex"));
// `(?-u:\b)`: an ASCII word boundary. PDF names and keywords are ASCII,
// and a Unicode `\b` stops the lazy DFA at the first non-ASCII byte of a
// binary file, leaving the search of the whole file to the slow PikeVM
// (measured: 1.8% of a cold run's CPU, all in this module).
static CATALOG_TYPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"/Type\s*/Catalog(?-u:\b)").expect("valid regex"));
/// Finds the catalog's metadata stream in the raw bytes of a PDF and reads it.
pub fn parse(bytes: &[u8]) -> Option<XmpMeta> {
    let stream = catalog_metadata_stream(bytes)?;
    let meta = read_packet(&String::from_utf8_lossy(stream));
    (meta.title.is_some() || !meta.creators.is_empty()).then_some(meta)
}

/// A Dublin Core property colophon reads.
#[derive(Clone, Copy, PartialEq)]
enum Property {
    Title,
    Creator,
}

/// The first `rdf:li` of the DC title and every `rdf:li` of the DC
/// creator, entities decoded and whitespace collapsed. Reading stops at the
/// first markup error, keeping what was read before it.
fn read_packet(text: &str) -> XmpMeta {
    let mut reader = NsReader::from_str(text);
    reader.config_mut().allow_dangling_amp = true;
    let mut meta = XmpMeta::default();
    let mut depth = 0usize;
    // The property being read and the depth of its element; the item being
    // read and the depth of its `rdf:li`.
    let mut property: Option<(Property, usize)> = None;
    let mut item: Option<(String, usize)> = None;
    loop {
        let (ns, event) = match reader.read_resolved_event() {
            Ok((_, Event::Eof)) | Err(_) => break,
            Ok(pair) => pair,
        };
        // The namespace by its URI, whatever the prefix; a packet that
        // never declares its prefixes (seen in the wild) by the usual one.
        let in_ns = |uri: &[u8], usual: &[u8]| match &ns {
            ResolveResult::Bound(Namespace(n)) => *n == uri,
            ResolveResult::Unknown(prefix) => prefix.as_slice() == usual,
            ResolveResult::Unbound => false,
        };
        match event {
            Event::Start(e) => {
                depth += 1;
                let local = e.local_name();
                if property.is_none() && in_ns(DC_NS, b"dc") {
                    property = match local.as_ref() {
                        b"title" => Some((Property::Title, depth)),
                        b"creator" => Some((Property::Creator, depth)),
                        _ => None,
                    };
                } else if property.is_some() && in_ns(RDF_NS, b"rdf") && local.as_ref() == b"li" {
                    item = Some((String::new(), depth));
                }
            }
            Event::Text(t) => {
                if let Some((buf, _)) = &mut item {
                    buf.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Event::CData(t) => {
                if let Some((buf, _)) = &mut item {
                    buf.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Event::GeneralRef(r) => {
                if let Some((buf, _)) = &mut item {
                    crate::util::xml::push_reference(buf, &r);
                }
            }
            Event::End(_) => {
                if item.as_ref().is_some_and(|(_, d)| *d == depth) {
                    let (text, _) = item.take().unwrap_or_default();
                    let text = text.split_whitespace().collect::<Vec<_>>().join(" ");
                    match property {
                        Some((Property::Title, _)) if meta.title.is_none() && !text.is_empty() => {
                            meta.title = Some(text)
                        }
                        Some((Property::Creator, _)) if !text.is_empty() => {
                            meta.creators.push(text)
                        }
                        _ => {}
                    }
                }
                if property.is_some_and(|(_, d)| d == depth) {
                    property = None;
                }
                depth = depth.saturating_sub(1);
            }
            _ => {}
        }
    }
    meta
}

/// The bytes of the stream the catalog's `/Metadata` points at.
fn catalog_metadata_stream(bytes: &[u8]) -> Option<&[u8]> {
    let (num, generation) = CATALOG_METADATA.captures_iter(bytes).find_map(|c| {
        let at = c.get(0)?.start();
        // The dictionary holding the reference: from the object header
        // before it to the end of that object.
        let head = bytes[..at].windows(3).rposition(|w| w == b"obj")?;
        let tail = at + find(&bytes[at..], b"endobj").unwrap_or(bytes.len() - at);
        let dict = &bytes[head..tail];
        // An image's or a form's own /Metadata is not the document's.
        CATALOG_TYPE
            .is_match(dict)
            .then(|| (c[1].to_vec(), c[2].to_vec()))
    })?;
    let header = Regex::new(&format!(
        r"(?:^|[^0-9]){}\s+{}\s+obj(?-u:\b)",
        String::from_utf8_lossy(&num),
        String::from_utf8_lossy(&generation)
    ))
    .ok()?;
    let obj = header.find_iter(bytes).last()?.end();
    let body = &bytes[obj..];
    let start = find(body, b"stream")? + b"stream".len();
    let end = find(&body[start..], b"endstream")? + start;
    Some(&body[start..end])
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn packet(body: &str) -> String {
        format!(
            r#"<?xpacket begin="" id="W5M0MpCehiHzreSzNTczkc9d"?><x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF><rdf:Description rdf:about="">{body}</rdf:Description></rdf:RDF></x:xmpmeta><?xpacket end="w"?>"#
        )
    }

    fn title(t: &str) -> String {
        packet(&format!(
            r#"<dc:title><rdf:Alt><rdf:li xml:lang="x-default">{t}</rdf:li></rdf:Alt></dc:title>"#
        ))
    }

    fn obj(n: u32, dict: &str, stream: &str) -> String {
        format!("{n} 0 obj\n<< {dict} >>\nstream\n{stream}\nendstream\nendobj\n")
    }

    #[test]
    fn the_catalog_packet_is_read_and_image_packets_ignored() {
        let doc = packet(
            r#"<dc:title><rdf:Alt><rdf:li xml:lang="x-default">Bread &amp; Water:
               a   &#x201C;study&#x201D;</rdf:li></rdf:Alt></dc:title>
               <dc:creator><rdf:Seq><rdf:li>Ann Lee</rdf:li><rdf:li>Bo &lt;Chen&gt;</rdf:li></rdf:Seq></dc:creator>"#,
        );
        let file = format!(
            "%PDF-1.7\n{}{}{}1 0 obj\n<< /Type /Catalog /Pages 2 0 R /Metadata 12 0 R >>\nendobj\n%%EOF",
            // A logo with its own packet, referenced from an image dict.
            obj(11, "/Type /XObject /Subtype /Image /Metadata 13 0 R", ""),
            obj(13, "/Type /Metadata", &title("atlis_logo")),
            obj(12, "/Type /Metadata /Subtype /XML", &doc),
        );
        let got = parse(file.as_bytes()).unwrap();
        assert_eq!(
            got.title.as_deref(),
            Some("Bread & Water: a \u{201C}study\u{201D}")
        );
        assert_eq!(got.creators, ["Ann Lee", "Bo <Chen>"]);
    }

    #[test]
    fn without_a_catalog_reference_there_is_nothing() {
        let file = format!("%PDF-1.4\n{}", obj(13, "/Type /Metadata", &title("Sunset")));
        assert_eq!(parse(file.as_bytes()), None);
        let empty = format!(
            "%PDF-1.4\n{}1 0 obj << /Metadata 5 0 R /Type/Catalog >> endobj",
            obj(5, "/Type /Metadata", &packet(""))
        );
        assert_eq!(parse(empty.as_bytes()), None);
        assert_eq!(parse(b"%PDF-1.4 no packet here"), None);
    }

    #[test]
    fn an_incremental_update_replaces_the_packet() {
        let file = format!(
            "%PDF-1.4\n{}1 0 obj << /Type /Catalog /Metadata 5 0 R >> endobj\n%%EOF\n{}%%EOF",
            obj(5, "/Type /Metadata", &title("Draft")),
            obj(5, "/Type /Metadata", &title("Final")),
        );
        assert_eq!(
            parse(file.as_bytes()).unwrap().title.as_deref(),
            Some("Final")
        );
    }

    /// Any prefix bound to the Dublin Core namespace is Dublin Core, and
    /// `dc:` bound to something else is not.
    #[test]
    fn any_prefix_bound_to_dublin_core_is_read() {
        let file = |packet: &str| {
            format!(
                "%PDF-1.4\n{}1 0 obj << /Type /Catalog /Metadata 5 0 R >> endobj",
                obj(5, "/Type /Metadata", packet)
            )
        };
        let other_prefix = r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><r:RDF xmlns:r="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><r:Description r:about="" xmlns:elem="http://purl.org/dc/elements/1.1/"><elem:title><r:Alt><r:li xml:lang="x-default">Prefixes &amp; Names</r:li></r:Alt></elem:title><elem:creator><r:Seq><r:li>Ann Lee</r:li></r:Seq></elem:creator></r:Description></r:RDF></x:xmpmeta>"#;
        let got = parse(file(other_prefix).as_bytes()).unwrap();
        assert_eq!(got.title.as_deref(), Some("Prefixes & Names"));
        assert_eq!(got.creators, ["Ann Lee"]);

        let default_ns = r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about=""><title xmlns="http://purl.org/dc/elements/1.1/"><rdf:Alt><rdf:li>Default Namespace</rdf:li></rdf:Alt></title></rdf:Description></rdf:RDF></x:xmpmeta>"#;
        assert_eq!(
            parse(file(default_ns).as_bytes()).unwrap().title.as_deref(),
            Some("Default Namespace")
        );

        let not_dc = r#"<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description rdf:about="" xmlns:dc="urn:example:not-dublin-core"><dc:title><rdf:Alt><rdf:li>Impostor</rdf:li></rdf:Alt></dc:title></rdf:Description></rdf:RDF></x:xmpmeta>"#;
        assert_eq!(parse(file(not_dc).as_bytes()), None);
    }

    /// No packet makes the reader panic: pseudo-random packets built from
    /// XMP fragments (cut anywhere), and arbitrary bytes after a catalog
    /// that points at them.
    #[test]
    fn arbitrary_input_never_panics() {
        const PIECES: [&str; 22] = [
            "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">",
            "</x:xmpmeta>",
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">",
            "</rdf:RDF>",
            "<rdf:Description xmlns:dc=\"http://purl.org/dc/elements/1.1/\">",
            "</rdf:Description>",
            "<dc:title>",
            "</dc:title>",
            "<dc:creator>",
            "</dc:creator>",
            "<rdf:li>",
            "</rdf:li>",
            "<rdf:li/>",
            "&amp;",
            "&#x201C;",
            "&#0;",
            "&",
            "<!--",
            "<![CDATA[",
            "é—",
            " name ",
            "<",
        ];
        let mut rng = crate::testing::Rng::new(17);
        for _ in 0..1500 {
            let len = rng.below(30);
            let packet: String = (0..len).map(|_| *rng.pick(&PIECES)).collect();
            for (cut, _) in packet.char_indices().step_by(3) {
                let _ = read_packet(&packet[..cut]);
                let _ = read_packet(&packet[cut..]);
            }
        }
        for _ in 0..1500 {
            let mut file = b"%PDF-1.4\n5 0 obj << /Type /Metadata >>\nstream\n".to_vec();
            file.extend(rng.bytes(300));
            file.extend(
                b"\nendstream\nendobj\n1 0 obj << /Type /Catalog /Metadata 5 0 R >> endobj",
            );
            let _ = parse(&file);
            let _ = parse(&rng.bytes(300));
        }
    }
}
