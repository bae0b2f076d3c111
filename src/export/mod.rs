//! `colophon export`: a run's records in the formats of the user's other
//! tools: BibTeX and BibLaTeX (JabRef, Zotero, LaTeX), CSL-JSON (pandoc,
//! Zotero), RIS (every reference manager), CSV (spreadsheets) and
//! calibre's OPF.
//!
//! It works from `records.jsonl` of a finished run, never from the cache,
//! so what is exported is exactly what the run reported. Only confident
//! values go into the bibliographic fields; values below `MIN_CONFIDENCE`
//! (a record's `unsure`) are dropped, or with `--include-unsure` written
//! into the format's note field, saying they are unsure. A record without
//! a sure title makes no usable reference ("2022."): it is left out and
//! counted, unless `--include-unsure`.
//!
//! A record's path is read back from disk (and a shard's may have been
//! edited): it becomes a file path only through
//! [`crate::util::relpath::library_relative`], so no export names or
//! writes a file outside the data folder or its output folder; a refused
//! record is left out with a message naming it.
//!
//! Every format is built from one [`Entry`] per PDF, so the entry type,
//! the citation key and the split of names are decided once.

mod bibtex;
mod csl;
mod csv;
pub mod names;
mod opf;
mod ris;

use crate::model::{Metadata, Record, Status};
use crate::util::relpath::library_relative;
use anyhow::{Context, Result, bail};
use names::Person;
use std::collections::HashMap;
use std::fs;
use std::path::{Path, PathBuf};

/// The export formats of `colophon export --format`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// BibTeX: LaTeX escapes, accents as `{\'e}`, other scripts braced.
    Bibtex,
    /// BibLaTeX (for biber): Unicode kept, `date`, `subtitle`.
    Biblatex,
    /// CSL-JSON: an array of CSL items (pandoc, Zotero).
    CslJson,
    /// RIS: tagged lines, one record per PDF.
    Ris,
    /// CSV: one row per PDF, errors included.
    Csv,
    /// calibre OPF: one file per PDF.
    Opf,
}

/// The kind of document, as the entry types of the formats need it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Book,
    /// A document with a DOI and no ISBN. colophon reads no journal name,
    /// so the formats that require one for an article (BibLaTeX's
    /// `@article` needs `journaltitle`) say less: see each format.
    Article,
    /// Distributed by an institution under a report number.
    TechReport,
    /// Documentation of a program, a package or an instrument.
    Manual,
    Thesis,
    Misc,
}

/// Words of a title, subtitle or publisher that make a document a manual.
const MANUAL_WORDS: &[&str] = &[
    "manual",
    "user's guide",
    "users guide",
    "users' guide",
    "user guide",
    "reference guide",
    "reference card",
    "documentation",
    "handbook",
    "instructions",
    "instruction",
    "handbuch",
    "benutzerhandbuch",
    "mode d'emploi",
    "manuel",
];

/// Words that say a document is a report whatever its numbering.
const REPORT_WORDS: &[&str] = &[
    "technical report",
    "tech. rep",
    "research report",
    "working paper",
    "technical memorandum",
    "technical note",
    "white paper",
];

/// Words of an issuing institution (the publisher of a report).
const INSTITUTION_WORDS: &[&str] = &[
    "university",
    "universitat",
    "universite",
    "universidad",
    "institute",
    "institut",
    "instituto",
    "laboratory",
    "laboratories",
    "lab",
    "center",
    "centre",
    "department",
    "agency",
    "office",
    "bureau",
    "commission",
    "council",
    "ministry",
    "administration",
    "school",
    "college",
    "academy",
    "foundation",
    "corporation",
    "survey",
];

