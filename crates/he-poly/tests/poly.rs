//! Encrypted polynomials against ark-poly: products of every size, the
//! Groth16 quotient, sums, serialization and bad input.

use std::sync::Arc;

use ark_bn254::Fr;
use ark_ff::{FftField, PrimeField, UniformRand, Zero};
use ark_poly::univariate::DensePolynomial;
use ark_poly::{DenseUVPolynomial, EvaluationDomain, Radix2EvaluationDomain};
use he_cache::{PoolConfig, SecurePool};
use he_poly::{EncryptedPolynomial, Error, PolyParameters};
use helib_rs::{Context, Parameters, PublicKey, RelinKey, SecretKey};
use proptest::prelude::*;
use rand::{rngs::StdRng, SeedableRng};

struct Keys {
    context: Context,
    sk: SecretKey,
    pk: Arc<PublicKey>,
}

/// N = 4096, t = BN254, a chain for one block product (insecure: tests only).
fn keys() -> Keys {
    let t = Fr::MODULUS.into();
    let chain = helib_rs::noise::product_chain_bits(4096, &t, 1, 8);
    let params = Parameters::builder()
        .ring_degree(4096)
        .plaintext_modulus(t)
        .chain_bits(&chain)
        .special_bits(&[])
        .allow_insecure()
        .build()
        .unwrap();
    let context = Context::new(&params).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    let pk = Arc::new(sk.public_key().unwrap());
    Keys { context, sk, pk }
}

const STRIDE: usize = 2048;

fn random<F: PrimeField>(len: usize, rng: &mut StdRng) -> Vec<F> {
    (0..len).map(|_| F::rand(rng)).collect()
}

fn poly<F: PrimeField>(c: &[F]) -> DensePolynomial<F> {
    DensePolynomial::from_coefficients_slice(c)
}

/// The coefficients of p padded with zeros to len.
fn padded<F: PrimeField + FftField>(p: DensePolynomial<F>, len: usize) -> Vec<F> {
    let mut c = p.coeffs;
    c.resize(len, F::zero());
    c
}

#[test]
fn round_trips_with_every_encryptor_and_length() {
    let k = keys();
    let mut rng = StdRng::seed_from_u64(1);
    let pool = SecurePool::new(Arc::clone(&k.pk), PoolConfig::new(4).workers(0)).unwrap();
    for len in [0, 1, 2047, 2048, 2049, 5000] {
        let a: Vec<Fr> = random(len, &mut rng);
        pool.fill(4).unwrap();
        for e in [
            EncryptedPolynomial::encrypt(&k.pk, &a, STRIDE).unwrap(),
            EncryptedPolynomial::encrypt_symmetric(&k.sk, &a, STRIDE).unwrap(),
            EncryptedPolynomial::encrypt_with(&pool, &a, STRIDE).unwrap(),
        ] {
            assert_eq!(e.len(), len);
            assert_eq!(e.blocks().len(), len.div_ceil(STRIDE).max(1));
            assert_eq!(e.decrypt(&k.sk).unwrap(), a);
        }
    }
}

#[test]
fn products_of_every_shape_match_ark_poly() {
    let k = keys();
    let mut rng = StdRng::seed_from_u64(2);
    for (la, lb) in [
        (1, 1),
        (100, 2048),
        (2048, 2048),
        (4097, 3000),
        (8192, 8192),
        (10, 8000),
    ] {
        let a: Vec<Fr> = random(la, &mut rng);
        let b: Vec<Fr> = random(lb, &mut rng);
        let ea = EncryptedPolynomial::encrypt(&k.pk, &a, STRIDE).unwrap();
        let eb = EncryptedPolynomial::encrypt(&k.pk, &b, STRIDE).unwrap();
        let product = ea.mul(&eb).unwrap();
        assert_eq!(product.len(), la + lb - 1);
        let expected = padded(&poly(&a) * &poly(&b), la + lb - 1);
        assert_eq!(product.decrypt(&k.sk).unwrap(), expected, "{la} x {lb}");
        let plain = ea.mul_plain(&b).unwrap();
        assert_eq!(plain.decrypt(&k.sk).unwrap(), expected, "{la} x plain {lb}");
    }
}

