//! Linear algebra over Z_q for the attacks: rank, solving in a span, and
//! rational reconstruction.

use crate::ring::{add_mod, mul_mod, pow_mod};

/// Row-reduces `rows` (each of equal length) mod q in place; returns the
/// pivot column of each nonzero row, in order.
fn reduce(rows: &mut [Vec<u64>], q: u64) -> Vec<usize> {
    let width = rows.first().map_or(0, Vec::len);
    let mut pivots = Vec::new();
    let mut rank = 0;
    for column in 0..width {
        let Some(found) = (rank..rows.len()).find(|&r| rows[r][column] != 0) else {
            continue;
        };
        rows.swap(rank, found);
        let inv = pow_mod(rows[rank][column], q - 2, q);
        for x in rows[rank].iter_mut() {
            *x = mul_mod(*x, inv, q);
        }
        let pivot_row = rows[rank].clone();
        for (r, row) in rows.iter_mut().enumerate() {
            let factor = row[column];
            if r != rank && factor != 0 {
                for (x, &p) in row.iter_mut().zip(&pivot_row) {
                    *x = add_mod(*x, q - mul_mod(factor, p, q), q);
                }
            }
        }
        pivots.push(column);
        rank += 1;
        if rank == rows.len() {
            break;
        }
    }
    pivots
}

/// The vectors reduced mod q and zero-padded to one length.
fn rectangular(vectors: &[Vec<u64>], q: u64) -> Vec<Vec<u64>> {
    let width = vectors.iter().map(Vec::len).max().unwrap_or(0);
    vectors
        .iter()
        .map(|v| {
            let mut row: Vec<u64> = v.iter().map(|&x| x % q).collect();
            row.resize(width, 0);
            row
        })
        .collect()
}

/// The rank over Z_q (q prime) of the given vectors (shorter ones are zero-padded).
pub fn rank(vectors: &[Vec<u64>], q: u64) -> usize {
    if q < 2 {
        return 0;
    }
    let mut rows = rectangular(vectors, q);
    reduce(&mut rows, q).len()
}

/// Coefficients λ with Σ_j λ_j · basis_j = target (mod q), or `None` when
/// the target is not in the span. Free coefficients are set to 0.
/// Vectors shorter than the longest are zero-padded; q must be prime.
pub fn solve_in_span(basis: &[Vec<u64>], target: &[u64], q: u64) -> Option<Vec<u64>> {
    if q < 2 {
        return None;
    }
    let mut all = basis.to_vec();
    all.push(target.to_vec());
    let columns = rectangular(&all, q);
    // One equation per coordinate: the unknowns are the λ_j, then the target.
    let width = columns.first().map_or(0, Vec::len);
    let mut rows: Vec<Vec<u64>> = (0..width)
        .map(|i| columns.iter().map(|v| v[i]).collect())
        .collect();
    let pivots = reduce(&mut rows, q);
    if pivots.last() == Some(&basis.len()) {
        return None; // 0 = nonzero: inconsistent.
    }
    let mut lambda = vec![0u64; basis.len()];
    for (row, &column) in rows.iter().zip(&pivots) {
        lambda[column] = row[basis.len()];
    }
    Some(lambda)
}

/// The fraction a / b (b > 0, |a|, b ≤ √(q/2)) congruent to x mod q, if any:
/// how a ratio of small integers is read back from its residue.
pub fn rational_reconstruction(x: u64, q: u64) -> Option<(i64, i64)> {
    if q < 2 {
        return None;
    }
    let bound = ((q / 2) as f64).sqrt() as i128;
    let (mut r0, mut r1) = (i128::from(q), i128::from(x % q));
    let (mut s0, mut s1) = (0i128, 1i128);
    while r1 > bound {
        let quotient = r0 / r1;
        (r0, r1) = (r1, r0 - quotient * r1);
        (s0, s1) = (s1, s0 - quotient * s1);
    }
    if s1 == 0 || s1.abs() > bound {
        return None;
    }
    let sign = s1.signum();
    Some(((sign * r1) as i64, (sign * s1) as i64))
}

#[cfg(test)]
mod tests {
    use super::*;

    const Q: u64 = 1_000_000_007;

    #[test]
    fn rank_and_span() {
        let a = vec![1, 2, 3, 4];
        let b = vec![0, 1, 1, 5];
        let sum: Vec<u64> = a.iter().zip(&b).map(|(x, y)| (x + 3 * y) % Q).collect();
        assert_eq!(rank(&[a.clone(), b.clone(), sum.clone()], Q), 2);
        assert_eq!(
            solve_in_span(&[a.clone(), b.clone()], &sum, Q),
            Some(vec![1, 3])
        );
        assert_eq!(solve_in_span(&[a, b], &[0, 0, 0, 1], Q), None);
    }

    #[test]
    fn ragged_or_degenerate_inputs_do_not_panic() {
        assert_eq!(rank(&[vec![1, 2, 3], vec![2]], Q), 2);
        assert_eq!(rank(&[], Q), 0);
        assert_eq!(solve_in_span(&[vec![1]], &[3, 0], Q), Some(vec![3]));
        assert_eq!(solve_in_span(&[vec![1]], &[3, 1], Q), None);
        assert_eq!(solve_in_span(&[vec![1]], &[1], 0), None);
        assert_eq!(rational_reconstruction(5, 0), None);
    }

    #[test]
    fn fractions_come_back() {
        let inv7 = pow_mod(7, Q - 2, Q);
        assert_eq!(
            rational_reconstruction(mul_mod(3, inv7, Q), Q),
            Some((3, 7))
        );
        let minus5_over_12 = mul_mod(Q - 5, pow_mod(12, Q - 2, Q), Q);
        assert_eq!(rational_reconstruction(minus5_over_12, Q), Some((-5, 12)));
        assert_eq!(rational_reconstruction(0, Q), Some((0, 1)));
    }
}