impl Kind {
    /// Chosen from what was found, most specific first: a thesis by its
    /// words; an ISBN is a book; report words, or an institution as
    /// publisher with a report number in the title, a report; manual
    /// words ("manual", "user's guide", "documentation", "the X package")
    /// a manual; a DOI an article; a publisher a book.
    pub fn of(m: &Metadata) -> Kind {
        // Folded ("Manuál" reads as "manual", "Universität" as
        // "universitat"), so the word lists hold plain letters.
        let text = unaccented(
            &[&m.title, &m.subtitle, &m.publisher]
                .iter()
                .filter_map(|v| v.as_deref())
                .collect::<Vec<_>>()
                .join(" ")
                .replace('’', "'"),
        );
        let has = |words: &[&str]| words.iter().any(|w| contains_words(&text, w));
        let title = [&m.title, &m.subtitle]
            .iter()
            .filter_map(|v| v.as_deref())
            .collect::<Vec<_>>()
            .join(" ");
        let institution = m.publisher.as_deref().is_some_and(|p| {
            let p = unaccented(p);
            INSTITUTION_WORDS.iter().any(|w| contains_words(&p, w))
        });
        if has(&[
            "thesis",
            "dissertation",
            "doktorarbeit",
            "these de doctorat",
        ]) {
            Kind::Thesis
        } else if m.isbn.is_some() {
            Kind::Book
        } else if has(REPORT_WORDS) || (institution && has_report_number(&title)) {
            Kind::TechReport
        } else if has(MANUAL_WORDS) || names_a_package(&text) {
            Kind::Manual
        } else if m.doi.is_some() {
            Kind::Article
        } else if m.publisher.is_some() {
            Kind::Book
        } else {
            Kind::Misc
        }
    }
}

/// `s` in lower case without accents ("Manuál" → "manuál" → "manual"),
/// punctuation kept: what the word lists are matched against.
fn unaccented(s: &str) -> String {
    use unicode_normalization::UnicodeNormalization;
    s.nfd()
        .filter(|c| !unicode_normalization::char::is_combining_mark(*c))
        .collect::<String>()
        .to_lowercase()
}

/// `phrase` in `text` as whole words ("lab" not in "label").
fn contains_words(text: &str, phrase: &str) -> bool {
    let boundary = |c: Option<char>| c.is_none_or(|c| !c.is_alphanumeric());
    text.match_indices(phrase).any(|(i, _)| {
        boundary(text[..i].chars().next_back()) && boundary(text[i + phrase.len()..].chars().next())
    })
}

/// A report number in a title: "Report No. 12", "Report 2019-3",
/// "TR-2019-03", "Memo 42", "Note 7", "RR-1234" (a label followed by a
/// token with a digit).
fn has_report_number(title: &str) -> bool {
    let words: Vec<String> = title
        .split_whitespace()
        .map(|w| {
            w.trim_matches(|c: char| ",;:()[]".contains(c))
                .to_lowercase()
        })
        .collect();
    let digit = |w: &str| w.chars().any(|c| c.is_ascii_digit());
    let labelled = words.windows(2).any(|p| {
        matches!(
            p[0].as_str(),
            "report" | "memo" | "memorandum" | "note" | "paper" | "no." | "nr." | "number"
        ) && digit(&p[1])
    });
    // "TR-2019-03", "RR 1234", "CMU-CS-19-104": capitals, a dash, digits.
    let code = title.split_whitespace().any(|w| {
        let mut parts = w.split('-');
        let head = parts.next().unwrap_or("");
        (2..=5).contains(&head.len())
            && head.chars().all(|c| c.is_ascii_uppercase())
            && parts.any(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_digit()))
    });
    labelled || code
}

/// "The listings Package", "pgf package documentation", "Package 'zoo'":
/// the documentation of a software package.
fn names_a_package(text: &str) -> bool {
    contains_words(text, "package") || contains_words(text, "packages")
}

/// What an export is made from.
#[derive(Debug, Clone)]
pub struct Options {
    /// Export the entries without a sure title too, and put values below
    /// `MIN_CONFIDENCE` into the note field.
    pub include_unsure: bool,
    /// The data folder: the `file` fields hold absolute paths under it.
    pub data_dir: PathBuf,
}

