//! Parameter advice: a computation described once ([`Workload`]), the
//! smallest ≥ 128-bit parameters that hold it ([`Advisor::advise`]), and,
//! on request, its latencies measured on this machine for a few candidate
//! rings ([`Advisor::profile`]).
//!
//! A workload says what a computation asks of the parameters, in the terms
//! of the noise model ([`crate::noise`]): the plaintext modulus t, the
//! noise its operations add ([`Circuit`], plus extra bits), the key
//! switching it needs ([`KeySwitching`]), the smudging room of a threshold
//! decryption ([`Smudging`]), the smallest ring its sizes allow, whether it
//! needs slots (2N | t − 1), and the operations it performs, counted for
//! profiling ([`Operations`]). What depends on the ring (blocks per
//! polynomial, a plan's levels) is given per ring ([`Workload::per_ring`]).
//!
//! The [`Advisor`] owns nothing but the walk over the rings: the noise of
//! each operation comes from [`crate::noise`], the security bound from the
//! engine's table ([`crate::SecurityLevel`]) and the validity checks from
//! [`ParametersBuilder::build`](crate::ParametersBuilder::build). That walk
//! is also public as [`smallest_ring`], for a caller that computes its chain
//! itself. Each extension of the workspace (he-poly's products, he-fft's plans and
//! conversions, he-threshold's smudging, he-cosnark's proofs, he-cache's
//! cached encryption) describes its workload here and asks the advisor. A
//! picker that moves onto the advisor, or any picker across versions of
//! this crate, can show that it still chooses the same parameters with a
//! [`ChoiceLog`] of its choices and its fingerprint, e.g. over
//! [`reference_moduli`].
//!
//! Following the CoFHE compiler's method (choose per computation by the
//! client's setup latency and the server's latency), [`Advisor::profile`]
//! builds a context for each candidate, times the client's operations (key
//! generation, encryption, decryption) and the server's (the products,
//! rotations and modulus switches the workload counts) with real engine
//! calls, and weights them by the workload's counts.
//!
//! ```
//! use helib_rs::advice::{Advisor, Circuit, Demand, KeySwitching, Operations, Workload};
//! use num_bigint::BigUint;
//!
//! // Two ciphertext × plaintext products with t = 65537 and slots.
//! let demand = Demand::new(Circuit::PlainProducts { depth: 2 }).operations(Operations {
//!     encryptions: 1,
//!     decryptions: 1,
//!     plain_products: 2,
//!     ..Operations::default()
//! });
//! let workload = Workload::new(BigUint::from(65537u32), demand)
//!     .key_switching(&[KeySwitching::None])
//!     .slots()
//!     .threads(1);
//! let advisor = Advisor::new(workload);
//! let advice = advisor.advise()?;
//! assert_eq!(advice.ring_degree(), 1 << 12);
//! assert!(advice.security().bits() >= 128);
//!
//! // The chosen ring and the next one up, profiled here (one repetition).
//! let candidates = advisor.candidates(2)?;
//! assert_eq!(candidates[1].ring_degree(), 1 << 13);
//! let profiles = Advisor::profile(&candidates, &Default::default())?;
//! assert!(profiles.iter().all(|p| p.client_total() > p.client.encrypt));
//! # Ok::<(), helib_rs::Error>(())
//! ```

mod advisor;
mod choices;
mod profile;
mod search;
#[cfg(test)]
mod tests;

pub use advisor::{advise, Advice, Advisor};
pub use choices::{reference_moduli, ChoiceLog};
pub use profile::{ClientLatency, Profile, ProfileOptions, ServerLatency};
pub use search::{smallest_ring, KeySwitching};

use num_bigint::BigUint;

use crate::error::Result;
use crate::noise;
use crate::params::{Parameters, ParametersBuilder, MAX_RING_DEGREE, MIN_RING_DEGREE};

