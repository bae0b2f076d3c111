//! Criterion benches of the hot paths, on real PDFs (tests/fixtures, copied
//! from the team corpus). Setup (reading PDFs, filling caches) happens
//! outside the timed closures.
//!
//! Run with `cargo bench --bench pipeline`.

use colophon::cache::{Cache, Tree, keys};
use colophon::inspect::Document;
use colophon::model::{DocHash, DocResult, DocText, PageText, PdfFile};
use colophon::settings::Settings;
use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use std::hint::black_box;
use std::path::{Path, PathBuf};

fn fixtures() -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    [
        "book-p03-asis.pdf",
        "book-p02-asis.pdf",
        "paper_jss_stripped.pdf",
        "write_xref_stream_objstm.pdf",
    ]
    .iter()
    .map(|n| dir.join(n))
    .collect()
}

/// The first 8 pages of each fixture, as the extract stage sees them.
fn page_texts() -> Vec<(Vec<PageText>, u32)> {
    fixtures()
        .iter()
        .map(|p| {
            let doc = Document::open(p).expect("fixture opens");
            let n = doc.page_count();
            let pages = (0..n.min(8))
                .map(|i| doc.read_page(i).expect("page reads").text)
                .collect();
            (pages, n)
        })
        .collect()
}

fn finders(c: &mut Criterion) {
    let docs = page_texts();
    let pages: usize = docs.iter().map(|(p, _)| p.len()).sum();
    let mut g = c.benchmark_group("extract");
    g.throughput(Throughput::Elements(pages as u64));
    g.bench_function("text_candidates+decide per page", |b| {
        b.iter(|| {
            for (p, n) in &docs {
                let cands = colophon::extract::text_candidates(&DocText {
                    pages: p,
                    page_count: *n,
                });
                black_box(colophon::decide::decide(&cands));
            }
        })
    });
    g.finish();
}

fn hashing(c: &mut Criterion) {
    let files = fixtures();
    let bytes: u64 = files
        .iter()
        .map(|f| std::fs::metadata(f).unwrap().len())
        .sum();
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::open(tmp.path()).unwrap();
    let pdfs: Vec<PdfFile> = files
        .iter()
        .map(|p| PdfFile {
            path: p.clone(),
            rel: p.file_name().unwrap().into(),
            ignored: false,
            has_pdf_header: true,
        })
        .collect();
    let mut g = c.benchmark_group("fingerprint");
    g.throughput(Throughput::Bytes(bytes));
    g.bench_function("blake3 mmap", |b| {
        b.iter(|| {
            for f in &files {
                black_box(colophon::fingerprint::hash_file(f).unwrap());
            }
        })
    });
    colophon::fingerprint::fingerprint(&pdfs, &cache, false);
    g.throughput(Throughput::Elements(pdfs.len() as u64));
    g.bench_function("stat memo hit", |b| {
        b.iter(|| black_box(colophon::fingerprint::fingerprint(&pdfs, &cache, false)))
    });
    g.finish();
}

fn cache_hit(c: &mut Criterion) {
    let tmp = tempfile::tempdir().unwrap();
    let cache = Cache::open(tmp.path()).unwrap();
    let settings = Settings::default();
    let versions = colophon::cache::keys::StageVersions::for_settings(&settings);
    let n = 1000u32;
    let keys: Vec<_> = (0..n)
        .map(|i| {
            let mut h = [0u8; 32];
            h[..4].copy_from_slice(&i.to_le_bytes());
            keys::record_key(&DocHash(h), &settings, &versions)
        })
        .collect();
    let value = DocResult {
        page_count: 300,
        ..DocResult::default()
    };
    for k in &keys {
        cache.put(Tree::Record, k, &value);
    }
    let mut g = c.benchmark_group("cache");
    g.throughput(Throughput::Elements(n as u64));
    g.bench_function("record hit", |b| {
        b.iter(|| {
            for k in &keys {
                black_box(cache.get::<DocResult>(Tree::Record, k));
            }
        })
    });
    g.finish();
}

fn one_document(c: &mut Criterion) {
    let path = fixtures()[0].clone();
    let mut g = c.benchmark_group("document");
    g.throughput(Throughput::Elements(1));
    g.bench_function("open, read 8 pages, extract, decide (in-process)", |b| {
        b.iter(|| {
            let doc = Document::open(&path).unwrap();
            let n = doc.page_count();
            let pages: Vec<_> = (0..n.min(8))
                .map(|i| doc.read_page(i).unwrap().text)
                .collect();
            let mut cands = colophon::extract::info_candidates(&doc.info().info);
            cands.extend(colophon::extract::text_candidates(&DocText {
                pages: &pages,
                page_count: n,
            }));
            black_box(colophon::decide::decide(&cands))
        })
    });
    g.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default().sample_size(20).measurement_time(std::time::Duration::from_secs(3));
    targets = finders, hashing, cache_hit, one_document
}
criterion_main!(benches);
