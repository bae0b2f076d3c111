//! Cache keys: blake3 over domain-separated, length-prefixed fields, one
//! constructor per stage. A downstream key includes what its upstream keys
//! include (the record key holds the inspect, OCR and vision versions), so
//! a change anywhere upstream misses downstream too.

use crate::model::DocHash;
use crate::settings::{Settings, Stage, key_values};

/// Bump when an input or the stored layout of the decided record changes.
/// 2: front matter is read adaptively and back matter in `fallback` mode
/// is judged on the values at `MIN_CONFIDENCE` (issue 18), so the same
/// settings read other pages than records of version 1 say.
/// 3: the settings enter the key from the schema's `affects` column
/// (issue 17), in table order, so the same settings hash to other bytes.
pub const RECORD_VERSION: u32 = 3;

/// A 32-byte cache key.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key([u8; 32]);

impl std::fmt::Debug for Key {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Key(")?;
        for b in &self.0[..8] {
            write!(f, "{b:02x}")?;
        }
        write!(f, ")")
    }
}

impl Key {
    /// Starts a key for a domain (the stage name), so that keys of
    /// different stages can never collide.
    pub fn domain(domain: &str) -> KeyBuilder {
        KeyBuilder(blake3::Hasher::new()).str(domain)
    }

    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }
}

/// Appends length-prefixed fields, so ("ab","c") and ("a","bc") differ.
pub struct KeyBuilder(blake3::Hasher);

impl KeyBuilder {
    pub fn bytes(mut self, b: &[u8]) -> Self {
        self.0.update(&(b.len() as u64).to_le_bytes());
        self.0.update(b);
        self
    }
    pub fn str(self, s: &str) -> Self {
        self.bytes(s.as_bytes())
    }
    pub fn u32(self, v: u32) -> Self {
        self.bytes(&v.to_le_bytes())
    }
    pub fn u64(self, v: u64) -> Self {
        self.bytes(&v.to_le_bytes())
    }
    pub fn f64(self, v: f64) -> Self {
        self.bytes(&v.to_le_bytes())
    }
    pub fn bool(self, v: bool) -> Self {
        self.bytes(&[v as u8])
    }
    pub fn hash(self, h: &DocHash) -> Self {
        self.bytes(&h.0)
    }
    /// A setting's value as the schema reads it back: integers as `u32`
    /// (every integer setting fits), the other scalars as their own type,
    /// a list as its length then its items.
    pub fn setting(self, v: &toml::Value) -> Self {
        use toml::Value as V;
        match v {
            V::Boolean(b) => self.bool(*b),
            V::Integer(i) => match u32::try_from(*i) {
                Ok(u) => self.u32(u),
                Err(_) => self.bytes(&i.to_le_bytes()),
            },
            V::Float(f) => self.f64(*f),
            V::String(s) => self.str(s),
            V::Array(items) => items
                .iter()
                .fold(self.u64(items.len() as u64), |k, item| k.setting(item)),
            other => self.str(&other.to_string()),
        }
    }
    /// The settings that enter `stage`'s key (the schema's `affects`
    /// column), in table order.
    pub fn settings(self, s: &Settings, stage: Stage) -> Self {
        key_values(s, stage).fold(self, |k, v| k.setting(&v))
    }
    pub fn finish(self) -> Key {
        Key(*self.0.finalize().as_bytes())
    }
}

/// (device, inode, size, mtime) → content hash. Not a hash of the content,
/// just the stat fields that change when a file is replaced or edited.
pub fn memo_key(dev: u64, ino: u64, size: u64, mtime_ns: i128) -> Key {
    Key::domain("memo")
        .u64(dev)
        .u64(ino)
        .u64(size)
        .bytes(&mtime_ns.to_le_bytes())
        .finish()
}

/// Page count and existing metadata of a document.
pub fn doc_key(hash: &DocHash, inspect_version: u32) -> Key {
    Key::domain("doc").u32(inspect_version).hash(hash).finish()
}

/// OCR text of one page: the page is identified by the document's content
/// hash and its index (no need to render it to look the result up), plus
/// everything that changes what Tesseract reads: the engine's version and
/// the settings of [`Stage::Ocr`] (`OCR_DPI`, `OCR_LANGUAGES`; the same
/// bytes as before the schema, so no OCR is redone).
pub fn ocr_key(
    hash: &DocHash,
    index: u32,
    settings: &Settings,
    engine: &str,
    ocr_version: u32,
) -> Key {
    ocr_key_in("ocr", hash, index, settings, engine, ocr_version)
}

