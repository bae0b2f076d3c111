//! Issue 19 regression tests: limits.

#[allow(unused_imports)] use crate::util;
