//! What the FFT and conversion plan builders share: the key policy, the
//! input level, the per-execution encoding and the memory limit, their
//! setters and their checks.

use crate::error::{Error, Result};
use crate::memory::available_memory_bytes;
use helib_rs::lintrans::KeyPolicy;
use helib_rs::Context;

/// The settings both plan builders take besides the transform itself, as
/// the caller set them.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) struct BuildOptions {
    /// Key mode, baby-step cap and expected executions per set of keys.
    pub(crate) keys: KeyPolicy,
    /// The input level; `None` for the context's top level.
    pub(crate) level: Option<usize>,
    /// Whether diagonals are kept as plaintexts and encoded at each execution.
    pub(crate) per_execution: bool,
    /// The memory limit; `None` for what the system reports available.
    pub(crate) memory_limit: Option<usize>,
}

/// How a built plan prepares and runs its diagonals: the [`BuildOptions`]
/// it was built under with the input level resolved and the memory limit,
/// which only gates the build, left out. An FFT plan file records it after
/// the plan's spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Preparation {
    pub(crate) keys: KeyPolicy,
    pub(crate) per_execution: bool,
    pub(crate) level: usize,
}

impl BuildOptions {
    /// Refuses a key policy no schedule can follow.
    ///
    /// # Errors
    /// [`Error::InvalidMaxBabySteps`] for a cap of 0, then
    /// [`Error::InvalidExecutions`] for 0 executions.
    pub(crate) fn check_keys(&self) -> Result<()> {
        if self.keys.max_baby_steps == 0 {
            return Err(Error::InvalidMaxBabySteps(0));
        }
        if self.keys.executions == 0 {
            return Err(Error::InvalidExecutions(0));
        }
        Ok(())
    }

    /// The input level in `context`: the one set, or the top.
    ///
    /// # Errors
    /// [`Error::InputLevelOutOfRange`] for a level above the top.
    pub(crate) fn input_level(&self, context: &Context) -> Result<usize> {
        let max = context.max_level();
        let level = self.level.unwrap_or(max);
        if level > max {
            return Err(Error::InputLevelOutOfRange { level, max });
        }
        Ok(level)
    }

    /// The preparation a plan built with these options in `context` has
    /// (the key policy is not checked here: see [`check_keys`](Self::check_keys)).
    ///
    /// # Errors
    /// As for [`input_level`](Self::input_level).
    pub(crate) fn preparation(&self, context: &Context) -> Result<Preparation> {
        Ok(Preparation {
            keys: self.keys,
            per_execution: self.per_execution,
            level: self.input_level(context)?,
        })
    }

    /// The memory limit: the one set, or the memory the system reports
    /// available (none where it does not say).
    pub(crate) fn memory_limit(&self) -> Option<usize> {
        self.memory_limit.or_else(available_memory_bytes)
    }

    /// Refuses `estimated` bytes over the [`memory_limit`](Self::memory_limit).
    ///
    /// # Errors
    /// [`Error::InsufficientMemory`].
    pub(crate) fn check_memory(&self, estimated: usize) -> Result<()> {
        match self.memory_limit() {
            Some(limit) if estimated > limit => Err(Error::InsufficientMemory { estimated, limit }),
            _ => Ok(()),
        }
    }
}

