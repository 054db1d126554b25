use super::*;
use ark_ff::UniformRand;
use ark_std::rand::{rngs::StdRng, SeedableRng};

fn secrets(seed: u64) -> Secrets {
    let mut rng = StdRng::seed_from_u64(seed);
    loop {
        let s = Secrets::new(Fr::rand(&mut rng), Fr::rand(&mut rng), Fr::rand(&mut rng));
        if let Some(s) = s {
            return s;
        }
    }
}

fn written(power: u32, secrets: &Secrets) -> Vec<u8> {
    let mut bytes = Vec::new();
    let n = write_with(&mut bytes, power, secrets).unwrap();
    assert_eq!(n, bytes.len() as u64);
    bytes
}

fn fill(scalars: &Scalars, count: u64) -> Vec<Fr> {
    let mut out = vec![Fr::zero(); count as usize];
    scalars.fill(0, &mut out, &mut Vec::new());
    out
}

#[test]
fn header_layout() {
    let bytes = written(2, &secrets(1));
    assert_eq!(&bytes[..4], b"ptau");
    assert_eq!(bytes[4..8], 1u32.to_le_bytes(), "version");
    assert_eq!(bytes[8..12], 11u32.to_le_bytes(), "sections");
    assert_eq!(bytes[12..16], 1u32.to_le_bytes(), "section 1");
    assert_eq!(bytes[16..24], 44u64.to_le_bytes(), "header size");
    assert_eq!(bytes[24..28], 32u32.to_le_bytes(), "n8");
    // q = 21888242871839275222246405745257275088696311157297823662689037894645226208583
    let q: num_bigint::BigUint =
        "21888242871839275222246405745257275088696311157297823662689037894645226208583"
            .parse()
            .unwrap();
    let mut q_le = q.to_bytes_le();
    q_le.resize(32, 0);
    assert_eq!(bytes[28..60], q_le[..], "q");
    assert_eq!(bytes[60..64], 2u32.to_le_bytes(), "power");
    assert_eq!(bytes[64..68], 2u32.to_le_bytes(), "ceremonyPower");
    let file = Ptau::parse(&bytes).unwrap();
    assert_eq!(
        file.header(),
        PtauHeader {
            power: 2,
            ceremony_power: 2
        }
    );
    assert!(file.is_prepared());
    assert_eq!(file.section(7).unwrap(), &[0u8; 4]);
}

#[test]
fn section_sizes() {
    let n = 1u64 << 5;
    let (g1, g2) = (64, 128);
    assert_eq!(
        layout(5).unwrap(),
        vec![
            (1, 44),
            (2, (2 * n - 1) * g1),
            (3, n * g2),
            (4, n * g1),
            (5, n * g1),
            (6, g2),
            (7, 4),
            (12, (4 * n - 1) * g1),
            (13, (2 * n - 1) * g2),
            (14, (2 * n - 1) * g1),
            (15, (2 * n - 1) * g1),
        ]
    );
    assert_eq!(file_size(17).unwrap(), 150_994_880);
    assert_eq!(file_size(21).unwrap(), 2_415_919_040);
    for power in [1, 3] {
        let bytes = written(power, &secrets(2));
        assert_eq!(bytes.len() as u64, file_size(power).unwrap());
        let file = BinFile::parse(KIND, &bytes, 1).unwrap();
        let sections: Vec<(u32, u64)> = file.sections().map(|(t, size)| (t, size as u64)).collect();
        assert_eq!(sections, layout(power).unwrap());
    }
}

#[test]
fn the_points_are_the_scalars_times_the_generators() {
    let s = secrets(3);
    let power = 2;
    let bytes = written(power, &s);
    let file = Ptau::parse(&bytes).unwrap();
    let g1 = |x: Fr| (G1Projective::generator() * x).into_affine();
    let g2 = |x: Fr| (G2Projective::generator() * x).into_affine();
    let powers = |factor: Fr, count: u64| -> Vec<Fr> {
        (0..count).map(|i| factor * s.tau.pow([i])).collect()
    };
    let n = 1u64 << power;
    let one = Fr::one();
    let expect_g1 = |scalars: Vec<Fr>| scalars.into_iter().map(g1).collect::<Vec<_>>();
    let expect_g2 = |scalars: Vec<Fr>| scalars.into_iter().map(g2).collect::<Vec<_>>();
    assert_eq!(
        file.g1_points(2).unwrap(),
        expect_g1(powers(one, 2 * n - 1))
    );
    assert_eq!(file.g2_points(3).unwrap(), expect_g2(powers(one, n)));
    assert_eq!(file.g1_points(4).unwrap(), expect_g1(powers(s.alpha, n)));
    assert_eq!(file.g1_points(5).unwrap(), expect_g1(powers(s.beta, n)));
    assert_eq!(file.g2_points(6).unwrap(), vec![g2(s.beta)]);
    // Sections 12-15: the inverse FFT of the powers, domain by domain.
    let lagrange = |factor: Fr, top: u32| {
        let mut scalars = Vec::new();
        for p in 0..=top {
            let m = 1usize << p;
            let mut v = powers(factor, m as u64);
            if p == power + 1 {
                v[m - 1] = Fr::zero();
            }
            scalars.extend(Radix2EvaluationDomain::<Fr>::new(m).unwrap().ifft(&v));
        }
        assert_eq!(scalars.len(), (2usize << top) - 1);
        scalars
    };
    assert_eq!(
        file.g1_points(12).unwrap(),
        expect_g1(lagrange(one, power + 1))
    );
    assert_eq!(file.g2_points(13).unwrap(), expect_g2(lagrange(one, power)));
    assert_eq!(
        file.g1_points(14).unwrap(),
        expect_g1(lagrange(s.alpha, power))
    );
    assert_eq!(
        file.g1_points(15).unwrap(),
        expect_g1(lagrange(s.beta, power))
    );
    assert!(file.g2_points(12).is_err());
    assert!(file.g1_points(3).is_err());
    assert!(file.g1_points(7).is_err());
}

