//! End-to-end tests of the write stage on real PDFs (tests/fixtures, see
//! tests/fixtures/SOURCES.md), checked with qpdf and pdfinfo.

use super::journal::{Journal, State};
use super::*;
use crate::model::{Metadata, PagesRead, VisionPages};
use crate::util::fs::{TEMP_PREFIX, is_temp_file};
use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;
use std::time::{Duration, Instant};

const CLASSIC: &str = "write_classic_xref.pdf";
const CLASSIC_XMP: &str = "write_classic_xref_with_xmp.pdf";
const XREF_STREAM: &str = "write_xref_stream_objstm.pdf";
const XREF_STREAM_NO_INFO: &str = "write_xref_stream_no_info.pdf";
const ALL: [&str; 4] = [CLASSIC, CLASSIC_XMP, XREF_STREAM, XREF_STREAM_NO_INFO];

use crate::test_pdfs::fixture;

/// A temporary project: `data/` and `cache/`.
struct Lib {
    _tmp: tempfile::TempDir,
    data: PathBuf,
    cache: PathBuf,
}

impl Lib {
    fn new() -> Lib {
        let tmp = tempfile::tempdir().unwrap();
        let data = tmp.path().join("data");
        let cache = tmp.path().join("cache");
        fs::create_dir_all(&data).unwrap();
        fs::create_dir_all(&cache).unwrap();
        Lib {
            _tmp: tmp,
            data,
            cache,
        }
    }

    /// Copies a fixture to `data/<rel>` and describes it as `discover` would.
    fn add(&self, fixture_name: &str, rel: &str) -> PdfFile {
        let path = self.data.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::copy(fixture(fixture_name), &path).unwrap();
        PdfFile {
            path,
            rel: PathBuf::from(rel),
            ignored: false,
            has_pdf_header: true,
        }
    }

    /// Every file under data/ with its blake3 (relative path → hex).
    fn snapshot(&self) -> BTreeMap<String, String> {
        let mut out = BTreeMap::new();
        let mut stack = vec![self.data.clone()];
        while let Some(d) = stack.pop() {
            for e in fs::read_dir(&d).unwrap() {
                let p = e.unwrap().path();
                if p.is_dir() {
                    stack.push(p);
                } else {
                    let rel = p
                        .strip_prefix(&self.data)
                        .unwrap()
                        .to_string_lossy()
                        .into_owned();
                    out.insert(rel, crate::fingerprint::hash_file_len(&p).unwrap().0.hex());
                }
            }
        }
        out
    }
}

fn settings() -> Settings {
    Settings {
        write_pdf_changes: true,
        ..Settings::default()
    }
}

fn meta(title: &str, authors: &[&str]) -> Metadata {
    Metadata {
        title: Some(title.into()),
        subtitle: Some("An Eternal Golden Braid".into()),
        authors: authors.iter().map(|s| s.to_string()).collect(),
        publisher: Some("Basic Books".into()),
        year: Some(1979),
        edition: Some("20".into()),
        isbn: Some("9780465026562".into()),
        doi: Some("10.1000/xyz-123".into()),
        loc: Some("79005008".into()),
    }
}

fn record(file: &PdfFile, meta: Metadata) -> Record {
    Record {
        path: file.rel.to_string_lossy().into_owned(),
        blake3: Some(
            crate::fingerprint::hash_file_len(&file.path)
                .unwrap()
                .0
                .hex(),
        ),
        pages: Some(15),
        status: Status::Complete,
        error: None,
        metadata: meta,
        unsure: Metadata::default(),
        sources: BTreeMap::new(),
        pages_read: PagesRead::default(),
        vision: VisionPages::default(),
        proposed_filename: None,
        written: false,
        warnings: Vec::new(),
        online: None,
    }
}

fn run(lib: &Lib, file: &PdfFile, m: Metadata, s: &Settings, run_id: &str) -> WriteOutcome {
    let rec = record(file, m);
    let hash = crate::fingerprint::hash_file_len(&file.path).unwrap().0;
    apply(&WriteJob {
        file,
        expected_hash: hash,
        record: &rec,
        settings: s,
        cache_dir: &lib.cache,
        run_id,
    })
    .unwrap()
}

fn written(o: WriteOutcome) -> Written {
    match o {
        WriteOutcome::Written(w) => w,
        other => panic!("expected Written, got {other:?}"),
    }
}

fn qpdf_check(path: &Path) {
    let out = Command::new("qpdf")
        .arg("--check")
        .arg(path)
        .output()
        .expect("qpdf is installed");
    assert!(
        out.status.code() == Some(0),
        "qpdf --check {} failed: {}{}",
        path.display(),
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn pdfinfo(path: &Path) -> BTreeMap<String, String> {
    let out = Command::new("pdfinfo")
        .args(["-enc", "UTF-8"])
        .arg(path)
        .output()
        .expect("pdfinfo is installed");
    assert!(out.status.success(), "pdfinfo {}", path.display());
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_string(), v.trim().to_string()))
        .collect()
}

