//! The engine's NTT over F_t ([`FieldNtt`]) against arkworks' coset FFT and
//! num-bigint, on every kernel this machine runs, and its input checks.

// The 4-limb MontConfig derive below emits `cfg(feature = "asm")` code.
#![allow(unexpected_cfgs)]

use ark_bn254::Fr;
use ark_ff::{BigInteger, Fp256, Fp64, MontBackend, MontConfig, PrimeField, UniformRand};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use helib_rs::{Error, FieldNtt, FieldNttKernel, SlotLayout};
use num_bigint::BigUint;
use proptest::prelude::*;

#[derive(MontConfig)]
#[modulus = "65537"]
#[generator = "3"]
struct F65537Config;
type F65537 = Fp64<MontBackend<F65537Config, 1>>;

/// The BLS12-381 scalar field: a 255-bit modulus, the widest the engine takes.
#[derive(MontConfig)]
#[modulus = "52435875175126190479447740508185965837690552500527637822603658699938581184513"]
#[generator = "7"]
struct F255Config;
type F255 = Fp256<MontBackend<F255Config, 4>>;

fn limbs<B: BigInteger>(value: &B) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (o, &l) in out.iter_mut().zip(value.as_ref()) {
        *o = l;
    }
    out
}

fn to_limbs<F: PrimeField>(values: &[F]) -> Vec<u64> {
    values
        .iter()
        .flat_map(|v| limbs(&v.into_bigint()))
        .collect()
}

fn from_limbs<F: PrimeField>(limbs: &[u64]) -> Vec<F> {
    limbs
        .chunks_exact(4)
        .map(|c| {
            let mut b = F::BigInt::default();
            for (o, &l) in b.as_mut().iter_mut().zip(c) {
                *o = l;
            }
            F::from_bigint(b).expect("the engine returns reduced elements")
        })
        .collect()
}

/// ψ (the generator of the size-2n domain) and the coset ψ·⟨ψ²⟩ of size n.
fn coset<F: PrimeField>(n: usize) -> (F, Radix2EvaluationDomain<F>) {
    let psi = Radix2EvaluationDomain::<F>::new(2 * n).unwrap().group_gen();
    let domain = Radix2EvaluationDomain::<F>::new(n)
        .unwrap()
        .get_coset(psi)
        .unwrap();
    (psi, domain)
}

fn table<F: PrimeField>(n: usize) -> FieldNtt {
    let (psi, _) = coset::<F>(n);
    FieldNtt::new(limbs(&F::MODULUS), n, limbs(&psi.into_bigint())).unwrap()
}

/// The kernels this machine runs for `ntt`.
fn kernels(ntt: &FieldNtt) -> Vec<FieldNttKernel> {
    let mut all = vec![FieldNttKernel::Auto, FieldNttKernel::Scalar];
    if ntt.ifma_available() {
        all.push(FieldNttKernel::Ifma);
    }
    all
}

fn matches_arkworks<F: PrimeField>() {
    let mut rng = ark_std::test_rng();
    for log_n in 2..=12 {
        let n = 1usize << log_n;
        let (_, domain) = coset::<F>(n);
        let ntt = table::<F>(n);
        let coefficients: Vec<F> = (0..n).map(|_| F::rand(&mut rng)).collect();
        let evaluations = domain.fft(&coefficients);
        let back = domain.ifft(&coefficients);
        for kernel in kernels(&ntt) {
            let mut values = to_limbs(&coefficients);
            ntt.forward(&mut values, kernel).unwrap();
            assert_eq!(
                from_limbs::<F>(&values),
                evaluations,
                "forward, n = {n}, {kernel:?}"
            );
            let mut values = to_limbs(&coefficients);
            ntt.inverse(&mut values, kernel).unwrap();
            assert_eq!(
                from_limbs::<F>(&values),
                back,
                "inverse, n = {n}, {kernel:?}"
            );
        }
    }
}

#[test]
fn bn254_transforms_match_arkworks_coset_fft() {
    matches_arkworks::<Fr>();
}

#[test]
fn a_255_bit_field_matches_arkworks_coset_fft() {
    matches_arkworks::<F255>();
}

#[test]
fn a_17_bit_field_matches_arkworks_coset_fft() {
    matches_arkworks::<F65537>();
}

