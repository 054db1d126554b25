//! The allocator policy of a long-lived role.

/// Tells the C allocator (glibc's malloc; on other platforms nothing) to
/// keep the memory this process frees for its own later allocations: large
/// blocks come from the heap rather than from mappings of their own, and
/// the heap's free top is not handed back to the system. A role that proves
/// many times then reuses the first proof's pages instead of faulting in
/// fresh ones for every later proof, at the price of holding its peak
/// memory until it exits. Call it first in `main`, before any thread starts.
///
/// Returns whether the allocator took the settings.
///
/// ```
/// let kept = he_cosnark::retain_freed_memory();
/// assert_eq!(kept, cfg!(all(target_os = "linux", target_env = "gnu")));
/// ```
pub fn retain_freed_memory() -> bool {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallopt only changes glibc's malloc parameters; it takes
        // plain integers and is safe to call at any time.
        unsafe {
            libc::mallopt(libc::M_MMAP_MAX, 0) == 1
                && libc::mallopt(libc::M_TRIM_THRESHOLD, libc::c_int::MAX) == 1
        }
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        false
    }
}