/// One PDF, ready for any format.
#[derive(Debug, Clone)]
pub struct Entry<'a> {
    pub record: &'a Record,
    /// `lastnameYEARfirstword`, then `a`, `b`, … where two would clash.
    pub key: String,
    pub kind: Kind,
    /// The confident values only, each on one line (line breaks and other
    /// control characters folded to spaces: no format takes them).
    pub meta: Metadata,
    pub authors: Vec<Person>,
    /// The unsure values, in words, when asked for.
    pub note: Option<String>,
    /// Where the PDF is now (its new name after a write), under the data
    /// folder.
    pub file: PathBuf,
    /// The record's path relative to the data folder, normalised.
    pub rel: PathBuf,
}

impl Entry<'_> {
    /// "Title: Subtitle", for the formats without a subtitle field.
    pub fn full_title(&self) -> Option<String> {
        match (&self.meta.title, &self.meta.subtitle) {
            (Some(t), Some(s)) => Some(format!("{t}: {s}")),
            (Some(t), None) => Some(t.clone()),
            (None, Some(s)) => Some(s.clone()),
            (None, None) => None,
        }
    }
}

/// The entries of a run and what was left out of them.
#[derive(Debug, Clone, Default)]
pub struct Entries<'a> {
    pub entries: Vec<Entry<'a>>,
    /// Records whose path is refused (absolute, or leaving the data
    /// folder): one message each, naming the record.
    pub refused: Vec<String>,
    /// Records without a sure title, left out (without `--include-unsure`).
    pub untitled: usize,
}

/// A value on one line: line breaks, tabs and other control characters
/// become one space, and runs of spaces one.
pub fn one_line(s: &str) -> String {
    s.split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// `m` with every value on one line (see [`one_line`]); a value that is
/// only spaces is dropped.
fn one_line_meta(m: &Metadata) -> Metadata {
    let text = |v: &Option<String>| v.as_deref().map(one_line).filter(|v| !v.is_empty());
    Metadata {
        title: text(&m.title),
        subtitle: text(&m.subtitle),
        authors: m
            .authors
            .iter()
            .map(|a| one_line(a))
            .filter(|a| !a.is_empty())
            .collect(),
        publisher: text(&m.publisher),
        year: m.year,
        edition: text(&m.edition),
        isbn: text(&m.isbn),
        doi: text(&m.doi),
        loc: text(&m.loc),
    }
}

/// The entries of the records that were read (error records have no
/// metadata and are left out; so are records without a sure title unless
/// `include_unsure`, and records whose path is refused), in path order,
/// with unique keys. The order makes the keys stable: the same records
/// always get the same keys.
pub fn entries<'a>(records: &'a [Record], opts: &Options) -> Entries<'a> {
    let mut out = Entries::default();
    let mut read: Vec<&Record> = records
        .iter()
        .filter(|r| r.status != Status::Error)
        .collect();
    read.sort_by(|a, b| a.path.cmp(&b.path));
    for r in read {
        let (rel, file) = match located(r, &opts.data_dir) {
            Ok(v) => v,
            Err(why) => {
                out.refused.push(why);
                continue;
            }
        };
        let meta = one_line_meta(&r.metadata);
        if meta.title.is_none() && !opts.include_unsure {
            out.untitled += 1;
            continue;
        }
        let authors: Vec<Person> = meta.authors.iter().map(|a| names::split(a)).collect();
        out.entries.push(Entry {
            record: r,
            key: base_key(&meta, &authors),
            kind: Kind::of(&meta),
            authors,
            note: opts
                .include_unsure
                .then(|| unsure_note(&one_line_meta(&r.unsure)))
                .flatten(),
            meta,
            file,
            rel,
        });
    }
    // Clashing keys all get a letter, in path order: `smith2020a`, `smith2020b`.
    let mut count: HashMap<String, usize> = HashMap::new();
    for e in &out.entries {
        *count.entry(e.key.clone()).or_default() += 1;
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for e in &mut out.entries {
        if count[&e.key] > 1 {
            let n = seen.entry(e.key.clone()).or_default();
            e.key = format!("{}{}", e.key, letters(*n));
            *n += 1;
        }
    }
    out
}
/// a, b, …, z, aa, ab, …
fn letters(mut n: usize) -> String {
    let mut s = Vec::new();
    loop {
        s.push(b'a' + (n % 26) as u8);
        if n < 26 {
            break;
        }
        n = n / 26 - 1;
    }
    s.reverse();
    String::from_utf8(s).unwrap_or_default()
}

