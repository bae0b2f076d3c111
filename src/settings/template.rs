//! The grammar of `FILENAME_TEMPLATE` (SPEC 3, 8): its placeholders, how a
//! template is parsed and filled, and the text clean-up every file name
//! gets. Here, beside the settings, so that the setting is validated where
//! it is read; the name stage (`crate::name`) fills templates with it.

use unicode_normalization::UnicodeNormalization;

/// The placeholders `FILENAME_TEMPLATE` may use (SPEC 3), without braces:
/// the one list (the name stage and the settings validation read it).
pub const PLACEHOLDERS: [&str; 8] = [
    "authors",
    "title",
    "subtitle",
    "year",
    "publisher",
    "edition",
    "isbn",
    "doi",
];

/// A stem that makes a visible, ordinary file name.
pub(crate) fn usable_stem(stem: &str) -> bool {
    !stem.trim().is_empty() && stem != "." && stem != ".."
}

/// Whether `template` can give any document a name: filled with a value
/// in every placeholder, something is left once the name is made safe
/// (`"."`, `".."` or `" - "` leave nothing). `FILENAME_TEMPLATE` is
/// checked with it, so that a template that never names is refused.
pub fn template_can_name(template: &str) -> bool {
    let mut out = String::new();
    fill(&parse_template(template), &|_| "x".to_string(), &mut out);
    usable_stem(&tidy(&sanitize(&out)))
}

/// Checks a `FILENAME_TEMPLATE`: braces balanced, only known placeholders.
/// The error names the offending part, for the settings validation message.
pub fn validate_template(template: &str) -> Result<(), String> {
    let mut rest = template;
    while let Some(open) = rest.find(['{', '}']) {
        if rest[open..].starts_with('}') {
            return Err(format!("unmatched '}}' in {template:?}"));
        }
        let after = &rest[open + 1..];
        let close = after
            .find('}')
            .ok_or_else(|| format!("unclosed '{{' in {template:?}"))?;
        let name = &after[..close];
        if !PLACEHOLDERS.contains(&name) {
            return Err(format!(
                "unknown placeholder {{{name}}}; allowed: {}",
                PLACEHOLDERS
                    .iter()
                    .map(|p| format!("{{{p}}}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
        }
        rest = &after[close + 1..];
    }
    Ok(())
}

/// Replaces what common file systems refuse or mangle, NFC-normalises and
/// collapses whitespace. Applied to each value and to the whole stem.
pub fn sanitize(text: &str) -> String {
    let nfc: String = text.nfc().collect();
    let mut out = String::with_capacity(nfc.len());
    let mut chars = nfc.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            // "Title: Subtitle" reads best as "Title - Subtitle"; "10:30" as "10-30".
            ':' => {
                if chars.peek().is_some_and(|n| n.is_whitespace()) {
                    out.push_str(" -");
                } else {
                    out.push('-');
                }
            }
            '/' | '\\' | '|' => out.push('-'),
            '"' => out.push('\''),
            '?' | '*' | '<' | '>' => {}
            c if c.is_control() => out.push(' '),
            // Invisible format characters (zero-width, bidi overrides, BOM)
            // make names that look equal but are not.
            '\u{200B}'..='\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2060}'..='\u{2069}' => {}
            '\u{FEFF}' | '\u{00AD}' => {}
            c => out.push(c),
        }
    }
    collapse_whitespace(&out)
}

#[derive(Debug)]
pub(crate) enum Token {
    Literal(String),
    Placeholder(String),
    /// `(`…`)` or `[`…`]`, with its inner tokens.
    Group(char, Vec<Token>, char),
}

/// Parses the template into literals, placeholders and bracket groups. An
/// unbalanced bracket is plain text.
pub(crate) fn parse_template(template: &str) -> Vec<Token> {
    let chars: Vec<char> = template.chars().collect();
    let (tokens, _) = parse_until(&chars, 0, None);
    tokens
}

fn parse_until(chars: &[char], mut i: usize, close: Option<char>) -> (Vec<Token>, usize) {
    let mut tokens = Vec::new();
    let mut lit = String::new();
    while i < chars.len() {
        let c = chars[i];
        if Some(c) == close {
            break;
        }
        match c {
            '{' => {
                if let Some(len) = chars[i + 1..].iter().position(|&c| c == '}') {
                    if !lit.is_empty() {
                        tokens.push(Token::Literal(std::mem::take(&mut lit)));
                    }
                    tokens.push(Token::Placeholder(
                        chars[i + 1..i + 1 + len].iter().collect(),
                    ));
                    i += len + 2;
                    continue;
                }
                lit.push(c);
            }
            '(' | '[' => {
                let want = if c == '(' { ')' } else { ']' };
                let (inner, end) = parse_until(chars, i + 1, Some(want));
                if end < chars.len() && chars[end] == want {
                    if !lit.is_empty() {
                        tokens.push(Token::Literal(std::mem::take(&mut lit)));
                    }
                    tokens.push(Token::Group(c, inner, want));
                    i = end + 1;
                    continue;
                }
                lit.push(c);
            }
            _ => lit.push(c),
        }
        i += 1;
    }
    if !lit.is_empty() {
        tokens.push(Token::Literal(lit));
    }
    (tokens, i)
}

/// Appends the rendering of `tokens`; returns (placeholders seen, non-empty ones).
pub(crate) fn fill(
    tokens: &[Token],
    value: &dyn Fn(&str) -> String,
    out: &mut String,
) -> (usize, usize) {
    let (mut seen, mut filled) = (0, 0);
    for t in tokens {
        match t {
            Token::Literal(s) => out.push_str(s),
            Token::Placeholder(name) => {
                seen += 1;
                let v = value(name);
                if !v.is_empty() {
                    filled += 1;
                }
                out.push_str(&v);
            }
            Token::Group(open, inner, close) => {
                let mut buf = String::new();
                let (s, f) = fill(inner, value, &mut buf);
                seen += s;
                filled += f;
                // A group with placeholders that are all empty is dropped;
                // a purely literal group such as "(ebook)" stays.
                if s == 0 || f > 0 {
                    out.push(*open);
                    out.push_str(buf.trim_matches(|c: char| {
                        c.is_whitespace() || matches!(c, '-' | ',' | ';' | '–' | '—')
                    }));
                    out.push(*close);
                }
            }
        }
    }
    (seen, filled)
}

/// Removes separators left dangling by empty placeholders and the dots and
/// spaces file systems dislike at either end.
pub(crate) fn tidy(stem: &str) -> String {
    let mut s = collapse_whitespace(stem);
    for (doubled, single) in [(" - - ", " - "), (", ,", ","), ("; ;", ";")] {
        while s.contains(doubled) {
            s = s.replace(doubled, single);
        }
    }
    let is_edge_junk = |c: char| c.is_whitespace() || matches!(c, '-' | ',' | ';' | '–' | '—');
    let s = s.trim_matches(is_edge_junk);
    let s = s.trim_start_matches(|c: char| c == '.' || is_edge_junk(c));
    let s = s.trim_end_matches(|c: char| c == '.' || c.is_whitespace());
    s.to_string()
}

pub(crate) fn collapse_whitespace(s: &str) -> String {
    s.split_whitespace().collect::<Vec<_>>().join(" ")
}
