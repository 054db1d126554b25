//! Linear transforms of the slot vector, evaluated on ciphertexts by the
//! baby-step giant-step method.
//!
//! A slot vector has N entries: row 0 (slots `0..R`) then row 1 (slots
//! `R..N`), R = N/2. A rotation by `k` moves slot `(r, j + k)` to `(r, j)` in
//! both rows at once; the swap exchanges the rows. Every linear map on slots
//! can be written as `y = Σ D_(s,k) ⊙ rot_k(swap^s(x))` — at most 2R nonzero
//! "diagonals" `D`, keyed by their [`Shift`] `(s, k)`. Maps with few
//! diagonals (the stages of an FFT, for instance) are cheap to evaluate.
//!
//! The pieces, from data to ciphertexts:
//! - [`SlotTransform`]: the diagonals keyed by shift, composition, and the
//!   slot model [`SlotTransform::apply_plain`] that evaluates the map on plain
//!   values (the reference every encrypted evaluation must match);
//! - [`Schedule`]: the baby-step giant-step split chosen under a
//!   [`KeyPolicy`] ([`KeyMode`], a cap on baby steps and the expected runs
//!   per set of keys, which weighs key generation), with its cost and
//!   [`Schedule::required_galois_elements`] — known from the shifts alone;
//! - [`EncodedTransform`]: the diagonals encoded at one level, and
//!   [`EncodedTransform::apply`], one double-hoisted engine call
//!   ([`Ciphertext::linear_transform`](crate::Ciphertext::linear_transform))
//!   in [`KeyMode::Fast`]; [`PlainTransform`] keeps the diagonals as
//!   plaintexts and encodes them at each evaluation;
//! - [`io`]: saving and loading prepared transforms (they depend on public
//!   data only, so a server prepares them once for every client);
//! - [`verify`]: checking a loaded transform against the slot transform it
//!   claims to be ([`PreparedTransform::verify`] with a random
//!   [`Challenge`]), since a file's checksum authenticates nothing.
//!
//! ```
//! use ark_bn254::Fr;
//! use helib_rs::lintrans::{EncodedTransform, KeyMode, KeyPolicy, Shift, SlotTransform};
//! use helib_rs::{BatchEncoder, Context, GaloisKeys, Parameters, SecretKey};
//!
//! let context = Context::new(&Parameters::for_tests())?;
//! let sk = SecretKey::generate(&context)?;
//! let encoder = BatchEncoder::<Fr>::new(&context)?;
//! let n = encoder.slot_count();
//!
//! // A sum of x rotated by 0, 2, 4 and 6, each scaled by its own diagonal.
//! let mut t = SlotTransform::zero(n / 2);
//! for rotation in [0, 2, 4, 6] {
//!     let diagonal: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i + rotation as u64)).collect();
//!     t.add_term(Shift { swap: false, rotation }, &diagonal);
//! }
//! let policy = KeyPolicy { mode: KeyMode::MinimalKeys, max_baby_steps: 2, ..KeyPolicy::default() };
//! let x: Vec<Fr> = (0..n as u64).map(|i| Fr::from(i * i)).collect();
//! let ct = sk.encrypt(&encoder.encode(&x)?)?;
//! let encoded = EncodedTransform::new(&t, policy, &encoder, ct.level())?;
//! // Iterated baby steps: the unit step (2) and the giant step (4).
//! assert_eq!(encoded.required_galois_elements().len(), 2);
//! let keys = GaloisKeys::for_elements(&sk, &encoded.required_galois_elements())?;
//! let y = encoded.apply(&ct, &keys)?;
//! assert_eq!(encoder.decode(&sk.decrypt(&y)?)?, t.apply_plain(&x));
//! # Ok::<(), helib_rs::Error>(())
//! ```

mod diagonals;
mod encoded;
pub mod io;
mod schedule;
pub mod verify;

pub use diagonals::{Shift, SlotTransform};
pub use encoded::{EncodedTransform, PlainTransform, PreparedTransform};
pub use schedule::{KeyMode, KeyPolicy, Schedule, GALOIS_KEY_COST};
pub use verify::{Challenge, CheckedTerm};
