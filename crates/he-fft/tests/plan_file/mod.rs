//! Plan files as words, for the tests that tamper with them: the stream
//! checksum written out from its description (anyone can recompute it),
//! resealing, the places of the encoded diagonals, and the small contexts
//! and plans the tests use.

// Each test crate that includes this module uses part of it.
#![allow(dead_code)]

use ark_ff::{Fp64, MontBackend, MontConfig};
use he_fft::{Error, FftPlan, FftPlanBuilder, Strategy};
use helib_rs::{Context, Parameters};
use std::sync::OnceLock;

use crate::support::{bn254_builder, context_of};

#[derive(MontConfig)]
#[modulus = "65537"]
#[generator = "3"]
pub struct F65537Config;
pub type F65537 = Fp64<MontBackend<F65537Config, 1>>;

/// N = 1024, t = 65537, four 50-bit chain primes.
pub fn tiny() -> &'static Context {
    static TINY: OnceLock<Context> = OnceLock::new();
    TINY.get_or_init(|| {
        let params = Parameters::builder()
            .ring_degree(1 << 10)
            .plaintext_modulus(65537u32.into())
            .chain_bits(&[50; 4])
            .allow_insecure()
            .build()
            .expect("parameters");
        Context::new(&params).expect("context")
    })
}

/// N = 1024 over BN254 with room for a few levels.
pub fn bn254() -> &'static Context {
    static BN254: OnceLock<Context> = OnceLock::new();
    BN254.get_or_init(|| context_of(bn254_builder(10, 19)))
}

/// A forward size-16 plan of two levels over F65537 (compact diagonals of
/// several lengths), or with the given settings.
pub fn tiny_builder() -> FftPlanBuilder<F65537> {
    FftPlan::<F65537>::builder(tiny(), 16).strategy(Strategy::Factored { levels: Some(2) })
}

pub fn save<F: ark_ff::PrimeField + ark_ff::FftField>(builder: FftPlanBuilder<F>) -> Vec<u8> {
    let plan = builder.build().expect("build");
    let mut bytes = Vec::new();
    plan.write_to(&mut bytes).expect("save");
    bytes
}

/// Loads `bytes` as the plan `builder` describes.
pub fn load<F: ark_ff::PrimeField + ark_ff::FftField>(
    builder: &FftPlanBuilder<F>,
    bytes: &[u8],
) -> he_fft::Result<FftPlan<F>> {
    builder.load_from(&mut &bytes[..])
}

/// The error loading `bytes` as `builder`'s plan gives (a loaded plan fails
/// the test).
pub fn load_err<F: ark_ff::PrimeField + ark_ff::FftField>(
    builder: &FftPlanBuilder<F>,
    bytes: &[u8],
) -> Error {
    match load(builder, bytes) {
        Ok(plan) => panic!("a tampered file loaded: {}", plan.describe()),
        Err(e) => e,
    }
}

/// The stream checksum of `helib_rs::io`, written out here from
/// its description: sixteen lanes of `(lane ^ word) · K` rotated, lane i
/// taking the words at positions ≡ i mod 16, folded with the word count.
/// Anyone can compute it: that is the point of these tests.
#[derive(Clone, Copy)]
struct Checksum {
    lanes: [u64; 16],
    words: u64,
}

const MIX: u64 = 0x9e37_79b9_7f4a_7c15;
const FOLD: u64 = 0xc2b2_ae3d_27d4_eb4f;

impl Checksum {
    fn new() -> Self {
        let mut lanes = [0u64; 16];
        let mut seed = 0x243f_6a88_85a3_08d3u64;
        for lane in &mut lanes {
            *lane = seed;
            seed = Self::step(seed, 0x1319_8a2e_0370_7344);
        }
        Self { lanes, words: 0 }
    }

    fn step(lane: u64, word: u64) -> u64 {
        (lane ^ word).wrapping_mul(MIX).rotate_left(29)
    }

    fn push(&mut self, word: u64) {
        let i = (self.words % 16) as usize;
        self.lanes[i] = Self::step(self.lanes[i], word);
        self.words += 1;
    }

    fn value(&self) -> u64 {
        let mut h = self.words.wrapping_mul(FOLD);
        for lane in self.lanes {
            h = (h ^ lane).wrapping_mul(FOLD).rotate_left(31);
        }
        h ^ (h >> 29)
    }
}

/// A plan file as words, with the positions of its checkpoints (a word
/// equal to the checksum of everything before it).
pub struct File {
    pub words: Vec<u64>,
    pub checkpoints: Vec<usize>,
}

impl File {
    pub fn parse(bytes: &[u8]) -> Self {
        let words: Vec<u64> = bytes
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
            .collect();
        let mut sum = Checksum::new();
        let mut checkpoints = Vec::new();
        for (i, &w) in words.iter().enumerate() {
            if w == sum.value() {
                checkpoints.push(i);
            }
            sum.push(w);
        }
        Self { words, checkpoints }
    }

    /// The bytes with every checkpoint recomputed.
    pub fn sealed(&self) -> Vec<u8> {
        let mut words = self.words.clone();
        let mut sum = Checksum::new();
        let mut next = self.checkpoints.iter().peekable();
        for (i, w) in words.iter_mut().enumerate() {
            if next.peek() == Some(&&i) {
                *w = sum.value();
                next.next();
            }
            sum.push(*w);
        }
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// The encoded diagonals: (word index of the payload's level word,
    /// level, extended, word index of the residues, residue count).
    pub fn terms(&self, context: &Context) -> Vec<Term> {
        let n = context.ring_degree();
        let specials = context.special_primes().len();
        let mut out = Vec::new();
        let w = &self.words;
        let mut i = 0;
        // A payload: level, extended flag, factor length 1, factor 1, two
        // norms, the residue count (rows × N / stride), the residues.
        while i + 7 < w.len() {
            let (level, extended, len) = (w[i], w[i + 1], w[i + 6]);
            if level > context.max_level() as u64 || extended > 1 || len > w.len() as u64 {
                i += 1;
                continue;
            }
            let rows = level as usize + 1 + if extended == 1 { specials } else { 0 };
            let fits = w[i + 2] == 1
                && w[i + 3] == 1
                && (len as usize).is_multiple_of(rows)
                && (16..=n).contains(&(len as usize / rows))
                && (len as usize / rows).is_power_of_two()
                && i + 7 + len as usize <= w.len();
            if fits {
                out.push(Term {
                    at: i,
                    level: level as usize,
                    extended: extended == 1,
                    residues: i + 7,
                    len: len as usize,
                });
                i += 7 + len as usize;
            } else {
                i += 1;
            }
        }
        out
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Term {
    pub at: usize,
    pub level: usize,
    pub extended: bool,
    pub residues: usize,
    pub len: usize,
}

impl Term {
    /// The primes of its rows, in order.
    pub fn primes(&self, context: &Context) -> Vec<u64> {
        let mut primes = context.chain_primes()[..=self.level].to_vec();
        if self.extended {
            primes.extend_from_slice(context.special_primes());
        }
        primes
    }
}

/// Negates every residue of `term`: the encoding of the negated diagonal
/// (the NTT and the Montgomery form are linear; the norms do not change).
pub fn negate(file: &mut File, context: &Context, term: Term) {
    let primes = term.primes(context);
    let per_row = term.len / primes.len();
    for (r, q) in primes.iter().enumerate() {
        for w in &mut file.words[term.residues + r * per_row..term.residues + (r + 1) * per_row] {
            *w = (q - *w) % q;
        }
    }
}
