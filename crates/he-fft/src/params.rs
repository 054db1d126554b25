//! Choosing parameters for a plan: the smallest secure ring whose chain holds its levels.
//!
//! Each search describes its transform as a [`Workload`] (levels per ring,
//! slots, uniform primes, key-switching digits) and takes the
//! [`Advisor`]'s pick: the noise model and the security table stay in
//! `helib-rs`.

use crate::error::{Error, Result};
use crate::plan::{AutoLevels, PlanGeometry, Strategy};
use crate::special::{Conversion, Geometry, SlotForm};
use crate::stages::Order;
use ark_ff::{FftField, PrimeField};
use helib_rs::advice::{ChainLayout, Circuit, Demand, KeySwitching, Operations};
use helib_rs::{Advisor, Parameters, Workload};

pub use crate::plan::{default_levels, PlanOptions};

/// The smallest ring degree N (2^12..=2^17) with 2N | p − 1 whose chain for
/// `levels` levels, with special primes for 3 key-switching digits, stays
/// within the 128-bit security bound; the chain uses primes of at most 60 bits
/// ([`noise::transform_chain_bits`](helib_rs::noise::transform_chain_bits), by the [`Advisor`]).
///
/// # Errors
/// [`Error::Unsupported`] when no ring up to 2^17 fits.
pub fn suggest_parameters<F: PrimeField + FftField>(
    levels: usize,
    threads: u32,
) -> Result<Parameters> {
    let demand = Demand::new(Circuit::LinearTransforms {
        levels,
        products: 0,
    });
    advise(transform_workload(
        Workload::new(F::MODULUS.into(), demand),
        MIN_RING_DEGREE,
        &[DEFAULT_DIGITS],
        threads,
    ))
}

/// [`suggest_parameters`] among ring degrees N ≥ `min_ring_degree` only
/// (e.g. N ≥ 2n for a conversion of n values with a chosen level count),
/// with `extra_bits` of budget on top of the levels (e.g. `k ·`
/// [`noise::transformed_product_bits`](helib_rs::noise::transformed_product_bits) for k ciphertext products afterwards).
///
/// # Errors
/// [`Error::Unsupported`] when no ring from `min_ring_degree` up to 2^17 fits.
pub fn suggest_parameters_at_least<F: PrimeField + FftField>(
    min_ring_degree: usize,
    levels: usize,
    extra_bits: impl Fn(u32) -> f64,
    threads: u32,
) -> Result<Parameters> {
    let min = min_ring_degree.max(MIN_RING_DEGREE);
    let workload = per_ring::<F>(min, |n| {
        Some(
            Demand::new(Circuit::LinearTransforms {
                levels,
                products: 0,
            })
            .extra_bits(extra_bits(n.trailing_zeros())),
        )
    });
    advise(transform_workload(
        workload,
        min,
        &[DEFAULT_DIGITS],
        threads,
    ))
}

/// Parameters for a plan, with the strategy (its level count made explicit)
/// to build it with and the depth it will have.
#[derive(Debug, Clone)]
pub struct PlanParameters {
    /// The ring, chain and special primes.
    pub parameters: Parameters,
    /// The strategy to pass to [`FftPlanBuilder::strategy`](crate::FftPlanBuilder::strategy).
    pub strategy: Strategy,
    /// Multiplication levels the plan takes ([`FftPlan::depth`](crate::FftPlan::depth)).
    pub depth: usize,
}

/// The multiplication levels a size-`n` plan with `options` takes in a ring
/// of degree `ring_degree`, and its strategy with the level count explicit:
/// the per-ciphertext levels, plus one for the products across ciphertexts
/// (n > N with more than two ciphertexts or a coset) and one for a
/// natural-order output. Computed from sizes alone, with no context.
///
/// # Errors
/// [`Error::InvalidSize`] for n not a power of two ≥ 2 or beyond F's roots of
/// unity; [`Error::InvalidLevels`] for a level count outside 1..=4;
/// [`Error::Unsupported`] for the dense strategy with n > N.
pub fn plan_depth<F: PrimeField + FftField>(
    n: usize,
    ring_degree: usize,
    options: PlanOptions,
) -> Result<(usize, Strategy)> {
    let geometry =
        PlanGeometry::new::<F>(n, ring_degree, options, Order::Natural, AutoLevels::Default)?;
    Ok((geometry.depth(), geometry.strategy()))
}