/// Articles and prepositions skipped for the key's title word.
const KEY_STOPWORDS: &[&str] = &[
    "a", "an", "the", "on", "of", "in", "to", "for", "and", "der", "die", "das", "le", "la", "les",
    "el", "il", "lo", "un", "une", "ein", "eine",
];

/// `lastnameYEARfirstword` in ASCII letters and digits: the first
/// author's family name (or "anon"), the year, the first significant
/// word of the title.
fn base_key(m: &Metadata, authors: &[Person]) -> String {
    let last = authors
        .first()
        .map(|p| match p {
            Person::Personal(p) => ascii_fold(&p.family),
            Person::Corporate(name) => ascii_fold(name.split(' ').next().unwrap_or("")),
        })
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "anon".to_string());
    let year = m.year.map(|y| y.to_string()).unwrap_or_default();
    let word = m
        .title
        .as_deref()
        .unwrap_or("")
        .split(|c: char| c.is_whitespace() || c == '-' || c == '/')
        .map(ascii_fold)
        .find(|w| !w.is_empty() && !KEY_STOPWORDS.contains(&w.as_str()))
        .unwrap_or_default();
    format!("{last}{year}{word}")
}

/// Lower-case ASCII letters and digits of `s`: the finders' fold
/// (accents dropped, ß → ss, ø → o), then what is not ASCII dropped.
pub(crate) fn ascii_fold(s: &str) -> String {
    crate::extract::layout::fold(s)
        .chars()
        .filter(char::is_ascii_alphanumeric)
        .collect()
}

/// "Unsure (below MIN_CONFIDENCE): publisher: …; authors: …", or `None`
/// when nothing is unsure.
pub fn unsure_note(u: &Metadata) -> Option<String> {
    let text = |name: &str, v: &Option<String>| v.as_ref().map(|v| format!("{name}: {v}"));
    let parts: Vec<String> = [
        text("title", &u.title),
        text("subtitle", &u.subtitle),
        (!u.authors.is_empty()).then(|| format!("authors: {}", u.authors.join("; "))),
        text("publisher", &u.publisher),
        u.year.map(|y| format!("year: {y}")),
        text("edition", &u.edition),
        text("isbn", &u.isbn),
        text("doi", &u.doi),
        text("lccn", &u.loc),
    ]
    .into_iter()
    .flatten()
    .collect();
    (!parts.is_empty()).then(|| format!("Unsure (below MIN_CONFIDENCE): {}", parts.join("; ")))
}

/// Where the PDF of `r` is now: under its proposed name when the run
/// wrote it (and renamed it), else where it was read. `Err` names the
/// record when its path is absolute or leaves the data folder (a record
/// is read back from disk, and a shard's may have been edited): no export
/// ever turns such a path into a file's.
pub fn current_path(r: &Record, data_dir: &Path) -> Result<PathBuf, String> {
    located(r, data_dir).map(|(_, file)| file)
}

