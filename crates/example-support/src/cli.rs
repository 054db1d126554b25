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

/// Times named phases. While one runs, a spinner with its elapsed time is
/// drawn on stderr, only when stderr is a terminal (logs and pipes get no
/// control characters); when it ends, its time is printed on stdout unless
/// the timer is quiet (JSON mode).
#[derive(Debug)]
pub struct Phases {
    quiet: bool,
    done: Vec<(&'static str, Duration)>,
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
        let start = Instant::now();
        let result = f();
        let took = start.elapsed();
        if let Some(bar) = spinner {
            bar.finish_and_clear();
            crate::outln!("  {name:<40} {:>10.1} ms", took.as_secs_f64() * 1e3);
        }
        self.done.push((name, took));
        result
    }

    /// The time of the phase `name` (zero if it did not run).
    pub fn get(&self, name: &str) -> Duration {
        self.done
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, d)| *d)
            .sum()
    }

    /// The sum of all phases.
    pub fn total(&self) -> Duration {
        self.done.iter().map(|(_, d)| *d).sum()
    }

    /// Every phase in order, with its time.
    pub fn all(&self) -> &[(&'static str, Duration)] {
        &self.done
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
        assert_eq!(phases.all().len(), 2);
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
