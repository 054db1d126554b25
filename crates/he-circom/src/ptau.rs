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

/// The scalars of one run of points, index `k` from 0: `factor·τ^k`, or
/// `factor·L_k(τ)` on the domain of size `m` (with the top power replaced
/// by zero when `drop_top`). Derived from the secrets: wiped when dropped.
#[derive(Zeroize, ZeroizeOnDrop)]
pub(crate) enum Scalars {
    /// `factor·τ^k`.
    Powers { factor: Fr, tau: Fr },
    /// `ω^k·(c/(τ − ω^k) − d)` with `c = factor·(τ^m − 1)/m` and `d =
    /// factor·τ^(m−1)/m` when the top power is dropped, 0 otherwise:
    /// `L_k(τ) = (τ^m − 1)/m · ω^k/(τ − ω^k)`, and the dropped term of
    /// `(1/m)·Σ_i τ^i·ω^(−ki)` is `τ^(m−1)·ω^k/m`.
    Lagrange { tau: Fr, omega: Fr, c: Fr, d: Fr },
}

impl Scalars {
    pub(crate) fn powers(factor: Fr, tau: Fr) -> Self {
        Scalars::Powers { factor, tau }
    }

    /// The Lagrange scalars on the domain of size `2^p`; `tau` must not be
    /// in the 2-adic subgroup ([`Secrets::new`]).
    pub(crate) fn lagrange(factor: Fr, tau: Fr, p: u32, drop_top: bool) -> Self {
        let m = 1u64 << p;
        let domain = Radix2EvaluationDomain::<Fr>::new(m as usize)
            .expect("p <= MAX_POWER + 1 = the two-adicity");
        let size_inv = domain.size_inv;
        let mut top = tau.pow([m - 1]);
        let c = factor * (top * tau - Fr::one()) * size_inv;
        let d = if drop_top {
            factor * top * size_inv
        } else {
            Fr::zero()
        };
        top.zeroize();
        Scalars::Lagrange {
            tau,
            omega: domain.group_gen,
            c,
            d,
        }
    }

    /// The scalars of indices `start..start + out.len()` into `out`;
    /// `scratch` is wiped after use.
    pub(crate) fn fill(&self, start: u64, out: &mut [Fr], scratch: &mut Vec<Fr>) {
        match self {
            Scalars::Powers { factor, tau } => {
                let mut x = tau.pow([start]) * factor;
                for o in out.iter_mut() {
                    *o = x;
                    x *= tau;
                }
                x.zeroize();
            }
            Scalars::Lagrange { tau, omega, c, d } => {
                let first = omega.pow([start]);
                let mut w = first;
                for o in out.iter_mut() {
                    *o = *tau - w;
                    w *= omega;
                }
                invert_all(out, scratch);
                w = first;
                for o in out.iter_mut() {
                    *o = w * (*c * *o - d);
                    w *= omega;
                }
            }
        }
    }
}

/// Inverts every element of `v` (all nonzero) with one field inversion
/// (Montgomery's trick); `prefix` holds the running products and is wiped.
fn invert_all(v: &mut [Fr], prefix: &mut Vec<Fr>) {
    prefix.clear();
    let mut acc = Fr::one();
    for x in v.iter() {
        prefix.push(acc);
        acc *= x;
    }
    let mut inv = acc
        .inverse()
        .expect("no denominator vanishes (Secrets::new)");
    for (x, before) in v.iter_mut().zip(prefix.iter()).rev() {
        let x_inv = inv * before;
        inv *= *x;
        *x = x_inv;
    }
    acc.zeroize();
    inv.zeroize();
    prefix.zeroize();
}

/// A window of `w` bits for `n` multiplications: about `(254/w)·(n + 2^w)`
/// additions, with tables of at most 2^16 points per window (16 windows of
/// G2 points are 140 MB).
fn window_for(n: u64) -> u32 {
    (n.max(1).ilog2().saturating_sub(4)).clamp(2, 16)
}

/// Multiples of a generator for windowed multiplication: window `k` holds
/// `d·2^(w·k)·G` for `d < 2^w`, so `s·G` is one addition per window.
pub(crate) struct FixedBase<P: SWCurveConfig> {
    window: u32,
    table: Vec<Vec<Affine<P>>>,
}

