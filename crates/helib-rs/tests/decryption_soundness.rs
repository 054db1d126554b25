//! No silent wrong decryption: whatever a computation does, a decryption that
//! returns `Ok` returns the right plaintext; otherwise the computation or the
//! decryption refuses with `NoiseBudgetExhausted`.
//!
//! The targeted cases are structured noise wraps that an exact measurement
//! of v mod Q cannot see: levels whose Q_l is below t (t·e mod Q_l is small
//! when t mod Q_l is) and repeated doublings (2^k·v mod Q is small when
//! 2^k mod Q is, as for primes just below powers of two). A randomized
//! campaign then runs chains of operations (products, doublings, switches to
//! every level, sums of many ciphertexts, big scalars, rotations, a wrong key)
//! over several parameter sets against a plaintext model and counts silent
//! wrong decryptions; the long version is `#[ignore]`d.

mod common;

use common::{bn254, t65537, Keyed};
use helib_rs::{
    Ciphertext, Context, EncodedPlaintext, Error, GaloisKeys, Parameters, Plaintext, RelinKey,
    RotationPolicy, SecretKey,
};
use num_bigint::BigUint;
use num_traits::Zero;
use rand::{rngs::StdRng, Rng};

/// Keys for explicit chain and special prime sizes (insecure small rings allowed).
fn keyed(ring_degree: usize, t: &BigUint, chain: &[u32], special: &[u32]) -> Keyed {
    let params = Parameters::builder()
        .ring_degree(ring_degree)
        .plaintext_modulus(t.clone())
        .chain_bits(chain)
        .special_bits(special)
        .threads(2)
        .allow_insecure()
        .build()
        .expect("valid parameters");
    keys_for(Context::new(&params).expect("the engine accepts them"))
}

fn keys_for(context: Context) -> Keyed {
    let sk = SecretKey::generate(&context).expect("key generation");
    let pk = sk.public_key().expect("public key");
    Keyed { context, sk, pk }
}

/// N = 1024, t = BN254 Fr, chain [61, 44, 61, 61, 61, 61], special [61]: the
/// small-ring analogue of the N = 2^14 chain [44, 59, 61, ...] below. Levels
/// 0 to 3 have Q_l below t; at level 1 (Q_1 = q_0·q_1, 105 bits) t mod Q_1 is
/// so small that t·e mod Q_1 stays below Q_1 / 4 for every error a modulus
/// switch leaves, so the exact measurement alone accepts garbage there.
fn small_bottom_prime() -> Keyed {
    keyed(1024, &bn254(), &[61, 44, 61, 61, 61, 61], &[61])
}

/// How one attempt to reach a ciphertext and decrypt it ended.
#[derive(Debug, PartialEq, Eq)]
enum Outcome {
    Correct,
    Wrong,
    Refused,
}

/// Classifies a decryption against the expected plaintext; any error other
/// than `NoiseBudgetExhausted` fails the test.
#[track_caller]
fn judge(decrypted: helib_rs::Result<Plaintext>, expected: &Plaintext) -> Outcome {
    match decrypted {
        Ok(p) if p == *expected => Outcome::Correct,
        Ok(_) => Outcome::Wrong,
        Err(Error::NoiseBudgetExhausted) => Outcome::Refused,
        Err(other) => panic!("unexpected error: {other}"),
    }
}

/// Encrypts 0 or 5 with the public key, switches to `level` and decrypts,
/// `trials` times; counts the outcomes (a refused switch counts as refused).
fn switch_and_decrypt(keyed: &Keyed, level: usize, trials: usize) -> [usize; 3] {
    let mut counts = [0; 3];
    for trial in 0..trials {
        let message = Plaintext::from_u64s(&keyed.context, &[[0, 5][trial % 2]]).unwrap();
        let fresh = keyed.pk.encrypt(&message).unwrap();
        let outcome = match fresh.mod_switch_to(level) {
            Ok(low) => judge(keyed.sk.decrypt(&low), &message),
            Err(Error::NoiseBudgetExhausted) => Outcome::Refused,
            Err(other) => panic!("unexpected error: {other}"),
        };
        counts[outcome as usize] += 1;
    }
    counts
}

