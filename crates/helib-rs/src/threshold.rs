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

use helib_sys as sys;

use crate::ciphertext::Ciphertext;
use crate::context::Context;
use crate::error::{Error, Result};
use crate::ffi::{check, query, Owned};
use crate::galois_keys::GaloisKeys;
use crate::keys::{PublicKey, SecretKey};
use crate::plaintext::Plaintext;
use crate::relin_key::{ensure_key_switching, RelinKey};
use zeroize::Zeroizing;

mod smudging;
pub use smudging::Smudging;

/// Bytes of a common reference seed.
pub const SEED_BYTES: usize = sys::HELIB_THRESHOLD_SEED_BYTES as usize;

/// A common reference seed the parties agree on (public).
pub type Seed = [u8; SEED_BYTES];

mod sealed {
    use helib_sys as sys;

    /// The engine handle of a party's secret, in either form.
    pub enum RawSecret {
        Key(*const sys::helib_secret_key),
        Residues(*const sys::helib_secret_share),
    }

    pub trait Sealed {
        fn raw_secret(&self) -> RawSecret;
    }
}

use sealed::RawSecret;

/// A party's additive secret share in the protocols on a ciphertext
/// (decryption, encryption to shares, key switching): an N-out-of-N
/// [`SecretKey`] or a [`ResidueShare`] activated for an active set.
pub trait PartySecret: sealed::Sealed {
    /// The context of the secret.
    fn secret_context(&self) -> &Context;
}

impl sealed::Sealed for SecretKey {
    fn raw_secret(&self) -> RawSecret {
        RawSecret::Key(self.as_ptr())
    }
}

impl PartySecret for SecretKey {
    fn secret_context(&self) -> &Context {
        self.context()
    }
}

/// A party's secret share as RNS residues (NTT form, modulo every chain
/// prime): its re-shared key `S_j` (the sum of the Shamir dealings it
/// received, [`shamir_combine`]) or, once activated for an active set `T`,
/// `λ_j(T)·S_j` ([`activate`](Self::activate)). Secret: the engine keeps the
/// residues in memory it wipes when the share is dropped.
pub struct ResidueShare {
    raw: Owned<sys::helib_secret_share>,
    context: Context,
}

// SAFETY: the handle is immutable after creation and owned by this value
// alone; the engine functions using it take it as `const` and may run
// concurrently; it is released only in `Drop`, which has exclusive access.
unsafe impl Send for ResidueShare {}
// SAFETY: see the `Send` impl above.
unsafe impl Sync for ResidueShare {}

impl std::fmt::Debug for ResidueShare {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ResidueShare(..)")
    }
}

/// What a [`ResidueShare`] is: its party, the threshold, the number of
/// parties and the size of its active set (0 before activation).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ResidueShareInfo {
    /// The party's evaluation point, in `1..=parties`.
    pub index: u32,
    /// The number of parties needed to use the shared secret.
    pub threshold: u32,
    /// The number of parties the secret is shared among.
    pub parties: u32,
    /// The size of the active set the share was activated for (0: not activated).
    pub active: usize,
}

impl ResidueShare {
    /// The context of the share.
    pub fn context(&self) -> &Context {
        &self.context
    }

    /// The share's party index, threshold, parties and active-set size.
    ///
    /// # Errors
    /// Not expected for a live share (the engine's error otherwise).
    pub fn info(&self) -> Result<ResidueShareInfo> {
        let (mut index, mut threshold, mut parties, mut active) = (0u32, 0u32, 0u32, 0usize);
        // SAFETY: the share handle is live and every out-pointer is valid.
        check(unsafe {
            sys::helib_shamir_share_info(
                self.raw.as_ptr(),
                &mut index,
                &mut threshold,
                &mut parties,
                &mut active,
            )
        })?;
        Ok(ResidueShareInfo {
            index,
            threshold,
            parties,
            active,
        })
    }

    /// `λ_j(T)·S_j` for the active set `active` (1-based party indices, any
    /// order): the party's additive share of the collective secret among the
    /// members of `T`.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] when the share is already activated, an
    /// index is outside `1..=parties` or repeated, `T` has fewer than
    /// `threshold` members or does not contain this party.
    pub fn activate(&self, active: &[u32]) -> Result<ResidueShare> {
        let share = self.raw.as_ptr();
        // SAFETY: the share handle is live; `active` holds `active.len()` indices; `out` is a valid out-pointer.
        let raw = Owned::create(|out| unsafe {
            sys::helib_shamir_activate(share, active.as_ptr(), active.len(), out)
        })?;
        Ok(Self {
            raw,
            context: self.context.clone(),
        })
    }
}