#[test]
fn groth16_quotient_matches_ark_poly_for_one_and_many_blocks() {
    let k = keys();
    let mut rng = StdRng::seed_from_u64(3);
    for n in [2usize, 16, 2048, 8192] {
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let a: Vec<Fr> = random(n, &mut rng);
        let b: Vec<Fr> = random(n, &mut rng);
        let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
        let (pa, pb, pc) = (domain.ifft(&a), domain.ifft(&b), domain.ifft(&c));
        let ea = EncryptedPolynomial::encrypt(&k.pk, &pa, STRIDE).unwrap();
        let eb = EncryptedPolynomial::encrypt(&k.pk, &pb, STRIDE).unwrap();
        let h = EncryptedPolynomial::groth16_quotient(&ea, &eb, n).unwrap();
        let (quotient, remainder) =
            (&(&poly(&pa) * &poly(&pb)) - &poly(&pc)).divide_by_vanishing_poly(domain);
        assert!(remainder.is_zero());
        let expected = padded(quotient, n - 1);
        assert_eq!(h.decrypt(&k.sk).unwrap(), expected, "n = {n}");
        // The same through the whole product.
        let full = ea.mul(&eb).unwrap().div_by_vanishing(n).unwrap();
        assert_eq!(full.decrypt(&k.sk).unwrap(), expected);
        // Fewer blocks are computed than for the whole product.
        assert!(h.blocks().len() <= full.blocks().len());
    }
}

#[test]
fn sums_align_levels_and_factors_and_keep_layouts() {
    let k = keys();
    let mut rng = StdRng::seed_from_u64(4);
    let (a, b, c): (Vec<Fr>, Vec<Fr>, Vec<Fr>) = (
        random(3000, &mut rng),
        random(3000, &mut rng),
        random(5000, &mut rng),
    );
    let enc = |v: &[Fr]| EncryptedPolynomial::encrypt(&k.pk, v, STRIDE).unwrap();
    let product = enc(&a)
        .mul(&enc(&b))
        .unwrap()
        .mod_switch_reduce_noise()
        .unwrap();
    let ab = &poly(&a) * &poly(&b);
    let sum = product.add(&enc(&c)).unwrap();
    assert_eq!(sum.decrypt(&k.sk).unwrap(), padded(&ab + &poly(&c), 5999));
    let difference = enc(&c).sub(&product).unwrap();
    assert_eq!(
        difference.decrypt(&k.sk).unwrap(),
        padded(&poly(&c) - &ab, 5999)
    );
    let scaled = enc(&c).mul_scalar(Fr::from(7u64)).unwrap().neg().unwrap();
    let expected: Vec<Fr> = c.iter().map(|x| -*x * Fr::from(7u64)).collect();
    assert_eq!(scaled.decrypt(&k.sk).unwrap(), expected);
}

