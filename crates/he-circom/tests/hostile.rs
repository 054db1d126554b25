//! Hostile inputs: every truncation, byte flips, wrong magic, version and
//! primes, sizes and counts pointing past the end, bad points, and JSON
//! that is not what snarkjs writes. Every one must be an error (never a
//! panic), and no parse may allocate much more than its input's length:
//! a counting allocator records the largest single allocation of the
//! current thread.

mod common;

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;

use ark_bn254::{Fq, Fq2, Fr, G2Affine};
use ark_ec::short_weierstrass::SWCurveConfig;
use ark_ff::{Field, One, PrimeField, Zero};
use common::{body, bytes, put_u32, put_u64, sections, text};
use he_circom::field::{fr_to_le, g2_to_zkey};
use he_circom::snarkjs_json::{proof_from_json, public_from_json, verifying_key_from_json};
use he_circom::{Error, R1cs, Witness, Zkey, ZkeyWithoutQueries};
use proptest::prelude::*;

struct Counting;

thread_local! {
    static LARGEST: Cell<usize> = const { Cell::new(0) };
}

// SAFETY: every call is forwarded unchanged to the system allocator; the
// only addition is a thread-local maximum, which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.with(|l| l.set(l.get().max(layout.size())));
        // SAFETY: the caller's contract for `alloc` is passed on as is.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.with(|l| l.set(l.get().max(new_size)));
        // SAFETY: the caller's contract for `realloc` is passed on as is.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Parses `input` with `parse`, and checks that no single allocation was
/// larger than 64 bytes per input byte plus 64 KiB.
fn bounded<T>(input: &[u8], parse: impl FnOnce(&[u8]) -> T) -> T {
    LARGEST.with(|l| l.set(0));
    let out = parse(input);
    let largest = LARGEST.with(Cell::get);
    assert!(
        largest <= 64 * input.len() + (64 << 10),
        "an allocation of {largest} bytes for an input of {}",
        input.len()
    );
    out
}

#[test]
#[should_panic(expected = "an allocation of")]
fn the_allocation_bound_is_enforced() {
    bounded(&[0u8; 16], |_| vec![0u8; 1 << 20]);
}

fn r1cs(b: &[u8]) -> Result<R1cs, Error> {
    bounded(b, R1cs::from_bytes)
}
fn wtns(b: &[u8]) -> Result<Witness, Error> {
    bounded(b, Witness::from_bytes)
}
fn zkey(b: &[u8]) -> Result<Zkey, Error> {
    bounded(b, Zkey::from_bytes)
}
fn zkey_without_queries(b: &[u8]) -> Result<ZkeyWithoutQueries, Error> {
    bounded(b, ZkeyWithoutQueries::from_bytes)
}

/// Appends a section to a container (and counts it).
fn with_section(mut file: Vec<u8>, t: u32, body: &[u8]) -> Vec<u8> {
    let count = u32::from_le_bytes(file[8..12].try_into().unwrap());
    put_u32(&mut file, 8, count + 1);
    file.extend_from_slice(&t.to_le_bytes());
    file.extend_from_slice(&(body.len() as u64).to_le_bytes());
    file.extend_from_slice(body);
    file
}

fn fq_modulus_le() -> [u8; 32] {
    let mut out = [0u8; 32];
    for (chunk, limb) in out.chunks_exact_mut(8).zip(Fq::MODULUS.0) {
        chunk.copy_from_slice(&limb.to_le_bytes());
    }
    out
}

#[test]
fn every_truncation_is_refused() {
    let r = bytes("multiplier.r1cs");
    let w = bytes("multiplier.wtns");
    let z = bytes("multiplier.zkey");
    assert!(r1cs(&r).is_ok() && wtns(&w).is_ok() && zkey(&z).is_ok());
    for len in 0..r.len() {
        assert!(r1cs(&r[..len]).is_err(), "r1cs cut at {len}");
    }
    for len in 0..w.len() {
        assert!(wtns(&w[..len]).is_err(), "wtns cut at {len}");
    }
    assert!(zkey_without_queries(&z).is_ok());
    for len in 0..z.len() {
        assert!(zkey(&z[..len]).is_err(), "zkey cut at {len}");
        assert!(
            zkey_without_queries(&z[..len]).is_err(),
            "zkey cut at {len}, read without queries"
        );
    }
    for name in [
        "multiplier_verification_key.json",
        "multiplier_proof.json",
        "multiplier_public.json",
    ] {
        let t = text(name);
        for len in 0..t.len() {
            let cut = &t[..len];
            let refused = match name {
                "multiplier_verification_key.json" => verifying_key_from_json(cut).is_err(),
                "multiplier_proof.json" => proof_from_json(cut).is_err(),
                _ => public_from_json(cut).is_err(),
            };
            assert!(refused, "{name} cut at {len}");
        }
    }
}

