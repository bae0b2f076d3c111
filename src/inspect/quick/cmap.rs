//! CMaps: a font's `/ToUnicode` map (codes to text) and a Type 0 font's
//! `/Encoding` CMap (codes to CIDs, and how many bytes make a code), read
//! as pdfium reads them (`CPDF_ToUnicodeMap`, `CPDF_CMapParser`):
//! - a `bfchar` or `bfrange` section counts only when it has exactly the
//!   number of entries written before `beginbfchar`/`beginbfrange`, and
//!   codes above 0xFFFF spoil it;
//! - a target is UTF-16BE in groups of four hexadecimal digits (`<41>`
//!   gives nothing);
//! - a code given twice keeps its smallest target, multi-character
//!   targets counting after single ones (pdfium keeps a set per code and
//!   takes its first);
//! - a `bfrange`'s last code keeps the first code's high bytes.

use super::Unsupported;
use std::collections::HashMap;

/// One word of a CMap as pdfium's simple parser splits it: hexadecimal
/// strings keep their angle brackets (and any white space inside).
fn words(data: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < data.len() {
        let c = data[i];
        if is_white(c) {
            i += 1;
            continue;
        }
        if c == b'%' {
            while i < data.len() && data[i] != b'\n' && data[i] != b'\r' {
                i += 1;
            }
            continue;
        }
        let start = i;
        i = word_end(data, i);
        out.push(&data[start..i]);
    }
    out
}

fn is_white(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | b'\r' | b'\x0c' | b'\0')
}

fn is_delimiter(c: u8) -> bool {
    matches!(
        c,
        b'(' | b')' | b'<' | b'>' | b'[' | b']' | b'{' | b'}' | b'/' | b'%'
    )
}

