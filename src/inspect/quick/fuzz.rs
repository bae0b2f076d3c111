//! A fuzz harness for the quick reader that runs on the stable toolchain
//! (issue 38: `cargo fuzz` needs nightly, which cannot be installed here).
//!
//! Structured mutations of a seed corpus (the test fixtures and
//! `tests/fixtures/fuzz-seeds/`, small files of pdf.js's test corpus):
//! byte flips, truncations, spliced and deleted spans, odd numbers,
//! broken cross-reference data, and incremental updates that add what a
//! hostile file holds: 100,000-deep nesting, `/Prev` loops, page trees
//! that contain themselves, Flate and LZW bombs, a ToUnicode CMap that
//! expands to millions of codes, a direct font set again at every `Tf`.
//! Every case is read the way the worker reads a document (open, every
//! page's content, glyphs and images, the Info title), without the panic
//! guard of [`super::QuickDoc`], so that a panic is seen with its place.
//!
//! A case is fixed by `(campaign seed, case number)`, so a finding is
//! reproduced (and its input written out) from those two numbers. The
//! short run is a unit test (`fuzz::tests`); the long run is
//! `scripts/fuzz.sh` (`examples/fuzz_quick.rs`), which also bounds the
//! process's memory and the time of each case.

use super::{Unsupported, content, file, font, page};
use std::io::Write;
use std::path::PathBuf;
use std::sync::OnceLock;

/// Pages read at most per case: the mutations act on the first pages.
const MAX_PAGES: u32 = 8;

/// Object numbers of what an update adds (above any seed's own).
const NEW_OBJECTS: u32 = 40_000;

/// A small, fast, deterministic generator (xorshift64*): cases must be
/// the same on every machine and every run.
#[derive(Debug, Clone)]
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        // splitmix64 of the seed, so that nearby seeds diverge at once.
        let mut z = seed.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((z ^ (z >> 31)) | 1)
    }

    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }

    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// The seed corpus: the test fixtures and the fuzz seeds, by name.
