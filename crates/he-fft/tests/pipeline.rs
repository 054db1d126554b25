//! The Groth16 quotient pipeline chained through plans without permutations:
//! ifft (natural → bit-reversed) → coset fft (bit-reversed → natural) →
//! pointwise (A'∘B' − C')/Z_H(g) → coset ifft (natural → bit-reversed), and
//! across ciphertexts (n > N) with the plans' fixed layouts, against ark-poly,
//! at a small (insecure) ring.

mod support;

use ark_bn254::Fr;
use ark_ff::{FftField, Field, PrimeField, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use he_fft::{bit_reverse_permute, FftPlan, Order, Strategy};
use helib_rs::{Ciphertext, EncodedPlaintext, GaloisKeys, ModSwitchPolicy, Plaintext, RelinKey};
use num_bigint::BigUint;
use rand::SeedableRng;
use std::sync::OnceLock;
use support::{bn254_builder, context_of, Keys};

const LOG_N: u32 = 11;

/// The context and keys, with a relinearization key.
struct Setup {
    keys: Keys,
    rk: RelinKey,
}

impl std::ops::Deref for Setup {
    type Target = Keys;

    fn deref(&self) -> &Keys {
        &self.keys
    }
}

fn setup() -> &'static Setup {
    static SETUP: OnceLock<Setup> = OnceLock::new();
    SETUP.get_or_init(|| {
        let keys = Keys::new(context_of(bn254_builder(LOG_N, 48).key_switching_digits(4)));
        let rk = RelinKey::generate(&keys.sk).expect("rk");
        Setup { keys, rk }
    })
}

fn big(f: Fr) -> BigUint {
    f.into_bigint().into()
}

fn level_of(cts: &[Vec<Ciphertext>]) -> usize {
    cts.iter().flatten().map(|c| c.level()).min().unwrap()
}

/// Runs `plan` on every vector, generating the keys it needs on the way.
fn execute(
    plan: &FftPlan<Fr>,
    keys: &mut GaloisKeys,
    vectors: &[Vec<Ciphertext>],
) -> Vec<Vec<Ciphertext>> {
    let s = setup();
    keys.add_elements(&s.sk, &plan.required_galois_elements())
        .unwrap();
    vectors
        .iter()
        .map(|v| plan.execute(v, keys).expect("execute"))
        .collect()
}

fn quotient(n: usize, levels: usize) {
    let s = setup();
    let slots = s.context.ring_degree();
    let g = Fr::GENERATOR;
    let strategy = Strategy::Factored {
        levels: Some(levels),
    };
    let mut rng = rand::rngs::StdRng::seed_from_u64(n as u64);
    let a: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let b: Vec<Fr> = (0..n).map(|_| Fr::rand(&mut rng)).collect();
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    let mut keys = GaloisKeys::new(&s.context).unwrap();

    let ifft = FftPlan::<Fr>::builder(&s.context, n)
        .inverse()
        .strategy(strategy)
        .build()
        .unwrap();
    let inputs: Vec<Vec<Ciphertext>> = [&a, &b, &c]
        .iter()
        .map(|v| ifft.encrypt(&s.pk, v).unwrap())
        .collect();
    let coeffs = execute(&ifft, &mut keys, &inputs);

    let coset_fft = FftPlan::<Fr>::builder(&s.context, n)
        .coset(g)
        .input_order(if n <= slots {
            Order::BitReversed
        } else {
            Order::Natural
        })
        .strategy(strategy)
        .input_level(level_of(&coeffs))
        .build()
        .unwrap();
    let evals = execute(&coset_fft, &mut keys, &coeffs);

    // (A'∘B' − C') / Z_H(g): the division rides on the correction factor.
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let z = domain.evaluate_vanishing_polynomial(g);
    let inv_z = Plaintext::from_biguints(&s.context, &[big(z.inverse().unwrap())]).unwrap();
    let quotient_evals: Vec<Ciphertext> = (0..evals[0].len())
        .map(|i| {
            let mut d = evals[0][i]
                .multiply_relin(&evals[1][i], &s.rk, ModSwitchPolicy::BeforeMultiply)
                .unwrap();
            let mut c = evals[2][i].clone();
            let level = d.level().min(c.level());
            d.mod_switch_to_assign(level).unwrap();
            c.mod_switch_to_assign(level).unwrap();
            d.mul_plain_assign(&EncodedPlaintext::with_factor(&inv_z, level, &big(z)).unwrap())
                .unwrap();
            let factor = Fr::from(d.correction_factor().clone())
                * Fr::from(c.correction_factor().clone()).inverse().unwrap();
            c.mul_plain_assign(
                &EncodedPlaintext::with_factor(&inv_z, level, &big(factor)).unwrap(),
            )
            .unwrap();
            d.sub_assign(&c).unwrap();
            d.mod_switch_reduce_noise_assign().unwrap();
            d
        })
        .collect();
    let quotient_evals = vec![quotient_evals];

    let coset_ifft = FftPlan::<Fr>::builder(&s.context, n)
        .inverse()
        .coset(g)
        .strategy(strategy)
        .input_level(level_of(&quotient_evals))
        .build()
        .unwrap();
    let h_ct = execute(&coset_ifft, &mut keys, &quotient_evals);
    let got = coset_ifft.decrypt(&s.sk, &h_ct[0]).unwrap();

    let coset = domain.get_coset(g).unwrap();
    let [a2, b2, c2] = [&a, &b, &c].map(|v| coset.fft(&domain.ifft(v)));
    let z_inv = z.inverse().unwrap();
    let h_evals: Vec<Fr> = (0..n).map(|i| (a2[i] * b2[i] - c2[i]) * z_inv).collect();
    let h = coset.ifft(&h_evals);
    let want = if n <= slots {
        bit_reverse_permute(&h)
    } else {
        h
    };
    assert_eq!(got, want, "n = {n}");
    // deg h ≤ n − 2.
    assert!(want.iter().filter(|x| !x.is_zero()).count() < n, "n = {n}");
}

#[test]
fn quotient_in_one_row() {
    quotient(8, 1);
    quotient(64, 2);
}

#[test]
fn quotient_in_one_full_ciphertext() {
    quotient(1 << LOG_N, 2);
}

#[test]
fn quotient_across_two_ciphertexts() {
    quotient(2 << LOG_N, 2);
}
