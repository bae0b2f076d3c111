//! Finds the text blocks of a page image without reading them, so that
//! Tesseract first reads only the blocks that carry a document's metadata
//! (issue 18: "OCR only the regions that matter first").
//!
//! Tesseract's time follows the amount of text it reads: on the scanned
//! gold pages a title page costs 0.3-0.5 CPU-s, a page of body text
//! 2-6 CPU-s. Titles, bylines, imprints, copyright and CIP blocks, running
//! heads and footers are short blocks, or lines of larger or smaller type
//! than the body; body paragraphs, reference lists and the like are long
//! runs of long lines of the page's usual size. [`plan`] finds the latter
//! ([`Layout::rest`]) from the binarised image alone, and the first reading
//! masks them out ([`mask`]).
//!
//! How: Otsu's threshold; ink counted in cells of about 1/75 inch; each
//! row of cells smeared across gaps up to 0.1 inch (joining the words of a
//! line but not the columns of a page); the connected groups of cells are
//! line pieces; pieces set one under another, overlapping, of similar
//! height and less than a line apart are a block. A block is body text
//! when it has at least [`MIN_BODY_LINES`] lines of the page's usual line
//! height (the width-weighted median), most of them as wide as the block.
//! Back matter leaves out more of a page full of text ([`Matter::Back`]).

use image::GrayImage;

/// A body block has at least this many lines: a byline, an imprint, a
/// short copyright notice, a heading with its first lines stay in the
/// first reading.
pub const MIN_BODY_LINES: usize = 6;
/// ... and a page's body blocks are left out only when they hold this
/// many lines together: a copyright page whose notice and CIP block run
/// to ten full lines (a generated scanned book lost its ISBN and year
/// to a lower bound) is read whole, and a page with little body text
/// costs Tesseract little anyway.
pub const MIN_BODY_PAGE_LINES: usize = 16;
/// Lines of one block are at most this many usual line heights apart
/// (ink to ink). 0.6 kept a generated book's running heads apart from the
/// body below them, but also split the gold scans' paragraphs into blocks
/// of fewer than [`MIN_BODY_LINES`] (Tesseract CPU 1.39 s a page against
/// 0.73), so a whole line it is.
const MAX_LINE_GAP: f32 = 1.0;
/// Cells per inch of the grid ink is counted in.
const CELLS_PER_INCH: f32 = 75.0;

/// One cell of the layout's grid, in pixels at `dpi` (at least one): the
/// margin [`mask`] paints around a block.
fn cell_px(dpi: f32) -> u32 {
    (dpi / CELLS_PER_INCH).round().max(1.0) as u32
}

/// Gaps in a row up to this many inches are smeared over (words of a
/// line join; a column gutter, 0.15 inch and more, does not).
const SMEAR_INCH: f32 = 0.1;

/// A rectangle of the page image, in pixels, with the text lines found
/// in it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Block {
    pub x0: u32,
    pub y0: u32,
    pub x1: u32,
    pub y1: u32,
    /// The boxes of its lines, top to bottom, in pixels (`x0, y0, x1, y1`,
    /// the ink of the line: ascenders to descenders).
    pub lines: Vec<[u32; 4]>,
}

/// The text blocks of a page: those read first, and the body blocks left
/// for when the first reading does not settle the document.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Layout {
    pub first: Vec<Block>,
    pub rest: Vec<Block>,
}

/// Which matter a page is read for: what its first reading may leave out.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Matter {
    /// Front matter: long runs of body lines (see the module docs).
    Front,
    /// Back matter, where the fields sought (imprint, identifiers,
    /// edition, year) stand on colophons, back covers and imprint pages,
    /// not on pages full of text: on a page whose lines of the usual size
    /// cover at least [`TEXT_PAGE_COVER`] of its height (body text,
    /// indexes, reference lists, notes), every block of two or more such
    /// lines, whatever their width. One-line blocks, headings, lines of
    /// other sizes and the page's furniture (see `keep_page_edges`) are
    /// still read; other pages as in front matter.
    Back,
}

/// A back-matter page is full of text when its lines of the usual size,
/// ink top to ink bottom, cover at least this share of the page's height.
/// Measured on the scanned gold pages: full pages of body text or an
/// index 0.47-0.87, half pages of body text 0.29-0.37, copyright and
/// licence pages 0.20-0.39 (read as they are: the bound stays clear of
/// them), title pages and colophons below 0.2. Below 0.45 nothing costly
/// was left to save (Tesseract 24.8 CPU-s over the 50 pages at 0.3 and at
/// 0.45).
pub const TEXT_PAGE_COVER: f32 = 0.45;

