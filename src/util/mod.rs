//! The ground floor: small helpers that know nothing of colophon's
//! pipeline, imported by whoever needs them. Nothing here imports from
//! another module of the crate.

pub mod relpath;