#[test]
fn wrong_magic_and_version() {
    let mut r = bytes("multiplier.r1cs");
    r[..4].copy_from_slice(b"zkey");
    assert!(matches!(r1cs(&r), Err(Error::BadMagic { .. })));
    let z = bytes("multiplier.zkey");
    assert!(matches!(r1cs(&z), Err(Error::BadMagic { .. })));
    assert!(matches!(wtns(&z), Err(Error::BadMagic { .. })));
    assert!(matches!(zkey(b"zk"), Err(Error::BadMagic { .. })));
    for (name, version) in [
        ("multiplier.r1cs", 2),
        ("multiplier.wtns", 1),
        ("multiplier.zkey", 2),
    ] {
        let mut b = bytes(name);
        put_u32(&mut b, 4, version);
        let err = match name {
            "multiplier.r1cs" => r1cs(&b).unwrap_err(),
            "multiplier.wtns" => wtns(&b).unwrap_err(),
            _ => zkey(&b).unwrap_err(),
        };
        assert!(
            matches!(err, Error::UnsupportedVersion { .. }),
            "{name}: {err}"
        );
    }
}

#[test]
fn wrong_primes_are_refused() {
    // The r1cs and wtns primes: n8 then the prime, at the header's start.
    for name in ["multiplier.r1cs", "multiplier.wtns"] {
        let mut b = bytes(name);
        let at = body(&b, 1) + 4;
        b[at..at + 32].copy_from_slice(&fq_modulus_le());
        let err = if name.ends_with("r1cs") {
            r1cs(&b)
        } else {
            wtns(&b).map(|_| unreachable!())
        }
        .unwrap_err();
        assert!(matches!(err, Error::WrongPrime { .. }), "{name}: {err}");
        assert!(
            err.to_string().contains("section 1 (header), field prime"),
            "{err}"
        );
        let mut b = bytes(name);
        let at = body(&b, 1);
        put_u32(&mut b, at, 48);
        assert!(matches!(
            if name.ends_with("r1cs") {
                r1cs(&b).map(|_| ())
            } else {
                wtns(&b).map(|_| ())
            },
            Err(Error::Invalid { .. })
        ));
    }
    // The zkey's q and r swapped.
    let mut z = bytes("multiplier.zkey");
    let at = body(&z, 2);
    let q: Vec<u8> = z[at + 4..at + 36].to_vec();
    let r: Vec<u8> = z[at + 40..at + 72].to_vec();
    z[at + 4..at + 36].copy_from_slice(&r);
    z[at + 40..at + 72].copy_from_slice(&q);
    let err = zkey(&z).unwrap_err();
    assert!(err.to_string().contains("field q"), "{err}");
}

