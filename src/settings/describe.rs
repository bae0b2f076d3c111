//! `colophon config`: the effective settings as a `colophon.toml`, in the
//! schema's order, each key with the layer its value came from.

use std::fmt::Write as _;

use super::schema::LEAVES;
use super::{Provenance, Settings, Source};

impl Settings {
    /// The effective settings as a `colophon.toml`, each key with a comment
    /// saying where its value came from. Feeding the output back as the
    /// file gives the same settings.
    pub fn describe(&self, provenance: &Provenance) -> String {
        let mut out = String::from(
            "# Effective colophon settings.\n\
             # Precedence: flag > environment > colophon.toml > default.\n",
        );
        let mut section = "";
        for leaf in LEAVES {
            let (parent, name) = leaf.key.rsplit_once('.').unwrap_or(("", leaf.key));
            if parent != section {
                let _ = write!(out, "\n[{parent}]\n");
                section = parent;
            }
            let source = provenance.source(leaf.key);
            let note = if leaf.key == "VLM_ENDPOINT" && source == Source::Default {
                "default (follows VLM_PORT)".to_string()
            } else {
                source.to_string()
            };
            let _ = writeln!(out, "{name} = {}  # {note}", (leaf.get)(self));
        }
        out
    }
}