impl<P: SWCurveConfig<ScalarField = Fr>> FixedBase<P> {
    pub(crate) fn new(generator: Projective<P>, window: u32) -> Self {
        let windows = Fr::MODULUS_BIT_SIZE.div_ceil(window);
        let mut bases = Vec::with_capacity(windows as usize);
        let mut base = generator;
        for _ in 0..windows {
            bases.push(base);
            for _ in 0..window {
                base.double_in_place();
            }
        }
        let table = bases
            .into_par_iter()
            .map(|base| {
                let mut row = Vec::with_capacity(1 << window);
                let mut multiple = Projective::<P>::zero();
                for _ in 0..1u32 << window {
                    row.push(multiple);
                    multiple += base;
                }
                Projective::normalize_batch(&row)
            })
            .collect();
        FixedBase { window, table }
    }

    /// `s·G` for every scalar `s`, in affine form.
    ///
    /// All the accumulators advance one window at a time by affine
    /// additions that share one field inversion (Montgomery's trick): about
    /// six multiplications an addition, against eleven for a mixed
    /// projective one, and no conversion at the end. The addition never
    /// meets equal or opposite points: before window `k` an accumulator is
    /// `a·G` with `0 < a < 2^(w·k)`, the table's point is `b·G` with `b =
    /// d·2^(w·k) ≥ 2^(w·k)`, and `a + b ≤ s < r` for a canonical scalar
    /// `s`, so `a ≢ ±b (mod r)`. A zero digit adds nothing, and an empty
    /// accumulator takes the table's point.
    pub(crate) fn batch_mul(&self, scalars: &[Fr]) -> Vec<Affine<P>> {
        let bits = Zeroizing::new(scalars.iter().map(|s| s.into_bigint()).collect::<Vec<_>>());
        let mut acc: Vec<Option<(P::BaseField, P::BaseField)>> = vec![None; scalars.len()];
        let mut pending: Vec<(usize, usize)> = Vec::with_capacity(scalars.len());
        let mut denominators = Vec::with_capacity(scalars.len());
        for (k, row) in self.table.iter().enumerate() {
            pending.clear();
            denominators.clear();
            for (i, value) in bits.iter().enumerate() {
                let d = digit(value, k as u32 * self.window, self.window);
                if d == 0 {
                    continue;
                }
                let t = &row[d];
                match acc[i] {
                    None => acc[i] = Some((t.x, t.y)),
                    Some((x, _)) => {
                        denominators.push(t.x - x);
                        pending.push((i, d));
                    }
                }
            }
            debug_assert!(denominators.iter().all(|x| !x.is_zero()));
            ark_ff::batch_inversion(&mut denominators);
            for (&(i, d), inverse) in pending.iter().zip(&denominators) {
                let t = &row[d];
                if let Some((x1, y1)) = acc[i] {
                    let lambda = (t.y - y1) * inverse;
                    let x3 = lambda.square() - x1 - t.x;
                    acc[i] = Some((x3, lambda * (x1 - x3) - y1));
                }
            }
        }
        acc.into_iter()
            .map(|point| match point {
                Some((x, y)) => Affine::new_unchecked(x, y),
                None => Affine::identity(),
            })
            .collect()
    }
}

/// Bits `at..at + width` of `value` (`width <= 32`; bits past the top are 0).
fn digit(value: &BigInt<4>, at: u32, width: u32) -> usize {
    let (limb, offset) = ((at / 64) as usize, at % 64);
    let mut bits = value.0[limb] >> offset;
    if offset + width > 64 && limb + 1 < value.0.len() {
        bits |= value.0[limb + 1] << (64 - offset);
    }
    (bits & ((1u64 << width) - 1)) as usize
}

/// How a group's points are written: the size and the encoder.
struct Encoding<A> {
    bytes: usize,
    encode: fn(&A, &mut [u8]),
}

const G1_ENCODING: Encoding<G1Affine> = Encoding {
    bytes: G1_BYTES,
    encode: |point, out| out.copy_from_slice(&g1_to_zkey(point)),
};

const G2_ENCODING: Encoding<G2Affine> = Encoding {
    bytes: G2_BYTES,
    encode: |point, out| out.copy_from_slice(&g2_to_zkey(point)),
};

/// Points computed and encoded by one task (one batched inversion to
/// affine form each).
const TASK_POINTS: usize = 1024;
/// Points computed between two writes.
const BATCH_POINTS: usize = 64 * TASK_POINTS;

