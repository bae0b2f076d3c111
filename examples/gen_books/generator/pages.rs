//! The pages of one book: which metadata pages it has, in which order, and
//! what each prints. Every time a page prints a truth value it is recorded
//! (`Printed`), which gives the truth record's `seen` and what the
//! self-check looks for.

use super::fonts::{Face, Family, Fonts};
use super::ident::{Isbn, roman};
use super::invent::{Book, Person, Role};
use super::lang::{self, Lang, labels};
use super::layout::{Align, Block, Geometry, PageKind, PageSpec};
use super::rng::Rng;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Field {
    Title,
    Subtitle,
    Authors,
    Publisher,
    Year,
    Edition,
    Isbn,
    Doi,
    Loc,
}

impl Field {
    pub const ALL: [Field; 9] = [
        Field::Title,
        Field::Subtitle,
        Field::Authors,
        Field::Publisher,
        Field::Year,
        Field::Edition,
        Field::Isbn,
        Field::Doi,
        Field::Loc,
    ];

    pub fn key(self) -> &'static str {
        match self {
            Field::Title => "title",
            Field::Subtitle => "subtitle",
            Field::Authors => "authors",
            Field::Publisher => "publisher",
            Field::Year => "year",
            Field::Edition => "edition",
            Field::Isbn => "isbn",
            Field::Doi => "doi",
            Field::Loc => "loc",
        }
    }
}

/// One truth value printed on one page, in the form it was printed.
/// `key` tells apart values of a list field (an author's display name, an
/// ISBN's 13 digits).
#[derive(Clone, Debug)]
pub struct Printed {
    pub field: Field,
    pub key: String,
    pub page: usize,
    pub form: String,
    /// Drawn into a picture, not in the text layer.
    pub picture: bool,
}

/// A book's typographic choices.
#[derive(Clone, Debug)]
pub struct Design {
    pub geometry: Geometry,
    pub text: Family,
    pub display: Family,
    pub body_size: f32,
    pub title_size: f32,
    pub title_align: Align,
    pub title_caps: bool,
    pub title_bold: bool,
    pub imprint_align: Align,
    pub imprint_size: f32,
    pub imprint_bottom: bool,
    pub body_align: Align,
    pub columns: usize,
    pub hyphenated_isbn: bool,
    pub folio_top: bool,
}

pub fn design(rng: &mut Rng, lang: Lang, fonts: &Fonts) -> Design {
    // (width, height) in points: A4, US Letter, A5, Royal, Demy, B-format, 6x9.
    let sizes = [
        (595.0, 842.0),
        (612.0, 792.0),
        (420.0, 595.0),
        (442.0, 663.0),
        (396.0, 612.0),
        (369.0, 566.0),
        (432.0, 648.0),
    ];
    let (w, h) = *rng.pick(&sizes);
    let margin_x = w * rng.uniform(0.1, 0.16) as f32;
    let geometry = Geometry {
        w,
        h,
        margin_x,
        margin_top: h * rng.uniform(0.08, 0.12) as f32,
        margin_bottom: h * rng.uniform(0.08, 0.12) as f32,
    };
    let unicode = lang.needs_unicode_font() || (fonts.has_unicode() && rng.chance(0.15));
    let (text, display) = if unicode {
        let t = *rng.pick(&[Family::Serif, Family::Sans]);
        (t, *rng.pick(&[Family::Serif, Family::Sans]))
    } else {
        let t = Family::from_index(rng.weighted(&[0.55, 0.3, 0.15]));
        (t, Family::from_index(rng.weighted(&[0.5, 0.45, 0.05])))
    };
    let scale = (w / 500.0).clamp(0.8, 1.2);
    Design {
        geometry,
        text,
        display,
        body_size: rng.uniform(9.5, 12.0) as f32 * scale,
        title_size: rng.uniform(20.0, 34.0) as f32 * scale,
        title_align: *rng.pick(&[
            Align::Center,
            Align::Center,
            Align::Center,
            Align::Left,
            Align::Right,
        ]),
        title_caps: rng.chance(0.2),
        title_bold: rng.chance(0.5),
        imprint_align: *rng.pick(&[Align::Left, Align::Left, Align::Center]),
        imprint_size: rng.uniform(7.0, 9.5) as f32,
        imprint_bottom: rng.chance(0.6),
        body_align: *rng.pick(&[Align::Justify, Align::Justify, Align::Left]),
        columns: if rng.chance(0.25) { 2 } else { 1 },
        hyphenated_isbn: rng.chance(0.7),
        folio_top: rng.chance(0.3),
    }
}

impl Family {
    fn from_index(i: usize) -> Family {
        [Family::Times, Family::Helvetica, Family::Courier][i]
    }
}

/// Options that switch page features on or off for a whole run.
#[derive(Clone, Copy, Debug)]
pub struct Features {
    /// Covers whose title is only a picture (needs the DejaVu faces).
    pub picture_covers: bool,
}

