//! The allocator's settings for colophon's processes (glibc malloc).

/// Large allocations (page renders for OCR and vision, about 9 MB at
/// 300 dpi; worker frames; whole page files) get pages of their own from
/// the system and give them back when freed. glibc's default raises its
/// mmap threshold to the size of each such block freed, after which they
/// come from the per-thread heaps, which then keep their high-water mark:
/// the coordinator's peak grew with the number of different documents
/// (issue 18). A fixed threshold of 1 MiB keeps it flat. Called first
/// thing by the coordinator and by each pdfium worker.
pub fn fix_mmap_threshold() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: mallopt only sets an allocator parameter; called before
    // this process's other threads start.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 1 << 20);
    }
}

/// `malloc_trim(0)`: every arena's free pages back to the system. glibc
/// returns only the top of each heap by itself, so after a large page or
/// a burst of short-lived allocations the freed middle of a heap stays
/// resident for the rest of the process.
pub fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only walks the allocator's own free lists.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// This process's resident memory in bytes (`/proc/self/statm`), if known.
pub fn resident_bytes() -> Option<u64> {
    let statm = std::fs::read_to_string("/proc/self/statm").ok()?;
    let pages: u64 = statm.split_whitespace().nth(1)?.parse().ok()?;
    // SAFETY: sysconf only reads a system constant.
    let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    Some(pages * u64::try_from(page).ok()?)
}
