//! Input owners: additive shares of a witness for the computing parties.

use ark_ff::PrimeField;
use rand::{CryptoRng, RngCore};
use zeroize::{Zeroize, ZeroizeOnDrop};

use crate::buffered_rng::BufferedRng;
use crate::error::{Error, Result};

/// A computing party's additive share of the witness (the assignment
/// without the constant one and the public inputs, which are public).
/// Overwritten with zeros when dropped.
#[derive(Clone, PartialEq, Eq)]
pub struct WitnessShare<F: PrimeField> {
    values: Vec<F>,
}

impl<F: PrimeField> Zeroize for WitnessShare<F> {
    fn zeroize(&mut self) {
        self.values.iter_mut().for_each(Zeroize::zeroize);
    }
}

impl<F: PrimeField> Drop for WitnessShare<F> {
    fn drop(&mut self) {
        self.zeroize();
    }
}

impl<F: PrimeField> ZeroizeOnDrop for WitnessShare<F> {}

impl<F: PrimeField> std::fmt::Debug for WitnessShare<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "WitnessShare({} values)", self.values.len())
    }
}

impl<F: PrimeField> WitnessShare<F> {
    /// A share from its values.
    pub fn new(values: Vec<F>) -> Self {
        Self { values }
    }
    /// The share's values.
    pub fn values(&self) -> &[F] {
        &self.values
    }
    /// The element-wise sum with `other` (an input owner holding part of
    /// the witness adds its sharing to the others').
    ///
    /// # Errors
    /// [`Error::WrongLength`] for shares of different lengths.
    pub fn add(&self, other: &Self) -> Result<Self> {
        if self.values.len() != other.values.len() {
            return Err(Error::WrongLength {
                what: "witness share",
                expected: self.values.len(),
                got: other.values.len(),
            });
        }
        Ok(Self::new(
            self.values
                .iter()
                .zip(&other.values)
                .map(|(a, b)| *a + b)
                .collect(),
        ))
    }
}

/// Splits `witness` into `parties` additive shares: all but the last are
/// uniformly random, and they sum to `witness`. An input owner holding only
/// part of the witness shares a vector with zeros elsewhere, and each party
/// adds the sharings it receives ([`WitnessShare::add`]).
///
/// ```
/// use ark_bn254::Fr;
/// use he_cosnark::share_witness;
/// let witness = vec![Fr::from(3u64), Fr::from(4u64)];
/// let shares = share_witness(&witness, 3, &mut rand::rngs::OsRng)?;
/// let sum: Vec<Fr> = (0..2).map(|i| shares.iter().map(|s| s.values()[i]).sum()).collect();
/// assert_eq!(sum, witness);
/// assert!(shares.iter().all(|s| s.values() != witness.as_slice()));
/// # Ok::<(), he_cosnark::Error>(())
/// ```
///
/// `rng` is read 4 KiB at a time (through a buffer wiped afterwards): an
/// operating-system generator such as `OsRng` pays a system call per read,
/// and a large witness takes millions of words.
///
/// # Errors
/// [`Error::InvalidArgument`] for no parties.
pub fn share_witness<F: PrimeField, R: RngCore + CryptoRng>(
    witness: &[F],
    parties: u32,
    rng: &mut R,
) -> Result<Vec<WitnessShare<F>>> {
    if parties == 0 {
        return Err(Error::InvalidArgument("no parties to share with".into()));
    }
    let mut rng = BufferedRng::new(rng);
    let mut last = WitnessShare::new(witness.to_vec());
    let mut shares: Vec<WitnessShare<F>> = (1..parties)
        .map(|_| {
            let share: Vec<F> = witness.iter().map(|_| F::rand(&mut rng)).collect();
            for (l, s) in last.values.iter_mut().zip(&share) {
                *l -= s;
            }
            WitnessShare::new(share)
        })
        .collect();
    shares.push(last);
    Ok(shares)
}