#[test]
fn serialization_round_trips_and_rejects_tampering() {
    let k = keys();
    let mut rng = StdRng::seed_from_u64(5);
    let a: Vec<Fr> = random(5000, &mut rng);
    let b: Vec<Fr> = random(3000, &mut rng);
    let e = EncryptedPolynomial::encrypt(&k.pk, &a, STRIDE).unwrap();
    let h = EncryptedPolynomial::groth16_quotient(
        &e,
        &EncryptedPolynomial::encrypt(&k.pk, &b, STRIDE).unwrap(),
        5000,
    )
    .unwrap();
    for p in [&e, &h] {
        let bytes = p.to_bytes().unwrap();
        let back = EncryptedPolynomial::<Fr>::from_bytes(&k.context, &bytes).unwrap();
        assert_eq!(back.layout(), p.layout());
        assert_eq!(back.decrypt(&k.sk).unwrap(), p.decrypt(&k.sk).unwrap());
        assert!(matches!(
            EncryptedPolynomial::<Fr>::from_bytes(&k.context, &bytes[..bytes.len() - 1]),
            Err(Error::Malformed(_) | Error::Engine(_))
        ));
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(matches!(
            EncryptedPolynomial::<Fr>::from_bytes(&k.context, &longer),
            Err(Error::Malformed(_))
        ));
        // A length claiming more coefficients than the blocks cover.
        let mut liar = bytes.clone();
        liar[32..40].copy_from_slice(&(1u64 << 40).to_le_bytes());
        assert!(matches!(
            EncryptedPolynomial::<Fr>::from_bytes(&k.context, &liar),
            Err(Error::Malformed(_))
        ));
    }
    // Bytes for other parameters (another chain) are refused.
    let other = Context::new(&Parameters::for_tests()).unwrap();
    assert!(matches!(
        EncryptedPolynomial::<Fr>::from_bytes(&other, &e.to_bytes().unwrap()),
        Err(Error::Engine(_))
    ));
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn corrupted_bytes_never_panic(position in 0usize..96, value in any::<u8>()) {
        let k = keys_cached();
        let mut bytes = k.1.clone();
        let at = position % bytes.len();
        bytes[at] = value;
        let _ = EncryptedPolynomial::<Fr>::from_bytes(&k.0, &bytes);
    }
}

/// A context and the bytes of a small polynomial, made once for the proptest.
fn keys_cached() -> &'static (Context, Vec<u8>) {
    static CELL: std::sync::OnceLock<(Context, Vec<u8>)> = std::sync::OnceLock::new();
    CELL.get_or_init(|| {
        let k = keys();
        let bytes = EncryptedPolynomial::encrypt(&k.pk, &[Fr::from(1u64); 3000], STRIDE)
            .unwrap()
            .to_bytes()
            .unwrap();
        (k.context, bytes)
    })
}