#[test]
fn lagrange_scalars_interpolate_the_powers() {
    let s = secrets(4);
    for p in 0..=6u32 {
        let m = 1usize << p;
        let domain = Radix2EvaluationDomain::<Fr>::new(m).unwrap();
        let l = fill(&Scalars::lagrange(Fr::one(), s.tau, p, false), m as u64);
        // Σ_j L_j(τ)·ω^(jk) = τ^k: the Lagrange basis interpolates X^k.
        for k in 0..m as u64 {
            let sum: Fr = l
                .iter()
                .enumerate()
                .map(|(j, lj)| *lj * domain.group_gen.pow([j as u64 * k]))
                .sum();
            assert_eq!(sum, s.tau.pow([k]), "m = {m}, k = {k}");
        }
        // The closed form is the inverse FFT of the powers, from any start.
        let powers: Vec<Fr> = (0..m as u64).map(|k| s.tau.pow([k])).collect();
        assert_eq!(l, domain.ifft(&powers), "m = {m}");
        let scaled = Scalars::lagrange(s.alpha, s.tau, p, false);
        let mut tail = vec![Fr::zero(); m / 2];
        scaled.fill((m - m / 2) as u64, &mut tail, &mut Vec::new());
        let expected: Vec<Fr> = l[m - m / 2..].iter().map(|x| s.alpha * x).collect();
        assert_eq!(tail, expected);
        // With the top power dropped.
        let mut dropped = powers.clone();
        dropped[m - 1] = Fr::zero();
        let l = fill(&Scalars::lagrange(Fr::one(), s.tau, p, true), m as u64);
        assert_eq!(l, domain.ifft(&dropped), "m = {m}, top dropped");
    }
}

#[test]
fn powers_from_any_start() {
    let s = secrets(5);
    let mut out = vec![Fr::zero(); 3];
    Scalars::powers(s.beta, s.tau).fill(5, &mut out, &mut Vec::new());
    let expected: Vec<Fr> = (5..8).map(|k| s.beta * s.tau.pow([k])).collect();
    assert_eq!(out, expected);
}

#[test]
fn fixed_base_matches_plain_multiplication() {
    let mut rng = StdRng::seed_from_u64(6);
    let mut scalars = vec![Fr::zero(), Fr::one(), -Fr::one(), Fr::from(2u64)];
    for k in [5u32, 40, 100, 200, 253] {
        let power = Fr::from(2u64).pow([u64::from(k)]);
        scalars.extend([power, -power, power - Fr::one(), power + Fr::one()]);
    }
    scalars.extend((0..16).map(|_| Fr::rand(&mut rng)));
    scalars.extend([Fr::one(), Fr::zero(), scalars[10]]);
    let g1 = G1Projective::generator();
    let expected: Vec<G1Affine> = scalars.iter().map(|s| (g1 * s).into_affine()).collect();
    for window in [1, 2, 5, 7, 11] {
        let table = FixedBase::new(g1, window);
        assert_eq!(table.batch_mul(&scalars), expected, "w = {window}");
        assert!(table.batch_mul(&[]).is_empty());
    }
    let g2 = G2Projective::generator();
    let expected: Vec<G2Affine> = scalars.iter().map(|s| (g2 * s).into_affine()).collect();
    assert_eq!(FixedBase::new(g2, 3).batch_mul(&scalars), expected);
    assert_eq!(window_for(0), 2);
    assert_eq!(window_for(1 << 10), 6);
    assert_eq!(window_for(1 << 30), 16);
}

#[test]
fn digits_are_the_bits() {
    let mut rng = StdRng::seed_from_u64(8);
    for value in [-Fr::one(), Fr::rand(&mut rng), Fr::rand(&mut rng)] {
        let bits = value.into_bigint();
        let bit = |i: u32| i < 256 && bits.0[(i / 64) as usize] >> (i % 64) & 1 == 1;
        for width in [1, 7, 11, 13, 16] {
            for at in (0..Fr::MODULUS_BIT_SIZE).step_by(width as usize) {
                let naive = (0..width).fold(0usize, |d, i| d | (bit(at + i) as usize) << i);
                assert_eq!(digit(&bits, at, width), naive, "w = {width}, at = {at}");
            }
        }
    }
}

