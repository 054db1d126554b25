//! A plan file's header: everything the plan depends on, read and checked
//! against the context and F, compared with the caller's spec, and hashed
//! into the plan's file name.

use super::*;
use helib_rs::io::WordReader;
use std::io::Read;

/// Everything a plan depends on besides the context and F.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct Header<F> {
    n: usize,
    direction: Direction,
    coset: Option<F>,
    strategy: Strategy,
    order: Order,
    natural_output: bool,
    per_execution: bool,
    keys: KeyPolicy,
    level: usize,
}

/// A usize as a word (`usize::MAX` as `u64::MAX`, as for "no cap").
fn word(x: usize) -> u64 {
    if x == usize::MAX {
        u64::MAX
    } else {
        x as u64
    }
}
impl<F: PrimeField + FftField> Header<F> {
    /// The header's words, from the magic to the key policy and level.
    pub(super) fn words(&self, context: &Context) -> Result<Vec<u64>> {
        let mut w = vec![MAGIC, PLAN_FORMAT_VERSION];
        let fingerprint = context.fingerprint()?;
        w.extend(
            fingerprint
                .chunks(8)
                .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default())),
        );
        let modulus = F::MODULUS;
        w.push(modulus.as_ref().len() as u64);
        w.extend_from_slice(modulus.as_ref());
        w.push(word(self.n));
        w.push(match self.direction {
            Direction::Forward => 0,
            Direction::Inverse => 1,
        });
        match self.coset {
            Some(g) => {
                let limbs = g.into_bigint();
                w.push(1);
                w.push(limbs.as_ref().len() as u64);
                w.extend_from_slice(limbs.as_ref());
            }
            None => w.push(0),
        }
        match self.strategy {
            Strategy::Dense => w.extend([0, 0]),
            Strategy::Factored { levels: None } => w.extend([1, 0]),
            Strategy::Factored { levels: Some(k) } => w.extend([2, word(k)]),
        }
        w.push(match self.order {
            Order::Natural => 0,
            Order::BitReversed => 1,
        });
        w.push(u64::from(self.natural_output));
        w.push(u64::from(self.per_execution));
        w.push(match self.keys.mode {
            KeyMode::Fast => 0,
            KeyMode::MinimalKeys => 1,
        });
        w.push(word(self.keys.max_baby_steps));
        w.push(self.keys.executions);
        w.push(word(self.level));
        Ok(w)
    }

    /// Reads a header (through its checkpoint) and checks it against
    /// `context` and F: bad magic, a version not read, a checksum mismatch,
    /// another context, another field, out-of-range fields, in that order.
    /// Returns it with the file's format version.
    pub(super) fn read<R: Read>(
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
        let ours: Vec<u64> = context
            .fingerprint()?
            .chunks(8)
            .map(|c| u64::from_le_bytes(c.try_into().unwrap_or_default()))
            .collect();
        if fingerprint[..] != ours[..] {
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
        let header = Header {
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
            order: if flag(order, "the input order")? {
                Order::BitReversed
            } else {
                Order::Natural
            },
            natural_output: flag(natural_output, "the natural output flag")?,
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
        Ok((header, version))
    }

    /// `Ok` when `found` (a file's header) is this header; otherwise
    /// [`Error::PlanMismatch`] naming the first field that differs.
    pub(super) fn compare(&self, found: &Self) -> Result<()> {
        let cap = |x: usize| {
            if x == usize::MAX {
                "no cap".to_string()
            } else {
                x.to_string()
            }
        };
        let runs = |x: u64| {
            if x == KeyPolicy::UNBOUNDED {
                "unbounded".to_string()
            } else {
                x.to_string()
            }
        };
        let coset = |g: Option<F>| g.map_or_else(|| "none".to_string(), |g| g.to_string());
        let fields: [(&'static str, String, String); 11] = [
            ("n", self.n.to_string(), found.n.to_string()),
            (
                "direction",
                format!("{:?}", self.direction),
                format!("{:?}", found.direction),
            ),
            ("coset", coset(self.coset), coset(found.coset)),
            (
                "strategy",
                format!("{:?}", self.strategy),
                format!("{:?}", found.strategy),
            ),
            (
                "input order",
                format!("{:?}", self.order),
                format!("{:?}", found.order),
            ),
            (
                "natural output",
                self.natural_output.to_string(),
                found.natural_output.to_string(),
            ),
            (
                "encode per execution",
                self.per_execution.to_string(),
                found.per_execution.to_string(),
            ),
            (
                "key mode",
                format!("{:?}", self.keys.mode),
                format!("{:?}", found.keys.mode),
            ),
            (
                "max baby steps",
                cap(self.keys.max_baby_steps),
                cap(found.keys.max_baby_steps),
            ),
            (
                "executions",
                runs(self.keys.executions),
                runs(found.keys.executions),
            ),
            (
                "input level",
                self.level.to_string(),
                found.level.to_string(),
            ),
        ];
        match fields.into_iter().find(|(_, a, b)| a != b) {
            Some((field, expected, found)) => Err(Error::PlanMismatch {
                field,
                expected,
                found,
            }),
            // Equal renderings of unequal values would be a bug.
            None if self != found => Err(Error::Internal("plan headers differ unnamed")),
            None => Ok(()),
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
        let header = self.header()?;
        // FNV-1a over the header's words: a name, not a check.
        let hash = header
            .words(&self.context)?
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
                (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
            });
        Ok(format!("fft-plan-n{}-{hash:016x}.plan", self.n))
    }

    /// The header of the plan this builder describes (its input level resolved).
    pub(super) fn header(&self) -> Result<Header<F>> {
        let max = self.context.max_level();
        let level = self.level.unwrap_or(max);
        if level > max {
            return Err(Error::InputLevelOutOfRange { level, max });
        }
        Ok(Header {
            n: self.n,
            direction: self.direction,
            coset: self.coset,
            strategy: self.strategy,
            order: self.order,
            natural_output: self.natural_output,
            per_execution: self.per_execution,
            keys: self.keys,
            level,
        })
    }
}

impl<F: PrimeField + FftField> FftPlan<F> {
    pub(super) fn header(&self) -> Header<F> {
        Header {
            n: self.n,
            direction: self.direction,
            coset: self.coset,
            strategy: self.strategy,
            order: self.order,
            natural_output: self.natural_output,
            per_execution: self.per_execution,
            keys: self.keys,
            level: self.level,
        }
    }
}
