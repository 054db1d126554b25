//! The untrusted server: it sums the parties' uploads into ciphertexts under
//! the collective key, computes h = ⌊A·B / X^n⌋ and r·s on them, runs the
//! aggregation of every round, and combines and verifies the proof. It
//! sees ciphertexts, smudged or masked shares, the proof and the public
//! inputs — never a plaintext of the witness, h, r or s.

use std::sync::Arc;

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_groth16::{Groth16, PreparedVerifyingKey, Proof};
use he_poly::EncryptedPolynomial;
use he_threshold::{ActiveSet, Aggregator, Session, ShareMessage, Step};
use helib_rs::{Ciphertext, FieldCoefficientEncoder, RelinKey};

use crate::circuit::Circuit;
use crate::error::{Error, Result};
use crate::messages::{self, Broadcast, Expect, Upload};
use crate::plan::{ProofPlan, RunKind};
use crate::reduction::Reduction;
use crate::transport::Role;

/// The server of a session: holds the collective relinearization key.
pub struct Server<E: Pairing, R: Reduction> {
    session: Session,
    relin_key: RelinKey,
    circuit: Arc<Circuit<E, R>>,
    plan: Arc<ProofPlan>,
    encoder: FieldCoefficientEncoder<E::ScalarField>,
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
    /// The server of `session` with its collective relinearization key.
    ///
    /// # Errors
    /// [`Error::Engine`] when the session's plaintext modulus is not the
    /// circuit's field.
    pub fn new(
        session: Session,
        relin_key: RelinKey,
        circuit: Arc<Circuit<E, R>>,
        plan: Arc<ProofPlan>,
    ) -> Result<Self> {
        let encoder = FieldCoefficientEncoder::new(session.context())?;
        let verifying_key = ark_groth16::prepare_verifying_key(&circuit.proving_key().vk);
        Ok(Self {
            session,
            relin_key,
            circuit,
            plan,
            encoder,
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
    /// sums them into ciphertexts of A, B and r + s·X^(N/2), computes h
    /// and (r + s·X^(N/2))², switches them to the conversion level, opens
    /// A and B, and returns its state and the broadcast for every party.
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
        let blocks = self.plan.input_blocks();
        let uploads = uploads
            .iter()
            .zip(&members)
            .map(|(bytes, &i)| {
                let from = Role::Party(i);
                let upload = Upload::<E>::decode(bytes, &expect, from, blocks)?;
                check_b_consistent(self.circuit.proving_key(), &upload, from)?;
                Ok(upload)
            })
            .collect::<Result<Vec<_>>>()?;

        let sum_blocks = |kind: RunKind, pick: &dyn Fn(&Upload<E>, usize) -> &ShareMessage| {
            (0..blocks)
                .map(|index| {
                    self.shares_to_encryption(active, ProofPlan::run(proof, kind, index), |k| {
                        pick(&uploads[k], index)
                    })
                })
                .collect::<Result<Vec<_>>>()
        };
        let a = sum_blocks(RunKind::UploadA, &|u, i| &u.a_blocks[i])?;
        let b = sum_blocks(RunKind::UploadB, &|u, i| &u.b_blocks[i])?;
        let randomness = self.shares_to_encryption(
            active,
            ProofPlan::run(proof, RunKind::UploadRandomness, 0),
            |k| &uploads[k].randomness,
        )?;

        let a = EncryptedPolynomial::<E::ScalarField>::from_blocks(a, *self.plan.inputs())?;
        let b = EncryptedPolynomial::<E::ScalarField>::from_blocks(b, *self.plan.inputs())?;
        let level = self.plan.convert_level();
        let h = EncryptedPolynomial::groth16_quotient(&a, &b, self.plan.domain_size())?
            .relinearize(&self.relin_key)?
            .mod_switch_to(level)?;
        if h.layout() != self.plan.quotient() || h.blocks().len() != self.plan.quotient_blocks() {
            return Err(Error::InvalidArgument(format!(
                "the quotient's layout ({}) is not the plan's ({})",
                h.layout(),
                self.plan.quotient()
            )));
        }
        let randomness = randomness
            .square()?
            .relinearize(&self.relin_key)?
            .mod_switch_to(level)?;

        let sum_g1 = |pick: &dyn Fn(&Upload<E>) -> E::G1Affine| {
            uploads
                .iter()
                .map(pick)
                .fold(E::G1::default(), |acc, p| acc + p)
                .into_affine()
        };
        let opened_a = sum_g1(&|u| u.a);
        let opened_b_g1 = sum_g1(&|u| u.b_g1);
        let opened_b = uploads
            .iter()
            .fold(E::G2::default(), |acc, u| acc + u.b)
            .into_affine();
        let mut converted = h.blocks().to_vec();
        converted.push(randomness);
        let broadcast = Broadcast::<E> {
            quotient: h.blocks().to_vec(),
            randomness: converted[converted.len() - 1].try_clone()?,
            a: opened_a,
            b_g1: opened_b_g1,
        }
        .encode(&expect)?;
        Ok((
            ServerProof {
                expect,
                active: active.cloned(),
                public_inputs: public_inputs.to_vec(),
                converted,
                a: opened_a,
                b: opened_b,
            },
            broadcast,
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

    fn shares_to_encryption<'a>(
        &self,
        active: Option<&ActiveSet>,
        run: u64,
        share_of: impl Fn(usize) -> &'a ShareMessage,
    ) -> Result<Ciphertext> {
        let level = self.plan.upload_level();
        let mut aggregator = match active {
            Some(set) => self
                .session
                .active_shares_to_encryption_aggregator(run, level, set)?,
            None => self.session.shares_to_encryption_aggregator(run, level)?,
        };
        for k in 0..self.members(active).len() {
            aggregator.add(share_of(k))?;
        }
        Ok(self.session.shares_to_encryption(&aggregator.finish()?)?)
    }

    fn conversion_aggregator(
        &self,
        state: &ServerProof<E>,
        run: u64,
        ct: &Ciphertext,
    ) -> Result<Aggregator> {
        let step = Step::EncryptionToShares;
        Ok(match &state.active {
            Some(set) => self.session.active_aggregator(run, step, ct, set)?,
            None => self.session.ciphertext_aggregator(run, step, ct)?,
        })
    }

    /// Round 2: checks every participant's encryption-to-shares shares
    /// (in the order of round 1) and returns the masked openings for the
    /// designated party: of each block of h the coefficients its layout
    /// uses, of the randomness product the one holding 2·r·s.
    ///
    /// # Errors
    /// As [`compute`](Self::compute); [`Error::Threshold`] when the shares
    /// do not decrypt (a party computed its share dishonestly).
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
        let width = self.plan.quotient().width;
        let mut openings = Vec::with_capacity(count);
        for (index, ct) in state.converted.iter().enumerate() {
            let last = index + 1 == count;
            let run = if last {
                ProofPlan::run(proof, RunKind::ConvertRandomness, 0)
            } else {
                ProofPlan::run(proof, RunKind::ConvertQuotient, index)
            };
            let mut aggregator = self.conversion_aggregator(state, run, ct)?;
            for party in &shares {
                aggregator.add(&party[index])?;
            }
            let opened =
                self.session
                    .open_masked(ct, &aggregator.finish()?, self.plan.smudging())?;
            let values = self.encoder.decode(&opened)?;
            openings.push(if last {
                vec![values[self.plan.randomness_product_at()]]
            } else {
                values[..width.min(values.len())].to_vec()
            });
        }
        Ok(messages::encode_openings(&openings, &state.expect))
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
fn check_b_consistent<E: Pairing>(
    pk: &ark_groth16::ProvingKey<E>,
    upload: &Upload<E>,
    from: Role,
) -> Result<()> {
    let left = E::pairing(upload.b_g1, pk.vk.delta_g2);
    let right = E::pairing(pk.delta_g1, upload.b);
    if left != right {
        return Err(Error::Deviation {
            from,
            reason: "its shares of B in G1 and in G2 differ".into(),
        });
    }
    Ok(())
}