/// The noise a computation adds, in the terms of one of the noise model's
/// chain formulas ([`crate::noise`]); [`bits`](Self::bits) is that formula.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum Circuit {
    /// `depth` ciphertext × plaintext products in sequence on a fresh
    /// encryption ([`noise::chain_total_bits`]).
    PlainProducts {
        /// The products in sequence.
        depth: usize,
    },
    /// `products` sequential ciphertext × ciphertext products of fresh
    /// ciphertexts whose results are sums of up to `terms` products (block
    /// convolutions; [`noise::product_chain_total_bits`]).
    CiphertextProducts {
        /// The products in sequence.
        products: usize,
        /// The products summed into one result (blocks per operand).
        terms: usize,
    },
    /// `levels` linear-transform levels (plaintext products and rotations)
    /// on a fresh ciphertext ([`noise::transform_chain_bits`]), then
    /// `products` ciphertext × ciphertext products of transformed
    /// ciphertexts ([`noise::transformed_product_bits`] each).
    LinearTransforms {
        /// The transform's multiplication levels.
        levels: usize,
        /// Ciphertext products after the transform.
        products: usize,
    },
    /// One fresh encryption times a scalar of `scalar_bits` bits
    /// ([`noise::fresh_bits`] + [`noise::scalar_product_bits`]), with
    /// `margin_bits` for what surrounds it (additions) and
    /// [`noise::DECRYPTION_BITS`].
    ScalarProduct {
        /// The scalar's size in bits.
        scalar_bits: u32,
        /// Room for additions and safety.
        margin_bits: f64,
    },
}

impl Circuit {
    /// The chain size, in bits, this circuit needs at ring degree
    /// `ring_degree` for a plaintext modulus of `log_t` bits: the noise
    /// model's formula for it, margins and the decryption bit included.
    ///
    /// # Panics
    /// If `ring_degree` is 0 or `log_t` is not finite (as [`noise::fresh_bits`]).
    pub fn bits(&self, ring_degree: usize, log_t: f64) -> f64 {
        match *self {
            Self::PlainProducts { depth } => noise::chain_total_bits(ring_degree, log_t, depth),
            Self::CiphertextProducts { products, terms } => {
                noise::product_chain_total_bits(ring_degree, log_t, products, terms)
            }
            Self::LinearTransforms { levels, products } => {
                noise::transform_chain_bits(ring_degree, log_t, levels)
                    + products as f64 * noise::transformed_product_bits(ring_degree, log_t)
            }
            Self::ScalarProduct {
                scalar_bits,
                margin_bits,
            } => {
                noise::fresh_bits(ring_degree, log_t)
                    + noise::scalar_product_bits(scalar_bits, log_t)
                    + margin_bits
                    + noise::DECRYPTION_BITS
            }
        }
    }

    /// The multiplication levels the circuit consumes: its products in
    /// sequence, or its transform levels plus the products after them (a
    /// scalar product counts as one).
    pub fn depth(&self) -> usize {
        match *self {
            Self::PlainProducts { depth } => depth,
            Self::CiphertextProducts { products, .. } => products,
            Self::LinearTransforms { levels, products } => levels + products,
            Self::ScalarProduct { .. } => 1,
        }
    }
}

/// How many operations of each kind a computation performs: what
/// [`Advisor::profile`] weights its measured latencies by. The noise comes
/// from the [`Circuit`]; these counts only price it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Operations {
    /// Public-key encryptions (client).
    pub encryptions: usize,
    /// Decryptions (client).
    pub decryptions: usize,
    /// Galois keys the client generates.
    pub galois_keys: usize,
    /// Ciphertext × plaintext products (server).
    pub plain_products: usize,
    /// Ciphertext × ciphertext products, before relinearization (server).
    pub ciphertext_products: usize,
    /// Relinearizations (server; the client generates the key when > 0).
    pub relinearizations: usize,
    /// Rotations, each priced as a full key switch (server).
    pub rotations: usize,
    /// Modulus switches, each dropping one prime (server).
    pub mod_switches: usize,
    /// Ciphertext additions (server).
    pub additions: usize,
}