/// Writes `scalars`' first `count` multiples of `table`'s generator,
/// encoded, batch by batch, each batch's tasks on rayon's threads.
fn write_points<P: SWCurveConfig<ScalarField = Fr>>(
    w: &mut impl Write,
    table: &FixedBase<P>,
    encoding: &Encoding<Affine<P>>,
    scalars: &Scalars,
    count: u64,
) -> io::Result<()> {
    let size = encoding.bytes;
    let mut buffer = vec![0u8; BATCH_POINTS.min(count as usize) * size];
    let mut start = 0u64;
    while start < count {
        let points = (count - start).min(BATCH_POINTS as u64) as usize;
        let bytes = &mut buffer[..points * size];
        bytes
            .par_chunks_mut(TASK_POINTS * size)
            .enumerate()
            .for_each(|(task, out)| {
                let first = start + (task * TASK_POINTS) as u64;
                let n = out.len() / size;
                let mut values = Zeroizing::new(vec![Fr::zero(); n]);
                let mut scratch = Zeroizing::new(Vec::with_capacity(n));
                scalars.fill(first, &mut values, &mut scratch);
                for (point, out) in table
                    .batch_mul(&values)
                    .iter()
                    .zip(out.chunks_exact_mut(size))
                {
                    (encoding.encode)(point, out);
                }
            });
        w.write_all(bytes)?;
        start += points as u64;
    }
    Ok(())
}

/// A checked ptau file: the container, the header, and every section's
/// size against the header's power; points are decoded on request.
///
/// Reads snarkjs's files as well as [`write_prepared`]'s: the
/// contributions section may hold any contributions (its body is not
/// interpreted), and the Lagrange sections 12–15 are optional but all or
/// none.
#[derive(Clone, Debug)]
pub struct Ptau<'a> {
    header: PtauHeader,
    file: BinFile<'a>,
    prepared: bool,
}

impl<'a> Ptau<'a> {
    /// Parses and checks the layout of a ptau file.
    ///
    /// # Errors
    /// Any [`Error`] of the container ([`BinFile::parse`]);
    /// [`Error::WrongPrime`] for another curve's modulus; an `n8` other
    /// than 32, a power outside [`MIN_POWER`]`..=`[`MAX_POWER`], a
    /// ceremony power below it, a section whose size does not fit the
    /// power, or only some of sections 12–15 ([`Error::Invalid`],
    /// [`Error::MissingSection`]).
    pub fn parse(bytes: &'a [u8]) -> Result<Self> {
        let file = BinFile::parse(KIND, bytes, PTAU_VERSION)?;
        let mut h = file.reader(HEADER)?;
        let n8 = h.u32("n8")?;
        if n8 != FIELD_BYTES as u32 {
            return Err(Error::invalid(
                h.loc("n8"),
                format!("{n8} bytes per field element; BN254 has {FIELD_BYTES}"),
            ));
        }
        if !is_modulus::<Fq>(h.take(FIELD_BYTES as u64, "q")?) {
            return Err(Error::WrongPrime {
                at: h.loc("q"),
                expected: "base field",
            });
        }
        let power = h.u32("power")?;
        if check_power(power).is_err() {
            return Err(Error::invalid(
                h.loc("power"),
                format!("power {power} is not from {MIN_POWER} to {MAX_POWER}"),
            ));
        }
        let ceremony_power = h.u32("ceremonyPower")?;
        if ceremony_power < power {
            return Err(Error::invalid(
                h.loc("ceremonyPower"),
                format!("ceremony power {ceremony_power} is below the power {power}"),
            ));
        }
        h.finish("ceremonyPower")?;
        let mut lagrange = 0;
        for (section, size) in layout(power)? {
            let body = match file.optional_section(section) {
                Some(body) => body,
                None if section >= LAGRANGE_G1 => continue,
                None => {
                    return Err(Error::MissingSection {
                        kind: KIND,
                        section,
                    })
                }
            };
            if section >= LAGRANGE_G1 {
                lagrange += 1;
            }
            let fits = match section {
                HEADER => true,
                CONTRIBUTIONS => body.len() >= 4,
                _ => body.len() as u64 == size,
            };
            if !fits {
                return Err(Error::invalid(
                    Location::section(KIND, section, "section size"),
                    format!("{} bytes; power {power} gives {size}", body.len()),
                ));
            }
        }
        if lagrange != 0 && lagrange != 4 {
            let section = (LAGRANGE_G1..=LAGRANGE_BETA_G1)
                .find(|s| file.optional_section(*s).is_none())
                .unwrap_or(LAGRANGE_G1);
            return Err(Error::MissingSection {
                kind: KIND,
                section,
            });
        }
        Ok(Ptau {
            header: PtauHeader {
                power,
                ceremony_power,
            },
            file,
            prepared: lagrange == 4,
        })
    }

