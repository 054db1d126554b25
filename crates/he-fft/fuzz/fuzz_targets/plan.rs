//! libFuzzer harness for `he_fft::FftPlanBuilder::load_from`, the plan-file
//! loader, against plans over t = 65537 (five-digit random tests) and over
//! BN254 Fr (254-bit coefficients) in N = 1024 rings.
//!
//! Any bytes must give `Ok` or `Err`, never a panic (overflow checks are
//! on) nor a crash. The build sets `--cfg fuzzing`, under which the stream's
//! checkpoints are read but not compared, so mutated inputs reach the
//! parser and the verification behind it, as an attacker who recomputes the
//! keyless checksum would. The oracle: a file that loads is the plan the
//! builder describes: saved again, it gives the honest file's bytes, up to
//! the norms the verification tolerates (10^-9 bits apart) and the
//! checkpoints that sum them.
//!
//! Each input is also loaded with a plan key
//! (`FftPlanBuilder::load_with_key`): the MAC (GMAC) fed as the bytes
//! stream in, the key id, nonce and tag parsed, and the fallback to
//! verification for files untagged, of another key, with a failing tag or
//! of format version 6. The tag is compared even under `--cfg fuzzing` (a
//! fuzzer cannot forge it), so the oracle there: a file accepted on its tag
//! is the honest tagged file in every word that does not depend on the
//! file's nonce (each save draws a fresh one, so the nonce, the checkpoints
//! after it and the tag differ between saves, and seeds kept from earlier
//! runs carry other nonces), and a loaded plan is the honest one either way.
//!
//! With `HELIB_FUZZ_WRITE_SEEDS=DIR` the binary writes its seed corpus (the
//! honest files, prefixes, tweaked copies, and each file loaded as another
//! spec) to DIR and exits, as the other harnesses do. Built and run by
//! `helib-sys/fuzz/run.sh`.
#![no_main]

use std::sync::OnceLock;

use ark_bn254::Fr;
use ark_ff::{FftField, Fp64, MontBackend, MontConfig, PrimeField};
use he_fft::{FftPlan, FftPlanBuilder, KeyMode, PlanCheck, PlanKey, Strategy};
use helib_rs::{Context, Parameters};
use libfuzzer_sys::fuzz_target;

#[derive(MontConfig)]
#[modulus = "65537"]
#[generator = "3"]
struct F65537Config;
type F65537 = Fp64<MontBackend<F65537Config, 1>>;

/// An N = 1024 context for t (insecure, for speed; one engine thread).
fn context(t: &str, chain: &[u32]) -> Context {
    let t = num_bigint_from_hex(t);
    let params = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(t)
        .chain_bits(chain)
        .special_bits(&[60])
        .threads(1)
        .allow_insecure()
        .build()
        .expect("fuzzing parameters are valid");
    Context::new(&params).expect("fuzzing context")
}

fn num_bigint_from_hex(hex: &str) -> helib_rs::num_bigint::BigUint {
    helib_rs::num_bigint::BigUint::parse_bytes(hex.as_bytes(), 16).expect("hex literal")
}

/// The plan key of the fuzzed files (fixed, so seeds stay valid).
fn key() -> PlanKey {
    PlanKey::from_bytes([0x5a; 32])
}

/// A builder and the honest files of its plan, untagged and tagged.
struct Spec<F: PrimeField + FftField> {
    builder: FftPlanBuilder<F>,
    honest: Vec<u8>,
    tagged: Vec<u8>,
    /// For each word of `tagged`, whether it depends on the nonce (it
    /// differs between two tagged saves).
    nonce_dependent: Vec<bool>,
    /// For each word of `honest`, whether it is a checkpoint that a loaded
    /// plan keeping a tolerated norm of its file changes (see
    /// [`checkpoints_after_norms`]).
    norm_checkpoints: Vec<bool>,
}

impl<F: PrimeField + FftField> Spec<F> {
    fn new(builder: FftPlanBuilder<F>) -> Self {
        let plan = builder.clone().build().expect("fuzzing plan");
        let mut honest = Vec::new();
        plan.write_to(&mut honest).expect("save");
        let tagged_save = || {
            let mut bytes = Vec::new();
            plan.write_to_with_key(&mut bytes, &key())
                .expect("save with a key");
            bytes
        };
        let (tagged, again) = (tagged_save(), tagged_save());
        assert_eq!(tagged.len(), again.len(), "tagged saves of one size");
        let nonce_dependent = tagged
            .chunks_exact(8)
            .zip(again.chunks_exact(8))
            .map(|(a, b)| a != b)
            .collect();
        let norm_checkpoints = checkpoints_after_norms(&builder, &honest);
        Self {
            builder,
            honest,
            tagged,
            nonce_dependent,
            norm_checkpoints,
        }
    }

    /// Loads `data` as this spec's plan, without and with the key; a loaded
    /// plan must be the honest one, and one accepted on its tag must be the
    /// honest tagged file up to its nonce.
    fn check(&self, data: &[u8]) {
        if let Ok(plan) = self.builder.load_from(&mut &data[..]) {
            self.same_plan(&plan);
        }
        if let Ok((plan, check)) = self.builder.load_with_key(&mut &data[..], &key()) {
            if check == PlanCheck::Authenticated {
                assert!(
                    data.len() >= self.tagged.len()
                        && data
                            .chunks_exact(8)
                            .zip(self.tagged.chunks_exact(8))
                            .zip(&self.nonce_dependent)
                            .all(|((a, b), &varies)| varies || a == b),
                    "a file other than a saved one was accepted on its tag"
                );
            }
            self.same_plan(&plan);
        }
    }

