//! Text for a terminal or a person: control characters and bidirectional
//! overrides written as escapes, so a hostile file name can neither split
//! a row nor drive the terminal. Used by the table, the progress lines and
//! every message that quotes a name.

/// `s` with every control character (C0, DEL, C1) and every bidirectional
/// override written as an escape (`\n`, `\t`, `\x1b`, `\u{202e}`), for text
/// meant for a terminal or a person: a file name (or a title, or an error
/// quoting one) can then neither split a row of the table nor send escape
/// codes to the terminal. JSON output keeps names exact. A backslash is
/// left as it is, so names with one read naturally.
pub fn controls(s: &str) -> std::borrow::Cow<'_, str> {
    // Bidirectional embeddings, overrides and isolates reorder what
    // follows them on screen (a name can pose as another).
    let hostile =
        |c: char| c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
    if !s.chars().any(hostile) {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if hostile(c) && (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if hostile(c) => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
            c => out.push(c),
        }
    }
    std::borrow::Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::controls;

    #[test]
    fn controls_and_overrides_are_escaped_and_plain_text_borrowed() {
        assert_eq!(
            controls("a\nb\x1b[2J\u{202e}c\t"),
            "a\\nb\\x1b[2J\\u{202e}c\\t"
        );
        assert_eq!(controls("Müller \\ Søn – Ω.pdf"), "Müller \\ Søn – Ω.pdf");
        assert!(matches!(
            controls("plain.pdf"),
            std::borrow::Cow::Borrowed(_)
        ));
    }
}
