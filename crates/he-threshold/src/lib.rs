//! N-out-of-N threshold BGV over the `helib-rs` engine.
//!
//! Each of N parties holds a secret share `s_i` of a collective secret
//! `s = Σ s_i` that nobody ever forms. Following Mouchet, Troncoso-Pastoriza,
//! Bossuat and Hubaux ("Multiparty homomorphic encryption from ring-learning-
//! with-errors", PoPETs 2021), the parties jointly make
//!
//! - the collective **public key** (one round; the common polynomial comes
//!   from a seed derived from the session id),
//! - the collective **relinearization key** (two rounds) and **Galois keys**
//!   (one round per element),
//!
//! all as ordinary [`helib_rs`] key objects, so any computation (`he-fft`,
//! `he-poly`) runs on them unchanged, and then, on a ciphertext,
//!
//! - **collective decryption** ([`Party::decryption_share`], [`Session::decrypt`]),
//! - **encryption to shares**: every party ends with an additive share in
//!   `Z_t` of every coefficient, nobody learns the value
//!   ([`Party::encryption_to_shares`], [`Session::open_masked`],
//!   [`AdditiveShare::absorb_opening`]),
//! - **shares to encryption** ([`Party::shares_to_encryption`], [`Session::shares_to_encryption`]),
//! - **collective key switching** to another public key ([`Party::key_switch_share`], [`Session::key_switch`]).
//!
//! Shares that depend on a ciphertext carry **smudging noise** `t·E`, `E`
//! uniform in `[-2^k, 2^k)` with `2^k ≥ 2^λ · N · ||e||` for the ciphertext's
//! error bound `||e||` (from the engine's noise estimate) and the statistical
//! parameter λ ([`DEFAULT_SECURITY_BITS`] = 40). When the smudging of all
//! parties does not fit the ciphertext's modulus, no share is released;
//! [`with_smudging_room`] sizes parameters with the extra modulus needed.
//!
//! Every share travels as a [`ShareMessage`] (checksummed wire format) bound
//! to the context fingerprint, the session id, the party index, the protocol
//! step, a run number and, where it applies, the digest of the ciphertext.
//! An [`Aggregator`] checks each share before adding it and names the party
//! at fault; a missing share is an error, and combined decryption shares that
//! do not decrypt (a share computed dishonestly or on another ciphertext) are
//! caught by the engine's noise check.
//!
//! # Security model
//! Passive (honest-but-curious) parties, as in the paper: the checks above
//! catch accidents, replays and random forgeries, but a malicious party that
//! sends a well-formed share with a small deliberate offset can shift a
//! decrypted value undetected (detecting that needs zero-knowledge proofs of
//! correct share computation, which this crate does not have).
//!
//! # t-out-of-N
//! Not implemented. The intended design keeps key generation N-out-of-N and
//! then re-shares: each party Shamir-shares its `s_i` (per RNS prime, a
//! random polynomial of degree t−1 with constant term `s_i`, evaluated at the
//! party indices 1..N), each party sums what it receives into `S_j`, and for
//! an active set T of at least t parties, party j uses `λ_j(T)·S_j mod Q`
//! (its Lagrange coefficient at 0) as its additive share in decryption,
//! encryption to shares and key switching. Since those shares are summed over
//! T into `c_1·s` plus smudging, no key's noise changes. What is missing is
//! engine support for a secret share given as RNS residues rather than as a
//! ternary secret key in the decryption-share, encryption-to-shares and
//! key-switching paths, the re-sharing messages (typed and validated like
//! the others) and their tests; it was left out rather than shipped
//! untested (the threshold `t` here is a number of parties, not the
//! plaintext modulus).
//!
//! # Secret memory
//! A party's secret share `s_i` and its ephemeral relinearization secret are
//! engine secret keys, whose memory the engine wipes when they are dropped.
//! An [`AdditiveShare`] overwrites its coefficients with zeros when dropped
//! (`zeroize`), and [`AdditiveShare::absorb_opening`] adds in place, so no
//! intermediate copy of a share is left in freed memory. The shares and
//! messages a party sends are public by design (smudged or masked).
//!
//! # Noise of collective keys
//! The collective keys carry more noise than single-party ones: the errors of
//! N parties add up, and the relinearization key's error is `s·e0 + u·e1 + e2`
//! with `s`, `u` sums of N ternary secrets and `e0, e1, e2` sums of N
//! Gaussians (about `log2(N·√n)` bits above a single key's, for ring degree
//! `n`). The assembled keys record their number of parties, and the engine's
//! noise estimates after relinearizing, rotating or a linear transform use
//! it, so budgets stay conservative. The collective relinearization and
//! Galois keys serialize through the engine's checked format (version 2,
//! which stores the number of parties and, for the relinearization key, its
//! `a` polynomials in full, since they are sums of the parties' shares rather
//! than expansions of a seed).

mod error;
mod message;
mod params;
mod party;
mod session;
mod shamir;

pub use error::{Error, Result};
pub use message::{Binding, ShareMessage, Step};
pub use params::with_smudging_room;
pub use party::{AdditiveShare, Party};
pub use session::{Aggregate, Aggregator, Session, DEFAULT_SECURITY_BITS, MAX_PARTIES};
pub use shamir::{ActiveParty, ActiveSet, DealingMessage, ShamirShare};
