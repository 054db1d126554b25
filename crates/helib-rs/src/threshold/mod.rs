//! The engine's N-out-of-N threshold primitives: each party's shares of the
//! collective keys, decryption and encryption-to-shares shares with smudging
//! noise, shares-to-encryption and collective key switching.
//!
//! These are the single-party steps of the protocols of Mouchet et al.
//! ("Multiparty homomorphic encryption from RLWE"); the `he-threshold` crate
//! runs them as sessions with validated messages. A share is a polynomial as
//! residues in NTT form, prime-major: a *chain share* at level `l` has
//! `(l + 1) · N` residues modulo `q_0..q_l`
//! ([`chain_share_len`]); a *key share* has one polynomial modulo every prime
//! (chain, then special) per key-switching digit ([`key_share_len`]). Shares
//! are summed residue-wise ([`add_chain_shares`], [`add_key_shares`]); the
//! assembled keys are ordinary [`PublicKey`], [`RelinKey`] and [`GaloisKeys`].
//!
//! For t-out-of-N, a party re-shares its secret share with Shamir's scheme
//! ([`shamir_deal`]), sums the dealings it receives into a [`ResidueShare`]
//! ([`shamir_combine`]) and, for an active set of at least `threshold`
//! parties, activates it ([`ResidueShare::activate`]: its Lagrange
//! coefficient times the share). Every share function taking a
//! [`PartySecret`] accepts either a [`SecretKey`] or an activated
//! [`ResidueShare`].

mod decryption;
mod e2s;
mod galois_keys;
mod key_switch;
mod public_key;
mod relin_key;
mod s2e;
mod secret;
mod seed;
mod shamir;
mod shares;
mod smudging;

pub use decryption::{decrypt_combine, decrypt_combine_product, decrypt_share};
pub use e2s::{e2s_share, e2s_share_of_product};
pub use galois_keys::{galois_key_share, galois_keys_insert};
pub use key_switch::{key_switch_assemble, key_switch_share};
pub use public_key::{public_key_assemble, public_key_share};
pub use relin_key::{relin_key_assemble, relin_key_round1, relin_key_round2};
pub use s2e::{s2e_assemble, s2e_share};
pub use secret::{secret_key_sum, PartySecret};
pub use seed::{Seed, SEED_BYTES};
pub use shamir::{
    shamir_combine, shamir_deal, shamir_share_from_residues, ResidueShare, ResidueShareInfo,
};
pub use shares::{
    add_chain_shares, add_key_shares, chain_share_len, ciphertext_digest, key_share_len,
    share_is_reduced,
};
pub use smudging::Smudging;

#[cfg(doc)]
use crate::{GaloisKeys, PublicKey, RelinKey, SecretKey};
