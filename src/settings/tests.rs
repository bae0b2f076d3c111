//! The settings' tests: resolution as a pure function of literal inputs,
//! and the schema's table against the struct it fills.

use super::*;

fn no_env(_: &str) -> Option<String> {
    None
}

fn from_file(text: &str) -> Result<(Settings, Provenance), SettingsError> {
    Settings::resolve_with_provenance(&Overrides::default(), no_env, Some(text))
}

fn file_error(text: &str) -> String {
    from_file(text).unwrap_err().to_string()
}

fn env_error(pairs: &'static [(&'static str, &'static str)]) -> String {
    Settings::resolve(&Overrides::default(), env_of(pairs), None)
        .unwrap_err()
        .to_string()
}

#[test]
fn nothing_given_means_defaults() {
    let (s, p) = Settings::resolve_with_provenance(&Overrides::default(), no_env, None).unwrap();
    assert_eq!(s, Settings::default());
    assert_eq!(p, Provenance::default());
    // An empty file and empty variables change nothing either.
    let env = env_of(&[("PAGE_NUM_OFFSET", ""), ("MATTER_CONFIG", "  ")]);
    let (s2, p2) = Settings::resolve_with_provenance(&Overrides::default(), env, Some("")).unwrap();
    assert_eq!(s2, Settings::default());
    assert_eq!(p2, Provenance::default());
}

