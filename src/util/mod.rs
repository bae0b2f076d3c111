//! The ground floor: small helpers that know nothing of colophon's
//! pipeline, imported by whoever needs them. Nothing here imports from
//! another module of the crate (scripts/check-layers.py checks it).

pub mod alloc;
pub mod escape;
pub mod fs;
pub mod hex;
pub mod panic;
pub mod relpath;
pub mod xml;
