//! Double-hoisted baby-step giant-step linear transforms against the slot
//! model (Σ_j rot_(j·g)(Σ_i D_(j,i) ⊙ σ_(b_i)(x)) computed on plaintext slots)
//! and against the same sum built from plain rotations and products.

mod common;

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand};
use common::{rng, t65537, Keyed, F65537};
use helib_rs::{BatchEncoder, Ciphertext, EncodedPlaintext, Error, GaloisKeys};
use proptest::prelude::*;
use rand::Rng;

/// N = 1024 with t = BN254 Fr (depth 2) and t = 65537 (depth 3).
fn bn254() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(1024, &common::bn254(), 2))
}

fn small_t() -> &'static Keyed {
    static KEYED: OnceLock<Keyed> = OnceLock::new();
    KEYED.get_or_init(|| Keyed::new(1024, &t65537(), 3))
}

/// Baby steps: the identity, rotations by 1..babies and (optionally) the row
/// swap composed with rotation 1; the giant step rotates by `babies`.
struct Shape {
    baby_steps: Vec<(bool, i64)>,
    giant_step: i64,
    giants: usize,
}

impl Shape {
    fn new(babies: usize, giants: usize, with_swap: bool) -> Self {
        let mut baby_steps: Vec<(bool, i64)> = (0..babies as i64).map(|k| (false, k)).collect();
        if with_swap {
            baby_steps.push((true, 1));
        }
        Shape {
            baby_steps,
            giant_step: babies as i64,
            giants,
        }
    }

    fn elements(&self, keyed: &Keyed) -> Vec<u64> {
        let context = &keyed.context;
        let two_n = 2 * context.ring_degree() as u64;
        let swap = GaloisKeys::row_swap_element(context);
        self.baby_steps
            .iter()
            .map(|&(sw, k)| {
                let g = GaloisKeys::element_for_step(context, k);
                if sw {
                    g * swap % two_n
                } else {
                    g
                }
            })
            .collect()
    }

    fn giant(&self, keyed: &Keyed) -> u64 {
        GaloisKeys::element_for_step(&keyed.context, self.giant_step)
    }

    fn keys(&self, keyed: &Keyed) -> GaloisKeys {
        let mut elements = self.elements(keyed);
        elements.push(self.giant(keyed));
        elements.retain(|&g| g != 1);
        GaloisKeys::for_elements(&keyed.sk, &elements).unwrap()
    }
}

/// Both rows rotated left by `step`, after swapping the rows when `swap`.
fn move_slots<F: Copy>(slots: &[F], swap: bool, step: i64) -> Vec<F> {
    let half = slots.len() / 2;
    let k = step.rem_euclid(half as i64) as usize;
    (0..slots.len())
        .map(|i| {
            let (row, j) = (i / half, i % half);
            let row = if swap { 1 - row } else { row };
            slots[row * half + (j + k) % half]
        })
        .collect()
}

/// The transform on plaintext slots.
fn model<F: PrimeField>(shape: &Shape, diagonals: &[Option<Vec<F>>], x: &[F]) -> Vec<F> {
    let babies = shape.baby_steps.len();
    let mut y = vec![F::zero(); x.len()];
    for j in 0..shape.giants {
        let mut inner = vec![F::zero(); x.len()];
        for (i, &(sw, k)) in shape.baby_steps.iter().enumerate() {
            if let Some(d) = &diagonals[j * babies + i] {
                let moved = move_slots(x, sw, k);
                for ((acc, a), b) in inner.iter_mut().zip(&moved).zip(d) {
                    *acc += *a * b;
                }
            }
        }
        let rotated = move_slots(&inner, false, shape.giant_step * j as i64);
        for (acc, v) in y.iter_mut().zip(rotated) {
            *acc += v;
        }
    }
    y
}

fn random_slots<F: UniformRand>(n: usize, rng: &mut impl Rng) -> Vec<F> {
    (0..n).map(|_| F::rand(rng)).collect()
}

/// Random diagonals, each present with probability 3/4 (at least one).
fn random_diagonals<F: UniformRand>(
    count: usize,
    slots: usize,
    rng: &mut impl Rng,
) -> Vec<Option<Vec<F>>> {
    let mut out: Vec<Option<Vec<F>>> = (0..count)
        .map(|_| rng.gen_bool(0.75).then(|| random_slots(slots, rng)))
        .collect();
    if out.iter().all(Option::is_none) {
        out[0] = Some(random_slots(slots, rng));
    }
    out
}

