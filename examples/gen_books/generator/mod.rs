//! The book generator itself: invents a book (or a paper, report or slide
//! deck: `paper`), composes its pages and writes it as a PDF (and a
//! scanned copy). `main.rs` drives it from the command
//! line; the integration tests (`tests/it/generated_books.rs`) include this
//! module by path and read the books back, so there is one copy of it.

pub mod book;
pub mod check;
pub mod fonts;
pub mod ident;
pub mod invent;
pub mod lang;
pub mod latex;
pub mod layout;
pub mod pages;
pub mod paper;
pub mod paper_lopdf;
pub mod paper_tex;
pub mod pdf;
pub mod raster;
pub mod rng;
pub mod scan;
