//! Up-front memory estimates of FFT plans, the memory the system has
//! available, and the return of a build's freed heap memory to the system.
//!
//! A plan's memory is dominated by engine polynomials: N residues of 8 bytes
//! per prime. An encoded diagonal at level l has l + 1 primes (plus the K
//! special primes when it is encoded for double-hoisted transforms), and
//! fewer residues when its slots repeat along the rows (a compact encoding,
//! 2P words a prime for period P; the estimate takes P from the stages a
//! level groups), a
//! ciphertext two polynomials of l + 1 primes, a Galois key two polynomials
//! of all L + 1 + K primes per key-switching digit. The estimate counts those
//! from the plan's shape (which diagonals each level has, at which level), so
//! it is known before any diagonal is encoded. The engine also keeps freed
//! buffers for reuse, up to a fixed limit; the estimate counts them as
//! transient memory that stays held.

use crate::error::Result;
use crate::stages::Shape;
use helib_rs::lintrans::{KeyMode, KeyPolicy};
use helib_rs::Context;
use std::collections::BTreeSet;

/// Estimated bytes of a plan, from its shape alone.
///
/// The caller's context, secret and public keys are not included.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MemoryEstimate {
    /// The encoded diagonals the plan holds (none for [`Strategy::Dense`](crate::Strategy::Dense),
    /// which encodes them at each execution).
    pub plan_bytes: usize,
    /// The field-element diagonals alive while the plan is built (freed when
    /// `build` returns).
    pub build_bytes: usize,
    /// The Galois keys [`FftPlan::required_galois_elements`](crate::FftPlan::required_galois_elements) names.
    pub galois_key_bytes: usize,
    /// One execution's working memory: input, intermediate and output
    /// ciphertexts and key-switching buffers (and, for the dense strategy,
    /// its diagonals).
    pub execution_bytes: usize,
    /// Freed engine buffers kept for reuse: the engine's pool limit
    /// ([`helib_rs::buffer_pool_limit_bytes`]) or the transient memory
    /// (build and execution), whichever is less, since only buffers once in
    /// use can wait there.
    pub pooled_bytes: usize,
}

impl MemoryEstimate {
    /// The peak: the plan's diagonals, plus either what building it holds
    /// or its Galois keys and one execution, whichever is more, plus the
    /// freed buffers the engine keeps.
    pub fn peak_bytes(&self) -> usize {
        self.plan_bytes
            .saturating_add(
                self.build_bytes
                    .max(self.galois_key_bytes.saturating_add(self.execution_bytes)),
            )
            .saturating_add(self.pooled_bytes)
    }

    /// Sets [`pooled_bytes`](Self::pooled_bytes) from the other fields and
    /// the engine's pool limit.
    pub(crate) fn with_pool(self, pool_limit: usize) -> Self {
        Self {
            pooled_bytes: pool_limit.min(self.build_bytes.saturating_add(self.execution_bytes)),
            ..self
        }
    }
}

/// The parts in GiB: `peak 4.97 GiB = plan 1.87 + max(build 0.52, Galois
/// keys 2.83 + execution 0.27) + pool 0.79`.
impl std::fmt::Display for MemoryEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let gib = |bytes: usize| bytes as f64 / (1u64 << 30) as f64;
        write!(
            f,
            "peak {:.2} GiB = plan {:.2} + max(build {:.2}, Galois keys {:.2} + execution {:.2}) + pool {:.2}",
            gib(self.peak_bytes()),
            gib(self.plan_bytes),
            gib(self.build_bytes),
            gib(self.galois_key_bytes),
            gib(self.execution_bytes),
            gib(self.pooled_bytes)
        )
    }
}

/// The memory the system reports available (Linux: `MemAvailable` in
/// `/proc/meminfo`), or `None` where it does not say.
pub fn available_memory_bytes() -> Option<usize> {
    let info = std::fs::read_to_string("/proc/meminfo").ok()?;
    parse_mem_available(&info)
}

/// Gives the C heap's free memory back to the system (glibc's `malloc_trim`;
/// nothing elsewhere). A plan build frees its field-element diagonals when it
/// returns, but glibc keeps freed blocks of its heaps resident where they are
/// not at a heap's end: at n = 2^15 the process held 0.42 GiB more after the
/// build than it used, memory the estimate's peak, which counts the build's
/// memory as released, does not include. The keys and executions that follow
/// allocate from the engine, not from that heap, so keeping it would only add
/// to the peak.
pub(crate) fn release_freed_heap() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: `malloc_trim` only returns free pages of glibc's heaps to the
    // system; no live allocation is touched.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// `MemAvailable` from the text of `/proc/meminfo`, in bytes.
