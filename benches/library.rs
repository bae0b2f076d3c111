//! Library-scale benches (issue 7, "speed at library scale"): whole runs of
//! [`colophon::pipeline::run`] over libraries built from the team corpus
//! (`../shared/corpus/pdfs`, or `COLOPHON_CORPUS`).
//!
//! A library is made of copies of the corpus PDFs that have a text layer
//! (born-digital; scanned ones would time Tesseract, not colophon), each
//! copy under its own name and with a PDF comment line
//! `%colophon-bench-<tag>-<n>` appended (PDF readers ignore it), so every
//! copy has its own hash and is new to the cache. Building libraries,
//! fresh cache folders and new files happens outside the timed part.
//!
//! - `library/cold`: a dry run with an empty cache, `--jobs 1` and `2`;
//! - `library/warm`: a rerun over an unchanged library;
//! - `library/incremental`: the same library plus 10 new PDFs;
//! - `vision/overlap`: pages sent to a fake backend that answers in 1 s
//!   with `VLM_CONCURRENCY = 4` (about pages / 4 seconds, not pages).
//!
//! - `real library`, when `PERF_LIBRARY` names a folder of real PDFs (the
//!   files of `../shared/wild/fetch.sh`, say): cold and warm runs at
//!   `--jobs 2` over `PERF_LIBRARY_FILES` (300) of them, every k-th by
//!   name, against `pdftotext -f 1 -l 8` over the same files two at a
//!   time. Different documents, not copies of a few: each brings its own
//!   fonts and structure. Throughput is PDFs per second; the pages read
//!   (for pages per second) are printed once. `scripts/perf.sh` gives the
//!   same figures over the whole folder, with peak memory.
//!
//! Worker processes run the `colophon` binary Cargo builds for benches
//! (`WORKER_EXECUTABLE` overrides it). Sizes are modest so that
//! `cargo bench --bench library` takes a few minutes; `scripts/perf.sh`
//! gives the figures at 10,000 files.

use colophon::fixtures::{fake_ollama, test_pdfs};

use colophon::cache::{Cache, CacheError};
use colophon::cli::RunOptions;
use colophon::exit::ExitStatus;
use colophon::inspect::{Document, PoolConfig, WorkerPool};
use colophon::pipeline::{self as run, Env, Paths, Selection};
use colophon::progress::Reporter;
use colophon::report::Summary;
use colophon::settings::Settings;
use criterion::{Criterion, SamplingMode, Throughput, criterion_group, criterion_main};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// Files of the cold runs (timed at `--jobs 1` and `--jobs 2`).
const COLD_FILES: usize = 100;
/// Files of the warm and incremental runs.
const WARM_FILES: usize = 1000;
/// New files of an incremental run.
const NEW_FILES: usize = 10;
/// Pages sent to the slow fake vision backend.
const VISION_PAGES: usize = 8;
/// Its answer time, and how many requests colophon keeps in flight.
const VISION_DELAY: Duration = Duration::from_secs(1);
const VLM_CONCURRENCY: usize = 4;

/// The team corpus when it is there, else the PDFs in tests/fixtures (a
/// fresh clone without ../shared still builds and runs every bench).
fn corpus_dir() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    std::env::var_os("COLOPHON_CORPUS")
        .map(PathBuf::from)
        .or_else(|| Some(root.join("../shared/corpus/pdfs")).filter(|p| p.is_dir()))
        .unwrap_or_else(|| root.join("tests/fixtures"))
}

fn worker_exe() -> PathBuf {
    std::env::var_os(colophon::inspect::pool::WORKER_EXE_KEY)
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_colophon")))
}