pub fn seed_corpus() -> Vec<(String, Vec<u8>)> {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut seeds = Vec::new();
    for dir in [root.join("fuzz-seeds"), root] {
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(|e| Some(e.ok()?.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
            .collect();
        paths.sort();
        for p in paths {
            if let Ok(bytes) = std::fs::read(&p) {
                let name = p.file_name().unwrap_or_default().to_string_lossy().into();
                seeds.push((name, bytes));
            }
        }
    }
    seeds
}

/// The kinds of mutation, in the order [`mutate`] numbers them.
pub const KINDS: [&str; 13] = [
    "flip",
    "truncate",
    "splice",
    "odd-number",
    "broken-xref",
    "deep-nesting",
    "prev-loop",
    "self-page-tree",
    "flate-bomb",
    "lzw-bomb",
    "cmap-bomb",
    "direct-font-spam",
    "xref-stream-bomb",
];

/// One case of a campaign: the seed it came from, the mutation, the bytes.
pub struct Case {
    pub seed_name: String,
    pub kind: &'static str,
    pub bytes: Vec<u8>,
}

/// Case `number` of the campaign `campaign` over `seeds`.
pub fn case(seeds: &[(String, Vec<u8>)], campaign: u64, number: u64) -> Case {
    let mut rng = Rng::new(campaign.wrapping_mul(0x1_0000_0001).wrapping_add(number));
    let (name, base) = &seeds[rng.below(seeds.len())];
    let kind = rng.below(KINDS.len());
    let mut bytes = mutate(base, kind, &mut rng);
    // Now and then a second mutation over the first.
    if rng.below(4) == 0 {
        bytes = mutate(&bytes, rng.below(5), &mut rng);
    }
    Case {
        seed_name: name.clone(),
        kind: KINDS[kind],
        bytes,
    }
}

/// `base` mutated by the mutation `kind` (an index into [`KINDS`]).
pub fn mutate(base: &[u8], kind: usize, rng: &mut Rng) -> Vec<u8> {
    let mut out = base.to_vec();
    if out.is_empty() {
        out.extend_from_slice(b"%PDF-1.4\n");
    }
    match KINDS[kind % KINDS.len()] {
        "flip" => flip_bytes(&mut out, rng),
        "truncate" => out.truncate(1 + rng.below(out.len())),
        "splice" => splice_span(&mut out, rng),
        "odd-number" => odd_numbers(&mut out, rng),
        "broken-xref" => break_xref(&mut out, rng),
        "deep-nesting" => out = deep_nesting(&out, rng),
        "prev-loop" => out = prev_loop(&out, rng),
        "self-page-tree" => out = self_page_tree(&out, rng),
        "flate-bomb" => {
            let data = &bombs().flate;
            out = new_page_with_stream(&out, data, b"/Filter [/FlateDecode /FlateDecode]", rng);
        }
        "lzw-bomb" => {
            let data = &bombs().lzw;
            out = new_page_with_stream(&out, data, b"/Filter /LZWDecode", rng);
        }
        "cmap-bomb" => out = cmap_bomb_page(&out, rng),
        "direct-font-spam" => out = direct_font_spam(&out, rng),
        "xref-stream-bomb" => xref_stream_bomb(&mut out),
        other => unreachable!("{other}"),
    }
    out
}

/// Flips one bit of, or overwrites, up to 32 bytes.
fn flip_bytes(out: &mut [u8], rng: &mut Rng) {
    for _ in 0..1 + rng.below(32) {
        let at = rng.below(out.len());
        out[at] = if rng.below(2) == 0 {
            out[at] ^ (1 << rng.below(8))
        } else {
            rng.next_u64() as u8
        };
    }
}

/// Deletes a span of up to 4 KiB, or copies it elsewhere.
fn splice_span(out: &mut Vec<u8>, rng: &mut Rng) {
    let from = rng.below(out.len());
    let len = rng.below((out.len() - from).min(4096)) + 1;
    let span = out[from..from + len].to_vec();
    if rng.below(2) == 0 {
        out.drain(from..from + len);
    } else {
        let at = rng.below(out.len());
        out.splice(at..at, span);
    }
}

/// Replaces up to four numbers with ones at the edges of what readers
/// hold (negative, huge, fractional where an integer is due).
fn odd_numbers(out: &mut Vec<u8>, rng: &mut Rng) {
    const ODD: [&[u8]; 9] = [
        b"-1",
        b"0",
        b"4294967296",
        b"99999999999999999999",
        b"2147483647",
        b"1e308",
        b"-0.0",
        b"65535",
        b"3.5",
    ];
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len());
        let Some(start) = out[at..].iter().position(u8::is_ascii_digit) else {
            break;
        };
        let start = at + start;
        let end = start
            + out[start..]
                .iter()
                .position(|c| !c.is_ascii_digit())
                .unwrap_or(out.len() - start);
        out.splice(start..end, rng.pick(&ODD).iter().copied());
    }
}

/// `out` with 100,000-deep nesting of arrays, dictionaries or graphics
/// states added: in a new object, a page's resources or its content.
fn deep_nesting(out: &[u8], rng: &mut Rng) -> Vec<u8> {
    let depth = 100_000;
    let (open, close): (&[u8], &[u8]) = *rng.pick(&[
        (b"[".as_slice(), b"]".as_slice()),
        (b"<</A ", b">>"),
        (b"q ", b"Q "),
    ]);
    let mut deep = open.repeat(depth);
    if rng.below(2) == 0 {
        deep.extend(close.repeat(depth));
    }
    if open == b"q " {
        return new_page(out, &deep, b"", rng);
    }
    let mut obj = b"<< /Type /Pages /Kids [] /Count 0 /Deep ".to_vec();
    obj.extend(&deep);
    obj.extend(b" >>");
    let mut resources = b"<< /Font ".to_vec();
    resources.extend(&deep);
    resources.extend(b" >>");
    if rng.below(2) == 0 {
        update(out, &[(NEW_OBJECTS, obj)], NEW_OBJECTS, None)
    } else {
        new_page(out, b"BT /F1 9 Tf (a) Tj ET", &resources, rng)
    }
}

/// `out` with an update section whose `/Prev` points at itself (and
/// maybe a second one pointing back at it).
fn prev_loop(out: &[u8], rng: &mut Rng) -> Vec<u8> {
    let catalog = b"<< /Type /Catalog /Pages 2 0 R >>".to_vec();
    let mut out = update(out, &[(NEW_OBJECTS, catalog)], NEW_OBJECTS, Some(Prev::Own));
    if rng.below(2) == 0 {
        // A second section pointing back at the first, which points at
        // itself.
        let first = prev_of(&out);
        out = update(&out, &[], NEW_OBJECTS, Some(Prev::At(first)));
    }
    out
}

