//! A computing party: a key holder of the session that holds a share of the
//! witness and makes its share of every step of a proof.

use std::sync::Arc;

use ark_ec::pairing::Pairing;
use ark_ec::CurveGroup;
use ark_ff::{AdditiveGroup, Field, UniformRand};
use he_poly::NegacyclicSplit;
use he_threshold::{
    ActiveParty, ActiveSet, AdditiveShare, Party, ShamirShare, ShareMessage, SwitchedProduct,
};
use helib_rs::{FieldCoefficientEncoder, RelinKey};
use rand::{CryptoRng, RngCore};
use zeroize::Zeroize;

use crate::circuit::Circuit;
use crate::error::{Error, Result};
use crate::messages::{self, Broadcast, Expect, Upload};
use crate::msm::BatchedMsm;
use crate::plan::{ProofPlan, RunKind};
use crate::reduction::Reduction;
use crate::shares::WitnessShare;
use crate::transport::Role;

/// A computing party of a collaborative proof. The designated party (party
/// 0, or the lowest member of a t-out-of-N active set) holds the public
/// inputs and the constant one in its share of the assignment, and opens
/// the server's sums of the conversion shares into its own.
pub struct ComputingParty<E: Pairing, R: Reduction> {
    party: Party,
    /// The collective relinearization key: the party relinearizes each
    /// product it converts.
    relin_key: RelinKey,
    reshared: Option<ShamirShare>,
    circuit: Arc<Circuit<E, R>>,
    plan: Arc<ProofPlan>,
    encoder: FieldCoefficientEncoder<E::ScalarField>,
    split: NegacyclicSplit<E::ScalarField>,
    /// Where R·S lands once merged: at exponent i·N + N − 1, the
    /// coefficient `randomness_column[i]` times r·s (i < m).
    randomness_column: Vec<E::ScalarField>,
}

/// What a party keeps between the rounds of one proof (secret; wiped when
/// dropped).
pub struct PartyProof<E: Pairing> {
    expect: Expect,
    signer: Signer,
    witness: Vec<E::ScalarField>,
    /// The share of C's coefficients, when the product wraps (else empty).
    c: Vec<E::ScalarField>,
    r: E::ScalarField,
    s: E::ScalarField,
    converted: Vec<AdditiveShare>,
    /// The broadcast's products, switched to the conversion level, which
    /// the designated party opens in round 3 (empty at the other parties).
    products: Vec<SwitchedProduct>,
    opened: Option<(E::G1Affine, E::G1Affine)>,
}

/// Whose secret share a party's shares of one proof are made with: its
/// N-out-of-N share, or its re-shared key activated for an active set.
enum Signer {
    All,
    Active(Box<ActiveParty>),
}

impl<E: Pairing> Drop for PartyProof<E> {
    fn drop(&mut self) {
        self.witness.iter_mut().for_each(Zeroize::zeroize);
        self.c.iter_mut().for_each(Zeroize::zeroize);
        self.r.zeroize();
        self.s.zeroize();
    }
}

