//! Profiling candidate parameters: the client's and the server's latencies
//! measured on this machine with real engine calls.

use std::time::{Duration, Instant};

use num_bigint::BigUint;

use super::{Advice, Advisor, Operations};
use crate::context::Context;
use crate::encoded::EncodedPlaintext;
use crate::error::Result;
use crate::galois_keys::GaloisKeys;
use crate::keys::{PublicKey, SecretKey};
use crate::plaintext::Plaintext;
use crate::relin_key::RelinKey;
use crate::rotation::RotationPolicy;
use crate::security::SecurityLevel;

/// How [`Advisor::profile`] measures.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProfileOptions {
    /// Runs of each operation; the median is reported (at least 1).
    pub repetitions: usize,
}

impl Default for ProfileOptions {
    /// One run of each operation.
    fn default() -> Self {
        Self { repetitions: 1 }
    }
}

/// The client's latencies (CoFHE's "setup": keys, encryption, decryption).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ClientLatency {
    /// A secret key and its public key.
    pub key_generation: Duration,
    /// The relinearization key (when the workload relinearizes).
    pub relin_key: Option<Duration>,
    /// One Galois key (when the workload counts Galois keys or rotations).
    pub galois_key: Option<Duration>,
    /// One public-key encryption of a full plaintext.
    pub encrypt: Duration,
    /// One decryption of a fresh ciphertext.
    pub decrypt: Duration,
}

/// The server's latencies, one operation each at the top level (where each
/// is slowest: every prime is still there); `None` for the operations the
/// workload does not count.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ServerLatency {
    /// Ciphertext × plaintext product.
    pub plain_product: Option<Duration>,
    /// Ciphertext × ciphertext product (to size 3).
    pub ciphertext_product: Option<Duration>,
    /// Relinearization of a size-3 ciphertext.
    pub relinearization: Option<Duration>,
    /// Rotation by one step (a full key switch).
    pub rotation: Option<Duration>,
    /// Modulus switch dropping the top prime.
    pub mod_switch: Option<Duration>,
    /// Ciphertext addition.
    pub addition: Option<Duration>,
}

/// One candidate's measured latencies and their totals for the workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Profile {
    /// The ring degree N.
    pub ring_degree: usize,
    /// log2 Q, the chain's bits.
    pub chain_bits: u32,
    /// log2 P, the special primes' bits.
    pub special_bits: u32,
    /// The parameters' security level.
    pub security: SecurityLevel,
    /// The operations the totals count.
    pub operations: Operations,
    /// Making the context (primes, NTT tables): paid once by each side.
    pub context: Duration,
    /// The client's latencies.
    pub client: ClientLatency,
    /// The server's latencies.
    pub server: ServerLatency,
}

impl Profile {
    /// The client's time for the workload: the keys (one secret and public
    /// key, the relinearization key, each Galois key), each encryption and
    /// each decryption.
    pub fn client_total(&self) -> Duration {
        let ops = &self.operations;
        let c = &self.client;
        c.key_generation
            + c.relin_key.unwrap_or_default()
            + times(c.galois_key, ops.galois_keys)
            + times(Some(c.encrypt), ops.encryptions)
            + times(Some(c.decrypt), ops.decryptions)
    }

    /// The server's time for the workload: each counted operation at its
    /// measured latency.
    pub fn server_total(&self) -> Duration {
        let ops = &self.operations;
        let s = &self.server;
        times(s.plain_product, ops.plain_products)
            + times(s.ciphertext_product, ops.ciphertext_products)
            + times(s.relinearization, ops.relinearizations)
            + times(s.rotation, ops.rotations)
            + times(s.mod_switch, ops.mod_switches)
            + times(s.addition, ops.additions)
    }
}

/// `count` times `latency` (nothing when it was not measured).
fn times(latency: Option<Duration>, count: usize) -> Duration {
    let count = u32::try_from(count).unwrap_or(u32::MAX);
    latency.unwrap_or_default().saturating_mul(count)
}

impl Advisor {
    /// Profiles each candidate on this machine (CoFHE's per-network
    /// profiling, here per ring): makes a context from its parameters and
    /// times, with real engine calls, the client's key generation,
    /// encryption and decryption and the server's operations that the
    /// candidate's [`Operations`] count, each `options.repetitions` times
    /// (the median is kept), all at the top level with the parameters'
    /// engine threads. The totals ([`Profile::client_total`],
    /// [`Profile::server_total`]) weight these latencies by the counts.
    ///
    /// Takes the time and memory of a context and its keys per candidate:
    /// seconds and a few GiB at N = 2^17.
    ///
    /// # Errors
    /// The engine's errors (e.g. a rotation counted on parameters without
    /// special primes, or memory).
    pub fn profile(candidates: &[Advice], options: &ProfileOptions) -> Result<Vec<Profile>> {
        candidates
            .iter()
            .map(|advice| profile_one(advice, options.repetitions.max(1)))
            .collect()
    }
}

