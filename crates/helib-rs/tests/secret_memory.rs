//! No copy of a secret key survives in the process's memory once the key, its
//! context and everything made with them are dropped.
//!
//! The test crafts the ciphertext (c_0, c_1) = (0, 1), whose decryption
//! intermediate c_0 + c_1·s is s itself, decrypts it (learning s from the
//! plaintext), drops every engine object and then reads the whole process
//! through `/proc/self/mem`, looking for
//! * the residues of s modulo a chain prime in coefficient form (what the
//!   decryption intermediate holds, and what it holds for any ciphertext up to
//!   the known c_0 and c_1),
//! * s as one signed byte per coefficient (the key's own coefficient form),
//! * ChaCha20 keystream words that expand to a stretch of s (the sampler's
//!   input, from which the seed's stream gives the whole key away),
//! * s in the form of an explicit export (2-bit codes, four to a byte), which
//!   the test makes and loads again: neither the wiped buffer it comes in nor
//!   the engine's temporaries may leave a copy.
//!
//! It is one test in its own binary, so no other test's memory is scanned.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::os::unix::fs::FileExt;

use helib_rs::{
    Ciphertext, Context, ExportSecret, GaloisKeys, Parameters, Plaintext, PublicKey, RelinKey,
    SecretKey,
};
use num_bigint::BigUint;

const N: usize = 4096;
const T: u64 = 65537;
/// Coefficients of s per lookup window.
const WINDOW: usize = 32;
/// Matching windows at one place that count as a copy of s (a copy of one
/// prime's residues gives N − WINDOW + 1 of them).
const MIN_WINDOWS: usize = 256;
/// Matching bytes windows (one per 8 coefficients) that count as a copy.
const MIN_BYTE_WINDOWS: usize = 32;
/// Matching words of the export form (32 coefficients each) that count as a copy.
const MIN_EXPORT_WINDOWS: usize = 16;

#[test]
fn no_secret_is_left_in_memory_after_the_key_is_dropped() {
    // A small chain with a special prime (key switching), and a long one whose
    // decryption intermediate is big enough for the engine's buffer pool.
    let narrow = Session::new(&[45, 45, 45], &[50]);
    let wide = Session::new(&[40; 32], &[]);

    // s, learned from the probe, is kept as codes (0, 1, 2 for 0, 1, -1): a
    // form the scan does not look for. Everything the scan needs is
    // allocated now, before the operations under test, so that it does not
    // reuse (and overwrite) memory they leave behind.
    let secrets = [narrow.secret_codes(), wide.secret_codes()];
    let primes = [narrow.context.chain_primes(), wide.context.chain_primes()].concat();
    let index = SecretIndex::new(&secrets, &primes);
    let mut buffer = vec![0u8; 1 << 20];
    let mut found = Findings::default();
    found.residue_hits.reserve(1024);
    found.byte_hits.reserve(1024);
    found.keystream_words.reserve(1024);
    found.export_hits.reserve(1024);
    planted_copies_are_found(&index, &secrets[0], primes[0], &mut buffer);

    narrow.exercise();
    wide.exercise();

    let scanned = scan_process(&index, &mut buffer, &mut found);
    assert!(
        scanned > 1 << 20,
        "only {scanned} bytes of the process could be read"
    );
    let residues = found.residue_copies();
    let bytes = found.byte_copies();
    let exports = found.export_copies();
    assert!(
        residues.is_empty()
            && bytes.is_empty()
            && found.keystream_words.is_empty()
            && exports.is_empty(),
        "copies of a dropped secret key remain in memory ({scanned} bytes scanned): \
         residues mod q_i ((address, prime), matching windows) {residues:x?}; \
         signed bytes (address, matching windows) {bytes:x?}; keystream words {:x?}; \
         exported codes (address, matching words) {exports:x?}",
        found.keystream_words
    );
}

