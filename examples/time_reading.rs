//! Where a worker's time goes on born-digital pages: pdfium alone (load the
//! page and its text page) against colophon's whole `read_page` (glyphs,
//! lines, image coverage), over the first 8 pages of each file given.
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
    for f in &files {
        let t = Instant::now();
        let doc = lib.load_pdf_from_file(f, None)?;
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
        std::hint::black_box(d.info());
        info += t.elapsed();
        let t = Instant::now();
        for i in 0..n as u32 {
            std::hint::black_box(d.read_page(i)?);
        }
        full += t.elapsed();
        pages += n as u32;
    }
    let ms = |d: Duration| d.as_secs_f64() * 1e3 / pages as f64;
    println!("{} files, {pages} pages", files.len());
    println!("open                 {:.3} ms/page", ms(open));
    println!("info                 {:.3} ms/page", ms(info));
    println!("pdfium page + text   {:.3} ms/page", ms(bare));
    println!("read_page            {:.3} ms/page", ms(full));
    Ok(())
}
