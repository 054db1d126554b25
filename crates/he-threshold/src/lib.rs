//! Threshold BGV over the `helib-rs` engine: N-out-of-N, and t-out-of-N by
//! Shamir re-sharing.
//!
//! Each of N parties holds a secret share `s_i` of a collective secret
//! `s = Σ s_i` that nobody ever forms. Following Mouchet, Troncoso-Pastoriza,
//! Bossuat and Hubaux ("Multiparty homomorphic encryption from ring-learning-
//! with-errors", PoPETs 2021), the parties jointly make
//!
//! - the collective **public key** (one round; the common polynomial comes
//!   from a seed derived from the session id),
//! - the collective **relinearization key** (two rounds, the first as
//!   commit-then-open: [`Party::relin_key_commit`], [`Party::relin_key_open`],
//!   [`Party::relin_key_round2`]) and **Galois keys** (one round per element),
//!
//! all as ordinary [`helib_rs`] key objects, so any computation (`he-fft`,
//! `he-poly`) runs on them unchanged, and then, on a ciphertext,
//!
//! - **collective decryption** ([`Party::decryption_share`], [`Session::decrypt`]),
//! - **encryption to shares**: every party ends with an additive share in
//!   `Z_t` of every coefficient, nobody learns the value
//!   ([`Party::encryption_to_shares`], [`Session::open_masked`],
//!   [`AdditiveShare::absorb_opening`]); also straight from a size-3
//!   product, which each party switches down and relinearizes itself, so
//!   that whoever computed it never switches it and whoever opens never
//!   relinearizes ([`SwitchedProduct`], [`Party::encryption_to_shares_of_product`],
//!   [`Session::product_aggregator`], [`Session::open_masked_product`]),
//! - **shares to encryption** ([`Party::shares_to_encryption`], [`Session::shares_to_encryption`]),
//! - **collective key switching** to another public key ([`Party::key_switch_share`], [`Session::key_switch`]).
//!
//! Shares that depend on a ciphertext carry **smudging noise** `t·E`, `E`
//! uniform in `[-2^k, 2^k)` with `2^k ≥ 2^λ · N · ||e||` for the error bound
//! `||e||` the parties agreed to and the statistical parameter λ
//! ([`DEFAULT_SECURITY_BITS`] = 40). The bound comes from a
//! [`Smudging`](helib_rs::threshold::Smudging) spec fixed before the
//! ciphertext is seen ([`Session::smudging`]: the level the agreed
//! computation ends at, and by default the most noise that level can hold),
//! never from the noise estimate a ciphertext carries, which travels in its
//! bytes and could be forged low by whoever hands it over. A ciphertext at
//! another level, or claiming more noise than the bound, is refused before
//! any share is released; [`with_smudging_room`] sizes parameters with the
//! extra modulus needed.
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
//! Passive (honest-but-curious) parties, as in the paper, with these defences
//! against a party or server that deviates:
//!
//! - **Smudging no sender controls**: the width depends on the session's
//!   parameters, parties, λ and the agreed level only (above).
//! - **No rushing in key generation**: round 1 of the relinearization key is
//!   commit-then-open, so a party that sends last cannot choose its share
//!   from the others' (with sums `h0 = 1, h1 = 0` every honest round-2 share
//!   would be `s_i + t·e`, its secret share in the clear). A commitment
//!   covers the share message's BLAKE3 checksum (over every residue), so
//!   binding rests on BLAKE3's collision resistance and a party hashes its
//!   share once. The aggregator checks each opening's commitment-set digest
//!   and the opening against its commitment; a party releases its
//!   round-2 share only for the aggregate of its own session and run under
//!   the commitment set it opened under; and the engine refuses round-1 sums
//!   no honest run produces (a digit with half its coefficients near zero).
//!   An aggregator colluding with a party can still hand out a forged sum
//!   that passes that check: a party that trusts no aggregator runs the
//!   [`Aggregator`] itself over the broadcast openings.
//! - **Bindings**: every share names its session, run, step, level and
//!   ciphertext, and is checked before it is added.
//!
//! What stays outside the model: a malicious party that sends a well-formed
//! share with a small deliberate offset can shift a decrypted value
//! undetected (detecting that needs zero-knowledge proofs of correct share
//! computation, which this crate does not have); and a server that computes
//! something other than the agreed computation at the agreed level can put
//! more noise into a ciphertext than the bound, which the smudging then does
//! not hide. The combination detects that (the noise check fails), but only
//! after the shares were sent. Decrypt only ciphertexts whose computation you
//! agreed to, and never hand a plain decryption share to a party that should
//! not learn the plaintext.
//!
//! # t-out-of-N
//! Key generation stays N-out-of-N; afterwards the parties **re-share** their
//! secret shares with Shamir's scheme so that any `threshold` of them
//! (`threshold` is a number of parties, not the plaintext modulus) can
//! decrypt, convert to shares or switch keys:
//!
//! 1. Each party deals ([`Party::shamir_dealings`]): per chain prime and NTT
//!    coefficient of its `s_i`, a random polynomial `f_i` of degree
//!    `threshold − 1` with `f_i(0) = s_i` (coefficients from the operating
//!    system's random source), evaluated at the party points `1..=N`; the
//!    evaluation at `j + 1` is a [`DealingMessage`] to party `j`.
//! 2. Each party sums the N dealings it received into its re-shared key
//!    `S_j = Σ_i f_i(j + 1)` ([`Party::reshare`], a [`ShamirShare`]); the
//!    dealings are checked first (context, session, recipient, run,
//!    threshold, length, reduced residues, one from every party), each error
//!    naming the dealer.
//! 3. For one operation, an [`ActiveSet`] `T` of at least `threshold` parties
//!    is agreed on, and each member becomes an [`ActiveParty`]
//!    ([`ShamirShare::activate`]) whose additive share is `λ_j(T)·S_j mod Q`
//!    (its Lagrange coefficient at 0, per prime), so that
//!    `Σ_{j∈T} λ_j(T)·S_j = s`. Its decryption, encryption-to-shares and
//!    key-switching shares are made by the same code as a [`Party`]'s (the
//!    engine takes the secret share in NTT form either way), and since they
//!    sum to `c_1·s` plus smudging as before, no key and no noise changes.
//!    They are bound to the set's digest; [`Session::active_aggregator`]
//!    takes shares of members only, computed for this set, from every member,
//!    and the session's finishing steps ([`Session::decrypt`],
//!    [`Session::open_masked`], [`Session::key_switch`]) are unchanged. The
//!    smudging stays sized for all N parties (conservative for smaller sets).
//!
//! Trust model, beyond the passive model above: re-sharing runs once after
//! key generation, while all N parties are present; a dealing is secret
//! (`threshold` dealings of one party reveal its `s_i`) and must travel over
//! a private, authenticated channel to its recipient only; dealings are
//! **not verifiable**: a malicious dealer that sends inconsistent points
//! (not on one polynomial of degree `threshold − 1`) is not detected, and
//! only shows as active sets that fail to decrypt. Verifiable secret sharing
//! (commitments to the dealt polynomials) is not implemented. Shares of the
//! N-out-of-N secret keys (`s_i`) stay valid after re-sharing, so a party
//! must keep both as secret as before.