/// A context, its keys, a public-key encryption and the probe (0, 1).
struct Session {
    context: Context,
    sk: SecretKey,
    pk: PublicKey,
    message: Plaintext,
    encrypted: Ciphertext,
    probe: Ciphertext,
}

impl Session {
    fn new(chain_bits: &[u32], special_bits: &[u32]) -> Self {
        let params = Parameters::builder()
            .ring_degree(N)
            .plaintext_modulus(BigUint::from(T))
            .chain_bits(chain_bits)
            .special_bits(special_bits)
            .threads(2)
            .allow_insecure()
            .build()
            .expect("valid parameters");
        let context = Context::new(&params).expect("context");
        let sk = SecretKey::generate(&context).expect("secret key");
        let pk = sk.public_key().expect("public key");
        let message = Plaintext::from_u64s(&context, &[1, 2, 3]).expect("plaintext");
        let encrypted = pk.encrypt(&message).expect("public-key encryption");
        let probe_bytes = probe(&encrypted.to_bytes().expect("serialize"));
        let probe =
            Ciphertext::from_bytes(&context, &probe_bytes).expect("the probe is well formed");
        Self {
            context,
            sk,
            pk,
            message,
            encrypted,
            probe,
        }
    }

    /// s as codes 0, 1, 2 (for 0, 1, -1), from the decryption of the probe.
    fn secret_codes(&self) -> Vec<u8> {
        let exposed = self.sk.decrypt(&self.probe).expect("decrypt the probe");
        let minus_one = BigUint::from(T - 1);
        let s: Vec<u8> = (0..N)
            .map(|j| {
                let c = exposed.coefficient(j).expect("N coefficients");
                if c == minus_one {
                    2
                } else {
                    let small =
                        u64::try_from(&c).expect("the probe decrypts to a ternary polynomial");
                    assert!(small <= 1, "the probe decrypts to a ternary polynomial");
                    small as u8
                }
            })
            .collect();
        let nonzero = s.iter().filter(|&&x| x != 0).count();
        assert!(
            nonzero > N / 2 && nonzero < 5 * N / 6,
            "about two thirds of the coefficients of s are nonzero"
        );
        s
    }

    /// Every operation that handles the secret key or a decryption
    /// intermediate, then drops everything.
    fn exercise(self) {
        let sk = &self.sk;
        if !self.context.special_primes().is_empty() {
            RelinKey::generate(sk).expect("relinearization key");
            GaloisKeys::for_steps(sk, &[1]).expect("Galois key");
        }
        self.pk
            .encrypt(&self.message)
            .expect("public-key encryption");
        let secret_ct = sk.encrypt(&self.message).expect("secret-key encryption");
        assert_eq!(sk.decrypt(&self.encrypted).expect("decrypt"), self.message);
        assert_eq!(sk.decrypt(&secret_ct).expect("decrypt"), self.message);
        assert!(sk.noise_budget(&self.encrypted).expect("budget") > 10.0);
        assert!(sk.noise_budget(&self.probe).expect("budget") > 100.0);
        self.secret_codes();
        // An explicit export, loaded again; both dropped here.
        let exported = sk
            .export_secret(ExportSecret::IUnderstandTheBytesAreTheKey)
            .expect("export");
        let loaded = SecretKey::import_secret(&self.context, &exported).expect("import");
        assert_eq!(
            loaded.decrypt(&self.encrypted).expect("decrypt"),
            self.message
        );
    }
}