impl sealed::Sealed for ResidueShare {
    fn raw_secret(&self) -> RawSecret {
        RawSecret::Residues(self.raw.as_ptr())
    }
}

impl PartySecret for ResidueShare {
    fn secret_context(&self) -> &Context {
        &self.context
    }
}

/// The Shamir dealing of `sk` to `parties` parties with `threshold`: per
/// chain prime and coefficient (NTT form), a random polynomial of degree
/// `threshold − 1` with constant term `s_i`, evaluated at `1..=parties`.
/// The result holds `parties` chain shares at the top level, the one for
/// party `j` at block `j − 1` ([`chain_share_len`] residues each). Secret:
/// each block must reach its recipient over a private channel; the buffer is
/// wiped when dropped.
///
/// # Errors
/// [`Error::InvalidArgument`] unless `1 ≤ threshold ≤ parties ≤ 4096`;
/// [`Error::Randomness`] when the OS random source fails.
pub fn shamir_deal(sk: &SecretKey, threshold: u32, parties: u32) -> Result<Zeroizing<Vec<u64>>> {
    let context = sk.context();
    let each = chain_share_len(context, context.max_level());
    let len = each
        .checked_mul(parties as usize)
        .ok_or_else(|| Error::InvalidArgument("the dealing length overflows".into()))?;
    let mut out = Zeroizing::new(vec![0u64; len]);
    // SAFETY: the key handle is live and `out` holds `out.len()` values.
    check(unsafe {
        sys::helib_shamir_deal(sk.as_ptr(), threshold, parties, out.as_mut_ptr(), out.len())
    })?;
    Ok(out)
}

/// Party `index`'s (1-based) re-shared key `S_j` from the dealings it
/// received: `parties` chain shares at the top level, dealer 1 first.
///
/// # Errors
/// [`Error::InvalidArgument`] for sizes out of range, an index outside
/// `1..=parties`, a wrong length or an unreduced residue.
pub fn shamir_combine(
    context: &Context,
    index: u32,
    threshold: u32,
    parties: u32,
    dealings: &[u64],
) -> Result<ResidueShare> {
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live; `dealings` holds `dealings.len()` values; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        sys::helib_shamir_combine(
            ctx,
            index,
            threshold,
            parties,
            dealings.as_ptr(),
            dealings.len(),
            out,
        )
    })?;
    Ok(ResidueShare {
        raw,
        context: context.clone(),
    })
}

/// Residues of a chain share at `level`.
pub fn chain_share_len(context: &Context, level: usize) -> usize {
    context.ring_degree() * (level + 1)
}

/// Residues of a key share of `context`.
///
/// # Errors
/// [`Error::InvalidParameters`] when the context has no special primes.
pub fn key_share_len(context: &Context) -> Result<usize> {
    ensure_key_switching(context)?;
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live and `out` is a valid out-pointer.
    query(|out| unsafe { sys::helib_threshold_key_share_len(ctx, out) })
}

/// The primes of residue block `i` of a share: chain primes `q_0..q_level`.
fn chain_moduli(context: &Context, level: usize) -> Result<&[u64]> {
    context
        .chain_primes()
        .get(..=level)
        .ok_or(Error::InvalidLevel {
            level,
            max: context.max_level(),
        })
}

/// Sums chain shares at `level` into `acc` residue-wise.
///
/// # Errors
/// [`Error::InvalidArgument`] when a length is wrong or a residue is not reduced.
pub fn add_chain_shares(
    context: &Context,
    level: usize,
    acc: &mut [u64],
    share: &[u64],
) -> Result<()> {
    let moduli = chain_moduli(context, level)?.to_vec();
    add_blocks(context.ring_degree(), &moduli, acc, share)
}

/// Sums key shares into `acc` residue-wise.
///
/// # Errors
/// [`Error::InvalidArgument`] when a length is wrong or a residue is not reduced.
pub fn add_key_shares(context: &Context, acc: &mut [u64], share: &[u64]) -> Result<()> {
    let mut moduli: Vec<u64> = Vec::new();
    let digits = context.key_switching_digits()?;
    for _ in 0..digits {
        moduli.extend_from_slice(context.chain_primes());
        moduli.extend_from_slice(context.special_primes());
    }
    add_blocks(context.ring_degree(), &moduli, acc, share)
}

