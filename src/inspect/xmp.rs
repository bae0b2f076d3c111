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

use regex::bytes::Regex;
use std::sync::LazyLock;

/// Title and creators from the document's XMP packet, if it has any.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct XmpMeta {
    pub title: Option<String>,
    /// `dc:creator` entries, in order.
    pub creators: Vec<String>,
}

static CATALOG_METADATA: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"/Metadata\s*(\d+)\s+(\d+)\s+R").expect("valid regex"));
static CATALOG_TYPE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"/Type\s*/Catalog\b").expect("valid regex"));
static PACKET: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<x:xmpmeta\b.*?</x:xmpmeta>").expect("valid regex"));
static TITLE: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<dc:title\b[^>]*>(.*?)</dc:title>").expect("valid regex"));
static CREATOR: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?s)<dc:creator\b[^>]*>(.*?)</dc:creator>").expect("valid regex")
});
static LI: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(r"(?s)<rdf:li\b[^>]*>(.*?)</rdf:li>").expect("valid regex"));

/// Finds the catalog's metadata stream in the raw bytes of a PDF and reads it.
pub fn parse(bytes: &[u8]) -> Option<XmpMeta> {
    let stream = catalog_metadata_stream(bytes)?;
    let packet = PACKET.find(stream)?.as_bytes();
    let text = String::from_utf8_lossy(packet);
    let items = |re: &Regex| -> Vec<String> {
        re.captures(text.as_bytes())
            .map(|c| {
                LI.captures_iter(&c[1])
                    .map(|li| unescape(&String::from_utf8_lossy(&li[1])))
                    .filter(|s| !s.is_empty())
                    .collect()
            })
            .unwrap_or_default()
    };
    let meta = XmpMeta {
        title: items(&TITLE).into_iter().next(),
        creators: items(&CREATOR),
    };
    (meta.title.is_some() || !meta.creators.is_empty()).then_some(meta)
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
        r"(?:^|[^0-9]){}\s+{}\s+obj\b",
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

/// XML text to plain text: entities decoded, whitespace collapsed.
fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find('&') {
        out.push_str(&rest[..i]);
        rest = &rest[i..];
        let Some(end) = rest.find(';').filter(|&e| e <= 10) else {
            out.push('&');
            rest = &rest[1..];
            continue;
        };
        let ent = &rest[1..end];
        let ch = match ent {
            "amp" => Some('&'),
            "lt" => Some('<'),
            "gt" => Some('>'),
            "quot" => Some('"'),
            "apos" => Some('\''),
            _ => ent
                .strip_prefix("#x")
                .and_then(|h| u32::from_str_radix(h, 16).ok())
                .or_else(|| ent.strip_prefix('#').and_then(|d| d.parse().ok()))
                .and_then(char::from_u32),
        };
        match ch {
            Some(c) => {
                out.push(c);
                rest = &rest[end + 1..];
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out.split_whitespace().collect::<Vec<_>>().join(" ")
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
}