#[test]
fn usable_secrets_only() {
    let (one, two) = (Fr::one(), Fr::from(2u64));
    assert!(Secrets::new(two, one, one).is_some());
    assert!(Secrets::new(Fr::zero(), one, one).is_none());
    assert!(Secrets::new(one, one, one).is_none(), "tau = 1");
    let omega = Radix2EvaluationDomain::<Fr>::new(1 << 20)
        .unwrap()
        .group_gen;
    assert!(Secrets::new(omega, one, one).is_none(), "a root of unity");
    assert!(Secrets::new(two, Fr::zero(), one).is_none());
    assert!(Secrets::new(two, one, Fr::zero()).is_none());
    assert!(Secrets::random().is_ok());
}

#[test]
fn a_wrong_power_is_refused() {
    for power in [0, MAX_POWER + 1, u32::MAX] {
        assert!(matches!(layout(power), Err(Error::InvalidArgument(_))));
        assert!(file_size(power).is_err());
        let path = std::env::temp_dir().join(format!(
            "he-circom-ptau-refused-{}-{power}.ptau",
            std::process::id()
        ));
        let err = write_prepared(&path, power).unwrap_err();
        assert!(err.to_string().contains("from 1 to 27"), "{err}");
        assert!(!path.exists());
    }
    assert_eq!(MAX_POWER, 27);
    assert!(layout(MAX_POWER).is_ok());
}

#[test]
fn the_reader_refuses_what_does_not_fit() {
    let good = written(1, &secrets(7));
    assert!(Ptau::parse(&good).is_ok());
    // The header's fields: n8 at 24, q at 28, power at 60, ceremonyPower at 64.
    let mut b = good.clone();
    b[24] = 48;
    assert!(matches!(Ptau::parse(&b), Err(Error::Invalid { .. })));
    let mut b = good.clone();
    b[28] ^= 1;
    assert!(matches!(Ptau::parse(&b), Err(Error::WrongPrime { .. })));
    for power in [0u32, 28, 2] {
        let mut b = good.clone();
        b[60..64].copy_from_slice(&power.to_le_bytes());
        b[64..68].copy_from_slice(&power.to_le_bytes());
        let err = Ptau::parse(&b).unwrap_err();
        assert!(matches!(err, Error::Invalid { .. }), "{power}: {err}");
    }
    let mut b = good.clone();
    b[64..68].copy_from_slice(&0u32.to_le_bytes());
    assert!(matches!(Ptau::parse(&b), Err(Error::Invalid { .. })));

    // The same sections, some left out or cut short.
    let file = BinFile::parse(KIND, &good, 1).unwrap();
    type Edit<'e> = &'e dyn Fn(u32, &[u8]) -> Option<Vec<u8>>;
    let rebuild = |edit: Edit<'_>| {
        let kept: Vec<(u32, Vec<u8>)> = file
            .sections()
            .filter_map(|(t, _)| edit(t, file.section(t).unwrap()).map(|body| (t, body)))
            .collect();
        let mut out = Vec::new();
        write_header(&mut out, KIND, 1, kept.len() as u32).unwrap();
        for (t, body) in kept {
            write_section_header(&mut out, t, body.len() as u64).unwrap();
            out.extend_from_slice(&body);
        }
        out
    };
    assert_eq!(rebuild(&|_, body| Some(body.to_vec())), good);
    let phase1 = rebuild(&|t, body| (t <= 7).then(|| body.to_vec()));
    let parsed = Ptau::parse(&phase1).unwrap();
    assert!(!parsed.is_prepared());
    assert!(parsed.g1_points(12).is_err());
    assert!(matches!(
        Ptau::parse(&rebuild(&|t, body| (t != 14).then(|| body.to_vec()))),
        Err(Error::MissingSection { section: 14, .. })
    ));
    assert!(matches!(
        Ptau::parse(&rebuild(&|t, body| (t != 4).then(|| body.to_vec()))),
        Err(Error::MissingSection { section: 4, .. })
    ));
    let short = rebuild(&|t, body| Some(body[..body.len() - if t == 2 { 64 } else { 0 }].to_vec()));
    let err = Ptau::parse(&short).unwrap_err();
    assert!(
        err.to_string().contains("128 bytes; power 1 gives 192"),
        "{err}"
    );
    // A point off the curve.
    let off = rebuild(&|t, body| {
        let mut body = body.to_vec();
        if t == 2 {
            body[64] ^= 1;
        }
        Some(body)
    });
    assert!(matches!(
        Ptau::parse(&off).unwrap().g1_points(2),
        Err(Error::NotOnCurve { .. } | Error::NotCanonical { .. })
    ));
}
