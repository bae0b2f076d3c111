//! Lower-case hexadecimal of bytes: how hashes and cache keys are written
//! in records, file names and messages.

/// `bytes` as lower-case hexadecimal, two digits a byte.
pub fn lower(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    let mut out = String::with_capacity(2 * bytes.len());
    for b in bytes {
        let _ = write!(out, "{b:02x}");
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn two_lower_case_digits_a_byte() {
        assert_eq!(super::lower(&[0x00, 0x0f, 0xa0, 0xff]), "000fa0ff");
        assert_eq!(super::lower(&[]), "");
    }
}
