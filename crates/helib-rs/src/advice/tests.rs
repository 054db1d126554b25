//! The advisor against the noise model and the search it walks with.

use super::*;
use crate::{Context, Error, SecurityLevel};
use num_bigint::BigUint;

fn bn254() -> BigUint {
    <ark_bn254::Fr as ark_ff::PrimeField>::MODULUS.into()
}

#[test]
fn the_advice_is_the_search_over_the_models_chain() {
    for t in [BigUint::from(65537u32), bn254(), BigUint::from(3u32)] {
        for depth in 0..6 {
            for ks in [KeySwitching::None, KeySwitching::Digits(2)] {
                let workload =
                    Workload::new(t.clone(), Demand::new(Circuit::PlainProducts { depth }))
                        .key_switching(&[ks])
                        .threads(1);
                let log_t = noise::log2(&t);
                let searched = smallest_ring(&t, 10..=17, &[ks], 1, |n| {
                    Ok(noise::chain_bits_for_depth(n, log_t, depth))
                });
                match (advise(&workload), searched) {
                    (Ok(advice), Ok((params, found))) => {
                        assert_eq!(advice.parameters(), &params, "t {t}, depth {depth}");
                        assert_eq!(advice.key_switching(), found);
                        assert!(advice.security() >= SecurityLevel::Bits128);
                        assert!(advice.log_qp() <= advice.max_log_qp());
                        let needed =
                            Circuit::PlainProducts { depth }.bits(params.ring_degree(), log_t);
                        assert_eq!(advice.needed_bits(), needed);
                        assert!(f64::from(advice.chain_bits()) >= needed);
                        // One ring down does not hold it.
                        let below = advice.ring_degree() / 2;
                        if below >= MIN_RING_DEGREE {
                            assert!(Advisor::new(workload.clone()).at_ring(below).is_err());
                        }
                    }
                    (Err(Error::InvalidParameters(a)), Err(Error::InvalidParameters(b))) => {
                        assert_eq!(a, b)
                    }
                    (a, b) => panic!("t {t}, depth {depth}: {a:?} against {b:?}"),
                }
            }
        }
    }
}

#[test]
fn the_circuits_are_the_noise_models_formulas() {
    let (n, log_t) = (1 << 14, 254.0);
    assert_eq!(
        Circuit::CiphertextProducts {
            products: 2,
            terms: 8
        }
        .bits(n, log_t),
        noise::product_chain_total_bits(n, log_t, 2, 8)
    );
    assert_eq!(
        Circuit::LinearTransforms {
            levels: 3,
            products: 0
        }
        .bits(n, log_t),
        noise::transform_chain_bits(n, log_t, 3)
    );
    assert_eq!(
        Circuit::LinearTransforms {
            levels: 3,
            products: 2
        }
        .bits(n, log_t),
        noise::transform_chain_bits(n, log_t, 3) + 2.0 * noise::transformed_product_bits(n, log_t)
    );
    let scalar = Circuit::ScalarProduct {
        scalar_bits: 40,
        margin_bits: 24.0,
    };
    assert_eq!(
        scalar.bits(n, log_t),
        noise::fresh_bits(n, log_t) + 40.0 + 24.0 + noise::DECRYPTION_BITS
    );
    assert_eq!(scalar.depth(), 1);
    assert_eq!(
        Circuit::LinearTransforms {
            levels: 3,
            products: 2
        }
        .depth(),
        5
    );
    let demand = Demand::new(Circuit::PlainProducts { depth: 2 }).extra_bits(7.5);
    assert_eq!(
        demand.total_bits(n, log_t),
        noise::chain_total_bits(n, log_t, 2) + 7.5
    );
    assert_eq!(demand.extra(), 7.5);
}

