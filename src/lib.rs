//! colophon: finds bibliographic metadata in libraries of PDF books, scanned
//! books and papers, and proposes (or writes) metadata and clean file names.
//!
//! The pipeline of SPEC 5, one module per stage:
//! `discover` → `fingerprint` → `inspect` (worker processes) → `ocr` →
//! `vision` → `extract` → `decide` → `name` → `write` → `report`.
//! `pipeline` is the run loop and the per-document flow, in the order of
//! the stages (one screen); `commands` has one module per command, and
//! `app` dispatches to them. Layers, top to bottom (each imports only from
//! its own and lower ones, checked by scripts/check-layers.py): `main`;
//! `app`, `commands`; `pipeline`; the command helpers (`cli`, `project`,
//! `merge`, `review`, `export`); the late stages (`online`, `write`,
//! `fingerprint`, `discover`, `select`, `name`, `record`); `cache`; the
//! reading stages (`vision`, `ocr`, `inspect`); `runs`, `shard`; `report`,
//! `progress`; `settings`; the pure finders (`extract`, `decide`); `model`,
//! `exit`; `util`, the ground floor.
//!
//! Comments cite the contract as "SPEC n" and "seed n.m": the sections of
//! `docs/spec.md` (the product specification, then the user's own
//! description of every setting), kept in the repository.

pub mod app;
pub mod cache;
pub mod cli;
pub mod commands;
pub mod decide;
pub mod discover;
pub mod exit;
pub mod export;
pub mod extract;
pub mod fingerprint;
pub mod inspect;
pub mod merge;
pub mod model;
pub mod name;
pub mod ocr;
pub mod online;
pub mod pipeline;
pub mod progress;
pub mod project;
pub mod record;
pub mod report;
pub mod review;
pub mod runs;
pub mod select;
pub mod settings;
pub mod shard;
pub mod util;
pub mod vision;
pub mod write;

/// The test PDFs and fake servers of the tests, benches and examples.
#[doc(hidden)]
pub mod fixtures;

/// The unit tests' name for the test PDFs.
#[cfg(test)]
pub(crate) use fixtures::test_pdfs;

#[cfg(test)]
pub(crate) mod testing;
