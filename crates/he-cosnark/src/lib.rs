//! Collaborative Groth16 proofs on threshold BGV: N computing parties hold
//! additive shares of the witness, an untrusted server holds only
//! ciphertexts, and together they make a proof that the standard verifier
//! accepts. No party and no server ever sees the witness, the quotient h or
//! the proof's randomness.
//!
//! # The roles
//! - **Input owners** split the witness into additive shares, one per
//!   computing party ([`share_witness`]); several owners may each share
//!   their part, and each party adds the sharings it receives. The public
//!   inputs are public.
//! - **Computing parties** ([`ComputingParty`]) are the key holders of an
//!   [`he_threshold`] session. Per proof each evaluates the constraint rows
//!   on its share and interpolates them (inverse FFTs: linear, so local),
//!   splits the interpolants into ring elements (linear too, see
//!   [`ProofPlan`]), uploads them as shares to encryption (one ring
//!   element each), takes part in encryption to shares of the server's
//!   results, and computes its shares of A, B and C by multi-scalar
//!   multiplications on its own shares ([`msm`]: its shares are uniformly
//!   random, full-size scalars, on which batched affine additions beat
//!   ark-ec's MSM).
//! - The **server** ([`Server`]) sums the uploads into ciphertexts under
//!   the collective key, computes A·B modulo X^n + 1 (one ciphertext
//!   product per component, the product of the proof's two random scalars
//!   on a coefficient nothing else needs), aggregates every round, and
//!   combines and verifies the proof.
//!
//! # One proof: three rounds
//! Following ark-groth16's prover, with z the assignment, h the quotient and
//! r, s the randomness, `A = α + Σ z_i·a_i + r·δ`, `B = β + Σ z_i·b_i + s·δ`
//! (in G2, and in G1 for C) and
//! `C = Σ_witness z_i·l_i + Σ h_j·H_j + s·A + r·B_G1 − r·s·δ`. Everything is
//! linear in (z, h, r, s) but r·s, s·A and r·B_G1; A and B_G1 are opened
//! before C is formed, and r·s comes from the server under encryption.
//!
//! 1. **Upload**: party i draws r_i and s_i (r = Σ r_i and s = Σ s_i are
//!    uniform as long as one party is honest), sends shares to encryption
//!    of the components of its interpolant shares A_i, B_i, of r_i and of
//!    s_i·X^(N−1), and its shares of the proof's A, B and B_G1. The server
//!    sums them, multiplies the components pairwise, adds R·S (holding
//!    r·s at X^(N−1)) to the first and broadcasts the products as they
//!    are, of size 3 at the upload level, with the opened A and B_G1 (it
//!    first checks each party's B shares in G1 and G2 against each other). From its shares of the product (and of
//!    C when the product wraps) each party later gets its shares of h and
//!    r·s ([`ProofPlan`] says how).
//! 2. **Convert**: every party switches every product to the plan's
//!    conversion level (a deterministic step: every party gets the same
//!    ciphertext), relinearizes it with its copy of the collective
//!    relinearization key and sends its encryption-to-shares share of the
//!    result, bound to the product as the server computed it; the
//!    designated party's share also carries the relinearization's public
//!    part of c0. The server checks and sums the shares and sends the sums
//!    to the designated party (party 0), which opens the masked values with
//!    the switched products' own c0. The server never switches,
//!    relinearizes or decodes: the work that dominated its CPU moves to the
//!    parties, which have room for it.
//! 3. **Combine**: every party sends its share of C; the server sums,
//!    verifies and outputs the proof.
//!
//! # Running the roles
//! Each role runs its side over its own end of the connections, a
//! [`Transport`]: [`party_key_session`] and [`server_key_session`] once per
//! session, then [`ComputingParty::prove`] and [`Server::prove`] per proof.
//! The order of the rounds lives there only. [`InProcessProver`] runs every
//! role on a thread of this process over an [`InProcess`] group; a network
//! transport runs each role in its own process. Every role reports its CPU
//! and wall time and its bytes per round ([`RoleReport`]).
//!
//! # What each role learns
//! - A **party** learns the proof, the public inputs and its own shares. The
//!   opened A and B_G1 are parts of the proof (B_G1 is fixed by B in G2 and
//!   the key), uniformly random group elements given r and s, which no
//!   coalition of fewer than all parties knows; opening them reveals
//!   nothing the proof does not.
//! - The **server** learns ciphertexts, the smudged or masked shares, the
//!   proof and the public inputs. The designated party also learns the
//!   sums of the shares, which decrypt to the masked openings (uniform in
//!   the field) plus smudged noise: what a collective decryption reveals to
//!   whoever combines it.
//!
//! # Security model
//! Passive (honest-but-curious) parties and server, as in `he-threshold`,
//! with any N − 1 parties colluding with each other and with the server;
//! the defences of `he-threshold` against deviating senders apply
//! (smudging from the agreed [`ProofPlan`], never from a ciphertext's claim;
//! relinearization key round 1 as commit-then-open). Against a server that
//! deviates:
//! - A party never releases a plain decryption share of a ciphertext the
//!   server hands it, only encryption-to-shares shares, at the agreed level
//!   and noise bound. That matters in BGV: the pair (0, 1) is a valid
//!   encryption of the collective secret key s mod t, so a plain
//!   decryption of a ciphertext of the server's choosing could hand it the
//!   key. An encryption-to-shares share is masked by a uniform value mod t
//!   and by smudging, so whatever ciphertext the server sends, the share
//!   hides the party's secret; the opened value is uniform, and the shares
//!   only enter C, which the parties' fresh r_i and s_i randomize. That
//!   the party switches and relinearizes a size-3 product first gives the
//!   server no more choice: both are public functions of the broadcast, it
//!   could pick c1 of a size-2 ciphertext freely already, and the
//!   designated party's extra term is public too.
//! - A server that computes something else (another h, another r·s) makes a
//!   proof that does not verify; it learns nothing more than from an honest
//!   run, but it can make proving fail. Detecting which party or the server
//!   deviated needs zero-knowledge proofs of correct computation, which this
//!   crate does not have.
//!
//! # A witness that does not satisfy the circuit
//! No party can check that the shared witness satisfies the circuit. The
//! server finds out: the quotient is then not a polynomial quotient, the
//! combined proof does not verify, and [`Server::finish`] returns
//! [`Error::ProofRejected`] instead of a proof. A proof for a false
//! statement never leaves the server.
//!
//! A whole proof in one process (compiled here; it runs in about a second
//! in release builds, and the crate's tests run the same flow on a small
//! ring):
//!
//! ```no_run
//! use std::sync::Arc;
//! use ark_bn254::{Bn254, Fr};
//! use ark_groth16::Groth16;
//! use ark_snark::SNARK;
//! use example_support::circuits::{ProverView, SquareChain};
//! use he_cosnark::{parameters_for, share_witness, Circuit, InProcessProver, Libsnark};
//! use rand::rngs::OsRng;
//!
//! // A circuit of 10 constraints, its keys, and its witness.
//! let setup = SquareChain { steps: 10, start: None };
//! let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(setup.clone(), &mut OsRng)?;
//! let circuit = Arc::new(Circuit::<Bn254, Libsnark>::from_synthesizer(setup, pk)?);
//! let view = ProverView::of(&SquareChain { steps: 10, start: Some(Fr::from(7u64)) })?;
//! let (public, witness) = view.assignment[1..].split_at(view.num_inputs - 1);
//!
//! // Three parties (any two of which can prove) and the server; the keys once.
//! let (params, _) = parameters_for::<Fr>(circuit.domain_size(), 3)?; // 128-bit or more
//! let context = helib_rs::Context::new(&params)?;
//! let mut prover = InProcessProver::new(&context, [1; 32], 3, 2, circuit)?;
//!
//! // Parties 0 and 2 hold shares of the witness and prove.
//! let shares = share_witness(witness, 2, &mut OsRng)?;
//! let (proof, report) = prover.prove_with(0, &[0, 2], public, &shares, &mut OsRng)?;
//! assert!(Groth16::<Bn254>::verify(&vk, public, &proof)?);
//! assert_eq!(report.role(he_cosnark::Role::Party(1)).traffic.total(), 0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod buffered_rng;
mod circom;
mod circuit;
mod driver;
mod error;
mod keys;
mod matrices;
mod memory;
mod messages;
pub mod msm;
mod params;
mod party;
mod plan;
mod reduction;
mod report;
mod rounds;
mod server;
mod share_file;
mod shares;
pub mod transport;
mod usage;
mod wire;

pub use circuit::{Circuit, QueryLengths};
pub use driver::InProcessProver;
pub use error::{Error, Result};
pub use keys::{party_key_session, server_key_session, KeySession, PartyKeys};
pub use matrices::R1csMatrices;
pub use memory::retain_freed_memory;
pub use params::{parameters_for, proof_chain_bits, proof_workload};
pub use party::{ComputingParty, PartyProof};
pub use plan::{ProofPlan, MAX_PROOF_INDEX};
pub use reduction::{Circom, Libsnark, Reduction};
pub use report::{ProofReport, RoleCost, RoleReport};
pub use server::{Server, ServerProof};
pub use shares::{share_witness, WitnessShare};
pub use transport::{InProcess, Role, Round, Traffic, Transport};
pub use usage::Usage;