/// The smallest ring (2^12..=2^17, 2N | p − 1) and chain holding a size-`n`
/// plan with `options` at ≥ 128-bit security, for every n from 2 to 2^22
/// (beyond N the vector spans n/N ciphertexts): on each ring, the depth of
/// [`plan_depth`] in [`noise::transform_chain_bits`](helib_rs::noise::transform_chain_bits) bits, with 2 to 6
/// key-switching digits (the fewest that fit): the [`Advisor`]'s pick for
/// [`PlanOptions::workload`]. Plans built with the returned
/// strategy at the top level of a context from these parameters afford
/// their depth.
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{suggest_plan_parameters, PlanOptions};
///
/// let p = suggest_plan_parameters::<Fr>(1 << 15, PlanOptions::default(), 1)?;
/// assert_eq!((p.parameters.ring_degree(), p.depth), (1 << 16, 3));
/// # Ok::<(), he_fft::Error>(())
/// ```
///
/// # Errors
/// As for [`plan_depth`]; [`Error::Unsupported`] when no ring up to 2^17 fits.
pub fn suggest_plan_parameters<F: PrimeField + FftField>(
    n: usize,
    options: PlanOptions,
    threads: u32,
) -> Result<PlanParameters> {
    let parameters = advise(options.workload::<F>(n, threads)?)?;
    let (depth, strategy) = plan_depth::<F>(n, parameters.ring_degree(), options)?;
    Ok(PlanParameters {
        parameters,
        strategy,
        depth,
    })
}

impl PlanOptions {
    /// What a size-`n` plan with these options asks of each ring, for the
    /// [`Advisor`]: the depth of [`plan_depth`] on that ring as linear
    /// transform levels ([`Circuit::LinearTransforms`]), rings 2^12..=2^17
    /// with slots (2N | p − 1), uniform primes of at least 40 bits, 2 to 6
    /// key-switching digits (the fewest that fit), `threads` engine
    /// threads. The operations counted are the client's: the n/N
    /// ciphertexts (at least one) encrypted and decrypted; the plan's
    /// products, rotations and Galois keys are its
    /// [`FftPlan::cost`](crate::FftPlan::cost) and
    /// [`FftPlan::required_galois_elements`](crate::FftPlan::required_galois_elements)
    /// once built (count them with [`helib_rs::Advice::with_operations`]).
    ///
    /// ```
    /// use ark_bn254::Fr;
    /// use he_fft::PlanOptions;
    ///
    /// let workload = PlanOptions::default().workload::<Fr>(1 << 10, 1)?;
    /// let advice = helib_rs::Advisor::new(workload).advise()?;
    /// assert_eq!(advice.ring_degree(), 1 << 16);
    /// assert_eq!(advice.demand().circuit().depth(), 2);
    /// # Ok::<(), he_fft::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`plan_depth`] on the largest ring (where a dense plan fits if
    /// it fits anywhere).
    pub fn workload<F: PrimeField + FftField>(self, n: usize, threads: u32) -> Result<Workload> {
        plan_depth::<F>(n, 1 << 17, self)?;
        let workload = per_ring::<F>(MIN_RING_DEGREE, |ring| {
            let (depth, _) = plan_depth::<F>(n, ring, self).ok()?;
            let ciphertexts = (n / ring).max(1);
            let operations = Operations {
                encryptions: ciphertexts,
                decryptions: ciphertexts,
                ..Operations::default()
            };
            Some(
                Demand::new(Circuit::LinearTransforms {
                    levels: depth,
                    products: 0,
                })
                .operations(operations),
            )
        });
        Ok(transform_workload(
            workload,
            MIN_RING_DEGREE,
            &PLAN_DIGITS,
            threads,
        ))
    }
}

/// The fewest levels whose estimated diagonals stay at most 256 per level
/// for a length-`n` conversion in a ring of degree `ring_degree`: what
/// [`ConversionPlanBuilder`](crate::ConversionPlanBuilder) chooses for
/// evaluations in natural order when the input's budget allows it (1 for
/// n ≤ 256; 3 for n = 1,024; 5 for n = 2^16 at N = 2^17). Other forms and
/// orders route their bits differently and may take a level more.
///
/// # Errors
/// [`Error::InvalidSize`] for n not a power of two ≥ 2 or F without the
/// roots of unity; [`Error::ConversionSize`] for n > N/2.
pub fn conversion_levels<F: PrimeField + FftField>(
    ring_degree: usize,
    n: usize,
    conversion: Conversion,
) -> Result<usize> {
    Geometry::<F>::check_size(ring_degree, n)?;
    let geometry = Geometry::<F>::new(ring_degree, n, SlotForm::Evaluations, Order::Natural)
        .ok_or(Error::InvalidSize(n))?;
    Ok(geometry.automatic_levels(conversion, usize::MAX))
}