/// The setters of [`BuildOptions`] for a builder with a field `options`
/// and the methods `build` and `memory_estimate`, documented once for both
/// builders; the caller gives the docs of `encode_per_execution`, whose
/// effect differs between them.
macro_rules! build_option_setters {
    ($(#[$per_execution:meta])*) => {
        /// Galois-key memory mode.
        pub fn key_mode(mut self, mode: KeyMode) -> Self {
            self.options.keys.mode = mode;
            self
        }

        /// At most `max` baby steps per level (at least 1; `build` refuses 0):
        /// fewer Galois keys and more giant steps. The default leaves the choice
        /// to the cost model, which in [`KeyMode::Fast`](crate::KeyMode::Fast) favours many (cheap,
        /// double-hoisted) baby steps and so many keys.
        pub fn max_baby_steps(mut self, max: usize) -> Self {
            self.options.keys.max_baby_steps = max;
            self
        }

        /// How many times the plan is expected to run with one set of Galois
        /// keys (at least 1; `build` refuses 0): each level's baby count then
        /// minimizes its rotation cost per run plus the generation of its keys
        /// divided by this count ([`KeyPolicy::executions`](crate::KeyPolicy::executions)). One run favours
        /// fewer baby steps (fewer keys, more key switches); a server running
        /// the plan many times with keys made once should pass a large count.
        /// The default, [`KeyPolicy::UNBOUNDED`](crate::KeyPolicy::UNBOUNDED), leaves key generation out
        /// (the rotation cost alone). A [`max_baby_steps`](Self::max_baby_steps)
        /// cap still applies; [`KeyMode::MinimalKeys`](crate::KeyMode::MinimalKeys) plans ignore the count.
        pub fn executions(mut self, executions: u64) -> Self {
            self.options.keys.executions = executions;
            self
        }

        /// The level of input ciphertexts (default: the top level).
        pub fn input_level(mut self, level: usize) -> Self {
            self.options.level = Some(level);
            self
        }

        /// Refuse at [`build`](Self::build) a plan whose estimated peak memory
        /// ([`memory_estimate`](Self::memory_estimate)) exceeds `bytes`. The
        /// default limit is the memory the system reports available
        /// ([`available_memory_bytes`](crate::available_memory_bytes)), and no
        /// limit where it does not say; `usize::MAX` disables the check.
        pub fn memory_limit(mut self, bytes: usize) -> Self {
            self.options.memory_limit = Some(bytes);
            self
        }

        $(#[$per_execution])*
        pub fn encode_per_execution(mut self) -> Self {
            self.options.per_execution = true;
            self
        }
    };
}
pub(crate) use build_option_setters;

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use helib_rs::Parameters;

    /// The key checks refuse a zero cap before zero executions.
    #[test]
    fn key_policies_are_checked_cap_first() {
        let mut options = BuildOptions::default();
        assert!(options.check_keys().is_ok());
        options.keys.executions = 0;
        assert!(matches!(
            options.check_keys(),
            Err(Error::InvalidExecutions(0))
        ));
        options.keys.max_baby_steps = 0;
        assert!(matches!(
            options.check_keys(),
            Err(Error::InvalidMaxBabySteps(0))
        ));
    }

    /// The input level defaults to the top and may not exceed it; the
    /// preparation carries it with the key policy and the encoding choice.
    #[test]
    fn the_input_level_is_resolved_against_the_context() {
        let params = Parameters::builder()
            .ring_degree(1 << 10)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&[60; 8])
            .allow_insecure()
            .build()
            .expect("parameters");
        let context = Context::new(&params).expect("context");
        let max = context.max_level();
        let mut options = BuildOptions {
            per_execution: true,
            ..BuildOptions::default()
        };
        let prep = options.preparation(&context).expect("top level");
        assert_eq!(
            prep,
            Preparation {
                keys: KeyPolicy::default(),
                per_execution: true,
                level: max,
            }
        );
        options.level = Some(2);
        assert_eq!(options.input_level(&context).expect("level 2"), 2);
        for level in [max + 1, usize::MAX] {
            options.level = Some(level);
            assert!(matches!(
                options.preparation(&context),
                Err(Error::InputLevelOutOfRange { level: l, max: m }) if l == level && m == max
            ));
        }
    }

    /// A set limit refuses only what exceeds it.
    #[test]
    fn the_memory_limit_refuses_only_what_exceeds_it() {
        let options = BuildOptions {
            memory_limit: Some(100),
            ..BuildOptions::default()
        };
        assert_eq!(options.memory_limit(), Some(100));
        assert!(options.check_memory(100).is_ok());
        assert!(matches!(
            options.check_memory(101),
            Err(Error::InsufficientMemory {
                estimated: 101,
                limit: 100
            })
        ));
        let unlimited = BuildOptions {
            memory_limit: Some(usize::MAX),
            ..BuildOptions::default()
        };
        assert!(unlimited.check_memory(usize::MAX).is_ok());
    }
}
