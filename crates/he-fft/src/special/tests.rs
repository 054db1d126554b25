//! Special-FFT tests: every form, order and split against the slot layout.

use super::*;
use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use rand::SeedableRng;

fn random(n: usize, seed: u64) -> Vec<Fr> {
    let mut rng = rand::rngs::StdRng::seed_from_u64(seed);
    (0..n).map(|_| Fr::rand(&mut rng)).collect()
}

/// The coefficients behind a slot-side vector in natural order.
fn coefficients(form: SlotForm, v: &[Fr]) -> Vec<Fr> {
    match form {
        SlotForm::Coefficients => v.to_vec(),
        SlotForm::Evaluations => Radix2EvaluationDomain::<Fr>::new(v.len()).unwrap().ifft(v),
    }
}

/// Every level split of both directions against `SlotLayout`, the plain oracle.
fn check(slots: usize, n: usize, form: SlotForm, order: Order, levels: &[usize]) {
    let g = Geometry::<Fr>::new(slots, n, form, order).unwrap();
    let layout = SlotLayout::<Fr>::new(slots).unwrap();
    let v = random(n, (slots * 31 + n) as u64);
    let want_slots = layout
        .coefficients_to_slots(&coefficients(form, &v))
        .unwrap();
    let packed = g.pack(&v);
    assert_eq!(g.unpack(&packed), v);
    for &k in levels {
        let what = format!("N={slots} n={n} {form:?} {order:?} levels={k}");
        let mut x = packed.clone();
        for t in g.levels(k, Conversion::SlotsToCoefficients) {
            x = t.apply_plain(&x);
        }
        assert!(x == want_slots, "to coefficients, {what}");
        if k == 1 && !g.dense_supported(Conversion::CoefficientsToSlots) {
            continue;
        }
        let mut y = want_slots.clone();
        for t in g.levels(k, Conversion::CoefficientsToSlots) {
            y = t.apply_plain(&y);
        }
        assert!(y == packed, "to slots, {what}");
    }
}

#[test]
fn every_form_order_and_split_matches_the_slot_layout() {
    for (slots, n) in [(8, 2), (8, 4), (16, 2), (16, 4), (16, 8), (32, 4), (64, 8)] {
        for form in [SlotForm::Evaluations, SlotForm::Coefficients] {
            for order in [Order::Natural, Order::BitReversed] {
                check(slots, n, form, order, &[1, 2, 3, 4]);
            }
        }
    }
}

#[test]
fn larger_rings_and_full_rows() {
    for (slots, n) in [(128, 64), (256, 32), (256, 128), (512, 16)] {
        for form in [SlotForm::Evaluations, SlotForm::Coefficients] {
            for order in [Order::Natural, Order::BitReversed] {
                check(slots, n, form, order, &[1, 3, 5]);
            }
        }
    }
}

#[test]
fn merged_levels_stay_sparse() {
    // n = 64 at N = 1024: 2·6 butterflies; three levels.
    let g = Geometry::<Fr>::new(1024, 64, SlotForm::Evaluations, Order::Natural).unwrap();
    for conversion in [
        Conversion::SlotsToCoefficients,
        Conversion::CoefficientsToSlots,
    ] {
        let levels = g.levels(3, conversion);
        let counts: Vec<usize> = levels.iter().map(|t| t.len()).collect();
        assert!(
            counts.iter().all(|&c| c <= 31),
            "{conversion:?}: {counts:?}"
        );
        // The estimate the grouping used bounds the real count.
        let estimates = g.estimate(3, conversion);
        for (c, e) in counts.iter().zip(&estimates) {
            assert!(c <= e, "{conversion:?}: {counts:?} vs {estimates:?}");
        }
    }
    // The dense level has exactly n diagonals.
    assert_eq!(g.levels(1, Conversion::SlotsToCoefficients)[0].len(), 64);
    assert_eq!(g.levels(1, Conversion::CoefficientsToSlots)[0].len(), 64);
}

#[test]
fn sizes_out_of_range_are_refused() {
    assert!(Geometry::<Fr>::new(16, 16, SlotForm::Evaluations, Order::Natural).is_none());
    assert!(Geometry::<Fr>::new(16, 1, SlotForm::Evaluations, Order::Natural).is_none());
    assert!(Geometry::<Fr>::new(16, 6, SlotForm::Evaluations, Order::Natural).is_none());
    let full_row = Geometry::<Fr>::new(16, 8, SlotForm::Evaluations, Order::Natural).unwrap();
    assert!(!full_row.dense_supported(Conversion::CoefficientsToSlots));
    assert!(full_row.dense_supported(Conversion::SlotsToCoefficients));
}
