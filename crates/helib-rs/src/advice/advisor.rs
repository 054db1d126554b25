//! The advisor: the smallest ≥ 128-bit ring and chain holding a workload.

use super::search::{first_secure_ring, with_key_switching};
use super::{Demand, KeySwitching, Operations, Workload};
use crate::error::{Error, Result};
use crate::params::{Parameters, ParametersBuilder, MAX_RING_DEGREE, MIN_RING_DEGREE};
use crate::security::{max_log_qp, SecurityLevel};

/// Picks parameters for a [`Workload`]; see the [module docs](super).
#[derive(Debug, Clone, PartialEq)]
pub struct Advisor {
    workload: Workload,
}

/// The smallest ≥ 128-bit parameters for `workload`: [`Advisor::advise`].
///
/// # Errors
/// As for [`Advisor::advise`].
pub fn advise(workload: &Workload) -> Result<Advice> {
    Advisor::new(workload.clone()).advise()
}

impl Advisor {
    /// The advisor of `workload`.
    pub fn new(workload: Workload) -> Self {
        Self { workload }
    }

    /// The workload advised on.
    pub fn workload(&self) -> &Workload {
        &self.workload
    }

    /// The smallest ring degree N (a power of two from the workload's
    /// minimum up to 2^17, with 2N | t − 1 when it needs slots) on which the
    /// workload's demand, cut into primes by its layout with the smudging
    /// room below, builds into parameters of at least 128-bit security with
    /// the first of its key-switching choices that fits.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a smudging room the engine refuses
    /// (parties or λ out of range); [`Error::InvalidParameters`] listing,
    /// ring by ring (`N = …: reason`), why none fits.
    pub fn advise(&self) -> Result<Advice> {
        self.search(self.rings(self.workload.min_ring_degree))
    }

    /// The parameters of the workload at ring degree `ring_degree` alone.
    ///
    /// # Errors
    /// As for [`advise`](Self::advise) with that one ring.
    pub fn at_ring(&self, ring_degree: usize) -> Result<Advice> {
        if !ring_degree.is_power_of_two() {
            return Err(Error::InvalidParameters(format!(
                "N = {ring_degree}: not a power of two"
            )));
        }
        self.search(ring_degree.trailing_zeros()..=ring_degree.trailing_zeros())
    }

    /// The advised parameters and those of up to `count − 1` larger rings
    /// that also hold the workload, smallest first: the candidates to
    /// [`profile`](Self::profile) (a `count` of 0 is taken as 1).
    ///
    /// # Errors
    /// As for [`advise`](Self::advise).
    pub fn candidates(&self, count: usize) -> Result<Vec<Advice>> {
        let first = self.advise()?;
        let mut ring = first.ring_degree();
        let mut found = vec![first];
        while found.len() < count && ring < MAX_RING_DEGREE {
            ring *= 2;
            if let Ok(advice) = self.at_ring(ring) {
                found.push(advice);
            }
        }
        found.truncate(count.max(1));
        Ok(found)
    }

    /// A builder for the workload's parameters at ring degree `ring_degree`
    /// (any value; [`ParametersBuilder::build`] checks it), with its first
    /// key-switching choice, without a security search: the chain the noise
    /// model gives for that ring. When the workload has no demand for the
    /// ring or its smudging room is refused, `build` fails with the reason.
    pub fn builder_at(&self, ring_degree: usize) -> ParametersBuilder {
        let builder = Parameters::builder()
            .ring_degree(ring_degree)
            .plaintext_modulus(self.workload.plaintext_modulus.clone())
            .threads(self.workload.threads);
        let builder = match self.workload.key_switching.first() {
            Some(&choice) => with_key_switching(builder, choice),
            None => builder,
        };
        // The model needs a ring it can size noise for; `build` checks N itself.
        let model_ring = ring_degree.clamp(MIN_RING_DEGREE, MAX_RING_DEGREE);
        match self.workload.demand_at(model_ring).and_then(|demand| {
            self.chain_at(model_ring, &demand)
                .map(|(chain, _)| chain)
                .map_err(|e| e.to_string())
        }) {
            Ok(chain) => builder.chain_bits(&chain),
            Err(reason) => builder.refused_chain(reason),
        }
    }

    /// The rings from `min_ring_degree` up, as a range of log2 N.
    fn rings(&self, min_ring_degree: usize) -> std::ops::RangeInclusive<u32> {
        let low = min_ring_degree
            .checked_next_power_of_two()
            .map_or(u32::MAX, usize::trailing_zeros)
            .max(MIN_RING_DEGREE.trailing_zeros());
        low..=MAX_RING_DEGREE.trailing_zeros()
    }

