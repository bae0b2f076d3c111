//! Field finders (SPEC 5 stage 6): pure functions from page text (with
//! positions and font sizes) to scored [`Candidate`]s, one module per field.
//! They never decide; `decide` merges their candidates with those from
//! existing metadata, OCR and vision.

use crate::model::{Candidate, DocText, InfoMeta, PageText, Rect, TextLine, Via};

pub mod authors;
pub mod context;
pub mod doi;
pub mod edition;
pub mod info;
pub mod isbn;
pub mod layout;
pub mod lccn;
pub mod lines;
pub mod misread;
pub mod names;
pub mod pattern;
pub mod publisher;
pub mod text;
pub mod title;
pub mod year;

/// Bump when any finder changes what it proposes for the same page text
/// (the vision answers' reader, `vision::answer`, counts: its raw answers
/// are cached, the candidates read from them are not).
pub const EXTRACT_VERSION: u32 = 17;

/// Every candidate the finders see in the document's page text.
///
/// The layout and the page reading are built once here and shared: each
/// finder building its own (as `find` does) made extraction, not pdfium,
/// most of a cold run's CPU.
pub fn text_candidates(doc: &DocText) -> Vec<Candidate> {
    let repaired = misread::repair(doc.pages);
    let doc = &match &repaired {
        Some(pages) => DocText {
            pages,
            page_count: doc.page_count,
        },
        None => *doc,
    };
    let layout = layout::Layout::new(doc);
    let pages = context::read(doc);
    let mut out = Vec::new();
    out.extend(title::find_in(&layout));
    out.extend(authors::find_in(&layout));
    out.extend(publisher::find_in(&pages));
    out.extend(year::find_in(&pages));
    out.extend(edition::find_in(&pages));
    out.extend(isbn::find_in(&pages));
    out.extend(doi::find_in(&pages));
    out.extend(lccn::find_in(&pages));
    out
}

/// Runs the finders once over a made-up title page and copyright page, so
/// that their patterns are compiled before the first document needs them.
///
/// Compiling them takes about 80 ms on first use, and every document thread
/// that meets a pattern still being compiled waits for it: at the start of
/// a cold run the pdfium workers sat idle meanwhile. The coordinator calls
/// this from a thread of its own as soon as a document is sent for reading.
pub fn warm_up() {
    let line = |text: &str, size: f32, top: f32| TextLine {
        text: text.to_string(),
        bbox: Rect {
            x0: 72.0,
            top,
            x1: 72.0 + text.chars().count() as f32 * size * 0.5,
            bottom: top + size,
        },
        size,
        bold: size > 14.0,
    };
    let page = |index: u32, lines: Vec<TextLine>| PageText {
        index,
        width: 432.0,
        height: 648.0,
        lines,
        image_ratio: 0.0,
        image: None,
        via: Via::Text,
        ocr_confidence: None,
    };
    let pages = [
        page(
            0,
            vec![
                line("The Harbour Ledger", 24.0, 120.0),
                line("A History of Coastal Trade", 16.0, 160.0),
                line("Second Edition", 12.0, 200.0),
                line("by Ada Lovelace and Charles Babbage", 12.0, 260.0),
                line("Cambridge University Press", 11.0, 560.0),
            ],
        ),
        page(
            1,
            vec![
                line(
                    "Copyright © 2019 by Ada Lovelace. All rights reserved.",
                    9.0,
                    400.0,
                ),
                line("Published by Example Press, New York, NY", 9.0, 412.0),
                line("First published 2011; reprinted 2015", 9.0, 424.0),
                line("ISBN 978-0-306-40615-7 (hardback)", 9.0, 436.0),
                line("ISBN-10: 0-306-40615-2", 9.0, 448.0),
                line("Library of Congress Control Number: 2019012345", 9.0, 460.0),
                line("https://doi.org/10.1000/182", 9.0, 472.0),
                line("Printed in the United States of America", 9.0, 484.0),
            ],
        ),
    ];
    let doc = DocText {
        pages: &pages,
        page_count: 200,
    };
    std::hint::black_box(text_candidates(&doc));
    std::hint::black_box(info_candidates(&InfoMeta {
        title: Some("The Harbour Ledger".into()),
        author: Some("Ada Lovelace".into()),
        ..InfoMeta::default()
    }));
}

/// Candidates from the existing Info/XMP metadata (junk filtered out).
pub fn info_candidates(info: &InfoMeta) -> Vec<Candidate> {
    info::find(info)
}