/// `out` with a new catalog whose page tree contains itself.
fn self_page_tree(out: &[u8], rng: &mut Rng) -> Vec<u8> {
    let n = NEW_OBJECTS;
    let pages = match rng.below(3) {
        0 => format!("<< /Type /Pages /Kids [{n} 0 R] /Count 3 >>"),
        1 => format!("<< /Type /Pages /Kids [{} 0 R {n} 0 R] /Count 9 >>", n + 1),
        _ => format!(
            "<< /Type /Pages /Kids [{} 0 R] /Count 1 /Parent {n} 0 R >>",
            n + 1
        ),
    };
    let kid = format!("<< /Type /Pages /Kids [{n} 0 R] /Parent {n} 0 R /Count 2 >>");
    let catalog = format!("<< /Type /Catalog /Pages {n} 0 R >>");
    update(
        out,
        &[
            (n, pages.into_bytes()),
            (n + 1, kid.into_bytes()),
            (n + 2, catalog.into_bytes()),
        ],
        n + 2,
        None,
    )
}

/// `out` with a new page that sets a direct font thousands of times.
fn direct_font_spam(out: &[u8], rng: &mut Rng) -> Vec<u8> {
    let shows = b"/F1 9 Tf 1 0 0 1 72 700 Tm (ab) Tj ".repeat(2000 + rng.below(8000));
    let mut content = b"BT ".to_vec();
    content.extend(shows);
    content.extend(b"ET");
    let resources = format!(
        "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Times-Roman \
         /Encoding /WinAnsiEncoding /FirstChar 32 /LastChar 126 /Widths [{}] >> >> >>",
        "444 ".repeat(95)
    );
    new_page(out, &content, resources.as_bytes(), rng)
}

/// Appends a cross-reference stream that is a Flate bomb.
fn xref_stream_bomb(out: &mut Vec<u8>) {
    let data = &bombs().flate;
    let at = out.len() + 1;
    let n = NEW_OBJECTS;
    let mut obj = format!(
        "{n} 0 obj\n<< /Type /XRef /Size {} /W [1 4 2] /Root 1 0 R /Length {} \
         /Filter [/FlateDecode /FlateDecode] >>\nstream\n",
        n + 1,
        data.len()
    )
    .into_bytes();
    obj.extend(data);
    obj.extend(format!("\nendstream\nendobj\nstartxref\n{at}\n%%EOF\n").into_bytes());
    out.push(b'\n');
    out.extend(obj);
}

/// Breaks the cross-reference data: its offset, its keyword, its
/// entries or its trailer.
fn break_xref(out: &mut Vec<u8>, rng: &mut Rng) {
    let find_last = |out: &[u8], what: &[u8]| out.windows(what.len()).rposition(|w| w == what);
    match rng.below(4) {
        0 => {
            if let Some(at) = find_last(out, b"startxref") {
                let num_at = at + b"startxref".len();
                let end = (num_at..out.len())
                    .find(|&i| out[i] == b'%')
                    .unwrap_or(out.len());
                let shifted = match rng.below(3) {
                    0 => (prev_of(out) as i64 + rng.below(64) as i64 - 32).max(0),
                    1 => rng.below(out.len() * 2) as i64,
                    _ => -5,
                };
                out.splice(num_at..end, format!("\n{shifted}\n").into_bytes());
            }
        }
        1 => {
            for word in [b"xref".as_slice(), b"trailer", b"obj"] {
                if let Some(at) = find_last(out, word) {
                    out[at] = out[at].to_ascii_uppercase();
                }
            }
        }
        2 => {
            // Entries pointing elsewhere: every offset of the last table
            // shifted by the same small amount.
            if let Some(at) = find_last(out, b"xref") {
                let delta = 1 + rng.below(9);
                let mut i = at;
                while i + 20 <= out.len() && !out[i..].starts_with(b"trailer") {
                    if out[i..i + 10].iter().all(u8::is_ascii_digit) && out[i + 10] == b' ' {
                        let v: usize = std::str::from_utf8(&out[i..i + 10])
                            .ok()
                            .and_then(|s| s.parse().ok())
                            .unwrap_or(0);
                        let new = format!("{:010}", v + delta);
                        out.splice(i..i + 10, new.bytes());
                        i += 20;
                    } else {
                        i += 1;
                    }
                }
            }
        }
        _ => {
            if let Some(at) = find_last(out, b"/Root") {
                out.splice(at..at + 5, b"/Rot".iter().copied());
            }
        }
    }
}

