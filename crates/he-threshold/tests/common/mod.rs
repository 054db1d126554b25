//! What the protocol tests share: the two plaintext moduli, small contexts
//! with room for smudging, random plaintexts, and a network of parties that
//! runs each N-out-of-N protocol through its aggregator.

// Each test binary uses its own part of this module.
#![allow(dead_code)]

use ark_ff::PrimeField;
use he_threshold::{
    with_smudging_room, AdditiveShare, Aggregate, Aggregator, Commitment, Commitments, Opening,
    Party, Session, ShareMessage, Step, SwitchedProduct,
};
use helib_rs::threshold::{secret_key_sum, Smudging};
use helib_rs::{
    Ciphertext, Context, GaloisKeys, Parameters, Plaintext, PublicKey, RelinKey, SecretKey,
};
use num_bigint::BigUint;
use rand::{rngs::StdRng, Rng};

/// The BN254 scalar field's modulus.
pub fn bn254() -> BigUint {
    ark_bn254::Fr::MODULUS.into()
}

/// A small plaintext prime.
pub fn t65537() -> BigUint {
    BigUint::from(65537u32)
}

/// A test-sized context (N = 1024, insecure) for `parties` parties with
/// `depth` levels and 40 bits of statistical smudging.
pub fn context(t: &BigUint, parties: u32, depth: usize) -> Context {
    let builder = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(t.clone())
        .multiplicative_depth(depth)
        .threads(2)
        .allow_insecure();
    let params = with_smudging_room(builder, parties, 40).expect("parameters");
    Context::new(&params).expect("context")
}

/// A plaintext with uniformly random coefficients mod t.
pub fn random_plaintext(context: &Context, rng: &mut StdRng) -> Plaintext {
    let t = context.plaintext_modulus();
    let coeffs: Vec<BigUint> = (0..context.ring_degree())
        .map(|_| {
            let mut bytes = vec![0u8; 40];
            rng.fill(&mut bytes[..]);
            BigUint::from_bytes_le(&bytes) % t
        })
        .collect();
    Plaintext::from_biguints(context, &coeffs).unwrap()
}

/// A session and all of its parties; every protocol run takes a fresh run
/// number.
pub struct Net {
    pub session: Session,
    pub parties: Vec<Party>,
    run: u64,
}

impl Net {
    pub fn new(context: &Context, parties: u32, id: [u8; 32]) -> Self {
        let session = Session::new(context, id, parties).unwrap();
        let parties = (0..parties)
            .map(|i| Party::new(&session, i).unwrap())
            .collect();
        Self {
            session,
            parties,
            run: 0,
        }
    }

    /// A session of `parties` parties with id `id` and, made by them, its
    /// collective public key.
    pub fn with_public_key(context: &Context, parties: u32, id: [u8; 32]) -> (Self, PublicKey) {
        let mut net = Self::new(context, parties, id);
        let pk = net.public_key();
        (net, pk)
    }

    pub fn next_run(&mut self) -> u64 {
        self.run += 1;
        self.run
    }

    pub fn aggregate_keys(&self, run: u64, step: Step, shares: &[ShareMessage]) -> Aggregate {
        let mut agg = self.session.key_aggregator(run, step).unwrap();
        for s in shares {
            agg.add(s).unwrap();
        }
        agg.finish().unwrap()
    }

    /// The aggregate of every party's public-key share of a fresh run.
    pub fn public_key_aggregate(&mut self) -> Aggregate {
        let run = self.next_run();
        let shares: Vec<_> = self
            .parties
            .iter()
            .map(|p| p.public_key_share(run).unwrap())
            .collect();
        self.aggregate_keys(run, Step::PublicKey, &shares)
    }

    pub fn public_key(&mut self) -> PublicKey {
        let aggregate = self.public_key_aggregate();
        self.session.public_key(&aggregate).unwrap()
    }

    /// Every party commits to its round-1 relinearization share of run
    /// `run`, each commitment through the wire format as an aggregator
    /// would see it: the commitment set.
    pub fn relin_commitments(&mut self, run: u64) -> Commitments {
        let mut collector = self.session.relin_commitments(run);
        for p in self.parties.iter_mut() {
            let commitment = p.relin_key_commit(run).unwrap();
            collector
                .add(&Commitment::from_bytes(&commitment.to_bytes()).unwrap())
                .unwrap();
        }
        collector.finish().unwrap()
    }

