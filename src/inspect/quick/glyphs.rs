//! Glyph names to Unicode, as pdfium reads them (its copy of FreeType's
//! `ps_unicode_value`, `FXFT_unicode_from_adobe_name`):
//! - `uniXXXX` with exactly four upper-case hexadecimal digits, then the
//!   end or a `.suffix`;
//! - `uXXXX` to `uXXXXXX` (four to six upper-case digits), then the end or
//!   a `.suffix`;
//! - otherwise the name up to its first non-initial `.` looked up in the
//!   Adobe Glyph List (`glyphlist.txt`, checked in with its licence
//!   header; names mapped to several code points are left out, as
//!   FreeType's table leaves them out).
//!
//! Unlike some extractors, pdfium does not split ligature names on `_`
//! (`f_i` is unknown) nor know TeX's extra names: neither is done here, so
//! the text stays what pdfium gives.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The Adobe Glyph List 2.0 (Apache 2.0, Adobe), as TeX Live ships it.
const GLYPH_LIST: &str = include_str!("glyphlist.txt");

fn glyph_list() -> &'static HashMap<&'static [u8], u32> {
    static LIST: OnceLock<HashMap<&'static [u8], u32>> = OnceLock::new();
    LIST.get_or_init(|| {
        let mut map = HashMap::with_capacity(4300);
        for line in GLYPH_LIST.lines() {
            if line.starts_with('#') {
                continue;
            }
            let Some((name, value)) = line.split_once(';') else {
                continue;
            };
            if value.contains(' ') {
                continue;
            }
            if let Ok(v) = u32::from_str_radix(value, 16) {
                map.insert(name.as_bytes(), v);
            }
        }
        map
    })
}

/// The Unicode code point pdfium gives a glyph name; `None` for names it
/// does not know (pdfium's 0).
pub fn unicode_of(name: &[u8]) -> Option<u32> {
    let v = code_point_of(name);
    (v != 0).then_some(v)
}

/// The character of a glyph name, when it has one that is a valid `char`.
pub fn char_of(name: &[u8]) -> Option<char> {
    unicode_of(name).and_then(char::from_u32)
}

fn code_point_of(name: &[u8]) -> u32 {
    if let Some(rest) = name.strip_prefix(b"uni") {
        if let Some(v) = hex_then_end(rest, 4, 4) {
            return v;
        }
    }
    if let Some(rest) = name.strip_prefix(b"u") {
        if let Some(v) = hex_then_end(rest, 4, 6) {
            return v;
        }
    }
    // A dot after the first character starts a variant suffix (`a.sc`).
    let base = match name.iter().skip(1).position(|&c| c == b'.') {
        Some(i) => &name[..i + 1],
        None => name,
    };
    glyph_list().get(base).copied().unwrap_or(0)
}

/// `min` to `max` upper-case hexadecimal digits at the start of `s`,
/// followed by the end of `s` or a `.`.
fn hex_then_end(s: &[u8], min: usize, max: usize) -> Option<u32> {
    let digits = s
        .iter()
        .take(max)
        .take_while(|c| matches!(c, b'0'..=b'9' | b'A'..=b'F'))
        .count();
    if digits < min || !matches!(s.get(digits), None | Some(b'.')) {
        return None;
    }
    let text = std::str::from_utf8(&s[..digits]).ok()?;
    u32::from_str_radix(text, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_of_the_list() {
        assert_eq!(char_of(b"A"), Some('A'));
        assert_eq!(char_of(b"fi"), Some('\u{FB01}'));
        assert_eq!(char_of(b"quoteright"), Some('\u{2019}'));
        assert_eq!(char_of(b"space"), Some(' '));
        assert_eq!(char_of(b"nosuchglyph"), None);
        assert_eq!(char_of(b".notdef"), None);
    }

    #[test]
    fn suffixes_are_dropped() {
        assert_eq!(char_of(b"a.sc"), Some('a'));
        assert_eq!(char_of(b"uni0041.alt"), Some('A'));
        // pdfium does not split ligature names.
        assert_eq!(char_of(b"f_i"), None);
    }

    #[test]
    fn code_point_names() {
        assert_eq!(char_of(b"uni00E9"), Some('é'));
        assert_eq!(char_of(b"uni00e9"), None, "lower-case digits");
        assert_eq!(char_of(b"uni00660069"), None, "no ligatures");
        assert_eq!(char_of(b"u1D400"), Some('\u{1D400}'));
        assert_eq!(char_of(b"u00E9"), Some('é'));
        assert_eq!(char_of(b"g42"), None);
        assert_eq!(char_of(b"cid123"), None);
    }

    #[test]
    fn multi_code_point_names_are_unknown() {
        // `dalethatafpatah;05D3 05B2` in the list.
        assert_eq!(char_of(b"dalethatafpatah"), None);
    }
}