fn parse_mem_available(info: &str) -> Option<usize> {
    let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let mut words = line.split_whitespace().skip(1);
    let value: usize = words.next()?.parse().ok()?;
    match words.next() {
        Some("kB") => value.checked_mul(1024),
        None => Some(value),
        Some(_) => None,
    }
}

/// One sparse transform as a plan will encode it: its diagonals' shifts and
/// the level of the ciphertexts it runs on.
pub(crate) struct LevelShape {
    pub(crate) shape: Shape,
    pub(crate) level: usize,
    /// How many differently valued copies the plan encodes (one per
    /// ciphertext for the twiddle-absorbing level of a four-step plan, one
    /// for a level the ciphertexts share).
    pub(crate) copies: usize,
    /// Whether those copies are kept as plaintexts and encoded at each
    /// execution.
    pub(crate) plain: bool,
    /// The period of its diagonals along each slot row (N when they do not
    /// repeat): an encoding of a repeating diagonal is compact.
    pub(crate) period: usize,
}

/// What a plan will hold and run, without any values.
pub(crate) struct PlanShape {
    /// The transforms one ciphertext goes through, in order.
    pub(crate) levels: Vec<LevelShape>,
    /// How many ciphertexts hold one vector (they run `levels` in parallel,
    /// as many at once as the context has threads).
    pub(crate) ciphertexts: usize,
    /// Whether the diagonals are built and encoded at each execution (the
    /// dense strategy) instead of held by the plan.
    pub(crate) per_execution: bool,
    /// Field-element diagonals alive at once while building (or, for the
    /// dense strategy, while running).
    pub(crate) field_diagonals: usize,
}

/// Engine sizes of one context.
pub(crate) struct Sizes {
    ring_degree: usize,
    chain: usize,
    special: usize,
    digits: usize,
    plain_limbs: usize,
}

const WORD: usize = std::mem::size_of::<u64>();

impl Sizes {
    pub(crate) fn new(context: &Context) -> Result<Self> {
        Ok(Self {
            ring_degree: context.ring_degree(),
            chain: context.chain_primes().len(),
            special: context.special_primes().len(),
            digits: context.key_switching_digits()?,
            plain_limbs: (context.plaintext_modulus().bits() as usize).div_ceil(64),
        })
    }

    /// One polynomial modulo `primes` primes.
    fn poly(&self, primes: usize) -> usize {
        self.ring_degree.saturating_mul(primes).saturating_mul(WORD)
    }

    /// A diagonal encoded at `level` (with the special primes when
    /// `extended`) whose slots repeat with period `period` along each row
    /// (N for none): compact when they repeat.
    pub(crate) fn encoded(&self, level: usize, extended: bool, period: usize) -> usize {
        let primes = level + 1 + if extended { self.special } else { 0 };
        helib_rs::EncodedPlaintext::words_per_prime(self.ring_degree, period)
            .saturating_mul(primes)
            .saturating_mul(WORD)
    }

    /// A plaintext polynomial (coefficients mod t, not yet encoded).
    pub(crate) fn plaintext(&self) -> usize {
        self.ring_degree
            .saturating_mul(self.plain_limbs)
            .saturating_mul(WORD)
    }

    /// A size-2 ciphertext at `level`.
    fn ciphertext(&self, level: usize) -> usize {
        2 * self.poly(level + 1)
    }

    /// A polynomial in the key-switching basis Q_level · P.
    fn extended(&self, level: usize) -> usize {
        self.poly(level + 1 + self.special)
    }

    /// One Galois key.
    pub(crate) fn galois_key(&self) -> usize {
        self.digits
            .saturating_mul(2)
            .saturating_mul(self.poly(self.chain + self.special))
    }
}

