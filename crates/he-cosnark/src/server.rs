//! The untrusted server: it sums the parties' uploads into ciphertexts under
//! the collective key, computes the product A·B (with r·s on a spare
//! coefficient, see [`ProofPlan`]) on them, runs the
//! aggregation of every round, and combines and verifies the proof. It
//! sees ciphertexts, smudged or masked shares, the proof and the public
//! inputs — never a plaintext of the witness, h, r or s.

use std::sync::Arc;

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_groth16::{Groth16, PreparedVerifyingKey, Proof};
use he_threshold::{ActiveSet, Aggregator, Session, ShareMessage};
use helib_rs::{Ciphertext, FieldCoefficientEncoder};

use crate::circuit::Circuit;
use crate::error::{Error, Result};
use crate::messages::{self, Broadcast, Expect, Upload, UploadShare, UploadView};
use crate::plan::{ProofPlan, RunKind};
use crate::reduction::Reduction;
use crate::transport::Role;

/// The server of a session. It holds no key: the parties relinearize the
/// products and the designated party opens them.
pub struct Server<E: Pairing, R: Reduction> {
    session: Session,
    circuit: Arc<Circuit<E, R>>,
    plan: Arc<ProofPlan>,
    verifying_key: PreparedVerifyingKey<E>,
}

/// What the server keeps between the rounds of one proof.
pub struct ServerProof<E: Pairing> {
    expect: Expect,
    active: Option<ActiveSet>,
    public_inputs: Vec<E::ScalarField>,
    converted: Vec<Ciphertext>,
    a: E::G1Affine,
    b: E::G2Affine,
}

impl<E: Pairing, R: Reduction> Server<E, R> {
    /// The server of `session`, for `circuit` with `plan`.
    ///
    /// # Errors
    /// [`Error::Engine`] when the session's plaintext modulus is not the
    /// circuit's field.
    pub fn new(
        session: Session,
        circuit: Arc<Circuit<E, R>>,
        plan: Arc<ProofPlan>,
    ) -> Result<Self> {
        FieldCoefficientEncoder::<E::ScalarField>::new(session.context())?;
        let verifying_key = ark_groth16::prepare_verifying_key(circuit.verifying_key());
        Ok(Self {
            session,
            circuit,
            plan,
            verifying_key,
        })
    }

    fn expect(&self, proof: u64) -> Expect {
        Expect {
            circuit: *self.circuit.digest(),
            session: *self.session.id(),
            proof,
        }
    }

    /// Round 1 among all parties (`active` = None: `uploads[i]` from party
    /// i) or among the members of a t-out-of-N active set (`uploads[k]`
    /// from its k-th member, in increasing order): checks every upload,
    /// sums them into ciphertexts of A's and B's components and of r and
    /// s·X^(N−1), computes the product of every component pair (R·S added
    /// to the first; of size 3 at the upload level: each party switches it
    /// to the conversion level and relinearizes it itself), opens A and B,
    /// and returns its state and the broadcast for every party (see
    /// [`ProofPlan`] for what the product holds).
    ///
    /// # Errors
    /// [`Error::WrongLength`] for another number of uploads than parties or
    /// of public inputs; [`Error::Malformed`], [`Error::WrongBinding`] or
    /// [`Error::Deviation`] naming the party; engine errors.
    pub fn compute(
        &self,
        proof: u64,
        active: Option<&ActiveSet>,
        public_inputs: &[E::ScalarField],
        uploads: &[Vec<u8>],
    ) -> Result<(ServerProof<E>, Vec<u8>)> {
        self.plan.check_proof(proof)?;
        self.circuit.check_public_inputs(public_inputs)?;
        let members = self.members(active);
        self.check_count("list of uploads", &members, uploads.len())?;
        let expect = self.expect(proof);
        let components = self.plan.components();
        let uploads = uploads
            .iter()
            .zip(&members)
            .map(|(bytes, &i)| {
                let from = Role::Party(i);
                let upload = Upload::<E>::view(bytes, &expect, from, components)?;
                check_b_consistent(&self.circuit, &upload, from)?;
                Ok(upload)
            })
            .collect::<Result<Vec<_>>>()?;

        // Each party's share is read from its upload just before it is
        // summed and dropped after: one share's copy at a time, instead of
        // every upload's (113 MB at the server for 2^17 constraints and 3
        // parties, pages that the first proof faulted in afresh).
        let sum = |kind: RunKind, index: usize, which: UploadShare| {
            self.shares_to_encryption(active, ProofPlan::run(proof, kind, index), |k| {
                uploads[k].share(which)
            })
        };
        let r = sum(RunKind::UploadRandomness, 0, UploadShare::R)?;
        let s = sum(RunKind::UploadRandomness, 1, UploadShare::S)?;
        let mut randomness = Some(r.multiply(&s)?);
        drop((r, s));
        let mut product = Vec::with_capacity(components);
        for k in 0..components {
            let a = sum(RunKind::UploadA, k, UploadShare::A(k))?;
            let b = sum(RunKind::UploadB, k, UploadShare::B(k))?;
            let mut component = a.multiply(&b)?;
            if let Some(rs) = randomness.take() {
                component.add_assign(&rs)?;
            }
            // Each party switches it to the conversion level and
            // relinearizes it while converting it: the server does neither.
            product.push(component);
        }

        let sum_g1 = |pick: &dyn Fn(&UploadView<'_, E>) -> E::G1Affine| {
            uploads
                .iter()
                .map(pick)
                .fold(E::G1::default(), |acc, p| acc + p)
                .into_affine()
        };
        let opened_a = sum_g1(&|u| u.a_point);
        let opened_b_g1 = sum_g1(&|u| u.b_g1);
        let opened_b = uploads
            .iter()
            .fold(E::G2::default(), |acc, u| acc + u.b_point)
            .into_affine();
        let broadcast = Broadcast::<E> {
            product,
            a: opened_a,
            b_g1: opened_b_g1,
        };
        let bytes = broadcast.encode(&expect)?;
        Ok((
            ServerProof {
                expect,
                active: active.cloned(),
                public_inputs: public_inputs.to_vec(),
                converted: broadcast.product,
                a: opened_a,
                b: opened_b,
            },
            bytes,
        ))
    }

