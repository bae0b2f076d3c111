//! Papers, reports and slide decks written with the generator's own
//! typesetter (`layout`) and PDF writer (`pdf`): base-14 or DejaVu faces,
//! a title block with inline affiliation marks, body pages in one or two
//! columns, a sideways margin stamp, landscape slides.

use super::fonts::{Face, Family, Fonts};
use super::layout::{self, Align, Block, Geometry, Item, Page, PageKind, PageSpec};
use super::paper::{Kind, Paper};
use super::pdf::{self, Info};
use super::rng::Rng;

struct Style {
    text: Family,
    display: Family,
    size: f32,
    align: Align,
}

impl Style {
    fn face(&self, bold: bool, italic: bool) -> Face {
        Face::new(self.text, bold, italic)
    }

    fn display(&self, bold: bool) -> Face {
        Face::new(self.display, bold, false)
    }

    fn para(&self, text: &str, size: f32, before: f32) -> Block {
        Block::text(text, self.face(false, false), size, Align::Justify, before)
    }
}

fn style(rng: &mut Rng, p: &Paper, fonts: &Fonts) -> Style {
    let unicode = p.lang.needs_unicode_font() || (fonts.has_unicode() && rng.chance(0.15));
    let (text, display) = if unicode {
        (
            *rng.pick(&[Family::Serif, Family::Sans]),
            *rng.pick(&[Family::Serif, Family::Sans]),
        )
    } else {
        (
            *rng.pick(&[Family::Times, Family::Times, Family::Helvetica]),
            *rng.pick(&[Family::Times, Family::Helvetica]),
        )
    };
    Style {
        text,
        display,
        size: rng.uniform(9.0, 11.0) as f32,
        align: *rng.pick(&[Align::Center, Align::Center, Align::Left]),
    }
}

fn title_text(p: &Paper, rng: &mut Rng) -> String {
    match &p.subtitle {
        Some(s) if rng.chance(0.5) => format!("{}:\n{s}", p.title),
        Some(s) => format!("{}: {s}", p.title),
        None => p.title.clone(),
    }
}

fn author_blocks(rng: &mut Rng, p: &Paper, st: &Style) -> Vec<Block> {
    let mut out = Vec::new();
    let numbered = p.affiliations.len() > 1;
    let and = if rng.chance(0.5) { "and" } else { "&" };
    if rng.chance(0.6) {
        let names: Vec<String> = p
            .authors
            .iter()
            .map(|a| format!("{}{}", a.name, a.marks(numbered).join(",")))
            .collect();
        let text = match names.len() {
            1 => names[0].clone(),
            n if rng.chance(0.5) => format!("{} {and} {}", names[..n - 1].join(", "), names[n - 1]),
            _ => names.join(", "),
        };
        out.push(Block::text(
            text,
            st.face(false, false),
            st.size * 1.3,
            st.align,
            10.0,
        ));
        let affs: Vec<String> = p
            .affiliations
            .iter()
            .enumerate()
            .map(|(i, a)| {
                if numbered {
                    format!("{}{a}", i + 1)
                } else {
                    a.clone()
                }
            })
            .collect();
        out.push(Block::text(
            affs.join("\n"),
            st.face(false, true),
            st.size * 0.9,
            st.align,
            6.0,
        ));
        let mails: Vec<&str> = p
            .authors
            .iter()
            .filter_map(|a| a.email.as_deref())
            .collect();
        if !mails.is_empty() {
            out.push(Block::text(
                mails.join(", "),
                Face::new(Family::Courier, false, false),
                st.size * 0.8,
                st.align,
                3.0,
            ));
        }
    } else {
        for a in &p.authors {
            let aff: Vec<&str> = a.affs.iter().map(|i| p.affiliations[*i].as_str()).collect();
            out.push(Block::text(
                format!("{}{}", a.name, a.marks(false).join(",")),
                st.face(true, false),
                st.size * 1.15,
                st.align,
                6.0,
            ));
            let mut line = aff.join("; ");
            if let Some(e) = &a.email {
                line.push_str(&format!("\n{e}"));
            }
            out.push(Block::text(
                line,
                st.face(false, true),
                st.size * 0.85,
                st.align,
                1.0,
            ));
        }
    }
    out
}

