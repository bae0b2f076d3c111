//! The text of a caught panic (`catch_unwind`'s payload), for the error a
//! document gets when reading it panicked: a panic is one PDF's failure,
//! never the batch's.

use std::any::Any;

/// The message a panic was raised with (`panic!("...")` gives a `&str` or a
/// `String`), or `fallback` for any other payload.
pub fn text(payload: &(dyn Any + Send), fallback: &str) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| fallback.to_string())
}

#[cfg(test)]
mod tests {
    #[test]
    fn static_and_formatted_messages_and_other_payloads() {
        let caught = |f: fn()| std::panic::catch_unwind(f).unwrap_err();
        let hook = std::panic::take_hook();
        std::panic::set_hook(Box::new(|_| {}));
        let fixed = caught(|| panic!("fixed"));
        let formatted = caught(|| panic!("page {}", 3));
        let other = caught(|| std::panic::panic_any(7u8));
        std::panic::set_hook(hook);
        assert_eq!(super::text(fixed.as_ref(), "panic"), "fixed");
        assert_eq!(super::text(formatted.as_ref(), "panic"), "page 3");
        assert_eq!(
            super::text(other.as_ref(), "unknown panic"),
            "unknown panic"
        );
    }
}