    /// The participants of a proof: every party, or the active set's members.
    /// The parties of a proof: all, or the members of `active`.
    pub(crate) fn members(&self, active: Option<&ActiveSet>) -> Vec<u32> {
        match active {
            Some(set) => set.members().to_vec(),
            None => (0..self.session.parties()).collect(),
        }
    }

    fn shares_to_encryption(
        &self,
        active: Option<&ActiveSet>,
        run: u64,
        share_of: impl Fn(usize) -> Result<ShareMessage>,
    ) -> Result<Ciphertext> {
        let level = self.plan.upload_level();
        let mut aggregator = match active {
            Some(set) => self
                .session
                .active_shares_to_encryption_aggregator(run, level, set)?,
            None => self.session.shares_to_encryption_aggregator(run, level)?,
        };
        for k in 0..self.members(active).len() {
            aggregator.add(&share_of(k)?)?;
        }
        Ok(self.session.shares_to_encryption(&aggregator.finish()?)?)
    }

    fn conversion_aggregator(
        &self,
        state: &ServerProof<E>,
        run: u64,
        ct: &Ciphertext,
    ) -> Result<Aggregator> {
        let level = self.plan.convert_level();
        Ok(match &state.active {
            Some(set) => self
                .session
                .active_product_aggregator(run, ct, level, set)?,
            None => self.session.product_aggregator(run, ct, level)?,
        })
    }

    /// Round 2: checks every participant's encryption-to-shares shares
    /// (in the order of round 1), naming the party at fault, and returns
    /// their sums, one per product, for the designated party to open: it
    /// holds the products too, so the server neither relinearizes nor
    /// decodes anything.
    ///
    /// # Errors
    /// As [`compute`](Self::compute) for the messages.
    pub fn open(&self, state: &ServerProof<E>, converts: &[Vec<u8>]) -> Result<Vec<u8>> {
        let members = self.members(state.active.as_ref());
        self.check_count("list of conversion shares", &members, converts.len())?;
        let count = state.converted.len();
        let shares = converts
            .iter()
            .zip(&members)
            .map(|(bytes, &i)| messages::decode_shares(bytes, &state.expect, Role::Party(i), count))
            .collect::<Result<Vec<_>>>()?;
        let proof = state.expect.proof;
        let mut aggregates = Vec::with_capacity(count);
        for (index, ct) in state.converted.iter().enumerate() {
            let run = ProofPlan::run(proof, RunKind::ConvertProduct, index);
            let mut aggregator = self.conversion_aggregator(state, run, ct)?;
            for party in &shares {
                aggregator.add(&party[index])?;
            }
            aggregates.push(aggregator.finish()?);
        }
        Ok(messages::encode_aggregates(&aggregates, &state.expect))
    }

    /// Round 3: sums the participants' shares of C (in the order of round 1)
    /// into the proof and verifies it against the public inputs.
    ///
    /// # Errors
    /// [`Error::ProofRejected`] when it does not verify; as
    /// [`compute`](Self::compute) for the messages.
    pub fn finish(&self, state: ServerProof<E>, c_shares: &[Vec<u8>]) -> Result<Proof<E>> {
        let members = self.members(state.active.as_ref());
        self.check_count("list of C shares", &members, c_shares.len())?;
        let mut c = E::G1::default();
        for (bytes, &i) in c_shares.iter().zip(&members) {
            c += messages::decode_c_share::<E>(bytes, &state.expect, Role::Party(i))?;
        }
        let proof = Proof {
            a: state.a,
            b: state.b,
            c: c.into_affine(),
        };
        if !Groth16::<E>::verify_proof(&self.verifying_key, &proof, &state.public_inputs)? {
            return Err(Error::ProofRejected);
        }
        Ok(proof)
    }

    fn check_count(&self, what: &'static str, members: &[u32], got: usize) -> Result<()> {
        let expected = members.len();
        if got != expected {
            return Err(Error::WrongLength {
                what,
                expected,
                got,
            });
        }
        Ok(())
    }
}

/// A party's B in G1 and in G2 must hold the same scalars (over the setup's
/// generators, which δ in G1 and G2 share): e(B_G1, δ_G2) = e(δ_G1, B_G2).
fn check_b_consistent<E: Pairing, R: Reduction>(
    circuit: &Circuit<E, R>,
    upload: &UploadView<'_, E>,
    from: Role,
) -> Result<()> {
    let left = E::pairing(upload.b_g1, circuit.verifying_key().delta_g2);
    let right = E::pairing(circuit.delta_g1(), upload.b_point);
    if left != right {
        return Err(Error::Deviation {
            from,
            reason: "its shares of B in G1 and in G2 differ".into(),
        });
    }
    Ok(())
}