/// The layout of `img`, rendered at `dpi`, for a reading of `matter`.
pub fn plan(img: &GrayImage, dpi: f32, matter: Matter) -> Layout {
    let dpi = if dpi.is_finite() && dpi > 0.0 {
        dpi
    } else {
        300.0
    };
    let s = cell_px(dpi);
    let (w, h) = (img.width() / s, img.height() / s);
    if w < 3 || h < 3 {
        return Layout::default();
    }
    let mut ink = ink_cells(img, s, w, h);
    smear(
        &mut ink,
        w as usize,
        ((SMEAR_INCH * dpi / s as f32).round() as usize).max(1),
    );
    let pieces: Vec<Piece> = components(&ink, w as usize, h as usize)
        .into_iter()
        .filter(|p| p.h() >= 2 && p.w() >= 3)
        .collect();
    if pieces.is_empty() {
        return Layout::default();
    }
    let usual = usual_height(&pieces);
    let full_of_text = matter == Matter::Back && text_cover(&pieces, usual, h) >= TEXT_PAGE_COVER;
    let mut layout = Layout::default();
    for block in blocks(pieces, usual) {
        let (b, body) = block_of(&block, usual, full_of_text, s, img);
        if body {
            layout.rest.push(b);
        } else {
            layout.first.push(b);
        }
    }
    if !full_of_text
        && layout.rest.iter().map(|b| b.lines.len()).sum::<usize>() < MIN_BODY_PAGE_LINES
    {
        let rest = std::mem::take(&mut layout.rest);
        layout.first.extend(rest);
    }
    if full_of_text {
        keep_page_edges(&mut layout);
    }
    layout
}

/// Ink per cell of `s` x `s` pixels (`w` x `h` cells): at least two dark
/// pixels (one is speckle), dark by Otsu's threshold of the page.
fn ink_cells(img: &GrayImage, s: u32, w: u32, h: u32) -> Vec<bool> {
    let t = otsu(img);
    let mut ink = vec![false; (w * h) as usize];
    let raw = img.as_raw();
    let iw = img.width() as usize;
    for cy in 0..h {
        for cx in 0..w {
            let mut dark = 0;
            'cell: for y in cy * s..(cy + 1) * s {
                let row = &raw[y as usize * iw..][..iw];
                for &v in &row[(cx * s) as usize..((cx + 1) * s) as usize] {
                    if v <= t {
                        dark += 1;
                        if dark >= 2 {
                            break 'cell;
                        }
                    }
                }
            }
            ink[(cy * w + cx) as usize] = dark >= 2;
        }
    }
    ink
}

/// One block of pieces (in cells of `s` pixels) as a [`Block`] in pixels,
/// and whether it is body text: lines of the usual height (and, unless the
/// page is `full_of_text`, enough of them, as wide as the block).
fn block_of(
    block: &[Piece],
    usual: u32,
    full_of_text: bool,
    s: u32,
    img: &GrayImage,
) -> (Block, bool) {
    let mut heights: Vec<u32> = block.iter().map(Piece::h).collect();
    let mut widths: Vec<u32> = block.iter().map(Piece::w).collect();
    let (x0, y0) = (
        block.iter().map(|p| p.x0).min().unwrap_or(0),
        block.iter().map(|p| p.y0).min().unwrap_or(0),
    );
    let (x1, y1) = (
        block.iter().map(|p| p.x1).max().unwrap_or(0),
        block.iter().map(|p| p.y1).max().unwrap_or(0),
    );
    let (mh, mw) = (median(&mut heights) as f32, median(&mut widths) as f32);
    let usual = usual as f32;
    let usual_size = mh >= 0.75 * usual && mh <= 1.3 * usual;
    let body = if full_of_text {
        block.len() >= 2 && usual_size
    } else {
        block.len() >= MIN_BODY_LINES && usual_size && mw >= 0.6 * (x1 - x0) as f32
    };
    let (iw, ih) = (img.width(), img.height());
    let b = Block {
        x0: x0 * s,
        y0: y0 * s,
        x1: (x1 * s).min(iw),
        y1: (y1 * s).min(ih),
        lines: block
            .iter()
            .map(|p| [p.x0 * s, p.y0 * s, (p.x1 * s).min(iw), (p.y1 * s).min(ih)])
            .collect(),
    };
    (b, body)
}