#[test]
fn precedence_is_flag_over_env_over_file_over_default() {
    let file = "MATTER_CONFIG.front.max_pages = 3\nPAGE_NUM_OFFSET = 0\n";
    let env = &[
        ("MATTER_CONFIG", r#"{"front": {"max_pages": 4}}"#),
        ("PAGE_NUM_OFFSET", "1"),
    ];
    let flags = Overrides {
        front_pages: Some(5),
        ..Overrides::default()
    };
    let key = "MATTER_CONFIG.front.max_pages";

    let (s, p) = Settings::resolve_with_provenance(&flags, env_of(env), Some(file)).unwrap();
    assert_eq!(s.matter.front.max_pages, 5);
    assert_eq!(p.source(key), Source::Flag("--front-pages"));
    assert_eq!(s.page_num_offset, 1);
    assert_eq!(p.source("PAGE_NUM_OFFSET"), Source::Env);

    let no_flags = Overrides::default();
    let (s, p) = Settings::resolve_with_provenance(&no_flags, env_of(env), Some(file)).unwrap();
    assert_eq!(s.matter.front.max_pages, 4);
    assert_eq!(p.source(key), Source::Env);

    let (s, p) = Settings::resolve_with_provenance(&no_flags, no_env, Some(file)).unwrap();
    assert_eq!(s.matter.front.max_pages, 3);
    assert_eq!(s.page_num_offset, 0);
    assert_eq!(p.source(key), Source::File);

    let (s, p) = Settings::resolve_with_provenance(&no_flags, no_env, None).unwrap();
    assert_eq!(s.matter.front.max_pages, 8);
    assert_eq!(p.source(key), Source::Default);
}

#[test]
fn partial_tables_merge_over_lower_layers() {
    let file = r#"
        [MATTER_CONFIG.back]
        mode = "fallback"
        max_pages = 20
        [MATTER_CONFIG.back.fields]
        isbn = true
    "#;
    let env = env_of(&[
        (
            "MATTER_CONFIG",
            r#"{"front": {"max_pages": 3}, "back": {"fields": {"year": true}}}"#,
        ),
        ("VISION_ANALYSIS_THRESHOLDS", "{ early_pages_cutoff = 3 }"),
    ]);
    let (s, p) = Settings::resolve_with_provenance(&Overrides::default(), env, Some(file)).unwrap();
    assert_eq!(s.matter.front.max_pages, 3);
    assert_eq!(s.matter.back.mode, BackMode::Fallback);
    assert_eq!(s.matter.back.max_pages, 20);
    assert!(s.matter.back.fields.isbn && s.matter.back.fields.year);
    assert!(!s.matter.back.fields.doi);
    assert_eq!(s.vision_thresholds.early_pages_cutoff, 3);
    assert_eq!(s.vision_thresholds.full_page_image_ratio, 0.90);
    assert_eq!(p.source("MATTER_CONFIG.back.fields.isbn"), Source::File);
    assert_eq!(p.source("MATTER_CONFIG.back.fields.year"), Source::Env);
    assert_eq!(p.source("MATTER_CONFIG.back.fields.doi"), Source::Default);
    assert_eq!(
        p.overridden().map(|(k, _)| k).collect::<Vec<_>>(),
        [
            "MATTER_CONFIG.back.fields.isbn",
            "MATTER_CONFIG.back.fields.year",
            "MATTER_CONFIG.back.max_pages",
            "MATTER_CONFIG.back.mode",
            "MATTER_CONFIG.front.max_pages",
            "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff",
        ]
    );
}

#[test]
fn file_accepts_inline_and_nested_tables_alike() {
    let inline = r#"MATTER_CONFIG = { front = { max_pages = 15 }, back = { mode = "always", max_pages = 20, fields = { publisher = true, loc = true } } }"#;
    let nested = r#"
        [MATTER_CONFIG]
        front = { max_pages = 15 }
        [MATTER_CONFIG.back]
        mode = "always"
        max_pages = 20
        fields.publisher = true
        fields.loc = true
    "#;
    let (a, _) = from_file(inline).unwrap();
    let (b, _) = from_file(nested).unwrap();
    assert_eq!(a, b);
    assert_eq!(a.matter.front.max_pages, 15);
    assert_eq!(a.matter.back.mode, BackMode::Always);
    assert!(a.matter.back.fields.publisher && a.matter.back.fields.loc);
}

#[test]
fn every_scalar_from_the_file() {
    let file = r#"
        PAGE_NUM_OFFSET = 0
        WRITE_PDF_CHANGES = true
        MAX_FILENAME_LENGTH = 120
        ANALYZE_WITH_VISION = true
        VLM_MODEL = "llava:13b"
        VLM_PORT = 8080
        VLM_TIMEOUT = 90
        VLM_MAX_RETRIES = 0
        VLM_RETRY_DELAY = 2.5
        VLM_ENDPOINT = "https://gpu.example.org:8443/api/chat"
        VLM_CONCURRENCY = 4
        RUNTIME_IGNORE_DIR_NAME = "skip"
        FILENAME_TEMPLATE = "{title} - {authors} [{isbn}]"
        PDF_TIMEOUT = 30.5
        OCR_LANGUAGES = "eng+deu"
        OCR_DPI = 200
        VISION_ANALYSIS_THRESHOLDS = { full_page_image_ratio = 0.75, early_pages_cutoff = 2, low_ocr_confidence = 45 }
    "#;
    let (s, p) = from_file(file).unwrap();
    assert_eq!(s.page_num_offset, 0);
    assert!(s.write_pdf_changes && s.analyze_with_vision);
    assert_eq!(s.max_filename_length, 120);
    assert_eq!(s.vlm_model, "llava:13b");
    assert_eq!(s.vlm_port, 8080);
    assert_eq!(s.vlm_timeout, 90.0);
    assert_eq!(s.vlm_max_retries, 0);
    assert_eq!(s.vlm_retry_delay, 2.5);
    assert_eq!(s.vlm_endpoint, "https://gpu.example.org:8443/api/chat");
    assert_eq!(s.vlm_concurrency, 4);
    assert_eq!(s.runtime_ignore_dir_name, "skip");
    assert_eq!(s.filename_template, "{title} - {authors} [{isbn}]");
    assert_eq!(s.pdf_timeout, 30.5);
    assert_eq!(s.ocr_languages, "eng+deu");
    assert_eq!(s.ocr_dpi, 200);
    assert_eq!(s.vision_thresholds.full_page_image_ratio, 0.75);
    assert_eq!(s.vision_thresholds.early_pages_cutoff, 2);
    assert_eq!(s.vision_thresholds.low_ocr_confidence, 45.0);
    assert!(p.overridden().all(|(_, src)| src == Source::File));
    assert_eq!(p.overridden().count(), 19);
}

#[test]
fn env_scalars_are_text() {
    let env = env_of(&[
        ("WRITE_PDF_CHANGES", "yes"),
        ("ANALYZE_WITH_VISION", "TRUE"),
        ("VLM_TIMEOUT", " 12.5 "),
        ("VLM_PORT", "9000"),
        ("VLM_MODEL", "minicpm-v"),
        ("OCR_DPI", "150"),
    ]);
    let (s, p) = Settings::resolve_with_provenance(&Overrides::default(), env, None).unwrap();
    assert!(s.write_pdf_changes && s.analyze_with_vision);
    assert_eq!(s.vlm_timeout, 12.5);
    assert_eq!(s.vlm_port, 9000);
    assert_eq!(s.vlm_model, "minicpm-v");
    assert_eq!(s.ocr_dpi, 150);
    assert_eq!(p.source("VLM_MODEL"), Source::Env);
    // The endpoint follows the port from the environment.
    assert_eq!(s.vlm_endpoint, "http://localhost:9000/api/chat");

    let off = env_of(&[("WRITE_PDF_CHANGES", "0")]);
    let s =
        Settings::resolve(&Overrides::default(), off, Some("WRITE_PDF_CHANGES = true")).unwrap();
    assert!(!s.write_pdf_changes);
}

#[test]
fn env_tables_as_json_inline_toml_or_toml_lines() {
    for text in [
        r#"{"back": {"mode": "always", "max_pages": 7}}"#,
        r#"{ back = { mode = "always", max_pages = 7 } }"#,
        "back.mode = \"always\"\nback.max_pages = 7",
    ] {
        let env = move |name: &str| (name == "MATTER_CONFIG").then(|| text.to_string());
        let s = Settings::resolve(&Overrides::default(), env, None).unwrap();
        assert_eq!(s.matter.back.mode, BackMode::Always, "{text}");
        assert_eq!(s.matter.back.max_pages, 7, "{text}");
    }
}

#[test]
fn online_settings_from_file_and_environment() {
    let file = "ONLINE_CONTACT = \"me@example.org\"\nONLINE_RATE_LIMITS.loc = 0.2\n";
    let env = env_of(&[
        ("ONLINE_LOOKUP", "yes"),
        ("ONLINE_DOI_URL", "http://127.0.0.1:8080"),
        ("ONLINE_RATE_LIMITS", r#"{"openlibrary": 3}"#),
        ("ONLINE_NEGATIVE_TTL_DAYS", "0"),
    ]);
    let s = Settings::resolve(&Overrides::default(), env, Some(file)).unwrap();
    assert!(s.online_lookup);
    assert_eq!(s.online_contact, "me@example.org");
    assert_eq!(s.online_doi_url, "http://127.0.0.1:8080");
    assert_eq!(s.online_negative_ttl_days, 0);
    assert_eq!(s.online_rate_limits.openlibrary, 3.0);
    assert_eq!(s.online_rate_limits.loc, 0.2);
    assert_eq!(
        s.online_rate_limits.crossref, 5.0,
        "the rest keep their default"
    );
    assert!(!Settings::default().online_lookup, "off unless asked");
    for (text, wanted) in [
        ("ONLINE_CONTACT = \"not an address\"", "e-mail address"),
        ("ONLINE_CONTACT = \"a@b.org\\r\\nX: y\"", "e-mail address"),
        ("ONLINE_TIMEOUT = 0", "> 0"),
        ("ONLINE_RATE_LIMITS.doi = 0", "from 0.001"),
        ("ONLINE_LOC_URL = \"ftp://x\"", "http"),
        (
            "ONLINE_RATE_LIMITS.worldcat = 1",
            "allowed keys in ONLINE_RATE_LIMITS",
        ),
    ] {
        let e = file_error(text);
        assert!(e.contains(wanted), "{text}: {e}");
    }
}

#[test]
fn flags_set_their_settings() {
    let flags = Overrides {
        write: true,
        vision: true,
        front_pages: Some(2),
        back_mode: Some("always".into()),
        back_pages: Some(0),
        online: true,
        shards: Some(4),
    };
    let file =
        "WRITE_PDF_CHANGES = false\nANALYZE_WITH_VISION = false\nONLINE_LOOKUP = false\nSHARDS = 2";
    let env = env_of(&[("SHARDS", "3")]);
    let (s, p) = Settings::resolve_with_provenance(&flags, env, Some(file)).unwrap();
    assert_eq!(
        (s.shards, p.source("SHARDS")),
        (4, Source::Flag("--shards"))
    );
    assert!(s.write_pdf_changes && s.analyze_with_vision);
    assert!(s.online_lookup);
    assert_eq!(p.source("ONLINE_LOOKUP"), Source::Flag("--online"));
    assert_eq!(s.matter.front.max_pages, 2);
    assert_eq!(s.matter.back.mode, BackMode::Always);
    assert_eq!(s.matter.back.max_pages, 0);
    assert_eq!(p.source("WRITE_PDF_CHANGES"), Source::Flag("--write"));
    assert_eq!(p.source("ANALYZE_WITH_VISION"), Source::Flag("--vision"));
    assert_eq!(
        p.source("MATTER_CONFIG.back.mode"),
        Source::Flag("--back-mode")
    );
    // `--write` absent leaves the lower layer alone.
    let s = Settings::resolve(
        &Overrides::default(),
        no_env,
        Some("WRITE_PDF_CHANGES = true"),
    )
    .unwrap();
    assert!(s.write_pdf_changes);
}

#[test]
fn endpoint_follows_port_unless_set() {
    let (s, p) = from_file("VLM_PORT = 12345").unwrap();
    assert_eq!(s.vlm_endpoint, "http://localhost:12345/api/chat");
    assert_eq!(p.source("VLM_ENDPOINT"), Source::Default);

    let file = "VLM_PORT = 12345\nVLM_ENDPOINT = \"http://10.0.0.5:11434/api/chat\"";
    let (s, p) = from_file(file).unwrap();
    assert_eq!(s.vlm_endpoint, "http://10.0.0.5:11434/api/chat");
    assert_eq!(p.source("VLM_ENDPOINT"), Source::File);
}

#[test]
fn author_and_title_in_back_fields_are_accepted_and_ignored() {
    let file = "[MATTER_CONFIG.back.fields]\nauthor = true\ntitle = false\nyear = true";
    let (s, p) = from_file(file).unwrap();
    let mut expected = Settings::default();
    expected.matter.back.fields.year = true;
    assert_eq!(s, expected);
    assert_eq!(p.overridden().count(), 1);
    assert_eq!(
        file_error("MATTER_CONFIG.back.fields.author = \"yes\""),
        "invalid setting MATTER_CONFIG.back.fields.author = \"yes\" (from colophon.toml): \
         must be true or false (it is ignored: title and authors are always wanted)"
    );
}

#[test]
fn error_names_key_value_origin_and_what_is_allowed() {
    assert_eq!(
        env_error(&[("PAGE_NUM_OFFSET", "7")]),
        "invalid setting PAGE_NUM_OFFSET = 7 (from environment): allowed values are 0 or 1"
    );
    assert_eq!(
        file_error("PAGE_NUM_OFFSET = 2"),
        "invalid setting PAGE_NUM_OFFSET = 2 (from colophon.toml): allowed values are 0 or 1"
    );
    let flags = Overrides {
        front_pages: Some(0),
        ..Overrides::default()
    };
    assert_eq!(
        Settings::resolve(&flags, no_env, None)
            .unwrap_err()
            .to_string(),
        "invalid setting MATTER_CONFIG.front.max_pages = 0 (from flag --front-pages): \
         must be an integer >= 1"
    );
    let flags = Overrides {
        back_mode: Some("sometimes".into()),
        ..Overrides::default()
    };
    assert_eq!(
        Settings::resolve(&flags, no_env, None)
            .unwrap_err()
            .to_string(),
        "invalid setting MATTER_CONFIG.back.mode = sometimes (from flag --back-mode): \
         allowed values are never, always or fallback"
    );
}

/// What `VLM_TIMEOUT` and `PDF_TIMEOUT` accept.
const LIMIT: &str = "must be a number of seconds > 0 and at most 1000000000 (0 is not \"no limit\": raise the limit instead)";

#[test]
fn out_of_range_values_are_refused() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "SHARDS = 0",
            "SHARDS = 0",
            "must be an integer from 1 to 100000",
        ),
        (
            "MATTER_CONFIG.front.max_pages = 0",
            "MATTER_CONFIG.front.max_pages = 0",
            "must be an integer >= 1",
        ),
        (
            "MATTER_CONFIG.back.max_pages = -1",
            "MATTER_CONFIG.back.max_pages = -1",
            "must be an integer >= 0",
        ),
        (
            "MATTER_CONFIG.back.mode = \"sometimes\"",
            "MATTER_CONFIG.back.mode = \"sometimes\"",
            "allowed values are never, always or fallback",
        ),
        (
            "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = 1.5",
            "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = 1.5",
            "must be a number from 0 to 1",
        ),
        (
            "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = -0.1",
            "VISION_ANALYSIS_THRESHOLDS.full_page_image_ratio = -0.1",
            "must be a number from 0 to 1",
        ),
        (
            "VISION_ANALYSIS_THRESHOLDS.low_ocr_confidence = 101",
            "VISION_ANALYSIS_THRESHOLDS.low_ocr_confidence = 101",
            "must be a number from 0 to 100",
        ),
        (
            "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff = -2",
            "VISION_ANALYSIS_THRESHOLDS.early_pages_cutoff = -2",
            "must be an integer >= 0",
        ),
        (
            "MAX_FILENAME_LENGTH = 39",
            "MAX_FILENAME_LENGTH = 39",
            "must be an integer >= 40",
        ),
        ("VLM_TIMEOUT = -1", "VLM_TIMEOUT = -1", LIMIT),
        ("VLM_TIMEOUT = 0", "VLM_TIMEOUT = 0", LIMIT),
        ("PDF_TIMEOUT = 0", "PDF_TIMEOUT = 0", LIMIT),
        ("PDF_TIMEOUT = 0.0", "PDF_TIMEOUT = 0.0", LIMIT),
        (
            "VLM_RETRY_DELAY = -0.5",
            "VLM_RETRY_DELAY = -0.5",
            "must be a number of seconds >= 0",
        ),
        ("PDF_TIMEOUT = nan", "PDF_TIMEOUT = nan", LIMIT),
        ("PDF_TIMEOUT = 1e12", "PDF_TIMEOUT = 1000000000000.0", LIMIT),
        (
            "VLM_MAX_RETRIES = -1",
            "VLM_MAX_RETRIES = -1",
            "must be an integer >= 0",
        ),
        (
            "VLM_MAX_RETRIES = 5000000000",
            "VLM_MAX_RETRIES = 5000000000",
            "must be an integer from 0 to 4294967295",
        ),
        (
            "VLM_CONCURRENCY = 0",
            "VLM_CONCURRENCY = 0",
            "must be an integer from 1 to 256",
        ),
        (
            "VLM_PORT = 70000",
            "VLM_PORT = 70000",
            "must be an integer from 1 to 65535",
        ),
        (
            "OCR_DPI = 10",
            "OCR_DPI = 10",
            "must be an integer from 50 to 1200",
        ),
        (
            "VLM_MODEL = \"  \"",
            "VLM_MODEL = \"  \"",
            "must be a non-empty string",
        ),
        (
            "RUNTIME_IGNORE_DIR_NAME = \"a/b\"",
            "RUNTIME_IGNORE_DIR_NAME = \"a/b\"",
            "must be a single directory name (not empty, no / or \\)",
        ),
        (
            "OCR_LANGUAGES = \"eng+\"",
            "OCR_LANGUAGES = \"eng+\"",
            "must be Tesseract language codes joined with +, such as eng or eng+deu",
        ),
    ];
    for (file, shown, allowed) in cases {
        assert_eq!(
            file_error(file),
            format!("invalid setting {shown} (from colophon.toml): {allowed}"),
            "{file}"
        );
    }
}