/// The record's normalised path relative to the data folder, and where
/// its PDF is now (see [`current_path`]).
fn located(r: &Record, data_dir: &Path) -> Result<(PathBuf, PathBuf), String> {
    let rel = library_relative(&r.path).map_err(|e| {
        format!(
            "left out the record of {}: {e}",
            crate::util::escape::controls(&r.path)
        )
    })?;
    let read_at = data_dir.join(&rel);
    // The proposed name is one file name: anything with a folder in it
    // (or `..`) is not taken.
    let single_name = |n: &str| {
        library_relative(n).is_ok_and(|p| p.components().count() == 1) && !n.contains('/')
    };
    if let (true, Some(name)) = (r.written, &r.proposed_filename)
        && single_name(name)
    {
        let renamed = read_at.with_file_name(name);
        if renamed.exists() {
            return Ok((rel, renamed));
        }
    }
    Ok((rel, read_at))
}

/// The single-file formats rendered to text. OPF (one file per PDF) is
/// [`write_opf`].
pub fn render(format: Format, records: &[Record], opts: &Options) -> Result<String> {
    render_entries(format, records, &entries(records, opts), &opts.data_dir)
}

fn render_entries(
    format: Format,
    records: &[Record],
    e: &Entries,
    data_dir: &Path,
) -> Result<String> {
    let entries = &e.entries;
    Ok(match format {
        Format::Bibtex => bibtex::render(entries, bibtex::Dialect::Bibtex),
        Format::Biblatex => bibtex::render(entries, bibtex::Dialect::Biblatex),
        Format::CslJson => csl::render(entries)?,
        Format::Ris => ris::render(entries),
        Format::Csv => csv::render(records, e, data_dir)?,
        Format::Opf => bail!("OPF is one file per PDF: use write_opf"),
    })
}

/// Where `--format opf` puts the file of each PDF.
#[derive(Debug, Clone)]
pub enum OpfPlace {
    /// `<stem>.opf` beside the PDF (write mode), except under an ignored
    /// directory, whose files go to the fallback folder instead.
    BesidePdf {
        fallback: PathBuf,
        ignore_dir_name: String,
    },
    /// `<dir>/<relative stem>.opf`, mirroring the data tree.
    Under(PathBuf),
}

/// Writes one calibre OPF per entry of `entries`; returns the files
/// written. Every path is the entry's normalised one joined to a folder,
/// so none leaves it.
fn write_opf_entries(entries: &Entries, place: &OpfPlace) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for e in &entries.entries {
        let rel_stem = e.rel.with_extension("");
        let path = match place {
            OpfPlace::BesidePdf {
                fallback,
                ignore_dir_name,
            } => {
                let ignored = rel_stem
                    .components()
                    .any(|c| c.as_os_str() == ignore_dir_name.as_str());
                if ignored {
                    fallback.join(&rel_stem).with_extension("opf")
                } else {
                    e.file.with_extension("opf")
                }
            }
            OpfPlace::Under(dir) => dir.join(&rel_stem).with_extension("opf"),
        };
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).with_context(|| format!("creating {}", parent.display()))?;
        }
        fs::write(&path, opf::render(e)).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
}

/// Writes one calibre OPF per PDF; returns the files written.
pub fn write_opf(records: &[Record], opts: &Options, place: &OpfPlace) -> Result<Vec<PathBuf>> {
    write_opf_entries(&entries(records, opts), place)
}

/// What `colophon export` was asked for.
#[derive(Debug, Clone)]
pub struct Request {
    /// A run id under `cache/runs/`; the latest run when `None`.
    pub run_id: Option<String>,
    pub format: Format,
    /// `-o`: the file (for OPF the folder); stdout when `None`.
    pub output: Option<PathBuf>,
    pub include_unsure: bool,
}

/// The messages about what an export left out: each refused record, and
/// how many had no sure title (with the flag that brings them back).
fn left_out_messages(e: &Entries) -> Vec<String> {
    let mut lines: Vec<String> = e.refused.iter().map(|m| format!("colophon: {m}")).collect();
    if e.untitled > 0 {
        lines.push(format!(
            "colophon: left out {} record{} without a sure title (--include-unsure exports {} with the unsure values in a note)",
            e.untitled,
            if e.untitled == 1 { "" } else { "s" },
            if e.untitled == 1 { "it" } else { "them" },
        ));
    }
    lines
}