/// Corpus PDFs whose front pages all have a usable text layer (colophon's
/// own `needs_ocr` test), as (stem, bytes), by name.
fn text_sources() -> Vec<(String, Vec<u8>)> {
    let dir = corpus_dir();
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading the corpus {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "pdf"))
        .collect();
    paths.sort();
    let sources: Vec<_> = paths
        .into_iter()
        .filter(|p| {
            let Ok(doc) = Document::open(p) else {
                return false;
            };
            (0..doc.page_count().min(8)).all(|i| {
                doc.read_page(i)
                    .is_ok_and(|r| !colophon::ocr::needs_ocr(&r.text))
            })
        })
        .map(|p| {
            let stem = p.file_stem().unwrap().to_string_lossy().into_owned();
            (stem, std::fs::read(&p).unwrap())
        })
        .collect();
    assert!(!sources.is_empty(), "no text PDFs in {}", dir.display());
    sources
}

/// Writes copies `range` of `sources` (round robin) under `dir/dNNN/`,
/// 1000 per folder, each with its own appended comment line.
fn write_copies(
    dir: &Path,
    sources: &[(String, Vec<u8>)],
    range: std::ops::Range<usize>,
    tag: &str,
) {
    for n in range {
        let (stem, bytes) = &sources[n % sources.len()];
        let folder = dir.join(format!("d{:03}", n / 1000));
        std::fs::create_dir_all(&folder).unwrap();
        let mut data = bytes.clone();
        data.extend_from_slice(format!("\n%colophon-bench-{tag}-{n}\n").as_bytes());
        std::fs::write(folder.join(format!("{stem}-{n:05}.pdf")), data).unwrap();
    }
}

/// A project root whose `data` is a symlink to `library`.
fn project_on(library: &Path) -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(library, root.path().join("data")).unwrap();
    root
}

/// Reports nothing: the benches time the run, not the terminal.
struct Silent;

impl Reporter for Silent {
    fn files_total(&self, _: u64) {}
    fn file_done(&self) {}
    fn pages_done(&self, _: u64) {}
    fn vision_queue(&self, _: u64) {}
    fn message(&self, _: &str) {}
    fn finish(&self) {}
}

/// The project's cache, once the previous run in this process has let go
/// of it: sled releases its file lock when the last handle is gone, and a
/// handle can outlive the run for a moment in deferred cleanup on a rayon
/// thread (the hashing stage's). A CLI run is a process of its own and
/// never sees this.
fn open_cache(dir: &Path) -> Cache {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        match Cache::open(dir) {
            Ok(c) => return c,
            Err(CacheError::Locked(_)) if Instant::now() < deadline => {
                std::thread::sleep(Duration::from_millis(20));
            }
            Err(e) => panic!("opening the cache: {e}"),
        }
    }
}

/// One dry run of the project at `root`, as `colophon run --jobs N` does
/// it: opening the cache, starting workers, the run, flushing the cache.
fn run(root: &Path, settings: &Settings, jobs: usize) -> Summary {
    let (summary, status) = run_with_status(root, settings, jobs);
    assert_eq!(status, ExitStatus::Success, "{summary:?}");
    summary
}

/// [`run`], for libraries where some files may fail to read (real ones).
fn run_with_status(root: &Path, settings: &Settings, jobs: usize) -> (Summary, ExitStatus) {
    let paths = Paths {
        data_dir: root.join("data"),
        cache_dir: root.join("cache"),
    };
    let opts = RunOptions {
        jobs,
        json: false,
        rehash: false,
        retry_errors: false,
        quiet: true,
        approved: None,
        verbose: 0,
        shard: None,
        run_group: None,
    };
    let cache = open_cache(&paths.cache_dir);
    let pool = WorkerPool::new(PoolConfig {
        program: worker_exe(),
        ..PoolConfig::from_settings(settings, jobs)
    });
    let env = Env {
        paths: &paths,
        settings,
        opts: &opts,
        cache: &cache,
        sessions: &pool,
        reporter: &Silent,
    };
    run::run(&env, Selection::DataFolder, &mut std::io::sink()).unwrap()
}