#[test]
fn levels_below_t_never_decrypt_to_garbage() {
    let keyed = small_bottom_prime();
    for level in 0..=keyed.context.max_level() {
        let [correct, wrong, refused] = switch_and_decrypt(&keyed, level, 10);
        assert_eq!(wrong, 0, "level {level}: {wrong} silent wrong decryptions");
        let log2_q = keyed.context.log2_modulus(level).unwrap();
        if log2_q < 256.0 {
            // Q_l below t: nothing can decrypt there.
            assert_eq!(refused, 10, "level {level} (log2 Q = {log2_q:.0})");
        } else {
            // Q_4 has 288 bits, 28 above the noise of a switched ciphertext.
            assert_eq!(correct, 10, "level {level} (log2 Q = {log2_q:.0})");
        }
    }
}

/// `count` doublings `ct = ct + ct` of a public-key encryption; after each,
/// the decryption is judged against 2^k·m mod 65537. Returns the outcomes in
/// order and the doubling that was refused, if one was.
fn doublings(keyed: &Keyed, count: u32) -> (Vec<Outcome>, Option<u32>) {
    let t = 65537u64;
    let message = [3u64, 1, 4, 1, 5, 9, 2, 6];
    let mut expected = message.to_vec();
    let mut ct = keyed
        .pk
        .encrypt(&Plaintext::from_u64s(&keyed.context, &message).unwrap())
        .unwrap();
    let mut outcomes = Vec::new();
    for k in 1..=count {
        if let Err(error) = ct.add_assign(&ct.clone()) {
            assert_eq!(error, Error::NoiseBudgetExhausted, "doubling {k}");
            // The refused doubling left the ciphertext as it was.
            let plain = Plaintext::from_u64s(&keyed.context, &expected).unwrap();
            assert_ne!(judge(keyed.sk.decrypt(&ct), &plain), Outcome::Wrong);
            return (outcomes, Some(k));
        }
        expected.iter_mut().for_each(|x| *x = *x * 2 % t);
        let plain = Plaintext::from_u64s(&keyed.context, &expected).unwrap();
        outcomes.push(judge(keyed.sk.decrypt(&ct), &plain));
    }
    (outcomes, None)
}

#[test]
fn repeated_doubling_never_decrypts_to_garbage() {
    // Two or three primes just below 2^60 / 2^61: 2^k mod Q is tiny for k
    // near the chain's bit count, which the exact measurement alone missed.
    for chain in [&[60u32, 60][..], &[61, 61, 61]] {
        let keyed = keyed(1024, &t65537(), chain, &[]);
        let (outcomes, _) = doublings(&keyed, 200);
        let wrong = outcomes.iter().filter(|o| **o == Outcome::Wrong).count();
        assert_eq!(
            wrong, 0,
            "chain {chain:?}: {wrong} silent wrong decryptions"
        );
        assert!(
            outcomes.iter().take(60).all(|o| *o == Outcome::Correct),
            "chain {chain:?}: the first 60 doublings fit the budget"
        );
    }
}

#[test]
fn switches_to_levels_that_cannot_hold_the_noise_are_refused() {
    let keyed = small_bottom_prime();
    let message = Plaintext::from_u64s(&keyed.context, &[5]).unwrap();
    let fresh = keyed.pk.encrypt(&message).unwrap();
    let level4 = fresh.mod_switch_to(4).unwrap();
    assert!(level4.estimated_budget_bits() >= 1.0);
    for level in 0..=3 {
        assert_eq!(
            fresh.mod_switch_to(level).unwrap_err(),
            Error::NoiseBudgetExhausted,
            "level {level}"
        );
    }
    assert_eq!(
        level4.mod_switch().unwrap_err(),
        Error::NoiseBudgetExhausted
    );
    // A refused in-place switch leaves the ciphertext as it was.
    let mut in_place = level4.clone();
    assert_eq!(
        in_place.mod_switch_to_assign(0),
        Err(Error::NoiseBudgetExhausted)
    );
    assert_eq!(in_place.level(), 4);
    assert_eq!(keyed.sk.decrypt(&in_place).unwrap(), message);
}

