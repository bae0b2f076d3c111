//! Page selection (SPEC 4): which pages are read as front matter, and
//! whether and which pages are read as back matter.

use crate::model::{Field, Metadata};
use crate::settings::{BackMode, MatterConfig};

/// Front matter: pages `0 .. min(front.max_pages, page_count)`.
pub fn front_pages(page_count: u32, matter: &MatterConfig) -> Vec<u32> {
    (0..matter.front.max_pages.min(page_count)).collect()
}

/// Back matter: the last `back.max_pages` pages, minus pages already read
/// as front matter (no page is read twice). Empty in mode `never`.
pub fn back_pages(page_count: u32, matter: &MatterConfig) -> Vec<u32> {
    if matter.back.mode == BackMode::Never {
        return Vec::new();
    }
    let front_end = matter.front.max_pages.min(page_count);
    let start = page_count
        .saturating_sub(matter.back.max_pages)
        .max(front_end);
    (start..page_count).collect()
}

/// Whether back matter is read, given what front matter (with its vision
/// answers) yielded: always in `always`, never in `never`, and in
/// `fallback` only when the title, every author, or a field set true in
/// `back.fields` is missing.
pub fn wants_back_matter(matter: &MatterConfig, front: &Metadata) -> bool {
    match matter.back.mode {
        BackMode::Never => false,
        BackMode::Always => true,
        BackMode::Fallback => !missing_wanted(matter, front).is_empty(),
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
        assert_eq!(
            back_pages(100, &matter(8, BackMode::Always, 5)),
            vec![95, 96, 97, 98, 99]
        );
        assert_eq!(back_pages(10, &matter(8, BackMode::Always, 5)), vec![8, 9]);
        assert_eq!(
            back_pages(6, &matter(8, BackMode::Always, 5)),
            Vec::<u32>::new()
        );
        assert_eq!(
            back_pages(50, &matter(10000, BackMode::Always, 5)),
            Vec::<u32>::new()
        );
        assert_eq!(
            back_pages(100, &matter(8, BackMode::Never, 5)),
            Vec::<u32>::new()
        );
        assert_eq!(
            back_pages(100, &matter(8, BackMode::Fallback, 0)),
            Vec::<u32>::new()
        );
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
