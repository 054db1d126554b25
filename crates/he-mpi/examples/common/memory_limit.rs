//! `--memory-limit-mib`: caps what a rank may allocate (RLIMIT_DATA) and
//! makes every way the cap can end the rank name it.
//!
//! The engine turns an allocation the kernel refuses into an error, which
//! the job reports with its rank. Rust, the C library and MPI cannot: a
//! refused allocation of theirs (a `Vec`'s growth, a thread-local's
//! destructor registration in glibc) aborts the process. So that such an
//! end is as clear as the engine's, the limit comes with a SIGABRT handler
//! that prints one line naming the rank and the limit before the process
//! dies.

use std::path::Path;
use std::sync::OnceLock;

use super::Result;

/// The line written to stderr when the rank aborts under its limit.
static ABORT_LINE: OnceLock<Box<[u8]>> = OnceLock::new();

/// Caps what this process may allocate at `mib` MiB (RLIMIT_DATA: its heap
/// and private writable mappings) and has an abort print `{program}: rank
/// {rank}: error: …` with the limit. The cap binds from here on, so the
/// job sets it before allocating anything big.
pub fn limit_memory(rank: usize, mib: u64) -> Result<()> {
    let program = std::env::args_os()
        .next()
        .and_then(|path| Some(Path::new(&path).file_name()?.to_string_lossy().into_owned()))
        .unwrap_or_default();
    let line = format!(
        "{program}: rank {rank}: error: aborted under --memory-limit-mib {mib}: an allocation \
         beyond the limit failed where it cannot be refused cleanly (see any message above)\n"
    );
    // A second call keeps the first line: both name the same rank.
    let _ = ABORT_LINE.set(line.into_bytes().into_boxed_slice());
    report_aborts()?;
    let bytes = mib << 20;
    let limit = libc::rlimit {
        rlim_cur: bytes,
        rlim_max: bytes,
    };
    // SAFETY: `limit` is a valid rlimit that the call only reads.
    if unsafe { libc::setrlimit(libc::RLIMIT_DATA, &limit) } != 0 {
        let e = std::io::Error::last_os_error();
        return Err(format!("setting a memory limit of {mib} MiB: {e}").into());
    }
    Ok(())
}

/// Installs [`write_abort_line`] for SIGABRT; the process then dies as
/// abort(3) makes it (the handler returns and the default action follows).
fn report_aborts() -> Result<()> {
    // SAFETY: a zeroed sigaction is a valid "no flags, empty mask" value,
    // completed below before it is passed on; `write_abort_line` only
    // calls write(2), which is async-signal-safe.
    unsafe {
        let mut action: libc::sigaction = std::mem::zeroed();
        action.sa_sigaction = write_abort_line as extern "C" fn(libc::c_int) as usize;
        libc::sigemptyset(&mut action.sa_mask);
        if libc::sigaction(libc::SIGABRT, &action, std::ptr::null_mut()) != 0 {
            let e = std::io::Error::last_os_error();
            return Err(format!("installing the abort report: {e}").into());
        }
    }
    Ok(())
}

/// SIGABRT's handler: writes [`ABORT_LINE`] to stderr with one write(2).
extern "C" fn write_abort_line(_signal: libc::c_int) {
    if let Some(line) = ABORT_LINE.get() {
        // SAFETY: `line` is a live, initialized buffer of `line.len()`
        // bytes; a short or failed write only shortens the report.
        unsafe { libc::write(libc::STDERR_FILENO, line.as_ptr().cast(), line.len()) };
    }
}
