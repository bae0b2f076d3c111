//! Identifiers as books print them: ISBN-13 and ISBN-10 with valid check
//! digits, old-style and modern LCCNs, DOIs, the EAN-13 bar pattern of the
//! back cover, and Roman numerals. All values are invented; only their form
//! is real.

use super::rng::Rng;

/// One ISBN, kept as its parts so that it can be printed hyphenated.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Isbn {
    /// "978" or "979".
    pub prefix: String,
    pub group: String,
    pub registrant: String,
    pub publication: String,
}

impl Isbn {
    fn digits12(&self) -> String {
        format!(
            "{}{}{}{}",
            self.prefix, self.group, self.registrant, self.publication
        )
    }

    pub fn check13(&self) -> char {
        let d = self.digits12();
        let sum: u32 = d
            .bytes()
            .enumerate()
            .map(|(i, b)| (b - b'0') as u32 * if i % 2 == 0 { 1 } else { 3 })
            .sum();
        char::from(b'0' + ((10 - sum % 10) % 10) as u8)
    }

    /// The 13 digits, no separators: the truth form.
    pub fn isbn13(&self) -> String {
        format!("{}{}", self.digits12(), self.check13())
    }

    pub fn hyphen13(&self) -> String {
        format!(
            "{}-{}-{}-{}-{}",
            self.prefix,
            self.group,
            self.registrant,
            self.publication,
            self.check13()
        )
    }

    /// Only 978 numbers have a 10-digit form.
    pub fn has10(&self) -> bool {
        self.prefix == "978"
    }

    fn check10(&self) -> char {
        let d = &self.digits12()[3..];
        let sum: u32 = d
            .bytes()
            .enumerate()
            .map(|(i, b)| (b - b'0') as u32 * (10 - i as u32))
            .sum();
        match (11 - sum % 11) % 11 {
            10 => 'X',
            c => char::from(b'0' + c as u8),
        }
    }

    pub fn isbn10(&self) -> String {
        format!("{}{}", &self.digits12()[3..], self.check10())
    }

    pub fn hyphen10(&self) -> String {
        format!(
            "{}-{}-{}-{}",
            self.group,
            self.registrant,
            self.publication,
            self.check10()
        )
    }

    /// The same registrant, another publication number.
    pub fn sibling(&self, publication: u32) -> Isbn {
        let width = self.publication.len();
        let modulo = 10u32.pow(width as u32);
        Isbn {
            publication: format!("{:0width$}", publication % modulo),
            ..self.clone()
        }
    }

    pub fn publication_number(&self) -> u32 {
        self.publication.parse().unwrap_or(0)
    }
}

/// A publisher's ISBN block: prefix, group (by language) and a registrant
/// drawn from the top of a long-registrant range, where assignments are
/// sparse. The check digits are right; the numbers are not meant to be
/// anybody's.
pub fn registrant_block(rng: &mut Rng, group: &str, prefix: &str) -> Isbn {
    // 12 digits = prefix(3) + group + registrant + publication.
    let publication_len = 2;
    let registrant_len = 12 - 3 - group.len() - publication_len;
    let mut registrant = String::from("99");
    while registrant.len() < registrant_len {
        registrant.push(char::from(b'0' + rng.below(10) as u8));
    }
    Isbn {
        prefix: prefix.into(),
        group: group.into(),
        registrant,
        publication: format!("{:02}", rng.below(60)),
    }
}

/// A Library of Congress Control Number.
#[derive(Clone, Debug)]
pub struct Lccn {
    pub year: i32,
    pub serial: u32,
}

impl Lccn {
    /// Pre-2001 numbers have a two-digit year.
    pub fn old_style(&self) -> bool {
        self.year < 2001
    }

    /// As printed: "79-12345" or "2019012345".
    pub fn printed(&self) -> String {
        if self.old_style() {
            format!("{:02}-{}", self.year % 100, self.serial)
        } else {
            format!("{}{:06}", self.year, self.serial)
        }
    }

    /// The normalised form of the truth file (year + six-digit serial).
    pub fn normalised(&self) -> String {
        if self.old_style() {
            format!("{:02}{:06}", self.year % 100, self.serial)
        } else {
            format!("{}{:06}", self.year, self.serial)
        }
    }
}