fn footnote_blocks(p: &Paper, st: &Style, doi: bool) -> Vec<Block> {
    let mut lines = p.footnotes.clone();
    if doi {
        lines.extend(p.doi_line.clone());
    }
    for a in &p.authors {
        if let Some(o) = &a.orcid {
            lines.push(format!("ORCID ({}): {o}", a.name));
        }
    }
    if lines.is_empty() {
        return vec![];
    }
    vec![
        Block::Fill(1.0),
        Block::Rule {
            frac: 0.3,
            align: Align::Left,
        },
        Block::text(
            lines.join("\n"),
            st.face(false, false),
            st.size * 0.75,
            Align::Left,
            0.0,
        ),
    ]
}

fn body_specs(rng: &mut Rng, p: &Paper, st: &Style, columns: usize) -> Vec<PageSpec> {
    let mut blocks = Vec::new();
    for (i, (h, paras)) in p.sections.iter().enumerate() {
        let head = if rng.chance(0.7) {
            format!("{} {h}", i + 1)
        } else {
            h.clone()
        };
        blocks.push(Block::text(
            head,
            st.face(true, false),
            st.size * 1.1,
            Align::Left,
            8.0,
        ));
        for para in paras {
            blocks.push(st.para(para, st.size, 3.0));
        }
    }
    let mut specs = Vec::new();
    let mut spec = PageSpec::new(PageKind::Body, blocks, st.face(false, false));
    spec.columns = columns;
    spec.truncate = true;
    spec.running_head = p.running_head.clone();
    specs.push(spec);
    let mut refs = vec![Block::text(
        p.ref_head.clone(),
        st.face(true, false),
        st.size * 1.1,
        Align::Left,
        0.0,
    )];
    for r in &p.references {
        refs.push(Block::text(
            r.clone(),
            st.face(false, false),
            st.size * 0.85,
            Align::Left,
            3.0,
        ));
    }
    let mut spec = PageSpec::new(PageKind::Body, refs, st.face(false, false));
    spec.columns = columns;
    spec.truncate = true;
    spec.running_head = p.running_head.clone();
    specs.push(spec);
    specs
}

fn paper_specs(rng: &mut Rng, p: &Paper, st: &Style) -> Vec<PageSpec> {
    let mut b = Vec::new();
    let doi_in_foot = rng.chance(0.5);
    if !p.masthead.is_empty() {
        let a = *rng.pick(&[Align::Left, Align::Right, Align::Center]);
        b.push(Block::text(
            p.masthead.join("\n"),
            st.display(false),
            st.size * 0.85,
            a,
            0.0,
        ));
        if !doi_in_foot {
            if let Some(d) = &p.doi_line {
                b.push(Block::text(
                    d.clone(),
                    st.display(false),
                    st.size * 0.85,
                    a,
                    0.0,
                ));
            }
        }
        b.push(Block::Rule {
            frac: 1.0,
            align: Align::Left,
        });
    }
    if let Some(l) = &p.label {
        b.push(Block::text(
            l.clone(),
            st.display(true),
            st.size,
            Align::Left,
            4.0,
        ));
    }
    if let Some(r) = &p.report_line {
        b.push(Block::text(
            r.clone(),
            st.display(false),
            st.size,
            st.align,
            4.0,
        ));
    }
    let t = title_text(p, rng);
    b.push(Block::text(
        t,
        st.display(true),
        rng.uniform(16.0, 22.0) as f32,
        st.align,
        14.0,
    ));
    b.extend(author_blocks(rng, p, st));
    if let Some(d) = &p.date_line {
        b.push(Block::text(
            d.clone(),
            st.face(false, false),
            st.size,
            st.align,
            6.0,
        ));
    }
    if !p.dates.is_empty() {
        b.push(Block::text(
            p.dates.join(" | "),
            st.face(false, false),
            st.size * 0.8,
            st.align,
            6.0,
        ));
    }
    if p.masthead.is_empty() && !doi_in_foot {
        if let Some(d) = &p.doi_line {
            b.push(Block::text(
                d.clone(),
                st.face(false, false),
                st.size * 0.8,
                st.align,
                2.0,
            ));
        }
    }
    b.push(Block::text(
        p.abstract_head.clone(),
        st.face(true, false),
        st.size,
        Align::Left,
        14.0,
    ));
    b.push(st.para(&p.abstract_text, st.size * 0.95, 2.0));
    if let Some(k) = &p.keywords {
        b.push(Block::text(
            k.clone(),
            st.face(false, true),
            st.size * 0.9,
            Align::Left,
            4.0,
        ));
    }
    b.extend(footnote_blocks(p, st, doi_in_foot || p.masthead.is_empty()));
    let mut specs = vec![PageSpec::new(PageKind::Title, b, st.face(false, false))];
    let cols = if rng.chance(0.4) { 2 } else { 1 };
    specs.extend(body_specs(rng, p, st, cols));
    specs
}