/// The scanner finds each form of s when it is planted on purpose (and wiped afterwards).
fn planted_copies_are_found(index: &SecretIndex, s: &[u8], q: u64, buffer: &mut [u8]) {
    let residues: Vec<u64> = s.iter().map(|&t| [0, 1, q - 1][usize::from(t)]).collect();
    planted(index, buffer, residues, |found| {
        !found.residue_copies().is_empty()
    });
    let mut signed_bytes = vec![0u64; N / 8];
    for (j, &t) in s.iter().enumerate() {
        signed_bytes[j / 8] |= [0, 1, 0xff][usize::from(t)] << (8 * (j % 8));
    }
    planted(index, buffer, signed_bytes, |found| {
        !found.byte_copies().is_empty()
    });
    // Keystream without the skipped value 3: each word gives 32 coefficients.
    let mut keystream = vec![0u64; N / 32];
    for (j, &t) in s.iter().enumerate() {
        // The sampler's value for coefficient x is x + 1.
        keystream[j / 32] |= [1, 2, 0][usize::from(t)] << (2 * (j % 32));
    }
    planted(index, buffer, keystream, |found| {
        found.keystream_words.len() >= N / 32 - 1
    });
    // The export form: coefficient j in bits 2(j mod 4) of byte j / 4.
    let mut exported = vec![0u64; N / 32];
    for (j, &t) in s.iter().enumerate() {
        exported[j / 32] |= u64::from(t) << (2 * (j % 32));
    }
    planted(index, buffer, exported, |found| {
        !found.export_copies().is_empty()
    });
}

/// Scans the memory of `words`, checks that `found` holds for what the scan
/// finds, and wipes them.
fn planted(
    index: &SecretIndex,
    buffer: &mut [u8],
    mut words: Vec<u64>,
    found: impl Fn(&Findings) -> bool,
) {
    let begin = words.as_ptr() as u64;
    let mut findings = Findings::default();
    scan_range(
        index,
        buffer,
        begin,
        begin + 8 * words.len() as u64,
        &mut findings,
    );
    assert!(
        found(&findings),
        "the scanner misses a planted copy of s: {findings:?}"
    );
    for word in words.iter_mut() {
        // SAFETY: a valid, aligned element of a live vector.
        unsafe { std::ptr::write_volatile(word, 0) };
    }
}

// ----------------------------------------------------------- the probe

const HEADER: usize = 48;
const CHECKSUM: usize = 32;

/// The ciphertext (0, 1) at the level of the serialized public-key encryption
/// `bytes`, with correction factor 1: c_0 all zero, c_1 the polynomial 1,
/// whose evaluations are all 1 (the layout is helib-sys/cpp/SERIALIZATION.md).
fn probe(bytes: &[u8]) -> Vec<u8> {
    assert_eq!(
        sha256(&bytes[..bytes.len() - CHECKSUM]),
        bytes[bytes.len() - CHECKSUM..]
    );
    let mut out = bytes.to_vec();
    let level = u32::from_le_bytes(out[HEADER..HEADER + 4].try_into().unwrap()) as usize;
    assert_eq!(out[HEADER + 4], 2, "two polynomials");
    assert_eq!(out[HEADER + 5], 0, "c_1 stored in full");
    let factor_bytes = (64 - T.leading_zeros() as usize).div_ceil(8);
    let factor = HEADER + 6;
    out[factor..factor + factor_bytes].fill(0);
    out[factor] = 1;
    let polys = factor + factor_bytes + 8;
    let widths = prime_widths(&out, polys, level + 1);
    let poly_bytes: usize = widths.iter().map(|w| N * w / 8).sum();
    assert_eq!(polys + 2 * poly_bytes + CHECKSUM, out.len());
    out[polys..polys + poly_bytes].fill(0);
    let mut at = polys + poly_bytes;
    for w in widths {
        let block = &mut out[at..at + N * w / 8];
        block.fill(0);
        for j in 0..N {
            block[j * w / 8] |= 1 << (j * w % 8);
        }
        at += N * w / 8;
    }
    let end = out.len() - CHECKSUM;
    let digest = sha256(&out[..end]);
    out[end..].copy_from_slice(&digest);
    out
}