/// The estimate for a plan of this shape whose inputs are at `level`, with
/// field elements of `field_bytes` bytes.
pub(crate) fn estimate(
    shape: &PlanShape,
    context: &Context,
    policy: KeyPolicy,
    level: usize,
    field_bytes: usize,
) -> Result<MemoryEstimate> {
    let sizes = Sizes::new(context)?;
    let row = context.ring_degree() / 2;
    let extended = policy.mode == KeyMode::Fast;
    let mut elements = BTreeSet::new();
    let mut encoded = 0usize;
    let mut working = 0usize;
    for l in &shape.levels {
        let schedule = policy.schedule_for_shape(row, &l.shape);
        elements.extend(schedule.required_galois_elements(context));
        let one = if l.plain {
            sizes.plaintext()
        } else {
            sizes.encoded(l.level, extended, l.period)
        };
        encoded =
            encoded.saturating_add(l.shape.len().saturating_mul(l.copies).saturating_mul(one));
        // A level kept as plaintexts is encoded whole while it runs.
        let transient = if l.plain {
            l.shape
                .len()
                .saturating_mul(sizes.encoded(l.level, extended, l.period))
        } else {
            0
        };
        let (giants, babies) = schedule.occupancy(&l.shape);
        let ext = sizes.extended(l.level);
        let ct = sizes.ciphertext(l.level);
        // Decomposition of the input (one extended polynomial per digit)
        // and one key switch's inner products.
        let key_switch = (sizes.digits + 2).saturating_mul(ext);
        let level_working = match policy.mode {
            // Per giant index, a ciphertext in Q·P; each baby step's slot
            // permutation (4 bytes per slot); the accumulator and the result.
            KeyMode::Fast => (2 * giants)
                .saturating_mul(ext)
                .saturating_add(key_switch)
                .saturating_add(2 * ct)
                .saturating_add((babies + 1).saturating_mul(4 * sizes.ring_degree)),
            // Every baby step kept as a ciphertext, the accumulator, a product
            // and the result.
            KeyMode::MinimalKeys => (babies + 3).saturating_mul(ct).saturating_add(key_switch),
        };
        working = working.max(level_working.saturating_add(transient));
    }
    let field = shape
        .field_diagonals
        .saturating_mul(2 * row)
        .saturating_mul(field_bytes);
    let all_plan = encoded;
    // Ciphertexts run in parallel, each with its own working memory.
    let parallel = (context.threads()?.max(1) as usize).min(shape.ciphertexts.max(1));
    let working = working.saturating_mul(parallel);
    // Inputs, intermediates and outputs of every ciphertext, plus the two the
    // cross-ciphertext sums hold.
    let top = sizes.ciphertext(level);
    let ciphertexts = (3 * shape.ciphertexts + 2).saturating_mul(top);
    let execution = ciphertexts.saturating_add(working);
    let galois_key_bytes = elements.len().saturating_mul(sizes.galois_key());
    let estimate = if shape.per_execution {
        MemoryEstimate {
            galois_key_bytes,
            execution_bytes: execution.saturating_add(all_plan).saturating_add(field),
            ..MemoryEstimate::default()
        }
    } else {
        MemoryEstimate {
            plan_bytes: all_plan,
            build_bytes: field,
            galois_key_bytes,
            execution_bytes: execution,
            ..MemoryEstimate::default()
        }
    };
    Ok(estimate.with_pool(helib_rs::buffer_pool_limit_bytes()?))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mem_available_is_read_in_bytes() {
        let info = "MemTotal:       24684096 kB\nMemFree:  100 kB\nMemAvailable:   23429492 kB\n";
        assert_eq!(parse_mem_available(info), Some(23429492 * 1024));
        assert_eq!(parse_mem_available("MemTotal: 5 kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: lots kB\n"), None);
        assert_eq!(parse_mem_available("MemAvailable: 5 MB\n"), None);
    }

    #[test]
    fn the_peak_takes_the_larger_phase() {
        let e = MemoryEstimate {
            plan_bytes: 10,
            build_bytes: 5,
            galois_key_bytes: 3,
            execution_bytes: 4,
            pooled_bytes: 0,
        };
        assert_eq!(e.peak_bytes(), 17);
        let e = MemoryEstimate {
            build_bytes: 8,
            ..e
        };
        assert_eq!(e.peak_bytes(), 18);
        let pooled = MemoryEstimate {
            pooled_bytes: 2,
            ..e
        };
        assert_eq!(pooled.peak_bytes(), 20);
        let huge = MemoryEstimate {
            plan_bytes: usize::MAX,
            ..e
        };
        assert_eq!(huge.peak_bytes(), usize::MAX);
    }

    #[test]
    fn the_pool_holds_at_most_its_limit_and_the_transient_memory() {
        let e = MemoryEstimate {
            plan_bytes: 100,
            build_bytes: 5,
            galois_key_bytes: 30,
            execution_bytes: 4,
            pooled_bytes: 0,
        };
        assert_eq!(e.with_pool(1000).pooled_bytes, 9);
        assert_eq!(e.with_pool(6).pooled_bytes, 6);
        assert_eq!(e.with_pool(6).peak_bytes(), e.peak_bytes() + 6);
    }

    #[test]
    fn the_estimate_prints_its_parts_in_gib() {
        let gib = 1usize << 30;
        let e = MemoryEstimate {
            plan_bytes: 2 * gib,
            build_bytes: gib / 2,
            galois_key_bytes: 3 * gib,
            execution_bytes: gib / 4,
            pooled_bytes: gib,
        };
        assert_eq!(
            e.to_string(),
            "peak 6.25 GiB = plan 2.00 + max(build 0.50, Galois keys 3.00 + execution 0.25) + pool 1.00"
        );
    }
}