/// Parameters for a length-`n` conversion followed by `products`
/// sequential ciphertext × ciphertext products of converted ciphertexts
/// (1 for the product A·B of two interpolants): the smallest ring
/// N ≥ max(2n, 2^12) with 2N | p − 1 whose chain holds
/// [`conversion_levels`] levels ([`noise::transform_chain_bits`](helib_rs::noise::transform_chain_bits)) and
/// `products` × [`noise::transformed_product_bits`](helib_rs::noise::transformed_product_bits) within the 128-bit bound, with special
/// primes for 3 key-switching digits. A plan on them with the default level
/// choice (evaluations in natural order) takes `conversion_levels` levels.
///
/// ```
/// use ark_bn254::Fr;
/// use he_fft::{conversion_levels, suggest_conversion_parameters, Conversion};
///
/// let to = Conversion::SlotsToCoefficients;
/// let params = suggest_conversion_parameters::<Fr>(256, to, 1, 1)?;
/// assert_eq!(params.ring_degree(), 1 << 16);
/// assert_eq!(conversion_levels::<Fr>(1 << 16, 256, to)?, 1);
/// # Ok::<(), he_fft::Error>(())
/// ```
///
/// # Errors
/// As for [`conversion_levels`]; [`Error::Unsupported`] when no ring up to
/// 2^17 fits.
pub fn suggest_conversion_parameters<F: PrimeField + FftField>(
    n: usize,
    conversion: Conversion,
    products: usize,
    threads: u32,
) -> Result<Parameters> {
    advise(conversion.workload::<F>(n, products, threads)?)
}

impl Conversion {
    /// What a length-`n` conversion followed by `products` ciphertext
    /// products asks of each ring, for the [`Advisor`]: rings N ≥ max(2n,
    /// 2^12) with slots (2N | p − 1), on each [`conversion_levels`] levels
    /// and the products ([`Circuit::LinearTransforms`]), uniform primes of at
    /// least 40 bits, 3 key-switching digits, `threads` engine threads. The
    /// operations counted: one ciphertext encrypted and one result
    /// decrypted per product (two converted operands each), or one without
    /// products, and the products; the conversion's own products and
    /// rotations are its plan's cost once built.
    ///
    /// # Errors
    /// [`Error::InvalidSize`] for n not a power of two ≥ 2;
    /// [`Error::ConversionSize`] for n above 2^16 (N = 2^17 holds n ≤ N/2).
    pub fn workload<F: PrimeField + FftField>(
        self,
        n: usize,
        products: usize,
        threads: u32,
    ) -> Result<Workload> {
        if n < 2 || !n.is_power_of_two() {
            return Err(Error::InvalidSize(n));
        }
        let min_log_n = (n.trailing_zeros() + 1).max(MIN_RING_DEGREE.trailing_zeros());
        if min_log_n > 17 {
            return Err(Error::ConversionSize { n, max: 1 << 16 });
        }
        let min = 1usize << min_log_n;
        let operations = Operations {
            encryptions: (2 * products).max(1),
            decryptions: products.max(1),
            ciphertext_products: products,
            ..Operations::default()
        };
        let workload = per_ring::<F>(min, |ring| {
            let levels = conversion_levels::<F>(ring, n, self).ok()?;
            Some(Demand::new(Circuit::LinearTransforms { levels, products }).operations(operations))
        });
        Ok(transform_workload(
            workload,
            min,
            &[DEFAULT_DIGITS],
            threads,
        ))
    }
}

/// The smallest ring degree of the plans' parameter searches.
const MIN_RING_DEGREE: usize = 1 << 12;

/// The key-switching digits of [`suggest_parameters`].
const DEFAULT_DIGITS: usize = 3;

/// The key-switching digit counts [`suggest_plan_parameters`] tries on each
/// ring, fewest first. Fewer digits make the Galois keys smaller and faster
/// to generate (at n = 2^15, 2 digits instead of 3: 2.8 instead of 3.8 GiB of
/// keys and about a quarter less key-generation time) for a larger P, which
/// costs the plan's encoded diagonals about 12 % more memory; the 128-bit
/// security check decides where 2 digits are too few.
const PLAN_DIGITS: [usize; 5] = [2, 3, 4, 5, 6];

