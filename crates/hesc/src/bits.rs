//! Bit streams: the L-bit sequences stochastic numbers are made of.

use std::fmt;

use crate::error::{Error, Result};

const WORD: usize = 64;

/// A sequence of bits, packed 64 to a word.
///
/// Bits past the length are always zero, so words can be compared and
/// counted directly.
///
/// ```
/// use hesc::BitStream;
///
/// let a = BitStream::from_bools(&[true, false, true, true]);
/// let b = BitStream::from_bools(&[false, false, true, false]);
/// assert_eq!(a.count_ones(), 3);
/// assert_eq!(a.xor(&b)?.to_bools(), [true, false, false, true]);
/// assert_eq!(a.concat(&b).len(), 8);
/// # Ok::<(), hesc::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, Default)]
pub struct BitStream {
    words: Vec<u64>,
    len: usize,
}

impl BitStream {
    /// `len` zero bits.
    pub fn zeros(len: usize) -> Self {
        Self {
            words: vec![0; len.div_ceil(WORD)],
            len,
        }
    }

    /// `len` one bits.
    pub fn ones(len: usize) -> Self {
        let mut stream = Self {
            words: vec![u64::MAX; len.div_ceil(WORD)],
            len,
        };
        stream.clear_tail();
        stream
    }

    /// A stream holding `bits` in order.
    pub fn from_bools(bits: &[bool]) -> Self {
        let mut stream = Self::zeros(bits.len());
        for (i, &bit) in bits.iter().enumerate() {
            stream.set(i, bit);
        }
        stream
    }

    /// A stream of `len` bits where bit i is `f(i)`.
    pub fn from_fn(len: usize, mut f: impl FnMut(usize) -> bool) -> Self {
        let mut stream = Self::zeros(len);
        for i in 0..len {
            if f(i) {
                stream.set(i, true);
            }
        }
        stream
    }

    /// The number of bits L.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the stream has no bits.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Bit `index`, or `None` past the end.
    pub fn get(&self, index: usize) -> Option<bool> {
        (index < self.len).then(|| self.words[index / WORD] >> (index % WORD) & 1 == 1)
    }

    /// Sets bit `index`; does nothing past the end.
    pub fn set(&mut self, index: usize, bit: bool) {
        if index >= self.len {
            return;
        }
        let mask = 1u64 << (index % WORD);
        let word = &mut self.words[index / WORD];
        if bit {
            *word |= mask;
        } else {
            *word &= !mask;
        }
    }

    /// The bits as booleans.
    pub fn to_bools(&self) -> Vec<bool> {
        self.iter().collect()
    }

    /// The bits in order.
    pub fn iter(&self) -> impl Iterator<Item = bool> + '_ {
        (0..self.len).map(move |i| self.words[i / WORD] >> (i % WORD) & 1 == 1)
    }

    /// The Hamming weight HW: the number of one bits.
    pub fn count_ones(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Bit-wise XOR (stochastic multiplication in inverted bipolar).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the lengths differ.
    pub fn xor(&self, other: &Self) -> Result<Self> {
        self.zip_words(other, |a, b| a ^ b)
    }

    /// Bit-wise AND (stochastic multiplication in unipolar).
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the lengths differ.
    pub fn and(&self, other: &Self) -> Result<Self> {
        self.zip_words(other, |a, b| a & b)
    }

    /// Bit-wise OR.
    ///
    /// # Errors
    /// [`Error::LengthMismatch`] when the lengths differ.
    pub fn or(&self, other: &Self) -> Result<Self> {
        self.zip_words(other, |a, b| a | b)
    }

    /// The complement S̄.
    pub fn not(&self) -> Self {
        let mut out = Self {
            words: self.words.iter().map(|w| !w).collect(),
            len: self.len,
        };
        out.clear_tail();
        out
    }

    /// `self ‖ other`: the bits of `self` followed by those of `other`.
    pub fn concat(&self, other: &Self) -> Self {
        let mut out = self.clone();
        out.extend(other);
        out
    }

    /// Appends the bits of `other`.
    pub fn extend(&mut self, other: &Self) {
        let start = self.len;
        self.len += other.len;
        self.words.resize(self.len.div_ceil(WORD), 0);
        if start.is_multiple_of(WORD) {
            self.words[start / WORD..start / WORD + other.words.len()]
                .copy_from_slice(&other.words);
        } else {
            for (i, bit) in other.iter().enumerate() {
                self.set(start + i, bit);
            }
        }
    }

    /// The concatenation of all `parts`, in order.
    pub fn concat_all<'a>(parts: impl IntoIterator<Item = &'a BitStream>) -> Self {
        let mut out = Self::default();
        for part in parts {
            out.extend(part);
        }
        out
    }

    /// Bits `start .. start + len`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the range runs past the end.
    pub fn slice(&self, start: usize, len: usize) -> Result<Self> {
        let end = start
            .checked_add(len)
            .filter(|&end| end <= self.len)
            .ok_or_else(|| {
                Error::InvalidArgument(format!(
                    "bits {start}..{start}+{len} are outside a stream of {} bits",
                    self.len
                ))
            })?;
        Ok(Self::from_fn(end - start, |i| {
            self.words[(start + i) / WORD] >> ((start + i) % WORD) & 1 == 1
        }))
    }

    /// The packed words (bit i is bit i % 64 of word i / 64; bits past the
    /// length are zero).
    pub fn words(&self) -> &[u64] {
        &self.words
    }

    fn zip_words(&self, other: &Self, f: impl Fn(u64, u64) -> u64) -> Result<Self> {
        if self.len != other.len {
            return Err(Error::LengthMismatch {
                left: self.len,
                right: other.len,
            });
        }
        Ok(Self {
            words: self
                .words
                .iter()
                .zip(&other.words)
                .map(|(&a, &b)| f(a, b))
                .collect(),
            len: self.len,
        })
    }

    fn clear_tail(&mut self) {
        let used = self.len % WORD;
        if used != 0 {
            if let Some(last) = self.words.last_mut() {
                *last &= (1u64 << used) - 1;
            }
        }
    }
}