    /// The header.
    pub fn header(&self) -> PtauHeader {
        self.header
    }

    /// Whether the file has the Lagrange sections 12–15 (is prepared for
    /// phase 2).
    pub fn is_prepared(&self) -> bool {
        self.prepared
    }

    /// The body of section `section` (sizes already checked).
    ///
    /// # Errors
    /// [`Error::MissingSection`].
    pub fn section(&self, section: u32) -> Result<&'a [u8]> {
        self.file.section(section)
    }

    /// The points of a G1 section (2, 4, 5, 12, 14, 15), each checked on
    /// the curve.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for another section;
    /// [`Error::MissingSection`]; [`Error::NotCanonical`] coordinates;
    /// [`Error::NotOnCurve`].
    pub fn g1_points(&self, section: u32) -> Result<Vec<G1Affine>> {
        self.points(section, G1_BYTES, |r, field| r.g1(field))
    }

    /// The points of a G2 section (3, 6, 13), each checked on the curve
    /// and in the prime-order subgroup.
    ///
    /// # Errors
    /// As [`g1_points`](Self::g1_points), and [`Error::NotInSubgroup`].
    pub fn g2_points(&self, section: u32) -> Result<Vec<G2Affine>> {
        self.points(section, G2_BYTES, |r, field| r.g2(field))
    }

    fn points<P>(
        &self,
        section: u32,
        size: usize,
        read: impl Fn(&mut crate::binfile::Reader<'a>, &str) -> Result<P>,
    ) -> Result<Vec<P>> {
        if !point_sections(self.header.power)
            .iter()
            .any(|(s, bytes, _, _)| *s == section && *bytes == size)
        {
            return Err(Error::InvalidArgument(format!(
                "ptau section {section} ({}) does not hold {} points",
                KIND.section_name(section),
                if size == G1_BYTES { "G1" } else { "G2" }
            )));
        }
        let mut r = self.file.reader(section)?;
        let count = r.remaining() / size;
        let mut points = Vec::with_capacity(count);
        for i in 0..count as u64 {
            r.index = Some(i);
            points.push(read(&mut r, "point")?);
        }
        Ok(points)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ark_ff::UniformRand;
    use ark_std::rand::{rngs::StdRng, SeedableRng};

    fn secrets(seed: u64) -> Secrets {
        let mut rng = StdRng::seed_from_u64(seed);
        loop {
            let s = Secrets::new(Fr::rand(&mut rng), Fr::rand(&mut rng), Fr::rand(&mut rng));
            if let Some(s) = s {
                return s;
            }
        }
    }

    fn written(power: u32, secrets: &Secrets) -> Vec<u8> {
        let mut bytes = Vec::new();
        let n = write_with(&mut bytes, power, secrets).unwrap();
        assert_eq!(n, bytes.len() as u64);
        bytes
    }

    fn fill(scalars: &Scalars, count: u64) -> Vec<Fr> {
        let mut out = vec![Fr::zero(); count as usize];
        scalars.fill(0, &mut out, &mut Vec::new());
        out
    }

    #[test]
    fn header_layout() {
        let bytes = written(2, &secrets(1));
        assert_eq!(&bytes[..4], b"ptau");
        assert_eq!(bytes[4..8], 1u32.to_le_bytes(), "version");
        assert_eq!(bytes[8..12], 11u32.to_le_bytes(), "sections");
        assert_eq!(bytes[12..16], 1u32.to_le_bytes(), "section 1");
        assert_eq!(bytes[16..24], 44u64.to_le_bytes(), "header size");
        assert_eq!(bytes[24..28], 32u32.to_le_bytes(), "n8");
        // q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
        let q: num_bigint::BigUint =
            "21888242871839275222246405745257275088696311157297823662689037894645226208583"
                .parse()
                .unwrap();
        let mut q_le = q.to_bytes_le();
        q_le.resize(32, 0);
        assert_eq!(bytes[28..60], q_le[..], "q");
        assert_eq!(bytes[60..64], 2u32.to_le_bytes(), "power");
        assert_eq!(bytes[64..68], 2u32.to_le_bytes(), "ceremonyPower");
        let file = Ptau::parse(&bytes).unwrap();
        assert_eq!(
            file.header(),
            PtauHeader {
                power: 2,
                ceremony_power: 2
            }
        );
        assert!(file.is_prepared());
        assert_eq!(file.section(7).unwrap(), &[0u8; 4]);
    }

    #[test]
    fn section_sizes() {
        let n = 1u64 << 5;
        let (g1, g2) = (64, 128);
        assert_eq!(
            layout(5).unwrap(),
            vec![
                (1, 44),
                (2, (2 * n - 1) * g1),
                (3, n * g2),
                (4, n * g1),
                (5, n * g1),
                (6, g2),
                (7, 4),
                (12, (4 * n - 1) * g1),
                (13, (2 * n - 1) * g2),
                (14, (2 * n - 1) * g1),
                (15, (2 * n - 1) * g1),
            ]
        );
        assert_eq!(file_size(17).unwrap(), 150_994_880);
        assert_eq!(file_size(21).unwrap(), 2_415_919_040);
        for power in [1, 3] {
            let bytes = written(power, &secrets(2));
            assert_eq!(bytes.len() as u64, file_size(power).unwrap());
            let file = BinFile::parse(KIND, &bytes, 1).unwrap();
            let sections: Vec<(u32, u64)> =
                file.sections().map(|(t, size)| (t, size as u64)).collect();
            assert_eq!(sections, layout(power).unwrap());
        }
    }

    #[test]
    fn the_points_are_the_scalars_times_the_generators() {
        let s = secrets(3);
        let power = 2;
        let bytes = written(power, &s);
        let file = Ptau::parse(&bytes).unwrap();
        let g1 = |x: Fr| (G1Projective::generator() * x).into_affine();
        let g2 = |x: Fr| (G2Projective::generator() * x).into_affine();
        let powers = |factor: Fr, count: u64| -> Vec<Fr> {
            (0..count).map(|i| factor * s.tau.pow([i])).collect()
        };
        let n = 1u64 << power;
        let one = Fr::one();
        let expect_g1 = |scalars: Vec<Fr>| scalars.into_iter().map(g1).collect::<Vec<_>>();
        let expect_g2 = |scalars: Vec<Fr>| scalars.into_iter().map(g2).collect::<Vec<_>>();
        assert_eq!(
            file.g1_points(2).unwrap(),
            expect_g1(powers(one, 2 * n - 1))
        );
        assert_eq!(file.g2_points(3).unwrap(), expect_g2(powers(one, n)));
        assert_eq!(file.g1_points(4).unwrap(), expect_g1(powers(s.alpha, n)));
        assert_eq!(file.g1_points(5).unwrap(), expect_g1(powers(s.beta, n)));
        assert_eq!(file.g2_points(6).unwrap(), vec![g2(s.beta)]);
        // Sections 12-15: the inverse FFT of the powers, domain by domain.
        let lagrange = |factor: Fr, top: u32| {
            let mut scalars = Vec::new();
            for p in 0..=top {
                let m = 1usize << p;
                let mut v = powers(factor, m as u64);
                if p == power + 1 {
                    v[m - 1] = Fr::zero();
                }
                scalars.extend(Radix2EvaluationDomain::<Fr>::new(m).unwrap().ifft(&v));
            }
            assert_eq!(scalars.len(), (2usize << top) - 1);
            scalars
        };
        assert_eq!(
            file.g1_points(12).unwrap(),
            expect_g1(lagrange(one, power + 1))
        );
        assert_eq!(file.g2_points(13).unwrap(), expect_g2(lagrange(one, power)));
        assert_eq!(
            file.g1_points(14).unwrap(),
            expect_g1(lagrange(s.alpha, power))
        );
        assert_eq!(
            file.g1_points(15).unwrap(),
            expect_g1(lagrange(s.beta, power))
        );
        assert!(file.g2_points(12).is_err());
        assert!(file.g1_points(3).is_err());
        assert!(file.g1_points(7).is_err());
    }

    #[test]
    fn lagrange_scalars_interpolate_the_powers() {
        let s = secrets(4);
        for p in 0..=6u32 {
            let m = 1usize << p;
            let domain = Radix2EvaluationDomain::<Fr>::new(m).unwrap();
            let l = fill(&Scalars::lagrange(Fr::one(), s.tau, p, false), m as u64);
            // Σ_j L_j(τ)·ω^(jk) = τ^k: the Lagrange basis interpolates X^k.
            for k in 0..m as u64 {
                let sum: Fr = l
                    .iter()
                    .enumerate()
                    .map(|(j, lj)| *lj * domain.group_gen.pow([j as u64 * k]))
                    .sum();
                assert_eq!(sum, s.tau.pow([k]), "m = {m}, k = {k}");
            }
            // The closed form is the inverse FFT of the powers, from any start.
            let powers: Vec<Fr> = (0..m as u64).map(|k| s.tau.pow([k])).collect();
            assert_eq!(l, domain.ifft(&powers), "m = {m}");
            let scaled = Scalars::lagrange(s.alpha, s.tau, p, false);
            let mut tail = vec![Fr::zero(); m / 2];
            scaled.fill((m - m / 2) as u64, &mut tail, &mut Vec::new());
            let expected: Vec<Fr> = l[m - m / 2..].iter().map(|x| s.alpha * x).collect();
            assert_eq!(tail, expected);
            // With the top power dropped.
            let mut dropped = powers.clone();
            dropped[m - 1] = Fr::zero();
            let l = fill(&Scalars::lagrange(Fr::one(), s.tau, p, true), m as u64);
            assert_eq!(l, domain.ifft(&dropped), "m = {m}, top dropped");
        }
    }

    #[test]
    fn powers_from_any_start() {
        let s = secrets(5);
        let mut out = vec![Fr::zero(); 3];
        Scalars::powers(s.beta, s.tau).fill(5, &mut out, &mut Vec::new());
        let expected: Vec<Fr> = (5..8).map(|k| s.beta * s.tau.pow([k])).collect();
        assert_eq!(out, expected);
    }

    #[test]
    fn fixed_base_matches_plain_multiplication() {
        let mut rng = StdRng::seed_from_u64(6);
        let mut scalars = vec![Fr::zero(), Fr::one(), -Fr::one(), Fr::from(2u64)];
        for k in [5u32, 40, 100, 200, 253] {
            let power = Fr::from(2u64).pow([u64::from(k)]);
            scalars.extend([power, -power, power - Fr::one(), power + Fr::one()]);
        }
        scalars.extend((0..16).map(|_| Fr::rand(&mut rng)));
        scalars.extend([Fr::one(), Fr::zero(), scalars[10]]);
        let g1 = G1Projective::generator();
        let expected: Vec<G1Affine> = scalars.iter().map(|s| (g1 * s).into_affine()).collect();
        for window in [1, 2, 5, 7, 11] {
            let table = FixedBase::new(g1, window);
            assert_eq!(table.batch_mul(&scalars), expected, "w = {window}");
            assert!(table.batch_mul(&[]).is_empty());
        }
        let g2 = G2Projective::generator();
        let expected: Vec<G2Affine> = scalars.iter().map(|s| (g2 * s).into_affine()).collect();
        assert_eq!(FixedBase::new(g2, 3).batch_mul(&scalars), expected);
        assert_eq!(window_for(0), 2);
        assert_eq!(window_for(1 << 10), 6);
        assert_eq!(window_for(1 << 30), 16);
    }

    #[test]
    fn digits_are_the_bits() {
        let mut rng = StdRng::seed_from_u64(8);
        for value in [-Fr::one(), Fr::rand(&mut rng), Fr::rand(&mut rng)] {
            let bits = value.into_bigint();
            let bit = |i: u32| i < 256 && bits.0[(i / 64) as usize] >> (i % 64) & 1 == 1;
            for width in [1, 7, 11, 13, 16] {
                for at in (0..Fr::MODULUS_BIT_SIZE).step_by(width as usize) {
                    let naive = (0..width).fold(0usize, |d, i| d | (bit(at + i) as usize) << i);
                    assert_eq!(digit(&bits, at, width), naive, "w = {width}, at = {at}");
                }
            }
        }
    }

    #[test]
    fn usable_secrets_only() {
        let (one, two) = (Fr::one(), Fr::from(2u64));
        assert!(Secrets::new(two, one, one).is_some());
        assert!(Secrets::new(Fr::zero(), one, one).is_none());
        assert!(Secrets::new(one, one, one).is_none(), "tau = 1");
        let omega = Radix2EvaluationDomain::<Fr>::new(1 << 20)
            .unwrap()
            .group_gen;
        assert!(Secrets::new(omega, one, one).is_none(), "a root of unity");
        assert!(Secrets::new(two, Fr::zero(), one).is_none());
        assert!(Secrets::new(two, one, Fr::zero()).is_none());
        assert!(Secrets::random().is_ok());
    }

    #[test]
    fn a_wrong_power_is_refused() {
        for power in [0, MAX_POWER + 1, u32::MAX] {
            assert!(matches!(layout(power), Err(Error::InvalidArgument(_))));
            assert!(file_size(power).is_err());
            let path = std::env::temp_dir().join(format!(
                "he-circom-ptau-refused-{}-{power}.ptau",
                std::process::id()
            ));
            let err = write_prepared(&path, power).unwrap_err();
            assert!(err.to_string().contains("from 1 to 27"), "{err}");
            assert!(!path.exists());
        }
        assert_eq!(MAX_POWER, 27);
        assert!(layout(MAX_POWER).is_ok());
    }

    #[test]
    fn the_reader_refuses_what_does_not_fit() {
        let good = written(1, &secrets(7));
        assert!(Ptau::parse(&good).is_ok());
        // The header's fields: n8 at 24, q at 28, power at 60, ceremonyPower at 64.
        let mut b = good.clone();
        b[24] = 48;
        assert!(matches!(Ptau::parse(&b), Err(Error::Invalid { .. })));
        let mut b = good.clone();
        b[28] ^= 1;
        assert!(matches!(Ptau::parse(&b), Err(Error::WrongPrime { .. })));
        for power in [0u32, 28, 2] {
            let mut b = good.clone();
            b[60..64].copy_from_slice(&power.to_le_bytes());
            b[64..68].copy_from_slice(&power.to_le_bytes());
            let err = Ptau::parse(&b).unwrap_err();
            assert!(matches!(err, Error::Invalid { .. }), "{power}: {err}");
        }
        let mut b = good.clone();
        b[64..68].copy_from_slice(&0u32.to_le_bytes());
        assert!(matches!(Ptau::parse(&b), Err(Error::Invalid { .. })));

        // The same sections, some left out or cut short.
        let file = BinFile::parse(KIND, &good, 1).unwrap();
        type Edit<'e> = &'e dyn Fn(u32, &[u8]) -> Option<Vec<u8>>;
        let rebuild = |edit: Edit<'_>| {
            let kept: Vec<(u32, Vec<u8>)> = file
                .sections()
                .filter_map(|(t, _)| edit(t, file.section(t).unwrap()).map(|body| (t, body)))
                .collect();
            let mut out = Vec::new();
            write_header(&mut out, KIND, 1, kept.len() as u32).unwrap();
            for (t, body) in kept {
                write_section_header(&mut out, t, body.len() as u64).unwrap();
                out.extend_from_slice(&body);
            }
            out
        };
        assert_eq!(rebuild(&|_, body| Some(body.to_vec())), good);
        let phase1 = rebuild(&|t, body| (t <= 7).then(|| body.to_vec()));
        let parsed = Ptau::parse(&phase1).unwrap();
        assert!(!parsed.is_prepared());
        assert!(parsed.g1_points(12).is_err());
        assert!(matches!(
            Ptau::parse(&rebuild(&|t, body| (t != 14).then(|| body.to_vec()))),
            Err(Error::MissingSection { section: 14, .. })
        ));
        assert!(matches!(
            Ptau::parse(&rebuild(&|t, body| (t != 4).then(|| body.to_vec()))),
            Err(Error::MissingSection { section: 4, .. })
        ));
        let short =
            rebuild(&|t, body| Some(body[..body.len() - if t == 2 { 64 } else { 0 }].to_vec()));
        let err = Ptau::parse(&short).unwrap_err();
        assert!(
            err.to_string().contains("128 bytes; power 1 gives 192"),
            "{err}"
        );
        // A point off the curve.
        let off = rebuild(&|t, body| {
            let mut body = body.to_vec();
            if t == 2 {
                body[64] ^= 1;
            }
            Some(body)
        });
        assert!(matches!(
            Ptau::parse(&off).unwrap().g1_points(2),
            Err(Error::NotOnCurve { .. } | Error::NotCanonical { .. })
        ));
    }
}