impl<E: Pairing, R: Reduction> ComputingParty<E, R>
where
    E::G1: BatchedMsm,
    E::G2: BatchedMsm,
{
    /// Party `party` of the session, with the session's collective
    /// relinearization key, for `circuit` with `plan`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] for a circuit made
    /// [`without_queries`](Circuit::without_queries); [`Error::Engine`] when
    /// the session's plaintext modulus is not the circuit's field, or the
    /// key is of another context.
    pub fn new(
        party: Party,
        relin_key: RelinKey,
        circuit: Arc<Circuit<E, R>>,
        plan: Arc<ProofPlan>,
    ) -> Result<Self> {
        // Refused here rather than at the first proof: a circuit read
        // without its query points (a server's) cannot make a party's MSMs.
        circuit.proving_key()?;
        let context = party.session().context();
        if !context.same_as(relin_key.context()) {
            return Err(helib_rs::Error::ContextMismatch.into());
        }
        let encoder = FieldCoefficientEncoder::new(context)?;
        let split = plan.split()?;
        let mut unit = vec![E::ScalarField::ZERO; plan.components()];
        unit[0] = E::ScalarField::ONE;
        let randomness_column = split.merge_column(plan.randomness_product_at(), &unit)?;
        Ok(Self {
            party,
            relin_key,
            reshared: None,
            circuit,
            plan,
            encoder,
            split,
            randomness_column,
        })
    }

    /// The party with its re-shared key (from the key session's Shamir
    /// re-sharing), so that it can prove as a member of active sets.
    pub fn with_reshared(mut self, reshared: ShamirShare) -> Self {
        self.reshared = Some(reshared);
        self
    }

    /// This party's role.
    pub fn role(&self) -> Role {
        Role::Party(self.party.index())
    }

    /// The key holder (for the key session).
    pub fn key_holder(&mut self) -> &mut Party {
        &mut self.party
    }

    /// Whether this party is the designated one of a proof among all
    /// parties (`active` = None: party 0) or among the members of `active`
    /// (its lowest member).
    pub(crate) fn is_designated(&self, active: Option<&ActiveSet>) -> bool {
        let lowest = active.map_or(Some(&0), |set| set.members().first());
        lowest == Some(&self.party.index())
    }

    /// Whether this party is the designated one of the proof `signer` signs.
    fn signs_as_designated(&self, signer: &Signer) -> bool {
        match signer {
            Signer::All => self.is_designated(None),
            Signer::Active(active) => self.is_designated(Some(active.active_set())),
        }
    }

    /// The signer of a proof among all parties (`active` = None) or among
    /// the members of `active`, and whether this party is the designated one.
    fn signer(&self, active: Option<&ActiveSet>) -> Result<(Signer, bool)> {
        let designated = self.is_designated(active);
        let Some(set) = active else {
            return Ok((Signer::All, designated));
        };
        let reshared = self.reshared.as_ref().ok_or_else(|| {
            Error::InvalidArgument(format!(
                "{} has no re-shared key: the session is N-out-of-N",
                self.role()
            ))
        })?;
        Ok((
            Signer::Active(Box::new(reshared.activate(set)?)),
            designated,
        ))
    }

    fn expect(&self, proof: u64) -> Expect {
        Expect {
            circuit: *self.circuit.digest(),
            session: *self.party.session().id(),
            proof,
        }
    }

    /// Round 1 of proof `proof` among all parties (`active` = None) or
    /// among the members of a t-out-of-N active set: draws its shares r_i,
    /// s_i of the proof's randomness, and returns its state and its upload
    /// (shares to encryption of the components of its shares of A and B, of
    /// r_i and of s_i·X^(N−1); its shares of A, B in G2 and B in G1).
    ///
    /// # Errors
    /// [`Error::WrongLength`] for a witness share or public inputs that do
    /// not fit the circuit; [`Error::InvalidArgument`] for a proof index out
    /// of range, or an active set for a party without a re-shared key;
    /// [`Error::Threshold`] for an active set this party is not in or of
    /// another session; engine errors.
    pub fn upload<G: RngCore + CryptoRng>(
        &self,
        proof: u64,
        active: Option<&ActiveSet>,
        public_inputs: &[E::ScalarField],
        witness: &WitnessShare<E::ScalarField>,
        rng: &mut G,
    ) -> Result<(PartyProof<E>, Vec<u8>)> {
        self.plan.check_proof(proof)?;
        let (signer, designated) = self.signer(active)?;
        let mut z = self
            .circuit
            .assignment_share(designated, public_inputs, witness.values())?;
        let r = E::ScalarField::rand(rng);
        let s = E::ScalarField::rand(rng);
        let [mut a, mut b] = self.circuit.interpolant_shares(&z)?;
        // Only a product that wraps needs C (to tell h from it).
        let c = if self.plan.wraps() {
            self.circuit.c_interpolant_share(&z)?
        } else {
            Vec::new()
        };
        let a_shares = self.upload_components(&signer, proof, RunKind::UploadA, &mut a)?;
        let b_shares = self.upload_components(&signer, proof, RunKind::UploadB, &mut b)?;
        a.zeroize();
        b.zeroize();
        let run = |index| ProofPlan::run(proof, RunKind::UploadRandomness, index);
        let r_share = self.upload_share(&signer, run(0), &[r])?;
        let mut s_at = vec![E::ScalarField::ZERO; self.plan.randomness_product_at() + 1];
        s_at[self.plan.randomness_product_at()] = s;
        let s_share = self.upload_share(&signer, run(1), &s_at)?;
        s_at.zeroize();

        let pk = self.circuit.proving_key()?;
        let (mut a_point, mut b_point, mut b_g1) = (
            E::G1::batched_msm(&pk.a_query, &z) + pk.delta_g1 * r,
            E::G2::batched_msm(&pk.b_g2_query, &z) + pk.vk.delta_g2 * s,
            E::G1::batched_msm(&pk.b_g1_query, &z) + pk.delta_g1 * s,
        );
        if designated {
            a_point += pk.vk.alpha_g1;
            b_point += pk.vk.beta_g2;
            b_g1 += pk.beta_g1;
        }
        let witness = z.split_off(self.circuit.num_public_inputs() + 1);
        z.zeroize();
        let upload = Upload::<E> {
            a: a_shares,
            b: b_shares,
            r: r_share,
            s: s_share,
            a_point: a_point.into_affine(),
            b_point: b_point.into_affine(),
            b_g1: b_g1.into_affine(),
        };
        let expect = self.expect(proof);
        let bytes = upload.encode(&expect, self.role());
        Ok((
            PartyProof {
                expect,
                signer,
                witness,
                c,
                r,
                s,
                converted: Vec::new(),
                products: Vec::new(),
                opened: None,
            },
            bytes,
        ))
    }

    /// Shares to encryption of the plan's components of `coefficients`
    /// (an interpolant's n coefficients; split in place when the product
    /// wraps).
    fn upload_components(
        &self,
        signer: &Signer,
        proof: u64,
        kind: RunKind,
        coefficients: &mut [E::ScalarField],
    ) -> Result<Vec<ShareMessage>> {
        if self.plan.wraps() {
            self.split.split_in_place(coefficients)?;
        }
        coefficients
            .chunks(self.plan.ring_degree())
            .enumerate()
            .map(|(index, component)| {
                self.upload_share(signer, ProofPlan::run(proof, kind, index), component)
            })
            .collect()
    }

    fn upload_share(
        &self,
        signer: &Signer,
        run: u64,
        values: &[E::ScalarField],
    ) -> Result<ShareMessage> {
        let share = AdditiveShare::new(self.encoder.encode(values)?);
        let level = self.plan.upload_level();
        Ok(match signer {
            Signer::All => self.party.shares_to_encryption(run, level, &share)?,
            Signer::Active(active) => active.shares_to_encryption(run, level, &share)?,
        })
    }

    /// Round 2: checks the server's broadcast (binding, size-3 products of
    /// the session's context at the upload level, opened A and B in G1) and
    /// returns its encryption-to-shares shares of every product's
    /// relinearization at the conversion level, which it computes itself
    /// (switching each product down first), keeping its additive shares.
    /// Only encryption to shares is ever applied to a ciphertext the server
    /// hands over (no plain decryption share).
    ///
    /// # Errors
    /// [`Error::Malformed`] naming the server for a product at another
    /// level; [`Error::Malformed`] or [`Error::WrongBinding`] naming the
    /// server for a message it did not make for this proof; engine errors
    /// for a product claiming more noise than agreed (nothing is released).
    pub fn convert(&self, state: &mut PartyProof<E>, broadcast: &[u8]) -> Result<Vec<u8>> {
        let context = self.party.session().context();
        let shape = (self.plan.components(), self.plan.upload_level());
        let broadcast = Broadcast::<E>::decode(broadcast, &state.expect, context, shape)?;
        let proof = state.expect.proof;
        let designated = self.signs_as_designated(&state.signer);
        let mut messages = Vec::with_capacity(broadcast.product.len());
        let mut converted = Vec::with_capacity(messages.capacity());
        for (index, ct) in broadcast.product.into_iter().enumerate() {
            let run = ProofPlan::run(proof, RunKind::ConvertProduct, index);
            let product = SwitchedProduct::new(ct, self.plan.convert_level())?;
            let (share, message) = self.convert_one(&state.signer, run, &product)?;
            converted.push(share);
            messages.push(message);
            if designated {
                state.products.push(product);
            }
        }
        state.converted = converted;
        state.opened = Some((broadcast.a, broadcast.b_g1));
        Ok(messages::encode_shares(
            &messages,
            &state.expect,
            self.role(),
        ))
    }

    fn convert_one(
        &self,
        signer: &Signer,
        run: u64,
        ct: &SwitchedProduct,
    ) -> Result<(AdditiveShare, ShareMessage)> {
        let (smudging, rk) = (self.plan.smudging(), &self.relin_key);
        Ok(match signer {
            Signer::All => self
                .party
                .encryption_to_shares_of_product(run, ct, rk, smudging)?,
            Signer::Active(active) => {
                active.encryption_to_shares_of_product(run, ct, rk, smudging)?
            }
        })
    }

    /// Round 3: the designated party first opens every product from the
    /// server's sums of the conversion shares and adds the openings to its
    /// shares; every party then returns its share of C:
    /// `Σ_witness z_i·l_query + Σ h_i·h_query + s_i·A + r_i·B_G1 − (rs)_i·δ`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when round 2 did not run, or the sums are
    /// passed to (or missing at) the wrong party; message errors naming the
    /// server; [`Error::Threshold`] when the sums do not decrypt (a share
    /// was not computed honestly).
    pub fn combine(&self, mut state: PartyProof<E>, aggregates: Option<&[u8]>) -> Result<Vec<u8>> {
        let (a, b_g1) = state
            .opened
            .ok_or_else(|| Error::InvalidArgument("round 2 has not run for this proof".into()))?;
        match (self.signs_as_designated(&state.signer), aggregates) {
            (true, Some(bytes)) => self.open(&mut state, bytes)?,
            (false, None) => {}
            (true, None) => {
                return Err(Error::InvalidArgument(
                    "the designated party needs the sums of the conversion shares".into(),
                ))
            }
            (false, Some(_)) => {
                return Err(Error::InvalidArgument(
                    "only the designated party takes the sums of the conversion shares".into(),
                ))
            }
        }
        let (h, rs) = self.decode_converted(&state.converted, &state.c)?;
        let pk = self.circuit.proving_key()?;
        let mut scalars = R::quotient_scalars(self.circuit.domain(), h)?;
        let c = E::G1::batched_msm(&pk.l_query, &state.witness)
            + E::G1::batched_msm(&pk.h_query, &scalars)
            + a * state.s
            + b_g1 * state.r
            - pk.delta_g1 * rs;
        scalars.zeroize();
        let c = c.into_affine();
        Ok(messages::encode_c_share::<E>(
            &c,
            &state.expect,
            self.role(),
        ))
    }

    /// The designated party's opening of every product: the server's sum
    /// of the conversion shares for it (checked against the product, the
    /// proof's run and the signer's active set) with the product's `c_0`,
    /// added to this party's additive share.
    fn open(&self, state: &mut PartyProof<E>, bytes: &[u8]) -> Result<()> {
        let session = self.party.session();
        let products = std::mem::take(&mut state.products);
        let aggregates =
            messages::decode_aggregates(bytes, &state.expect, session, products.len())?;
        let active = match &state.signer {
            Signer::All => [0u8; 32],
            Signer::Active(active) => *active.active_set().digest(),
        };
        let pairs = products.iter().zip(&aggregates).zip(&mut state.converted);
        for (index, ((product, aggregate), share)) in pairs.enumerate() {
            let binding = aggregate.binding();
            let run = ProofPlan::run(state.expect.proof, RunKind::ConvertProduct, index);
            if binding.run != run || binding.active != active {
                return Err(Error::WrongBinding {
                    from: Role::Server,
                    expected: format!("run {run} of this proof's signers"),
                    got: binding.to_string(),
                });
            }
            let opened = session.open_masked_product(
                product,
                &self.relin_key,
                aggregate,
                self.plan.smudging(),
            )?;
            share.absorb_opening(&opened)?;
        }
        Ok(())
    }

    /// This party's shares of h's coefficients and of r·s, from its
    /// additive shares of the product's components (see [`ProofPlan`]).
    fn decode_converted(
        &self,
        converted: &[AdditiveShare],
        c: &[E::ScalarField],
    ) -> Result<(Vec<E::ScalarField>, E::ScalarField)> {
        let (n, ring) = (self.plan.domain_size(), self.plan.ring_degree());
        if converted.len() != self.plan.components() {
            return Err(Error::InvalidArgument(
                "round 2 has not run for this proof".into(),
            ));
        }
        let mut product = Vec::with_capacity(self.split.len());
        for share in converted {
            let start = product.len();
            product.extend(self.encoder.decode(share.plaintext())?);
            product.resize(start + ring, E::ScalarField::ZERO);
        }
        self.split.merge_in_place(&mut product)?;
        let h_len = n - 1;
        let result = if self.plan.wraps() {
            // product = C − 2h + r·s·W, W nonzero only at i·N + N − 1;
            // h_(n−1) = 0 gives r·s, then h.
            let inverse = |value: E::ScalarField, what: &str| {
                value.inverse().ok_or_else(|| {
                    Error::InvalidArgument(format!("{what} has no inverse in the field"))
                })
            };
            let two_inverse = inverse(E::ScalarField::from(2u64), "2")?;
            let last = self.randomness_column[self.randomness_column.len() - 1];
            let rs = (product[n - 1] - c[n - 1]) * inverse(last, "the weight of r·s")?;
            let mut h: Vec<E::ScalarField> = c[..h_len]
                .iter()
                .zip(&product[..h_len])
                .map(|(c, p)| (*c - p) * two_inverse)
                .collect();
            for (i, w) in self.randomness_column.iter().enumerate() {
                if let Some(value) = h.get_mut(i * ring + ring - 1) {
                    *value += rs * w * two_inverse;
                }
            }
            (h, rs)
        } else {
            // Nothing wraps: h is coefficients n .. 2n − 2, r·s is at N − 1.
            let h = product[n..n + h_len].to_vec();
            (h, product[self.plan.randomness_product_at()])
        };
        product.zeroize();
        Ok(result)
    }
}