#[test]
fn scalar_and_ifma_kernels_agree_on_batches_and_edge_values() {
    let n = 256;
    let ntt = table::<Fr>(n);
    if !ntt.ifma_available() {
        eprintln!("no AVX-512 IFMA here: only the portable kernel is checked");
        return;
    }
    let mut rng = ark_std::test_rng();
    // Three vectors: random, all t - 1, alternating 0 and t - 1.
    let mut values: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    values.extend(std::iter::repeat_n(-Fr::from(1u64), n));
    values.extend((0..n).map(|i| {
        if i % 2 == 0 {
            Fr::from(0u64)
        } else {
            -Fr::from(1u64)
        }
    }));
    let input = to_limbs(&values);
    for forward in [true, false] {
        let mut scalar = input.clone();
        let mut ifma = input.clone();
        let run = |v: &mut Vec<u64>, k| {
            if forward {
                ntt.forward(v, k)
            } else {
                ntt.inverse(v, k)
            }
        };
        run(&mut scalar, FieldNttKernel::Scalar).unwrap();
        run(&mut ifma, FieldNttKernel::Ifma).unwrap();
        assert_eq!(scalar, ifma, "forward = {forward}");
        // Each vector of the batch is transformed on its own.
        let mut single = input[4 * n..8 * n].to_vec();
        run(&mut single, FieldNttKernel::Scalar).unwrap();
        assert_eq!(single, scalar[4 * n..8 * n]);
    }
}

/// Every length from 2 to 2^16 (the IFMA kernel from 64 up, blocked above
/// 2^13): the automatic kernel against the portable one, both directions,
/// and the inverse undoes the forward transform.
#[test]
fn every_length_up_to_2_16_agrees_with_the_portable_kernel() {
    let mut rng = ark_std::test_rng();
    for log_n in 1..=16 {
        let n = 1usize << log_n;
        let ntt = table::<Fr>(n);
        let values: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let input = to_limbs(&values);
        for forward in [true, false] {
            let run = |v: &mut Vec<u64>, k| {
                if forward {
                    ntt.forward(v, k)
                } else {
                    ntt.inverse(v, k)
                }
            };
            let mut scalar = input.clone();
            run(&mut scalar, FieldNttKernel::Scalar).unwrap();
            for kernel in kernels(&ntt) {
                let mut got = input.clone();
                run(&mut got, kernel).unwrap();
                assert_eq!(got, scalar, "n = {n}, forward = {forward}, {kernel:?}");
            }
        }
        let mut round = input.clone();
        ntt.forward(&mut round, FieldNttKernel::Auto).unwrap();
        ntt.inverse(&mut round, FieldNttKernel::Auto).unwrap();
        assert_eq!(round, input, "n = {n}");
    }
}

#[test]
fn slot_layout_gives_the_same_slots_through_the_engine() {
    let mut rng = ark_std::test_rng();
    for log_n in [6, 8, 12] {
        let n = 1usize << log_n;
        let layout = SlotLayout::<Fr>::new(n).unwrap();
        let (_, domain) = coset::<Fr>(n);
        let values: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
        let coefficients = layout.slots_to_coefficients(&values).unwrap();
        // arkworks directly: slot j holds the evaluation at coset index k_j.
        let mut evaluations = vec![Fr::from(0u64); n];
        for (slot, &value) in values.iter().enumerate() {
            let e = layout.slot_exponent(slot).unwrap();
            evaluations[(e - 1) / 2] = value;
        }
        assert_eq!(coefficients, domain.ifft(&evaluations), "n = {n}");
        assert_eq!(layout.coefficients_to_slots(&coefficients).unwrap(), values);
        let ntt = table::<Fr>(n);
        assert_eq!(layout.uses_engine(), ntt.vectorized(), "n = {n}");
    }
}

/// m(ψ^(2k+1)) for k = 0..n with num-bigint.
fn naive_forward(coefficients: &[BigUint], psi: &BigUint, t: &BigUint) -> Vec<BigUint> {
    let n = coefficients.len();
    (0..n)
        .map(|k| {
            let x = psi.modpow(&BigUint::from(2 * k as u64 + 1), t);
            let mut acc = BigUint::from(0u32);
            for c in coefficients.iter().rev() {
                acc = (acc * &x + c) % t;
            }
            acc
        })
        .collect()
}