#[test]
fn sizes_past_the_end_and_huge_counts_are_refused_without_allocating() {
    for name in ["multiplier.r1cs", "multiplier.wtns", "multiplier.zkey"] {
        let b = bytes(name);
        for (t, size_at, _, _) in sections(&b) {
            for size in [u64::MAX, 1 << 40, b.len() as u64] {
                let mut c = b.clone();
                put_u64(&mut c, size_at, size);
                let err = match name {
                    "multiplier.r1cs" => r1cs(&c).map(|_| ()),
                    "multiplier.wtns" => wtns(&c).map(|_| ()),
                    _ => zkey(&c).map(|_| ()),
                }
                .unwrap_err();
                assert!(
                    matches!(
                        err,
                        Error::SectionOverrun { .. } | Error::TrailingBytes { .. }
                    ),
                    "{name} section {t} size {size}: {err}"
                );
            }
        }
    }
    // r1cs header: nWires at 4 + 32, mConstraints after nLabels.
    let r = bytes("multiplier.r1cs");
    let h = body(&r, 1) + 36;
    for (offset, field) in [(0, "nWires"), (24, "mConstraints")] {
        let mut c = r.clone();
        put_u32(&mut c, h + offset, u32::MAX);
        let err = r1cs(&c).unwrap_err();
        assert!(err.to_string().contains("r1cs section"), "{field}: {err}");
    }
    let mut c = r.clone();
    put_u32(&mut c, h + 12, u32::MAX); // nPrvIn: more inputs than wires
    assert!(matches!(r1cs(&c), Err(Error::Invalid { .. })));
    // A huge term count in the first linear combination.
    let mut c = r.clone();
    put_u32(&mut c, body(&r, 2), u32::MAX);
    assert!(matches!(r1cs(&c), Err(Error::Truncated { .. })));
    // wtns: nWitness.
    let w = bytes("multiplier.wtns");
    let mut c = w.clone();
    put_u32(&mut c, body(&w, 1) + 36, u32::MAX);
    assert!(matches!(wtns(&c), Err(Error::Truncated { .. })));
    // zkey: nVars, nPublic, domainSize, nCoefs.
    let z = bytes("multiplier.zkey");
    let g = body(&z, 2) + 72;
    for (offset, value) in [
        (0, u32::MAX),
        (4, u32::MAX),
        (8, 1 << 31),
        (8, 1 << 27),
        (8, 3),
        (8, 8),
    ] {
        let mut c = z.clone();
        put_u32(&mut c, g + offset, value);
        let err = zkey(&c).unwrap_err();
        assert!(
            matches!(err, Error::Invalid { .. }),
            "offset {offset} = {value}: {err}"
        );
    }
    let mut c = z.clone();
    put_u32(&mut c, body(&z, 4), u32::MAX);
    assert!(matches!(zkey(&c), Err(Error::Truncated { .. })));
}

#[test]
fn sections_missing_duplicated_or_unsupported() {
    let r = bytes("multiplier.r1cs");
    let err = r1cs(&with_section(r.clone(), 4, &[])).unwrap_err();
    assert!(
        matches!(err, Error::UnsupportedSection { section: 4, .. }),
        "{err}"
    );
    assert!(err.to_string().contains("custom gates"), "{err}");
    let err = r1cs(&with_section(r.clone(), 1, &[])).unwrap_err();
    assert!(
        matches!(err, Error::DuplicateSection { section: 1, .. }),
        "{err}"
    );
    // Unknown sections are skipped.
    assert!(r1cs(&with_section(r.clone(), 77, b"xyz")).is_ok());
    // Without section 2: rename it.
    let mut c = r.clone();
    let size_at = sections(&r).into_iter().find(|s| s.0 == 2).unwrap().1;
    put_u32(&mut c, size_at - 4, 99);
    assert!(matches!(
        r1cs(&c),
        Err(Error::MissingSection { section: 2, .. })
    ));
    let z = bytes("multiplier.zkey");
    for t in [1, 2, 3, 4, 5, 6, 7, 8, 9] {
        let mut c = z.clone();
        let size_at = sections(&z).into_iter().find(|s| s.0 == t).unwrap().1;
        put_u32(&mut c, size_at - 4, 99);
        assert!(
            matches!(zkey(&c), Err(Error::MissingSection { section, .. }) if section == t),
            "zkey without section {t}"
        );
    }
    let mut c = z.clone();
    put_u32(&mut c, body(&z, 1), 2);
    let err = zkey(&c).unwrap_err();
    assert!(err.to_string().contains("PLONK"), "{err}");
}

#[test]
fn bad_values_are_refused_naming_the_field() {
    // r1cs: the first term's wire and coefficient.
    let r = bytes("multiplier.r1cs");
    let first = body(&r, 2) + 4;
    let mut c = r.clone();
    put_u32(&mut c, first, 4);
    let err = r1cs(&c).unwrap_err();
    assert!(
        matches!(
            err,
            Error::WireOutOfRange {
                wire: 4,
                wires: 4,
                ..
            }
        ),
        "{err}"
    );
    assert!(err.to_string().contains("field A wire #0"), "{err}");
    let mut c = r.clone();
    c[first + 4..first + 36].copy_from_slice(&fr_to_le(&Fr::zero()));
    assert!(r1cs(&c).is_ok(), "a zero coefficient is allowed");
    c[first + 4..first + 36].fill(0xff);
    assert!(matches!(r1cs(&c), Err(Error::NotCanonical { .. })));
    // wtns: the first value must be 1, every value below r.
    let w = bytes("multiplier.wtns");
    let v = body(&w, 2);
    let mut c = w.clone();
    c[v] = 2;
    assert!(matches!(wtns(&c), Err(Error::Invalid { .. })));
    let mut c = w.clone();
    c[v + 32..v + 64].fill(0xff);
    let err = wtns(&c).unwrap_err();
    assert!(
        err.to_string()
            .contains("wtns section 2 (witness values), field value #1"),
        "{err}"
    );
}