fn slide_specs(rng: &mut Rng, p: &Paper, st: &Style) -> Vec<PageSpec> {
    let mut b = vec![Block::Fill(1.0)];
    b.push(Block::text(
        p.title.clone(),
        st.display(true),
        28.0,
        Align::Center,
        0.0,
    ));
    if let Some(s) = &p.subtitle {
        b.push(Block::text(
            s.clone(),
            st.display(false),
            18.0,
            Align::Center,
            6.0,
        ));
    }
    b.push(Block::Fill(0.5));
    let names: Vec<String> = p.authors.iter().map(|a| a.name.clone()).collect();
    b.push(Block::text(
        names.join(", "),
        st.face(false, false),
        16.0,
        Align::Center,
        0.0,
    ));
    b.push(Block::text(
        p.affiliations.join("\n"),
        st.face(false, true),
        12.0,
        Align::Center,
        4.0,
    ));
    if let Some(e) = &p.event {
        b.push(Block::text(
            e.clone(),
            st.face(false, false),
            12.0,
            Align::Center,
            12.0,
        ));
    }
    b.push(Block::Fill(1.0));
    let foot = format!(
        "{} \u{2014} {}",
        p.authors[0].name,
        p.event.clone().unwrap_or_default()
    );
    let mut specs = vec![PageSpec::new(PageKind::Title, b, st.face(false, false))];
    for (i, (h, paras)) in p.sections.iter().enumerate() {
        let mut b = vec![Block::text(
            h.clone(),
            st.display(true),
            24.0,
            Align::Left,
            0.0,
        )];
        for s in paras[0].split(". ").take(4) {
            b.push(Block::text(
                format!("\u{2022} {}", s.trim_end_matches('.')),
                st.face(false, false),
                16.0,
                Align::Left,
                10.0,
            ));
        }
        let mut spec = PageSpec::new(PageKind::Body, b, st.face(false, false));
        spec.truncate = true;
        spec.folio = Some(format!("{}", i + 2));
        if rng.chance(0.7) {
            spec.running_head = Some(foot.clone());
        }
        specs.push(spec);
    }
    let thanks = *rng.pick(super::lang::paper_labels(p.lang).thanks);
    specs.push(PageSpec::new(
        PageKind::Body,
        vec![
            Block::Fill(1.0),
            Block::text(thanks, st.display(true), 28.0, Align::Center, 0.0),
            Block::Fill(1.0),
        ],
        st.face(false, false),
    ));
    specs
}

/// Typesets a paper, report or slide deck with lopdf; returns the PDF,
/// the page sizes and the producer's description.
pub fn render(rng: &mut Rng, p: &Paper, fonts: &Fonts) -> (Vec<u8>, Vec<(f32, f32)>, String) {
    let st = style(rng, p, fonts);
    let (w, h) = match p.kind {
        Kind::Slides => *rng.pick(&[(720.0, 540.0), (960.0, 540.0), (842.0, 595.0)]),
        _ => *rng.pick(&[(595.0, 842.0), (612.0, 792.0)]),
    };
    let g = Geometry {
        w,
        h,
        margin_x: w * rng.uniform(0.08, 0.13) as f32,
        margin_top: h * rng.uniform(0.06, 0.1) as f32,
        margin_bottom: h * rng.uniform(0.06, 0.1) as f32,
    };
    let mut specs = match p.kind {
        Kind::Slides => slide_specs(rng, p, &st),
        _ => paper_specs(rng, p, &st),
    };
    let mut pages: Vec<Page> = specs
        .iter_mut()
        .map(|s| layout::layout_fitting(fonts, &g, s))
        .collect();
    if let Some(s) = &p.stamp {
        pages[0].items.push(Item::Sideways {
            x: g.margin_x * 0.55,
            y: h * 0.3,
            face: Face::new(Family::Times, false, false),
            size: 16.0,
            text: s.clone(),
        });
    }
    let info = Info {
        title: rng.chance(0.4).then(|| p.title.clone()),
        author: rng.chance(0.3).then(|| p.authors[0].name.clone()),
        producer: "colophon gen_books (lopdf)".into(),
        creator: None,
    };
    let pdf = pdf::write(fonts, &pages, &info);
    let sizes = pages.iter().map(|pg| (pg.w, pg.h)).collect();
    let producer = format!(
        "lopdf ({} / {}, {w:.0}x{h:.0} pt, {})",
        st.text.name(),
        st.display.name(),
        p.kind.key()
    );
    (pdf, sizes, producer)
}