#[test]
fn additions_refuse_to_exhaust_the_estimate() {
    for chain in [&[60u32, 60][..], &[61, 61, 61]] {
        let keyed = keyed(1024, &t65537(), chain, &[]);
        let (outcomes, refused) = doublings(&keyed, 200);
        let refused = refused.unwrap_or_else(|| panic!("chain {chain:?}: 200 doublings accepted"));
        // Each doubling adds one bit to the estimate; the addition refuses
        // once the budget would drop below one bit, and every doubling before
        // decrypts.
        assert!(
            outcomes.iter().all(|o| *o == Outcome::Correct),
            "chain {chain:?}: {outcomes:?}"
        );
        let log2_q = keyed
            .context
            .log2_modulus(keyed.context.max_level())
            .unwrap();
        assert!(
            (f64::from(refused) - log2_q).abs() < 40.0,
            "chain {chain:?}: refused at doubling {refused}, log2 Q = {log2_q:.0}"
        );
    }

    // Doubled by scalar products until those refuse, the budget is below two
    // bits: a sum or difference with itself would exhaust it.
    let keyed = keyed(1024, &t65537(), &[60, 60], &[]);
    let message = Plaintext::from_u64s(&keyed.context, &[7]).unwrap();
    let mut ct = keyed.sk.encrypt(&message).unwrap();
    let two = BigUint::from(2u32);
    let mut expected = 7u64;
    while ct.mul_scalar_assign(&two).is_ok() {
        expected = expected * 2 % 65537;
    }
    let budget = ct.estimated_budget_bits();
    assert!((1.0..2.0).contains(&budget), "{budget}");
    assert_eq!(ct.add(&ct).unwrap_err(), Error::NoiseBudgetExhausted);
    assert_eq!(ct.sub(&ct).unwrap_err(), Error::NoiseBudgetExhausted);
    let expected = Plaintext::from_u64s(&keyed.context, &[expected]).unwrap();
    assert_eq!(keyed.sk.decrypt(&ct).unwrap(), expected);
}

// ------------------------------------------------------------- campaign

/// One parameter set of the campaign with everything a chain may use.
struct Setup {
    name: String,
    keyed: Keyed,
    /// Another secret key of the same context (decryptions with it must not
    /// return a wrong plaintext either).
    wrong_sk: SecretKey,
    rk: Option<RelinKey>,
    /// Galois keys and the rotation steps they hold.
    gk: Option<(GaloisKeys, Vec<i64>)>,
}

impl Setup {
    fn new(ring_degree: usize, t: &BigUint, chain: &[u32], special: &[u32]) -> Self {
        let keyed = keyed(ring_degree, t, chain, special);
        let name = format!(
            "N={ring_degree} t={}b chain={chain:?} special={special:?}",
            t.bits()
        );
        Self::from_keyed(name, keyed)
    }

    fn from_keyed(name: String, keyed: Keyed) -> Self {
        let wrong_sk = SecretKey::generate(&keyed.context).unwrap();
        let has_special = !keyed.context.special_primes().is_empty();
        let rk = has_special.then(|| RelinKey::generate(&keyed.sk).unwrap());
        let gk = has_special.then(|| {
            let steps = vec![1, -3];
            (GaloisKeys::for_steps(&keyed.sk, &steps).unwrap(), steps)
        });
        Self {
            name,
            keyed,
            wrong_sk,
            rk,
            gk,
        }
    }

    fn t(&self) -> &BigUint {
        self.keyed.context.plaintext_modulus()
    }

    fn plain(&self, m: &[BigUint]) -> Plaintext {
        Plaintext::from_biguints(&self.keyed.context, m).unwrap()
    }
}

/// What the campaign saw.
#[derive(Debug, Default, Clone, Copy)]
struct Tally {
    /// Decryptions with the right key that returned the model's plaintext.
    correct: usize,
    /// Decryptions that returned `Ok` with another plaintext: must stay 0.
    wrong: usize,
    /// Decryptions refused with `NoiseBudgetExhausted`.
    refused_decryptions: usize,
    /// Operations refused with `NoiseBudgetExhausted`.
    refused_operations: usize,
    /// Decryptions with the wrong key that returned `Ok` (each one checked
    /// against the model; only trivial ciphertexts can do it).
    wrong_key_ok: usize,
}

impl std::ops::AddAssign for Tally {
    fn add_assign(&mut self, other: Self) {
        self.correct += other.correct;
        self.wrong += other.wrong;
        self.refused_decryptions += other.refused_decryptions;
        self.refused_operations += other.refused_operations;
        self.wrong_key_ok += other.wrong_key_ok;
    }
}

/// The operation that switches to every lower level and continues from one.
const SWITCH_TO_EVERY_LEVEL: u32 = 8;

/// A ciphertext and the plaintext model it must decrypt to.
struct State {
    ct: Ciphertext,
    m: Vec<BigUint>,
}