/// What a computation asks of one ring: the noise it adds ([`Circuit`] and
/// extra bits on top) and the operations it performs.
///
/// ```
/// use helib_rs::advice::{Circuit, Demand};
///
/// let demand = Demand::new(Circuit::PlainProducts { depth: 1 }).extra_bits(6.0);
/// let plain = Circuit::PlainProducts { depth: 1 }.bits(1 << 14, 17.0);
/// assert_eq!(demand.total_bits(1 << 14, 17.0), plain + 6.0);
/// ```
#[derive(Debug, Clone, PartialEq)]
pub struct Demand {
    circuit: Circuit,
    extra_bits: f64,
    operations: Operations,
}

impl Demand {
    /// The demand of `circuit` alone, with no extra bits and no operations counted.
    pub fn new(circuit: Circuit) -> Self {
        Self {
            circuit,
            extra_bits: 0.0,
            operations: Operations::default(),
        }
    }

    /// Adds `bits` of budget on top of the circuit's (noise the circuit's
    /// formula does not model, such as the parties' uploads of a
    /// collaborative proof). Replaces earlier extra bits.
    pub fn extra_bits(mut self, bits: f64) -> Self {
        self.extra_bits = bits;
        self
    }

    /// Sets the operations counted for profiling.
    pub fn operations(mut self, operations: Operations) -> Self {
        self.operations = operations;
        self
    }

    /// The circuit.
    pub fn circuit(&self) -> Circuit {
        self.circuit
    }

    /// The extra bits on top of the circuit's.
    pub fn extra(&self) -> f64 {
        self.extra_bits
    }

    /// The operations counted for profiling.
    pub fn counted(&self) -> Operations {
        self.operations
    }

    /// The chain size the demand needs, in bits: the circuit's
    /// ([`Circuit::bits`]) plus the extra bits.
    ///
    /// # Panics
    /// As for [`Circuit::bits`].
    pub fn total_bits(&self, ring_degree: usize, log_t: f64) -> f64 {
        self.circuit.bits(ring_degree, log_t) + self.extra_bits
    }
}

/// How a chain size is cut into primes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ChainLayout {
    /// As few primes of at most 60 bits as possible, as equal as possible
    /// ([`noise::split_bits`] of the size rounded up).
    #[default]
    Balanced,
    /// As few primes of one size as possible, at least `min_prime_bits`
    /// each ([`noise::uniform_primes`]): any prime can be dropped at the
    /// same cost (the linear-transform chains).
    Uniform {
        /// The smallest prime size.
        min_prime_bits: u32,
    },
}

impl ChainLayout {
    /// The prime sizes (q_0 first) holding `bits` bits.
    ///
    /// ```
    /// use helib_rs::advice::ChainLayout;
    /// assert_eq!(ChainLayout::Balanced.primes(120.5), vec![41, 40, 40]);
    /// assert_eq!(ChainLayout::Uniform { min_prime_bits: 40 }.primes(120.5), vec![41, 41, 41]);
    /// ```
    pub fn primes(self, bits: f64) -> Vec<u32> {
        match self {
            Self::Balanced => noise::split_bits(bits.ceil() as u32),
            Self::Uniform { min_prime_bits } => noise::uniform_primes(bits, min_prime_bits),
        }
    }
}

/// The room collective (threshold) decryption needs: the smudging noise of
/// `parties` parties at statistical security `security_bits`
/// ([`noise::smudging_bits`]), held by primes added at the bottom of the
/// chain so that it fits at every level an ordinary decryption fits at.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Smudging {
    /// The parties whose decryption shares are combined.
    pub parties: u32,
    /// The statistical security λ of the smudging, in bits.
    pub security_bits: u32,
}

impl Smudging {
    /// The smudging of `parties` parties at λ = `security_bits`.
    pub fn new(parties: u32, security_bits: u32) -> Self {
        Self {
            parties,
            security_bits,
        }
    }

    /// The room, in bits, at ring degree `ring_degree`.
    ///
    /// # Errors
    /// As for [`noise::smudging_bits`].
    pub fn room_bits(&self, ring_degree: usize) -> Result<u32> {
        noise::smudging_bits(ring_degree, self.parties, self.security_bits)
    }