fn encode_all<F: PrimeField + FftField>(
    encoder: &BatchEncoder<F>,
    diagonals: &[Option<Vec<F>>],
    level: usize,
) -> Vec<Option<EncodedPlaintext>> {
    diagonals
        .iter()
        .map(|d| {
            d.as_ref()
                .map(|v| encoder.encode_for_linear_transform(v, level).unwrap())
        })
        .collect()
}

fn open<F: PrimeField + FftField>(keyed: &Keyed, ct: &Ciphertext) -> Vec<F> {
    let exact = keyed.sk.noise_budget(ct).unwrap();
    assert!(
        ct.estimated_budget_bits() <= exact + 1.0,
        "the estimate {} must not exceed the exact budget {exact}",
        ct.estimated_budget_bits()
    );
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    encoder.decode(&keyed.sk.decrypt(ct).unwrap()).unwrap()
}

/// One random transform of a random vector, checked against the model;
/// `level` below the top exercises diagonals encoded above the ciphertext.
fn check_against_model<F: PrimeField + FftField>(
    keyed: &Keyed,
    shape: &Shape,
    seed: u64,
    level: Option<usize>,
) {
    let mut rng = rng(seed);
    let encoder = BatchEncoder::<F>::new(&keyed.context).unwrap();
    let slots = encoder.slot_count();
    let x: Vec<F> = random_slots(slots, &mut rng);
    let mut ct = keyed.pk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    if let Some(level) = level {
        ct = ct.mod_switch_to(level).unwrap();
    }
    let diagonals: Vec<Option<Vec<F>>> =
        random_diagonals(shape.baby_steps.len() * shape.giants, slots, &mut rng);
    let encoded = encode_all(&encoder, &diagonals, keyed.context.max_level());
    let refs: Vec<Option<&EncodedPlaintext>> = encoded.iter().map(Option::as_ref).collect();
    let keys = shape.keys(keyed);
    let y = ct
        .linear_transform(&shape.elements(keyed), shape.giant(keyed), &refs, &keys)
        .unwrap();
    assert_eq!(y.level(), ct.level());
    assert_eq!(open::<F>(keyed, &y), model(shape, &diagonals, &x));
}

#[test]
fn matches_the_slot_model_for_bn254() {
    for (seed, (babies, giants, swap)) in [(4, 3, false), (3, 1, true), (1, 4, false), (8, 2, true)]
        .into_iter()
        .enumerate()
    {
        check_against_model::<Fr>(
            bn254(),
            &Shape::new(babies, giants, swap),
            seed as u64,
            None,
        );
    }
}

#[test]
fn matches_the_slot_model_for_t65537() {
    for (seed, (babies, giants, swap)) in [(4, 3, true), (2, 2, false)].into_iter().enumerate() {
        check_against_model::<F65537>(
            small_t(),
            &Shape::new(babies, giants, swap),
            100 + seed as u64,
            None,
        );
    }
}

#[test]
fn diagonals_encoded_above_the_ciphertext_level_serve_it() {
    check_against_model::<F65537>(small_t(), &Shape::new(4, 2, true), 7, Some(0));
    check_against_model::<F65537>(small_t(), &Shape::new(3, 3, false), 8, Some(0));
}

