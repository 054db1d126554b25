//! Many independent encodings, encryptions and decryptions at once, spread
//! over rayon's thread pool.
//!
//! # Sharing the cores with the engine
//!
//! The engine has its own worker threads (`Parameters::threads`, 0 = one
//! per hardware thread) that split the work of *one* operation (its NTTs and
//! products over the RNS primes). The helpers here run *several* operations
//! side by side on rayon's global pool, each of which may in turn use the
//! engine's workers; the two pools do not coordinate. To keep one thread per
//! core, either give the engine one thread (`threads(1)`) and let rayon take
//! the cores (best for many small operations), or keep the engine's threads
//! and cap rayon (`RAYON_NUM_THREADS=1`, or a `rayon::ThreadPool` around the
//! call). Results come back in input order, and the first error is returned.

use ark_ff::PrimeField;
use rayon::prelude::*;

use crate::{BatchEncoder, Ciphertext, Plaintext, PublicKey, Result, SecretKey};

impl PublicKey {
    /// Encrypts every plaintext, in parallel (see
    /// [batches and threads](crate#batches-and-threads)).
    ///
    /// ```
    /// use helib_rs::ark_bn254::Fr;
    /// use helib_rs::{BatchEncoder, Context, Parameters, SecretKey};
    ///
    /// let context = Context::new(&Parameters::for_tests())?;
    /// let sk = SecretKey::generate(&context)?;
    /// let encoder = BatchEncoder::<Fr>::new(&context)?;
    /// let vectors: Vec<Vec<Fr>> = (0..3u64).map(|i| vec![Fr::from(i); 4]).collect();
    /// let plaintexts = encoder.encode_many(&vectors)?;
    /// let ciphertexts = sk.public_key()?.encrypt_many(&plaintexts)?;
    /// let decrypted = encoder.decode_many(&sk.decrypt_many(&ciphertexts)?)?;
    /// assert_eq!(decrypted[2][..4], vectors[2][..]);
    /// # Ok::<(), helib_rs::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`encrypt`](Self::encrypt), for the first plaintext that fails.
    pub fn encrypt_many(&self, plaintexts: &[Plaintext]) -> Result<Vec<Ciphertext>> {
        plaintexts.par_iter().map(|p| self.encrypt(p)).collect()
    }
}

impl SecretKey {
    /// Decrypts every ciphertext, in parallel.
    ///
    /// # Errors
    /// As [`decrypt`](Self::decrypt), for the first ciphertext that fails.
    pub fn decrypt_many(&self, ciphertexts: &[Ciphertext]) -> Result<Vec<Plaintext>> {
        ciphertexts.par_iter().map(|c| self.decrypt(c)).collect()
    }
}

impl<F: PrimeField> BatchEncoder<F> {
    /// Encodes every vector into its own plaintext, in parallel.
    ///
    /// # Errors
    /// As [`encode`](Self::encode), for the first vector that fails.
    pub fn encode_many<V: AsRef<[F]> + Sync>(&self, vectors: &[V]) -> Result<Vec<Plaintext>> {
        vectors
            .par_iter()
            .map(|v| self.encode(v.as_ref()))
            .collect()
    }

    /// Decodes every plaintext, in parallel.
    ///
    /// # Errors
    /// As [`decode`](Self::decode), for the first plaintext that fails.
    pub fn decode_many(&self, plaintexts: &[Plaintext]) -> Result<Vec<Vec<F>>> {
        plaintexts.par_iter().map(|p| self.decode(p)).collect()
    }
}

#[cfg(test)]
mod tests {
    use crate::{BatchEncoder, Context, Error, Parameters, SecretKey};
    use ark_bn254::Fr;

    #[test]
    fn batches_match_one_by_one_and_keep_their_order() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let sk = SecretKey::generate(&context).unwrap();
        let pk = sk.public_key().unwrap();
        let encoder = BatchEncoder::<Fr>::new(&context).unwrap();
        let vectors: Vec<Vec<Fr>> = (0..6u64)
            .map(|i| (0..8).map(|j| Fr::from(10 * i + j)).collect())
            .collect();
        let plaintexts = encoder.encode_many(&vectors).unwrap();
        for (p, v) in plaintexts.iter().zip(&vectors) {
            assert_eq!(p, &encoder.encode(v).unwrap());
        }
        let ciphertexts = pk.encrypt_many(&plaintexts).unwrap();
        let decoded = encoder
            .decode_many(&sk.decrypt_many(&ciphertexts).unwrap())
            .unwrap();
        for (d, v) in decoded.iter().zip(&vectors) {
            assert_eq!(d[..8], v[..]);
        }
        assert!(pk.encrypt_many(&[]).unwrap().is_empty());
    }

    #[test]
    fn the_first_error_of_a_batch_is_returned() {
        let context = Context::new(&Parameters::for_tests()).unwrap();
        let encoder = BatchEncoder::<Fr>::new(&context).unwrap();
        let too_long = vec![Fr::from(1u64); context.ring_degree() + 1];
        let result = encoder.encode_many(&[vec![Fr::from(2u64)], too_long]);
        assert!(
            matches!(
                result,
                Err(Error::InvalidPlaintext(_)) | Err(Error::InvalidArgument(_))
            ),
            "{result:?}"
        );
    }
}