#[test]
fn bad_operands_are_errors_before_any_work() {
    let k = keys();
    let one = [Fr::from(1u64); 10];
    let a = EncryptedPolynomial::encrypt(&k.pk, &one, STRIDE).unwrap();
    let narrow = EncryptedPolynomial::encrypt(&k.pk, &one, 1024).unwrap();
    assert!(matches!(a.mul(&narrow), Err(Error::LayoutMismatch { .. })));
    assert!(matches!(a.add(&narrow), Err(Error::LayoutMismatch { .. })));
    let product = a.mul(&a).unwrap();
    assert!(matches!(product.mul(&a), Err(Error::WouldWrap { .. })));
    let cut = product.div_by_monomial(5).unwrap();
    assert!(matches!(cut.mul(&a), Err(Error::PendingCut { cut: 5 })));
    assert!(matches!(cut.add(&a), Err(Error::LayoutMismatch { .. })));
    let other = keys();
    let foreign = EncryptedPolynomial::encrypt(&other.pk, &one, STRIDE).unwrap();
    assert!(matches!(
        a.mul(&foreign),
        Err(Error::Engine(helib_rs::Error::ContextMismatch))
    ));
    assert!(matches!(
        a.add(&foreign),
        Err(Error::Engine(helib_rs::Error::ContextMismatch))
    ));
    assert!(matches!(
        EncryptedPolynomial::encrypt(&k.pk, &one, 0),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        EncryptedPolynomial::encrypt(&k.pk, &one, 4097),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        EncryptedPolynomial::groth16_quotient(&a, &a, 1),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        EncryptedPolynomial::groth16_quotient(&a, &a, 8),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(a.mul_plain(&[]), Err(Error::InvalidArgument(_))));
    assert!(matches!(
        a.div_by_monomial(10),
        Err(Error::InvalidArgument(_))
    ));
    // A second product cannot fit this chain: refused before any work.
    let rk = RelinKey::generate(&k.sk);
    assert!(
        rk.is_err() || {
            let narrow_product = narrow
                .mul(&narrow)
                .unwrap()
                .relinearize(&rk.unwrap())
                .unwrap();
            matches!(
                narrow_product.mul(&narrow),
                Err(Error::Engine(helib_rs::Error::NoiseBudgetExhausted))
            )
        }
    );
    // Another field than t.
    let small_t = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(65537u32.into())
        .multiplicative_depth(1)
        .allow_insecure()
        .build()
        .unwrap();
    let small = Context::new(&small_t).unwrap();
    let small_pk = SecretKey::generate(&small).unwrap().public_key().unwrap();
    assert!(matches!(
        EncryptedPolynomial::encrypt(&small_pk, &one, 512),
        Err(Error::FieldMismatch)
    ));
}

#[test]
fn suggested_parameters_are_the_smallest_secure_ring_for_every_size() {
    let t: num_bigint::BigUint = Fr::MODULUS.into();
    let mut previous = 0;
    for log_len in 1..=22u32 {
        let p = PolyParameters::suggest(&t, 1 << log_len, 1).unwrap();
        let params = p.parameters();
        assert!(params.security_level().bits() >= 128, "2^{log_len}");
        assert_eq!(p.stride(), params.ring_degree() / 2);
        let blocks = (1usize << log_len).div_ceil(p.stride());
        assert!(2 * blocks - 1 <= params.ring_degree());
        assert!(params.special_bits().is_empty());
        assert!(params.ring_degree() >= previous);
        previous = params.ring_degree();
        // One size smaller ring would not be secure.
        let half = params.ring_degree() / 2;
        if half >= 1024 {
            let smaller = Parameters::builder()
                .ring_degree(half)
                .plaintext_modulus(t.clone())
                .chain_bits(&helib_rs::noise::product_chain_bits(half, &t, 1, blocks))
                .special_bits(&[])
                .build();
            assert!(smaller.is_err(), "2^{log_len}: N = {half} would do");
        }
    }
    assert_eq!(
        PolyParameters::suggest(&t, 1 << 14, 1)
            .unwrap()
            .parameters()
            .ring_degree(),
        1 << 15
    );
    let two = PolyParameters::suggest(&t, 1 << 12, 2).unwrap();
    assert_eq!(two.stride(), two.parameters().ring_degree() / 4);
    assert!(!two.parameters().special_bits().is_empty());
    let small = PolyParameters::suggest(&65537u32.into(), 1 << 22, 1).unwrap();
    assert!(small.parameters().ring_degree() < 1 << 15);
    assert!(matches!(
        PolyParameters::suggest(&t, 0, 1),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        PolyParameters::suggest(&t, 1 << 40, 1),
        Err(Error::NoParameters(_))
    ));
}

#[test]
fn suggested_small_parameters_work_end_to_end() {
    // t = 65537: the helper picks a small ring; one product of two multi-block polynomials decrypts.
    #[derive(ark_ff::MontConfig)]
    #[modulus = "65537"]
    #[generator = "3"]
    struct Config;
    type F = ark_ff::Fp64<ark_ff::MontBackend<Config, 1>>;
    let p = PolyParameters::for_field::<F>(1 << 13, 1).unwrap();
    let context = Context::new(p.parameters()).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    let mut rng = StdRng::seed_from_u64(9);
    let a: Vec<F> = random(1 << 13, &mut rng);
    let b: Vec<F> = random(1 << 13, &mut rng);
    let ea = EncryptedPolynomial::encrypt(&pk, &a, p.stride()).unwrap();
    let eb = EncryptedPolynomial::encrypt(&pk, &b, p.stride()).unwrap();
    assert!(ea.blocks().len() > 1);
    let product = ea.mul(&eb).unwrap().mod_switch_reduce_noise().unwrap();
    assert_eq!(
        product.decrypt(&sk).unwrap(),
        padded(&poly(&a) * &poly(&b), 2 * (1 << 13) - 1)
    );
    let _ = F::rand(&mut rng);
}

#[test]
fn from_blocks_accepts_consistent_blocks_and_rejects_the_rest() {
    let k = keys();
    let mut rng = StdRng::seed_from_u64(11);
    let a = random::<Fr>(3000, &mut rng);
    let encrypted = EncryptedPolynomial::encrypt(&k.pk, &a, STRIDE).unwrap();
    let blocks = encrypted.blocks().to_vec();
    let layout = *encrypted.layout();
    let rebuilt = EncryptedPolynomial::<Fr>::from_blocks(blocks.clone(), layout).unwrap();
    assert_eq!(rebuilt.decrypt(&k.sk).unwrap(), a);
    // The product of rebuilt polynomials is the product of the originals.
    let want = padded(&poly(&a) * &poly(&a), 5999);
    assert_eq!(rebuilt.mul(&rebuilt).unwrap().decrypt(&k.sk).unwrap(), want);

    let invalid = |blocks: Vec<helib_rs::Ciphertext>, layout: he_poly::BlockLayout| {
        matches!(
            EncryptedPolynomial::<Fr>::from_blocks(blocks, layout),
            Err(Error::InvalidArgument(_))
        )
    };
    assert!(invalid(Vec::new(), layout));
    // One block cannot cover 3000 coefficients in blocks of 2048.
    assert!(invalid(blocks[..1].to_vec(), layout));
    let mut wide = layout;
    wide.stride = 4097;
    assert!(invalid(blocks.clone(), wide));
    let mut positive_origin = layout;
    positive_origin.origin = 1;
    assert!(invalid(blocks.clone(), positive_origin));
    // Blocks at different levels or from different contexts.
    let lower = vec![blocks[0].clone(), blocks[1].mod_switch().unwrap()];
    assert!(invalid(lower, layout));
    let other = keys();
    let foreign = EncryptedPolynomial::encrypt(&other.pk, &a, STRIDE).unwrap();
    let mixed = vec![blocks[0].clone(), foreign.blocks()[1].clone()];
    assert!(invalid(mixed, layout));
}

/// Lengths no blocks can hold, as a 64-bit field may carry them: at and
/// beyond 2^63 (negative as an i64), SIZE_MAX, and just past what two
/// blocks of 2048 cover.
const ABSURD_LENGTHS: [usize; 6] = [
    1 << 63,
    (1 << 63) + 3000,
    usize::MAX,
    usize::MAX - 1,
    1 << 62,
    2 * STRIDE + 1,
];

#[test]
fn absurd_lengths_are_refused_when_a_polynomial_is_built_or_loaded() {
    let k = keys();
    let a = [Fr::from(3u64); 3000];
    let encrypted = EncryptedPolynomial::encrypt(&k.pk, &a, STRIDE).unwrap();
    let bytes = encrypted.to_bytes().unwrap();
    // Two blocks of 2048 hold exactly 4096 coefficients: that length is fine.
    let mut widest = *encrypted.layout();
    widest.len = 2 * STRIDE;
    let whole =
        EncryptedPolynomial::<Fr>::from_blocks(encrypted.blocks().to_vec(), widest).unwrap();
    assert_eq!(whole.decrypt(&k.sk).unwrap().len(), 2 * STRIDE);
    for len in ABSURD_LENGTHS {
        let mut layout = *encrypted.layout();
        layout.len = len;
        let built = EncryptedPolynomial::<Fr>::from_blocks(encrypted.blocks().to_vec(), layout);
        match built {
            Err(Error::InvalidArgument(reason)) => {
                assert!(reason.contains(&len.to_string()), "len {len}: {reason}")
            }
            other => panic!("from_blocks with len {len}: {other:?}"),
        }
        let mut liar = bytes.clone();
        liar[32..40].copy_from_slice(&(len as u64).to_le_bytes());
        let loaded = EncryptedPolynomial::<Fr>::from_bytes(&k.context, &liar);
        match loaded {
            Err(Error::Malformed(reason)) => {
                assert!(reason.contains(&len.to_string()), "len {len}: {reason}")
            }
            other => panic!("from_bytes with len {len}: {other:?}"),
        }
    }
}

#[test]
fn products_of_empty_polynomials_are_empty() {
    let k = keys();
    let empty = EncryptedPolynomial::<Fr>::encrypt(&k.pk, &[], STRIDE).unwrap();
    let one = EncryptedPolynomial::encrypt(&k.pk, &[Fr::from(5u64)], STRIDE).unwrap();
    assert_eq!(empty.len(), 0);
    for (a, b) in [(&empty, &empty), (&empty, &one), (&one, &empty)] {
        let product = a.mul(b).unwrap();
        assert_eq!(product.len(), 0);
        assert_eq!(product.decrypt(&k.sk).unwrap(), Vec::<Fr>::new());
    }
    let plain = empty.mul_plain(&[Fr::from(2u64)]).unwrap();
    assert_eq!(plain.len(), 0);
    assert_eq!(plain.decrypt(&k.sk).unwrap(), Vec::<Fr>::new());
}

#[test]
fn layouts_with_absurd_fields_are_errors_not_panics() {
    use he_poly::BlockLayout;
    let huge = BlockLayout {
        stride: 2048,
        width: usize::MAX,
        origin: 0,
        len: usize::MAX,
    };
    assert!(matches!(
        huge.product(&huge, 4096),
        Err(Error::WouldWrap { .. } | Error::TooLong { .. })
    ));
    let long = BlockLayout::fresh(2048, usize::MAX);
    assert!(matches!(
        long.product(&long, 4096),
        Err(Error::TooLong { .. })
    ));
    let zero_stride = BlockLayout::fresh(0, 10);
    assert!(matches!(
        zero_stride.cut_below(5),
        Err(Error::InvalidArgument(_))
    ));
    let far = BlockLayout {
        stride: usize::MAX,
        width: 1,
        origin: i64::MIN,
        len: usize::MAX,
    };
    assert!(matches!(
        far.cut_below(1 << 63),
        Err(Error::InvalidArgument(_))
    ));
    assert_eq!(far.block_exponent(usize::MAX), i64::MAX);
    // The domain sizes of the quotient: n = usize::MAX is no domain to cut at.
    let k = keys();
    let a = EncryptedPolynomial::encrypt(&k.pk, &[Fr::from(1u64)], STRIDE).unwrap();
    assert!(a.div_by_vanishing(usize::MAX).is_err());
    assert!(PolyParameters::for_field::<Fr>(usize::MAX, 1).is_err());
    assert!(PolyParameters::for_field::<Fr>(16, usize::MAX).is_err());
}

thread_local! {
    /// Keys and the bytes of a 3000-coefficient polynomial (two blocks of
    /// 2048), made once per test thread: the secret key is not `Sync`.
    static DECRYPTABLE: (Keys, Vec<u8>) = {
        let k = keys();
        let bytes = EncryptedPolynomial::encrypt(&k.pk, &[Fr::from(2u64); 3000], STRIDE)
            .unwrap()
            .to_bytes()
            .unwrap();
        (k, bytes)
    };
}

/// A value for a layout field: anything, or the edges of i64 and u64.
fn layout_value() -> impl Strategy<Value = u64> {
    prop_oneof![
        any::<u64>(),
        0u64..8200,
        Just(1 << 63),
        Just((1 << 63) - 1),
        Just((1 << 63) + 1),
        Just(1 << 61),
        Just(u64::MAX),
        Just(u64::MAX - 4095),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Any value in any field of the layout (stride, width, origin, len,
    /// block count) is refused or loads a polynomial that decrypts to its
    /// length: no panic, no absurd allocation.
    #[test]
    fn any_layout_field_loads_or_is_refused(field in 0usize..5, value in layout_value()) {
        DECRYPTABLE.with(|(k, bytes)| {
            let mut edited = bytes.clone();
            let at = 8 + 8 * field;
            edited[at..at + 8].copy_from_slice(&value.to_le_bytes());
            if let Ok(p) = EncryptedPolynomial::<Fr>::from_bytes(&k.context, &edited) {
                prop_assert!(p.len() <= p.blocks().len() * k.context.ring_degree());
                let values = p.decrypt(&k.sk);
                prop_assert!(values.is_ok(), "{:?}", values.err());
                prop_assert_eq!(values.unwrap().len(), p.len());
            }
            Ok(())
        })?;
    }
}