/// `colophon export`: reads the run's records and writes the format.
/// Says on stderr what it wrote and what it left out; returns the number
/// of entries.
pub fn command(
    cache_dir: &Path,
    data_dir: &Path,
    settings: &crate::settings::Settings,
    req: &Request,
) -> Result<usize> {
    let crate::runs::RunDir {
        id: run,
        path: run_dir,
    } = crate::runs::RunDir::find(cache_dir, req.run_id.as_deref())?;
    let records = read_records(&run_dir)?;
    let opts = Options {
        include_unsure: req.include_unsure,
        data_dir: data_dir.to_path_buf(),
    };
    let entries = entries(&records, &opts);
    // CSV lists every record (it is the library's spreadsheet, not a
    // bibliography), so only the refused paths are left out of it.
    let messages = match req.format {
        Format::Csv => entries
            .refused
            .iter()
            .map(|m| format!("colophon: {m}"))
            .collect(),
        _ => left_out_messages(&entries),
    };
    for m in &messages {
        eprintln!("{m}");
    }
    if req.format == Format::Opf {
        let place = match (&req.output, settings.write_pdf_changes) {
            (Some(dir), _) => OpfPlace::Under(dir.clone()),
            (None, true) => OpfPlace::BesidePdf {
                fallback: run_dir.join("opf"),
                ignore_dir_name: settings.runtime_ignore_dir_name.clone(),
            },
            (None, false) => OpfPlace::Under(run_dir.join("opf")),
        };
        let written = write_opf_entries(&entries, &place)?;
        let r#where = match &place {
            OpfPlace::BesidePdf { .. } => "beside the PDFs".to_string(),
            OpfPlace::Under(dir) => format!("under {}", dir.display()),
        };
        eprintln!(
            "colophon: wrote {} OPF files of run {run} {where}",
            written.len()
        );
        return Ok(written.len());
    }
    let text = render_entries(req.format, &records, &entries, data_dir)?;
    let n = match req.format {
        Format::Csv => records.len() - entries.refused.len(),
        _ => entries.entries.len(),
    };
    match &req.output {
        Some(path) => {
            fs::write(path, &text).with_context(|| format!("writing {}", path.display()))?;
            eprintln!(
                "colophon: exported {n} records of run {run} to {}",
                path.display()
            );
        }
        None => {
            use std::io::Write;
            let mut out = std::io::stdout().lock();
            match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
                Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {}
                r => r.context("writing to stdout")?,
            }
        }
    }
    Ok(n)
}

