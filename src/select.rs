//! Page selection (SPEC 4): which pages are read as front matter, and
//! whether and which pages are read as back matter.
//!
//! By default the first `MATTER_CONFIG.front.max_pages` pages are all
//! processed (seed: "Number of pages processed from the start of the
//! document"). With `MATTER_CONFIG.front.stop_when_sure`, front matter is
//! read adaptively instead (issue 18): in the batches of [`front_batches`],
//! deciding after each, and no further once [`front_settled`] says the
//! pages read hold every field that front matter is read for;
//! `max_pages` stays the upper bound.

use crate::model::{Field, Metadata};
use crate::settings::{BackMode, MatterConfig};

/// Front matter at most: pages `0 .. min(front.max_pages, page_count)`.
pub fn front_pages(page_count: u32, matter: &MatterConfig) -> Vec<u32> {
    (0..matter.front.max_pages.min(page_count)).collect()
}

/// Where front matter may stop: after 2 and 4 pages, then at the bound.
/// A paper or a manual prints its title, authors and date on its first
/// page, a book on its title page with the copyright block on the back.
/// Each stop costs a decision over the pages read so far (the finders
/// and the ranker, a few milliseconds a page against the tens pdfium
/// takes to load one), so the stops are few: over the 1,276 files of the
/// wild library, stopping after every page would read 7.20 pages a PDF
/// (in `fallback` mode with every field wanted) against 7.23 with these
/// stops, for twice the pages decided on (9.9 against 4.8 a PDF).
const FRONT_STOPS: [u32; 2] = [2, 4];

/// The front pages (as [`front_pages`]) cut into the batches they are
/// read in: with `front.stop_when_sure`, each batch ends at a stop of
/// [`FRONT_STOPS`] or at the bound, so that reading can stop after one;
/// without it (the default: every page of `front.max_pages` is processed,
/// as the seed says), one batch of them all.
pub fn front_batches(page_count: u32, matter: &MatterConfig) -> Vec<Vec<u32>> {
    let end = matter.front.max_pages.min(page_count);
    let stops: &[u32] = if matter.front.stop_when_sure {
        &FRONT_STOPS
    } else {
        &[]
    };
    let mut batches = Vec::new();
    let mut start = 0;
    for &stop in stops.iter().chain([&end]) {
        let stop = stop.min(end);
        if stop > start {
            batches.push((start..stop).collect());
            start = stop;
        }
    }
    batches
}

/// Whether the first `read` front pages settle the document, so that the
/// rest of front matter is not read: the title, the authors and the year
/// each have a value at `min_confidence` or above (`sure` holds only
/// those), and the page after the last page that prints the chosen title
/// (`title_page`, 0-based; `None` when no page does) has been read, since
/// a book's copyright block (publisher, ISBN, LCCN, edition) stands on the
/// back of its title page.
///
/// The year counts because it is in the default file name and, unlike the
/// identifiers, nearly every document prints one; the fields of
/// `back.fields` do not count here (a manual has no ISBN, and waiting for
/// one would read every front page of every manual): a wanted field still
/// missing is what back matter is read for.
///
/// Tried and taken back: from the fourth page on, a sure title alone
/// settling the document. It saved manuals (which print no author) their
/// pages 5 to 8 (wild library: 3,326 front pages instead of 3,979; gold and
/// silver scores unchanged), but a book whose cover or half-title gives
/// the title and whose title page comes after its fourth page lost its
/// title page and copyright block: generated books, seed 14 (held out) 0.990
/// -> 0.986 (one book lost publisher, year, edition and LCCN) and seed 13
/// 0.996 -> 0.994 (two titles went unsure once the back matter disagreed).
pub fn front_settled(sure: &Metadata, title_page: Option<u32>, read: u32) -> bool {
    let after_title = title_page.map_or(0, |p| p + 2);
    read >= after_title
        && [Field::Title, Field::Authors, Field::Year]
            .iter()
            .all(|&f| sure.has(f))
}

/// Back matter: the last `back.max_pages` pages, minus the `front_read`
/// pages already read as front matter (no page is read twice). Empty in
/// mode `never`.
pub fn back_pages(page_count: u32, front_read: u32, matter: &MatterConfig) -> Vec<u32> {
    if matter.back.mode == BackMode::Never {
        return Vec::new();
    }
    let start = page_count
        .saturating_sub(matter.back.max_pages)
        .max(front_read.min(page_count));
    (start..page_count).collect()
}

/// Whether back matter is read, given the values front matter (with its
/// vision answers) yielded at `MIN_CONFIDENCE` or above (`sure`: a value
/// found but unsure counts as missing): always in `always`, never in
/// `never`, and in `fallback` only when the title, every author, or a
/// field set true in `back.fields` is missing.
pub fn wants_back_matter(matter: &MatterConfig, sure: &Metadata) -> bool {
    match matter.back.mode {
        BackMode::Never => false,
        BackMode::Always => true,
        BackMode::Fallback => !missing_wanted(matter, sure).is_empty(),
    }
}