/// The same sum from rotations, plaintext products and additions decrypts
/// to the same slots, with no more noise than the hoisted evaluation.
#[test]
fn equals_the_sum_of_plain_rotations_and_products() {
    let keyed = bn254();
    let shape = Shape::new(4, 3, true);
    let mut rng = rng(21);
    let encoder = BatchEncoder::<Fr>::new(&keyed.context).unwrap();
    let x: Vec<Fr> = random_slots(encoder.slot_count(), &mut rng);
    let ct = keyed.pk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let diagonals: Vec<Option<Vec<Fr>>> =
        random_diagonals(shape.baby_steps.len() * shape.giants, x.len(), &mut rng);
    let encoded = encode_all(&encoder, &diagonals, ct.level());
    let refs: Vec<Option<&EncodedPlaintext>> = encoded.iter().map(Option::as_ref).collect();
    let keys = shape.keys(keyed);
    let elements = shape.elements(keyed);
    let hoisted = ct
        .linear_transform(&elements, shape.giant(keyed), &refs, &keys)
        .unwrap();

    let babies: Vec<Ciphertext> = elements
        .iter()
        .map(|&g| ct.apply_galois(g, &keys).unwrap())
        .collect();
    let mut plain: Option<Ciphertext> = None;
    for j in 0..shape.giants {
        let mut inner: Option<Ciphertext> = None;
        for (i, baby) in babies.iter().enumerate() {
            if let Some(d) = &encoded[j * babies.len() + i] {
                let term = baby.mul_plain(d).unwrap();
                inner = Some(match inner {
                    Some(acc) => (&acc + &term).unwrap(),
                    None => term,
                });
            }
        }
        if let Some(inner) = inner {
            let mut moved = inner;
            for _ in 0..j {
                moved = moved.apply_galois(shape.giant(keyed), &keys).unwrap();
            }
            plain = Some(match plain {
                Some(acc) => (&acc + &moved).unwrap(),
                None => moved,
            });
        }
    }
    let plain = plain.unwrap();
    assert_eq!(open::<Fr>(keyed, &hoisted), open::<Fr>(keyed, &plain));
    let (hoisted_budget, plain_budget) = (
        keyed.sk.noise_budget(&hoisted).unwrap(),
        keyed.sk.noise_budget(&plain).unwrap(),
    );
    assert!(
        hoisted_budget + 1.0 >= plain_budget,
        "hoisting should not add noise: {hoisted_budget} vs {plain_budget} bits"
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(6))]
    /// Linearity over random shapes and vectors: T(a·x + z) = a·T(x) + T(z).
    #[test]
    fn is_linear(babies in 1usize..5, giants in 1usize..4, swap: bool, seed: u64, a in 1u64..1000) {
        let keyed = small_t();
        let shape = Shape::new(babies, giants, swap);
        let mut rng = rng(seed);
        let encoder = BatchEncoder::<F65537>::new(&keyed.context).unwrap();
        let slots = encoder.slot_count();
        let x: Vec<F65537> = random_slots(slots, &mut rng);
        let z: Vec<F65537> = random_slots(slots, &mut rng);
        let diagonals: Vec<Option<Vec<F65537>>> =
            random_diagonals(shape.baby_steps.len() * giants, slots, &mut rng);
        let encoded = encode_all(&encoder, &diagonals, keyed.context.max_level());
        let refs: Vec<Option<&EncodedPlaintext>> = encoded.iter().map(Option::as_ref).collect();
        let keys = shape.keys(keyed);
        let transform = |v: &[F65537]| {
            let ct = keyed.sk.encrypt(&encoder.encode(v).unwrap()).unwrap();
            ct.linear_transform(&shape.elements(keyed), shape.giant(keyed), &refs, &keys).unwrap()
        };
        let scale = F65537::from(a);
        let combined: Vec<F65537> = x.iter().zip(&z).map(|(p, q)| scale * p + q).collect();
        let left = open::<F65537>(keyed, &transform(&combined));
        let (tx, tz) = (open::<F65537>(keyed, &transform(&x)), open::<F65537>(keyed, &transform(&z)));
        let right: Vec<F65537> = tx.iter().zip(&tz).map(|(p, q)| scale * p + q).collect();
        prop_assert_eq!(left, right);
    }
}

