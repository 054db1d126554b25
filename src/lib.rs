//! Benches and examples host: helpers they share.

/// Peak resident memory of this process (Linux `VmHWM`), in bytes; `None`
/// where `/proc/self/status` does not report it.
pub fn peak_memory_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// Ends a verifying example: exit status 0 when it ran and its result
/// verified, 1 when the check failed or it returned an error (printed).
pub fn exit_with(outcome: Result<bool, Box<dyn std::error::Error>>) -> ! {
    match outcome {
        Ok(true) => std::process::exit(0),
        Ok(false) => std::process::exit(1),
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