/// The records of a run folder.
pub fn read_records(run_dir: &Path) -> Result<Vec<Record>> {
    let path = run_dir.join("records.jsonl");
    let text = fs::read_to_string(&path).with_context(|| format!("reading {}", path.display()))?;
    text.lines()
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| {
            serde_json::from_str(l)
                .with_context(|| format!("reading {} line {}", path.display(), i + 1))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    pub(crate) fn record(path: &str, m: Metadata) -> Record {
        let mut r = Record::error(path.into(), Some("ab".repeat(32)), String::new());
        r.status = if m.is_complete() {
            Status::Complete
        } else {
            Status::Incomplete
        };
        r.error = None;
        r.metadata = m;
        r
    }

    fn meta(title: &str, authors: &[&str], year: Option<i32>) -> Metadata {
        Metadata {
            title: Some(title.into()),
            authors: authors.iter().map(|a| a.to_string()).collect(),
            year,
            ..Metadata::default()
        }
    }

    fn opts() -> Options {
        Options {
            include_unsure: false,
            data_dir: "/lib".into(),
        }
    }

    #[test]
    fn keys_are_lastname_year_word_and_unique_in_path_order() {
        let records = vec![
            record("z.pdf", meta("The Art of Loom", &["Ann Smith"], Some(2020))),
            record("a.pdf", meta("Art again", &["Bob Smith"], Some(2020))),
            record("m.pdf", meta("Über Bäume", &["Jürgen Müller"], None)),
            record("c.pdf", meta("村上", &["村上春樹"], Some(1987))),
            record(
                "d.pdf",
                meta("Ludwig", &["Ludwig van Beethoven"], Some(1810)),
            ),
        ];
        let keys: Vec<(String, String)> = entries(&records, &opts())
            .entries
            .iter()
            .map(|e| (e.record.path.clone(), e.key.clone()))
            .collect();
        assert_eq!(
            keys,
            [
                ("a.pdf".into(), "smith2020arta".into()),
                ("c.pdf".into(), "anon1987".into()),
                ("d.pdf".into(), "beethoven1810ludwig".into()),
                ("m.pdf".into(), "mulleruber".into()),
                ("z.pdf".into(), "smith2020artb".into()),
            ]
        );
        assert_eq!(letters(0), "a");
        assert_eq!(letters(25), "z");
        assert_eq!(letters(26), "aa");
        assert_eq!(letters(27), "ab");
    }

    #[test]
    fn entry_kind_follows_what_was_found() {
        let kind = |title: &str, f: &dyn Fn(&mut Metadata)| {
            let mut m = meta(title, &["A B"], Some(1972));
            f(&mut m);
            Kind::of(&m)
        };
        assert_eq!(kind("Weaving", &|_| {}), Kind::Misc);
        assert_eq!(
            kind("Weaving", &|m| m.publisher = Some("Millbrook".into())),
            Kind::Book
        );
        assert_eq!(
            kind("Weaving", &|m| m.doi = Some("10.1/x".into())),
            Kind::Article
        );
        // An ISBN is a book, even with a DOI or manual words.
        let isbn = |m: &mut Metadata| {
            m.isbn = Some("9780876112038".into());
            m.doi = Some("10.1/x".into());
        };
        assert_eq!(kind("Weaving", &isbn), Kind::Book);
        assert_eq!(kind("The Loom Manual", &isbn), Kind::Book);
        assert_eq!(
            kind("Weaving", &|m| m.subtitle = Some("A PhD Thesis".into())),
            Kind::Thesis
        );
        assert_eq!(
            kind("Weaving", &|m| m.subtitle =
                Some("Technical Report 42".into())),
            Kind::TechReport
        );
        // An institution and a report number; either alone is not enough.
        let lab = |m: &mut Metadata| m.publisher = Some("Loom Research Laboratory".into());
        assert_eq!(
            kind("Looms in the Field, Report No. 7", &lab),
            Kind::TechReport
        );
        assert_eq!(kind("Looms TR-2019-03", &lab), Kind::TechReport);
        assert_eq!(kind("Looms in the Field", &lab), Kind::Book);
        assert_eq!(
            kind("Looms in the Field, Report No. 7", &|m| m.publisher =
                Some("Millbrook".into())),
            Kind::Book
        );
        assert_eq!(kind("GNU Make User’s Guide", &|_| {}), Kind::Manual);
        assert_eq!(kind("The listings Package", &|_| {}), Kind::Manual);
        assert_eq!(kind("Manuál k CSTEXu", &|_| {}), Kind::Manual);
        assert_eq!(kind("Instructions for Form 8903", &|_| {}), Kind::Manual);
        let uni = |m: &mut Metadata| m.publisher = Some("Universität Wien".into());
        assert_eq!(
            kind("Looms, Band 7", &uni),
            Kind::Book,
            "no report number label"
        );
        assert_eq!(kind("Looms, Report 7", &uni), Kind::TechReport);
        assert_eq!(
            kind("Weaving", &|m| m.subtitle =
                Some("Documentation for version 3".into())),
            Kind::Manual
        );
        // Whole words only: a "label" is no "lab", "packaged" no package.
        assert_eq!(kind("Packaged Goods", &|_| {}), Kind::Misc);
        assert!(!contains_words("the label maker", "lab"));
    }

    #[test]
    fn refused_paths_and_untitled_records_are_left_out_and_counted() {
        let mut untitled = meta("x", &["A B"], Some(2022));
        untitled.title = None;
        let mut unsure = untitled.clone();
        unsure.year = None;
        let mut with_unsure = record("u.pdf", unsure);
        with_unsure.unsure.title = Some("Maybe\nThis".into());
        let recs = [
            record("../../../../../x.pdf", meta("T", &["A B"], None)),
            record("/etc/y.pdf", meta("T", &["A B"], None)),
            record("a/../b.pdf", meta("Kept", &["A B"], None)),
            record("t.pdf", untitled),
            with_unsure,
        ];
        let e = entries(&recs, &opts());
        let kept: Vec<&str> = e.entries.iter().map(|e| e.record.path.as_str()).collect();
        assert_eq!(kept, ["a/../b.pdf"]);
        assert_eq!(e.entries[0].file, PathBuf::from("/lib/b.pdf"));
        assert_eq!(e.untitled, 2);
        assert_eq!(e.refused.len(), 2);
        assert!(
            e.refused[0].contains("../../../../../x.pdf"),
            "{:?}",
            e.refused
        );
        assert!(
            e.refused[0].contains("leaves the library"),
            "{:?}",
            e.refused
        );
        let msgs = left_out_messages(&e);
        assert!(
            msgs[2].contains("left out 2 records without a sure title (--include-unsure"),
            "{msgs:?}"
        );

        let all = entries(
            &recs,
            &Options {
                include_unsure: true,
                ..opts()
            },
        );
        assert_eq!(all.entries.len(), 3);
        assert_eq!(all.untitled, 0);
        let u = all
            .entries
            .iter()
            .find(|e| e.record.path == "u.pdf")
            .unwrap();
        assert_eq!(
            u.note.as_deref(),
            Some("Unsure (below MIN_CONFIDENCE): title: Maybe This")
        );

        // A written record's proposed name is one file name, never a path.
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("new.pdf"), "").unwrap();
        std::fs::create_dir(dir.path().join("up")).unwrap();
        let mut r = record("up/old.pdf", meta("T", &["A B"], None));
        r.written = true;
        r.proposed_filename = Some("../new.pdf".into());
        assert_eq!(
            current_path(&r, dir.path()).unwrap(),
            dir.path().join("up/old.pdf")
        );
    }

    #[test]
    fn values_are_folded_onto_one_line() {
        assert_eq!(
            one_line("Title\nSecond\r\n line\tx\u{2028}y"),
            "Title Second line x y"
        );
        let m = one_line_meta(&meta("A\nB", &["Ann\nSmith", "\n"], None));
        assert_eq!(
            (m.title.as_deref(), m.authors),
            (Some("A B"), vec!["Ann Smith".to_string()])
        );
    }

    #[test]
    fn unsure_values_become_a_note_only_when_asked() {
        let mut r = record("a.pdf", meta("T", &["A B"], None));
        r.unsure.publisher = Some("Independently published".into());
        r.unsure.year = Some(1999);
        let recs = [r];
        assert_eq!(entries(&recs, &opts()).entries[0].note, None);
        let with = Options {
            include_unsure: true,
            ..opts()
        };
        assert_eq!(
            entries(&recs, &with).entries[0].note.as_deref(),
            Some("Unsure (below MIN_CONFIDENCE): publisher: Independently published; year: 1999")
        );
    }

    #[test]
    fn error_records_have_no_entry() {
        let recs = [
            Record::error("bad.pdf".into(), None, "encrypted".into()),
            record("a.pdf", meta("T", &["A B"], None)),
        ];
        let e = entries(&recs, &opts()).entries;
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].file, PathBuf::from("/lib/a.pdf"));
    }
}
