//! `PolyParameters::suggest` through the advisor picks exactly what the
//! search it replaced picked.
//!
//! The expected lines were printed by the earlier `suggest` (its own walk
//! over the rings with the search now at `helib_rs::advice::smallest_ring`,
//! before the advisor) for the advisor's reference moduli
//! (`helib_rs::advice::reference_moduli`), lengths and product counts; the
//! test prints the same lines from the current `suggest` and compares a
//! fingerprint of all of them, plus a few of them written out.

use he_poly::PolyParameters;
use helib_rs::advice::{reference_moduli, ChoiceLog};
use helib_rs::Advisor;
use num_bigint::BigUint;

#[test]
fn suggest_picks_what_it_picked_before_the_advisor() {
    let mut lines = ChoiceLog::new();
    for (name, t) in reference_moduli() {
        for log_len in [
            0u32, 1, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 20, 22, 24, 40,
        ] {
            for products in [0usize, 1, 2, 3, 5] {
                lines.record(
                    format_args!("poly {name} suggest({log_len},{products})"),
                    &PolyParameters::suggest(&t, 1 << log_len, products),
                    |p| format!("{} stride={}", p.parameters().summary(), p.stride()),
                );
            }
        }
        for (label, len, products) in [
            ("0,1", 0, 1),
            ("3000,1", 3000, 1),
            ("16,MAX", 16, usize::MAX),
            ("MAX,1", usize::MAX, 1),
        ] {
            lines.record(
                format_args!("poly {name} suggest({label})"),
                &PolyParameters::suggest(&t, len, products),
                |p| p.parameters().summary(),
            );
        }
    }
    for expected in [
        "poly bn254 suggest(0,1) N=15 Q=56x9,55x1 P= th=0 stride=16384",
        "poly bn254 suggest(20,2) N=16 Q=58x2,57x13 P=58x6,57x2 th=0 stride=16384",
        "poly bn254 suggest(0,5) N=17 Q=59x23,58x6 P=60x4,59x11 th=0 stride=16384",
        "poly bn254 suggest(40,1) ERR NoParameters",
        "poly 65537 suggest(22,2) N=14 Q=49x2,48x1 P=51x2 th=0 stride=4096",
        "poly bn254 suggest(16,0) ERR InvalidArgument",
    ] {
        assert!(lines.contains(expected), "missing: {expected}");
    }
    assert_eq!(lines.len(), 420);
    assert_eq!(
        lines.fingerprint(),
        0x3798_5188_4f4b_604f,
        "the picks changed:\n{lines}"
    );
}

#[test]
fn the_workload_is_what_suggest_advises_on() {
    let t: BigUint = <ark_bn254::Fr as ark_ff::PrimeField>::MODULUS.into();
    let workload = PolyParameters::workload(&t, 1 << 16, 1).unwrap();
    let advice = Advisor::new(workload).advise().unwrap();
    let p = PolyParameters::suggest(&t, 1 << 16, 1).unwrap();
    assert_eq!(advice.parameters(), p.parameters());
    // N = 2^15, stride 2^14: four blocks per operand, seven product blocks
    // from a convolution of eight pointwise products.
    let ops = advice.operations();
    assert_eq!(
        (ops.encryptions, ops.ciphertext_products, ops.decryptions),
        (8, 8, 7)
    );
    assert_eq!(ops.relinearizations, 0);
    let deeper = Advisor::new(PolyParameters::workload(&t, 1 << 12, 3).unwrap())
        .advise()
        .unwrap();
    assert_eq!(
        deeper.operations().relinearizations,
        2 * deeper.operations().decryptions
    );
    assert!(PolyParameters::workload(&t, 0, 1).is_err());
    assert!(PolyParameters::workload(&t, 1, 0).is_err());
}