    /// The first ring in `log_ring_degrees` that holds the workload.
    fn search(&self, log_ring_degrees: std::ops::RangeInclusive<u32>) -> Result<Advice> {
        let w = &self.workload;
        if let Some(smudging) = w.smudging {
            // The engine's range checks do not depend on N: refuse once, up front.
            smudging.room_bits(MIN_RING_DEGREE)?;
        }
        let (parameters, key_switching, (demand, needed_bits, smudging_bits)) = first_secure_ring(
            &w.plaintext_modulus,
            log_ring_degrees,
            &w.key_switching,
            w.threads,
            |n| {
                if n < w.min_ring_degree {
                    return Err(format!(
                        "below the workload's smallest ring {}",
                        w.min_ring_degree
                    ));
                }
                if w.slots && !w.has_slots(n) {
                    return Err("2N does not divide t − 1 (no slots)".to_owned());
                }
                let demand = w.demand_at(n)?;
                let (chain, (needed, room)) =
                    self.chain_at(n, &demand).map_err(|e| e.to_string())?;
                Ok((chain, (demand, needed, room)))
            },
        )?;
        Ok(Advice {
            parameters,
            key_switching,
            demand,
            needed_bits,
            smudging_bits,
        })
    }

    /// The chain (q_0 first) for `demand` at ring degree `n`, with the bits
    /// the demand needs and the smudging room's bits.
    fn chain_at(&self, n: usize, demand: &Demand) -> Result<(Vec<u32>, (f64, u32))> {
        let w = &self.workload;
        let needed = demand.total_bits(n, w.log_t);
        let chain = w.layout.primes(needed);
        match w.smudging {
            None => Ok((chain, (needed, 0))),
            Some(smudging) => {
                let room = smudging.room_bits(n)?;
                Ok((smudging.chain_with_room(n, &chain)?, (needed, room)))
            }
        }
    }
}

/// The advisor's answer: parameters, how they switch keys, and what they
/// were sized for.
#[derive(Debug, Clone, PartialEq)]
pub struct Advice {
    parameters: Parameters,
    key_switching: KeySwitching,
    demand: Demand,
    needed_bits: f64,
    smudging_bits: u32,
}

impl Advice {
    /// The parameters (make a [`Context`](crate::Context) from them).
    pub fn parameters(&self) -> &Parameters {
        &self.parameters
    }

    /// The parameters, by value.
    pub fn into_parameters(self) -> Parameters {
        self.parameters
    }

    /// The ring degree N.
    pub fn ring_degree(&self) -> usize {
        self.parameters.ring_degree()
    }

    /// The key-switching choice that fit.
    pub fn key_switching(&self) -> KeySwitching {
        self.key_switching
    }

    /// The demand at this ring the parameters were sized for.
    pub fn demand(&self) -> &Demand {
        &self.demand
    }

    /// The operations counted for profiling.
    pub fn operations(&self) -> Operations {
        self.demand.counted()
    }

    /// The same advice with `operations` counted instead (e.g. a plan's
    /// cost, known once it is built on a context from these parameters).
    pub fn with_operations(mut self, operations: Operations) -> Self {
        self.demand = self.demand.operations(operations);
        self
    }

    /// The chain the noise model asks for, in bits, before it is cut into
    /// primes and before the smudging room.
    pub fn needed_bits(&self) -> f64 {
        self.needed_bits
    }

    /// The smudging room below the chain, in bits (0 without smudging).
    pub fn smudging_bits(&self) -> u32 {
        self.smudging_bits
    }

    /// log2 Q: the chain's prime sizes summed.
    pub fn chain_bits(&self) -> u32 {
        self.parameters.chain_bits().iter().sum()
    }

    /// log2 P: the special primes' sizes summed.
    pub fn special_bits(&self) -> u32 {
        self.parameters.special_bits().iter().sum()
    }

    /// log2(Q·P), as the security table reads it.
    pub fn log_qp(&self) -> u32 {
        self.parameters.log_qp_bound()
    }

    /// The largest log2(Q·P) of 128-bit security at this ring (the engine's table).
    pub fn max_log_qp(&self) -> u32 {
        max_log_qp(self.ring_degree(), SecurityLevel::Bits128).unwrap_or(0)
    }

    /// The security level of the parameters.
    pub fn security(&self) -> SecurityLevel {
        self.parameters.security_level()
    }

    /// The chain's levels: its primes minus one.
    pub fn levels(&self) -> usize {
        self.parameters.max_level()
    }
}