#[test]
fn writes_metadata_into_every_kind_of_pdf() {
    for name in ALL {
        let lib = Lib::new();
        let file = lib.add(name, &format!("shelf/{name}"));
        let original = fs::read(&file.path).unwrap();
        let m = meta("Gödel, Escher", &["Douglas Hofstadter"]);
        let w = written(run(&lib, &file, m, &settings(), "r1"));
        assert!(w.metadata_updated && w.renamed, "{name}");
        assert_eq!(
            w.new_path,
            lib.data.join("shelf/Hofstadter - Gödel, Escher (1979).pdf"),
            "{name}: stays in its folder"
        );
        assert!(!file.path.exists(), "{name}: old name removed");
        let new = fs::read(&w.new_path).unwrap();
        assert!(new.starts_with(&original), "{name}: original is a prefix");
        assert_eq!(crate::fingerprint::hash_bytes(&new), w.new_hash);
        qpdf_check(&w.new_path);

        let info = pdfinfo(&w.new_path);
        assert_eq!(info["Title"], "Gödel, Escher", "{name}");
        assert_eq!(info["Author"], "Douglas Hofstadter", "{name}");
        assert_eq!(info["Subject"], "An Eternal Golden Braid", "{name}");
        assert_eq!(info["Metadata Stream"], "yes", "{name}");
        assert_eq!(info["Pages"], pdfinfo(&fixture(name))["Pages"], "{name}");

        // The appended section uses the kind of cross-reference the file
        // used, chained to the original startxref.
        let tail = String::from_utf8_lossy(&new[original.len()..]).into_owned();
        let prev = pdf_tail_startxref(&original);
        assert!(tail.contains(&format!("/Prev {prev}")), "{name}: {tail}");
        let uses_stream = String::from_utf8_lossy(&original).contains("/XRef");
        assert_eq!(tail.contains("/XRef"), uses_stream, "{name}");
        assert_eq!(tail.contains("\nxref\n"), !uses_stream, "{name}");

        // Custom Info keys, read with lopdf.
        let doc = lopdf::Document::load_mem(&new).unwrap();
        let info_dict = match doc.trailer.get(b"Info").unwrap() {
            lopdf::Object::Reference(id) => doc.get_dictionary(*id).unwrap().clone(),
            o => o.as_dict().unwrap().clone(),
        };
        for (k, v) in [
            ("ISBN", "9780465026562"),
            ("DOI", "10.1000/xyz-123"),
            ("LCCN", "79005008"),
            ("Publisher", "Basic Books"),
            ("Edition", "20"),
            ("Year", "1979"),
        ] {
            let got = lopdf::decode_text_string(info_dict.get(k.as_bytes()).unwrap()).unwrap();
            assert_eq!(got, v, "{name} /{k}");
        }
        // The XMP agrees.
        let xmp = xmp_of(&doc);
        assert!(
            xmp.contains("<rdf:li xml:lang=\"x-default\">Gödel, Escher</rdf:li>"),
            "{name}"
        );
        assert!(xmp.contains("<rdf:Seq><rdf:li>Douglas Hofstadter</rdf:li></rdf:Seq>"));
        assert!(xmp.contains("<prism:doi>10.1000/xyz-123</prism:doi>"));
        assert!(xmp.contains("<prism:isbn>9780465026562</prism:isbn>"));
        assert!(xmp.contains("<dc:date><rdf:Seq><rdf:li>1979</rdf:li>"));
        if name == CLASSIC_XMP {
            // Foreign properties of the Ghostscript packet are kept.
            assert!(xmp.contains("pdf:Producer=\"GPL Ghostscript 10.00.0\""));
            assert!(xmp.contains("<xmp:CreatorTool>groff version 1.22.4</xmp:CreatorTool>"));
            assert!(xmp.contains("xapMM:DocumentID="));
            assert_eq!(xmp.matches("<dc:title>").count(), 1);
        }
        // Annotation exports beside it, the JSON being the record.
        let [md, json] = [&w.annotations[0], &w.annotations[1]];
        assert_eq!(
            md,
            &lib.data
                .join("shelf/Hofstadter - Gödel, Escher (1979)--ann.md")
        );
        let rec: Record = serde_json::from_str(&fs::read_to_string(json).unwrap()).unwrap();
        assert!(rec.written);
        assert_eq!(rec.metadata.title.as_deref(), Some("Gödel, Escher"));
    }
}

fn pdf_tail_startxref(bytes: &[u8]) -> usize {
    let s = String::from_utf8_lossy(&bytes[bytes.len() - 64..]).into_owned();
    let after = &s[s.rfind("startxref").unwrap() + 9..];
    after.split_whitespace().next().unwrap().parse().unwrap()
}

fn xmp_of(doc: &lopdf::Document) -> String {
    let id = doc
        .catalog()
        .unwrap()
        .get(b"Metadata")
        .unwrap()
        .as_reference()
        .unwrap();
    let s = doc.get_object(id).unwrap().as_stream().unwrap();
    String::from_utf8(s.get_plain_content().unwrap()).unwrap()
}

#[test]
fn cjk_metadata_reads_back() {
    let lib = Lib::new();
    let file = lib.add(XREF_STREAM, "a.pdf");
    let m = Metadata {
        title: Some("数学分析教程".into()),
        authors: vec!["张三".into(), "李四".into()],
        year: Some(2021),
        ..Metadata::default()
    };
    let w = written(run(&lib, &file, m, &settings(), "r1"));
    assert_eq!(
        w.new_path,
        lib.data.join("张三, 李四 - 数学分析教程 (2021).pdf")
    );
    qpdf_check(&w.new_path);
    let info = pdfinfo(&w.new_path);
    assert_eq!(info["Title"], "数学分析教程");
    assert_eq!(info["Author"], "张三; 李四");
}

#[test]
fn second_write_changes_nothing() {
    let lib = Lib::new();
    let s = settings();
    let files: Vec<PdfFile> = [CLASSIC, CLASSIC_XMP, XREF_STREAM]
        .iter()
        .enumerate()
        .map(|(i, n)| lib.add(n, &format!("f{i}.pdf")))
        .collect();
    let mut moved = Vec::new();
    for (i, f) in files.iter().enumerate() {
        let w = written(run(
            &lib,
            f,
            meta(&format!("Book {i}"), &["Ada Lovelace"]),
            &s,
            "first",
        ));
        moved.push(w.new_path);
    }
    let before = lib.snapshot();
    let journal_before = fs::read(Journal::for_run(&lib.cache, "first").path()).unwrap();
    for (i, p) in moved.iter().enumerate() {
        let f = PdfFile {
            path: p.clone(),
            rel: p.strip_prefix(&lib.data).unwrap().to_path_buf(),
            ignored: false,
            has_pdf_header: true,
        };
        let out = run(
            &lib,
            &f,
            meta(&format!("Book {i}"), &["Ada Lovelace"]),
            &s,
            "second",
        );
        assert_eq!(
            out,
            WriteOutcome::Unchanged {
                path: p.clone(),
                annotations: vec![]
            }
        );
    }
    assert_eq!(lib.snapshot(), before, "no byte and no name changed");
    assert!(!Journal::for_run(&lib.cache, "second").path().exists());
    assert_eq!(
        fs::read(Journal::for_run(&lib.cache, "first").path()).unwrap(),
        journal_before
    );
}

#[test]
fn unchanged_file_gets_missing_exports_once() {
    let lib = Lib::new();
    let s = settings();
    let f = lib.add(CLASSIC, "x.pdf");
    let w = written(run(&lib, &f, meta("T", &["A B"]), &s, "r1"));
    for a in &w.annotations {
        fs::remove_file(a).unwrap();
    }
    let f2 = PdfFile {
        path: w.new_path.clone(),
        rel: PathBuf::from(w.new_path.file_name().unwrap()),
        ..f.clone()
    };
    let before_pdf = fs::read(&w.new_path).unwrap();
    match run(&lib, &f2, meta("T", &["A B"]), &s, "r2") {
        WriteOutcome::Unchanged { annotations, .. } => assert_eq!(annotations, w.annotations),
        o => panic!("{o:?}"),
    }
    assert_eq!(fs::read(&w.new_path).unwrap(), before_pdf);
    // Undoing r2 removes just those exports.
    let rep = undo(&lib.cache, Some("r2")).unwrap();
    assert!(rep.problems.is_empty(), "{rep:?}");
    assert!(w.annotations.iter().all(|a| !a.exists()));
    assert_eq!(fs::read(&w.new_path).unwrap(), before_pdf);
}

