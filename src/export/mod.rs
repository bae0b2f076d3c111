//! `colophon export`: a run's records in the formats of the user's other
//! tools: BibTeX and BibLaTeX (JabRef, Zotero, LaTeX), CSL-JSON (pandoc,
//! Zotero), RIS (every reference manager), CSV (spreadsheets) and
//! calibre's OPF.
//!
//! It works from `records.jsonl` of a finished run, never from the cache,
//! so what is exported is exactly what the run reported. Only confident
//! values go into the bibliographic fields; values below `MIN_CONFIDENCE`
//! (a record's `unsure`) are dropped, or with `--include-unsure` written
//! into the format's note field, saying they are unsure.
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
    Article,
    TechReport,
    Manual,
    Thesis,
    Misc,
}

impl Kind {
    /// Guessed from the confident fields: words of the title, subtitle or
    /// publisher first ("Technical Report", "Thesis", "User's Guide"),
    /// then the identifiers (an ISBN is a book, a DOI alone an article),
    /// then a publisher (a book).
    pub fn of(m: &Metadata) -> Kind {
        let text = [&m.title, &m.subtitle, &m.publisher]
            .iter()
            .filter_map(|v| v.as_deref())
            .collect::<Vec<_>>()
            .join(" ")
            .to_lowercase()
            .replace('’', "'");
        let has = |words: &[&str]| words.iter().any(|w| text.contains(w));
        if has(&["thesis", "dissertation"]) {
            Kind::Thesis
        } else if has(&[
            "technical report",
            "tech. rep",
            "research report",
            "working paper",
        ]) {
            Kind::TechReport
        } else if has(&[
            "manual",
            "user's guide",
            "users guide",
            "user guide",
            "reference guide",
        ]) {
            Kind::Manual
        } else if m.isbn.is_some() {
            Kind::Book
        } else if m.doi.is_some() {
            Kind::Article
        } else if m.publisher.is_some() {
            Kind::Book
        } else {
            Kind::Misc
        }
    }
}

/// What an export is made from.
#[derive(Debug, Clone)]
pub struct Options {
    /// Put values below `MIN_CONFIDENCE` into the note field.
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
    /// The confident values only.
    pub meta: &'a Metadata,
    pub authors: Vec<Person>,
    /// The unsure values, in words, when asked for.
    pub note: Option<String>,
    /// Where the PDF is now (its new name after a write).
    pub file: PathBuf,
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

/// The entries of the records that were read (error records have no
/// metadata and are left out), in path order, with unique keys. The
/// order makes the keys stable: the same records always get the same keys.
pub fn entries<'a>(records: &'a [Record], opts: &Options) -> Vec<Entry<'a>> {
    let mut read: Vec<&Record> = records
        .iter()
        .filter(|r| r.status != Status::Error)
        .collect();
    read.sort_by(|a, b| a.path.cmp(&b.path));
    let mut entries: Vec<Entry> = read
        .into_iter()
        .map(|r| {
            let authors: Vec<Person> = r.metadata.authors.iter().map(|a| names::split(a)).collect();
            Entry {
                record: r,
                key: base_key(&r.metadata, &authors),
                kind: Kind::of(&r.metadata),
                meta: &r.metadata,
                authors,
                note: opts
                    .include_unsure
                    .then(|| unsure_note(&r.unsure))
                    .flatten(),
                file: current_path(r, &opts.data_dir),
            }
        })
        .collect();
    // Clashing keys all get a letter, in path order: `smith2020a`, `smith2020b`.
    let mut count: HashMap<String, usize> = HashMap::new();
    for e in &entries {
        *count.entry(e.key.clone()).or_default() += 1;
    }
    let mut seen: HashMap<String, usize> = HashMap::new();
    for e in &mut entries {
        if count[&e.key] > 1 {
            let n = seen.entry(e.key.clone()).or_default();
            e.key = format!("{}{}", e.key, letters(*n));
            *n += 1;
        }
    }
    entries
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
/// wrote it (and renamed it), else where it was read.
pub fn current_path(r: &Record, data_dir: &Path) -> PathBuf {
    let read_at = data_dir.join(&r.path);
    if let (true, Some(name)) = (r.written, &r.proposed_filename) {
        let renamed = read_at.with_file_name(name);
        if renamed.exists() {
            return renamed;
        }
    }
    read_at
}

