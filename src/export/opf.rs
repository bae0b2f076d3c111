//! calibre's OPF (`metadata.opf` of a calibre library, OPF 2.0): title,
//! creators with `file-as`, publisher, date, identifiers (ISBN, DOI,
//! LCCN) and the unsure note as the description. calibre reads it when
//! adding a PDF with an `.opf` of the same name beside it, and from a
//! book folder's `metadata.opf`.

use super::Entry;
use crate::util::xml::escape as esc;
use std::fmt::Write as _;

pub fn render(e: &Entry) -> String {
    let m = &e.meta;
    let mut s = String::from(
        "<?xml version='1.0' encoding='utf-8'?>\n\
         <package xmlns=\"http://www.idpf.org/2007/opf\" unique-identifier=\"colophon_id\" version=\"2.0\">\n\
         \x20 <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\" xmlns:opf=\"http://www.idpf.org/2007/opf\">\n",
    );
    let hash = e.record.blake3.as_deref().unwrap_or("");
    let _ = writeln!(
        s,
        "    <dc:identifier id=\"colophon_id\" opf:scheme=\"blake3\">{}</dc:identifier>",
        esc(hash)
    );
    if let Some(t) = e.full_title() {
        let _ = writeln!(s, "    <dc:title>{}</dc:title>", esc(&t));
    }
    for a in &e.authors {
        let display = match a {
            super::names::Person::Corporate(n) => n.clone(),
            super::names::Person::Personal(p) => [&p.given, &p.particle, &p.family]
                .iter()
                .filter(|s| !s.is_empty())
                .map(|s| s.as_str())
                .collect::<Vec<_>>()
                .join(" "),
        };
        let _ = writeln!(
            s,
            "    <dc:creator opf:role=\"aut\" opf:file-as=\"{}\">{}</dc:creator>",
            esc(&a.sort_form()),
            esc(&display)
        );
    }
    if let Some(p) = &m.publisher {
        let _ = writeln!(s, "    <dc:publisher>{}</dc:publisher>", esc(p));
    }
    if let Some(y) = m.year {
        // calibre's form; the day and month are unknown, so January 1.
        let _ = writeln!(s, "    <dc:date>{y:04}-01-01T00:00:00+00:00</dc:date>");
    }
    for (scheme, v) in [("ISBN", &m.isbn), ("DOI", &m.doi), ("LCCN", &m.loc)] {
        if let Some(v) = v {
            let _ = writeln!(
                s,
                "    <dc:identifier opf:scheme=\"{scheme}\">{}</dc:identifier>",
                esc(v)
            );
        }
    }
    let mut description = Vec::new();
    if let Some(ed) = &m.edition {
        description.push(format!("Edition: {ed}"));
    }
    if let Some(n) = &e.note {
        description.push(n.clone());
    }
    if !description.is_empty() {
        let _ = writeln!(
            s,
            "    <dc:description>{}</dc:description>",
            esc(&description.join("\n"))
        );
    }
    if let Some(t) = &m.title {
        let _ = writeln!(
            s,
            "    <meta name=\"calibre:title_sort\" content=\"{}\"/>",
            esc(t)
        );
    }
    s.push_str("  </metadata>\n</package>\n");
    s
}