fn biguint_limbs(value: &BigUint) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (o, l) in out.iter_mut().zip(value.iter_u64_digits()) {
        *o = l;
    }
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// The Montgomery products of every kernel, checked through a length-64
    /// transform against plain big-integer arithmetic, for random residues
    /// (and their extremes) modulo a 254- and a 255-bit prime.
    #[test]
    fn montgomery_products_match_num_bigint(
        seeds in proptest::collection::vec(any::<[u64; 4]>(), 64),
        wide in any::<bool>(),
    ) {
        let n = 64;
        let (t, psi) = if wide {
            let (psi, _) = coset::<F255>(n);
            (BigUint::from(F255::MODULUS), BigUint::from(psi.into_bigint()))
        } else {
            let (psi, _) = coset::<Fr>(n);
            (BigUint::from(Fr::MODULUS), BigUint::from(psi.into_bigint()))
        };
        let ntt = FieldNtt::new(biguint_limbs(&t), n, biguint_limbs(&psi)).unwrap();
        let coefficients: Vec<BigUint> = seeds
            .iter()
            .enumerate()
            .map(|(i, s)| {
                let v = BigUint::from_slice(&[
                    s[0] as u32, (s[0] >> 32) as u32, s[1] as u32, (s[1] >> 32) as u32,
                    s[2] as u32, (s[2] >> 32) as u32, s[3] as u32, (s[3] >> 32) as u32,
                ]) % &t;
                if i % 7 == 3 { &t - 1u32 } else { v }
            })
            .collect();
        let expected = naive_forward(&coefficients, &psi, &t);
        let input: Vec<u64> = coefficients.iter().flat_map(biguint_limbs).collect();
        for kernel in kernels(&ntt) {
            let mut values = input.clone();
            ntt.forward(&mut values, kernel).unwrap();
            let got: Vec<BigUint> = values
                .chunks_exact(4)
                .map(|c| BigUint::from_slice(&c.iter().flat_map(|&l| [l as u32, (l >> 32) as u32]).collect::<Vec<_>>()))
                .collect();
            prop_assert_eq!(&got, &expected, "{:?}", kernel);
            ntt.inverse(&mut values, kernel).unwrap();
            prop_assert_eq!(&values, &input, "{:?}", kernel);
        }
    }
}

fn invalid(result: helib_rs::Result<FieldNtt>) -> bool {
    matches!(result, Err(Error::InvalidArgument(_)))
}

#[test]
fn bad_tables_are_refused() {
    let n = 64;
    let (psi, _) = coset::<Fr>(n);
    let t = limbs(&Fr::MODULUS);
    let psi = limbs(&psi.into_bigint());
    assert!(FieldNtt::new(t, n, psi).is_ok());
    // ψ² is a 64-th root, not a primitive 128-th one; 2 is no root at all.
    let psi_squared = limbs(&(coset::<Fr>(n).0 * coset::<Fr>(n).0).into_bigint());
    assert!(invalid(FieldNtt::new(t, n, psi_squared)));
    assert!(invalid(FieldNtt::new(t, n, [2, 0, 0, 0])));
    // ψ + t is the same root but not reduced.
    let mut plus_t = [0u64; 4];
    let sum = BigUint::from(Fr::MODULUS) + BigUint::from(coset::<Fr>(n).0.into_bigint());
    for (o, l) in plus_t.iter_mut().zip(sum.iter_u64_digits()) {
        *o = l;
    }
    assert!(invalid(FieldNtt::new(t, n, plus_t)));
    // Even, tiny and too wide moduli.
    let mut even = t;
    even[0] -= 1;
    assert!(invalid(FieldNtt::new(even, n, psi)));
    assert!(invalid(FieldNtt::new([1, 0, 0, 0], 2, [0, 0, 0, 0])));
    assert!(invalid(FieldNtt::new([u64::MAX; 4], n, psi)));
    // Lengths that are not powers of two in [2, 2^17].
    assert!(invalid(FieldNtt::new(t, 48, psi)));
    assert!(invalid(FieldNtt::new(t, 0, psi)));
    assert!(invalid(FieldNtt::new(t, 1, psi)));
    assert!(invalid(FieldNtt::new(t, 1 << 18, psi)));
}

#[test]
fn bad_buffers_are_refused_and_left_unchanged() {
    let n = 8;
    let ntt = table::<Fr>(n);
    let t = limbs(&Fr::MODULUS);
    let mut values = vec![0u64; 4 * n];
    values[8] = 5;
    // An element equal to t.
    let mut bad = values.clone();
    bad[4 * 3..4 * 4].copy_from_slice(&t);
    let before = bad.clone();
    assert!(matches!(
        ntt.forward(&mut bad, FieldNttKernel::Auto),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ntt.inverse(&mut bad, FieldNttKernel::Scalar),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(bad, before);
    // A length that is not a multiple of 4n.
    let mut short = vec![0u64; 4 * n - 4];
    assert!(matches!(
        ntt.forward(&mut short, FieldNttKernel::Auto),
        Err(Error::InvalidArgument(_))
    ));
    // The IFMA kernel never runs below n = 64.
    assert!(!ntt.ifma_available());
    assert!(matches!(
        ntt.forward(&mut values, FieldNttKernel::Ifma),
        Err(Error::InvalidArgument(_))
    ));
    // An empty buffer is zero transforms.
    assert!(ntt.forward(&mut [], FieldNttKernel::Auto).is_ok());
}