/// First OCR reading of one page (`ocr::ocr_page_first`: the page without
/// its body blocks) for `matter`: the same inputs as [`ocr_key`], another
/// domain for each matter (a back-matter reading leaves out more).
pub fn ocr_first_key(
    hash: &DocHash,
    index: u32,
    settings: &Settings,
    engine: &str,
    ocr_version: u32,
    matter: crate::ocr::Matter,
) -> Key {
    let domain = match matter {
        crate::ocr::Matter::Front => "ocr-first",
        crate::ocr::Matter::Back => "ocr-first-back",
    };
    ocr_key_in(domain, hash, index, settings, engine, ocr_version)
}

fn ocr_key_in(
    domain: &str,
    hash: &DocHash,
    index: u32,
    settings: &Settings,
    engine: &str,
    ocr_version: u32,
) -> Key {
    Key::domain(domain)
        .u32(ocr_version)
        .str(engine)
        .hash(hash)
        .u32(index)
        .settings(settings, Stage::Ocr)
        .finish()
}

/// "This content, under this name, already holds this metadata and has
/// its proposed name": write mode skips such files without parsing them.
pub fn written_key(
    hash: &DocHash,
    metadata_json: &str,
    proposed_name: &str,
    current_name: &str,
) -> Key {
    Key::domain("written")
        .hash(hash)
        .str(metadata_json)
        .str(proposed_name)
        .str(current_name)
        .finish()
}

/// An online catalogue's answer about one identifier: the source's name,
/// the identifier as sent (`isbn:…`, `doi:…`, `lccn:…`) and the version of
/// the parser that read the answer (`online::ONLINE_VERSION`), so a new
/// parser asks again instead of reading an old reading.
pub fn online_key(source: &str, id: &str, parser_version: u32) -> Key {
    Key::domain("online")
        .u32(parser_version)
        .str(source)
        .str(id)
        .finish()
}

/// Bump when the stored layout of a cached failure changes.
pub const FAILURE_VERSION: u32 = 1;

/// A document's deterministic failure (a broken or encrypted PDF), stored
/// beside records: the key the record would have had (content hash, stage
/// versions, settings) plus the colophon version, so that a new release
/// reads the document again (it may have learnt to) and so does any
/// change that would recompute the record.
pub fn failure_key(record: &Key, colophon_version: &str) -> Key {
    Key::domain("failure")
        .u32(FAILURE_VERSION)
        .str(colophon_version)
        .bytes(record.as_bytes())
        .finish()
}

/// Versions of the stages a record depends on, gathered by the caller
/// from each stage module.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StageVersions {
    pub inspect: u32,
    pub ocr: u32,
    pub extract: u32,
    pub decide: u32,
    pub vision_prompt: u32,
}

/// Added to the inspect version when every page is read by pdfium
/// (`PDF_TEXT_READER = "pdfium"`): its pages are cached apart from the
/// quick reader's, and the default keeps the keys it always had.
const PDFIUM_ONLY: u32 = 1 << 31;

impl StageVersions {
    /// The versions of this build's stages, under the settings that change
    /// what a stage computes without entering its key as a value
    /// (`settings::Affects::Read`).
    pub fn for_settings(s: &Settings) -> StageVersions {
        let reader = match s.pdf_text_reader {
            crate::settings::TextReader::Quick => 0,
            crate::settings::TextReader::Pdfium => PDFIUM_ONLY,
        };
        StageVersions {
            inspect: crate::inspect::INSPECT_VERSION | reader,
            ocr: crate::ocr::OCR_VERSION,
            extract: crate::extract::EXTRACT_VERSION,
            decide: crate::decide::DECIDE_KEY,
            vision_prompt: crate::vision::PROMPT_VERSION,
        }
    }
}