/// A random message: uniform coefficients, a few uniform coefficients at
/// random places, or small coefficients (below 16) everywhere. Small
/// messages matter: wrapped noise is structured only when the whole of
/// factor·m + t·e is (a big coefficient wraps like a random one).
fn random_message(rng: &mut StdRng, t: &BigUint, n: usize) -> Vec<BigUint> {
    match rng.gen_range(0..3) {
        0 => common::random_poly(rng, t, n),
        1 => {
            let mut m = vec![BigUint::zero(); n];
            for _ in 0..rng.gen_range(1..=8) {
                m[rng.gen_range(0..n)] = common::random_below(rng, t);
            }
            m
        }
        _ => (0..n)
            .map(|_| BigUint::from(rng.gen_range(0u32..16)))
            .collect(),
    }
}

/// A scalar: small, about t/2, t − 1, or uniform below t.
fn random_scalar(rng: &mut StdRng, t: &BigUint) -> BigUint {
    match rng.gen_range(0..5) {
        0 | 1 => BigUint::from(rng.gen_range(2u32..1000)),
        2 => t / 2u32 - rng.gen_range(0u32..1000),
        3 => t - 1u32,
        _ => common::random_below(rng, t),
    }
}

/// m · c·X^j in Z_t[X]/(X^N + 1).
fn times_monomial(m: &[BigUint], c: &BigUint, j: usize, t: &BigUint) -> Vec<BigUint> {
    let n = m.len();
    let mut out = vec![BigUint::zero(); n];
    for (i, x) in m.iter().enumerate() {
        let v = x * c % t;
        if i + j < n {
            out[i + j] = v;
        } else {
            out[i + j - n] = (t - v) % t;
        }
    }
    out
}

/// c·X^j as a coefficient vector.
fn monomial(c: &BigUint, j: usize, n: usize) -> Vec<BigUint> {
    let mut m = vec![BigUint::zero(); n];
    m[j] = c.clone();
    m
}

impl Setup {
    /// Decrypts `ct` with the right key (and now and then with the wrong one)
    /// and counts the outcome against the model `m`.
    fn judge(&self, ct: &Ciphertext, m: &[BigUint], rng: &mut StdRng, tally: &mut Tally) {
        let expected = self.plain(m);
        match judge(self.keyed.sk.decrypt(ct), &expected) {
            Outcome::Correct => {
                tally.correct += 1;
                // The key-free estimate is conservative wherever it is used.
                let exact = self.keyed.sk.noise_budget(ct).unwrap();
                assert!(
                    ct.estimated_budget_bits() <= exact + 1.0,
                    "{}: estimated {} > exact {exact}",
                    self.name,
                    ct.estimated_budget_bits()
                );
            }
            Outcome::Wrong => {
                tally.wrong += 1;
                eprintln!("{}: SILENT WRONG DECRYPTION of {ct:?}", self.name);
            }
            Outcome::Refused => tally.refused_decryptions += 1,
        }
        if rng.gen_bool(0.2) {
            match judge(self.wrong_sk.decrypt(ct), &expected) {
                Outcome::Correct => tally.wrong_key_ok += 1,
                Outcome::Wrong => {
                    tally.wrong += 1;
                    eprintln!("{}: the wrong key decrypted {ct:?}", self.name);
                }
                Outcome::Refused => {}
            }
        }
    }

    /// A fresh encryption of `m` at `level` with either key.
    fn encrypt(
        &self,
        m: &[BigUint],
        level: usize,
        rng: &mut StdRng,
    ) -> helib_rs::Result<Ciphertext> {
        let plain = self.plain(m);
        if rng.gen_bool(0.5) {
            self.keyed.pk.encrypt_at_level(&plain, level)
        } else {
            self.keyed.sk.encrypt_at_level(&plain, level)
        }
    }

    /// One random operation on `s`. Returns the new state, or the error of a
    /// refused operation (the caller keeps the old state). Intermediate
    /// ciphertexts (doubling bursts, sums, switches to every level) are
    /// judged on the way.
    fn step(&self, s: &State, rng: &mut StdRng, tally: &mut Tally) -> helib_rs::Result<State> {
        // Doubling bursts and switches to every level come up more often:
        // they reach the structured wraps.
        let op = rng.gen_range(0..20);
        self.apply(op, s, rng, tally)
    }