impl fmt::Debug for BitStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        const SHOWN: usize = 64;
        let head: String = self
            .iter()
            .take(SHOWN)
            .map(|b| if b { '1' } else { '0' })
            .collect();
        let more = if self.len > SHOWN { "…" } else { "" };
        write!(f, "BitStream[{}; {head}{more}]", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(len: usize, seed: usize) -> BitStream {
        BitStream::from_fn(len, |i| (i * 7 + seed).is_multiple_of(3))
    }

    #[test]
    fn set_get_count_and_tail() {
        let mut s = BitStream::zeros(130);
        s.set(0, true);
        s.set(64, true);
        s.set(129, true);
        s.set(500, true); // ignored
        assert_eq!(s.count_ones(), 3);
        assert_eq!(s.get(129), Some(true));
        assert_eq!(s.get(130), None);
        assert_eq!(BitStream::ones(130).count_ones(), 130);
        assert_eq!(BitStream::ones(130).not().count_ones(), 0);
        assert_eq!(s.not().count_ones(), 127);
    }

    #[test]
    fn logic_matches_booleans() {
        let (a, b) = (pattern(100, 1), pattern(100, 2));
        let (x, y) = (a.to_bools(), b.to_bools());
        let check = |got: BitStream, f: fn(bool, bool) -> bool| {
            let want: Vec<bool> = x.iter().zip(&y).map(|(&p, &q)| f(p, q)).collect();
            assert_eq!(got.to_bools(), want);
        };
        check(a.xor(&b).unwrap(), |p, q| p ^ q);
        check(a.and(&b).unwrap(), |p, q| p & q);
        check(a.or(&b).unwrap(), |p, q| p | q);
        assert!(matches!(
            a.xor(&pattern(99, 0)),
            Err(Error::LengthMismatch {
                left: 100,
                right: 99
            })
        ));
    }

    #[test]
    fn concat_and_slice_round_trip() {
        for (la, lb) in [(0, 5), (64, 64), (3, 70), (100, 29)] {
            let (a, b) = (pattern(la, 1), pattern(lb, 2));
            let ab = a.concat(&b);
            assert_eq!(ab.len(), la + lb);
            assert_eq!(ab.count_ones(), a.count_ones() + b.count_ones());
            assert_eq!(ab.slice(0, la).unwrap(), a);
            assert_eq!(ab.slice(la, lb).unwrap(), b);
            let mut bools = a.to_bools();
            bools.extend(b.to_bools());
            assert_eq!(ab.to_bools(), bools);
        }
        assert!(pattern(10, 0).slice(5, 6).is_err());
        assert!(pattern(10, 0).slice(usize::MAX, 2).is_err());
    }
}