/// The smallest prime of the chains these searches make: uniform primes of
/// at least 40 bits ([`noise::uniform_primes`](helib_rs::noise::uniform_primes)).
const MIN_CHAIN_PRIME_BITS: u32 = 40;

/// A workload with F's modulus whose demand on ring N is `demand(N)` for
/// the rings the searches consider (N ≥ `min_ring_degree` with a root of
/// unity of order 2N in F), evaluated only there.
fn per_ring<F: PrimeField + FftField>(
    min_ring_degree: usize,
    mut demand: impl FnMut(usize) -> Option<Demand>,
) -> Workload {
    Workload::per_ring(F::MODULUS.into(), |ring| {
        let considered = ring >= min_ring_degree && ring.trailing_zeros() < F::TWO_ADICITY;
        match considered.then(|| demand(ring)).flatten() {
            Some(d) => Ok(d),
            None => Err("the plan does not fit this ring".to_owned()),
        }
    })
}

/// `workload` as the transform searches make parameters: t sized by its bit
/// length, uniform primes of at least [`MIN_CHAIN_PRIME_BITS`], each of
/// `digits` key-switching digit counts in turn, rings from
/// `min_ring_degree` with slots (2N | p − 1).
fn transform_workload(
    workload: Workload,
    min_ring_degree: usize,
    digits: &[usize],
    threads: u32,
) -> Workload {
    let digits: Vec<KeySwitching> = digits.iter().map(|&d| KeySwitching::Digits(d)).collect();
    workload
        .log_t_as_bit_length()
        .chain_layout(ChainLayout::Uniform {
            min_prime_bits: MIN_CHAIN_PRIME_BITS,
        })
        .key_switching(&digits)
        .min_ring_degree(min_ring_degree)
        .slots()
        .threads(threads)
}

/// The advisor's parameters for `workload`; no ring up to 2^17 is
/// [`Error::Unsupported`].
fn advise(workload: Workload) -> Result<Parameters> {
    Advisor::new(workload)
        .advise()
        .map(helib_rs::Advice::into_parameters)
        .map_err(|_| {
            Error::Unsupported(
                "no ring degree up to 2^17 holds that many levels at 128-bit security",
            )
        })
}

#[cfg(test)]
mod tests {
    //! The searches through the advisor pick exactly what their own walks
    //! over the rings (with the search now at
    //! `helib_rs::advice::smallest_ring`, before the advisor) picked: the
    //! expected fingerprints are of the lines those walks printed for the
    //! spread below, per field (BN254 Fr; BN254 Fq, with no slots at all;
    //! the 17-bit prime 65537, slots up to N = 2^15).

    use super::*;
    use ark_ff::MontConfig;
    use helib_rs::advice::ChoiceLog;
    use helib_rs::noise;

    #[derive(MontConfig)]
    #[modulus = "65537"]
    #[generator = "3"]
    struct Config;
    type F17 = ark_ff::Fp64<ark_ff::MontBackend<Config, 1>>;