/// Profiles one candidate.
fn profile_one(advice: &Advice, runs: usize) -> Result<Profile> {
    let _span =
        tracing::info_span!("helib.advice_profile", ring_degree = advice.ring_degree()).entered();
    let ops = advice.operations();
    let (context, context_time) = timed(runs, || Context::new(advice.parameters()))?;
    let ((sk, pk), key_generation) = timed(runs, || -> Result<(SecretKey, PublicKey)> {
        let sk = SecretKey::generate(&context)?;
        let pk = sk.public_key()?;
        Ok((sk, pk))
    })?;
    let plaintext = sample_plaintext(&context)?;
    let (ct, encrypt) = timed(runs, || pk.encrypt(&plaintext))?;
    let (_, decrypt) = timed(runs, || sk.decrypt(&ct))?;
    let other = pk.encrypt(&plaintext)?;

    let relin = if ops.relinearizations > 0 {
        Some(timed(runs, || RelinKey::generate(&sk))?)
    } else {
        None
    };
    let galois = if ops.galois_keys > 0 || ops.rotations > 0 {
        Some(timed(runs, || GaloisKeys::for_steps(&sk, &[1]))?)
    } else {
        None
    };

    let mut server = ServerLatency::default();
    if ops.plain_products > 0 {
        let encoded = EncodedPlaintext::for_multiplication(&plaintext, ct.level())?;
        server.plain_product = Some(timed(runs, || ct.mul_plain(&encoded))?.1);
    }
    if ops.ciphertext_products > 0 || ops.relinearizations > 0 {
        let (product, time) = timed(runs, || ct.multiply(&other))?;
        if ops.ciphertext_products > 0 {
            server.ciphertext_product = Some(time);
        }
        if let Some((rk, _)) = &relin {
            server.relinearization = Some(timed(runs, || product.relinearize(rk))?.1);
        }
    }
    if ops.rotations > 0 {
        if let Some((keys, _)) = &galois {
            server.rotation =
                Some(timed(runs, || ct.rotate_rows(1, keys, RotationPolicy::Exact))?.1);
        }
    }
    if ops.mod_switches > 0 && ct.level() > 0 {
        server.mod_switch = Some(timed(runs, || ct.mod_switch())?.1);
    }
    if ops.additions > 0 {
        server.addition = Some(timed(runs, || ct.add(&other))?.1);
    }

    Ok(Profile {
        ring_degree: advice.ring_degree(),
        chain_bits: advice.chain_bits(),
        special_bits: advice.special_bits(),
        security: advice.security(),
        operations: ops,
        context: context_time,
        client: ClientLatency {
            key_generation,
            relin_key: relin.map(|(_, time)| time),
            galois_key: galois.map(|(_, time)| time),
            encrypt,
            decrypt,
        },
        server,
    })
}

/// Runs `f` `runs` times; the last result and the median time.
fn timed<T>(runs: usize, mut f: impl FnMut() -> Result<T>) -> Result<(T, Duration)> {
    let mut times = Vec::with_capacity(runs);
    let mut last = None;
    for _ in 0..runs.max(1) {
        let start = Instant::now();
        let value = f()?;
        times.push(start.elapsed());
        // The previous result is dropped outside the timed region.
        last = Some(value);
    }
    times.sort_unstable();
    let median = times[times.len() / 2];
    let value = last.expect("at least one run");
    Ok((value, median))
}

/// A plaintext with every coefficient set, spread over [0, t) (a fixed
/// pseudo-random sequence: the latencies do not depend on the values).
fn sample_plaintext(context: &Context) -> Result<Plaintext> {
    let t = context.plaintext_modulus();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let coefficients: Vec<BigUint> = (0..context.ring_degree())
        .map(|_| {
            // xorshift64*, enough to fill the words.
            state ^= state >> 12;
            state ^= state << 25;
            state ^= state >> 27;
            let word = state.wrapping_mul(0x2545_f491_4f6c_dd1d);
            (BigUint::from(word) << (t.bits().saturating_sub(64) as usize)) % t
        })
        .collect();
    Plaintext::from_biguints(context, &coefficients)
}
