//! The effective settings of a run (SPEC 3, seed 2.1): one documented
//! struct, built once by [`Settings::resolve`] from defaults, `colophon.toml`,
//! environment variables and command-line flags, then borrowed by every stage.
//!
//! Precedence: flag > environment > file > default.

use serde::{Deserialize, Serialize};

/// Back-matter mode (seed 2.2).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BackMode {
    Never,
    Always,
    Fallback,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FrontMatter {
    /// Pages read from the start. Larger than the page count = whole document.
    pub max_pages: u32,
}

/// Which extra fields make `fallback` mode read back matter when missing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct BackFields {
    pub publisher: bool,
    pub year: bool,
    pub edition: bool,
    pub isbn: bool,
    pub doi: bool,
    pub loc: bool,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BackMatter {
    pub mode: BackMode,
    /// Last pages read when back matter is read.
    pub max_pages: u32,
    pub fields: BackFields,
}

/// `MATTER_CONFIG`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MatterConfig {
    pub front: FrontMatter,
    pub back: BackMatter,
}

impl Default for MatterConfig {
    fn default() -> Self {
        MatterConfig {
            front: FrontMatter { max_pages: 8 },
            back: BackMatter {
                mode: BackMode::Never,
                max_pages: 5,
                fields: BackFields::default(),
            },
        }
    }
}

/// `VISION_ANALYSIS_THRESHOLDS` (seed 2.4).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct VisionThresholds {
    /// Image share of the page at or above which a page goes to vision.
    pub full_page_image_ratio: f32,
    /// The first N pages always go to vision.
    pub early_pages_cutoff: u32,
    /// OCR confidence (0-100) below which a page goes to vision.
    pub low_ocr_confidence: f32,
}

impl Default for VisionThresholds {
    fn default() -> Self {
        VisionThresholds {
            full_page_image_ratio: 0.90,
            early_pages_cutoff: 1,
            low_ocr_confidence: 30.0,
        }
    }
}

/// Every setting that can change what colophon computes or writes.
/// Field names map to the seed's setting names (upper case in files and
/// environment variables).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// `MATTER_CONFIG`
    pub matter: MatterConfig,
    /// `PAGE_NUM_OFFSET`: 0 or 1, base of page numbers shown to people.
    pub page_num_offset: u32,
    /// `WRITE_PDF_CHANGES`: write metadata and names (default: dry run).
    pub write_pdf_changes: bool,
    /// `MAX_FILENAME_LENGTH`: cap in characters for every created name, >= 40.
    pub max_filename_length: usize,
    /// `ANALYZE_WITH_VISION`
    pub analyze_with_vision: bool,
    /// `VLM_MODEL`
    pub vlm_model: String,
    /// `VLM_PORT`
    pub vlm_port: u16,
    /// `VLM_TIMEOUT` seconds per request.
    pub vlm_timeout: f64,
    /// `VLM_MAX_RETRIES`
    pub vlm_max_retries: u32,
    /// `VLM_RETRY_DELAY` seconds between attempts.
    pub vlm_retry_delay: f64,
    /// `VLM_ENDPOINT`: full chat URL; default `http://localhost:{VLM_PORT}/api/chat`.
    pub vlm_endpoint: String,
    /// `VLM_CONCURRENCY`: size of the fixed pool of vision callers.
    pub vlm_concurrency: usize,
    /// `VISION_ANALYSIS_THRESHOLDS`
    pub vision_thresholds: VisionThresholds,
    /// `RUNTIME_IGNORE_DIR_NAME`: directories never written to.
    pub runtime_ignore_dir_name: String,
    /// `FILENAME_TEMPLATE`
    pub filename_template: String,
    /// `PDF_TIMEOUT`: seconds a worker may spend on one document before it
    /// is killed and the document fails.
    pub pdf_timeout: f64,
    /// `OCR_LANGUAGES`: Tesseract language codes joined with `+`.
    pub ocr_languages: String,
    /// `OCR_DPI`: render resolution for OCR.
    pub ocr_dpi: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            matter: MatterConfig::default(),
            page_num_offset: 1,
            write_pdf_changes: false,
            max_filename_length: 250,
            analyze_with_vision: false,
            vlm_model: "qwen2.5vl:7b".to_string(),
            vlm_port: 11434,
            vlm_timeout: 60.0,
            vlm_max_retries: 3,
            vlm_retry_delay: 1.0,
            vlm_endpoint: "http://localhost:11434/api/chat".to_string(),
            vlm_concurrency: 2,
            vision_thresholds: VisionThresholds::default(),
            runtime_ignore_dir_name: "_ignore".to_string(),
            filename_template: "{authors} - {title} ({year})".to_string(),
            pdf_timeout: 120.0,
            ocr_languages: "eng".to_string(),
            ocr_dpi: 300,
        }
    }
}