    /// The picks of every search for field `F`, one line each.
    fn picks<F: PrimeField + FftField>(name: &str) -> ChoiceLog {
        let mut lines = ChoiceLog::new();
        for levels in 0..=10 {
            lines.record_parameters(
                format_args!("fft {name} suggest_parameters({levels})"),
                &suggest_parameters::<F>(levels, 1),
            );
        }
        let log_t = F::MODULUS_BIT_SIZE as f64;
        let mins = [
            0usize,
            1,
            3000,
            4096,
            1 << 13,
            1 << 15,
            1 << 16,
            1 << 17,
            1 << 18,
            usize::MAX,
        ];
        for min in mins {
            for levels in [0usize, 1, 2, 3, 5] {
                for (label, kind) in [("0", 0u32), ("tp", 1), ("2tp", 2), ("lin", 3)] {
                    let extra = |log_n: u32| match kind {
                        0 => 0.0,
                        3 => 37.5 * log_n as f64,
                        k => k as f64 * noise::transformed_product_bits(1 << log_n, log_t),
                    };
                    lines.record_parameters(
                        format_args!("fft {name} at_least({min},{levels},{label})"),
                        &suggest_parameters_at_least::<F>(min, levels, extra, 2),
                    );
                }
            }
        }
        let strategies = [
            Strategy::Factored { levels: None },
            Strategy::Dense,
            Strategy::Factored { levels: Some(1) },
            Strategy::Factored { levels: Some(2) },
            Strategy::Factored { levels: Some(3) },
            Strategy::Factored { levels: Some(4) },
            Strategy::Factored { levels: Some(5) },
        ];
        let sizes = [
            0u32, 1, 2, 3, 4, 5, 6, 8, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 22, 23, 29,
        ];
        for log_n in sizes {
            for (index, &strategy) in strategies.iter().enumerate() {
                for coset in [false, true] {
                    for natural_output in [false, true] {
                        let options = PlanOptions {
                            strategy,
                            coset,
                            natural_output,
                        };
                        lines.record(
                            format_args!(
                                "fft {name} plan({log_n},{index},{coset},{natural_output})"
                            ),
                            &suggest_plan_parameters::<F>(1 << log_n, options, 1),
                            |p| {
                                let summary = p.parameters.summary();
                                format!("{summary} depth={} {:?}", p.depth, p.strategy)
                            },
                        );
                    }
                }
            }
        }
        let lengths = [
            3usize,
            0,
            2,
            4,
            16,
            64,
            256,
            1024,
            2048,
            4096,
            1 << 13,
            1 << 14,
            1 << 15,
            1 << 16,
            1 << 17,
        ];
        for n in lengths {
            let directions = [
                Conversion::SlotsToCoefficients,
                Conversion::CoefficientsToSlots,
            ];
            for (index, &conversion) in directions.iter().enumerate() {
                for products in 0..=2 {
                    lines.record_parameters(
                        format_args!("fft {name} conversion({n},{index},{products})"),
                        &suggest_conversion_parameters::<F>(n, conversion, products, 3),
                    );
                }
            }
        }
        lines
    }

    #[test]
    fn the_searches_pick_what_they_picked_before_the_advisor() {
        let fr = picks::<ark_bn254::Fr>("fr");
        for expected in [
            "fft fr plan(10,0,false,false) N=16 Q=60x14 P=53x8 th=1 depth=2 Factored { levels: Some(2) }",
            "fft fr plan(11,0,false,true) N=16 Q=60x23 P=52x7 th=1 depth=4 Factored { levels: Some(3) }",
            "fft fr plan(12,0,false,false) N=16 Q=59x19 P=60x4,59x6 th=1 depth=3 Factored { levels: Some(3) }",
        ] {
            assert!(fr.contains(expected), "missing: {expected}");
        }
        for (name, lines, expected) in [
            ("Fr", fr, 0xd6bf_578b_5035_cf1e_u64),
            ("Fq", picks::<ark_bn254::Fq>("fq"), 0x0a84_ecca_72b7_bb11),
            ("F17", picks::<F17>("f17"), 0x364c_afb0_c5b7_de15),
        ] {
            assert_eq!(lines.len(), 917, "{name}");
            assert_eq!(
                lines.fingerprint(),
                expected,
                "{name}: the picks changed:\n{lines}"
            );
        }
    }

    #[test]
    fn the_workloads_are_what_the_searches_advise_on() {
        let options = PlanOptions::default();
        let workload = options.workload::<ark_bn254::Fr>(1 << 18, 1).unwrap();
        let advice = Advisor::new(workload).advise().unwrap();
        let suggested = suggest_plan_parameters::<ark_bn254::Fr>(1 << 18, options, 1).unwrap();
        assert_eq!(advice.parameters(), &suggested.parameters);
        assert_eq!(advice.demand().circuit().depth(), suggested.depth);
        let ciphertexts = (1 << 18) / advice.ring_degree();
        assert_eq!(advice.operations().encryptions, ciphertexts);
        let to = Conversion::SlotsToCoefficients;
        let conversion = to.workload::<ark_bn254::Fr>(256, 1, 1).unwrap();
        let advice = Advisor::new(conversion).advise().unwrap();
        assert_eq!(
            advice.parameters(),
            &suggest_conversion_parameters::<ark_bn254::Fr>(256, to, 1, 1).unwrap()
        );
        assert_eq!(advice.operations().ciphertext_products, 1);
        assert!(matches!(
            to.workload::<ark_bn254::Fr>(3, 1, 1),
            Err(Error::InvalidSize(3))
        ));
        assert!(options.workload::<ark_bn254::Fr>(3, 1).is_err());
    }
}
