//! Where a worker's time goes on born-digital pages: pdfium alone (load the
//! page and its text page) against colophon's whole `read_page` (glyphs,
//! lines, image coverage), over the first 8 pages of each file given, plus
//! a digest of everything read so that a speed-up can be checked to change
//! no page.
//!
//! ```text
//! cargo run --release --example time_reading -- FILE.pdf...
//! ```

use colophon::inspect::pdfium::{Document, pdfium};
use std::time::{Duration, Instant};

fn main() -> anyhow::Result<()> {
    let files: Vec<String> = std::env::args().skip(1).collect();
    let lib = pdfium()?;
    let (mut bare, mut full, mut open, mut info) = (
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
        Duration::ZERO,
    );
    let mut pages = 0u32;
    let mut digest = blake3::Hasher::new();
    for f in &files {
        let t = Instant::now();
        let doc = match lib.load_pdf_from_file(f, None) {
            Ok(doc) => doc,
            Err(e) => {
                eprintln!("{f}: {e:?} (left out)");
                continue;
            }
        };
        open += t.elapsed();
        let n = doc.pages().len().min(8);
        let t = Instant::now();
        for i in 0..n {
            let page = doc.pages().get(i)?;
            let text = page.text()?;
            std::hint::black_box(text.len());
        }
        bare += t.elapsed();
        drop(doc);
        let d = Document::open(std::path::Path::new(f))?;
        let t = Instant::now();
        let doc_info = std::hint::black_box(d.info());
        info += t.elapsed();
        digest.update(&postcard::to_allocvec(&doc_info)?);
        let t = Instant::now();
        let mut read = Vec::new();
        for i in 0..n as u32 {
            read.push(d.read_page(i)?);
        }
        full += t.elapsed();
        digest.update(&postcard::to_allocvec(&read)?);
        pages += n as u32;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / pages as f64;
    println!("{} files, {pages} pages", files.len());
    println!("open                 {:.3} ms/page", ms(open));
    println!("info                 {:.3} ms/page", ms(info));
    println!("pdfium page + text   {:.3} ms/page", ms(bare));
    println!("read_page            {:.3} ms/page", ms(full));
    println!("digest               {}", &digest.finalize().to_hex()[..16]);
    Ok(())
}