#[test]
fn endpoint_must_be_an_http_url() {
    for bad in [
        "ftp://localhost/api/chat",
        "http://",
        "localhost:11434/api/chat",
        "http://local host/api",
        "http://localhost:99999/api/chat",
        "http://localhost:/api/chat",
        "https://[::1/api",
    ] {
        let err = file_error(&format!("VLM_ENDPOINT = \"{bad}\""));
        assert_eq!(
            err,
            format!(
                "invalid setting VLM_ENDPOINT = \"{bad}\" (from colophon.toml): must be an \
                 http:// or https:// URL such as http://localhost:11434/api/chat"
            )
        );
    }
    for good in [
        "http://localhost:11434/api/chat",
        "HTTPS://gpu-box.lan/api/chat",
        "http://192.168.1.20:11434/api/chat",
        "http://[::1]:11434/api/chat",
        "http://user@host/api/chat?x=1",
    ] {
        let (s, _) = from_file(&format!("VLM_ENDPOINT = \"{good}\"")).unwrap();
        assert_eq!(s.vlm_endpoint, good);
    }
}

#[test]
fn vision_hosts_are_a_list_of_distinct_urls() {
    let a = "http://gpu1:11434/api/chat";
    let b = "http://10.0.0.2:11434/api/chat";
    let (s, _) = from_file(&format!("VLM_ENDPOINTS = [\"{a}\", \"{b}\"]")).unwrap();
    assert_eq!(s.vlm_endpoints, [a, b]);
    assert_eq!(s.vlm_hosts(), [a, b]);
    // In the environment: separated by commas or spaces, or a JSON array.
    for text in [
        "http://gpu1:11434/api/chat, http://10.0.0.2:11434/api/chat",
        "http://gpu1:11434/api/chat http://10.0.0.2:11434/api/chat",
        r#"["http://gpu1:11434/api/chat","http://10.0.0.2:11434/api/chat"]"#,
    ] {
        let s = Settings::resolve(
            &Overrides::default(),
            |k| (k == "VLM_ENDPOINTS").then(|| text.to_string()),
            None,
        )
        .unwrap();
        assert_eq!(s.vlm_endpoints, [a, b], "{text}");
    }
    // None listed: the one VLM_ENDPOINT.
    let s = Settings::default();
    assert_eq!(s.vlm_hosts(), std::slice::from_ref(&s.vlm_endpoint));
    for bad in [
        format!("VLM_ENDPOINTS = [\"{a}\", \"{a}\"]"),
        format!("VLM_ENDPOINTS = [\"{a}\", \"gpu2:11434\"]"),
        "VLM_ENDPOINTS = [1]".to_string(),
        "VLM_ENDPOINTS = true".to_string(),
    ] {
        let err = file_error(&bad);
        assert!(
            err.contains("must be a list of distinct http"),
            "{bad}: {err}"
        );
    }
    let err = env_error(&[("VLM_ENDPOINTS", "[\"http://a\", 3]")]);
    assert!(err.contains("must be a list of distinct http"), "{err}");
}