/// Moves the page's furniture out of the blocks left out into blocks
/// read first: the page's topmost and bottommost lines (running heads and
/// feet: a book's title, a journal's imprint), and the narrow lines (under
/// a quarter of the block's width: page numbers, a centred head) that
/// begin or end a block. They stand a line or so from the text and join
/// its block; left out, a generated book's back pages lost their page
/// numbers, and with them what marked them as body pages.
fn keep_page_edges(layout: &mut Layout) {
    let all = || {
        layout
            .first
            .iter()
            .chain(&layout.rest)
            .flat_map(|b| &b.lines)
    };
    let (Some(top), Some(bottom)) = (all().map(|l| l[1]).min(), all().map(|l| l[3]).max()) else {
        return;
    };
    let mut kept = Vec::new();
    for block in &mut layout.rest {
        let narrow = |l: &[u32; 4]| 4 * (l[2] - l[0]) < block.x1 - block.x0;
        let mut lines = std::mem::take(&mut block.lines);
        let head = lines
            .iter()
            .take_while(|l| l[1] == top || narrow(l))
            .count();
        kept.extend(lines.drain(..head));
        let foot = lines
            .iter()
            .rev()
            .take_while(|l| l[3] == bottom || narrow(l))
            .count();
        kept.extend(lines.drain(lines.len() - foot..));
        *block = Block::of_lines(lines);
    }
    layout.rest.retain(|b| !b.lines.is_empty());
    layout
        .first
        .extend(kept.into_iter().map(|line| Block::of_lines(vec![line])));
}

impl Block {
    /// The block of `lines`, its rectangle their box (empty for none).
    fn of_lines(lines: Vec<[u32; 4]>) -> Block {
        let edge = |k: usize| lines.iter().map(move |l| l[k]);
        Block {
            x0: edge(0).min().unwrap_or(0),
            y0: edge(1).min().unwrap_or(0),
            x1: edge(2).max().unwrap_or(0),
            y1: edge(3).max().unwrap_or(0),
            lines,
        }
    }
}

/// `img` with `blocks` (and a cell-sized margin around each) painted
/// over in the paper's gray (the image's median level). Painted white, a
/// block on a scan's gray paper stands out as a bright rectangle that
/// Tesseract's page segmentation takes for a picture, and it read
/// nothing of the page around it: a generated scanned book's running
/// head and page number were lost that way.
pub fn mask(img: &GrayImage, blocks: &[Block], dpi: f32) -> GrayImage {
    let paper = image::Luma([median_level(&histogram(img))]);
    let mut out = img.clone();
    let (w, h) = out.dimensions();
    for b in blocks {
        let [x0, y0, x1, y1] = painted(b, dpi);
        for y in y0..y1.min(h) {
            for x in x0..x1.min(w) {
                out.put_pixel(x, y, paper);
            }
        }
    }
    out
}

/// The rectangle [`mask`] paints for `b` (`x0, y0, x1, y1`, end
/// exclusive, not clipped to the image): the block and one cell around it.
fn painted(b: &Block, dpi: f32) -> [u32; 4] {
    let pad = cell_px(dpi);
    [
        b.x0.saturating_sub(pad),
        b.y0.saturating_sub(pad),
        b.x1 + pad,
        b.y1 + pad,
    ]
}

/// How many pixels of `img` have each gray level.
fn histogram(img: &GrayImage) -> [u64; 256] {
    let mut hist = [0u64; 256];
    for &v in img.as_raw() {
        hist[v as usize] += 1;
    }
    hist
}

/// The median level of a [`histogram`]: the paper's, on a page of text.
fn median_level(hist: &[u64; 256]) -> u8 {
    let half = hist.iter().sum::<u64>() / 2;
    let mut seen = 0;
    for (level, n) in hist.iter().enumerate() {
        seen += n;
        if seen > half {
            return level as u8;
        }
    }
    255
}

/// Whether [`mask`] paints over `line` (`x0, y0, x1, y1`): its centre
/// stands in one of the painted rectangles.
pub fn masked(blocks: &[Block], line: &[u32; 4], dpi: f32) -> bool {
    let (cx, cy) = ((line[0] + line[2]) / 2, (line[1] + line[3]) / 2);
    blocks.iter().any(|b| {
        let [x0, y0, x1, y1] = painted(b, dpi);
        (x0..x1).contains(&cx) && (y0..y1).contains(&cy)
    })
}