fn library(c: &mut Criterion) {
    let sources = text_sources();
    let settings = Settings::default();
    let lib = tempfile::tempdir().unwrap();

    let mut g = c.benchmark_group("library");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1));

    // Cold: every sample a fresh project (empty cache) on the same files.
    let cold = lib.path().join("cold");
    write_copies(&cold, &sources, 0..COLD_FILES, "cold");
    g.throughput(Throughput::Elements(COLD_FILES as u64));
    for jobs in [1, 2] {
        g.measurement_time(Duration::from_secs(if jobs == 1 { 30 } else { 20 }));
        g.bench_function(format!("cold {COLD_FILES} PDFs, --jobs {jobs}"), |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let root = project_on(&cold);
                    let t = Instant::now();
                    let s = run(root.path(), &settings, jobs);
                    spent += t.elapsed();
                    assert_eq!(s.record_computed, COLD_FILES as u64);
                }
                spent
            })
        });
    }

    // Warm: one cold run first (not timed), then reruns.
    let warm = lib.path().join("warm");
    write_copies(&warm, &sources, 0..WARM_FILES, "warm");
    let root = project_on(&warm);
    run(root.path(), &settings, 2);
    g.throughput(Throughput::Elements(WARM_FILES as u64));
    g.measurement_time(Duration::from_secs(5));
    g.bench_function(format!("warm {WARM_FILES} PDFs, --jobs 2"), |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let t = Instant::now();
                let s = run(root.path(), &settings, 2);
                spent += t.elapsed();
                assert_eq!(s.record_cached, WARM_FILES as u64);
            }
            spent
        })
    });

    // Incremental: the warm library plus new files, added before and
    // removed after each timed run.
    g.throughput(Throughput::Elements((WARM_FILES + NEW_FILES) as u64));
    g.measurement_time(Duration::from_secs(10));
    let mut round = 0;
    g.bench_function(
        format!("incremental {WARM_FILES} + {NEW_FILES} new PDFs, --jobs 2"),
        |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    round += 1;
                    let new = warm.join(format!("new-{round}"));
                    write_copies(&new, &sources, 0..NEW_FILES, &format!("new-{round}"));
                    let t = Instant::now();
                    let s = run(root.path(), &settings, 2);
                    spent += t.elapsed();
                    assert_eq!(s.record_computed, NEW_FILES as u64);
                    assert_eq!(s.record_cached, WARM_FILES as u64);
                    std::fs::remove_dir_all(&new).unwrap();
                }
                spent
            })
        },
    );
    g.finish();
}

/// A one-page PDF with these lines of Helvetica: a title page whose
/// rendering differs from every other one (so no vision answer is cached).
fn text_pdf(path: &Path, lines: &[String]) {
    let placed: Vec<_> = (0..lines.len())
        .map(|i| (24.0, 72.0, 92.0 + 30.0 * i as f32, lines[i].as_str()))
        .collect();
    test_pdfs::SyntheticPdf::new().text_page(&placed).save(path);
}

fn vision(c: &mut Criterion) {
    let server = fake_ollama::FakeOllama::slow(VISION_DELAY, fake_ollama::NOT_VISIBLE_ANSWER);
    let lib = tempfile::tempdir().unwrap();
    for n in 0..VISION_PAGES {
        text_pdf(
            &lib.path().join(format!("vision-{n:02}.pdf")),
            &[
                format!("Collected Papers on Lighthouses, Volume {n}"),
                format!("Second Line of Book {n}"),
                "A. N. Author".to_string(),
            ],
        );
    }
    let settings = Settings {
        analyze_with_vision: true,
        vlm_endpoint: server.endpoint(),
        vlm_concurrency: VLM_CONCURRENCY,
        vlm_timeout: 30.0,
        ..Settings::default()
    };
    let mut g = c.benchmark_group("vision");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .measurement_time(Duration::from_secs(25))
        .throughput(Throughput::Elements(VISION_PAGES as u64));
    g.bench_function(
        format!("overlap {VISION_PAGES} pages, 1 s backend, VLM_CONCURRENCY {VLM_CONCURRENCY}"),
        |b| {
            b.iter_custom(|iters| {
                let mut spent = Duration::ZERO;
                for _ in 0..iters {
                    let root = project_on(lib.path());
                    let t = Instant::now();
                    let s = run(root.path(), &settings, 2);
                    spent += t.elapsed();
                    assert_eq!(s.vision_requests, VISION_PAGES as u64, "{s:?}");
                }
                spent
            })
        },
    );
    g.finish();
}

