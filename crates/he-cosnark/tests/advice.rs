//! `parameters_for` through the advisor picks exactly what its own walk
//! over the rings (he-poly's ring, then larger ones with
//! `he_threshold::with_smudging_room`, before the advisor) picked: the
//! expected fingerprint is of the lines that walk printed for these domain
//! sizes and party counts.

use he_cosnark::{parameters_for, proof_chain_bits, proof_workload};
use helib_rs::advice::ChoiceLog;
use helib_rs::Advisor;

#[test]
fn parameters_for_picks_what_it_picked_before_the_advisor() {
    let mut lines = ChoiceLog::new();
    for log_d in [0u32, 1, 2, 6, 10, 12, 13, 14, 15, 16, 17, 18, 20, 22, 30] {
        for parties in [1u32, 2, 3, 5, 16] {
            lines.record(
                format_args!("cosnark parameters_for({log_d},{parties})"),
                &parameters_for::<ark_bn254::Fr>(1 << log_d, parties),
                |(p, stride)| format!("{} stride={stride}", p.summary()),
            );
        }
    }
    for expected in [
        "cosnark parameters_for(0,3) N=16 Q=31x2,57x7,56x3 P=58x1,57x5 th=1 stride=32768",
        "cosnark parameters_for(30,16) N=16 Q=32x2,59x6,58x4 P=59x6 th=1 stride=32768",
    ] {
        assert!(lines.contains(expected), "missing: {expected}");
    }
    assert_eq!(
        lines.fingerprint(),
        0x6577_6846_28d8_9513,
        "the picks changed:\n{lines}"
    );
}

#[test]
fn the_proof_workload_is_the_chain_plan_and_smudging() {
    let advice = Advisor::new(proof_workload::<ark_bn254::Fr>(1 << 16, 3).unwrap())
        .advise()
        .unwrap();
    let n = advice.ring_degree();
    let t = <ark_bn254::Fr as ark_ff::PrimeField>::MODULUS.into();
    let blocks = (1usize << 16).div_ceil(n / 2);
    let chain = advice.parameters().chain_bits();
    let plan = proof_chain_bits(n, &t, 3, blocks);
    assert_eq!(&chain[chain.len() - plan.len()..], plan.as_slice());
    assert_eq!(
        advice.smudging_bits(),
        helib_rs::noise::smudging_bits(n, 3, he_threshold::DEFAULT_SECURITY_BITS).unwrap()
    );
    assert!(proof_workload::<ark_bn254::Fr>(0, 3).is_err());
    assert!(parameters_for::<ark_bn254::Fr>(16, 0).is_err());
}