#[test]
fn undo_gives_back_byte_identical_files_under_old_names() {
    let lib = Lib::new();
    let s = settings();
    let files: Vec<PdfFile> = ALL
        .iter()
        .map(|n| lib.add(n, &format!("sub/{n}")))
        .collect();
    let original = lib.snapshot();
    // Also an existing export that a write replaces, to be put back.
    for (i, f) in files.iter().enumerate() {
        written(run(
            &lib,
            f,
            meta(&format!("Title {i}"), &["Jean de La Fontaine"]),
            &s,
            "w1",
        ));
    }
    assert_ne!(lib.snapshot(), original);
    let rep = undo(&lib.cache, None).unwrap();
    assert_eq!(rep.run_id.as_deref(), Some("w1"));
    assert!(rep.problems.is_empty(), "{rep:?}");
    assert_eq!(rep.restored.len(), ALL.len());
    assert_eq!(rep.annotations.len(), 2 * ALL.len());
    assert_eq!(lib.snapshot(), original, "library is as it was");
    for f in &files {
        assert_eq!(
            fs::read(&f.path).unwrap(),
            fs::read(fixture(f.path.file_name().unwrap().to_str().unwrap())).unwrap()
        );
    }
    let states: Vec<State> = Journal::for_run(&lib.cache, "w1")
        .entries()
        .unwrap()
        .into_iter()
        .map(|(_, s)| s)
        .collect();
    assert!(states.iter().all(|s| *s == State::Undone));
    // Nothing left to undo.
    assert_eq!(undo(&lib.cache, None).unwrap(), UndoReport::default());
}

#[test]
fn undo_runs_newest_first_and_restores_replaced_exports() {
    let lib = Lib::new();
    let s = settings();
    let f = lib.add(CLASSIC, "x.pdf");
    let original = lib.snapshot();
    let w1 = written(run(&lib, &f, meta("First", &["A B"]), &s, "run-1"));
    let md1 = fs::read(&w1.annotations[0]).unwrap();
    let after1 = lib.snapshot();
    // Second run: same name, new metadata → exports replaced.
    let f2 = PdfFile {
        path: w1.new_path.clone(),
        rel: PathBuf::from(w1.new_path.file_name().unwrap()),
        ..f.clone()
    };
    let mut m2 = meta("First", &["A B"]);
    m2.publisher = Some("Other House".into());
    let w2 = written(run(&lib, &f2, m2, &s, "run-2"));
    assert!(!w2.renamed && w2.metadata_updated);
    qpdf_check(&w2.new_path);
    assert_ne!(fs::read(&w2.annotations[0]).unwrap(), md1);

    let r2 = undo(&lib.cache, None).unwrap();
    assert_eq!(r2.run_id.as_deref(), Some("run-2"));
    assert_eq!(lib.snapshot(), after1);
    assert_eq!(
        fs::read(&w1.annotations[0]).unwrap(),
        md1,
        "replaced export put back"
    );
    let r1 = undo(&lib.cache, None).unwrap();
    assert_eq!(r1.run_id.as_deref(), Some("run-1"));
    assert_eq!(lib.snapshot(), original);
}

#[test]
fn names_at_the_limits() {
    let long: String = (0..100).map(|i| format!("Wort{i} ")).collect::<String>();
    let long = long[..600].trim_end().to_string();
    assert!(long.len() >= 599);
    let cjk: String = "数学分析教程第三版".repeat(20);
    let titles = [long.as_str(), cjk.as_str(), "TCP/IP: Who? Me: A \"Guide\""];
    for max in [250usize, 60] {
        let lib = Lib::new();
        let s = Settings {
            max_filename_length: max,
            ..settings()
        };
        for (i, t) in titles.iter().enumerate() {
            let f = lib.add(CLASSIC, &format!("d{i}/in.pdf"));
            let w = written(run(&lib, &f, meta(t, &["Kurt Gödel"]), &s, "r"));
            assert_eq!(w.new_path.parent(), f.path.parent(), "stays in its folder");
            for p in std::iter::once(&w.new_path).chain(&w.annotations) {
                let n = p.file_name().unwrap().to_str().unwrap();
                assert!(n.chars().count() <= max, "{n} > {max} chars");
                assert!(n.len() <= 255, "{n} > 255 bytes");
                assert!(p.exists());
            }
            let n = w.new_path.file_name().unwrap().to_str().unwrap();
            assert!(!n.contains(['/', ':', '?', '"']), "{n}");
            assert!(n.starts_with("Gödel - "), "{n}");
            qpdf_check(&w.new_path);
            // The Info title is the full title, not the shortened name.
            assert_eq!(pdfinfo(&w.new_path)["Title"], *t);
        }
    }
}

#[test]
fn collision_gets_a_number_and_nothing_is_overwritten() {
    let lib = Lib::new();
    let s = settings();
    let taken = lib.data.join("Lovelace - Same (1979).pdf");
    fs::write(&taken, b"someone else's file").unwrap();
    let a = lib.add(CLASSIC, "a.pdf");
    let b = lib.add(XREF_STREAM, "b.pdf");
    let wa = written(run(&lib, &a, meta("Same", &["Ada Lovelace"]), &s, "r"));
    let wb = written(run(&lib, &b, meta("Same", &["Ada Lovelace"]), &s, "r"));
    assert_eq!(wa.new_path, lib.data.join("Lovelace - Same (1979) (2).pdf"));
    assert_eq!(wb.new_path, lib.data.join("Lovelace - Same (1979) (3).pdf"));
    assert_eq!(fs::read(&taken).unwrap(), b"someone else's file");
    assert!(
        lib.data
            .join("Lovelace - Same (1979) (3)--ann.json")
            .exists()
    );
    // Rerun: each keeps its numbered name.
    for w in [&wa, &wb] {
        let f = PdfFile {
            path: w.new_path.clone(),
            rel: PathBuf::from(w.new_path.file_name().unwrap()),
            ignored: false,
            has_pdf_header: true,
        };
        assert!(matches!(
            run(&lib, &f, meta("Same", &["Ada Lovelace"]), &s, "r2"),
            WriteOutcome::Unchanged { .. }
        ));
    }
}

#[test]
fn encrypted_pdf_is_untouched() {
    // With a user password, and with an empty one (readable without a
    // password, still encrypted).
    for (user, src) in [("u", CLASSIC), ("", XREF_STREAM)] {
        let lib = Lib::new();
        let enc = lib.data.join("locked.pdf");
        let st = Command::new("qpdf")
            .args(["--encrypt", user, "o", "256", "--"])
            .arg(fixture(src))
            .arg(&enc)
            .status()
            .unwrap();
        assert!(st.success());
        let f = PdfFile {
            path: enc.clone(),
            rel: PathBuf::from("locked.pdf"),
            ignored: false,
            has_pdf_header: true,
        };
        let before = lib.snapshot();
        let out = run(&lib, &f, meta("T", &["A B"]), &settings(), "r");
        assert_eq!(
            out,
            WriteOutcome::Skipped(SkipReason::Refused(Refusal::Encrypted)),
            "user password {user:?}"
        );
        assert_eq!(lib.snapshot(), before);
    }
    assert!(
        SkipReason::Refused(Refusal::Encrypted)
            .to_string()
            .contains("encrypted")
    );
}

