//! How a polynomial is spread over ciphertexts: blocks at multiples of a stride.

use std::fmt;

use crate::error::{Error, Result};

/// The placement of a polynomial's coefficients in blocks.
///
/// Block i holds a plaintext polynomial of degree below `width` and stands
/// for its product with X^(origin + i·stride); blocks may overlap (a product
/// block has `2·stride − 1` coefficients). The polynomial is the sum of the
/// blocks with every term of negative exponent dropped (a quotient by X^k
/// moves the origin down by k) and has `len` coefficients (degree < len).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BlockLayout {
    /// Exponent distance between consecutive blocks.
    pub stride: usize,
    /// Coefficients each block's plaintext may occupy (degree < width).
    pub width: usize,
    /// Exponent of block 0 (≤ 0 once low coefficients are cut off).
    pub origin: i64,
    /// Coefficients of the polynomial.
    pub len: usize,
}

impl fmt::Display for BlockLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "stride {}, width {}, origin {}, {} coefficients",
            self.stride, self.width, self.origin, self.len
        )
    }
}

impl BlockLayout {
    /// The layout of a fresh polynomial of `len` coefficients in blocks of `stride`.
    pub fn fresh(stride: usize, len: usize) -> Self {
        Self {
            stride,
            width: stride,
            origin: 0,
            len,
        }
    }

    /// The number of blocks a fresh polynomial of this layout has.
    ///
    /// # Panics
    /// When the stride is 0 (no polynomial has that layout).
    pub fn fresh_blocks(&self) -> usize {
        self.len.div_ceil(self.stride).max(1)
    }

    /// The exponent block `index` starts at, origin + index·stride. The
    /// exponents of a polynomial's layout fit in an i64; for other layouts
    /// the value is clamped to the range of i64.
    pub fn block_exponent(&self, index: usize) -> i64 {
        match self.exponent(index) {
            Some(exponent) => clamp_to_i64(exponent),
            // Only a product beyond i128 overflows, and it is positive.
            None => i64::MAX,
        }
    }

    /// The exponent block `index` starts at, or `None` when it does not fit
    /// in an i64.
    pub(crate) fn checked_block_exponent(&self, index: usize) -> Option<i64> {
        i64::try_from(self.exponent(index)?).ok()
    }

    /// origin + index·stride exactly, unless the product overflows an i128.
    fn exponent(&self, index: usize) -> Option<i128> {
        let offset = wide(index).checked_mul(wide(self.stride))?;
        offset.checked_add(i128::from(self.origin))
    }

    /// The layout of the product of polynomials laid out as `self` and
    /// `other` (all c_a + c_b − 1 blocks), or why there is none.
    ///
    /// # Errors
    /// [`Error::LayoutMismatch`] for different strides; [`Error::PendingCut`]
    /// for a cut-off operand; [`Error::WouldWrap`] when a product block would
    /// exceed `ring_degree` coefficients.
    pub fn product(&self, other: &Self, ring_degree: usize) -> Result<Self> {
        if self.stride != other.stride {
            return Err(Error::LayoutMismatch {
                left: self.to_string(),
                right: other.to_string(),
            });
        }
        for layout in [self, other] {
            if layout.origin != 0 {
                return Err(Error::PendingCut {
                    cut: usize::try_from(layout.origin.unsigned_abs()).unwrap_or(usize::MAX),
                });
            }
        }
        // Saturated, a sum beyond usize is still more than the ring holds.
        let width = self.width.saturating_add(other.width).saturating_sub(1);
        if width > ring_degree {
            return Err(Error::WouldWrap { width, ring_degree });
        }
        // A polynomial without coefficients is zero, and so is its product.
        let len = match (self.len, other.len) {
            (0, _) | (_, 0) => 0,
            (a, b) => a.checked_add(b - 1).ok_or(Error::TooLong {
                len: a,
                max: usize::MAX - (b - 1),
            })?,
        };
        Ok(Self {
            stride: self.stride,
            width,
            origin: 0,
            len,
        })
    }