#[test]
fn slots_minimum_rings_and_per_ring_demands_bound_the_search() {
    // t = 65537: 2^16 | t − 1, so slots up to N = 2^15.
    let t = BigUint::from(65537u32);
    let deep = Demand::new(Circuit::PlainProducts { depth: 40 });
    let refused = advise(&Workload::new(t.clone(), deep.clone()).slots());
    match refused {
        Err(Error::InvalidParameters(reasons)) => {
            assert!(
                reasons.contains("N = 65536: 2N does not divide t − 1"),
                "{reasons}"
            );
            assert!(
                reasons.contains("N = 32768: insecure parameters"),
                "{reasons}"
            );
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
    assert_eq!(
        advise(&Workload::new(t.clone(), deep))
            .unwrap()
            .ring_degree(),
        1 << 17
    );
    // A minimum ring: nothing below it is tried.
    let shallow = Workload::new(t.clone(), Demand::new(Circuit::PlainProducts { depth: 1 }));
    assert_eq!(advise(&shallow).unwrap().ring_degree(), 1 << 12);
    let at_least = shallow.clone().min_ring_degree(5000);
    assert_eq!(advise(&at_least).unwrap().ring_degree(), 1 << 13);
    assert!(Advisor::new(at_least).at_ring(4096).is_err());
    assert!(advise(&shallow.clone().min_ring_degree(usize::MAX)).is_err());
    // Per-ring demands: rings that cannot hold the computation say why.
    let per_ring = Workload::per_ring(t.clone(), |n| {
        if n < 1 << 13 {
            Err(format!("{n} is too small"))
        } else {
            Ok(Demand::new(Circuit::PlainProducts { depth: 1 }))
        }
    });
    assert_eq!(advise(&per_ring).unwrap().ring_degree(), 1 << 13);
    assert_eq!(
        per_ring.demand_at(1 << 12),
        Err("4096 is too small".to_owned())
    );
    assert!(per_ring.demand_at(3000).is_err());
    // No key-switching choice: nothing fits.
    assert!(advise(&shallow.clone().key_switching(&[])).is_err());
    // The bit length of t instead of log2 t: 17 bits for 65537.
    assert_eq!(shallow.clone().log_t_as_bit_length().log_t(), 17.0);
    assert!((shallow.log_t() - 16.0).abs() < 1e-4);
}

#[test]
fn candidates_go_up_from_the_advice() {
    let workload = Workload::new(
        BigUint::from(65537u32),
        Demand::new(Circuit::PlainProducts { depth: 2 }),
    );
    let advisor = Advisor::new(workload.clone().slots());
    let rings: Vec<usize> = advisor
        .candidates(10)
        .unwrap()
        .iter()
        .map(Advice::ring_degree)
        .collect();
    // Three key-switching digits need N = 2^13; slots stop at N = 2^15 for 65537.
    assert_eq!(rings, [1 << 13, 1 << 14, 1 << 15]);
    assert_eq!(advisor.candidates(0).unwrap().len(), 1);
    let up_to_17 = Advisor::new(workload).candidates(10).unwrap();
    assert_eq!(up_to_17.last().map(Advice::ring_degree), Some(1 << 17));
    assert!(Advisor::new(Workload::new(
        BigUint::from(65537u32),
        Demand::new(Circuit::PlainProducts { depth: 1 })
    ))
    .at_ring(3000)
    .is_err());
}

#[test]
fn the_smudging_room_sits_below_the_chain() {
    let t = bn254();
    let demand = Demand::new(Circuit::CiphertextProducts {
        products: 1,
        terms: 2,
    });
    let plain = Workload::new(t.clone(), demand.clone()).key_switching(&[KeySwitching::Digits(2)]);
    let smudged = plain.clone().smudging(3, 40);
    let advice = advise(&smudged).unwrap();
    let n = advice.ring_degree();
    let room = noise::smudging_bits(n, 3, 40).unwrap();
    assert_eq!(advice.smudging_bits(), room);
    let base = Advisor::new(plain).at_ring(n).unwrap();
    let chain = advice.parameters().chain_bits();
    let (below, rest) = chain.split_at(chain.len() - base.parameters().chain_bits().len());
    assert_eq!(rest, base.parameters().chain_bits());
    assert_eq!(below, noise::split_bits(room));
    // The builder form: the same chain, special primes for the longer chain.
    let builder = Parameters::builder()
        .ring_degree(n)
        .plaintext_modulus(t)
        .chain_bits(base.parameters().chain_bits())
        .key_switching_digits(2)
        .threads(0);
    assert_eq!(
        &Smudging::new(3, 40).build(builder).unwrap(),
        advice.parameters()
    );
    // The engine's ranges are checked once, before any ring.
    assert!(matches!(
        advise(&smudged.smudging(0, 40)),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn a_builder_at_any_ring_carries_the_models_chain_or_its_refusal() {
    let t = BigUint::from(65537u32);
    let scalar = Circuit::ScalarProduct {
        scalar_bits: 16,
        margin_bits: 24.0,
    };
    let workload = Workload::new(t.clone(), Demand::new(scalar))
        .key_switching(&[KeySwitching::None])
        .chain_layout(ChainLayout::Uniform { min_prime_bits: 30 })
        .log_t_as_bit_length();
    let advisor = Advisor::new(workload);
    let params = advisor.builder_at(1 << 13).build().unwrap();
    assert_eq!(
        params.chain_bits(),
        noise::uniform_primes(scalar.bits(1 << 13, 17.0), 30)
    );
    assert!(params.special_bits().is_empty());
    assert!(matches!(
        advisor.builder_at(512).build(),
        Err(Error::InvalidParameters(_))
    ));
    let per_ring = Advisor::new(Workload::per_ring(t, |_| Err("never".to_owned())));
    assert_eq!(
        per_ring.builder_at(1 << 12).build(),
        Err(Error::InvalidParameters("never".to_owned()))
    );
}

#[test]
fn profiles_time_what_the_workload_counts() {
    let operations = Operations {
        encryptions: 2,
        decryptions: 1,
        galois_keys: 1,
        plain_products: 3,
        ciphertext_products: 1,
        relinearizations: 1,
        rotations: 4,
        mod_switches: 1,
        additions: 5,
    };
    let demand = Demand::new(Circuit::CiphertextProducts {
        products: 2,
        terms: 1,
    })
    .operations(operations);
    let workload = Workload::new(BigUint::from(65537u32), demand)
        .key_switching(&[KeySwitching::Digits(2)])
        .threads(1);
    let advisor = Advisor::new(workload);
    let candidates = advisor.candidates(2).unwrap();
    assert_eq!(candidates.len(), 2);
    let profiles = Advisor::profile(&candidates, &ProfileOptions { repetitions: 2 }).unwrap();
    for (profile, advice) in profiles.iter().zip(&candidates) {
        assert_eq!(profile.ring_degree, advice.ring_degree());
        assert_eq!(profile.operations, operations);
        let s = &profile.server;
        for latency in [
            s.plain_product,
            s.ciphertext_product,
            s.relinearization,
            s.rotation,
            s.mod_switch,
            s.addition,
        ] {
            assert!(
                latency.is_some_and(|d| d > std::time::Duration::ZERO),
                "{profile:?}"
            );
        }
        let c = &profile.client;
        assert!(c.relin_key.is_some() && c.galois_key.is_some());
        let client = c.key_generation
            + c.relin_key.unwrap()
            + c.galois_key.unwrap()
            + 2 * c.encrypt
            + c.decrypt;
        assert_eq!(profile.client_total(), client);
        let server = 3 * s.plain_product.unwrap()
            + s.ciphertext_product.unwrap()
            + s.relinearization.unwrap()
            + 4 * s.rotation.unwrap()
            + s.mod_switch.unwrap()
            + 5 * s.addition.unwrap();
        assert_eq!(profile.server_total(), server);
    }
    // Nothing counted on the server: nothing measured there.
    let bare = advisor
        .advise()
        .unwrap()
        .with_operations(Operations::default());
    let profile = &Advisor::profile(&[bare], &ProfileOptions::default()).unwrap()[0];
    assert_eq!(profile.server, ServerLatency::default());
    assert_eq!(profile.server_total(), std::time::Duration::ZERO);
    assert!(profile.client.galois_key.is_none());
    // A context from the advice works.
    assert!(Context::new(candidates[0].parameters()).is_ok());
}

#[test]
fn the_search_reports_every_ring_it_refused() {
    let t = BigUint::from(65537u32);
    let refused = smallest_ring(&t, 10..=11, &[KeySwitching::None], 1, |n| {
        Err(format!("{n} is too small"))
    });
    match refused {
        Err(Error::InvalidParameters(msg)) => {
            assert!(msg.contains("N = 1024: 1024 is too small"), "{msg}");
            assert!(msg.contains("N = 2048"), "{msg}");
        }
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[test]
fn a_choice_log_writes_choices_and_refusals_and_fingerprints_its_lines() {
    let mut log = ChoiceLog::new();
    assert!(log.is_empty());
    // FNV-1a of nothing is its offset basis.
    assert_eq!(log.fingerprint(), 0xcbf2_9ce4_8422_2325);
    log.record("x", &Ok::<u32, Error>(7), |v| format!("v={v}"));
    log.record_parameters("preset", &Ok::<_, Error>(Parameters::bn254_n15()));
    let refused = Parameters::builder()
        .ring_degree(3000)
        .plaintext_modulus(BigUint::from(65537u32))
        .multiplicative_depth(1)
        .build();
    log.record_parameters("ring 3000", &refused);
    let level = Err::<(), _>(Error::InvalidLevel { level: 3, max: 1 });
    log.record("level", &level, |_| {
        unreachable!("an error is not described")
    });
    let lines = [
        "x v=7",
        "preset N=15 Q=55x7,54x3 P=56x4 th=0",
        "ring 3000 ERR InvalidParameters",
        "level ERR InvalidLevel { level: 3, max: 1 }",
    ];
    assert_eq!(log.lines(), lines);
    assert_eq!(log.len(), 4);
    assert!(log.contains("ring 3000 ERR InvalidParameters"));
    assert!(!log.contains("ring 3000"));
    assert_eq!(log.to_string(), lines.map(|l| format!("{l}\n")).concat());
    // Computed apart from this crate, over the four lines above.
    assert_eq!(log.fingerprint(), 0x1a27_93d1_e243_504e);
    let mut other = log.clone();
    other.record("x", &Ok::<u32, Error>(8), |v| format!("v={v}"));
    assert_ne!(other.fingerprint(), log.fingerprint());
}