/// Where the last `startxref` points, 0 when there is none.
fn prev_of(bytes: &[u8]) -> usize {
    let Some(at) = bytes.windows(9).rposition(|w| w == b"startxref") else {
        return 0;
    };
    let digits: String = bytes[at + 9..]
        .iter()
        .skip_while(|c| c.is_ascii_whitespace())
        .take_while(|c| c.is_ascii_digit())
        .map(|&c| c as char)
        .collect();
    digits.parse().unwrap_or(0)
}

/// Where an update's `/Prev` points.
enum Prev {
    /// Its own cross-reference section (a loop of one).
    Own,
    At(usize),
}

/// `base` with an incremental update: `objects` (number, body), a
/// cross-reference table for them and a trailer with `/Root root`.
fn update(base: &[u8], objects: &[(u32, Vec<u8>)], root: u32, prev: Option<Prev>) -> Vec<u8> {
    let old = prev_of(base);
    let mut out = base.to_vec();
    out.push(b'\n');
    let mut offsets = Vec::new();
    for (num, body) in objects {
        offsets.push((*num, out.len()));
        out.extend(format!("{num} 0 obj\n").into_bytes());
        out.extend(body);
        out.extend(b"\nendobj\n");
    }
    let xref_at = out.len();
    out.extend(b"xref\n0 1\n0000000000 65535 f \n");
    for (num, at) in &offsets {
        out.extend(format!("{num} 1\n{at:010} 00000 n \n").into_bytes());
    }
    let prev = match prev {
        None => old,
        Some(Prev::Own) => xref_at,
        Some(Prev::At(at)) => at,
    };
    let size = objects.iter().map(|(n, _)| n + 1).max().unwrap_or(1);
    out.extend(
        format!(
            "trailer\n<< /Size {size} /Root {root} 0 R /Prev {prev} >>\nstartxref\n{xref_at}\n%%EOF\n"
        )
        .into_bytes(),
    );
    out
}

/// A stream object's body.
fn stream(dict_extra: &[u8], data: &[u8]) -> Vec<u8> {
    let mut body = format!("<< /Length {} ", data.len()).into_bytes();
    body.extend(dict_extra);
    body.extend(b" >>\nstream\n");
    body.extend(data);
    body.extend(b"\nendstream");
    body
}

/// `base` updated to a document of one new page drawing `content`, with
/// `resources` (a dictionary; a Helvetica /F1 when empty).
fn new_page(base: &[u8], content: &[u8], resources: &[u8], rng: &mut Rng) -> Vec<u8> {
    new_page_objects(base, stream(b"", content), resources, Vec::new(), rng)
}

/// [`new_page`] whose content stream has `data` under the filters given
/// in `dict_extra`.
fn new_page_with_stream(base: &[u8], data: &[u8], dict_extra: &[u8], rng: &mut Rng) -> Vec<u8> {
    new_page_objects(base, stream(dict_extra, data), b"", Vec::new(), rng)
}

fn new_page_objects(
    base: &[u8],
    content: Vec<u8>,
    resources: &[u8],
    mut more: Vec<(u32, Vec<u8>)>,
    rng: &mut Rng,
) -> Vec<u8> {
    let n = NEW_OBJECTS;
    let resources = if resources.is_empty() {
        b"<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >>".to_vec()
    } else {
        resources.to_vec()
    };
    let mut page = format!(
        "<< /Type /Page /Parent {} 0 R /MediaBox [0 0 612 792] ",
        n + 1
    )
    .into_bytes();
    page.extend(b"/Resources ");
    page.extend(resources);
    page.extend(format!(" /Contents {} 0 R >>", n + 3).into_bytes());
    let mut objects = vec![
        (
            n,
            format!("<< /Type /Catalog /Pages {} 0 R >>", n + 1).into_bytes(),
        ),
        (
            n + 1,
            format!("<< /Type /Pages /Kids [{} 0 R] /Count 1 >>", n + 2).into_bytes(),
        ),
        (n + 2, page),
        (n + 3, content),
    ];
    objects.append(&mut more);
    // Sometimes the objects come in another order.
    if rng.below(2) == 0 {
        objects.reverse();
    }
    update(base, &objects, n, None)
}