    /// The first block of this layout that reaches exponent `cut` or above,
    /// and the layout of the polynomial ⌊self / X^cut⌋ made of the blocks from
    /// there on.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when nothing is left above X^cut.
    pub fn cut_below(&self, cut: usize) -> Result<(usize, Self)> {
        if cut >= self.len {
            return Err(Error::InvalidArgument(format!(
                "the polynomial has {} coefficients, none at X^{cut} or above",
                self.len
            )));
        }
        let out_of_range = || {
            Error::InvalidArgument(format!(
                "no block of the layout ({self}) starts at an exponent an i64 holds near X^{cut}"
            ))
        };
        if self.stride == 0 {
            return Err(Error::InvalidArgument(format!(
                "the layout ({self}) has a stride of 0"
            )));
        }
        // In i128 every value here is exact: |cut|, width, stride < 2^64, |origin| <= 2^63.
        let cut_at = wide(cut) - i128::from(self.origin);
        // Block k spans [k·stride, k·stride + width) relative to the origin.
        let width = wide(self.width);
        let first = if cut_at < width {
            0
        } else {
            (cut_at - width) / wide(self.stride) + 1
        };
        let first = usize::try_from(first).map_err(|_| out_of_range())?;
        let origin = self
            .exponent(first)
            .and_then(|start| i64::try_from(start - wide(cut)).ok())
            .ok_or_else(out_of_range)?;
        Ok((
            first,
            Self {
                stride: self.stride,
                width: self.width,
                origin,
                len: self.len - cut,
            },
        ))
    }

    /// Checks that `self` and `other` can be added block by block.
    ///
    /// # Errors
    /// [`Error::LayoutMismatch`] for different strides or origins.
    pub fn ensure_addable(&self, other: &Self) -> Result<()> {
        if self.stride == other.stride && self.origin == other.origin {
            Ok(())
        } else {
            Err(Error::LayoutMismatch {
                left: self.to_string(),
                right: other.to_string(),
            })
        }
    }

    /// The layout of a sum: the wider blocks, the longer polynomial.
    pub fn sum(&self, other: &Self) -> Self {
        Self {
            width: self.width.max(other.width),
            len: self.len.max(other.len),
            ..*self
        }
    }
}

/// A size as an i128 (exact: sizes have at most 64 bits).
fn wide(size: usize) -> i128 {
    i128::try_from(size).unwrap_or(i128::MAX)
}

/// `value` clamped to the range of i64.
fn clamp_to_i64(value: i128) -> i64 {
    let clamped = value.clamp(i128::from(i64::MIN), i128::from(i64::MAX));
    i64::try_from(clamped).unwrap_or(i64::MAX)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn product_layouts_add_widths_and_lengths() {
        let a = BlockLayout::fresh(512, 2000);
        let b = BlockLayout::fresh(512, 700);
        assert_eq!((a.fresh_blocks(), b.fresh_blocks()), (4, 2));
        let p = a.product(&b, 1024).unwrap();
        assert_eq!((p.width, p.len, p.origin), (1023, 2699, 0));
        assert!(matches!(
            p.product(&a, 1024),
            Err(Error::WouldWrap { width: 1534, .. })
        ));
        assert!(matches!(
            a.product(&BlockLayout::fresh(256, 10), 1024),
            Err(Error::LayoutMismatch { .. })
        ));
        assert_eq!(BlockLayout::fresh(512, 0).fresh_blocks(), 1);
    }

    #[test]
    fn cutting_keeps_exactly_the_blocks_that_reach_the_cut() {
        // Product of two 4-block polynomials: 7 blocks of width 1023, stride 512.
        let p = BlockLayout::fresh(512, 2048)
            .product(&BlockLayout::fresh(512, 2048), 1024)
            .unwrap();
        // Block 2 spans [1024, 2047), block 3 [1536, 2559): the cut 2048 needs blocks from 3 on.
        let (first, q) = p.cut_below(2048).unwrap();
        assert_eq!(first, 3);
        assert_eq!((q.origin, q.len, q.width), (1536 - 2048, 4095 - 2048, 1023));
        assert_eq!(p.cut_below(0).unwrap().0, 0);
        // Block 0 spans [0, 1023): a cut at 1022 still needs it, 1023 does not.
        assert_eq!(p.cut_below(1022).unwrap().0, 0);
        assert_eq!(p.cut_below(1023).unwrap().0, 1);
        assert!(p.cut_below(4095).is_err());
        // Cutting twice composes.
        let (first2, q2) = q.cut_below(100).unwrap();
        assert_eq!(first2, 0);
        assert_eq!(q2.origin, q.origin - 100);
        assert!(q.ensure_addable(&q).is_ok());
        assert!(q.ensure_addable(&p).is_err());
    }
}