/// The decided record of a document under the current settings: the
/// stage versions, the content hash, and every setting the schema says can
/// change the record under the others ([`Stage::Record`]: which pages are
/// read, what is decided; back-matter fields only in `fallback` mode,
/// vision settings only with vision on). With vision on, the prompt
/// version too.
pub fn record_key(hash: &DocHash, s: &Settings, v: &StageVersions) -> Key {
    let mut k = Key::domain("record")
        .u32(RECORD_VERSION)
        .u32(v.inspect)
        .u32(v.ocr)
        .u32(v.extract)
        .u32(v.decide)
        .hash(hash);
    if s.analyze_with_vision {
        k = k.u32(v.vision_prompt);
    }
    k.settings(s, Stage::Record).finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::BackMode;

    const V: StageVersions = StageVersions {
        inspect: 1,
        ocr: 1,
        extract: 1,
        decide: 1,
        vision_prompt: 1,
    };
    const H: DocHash = DocHash([7; 32]);

    fn rec(f: impl FnOnce(&mut Settings)) -> Key {
        let mut s = Settings::default();
        f(&mut s);
        record_key(&H, &s, &V)
    }

    #[test]
    fn failures_are_retried_by_a_new_version_and_whatever_recomputes_the_record() {
        let base = rec(|_| {});
        let failed = failure_key(&base, "0.1.0");
        assert_ne!(failed, base, "never the record's own entry");
        assert_ne!(failure_key(&base, "0.1.1"), failed);
        assert_ne!(
            failure_key(&rec(|s| s.matter.front.max_pages = 3), "0.1.0"),
            failed
        );
        let newer = StageVersions { inspect: 2, ..V };
        assert_ne!(
            failure_key(&record_key(&H, &Settings::default(), &newer), "0.1.0"),
            failed
        );
        assert_ne!(
            failure_key(
                &record_key(&DocHash([8; 32]), &Settings::default(), &V),
                "0.1.0"
            ),
            failed
        );
        // Settings that do not change a record do not retry a failure.
        assert_eq!(
            failure_key(&rec(|s| s.filename_template = "{title}".into()), "0.1.0"),
            failed
        );
    }

    #[test]
    fn fields_are_length_prefixed() {
        assert_ne!(
            Key::domain("x").str("ab").str("c").finish(),
            Key::domain("x").str("a").str("bc").finish()
        );
        assert_ne!(
            Key::domain("doc").hash(&H).finish(),
            Key::domain("page").hash(&H).finish()
        );
    }

    #[test]
    fn front_pages_change_only_the_record() {
        let base = rec(|_| {});
        // Doc keys (and page files, named by hash and version) take no
        // settings at all: their signatures say so, no test needed.
        assert_ne!(rec(|s| s.matter.front.max_pages = 10), base);
    }

    #[test]
    fn back_settings_matter_only_when_back_matter_can_be_read() {
        let base = rec(|_| {});
        assert_eq!(
            rec(|s| s.matter.back.max_pages = 20),
            base,
            "mode never ignores max_pages"
        );
        assert_eq!(
            rec(|s| s.matter.back.fields.isbn = true),
            base,
            "mode never ignores fields"
        );
        let always = rec(|s| s.matter.back.mode = BackMode::Always);
        assert_ne!(always, base);
        assert_eq!(
            rec(|s| {
                s.matter.back.mode = BackMode::Always;
                s.matter.back.fields.isbn = true
            }),
            always,
            "mode always ignores fields"
        );
        let fb = rec(|s| s.matter.back.mode = BackMode::Fallback);
        assert_ne!(
            rec(|s| {
                s.matter.back.mode = BackMode::Fallback;
                s.matter.back.fields.isbn = true
            }),
            fb
        );
    }

    #[test]
    fn vision_settings_matter_only_with_vision_on() {
        let base = rec(|_| {});
        assert_eq!(rec(|s| s.vlm_model = "other".into()), base);
        let on = rec(|s| s.analyze_with_vision = true);
        assert_ne!(on, base);
        assert_ne!(
            rec(|s| {
                s.analyze_with_vision = true;
                s.vlm_model = "other".into()
            }),
            on
        );
        assert_ne!(
            rec(|s| {
                s.analyze_with_vision = true;
                s.vision_thresholds.early_pages_cutoff = 3
            }),
            on
        );
    }

    #[test]
    fn run_options_and_presentation_settings_change_no_key() {
        let base = rec(|_| {});
        assert_eq!(rec(|s| s.page_num_offset = 0), base);
        assert_eq!(rec(|s| s.max_filename_length = 60), base);
        assert_eq!(rec(|s| s.filename_template = "{title}".into()), base);
        assert_eq!(rec(|s| s.write_pdf_changes = true), base);
        assert_eq!(rec(|s| s.vlm_timeout = 1.0), base);
        assert_eq!(rec(|s| s.vlm_concurrency = 8), base);
    }

    #[test]
    fn ocr_settings_and_stage_versions_reach_the_record() {
        let base = rec(|_| {});
        assert_ne!(rec(|s| s.ocr_languages = "eng+deu".into()), base);
        assert_ne!(rec(|s| s.ocr_dpi = 200), base);
        let s = Settings::default();
        for bump in [
            StageVersions { inspect: 2, ..V },
            StageVersions { ocr: 2, ..V },
            StageVersions { extract: 2, ..V },
            StageVersions { decide: 2, ..V },
        ] {
            assert_ne!(record_key(&H, &s, &bump), base);
        }
        assert_ne!(doc_key(&H, 2), doc_key(&H, 1));
    }

    fn ocr(index: u32, engine: &str, version: u32, f: impl FnOnce(&mut Settings)) -> Key {
        let mut s = Settings::default();
        f(&mut s);
        ocr_key(&H, index, &s, engine, version)
    }

    #[test]
    fn ocr_key_follows_page_and_ocr_settings_only() {
        const E: &str = "tesseract 5.3.0";
        let base = ocr(2, E, 1, |_| {});
        assert_ne!(base, ocr(3, E, 1, |_| {}));
        assert_ne!(base, ocr(2, E, 1, |s| s.ocr_dpi = 200));
        assert_ne!(base, ocr(2, E, 1, |s| s.ocr_languages = "eng+deu".into()));
        assert_ne!(base, ocr(2, "tesseract 5.4.0", 1, |_| {}));
        assert_ne!(base, ocr(2, E, 2, |_| {}));
        assert_eq!(base, ocr(2, E, 1, |s| s.matter.front.max_pages = 3));
        assert_ne!(
            base,
            ocr_key(&DocHash([8; 32]), 2, &Settings::default(), E, 1)
        );
    }

    #[test]
    fn ocr_key_bytes_are_those_of_before_the_schema() {
        // Built field by field as `ocr_key` was before the settings entered
        // it from the schema: cached OCR text stays valid.
        let before = Key::domain("ocr")
            .u32(1)
            .str("tesseract 5.3.0")
            .hash(&H)
            .u32(2)
            .u32(200)
            .str("eng+deu")
            .finish();
        let now = ocr(2, "tesseract 5.3.0", 1, |s| {
            s.ocr_dpi = 200;
            s.ocr_languages = "eng+deu".into()
        });
        assert_eq!(now, before);
    }

    #[test]
    fn every_setting_enters_exactly_the_keys_its_row_names() {
        use crate::settings::{Stage, affects, set_other_value};
        use crate::vision::VisionKey;
        // Every condition of the `affects` column holds in `on` and none in
        // `off`, so each row is tried both ways.
        let off = Settings::default();
        let mut on = Settings::default();
        on.matter.back.mode = BackMode::Fallback;
        on.analyze_with_vision = true;
        let keys = |s: &Settings| {
            (
                record_key(&H, s, &V),
                ocr_key(&H, 0, s, "tesseract 5.3.0", 1),
                VisionKey::from_image_hash(&[1; 32], &s.vlm_model),
            )
        };
        let mut classes = std::collections::BTreeSet::new();
        for (key, class) in affects() {
            classes.insert(format!("{class:?}"));
            for base in [&off, &on] {
                let mut changed = base.clone();
                set_other_value(&mut changed, key);
                assert_ne!(&changed, base, "{key}: no other value was set");
                let (r0, o0, v0) = keys(base);
                let (r1, o1, v1) = keys(&changed);
                for (stage, moved) in [
                    (Stage::Record, r0 != r1),
                    (Stage::Ocr, o0 != o1),
                    (Stage::Vision, v0 != v1),
                ] {
                    assert_eq!(
                        moved,
                        class.enters(stage, base),
                        "{key} ({class:?}) and the {stage:?} key, vision {}, back {:?}",
                        base.analyze_with_vision,
                        base.matter.back.mode
                    );
                }
            }
        }
        // Every class is used, so every arm above was tried.
        assert_eq!(classes.len(), 8, "{classes:?}");
    }

    #[test]
    fn the_text_reader_changes_the_inspect_version_and_so_every_key_of_read_text() {
        use crate::settings::TextReader;
        let quick = Settings::default();
        let mut pdfium = quick.clone();
        pdfium.pdf_text_reader = TextReader::Pdfium;
        let (vq, vp) = (
            StageVersions::for_settings(&quick),
            StageVersions::for_settings(&pdfium),
        );
        // The default keeps the keys of every cache made before the setting.
        assert_eq!(vq.inspect, crate::inspect::INSPECT_VERSION);
        assert_ne!(vp.inspect, vq.inspect);
        assert_eq!(
            (vp.ocr, vp.extract, vp.decide),
            (vq.ocr, vq.extract, vq.decide)
        );
        assert_ne!(doc_key(&H, vp.inspect), doc_key(&H, vq.inspect));
        assert_ne!(record_key(&H, &pdfium, &vp), record_key(&H, &quick, &vq));
        // OCR reads a render, whichever reader gave the text.
        assert_eq!(
            ocr_key(&H, 0, &pdfium, "tesseract 5.3.0", vp.ocr),
            ocr_key(&H, 0, &quick, "tesseract 5.3.0", vq.ocr)
        );
    }

    #[test]
    fn written_mark_follows_content_metadata_and_names() {
        let base = written_key(&H, "{\"title\":\"T\"}", "A - T.pdf", "A - T.pdf");
        assert_ne!(
            base,
            written_key(
                &DocHash([8; 32]),
                "{\"title\":\"T\"}",
                "A - T.pdf",
                "A - T.pdf"
            )
        );
        assert_ne!(
            base,
            written_key(&H, "{\"title\":\"U\"}", "A - T.pdf", "A - T.pdf")
        );
        assert_ne!(
            base,
            written_key(&H, "{\"title\":\"T\"}", "A - T (1999).pdf", "A - T.pdf")
        );
        assert_ne!(
            base,
            written_key(&H, "{\"title\":\"T\"}", "A - T.pdf", "old.pdf")
        );
    }
}
