//! RIS: `TAG  - value` lines, one record per PDF ending with `ER  - `,
//! CR LF line ends as the format defines them. Values are one line each
//! (line breaks become spaces). The PDF is linked with `L1`, which Zotero
//! and EndNote attach. Names are `AU  - Family, Given` with the particle
//! in front of the family name ("van der Berg, Jan", "Ó Laoghaire, Seán").
//!
//! Types from the RIS list: `BOOK`, `JOUR`, `RPRT` (a report, and a
//! manual as CSL has it, with `M3`, the type of work, saying which),
//! `THES`, and `GEN` for what is none of these.

use super::{Entry, Kind};

pub fn render(entries: &[Entry]) -> String {
    let mut out = String::new();
    for e in entries {
        let m = &e.meta;
        let (ty, work) = match e.kind {
            Kind::Book => ("BOOK", None),
            Kind::Manual => ("RPRT", Some("Manual")),
            Kind::Article => ("JOUR", None),
            Kind::TechReport => ("RPRT", Some("Technical report")),
            Kind::Thesis => ("THES", Some("PhD thesis")),
            Kind::Misc => ("GEN", None),
        };
        let mut line = |tag: &str, v: &str| {
            let v = super::one_line(v);
            out.push_str(&format!("{tag}  - {v}\r\n"));
        };
        line("TY", ty);
        line("ID", &e.key);
        for a in &e.authors {
            line("AU", &a.sort_form());
        }
        // RIS has no subtitle tag (T2 is a journal or series): it joins the title.
        if let Some(t) = e.full_title() {
            line("TI", &t);
        }
        if let Some(p) = &m.publisher {
            line("PB", p);
        }
        if let Some(y) = m.year {
            line("PY", &y.to_string());
        }
        if let Some(ed) = &m.edition {
            line("ET", ed);
        }
        if let Some(w) = work {
            line("M3", w);
        }
        if let Some(i) = &m.isbn {
            line("SN", i);
        }
        if let Some(d) = &m.doi {
            line("DO", d);
        }
        if let Some(l) = &m.loc {
            line("CN", l);
        }
        if let Some(n) = &e.note {
            line("N1", n);
        }
        line("L1", &e.file.to_string_lossy());
        line("ER", "");
        out.push_str("\r\n");
    }
    out
}