/// A page in a font whose ToUnicode CMap has 5,000 ranges of 256 codes
/// (1.28 million codes entered; a few kilobytes of Flate).
fn cmap_bomb_page(base: &[u8], rng: &mut Rng) -> Vec<u8> {
    let n = NEW_OBJECTS;
    let ranges = 3000 + rng.below(4000);
    let mut cmap = format!("{ranges} beginbfrange\n").into_bytes();
    for _ in 0..ranges {
        cmap.extend(b"<0000> <00FF> <00660066>\n");
    }
    cmap.extend(b"endbfrange\n");
    let resources = format!(
        "<< /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica \
         /FirstChar 32 /LastChar 126 /Widths [{}] /ToUnicode {} 0 R >> >> >>",
        "500 ".repeat(95),
        n + 4
    );
    new_page_objects(
        base,
        stream(b"", b"BT /F1 12 Tf 72 700 Td (Hello) Tj ET"),
        resources.as_bytes(),
        vec![(n + 4, stream(b"/Filter /FlateDecode", &zlib(&cmap)))],
        rng,
    )
}

/// Bombs, made once: each decodes to just past the quick reader's limit
/// ([`super::filter::MAX_DECODED`]).
pub struct Bombs {
    /// Flate of Flate of zeros: about a kilobyte.
    pub flate: Vec<u8>,
    /// LZW (early change) of zeros.
    pub lzw: Vec<u8>,
}

pub fn bombs() -> &'static Bombs {
    static BOMBS: OnceLock<Bombs> = OnceLock::new();
    BOMBS.get_or_init(|| {
        let zeros = vec![0u8; super::filter::MAX_DECODED + 4096];
        let lzw = weezl::encode::Encoder::with_tiff_size_switch(weezl::BitOrder::Msb, 8)
            .encode(&zeros)
            .unwrap_or_default();
        let flate = zlib(&zlib(&zeros));
        Bombs { flate, lzw }
    })
}

fn zlib(data: &[u8]) -> Vec<u8> {
    let mut z = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
    let _ = z.write_all(data);
    z.finish().unwrap_or_default()
}

/// What reading a case gave.
#[derive(Debug, Clone, PartialEq)]
pub struct Outcome {
    /// Pages whose content was read.
    pub pages_read: u32,
    /// Glyphs found on them.
    pub glyphs: usize,
    /// Why the document (or its first refused page) was left to pdfium;
    /// `None` when everything was read.
    pub unsupported: Option<String>,
    /// A refusal for size ([`Unsupported::too_large`]) was met.
    pub too_large: bool,
}

/// Reads `bytes` as the worker would (open, the first pages, the Info
/// title), without the panic guard: a bug panics here.
pub fn read_everything(bytes: &[u8]) -> Outcome {
    let mut outcome = Outcome {
        pages_read: 0,
        glyphs: 0,
        unsupported: None,
        too_large: false,
    };
    let note = |o: &mut Outcome, e: Unsupported| {
        o.too_large |= e.is_too_large();
        if o.unsupported.is_none() {
            o.unsupported = Some(e.why);
        }
    };
    let file = match file::File::open(bytes.into()) {
        Ok(f) => f,
        Err(e) => {
            note(&mut outcome, e);
            return outcome;
        }
    };
    let fonts = font::Fonts::default();
    for index in 0..file.page_count().min(MAX_PAGES) {
        let page = match file.page(index) {
            Ok(p) => p,
            Err(e) => {
                note(&mut outcome, e);
                continue;
            }
        };
        let geo = crate::inspect::page::Geometry::from_box(page.crop_box, page.rotate);
        match content::read(&file, &fonts, &page) {
            Ok(c) => {
                let _ = page::objects(&c, &geo);
                outcome.glyphs += page::glyphs(&c, &geo).len();
                outcome.pages_read += 1;
            }
            Err(e) => note(&mut outcome, e),
        }
    }
    if let Some(info) = file.info()
        && let Err(e) = file.get_in(&info, b"Title")
    {
        note(&mut outcome, e);
    }
    outcome
}

