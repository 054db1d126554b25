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
    pub fn fresh_blocks(&self) -> usize {
        self.len.div_ceil(self.stride).max(1)
    }

    /// The exponent block `index` starts at.
    pub fn block_exponent(&self, index: usize) -> i64 {
        self.origin + (index * self.stride) as i64
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
                    cut: layout.origin.unsigned_abs() as usize,
                });
            }
        }
        let width = self.width + other.width - 1;
        if width > ring_degree {
            return Err(Error::WouldWrap { width, ring_degree });
        }
        Ok(Self {
            stride: self.stride,
            width,
            origin: 0,
            len: self.len + other.len - 1,
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
        let cut_at = cut as i64 - self.origin;
        // Block k spans [k·stride, k·stride + width) relative to the origin.
        let width = self.width as i64;
        let first = if cut_at < width {
            0
        } else {
            ((cut_at - width) / self.stride as i64 + 1) as usize
        };
        Ok((
            first,
            Self {
                stride: self.stride,
                width: self.width,
                origin: self.block_exponent(first) - cut as i64,
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
