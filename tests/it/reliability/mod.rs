//! Regression tests for the defects found by trying to break colophon
//! (issue 19): each test builds its hostile input and checks that one bad
//! PDF, a changed file or a failed write never stops the run, damages a
//! file, or goes unreported.

mod cache;
mod geometry;
mod limits;
mod writes;