/// Otsu's threshold of the image's gray levels: at or below it is ink.
fn otsu(img: &GrayImage) -> u8 {
    let hist = histogram(img);
    let total: u64 = hist.iter().sum();
    let sum_all: f64 = hist
        .iter()
        .enumerate()
        .map(|(i, &n)| i as f64 * n as f64)
        .sum();
    let (mut wb, mut sb, mut best, mut t) = (0u64, 0f64, 0f64, 127u8);
    for (i, &n) in hist.iter().enumerate() {
        wb += n;
        if wb == 0 {
            continue;
        }
        let wf = total - wb;
        if wf == 0 {
            break;
        }
        sb += i as f64 * n as f64;
        let (mb, mf) = (sb / wb as f64, (sum_all - sb) / wf as f64);
        let v = wb as f64 * wf as f64 * (mb - mf) * (mb - mf);
        if v > best {
            best = v;
            t = i as u8;
        }
    }
    t
}

/// Fills, row by row, the gaps of at most `gap` cells between ink cells.
fn smear(ink: &mut [bool], w: usize, gap: usize) {
    for row in ink.chunks_exact_mut(w) {
        let mut last: Option<usize> = None;
        for x in 0..w {
            if row[x] {
                if let Some(l) = last {
                    if x - l > 1 && x - l <= gap + 1 {
                        row[l + 1..x].iter_mut().for_each(|c| *c = true);
                    }
                }
                last = Some(x);
            }
        }
    }
}

/// The bounding box of one connected group of ink cells, in cells
/// (`x1`, `y1` exclusive).
#[derive(Debug, Clone, Copy)]
struct Piece {
    x0: u32,
    y0: u32,
    x1: u32,
    y1: u32,
}

impl Piece {
    fn w(&self) -> u32 {
        self.x1 - self.x0
    }
    fn h(&self) -> u32 {
        self.y1 - self.y0
    }
}

/// Bounding boxes of the 4-connected groups of ink cells.
fn components(ink: &[bool], w: usize, h: usize) -> Vec<Piece> {
    let mut seen = vec![false; ink.len()];
    let mut out = Vec::new();
    let mut stack = Vec::new();
    for start in 0..ink.len() {
        if !ink[start] || seen[start] {
            continue;
        }
        seen[start] = true;
        stack.push(start);
        let (mut x0, mut y0, mut x1, mut y1) = (usize::MAX, usize::MAX, 0, 0);
        while let Some(i) = stack.pop() {
            let (x, y) = (i % w, i / w);
            (x0, y0, x1, y1) = (x0.min(x), y0.min(y), x1.max(x + 1), y1.max(y + 1));
            let mut visit = |j: usize| {
                if ink[j] && !seen[j] {
                    seen[j] = true;
                    stack.push(j);
                }
            };
            if x > 0 {
                visit(i - 1);
            }
            if x + 1 < w {
                visit(i + 1);
            }
            if y > 0 {
                visit(i - w);
            }
            if y + 1 < h {
                visit(i + w);
            }
        }
        out.push(Piece {
            x0: x0 as u32,
            y0: y0 as u32,
            x1: x1 as u32,
            y1: y1 as u32,
        });
    }
    out
}

/// The share of the page's `rows` (grid rows) that lines of the `usual`
/// height cover, ink top to ink bottom, overlaps counted once.
fn text_cover(pieces: &[Piece], usual: u32, rows: u32) -> f32 {
    let usual = usual as f32;
    let mut covered = vec![false; rows as usize];
    for p in pieces {
        let h = p.h() as f32;
        if h >= 0.75 * usual && h <= 1.3 * usual {
            covered[p.y0 as usize..(p.y1 as usize).min(rows as usize)]
                .iter_mut()
                .for_each(|c| *c = true);
        }
    }
    covered.iter().filter(|&&c| c).count() as f32 / rows.max(1) as f32
}

/// The page's usual line height: the median piece height, each piece
/// weighted by its width (a page's body lines outweigh its headings).
fn usual_height(pieces: &[Piece]) -> u32 {
    let mut by_height: Vec<(u32, u64)> = pieces.iter().map(|p| (p.h(), p.w() as u64)).collect();
    by_height.sort_unstable();
    let total: u64 = by_height.iter().map(|p| p.1).sum();
    let mut acc = 0;
    for (height, width) in by_height {
        acc += width;
        if acc * 2 >= total {
            return height;
        }
    }
    1
}

