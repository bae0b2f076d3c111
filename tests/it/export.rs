//! `colophon export`, read back by the established readers of each format
//! (installed by scripts/setup.sh): pandoc (its BibTeX, BibLaTeX, CSL-JSON
//! and CSV readers, and citeproc rendering a bibliography), bibutils'
//! `ris2xml` and `biblatex2xml` (RIS and BibLaTeX to MODS), Python's `csv`
//! and `xml.etree` (CSV and OPF), and `biber --tool`'s datamodel
//! validation (BibLaTeX). Like every reader here, a missing biber fails
//! its test with the install hint rather than skipping it.

use crate::util::{self, TestProject};
use serde_json::{Value, json};
use std::path::Path;
use std::process::{Command, Stdio};

/// Runs an external reader on `input` (stdin), failing the test with a
/// hint when the reader is missing or refuses the input.
fn read_with(program: &str, args: &[&str], input: &[u8]) -> String {
    use std::io::Write;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{program} is needed (scripts/setup.sh installs it): {e}"));
    child.stdin.take().unwrap().write_all(input).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(
        out.status.success(),
        "{program} {args:?} refused the export: {}",
        util::stderr(&out)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn export(p: &TestProject, args: &[&str]) -> String {
    let out = p.cmd().arg("export").args(args).output().unwrap();
    assert!(
        out.status.success(),
        "export {args:?}: {}",
        util::stderr(&out)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// pandoc's reading of a bibliography, as CSL-JSON items by id.
fn pandoc_items(from: &str, text: &str) -> serde_json::Map<String, Value> {
    let json = read_with("pandoc", &["-f", from, "-t", "csljson"], text.as_bytes());
    let items: Vec<Value> = serde_json::from_str(&json).unwrap();
    items
        .into_iter()
        .map(|i| (i["id"].as_str().unwrap().to_string(), i))
        .collect()
}

/// The bibliography pandoc's citeproc renders from `file` (Chicago
/// author-date, pandoc's default), as plain text on one line.
fn citeproc(file: &Path) -> String {
    let doc = "---\nnocite: '@*'\n---\n";
    let bib = format!("--bibliography={}", file.display());
    let text = read_with(
        "pandoc",
        &["--citeproc", &bib, "-t", "plain", "--wrap=none"],
        doc.as_bytes(),
    );
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// A project whose latest run is the real run over three fixture PDFs
/// and a broken one.
fn real_run() -> TestProject {
    let p = TestProject::new();
    p.add("book-p03-asis.pdf", "books/weaving.pdf");
    p.add("book-p02-asis.pdf", "books/galley.pdf");
    p.add("paper_jss_stripped.pdf", "papers/zoo.pdf");
    p.add("encrypted_should_fail.pdf", "broken/locked.pdf");
    let out = p.cmd().args(["-q"]).output().unwrap();
    assert_eq!(out.status.code(), Some(1), "the encrypted PDF fails alone");
    p
}

#[test]
fn a_real_run_exports_to_every_format_and_the_readers_agree() {
    let p = real_run();
    let data = p.data().canonicalize().unwrap();
    let weaving = data.join("books/weaving.pdf");

    // BibTeX: pandoc reads it; only confident fields, the PDF linked.
    let bib = export(&p, &["--format", "bibtex"]);
    assert!(bib.contains("@book{thornquist1972weaving,"), "{bib}");
    assert!(
        bib.contains(&format!("file      = {{:{}:PDF}}", weaving.display())),
        "{bib}"
    );
    let items = pandoc_items("bibtex", &bib);
    assert_eq!(items.len(), 3, "errors are not exported: {items:#?}");
    let w = &items["thornquist1972weaving"];
    assert_eq!(w["type"], "book");
    assert_eq!(w["publisher"], "Millbrook Craft Books");
    assert_eq!(w["ISBN"], "9780876112038");
    assert_eq!(w["issued"], json!({"date-parts": [[1972]]}));
    assert_eq!(
        w["author"],
        json!([{"family": "Thornquist", "given": "Agnes"}, {"family": "Hume", "given": "Beatrice L."}])
    );
    // galley.pdf's publisher is below MIN_CONFIDENCE: left out, or in
    // the note when asked for.
    let g = &items["everardstroud2023recipes"];
    assert_eq!(g.get("publisher"), None, "{g}");
    assert_eq!(g.get("note"), None, "{g}");
    let with_unsure = export(&p, &["--format", "bibtex", "--include-unsure"]);
    let g = &pandoc_items("bibtex", &with_unsure)["everardstroud2023recipes"];
    assert_eq!(g.get("publisher"), None, "{g}");
    assert_eq!(
        g["note"],
        "Unsure (below MIN_CONFIDENCE): publisher: Independently published"
    );

    // CSL-JSON and BibLaTeX: citeproc renders the same bibliography from
    // both (BibTeX differs only in title case, which its styles own).
    let csl_file = p.root().join("lib.json");
    let out = p
        .cmd()
        .args(["export", "--format", "csl-json", "-o"])
        .arg(&csl_file)
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(
        util::stderr(&out).contains("exported 3 records"),
        "{}",
        util::stderr(&out)
    );
    let rendered = citeproc(&csl_file);
    assert!(
        rendered.contains(
            "Thornquist, Agnes, and Beatrice L. Hume. 1972. Weaving on Simple Looms: A Guide for Beginners and Teachers. Millbrook Craft Books."
        ),
        "{rendered}"
    );
    let biblatex_file = p.root().join("lib.bib");
    std::fs::write(&biblatex_file, export(&p, &["--format", "biblatex"])).unwrap();
    assert_eq!(citeproc(&biblatex_file), rendered);

    // RIS: bibutils reads names, title and identifiers.
    let ris = export(&p, &["--format", "ris"]);
    assert!(ris.contains("\r\nER  - \r\n"), "CR LF line ends: {ris:?}");
    let mods = read_with("ris2xml", &[], ris.as_bytes());
    assert_eq!(mods.matches("<mods ID=").count(), 3, "{mods}");
    assert!(
        mods.contains("<namePart type=\"family\">Thornquist</namePart>"),
        "{mods}"
    );
    assert!(
        mods.contains("<identifier type=\"isbn\">9780876112038</identifier>"),
        "{mods}"
    );
    assert!(
        mods.contains(&format!("{}</url>", weaving.display())),
        "{mods}"
    );

    // CSV: one row per PDF, the broken one included, read by Python's csv.
    let csv = export(&p, &["--format", "csv"]);
    let rows = read_with(
        "python3",
        &[
            "-c",
            "import csv,sys,json; print(json.dumps(list(csv.DictReader(sys.stdin))))",
        ],
        csv.as_bytes(),
    );
    let rows: Vec<Value> = serde_json::from_str(&rows).unwrap();
    assert_eq!(rows.len(), 4);
    let locked = rows
        .iter()
        .find(|r| r["path"] == "broken/locked.pdf")
        .unwrap();
    assert_eq!(locked["status"], "error");
    assert!(
        locked["error"].as_str().unwrap().contains("password"),
        "{locked}"
    );
    let weaving_row = rows
        .iter()
        .find(|r| r["path"] == "books/weaving.pdf")
        .unwrap();
    assert_eq!(weaving_row["authors"], "Agnes Thornquist; Beatrice L. Hume");
    assert_eq!(weaving_row["lccn"], "72081345");
    assert_eq!(weaving_row["key"], "thornquist1972weaving");
}

#[test]
fn opf_files_go_under_the_run_folder_in_a_dry_run_and_beside_the_pdfs_with_write() {
    let p = real_run();
    let out = p
        .cmd()
        .args(["export", "--format", "opf"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let run = std::fs::canonicalize(p.root().join("cache/runs/latest")).unwrap();
    let opf = run.join("opf/books/weaving.opf");
    assert!(opf.is_file(), "{}", util::stderr(&out));
    assert!(!p.data().join("books/weaving.opf").exists());
    assert!(
        !run.join("opf/broken/locked.opf").exists(),
        "no OPF without metadata"
    );
    let parsed = read_with(
        "python3",
        &[
            "-c",
            r#"
import sys, xml.etree.ElementTree as ET
ns = {"dc": "http://purl.org/dc/elements/1.1/", "opf": "http://www.idpf.org/2007/opf"}
m = ET.parse(sys.stdin).getroot().find("opf:metadata", ns)
print(m.find("dc:title", ns).text)
for c in m.findall("dc:creator", ns):
    print(c.text, "|", c.get("{http://www.idpf.org/2007/opf}file-as"))
for i in m.findall("dc:identifier", ns):
    print(i.get("{http://www.idpf.org/2007/opf}scheme"), i.text)
print(m.find("dc:date", ns).text)
"#,
        ],
        &std::fs::read(&opf).unwrap(),
    );
    let blake3 = blake3::hash(&std::fs::read(p.data().join("books/weaving.pdf")).unwrap());
    assert_eq!(
        parsed,
        format!(
            "Weaving on Simple Looms: A Guide for Beginners and Teachers\n\
             Agnes Thornquist | Thornquist, Agnes\n\
             Beatrice L. Hume | Hume, Beatrice L.\n\
             blake3 {}\n\
             ISBN 9780876112038\n\
             LCCN 72081345\n\
             1972-01-01T00:00:00+00:00\n",
            blake3.to_hex()
        )
    );

    // With --write (a write run first, which renames the PDF), beside
    // the PDF under its new name.
    let out = p.cmd().args(["-q", "--write"]).output().unwrap();
    util::assert_exit(&out, 1);
    let out = p
        .cmd()
        .args(["export", "--format", "opf", "--write"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let beside = p
        .data()
        .join("books/Thornquist, Hume - Weaving on Simple Looms (1972).opf");
    assert!(
        beside.is_file(),
        "{:?}",
        std::fs::read_dir(p.data().join("books"))
            .unwrap()
            .collect::<Vec<_>>()
    );
}

/// Records with what breaks exporters: LaTeX specials, accents,
/// particles, suffixes, organisations, CJK, inner capitals.
fn tricky_project() -> TestProject {
    let p = TestProject::new();
    let run = p.root().join("cache/runs/20260101-000000-1");
    std::fs::create_dir_all(&run).unwrap();
    std::os::unix::fs::symlink("20260101-000000-1", p.root().join("cache/runs/latest")).unwrap();
    let rec = |path: &str, m: Value| {
        let mut meta = json!({"title": null, "subtitle": null, "authors": [], "publisher": null,
            "year": null, "edition": null, "isbn": null, "doi": null, "loc": null});
        for (k, v) in m.as_object().unwrap() {
            meta[k] = v.clone();
        }
        json!({"path": path, "blake3": "ab".repeat(32), "pages": 10, "status": "complete",
            "error": null, "metadata": meta, "sources": {}, "pages_read": {"front": [1], "back": []},
            "vision": {"pages": [], "failed": []}, "proposed_filename": null, "written": false,
            "warnings": []})
    };
    let records = [
        rec(
            "a/accents.pdf",
            json!({"title": "Über die Möglichkeit", "subtitle": "Ça & 50% {braces} #1 $x_y ~^\\",
                "authors": ["Jürgen Müller", "Søren Kierkegaard", "Ludwig van Beethoven", "Martin Luther King Jr."],
                "publisher": "Éditions du Seuil & Fils", "year": 1999, "edition": "2",
                "isbn": "9780876112038"}),
        ),
        rec(
            "b/corp.pdf",
            json!({"title": "World Health Statistics", "authors": ["World Health Organization", "R Core Team"],
                "year": 2020, "publisher": "WHO Press"}),
        ),
        rec(
            "c/cjk.pdf",
            json!({"title": "ノルウェイの森", "authors": ["村上 春樹"], "year": 1987, "publisher": "講談社"}),
        ),
        rec(
            "d/article.pdf",
            json!({"title": "Deep Learning for NASA and LaTeX", "authors": ["Augustus De Morgan", "Jan van der Berg"],
                "year": 2015, "doi": "10.1000/xyz_123%4"}),
        ),
        rec(
            "e/thesis.pdf",
            json!({"title": "A Study of Looms", "subtitle": "PhD Thesis", "authors": ["Ann Smith"],
                "year": 2001, "publisher": "University of Leeds"}),
        ),
    ];
    let lines: Vec<String> = records.iter().map(|r| r.to_string()).collect();
    std::fs::write(run.join("records.jsonl"), lines.join("\n") + "\n").unwrap();
    p
}

/// A name as (family with particle, given) or a literal, whichever
/// particle field a reader put it in.
fn names(item: &Value) -> Vec<String> {
    item["author"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            if let Some(l) = a["literal"].as_str() {
                return l.to_string();
            }
            let particle = a["non-dropping-particle"]
                .as_str()
                .or(a["dropping-particle"].as_str());
            let family = a["family"].as_str().unwrap();
            let family = particle.map_or(family.to_string(), |p| format!("{p} {family}"));
            let mut s = family;
            for k in ["suffix", "given"] {
                if let Some(v) = a[k].as_str() {
                    s = format!("{s}, {v}");
                }
            }
            s
        })
        .collect()
}

#[test]
fn tricky_names_and_titles_round_trip_through_pandoc() {
    let p = tricky_project();
    let want_names = [
        (
            "muller1999uber",
            vec![
                "Müller, Jürgen",
                "Kierkegaard, Søren",
                "van Beethoven, Ludwig",
                "King, Jr., Martin Luther",
            ],
        ),
        (
            "world2020world",
            vec!["World Health Organization", "R Core Team"],
        ),
        ("anon1987", vec!["村上, 春樹"]),
        (
            "demorgan2015deep",
            vec!["De Morgan, Augustus", "van der Berg, Jan"],
        ),
        ("smith2001study", vec!["Smith, Ann"]),
    ];
    let title = "Über die Möglichkeit: Ça & 50% {braces} #1 $x_y ~^\\";
    for (format, reader) in [
        ("bibtex", "bibtex"),
        ("biblatex", "biblatex"),
        ("csl-json", "csljson"),
    ] {
        let text = export(&p, &["--format", format]);
        let items = pandoc_items(reader, &text);
        assert_eq!(items.len(), 5, "{format}: {items:#?}");
        for (key, want) in &want_names {
            assert_eq!(names(&items[*key]), *want, "{format} {key}");
        }
        let m = &items["muller1999uber"];
        // pandoc sentence-cases BibTeX and BibLaTeX titles (their styles
        // own the case); the characters themselves must survive.
        let got = m["title"].as_str().unwrap();
        if format != "csl-json" {
            assert_eq!(got.to_lowercase(), title.to_lowercase(), "{format}");
        } else {
            assert_eq!(got, title, "{format}");
        }
        assert_eq!(m["publisher"], "Éditions du Seuil & Fils", "{format}");
        assert_eq!(m["edition"], "2", "{format}");
        assert_eq!(m["type"], "book", "{format}");
        let a = &items["demorgan2015deep"];
        assert_eq!(a["DOI"], "10.1000/xyz_123%4", "{format}");
        assert_eq!(a["type"], "article-journal", "{format}");
        assert!(
            a["title"].as_str().unwrap().contains("NASA and LaTeX"),
            "{format}: inner capitals kept: {a}"
        );
        assert_eq!(items["smith2001study"]["type"], "thesis", "{format}");
        assert_eq!(items["anon1987"]["title"], "ノルウェイの森", "{format}");
        assert_eq!(items["anon1987"]["publisher"], "講談社", "{format}");
    }
    // BibTeX carries the accents as LaTeX, BibLaTeX as Unicode.
    let bibtex = export(&p, &["--format", "bibtex"]);
    assert!(bibtex.contains("M{\\\"u}ller, J{\\\"u}rgen"), "{bibtex}");
    assert!(
        bibtex.contains("{\\c{C}}a \\& 50\\% \\{braces\\}"),
        "{bibtex}"
    );
    assert!(export(&p, &["--format", "biblatex"]).contains("Müller, Jürgen"));

    // RIS through bibutils: family names with particles, given names,
    // the title with its special characters.
    let mods = read_with("ris2xml", &[], export(&p, &["--format", "ris"]).as_bytes());
    for part in [
        "<namePart type=\"family\">van Beethoven</namePart>",
        "<namePart type=\"family\">Müller</namePart>",
        "<namePart type=\"given\">Jürgen</namePart>",
        "<namePart type=\"suffix\">Jr.</namePart>",
        "<namePart type=\"family\">村上</namePart>",
        "<namePart type=\"given\">春樹</namePart>",
        "<title>Über die Möglichkeit</title>",
        "<subTitle>Ça &amp; 50% {braces} #1 $x_y ~^\\</subTitle>",
        "<identifier type=\"doi\">10.1000/xyz_123%4</identifier>",
    ] {
        assert!(mods.contains(part), "{part} in {mods}");
    }
    // BibLaTeX through bibutils too: a second, independent LaTeX reader.
    let mods = read_with(
        "biblatex2xml",
        &[],
        export(&p, &["--format", "biblatex"]).as_bytes(),
    );
    assert!(
        mods.contains("<namePart type=\"family\">van Beethoven</namePart>")
            || mods.contains("<namePart type=\"family\">Beethoven</namePart>"),
        "{mods}"
    );
    assert!(mods.contains("Éditions du Seuil &amp; Fils"), "{mods}");
}

#[test]
fn biber_validates_the_biblatex_export() {
    let p = tricky_project();
    let bib = p.root().join("lib.bib");
    std::fs::write(&bib, export(&p, &["--format", "biblatex"])).unwrap();
    let out = Command::new("biber")
        .args(["--tool", "--validate-datamodel", "--output-file"])
        .arg(p.root().join("out.bib"))
        .arg(&bib)
        .current_dir(p.root())
        .output()
        .unwrap_or_else(|e| panic!("biber is needed (scripts/setup.sh installs it): {e}"));
    let log = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "{log}");
    // The only warning allowed: an article's journal, which a PDF's front
    // matter does not give and which is left out rather than made up.
    let warnings: Vec<&str> = log
        .lines()
        .filter(|l| l.starts_with("WARN") && !l.contains("Missing mandatory field 'journaltitle'"))
        .filter(|l| !l.starts_with("WARN - WARNINGS"))
        .collect();
    assert!(warnings.is_empty(), "{log}");
    assert!(log.contains("Datamodel validation complete"), "{log}");
    assert!(!log.contains("ERROR"), "{log}");
}
