//! Helpers shared by the unit tests: a seeded pseudo-random generator for
//! the bounded fuzz tests (the hOCR and XMP readers, the finders), so that a
//! failure is replayed by running the same test again.

/// xorshift64*: small, fast, and the same sequence on every machine.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`0` when `n` is 0).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }

    /// Up to `max` arbitrary bytes.
    pub(crate) fn bytes(&mut self, max: usize) -> Vec<u8> {
        let len = self.below(max + 1);
        (0..len).map(|_| self.next_u64() as u8).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::Rng;
    use crate::extract::{info_candidates, text_candidates};
    use crate::model::{DocText, InfoMeta, PageText, Rect, TextLine, Via};

    /// Pieces of what title, copyright and contents pages hold, with the
    /// characters and shapes that tripped finders before: ISBN and DOI
    /// fragments, years, multi-byte and combining text, control characters,
    /// bare punctuation.
    const PIECES: [&str; 40] = [
        "The",
        "Harbour",
        "Ledger",
        "by",
        "and",
        "Dr.",
        "Prof.",
        "Jr.",
        "MARIA",
        "de la",
        "O'Brien",
        "Smith,",
        "edited by",
        "Second Edition",
        "2nd ed.",
        "©",
        "Copyright",
        "(c) 1999",
        "2019",
        "19",
        "ISBN",
        "978-0-306-40615-7",
        "0-306-40615-",
        "X",
        "ISBN-10:",
        "doi:",
        "10.1000/182",
        "https://doi.org/10.",
        "LCCN",
        "2019012345",
        "Library of Congress",
        "Press",
        "Verlag",
        "Éditions",
        "—",
        "‘’“”",
        "e\u{301}",
        "\u{0}\u{1b}[31m",
        "…",
        ";:,.",
    ];

    fn line(rng: &mut Rng, top: f32) -> TextLine {
        let mut text = String::new();
        for _ in 0..rng.below(12) {
            if rng.below(10) == 0 {
                text.push_str(&String::from_utf8_lossy(&rng.bytes(8)));
            } else {
                text.push_str(rng.pick::<&str>(&PIECES));
            }
            if rng.below(4) != 0 {
                text.push(' ');
            }
        }
        let size = *rng.pick(&[0.0, 0.5, 6.0, 9.0, 11.0, 12.0, 18.0, 24.0, 72.0, 400.0]);
        let x0 = rng.below(500) as f32;
        TextLine {
            bbox: Rect {
                x0,
                top,
                x1: x0 + rng.below(500) as f32,
                bottom: top + size,
            },
            text,
            size,
            bold: rng.below(3) == 0,
        }
    }

    fn page(rng: &mut Rng, index: u32) -> PageText {
        let mut top = 0.0;
        let lines = (0..rng.below(30))
            .map(|_| {
                top += rng.below(40) as f32;
                line(rng, top)
            })
            .collect();
        PageText {
            index,
            width: 432.0,
            height: 648.0,
            lines,
            image_ratio: rng.below(101) as f32 / 100.0,
            image: None,
            via: if rng.below(4) == 0 {
                Via::Ocr
            } else {
                Via::Text
            },
            ocr_confidence: Some(rng.below(101) as f32),
        }
    }

    /// No page text makes a finder panic: pseudo-random documents of up to
    /// eight pages from the pieces above and arbitrary bytes, and Info
    /// dictionaries of the same, through the finders' public entries.
    #[test]
    fn finders_never_panic_on_arbitrary_page_texts() {
        let mut rng = Rng::new(0xC010_F0E5);
        for _ in 0..150 {
            let n = rng.below(9) as u32;
            let pages: Vec<PageText> = (0..n).map(|i| page(&mut rng, i)).collect();
            let page_count = n + rng.below(400) as u32;
            let _ = text_candidates(&DocText {
                pages: &pages,
                page_count,
            });
            let mut field = || (rng.below(3) != 0).then(|| line(&mut rng, 0.0).text);
            let info = InfoMeta {
                title: field(),
                author: field(),
                subject: field(),
                keywords: field(),
                creator: field(),
                producer: field(),
            };
            let _ = info_candidates(&info);
        }
    }
}
