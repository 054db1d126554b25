//! The process's allocator: jemalloc, for Rust's allocations and (through
//! the unprefixed `malloc` it exports) the engine's C++ ones, set to keep
//! the pages it has been given.
//!
//! A proving role allocates and frees the same large buffers in every proof
//! (messages of tens of MB, ciphertexts, MSM inputs). glibc's `malloc`,
//! even told to keep freed memory (no mappings of their own for large
//! blocks, no trimming), unmaps a thread's heap once it is wholly free, so
//! the network threads faulted their buffers in afresh in every proof: in
//! a profile at 2^17 constraints the kernel zeroing new pages took 0.1–0.4
//! s of each later proof at the server, whose whole process used 0.45–0.7
//! s. Here freed pages stay with the process for its next allocation
//! instead (later proofs at the server: 0.34–0.43 s in the same alternating
//! runs), and a role's resident memory stays at its peak, which is what a
//! long-lived prover wants. `MALLOC_CONF` in the environment still
//! overrides these options (jemalloc's own variable). A zeroed allocation
//! (`vec![0; n]`) of a reused block gets fresh zero pages: jemalloc zeroes
//! large blocks by handing their pages back.

use std::ffi::c_char;

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's option string, a `const char *` it reads at start-up.
#[repr(transparent)]
struct Options(*const c_char);

// SAFETY: the pointer is to a string literal, immutable for the whole run.
unsafe impl Sync for Options {}

/// Never give freed pages back to the kernel (dirty pages are not decayed,
/// so none becomes muzzy either).
#[export_name = "malloc_conf"]
static OPTIONS: Options = Options(c"dirty_decay_ms:-1,muzzy_decay_ms:-1".as_ptr());

#[cfg(test)]
mod tests {
    use super::*;

    const BYTES: usize = 64 << 20;
    const PAGES: i64 = (BYTES / 4096) as i64;

    /// Minor page faults of this thread so far (other tests run on other
    /// threads).
    fn page_faults() -> i64 {
        // SAFETY: an all-zero `rusage` is a valid value of the plain C struct.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        // SAFETY: `usage` is a valid out-pointer for the call.
        let status = unsafe { libc::getrusage(libc::RUSAGE_THREAD, &mut usage) };
        assert_eq!(status, 0);
        usage.ru_minflt
    }

    /// Writes one byte in each page of the `bytes` at `block`; the page
    /// faults that took.
    ///
    /// # Safety
    /// `block` is valid for writes of `bytes` bytes.
    unsafe fn faults_touching(block: *mut u8, bytes: usize) -> i64 {
        let before = page_faults();
        for page in (0..bytes).step_by(4096) {
            // Volatile, so that the writes are not optimized away.
            // SAFETY: `page` is inside the block (the caller's contract).
            unsafe { block.add(page).write_volatile(1) };
        }
        page_faults() - before
    }

    #[test]
    fn the_options_are_the_ones_jemalloc_reads() {
        // SAFETY: the pointer is to a NUL-terminated literal.
        let options = unsafe { std::ffi::CStr::from_ptr(OPTIONS.0) };
        assert_eq!(
            options.to_str().unwrap(),
            "dirty_decay_ms:-1,muzzy_decay_ms:-1"
        );
    }

    /// The yardstick: fresh pages, mapped here directly, fault on first
    /// write.
    #[test]
    fn fresh_pages_fault_on_first_write() {
        // SAFETY: an anonymous private mapping, written inside its length
        // and unmapped once.
        unsafe {
            let block = libc::mmap(
                std::ptr::null_mut(),
                BYTES,
                libc::PROT_READ | libc::PROT_WRITE,
                libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                -1,
                0,
            );
            assert_ne!(block, libc::MAP_FAILED);
            let faults = faults_touching(block.cast(), BYTES);
            assert_eq!(libc::munmap(block, BYTES), 0);
            // Transparent huge pages would fault fewer times; this VM's
            // setting (madvise) leaves a plain mapping at 4 KiB pages.
            assert!(
                faults >= PAGES / 2,
                "{faults} faults for {PAGES} fresh pages"
            );
        }
    }

    /// A 64 MiB block freed and allocated again comes back without faulting
    /// its 16,384 pages in again, from Rust and from C's `malloc` (the
    /// engine's path) alike. glibc maps and unmaps a block this large every
    /// time.
    #[test]
    fn freed_pages_are_reused_without_faulting_them_in_again() {
        let mut rust_block = Vec::<u8>::with_capacity(BYTES);
        // SAFETY: the vector holds `BYTES` bytes.
        unsafe { faults_touching(rust_block.as_mut_ptr(), BYTES) };
        drop(rust_block);
        let mut rust_block = Vec::<u8>::with_capacity(BYTES);
        // SAFETY: as above.
        let rust_again = unsafe { faults_touching(rust_block.as_mut_ptr(), BYTES) };
        drop(rust_block);
        assert!(
            rust_again < PAGES / 16,
            "{rust_again} faults reusing {PAGES} pages from Rust"
        );

        // SAFETY: plain malloc/free pairs, written inside their blocks.
        let malloc_again = unsafe {
            let block = libc::malloc(BYTES).cast::<u8>();
            assert!(!block.is_null());
            faults_touching(block, BYTES);
            libc::free(block.cast());
            let block = libc::malloc(BYTES).cast::<u8>();
            assert!(!block.is_null());
            let faults = faults_touching(block, BYTES);
            libc::free(block.cast());
            faults
        };
        assert!(
            malloc_again < PAGES / 16,
            "{malloc_again} faults reusing {PAGES} pages from malloc"
        );
    }
}