#[test]
fn signed_pdf_is_untouched() {
    use lopdf::dictionary;
    let lib = Lib::new();
    // A form with a signature field, saved by lopdf (a full rewrite is fine
    // for making a test input).
    let mut doc = lopdf::Document::load(fixture(CLASSIC)).unwrap();
    let field = doc.add_object(dictionary! {
        "FT" => "Sig",
        "T" => lopdf::Object::string_literal("Signature1"),
    });
    let root = doc.trailer.get(b"Root").unwrap().as_reference().unwrap();
    doc.get_dictionary_mut(root)
        .unwrap()
        .set("AcroForm", dictionary! { "Fields" => vec![field.into()] });
    let path = lib.data.join("signed.pdf");
    doc.save(&path).unwrap();
    let f = PdfFile {
        path: path.clone(),
        rel: PathBuf::from("signed.pdf"),
        ignored: false,
        has_pdf_header: true,
    };
    let before = lib.snapshot();
    let out = run(&lib, &f, meta("T", &["A B"]), &settings(), "r");
    assert_eq!(
        out,
        WriteOutcome::Skipped(SkipReason::Refused(Refusal::Signed))
    );
    assert_eq!(lib.snapshot(), before);
}

#[test]
fn policy_skips() {
    let lib = Lib::new();
    let f = lib.add(CLASSIC, "_ignore/x.pdf");
    let ignored = PdfFile {
        ignored: true,
        ..f.clone()
    };
    let before = lib.snapshot();
    let dry = Settings::default();
    assert_eq!(
        run(&lib, &f, meta("T", &["A B"]), &dry, "r"),
        WriteOutcome::Skipped(SkipReason::WriteDisabled)
    );
    assert_eq!(
        run(&lib, &ignored, meta("T", &["A B"]), &settings(), "r"),
        WriteOutcome::Skipped(SkipReason::Ignored)
    );
    // Even if the caller forgot the flag, the path says so.
    assert_eq!(
        run(&lib, &f, meta("T", &["A B"]), &settings(), "r"),
        WriteOutcome::Skipped(SkipReason::Ignored)
    );
    let g = lib.add(CLASSIC, "ok/y.pdf");
    assert_eq!(
        run(&lib, &g, meta("T", &[]), &settings(), "r"),
        WriteOutcome::Skipped(SkipReason::Incomplete)
    );
    // A record whose status says incomplete is not written either.
    let mut rec = record(&g, meta("T", &["A B"]));
    rec.status = Status::Incomplete;
    let s = settings();
    let job = WriteJob {
        file: &g,
        expected_hash: crate::fingerprint::hash_file_len(&g.path).unwrap().0,
        record: &rec,
        settings: &s,
        cache_dir: &lib.cache,
        run_id: "r",
    };
    assert_eq!(
        apply(&job).unwrap(),
        WriteOutcome::Skipped(SkipReason::Incomplete)
    );
    // The file changed since analysis.
    let rec = record(&g, meta("T", &["A B"]));
    let stale = WriteJob {
        expected_hash: DocHash([7; 32]),
        record: &rec,
        ..job
    };
    assert!(matches!(
        apply(&stale).unwrap(),
        WriteOutcome::Skipped(SkipReason::HashChanged { .. })
    ));
    #[cfg(unix)]
    {
        let link = lib.data.join("ok/link.pdf");
        std::os::unix::fs::symlink(&g.path, &link).unwrap();
        let lf = PdfFile {
            path: link,
            rel: PathBuf::from("ok/link.pdf"),
            ..g.clone()
        };
        assert_eq!(
            run(&lib, &lf, meta("T", &["A B"]), &settings(), "r"),
            WriteOutcome::Skipped(SkipReason::Symlink)
        );
        fs::remove_file(&lf.path).unwrap();
    }
    let mut expected = before.clone();
    expected.insert(
        "ok/y.pdf".into(),
        crate::fingerprint::hash_file_len(&g.path).unwrap().0.hex(),
    );
    assert_eq!(lib.snapshot(), expected);
    assert!(!lib.cache.join("journal").exists());
}

/// Interrupted writes, reproduced step by step, are settled by the next
/// run's cleanup: both names present → the new one wins (by hash); only
/// the original → abandoned; temp files gone.
#[test]
fn cleanup_settles_interrupted_writes() {
    let lib = Lib::new();
    let s = settings();
    let j = Journal::for_run(&lib.cache, "crash");

    // Case 1: new name created, old name not yet removed.
    let a = lib.add(CLASSIC, "a/orig.pdf");
    let a_copy = fs::read(&a.path).unwrap();
    let wa = written(run(&lib, &a, meta("Alpha", &["A B"]), &s, "crash"));
    fs::write(&a.path, &a_copy).unwrap(); // the old name back, as before the unlink
    let lines = fs::read_to_string(j.path()).unwrap();
    let cut: String = lines
        .lines()
        .filter(|l| !l.contains("\"done\""))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(j.path(), cut).unwrap();

    // Case 2: journaled, but killed before the rename; a temp file is left.
    let b = lib.add(XREF_STREAM, "b/orig.pdf");
    let leftover = lib.data.join("b").join(format!("{TEMP_PREFIX}abc"));
    fs::write(&leftover, b"%PDF-1.5 partial").unwrap();
    let hb = crate::fingerprint::hash_file_len(&b.path).unwrap().0.hex();
    j.record_write(&journal::WriteEntry {
        id: "b1".into(),
        run_id: "crash".into(),
        ts_ms: 1,
        old_path: b.path.clone(),
        new_path: lib.data.join("b/New.pdf"),
        temp_path: Some(leftover.clone()),
        old_hash: hb,
        new_hash: "ff".repeat(32),
        original_len: 1,
        new_len: 2,
        original_mtime: None,
        annotations: vec![],
    })
    .unwrap();
    // Case 3: a stray temp file no journal knows of, and one in an ignored dir.
    let stray = lib.data.join(format!("{TEMP_PREFIX}zzz"));
    fs::write(&stray, b"x").unwrap();
    fs::create_dir_all(lib.data.join("_ignore")).unwrap();
    let kept = lib.data.join("_ignore").join(format!("{TEMP_PREFIX}keep"));
    fs::write(&kept, b"x").unwrap();

    let rep = cleanup_leftovers(&lib.data, &lib.cache, &s).unwrap();
    assert!(rep.problems.is_empty(), "{rep:?}");
    assert_eq!(rep.completed, vec![wa.new_path.clone()]);
    assert_eq!(rep.abandoned, vec![b.path.clone()]);
    assert!(!a.path.exists() && wa.new_path.exists());
    assert!(b.path.exists() && !lib.data.join("b/New.pdf").exists());
    assert!(!leftover.exists() && !stray.exists());
    assert!(kept.exists(), "ignored directories are not touched");
    let states: Vec<State> = j.entries().unwrap().into_iter().map(|(_, s)| s).collect();
    assert_eq!(states, [State::Done, State::Abandoned]);
    // Settled entries are not looked at again.
    assert_eq!(
        cleanup_leftovers(&lib.data, &lib.cache, &s)
            .unwrap()
            .completed,
        Vec::<PathBuf>::new()
    );
    // And the completed write can be undone.
    let u = undo(&lib.cache, Some("crash")).unwrap();
    assert!(u.problems.is_empty(), "{u:?}");
    assert_eq!(fs::read(&a.path).unwrap(), a_copy);
}