    /// Operation number `op` (see `step`).
    fn apply(
        &self,
        op: u32,
        s: &State,
        rng: &mut StdRng,
        tally: &mut Tally,
    ) -> helib_rs::Result<State> {
        let t = self.t();
        let n = self.keyed.n();
        let ct = &s.ct;
        let level = ct.level();
        let next = |ct: Ciphertext, m: Vec<BigUint>| Ok(State { ct, m });
        match op {
            0 => next(
                ct.add(ct)?,
                common::model::scale(&s.m, &BigUint::from(2u32), t),
            ),
            1 | 16 | 17 => {
                // A burst of doublings, each judged; ends at the first refusal.
                let mut state = State {
                    ct: ct.clone(),
                    m: s.m.clone(),
                };
                for _ in 0..rng.gen_range(5..200) {
                    if let Err(error) = state.ct.add_assign(&state.ct.clone()) {
                        assert_eq!(error, Error::NoiseBudgetExhausted);
                        tally.refused_operations += 1;
                        break;
                    }
                    state.m = common::model::scale(&state.m, &BigUint::from(2u32), t);
                    self.judge(&state.ct, &state.m, rng, tally);
                }
                Ok(state)
            }
            2 => {
                let k = random_scalar(rng, t);
                let scaled = ct.mul_scalar(&k)?;
                let m = common::model::sub(&s.m, &common::model::scale(&s.m, &k, t), t);
                next(ct.sub(&scaled)?, m)
            }
            3 => {
                let k = random_scalar(rng, t) + t * BigUint::from(rng.gen_range(0u32..3));
                let mut m = s.m.clone();
                m[0] = (&m[0] + &k) % t;
                next(ct.add_scalar(&k)?, m)
            }
            4 => {
                let k = random_scalar(rng, t);
                next(ct.mul_scalar(&k)?, common::model::scale(&s.m, &k, t))
            }
            5 => {
                let c = random_scalar(rng, t);
                let j = rng.gen_range(0..n);
                let plain = self.plain(&monomial(&c, j, n));
                let encoded = EncodedPlaintext::for_multiplication(&plain, level)?;
                next(ct.mul_plain(&encoded)?, times_monomial(&s.m, &c, j, t))
            }
            6 => {
                let p = random_message(rng, t, n);
                let encoded = EncodedPlaintext::for_addition_to(&self.plain(&p), ct)?;
                if rng.gen_bool(0.5) {
                    next(ct.add_plain(&encoded)?, common::model::add(&s.m, &p, t))
                } else {
                    next(ct.sub_plain(&encoded)?, common::model::sub(&s.m, &p, t))
                }
            }
            7 if level > 0 => next(ct.mod_switch()?, s.m.clone()),
            SWITCH_TO_EVERY_LEVEL | 18 | 19 if level > 0 => {
                // Every lower level; continue from one that was reached.
                let mut reached = Vec::new();
                for target in 0..level {
                    match ct.mod_switch_to(target) {
                        Ok(low) => {
                            self.judge(&low, &s.m, rng, tally);
                            reached.push(low);
                        }
                        Err(error) => {
                            assert_eq!(error, Error::NoiseBudgetExhausted);
                            tally.refused_operations += 1;
                        }
                    }
                }
                if reached.is_empty() {
                    return Err(Error::NoiseBudgetExhausted);
                }
                let pick = rng.gen_range(0..reached.len());
                next(reached.swap_remove(pick), s.m.clone())
            }
            9 => next(ct.mod_switch_reduce_noise()?, s.m.clone()),
            10 => {
                // A sum of many: fresh encryptions at this level when the
                // factors agree, encoded plaintexts otherwise.
                let canonical =
                    self.keyed.context.correction_factor(level) == Some(ct.correction_factor());
                let mut state = State {
                    ct: ct.clone(),
                    m: s.m.clone(),
                };
                for _ in 0..rng.gen_range(2..24) {
                    let p = random_message(rng, t, n);
                    let added = if canonical && ct.size() == 2 {
                        self.encrypt(&p, level, rng)
                            .and_then(|fresh| state.ct.add_assign(&fresh))
                    } else {
                        EncodedPlaintext::for_addition_to(&self.plain(&p), &state.ct)
                            .and_then(|encoded| state.ct.add_plain_assign(&encoded))
                    };
                    match added {
                        Ok(()) => state.m = common::model::add(&state.m, &p, t),
                        Err(error) => {
                            assert_eq!(error, Error::NoiseBudgetExhausted);
                            tally.refused_operations += 1;
                            break;
                        }
                    }
                }
                Ok(state)
            }
            11 if ct.size() == 2 => {
                // A ciphertext product with a fresh encryption of c·X^j.
                let c = random_scalar(rng, t);
                let j = rng.gen_range(0..n);
                let partner = self.encrypt(&monomial(&c, j, n), level, rng)?;
                let product = ct.multiply(&partner)?;
                let m = times_monomial(&s.m, &c, j, t);
                match &self.rk {
                    Some(rk) if rng.gen_bool(0.7) => {
                        self.judge(&product, &m, rng, tally);
                        next(product.relinearize(rk)?, m)
                    }
                    _ => next(product, m),
                }
            }
            12 if ct.size() == 3 && self.rk.is_some() => {
                next(ct.relinearize(self.rk.as_ref().unwrap())?, s.m.clone())
            }
            13 if ct.size() == 2 && self.gk.is_some() => {
                let (keys, steps) = self.gk.as_ref().unwrap();
                let step = steps[rng.gen_range(0..steps.len())];
                let g = GaloisKeys::element_for_step(&self.keyed.context, step);
                let m = common::model::substitute(&s.m, g as usize, t);
                next(ct.rotate_rows(step, keys, RotationPolicy::Exact)?, m)
            }
            14 => next(ct.negate()?, common::model::neg(&s.m, t)),
            15 if ct.size() == 2 => {
                let mut masked = ct.clone();
                self.keyed.pk.add_mask_insecure(&mut masked)?;
                next(masked, s.m.clone())
            }
            // The chosen operation does not apply to this ciphertext.
            _ => Ok(State {
                ct: ct.clone(),
                m: s.m.clone(),
            }),
        }
    }