    /// Asserts `plan`, saved again, gives the honest file.
    fn same_plan(&self, plan: &FftPlan<F>) {
        let mut again = Vec::new();
        plan.write_to(&mut again).expect("save a loaded plan");
        assert_eq!(
            again.len(),
            self.honest.len(),
            "a loaded plan of another size"
        );
        let words = again.chunks_exact(8).zip(self.honest.chunks_exact(8));
        for ((a, b), &checkpoint) in words.zip(&self.norm_checkpoints) {
            if a != b {
                let (x, y) = (as_f64(a), as_f64(b));
                assert!(
                    checkpoint || ((x - y).abs() <= 1e-9 && x.is_finite() && y.is_finite()),
                    "a loaded plan differs from the honest one outside its norms"
                );
            }
        }
    }
}

/// A little-endian word read as an `f64`.
fn as_f64(word: &[u8]) -> f64 {
    f64::from_bits(u64::from_le_bytes(word.try_into().unwrap_or_default()))
}

/// The checkpoints of `honest` that change when a loaded plan keeps a norm
/// of its file within the loader's tolerance instead of the exact one: the
/// keyless checksum runs over the norms, so a plan saved again carries other
/// checkpoints after its first changed norm. Found by nudging the first
/// word that reads as a norm (log2 of a coefficient norm, a finite fraction)
/// by one unit in the last place: the plan loaded from that file, saved
/// again, differs from `honest` in that word and in every checkpoint after
/// it, and in nothing else.
fn checkpoints_after_norms<F: PrimeField + FftField>(
    builder: &FftPlanBuilder<F>,
    honest: &[u8],
) -> Vec<bool> {
    let words = honest.len() / 8;
    let looks_like_norm = |x: f64| (0.5..=4096.0).contains(&x) && x.fract() != 0.0;
    for (at, word) in honest.chunks_exact(8).enumerate() {
        if !looks_like_norm(as_f64(word)) {
            continue;
        }
        let mut nudged = honest.to_vec();
        let bits = u64::from_le_bytes(word.try_into().expect("a word")) + 1;
        nudged[8 * at..8 * at + 8].copy_from_slice(&bits.to_le_bytes());
        let Ok(plan) = builder.load_from(&mut &nudged[..]) else {
            continue;
        };
        let mut again = Vec::new();
        plan.write_to(&mut again).expect("save a loaded plan");
        assert_eq!(again.len(), honest.len(), "a nudged norm changed the size");
        if again == honest {
            continue;
        }
        return again
            .chunks_exact(8)
            .zip(honest.chunks_exact(8))
            .enumerate()
            .map(|(i, (a, b))| i != at && a != b)
            .collect();
    }
    vec![false; words]
}

/// The plans every input is loaded as.
struct Specs {
    small: Vec<Spec<F65537>>,
    bn254: Vec<Spec<Fr>>,
}

fn specs() -> &'static Specs {
    static SPECS: OnceLock<Specs> = OnceLock::new();
    SPECS.get_or_init(|| {
        let tiny = context("10001", &[50, 50, 50, 50]);
        let bn = context(
            "30644e72e131a029b85045b68181585d2833e84879b9709143e1f593f0000001",
            &[60; 19],
        );
        let two = Strategy::Factored { levels: Some(2) };
        Specs {
            small: vec![
                Spec::new(FftPlan::builder(&tiny, 16).strategy(two)),
                Spec::new(
                    FftPlan::builder(&tiny, 16)
                        .inverse()
                        .coset(F65537::from(3u64))
                        .key_mode(KeyMode::MinimalKeys)
                        .strategy(two),
                ),
                Spec::new(FftPlan::builder(&tiny, 8).strategy(Strategy::Dense)),
            ],
            bn254: vec![Spec::new(FftPlan::builder(&bn, 8).strategy(two))],
        }
    })
}

/// Writes the seed corpus to `dir`: each honest file (untagged and
/// tagged), some prefixes, and copies with a flipped byte in the header, a
/// diagonal and the end (the tag, for a tagged file).
fn write_seeds(dir: &str) {
    let s = specs();
    let honest: Vec<&[u8]> = s
        .small
        .iter()
        .flat_map(|p| [&p.honest[..], &p.tagged[..]])
        .chain(s.bn254.iter().flat_map(|p| [&p.honest[..], &p.tagged[..]]))
        .collect();
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for bytes in honest {
        for cut in [0, 8, 60, bytes.len() / 2, bytes.len() - 8] {
            seeds.push(bytes[..cut.min(bytes.len())].to_vec());
        }
        for at in [
            9,
            8 * 9,
            bytes.len() / 3,
            bytes.len() / 2 + 3,
            bytes.len() - 9,
        ] {
            let mut tweaked = bytes.to_vec();
            tweaked[at] ^= 0x01;
            seeds.push(tweaked);
        }
        seeds.push(bytes.to_vec());
    }
    for (i, seed) in seeds.iter().enumerate() {
        std::fs::write(format!("{dir}/seed-{i}"), seed).expect("write a seed");
    }
}

fuzz_target!(
    init: {
        if let Ok(dir) = std::env::var("HELIB_FUZZ_WRITE_SEEDS") {
            write_seeds(&dir);
            std::process::exit(0);
        }
        specs();
    },
    |data: &[u8]| {
        let s = specs();
        for spec in &s.small {
            spec.check(data);
        }
        for spec in &s.bn254 {
            spec.check(data);
        }
    }
);