    /// `chain` (q_0 first) with the room at ring degree `ring_degree` added
    /// below it, in primes of at most 60 bits ([`noise::split_bits`]).
    ///
    /// ```
    /// use helib_rs::advice::Smudging;
    ///
    /// let smudging = Smudging::new(3, 40);
    /// let chain = smudging.chain_with_room(1024, &[50, 50])?;
    /// assert_eq!(chain, [smudging.room_bits(1024)?, 50, 50]);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As for [`noise::smudging_bits`].
    pub fn chain_with_room(&self, ring_degree: usize, chain: &[u32]) -> Result<Vec<u32>> {
        let mut with_room = noise::split_bits(self.room_bits(ring_degree)?);
        with_room.extend_from_slice(chain);
        Ok(with_room)
    }

    /// Builds `builder`'s parameters with the room added below their chain
    /// ([`chain_with_room`](Self::chain_with_room) at their ring degree);
    /// special primes derived from key-switching digits are resized for the
    /// longer chain, explicit ones kept.
    ///
    /// # Errors
    /// The builder's errors, first for its own parameters and then for the
    /// longer chain (e.g. below 128-bit security when insecure parameters
    /// were not allowed), and [`noise::smudging_bits`]'s.
    pub fn build(&self, builder: ParametersBuilder) -> Result<Parameters> {
        let base = builder.clone().build()?;
        let chain = self.chain_with_room(base.ring_degree(), base.chain_bits())?;
        builder.chain_bits(&chain).build()
    }
}

/// A computation described for the [`Advisor`]: the plaintext modulus, what
/// it asks of each ring ([`Demand`]), and how its parameters may be made.
///
/// Defaults: log2 t as the noise model's t size; key switching with
/// [`DEFAULT_KEY_SWITCHING_DIGITS`](crate::DEFAULT_KEY_SWITCHING_DIGITS)
/// digits; [`ChainLayout::Balanced`]; no smudging; rings from
/// [`MIN_RING_DEGREE`]; no slots needed; one engine
/// thread per hardware thread.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    plaintext_modulus: BigUint,
    log_t: f64,
    demands: Demands,
    key_switching: Vec<KeySwitching>,
    layout: ChainLayout,
    smudging: Option<Smudging>,
    min_ring_degree: usize,
    slots: bool,
    threads: u32,
}

/// The demand on every ring, or one per supported ring.
#[derive(Debug, Clone, PartialEq)]
enum Demands {
    Every(Demand),
    /// For N = 2^10, 2^11, …, 2^17 in order: the demand or why N cannot hold it.
    PerRing(Vec<std::result::Result<Demand, String>>),
}

impl Workload {
    /// A workload with plaintext modulus `t` asking `demand` of every ring.
    pub fn new(t: BigUint, demand: Demand) -> Self {
        Self::with_demands(t, Demands::Every(demand))
    }

    /// A workload whose demand depends on the ring: `demand(N)` for each
    /// supported ring degree N (2^10 ..= 2^17, called once each, here), or
    /// why N cannot hold the computation (its blocks do not fit, a plan
    /// needs a larger ring).
    pub fn per_ring(
        t: BigUint,
        mut demand: impl FnMut(usize) -> std::result::Result<Demand, String>,
    ) -> Self {
        let demands = supported_rings().map(&mut demand).collect();
        Self::with_demands(t, Demands::PerRing(demands))
    }

    fn with_demands(t: BigUint, demands: Demands) -> Self {
        Self {
            log_t: noise::log2(&t),
            plaintext_modulus: t,
            demands,
            key_switching: vec![KeySwitching::Digits(
                crate::params::DEFAULT_KEY_SWITCHING_DIGITS,
            )],
            layout: ChainLayout::default(),
            smudging: None,
            min_ring_degree: MIN_RING_DEGREE,
            slots: false,
            threads: 0,
        }
    }