/// Where the word starting at `i` ends.
fn word_end(data: &[u8], mut i: usize) -> usize {
    let c = data[i];
    let regular = |c: u8| !is_white(c) && !is_delimiter(c);
    match c {
        b'<' if data.get(i + 1) == Some(&b'<') => i + 2,
        b'>' if data.get(i + 1) == Some(&b'>') => i + 2,
        b'<' => match data[i..].iter().position(|&b| b == b'>') {
            Some(n) => i + n + 1,
            None => data.len(),
        },
        b'(' => {
            let mut depth = 0usize;
            while i < data.len() {
                match data[i] {
                    b'\\' => i += 1,
                    b'(' => depth += 1,
                    b')' => {
                        depth -= 1;
                        if depth == 0 {
                            return i + 1;
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            data.len()
        }
        b'/' => {
            i += 1;
            while i < data.len() && regular(data[i]) {
                i += 1;
            }
            i
        }
        _ if !regular(c) => i + 1,
        _ => {
            while i < data.len() && regular(data[i]) {
                i += 1;
            }
            i
        }
    }
}

/// `<hex>` as a number (white space inside ignored); `None` when not a
/// hexadecimal string or too large.
fn code_of(word: &[u8]) -> Option<u32> {
    let inner = word.strip_prefix(b"<")?.strip_suffix(b">")?;
    let mut code: u32 = 0;
    let mut digits = 0;
    for &c in inner.iter().filter(|c| !is_white(**c)) {
        code = code.checked_mul(16)?.checked_add(hex_value(c)?)?;
        digits += 1;
    }
    (digits > 0).then_some(code)
}

fn hex_value(c: u8) -> Option<u32> {
    super::lexer::hex_val(c).map(u32::from)
}

/// `<hex>` as UTF-16 units of four digits each, up to the first
/// character that is not a digit.
fn units_of(word: &[u8]) -> Vec<u16> {
    let Some(inner) = word.strip_prefix(b"<").and_then(|w| w.strip_suffix(b">")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let (mut unit, mut n) = (0u32, 0);
    for &c in inner {
        let Some(v) = hex_value(c) else { break };
        unit = unit * 16 + v;
        n += 1;
        if n == 4 {
            out.push(unit as u16);
            unit = 0;
            n = 0;
        }
    }
    out
}

/// A word as a decimal integer, as pdfium's `StringToInt` (0 when not a
/// number).
fn int_of(word: &[u8]) -> i64 {
    std::str::from_utf8(word)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(0)
}

/// Codes above this spoil a section (pdfium's `kCidLimit`).
const CODE_LIMIT: u32 = 0xFFFF;

/// Codes a `/ToUnicode` map may enter in all (issue 38). There are at most
/// 65,536 codes, so a real map enters each about once; up to 160,000
/// ranges of 256 codes each (41 million entries) come from a few
/// kilobytes of Flate, and took this reader 2.3 GB and pdfium 3.4 GB.
pub const MAX_EXPANDED: usize = 1 << 20;

/// A decoded CMap larger than this is not a font's map (a full two-byte
/// map in `bfchar` lines is about 1 MB): its words alone would take
/// memory by the gigabyte.
pub const MAX_CMAP_BYTES: usize = 16 << 20;

fn cmap_too_large(len: usize) -> Result<(), Unsupported> {
    if len > MAX_CMAP_BYTES {
        return Err(Unsupported::too_large(format!(
            "a CMap of more than {} MiB",
            MAX_CMAP_BYTES >> 20
        )));
    }
    Ok(())
}

/// A `/ToUnicode` CMap.
#[derive(Debug, Default, Clone)]
pub struct ToUnicode {
    /// Code → target: a UTF-16 unit, or `0xFFFF + 0x10000 × i` for
    /// `multi[i]` (pdfium's packing, which also orders them).
    map: HashMap<u32, u32>,
    multi: Vec<Vec<u16>>,
    /// Codes entered so far, against [`MAX_EXPANDED`].
    entered: usize,
}

impl ToUnicode {
    /// Reads a decoded `/ToUnicode` stream. One that names a predefined
    /// CID-to-Unicode collection (`/Adobe-Japan1-UCS2`...), which pdfium
    /// falls back on for missing codes, is [`Unsupported`].
    pub fn parse(data: &[u8]) -> Result<ToUnicode, Unsupported> {
        cmap_too_large(data.len())?;
        let words = words(data);
        let mut map = ToUnicode::default();
        let mut i = 0;
        while i < words.len() {
            let word = words[i];
            let count = if i > 0 { int_of(words[i - 1]) } else { 0 };
            i += 1;
            match word {
                b"beginbfchar" => i = map.bfchar(&words, i, count)?,
                b"beginbfrange" => i = map.bfrange(&words, i, count)?,
                b"/Adobe-Korea1-UCS2"
                | b"/Adobe-Japan1-UCS2"
                | b"/Adobe-CNS1-UCS2"
                | b"/Adobe-GB1-UCS2" => {
                    return Err(Unsupported::new("ToUnicode falls back on a CJK collection"));
                }
                _ => {}
            }
        }
        Ok(map)
    }

    /// Whether the map has text for `code`.
    pub fn has(&self, code: u32) -> bool {
        self.map.contains_key(&code)
    }

    /// Appends the text of `code`; false when the map has no entry.
    /// Surrogate pairs are joined; an unpaired surrogate is dropped.
    pub fn append(&self, code: u32, out: &mut String) -> bool {
        let Some(&value) = self.map.get(&code) else {
            return false;
        };
        let single = [(value & 0xFFFF) as u16];
        let units: &[u16] = if value & 0xFFFF != 0xFFFF {
            &single
        } else {
            match self.multi.get((value >> 16) as usize) {
                Some(m) => m,
                None => return true,
            }
        };
        out.extend(char::decode_utf16(units.iter().copied()).filter_map(Result::ok));
        true
    }

    fn insert(&mut self, code: u32, value: u32) {
        self.map
            .entry(code)
            .and_modify(|v| *v = (*v).min(value))
            .or_insert(value);
    }

    fn set(&mut self, code: u32, units: Vec<u16>) {
        match units.len() {
            0 => {}
            1 => self.insert(code, units[0] as u32),
            // A later multi-character target never wins over an earlier
            // target (it packs to a larger value): not kept, so the
            // targets held are at most one per code.
            _ if self.map.contains_key(&code) => {}
            _ => {
                let value = (self.multi.len() as u32).saturating_mul(0x10000) | 0xFFFF;
                self.multi.push(units);
                self.insert(code, value);
            }
        }
    }

    /// Counts `n` codes about to be entered; too many in all is
    /// [`Unsupported::too_large`].
    fn enter(&mut self, n: usize) -> Result<(), Unsupported> {
        self.entered = self.entered.saturating_add(n);
        if self.entered > MAX_EXPANDED {
            return Err(Unsupported::too_large(format!(
                "a ToUnicode CMap whose ranges expand to more than {MAX_EXPANDED} codes"
            )));
        }
        Ok(())
    }

    /// A `bfchar` section from word `i`; where it ends.
    fn bfchar(&mut self, words: &[&[u8]], mut i: usize, count: i64) -> Result<usize, Unsupported> {
        let mut valid = (0..=160_000).contains(&count);
        let mut pairs = Vec::new();
        while i < words.len() && words[i] != b"endbfchar" {
            let word = words[i];
            i += 1;
            if !valid {
                continue;
            }
            match code_of(word).filter(|&c| c <= CODE_LIMIT) {
                Some(code) => {
                    pairs.push((code, words.get(i).copied().unwrap_or(b"")));
                    i += 1;
                    valid = pairs.len() as i64 <= count;
                }
                None => valid = false,
            }
        }
        if valid && pairs.len() as i64 == count {
            self.enter(pairs.len())?;
            for (code, target) in pairs {
                self.set(code, units_of(target));
            }
        }
        Ok(i + 1)
    }

    /// A `bfrange` section from word `i`; where it ends.
    fn bfrange(&mut self, words: &[&[u8]], mut i: usize, count: i64) -> Result<usize, Unsupported> {
        let mut valid = (0..=160_000).contains(&count);
        let mut ranges: Vec<(u32, u32, bool, Vec<&[u8]>)> = Vec::new();
        let word_at = |i: usize| words.get(i).copied().unwrap_or(b"");
        while i < words.len() && words[i] != b"endbfrange" {
            let word = words[i];
            i += 1;
            if !valid {
                continue;
            }
            let Some(low) = code_of(word) else {
                valid = false;
                continue;
            };
            let Some(high) = code_of(word_at(i)) else {
                valid = false;
                i += 1;
                continue;
            };
            i += 1;
            let high = (low & 0xFFFF_FF00) | (high & 0xFF);
            if low > CODE_LIMIT || high > CODE_LIMIT || low > high {
                valid = false;
                continue;
            }
            let start = word_at(i);
            i += 1;
            if start == b"[" {
                let n = (high - low + 1) as usize;
                let targets: Vec<&[u8]> = (0..n).map(|k| word_at(i + k)).collect();
                i += n;
                valid = word_at(i) == b"]";
                i += 1;
                ranges.push((low, high, true, targets));
            } else {
                ranges.push((low, high, false, vec![start]));
            }
            valid &= ranges.len() as i64 <= count;
        }
        if valid && ranges.len() as i64 == count {
            for (low, high, array, targets) in ranges {
                self.enter((high - low + 1) as usize)?;
                self.range(low, high, array, &targets);
            }
        }
        Ok(i + 1)
    }

    /// Enters one range: an array of targets, or a first target counted
    /// up.
    fn range(&mut self, low: u32, high: u32, array: bool, targets: &[&[u8]]) {
        if array {
            for (code, target) in (low..=high).zip(targets) {
                self.set(code, units_of(target));
            }
            return;
        }
        let start = targets[0];
        let units = units_of(start);
        if units.len() == 1 {
            // The whole number is the first value, counted up.
            let Some(mut value) = code_of(start) else {
                return;
            };
            for code in low..=high {
                self.insert(code, value);
                value = value.wrapping_add(1);
            }
            return;
        }
        let mut units = units;
        for code in low..=high {
            if code > low {
                units = next_units(&units);
            }
            if self.map.contains_key(&code) {
                // As in `set`: this target would not win.
                continue;
            }
            let value = (self.multi.len() as u32).saturating_mul(0x10000) | 0xFFFF;
            self.multi.push(units.clone());
            self.insert(code, value);
        }
    }
}

/// The next target of a multi-character range: the last unit counted up,
/// carrying into the ones before (pdfium's `StringDataAdd`).
fn next_units(units: &[u16]) -> Vec<u16> {
    let mut out = units.to_vec();
    for u in out.iter_mut().rev() {
        let (v, carry) = u.overflowing_add(1);
        *u = v;
        if !carry {
            return out;
        }
    }
    out.insert(0, 1);
    out
}

/// A code space range: codes of `lower.len()` bytes, each byte between
/// the bounds.
#[derive(Debug, Clone)]
struct CodeRange {
    lower: Vec<u8>,
    upper: Vec<u8>,
}

/// How codes are cut from a string.
#[derive(Debug, Clone)]
enum Coding {
    OneByte,
    TwoBytes,
    /// Several code space ranges, up to four bytes.
    Mixed(Vec<CodeRange>),
}

/// A Type 0 font's CMap: `Identity-H` or an embedded horizontal CMap.
#[derive(Debug, Clone)]
pub struct CidCMap {
    coding: Coding,
    /// `(first code, last code, first CID)`; later ranges win.
    ranges: Vec<(u32, u32, u32)>,
    identity: bool,
}

impl CidCMap {
    /// The predefined `Identity-H`: two-byte codes that are their CIDs.
    pub fn identity_h() -> CidCMap {
        CidCMap {
            coding: Coding::TwoBytes,
            ranges: Vec::new(),
            identity: true,
        }
    }

    /// An embedded CMap stream. Vertical ones (`/WMode 1`), and ones that
    /// use another CMap, are [`Unsupported`].
    pub fn parse(data: &[u8]) -> Result<CidCMap, Unsupported> {
        cmap_too_large(data.len())?;
        let words = words(data);
        let mut code_ranges = Vec::new();
        let mut ranges = Vec::new();
        let mut i = 0;
        while i < words.len() {
            match words[i] {
                b"usecmap" => return Err(Unsupported::new("a CMap uses another CMap")),
                b"/WMode" if words.get(i + 1).is_some_and(|w| int_of(w) == 1) => {
                    return Err(Unsupported::new("vertical writing"));
                }
                b"begincodespacerange" => {
                    i += 1;
                    while i + 1 < words.len() && words[i] != b"endcodespacerange" {
                        if let Some(r) = code_range(words[i], words[i + 1]) {
                            code_ranges.push(r);
                        }
                        i += 2;
                    }
                }
                b"begincidrange" => {
                    i += 1;
                    while i + 2 < words.len() && words[i] != b"endcidrange" {
                        if let (Some(lo), Some(hi)) = (code_of(words[i]), code_of(words[i + 1])) {
                            ranges.push((lo, hi, int_of(words[i + 2]).max(0) as u32));
                        }
                        i += 3;
                    }
                }
                b"begincidchar" => {
                    i += 1;
                    while i + 1 < words.len() && words[i] != b"endcidchar" {
                        if let Some(code) = code_of(words[i]) {
                            ranges.push((code, code, int_of(words[i + 1]).max(0) as u32));
                        }
                        i += 2;
                    }
                }
                _ => {}
            }
            i += 1;
        }
        let coding = match code_ranges.len() {
            0 => Coding::TwoBytes,
            1 if code_ranges[0].lower.len() == 2 => Coding::TwoBytes,
            1 => Coding::OneByte,
            _ => Coding::Mixed(code_ranges),
        };
        Ok(CidCMap {
            coding,
            ranges,
            identity: false,
        })
    }

    /// The code at the start of `s` and its length (pdfium's
    /// `CPDF_CMap::GetNextChar`: a code no range takes is 0).
    pub fn next_code(&self, s: &[u8]) -> (u32, usize) {
        match &self.coding {
            Coding::OneByte => (s.first().copied().unwrap_or(0) as u32, 1.min(s.len())),
            Coding::TwoBytes => match s {
                [] => (0, 0),
                [b] => ((*b as u32) << 8, 1),
                [a, b, ..] => (((*a as u32) << 8) | *b as u32, 2),
            },
            Coding::Mixed(code_ranges) => mixed_next_code(code_ranges, s),
        }
    }

    /// The CID of `code` (0 when the CMap does not map it).
    pub fn cid(&self, code: u32) -> u16 {
        if self.identity {
            return code as u16;
        }
        self.ranges
            .iter()
            .rev()
            .find(|&&(lo, hi, _)| lo <= code && code <= hi)
            .map_or(0, |&(lo, _, cid)| (cid + (code - lo)) as u16)
    }
}

fn code_range(lower: &[u8], upper: &[u8]) -> Option<CodeRange> {
    let bytes = |w: &[u8]| -> Option<Vec<u8>> {
        let units: Vec<u32> = w
            .strip_prefix(b"<")?
            .strip_suffix(b">")?
            .iter()
            .filter_map(|&c| hex_value(c))
            .collect();
        if units.is_empty() || units.len() % 2 != 0 || units.len() > 8 {
            return None;
        }
        Some(units.chunks(2).map(|p| (p[0] * 16 + p[1]) as u8).collect())
    };
    let (lower, upper) = (bytes(lower)?, bytes(upper)?);
    (lower.len() == upper.len()).then_some(CodeRange { lower, upper })
}

/// pdfium's `CheckFourByteCodeRange`: 2 when `codes` is a whole code, 1
/// when it starts a longer one, 0 when no range takes it.
fn check_ranges(codes: &[u8], ranges: &[CodeRange]) -> u8 {
    for r in ranges.iter().rev() {
        let size = r.lower.len();
        if size < codes.len() {
            continue;
        }
        let matched = codes
            .iter()
            .zip(r.lower.iter().zip(&r.upper))
            .take_while(|(c, (lo, hi))| *lo <= *c && *c <= *hi)
            .count();
        if matched == size {
            return 2;
        }
        if matched > 0 {
            return if codes.len() == size { 2 } else { 1 };
        }
    }
    0
}

fn mixed_next_code(ranges: &[CodeRange], s: &[u8]) -> (u32, usize) {
    if s.is_empty() {
        return (0, 0);
    }
    let mut len = 1;
    loop {
        match check_ranges(&s[..len], ranges) {
            0 => return (0, len),
            2 => {
                let code = s[..len].iter().fold(0u32, |c, &b| (c << 8) | b as u32);
                return (code, len);
            }
            _ => {
                if len == 4 || len == s.len() {
                    return (0, len);
                }
                len += 1;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(map: &ToUnicode, code: u32) -> Option<String> {
        let mut s = String::new();
        map.append(code, &mut s).then_some(s)
    }

    #[test]
    fn bfchar_and_bfrange() {
        let cmap = b"/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n\
            1 begincodespacerange <00> <FF> endcodespacerange\n\
            3 beginbfchar <01> <0041> <02> <00660069> <03> <D835DC00> endbfchar\n\
            2 beginbfrange <10> <12> <0061> <20> <21> [<0031> <00320033>] endbfrange\n\
            1 beginbfrange <30> <31> <00660066> endbfrange\n\
            endcmap";
        let map = ToUnicode::parse(cmap).unwrap();
        assert_eq!(text(&map, 1).as_deref(), Some("A"));
        assert_eq!(text(&map, 2).as_deref(), Some("fi"));
        assert_eq!(text(&map, 3).as_deref(), Some("\u{1D400}"));
        assert_eq!(text(&map, 0x10).as_deref(), Some("a"));
        assert_eq!(text(&map, 0x12).as_deref(), Some("c"));
        assert_eq!(text(&map, 0x20).as_deref(), Some("1"));
        assert_eq!(text(&map, 0x21).as_deref(), Some("23"));
        assert_eq!(text(&map, 0x30).as_deref(), Some("ff"));
        assert_eq!(text(&map, 0x31).as_deref(), Some("fg"));
        assert_eq!(text(&map, 0x13), None);
    }

    #[test]
    fn surrogate_ranges_count_up_the_low_half() {
        let map = ToUnicode::parse(b"1 beginbfrange <01> <02> <D835DC00> endbfrange").unwrap();
        assert_eq!(text(&map, 2).as_deref(), Some("\u{1D401}"));
    }

    #[test]
    fn sections_with_a_wrong_count_are_dropped() {
        let map = ToUnicode::parse(b"2 beginbfchar <01> <0041> endbfchar").unwrap();
        assert_eq!(text(&map, 1), None);
        let map = ToUnicode::parse(b"beginbfchar <01> <0041> endbfchar").unwrap();
        assert_eq!(text(&map, 1), None);
    }

    #[test]
    fn short_targets_give_nothing_and_the_smallest_target_wins() {
        let map = ToUnicode::parse(
            b"1 beginbfchar <01> <41> endbfchar \
              2 beginbfchar <02> <0062> <02> <0061> endbfchar",
        )
        .unwrap();
        assert!(!map.has(1));
        assert_eq!(text(&map, 2).as_deref(), Some("a"));
    }

    /// Issue 38: ranges that expand to tens of millions of codes (a
    /// 46 KB PDF took 2.3 GB) are refused as too large once they pass
    /// [`MAX_EXPANDED`]; the same codes entered again and again with
    /// multi-character targets keep one target per code.
    #[test]
    fn ranges_that_expand_hugely_are_too_large() {
        let ranges = 5000;
        let mut cmap = format!("{ranges} beginbfrange\n");
        for _ in 0..ranges {
            cmap.push_str("<0000> <00FF> <00660066>\n");
        }
        cmap.push_str("endbfrange\n");
        let err = ToUnicode::parse(cmap.as_bytes()).unwrap_err();
        assert!(err.is_too_large(), "{err}");
        assert!(err.why.contains("more than 1048576 codes"), "{err}");
        // Under the cap the repeats are read; the first target wins and
        // no target is kept twice.
        let cmap = cmap.replacen(&format!("{ranges} "), "3000 ", 1);
        let cmap = cmap.replacen("<0000> <00FF> <00660066>\n", "", ranges - 3000);
        let map = ToUnicode::parse(cmap.as_bytes()).unwrap();
        assert_eq!(text(&map, 1).as_deref(), Some("fg"));
        assert_eq!(map.multi.len(), 256);
        // A CMap too big to be a font's is refused before it is split.
        let huge = vec![b' '; MAX_CMAP_BYTES + 1];
        assert!(ToUnicode::parse(&huge).unwrap_err().is_too_large());
        assert!(CidCMap::parse(&huge).unwrap_err().is_too_large());
    }

    #[test]
    fn range_end_keeps_the_high_byte() {
        let map = ToUnicode::parse(b"1 beginbfrange <0110> <02FF> <0041> endbfrange").unwrap();
        assert_eq!(text(&map, 0x0111).as_deref(), Some("B"));
        assert_eq!(text(&map, 0x0200), None);
    }

    #[test]
    fn cjk_fallbacks_are_unsupported() {
        assert!(ToUnicode::parse(b"/CMapName /Adobe-Japan1-UCS2 def").is_err());
    }

    #[test]
    fn identity_codes() {
        let c = CidCMap::identity_h();
        assert_eq!(c.next_code(b"\x01\x02\x03"), (0x0102, 2));
        assert_eq!(c.next_code(b"\x03"), (0x0300, 1));
        assert_eq!(c.cid(0x0102), 0x0102);
    }

    #[test]
    fn embedded_cmap() {
        let c = CidCMap::parse(
            b"2 begincodespacerange <00> <7F> <8000> <FFFF> endcodespacerange \
              1 begincidrange <00> <7F> 1 endcidrange \
              1 begincidchar <8001> 500 endcidchar",
        )
        .unwrap();
        assert_eq!(c.next_code(b"A\x80\x01"), (0x41, 1));
        assert_eq!(c.next_code(b"\x80\x01"), (0x8001, 2));
        assert_eq!(c.cid(0x41), 0x42);
        assert_eq!(c.cid(0x8001), 500);
        assert_eq!(c.cid(0x8002), 0);
        assert!(CidCMap::parse(b"/WMode 1 def").is_err());
        assert!(CidCMap::parse(b"/Identity-H usecmap").is_err());
    }
}
