//! colophon: finds bibliographic metadata in libraries of PDF books, scanned
//! books and papers, and proposes (or writes) metadata and clean file names.
//!
//! The pipeline of SPEC 5, one module per stage:
//! `discover` → `fingerprint` → `inspect` (worker processes) → `ocr` →
//! `vision` → `extract` → `decide` → `name` → `write` → `report`,
//! with `cache` under all of them. `run` is the pipeline in the order of
//! its stages (one screen); `app` dispatches the commands.

pub mod app;
pub mod cache;
pub mod cli;
pub mod decide;
pub mod discover;
pub mod document;
pub mod export;
pub mod extract;
pub mod fingerprint;
pub mod inspect;
pub mod merge;
pub mod model;
pub mod name;
pub mod ocr;
pub mod online;
pub mod progress;
pub mod project;
pub mod report;
pub mod review;
pub mod run;
pub mod runs;
pub mod select;
pub mod settings;
pub mod shard;
pub mod util;
pub mod vision;
pub mod write;
pub(crate) mod xml;

/// The test PDFs of the integration tests (fixtures by name, synthetic
/// PDFs), shared with the unit tests.
#[cfg(test)]
#[path = "../tests/it/test_pdfs.rs"]
pub(crate) mod test_pdfs;

#[cfg(test)]
pub(crate) mod testing;