// ---- kill test -----------------------------------------------------------

const KILL_ENV: &str = "COLOPHON_WRITE_KILL_TEST_DIR";
const KILL_FIXTURES: [&str; 3] = [CLASSIC, XREF_STREAM, CLASSIC_XMP];

fn kill_meta(i: usize) -> Metadata {
    meta(
        &format!("Killed Book {i}"),
        &["Ada Lovelace", "Charles Babbage"],
    )
}

/// Child process of `kill_at_random_points_never_damages_a_pdf`: writes
/// every PDF of `$COLOPHON_WRITE_KILL_TEST_DIR/data` in turn.
#[test]
#[ignore = "helper process, started by kill_at_random_points_never_damages_a_pdf"]
fn kill_child() {
    let Some(root) = std::env::var_os(KILL_ENV) else {
        return;
    };
    let root = PathBuf::from(root);
    let lib = Lib {
        _tmp: tempfile::tempdir().unwrap(),
        data: root.join("data"),
        cache: root.join("cache"),
    };
    let s = settings();
    for i in 0..KILL_FIXTURES.len() {
        let f = PdfFile {
            path: lib.data.join(format!("in{i}.pdf")),
            rel: PathBuf::from(format!("in{i}.pdf")),
            ignored: false,
            has_pdf_header: true,
        };
        written(run(&lib, &f, kill_meta(i), &s, "kill"));
    }
}

fn spawn_child(root: &Path) -> std::process::Child {
    Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "write::tests::kill_child",
            "--ignored",
            "--test-threads=1",
            "-q",
        ])
        .env(KILL_ENV, root)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap()
}

fn setup_kill_root() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    fs::create_dir_all(root.path().join("data")).unwrap();
    for (i, n) in KILL_FIXTURES.iter().enumerate() {
        fs::copy(fixture(n), root.path().join(format!("data/in{i}.pdf"))).unwrap();
    }
    root
}

#[test]
fn kill_at_random_points_never_damages_a_pdf() {
    // Expected results, from an uninterrupted run (writes are deterministic).
    let reference = setup_kill_root();
    let st = spawn_child(reference.path()).wait().unwrap();
    assert!(st.success());
    // How long an uninterrupted child takes (fastest of a few, warm), so
    // that kill times spread over the whole run rather than after it.
    let full = (0..3)
        .map(|_| {
            let r = setup_kill_root();
            let t0 = Instant::now();
            assert!(spawn_child(r.path()).wait().unwrap().success());
            t0.elapsed()
        })
        .min()
        .unwrap();
    let mut expect: Vec<(String, String, String, String)> = Vec::new(); // old name, old hash, new name, new hash
    for (i, n) in KILL_FIXTURES.iter().enumerate() {
        let new_name = crate::name::proposed_filename(&kill_meta(i), &settings()).unwrap();
        let new_path = reference.path().join("data").join(&new_name);
        qpdf_check(&new_path);
        expect.push((
            format!("in{i}.pdf"),
            crate::fingerprint::hash_file_len(&fixture(n))
                .unwrap()
                .0
                .hex(),
            new_name,
            crate::fingerprint::hash_file_len(&new_path)
                .unwrap()
                .0
                .hex(),
        ));
    }

    // The kill times are random, from a seed printed here (the harness shows
    // it with a failure) that `COLOPHON_KILL_SEED` replays: the same seed
    // kills at the same fractions of an uninterrupted run.
    let seed: u64 = match std::env::var("COLOPHON_KILL_SEED") {
        Ok(s) => s.parse().expect("COLOPHON_KILL_SEED is a number"),
        Err(_) => {
            let now = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap();
            (now.as_nanos() as u64 ^ u64::from(std::process::id())) | 1
        }
    };
    eprintln!(
        "kill test seed {seed} (replay: COLOPHON_KILL_SEED={seed} cargo test --lib kill_at_random_points)"
    );
    let mut state = seed.max(1); // xorshift stays at 0 forever
    let mut rnd = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let span = full.as_micros() as u64 + 1;
    let mut outcomes = BTreeMap::<usize, usize>::new(); // files written when killed → count
    let (mut temps_seen, mut both_names_seen) = (0, 0);
    const ROUNDS: usize = 30;
    for round in 0..ROUNDS {
        let root = setup_kill_root();
        let data = root.path().join("data");
        let original_listing: BTreeSet<String> = listing(&data);
        let mut child = spawn_child(root.path());
        std::thread::sleep(Duration::from_micros(rnd() % 1_000_000 * span / 1_000_000));
        let _ = child.kill(); // SIGKILL
        let _ = child.wait();

        // Right after the kill: every document is intact under at least one
        // name, and every *.pdf is either an original or a finished write.
        let valid: BTreeSet<&str> = expect
            .iter()
            .flat_map(|e| [e.1.as_str(), e.3.as_str()])
            .collect();
        for name in listing(&data) {
            if name.ends_with(".pdf") {
                let h = crate::fingerprint::hash_file_len(&data.join(&name))
                    .unwrap()
                    .0
                    .hex();
                assert!(
                    valid.contains(h.as_str()),
                    "seed {seed}, round {round}: {name} is damaged"
                );
                qpdf_check(&data.join(&name));
            }
        }
        for (old, oh, new, nh) in &expect {
            let old_ok = crate::fingerprint::hash_if_exists(&data.join(old))
                .unwrap()
                .map(|h| h.hex())
                == Some(oh.clone());
            let new_ok = crate::fingerprint::hash_if_exists(&data.join(new))
                .unwrap()
                .map(|h| h.hex())
                == Some(nh.clone());
            assert!(old_ok || new_ok, "seed {seed}, round {round}: {old} lost");
        }

        temps_seen += listing(&data)
            .iter()
            .filter(|n| n.starts_with(TEMP_PREFIX))
            .count();
        both_names_seen += expect
            .iter()
            .filter(|(old, _, new, _)| data.join(old).exists() && data.join(new).exists())
            .count();

        // The next run's cleanup leaves exactly one of the two.
        let rep = cleanup_leftovers(&data, &root.path().join("cache"), &settings()).unwrap();
        assert!(
            rep.problems.is_empty(),
            "seed {seed}, round {round}: {rep:?}"
        );
        let mut done = 0;
        for (old, _, new, _) in &expect {
            let (o, n) = (data.join(old).exists(), data.join(new).exists());
            assert!(o ^ n, "seed {seed}, round {round}: {old}: old {o}, new {n}");
            done += usize::from(n);
        }
        assert!(listing(&data).iter().all(|n| !n.starts_with(TEMP_PREFIX)));
        *outcomes.entry(done).or_default() += 1;

        // And undo brings the library back exactly.
        let u = undo(&root.path().join("cache"), None).unwrap();
        assert!(u.problems.is_empty(), "seed {seed}, round {round}: {u:?}");
        assert_eq!(
            listing(&data),
            original_listing,
            "seed {seed}, round {round}"
        );
        for (old, oh, _, _) in &expect {
            assert_eq!(
                &crate::fingerprint::hash_file_len(&data.join(old))
                    .unwrap()
                    .0
                    .hex(),
                oh
            );
        }
    }
    eprintln!(
        "kill test (seed {seed}): {ROUNDS} kills within {full:?}; files finished → rounds: {outcomes:?}; \
         temp files left: {temps_seen}; both names present: {both_names_seen}"
    );
}

