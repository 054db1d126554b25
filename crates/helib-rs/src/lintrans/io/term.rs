//! The payload of one term of a saved transform: an encoding's residues
//! and metadata, or a plaintext's bytes.

use crate::encoded::ResidueImport;
use crate::error::{Error, Result};
use crate::io::{WordReader, WordWriter, PIECE_WORDS};
use crate::lintrans::KeyMode;
use crate::{Context, EncodedPlaintext, Plaintext};
use num_bigint::BigUint;
use std::io::{Read, Write};

#[cfg(doc)]
use crate::lintrans::PreparedTransform;

/// Tag of a transform of encoded plaintexts.
const KIND_ENCODED: u64 = 1;
/// Tag of a transform of plaintexts.
const KIND_PLAIN: u64 = 2;
/// Largest word count a plaintext payload may announce (4 MiB of limbs
/// per coefficient at N = 2^17 is far above any real one).
const MAX_PLAIN_WORDS: u64 = 1 << 24;

/// A kind of term a [`PreparedTransform`] can save and load.
pub trait StoredTerm: sealed::Sealed + Sized {}
impl StoredTerm for EncodedPlaintext {}
impl StoredTerm for Plaintext {}

pub(super) mod sealed {
    use super::*;

    /// The payload of one term.
    pub trait Sealed: Sized {
        const KIND: u64;
        /// What a term's payload is read into, made before its words are
        /// read (possibly ahead, on another thread).
        type Target: Send + 'static;
        /// What sizes the term's target, written before the terms so that
        /// targets can be made ahead: an encoding's stride; 1 for a plaintext.
        fn stride(&self) -> Result<usize>;
        fn write<W: Write>(&self, out: &mut WordWriter<W>) -> Result<()>;
        /// The target of one term of stride `stride` of a transform at
        /// `level` in `mode`.
        fn target(
            context: &Context,
            level: usize,
            mode: KeyMode,
            stride: usize,
        ) -> Result<Self::Target>;
        fn read<R: Read>(
            context: &Context,
            level: usize,
            mode: KeyMode,
            target: Self::Target,
            input: &mut WordReader<R>,
        ) -> Result<Self>;
    }

    impl Sealed for EncodedPlaintext {
        const KIND: u64 = KIND_ENCODED;
        type Target = ResidueImport;

        fn stride(&self) -> Result<usize> {
            EncodedPlaintext::stride(self)
        }

        fn write<W: Write>(&self, out: &mut WordWriter<W>) -> Result<()> {
            let (residues, (linf, l1)) = self.residues()?;
            let factor = self.correction_factor().to_u64_digits();
            out.word(self.level() as u64)?;
            out.word(u64::from(self.is_extended()))?;
            out.word(factor.len() as u64)?;
            out.words(&factor)?;
            out.words(&[linf.to_bits(), l1.to_bits(), residues.len() as u64])?;
            out.words(residues)
        }

        fn target(
            context: &Context,
            level: usize,
            mode: KeyMode,
            stride: usize,
        ) -> Result<ResidueImport> {
            ResidueImport::begin(context, level, mode == KeyMode::Fast, stride)
        }

        fn read<R: Read>(
            context: &Context,
            level: usize,
            mode: KeyMode,
            mut target: ResidueImport,
            input: &mut WordReader<R>,
        ) -> Result<Self> {
            let own = input.bounded("an encoding's level", context.max_level() as u64)? as usize;
            if own != level {
                return Err(Error::Malformed(format!(
                    "an encoding at level {own} in a transform at level {level}"
                )));
            }
            let extended = input.flag("an encoding's extended flag")?;
            if extended != (mode == KeyMode::Fast) {
                return Err(Error::Malformed(
                    "an encoding's form does not match the transform's key mode".into(),
                ));
            }
            let factor_len = input.bounded("a correction factor's length", 64)? as usize;
            let mut factor = vec![0u64; factor_len];
            input.words(&mut factor)?;
            let factor = BigUint::from_slice(
                &factor
                    .iter()
                    .flat_map(|w| [*w as u32, (*w >> 32) as u32])
                    .collect::<Vec<_>>(),
            );
            let linf = f64::from_bits(input.word()?);
            let l1 = f64::from_bits(input.word()?);
            let words = target.buffer().len() as u64;
            let announced = input.word()?;
            if announced != words {
                return Err(Error::Malformed(format!(
                    "an encoding announces {announced} residues, its level, form and stride imply {words}"
                )));
            }
            // Straight into the engine's buffer, piece by piece: each piece
            // is summed and range-checked right after it is read.
            let mut done = 0;
            while done < target.buffer().len() {
                let end = (done + PIECE_WORDS).min(target.buffer().len());
                input.words(&mut target.buffer()[done..end])?;
                target.check(end)?;
                done = end;
            }
            target.finish(&factor, (linf, l1))
        }
    }

    impl Sealed for Plaintext {
        const KIND: u64 = KIND_PLAIN;
        type Target = ();

        fn stride(&self) -> Result<usize> {
            Ok(1)
        }

        fn write<W: Write>(&self, out: &mut WordWriter<W>) -> Result<()> {
            let bytes = self.to_bytes()?;
            let words: Vec<u64> = bytes
                .chunks(8)
                .map(|c| {
                    let mut w = [0u8; 8];
                    w[..c.len()].copy_from_slice(c);
                    u64::from_le_bytes(w)
                })
                .collect();
            out.word(bytes.len() as u64)?;
            out.words(&words)
        }