pub fn lccn(rng: &mut Rng, year: i32) -> Lccn {
    let year = if rng.chance(0.6) { year - 1 } else { year };
    let serial = if year < 2001 {
        rng.range(1000, 99999) as u32
    } else {
        rng.range(1000, 59999) as u32
    };
    Lccn { year, serial }
}

/// EAN-13 modules (true = bar) for a 13-digit number: 95 modules.
pub fn ean13_modules(digits: &str) -> Vec<bool> {
    const L: [&str; 10] = [
        "0001101", "0011001", "0010011", "0111101", "0100011", "0110001", "0101111", "0111011",
        "0110111", "0001011",
    ];
    const G: [&str; 10] = [
        "0100111", "0110011", "0011011", "0100001", "0011101", "0111001", "0000101", "0010001",
        "0001001", "0010111",
    ];
    const R: [&str; 10] = [
        "1110010", "1100110", "1101100", "1000010", "1011100", "1001110", "1010000", "1000100",
        "1001000", "1110100",
    ];
    const PARITY: [&str; 10] = [
        "LLLLLL", "LLGLGG", "LLGGLG", "LLGGGL", "LGLLGG", "LGGLLG", "LGGGLL", "LGLGLG", "LGLGGL",
        "LGGLGL",
    ];
    let d: Vec<usize> = digits.bytes().map(|b| (b - b'0') as usize).collect();
    let mut s = String::from("101");
    for (i, p) in PARITY[d[0]].chars().enumerate() {
        s.push_str(if p == 'L' { L[d[i + 1]] } else { G[d[i + 1]] });
    }
    s.push_str("01010");
    for &x in &d[7..13] {
        s.push_str(R[x]);
    }
    s.push_str("101");
    s.chars().map(|c| c == '1').collect()
}

pub fn roman(mut n: u32, upper: bool) -> String {
    const T: [(u32, &str); 13] = [
        (1000, "m"),
        (900, "cm"),
        (500, "d"),
        (400, "cd"),
        (100, "c"),
        (90, "xc"),
        (50, "l"),
        (40, "xl"),
        (10, "x"),
        (9, "ix"),
        (5, "v"),
        (4, "iv"),
        (1, "i"),
    ];
    let mut s = String::new();
    for (v, r) in T {
        while n >= v {
            s.push_str(r);
            n -= v;
        }
    }
    if upper { s.to_uppercase() } else { s }
}

/// The value of a Roman numeral (either case); 0 when it is not one.
pub fn roman_value(s: &str) -> u32 {
    let v = |c: char| match c.to_ascii_lowercase() {
        'i' => 1,
        'v' => 5,
        'x' => 10,
        'l' => 50,
        'c' => 100,
        'd' => 500,
        'm' => 1000,
        _ => 0,
    };
    let digits: Vec<u32> = s.chars().map(v).collect();
    let mut total = 0;
    for (i, d) in digits.iter().enumerate() {
        if digits.get(i + 1).is_some_and(|n| n > d) {
            total -= *d as i64;
        } else {
            total += *d as i64;
        }
    }
    total.max(0) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_digits_match_known_numbers() {
        let i = Isbn {
            prefix: "978".into(),
            group: "1".into(),
            registrant: "914673".into(),
            publication: "40".into(),
        };
        assert_eq!(i.isbn13(), "9781914673405");
        assert_eq!(i.isbn10(), "1914673409");
        let i = Isbn {
            prefix: "978".into(),
            group: "0".into(),
            registrant: "91423".into(),
            publication: "103".into(),
        };
        assert_eq!(i.hyphen10(), "0-91423-103-0");
    }

    #[test]
    fn lccn_forms() {
        let l = Lccn {
            year: 1979,
            serial: 12345,
        };
        assert_eq!(l.printed(), "79-12345");
        assert_eq!(l.normalised(), "79012345");
        assert_eq!(roman(2019, true), "MMXIX");
        assert_eq!(ean13_modules("9781914673405").len(), 95);
    }
}
