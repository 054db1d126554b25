//! Powers-of-tau files (snarkjs `.ptau`, format version 1, BN254) prepared
//! for phase 2, made here from one fresh secret — a **single-contributor
//! setup for tests and measurements, not a ceremony** — and a checked
//! reader of their layout and points.
//!
//! # Not a ceremony
//!
//! [`write_prepared`] draws τ, α and β from the operating system's random
//! generator, writes the file, and wipes them (and every scalar this module
//! derives from them) before the file is committed. Whoever kept τ, or a
//! copy of this process's memory while it ran, could forge proofs for
//! every circuit whose keys come from the file. Nothing records or attests
//! to the secret's destruction: the contributions section is empty, and
//! `snarkjs powersoftau verify` has no contribution to check. Use it for
//! tests and measurements; prove anything that matters with keys from a
//! multi-party ceremony's file.
//!
//! # Layout
//!
//! The container of [`crate::binfile`] with the magic `ptau`, version 1 and
//! eleven sections, `N = 2^power`:
//!
//! 1. header: `n8` = 32 (`u32`), `q` (the BN254 base-field modulus, 32
//!    bytes little-endian), `power` (`u32`), `ceremonyPower` (`u32`, here
//!    equal to `power`);
//! 2. `τ^i·G1` for `i < 2N − 1`;
//! 3. `τ^i·G2` for `i < N`;
//! 4. `α·τ^i·G1` and 5. `β·τ^i·G1` for `i < N`;
//! 6. `β·G2`;
//! 7. contributions: a `u32` count, 0 here;
//! 12. for `p = 0, 1, …, power + 1`, one after the other, the `m = 2^p`
//!     points `L_j(τ)·G1`, `j < m`, where `L_j(X) = (1/m)·Σ_{k<m}
//!     (X·ω^{−j})^k` is the Lagrange polynomial of `ω^j` on the `m`-th
//!     roots of unity (`ω` the generator of ark-poly's
//!     `Radix2EvaluationDomain` of size `m`, which is snarkjs's): the
//!     inverse DFT of section 2's first `m` points. For `p = power + 1`
//!     there are only `m − 1` powers, and the last is taken as zero;
//! 13. the same in G2 for `p ≤ power`;
//! 14. and 15. the same times α and times β, in G1, for `p ≤ power`.
//!
//! Points are affine with each coordinate in Montgomery form, 32 bytes
//! little-endian (x.c0, x.c1, y.c0, y.c1 in G2), all zeros for the point at
//! infinity: the encoding of zkey points ([`crate::field`]). `snarkjs
//! groth16 setup` reads sections 1 and 4–6 and 12–15.
//!
//! # How it is computed
//!
//! Since τ is known while writing, every point is a scalar multiple of a
//! generator, made by windowed fixed-base multiplication with one table
//! per group (no FFT over points, which is what makes snarkjs's own
//! preparation slow). The Lagrange scalars come in closed form,
//! `L_j(τ) = (τ^m − 1)/m · ω^j/(τ − ω^j)`, with one batched inversion per
//! chunk, so the file is streamed chunk by chunk in little memory (the
//! inverse FFT, the definition, is the tests' oracle). τ is drawn outside
//! the 2-adic subgroup, so no denominator vanishes. The chunks are spread
//! over rayon's threads; the file appears at its path only when complete
//! ([`crate::atomic_file::AtomicFile`]).
//!
//! ```
//! use he_circom::ptau::{self, Ptau};
//!
//! let dir = std::env::temp_dir().join(format!("he-circom-ptau-doc-{}", std::process::id()));
//! std::fs::create_dir_all(&dir)?;
//! let path = dir.join("pot3.ptau");
//! let bytes = ptau::write_prepared(&path, 3)?; // tests and measurements only
//! assert_eq!(bytes, ptau::file_size(3)?);
//! let data = std::fs::read(&path)?;
//! let file = Ptau::parse(&data)?;
//! assert_eq!(file.header().power, 3);
//! assert!(file.is_prepared());
//! assert_eq!(file.g1_points(2)?.len(), 2 * 8 - 1);
//! # std::fs::remove_dir_all(&dir)?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::io::{self, Write};
use std::path::Path;

use ark_bn254::{Fq, Fr, G1Affine, G1Projective, G2Affine, G2Projective};
use ark_ec::short_weierstrass::{Affine, Projective, SWCurveConfig};
use ark_ec::{CurveGroup, PrimeGroup};
use ark_ff::{AdditiveGroup, BigInt, FftField, Field, One, PrimeField, Zero};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use rayon::prelude::*;
use zeroize::{Zeroize, ZeroizeOnDrop, Zeroizing};

use crate::atomic_file::AtomicFile;
use crate::binfile::{write_header, write_section_header, BinFile};
use crate::error::{Error, FileKind, Location, Result};
use crate::field::{g1_to_zkey, g2_to_zkey, is_modulus, FIELD_BYTES, G1_BYTES, G2_BYTES};

mod fixed_base;
mod read;
mod scalars;
#[cfg(test)]
mod tests;