    /// Round 1 of the relinearization key, commit then open: the aggregate
    /// of the openings.
    pub fn relin_round1(&mut self, run: u64) -> Aggregate {
        let commitments = self.relin_commitments(run);
        self.relin_openings(&commitments)
    }

    /// Every party opens its round-1 share under `commitments`, each
    /// opening through the wire format: the round-1 aggregate.
    pub fn relin_openings(&mut self, commitments: &Commitments) -> Aggregate {
        let mut agg = self.session.relin_round1_aggregator(commitments).unwrap();
        for p in self.parties.iter_mut() {
            let opening = p.relin_key_open(commitments).unwrap();
            agg.add_opening(&Opening::from_bytes(&opening.to_bytes()).unwrap())
                .unwrap();
        }
        agg.finish().unwrap()
    }

    pub fn relin_key(&mut self) -> RelinKey {
        let run = self.next_run();
        let a1 = self.relin_round1(run);
        let r2: Vec<_> = self
            .parties
            .iter_mut()
            .map(|p| p.relin_key_round2(&a1).unwrap())
            .collect();
        let a2 = self.aggregate_keys(run, Step::RelinRound2, &r2);
        self.session.relin_key(&a1, &a2).unwrap()
    }

    pub fn galois_keys(&mut self, elements: &[u64]) -> GaloisKeys {
        let mut keys = GaloisKeys::new(self.session.context()).unwrap();
        for &g in elements {
            let run = self.next_run();
            let step = Step::GaloisKey { element: g };
            let shares: Vec<_> = self
                .parties
                .iter()
                .map(|p| p.galois_key_share(run, g).unwrap())
                .collect();
            let agg = self.aggregate_keys(run, step, &shares);
            self.session.insert_galois_key(&mut keys, &agg).unwrap();
        }
        keys
    }

    /// The aggregate of every party's decryption share of `ct` in run `run`.
    pub fn decryption_aggregate(
        &self,
        run: u64,
        ct: &Ciphertext,
        smudging: &Smudging,
    ) -> Aggregate {
        let mut agg = self
            .session
            .ciphertext_aggregator(run, Step::Decrypt, ct)
            .unwrap();
        for p in &self.parties {
            agg.add(&p.decryption_share(run, ct, smudging).unwrap())
                .unwrap();
        }
        agg.finish().unwrap()
    }

    /// Collective decryption by all N parties.
    pub fn decrypt(&mut self, ct: &Ciphertext) -> Plaintext {
        let run = self.next_run();
        let smudging = self.session.smudging(ct.level()).unwrap();
        let aggregate = self.decryption_aggregate(run, ct, &smudging);
        self.session.decrypt(ct, &aggregate, &smudging).unwrap()
    }

    pub fn encryption_to_shares(&mut self, ct: &Ciphertext) -> Vec<AdditiveShare> {
        let run = self.next_run();
        let mut agg = self
            .session
            .ciphertext_aggregator(run, Step::EncryptionToShares, ct)
            .unwrap();
        let mut shares = Vec::new();
        let smudging = self.session.smudging(ct.level()).unwrap();
        for p in &self.parties {
            let (share, msg) = p.encryption_to_shares(run, ct, &smudging).unwrap();
            // Through the wire format, as a server would see it.
            agg.add(&ShareMessage::from_bytes(&msg.to_bytes()).unwrap())
                .unwrap();
            shares.push(share);
        }
        let opening = self
            .session
            .open_masked(ct, &agg.finish().unwrap(), &smudging)
            .unwrap();
        shares[0].absorb_opening(&opening).unwrap();
        shares
    }