/// Whether every residue of a share is below its prime (and its length fits).
pub fn share_is_reduced(context: &Context, moduli_per_block: &[u64], share: &[u64]) -> bool {
    let n = context.ring_degree();
    share.len() == n * moduli_per_block.len()
        && share
            .chunks_exact(n)
            .zip(moduli_per_block)
            .all(|(block, &q)| block.iter().all(|&x| x < q))
}

fn add_blocks(n: usize, moduli: &[u64], acc: &mut [u64], share: &[u64]) -> Result<()> {
    let expected = n * moduli.len();
    if acc.len() != expected || share.len() != expected {
        return Err(Error::InvalidArgument(format!(
            "a share has {} residues and the sum {}, expected {expected}",
            share.len(),
            acc.len()
        )));
    }
    for ((a, s), &q) in acc
        .chunks_exact_mut(n)
        .zip(share.chunks_exact(n))
        .zip(moduli)
    {
        for (x, &y) in a.iter_mut().zip(s) {
            if y >= q || *x >= q {
                return Err(Error::InvalidArgument(
                    "a share residue is not reduced modulo its prime".into(),
                ));
            }
            // q < 2^62, so the sum cannot overflow.
            let sum = *x + y;
            *x = if sum >= q { sum - q } else { sum };
        }
    }
    Ok(())
}

/// A 32-byte digest identifying `ciphertext` (level, size, correction factor
/// and a polynomial hash of every residue), to bind shares to the ciphertext
/// they were computed on. It tells ciphertexts apart; it is not a commitment
/// against someone building colliding ciphertexts on purpose.
///
/// # Errors
/// The engine's error for an empty ciphertext.
pub fn ciphertext_digest(ciphertext: &Ciphertext) -> Result<[u8; 32]> {
    let mut out = [0u8; 32];
    // SAFETY: the ciphertext handle is live and `out` holds 32 bytes.
    check(unsafe {
        sys::helib_threshold_ciphertext_digest(ciphertext.as_ptr(), out.as_mut_ptr(), out.len())
    })?;
    Ok(out)
}

/// A party's share of the collective public key: `-a·s_i + t·e_i`, `a` from `seed`.
///
/// # Errors
/// [`Error::Randomness`] when the OS random source fails.
pub fn public_key_share(sk: &SecretKey, seed: &Seed) -> Result<Vec<u64>> {
    let context = sk.context();
    let mut out = vec![0u64; chain_share_len(context, context.max_level())];
    // SAFETY: the key handle is live, the seed holds SEED_BYTES bytes and `out` holds `out.len()` values.
    check(unsafe {
        sys::helib_threshold_public_key_share(
            sk.as_ptr(),
            seed.as_ptr(),
            out.as_mut_ptr(),
            out.len(),
        )
    })?;
    Ok(out)
}

/// The collective public key from the sum of all parties' shares.
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong length or unreduced residues.
pub fn public_key_assemble(context: &Context, seed: &Seed, sum: &[u64]) -> Result<PublicKey> {
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live; `sum` holds `sum.len()` values; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        sys::helib_threshold_public_key_assemble(ctx, seed.as_ptr(), sum.as_ptr(), sum.len(), out)
    })?;
    Ok(PublicKey::from_raw(raw, context))
}

/// A party's share of the Galois key for `element`.
///
/// # Errors
/// [`Error::InvalidArgument`] for an invalid element; [`Error::InvalidParameters`]
/// without special primes.
pub fn galois_key_share(sk: &SecretKey, element: u64, seed: &Seed) -> Result<Vec<u64>> {
    let mut out = vec![0u64; key_share_len(sk.context())?];
    // SAFETY: the key handle is live, the seed holds SEED_BYTES bytes and `out` holds `out.len()` values.
    check(unsafe {
        sys::helib_threshold_galois_key_share(
            sk.as_ptr(),
            element,
            seed.as_ptr(),
            out.as_mut_ptr(),
            out.len(),
        )
    })?;
    Ok(out)
}