/// A point of the twist that is not in the prime-order subgroup.
fn g2_outside_subgroup() -> G2Affine {
    let mut x = Fq2::zero();
    loop {
        if let Some(y) = (x * x * x + ark_bn254::g2::Config::COEFF_B).sqrt() {
            let p = G2Affine::new_unchecked(x, y);
            if !p.is_in_correct_subgroup_assuming_on_curve() {
                return p;
            }
        }
        x += Fq2::one();
    }
}

#[test]
fn bad_points_and_coefficients_in_a_zkey() {
    let z = bytes("multiplier.zkey");
    let b2 = body(&z, 7);
    let mut c = z.clone();
    c[b2 + 5] ^= 1;
    let err = zkey(&c).unwrap_err();
    assert!(
        matches!(err, Error::NotOnCurve { .. } | Error::NotCanonical { .. }),
        "{err}"
    );
    let mut c = z.clone();
    c[b2..b2 + 128].copy_from_slice(&g2_to_zkey(&g2_outside_subgroup()));
    let err = zkey(&c).unwrap_err();
    assert!(matches!(err, Error::NotInSubgroup { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("zkey section 7 (B points in G2), field B2 point #0"),
        "{err}"
    );
    // Read without its queries, the zkey does not look at that point.
    assert!(zkey_without_queries(&c).is_ok());
    // The first point outside the subgroup is named.
    let mut c = z.clone();
    for at in [2, 3] {
        c[b2 + 128 * at..b2 + 128 * (at + 1)].copy_from_slice(&g2_to_zkey(&g2_outside_subgroup()));
    }
    let err = zkey(&c).unwrap_err();
    assert!(err.to_string().contains("field B2 point #2"), "{err}");
    // The same in the header's β₂ (after 4 + 32 + 4 + 32 + 12 bytes, α₁, β₁),
    // which both readers check.
    let mut c = z.clone();
    let beta2 = body(&z, 2) + 84 + 128;
    c[beta2..beta2 + 128].copy_from_slice(&g2_to_zkey(&g2_outside_subgroup()));
    let err = zkey(&c).unwrap_err();
    assert!(err.to_string().contains("field beta2"), "{err}");
    let err = zkey_without_queries(&c).unwrap_err();
    assert!(err.to_string().contains("field beta2"), "{err}");
    // A coordinate ≥ q in the H points.
    let mut c = z.clone();
    let h = body(&z, 9);
    c[h..h + 32].copy_from_slice(&fq_modulus_le());
    assert!(matches!(zkey(&c), Err(Error::NotCanonical { .. })));
    // Coefficient entries: (matrix, constraint, signal, value).
    let coefs = body(&z, 4) + 4;
    for (offset, value) in [(0, 2u32), (4, 4), (8, 4)] {
        let mut c = z.clone();
        put_u32(&mut c, coefs + offset, value);
        assert!(zkey(&c).is_err(), "entry field {offset} = {value}");
    }
    let mut c = z.clone();
    c[coefs + 12..coefs + 44].fill(0xff);
    assert!(matches!(zkey(&c), Err(Error::NotCanonical { .. })));
    // The last entry is a public-input row A = 1·w_1: move it to wire 2.
    let count = u32::from_le_bytes(z[coefs - 4..coefs].try_into().unwrap()) as usize;
    let last = coefs + (count - 1) * 44;
    let mut c = z.clone();
    put_u32(&mut c, last + 8, 2);
    let err = zkey(&c).unwrap_err();
    assert!(err.to_string().contains("public-input row"), "{err}");
}

#[test]
fn json_that_is_not_snarkjs_s_is_refused() {
    let vk = text("multiplier_verification_key.json");
    assert!(verifying_key_from_json(&vk).is_ok());
    let cases = [
        (vk.replace("\"groth16\"", "\"plonk\""), "protocol"),
        (vk.replace("\"bn128\"", "\"bls12381\""), "curve"),
        (vk.replace("\"nPublic\": 1", "\"nPublic\": 2"), "IC"),
        (vk.replace("\"nPublic\": 1", "\"nPublic\": -1"), "nPublic"),
        (
            vk.replace("\"nPublic\": 1", "\"nPublic\": \"1\""),
            "nPublic",
        ),
        (vk.replacen("\"1\"\n ]", "\"2\"\n ]", 1), "vk_alpha_1"),
        (vk.replacen("vk_alpha_1", "vk_alpha_one", 1), "vk_alpha_1"),
        ("{".into(), "not JSON"),
        ("[]".into(), "expected an object"),
    ];
    for (bad, needle) in cases {
        let err = verifying_key_from_json(&bad).unwrap_err();
        assert!(err.to_string().contains(needle), "{needle}: {err}");
        assert!(
            err.to_string().starts_with("verification_key.json"),
            "{err}"
        );
    }
    // vk_alphabeta_12 that is not e(α, β).
    let v: serde_json::Value = serde_json::from_str(&vk).unwrap();
    let mut w = v.clone();
    w["vk_alphabeta_12"][0][0][0] = "1".into();
    let err = verifying_key_from_json(&w.to_string()).unwrap_err();
    assert!(err.to_string().contains("vk_alphabeta_12"), "{err}");
    // Without it, the key still reads.
    let mut w = v.clone();
    w.as_object_mut().unwrap().remove("vk_alphabeta_12");
    assert!(verifying_key_from_json(&w.to_string()).is_ok());

    let proof = text("multiplier_proof.json");
    assert!(proof_from_json(&proof).is_ok());
    let p: serde_json::Value = serde_json::from_str(&proof).unwrap();
    let mut q = p.clone();
    q["pi_b"][0][0] = "5".into();
    let err = proof_from_json(&q.to_string()).unwrap_err();
    assert!(err.to_string().contains("pi_b"), "{err}");
    let mut q = p.clone();
    q["pi_a"][0] = serde_json::json!(5);
    assert!(proof_from_json(&q.to_string())
        .unwrap_err()
        .to_string()
        .contains("pi_a[0]"));
    let mut q = p.clone();
    q["protocol"] = "plonk".into();
    assert!(proof_from_json(&q.to_string()).is_err());
    let mut q = p.clone();
    q.as_object_mut().unwrap().remove("curve");
    assert!(
        proof_from_json(&q.to_string()).is_ok(),
        "curve is optional in proofs"
    );
    let r = Fr::MODULUS.to_string();
    assert!(public_from_json(&format!("[\"{r}\"]")).is_err());
    assert!(public_from_json("[1]").is_err());
    assert!(public_from_json("{}").is_err());
    assert_eq!(public_from_json("[]").unwrap(), Vec::<Fr>::new());
    // Deep nesting is refused by the parser's depth limit, not the stack.
    let deep = "[".repeat(100_000);
    assert!(public_from_json(&deep).is_err());
}

/// Flips `flips` (position, xor) in `base` and parses with `parse`.
fn flipped(base: &[u8], flips: &[(usize, u8)]) -> Vec<u8> {
    let mut b = base.to_vec();
    for (at, x) in flips {
        let i = at % b.len();
        b[i] ^= x.max(&1);
    }
    b
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn byte_flips_never_panic(flips in prop::collection::vec((any::<usize>(), any::<u8>()), 1..6)) {
        let r = flipped(&bytes("multiplier.r1cs"), &flips);
        let _ = r1cs(&r);
        let w = flipped(&bytes("multiplier.wtns"), &flips);
        let _ = wtns(&w);
        let z = flipped(&bytes("multiplier.zkey"), &flips);
        // What the whole reader takes, the reader without queries takes
        // alike (it checks a subset).
        if let Ok(whole) = zkey(&z) {
            let light = zkey_without_queries(&z).expect("a subset of the checks");
            prop_assert_eq!(light.verifying_key(), whole.verifying_key());
            prop_assert_eq!(light.matrices(), whole.matrices());
        }
        for name in ["multiplier_verification_key.json", "multiplier_proof.json", "multiplier_public.json"] {
            let t = flipped(&bytes(name), &flips);
            if let Ok(t) = std::str::from_utf8(&t) {
                let _ = verifying_key_from_json(t);
                let _ = proof_from_json(t);
                let _ = public_from_json(t);
            }
        }
    }

    #[test]
    fn random_bytes_with_a_valid_prefix_never_panic(
        kind in 0..3usize,
        keep in 0..400usize,
        tail in prop::collection::vec(any::<u8>(), 0..200),
    ) {
        let name = ["multiplier.r1cs", "multiplier.wtns", "multiplier.zkey"][kind];
        let base = bytes(name);
        let mut b = base[..keep.min(base.len())].to_vec();
        b.extend_from_slice(&tail);
        let _ = r1cs(&b);
        let _ = wtns(&b);
        let _ = zkey(&b);
    }
}