    /// `chains` random chains of `steps` operations each.
    fn campaign(&self, seed: u64, chains: usize, steps: usize) -> Tally {
        let mut rng = common::rng(seed);
        let mut tally = Tally::default();
        let context = &self.keyed.context;
        for _ in 0..chains {
            let top = context.max_level();
            let level = if rng.gen_bool(0.7) {
                top
            } else {
                rng.gen_range(0..=top)
            };
            let m = random_message(&mut rng, self.t(), self.keyed.n());
            let ct = match self.encrypt(&m, level, &mut rng) {
                Ok(ct) => ct,
                Err(error) => {
                    // Only levels too small for a fresh encryption refuse.
                    assert_eq!(error, Error::NoiseBudgetExhausted, "{}", self.name);
                    tally.refused_operations += 1;
                    continue;
                }
            };
            let mut state = State { ct, m };
            self.judge(&state.ct, &state.m, &mut rng, &mut tally);
            for step in 0..steps {
                // About a third of the chains start by switching to every level.
                let outcome = if step == 0 && rng.gen_bool(0.3) {
                    self.apply(SWITCH_TO_EVERY_LEVEL, &state, &mut rng, &mut tally)
                } else {
                    self.step(&state, &mut rng, &mut tally)
                };
                match outcome {
                    Ok(next) => state = next,
                    Err(error) => {
                        assert_eq!(error, Error::NoiseBudgetExhausted, "{}", self.name);
                        tally.refused_operations += 1;
                    }
                }
                self.judge(&state.ct, &state.m, &mut rng, &mut tally);
            }
        }
        tally
    }
}

/// The parameter sets of the campaign: t = BN254 Fr and t = 65537; chains
/// with a small bottom prime under a big t; chains of primes just below
/// powers of two; with and without special primes.
fn campaign_setups(long: bool) -> Vec<Setup> {
    let bn = bn254();
    let t = t65537();
    let mut setups = vec![
        Setup::from_keyed("small bottom prime".into(), small_bottom_prime()),
        Setup::new(2048, &bn, &[30, 38, 61, 61, 61, 61, 61], &[61]),
        Setup::new(1024, &bn, &[50, 60, 60, 60, 60, 60, 60], &[60, 60]),
        Setup::new(1024, &t, &[60, 60], &[]),
        Setup::new(1024, &t, &[61, 61, 61], &[61]),
        Setup::new(2048, &t, &[55, 55, 55, 55], &[60]),
        Setup::new(4096, &t, &[30, 40, 60], &[60]),
    ];
    if long {
        // The presets' shapes: chains sized by the builder for a depth.
        setups.push(Setup::from_keyed(
            "for_tests (N=4096, BN254, depth 1)".into(),
            keys_for(Context::new(&Parameters::for_tests()).unwrap()),
        ));
        for (n, t, depth) in [(2048, &bn, 2), (4096, &t, 4)] {
            setups.push(Setup::from_keyed(
                format!("N={n} t={}b depth {depth}", t.bits()),
                keys_for(common::context(n, t, depth)),
            ));
        }
        setups.push(Setup::new(2048, &t, &[61, 61, 61, 61, 61, 61], &[]));
    }
    setups
}