/// Inserts the collective Galois key for `element` (sum of the shares of
/// `parties` parties) into `keys`. The key's noise estimate accounts for the
/// parties' summed errors, and it serializes like any Galois key.
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong length, unreduced residues, an
/// invalid element or `parties` outside `[1, 4096]`.
pub fn galois_keys_insert(
    keys: &mut GaloisKeys,
    element: u64,
    seed: &Seed,
    parties: u32,
    sum: &[u64],
) -> Result<()> {
    keys.insert_with(element, |raw| {
        // SAFETY: `raw` is the live, exclusively borrowed key set; `sum` holds `sum.len()` values.
        unsafe {
            sys::helib_threshold_galois_keys_insert(
                raw,
                element,
                seed.as_ptr(),
                parties,
                sum.as_ptr(),
                sum.len(),
            )
        }
    })
}

/// Round 1 of the collective relinearization key with the party's ephemeral
/// secret `ephemeral` (kept until round 2): the shares `(h0, h1)`.
///
/// # Errors
/// [`Error::ContextMismatch`] when the keys belong to different contexts.
pub fn relin_key_round1(
    sk: &SecretKey,
    ephemeral: &SecretKey,
    seed: &Seed,
) -> Result<(Vec<u64>, Vec<u64>)> {
    sk.context().ensure_same(ephemeral.context())?;
    let len = key_share_len(sk.context())?;
    let (mut h0, mut h1) = (vec![0u64; len], vec![0u64; len]);
    // SAFETY: both key handles are live, the seed holds SEED_BYTES bytes, h0 and h1 hold `len` values.
    check(unsafe {
        sys::helib_threshold_relin_key_round1(
            sk.as_ptr(),
            ephemeral.as_ptr(),
            seed.as_ptr(),
            h0.as_mut_ptr(),
            h1.as_mut_ptr(),
            len,
        )
    })?;
    Ok((h0, h1))
}

/// Round 2 of the collective relinearization key from the round-1 sums.
///
/// # Errors
/// [`Error::InvalidArgument`] for wrong lengths or unreduced residues.
pub fn relin_key_round2(
    sk: &SecretKey,
    ephemeral: &SecretKey,
    h0_sum: &[u64],
    h1_sum: &[u64],
) -> Result<Vec<u64>> {
    sk.context().ensure_same(ephemeral.context())?;
    if h0_sum.len() != h1_sum.len() {
        return Err(Error::InvalidArgument(
            "the round-1 sums differ in length".into(),
        ));
    }
    let mut out = vec![0u64; h0_sum.len()];
    // SAFETY: both key handles are live; the sums hold `len` values each and `out` as many.
    check(unsafe {
        sys::helib_threshold_relin_key_round2(
            sk.as_ptr(),
            ephemeral.as_ptr(),
            h0_sum.as_ptr(),
            h1_sum.as_ptr(),
            h0_sum.len(),
            out.as_mut_ptr(),
            out.len(),
        )
    })?;
    Ok(out)
}

/// The collective relinearization key of `parties` parties from the round-2
/// sum and the round-1 `h1` sum.
///
/// The key works like any other; its noise estimate accounts for the larger
/// error of a collective key (`s·e0 + u·e1 + e2` summed over the parties),
/// and it serializes (its `a` polynomials are not expanded from seeds, so
/// they are stored in full: about twice the size of a single-party key).
///
/// # Errors
/// [`Error::InvalidArgument`] for wrong lengths, unreduced residues or
/// `parties` outside `[1, 4096]`.
pub fn relin_key_assemble(
    context: &Context,
    parties: u32,
    b_sum: &[u64],
    h1_sum: &[u64],
) -> Result<RelinKey> {
    if b_sum.len() != h1_sum.len() {
        return Err(Error::InvalidArgument(
            "the key sums differ in length".into(),
        ));
    }
    let ctx = context.as_ptr();
    // SAFETY: the context handle is live; the sums hold `len` values each; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        sys::helib_threshold_relin_key_assemble(
            ctx,
            parties,
            b_sum.as_ptr(),
            h1_sum.as_ptr(),
            b_sum.len(),
            out,
        )
    })?;
    RelinKey::from_raw(raw, context)
}

/// The collective secret `s = Σ s_i` of 1 to 127 secret shares as a secret
/// key, to measure the exact noise of ciphertexts under collective keys in
/// tests and audits. Forming it defeats the threshold: no protocol step
/// calls it.
///
/// # Errors
/// [`Error::InvalidArgument`] for no shares or more than 127;
/// [`Error::ContextMismatch`] for shares of different contexts.
pub fn secret_key_sum(shares: &[&SecretKey]) -> Result<SecretKey> {
    let first = shares
        .first()
        .ok_or_else(|| Error::InvalidArgument("no secret shares to sum".into()))?;
    for share in shares {
        first.context().ensure_same(share.context())?;
    }
    let ptrs: Vec<*const sys::helib_secret_key> = shares.iter().map(|k| k.as_ptr()).collect();
    // SAFETY: every handle in `ptrs` is live for the call; `out` is a valid out-pointer.
    let raw = Owned::create(|out| unsafe {
        sys::helib_threshold_secret_key_sum(ptrs.as_ptr(), ptrs.len(), out)
    })?;
    Ok(SecretKey::from_raw(raw, first.context()))
}

