//! Windowed fixed-base multiplication of a generator and the streaming of
//! the points it makes.

use super::*;

/// A window of `w` bits for `n` multiplications: about `(254/w)·(n + 2^w)`
/// additions, with tables of at most 2^16 points per window (16 windows of
/// G2 points are 140 MB).
pub(super) fn window_for(n: u64) -> u32 {
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
pub(super) fn digit(value: &BigInt<4>, at: u32, width: u32) -> usize {
    let (limb, offset) = ((at / 64) as usize, at % 64);
    let mut bits = value.0[limb] >> offset;
    if offset + width > 64 && limb + 1 < value.0.len() {
        bits |= value.0[limb + 1] << (64 - offset);
    }
    (bits & ((1u64 << width) - 1)) as usize
}

/// How a group's points are written: the size and the encoder.
pub(super) struct Encoding<A> {
    bytes: usize,
    encode: fn(&A, &mut [u8]),
}

pub(super) const G1_ENCODING: Encoding<G1Affine> = Encoding {
    bytes: G1_BYTES,
    encode: |point, out| out.copy_from_slice(&g1_to_zkey(point)),
};

pub(super) const G2_ENCODING: Encoding<G2Affine> = Encoding {
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
pub(super) fn write_points<P: SWCurveConfig<ScalarField = Fr>>(
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