fn listing(dir: &Path) -> BTreeSet<String> {
    fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect()
}

#[test]
fn file_without_final_newline_and_unusable_name() {
    let lib = Lib::new();
    let f = lib.add(CLASSIC, "keep-me.pdf");
    let mut bytes = fs::read(&f.path).unwrap();
    while bytes.last() == Some(&b'\n') {
        bytes.pop();
    }
    fs::write(&f.path, &bytes).unwrap();
    // A template whose result is sanitised away: the metadata is still
    // written, the name stays.
    let s = Settings {
        filename_template: "{title}".into(),
        ..settings()
    };
    let w = written(run(&lib, &f, meta("???", &["A B"]), &s, "r"));
    assert!(!w.renamed && w.metadata_updated);
    assert_eq!(w.new_path, f.path);
    let new = fs::read(&f.path).unwrap();
    assert!(new.starts_with(&bytes));
    qpdf_check(&f.path);
    assert_eq!(pdfinfo(&f.path)["Title"], "???");
}

#[test]
fn template_change_renames_without_touching_content() {
    let lib = Lib::new();
    let f = lib.add(XREF_STREAM, "x.pdf");
    let w1 = written(run(
        &lib,
        &f,
        meta("Tome", &["Ada Lovelace"]),
        &settings(),
        "r1",
    ));
    let content = fs::read(&w1.new_path).unwrap();
    let after1 = lib.snapshot();
    let s2 = Settings {
        filename_template: "{title} [{authors}]".into(),
        ..settings()
    };
    let f2 = PdfFile {
        path: w1.new_path.clone(),
        rel: PathBuf::from(w1.new_path.file_name().unwrap()),
        ..f.clone()
    };
    let w2 = written(run(&lib, &f2, meta("Tome", &["Ada Lovelace"]), &s2, "r2"));
    assert!(w2.renamed && !w2.metadata_updated);
    assert_eq!(w2.new_path, lib.data.join("Tome [Lovelace].pdf"));
    assert_eq!(w2.old_hash, w2.new_hash);
    assert_eq!(fs::read(&w2.new_path).unwrap(), content);
    assert!(!w1.new_path.exists());
    let u = undo(&lib.cache, None).unwrap();
    assert_eq!(u.run_id.as_deref(), Some("r2"));
    assert!(u.problems.is_empty(), "{u:?}");
    assert_eq!(lib.snapshot(), after1);
}

// ---- hostile file systems (issue 38) --------------------------------------

/// Files made immutable (`chattr +i`: neither root nor the owner may
/// remove, rename or replace them) for as long as the guard lives.
struct Immutable(Vec<PathBuf>);

impl Immutable {
    /// `None` where the flag cannot be set (not root, or a file system
    /// without it): the caller says it skipped.
    fn set(paths: &[&Path]) -> Option<Immutable> {
        let guard = Immutable(paths.iter().map(|p| p.to_path_buf()).collect());
        let set = Command::new("chattr")
            .arg("+i")
            .args(paths)
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        set.then_some(guard)
    }
}

impl Drop for Immutable {
    fn drop(&mut self) {
        let _ = Command::new("chattr").arg("-i").args(&self.0).status();
    }
}

fn skipped(what: &str) {
    eprintln!("skipped: `chattr +i` is not permitted here, so {what} cannot be built");
}

fn job<'a>(
    lib: &'a Lib,
    file: &'a PdfFile,
    rec: &'a Record,
    s: &'a Settings,
    run_id: &'a str,
) -> WriteJob<'a> {
    WriteJob {
        file,
        expected_hash: crate::fingerprint::hash_file_len(&file.path).unwrap().0,
        record: rec,
        settings: s,
        cache_dir: &lib.cache,
        run_id,
    }
}

fn states(lib: &Lib, run_id: &str) -> Vec<State> {
    Journal::for_run(&lib.cache, run_id)
        .entries()
        .unwrap()
        .into_iter()
        .map(|(_, s)| s)
        .collect()
}

/// Issue 38, 1: the old name of a renamed PDF cannot be removed. The
/// write used to leave its new copy beside the original, and every later
/// cleanup and undo stopped at "Operation not permitted" with no path.
#[test]
fn a_pdf_that_cannot_be_renamed_is_left_as_it_was_and_blocks_nothing() {
    let lib = Lib::new();
    let s = settings();
    let stuck = lib.add(CLASSIC, "shelf/stuck.pdf");
    let fine = lib.add(XREF_STREAM, "shelf/fine.pdf");
    let before = lib.snapshot();
    let Some(guard) = Immutable::set(&[&stuck.path]) else {
        return skipped("a PDF that cannot be renamed");
    };
    let rec = record(&stuck, meta("Stuck", &["Ada Lovelace"]));
    let err = apply(&job(&lib, &stuck, &rec, &s, "r")).unwrap_err();
    let msg = format!("{err:#}");
    assert!(
        msg.contains(&*stuck.path.to_string_lossy())
            && msg.contains("could not be removed")
            && msg.contains("is as it was"),
        "{msg}"
    );
    assert_eq!(lib.snapshot(), before, "no copy beside the original");
    assert_eq!(states(&lib, "r"), [State::Failed]);

    // The same run goes on with the next PDF.
    let w = written(run(
        &lib,
        &fine,
        meta("Fine", &["Charles Babbage"]),
        &s,
        "r",
    ));
    assert!(w.renamed && w.metadata_updated);
    // The next run's cleanup and the undo are not stopped.
    let c = cleanup_leftovers(&lib.data, &lib.cache, &s).unwrap();
    assert!(c.problems.is_empty() && c.completed.is_empty(), "{c:?}");
    let u = undo(&lib.cache, None).unwrap();
    assert!(u.problems.is_empty(), "{u:?}");
    assert_eq!(u.restored, [(w.new_path.clone(), fine.path.clone())]);
    assert_eq!(lib.snapshot(), before);
    drop(guard);
}

