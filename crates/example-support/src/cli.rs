//! What every example shares: the common flags, a phase timer with a
//! progress spinner, JSON output, peak memory, and a clean exit when stdout
//! is a closed pipe.
//!
//! Text reports go through [`outln!`](crate::outln) rather than `println!`:
//! `println!` panics when the reader of a pipe has gone (`example | head -2`),
//! while `outln!` ends the process with status 0, as `head` asked for no more.

use serde::Serialize;
use std::fmt;
use std::io::{self, Write};
use std::time::{Duration, Instant};

/// The flag every example with a machine-readable report accepts: `--json`.
/// (Each example declares `--threads` itself: their defaults differ.)
#[derive(Debug, Clone, clap::Args)]
pub struct CommonArgs {
    /// Print the report as JSON on stdout (schema in the example's
    /// documentation)
    #[arg(long, default_value_t = false)]
    pub json: bool,
}

/// Parses a positive integer (a `value_parser` for counts and lengths).
pub fn positive(text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{text:?} is not a positive integer")),
    }
}

/// Bytes in a GiB.
pub const GIB: f64 = (1u64 << 30) as f64;

/// Parses a finite, non-negative number of GiB (`--memory-limit`).
pub fn gib(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(g) if g.is_finite() && g >= 0.0 => Ok(g),
        _ => Err(format!("{text:?} is not a number of GiB")),
    }
}

/// Writes one line of the text report on stdout; see [`write_stdout`].
#[macro_export]
macro_rules! outln {
    () => {
        $crate::cli::write_stdout(format_args!("\n"))
    };
    ($($arg:tt)*) => {
        $crate::cli::write_stdout(format_args!("{}\n", format_args!($($arg)*)))
    };
}

/// Writes to stdout. A closed pipe ends the process with status 0 (the
/// reader wanted no more); any other write error ends it with status 1.
pub fn write_stdout(text: fmt::Arguments<'_>) {
    let mut out = io::stdout().lock();
    if let Err(e) = out.write_fmt(text).and_then(|()| out.flush()) {
        exit_on_write_error(e);
    }
}

fn exit_on_write_error(e: io::Error) -> ! {
    if e.kind() == io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: cannot write to stdout: {e}");
    std::process::exit(1);
}

/// Prints `value` as one line of JSON on stdout (closed pipes as in
/// [`write_stdout`]).
pub fn print_json<T: Serialize>(value: &T) {
    match serde_json::to_string(value) {
        Ok(line) => write_stdout(format_args!("{line}\n")),
        Err(e) => {
            eprintln!("error: cannot encode the JSON report: {e}");
            std::process::exit(1);
        }
    }
}

/// Peak resident memory of this process (Linux `VmHWM`), in bytes; `None`
/// where `/proc/self/status` does not report it.
pub fn peak_memory_bytes() -> Option<u64> {
    proc_status_bytes("VmHWM:")
}

/// Resident memory of this process now (Linux `VmRSS`), in bytes.
pub fn resident_bytes() -> Option<u64> {
    proc_status_bytes("VmRSS:")
}

fn proc_status_bytes(key: &str) -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with(key))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// The processor time and fresh memory this process has used so far, from
/// `getrusage(RUSAGE_SELF)` (all threads).
///
/// `fresh_page_bytes` counts minor page faults times the page size: the
/// memory touched for the first time, which the kernel has to find and zero.
/// On a virtual machine whose host backs guest memory lazily, that zeroing
/// can cost more than the computation; the system time shows it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct ResourceUse {
    /// Processor time in user space, seconds.
    pub user_s: f64,
    /// Processor time in the kernel (page faults, system calls), seconds.
    pub system_s: f64,
    /// Bytes of memory touched for the first time (minor faults × page size).
    pub fresh_page_bytes: u64,
}