/// A panic met while reading a case: its message and place.
#[derive(Debug, Clone, PartialEq)]
pub struct Panic(pub String);

thread_local! {
    static LAST_PANIC: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// [`read_everything`], a panic caught and told with its place.
pub fn check(bytes: &[u8]) -> Result<Outcome, Panic> {
    static HOOK: OnceLock<()> = OnceLock::new();
    HOOK.get_or_init(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            let here = info
                .location()
                .map(|l| format!(" at {}:{}", l.file(), l.line()))
                .unwrap_or_default();
            let msg = info
                .payload()
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| info.payload().downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "panic".into());
            let mine = LAST_PANIC.with(|p| {
                let mut p = p.borrow_mut();
                // Only panics on a thread inside `check` are recorded.
                if p.as_deref() == Some("") {
                    *p = Some(format!("{msg}{here}"));
                    true
                } else {
                    false
                }
            });
            if !mine {
                previous(info);
            }
        }));
    });
    LAST_PANIC.with(|p| *p.borrow_mut() = Some(String::new()));
    let result = std::panic::catch_unwind(|| read_everything(bytes));
    let told = LAST_PANIC
        .with(|p| p.borrow_mut().take())
        .unwrap_or_default();
    result.map_err(|_| Panic(told))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The short run of the harness: every mutation kind several times
    /// over the seed corpus, with no panic. (`scripts/fuzz.sh N` runs
    /// N cases of other campaigns, with a memory and time bound.)
    #[test]
    fn short_fuzz_run_finds_no_panic() {
        let seeds = seed_corpus();
        assert!(seeds.len() >= 20, "seed corpus: {} files", seeds.len());
        let mut seen = [0usize; KINDS.len()];
        let mut read_pages = 0;
        for number in 0..120 {
            let case = case(&seeds, 1, number);
            seen[KINDS.iter().position(|k| *k == case.kind).unwrap()] += 1;
            match check(&case.bytes) {
                Ok(o) => read_pages += o.pages_read,
                Err(Panic(why)) => panic!(
                    "case {number} ({} of {}) panicked: {why}",
                    case.kind, case.seed_name
                ),
            }
        }
        assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
        // The harness reaches the content reader, not only the
        // cross-reference parser (many seeds have fonts the reader leaves
        // to pdfium: 20 pages in these 120 cases).
        assert!(read_pages >= 10, "{read_pages} pages read");
    }

    /// Each hostile structure on its own, over a fixture, gives its
    /// outcome: bombs refused as too large, loops and nesting refused or
    /// read, nothing panics.
    #[test]
    fn each_hostile_structure_is_refused_or_read() {
        let base = std::fs::read(crate::test_pdfs::fixture("book-p03-asis.pdf")).unwrap();
        let mut rng = Rng::new(7);
        let run = |kind: &str, rng: &mut Rng| {
            let k = KINDS.iter().position(|x| *x == kind).unwrap();
            check(&mutate(&base, k, rng)).unwrap_or_else(|p| panic!("{kind}: {}", p.0))
        };
        for bomb in ["flate-bomb", "lzw-bomb", "cmap-bomb"] {
            let o = run(bomb, &mut rng);
            assert!(o.too_large, "{bomb}: {o:?}");
        }
        let o = run("direct-font-spam", &mut rng);
        assert_eq!((o.pages_read, o.unsupported), (1, None));
        // (The same two glyphs at the same place, kept once.)
        assert_eq!(o.glyphs, 2);
        for kind in [
            "prev-loop",
            "self-page-tree",
            "deep-nesting",
            "xref-stream-bomb",
        ] {
            for _ in 0..3 {
                let o = run(kind, &mut rng);
                assert!(!o.too_large || kind == "xref-stream-bomb", "{kind}: {o:?}");
            }
        }
    }

    #[test]
    fn cases_are_the_same_from_the_same_numbers() {
        let seeds = seed_corpus();
        let (a, b) = (case(&seeds, 3, 17), case(&seeds, 3, 17));
        assert_eq!((a.bytes, a.kind), (b.bytes, b.kind));
        assert_ne!(case(&seeds, 3, 18).bytes, case(&seeds, 4, 18).bytes);
    }
}