use fixed_base::*;
pub use read::Ptau;
use scalars::*;

const KIND: FileKind = FileKind::Ptau;
/// The format version written and read.
pub const PTAU_VERSION: u32 = 1;
/// The smallest power written.
pub const MIN_POWER: u32 = 1;
/// The largest power: section 12 needs the `2^(power+1)`-th roots of
/// unity, and BN254's scalar field has 2-adicity 28.
pub const MAX_POWER: u32 = Fr::TWO_ADICITY - 1;

const HEADER: u32 = 1;
const TAU_G1: u32 = 2;
const TAU_G2: u32 = 3;
const ALPHA_TAU_G1: u32 = 4;
const BETA_TAU_G1: u32 = 5;
const BETA_G2: u32 = 6;
const CONTRIBUTIONS: u32 = 7;
const LAGRANGE_G1: u32 = 12;
const LAGRANGE_G2: u32 = 13;
const LAGRANGE_ALPHA_G1: u32 = 14;
const LAGRANGE_BETA_G1: u32 = 15;

/// The body of section 1: `n8`, `q`, `power`, `ceremonyPower`.
const HEADER_BYTES: u64 = 4 + FIELD_BYTES as u64 + 4 + 4;
/// Bytes of the container header and of each section header.
const FILE_HEADER_BYTES: u64 = 12;
const SECTION_HEADER_BYTES: u64 = 12;

/// The header of a ptau file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PtauHeader {
    /// `log2` of the largest domain the file serves.
    pub power: u32,
    /// The power of the ceremony the file was cut from (at least `power`).
    pub ceremony_power: u32,
}

/// Refuses a power outside `MIN_POWER..=MAX_POWER`.
fn check_power(power: u32) -> Result<()> {
    if (MIN_POWER..=MAX_POWER).contains(&power) {
        Ok(())
    } else {
        Err(Error::InvalidArgument(format!(
            "powers of tau of power {power}: the power must be from {MIN_POWER} to {MAX_POWER} \
             (section 12 needs the 2^(power+1)-th roots of unity; BN254's scalar field has \
             2-adicity {})",
            Fr::TWO_ADICITY
        )))
    }
}

/// What multiplies the powers of τ in a section.
#[derive(Clone, Copy)]
enum Factor {
    One,
    Alpha,
    Beta,
}

/// The points of each section of a prepared file of `power`: (section,
/// the group's point size, the factor, the number of points in each run
/// of the section). Sections from 12 on hold Lagrange values, one run per
/// domain; the others hold powers of τ.
fn point_sections(power: u32) -> [(u32, usize, Factor, Vec<u64>); 9] {
    let n = 1u64 << power;
    let lagrange = |top: u32| (0..=top).map(|p| 1u64 << p).collect::<Vec<_>>();
    [
        (TAU_G1, G1_BYTES, Factor::One, vec![2 * n - 1]),
        (TAU_G2, G2_BYTES, Factor::One, vec![n]),
        (ALPHA_TAU_G1, G1_BYTES, Factor::Alpha, vec![n]),
        (BETA_TAU_G1, G1_BYTES, Factor::Beta, vec![n]),
        (BETA_G2, G2_BYTES, Factor::Beta, vec![1]),
        (LAGRANGE_G1, G1_BYTES, Factor::One, lagrange(power + 1)),
        (LAGRANGE_G2, G2_BYTES, Factor::One, lagrange(power)),
        (LAGRANGE_ALPHA_G1, G1_BYTES, Factor::Alpha, lagrange(power)),
        (LAGRANGE_BETA_G1, G1_BYTES, Factor::Beta, lagrange(power)),
    ]
}

/// The sections of a prepared file of `power` as [`write_prepared`]
/// writes them: (section type, body size in bytes), in file order.
///
/// # Errors
/// [`Error::InvalidArgument`] for a power outside
/// [`MIN_POWER`]`..=`[`MAX_POWER`].
pub fn layout(power: u32) -> Result<Vec<(u32, u64)>> {
    check_power(power)?;
    let mut sections = vec![(HEADER, HEADER_BYTES)];
    for (section, size, _, runs) in point_sections(power) {
        sections.push((section, runs.iter().sum::<u64>() * size as u64));
        if section == BETA_G2 {
            sections.push((CONTRIBUTIONS, 4));
        }
    }
    Ok(sections)
}

/// The size in bytes of the prepared file of `power` that
/// [`write_prepared`] writes.
///
/// # Errors
/// As [`layout`].
pub fn file_size(power: u32) -> Result<u64> {
    Ok(FILE_HEADER_BYTES
        + layout(power)?
            .iter()
            .map(|(_, size)| SECTION_HEADER_BYTES + size)
            .sum::<u64>())
}