#[test]
fn template_placeholders_are_checked() {
    assert_eq!(
        file_error("FILENAME_TEMPLATE = \"{auther} - {title}\""),
        "invalid setting FILENAME_TEMPLATE = \"{auther} - {title}\" (from colophon.toml): \
         unknown placeholder {auther}; allowed placeholders are {authors}, {title}, \
         {subtitle}, {year}, {publisher}, {edition}, {isbn}, {doi}"
    );
    assert!(file_error("FILENAME_TEMPLATE = \"{title\"").contains("has an unclosed {"));
    assert!(file_error("FILENAME_TEMPLATE = \"title}\"").contains("has a } without {"));
    assert!(file_error("FILENAME_TEMPLATE = \"\"").contains("must not be empty"));
    for never in [".", "..", " - ", "-.-"] {
        assert!(
            file_error(&format!("FILENAME_TEMPLATE = \"{never}\""))
                .contains("can never give a file name"),
            "{never:?}"
        );
    }
    let (s, _) = from_file("FILENAME_TEMPLATE = \"{year} {doi}\"").unwrap();
    assert_eq!(s.filename_template, "{year} {doi}");
}

#[test]
fn wrong_types_are_refused() {
    let cases: &[(&str, &str)] = &[
        (
            "PAGE_NUM_OFFSET = \"1\"",
            "invalid setting PAGE_NUM_OFFSET = \"1\" (from colophon.toml): allowed values are 0 or 1",
        ),
        (
            "WRITE_PDF_CHANGES = 1",
            "invalid setting WRITE_PDF_CHANGES = 1 (from colophon.toml): must be true or false",
        ),
        (
            "MAX_FILENAME_LENGTH = 100.5",
            "invalid setting MAX_FILENAME_LENGTH = 100.5 (from colophon.toml): must be an integer >= 40",
        ),
        (
            "VLM_MODEL = 7",
            "invalid setting VLM_MODEL = 7 (from colophon.toml): must be a non-empty string",
        ),
        (
            "VLM_TIMEOUT = \"60\"",
            "invalid setting VLM_TIMEOUT = \"60\" (from colophon.toml): must be a number of seconds > 0 and at most 1000000000 (0 is not \"no limit\": raise the limit instead)",
        ),
        (
            "MATTER_CONFIG = 3",
            "invalid setting MATTER_CONFIG = 3 (from colophon.toml): must be a table with keys front, back",
        ),
        (
            "MATTER_CONFIG.back = \"always\"",
            "invalid setting MATTER_CONFIG.back = \"always\" (from colophon.toml): must be a table with keys mode, max_pages, fields",
        ),
        (
            "MATTER_CONFIG.back.fields.isbn = \"true\"",
            "invalid setting MATTER_CONFIG.back.fields.isbn = \"true\" (from colophon.toml): must be true or false",
        ),
        (
            "OCR_LANGUAGES = [\"eng\", \"deu\"]",
            "invalid setting OCR_LANGUAGES = [\"eng\", \"deu\"] (from colophon.toml): must be Tesseract language codes joined with +, such as eng or eng+deu",
        ),
        (
            "PAGE_NUM_OFFSET = { a = 1 }",
            "invalid setting PAGE_NUM_OFFSET = { a = 1 } (from colophon.toml): allowed values are 0 or 1",
        ),
    ];
    for (file, message) in cases {
        assert_eq!(file_error(file), *message, "{file}");
    }
}

