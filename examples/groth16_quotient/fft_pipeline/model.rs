//! The pipeline's steps, its noise model and the phases cut from it.

use super::*;

/// One step of the server's pipeline.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Step {
    /// a, b, c (evaluations on H) → A, B, C (coefficients, bit-reversed).
    Ifft,
    /// A, B, C (bit-reversed) → A', B', C' (evaluations on gH, natural).
    CosetFft,
    /// (A' ∘ B' − C') / Z_H(g).
    Product,
    /// h' → h (coefficients, bit-reversed).
    CosetIfft,
}

impl Step {
    pub(super) const ALL: [Step; 4] = [Step::Ifft, Step::CosetFft, Step::Product, Step::CosetIfft];

    pub(super) fn name(self) -> &'static str {
        match self {
            Step::Ifft => "iFFT of a, b, c",
            Step::CosetFft => "coset FFT of A, B, C",
            Step::Product => "(A'∘B' − C')/Z_H(g)",
            Step::CosetIfft => "coset iFFT of h'",
        }
    }

    pub(super) fn short(self) -> &'static str {
        match self {
            Step::Ifft => "ifft",
            Step::CosetFft => "coset_fft",
            Step::Product => "product",
            Step::CosetIfft => "coset_ifft",
        }
    }
}

/// The pipeline's noise costs, in bits, for t of `log_t` bits at ring degree
/// `ring`, from [`helib_rs::noise`]: a fresh ciphertext and each FFT level as
/// he-fft's plans budget them ([`noise::transform_fresh_bits`],
/// [`noise::transform_level_bits`]), a product of operands at their floor
/// ([`noise::floor_product_bits`], calibrated on N = 2^17 measurements).
pub(super) struct Model {
    pub(super) log_t: f64,
    pub(super) ring: usize,
    /// FFT levels per transform.
    pub(super) levels: usize,
    /// Extra scalar level of a coset transform across ciphertexts (n > N).
    pub(super) split_extra: usize,
}

impl Model {
    /// Decryption bit plus he-fft's 8-bit margin.
    pub(super) const MARGIN: f64 = noise::DECRYPTION_BITS + noise::TRANSFORM_MARGIN_BITS;

    pub(super) fn fresh(&self) -> f64 {
        noise::transform_fresh_bits(self.ring, self.log_t)
    }

    pub(super) fn fft_level(&self) -> f64 {
        noise::transform_level_bits(self.ring, self.log_t)
    }

    pub(super) fn product(&self) -> f64 {
        noise::floor_product_bits(self.ring, self.log_t)
    }

    pub(super) fn cost(&self, step: Step) -> f64 {
        match step {
            Step::Product => self.product(),
            Step::Ifft | Step::CosetFft | Step::CosetIfft => {
                (self.levels + self.split_extra) as f64 * self.fft_level()
            }
        }
    }

    /// Chain bits for running `steps` on fresh ciphertexts.
    pub(super) fn chain_bits(&self, steps: &[Step]) -> f64 {
        self.fresh() + steps.iter().map(|&s| self.cost(s)).sum::<f64>() + Self::MARGIN
    }
}

/// Secure parameters with a chain of at least `bits` bits at ring degree
/// 2^`log_n`: uniform primes of at most 60 bits ([`noise::uniform_primes`]),
/// and the fewest key-switching digits (from 3, or exactly `digits`) that
/// keep log2(Q·P) within the 128-bit bound and the prime count within the
/// engine's limit ([`advice::smallest_ring`] on that one ring).
pub(super) fn parameters_for(
    bits: f64,
    log_n: u32,
    threads: u32,
    digits: Option<usize>,
) -> Option<(Parameters, usize)> {
    let candidates: Vec<KeySwitching> = match digits {
        Some(d) => vec![KeySwitching::Digits(d)],
        None => (3..=12).map(KeySwitching::Digits).collect(),
    };
    let t: BigUint = Fr::MODULUS.into();
    let (params, ks) = advice::smallest_ring(&t, log_n..=log_n, &candidates, threads, |_| {
        Ok(noise::uniform_primes(bits, 40))
    })
    .ok()?;
    match ks {
        KeySwitching::Digits(d) => Some((params, d)),
        KeySwitching::None => None,
    }
}

/// The largest chain (in bits, to 10 bits) of a ≥128-bit parameter set at the ring asked for.
pub(super) fn largest_chain_bits(o: &Options) -> f64 {
    let (mut lo, mut hi) = (0.0, 4000.0);
    while hi - lo > 10.0 {
        let mid = (lo + hi) / 2.0;
        if parameters_for(mid, o.ring_log, o.threads, o.digits).is_some() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// Cuts the pipeline into phases that each fit one fresh encryption (greedily,
/// so the fewest refreshes), and sizes the chain for the largest phase.
pub(super) fn schedule(model: &Model, o: &Options) -> Result<(Parameters, usize, Vec<Vec<Step>>)> {
    let fits = |steps: &[Step]| {
        parameters_for(model.chain_bits(steps), o.ring_log, o.threads, o.digits).is_some()
    };
    let mut phases: Vec<Vec<Step>> = Vec::new();
    let mut current: Vec<Step> = Vec::new();
    for step in Step::ALL {
        let mut candidate = current.clone();
        candidate.push(step);
        if fits(&candidate) {
            current = candidate;
        } else if current.is_empty() {
            return Err(format!(
                "the step \"{}\" alone ({:.0} bits of chain) does not fit a ≥128-bit parameter \
                 set at N = 2^{}: use more --levels, a larger --ring-log or a smaller --n",
                step.name(),
                model.chain_bits(&[step]),
                o.ring_log
            )
            .into());
        } else {
            phases.push(std::mem::replace(&mut current, vec![step]));
        }
    }
    phases.push(current);
    let bits = phases
        .iter()
        .map(|p| model.chain_bits(p))
        .fold(0.0, f64::max);
    let (params, digits) = parameters_for(bits, o.ring_log, o.threads, o.digits)
        .ok_or("no parameters for the largest phase")?;
    Ok((params, digits, phases))
}
