//! Area covered by a set of rectangles: the `image_ratio` of a page.
//!
//! Scanned pages often carry several overlapping images (a full-page scan
//! plus a mask, or strips of one picture), so summing areas would count the
//! same ink twice. The union is computed with a sweep over x: between two
//! consecutive rectangle edges the covered length in y is the merged length
//! of the intervals of the rectangles spanning that slab. O(n² log n), fine
//! for the few hundred images a page has at most; beyond [`MAX_RECTS`] the
//! smallest rectangles are dropped, as they cannot change the answer much.

use crate::model::Rect;

/// Upper bound on rectangles considered (pages tiled from thousands of
/// tiny images exist; their largest tiles decide the ratio).
pub const MAX_RECTS: usize = 2000;

/// Share of `page` covered by the union of `rects`, clipped to the page, in [0, 1].
pub fn covered_ratio(rects: &[Rect], page: Rect) -> f32 {
    let page_area = (page.width() as f64) * (page.height() as f64);
    if page_area.is_nan() || page_area <= 0.0 {
        return 0.0;
    }
    let mut clipped: Vec<Rect> = rects.iter().filter_map(|r| clip(r, &page)).collect();
    if clipped.len() > MAX_RECTS {
        clipped.sort_by(|a, b| area(b).total_cmp(&area(a)));
        clipped.truncate(MAX_RECTS);
    }
    let ratio = union_area(&clipped) / page_area;
    ratio.clamp(0.0, 1.0) as f32
}

fn area(r: &Rect) -> f64 {
    r.width() as f64 * r.height() as f64
}

fn clip(r: &Rect, page: &Rect) -> Option<Rect> {
    let c = Rect {
        x0: r.x0.min(r.x1).max(page.x0),
        x1: r.x0.max(r.x1).min(page.x1),
        top: r.top.min(r.bottom).max(page.top),
        bottom: r.top.max(r.bottom).min(page.bottom),
    };
    (c.x1 > c.x0 && c.bottom > c.top && c.x0.is_finite() && c.top.is_finite()).then_some(c)
}

/// Area of the union of (already normalised) rectangles.
pub fn union_area(rects: &[Rect]) -> f64 {
    let mut xs: Vec<f32> = rects.iter().flat_map(|r| [r.x0, r.x1]).collect();
    xs.sort_by(f32::total_cmp);
    xs.dedup();
    let mut total = 0.0f64;
    let mut spans: Vec<(f32, f32)> = Vec::with_capacity(rects.len());
    for w in xs.windows(2) {
        let (a, b) = (w[0], w[1]);
        spans.clear();
        spans.extend(
            rects
                .iter()
                .filter(|r| r.x0 <= a && r.x1 >= b)
                .map(|r| (r.top, r.bottom)),
        );
        if spans.is_empty() {
            continue;
        }
        spans.sort_by(|p, q| p.0.total_cmp(&q.0));
        let mut covered = 0.0f64;
        let (mut s, mut e) = spans[0];
        for &(t, u) in &spans[1..] {
            if t > e {
                covered += (e - s) as f64;
                s = t;
                e = u;
            } else if u > e {
                e = u;
            }
        }
        covered += (e - s) as f64;
        total += covered * (b - a) as f64;
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(x0: f32, top: f32, x1: f32, bottom: f32) -> Rect {
        Rect {
            x0,
            top,
            x1,
            bottom,
        }
    }

    #[test]
    fn overlapping_rects_count_once() {
        let page = r(0.0, 0.0, 100.0, 100.0);
        // Two 60x60 squares overlapping in a 20x20 corner: 3600*2-400.
        let rects = [r(0.0, 0.0, 60.0, 60.0), r(40.0, 40.0, 100.0, 100.0)];
        let got = covered_ratio(&rects, page);
        assert!((got - 0.68).abs() < 1e-6, "{got}");
    }

    #[test]
    fn same_image_twice_and_contained_images_do_not_add() {
        let page = r(0.0, 0.0, 200.0, 100.0);
        let full = r(0.0, 0.0, 200.0, 100.0);
        let rects = [full, full, r(10.0, 10.0, 20.0, 20.0)];
        assert!((covered_ratio(&rects, page) - 1.0).abs() < 1e-6);
    }

    #[test]
    fn rects_are_clipped_to_the_page() {
        let page = r(0.0, 0.0, 100.0, 100.0);
        // Bleeds off every edge: whole page, not more.
        let rects = [r(-50.0, -50.0, 150.0, 150.0)];
        assert!((covered_ratio(&rects, page) - 1.0).abs() < 1e-6);
        // Entirely off the page.
        assert_eq!(covered_ratio(&[r(200.0, 0.0, 300.0, 50.0)], page), 0.0);
    }

    #[test]
    fn disjoint_rects_add_and_gaps_stay_uncovered() {
        let page = r(0.0, 0.0, 100.0, 100.0);
        let rects = [
            r(0.0, 0.0, 10.0, 100.0),
            r(90.0, 0.0, 100.0, 100.0),
            r(0.0, 0.0, 100.0, 10.0),
        ];
        // 1000 + 1000 + 1000 - 100 - 100 overlap corners = 2800.
        let got = covered_ratio(&rects, page);
        assert!((got - 0.28).abs() < 1e-6, "{got}");
    }

    #[test]
    fn no_images_is_zero() {
        assert_eq!(covered_ratio(&[], r(0.0, 0.0, 10.0, 10.0)), 0.0);
        assert_eq!(
            covered_ratio(&[r(0.0, 0.0, 1.0, 1.0)], r(0.0, 0.0, 0.0, 0.0)),
            0.0
        );
    }
}
