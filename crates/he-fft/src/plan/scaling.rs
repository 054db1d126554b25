//! The scalings (coset powers, 1/n) and the factored single-ciphertext transform.

use super::spec::Direction;
use crate::error::{Error, Result};
use crate::layout::Packing;
use crate::stages::{group_stages, radix2_stages, Order};
use ark_ff::{FftField, PrimeField};
use helib_rs::lintrans::SlotTransform;

/// The input and output scalings of a single-ciphertext transform:
/// coset powers g^i (forward, on the input) or g^-i (inverse, on the output),
/// and 1/n for the inverse; in the packing's slot order (bit-reversed when the
/// corresponding side is).
///
/// # Errors
/// [`Error::InvalidCosetOffset`] for a zero offset.
#[allow(clippy::too_many_arguments)]
pub(super) fn scalings<F: PrimeField + FftField>(
    packing: Packing,
    direction: Direction,
    coset: Option<F>,
    input_order: Order,
    output_order: Order,
    n: usize,
) -> Result<(Vec<F>, Vec<F>)> {
    let bits = n.trailing_zeros();
    let slots = 2 * packing.row();
    let input_index = |p: usize| {
        let i = packing.index_of(p);
        if input_order == Order::BitReversed {
            crate::stages::bit_reverse(i, bits)
        } else {
            i
        }
    };
    let output_index = |p: usize| {
        let i = packing.index_of(p);
        if output_order == Order::BitReversed {
            crate::stages::bit_reverse(i, bits)
        } else {
            i
        }
    };
    let ones = vec![F::one(); slots];
    if coset.is_some_and(|g| g.is_zero()) {
        return Err(Error::InvalidCosetOffset);
    }
    Ok(match direction {
        Direction::Forward => {
            let scale_in = match coset {
                Some(g) => (0..slots).map(|p| g.pow([input_index(p) as u64])).collect(),
                None => ones.clone(),
            };
            (scale_in, ones)
        }
        Direction::Inverse => {
            let n_inv = F::from(n as u64).inverse().unwrap_or(F::one());
            let scale_out = match coset {
                Some(g) => {
                    let g_inv = g.inverse().ok_or(Error::InvalidCosetOffset)?;
                    (0..slots)
                        .map(|p| g_inv.pow([output_index(p) as u64]) * n_inv)
                        .collect()
                }
                None => vec![n_inv; slots],
            };
            (ones, scale_out)
        }
    })
}

/// The radix-2 stages with the scalings folded in, grouped into `levels`.
pub(super) fn factored<F: PrimeField + FftField>(
    packing: Packing,
    omega: F,
    order: Order,
    levels: usize,
    scale_in: &[F],
    scale_out: &[F],
) -> Vec<SlotTransform<F>> {
    let mut stages = radix2_stages(packing, omega, order);
    if let Some(first) = stages.first_mut() {
        *first = first.after_scaling(scale_in);
    }
    if let Some(last) = stages.last_mut() {
        *last = last.then_scaling(scale_out);
    }
    group_stages(&stages, levels)
}
