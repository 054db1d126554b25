//! Wall and CPU time of a step, as a role's report shows them.

use std::time::{Duration, Instant};

/// Time a step took: wall clock and the CPU time of the thread that ran it
/// (the engine runs one thread per role here, so this is the role's CPU).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Usage {
    /// Wall-clock time.
    pub wall: Duration,
    /// CPU time of the running thread.
    pub cpu: Duration,
}

impl Usage {
    /// Runs `f` and measures it.
    pub fn measure<T>(f: impl FnOnce() -> T) -> (T, Usage) {
        let (wall, cpu) = (Instant::now(), thread_cpu_time());
        let value = f();
        let usage = Usage {
            wall: wall.elapsed(),
            cpu: thread_cpu_time().saturating_sub(cpu),
        };
        (value, usage)
    }

    /// The sum of two usages.
    pub fn plus(self, other: Usage) -> Usage {
        Usage {
            wall: self.wall + other.wall,
            cpu: self.cpu + other.cpu,
        }
    }
}

/// CPU time of the calling thread so far.
pub fn thread_cpu_time() -> Duration {
    let mut spec = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `spec` is a valid out-pointer for the duration of the call.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut spec) };
    if status != 0 {
        return Duration::ZERO;
    }
    Duration::new(
        spec.tv_sec.max(0) as u64,
        spec.tv_nsec.clamp(0, 999_999_999) as u32,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn busy_work_takes_cpu_time() {
        let (sum, usage) =
            Usage::measure(|| (0..5_000_000u64).fold(0u64, |a, b| a ^ b.wrapping_mul(31)));
        assert!(sum > 0);
        assert!(usage.cpu > Duration::ZERO);
        assert!(usage.wall >= usage.cpu / 2);
    }
}