#[test]
fn bad_inputs_are_refused_with_clear_errors() {
    let keyed = bn254();
    let context = &keyed.context;
    let encoder = BatchEncoder::<Fr>::new(context).unwrap();
    let x = vec![Fr::from(3u64); encoder.slot_count()];
    let ct = keyed.sk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let level = ct.level();
    let one = encoder.encode_for_linear_transform(&x, level).unwrap();
    let step1 = GaloisKeys::element_for_step(context, 1);
    let step2 = GaloisKeys::element_for_step(context, 2);
    let keys = GaloisKeys::for_elements(&keyed.sk, &[step1]).unwrap();

    // Shapes.
    let empty: [Option<&EncodedPlaintext>; 0] = [];
    assert!(matches!(
        ct.linear_transform(&[], step1, &[Some(&one)], &keys),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ct.linear_transform(&[1], step1, &empty, &keys),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ct.linear_transform(&[1, step1], step1, &[Some(&one)], &keys),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        ct.linear_transform(&[1], step1, &[None], &keys),
        Err(Error::InvalidArgument(_))
    ));
    // Not extended, or another correction factor.
    let ordinary = encoder.encode_for_multiplication(&x, level).unwrap();
    assert!(!ordinary.is_extended() && one.is_extended());
    assert!(matches!(
        ct.linear_transform(&[1], step1, &[Some(&ordinary)], &keys),
        Err(Error::InvalidArgument(_))
    ));
    let other_factor = EncodedPlaintext::with_factor(
        &encoder.encode(&x).unwrap(),
        level,
        &num_bigint::BigUint::from(5u32),
    )
    .unwrap();
    assert!(matches!(
        ct.linear_transform(
            &[1, step1],
            step1,
            &[Some(&one), Some(&other_factor)],
            &keys
        ),
        Err(Error::InvalidArgument(_))
    ));
    // Missing keys: a baby step, or the giant step when there are two giant steps.
    assert!(matches!(
        ct.linear_transform(&[step2], step1, &[Some(&one)], &keys),
        Err(Error::MissingGaloisKey { element, .. }) if element == step2
    ));
    assert!(matches!(
        ct.linear_transform(&[step1], step2, &[Some(&one), Some(&one)], &keys),
        Err(Error::MissingGaloisKey { element, .. }) if element == step2
    ));
    // A single giant step needs no giant key.
    assert!(ct
        .linear_transform(&[step1], step2, &[Some(&one)], &keys)
        .is_ok());
    // Invalid element.
    assert!(ct
        .linear_transform(&[2], step1, &[Some(&one)], &keys)
        .is_err());
    // Diagonals encoded below the ciphertext's level.
    let low = encoder.encode_for_linear_transform(&x, 0).unwrap();
    assert!(matches!(
        ct.linear_transform(&[1], step1, &[Some(&low)], &keys),
        Err(Error::LevelMismatch { .. })
    ));
    // Another context.
    let other = small_t();
    let foreign = BatchEncoder::<F65537>::new(&other.context)
        .unwrap()
        .encode_for_linear_transform(&[F65537::from(1u64)], 0)
        .unwrap();
    assert!(matches!(
        ct.linear_transform(&[1], step1, &[Some(&foreign)], &keys),
        Err(Error::ContextMismatch)
    ));
    // Exhausted budget: a chain of transforms is refused before any work,
    // while its last accepted result still decrypts.
    let big = encoder
        .encode_for_linear_transform(&random_slots::<Fr>(x.len(), &mut rng(3)), level)
        .unwrap();
    let mut current = ct.clone();
    let mut refused = false;
    for _ in 0..8 {
        match current.linear_transform(&[1, step1], step1, &[Some(&big), Some(&big)], &keys) {
            Ok(next) => current = next,
            Err(Error::NoiseBudgetExhausted) => {
                refused = true;
                break;
            }
            Err(other) => panic!("unexpected error {other:?}"),
        }
    }
    assert!(refused, "a chain of transforms must run out of budget");
    assert!(keyed.sk.decrypt(&current).is_ok());
}

/// With the identity as giant element the giant groups are simply added.
#[test]
fn an_identity_giant_step_adds_the_groups() {
    let keyed = small_t();
    let encoder = BatchEncoder::<F65537>::new(&keyed.context).unwrap();
    let mut rng = rng(9);
    let slots = encoder.slot_count();
    let x: Vec<F65537> = random_slots(slots, &mut rng);
    let ct = keyed.sk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let shape = Shape::new(2, 3, false);
    let diagonals: Vec<Option<Vec<F65537>>> = random_diagonals(6, slots, &mut rng);
    let encoded = encode_all(&encoder, &diagonals, ct.level());
    let refs: Vec<Option<&EncodedPlaintext>> = encoded.iter().map(Option::as_ref).collect();
    let keys = shape.keys(keyed);
    let y = ct
        .linear_transform(&shape.elements(keyed), 1, &refs, &keys)
        .unwrap();
    let unrotated = Shape {
        giant_step: 0,
        ..shape
    };
    assert_eq!(open::<F65537>(keyed, &y), model(&unrotated, &diagonals, &x));
}

#[test]
fn extended_encodings_serve_ordinary_products() {
    let keyed = small_t();
    let encoder = BatchEncoder::<F65537>::new(&keyed.context).unwrap();
    let mut rng = rng(5);
    let x: Vec<F65537> = random_slots(encoder.slot_count(), &mut rng);
    let d: Vec<F65537> = random_slots(encoder.slot_count(), &mut rng);
    let ct = keyed.pk.encrypt(&encoder.encode(&x).unwrap()).unwrap();
    let extended = encoder.encode_for_linear_transform(&d, ct.level()).unwrap();
    let product = ct.mul_plain(&extended).unwrap();
    let want: Vec<F65537> = x.iter().zip(&d).map(|(a, b)| *a * b).collect();
    assert_eq!(open::<F65537>(keyed, &product), want);
}
