//! A record of the parameters a picker chose, to check that it keeps
//! choosing them.

use std::fmt;

use num_bigint::BigUint;

use crate::params::Parameters;

/// A spread of plaintext moduli to record a picker's choices over, each
/// with the short name its [`ChoiceLog`] lines use: BN254's scalar field
/// (`bn254`, the presets' t), `65537` (slots up to N = 2^15), `2^61-1` (a
/// Mersenne prime: no slots), `3` (the smallest) and `2^300+` (2^300 + 1,
/// larger than BN254's field).
///
/// The list and its order are fixed: the fingerprints that pickers keep of
/// their choices over it (he-cache's cached encryption, he-poly's
/// `suggest`) change whenever it does.
///
/// ```
/// use helib_rs::advice::reference_moduli;
///
/// let names: Vec<_> = reference_moduli().into_iter().map(|(name, _)| name).collect();
/// assert_eq!(names, ["bn254", "65537", "2^61-1", "3", "2^300+"]);
/// assert_eq!(reference_moduli()[0].1.bits(), 254);
/// ```
pub fn reference_moduli() -> Vec<(&'static str, BigUint)> {
    vec![
        (
            "bn254",
            <ark_bn254::Fr as ark_ff::PrimeField>::MODULUS.into(),
        ),
        ("65537", BigUint::from(65537u32)),
        ("2^61-1", (BigUint::from(1u32) << 61u32) - 1u32),
        ("3", BigUint::from(3u32)),
        ("2^300+", (BigUint::from(1u32) << 300u32) + 1u32),
    ]
}

/// The choices a parameter picker made over a spread of inputs, one line
/// each (the input, then what was chosen), and a fingerprint of them.
///
/// A picker that changes how it chooses (moves its own search onto the
/// [`Advisor`](super::Advisor), or meets a new version of this crate) shows
/// that it still chooses the same parameters by recording its choices over
/// a spread of inputs once, keeping their [`fingerprint`](Self::fingerprint)
/// and a few lines written out, and comparing both in a test. A choice is
/// described by [`Parameters::summary`] (or whatever the caller writes for
/// a richer result), a refusal by `ERR` and the error's variant.
///
/// ```
/// use helib_rs::advice::ChoiceLog;
/// use helib_rs::Parameters;
/// use num_bigint::BigUint;
///
/// // A picker: two plaintext products with t = 65537 on ring degree `n`.
/// let pick = |n: usize| {
///     Parameters::builder()
///         .ring_degree(n)
///         .plaintext_modulus(BigUint::from(65537u32))
///         .multiplicative_depth(2)
///         .threads(1)
///         .build()
/// };
/// let mut choices = ChoiceLog::new();
/// for n in [1 << 13, 1 << 14, 3000] {
///     choices.record_parameters(format_args!("depth 2 at {n}:"), &pick(n));
/// }
/// assert!(choices.contains("depth 2 at 8192: N=13 Q=49x1,48x1 P=53x1 th=1"));
/// assert!(choices.contains("depth 2 at 3000: ERR InvalidParameters"));
/// // The value a test keeps: it changes when any choice does.
/// assert_eq!(choices.fingerprint(), 0x0f37_0aee_5f41_91c2);
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ChoiceLog {
    lines: Vec<String>,
}

impl ChoiceLog {
    /// An empty log.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records what the picker made of `input`: a line of `input`, a space,
    /// then `describe` of the value chosen, or `ERR ` and the error's
    /// `Debug` text up to its first `(` (the variant's name for a tuple
    /// variant such as `InvalidParameters(..)`, all of it otherwise).
    pub fn record<T, E: fmt::Debug>(
        &mut self,
        input: impl fmt::Display,
        outcome: &Result<T, E>,
        describe: impl FnOnce(&T) -> String,
    ) {
        let choice = match outcome {
            Ok(value) => describe(value),
            Err(e) => {
                let debug = format!("{e:?}");
                let name = debug.split('(').next().unwrap_or_default();
                format!("ERR {name}")
            }
        };
        self.lines.push(format!("{input} {choice}"));
    }

    /// Records a choice of parameters: [`record`](Self::record) with
    /// [`Parameters::summary`].
    pub fn record_parameters<E: fmt::Debug>(
        &mut self,
        input: impl fmt::Display,
        outcome: &Result<Parameters, E>,
    ) {
        self.record(input, outcome, Parameters::summary);
    }

    /// The lines, in the order they were recorded.
    pub fn lines(&self) -> &[String] {
        &self.lines
    }

    /// How many choices were recorded.
    pub fn len(&self) -> usize {
        self.lines.len()
    }

    /// Whether nothing was recorded.
    pub fn is_empty(&self) -> bool {
        self.lines.is_empty()
    }

    /// Whether `line` was recorded, exactly.
    pub fn contains(&self, line: &str) -> bool {
        self.lines.iter().any(|recorded| recorded == line)
    }

    /// A 64-bit fingerprint of the lines: FNV-1a over their bytes, each line
    /// ended by a newline. It depends on the lines alone (not on the
    /// platform or on this crate's version), so a value kept in a test
    /// stays comparable.
    pub fn fingerprint(&self) -> u64 {
        const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
        const PRIME: u64 = 0x0000_0100_0000_01b3;
        let mut hash = OFFSET_BASIS;
        for line in &self.lines {
            for &byte in line.as_bytes().iter().chain(b"\n") {
                hash = (hash ^ u64::from(byte)).wrapping_mul(PRIME);
            }
        }
        hash
    }
}

/// The lines, one per line of text.
impl fmt::Display for ChoiceLog {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for line in &self.lines {
            writeln!(f, "{line}")?;
        }
        Ok(())
    }
}