/// Pieces grouped into blocks, top to bottom: a piece joins the block whose
/// last piece it overlaps horizontally by half the narrower of the two,
/// starts at most [`MAX_LINE_GAP`] usual line heights below it, and
/// matches it in height (within 30%).
fn blocks(mut pieces: Vec<Piece>, usual: u32) -> Vec<Vec<Piece>> {
    pieces.sort_by_key(|p| (p.y0, p.x0));
    let mut blocks: Vec<Vec<Piece>> = Vec::new();
    for p in pieces {
        let home = blocks.iter_mut().find(|b| {
            let q = b.last().expect("blocks are never empty");
            let overlap = p.x1.min(q.x1) as i64 - p.x0.max(q.x0) as i64;
            let gap = p.y0 as i64 - q.y1 as i64;
            overlap * 2 > p.w().min(q.w()) as i64
                && (0..=(MAX_LINE_GAP * usual as f32).round() as i64).contains(&gap)
                && p.h().abs_diff(q.h()) as f32 <= 0.3 * p.h().max(q.h()) as f32 + 1.0
        });
        match home {
            Some(b) => b.push(p),
            None => blocks.push(vec![p]),
        }
    }
    blocks
}

fn median(v: &mut [u32]) -> u32 {
    v.sort_unstable();
    v.get(v.len() / 2).copied().unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Draws a "line of text" as a dark bar with word gaps.
    fn line(img: &mut GrayImage, x0: u32, y0: u32, len: u32, height: u32) {
        for y in y0..y0 + height {
            for x in x0..x0 + len {
                // 0.06-inch word gaps every ~0.5 inch at 200 dpi.
                if (x - x0) % 100 < 88 {
                    img.put_pixel(x, y, image::Luma([20]));
                }
            }
        }
    }

    #[test]
    fn a_body_paragraph_is_left_for_later_and_the_title_block_is_read_first() {
        // A 200 dpi Letter page: a large title, a byline, then a paragraph
        // of 12 long body lines, and a short footer.
        let mut img = GrayImage::from_pixel(1700, 2200, image::Luma([250]));
        line(&mut img, 400, 200, 900, 60);
        line(&mut img, 600, 320, 500, 30);
        for i in 0..18 {
            line(&mut img, 200, 600 + i * 36, 1300, 28);
        }
        line(&mut img, 200, 2000, 600, 28);
        let layout = plan(&img, 200.0, Matter::Front);
        assert_eq!(layout.rest.len(), 1, "{layout:?}");
        let body = &layout.rest[0];
        assert_eq!(body.lines.len(), 18);
        // Each line's box holds its ink, within a cell.
        let [x0, y0, x1, y1] = body.lines[1];
        assert!(
            x0.abs_diff(200) <= 3 && x1.abs_diff(1500) <= 15,
            "{x0} {x1}"
        );
        assert!(y0.abs_diff(636) <= 3 && y1.abs_diff(664) <= 3, "{y0} {y1}");
        assert!(body.y0 <= 600 && body.y1 >= 600 + 17 * 36 + 28, "{body:?}");
        assert_eq!(layout.first.len(), 3, "{layout:?}");

        let painted = mask(&img, &layout.rest, 200.0);
        // The body is gone, painted in the paper's gray (not white); the
        // title and the footer are still there.
        assert_eq!(painted.get_pixel(300, 700)[0], 250);
        assert_eq!(painted.get_pixel(500, 220)[0], 20);
        assert_eq!(painted.get_pixel(300, 2010)[0], 20);
        // Which lines the mask covers: the body's, not the title's.
        assert!(body.lines.iter().all(|l| masked(&layout.rest, l, 200.0)));
        let first_lines = layout.first.iter().flat_map(|b| &b.lines);
        assert!(first_lines.clone().count() >= 3);
        assert!(first_lines.clone().all(|l| !masked(&layout.rest, l, 200.0)));
    }

    /// A page of four blocks of 3, 5, 2 and 4 lines `len` wide, from `top`
    /// down, `gap` apart: a copyright page.
    fn short_blocks(top: u32, len: u32, gap: u32) -> GrayImage {
        let mut img = GrayImage::from_pixel(1700, 2200, image::Luma([250]));
        let mut y = top;
        for n in [3, 5, 2, 4] {
            for _ in 0..n {
                line(&mut img, 200, y, len, 24);
                y += 32;
            }
            y += gap;
        }
        img
    }

    /// Nothing of the page is left out, and its `lines` lines are read.
    fn assert_read_whole(layout: &Layout, lines: usize) {
        assert!(layout.rest.is_empty(), "{layout:?}");
        let read: usize = layout.first.iter().map(|b| b.lines.len()).sum();
        assert_eq!(read, lines, "{layout:?}");
    }

    #[test]
    fn a_page_of_short_blocks_is_read_whole() {
        // A copyright page: blocks of 2-5 lines.
        let img = short_blocks(900, 700, 80);
        let layout = plan(&img, 200.0, Matter::Front);
        assert_read_whole(&layout, 14);
        // Ten full lines of body text are not enough to leave out.
        let mut img = GrayImage::from_pixel(1700, 2200, image::Luma([250]));
        for i in 0..10 {
            line(&mut img, 200, 600 + i * 36, 1300, 28);
        }
        let layout = plan(&img, 200.0, Matter::Front);
        assert!(layout.rest.is_empty(), "{layout:?}");
        // A blank page has no blocks at all.
        let blank = GrayImage::from_pixel(1700, 2200, image::Luma([255]));
        assert_eq!(plan(&blank, 200.0, Matter::Front), Layout::default());
    }

    /// An index page: a heading, then two columns of entry groups of
    /// three lines of varied width, top to bottom.
    fn index_page() -> GrayImage {
        let mut img = GrayImage::from_pixel(1700, 2200, image::Luma([250]));
        line(&mut img, 200, 120, 500, 48);
        for x in [200, 900] {
            // A foot a line under each column's last group (which ends
            // at 1980): it joins that group's block.
            line(&mut img, x, 1996, 300, 24);
            // A page number a line above each column's first group.
            line(&mut img, x + 250, 220, 40, 24);
            let mut y = 260;
            while y + 3 * 32 < 2050 {
                for (k, len) in [600, 420, 520].into_iter().enumerate() {
                    line(&mut img, x, y + k as u32 * 32, len, 24);
                }
                y += 3 * 32 + 40;
            }
        }
        img
    }

    #[test]
    fn back_matter_leaves_out_the_paragraphs_of_a_page_full_of_text() {
        let img = index_page();
        // Front matter reads it whole: no run of six long lines.
        let front = plan(&img, 200.0, Matter::Front);
        assert!(front.rest.is_empty(), "{front:?}");
        // The page numbers join the groups under them.
        let joined = front.first.iter().filter(|b| {
            b.lines.len() == 4
                && b.lines[0][1].abs_diff(220) <= 3
                && b.lines[1][1].abs_diff(258) <= 3
        });
        assert_eq!(joined.count(), 2, "{front:?}");
        // Back matter leaves out every group and reads the heading.
        let back = plan(&img, 200.0, Matter::Back);
        let left_out: usize = back.rest.iter().map(|b| b.lines.len()).sum();
        // 13 groups of 3 lines in each column.
        assert_eq!(left_out, 2 * 13 * 3);
        assert!(back.rest.iter().all(|b| b.lines.len() >= 2));
        // The heading, the page numbers and the page's bottom lines (the
        // feet), split off the groups' blocks, are read.
        let mut read: Vec<_> = back.first.iter().flat_map(|b| &b.lines).collect();
        read.sort_by_key(|l| (l[1], l[0]));
        let tops: Vec<u32> = read.iter().map(|l| l[1]).collect();
        assert_eq!(tops.len(), 5, "{back:?}");
        for (top, want) in tops.iter().zip([120, 220, 220, 1996, 1996]) {
            assert!(top.abs_diff(want) <= 3, "{read:?}");
        }
        assert!(
            back.rest
                .iter()
                .flat_map(|b| &b.lines)
                .all(|l| l[1] > 250 && l[1] < 1990),
            "{back:?}"
        );
    }

    #[test]
    fn back_matter_reads_an_imprint_page_whole() {
        // A copyright page in the back: 14 lines in four blocks in the
        // lower half cover too little of the page to be full of text.
        let img = short_blocks(1200, 1200, 60);
        let layout = plan(&img, 200.0, Matter::Back);
        assert_read_whole(&layout, 14);
    }
}
