//! Issue 19 regression tests: geometry.

#[allow(unused_imports)] use crate::util;