/// The same PDF keeps its name but cannot be replaced: nothing changes.
#[test]
fn a_pdf_that_cannot_be_replaced_is_left_as_it_was() {
    let lib = Lib::new();
    let s = settings();
    let f = lib.add(CLASSIC, "x.pdf");
    let w1 = written(run(&lib, &f, meta("Kept", &["Ada Lovelace"]), &s, "r1"));
    let f2 = PdfFile {
        path: w1.new_path.clone(),
        rel: PathBuf::from(w1.new_path.file_name().unwrap()),
        ..f.clone()
    };
    let after1 = lib.snapshot();
    let Some(guard) = Immutable::set(&[&f2.path]) else {
        return skipped("a PDF that cannot be replaced");
    };
    let mut m2 = meta("Kept", &["Ada Lovelace"]);
    m2.publisher = Some("Other House".into());
    let rec = record(&f2, m2);
    let msg = format!("{:#}", apply(&job(&lib, &f2, &rec, &s, "r2")).unwrap_err());
    assert!(
        msg.contains(&*f2.path.to_string_lossy()) && msg.contains("is as it was"),
        "{msg}"
    );
    assert_eq!(lib.snapshot(), after1);
    assert_eq!(states(&lib, "r2"), [State::Failed]);
    drop(guard);
    // The failed run has nothing to undo; the first one is undone.
    let u = undo(&lib.cache, None).unwrap();
    assert_eq!(u.run_id.as_deref(), Some("r1"), "{u:?}");
    assert!(u.problems.is_empty(), "{u:?}");
}

/// An annotation export that cannot be replaced fails the write after the
/// PDF was written and renamed: the write is taken back whole.
#[test]
fn an_export_that_cannot_be_written_takes_the_whole_write_back() {
    let lib = Lib::new();
    let s = settings();
    let f = lib.add(CLASSIC, "x.pdf");
    // The name the write will give, and an export already beside it.
    let m = meta("Blocked Export", &["Ada Lovelace"]);
    let name = name::numbered_filename(&m, &s, 1).unwrap();
    let stem = name.strip_suffix(name::PDF_EXT).unwrap();
    let (md, _) = annotation_paths(&lib.data, stem);
    fs::write(&md, "the user's notes").unwrap();
    let before = lib.snapshot();
    let Some(guard) = Immutable::set(&[&md]) else {
        return skipped("an export that cannot be replaced");
    };
    let rec = record(&f, m);
    let msg = format!("{:#}", apply(&job(&lib, &f, &rec, &s, "r")).unwrap_err());
    assert!(
        msg.contains(&*md.to_string_lossy()) && msg.contains("the write was taken back"),
        "{msg}"
    );
    assert_eq!(lib.snapshot(), before);
    assert_eq!(states(&lib, "r"), [State::Failed]);
    drop(guard);
    assert_eq!(fs::read_to_string(&md).unwrap(), "the user's notes");
}

/// Undo of a run where one written file cannot be removed: the others are
/// undone, that one is named and stays written (no second copy under its
/// old name), and a later undo finishes it.
#[test]
fn undo_goes_on_past_a_file_it_cannot_remove() {
    let lib = Lib::new();
    let s = settings();
    let a = lib.add(CLASSIC, "a.pdf");
    let b = lib.add(XREF_STREAM, "b.pdf");
    let c = lib.add(XREF_STREAM_NO_INFO, "c.pdf");
    let original = lib.snapshot();
    let wa = written(run(&lib, &a, meta("Alpha", &["A B"]), &s, "r"));
    let wb = written(run(&lib, &b, meta("Beta", &["C D"]), &s, "r"));
    let wc = written(run(&lib, &c, meta("Gamma", &["E F"]), &s, "r"));
    let written_state = lib.snapshot();
    let Some(guard) = Immutable::set(&[&wb.new_path]) else {
        return skipped("a written file that cannot be removed");
    };
    let u = undo(&lib.cache, None).unwrap();
    assert_eq!(u.problems.len(), 1, "{u:?}");
    assert!(
        u.problems[0].contains(&*wb.new_path.to_string_lossy()),
        "{u:?}"
    );
    assert_eq!(
        u.restored,
        [
            (wc.new_path.clone(), c.path.clone()),
            (wa.new_path.clone(), a.path.clone())
        ]
    );
    assert!(!b.path.exists(), "no restored copy beside the written file");
    let rel = |p: &Path| {
        p.strip_prefix(&lib.data)
            .unwrap()
            .to_string_lossy()
            .into_owned()
    };
    assert_eq!(
        lib.snapshot()[&rel(&wb.new_path)],
        written_state[&rel(&wb.new_path)]
    );
    assert_eq!(
        states(&lib, "r"),
        [State::Undone, State::Done, State::Undone]
    );
    // The same with a metadata-only undo over the file in place would be
    // refused the same way; here the file is freed and undone.
    drop(guard);
    let u = undo(&lib.cache, None).unwrap();
    assert!(u.problems.is_empty(), "{u:?}");
    assert_eq!(u.restored, [(wb.new_path.clone(), b.path.clone())]);
    assert_eq!(lib.snapshot(), original);
}

/// A kill between "new name made" and "old name removed", then the old
/// name cannot be removed: the next run takes the write back instead of
/// stopping with an error.
#[test]
fn an_interrupted_write_that_cannot_be_finished_is_taken_back() {
    let lib = Lib::new();
    let s = settings();
    let a = lib.add(CLASSIC, "a/orig.pdf");
    let copy = fs::read(&a.path).unwrap();
    let before = lib.snapshot();
    let other = lib.add(XREF_STREAM, "b/other.pdf");
    let wa = written(run(&lib, &a, meta("Alpha", &["A B"]), &s, "crash"));
    let wo = written(run(&lib, &other, meta("Other", &["C D"]), &s, "crash"));
    fs::write(&a.path, &copy).unwrap(); // the old name back, as before the unlink
    let j = Journal::for_run(&lib.cache, "crash");
    let first_id = j.entries().unwrap()[0].0.id.clone();
    let text: String = fs::read_to_string(j.path())
        .unwrap()
        .lines()
        .filter(|l| !(l.contains("\"done\"") && l.contains(&first_id)))
        .map(|l| format!("{l}\n"))
        .collect();
    fs::write(j.path(), text).unwrap();
    let Some(guard) = Immutable::set(&[&a.path]) else {
        return skipped("an old name that cannot be removed");
    };
    let rep = cleanup_leftovers(&lib.data, &lib.cache, &s).unwrap();
    assert!(rep.problems.is_empty(), "{rep:?}");
    assert_eq!(rep.abandoned, std::slice::from_ref(&a.path));
    assert!(
        rep.warnings
            .iter()
            .any(|w| w.contains(&*a.path.to_string_lossy()) && w.contains("taken back")),
        "{rep:?}"
    );
    assert!(!wa.new_path.exists() && a.path.exists());
    assert_eq!(states(&lib, "crash"), [State::Failed, State::Done]);
    // The undo of that run reverts the other write.
    let u = undo(&lib.cache, None).unwrap();
    assert!(u.problems.is_empty(), "{u:?}");
    assert_eq!(u.restored, [(wo.new_path.clone(), other.path.clone())]);
    drop(guard);
    let mut expected = before;
    expected.insert(
        "b/other.pdf".into(),
        crate::fingerprint::hash_bytes(&fs::read(fixture(XREF_STREAM)).unwrap()).hex(),
    );
    assert_eq!(lib.snapshot(), expected);
}