/// The wanted fields that front matter did not yield (title and authors
/// are always wanted).
pub fn missing_wanted(matter: &MatterConfig, found: &Metadata) -> Vec<Field> {
    let f = &matter.back.fields;
    let wanted = [
        (Field::Title, true),
        (Field::Authors, true),
        (Field::Publisher, f.publisher),
        (Field::Year, f.year),
        (Field::Edition, f.edition),
        (Field::Isbn, f.isbn),
        (Field::Doi, f.doi),
        (Field::Loc, f.loc),
    ];
    wanted
        .into_iter()
        .filter(|&(field, want)| want && !found.has(field))
        .map(|(field, _)| field)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matter(front: u32, mode: BackMode, back: u32) -> MatterConfig {
        let mut m = MatterConfig::default();
        m.front.max_pages = front;
        m.back.mode = mode;
        m.back.max_pages = back;
        m
    }

    #[test]
    fn front_is_capped_by_page_count() {
        assert_eq!(
            front_pages(100, &matter(8, BackMode::Never, 5)),
            (0..8).collect::<Vec<_>>()
        );
        assert_eq!(
            front_pages(3, &matter(8, BackMode::Never, 5)),
            vec![0, 1, 2]
        );
        assert_eq!(
            front_pages(12, &matter(10000, BackMode::Never, 5)).len(),
            12
        );
        assert_eq!(
            front_pages(0, &matter(8, BackMode::Never, 5)),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn back_never_reads_a_front_page_twice() {
        let always = matter(8, BackMode::Always, 5);
        assert_eq!(back_pages(100, 8, &always), vec![95, 96, 97, 98, 99]);
        assert_eq!(back_pages(10, 8, &always), vec![8, 9]);
        assert_eq!(back_pages(6, 6, &always), Vec::<u32>::new());
        assert_eq!(
            back_pages(50, 50, &matter(10000, BackMode::Always, 5)),
            Vec::<u32>::new()
        );
        // Front matter that stopped early leaves more pages to the back.
        assert_eq!(back_pages(10, 2, &always), vec![5, 6, 7, 8, 9]);
        assert_eq!(back_pages(6, 2, &always), vec![2, 3, 4, 5]);
        assert_eq!(
            back_pages(100, 8, &matter(8, BackMode::Never, 5)),
            Vec::<u32>::new()
        );
        assert_eq!(
            back_pages(100, 8, &matter(8, BackMode::Fallback, 0)),
            Vec::<u32>::new()
        );
    }

    #[test]
    fn front_pages_are_one_batch_unless_reading_may_stop_when_sure() {
        let m = matter(8, BackMode::Never, 5);
        assert!(
            !m.front.stop_when_sure,
            "the seed's contract is the default"
        );
        assert_eq!(front_batches(100, &m), vec![(0..8).collect::<Vec<u32>>()]);
        assert_eq!(front_batches(3, &m), vec![vec![0, 1, 2]]);
        assert_eq!(front_batches(0, &m), Vec::<Vec<u32>>::new());
    }

    #[test]
    fn front_batches_stop_after_two_and_four_pages_within_the_bound() {
        let b = |pages, max| {
            let mut m = matter(max, BackMode::Never, 5);
            m.front.stop_when_sure = true;
            front_batches(pages, &m)
        };
        assert_eq!(b(100, 8), vec![vec![0, 1], vec![2, 3], vec![4, 5, 6, 7]]);
        assert_eq!(b(3, 8), vec![vec![0, 1], vec![2]]);
        assert_eq!(b(4, 8), vec![vec![0, 1], vec![2, 3]]);
        assert_eq!(b(100, 1), vec![vec![0]]);
        assert_eq!(b(100, 3), vec![vec![0, 1], vec![2]]);
        assert_eq!(b(0, 8), Vec::<Vec<u32>>::new());
        // Every front page once, in order.
        for (pages, max) in [(1, 8), (7, 8), (30, 12), (9, 5)] {
            let flat: Vec<u32> = b(pages, max).concat();
            assert_eq!(flat, front_pages(pages, &matter(max, BackMode::Never, 5)));
        }
    }

    #[test]
    fn front_is_settled_by_sure_title_authors_and_year_and_the_title_pages_back() {
        let sure = Metadata {
            title: Some("T".into()),
            authors: vec!["A B".into()],
            year: Some(2001),
            ..Metadata::default()
        };
        assert!(front_settled(&sure, Some(0), 2));
        assert!(
            !front_settled(&sure, Some(2), 3),
            "title page read, its back not yet"
        );
        assert!(front_settled(&sure, Some(2), 4));
        assert!(
            front_settled(&sure, None, 2),
            "title from the Info dictionary only"
        );
        for field in [Field::Title, Field::Authors, Field::Year] {
            let mut m = sure.clone();
            crate::decide::move_field(&mut m, &mut Metadata::default(), field);
            assert!(!front_settled(&m, Some(0), 2), "{field:?} missing");
        }
    }

    #[test]
    fn fallback_reads_back_only_when_something_wanted_is_missing() {
        let mut m = matter(8, BackMode::Fallback, 5);
        let mut meta = Metadata {
            title: Some("T".into()),
            authors: vec!["A B".into()],
            ..Metadata::default()
        };
        assert!(
            !wants_back_matter(&m, &meta),
            "title and author found, nothing else wanted"
        );
        m.back.fields.isbn = true;
        assert!(wants_back_matter(&m, &meta), "isbn wanted and missing");
        meta.isbn = Some("9780306406157".into());
        assert!(!wants_back_matter(&m, &meta));
        meta.authors.clear();
        assert_eq!(missing_wanted(&m, &meta), vec![Field::Authors]);
        assert!(wants_back_matter(&m, &meta));
        assert!(!wants_back_matter(
            &matter(8, BackMode::Never, 5),
            &Metadata::default()
        ));
        assert!(wants_back_matter(&matter(8, BackMode::Always, 5), &meta));
    }
}