impl ResourceUse {
    /// The use so far; `None` where `getrusage` fails.
    pub fn now() -> Option<Self> {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` writes one `rusage` through the pointer, which
        // points at a zeroed, writable `rusage`; RUSAGE_SELF is a valid `who`.
        let status = unsafe { libc::getrusage(libc::RUSAGE_SELF, usage.as_mut_ptr()) };
        if status != 0 {
            return None;
        }
        // SAFETY: `getrusage` returned 0, so it filled the structure (and it
        // was zero-initialized before, every field being an integer).
        let usage = unsafe { usage.assume_init() };
        // SAFETY: `sysconf` only reads a configuration value.
        let page = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
        let seconds = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 * 1e-6;
        Some(ResourceUse {
            user_s: seconds(usage.ru_utime),
            system_s: seconds(usage.ru_stime),
            fresh_page_bytes: u64::try_from(usage.ru_minflt).unwrap_or(0)
                * u64::try_from(page).unwrap_or(4096),
        })
    }

    /// The use between `earlier` and `self`.
    pub fn since(self, earlier: ResourceUse) -> ResourceUse {
        ResourceUse {
            user_s: (self.user_s - earlier.user_s).max(0.0),
            system_s: (self.system_s - earlier.system_s).max(0.0),
            fresh_page_bytes: self
                .fresh_page_bytes
                .saturating_sub(earlier.fresh_page_bytes),
        }
    }

    /// The sum of two uses.
    pub fn plus(self, other: ResourceUse) -> ResourceUse {
        ResourceUse {
            user_s: self.user_s + other.user_s,
            system_s: self.system_s + other.system_s,
            fresh_page_bytes: self.fresh_page_bytes + other.fresh_page_bytes,
        }
    }
}

impl fmt::Display for ResourceUse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "user {:.2} s, system {:.2} s, {:.2} GiB fresh pages",
            self.user_s,
            self.system_s,
            self.fresh_page_bytes as f64 / GIB
        )
    }
}

/// One finished phase: its name, wall time and resource use.
#[derive(Debug, Clone, Serialize)]
pub struct PhaseRecord {
    /// The phase's name.
    pub phase: &'static str,
    /// Wall-clock time, seconds.
    pub wall_s: f64,
    /// Processor time and fresh memory (all zero where unknown).
    #[serde(flatten)]
    pub resources: ResourceUse,
}

/// Times named phases. While one runs, a spinner with its elapsed time is
/// drawn on stderr, only when stderr is a terminal (logs and pipes get no
/// control characters); when it ends, its time and [`ResourceUse`] are
/// printed on stdout unless the timer is quiet (JSON mode).
#[derive(Debug)]
pub struct Phases {
    quiet: bool,
    done: Vec<(&'static str, Duration, ResourceUse)>,
}

impl Phases {
    /// A timer; `quiet` suppresses the per-phase lines on stdout.
    pub fn new(quiet: bool) -> Self {
        Phases {
            quiet,
            done: Vec::new(),
        }
    }

    /// Runs `f` as the phase `name` and records its time (also on error).
    pub fn run<T, E>(
        &mut self,
        name: &'static str,
        f: impl FnOnce() -> Result<T, E>,
    ) -> Result<T, E> {
        let spinner = (!self.quiet).then(|| {
            let bar = indicatif::ProgressBar::new_spinner().with_message(name);
            if let Ok(style) =
                indicatif::ProgressStyle::with_template("  {spinner} {msg:<40} {elapsed}")
            {
                bar.set_style(style);
            }
            bar.enable_steady_tick(Duration::from_millis(200));
            bar
        });
        let before = ResourceUse::now();
        let start = Instant::now();
        let result = f();
        let took = start.elapsed();
        let used = match (ResourceUse::now(), before) {
            (Some(after), Some(before)) => after.since(before),
            _ => ResourceUse::default(),
        };
        if let Some(bar) = spinner {
            bar.finish_and_clear();
            crate::outln!(
                "  {name:<40} {:>10.1} ms  ({used})",
                took.as_secs_f64() * 1e3
            );
        }
        self.done.push((name, took, used));
        result
    }

    /// The time of the phase `name` (zero if it did not run).
    pub fn get(&self, name: &str) -> Duration {
        self.done
            .iter()
            .filter(|(n, _, _)| *n == name)
            .map(|(_, d, _)| *d)
            .sum()
    }

    /// The sum of all phases.
    pub fn total(&self) -> Duration {
        self.done.iter().map(|(_, d, _)| *d).sum()
    }

    /// The resource use of all phases together.
    pub fn total_resources(&self) -> ResourceUse {
        self.done
            .iter()
            .fold(ResourceUse::default(), |sum, (_, _, used)| sum.plus(*used))
    }

    /// Every phase in order, with its time and resource use.
    pub fn records(&self) -> Vec<PhaseRecord> {
        self.done
            .iter()
            .map(|&(phase, took, resources)| PhaseRecord {
                phase,
                wall_s: took.as_secs_f64(),
                resources,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phases_add_up_and_are_found_by_name() {
        let mut phases = Phases::new(true);
        let value: Result<u32, ()> = phases.run("a", || {
            std::thread::sleep(Duration::from_millis(5));
            Ok(7)
        });
        assert_eq!(value, Ok(7));
        let failed: Result<(), &str> = phases.run("b", || Err("no"));
        assert_eq!(failed, Err("no"));
        assert!(phases.get("a") >= Duration::from_millis(5));
        assert_eq!(phases.get("missing"), Duration::ZERO);
        assert_eq!(phases.total(), phases.get("a") + phases.get("b"));
        let records = phases.records();
        assert_eq!(records.len(), 2);
        assert_eq!((records[0].phase, records[1].phase), ("a", "b"));
        assert_eq!(records[0].wall_s, phases.get("a").as_secs_f64());
    }

    #[test]
    fn resource_use_counts_memory_touched_for_the_first_time() {
        let before = ResourceUse::now().expect("getrusage on Linux");
        let touched: Vec<u8> = vec![1; 64 << 20];
        let after = ResourceUse::now().expect("getrusage on Linux");
        assert_eq!(touched.iter().map(|&b| b as usize).sum::<usize>(), 64 << 20);
        let used = after.since(before);
        // Other tests of this process may fault too: a lower bound only.
        assert!(used.fresh_page_bytes >= 60 << 20, "{used}");
        assert!(used.user_s + used.system_s > 0.0, "{used}");
        assert_eq!(before.since(after).fresh_page_bytes, 0);
        let twice = used.plus(used);
        assert_eq!(twice.fresh_page_bytes, 2 * used.fresh_page_bytes);
    }

    #[test]
    fn positive_rejects_zero_and_junk() {
        assert_eq!(positive("12"), Ok(12));
        assert!(positive("0").is_err());
        assert!(positive("-3").is_err());
        assert!(positive("x").is_err());
    }

    #[test]
    fn gib_accepts_only_finite_non_negative_numbers() {
        assert_eq!(gib("1.5"), Ok(1.5));
        assert_eq!(gib("0"), Ok(0.0));
        assert!(gib("-1").is_err());
        assert!(gib("inf").is_err());
        assert!(gib("NaN").is_err());
    }

    #[test]
    fn memory_is_reported_on_linux() {
        if cfg!(target_os = "linux") {
            // Resident first: the peak read after it can only be larger.
            let now = resident_bytes().expect("VmRSS on Linux");
            let peak = peak_memory_bytes().expect("VmHWM on Linux");
            assert!(peak >= now && now > 0);
        }
    }
}
