//! The syntax layer of the quick reader (`inspect::quick::file`) against
//! `lopdf::Document` on the same work: open a file, find the pages the
//! pipeline reads (the first 8 and the last 2), decode their content
//! streams and resolve their fonts. One line per file (status, page count,
//! decoded content bytes, fonts, milliseconds) goes to stdout, so the two
//! modes' lines can be compared; CPU time and memory are measured from
//! outside (`/usr/bin/time`). `open` only opens files in the quick
//! reader (page count), `meta` opens files by lopdf's lazy path
//! (`Document::load_metadata_mem`: page count only). `parse` times the quick reader's lexer
//! against `lopdf::content::Content::decode` on the same content streams.
//! The figures and the decisions taken on them are in
//! `docs/history/performance.md` (2026-11-28, the reader on lopdf).
//!
//! ```text
//! cargo run --release --example lopdf_measure -- quick|lopdf|open|meta|parse FILE.pdf... > out.txt
//! ```

use colophon::inspect::quick::file::File;
use colophon::inspect::quick::object::Object;

/// The pages read of a document of `count` pages: the first 8, the last 2.
fn pages(count: u32) -> Vec<u32> {
    let mut v: Vec<u32> = (0..count.min(8)).collect();
    v.extend(count.saturating_sub(2).max(8)..count);
    v
}

fn quick(bytes: Vec<u8>) -> Result<(u32, usize, usize), String> {
    let file = File::open(bytes.into()).map_err(|e| e.why)?;
    let count = file.page_count();
    let (mut content, mut fonts) = (0, 0);
    for i in pages(count) {
        let page = file.page(i).map_err(|e| e.why)?;
        let streams = match file.get_in(&page.dict, b"Contents").map_err(|e| e.why)? {
            Some(Object::Stream(s)) => vec![Object::Stream(s)],
            Some(Object::Array(a)) => a.to_vec(),
            _ => Vec::new(),
        };
        for s in streams {
            if let Object::Stream(s) = file.resolve(&s).map_err(|e| e.why)? {
                content += file.decode(&s).map_err(|e| e.why)?.len();
            }
        }
        if let Some(f) = file.get_in(&page.resources, b"Font").map_err(|e| e.why)? {
            for (_, v) in f.as_dict().map(|d| d.entries.clone()).unwrap_or_default() {
                if file.resolve(&v).map_err(|e| e.why)?.as_dict().is_some() {
                    fonts += 1;
                }
            }
        }
    }
    Ok((count, content, fonts))
}

fn lopdf(bytes: Vec<u8>) -> Result<(u32, usize, usize), String> {
    let doc = lopdf::Document::load_mem(&bytes).map_err(|e| e.to_string())?;
    if doc.is_encrypted() {
        return Err("encrypted".into());
    }
    if let Some(r) = doc.xref_recovery {
        eprintln!("recovered {r:?}");
    }
    let all = doc.get_pages();
    let count = all.len() as u32;
    let (mut content, mut fonts) = (0, 0);
    for i in pages(count) {
        let id = all[&(i + 1)];
        content += doc
            .get_page_content_with_limit(id, 256 << 20)
            .map_err(|e| e.to_string())?
            .len();
        fonts += doc.get_page_fonts(id).map_err(|e| e.to_string())?.len();
    }
    Ok((count, content, fonts))
}

/// The content streams of the pages read, decoded by the quick reader.
fn contents(bytes: Vec<u8>) -> Vec<Vec<u8>> {
    let Ok(file) = File::open(bytes.into()) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for i in pages(file.page_count()) {
        let Ok(page) = file.page(i) else { continue };
        let streams = match file.get_in(&page.dict, b"Contents") {
            Ok(Some(Object::Stream(s))) => vec![Object::Stream(s)],
            Ok(Some(Object::Array(a))) => a.to_vec(),
            _ => Vec::new(),
        };
        for s in streams {
            if let Ok(Object::Stream(s)) = file.resolve(&s) {
                if let Ok(data) = file.decode(&s) {
                    out.push(data);
                }
            }
        }
    }
    out
}

/// Content streams parsed by the quick reader's lexer and by
/// `lopdf::content::Content::decode`: milliseconds each, and items.
fn parse(files: &[String]) {
    let all: Vec<Vec<u8>> = files
        .iter()
        .flat_map(|f| contents(std::fs::read(f).expect("readable")))
        .collect();
    let t = std::time::Instant::now();
    let mut ours = 0usize;
    for data in &all {
        let mut lx = colophon::inspect::quick::lexer::Lexer::new(data);
        while let Ok(Some(item)) = lx.item() {
            if matches!(item, colophon::inspect::quick::lexer::Item::Operator(b"BI")) {
                let _ = lx.inline_image();
            }
            ours += 1;
        }
    }
    let ours_ms = t.elapsed().as_secs_f64() * 1e3;
    let t = std::time::Instant::now();
    let (mut theirs, mut failed) = (0usize, 0usize);
    for data in &all {
        match lopdf::content::Content::decode(data) {
            Ok(c) => {
                theirs += c
                    .operations
                    .iter()
                    .map(|o| o.operands.len() + 1)
                    .sum::<usize>()
            }
            Err(_) => failed += 1,
        }
    }
    let theirs_ms = t.elapsed().as_secs_f64() * 1e3;
    let mb = all.iter().map(Vec::len).sum::<usize>() as f64 / 1e6;
    println!(
        "{} streams, {mb:.1} MB: lexer {ours_ms:.0} ms ({ours} items), lopdf {theirs_ms:.0} ms ({theirs} items, {failed} failed)",
        all.len()
    );
}

/// lopdf's lazy path: the cross-reference data and trailer, and the
/// objects the Info dictionary and page count need, read on demand.
fn meta(bytes: Vec<u8>) -> Result<(u32, usize, usize), String> {
    let meta = lopdf::Document::load_metadata_mem(&bytes).map_err(|e| e.to_string())?;
    Ok((meta.page_count, 0, 0))
}

/// The quick reader's open alone: cross-reference data, trailer, page count.
fn open(bytes: Vec<u8>) -> Result<(u32, usize, usize), String> {
    let file = File::open(bytes.into()).map_err(|e| e.why)?;
    Ok((file.page_count(), 0, 0))
}

fn main() {
    let mut args = std::env::args().skip(1);
    let mode = args.next().expect("quick, lopdf, open, meta or parse");
    if mode == "parse" {
        return parse(&args.collect::<Vec<_>>());
    }
    for f in args {
        let bytes = std::fs::read(&f).expect("readable");
        let t = std::time::Instant::now();
        let got = match mode.as_str() {
            "quick" => quick(bytes),
            "lopdf" => lopdf(bytes),
            "meta" => meta(bytes),
            "open" => open(bytes),
            _ => panic!("quick, lopdf, open, meta or parse"),
        };
        let ms = t.elapsed().as_secs_f64() * 1e3;
        match got {
            Ok((n, c, fonts)) => println!("{f}\tok\t{n}\t{c}\t{fonts}\t{ms:.2}"),
            Err(e) => println!("{f}\terr\t{}\t\t\t{ms:.2}", e.replace(['\n', '\t'], " ")),
        }
    }
}