/// The bit widths of the chain primes: the first `count` primes are 45-bit
/// here, but read them from the sizes so the probe follows the parameters.
fn prime_widths(bytes: &[u8], polys: usize, count: usize) -> Vec<usize> {
    // Two polynomials over `count` primes of equal width fill the rest.
    let rest = bytes.len() - CHECKSUM - polys;
    let width = rest * 8 / (2 * count * N);
    assert_eq!(2 * count * N * width / 8, rest, "equal prime widths");
    vec![width; count]
}

/// SHA-256 (FIPS 180-4); its constants are computed exactly from the primes.
fn sha256(data: &[u8]) -> [u8; 32] {
    let primes: Vec<u128> = (2u128..)
        .filter(|&p| (2..p).take_while(|d| d * d <= p).all(|d| p % d != 0))
        .take(64)
        .collect();
    // The integer k-th root of x, by bisection.
    let root = |x: u128, k: u32| {
        let (mut lo, mut hi) = (0u128, 1u128 << (108 / k));
        while hi - lo > 1 {
            let mid = (lo + hi) / 2;
            if mid.pow(k) <= x {
                lo = mid
            } else {
                hi = mid
            }
        }
        lo as u32
    };
    // Fraction bits of cube roots (round constants) and square roots (initial state).
    let k: Vec<u32> = primes.iter().map(|&p| root(p << 96, 3)).collect();
    let mut h: Vec<u32> = primes[..8].iter().map(|&p| root(p << 64, 2)).collect();

    let mut message = data.to_vec();
    message.push(0x80);
    while message.len() % 64 != 56 {
        message.push(0);
    }
    message.extend_from_slice(&(8 * data.len() as u64).to_be_bytes());
    for block in message.chunks_exact(64) {
        let mut w = [0u32; 64];
        for (i, word) in block.chunks_exact(4).enumerate() {
            w[i] = u32::from_be_bytes(word.try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v: [u32; 8] = h.clone().try_into().unwrap();
        for i in 0..64 {
            let [a, b, c, d, e, f, g, hh] = v;
            let t1 = hh
                .wrapping_add(e.rotate_right(6) ^ e.rotate_right(11) ^ e.rotate_right(25))
                .wrapping_add((e & f) ^ (!e & g))
                .wrapping_add(k[i])
                .wrapping_add(w[i]);
            let t2 = (a.rotate_right(2) ^ a.rotate_right(13) ^ a.rotate_right(22))
                .wrapping_add((a & b) ^ (a & c) ^ (b & c));
            v = [t1.wrapping_add(t2), a, b, c, d.wrapping_add(t1), e, f, g];
        }
        for (x, y) in h.iter_mut().zip(v) {
            *x = x.wrapping_add(y);
        }
    }
    let mut out = [0u8; 32];
    for (chunk, x) in out.chunks_exact_mut(4).zip(h) {
        chunk.copy_from_slice(&x.to_be_bytes());
    }
    out
}

// ------------------------------------------------------------- the scan

/// Windows of the secrets, packed two bits per coefficient (first coefficient highest).
struct SecretIndex {
    /// WINDOW consecutive coefficients (any start) -> (secret, start).
    windows: HashMap<u64, (usize, usize)>,
    /// 16 consecutive coefficients (any start) -> (secret, start)s, for keystream words.
    short_windows: HashMap<u32, Vec<(usize, usize)>>,
    /// The codes of each secret.
    secrets: Vec<Vec<u8>>,
    /// q_i - 1 for each chain prime (the residue of -1).
    minus_one: Vec<u64>,
    /// A bit per hash of every key above: most words need no map lookup.
    filter: Vec<u64>,
    /// Two signed bytes (first in the high bits) -> their 4-bit code, or
    /// 0xff unless both are 0, 1 or -1.
    byte_codes: Vec<u8>,
    /// Eight 2-bit sampler values (first in the low bits) -> (coefficients
    /// they give, their codes packed first-highest).
    sampler_codes: Vec<(u8, u16)>,
}

impl SecretIndex {
    fn new(secrets: &[Vec<u8>], primes: &[u64]) -> Self {
        let mut windows = HashMap::new();
        let mut short_windows: HashMap<u32, Vec<(usize, usize)>> = HashMap::new();
        for (k, s) in secrets.iter().enumerate() {
            for (j, w) in s.windows(WINDOW).enumerate() {
                windows.entry(pack(w)).or_insert((k, j));
            }
            for (j, w) in s.windows(16).enumerate() {
                short_windows
                    .entry(pack(w) as u32)
                    .or_default()
                    .push((k, j));
            }
        }
        let byte_code = |b: u8| match b {
            0 => Some(0u8),
            1 => Some(1),
            0xff => Some(2),
            _ => None,
        };
        let byte_codes = (0..=u16::MAX)
            .map(|x| {
                let [first, second] = x.to_le_bytes();
                match (byte_code(first), byte_code(second)) {
                    (Some(a), Some(b)) => a << 2 | b,
                    _ => 0xff,
                }
            })
            .collect();
        let sampler_codes = (0..=u16::MAX)
            .map(|x| {
                let (mut count, mut packed) = (0u8, 0u16);
                for k in 0..8 {
                    let v = (x >> (2 * k)) & 3;
                    if v != 3 {
                        // Sampler value v is the coefficient v - 1.
                        packed = packed << 2 | [2, 0, 1][v as usize];
                        count += 1;
                    }
                }
                (count, packed)
            })
            .collect();
        let mut filter = vec![0u64; (1 << FILTER_BITS) / 64];
        for key in windows
            .keys()
            .copied()
            .chain(short_windows.keys().map(|&k| u64::from(k)))
        {
            let bit = filter_bit(key);
            filter[bit / 64] |= 1 << (bit % 64);
        }
        Self {
            windows,
            short_windows,
            filter,
            secrets: secrets.to_vec(),
            minus_one: primes.iter().map(|q| q - 1).collect(),
            byte_codes,
            sampler_codes,
        }
    }

    /// Whether `key` may be a key of `windows` or `short_windows`.
    fn may_hold(&self, key: u64) -> bool {
        let bit = filter_bit(key);
        self.filter[bit / 64] >> (bit % 64) & 1 == 1
    }

    /// Whether the `len` codes packed in `packed` are s[j..j + len] of secret k.
    fn matches_at(&self, packed: u64, len: usize, (k, j): (usize, usize)) -> bool {
        let s = &self.secrets[k];
        j + len <= s.len() && pack(&s[j..j + len]) == packed
    }
}

/// Bits of the lookup filter's hash.
const FILTER_BITS: u32 = 24;

fn filter_bit(key: u64) -> usize {
    (key.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> (64 - FILTER_BITS)) as usize
}

/// Codes packed two bits each, the first highest.
fn pack(codes: &[u8]) -> u64 {
    codes.iter().fold(0u64, |k, &t| k << 2 | u64::from(t))
}

#[derive(Debug, Default)]
struct Findings {
    /// (address s's coefficient 0 would have, prime index) -> matching windows.
    residue_hits: HashMap<(u64, usize), usize>,
    /// Address s's coefficient 0 would have as signed bytes -> matching windows.
    byte_hits: HashMap<u64, usize>,
    /// Addresses of pairs of consecutive words that the sampler would expand
    /// into consecutive stretches of s.
    keystream_words: Vec<u64>,
    /// Address s's first code would have in the export form -> matching words.
    export_hits: HashMap<u64, usize>,
}

impl Findings {
    fn copies<K: Copy + Ord>(hits: &HashMap<K, usize>, min: usize) -> Vec<(K, usize)> {
        let mut out: Vec<(K, usize)> = hits
            .iter()
            .filter(|&(_, &count)| count >= min)
            .map(|(&at, &count)| (at, count))
            .collect();
        out.sort_unstable();
        out
    }

    fn residue_copies(&self) -> Vec<((u64, usize), usize)> {
        Self::copies(&self.residue_hits, MIN_WINDOWS)
    }

    fn byte_copies(&self) -> Vec<(u64, usize)> {
        Self::copies(&self.byte_hits, MIN_BYTE_WINDOWS)
    }

    fn export_copies(&self) -> Vec<(u64, usize)> {
        Self::copies(&self.export_hits, MIN_EXPORT_WINDOWS)
    }
}

/// A streaming matcher over consecutive 64-bit words of one mapping.
struct Scanner<'a> {
    index: &'a SecretIndex,
    found: &'a mut Findings,
    /// Codes of the last words read as residues, and how many in a row are codes.
    key: u64,
    run: usize,
    /// The prime whose q - 1 the current run contains, if any.
    prime: Option<usize>,
    /// The same over words read as eight signed bytes.
    byte_key: u64,
    byte_run: usize,
    /// (secret, index) where the previous word's keystream expansion ended, if it matched.
    keystream_next: Option<(usize, usize)>,
}

impl<'a> Scanner<'a> {
    fn new(index: &'a SecretIndex, found: &'a mut Findings) -> Self {
        Self {
            index,
            found,
            key: 0,
            run: 0,
            prime: None,
            byte_key: 0,
            byte_run: 0,
            keystream_next: None,
        }
    }

    fn word(&mut self, address: u64, word: u64) {
        self.residue(address, word);
        self.bytes(address, word);
        self.keystream(address, word);
        self.exported(address, word);
    }

    /// An export holds 32 coefficients per 8-byte word, the first in the low
    /// bits (codes 0, 1, 2 for 0, 1, -1); its payload starts 48 bytes into
    /// an allocation, so its words are aligned and each is the window at a
    /// multiple of 32.
    fn exported(&mut self, address: u64, word: u64) {
        let mut key = 0u64;
        for k in 0..32 {
            let code = (word >> (2 * k)) & 3;
            if code == 3 {
                return;
            }
            key = key << 2 | code;
        }
        if !self.index.may_hold(key) {
            return;
        }
        if let Some(&(_, j)) = self.index.windows.get(&key) {
            if j % 32 == 0 {
                let start = address - (j / 4) as u64;
                *self.found.export_hits.entry(start).or_default() += 1;
            }
        }
    }

    fn residue(&mut self, address: u64, word: u64) {
        let code = match word {
            0 => 0,
            1 => 1,
            _ => match self.index.minus_one.iter().position(|&m| m == word) {
                Some(prime) => {
                    if self.prime.is_some_and(|p| p != prime) {
                        self.run = 0;
                    }
                    self.prime = Some(prime);
                    2
                }
                None => {
                    self.run = 0;
                    self.prime = None;
                    return;
                }
            },
        };
        self.key = self.key << 2 | code;
        self.run += 1;
        if self.run >= WINDOW && self.index.may_hold(self.key) {
            if let Some(&(_, j)) = self.index.windows.get(&self.key) {
                let start = address - 8 * (WINDOW - 1 + j) as u64;
                let prime = self.prime.unwrap_or(usize::MAX);
                *self.found.residue_hits.entry((start, prime)).or_default() += 1;
            }
        }
    }

    /// s as signed bytes starts 8-byte aligned (the allocator aligns it), so
    /// its windows starting at multiples of 8 fill whole words.
    fn bytes(&mut self, address: u64, word: u64) {
        let mut codes = 0u64;
        for half in 0..4 {
            let pair = (word >> (16 * half)) as u16;
            let code = self.index.byte_codes[usize::from(pair)];
            if code == 0xff {
                self.byte_run = 0;
                return;
            }
            codes = codes << 4 | u64::from(code);
        }
        self.byte_key = self.byte_key << 16 | codes;
        self.byte_run += 1;
        if self.byte_run >= WINDOW / 8 && self.index.may_hold(self.byte_key) {
            if let Some(&(_, j)) = self.index.windows.get(&self.byte_key) {
                if j % 8 == 0 {
                    let start = address - (WINDOW - 8 + j) as u64;
                    *self.found.byte_hits.entry(start).or_default() += 1;
                }
            }
        }
    }

    /// The ternary sampler turns each keystream word into coefficients two
    /// bits at a time, least significant first (values 0, 1, 2 give -1, 0, 1;
    /// 3 is skipped), so consecutive keystream words expand to consecutive
    /// stretches of s. Two such words in a row are reported.
    fn keystream(&mut self, address: u64, word: u64) {
        let (mut len, mut packed) = (0usize, 0u64);
        for quarter in 0..4 {
            let (count, codes) =
                self.index.sampler_codes[usize::from((word >> (16 * quarter)) as u16)];
            len += usize::from(count);
            packed = packed << (2 * count) | u64::from(codes);
        }
        let expected = self.keystream_next.take();
        if let Some((k, j)) = expected {
            // The previous word matched up to j: does this one continue it?
            let stretch = len.min(self.index.secrets[k].len() - j);
            let head = packed >> (2 * (len - stretch));
            if stretch >= 8 && self.index.matches_at(head, stretch, (k, j)) {
                self.found.keystream_words.push(address - 8);
            }
        }
        let key = if len >= 16 {
            (packed >> (2 * (len - 16))) as u32
        } else {
            0
        };
        if len < 16 || !self.index.may_hold(u64::from(key)) {
            return;
        }
        if let Some(starts) = self.index.short_windows.get(&key) {
            self.keystream_next = starts
                .iter()
                .find(|&&at| self.index.matches_at(packed, len, at))
                .map(|&(k, j)| (k, j + len));
        }
    }
}

/// Scans [begin, end) of this process, returning the bytes read.
fn scan_range(
    index: &SecretIndex,
    buffer: &mut [u8],
    begin: u64,
    end: u64,
    found: &mut Findings,
) -> u64 {
    let mem = File::open("/proc/self/mem").expect("/proc/self/mem");
    let mut scanner = Scanner::new(index, found);
    let mut at = begin;
    let mut read = 0;
    while at < end {
        let len = buffer.len().min((end - at) as usize);
        let Ok(got) = mem.read_at(&mut buffer[..len], at) else {
            break;
        };
        if got == 0 {
            break;
        }
        for (k, chunk) in buffer[..got - got % 8].chunks_exact(8).enumerate() {
            let word = u64::from_ne_bytes(chunk.try_into().unwrap());
            scanner.word(at + 8 * k as u64, word);
        }
        at += got as u64;
        read += got as u64;
    }
    buffer.fill(0);
    read
}

/// Scans every readable private mapping of this process (except reservations
/// of many gigabytes, such as AddressSanitizer's shadow memory, which are
/// almost entirely untouched), returning the bytes read.
fn scan_process(index: &SecretIndex, buffer: &mut [u8], found: &mut Findings) -> u64 {
    let maps = BufReader::new(File::open("/proc/self/maps").expect("/proc/self/maps"));
    let mut regions = Vec::new();
    for line in maps.lines() {
        let line = line.expect("maps line");
        let mut fields = line.split_whitespace();
        let range = fields.next().expect("address range");
        let perms = fields.next().expect("permissions").as_bytes();
        let name = fields.nth(3).unwrap_or("");
        let (begin, end) = range.split_once('-').expect("begin-end");
        let begin = u64::from_str_radix(begin, 16).expect("hex");
        let end = u64::from_str_radix(end, 16).expect("hex");
        if perms[0] == b'r' && perms[3] == b'p' && end - begin < 8 << 30 && name != "[vvar]" {
            regions.push((begin, end));
        }
    }
    regions
        .into_iter()
        .map(|(begin, end)| scan_range(index, buffer, begin, end, found))
        .sum()
}