/// Real PDFs benched by default out of `PERF_LIBRARY`: ten cold runs of
/// 300 take a few minutes.
const REAL_FILES: usize = 300;

/// `PERF_LIBRARY_FILES` of the PDFs under `PERF_LIBRARY`, every k-th by
/// name (originals and their variants alike), or `None` when it is unset.
fn real_library() -> Option<Vec<PathBuf>> {
    let dir = PathBuf::from(std::env::var_os("PERF_LIBRARY")?);
    let want = std::env::var("PERF_LIBRARY_FILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(REAL_FILES)
        .max(1);
    let mut all: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading PERF_LIBRARY {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x.eq_ignore_ascii_case("pdf")))
        .collect();
    all.sort();
    assert!(!all.is_empty(), "no PDFs in PERF_LIBRARY {}", dir.display());
    let step = all.len().div_ceil(want);
    Some(all.into_iter().step_by(step).collect())
}

/// `pdftotext -f 1 -l 8` over `files`, `jobs` at a time.
fn pdftotext_all(files: &[PathBuf], jobs: usize) {
    let next = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|s| {
        for _ in 0..jobs {
            s.spawn(|| {
                while let Some(f) =
                    files.get(next.fetch_add(1, std::sync::atomic::Ordering::Relaxed))
                {
                    let _ = std::process::Command::new("pdftotext")
                        .args(["-q", "-f", "1", "-l", "8"])
                        .arg(f)
                        .arg("/dev/null")
                        .status();
                }
            });
        }
    });
}

fn real(c: &mut Criterion) {
    let Some(files) = real_library() else {
        eprintln!("real library: PERF_LIBRARY is not set, skipped");
        return;
    };
    let n = files.len();
    // The chosen files, linked into one folder: the library the runs see.
    let lib = tempfile::tempdir().unwrap();
    for f in &files {
        std::os::unix::fs::symlink(f, lib.path().join(f.file_name().unwrap())).unwrap();
    }
    let settings = Settings::default();
    let mut g = c.benchmark_group("real library");
    g.sampling_mode(SamplingMode::Flat)
        .sample_size(10)
        .warm_up_time(Duration::from_millis(1))
        .throughput(Throughput::Elements(n as u64));

    // One cold run first (not timed): it reads the files into the page
    // cache for every timed run alike, and counts the pages.
    let root = project_on(lib.path());
    let (s, _) = run_with_status(root.path(), &settings, 2);
    eprintln!(
        "real library: {n} PDFs, {} pages read by pdfium ({:.2} per PDF), {} OCRed, {} errors",
        s.pages_read,
        s.pages_read as f64 / n as f64,
        s.ocr_pages,
        s.errors
    );
    // About 50 ms a PDF, ten samples.
    g.measurement_time(Duration::from_millis(500 * n as u64));
    g.bench_function(format!("cold {n} PDFs, --jobs 2"), |b| {
        b.iter_custom(|iters| {
            let mut spent = Duration::ZERO;
            for _ in 0..iters {
                let root = project_on(lib.path());
                let t = Instant::now();
                let (s, _) = run_with_status(root.path(), &settings, 2);
                spent += t.elapsed();
                assert_eq!(s.record_cached, 0, "{s:?}");
            }
            spent
        })
    });
    if std::process::Command::new("pdftotext")
        .arg("-v")
        .output()
        .is_ok()
    {
        g.bench_function(
            format!("pdftotext -f 1 -l 8, {n} PDFs, two at a time"),
            |b| b.iter(|| pdftotext_all(&files, 2)),
        );
    } else {
        eprintln!("real library: pdftotext not found (poppler-utils), its bench skipped");
    }
    g.measurement_time(Duration::from_secs(5));
    g.bench_function(format!("warm {n} PDFs, --jobs 2"), |b| {
        b.iter(|| run_with_status(root.path(), &settings, 2))
    });
    g.finish();
}

criterion_group!(benches, library, vision, real);
criterion_main!(benches);
