//! [`Pattern`]: a [`Regex`] that stays fast on non-ASCII text.
//!
//! The finders' patterns use `\b`, which the regex crate treats as a
//! Unicode word boundary. Its fast engine (a lazy DFA) handles that only on
//! ASCII text: on a line with one accented letter, curly quote or dash it
//! falls back to the slower NFA engines, about fifty times slower per line
//! on the corpus, and those lines made up half of extraction time.
//!
//! A [`Pattern`] keeps the pattern as written and a relaxed twin with every
//! word-boundary assertion (`\b`, `\B`, `\b{...}`) replaced by the empty
//! group. Dropping an assertion only lets more text match, so when the twin
//! (which the lazy DFA handles on any text) finds nothing, the pattern
//! cannot match either. On non-ASCII text the twin is asked first and the
//! pattern only when the twin matches; answers are always the pattern's
//! own, so results are exactly those of the plain [`Regex`].
//!
//! Methods not defined here (`split`, `find_at`, ...) reach the pattern
//! through `Deref`, unchanged.

use regex::{Captures, Match, Regex, Replacer};
use std::borrow::Cow;

/// A compiled finder pattern; use it as a [`Regex`].
#[derive(Debug, Clone)]
pub struct Pattern {
    re: Regex,
    /// The pattern without word-boundary assertions, when it had any.
    relaxed: Option<Regex>,
}

impl Pattern {
    pub fn new(pattern: &str) -> Result<Pattern, regex::Error> {
        let re = Regex::new(pattern)?;
        let relaxed_text = relax(pattern);
        // A twin that does not compile (it cannot happen with valid
        // patterns, but it costs nothing to be safe) just means no twin.
        let relaxed = (relaxed_text != pattern)
            .then(|| Regex::new(&relaxed_text).ok())
            .flatten();
        Ok(Pattern { re, relaxed })
    }

    /// False only when `haystack` certainly holds no match.
    #[inline]
    fn may_match(&self, haystack: &str) -> bool {
        match &self.relaxed {
            Some(twin) if !haystack.is_ascii() => twin.is_match(haystack),
            _ => true,
        }
    }

    /// [`Regex::is_match`].
    pub fn is_match(&self, haystack: &str) -> bool {
        self.may_match(haystack) && self.re.is_match(haystack)
    }

    /// [`Regex::find`].
    pub fn find<'h>(&self, haystack: &'h str) -> Option<Match<'h>> {
        if self.may_match(haystack) {
            self.re.find(haystack)
        } else {
            None
        }
    }

    /// [`Regex::find_iter`].
    pub fn find_iter<'r, 'h>(
        &'r self,
        haystack: &'h str,
    ) -> std::iter::Flatten<std::option::IntoIter<regex::Matches<'r, 'h>>> {
        self.may_match(haystack)
            .then(|| self.re.find_iter(haystack))
            .into_iter()
            .flatten()
    }

    /// [`Regex::captures`].
    pub fn captures<'h>(&self, haystack: &'h str) -> Option<Captures<'h>> {
        if self.may_match(haystack) {
            self.re.captures(haystack)
        } else {
            None
        }
    }

    /// [`Regex::captures_iter`].
    pub fn captures_iter<'r, 'h>(
        &'r self,
        haystack: &'h str,
    ) -> std::iter::Flatten<std::option::IntoIter<regex::CaptureMatches<'r, 'h>>> {
        self.may_match(haystack)
            .then(|| self.re.captures_iter(haystack))
            .into_iter()
            .flatten()
    }

    /// [`Regex::replace`] (borrowed, as the regex crate does, when nothing matches).
    pub fn replace<'h, R: Replacer>(&self, haystack: &'h str, rep: R) -> Cow<'h, str> {
        if self.may_match(haystack) {
            self.re.replace(haystack, rep)
        } else {
            Cow::Borrowed(haystack)
        }
    }

    /// [`Regex::replace_all`] (borrowed when nothing matches).
    pub fn replace_all<'h, R: Replacer>(&self, haystack: &'h str, rep: R) -> Cow<'h, str> {
        if self.may_match(haystack) {
            self.re.replace_all(haystack, rep)
        } else {
            Cow::Borrowed(haystack)
        }
    }
}

impl std::ops::Deref for Pattern {
    type Target = Regex;

    fn deref(&self) -> &Regex {
        &self.re
    }
}

