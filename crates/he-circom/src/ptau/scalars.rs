//! The scalars of the points: powers of τ and Lagrange values, chunk by chunk.

use super::*;

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
pub(super) fn invert_all(v: &mut [Fr], prefix: &mut Vec<Fr>) {
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