/// A party's decryption share `c_1·s_i + t·E` (chain share at the
/// ciphertext's level), `E` as wide as `smudging` asks.
///
/// # Errors
/// [`Error::ContextMismatch`] for another context; [`Error::LevelMismatch`]
/// for a ciphertext not at `smudging`'s level; [`Error::NoiseBudgetExhausted`]
/// for one claiming more noise than its bound; as [`Smudging::width_bits`].
pub fn decrypt_share<K: PartySecret + ?Sized>(
    sk: &K,
    ciphertext: &Ciphertext,
    smudging: &Smudging,
) -> Result<Vec<u64>> {
    let context = sk.secret_context();
    context.ensure_same(ciphertext.context())?;
    let mut out = vec![0u64; chain_share_len(context, ciphertext.level())];
    let (ct, ptr, len) = (ciphertext.as_ptr(), out.as_mut_ptr(), out.len());
    let raw = smudging.to_raw();
    // SAFETY: the secret and ciphertext handles are live and `out` holds `len` values.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => sys::helib_threshold_decrypt_share(k, ct, &raw, ptr, len),
            RawSecret::Residues(r) => {
                sys::helib_threshold_decrypt_share_residues(r, ct, &raw, ptr, len)
            }
        }
    })?;
    Ok(out)
}

/// A party's encryption-to-shares step: its additive share `S_i` (uniform
/// mod t, secret) and the public share `c_1·s_i + t·E − f·S_i`.
///
/// # Errors
/// As [`decrypt_share`].
pub fn e2s_share<K: PartySecret + ?Sized>(
    sk: &K,
    ciphertext: &Ciphertext,
    smudging: &Smudging,
) -> Result<(Plaintext, Vec<u64>)> {
    let context = sk.secret_context();
    context.ensure_same(ciphertext.context())?;
    let mut mask = vec![0u64; context.ring_degree() * context.plain_limbs()];
    let mut out = vec![0u64; chain_share_len(context, ciphertext.level())];
    let (ct, m, m_len) = (ciphertext.as_ptr(), mask.as_mut_ptr(), mask.len());
    let (o, o_len) = (out.as_mut_ptr(), out.len());
    let raw = smudging.to_raw();
    // SAFETY: the secret and ciphertext handles are live; `mask` and `out` hold `m_len` and `o_len` values.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => sys::helib_threshold_e2s_share(k, ct, &raw, m, m_len, o, o_len),
            RawSecret::Residues(r) => {
                sys::helib_threshold_e2s_share_residues(r, ct, &raw, m, m_len, o, o_len)
            }
        }
    })?;
    Ok((Plaintext::from_engine_limbs(context, mask), out))
}

/// Decodes `c_0 + sum`: the plaintext for decryption shares, `m − Σ S_i` for
/// encryption-to-shares shares.
///
/// # Errors
/// [`Error::Malformed`] when the noise left is more than honest shares made
/// for `smudging` can leave (a share missing, repeated or forged); as
/// [`decrypt_share`] for the ciphertext.
pub fn decrypt_combine(
    ciphertext: &Ciphertext,
    smudging: &Smudging,
    sum: &[u64],
) -> Result<Plaintext> {
    let context = ciphertext.context();
    let mut out = vec![0u64; context.ring_degree() * context.plain_limbs()];
    let raw = smudging.to_raw();
    // SAFETY: the ciphertext handle is live; `sum` and `out` hold as many values as their lengths say.
    check(unsafe {
        sys::helib_threshold_decrypt_combine(
            ciphertext.as_ptr(),
            &raw,
            sum.as_ptr(),
            sum.len(),
            out.as_mut_ptr(),
            out.len(),
        )
    })?;
    Ok(Plaintext::from_engine_limbs(context, out))
}