/// Runs the campaign and asserts: no silent wrong decryption, and enough
/// decryptions succeed that refusing everything could not pass.
fn assert_campaign(seed: u64, chains: usize, steps: usize, long: bool) {
    let setups = campaign_setups(long);
    let tallies: Vec<Tally> = (0..setups.len())
        .map(|i| setups[i].campaign(seed + i as u64, chains, steps))
        .collect();
    for (setup, tally) in setups.iter().zip(&tallies) {
        eprintln!("{}: {tally:?}", setup.name);
    }
    let wrong: usize = tallies.iter().map(|tally| tally.wrong).sum();
    assert_eq!(wrong, 0, "silent wrong decryptions");
    let mut total = Tally::default();
    for (setup, &tally) in setups.iter().zip(&tallies) {
        let decryptions = tally.correct + tally.refused_decryptions;
        assert!(
            tally.correct * 4 >= decryptions,
            "{}: only {} of {decryptions} decryptions succeeded",
            setup.name,
            tally.correct
        );
        total += tally;
    }
    let decryptions = total.correct + total.refused_decryptions;
    assert!(
        total.correct * 2 >= decryptions,
        "only {} of {decryptions} decryptions succeeded",
        total.correct
    );
    // The chains reach the edge of the budget: refusals happen.
    assert!(
        total.refused_operations > 0 && total.refused_decryptions + total.refused_operations > 10,
        "{total:?}"
    );
}

#[test]
fn campaign_finds_no_silent_wrong_decryption() {
    assert_campaign(1000, 4, 12, false);
}

/// The long campaign: more chains, longer ones, and the presets' shapes.
#[test]
#[ignore = "long: about two minutes"]
fn long_campaign_finds_no_silent_wrong_decryption() {
    assert_campaign(2000, 40, 30, true);
}

/// The reported reproduction: N = 2^14, t = BN254 Fr, chain
/// [44, 59, 61, 61, 61, 61], special [61], accepted as 128-bit secure. A
/// public-key encryption of 0 or 5 switched to level 0 decrypted to garbage
/// 20 times out of 20, and the switch was accepted with an estimated budget
/// of −218 bits.
#[test]
#[ignore = "long: N = 2^14"]
fn reported_n14_bottom_prime_reproduction_is_refused() {
    let params = Parameters::builder()
        .ring_degree(1 << 14)
        .plaintext_modulus(bn254())
        .chain_bits(&[44, 59, 61, 61, 61, 61])
        .special_bits(&[61])
        .build()
        .expect("accepted without allow_insecure");
    assert!(params.security_level().bits() >= 128);
    let keyed = keys_for(Context::new(&params).unwrap());
    for level in 0..=keyed.context.max_level() {
        let [correct, wrong, refused] = switch_and_decrypt(&keyed, level, 20);
        assert_eq!(wrong, 0, "level {level}: {wrong} silent wrong decryptions");
        let log2_q = keyed.context.log2_modulus(level).unwrap();
        if log2_q < 256.0 {
            assert_eq!(refused, 20, "level {level} (log2 Q = {log2_q:.0})");
        } else {
            assert_eq!(correct, 20, "level {level} (log2 Q = {log2_q:.0})");
        }
    }
}

/// The reported doubling reproduction: with `Parameters::t65537_n14()`,
/// 280 to 284 doublings (280 = the chain's bits) decrypted to a wrong plaintext.
#[test]
#[ignore = "long: N = 2^14"]
fn reported_t65537_n14_doubling_reproduction_is_refused() {
    let keyed = keys_for(Context::new(&Parameters::t65537_n14()).unwrap());
    let (outcomes, refused) = doublings(&keyed, 300);
    let wrong = outcomes.iter().filter(|o| **o == Outcome::Wrong).count();
    assert_eq!(wrong, 0, "{wrong} silent wrong decryptions");
    assert!(outcomes.iter().all(|o| *o == Outcome::Correct));
    let refused = refused.expect("the addition refuses before 300 doublings");
    assert!(refused < 280, "refused only at doubling {refused}");
}