/// The composed book: page specs in order and every printed truth value.
pub struct Composed {
    pub specs: Vec<PageSpec>,
    pub printed: Vec<Printed>,
    pub notes: Vec<String>,
}

struct Composer<'a> {
    rng: &'a mut Rng,
    book: &'a Book,
    d: &'a Design,
    fonts: &'a Fonts,
    specs: Vec<PageSpec>,
    printed: Vec<Printed>,
    notes: Vec<String>,
}

fn upper(s: &str) -> String {
    s.to_uppercase()
}

fn join_names(names: &[String], and: &str) -> String {
    match names.len() {
        0 => String::new(),
        1 => names[0].clone(),
        2 => format!("{} {and} {}", names[0], names[1]),
        _ => format!(
            "{} {and} {}",
            names[..names.len() - 1].join(", "),
            names[names.len() - 1]
        ),
    }
}

impl Composer<'_> {
    fn face(&self, bold: bool, italic: bool) -> Face {
        Face::new(self.d.text, bold, italic)
    }

    fn display(&self, bold: bool, italic: bool) -> Face {
        Face::new(self.d.display, bold, italic)
    }

    /// Records that the page about to be pushed prints `form` for `field`.
    fn mark(&mut self, field: Field, key: &str, form: &str) {
        self.printed.push(Printed {
            field,
            key: key.to_string(),
            page: self.specs.len(),
            form: form.to_string(),
            picture: false,
        });
    }

    fn push(&mut self, spec: PageSpec) {
        self.specs.push(spec);
    }

    fn isbn_form(&mut self, isbn: &Isbn) -> String {
        if self.book.year < 2007 && isbn.has10() {
            if self.d.hyphenated_isbn {
                isbn.hyphen10()
            } else {
                isbn.isbn10()
            }
        } else if self.d.hyphenated_isbn {
            isbn.hyphen13()
        } else {
            isbn.isbn13()
        }
    }

    fn edition_text(&mut self) -> Option<String> {
        let n = self.book.edition?;
        Some(lang::edition_statement(self.rng, self.book.lang, n))
    }

    fn creator_names(&self) -> Vec<String> {
        self.book.creators.iter().map(Person::display).collect()
    }

    fn mark_creators(&mut self, forms: &[String]) {
        let keys = self.creator_names();
        for (k, f) in keys.iter().zip(forms) {
            self.mark(Field::Authors, k, f);
        }
    }

    fn cover(&mut self, picture: bool) {
        let b = self.book;
        let mut blocks = vec![Block::Fill(1.0)];
        let size = self.d.title_size * 1.2;
        if picture {
            let img = super::raster::title_picture(self.fonts, &b.title, self.rng);
            if let Some((image, w_px, h_px)) = img {
                let measure = self.d.geometry.w - 2.0 * self.d.geometry.margin_x;
                let w = measure;
                let h = w * h_px as f32 / w_px as f32;
                blocks.push(Block::Picture {
                    image,
                    w,
                    h,
                    align: Align::Center,
                });
                self.printed.push(Printed {
                    field: Field::Title,
                    key: b.title.clone(),
                    page: self.specs.len(),
                    form: b.title.clone(),
                    picture: true,
                });
                self.notes
                    .push("The cover title is a picture, not text.".into());
            }
        } else {
            let t = if self.d.title_caps {
                upper(&b.title)
            } else {
                b.title.clone()
            };
            blocks.push(Block::text(
                t.clone(),
                self.display(true, false),
                size,
                Align::Center,
                0.0,
            ));
            self.mark(Field::Title, &b.title, &t);
            if let Some(s) = &b.subtitle {
                if self.rng.chance(0.6) {
                    blocks.push(Block::text(
                        s.clone(),
                        self.display(false, true),
                        size * 0.5,
                        Align::Center,
                        size * 0.4,
                    ));
                    self.mark(Field::Subtitle, s, s);
                }
            }
        }
        blocks.push(Block::Fill(1.5));
        let names = self.creator_names();
        let line = join_names(&names, labels(b.lang).and);
        blocks.push(Block::text(
            line,
            self.display(false, false),
            size * 0.55,
            Align::Center,
            0.0,
        ));
        self.mark_creators(&names);
        blocks.push(Block::Fill(0.5));
        self.push(PageSpec::new(
            PageKind::Cover,
            blocks,
            self.face(false, false),
        ));
    }

    fn half_title(&mut self) {
        let b = self.book;
        let mut blocks = vec![Block::Fill(0.6)];
        let t = if self.d.title_caps {
            upper(&b.title)
        } else {
            b.title.clone()
        };
        blocks.push(Block::text(
            t.clone(),
            self.display(false, false),
            self.d.title_size * 0.6,
            self.d.title_align,
            0.0,
        ));
        self.mark(Field::Title, &b.title, &t);
        if let Some(series) = &b.series {
            blocks.push(Block::text(
                series.clone(),
                self.face(false, true),
                self.d.body_size,
                self.d.title_align,
                30.0,
            ));
        }
        blocks.push(Block::Fill(1.4));
        self.push(PageSpec::new(
            PageKind::HalfTitle,
            blocks,
            self.face(false, false),
        ));
    }

    fn also_by(&mut self) {
        let b = self.book;
        let l = labels(b.lang);
        let who = b.creators[0].display();
        let head = self.rng.pick(l.also_by).to_string();
        let head_names_author = head.contains("{}");
        let head = head.replace("{}", &who);
        let size = self.d.body_size;
        let mut blocks = vec![
            Block::Fill(0.3),
            Block::text(head, self.face(true, false), size * 1.1, Align::Center, 0.0),
        ];
        for o in &b.also_by {
            blocks.push(Block::text(
                o.title.clone(),
                self.face(false, true),
                size,
                Align::Center,
                size,
            ));
            let form = self.isbn_form(&o.isbn);
            let line = match self.rng.below(3) {
                0 => format!("(ISBN {form})"),
                1 => format!("{} \u{00b7} ISBN {form}", o.year),
                _ => format!("ISBN {form}"),
            };
            blocks.push(Block::text(
                line,
                self.face(false, false),
                size * 0.85,
                Align::Center,
                2.0,
            ));
        }
        blocks.push(Block::Fill(1.0));
        self.notes.push(format!(
            "The also-by page prints {} other books' ISBNs.",
            b.also_by.len()
        ));
        if head_names_author {
            self.mark(Field::Authors, &who, &who);
        }
        self.push(PageSpec::new(
            PageKind::AlsoBy,
            blocks,
            self.face(false, false),
        ));
    }

    fn frontispiece(&mut self) {
        let g = self.d.geometry;
        let w = g.w - 2.0 * g.margin_x;
        let h = (g.h - g.margin_top - g.margin_bottom) * 0.7;
        let image = super::raster::engraving(self.rng, 240, (240.0 * h / w) as u32);
        let caption = lang::sentence(self.rng, self.book.lang);
        let blocks = vec![
            Block::Fill(1.0),
            Block::Picture {
                image,
                w,
                h,
                align: Align::Center,
            },
            Block::text(
                caption,
                self.face(false, true),
                self.d.body_size * 0.85,
                Align::Center,
                4.0,
            ),
            Block::Fill(1.0),
        ];
        self.push(PageSpec::new(
            PageKind::Frontispiece,
            blocks,
            self.face(false, false),
        ));
    }

    fn title_page(&mut self) {
        let b = self.book;
        let l = labels(b.lang);
        let d = self.d.clone();
        let align = d.title_align;
        let mut blocks = vec![Block::Fill(0.7)];
        let t = if d.title_caps {
            upper(&b.title)
        } else {
            b.title.clone()
        };
        blocks.push(Block::text(
            t.clone(),
            self.display(d.title_bold, false),
            d.title_size,
            align,
            0.0,
        ));
        self.mark(Field::Title, &b.title, &t);
        if let Some(s) = &b.subtitle {
            let italic = self.rng.chance(0.5);
            blocks.push(Block::text(
                s.clone(),
                self.display(false, italic),
                d.title_size * 0.55,
                align,
                d.title_size * 0.5,
            ));
            self.mark(Field::Subtitle, s, s);
        }
        if self.rng.chance(0.6) {
            if let Some(e) = self.edition_text() {
                blocks.push(Block::Fill(0.4));
                blocks.push(Block::text(
                    e.clone(),
                    self.face(false, true),
                    d.body_size * 1.1,
                    align,
                    0.0,
                ));
                self.mark(Field::Edition, "", &e);
            }
        }
        blocks.push(Block::Fill(0.8));
        let names = self.creator_names();
        let caps = self.rng.chance(0.25);
        let forms: Vec<String> = names
            .iter()
            .map(|n| if caps { upper(n) } else { n.clone() })
            .collect();
        if b.role == Role::Editors {
            let label = self.rng.pick(l.edited_by).to_string();
            blocks.push(Block::text(
                label,
                self.face(false, true),
                d.body_size,
                align,
                0.0,
            ));
        }
        let asize = d.title_size * 0.5;
        let measure = d.geometry.w - 2.0 * d.geometry.margin_x;
        let joined = join_names(&forms, l.and);
        let one_line = self.fonts.width(self.face(false, false), &joined, asize) <= measure;
        if !one_line || self.rng.chance(0.5) {
            for f in &forms {
                blocks.push(Block::text(
                    f.clone(),
                    self.face(false, false),
                    asize,
                    align,
                    asize * 0.3,
                ));
            }
        } else {
            blocks.push(Block::text(
                joined,
                self.face(false, false),
                asize,
                align,
                0.0,
            ));
        }
        self.mark_creators(&forms);
        for t in &b.translators {
            let label = self.rng.pick(l.translated_by).to_string();
            blocks.push(Block::text(
                format!("{label} {}", t.display()),
                self.face(false, true),
                d.body_size,
                align,
                d.body_size,
            ));
        }
        if let Some(i) = &b.illustrator {
            let label = self.rng.pick(l.illustrated_by).to_string();
            blocks.push(Block::text(
                format!("{label} {}", i.display()),
                self.face(false, true),
                d.body_size,
                align,
                d.body_size * 0.5,
            ));
        }
        if self.rng.chance(0.85) {
            blocks.push(Block::Fill(1.6));
            let pubname = if self.rng.chance(0.15) {
                upper(&b.publisher)
            } else {
                b.publisher.clone()
            };
            blocks.push(Block::text(
                pubname.clone(),
                self.display(true, false),
                d.body_size * 1.2,
                align,
                0.0,
            ));
            self.mark(Field::Publisher, &b.publisher, &pubname);
            let places = match self.rng.below(3) {
                0 => b.places.join(" \u{00b7} "),
                1 => upper(&b.places.join(&format!(" {} ", l.and))),
                _ => b.places.join(" | "),
            };
            blocks.push(Block::text(
                places,
                self.face(false, false),
                d.body_size * 0.9,
                align,
                3.0,
            ));
            if self.rng.chance(0.15) {
                blocks.push(Block::text(
                    roman(b.year as u32, true),
                    self.face(false, false),
                    d.body_size * 0.9,
                    align,
                    3.0,
                ));
            }
        } else {
            blocks.push(Block::Fill(1.2));
        }
        blocks.push(Block::Fill(0.3));
        self.push(PageSpec::new(
            PageKind::Title,
            blocks,
            self.face(false, false),
        ));
    }

    fn imprint_lines(&mut self) -> Vec<String> {
        let b = self.book;
        let l = labels(b.lang);
        let mut lines: Vec<String> = Vec::new();
        let edition = self.edition_text();
        let pubname = b.publisher.clone();
        // Publication history.
        match b.first_year {
            Some(first) => {
                let f = self
                    .rng
                    .pick(l.first_published)
                    .replace("{}", &first.to_string());
                let ed = edition.clone().unwrap_or_default();
                let t = self
                    .rng
                    .pick(l.this_edition)
                    .replace("{ed}", &ed)
                    .replace("{}", &b.year.to_string());
                if self.rng.chance(0.5) {
                    lines.push(format!(
                        "{t}\n{} {pubname}",
                        match b.lang {
                            Lang::En => "by",
                            Lang::De => "bei",
                            Lang::Fr => "chez",
                            Lang::Ru => "\u{2014}",
                        }
                    ));
                    lines.push(f);
                } else {
                    lines.push(f);
                    lines.push(t.clone());
                }
                self.mark(Field::Year, "", &b.year.to_string());
                if t.contains(&ed) && !ed.is_empty() {
                    self.mark(Field::Edition, "", &ed);
                } else if let Some(e) = &edition {
                    lines.push(e.clone());
                    self.mark(Field::Edition, "", e);
                }
            }
            None => {
                // A first edition says so only sometimes; when it does, the
                // truth edition is "1" (see `Book::first_edition_stated`).
                let phrases = if b.first_edition_stated {
                    l.first_published
                } else {
                    l.published_in
                };
                let f = self.rng.pick(phrases).replace("{}", &b.year.to_string());
                lines.push(format!("{f}\n{pubname}"));
                self.mark(Field::Year, "", &b.year.to_string());
                if b.first_edition_stated {
                    let e = lang::edition_statement(self.rng, b.lang, 1);
                    lines.push(e.clone());
                    self.mark(Field::Edition, "", &e);
                }
            }
        }
        if !b.reprints.is_empty() {
            let years: Vec<String> = b.reprints.iter().map(|y| y.to_string()).collect();
            lines.push(self.rng.pick(l.reprinted).replace("{}", &years.join(", ")));
        }
        let publine = self
            .rng
            .pick(l.published_by)
            .replacen("{}", &pubname, 1)
            .replace("{}", &pubname)
            .replace("{place}", &b.places[0]);
        lines.push(format!("{publine}\n{}", b.address));
        self.mark(Field::Publisher, &b.publisher, &pubname);
        // Copyright.
        let years = match b.first_year {
            Some(f) if self.rng.chance(0.6) => format!("{f}, {}", b.year),
            _ => b.year.to_string(),
        };
        let holder = b.copyright_holder.clone();
        lines.push(match self.rng.below(3) {
            0 => format!("\u{00a9} {years} {holder}"),
            1 => format!("Copyright \u{00a9} {years} by {holder}"),
            _ => format!("\u{00a9} {holder} {years}"),
        });
        if holder != b.publisher {
            let names = self.creator_names();
            for n in names {
                if holder.contains(&n) {
                    self.mark(Field::Authors, &n, &n);
                }
            }
        }
        lines.push(self.rng.pick(l.rights).to_string());
        for t in &b.translators {
            lines.push(format!(
                "{} {}",
                self.rng.pick(l.translated_by),
                t.display()
            ));
        }
        lines
    }

    fn cip_block(&mut self) -> Vec<String> {
        let b = self.book;
        let mut lines = Vec::new();
        let Some(lccn) = &b.lccn else { return lines };
        if self.rng.chance(0.35) {
            return lines;
        }
        let names: Vec<String> = b
            .creators
            .iter()
            .map(|p| {
                format!(
                    "{}, {}.",
                    p.inverted(),
                    if b.role == Role::Editors {
                        "editor"
                    } else {
                        "author"
                    }
                )
            })
            .collect();
        let title_l = b.title.to_lowercase();
        let title_l = format!(
            "{}{}",
            b.title.chars().next().unwrap(),
            &title_l[title_l.chars().next().unwrap().len_utf8()..]
        );
        if lccn.old_style() {
            lines.push("Library of Congress Cataloging in Publication Data".into());
            lines.push(format!(
                "{}\n{}{}",
                b.creators[0].inverted(),
                title_l,
                b.subtitle
                    .as_ref()
                    .map(|s| format!(": {}", s.to_lowercase()))
                    .unwrap_or_default()
            ));
            lines.push("Bibliography: p.\nIncludes index.".into());
            for f in &b.formats {
                let form = self.isbn_form(&f.isbn);
                lines.push(format!("ISBN {form}"));
                self.mark(Field::Isbn, &f.isbn.isbn13(), &form);
            }
            let p = lccn.printed();
            lines.push(format!(
                "1. {}. I. Title.\n{}{}.{}{} {}    {}'.{}    {}",
                self.rng
                    .pick(&["Ecology", "History", "Engineering", "Music", "Law"]),
                self.rng.pick(&["QH", "DA", "TA", "ML", "KF"]),
                self.rng.range(10, 999),
                b.creators[0].family.chars().next().unwrap(),
                self.rng.range(10, 99),
                b.year,
                self.rng.range(100, 999),
                self.rng.range(1, 99),
                p
            ));
            self.mark(Field::Loc, "", &p);
            self.notes.push(format!("Old-style LCCN {p}."));
        } else {
            lines.push("Library of Congress Cataloging-in-Publication Data".into());
            lines.push(format!("Names: {}", names.join(" | ")));
            let sub = b
                .subtitle
                .as_ref()
                .map(|s| format!(" : {}", s.to_lowercase()))
                .unwrap_or_default();
            lines.push(format!(
                "Title: {title_l}{sub} / {}.",
                join_names(&self.creator_names(), "and")
            ));
            let ed = self
                .edition_text()
                .map(|e| format!("{e}. | "))
                .unwrap_or_default();
            lines.push(format!(
                "Description: {ed}{} : {}, {}. | Includes bibliographical references and index.",
                b.places.join(" ; "),
                b.publisher,
                b.year
            ));
            let mut ids = vec![format!("LCCN {} (print)", lccn.printed())];
            self.mark(Field::Loc, "", &lccn.printed());
            if let Some(e) = &b.lccn_ebook {
                ids.push(format!("LCCN {} (ebook)", e.printed()));
                self.notes.push(format!(
                    "The CIP block also gives the ebook LCCN {}.",
                    e.printed()
                ));
            }
            let l = labels(b.lang);
            for f in &b.formats {
                ids.push(format!("ISBN {} ({})", f.isbn.isbn13(), l.formats[f.kind]));
                self.mark(Field::Isbn, &f.isbn.isbn13(), &f.isbn.isbn13());
            }
            lines.push(format!("Identifiers: {}", ids.join(" | ")));
            lines.push(format!(
                "Subjects: LCSH: {}.",
                self.rng.pick(&[
                    "Ecology",
                    "History\u{2014}Sources",
                    "Engineering\u{2014}Textbooks",
                    "Music\u{2014}History",
                    "Law\u{2014}Cases"
                ])
            ));
            lines.push(format!(
                "Classification: LCC {}{}.{} {} | DDC {}.{}\u{2014}dc23",
                self.rng.pick(&["QH", "DA", "TA", "ML", "KF"]),
                self.rng.range(10, 999),
                b.creators[0].family.chars().next().unwrap(),
                b.year,
                self.rng.range(100, 999),
                self.rng.range(1, 99)
            ));
            lines.push(format!(
                "LC record available at https://lccn.loc.gov/{}",
                lccn.printed()
            ));
        }
        lines
    }

    fn isbn_lines(&mut self, trap_previous: bool) -> Vec<String> {
        let b = self.book;
        let l = labels(b.lang);
        let mut lines = Vec::new();
        let style = self.rng.below(4);
        for f in &b.formats {
            let form = self.isbn_form(&f.isbn);
            let q = l.formats[f.kind];
            lines.push(match style {
                0 => format!("ISBN {form} ({q})"),
                1 => format!("ISBN: {form} ({q})"),
                2 => format!("ISBN {form} {q}"),
                _ => {
                    let kind = if form.replace('-', "").len() == 13 {
                        "ISBN-13"
                    } else {
                        "ISBN-10"
                    };
                    format!("{kind}: {form} ({q})")
                }
            });
            self.mark(Field::Isbn, &f.isbn.isbn13(), &form);
        }
        if trap_previous {
            if let Some(p) = &b.previous_isbn {
                let form = self.isbn_form(p);
                lines.push(match b.lang {
                    Lang::En => format!("ISBN of the previous edition: {form}"),
                    Lang::De => format!("ISBN der Vorauflage: {form}"),
                    Lang::Fr => format!("ISBN de l'édition précédente : {form}"),
                    Lang::Ru => format!("ISBN предыдущего издания {form}"),
                });
                self.notes
                    .push("The copyright page also prints the previous edition's ISBN.".into());
            }
        }
        lines
    }

    fn copyright_page(&mut self, kind: PageKind) {
        let b = self.book;
        let l = labels(b.lang);
        let mut groups: Vec<Vec<String>> = Vec::new();
        if let Some(s) = &b.series {
            groups.push(vec![s.clone()]);
        }
        groups.push(self.imprint_lines());
        match b.lang {
            Lang::En => {
                if self.rng.chance(0.4) {
                    groups.push(vec![
                        "British Library Cataloguing in Publication Data".into(),
                        "A catalogue record for this book is available from the British Library".into(),
                    ]);
                }
            }
            Lang::De => groups.push(vec![
                "Bibliografische Information der Deutschen Nationalbibliothek".into(),
                "Die Deutsche Nationalbibliothek verzeichnet diese Publikation in der Deutschen Nationalbibliografie; detaillierte bibliografische Daten sind im Internet über http://dnb.d-nb.de abrufbar.".into(),
            ]),
            Lang::Fr => {
                let m = lang::month(self.rng, b.lang);
                groups.push(vec![format!("Dépôt légal : {m} {}", b.year)]);
            }
            Lang::Ru => groups.push(vec![
                format!("УДК {}.{}", self.rng.range(100, 999), self.rng.range(1, 99)),
                format!("ББК {}.{}", self.rng.range(10, 99), self.rng.range(1, 9)),
            ]),
        }
        let cip = self.cip_block();
        let cip_has_isbn = !cip.is_empty();
        if !cip.is_empty() {
            groups.push(cip);
        } else if let Some(lccn) = &b.lccn {
            let p = lccn.printed();
            groups.push(vec![if lccn.old_style() {
                format!("Library of Congress Catalog Card Number: {p}")
            } else {
                format!("Library of Congress Control Number: {p}")
            }]);
            self.mark(Field::Loc, "", &p);
        }
        if !cip_has_isbn || self.rng.chance(0.7) {
            let trap = self.rng.chance(0.3);
            groups.push(self.isbn_lines(trap));
        }
        if let Some(doi) = &b.doi {
            let form = match self.rng.below(3) {
                0 => format!("DOI: {doi}"),
                1 => format!("https://doi.org/{doi}"),
                _ => format!("doi:{doi}"),
            };
            groups.push(vec![form]);
            self.mark(Field::Doi, "", doi);
        }
        if self.rng.chance(0.5) {
            let printing = if self.rng.chance(0.5) {
                "10 9 8 7 6 5 4 3 2 1".to_string()
            } else {
                "1 3 5 7 9 10 8 6 4 2".to_string()
            };
            groups.push(vec![printing]);
        }
        let mut tail = vec![format!(
            "{}",
            self.rng.pick(l.printed_in).replace("{}", &b.printer)
        )];
        if self.rng.chance(0.5) {
            tail.push(match b.lang {
                Lang::En => format!("Typeset in {} by {}", self.d.text.name(), b.typesetter),
                Lang::De => format!("Satz: {}", b.typesetter),
                Lang::Fr => format!("Composition : {}", b.typesetter),
                Lang::Ru => format!("Компьютерная вёрстка: {}", b.typesetter),
            });
        }
        groups.push(tail);
        if self.rng.chance(0.3) {
            let n = groups.len();
            let (a, c) = (self.rng.below(n), self.rng.below(n));
            groups.swap(a, c);
        }
        let size = self.d.imprint_size;
        let face = self.face(false, false);
        let mut blocks = Vec::new();
        if self.d.imprint_bottom {
            blocks.push(Block::Fill(1.0));
        }
        for g in groups {
            for (i, line) in g.into_iter().enumerate() {
                blocks.push(Block::text(
                    line,
                    face,
                    size,
                    self.d.imprint_align,
                    if i == 0 { size * 0.9 } else { 0.0 },
                ));
            }
        }
        self.push(PageSpec::new(kind, blocks, face));
    }

    fn dedication(&mut self) {
        let l = labels(self.book.lang);
        let t = self
            .rng
            .pick(l.dedication)
            .replace("{}", &self.book.dedicatee);
        let blocks = vec![
            Block::Fill(0.8),
            Block::text(
                t,
                self.face(false, true),
                self.d.body_size * 1.1,
                Align::Center,
                0.0,
            ),
            Block::Fill(1.6),
        ];
        self.push(PageSpec::new(
            PageKind::Dedication,
            blocks,
            self.face(false, false),
        ));
    }

    fn contents(&mut self, folio: &str) {
        let b = self.book;
        let l = labels(b.lang);
        let size = self.d.body_size;
        let mut blocks = vec![Block::text(
            self.rng.pick(l.contents).to_string(),
            self.display(true, false),
            size * 1.6,
            Align::Left,
            size * 2.0,
        )];
        let mut page = self.rng.range(1, 15);
        for (i, c) in b.chapters.iter().enumerate() {
            blocks.push(Block::text(
                format!("{}  {c}  {page}", i + 1),
                self.face(false, false),
                size,
                Align::Left,
                size * 0.5,
            ));
            page += self.rng.range(12, 40);
        }
        let mut spec = PageSpec::new(PageKind::Contents, blocks, self.face(false, false));
        spec.folio = Some(folio.to_string());
        self.push(spec);
    }

    fn body(&mut self, chapter: Option<usize>, folio: u32) {
        let b = self.book;
        let size = self.d.body_size;
        let mut blocks = Vec::new();
        let mut running = Some(if folio % 2 == 0 {
            b.title.clone()
        } else {
            b.chapters[0].clone()
        });
        if let Some(c) = chapter {
            running = None;
            let l = labels(b.lang);
            blocks.push(Block::Fill(0.0));
            blocks.push(Block::text(
                format!("{} {}", l.chapter, c + 1),
                self.display(false, false),
                size * 1.2,
                Align::Left,
                size * 4.0,
            ));
            blocks.push(Block::text(
                b.chapters[c].clone(),
                self.display(true, false),
                size * 1.7,
                Align::Left,
                size,
            ));
            blocks.push(Block::Rule {
                frac: 0.3,
                align: Align::Left,
            });
        }
        for _ in 0..12 {
            let para: Vec<String> = (0..self.rng.range(3, 7))
                .map(|_| lang::sentence(self.rng, b.lang))
                .collect();
            blocks.push(Block::text(
                para.join(" "),
                self.face(false, false),
                size,
                self.d.body_align,
                size * 0.4,
            ));
        }
        let mut spec = PageSpec::new(PageKind::Body, blocks, self.face(false, false));
        spec.columns = self.d.columns;
        spec.truncate = true;
        spec.folio = Some(folio.to_string());
        spec.folio_top = self.d.folio_top;
        spec.running_head = running;
        self.push(spec);
    }

    fn about(&mut self) {
        let b = self.book;
        let l = labels(b.lang);
        let size = self.d.body_size;
        let mut blocks = vec![Block::text(
            self.rng.pick(l.about).to_string(),
            self.display(true, false),
            size * 1.4,
            Align::Left,
            size * 3.0,
        )];
        for p in &b.creators {
            let name = p.display();
            let city = b.places[0].clone();
            let s = match b.lang {
                Lang::En => format!(
                    "{name} teaches at a college in {city} and has written widely on the subject. {}",
                    lang::sentence(self.rng, b.lang)
                ),
                Lang::De => format!(
                    "{name} lehrt in {city} und hat zahlreiche Beiträge zum Thema veröffentlicht. {}",
                    lang::sentence(self.rng, b.lang)
                ),
                Lang::Fr => format!(
                    "{name} enseigne à {city} et a publié de nombreux travaux sur le sujet. {}",
                    lang::sentence(self.rng, b.lang)
                ),
                Lang::Ru => format!(
                    "{name} преподаёт в городе {city} и автор многих работ по теме. {}",
                    lang::sentence(self.rng, b.lang)
                ),
            };
            blocks.push(Block::text(
                s,
                self.face(false, false),
                size,
                self.d.body_align,
                size,
            ));
            self.mark(Field::Authors, &name, &name);
        }
        self.push(PageSpec::new(
            PageKind::About,
            blocks,
            self.face(false, false),
        ));
    }

    fn colophon(&mut self, with_ids: bool) {
        let b = self.book;
        let l = labels(b.lang);
        let size = self.d.body_size * 0.9;
        let t = self
            .rng
            .pick(l.colophon)
            .replace("{font}", self.d.text.name())
            .replace("{typesetter}", &b.typesetter)
            .replace("{printer}", &b.printer);
        let mut blocks = vec![
            Block::Fill(1.0),
            Block::text(t, self.face(false, true), size, Align::Center, 0.0),
        ];
        if with_ids {
            blocks.push(Block::text(
                b.publisher.clone(),
                self.face(false, false),
                size,
                Align::Center,
                size,
            ));
            self.mark(Field::Publisher, &b.publisher, &b.publisher);
            let f = &b.formats[0];
            let form = self.isbn_form(&f.isbn);
            blocks.push(Block::text(
                format!("ISBN {form}"),
                self.face(false, false),
                size,
                Align::Center,
                size * 0.5,
            ));
            self.mark(Field::Isbn, &f.isbn.isbn13(), &form);
        }
        blocks.push(Block::Fill(1.0));
        self.push(PageSpec::new(
            PageKind::Colophon,
            blocks,
            self.face(false, false),
        ));
    }

    fn back_cover(&mut self) {
        let b = self.book;
        let size = self.d.body_size;
        let mut blocks = vec![Block::Fill(0.3)];
        if self.rng.chance(0.5) {
            let t = b.title.clone();
            blocks.push(Block::text(
                t.clone(),
                self.display(true, false),
                size * 1.8,
                Align::Center,
                0.0,
            ));
            self.mark(Field::Title, &b.title, &t);
        }
        let blurb: Vec<String> = (0..self.rng.range(3, 6))
            .map(|_| lang::sentence(self.rng, b.lang))
            .collect();
        blocks.push(Block::text(
            blurb.join(" "),
            self.face(false, false),
            size,
            self.d.body_align,
            size,
        ));
        blocks.push(Block::Fill(1.0));
        if self.rng.chance(0.5) {
            blocks.push(Block::text(
                b.publisher.clone(),
                self.display(true, false),
                size,
                Align::Left,
                0.0,
            ));
            self.mark(Field::Publisher, &b.publisher, &b.publisher);
        }
        // The barcode carries a print format's ISBN (not the ebook's).
        let f = b
            .formats
            .iter()
            .find(|f| f.kind < 2)
            .unwrap_or(&b.formats[0]);
        let digits = f.isbn.isbn13();
        let form = if self.rng.chance(0.6) {
            f.isbn.hyphen13()
        } else {
            digits.clone()
        };
        let align = *self
            .rng
            .pick(&[Align::Right, Align::Right, Align::Left, Align::Center]);
        blocks.push(Block::text(
            format!("ISBN {form}"),
            self.face(false, false),
            8.0,
            align,
            0.0,
        ));
        self.mark(Field::Isbn, &digits, &form);
        blocks.push(Block::Barcode {
            digits: digits.clone(),
            height: 48.0,
            align,
        });
        let under = format!("{} {} {}", &digits[..1], &digits[1..7], &digits[7..]);
        blocks.push(Block::text(
            under,
            Face::new(Family::Helvetica, false, false),
            8.0,
            align,
            0.0,
        ));
        self.push(PageSpec::new(
            PageKind::BackCover,
            blocks,
            self.face(false, false),
        ));
    }
}