    /// Sizes the noise with t's bit length instead of log2 t (a bound on t
    /// rounded up to a power of two, as the FFT plans and cached
    /// encryption do).
    pub fn log_t_as_bit_length(mut self) -> Self {
        self.log_t = self.plaintext_modulus.bits() as f64;
        self
    }

    /// The key-switching choices to try on each ring, in order (e.g. fewer
    /// digits first: smaller keys, a larger special modulus);
    /// [`KeySwitching::None`] for computations with no relinearization or
    /// rotation. An empty list tries nothing.
    pub fn key_switching(mut self, choices: &[KeySwitching]) -> Self {
        self.key_switching = choices.to_vec();
        self
    }

    /// How chain sizes are cut into primes.
    pub fn chain_layout(mut self, layout: ChainLayout) -> Self {
        self.layout = layout;
        self
    }

    /// Adds room for collective decryption by `parties` parties at
    /// statistical security `security_bits` ([`Smudging`]).
    pub fn smudging(mut self, parties: u32, security_bits: u32) -> Self {
        self.smudging = Some(Smudging::new(parties, security_bits));
        self
    }

    /// Tries only rings of degree at least `ring_degree` (what the
    /// computation's sizes need, e.g. N ≥ 2n for n values in one row).
    pub fn min_ring_degree(mut self, ring_degree: usize) -> Self {
        self.min_ring_degree = ring_degree;
        self
    }

    /// Tries only rings with 2N | t − 1, where t (a prime) gives N slots.
    pub fn slots(mut self) -> Self {
        self.slots = true;
        self
    }

    /// Engine worker threads of the parameters (0 = one per hardware thread).
    pub fn threads(mut self, threads: u32) -> Self {
        self.threads = threads;
        self
    }

    /// The plaintext modulus t.
    pub fn plaintext_modulus(&self) -> &BigUint {
        &self.plaintext_modulus
    }

    /// The size of t the noise model is given, in bits.
    pub fn log_t(&self) -> f64 {
        self.log_t
    }

    /// The demand on ring degree `ring_degree`, or why that ring cannot hold
    /// the computation.
    pub fn demand_at(&self, ring_degree: usize) -> std::result::Result<Demand, String> {
        match &self.demands {
            Demands::Every(demand) => Ok(demand.clone()),
            Demands::PerRing(demands) => supported_rings()
                .zip(demands)
                .find(|(n, _)| *n == ring_degree)
                .map_or_else(
                    || Err(format!("ring degree {ring_degree} is not supported")),
                    |(_, demand)| demand.clone(),
                ),
        }
    }

    /// The key-switching choices tried on each ring.
    pub fn key_switching_choices(&self) -> &[KeySwitching] {
        &self.key_switching
    }

    /// How chain sizes are cut into primes.
    pub fn layout(&self) -> ChainLayout {
        self.layout
    }

    /// The smudging room asked for, if any.
    pub fn smudging_room(&self) -> Option<Smudging> {
        self.smudging
    }

    /// The smallest ring degree tried.
    pub fn min_ring(&self) -> usize {
        self.min_ring_degree
    }

    /// Whether only rings with 2N | t − 1 are tried.
    pub fn needs_slots(&self) -> bool {
        self.slots
    }

    /// The engine threads of the parameters.
    pub fn engine_threads(&self) -> u32 {
        self.threads
    }

    /// Whether ring degree `ring_degree` gives slots for t: 2N | t − 1.
    fn has_slots(&self, ring_degree: usize) -> bool {
        let one = BigUint::from(1u32);
        if self.plaintext_modulus <= one {
            return false;
        }
        let t_minus_one = &self.plaintext_modulus - one;
        let twos = t_minus_one.trailing_zeros().unwrap_or(0);
        u64::from(ring_degree.trailing_zeros()) < twos
    }
}

/// The ring degrees the engine supports, smallest first.
fn supported_rings() -> impl Iterator<Item = usize> {
    let (low, high) = (
        MIN_RING_DEGREE.trailing_zeros(),
        MAX_RING_DEGREE.trailing_zeros(),
    );
    (low..=high).map(|log_n| 1usize << log_n)
}