/// Writes a prepared powers-of-tau file of `power` to `path` from fresh
/// secrets τ, α, β (the operating system's random generator), wiped before
/// the file is committed. **A single-contributor setup for tests and
/// measurements, not a ceremony**: see the [module documentation](self).
/// The file appears at `path` only once complete; on any error `path` is
/// left as it was. Returns the number of bytes written
/// ([`file_size`]`(power)`).
///
/// The file holds about `1152·2^power` bytes (151 MB for power 17, 2.4 GB
/// for power 21), every point computed here.
///
/// # Errors
/// [`Error::InvalidArgument`] for a power outside
/// [`MIN_POWER`]`..=`[`MAX_POWER`] (nothing is created);
/// [`Error::Random`]; [`Error::Io`] naming `path`.
pub fn write_prepared(path: impl AsRef<Path>, power: u32) -> Result<u64> {
    check_power(power)?;
    let path = path.as_ref();
    let io_error = |source| Error::Io {
        kind: KIND,
        path: path.display().to_string(),
        source,
    };
    let secrets = Secrets::random()?;
    let mut file = AtomicFile::create(path).map_err(io_error)?;
    let written = write_with(&mut file, power, &secrets).map_err(io_error)?;
    drop(secrets);
    file.commit().map_err(io_error)?;
    Ok(written)
}

/// τ, α and β, wiped when dropped.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) struct Secrets {
    tau: Fr,
    alpha: Fr,
    beta: Fr,
}

impl Secrets {
    /// Fresh secrets from the operating system's random generator.
    fn random() -> Result<Self> {
        let draw = || -> Result<Fr> {
            let mut bytes = Zeroizing::new([0u8; 64]);
            getrandom::getrandom(bytes.as_mut()).map_err(|e| Error::Random(e.to_string()))?;
            // 512 bits reduced modulo r: uniform to within 2^-254.
            Ok(Fr::from_le_bytes_mod_order(bytes.as_ref()))
        };
        loop {
            if let Some(secrets) = Secrets::new(draw()?, draw()?, draw()?) {
                return Ok(secrets);
            }
        }
    }

    /// The secrets, if usable: α, β nonzero, and τ nonzero and outside the
    /// 2-adic subgroup (no root of unity of any domain, so the Lagrange
    /// denominators `τ − ω^j` never vanish).
    pub(crate) fn new(tau: Fr, alpha: Fr, beta: Fr) -> Option<Self> {
        let secrets = Secrets { tau, alpha, beta };
        let mut t = secrets.tau;
        for _ in 0..Fr::TWO_ADICITY {
            t.square_in_place();
        }
        let usable = !secrets.tau.is_zero()
            && !t.is_one()
            && !secrets.alpha.is_zero()
            && !secrets.beta.is_zero();
        t.zeroize();
        usable.then_some(secrets)
    }
}

/// Writes the whole prepared file of `power` for `secrets`; returns the
/// bytes written.
pub(crate) fn write_with(w: &mut impl Write, power: u32, secrets: &Secrets) -> io::Result<u64> {
    let layout = layout(power).map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let mut w = Counting { inner: w, bytes: 0 };
    write_header(&mut w, KIND, PTAU_VERSION, layout.len() as u32)?;
    write_section_header(&mut w, HEADER, HEADER_BYTES)?;
    w.write_all(&(FIELD_BYTES as u32).to_le_bytes())?;
    w.write_all(&crate::field::bigint_to_le(&Fq::MODULUS))?;
    w.write_all(&power.to_le_bytes())?;
    w.write_all(&power.to_le_bytes())?;

    let counts = |group: usize| -> u64 {
        point_sections(power)
            .iter()
            .filter(|(_, size, _, _)| *size == group)
            .flat_map(|(_, _, _, runs)| runs.iter())
            .sum()
    };
    let g1 = FixedBase::new(G1Projective::generator(), window_for(counts(G1_BYTES)));
    let g2 = FixedBase::new(G2Projective::generator(), window_for(counts(G2_BYTES)));
    let Secrets { tau, alpha, beta } = secrets;
    for (section, size, factor, runs) in point_sections(power) {
        let bytes = runs.iter().sum::<u64>() * size as u64;
        write_section_header(&mut w, section, bytes)?;
        let factor = match factor {
            Factor::One => Fr::one(),
            Factor::Alpha => *alpha,
            Factor::Beta => *beta,
        };
        for (p, &count) in (0u32..).zip(&runs) {
            let scalars = if section < LAGRANGE_G1 {
                Scalars::powers(factor, *tau)
            } else {
                // Section 12's last domain has one power fewer.
                Scalars::lagrange(factor, *tau, p, p == power + 1)
            };
            if size == G1_BYTES {
                write_points(&mut w, &g1, &G1_ENCODING, &scalars, count)?;
            } else {
                write_points(&mut w, &g2, &G2_ENCODING, &scalars, count)?;
            }
        }
        if section == BETA_G2 {
            write_section_header(&mut w, CONTRIBUTIONS, 4)?;
            w.write_all(&0u32.to_le_bytes())?;
        }
    }
    Ok(w.bytes)
}

/// A writer that counts the bytes through it.
struct Counting<'a, W: Write> {
    inner: &'a mut W,
    bytes: u64,
}

impl<W: Write> Write for Counting<'_, W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.bytes += n as u64;
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}