        fn target(_context: &Context, _level: usize, _mode: KeyMode, stride: usize) -> Result<()> {
            if stride != 1 {
                return Err(Error::Malformed(format!(
                    "a plaintext term announces stride {stride}; plaintexts have stride 1"
                )));
            }
            Ok(())
        }

        fn read<R: Read>(
            context: &Context,
            _level: usize,
            _mode: KeyMode,
            _target: (),
            input: &mut WordReader<R>,
        ) -> Result<Self> {
            let len = input.bounded("a plaintext's byte count", 8 * MAX_PLAIN_WORDS)? as usize;
            let mut words = vec![0u64; len.div_ceil(8)];
            input.words(&mut words)?;
            let bytes: Vec<u8> = words
                .iter()
                .flat_map(|w| w.to_le_bytes())
                .take(len)
                .collect();
            Plaintext::from_bytes(context, &bytes)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Parameters;

    /// One encoding's payload as `Sealed::write` lays it out, with the
    /// residues given (possibly out of range), and a checkpoint.
    fn payload(pt: &EncodedPlaintext, residues: &[u64], norms: (f64, f64)) -> Vec<u8> {
        let mut bytes = Vec::new();
        let mut w = WordWriter::new(&mut bytes);
        let factor = pt.correction_factor().to_u64_digits();
        w.words(&[pt.level() as u64, u64::from(pt.is_extended())])
            .unwrap();
        w.word(factor.len() as u64).unwrap();
        w.words(&factor).unwrap();
        w.words(&[norms.0.to_bits(), norms.1.to_bits(), residues.len() as u64])
            .unwrap();
        w.words(residues).unwrap();
        w.checkpoint().unwrap();
        w.flush().unwrap();
        drop(w);
        bytes
    }

    /// Reads one payload written by `payload` (and its checkpoint).
    fn read_payload(
        context: &Context,
        level: usize,
        mode: KeyMode,
        bytes: &[u8],
    ) -> Result<EncodedPlaintext> {
        let mut r = WordReader::new(bytes);
        let target = <EncodedPlaintext as sealed::Sealed>::target(context, level, mode, 1)?;
        let pt = <EncodedPlaintext as sealed::Sealed>::read(context, level, mode, target, &mut r)?;
        r.checkpoint()?;
        r.expect_end()?;
        Ok(pt)
    }

    /// Residues read from a stream go straight into the engine's buffer,
    /// 1 MiB at a time, and a residue at or above its prime is refused
    /// wherever it is (the first and last word of every prime, both sides of
    /// a piece boundary), though the stream's checksums are right; the
    /// extended form (special primes) and a buffer of several pieces
    /// included.
    #[test]
    fn streamed_residues_are_range_checked_in_every_piece() {
        let many = Context::new(
            &Parameters::builder()
                .ring_degree(1 << 12)
                .plaintext_modulus(65537u32.into())
                .chain_bits(&[50; 40])
                .allow_insecure()
                .build()
                .unwrap(),
        )
        .unwrap();
        let tests = Context::new(&Parameters::for_tests()).unwrap();
        for (context, mode) in [(&tests, KeyMode::Fast), (&many, KeyMode::MinimalKeys)] {
            let plain = Plaintext::from_u64s(context, &[1, 2, 3, 4]).unwrap();
            let level = context.max_level();
            let pt = match mode {
                KeyMode::Fast => EncodedPlaintext::for_linear_transform(&plain, level),
                KeyMode::MinimalKeys => EncodedPlaintext::for_multiplication(&plain, level),
            }
            .unwrap();
            let (residues, norms) = pt.residues().unwrap();
            let residues = residues.to_vec();
            let good = payload(&pt, &residues, norms);
            let mut written = Vec::new();
            let mut w = WordWriter::new(&mut written);
            sealed::Sealed::write(&pt, &mut w).unwrap();
            w.checkpoint().unwrap();
            w.flush().unwrap();
            drop(w);
            assert_eq!(written, good, "the test's payload is the real layout");
            let back = read_payload(context, level, mode, &good).unwrap();
            assert_eq!(back.residues().unwrap(), (&residues[..], norms));

            let n = context.ring_degree();
            let mut primes = context.chain_primes()[..=level].to_vec();
            if mode == KeyMode::Fast {
                primes.extend_from_slice(context.special_primes());
            }
            assert_eq!(residues.len(), primes.len() * n);
            let mut places: Vec<(usize, u64)> = Vec::new();
            for (r, &q) in primes.iter().enumerate() {
                places.extend([(r * n, q), (r * n + n - 1, q), (r * n + 7, u64::MAX)]);
            }
            for at in [PIECE_WORDS - 1, PIECE_WORDS] {
                if at < residues.len() {
                    places.push((at, primes[at / n]));
                }
            }
            if mode == KeyMode::MinimalKeys {
                assert!(residues.len() > PIECE_WORDS, "several pieces");
            }
            for (at, value) in places {
                let mut bad = residues.clone();
                bad[at] = value;
                match read_payload(context, level, mode, &payload(&pt, &bad, norms)) {
                    Err(Error::Malformed(m)) => assert!(m.contains("prime"), "word {at}: {m}"),
                    other => panic!("word {at}: {other:?}"),
                }
            }
        }
    }
}