/// Chooses and composes the pages of `book`.
pub fn compose(
    rng: &mut Rng,
    book: &Book,
    d: &Design,
    fonts: &Fonts,
    features: Features,
) -> Composed {
    let mut c = Composer {
        rng,
        book,
        d,
        fonts,
        specs: Vec::new(),
        printed: Vec::new(),
        notes: Vec::new(),
    };
    let picture = features.picture_covers && fonts.has_unicode() && c.rng.chance(0.12);
    if picture || c.rng.chance(0.3) {
        c.cover(picture);
    }
    let also_by = !book.also_by.is_empty() && c.rng.chance(0.75);
    let half = c.rng.chance(0.6);
    if also_by && c.rng.chance(0.25) {
        c.also_by();
        if half {
            c.half_title();
        }
    } else {
        if half {
            c.half_title();
        }
        if also_by {
            c.also_by();
        }
    }
    if c.rng.chance(0.15) {
        c.frontispiece();
    }
    c.title_page();
    let imprint_at_back = c.rng.chance(0.1);
    if !imprint_at_back {
        c.copyright_page(PageKind::Copyright);
    }
    let mut folio = c.specs.len() as u32 + 1;
    if c.rng.chance(0.4) {
        c.dedication();
        folio += 1;
    }
    if c.rng.chance(0.6) {
        let f = roman(folio, false);
        c.contents(&f);
    }
    let n_body = c.rng.range(2, 4) as u32;
    let start = c.rng.range(1, 15) as u32;
    for i in 0..n_body {
        c.body(if i == 0 { Some(0) } else { None }, start + i);
    }
    if c.rng.chance(0.4) {
        c.about();
    }
    if imprint_at_back {
        c.copyright_page(PageKind::Colophon);
    } else if c.rng.chance(0.3) {
        let ids = c.rng.chance(0.5);
        c.colophon(ids);
    }
    if c.rng.chance(0.55) {
        c.back_cover();
    }
    Composed {
        specs: c.specs,
        printed: c.printed,
        notes: c.notes,
    }
}