/// The single-file formats rendered to text. OPF (one file per PDF) is
/// [`write_opf`].
pub fn render(format: Format, records: &[Record], opts: &Options) -> Result<String> {
    let entries = entries(records, opts);
    Ok(match format {
        Format::Bibtex => bibtex::render(&entries, bibtex::Dialect::Bibtex),
        Format::Biblatex => bibtex::render(&entries, bibtex::Dialect::Biblatex),
        Format::CslJson => csl::render(&entries)?,
        Format::Ris => ris::render(&entries),
        Format::Csv => csv::render(records, &entries, opts)?,
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

/// Writes one calibre OPF per PDF; returns the files written.
pub fn write_opf(records: &[Record], opts: &Options, place: &OpfPlace) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    for e in entries(records, opts) {
        let rel_stem = Path::new(&e.record.path).with_extension("");
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
        fs::write(&path, opf::render(&e)).with_context(|| format!("writing {}", path.display()))?;
        written.push(path);
    }
    Ok(written)
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

/// `colophon export`: reads the run's records and writes the format.
/// Says on stderr what it wrote; returns the number of entries.
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
    if req.format == Format::Opf {
        let place = match (&req.output, settings.write_pdf_changes) {
            (Some(dir), _) => OpfPlace::Under(dir.clone()),
            (None, true) => OpfPlace::BesidePdf {
                fallback: run_dir.join("opf"),
                ignore_dir_name: settings.runtime_ignore_dir_name.clone(),
            },
            (None, false) => OpfPlace::Under(run_dir.join("opf")),
        };
        let written = write_opf(&records, &opts, &place)?;
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
    let text = render(req.format, &records, &opts)?;
    let n = match req.format {
        Format::Csv => records.len(),
        _ => entries(&records, &opts).len(),
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
    fn entry_kind_follows_the_document() {
        let mut m = meta("Weaving", &["A B"], Some(1972));
        assert_eq!(Kind::of(&m), Kind::Misc);
        m.publisher = Some("Millbrook".into());
        assert_eq!(Kind::of(&m), Kind::Book);
        m.publisher = None;
        m.doi = Some("10.1/x".into());
        assert_eq!(Kind::of(&m), Kind::Article);
        m.isbn = Some("9780876112038".into());
        assert_eq!(Kind::of(&m), Kind::Book);
        m.subtitle = Some("A PhD Thesis".into());
        assert_eq!(Kind::of(&m), Kind::Thesis);
        m.subtitle = Some("Technical Report 42".into());
        assert_eq!(Kind::of(&m), Kind::TechReport);
        m.subtitle = None;
        m.title = Some("GNU Make User’s Guide".into());
        assert_eq!(Kind::of(&m), Kind::Manual);
    }

    #[test]
    fn unsure_values_become_a_note_only_when_asked() {
        let mut r = record("a.pdf", meta("T", &["A B"], None));
        r.unsure.publisher = Some("Independently published".into());
        r.unsure.year = Some(1999);
        let recs = [r];
        assert_eq!(entries(&recs, &opts())[0].note, None);
        let with = Options {
            include_unsure: true,
            ..opts()
        };
        assert_eq!(
            entries(&recs, &with)[0].note.as_deref(),
            Some("Unsure (below MIN_CONFIDENCE): publisher: Independently published; year: 1999")
        );
    }

    #[test]
    fn error_records_have_no_entry() {
        let recs = [
            Record::error("bad.pdf".into(), None, "encrypted".into()),
            record("a.pdf", meta("T", &["A B"], None)),
        ];
        let e = entries(&recs, &opts());
        assert_eq!(e.len(), 1);
        assert_eq!(e[0].file, PathBuf::from("/lib/a.pdf"));
    }
}