    /// Encryption to shares at `level` of the relinearization of the size-3
    /// `product`, which each party switches down and relinearizes with `rk`
    /// itself: the aggregator works on the product as computed, and the
    /// opener never relinearizes.
    pub fn encryption_to_shares_of_product(
        &mut self,
        product: &Ciphertext,
        level: usize,
        rk: &RelinKey,
    ) -> Vec<AdditiveShare> {
        let run = self.next_run();
        let mut agg = self
            .session
            .product_aggregator(run, product, level)
            .unwrap();
        let mut shares = Vec::new();
        let smudging = self.session.smudging(level).unwrap();
        let switched = || SwitchedProduct::new(product.try_clone().unwrap(), level).unwrap();
        for p in &self.parties {
            let (share, msg) = p
                .encryption_to_shares_of_product(run, &switched(), rk, &smudging)
                .unwrap();
            agg.add(&ShareMessage::from_bytes(&msg.to_bytes()).unwrap())
                .unwrap();
            shares.push(share);
        }
        let aggregate = agg.finish().unwrap();
        // The aggregate is of its own step: the opening of a relinearized
        // ciphertext does not take it.
        assert!(self
            .session
            .open_masked(product, &aggregate, &smudging)
            .is_err());
        let opening = self
            .session
            .open_masked_product(&switched(), rk, &aggregate, &smudging)
            .unwrap();
        shares[0].absorb_opening(&opening).unwrap();
        shares
    }

    pub fn shares_to_encryption(&mut self, level: usize, shares: &[AdditiveShare]) -> Ciphertext {
        let run = self.next_run();
        let mut agg = self
            .session
            .shares_to_encryption_aggregator(run, level)
            .unwrap();
        for (p, s) in self.parties.iter().zip(shares) {
            agg.add(&p.shares_to_encryption(run, level, s).unwrap())
                .unwrap();
        }
        self.session
            .shares_to_encryption(&agg.finish().unwrap())
            .unwrap()
    }

    /// The sum of the parties' secrets: the key the collective keys belong to.
    pub fn summed_secret(&self) -> SecretKey {
        let keys: Vec<&SecretKey> = self.parties.iter().map(Party::secret_share).collect();
        secret_key_sum(&keys).unwrap()
    }
}

/// `a · b`, each encrypted under `pk`, relinearized with `rk`.
pub fn encrypted_product(
    pk: &PublicKey,
    rk: &RelinKey,
    a: &Plaintext,
    b: &Plaintext,
) -> Ciphertext {
    pk.encrypt(a)
        .unwrap()
        .multiply(&pk.encrypt(b).unwrap())
        .unwrap()
        .relinearize(rk)
        .unwrap()
}

/// Key switching of `ct` to `target` in run `run` by `parties`: the
/// `share` of each (with the smudging of `ct`'s level) added to `agg`, and
/// `ct` switched with the aggregate.
pub fn key_switch_by<P>(
    session: &Session,
    mut agg: Aggregator,
    run: u64,
    ct: &Ciphertext,
    target: &PublicKey,
    parties: &[P],
    share: impl Fn(&P, u64, &Ciphertext, &PublicKey, &Smudging) -> he_threshold::Result<ShareMessage>,
) -> Ciphertext {
    let smudging = session.smudging(ct.level()).unwrap();
    for p in parties {
        agg.add(&share(p, run, ct, target, &smudging).unwrap())
            .unwrap();
    }
    session
        .key_switch(ct, &agg.finish().unwrap(), &smudging)
        .unwrap()
}

/// The proptest strategy of one changed byte: where, and the bits flipped.
pub fn byte_change() -> impl proptest::strategy::Strategy<Value = ByteChange> {
    use proptest::prelude::*;
    (any::<prop::sample::Index>(), 1u8..=255)
        .prop_map(|(position, flip)| ByteChange { position, flip })
}

/// One byte changed: the position (scaled to the input's length) and a
/// non-zero XOR mask.
#[derive(Clone, Debug)]
pub struct ByteChange {
    pub position: proptest::sample::Index,
    pub flip: u8,
}

impl ByteChange {
    /// Changes the byte of `bytes` at the position, among the first `span`
    /// bytes; returns where.
    pub fn apply_within(&self, bytes: &mut [u8], span: usize) -> usize {
        let at = self.position.index(span);
        bytes[at] ^= self.flip;
        at
    }

    /// Changes a byte anywhere in `bytes`; returns where.
    pub fn apply(&self, bytes: &mut [u8]) -> usize {
        self.apply_within(bytes, bytes.len())
    }
}
