//! Issue 19 regression tests: writes.

#[allow(unused_imports)] use crate::util;