/// `pattern` with every word-boundary assertion (`\b`, `\B`, `\b{start}`
/// ...) replaced by the empty group `(?:)`, which keeps the structure
/// around it (a quantifier after it still applies to an empty group).
/// Escaped backslashes (`\\b` is a backslash and a `b`) are left alone.
fn relax(pattern: &str) -> String {
    let mut out = String::with_capacity(pattern.len());
    let mut chars = pattern.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('b' | 'B') => {
                if chars.peek() == Some(&'{') {
                    for x in chars.by_ref() {
                        if x == '}' {
                            break;
                        }
                    }
                }
                out.push_str("(?:)");
            }
            Some(next) => {
                out.push('\\');
                out.push(next);
            }
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relax_drops_only_word_boundaries() {
        assert_eq!(relax(r"\bet al\b"), r"(?:)et al(?:)");
        assert_eq!(relax(r"\Bx\b{start}y\b{end-half}"), r"(?:)x(?:)y(?:)");
        assert_eq!(relax(r"a\\b\d\s"), r"a\\b\d\s");
        assert_eq!(relax(r"x\b*"), r"x(?:)*");
        assert_eq!(relax("no assertions"), "no assertions");
    }

    /// The same answers as the plain regex, on ASCII text and on text
    /// with accented letters, CJK and typographic punctuation next to the
    /// boundaries (where a Unicode and an ASCII `\b` would disagree).
    #[test]
    fn answers_match_the_plain_regex() {
        let patterns = [
            r"(?i)\bcopyright\b|\bisbn\b|@|^by\s",
            r"(?ix)^(?:\w+\s+){0,3}?(photo\w*|translat\w*)\b.*\b(by|von|par|de)\b",
            r"(\p{L})\d{1,2}(?:,\d{1,2})*\b|\s\d{1,2}(\s*[,;]|\s+and\b|\s*$)",
            r"\bpp\.\s?\d|\(\d{4}[a-z]?\)|\bet al\b",
            r"\B\d\d\B",
            r"(?i)\bvol(?:ume)?\.?\s*(\d+)",
        ];
        let hays = [
            "Copyright © 2004 Jane Doe",
            "Copyrightová ochrana, ISBN 978-80",
            "isbnové číslo",
            "by Petr Olšák",
            "Photographs by Dave Stroud",
            "Přeložil translated půde by nikdo",
            "Olšák1, Novák2 and Dvořák 3",
            "Smith et al. (2004) pp. 33",
            "Smithet al",
            "Renéet al",
            "“Quoted” — vol. 12 and Volume 7",
            "第3版 vol.5 中文vol 9",
            "x12y é34é 56",
            "",
            "plain ascii text without any match",
        ];
        for p in patterns {
            let plain = Regex::new(p).unwrap();
            let fast = Pattern::new(p).unwrap();
            assert!(fast.relaxed.is_some(), "{p} has boundaries to relax");
            for h in hays {
                assert_eq!(fast.is_match(h), plain.is_match(h), "{p} on {h}");
                assert_eq!(fast.find(h), plain.find(h), "{p} on {h}");
                let spans =
                    |it: &mut dyn Iterator<Item = Match>| it.map(|m| m.range()).collect::<Vec<_>>();
                assert_eq!(
                    spans(&mut fast.find_iter(h)),
                    spans(&mut plain.find_iter(h)),
                    "{p} on {h}"
                );
                let groups = |c: Option<Captures>| {
                    c.map(|c| c.iter().map(|m| m.map(|m| m.range())).collect::<Vec<_>>())
                };
                assert_eq!(
                    groups(fast.captures(h)),
                    groups(plain.captures(h)),
                    "{p} on {h}"
                );
                assert_eq!(
                    fast.captures_iter(h).count(),
                    plain.captures_iter(h).count()
                );
                assert_eq!(fast.replace_all(h, "<$0>"), plain.replace_all(h, "<$0>"));
                assert_eq!(fast.replace(h, "[$0]"), plain.replace(h, "[$0]"));
            }
        }
    }

    #[test]
    fn a_pattern_without_boundaries_has_no_twin() {
        let p = Pattern::new(r"(?i)all rights reserved|©").unwrap();
        assert!(p.relaxed.is_none());
        assert!(p.is_match("© 2001, All Rights Reserved"));
    }
}
