//! Cache keys: blake3 over domain-separated, length-prefixed fields, one
//! constructor per stage. A downstream key includes what its upstream keys
//! include (the record key holds the inspect, OCR and vision versions), so
//! a change anywhere upstream misses downstream too.

use crate::model::DocHash;
use crate::settings::{BackMode, Settings};

/// Bump when an input or the stored layout of the decided record changes.
/// 2: front matter is read adaptively and back matter in `fallback` mode
/// is judged on the values at `MIN_CONFIDENCE` (issue 18), so the same
/// settings read other pages than records of version 1 say.
pub const RECORD_VERSION: u32 = 2;

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
/// everything that changes what Tesseract reads.
pub fn ocr_key(
    hash: &DocHash,
    index: u32,
    dpi: u32,
    languages: &str,
    engine: &str,
    ocr_version: u32,
) -> Key {
    Key::domain("ocr")
        .u32(ocr_version)
        .str(engine)
        .hash(hash)
        .u32(index)
        .u32(dpi)
        .str(languages)
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

impl StageVersions {
    /// The versions of this build's stages.
    pub fn current() -> StageVersions {
        StageVersions {
            inspect: crate::inspect::INSPECT_VERSION,
            ocr: crate::ocr::OCR_VERSION,
            extract: crate::extract::EXTRACT_VERSION,
            decide: crate::decide::DECIDE_KEY,
            vision_prompt: crate::vision::PROMPT_VERSION,
        }
    }
}

/// The decided record of a document under the current settings: every
/// setting that can change which pages are read or what is decided.
pub fn record_key(hash: &DocHash, s: &Settings, v: &StageVersions) -> Key {
    let m = &s.matter;
    let mut k = Key::domain("record")
        .u32(RECORD_VERSION)
        .u32(v.inspect)
        .u32(v.ocr)
        .u32(v.extract)
        .u32(v.decide)
        .hash(hash)
        .u32(m.front.max_pages)
        // Which pages are read depends on which values are sure.
        .f64(f64::from(s.min_confidence))
        .str(&s.ocr_languages)
        .u32(s.ocr_dpi);
    // Back settings matter only when back matter can be read.
    k = match m.back.mode {
        BackMode::Never => k.str("never"),
        BackMode::Always => k.str("always").u32(m.back.max_pages),
        BackMode::Fallback => {
            let f = &m.back.fields;
            k.str("fallback")
                .u32(m.back.max_pages)
                .bool(f.publisher)
                .bool(f.year)
                .bool(f.edition)
                .bool(f.isbn)
                .bool(f.doi)
                .bool(f.loc)
        }
    };
    k = k.bool(s.analyze_with_vision);
    if s.analyze_with_vision {
        let t = &s.vision_thresholds;
        k = k
            .str(&s.vlm_model)
            .u32(v.vision_prompt)
            .f64(t.full_page_image_ratio as f64)
            .u32(t.early_pages_cutoff)
            .f64(t.low_ocr_confidence as f64);
    }
    k.finish()
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn ocr_key_follows_page_and_ocr_settings_only() {
        let base = ocr_key(&H, 2, 300, "eng", "tesseract 5.3.0", 1);
        assert_eq!(base, ocr_key(&H, 2, 300, "eng", "tesseract 5.3.0", 1));
        assert_ne!(base, ocr_key(&H, 3, 300, "eng", "tesseract 5.3.0", 1));
        assert_ne!(base, ocr_key(&H, 2, 200, "eng", "tesseract 5.3.0", 1));
        assert_ne!(base, ocr_key(&H, 2, 300, "eng+deu", "tesseract 5.3.0", 1));
        assert_ne!(base, ocr_key(&H, 2, 300, "eng", "tesseract 5.4.0", 1));
        assert_ne!(base, ocr_key(&H, 2, 300, "eng", "tesseract 5.3.0", 2));
        assert_ne!(
            base,
            ocr_key(&DocHash([8; 32]), 2, 300, "eng", "tesseract 5.3.0", 1)
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