/// Issue 38, small: a kill during undo left its truncated copy of the PDF
/// in `data/`. Its name is fixed by the journal entry, so the next undo
/// deletes it (and finishes the undo).
#[test]
fn a_killed_undo_leaves_no_copy_behind_after_the_next_undo() {
    let lib = Lib::new();
    let s = settings();
    let f = lib.add(CLASSIC, "shelf/a.pdf");
    let original = lib.snapshot();
    let w = written(run(&lib, &f, meta("Alpha", &["A B"]), &s, "r"));
    let j = Journal::for_run(&lib.cache, "r");
    let (entry, _) = j.entries().unwrap().remove(0);
    // What a kill leaves after `undo-begin`: the copy, not yet renamed.
    j.record_undo_begin(&entry.id).unwrap();
    let leftover = undo::undo_temp_path(&entry);
    assert!(is_temp_file(&leftover));
    assert_eq!(leftover.parent(), f.path.parent());
    fs::write(&leftover, fs::read(fixture(CLASSIC)).unwrap()).unwrap();

    let u = undo(&lib.cache, None).unwrap();
    assert!(u.problems.is_empty(), "{u:?}");
    assert!(!leftover.exists());
    assert!(!w.new_path.exists());
    assert_eq!(lib.snapshot(), original);
}

/// An edited journal whose temporary file or annotation export names a
/// PDF never makes settling or undo delete that PDF.
#[test]
fn a_journal_naming_a_pdf_as_its_temporary_file_is_refused() {
    let lib = Lib::new();
    let s = settings();
    let victim = lib.add(CLASSIC, "victim.pdf");
    let before = lib.snapshot();
    let j = Journal::for_run(&lib.cache, "edited");
    let h = crate::fingerprint::hash_file_len(&victim.path)
        .unwrap()
        .0
        .hex();
    let entry = |id: &str, temp: Option<PathBuf>, ann: PathBuf| journal::WriteEntry {
        id: id.into(),
        run_id: "edited".into(),
        ts_ms: 1,
        old_path: lib.data.join("gone.pdf"),
        new_path: lib.data.join("also-gone.pdf"),
        temp_path: temp,
        old_hash: h.clone(),
        new_hash: h.clone(),
        original_len: 1,
        new_len: 1,
        original_mtime: None,
        annotations: vec![journal::AnnotationBackup {
            path: ann,
            previous_base64: None,
        }],
    };
    let ann = lib.data.join("x--ann.md");
    j.record_write(&entry("t", Some(victim.path.clone()), ann.clone()))
        .unwrap();
    j.record_write(&entry("a", None, victim.path.clone()))
        .unwrap();
    j.record_done("a").unwrap();
    let c = j.read().unwrap();
    assert!(c.entries.is_empty(), "{c:?}");
    assert!(
        c.refused[0].2.contains("not a colophon temporary file"),
        "{c:?}"
    );
    assert!(c.refused[1].2.contains("not an annotation export"), "{c:?}");
    let rep = cleanup_leftovers(&lib.data, &lib.cache, &s).unwrap();
    assert_eq!(rep.problems.len(), 1, "{rep:?}");
    let u = undo(&lib.cache, None).unwrap();
    assert!(
        u.problems
            .iter()
            .any(|p| p.contains("not an annotation export")),
        "{u:?}"
    );
    assert_eq!(lib.snapshot(), before);
}

/// Issue 38, small: names with newlines and escape sequences are escaped
/// in what undo prints, as in the run's table.
#[test]
fn undo_escapes_control_characters_in_file_names() {
    let lib = Lib::new();
    let s = settings();
    let f = lib.add(CLASSIC, "two\nlines\x1b[31m.pdf");
    let w = written(run(&lib, &f, meta("Alpha", &["A B"]), &s, "r"));
    let u = undo(&lib.cache, None).unwrap();
    assert_eq!(u.restored, [(w.new_path.clone(), f.path.clone())]);
    let lines = u.restored_lines();
    assert_eq!(lines.len(), 1);
    assert!(
        lines[0].ends_with("two\\nlines\\x1b[31m.pdf") && !lines[0].contains('\x1b'),
        "{lines:?}"
    );
    // A problem quoting such a name is escaped as well.
    let g = lib.add(CLASSIC, "again\n.pdf");
    let wg = written(run(&lib, &g, meta("Beta", &["A B"]), &s, "r2"));
    fs::write(&wg.new_path, b"edited by the user").unwrap();
    fs::write(&g.path, b"and the old name taken again").unwrap();
    let u = undo(&lib.cache, None).unwrap();
    assert_eq!(u.problems.len(), 1, "{u:?}");
    assert!(!u.problems[0].contains('\n'), "{u:?}");
}

/// A read-only folder (as a user without root meets it): the write fails
/// before it makes anything, names the folder, and the next write run's
/// cleanup and undo are not stopped. Root writes there all the same, so
/// there it is skipped (the immutable-file tests cover root).
#[test]
fn a_read_only_folder_fails_the_write_before_anything_is_made() {
    use std::os::unix::fs::PermissionsExt;
    let lib = Lib::new();
    let s = settings();
    let stuck = lib.add(CLASSIC, "ro/stuck.pdf");
    let fine = lib.add(XREF_STREAM, "fine.pdf");
    let before = lib.snapshot();
    let ro = lib.data.join("ro");
    let mode = |m| fs::set_permissions(&ro, fs::Permissions::from_mode(m)).unwrap();
    mode(0o555);
    if fs::write(ro.join("probe"), b"").is_ok() {
        fs::remove_file(ro.join("probe")).unwrap();
        mode(0o755);
        eprintln!("skipped: a read-only folder does not stop this user (root)");
        return;
    }
    let rec = record(&stuck, meta("Stuck", &["Ada Lovelace"]));
    let msg = format!(
        "{:#}",
        apply(&job(&lib, &stuck, &rec, &s, "r")).unwrap_err()
    );
    mode(0o755);
    assert!(msg.contains(&*ro.to_string_lossy()), "{msg}");
    assert_eq!(lib.snapshot(), before);
    let w = written(run(&lib, &fine, meta("Fine", &["C D"]), &s, "r"));
    let c = cleanup_leftovers(&lib.data, &lib.cache, &s).unwrap();
    assert!(c.problems.is_empty(), "{c:?}");
    let u = undo(&lib.cache, None).unwrap();
    assert!(u.problems.is_empty(), "{u:?}");
    assert_eq!(u.restored, [(w.new_path, fine.path.clone())]);
    assert_eq!(lib.snapshot(), before);
}
