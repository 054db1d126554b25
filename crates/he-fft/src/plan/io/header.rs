//! A plan file's header: the plan's spec and preparation, encoded after
//! the context's fingerprint and F's modulus, decoded and checked against
//! the context and F, compared whole with the caller's, and hashed into the
//! plan's file name.

use super::*;
use helib_rs::io::WordReader;
use helib_rs::lintrans::KeyMode;
use std::io::Read;

/// Everything a plan depends on besides the context and F, as its file's
/// header records it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Header<F: PrimeField + FftField> {
    pub(super) spec: PlanSpec<F>,
    pub(super) prep: Preparation,
}

/// A usize as a word (`usize::MAX` as `u64::MAX`, as for "no cap").
fn word(x: usize) -> u64 {
    if x == usize::MAX {
        u64::MAX
    } else {
        x as u64
    }
}

/// The context's fingerprint as 4 words.
fn fingerprint_words(context: &Context) -> Result<Vec<u64>> {
    Ok(context
        .fingerprint()?
        .chunks(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect())
}

impl<F: PrimeField + FftField> Header<F> {
    /// The header's words, from the magic to the key policy and level.
    pub(super) fn encode(&self, context: &Context) -> Result<Vec<u64>> {
        let (spec, prep) = (&self.spec, &self.prep);
        let mut w = vec![MAGIC, PLAN_FORMAT_VERSION];
        w.extend(fingerprint_words(context)?);
        let modulus = F::MODULUS;
        w.push(modulus.as_ref().len() as u64);
        w.extend_from_slice(modulus.as_ref());
        w.push(word(spec.n));
        w.push(match spec.direction {
            Direction::Forward => 0,
            Direction::Inverse => 1,
        });
        match spec.coset {
            Some(g) => {
                let limbs = g.into_bigint();
                w.push(1);
                w.push(limbs.as_ref().len() as u64);
                w.extend_from_slice(limbs.as_ref());
            }
            None => w.push(0),
        }
        match spec.strategy {
            Strategy::Dense => w.extend([0, 0]),
            Strategy::Factored { levels: None } => w.extend([1, 0]),
            Strategy::Factored { levels: Some(k) } => w.extend([2, word(k)]),
        }
        w.push(match spec.input_order {
            Order::Natural => 0,
            Order::BitReversed => 1,
        });
        w.push(u64::from(spec.natural_output));
        w.push(u64::from(prep.per_execution));
        w.push(match prep.keys.mode {
            KeyMode::Fast => 0,
            KeyMode::MinimalKeys => 1,
        });
        w.push(word(prep.keys.max_baby_steps));
        w.push(prep.keys.executions);
        w.push(word(prep.level));
        Ok(w)
    }

    /// Reads a header (through its checkpoint) and checks it against
    /// `context` and F: bad magic, a version not read, a checksum mismatch,
    /// another context, another field, out-of-range fields, in that order.
    /// Returns it with the file's format version.
    pub(super) fn decode<R: Read>(
        context: &Context,
        input: &mut WordReader<R>,
    ) -> Result<(Self, u64)> {
        if input.word().map_err(from_he)? != MAGIC {
            return Err(format("not an FFT plan file (bad magic)"));
        }
        let version = input.word().map_err(from_he)?;
        if !(OLDEST_READ_VERSION..=PLAN_FORMAT_VERSION).contains(&version) {
            return Err(Error::PlanVersion {
                found: version,
                supported: PLAN_FORMAT_VERSION,
            });
        }
        let mut fingerprint = [0u64; 4];
        input.words(&mut fingerprint).map_err(from_he)?;
        let limbs = |input: &mut WordReader<R>, what: &str| -> Result<Vec<u64>> {
            let len = input.bounded(what, 64).map_err(from_he)? as usize;
            let mut out = vec![0u64; len];
            input.words(&mut out).map_err(from_he)?;
            Ok(out)
        };
        let modulus = limbs(input, "the field modulus's length")?;
        let mut fields = [0u64; 2];
        input.words(&mut fields).map_err(from_he)?;
        let [n, direction] = fields;
        let coset = match input.flag("the coset flag").map_err(from_he)? {
            true => Some(limbs(input, "the coset offset's length")?),
            false => None,
        };
        let mut rest = [0u64; 9];
        input.words(&mut rest).map_err(from_he)?;
        input.checkpoint().map_err(from_he)?;
        // The bytes are as written; now whether they fit this context and F.
        if fingerprint[..] != fingerprint_words(context)?[..] {
            return Err(Error::PlanContextMismatch);
        }
        if modulus[..] != F::MODULUS.as_ref()[..] {
            return Err(Error::PlanFieldMismatch);
        }
        let [strategy, levels, order, natural_output, per_execution, mode, max_baby, executions, level] =
            rest;
        let flag = |w: u64, what: &str| match w {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(format(format!("{what} is {w}, not 0 or 1"))),
        };
        let size = |w: u64, what: &str| {
            usize::try_from(w).map_err(|_| format(format!("{what} {w} does not fit a usize")))
        };
        let coset = match coset {
            None => None,
            Some(limbs) => {
                let mut big = F::BigInt::default();
                if limbs.len() != big.as_ref().len() {
                    return Err(format("the coset offset has the wrong length"));
                }
                big.as_mut().copy_from_slice(&limbs);
                Some(
                    F::from_bigint(big)
                        .ok_or_else(|| format("the coset offset is not below F's modulus"))?,
                )
            }
        };
        let spec = PlanSpec {
            n: size(n, "n")?,
            direction: match direction {
                0 => Direction::Forward,
                1 => Direction::Inverse,
                d => return Err(format(format!("direction {d} is neither 0 nor 1"))),
            },
            coset,
            strategy: match (strategy, levels) {
                (0, 0) => Strategy::Dense,
                (1, 0) => Strategy::Factored { levels: None },
                (2, k) => Strategy::Factored {
                    levels: Some(size(k, "the level count")?),
                },
                _ => return Err(format("unknown strategy")),
            },
            input_order: if flag(order, "the input order")? {
                Order::BitReversed
            } else {
                Order::Natural
            },
            natural_output: flag(natural_output, "the natural output flag")?,
        };
        let prep = Preparation {
            per_execution: flag(per_execution, "the per-execution flag")?,
            keys: KeyPolicy {
                mode: if flag(mode, "the key mode")? {
                    KeyMode::MinimalKeys
                } else {
                    KeyMode::Fast
                },
                max_baby_steps: if max_baby == u64::MAX {
                    usize::MAX
                } else {
                    size(max_baby, "the baby step cap")?
                },
                executions: match executions {
                    0 => return Err(format("the execution count is 0")),
                    e => e,
                },
            },
            level: size(level, "the input level")?,
        };
        Ok((Self { spec, prep }, version))
    }

    /// Every field the header records, named and rendered, in file order.
    fn fields(&self) -> [(&'static str, String); 11] {
        let (spec, keys) = (&self.spec, &self.prep.keys);
        let cap = if keys.max_baby_steps == usize::MAX {
            "no cap".to_string()
        } else {
            keys.max_baby_steps.to_string()
        };
        let runs = if keys.executions == KeyPolicy::UNBOUNDED {
            "unbounded".to_string()
        } else {
            keys.executions.to_string()
        };
        [
            ("n", spec.n.to_string()),
            ("direction", format!("{:?}", spec.direction)),
            (
                "coset",
                spec.coset
                    .map_or_else(|| "none".to_string(), |g| g.to_string()),
            ),
            ("strategy", format!("{:?}", spec.strategy)),
            ("input order", format!("{:?}", spec.input_order)),
            ("natural output", spec.natural_output.to_string()),
            ("encode per execution", self.prep.per_execution.to_string()),
            ("key mode", format!("{:?}", keys.mode)),
            ("max baby steps", cap),
            ("executions", runs),
            ("input level", self.prep.level.to_string()),
        ]
    }

    /// `Ok` when `found` (a file's header) is this header; otherwise
    /// [`Error::PlanMismatch`] naming the first field that differs.
    pub(super) fn expect(&self, found: &Self) -> Result<()> {
        if self == found {
            return Ok(());
        }
        let differing = self
            .fields()
            .into_iter()
            .zip(found.fields())
            .find(|((_, a), (_, b))| a != b);
        match differing {
            Some(((field, expected), (_, found))) => Err(Error::PlanMismatch {
                field,
                expected,
                found,
            }),
            // Equal renderings of unequal values would be a bug.
            None => Err(Error::Internal("plan headers differ unnamed")),
        }
    }
}

impl<F: PrimeField + FftField> FftPlanBuilder<F> {
    /// A file name for the plan this builder makes, derived from everything
    /// the plan depends on (the context's fingerprint, F, n and every
    /// setting): plans of other parameters get other names. For a cache
    /// directory of saved plans ([`FftPlan::write_to`],
    /// [`load_from`](Self::load_from)). The name is a convenience, not a
    /// check: [`load_from`](Self::load_from) compares the file's header with
    /// this builder whatever the file is called.
    ///
    /// # Errors
    /// [`Error::InputLevelOutOfRange`] for an input level above the top; the
    /// engine's errors computing the fingerprint.
    pub fn plan_file_name(&self) -> Result<String> {
        // FNV-1a over the header's words: a name, not a check.
        let hash = self
            .header()?
            .encode(&self.context)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
        Ok(format!("fft-plan-n{}-{hash:016x}.plan", self.spec.n))
    }

    /// The header of the plan this builder describes (its input level resolved).
    pub(super) fn header(&self) -> Result<Header<F>> {
        Ok(Header {
            spec: self.spec,
            prep: self.options.preparation(&self.context)?,
        })
    }
}

impl<F: PrimeField + FftField> FftPlan<F> {
    /// The header of this plan's file.
    pub(super) fn header(&self) -> Header<F> {
        Header {
            spec: self.spec,
            prep: self.prep,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_bn254::Fr;
    use ark_ff::UniformRand;
    use helib_rs::io::WordWriter;
    use helib_rs::Parameters;
    use proptest::prelude::{
        any, prop_assert, prop_assert_eq, prop_assert_ne, prop_oneof, proptest, Just,
        ProptestConfig,
    };
    use proptest::strategy::Strategy as _;
    use rand::SeedableRng;
    use std::sync::OnceLock;

    fn context() -> &'static Context {
        static CONTEXT: OnceLock<Context> = OnceLock::new();
        CONTEXT.get_or_init(|| {
            let params = Parameters::builder()
                .ring_degree(1 << 10)
                .plaintext_modulus_from_field::<Fr>()
                .chain_bits(&[60; 8])
                .allow_insecure()
                .build()
                .expect("parameters");
            Context::new(&params).expect("context")
        })
    }

    /// The header's bytes as a file starts: its words, then a checkpoint.
    fn bytes(header: &Header<Fr>) -> Vec<u8> {
        let mut out = Vec::new();
        let mut w = WordWriter::new(&mut out);
        w.words(&header.encode(context()).expect("encode"))
            .expect("words");
        w.checkpoint().expect("checkpoint");
        w.flush().expect("flush");
        drop(w);
        out
    }

    fn decode(bytes: &[u8]) -> Result<Header<Fr>> {
        let mut reader = WordReader::new(bytes);
        let (header, version) = Header::<Fr>::decode(context(), &mut reader)?;
        assert_eq!(version, PLAN_FORMAT_VERSION);
        Ok(header)
    }

    /// Any header: every field over its whole range (the executions at
    /// least 1, as a file holds them), the coset offset any field element.
    fn headers() -> impl proptest::strategy::Strategy<Value = Header<Fr>> {
        let strategy = prop_oneof![
            Just(Strategy::Dense),
            Just(Strategy::Factored { levels: None }),
            any::<usize>().prop_map(|k| Strategy::Factored { levels: Some(k) }),
        ];
        let coset = proptest::option::of(
            any::<u64>().prop_map(|seed| Fr::rand(&mut rand::rngs::StdRng::seed_from_u64(seed))),
        );
        (
            (any::<usize>(), any::<bool>(), coset, strategy),
            (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()),
            (any::<usize>(), 1..=u64::MAX, any::<usize>()),
        )
            .prop_map(
                |(
                    (n, inverse, coset, strategy),
                    (bit_reversed, natural_output, per_execution, minimal),
                    (max_baby_steps, executions, level),
                )| Header {
                    spec: PlanSpec {
                        n,
                        direction: if inverse {
                            Direction::Inverse
                        } else {
                            Direction::Forward
                        },
                        coset,
                        strategy,
                        input_order: if bit_reversed {
                            Order::BitReversed
                        } else {
                            Order::Natural
                        },
                        natural_output,
                    },
                    prep: Preparation {
                        keys: KeyPolicy {
                            mode: if minimal {
                                KeyMode::MinimalKeys
                            } else {
                                KeyMode::Fast
                            },
                            max_baby_steps,
                            executions,
                        },
                        per_execution,
                        level,
                    },
                },
            )
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// Every header decodes to itself, and the builder's comparison
        /// accepts it.
        #[test]
        fn every_header_round_trips(header in headers()) {
            let decoded = decode(&bytes(&header)).expect("decode");
            prop_assert_eq!(decoded, header);
            prop_assert!(header.expect(&decoded).is_ok());
        }

        /// Two different headers never compare equal, and the mismatch
        /// names the first field whose bytes differ.
        #[test]
        fn different_headers_are_named(a in headers(), b in headers()) {
            match a.expect(&b) {
                Ok(()) => prop_assert_eq!(a, b),
                Err(Error::PlanMismatch { field, expected, found }) => {
                    prop_assert_ne!(a, b);
                    prop_assert_ne!(expected, found);
                    let first = a
                        .fields()
                        .into_iter()
                        .zip(b.fields())
                        .find(|(x, y)| x != y)
                        .map(|((name, _), _)| name);
                    prop_assert_eq!(Some(field), first);
                }
                Err(e) => prop_assert!(false, "{e}"),
            }
        }
    }

    /// The layout is the documented one: the spec's fields, then the
    /// preparation's, one word each (the coset as flag, length, limbs).
    #[test]
    fn the_words_follow_the_documented_layout() {
        let header = Header::<Fr> {
            spec: PlanSpec {
                coset: Some(Fr::from(5u64)),
                strategy: Strategy::Factored { levels: Some(3) },
                input_order: Order::BitReversed,
                ..PlanSpec::new(64)
            },
            prep: Preparation {
                keys: KeyPolicy {
                    mode: KeyMode::MinimalKeys,
                    max_baby_steps: usize::MAX,
                    executions: 7,
                },
                per_execution: true,
                level: 2,
            },
        };
        let words = header.encode(context()).expect("encode");
        let limbs = Fr::MODULUS.as_ref().len();
        // Magic, version, fingerprint, modulus (length and limbs).
        let spec_start = 2 + 4 + 1 + limbs;
        assert_eq!(words[..2], [MAGIC, PLAN_FORMAT_VERSION]);
        let coset_limbs = Fr::from(5u64).into_bigint();
        let mut expected = vec![64, 0, 1, limbs as u64];
        expected.extend_from_slice(coset_limbs.as_ref());
        expected.extend([2, 3, 1, 0, 1, 1, u64::MAX, 7, 2]);
        assert_eq!(words[spec_start..], expected[..]);
    }
}