#[test]
fn unknown_keys_are_refused_at_every_level() {
    assert_eq!(
        file_error("PAGE_OFFSET = 1"),
        "unknown setting PAGE_OFFSET (from colophon.toml): allowed keys are \
         PAGE_NUM_OFFSET, MIN_CONFIDENCE, WRITE_PDF_CHANGES, WRITE_READ_ONLY_FILES, REVIEW_THUMBNAILS, MAX_FILENAME_LENGTH, \
         ANALYZE_WITH_VISION, \
         VLM_MODEL, VLM_PORT, VLM_TIMEOUT, VLM_MAX_RETRIES, VLM_RETRY_DELAY, VLM_ENDPOINT, \
         VLM_ENDPOINTS, VLM_CONCURRENCY, RUNTIME_IGNORE_DIR_NAME, FILENAME_TEMPLATE, PDF_TIMEOUT, \
         WORKER_MEMORY_LIMIT_MB, OCR_DPI, OCR_LANGUAGES, OCR_LIBTESSERACT, PDF_TEXT_READER, WORKER_EXECUTABLE, PDFIUM_LIBRARY, BROWSER, ONLINE_LOOKUP, ONLINE_CONTACT, ONLINE_TIMEOUT, \
         ONLINE_NEGATIVE_TTL_DAYS, ONLINE_OPENLIBRARY_URL, ONLINE_DOI_URL, ONLINE_CROSSREF_URL, \
         ONLINE_LOC_URL, SHARDS, MATTER_CONFIG, VISION_ANALYSIS_THRESHOLDS, ONLINE_RATE_LIMITS"
    );
    assert!(
        file_error("page_num_offset = 1").contains("did you mean PAGE_NUM_OFFSET?"),
        "case slips get a hint"
    );
    assert_eq!(
        file_error("[MATTER_CONFIG.back]\ncolour = \"red\""),
        "unknown setting MATTER_CONFIG.back.colour (from colophon.toml): allowed keys in \
         MATTER_CONFIG.back are mode, max_pages, fields"
    );
    assert_eq!(
        file_error("MATTER_CONFIG.back.fields.subtitle = true"),
        "unknown setting MATTER_CONFIG.back.fields.subtitle (from colophon.toml): allowed \
         keys in MATTER_CONFIG.back.fields are publisher, year, edition, isbn, doi, loc"
    );
    assert_eq!(
        file_error("VISION_ANALYSIS_THRESHOLDS = { ratio = 0.5 }"),
        "unknown setting VISION_ANALYSIS_THRESHOLDS.ratio (from colophon.toml): allowed \
         keys in VISION_ANALYSIS_THRESHOLDS are full_page_image_ratio, \
         early_pages_cutoff, low_ocr_confidence"
    );
    assert_eq!(
        env_error(&[("MATTER_CONFIG", r#"{"front": {"maxpages": 3}}"#)]),
        "unknown setting MATTER_CONFIG.front.maxpages (from environment): allowed keys in \
         MATTER_CONFIG.front are max_pages, stop_when_sure"
    );
}

#[test]
fn bad_env_values_are_refused() {
    assert_eq!(
        env_error(&[("WRITE_PDF_CHANGES", "maybe")]),
        "invalid setting WRITE_PDF_CHANGES = maybe (from environment): must be true or false"
    );
    assert_eq!(
        env_error(&[("VLM_TIMEOUT", "soon")]),
        format!("invalid setting VLM_TIMEOUT = soon (from environment): {LIMIT}")
    );
    assert_eq!(
        env_error(&[("MAX_FILENAME_LENGTH", "12.5")]),
        "invalid setting MAX_FILENAME_LENGTH = 12.5 (from environment): must be an integer >= 40"
    );
    assert_eq!(
        env_error(&[("VLM_ENDPOINT", "localhost:11434")]),
        "invalid setting VLM_ENDPOINT = localhost:11434 (from environment): must be an \
         http:// or https:// URL such as http://localhost:11434/api/chat"
    );
    assert_eq!(
        env_error(&[("MATTER_CONFIG", "[1, 2]")]),
        "invalid setting MATTER_CONFIG = [1, 2] (from environment): must be a table with \
         keys front, back (JSON object or TOML inline table)"
    );
    assert_eq!(
        env_error(&[("MATTER_CONFIG", r#"{"back": {"mode": null}}"#)]),
        "invalid setting MATTER_CONFIG.back.mode = null (from environment): null is not a \
         value; leave the key out to keep the lower layer"
    );
    assert_eq!(
        env_error(&[("MATTER_CONFIG", r#"{"back": {"max_pages": 2.5}}"#)]),
        "invalid setting MATTER_CONFIG.back.max_pages = 2.5 (from environment): must be an \
         integer >= 0"
    );
    let err = Settings::resolve(
        &Overrides::default(),
        env_of(&[("VISION_ANALYSIS_THRESHOLDS", "{ early_pages_cutoff = }")]),
        None,
    )
    .unwrap_err();
    assert!(matches!(err, SettingsError::Parse { .. }), "{err:?}");
    assert!(
        err.to_string()
            .starts_with("cannot parse environment variable VISION_ANALYSIS_THRESHOLDS: expected a JSON object or a TOML inline table"),
        "{err}"
    );
}

#[test]
fn a_broken_file_is_a_parse_error_even_when_overridden() {
    let err = from_file("PAGE_NUM_OFFSET = = 1").unwrap_err();
    assert!(matches!(err, SettingsError::Parse { ref what, .. } if what == "colophon.toml"));
    // A bad file value is reported even if the environment overrides it.
    let err = Settings::resolve(
        &Overrides::default(),
        env_of(&[("PAGE_NUM_OFFSET", "1")]),
        Some("PAGE_NUM_OFFSET = 9"),
    )
    .unwrap_err();
    assert!(matches!(
        err,
        SettingsError::Invalid {
            origin: Source::File,
            ..
        }
    ));
}

#[test]
fn describe_names_every_source_and_reads_back_as_the_same_settings() {
    let file = r#"
        PAGE_NUM_OFFSET = 0
        VLM_MODEL = "llava:13b"
        VLM_PORT = 9999
        FILENAME_TEMPLATE = "{authors} - {title} [{isbn}]"
        [MATTER_CONFIG.back.fields]
        isbn = true
        [VISION_ANALYSIS_THRESHOLDS]
        full_page_image_ratio = 0.8
    "#;
    let env = env_of(&[
        ("VLM_TIMEOUT", "45"),
        ("MATTER_CONFIG", "{ back = { mode = \"fallback\" } }"),
    ]);
    let flags = Overrides {
        front_pages: Some(12),
        ..Overrides::default()
    };
    let (s, p) = Settings::resolve_with_provenance(&flags, env, Some(file)).unwrap();
    let text = s.describe(&p);
    for line in [
        "PAGE_NUM_OFFSET = 0  # colophon.toml",
        "WRITE_PDF_CHANGES = false  # default",
        "WRITE_READ_ONLY_FILES = false  # default",
        "VLM_TIMEOUT = 45.0  # environment",
        "VLM_ENDPOINT = \"http://localhost:9999/api/chat\"  # default (follows VLM_PORT)",
        "[MATTER_CONFIG.front]",
        "max_pages = 12  # flag --front-pages",
        "mode = \"fallback\"  # environment",
        "[MATTER_CONFIG.back.fields]",
        "isbn = true  # colophon.toml",
        "full_page_image_ratio = 0.8  # colophon.toml",
        "low_ocr_confidence = 30.0  # default",
    ] {
        assert!(
            text.lines().any(|l| l == line),
            "missing {line:?} in\n{text}"
        );
    }
    // Every key appears exactly once.
    for key in setting_keys() {
        let name = key.rsplit('.').next().unwrap();
        assert!(
            text.lines().any(|l| l.starts_with(&format!("{name} = "))),
            "{key} missing"
        );
    }
    let (again, _) = from_file(&text).unwrap();
    assert_eq!(again, s);
    let (defaults, _) = from_file(&Settings::default().describe(&Provenance::default())).unwrap();
    assert_eq!(defaults, Settings::default());
}

#[test]
fn every_field_has_one_row() {
    // Each scalar (and the one list) of the struct, counted through serde,
    // is one row of the table; a field added without a row makes the
    // counts differ.
    fn scalars(v: &serde_json::Value) -> usize {
        match v {
            serde_json::Value::Object(map) => map.values().map(scalars).sum(),
            _ => 1,
        }
    }
    let json = serde_json::to_value(Settings::default()).unwrap();
    assert_eq!(scalars(&json), setting_keys().count());
    // And each row writes a field of its own: changing one setting changes
    // what that row reads back and nothing any other row reads.
    let base = Settings::default();
    let read = |s: &Settings| -> Vec<String> {
        setting_keys()
            .map(|k| {
                let l = schema::leaf(k).unwrap();
                (l.get)(s).to_string()
            })
            .collect()
    };
    let before = read(&base);
    for (i, key) in setting_keys().enumerate() {
        let mut s = base.clone();
        set_other_value(&mut s, key);
        let after = read(&s);
        for (j, other) in setting_keys().enumerate() {
            assert_eq!(
                before[j] != after[j],
                i == j,
                "setting {key} changed what {other} reads"
            );
        }
    }
}

#[test]
fn every_default_is_allowed_by_its_own_row() {
    for key in setting_keys() {
        let l = schema::leaf(key).unwrap();
        let value = l.default.to_toml();
        assert!(l.kind.check(&value).is_ok(), "{key} = {value}");
    }
    // The defaults SPEC 3 and the README state.
    let d = Settings::default();
    assert_eq!(d.matter.front.max_pages, 8);
    assert_eq!(d.matter.back.mode, BackMode::Never);
    assert_eq!(d.max_filename_length, 250);
    assert_eq!(d.filename_template, "{authors} - {title} ({year})");
    assert_eq!(d.vlm_endpoint, "http://localhost:11434/api/chat");
    assert_eq!(d.ocr_dpi, 300);
    assert_eq!(d.vision_thresholds.full_page_image_ratio, 0.9);
}

#[test]
fn the_environment_names_are_the_top_level_keys() {
    let names = env_names();
    assert!(names.contains(&"MATTER_CONFIG"));
    assert!(names.contains(&"OCR_DPI"));
    assert!(names.contains(&"ONLINE_RATE_LIMITS"));
    assert!(!names.iter().any(|n| n.contains('.')));
    // Every setting can be set by one of them.
    for key in setting_keys() {
        let top = key.split('.').next().unwrap();
        assert!(names.contains(&top), "{key}");
    }
}