/// A party's shares-to-encryption share `−a·s_i + t·e + f·S_i` of its
/// additive share `share` at `level` (`s_i` an N-out-of-N secret key or
/// `λ_j(T)·S_j` of an activated [`ResidueShare`]: the shares of all parties,
/// or of an active set, sum to a fresh encryption under the collective key).
///
/// # Errors
/// [`Error::ContextMismatch`] for a plaintext of another context; an invalid level.
pub fn s2e_share<K: PartySecret + ?Sized>(
    sk: &K,
    seed: &Seed,
    level: usize,
    share: &Plaintext,
) -> Result<Vec<u64>> {
    let context = sk.secret_context();
    context.ensure_same(share.context())?;
    chain_moduli(context, level)?;
    let limbs = share.limbs();
    let mut out = vec![0u64; chain_share_len(context, level)];
    let (seed, plain, n, width) = (
        seed.as_ptr(),
        limbs.as_ptr(),
        context.ring_degree(),
        context.plain_limbs(),
    );
    let (o, o_len) = (out.as_mut_ptr(), out.len());
    // SAFETY: the secret handle is live; `limbs` holds N · plain_limbs values; `out` holds `o_len`.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => {
                sys::helib_threshold_s2e_share(k, seed, level, plain, n, width, o, o_len)
            }
            RawSecret::Residues(r) => {
                sys::helib_threshold_s2e_share_residues(r, seed, level, plain, n, width, o, o_len)
            }
        }
    })?;
    Ok(out)
}

/// The ciphertext of the sum of the parties' additive shares.
///
/// # Errors
/// [`Error::InvalidArgument`] for a wrong length or unreduced residues.
pub fn s2e_assemble(
    context: &Context,
    seed: &Seed,
    level: usize,
    parties: u32,
    sum: &[u64],
) -> Result<Ciphertext> {
    chain_moduli(context, level)?;
    let ctx = context.as_ptr();
    Ciphertext::produce(context, |dst| {
        // SAFETY: the context and destination handles are live; `sum` holds `sum.len()` values.
        unsafe {
            sys::helib_threshold_s2e_assemble(
                ctx,
                seed.as_ptr(),
                level,
                parties,
                sum.as_ptr(),
                sum.len(),
                dst,
            )
        }
    })
}

/// A party's collective key-switching shares `(h0, h1)` towards `target`.
///
/// # Errors
/// As [`decrypt_share`].
pub fn key_switch_share<K: PartySecret + ?Sized>(
    sk: &K,
    ciphertext: &Ciphertext,
    target: &PublicKey,
    smudging: &Smudging,
) -> Result<(Vec<u64>, Vec<u64>)> {
    let context = sk.secret_context();
    context.ensure_same(ciphertext.context())?;
    context.ensure_same(target.context())?;
    let len = chain_share_len(context, ciphertext.level());
    let (mut h0, mut h1) = (vec![0u64; len], vec![0u64; len]);
    let (ct, pk, p0, p1) = (
        ciphertext.as_ptr(),
        target.as_ptr(),
        h0.as_mut_ptr(),
        h1.as_mut_ptr(),
    );
    let raw = smudging.to_raw();
    // SAFETY: all handles are live; h0 and h1 hold `len` values.
    check(unsafe {
        match sk.raw_secret() {
            RawSecret::Key(k) => {
                sys::helib_threshold_key_switch_share(k, ct, pk, &raw, p0, p1, len)
            }
            RawSecret::Residues(r) => {
                sys::helib_threshold_key_switch_share_residues(r, ct, pk, &raw, p0, p1, len)
            }
        }
    })?;
    Ok((h0, h1))
}

/// The ciphertext under the target key from the sums of the key-switching shares.
///
/// # Errors
/// [`Error::InvalidArgument`] for wrong lengths or unreduced residues; as [`decrypt_share`].
pub fn key_switch_assemble(
    ciphertext: &Ciphertext,
    smudging: &Smudging,
    h0_sum: &[u64],
    h1_sum: &[u64],
) -> Result<Ciphertext> {
    if h0_sum.len() != h1_sum.len() {
        return Err(Error::InvalidArgument(
            "the key-switching sums differ in length".into(),
        ));
    }
    let ct = ciphertext.as_ptr();
    Ciphertext::produce(ciphertext.context(), |dst| {
        let raw = smudging.to_raw();
        // SAFETY: both handles are live and distinct; the sums hold `len` values each.
        unsafe {
            sys::helib_threshold_key_switch_assemble(
                ct,
                &raw,
                h0_sum.as_ptr(),
                h1_sum.as_ptr(),
                h0_sum.len(),
                dst,
            )
        }
    })
}