//! # Secret memory
//! A party's secret share `s_i` and its ephemeral relinearization secret are
//! engine secret keys, whose memory the engine wipes when they are dropped;
//! so are a [`ShamirShare`] and an [`ActiveParty`]'s share (engine residue
//! shares), and a [`DealingMessage`] zeroizes its residues when dropped.
//! An [`AdditiveShare`] overwrites its coefficients with zeros when dropped
//! (`zeroize`), and [`AdditiveShare::absorb_opening`] adds in place, so no
//! intermediate copy of a share is left in freed memory. The shares and
//! messages a party sends are public by design (smudged or masked).
//!
//! A [`ShamirShare`] also keeps its residues in a wiped buffer, for its
//! export (the engine has no export of a residue share). The exports of a
//! party's state and of a re-shared key are written in place into a wiped
//! buffer whose capacity is reserved up front (no reallocation leaves a
//! copy); import reads a party's key from the caller's slice straight into
//! engine memory, and a re-shared key's residues into one wiped buffer.
//! The checksum's hasher, which reads these secrets (and the dealings), is
//! wiped when dropped.
//!
//! # Between processes
//! When every role runs as its own process, what a party keeps and what a
//! server broadcasts cross process boundaries as bytes. Every format starts
//! with a 4-byte magic and a version byte, writes integers little-endian,
//! ends with a BLAKE3 checksum of everything before it (against corruption,
//! about twice SHA-256's speed on one core; the versions below are the
//! first with it, and a reader names an earlier version as no longer read,
//! before it looks at the checksum), and (except the
//! messages a party sends, which the aggregator checks) is read against a
//! [`Session`]: the context fingerprint and session id must be the
//! session's, or reading fails with [`Error::ForeignSession`] naming the
//! field; anything else inconsistent is [`Error::MalformedMessage`] naming
//! the field. Reading never panics, and memory grows only with the bytes
//! actually present, never with a length field.
//!
//! | format | magic | secret | contents after magic, version, fingerprint, session id |
//! |---|---|---|---|
//! | [`Party::export_secret`] / [`Party::import_secret`] | `HETP` | **yes**: the party's key share | parties `u32`, security bits `u32`, index `u32`, key length `u64`, the secret key share in the engine's checked format ([`helib_rs::SecretKey::export_secret`]) |
//! | [`ShamirShare::export_secret`] / [`ShamirShare::import_secret`] | `HETR` | **yes**: `threshold` of them give the collective secret | parties `u32`, security bits `u32`, index `u32`, threshold `u32`, residue count `u64`, residues `u64` (one chain share at the top level, NTT form, prime-major) |
//! | [`Commitments::to_bytes`] / [`Commitments::from_bytes`] | `HETL` | no | run `u64`, count `u32` (= parties), one 32-byte digest per party |
//! | [`Aggregate::to_bytes`] / [`Aggregate::from_bytes`] | `HETA` | no | binding as in a share message (run `u64`, step tag `u8` and argument `u64`, level `u32`, subject, active set), polynomial count `u32`, then per polynomial its length `u64` and residues `u64` |
//! | [`ShareMessage`] (`HETS`), [`Commitment`] (`HETC`), [`Opening`] (`HETO`) | | no | read without a session; the aggregator or collector checks them. Share messages, commitments and openings are at version 3 (an opening carries the commitment set's digest in its header and ends with a checksum of its header and its share's checksum) |
//! | [`DealingMessage`] | `HETD` | **yes** | read without a session; [`Party::reshare`] checks it. The others are at version 2 |
//!
//! A party's state is its index and secret share, bound to the session's
//! context, id, number of parties and λ; a party in the middle of a
//! relinearization-key run refuses to export it (the run's ephemeral secret
//! would be lost, so a restored party could not finish the run): finish the
//! run or drop it ([`Party::abandon_relin_key_run`]). An aggregate is read
//! only if an [`Aggregator`] of the session could have produced it: the
//! shape of its binding, the number of polynomials of its step, their
//! lengths for the moduli of that binding and every residue reduced.
//!
//! The secret formats take the engine's consent token
//! ([`helib_rs::ExportSecret`]) and come in wiped buffers
//! ([`Zeroizing`](helib_rs::zeroize::Zeroizing)). None of these formats is
//! encrypted or authenticated (the checksum is no MAC): encrypt the secret
//! ones before they leave the process, and authenticate the channel the
//! public ones travel on when their origin matters (`SECURITY.md`).
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

mod aggregate;
mod checksum;
mod error;
mod message;
mod params;
mod party;
mod product;
mod relin;
mod residues;
mod secret_export;
mod session;
mod shamir;
mod share_methods;

pub use aggregate::{Aggregate, Aggregator};
pub use error::{Error, Result};
pub use message::{Binding, ShareMessage, Step};
pub use params::with_smudging_room;
pub use party::{AdditiveShare, Party};
pub use product::SwitchedProduct;
pub use relin::{Commitment, CommitmentCollector, Commitments, Opening};
pub use session::{Session, DEFAULT_SECURITY_BITS, MAX_PARTIES};
pub use shamir::{ActiveParty, ActiveSet, DealingMessage, ShamirShare};
