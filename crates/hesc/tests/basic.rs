//! Basic HESC over every backend against the plaintext stochastic model:
//! the same streams must give identical bits.

use hesc::backend::{AdditiveHe, BgvBits, EcElGamal, GoldwasserMicali};
use hesc::{model, B2s, BasicHesc, Encoding, Error, Selection, StochasticNumber};
use rand::SeedableRng;
use rand_chacha::ChaCha20Rng;

const LEN: usize = 48;

fn streams(seed: u64, encoding: Encoding) -> Vec<StochasticNumber> {
    let mut rng = ChaCha20Rng::seed_from_u64(seed);
    let (min, max) = encoding.range();
    [0.1, 0.5, 0.9]
        .iter()
        .map(|f| min + (max - min) * f)
        .map(|v| StochasticNumber::encode(v, LEN, encoding, B2s::Bernoulli, &mut rng).unwrap())
        .collect()
}

fn check_backend<S: AdditiveHe>(scheme: S) {
    let hesc = BasicHesc::new(scheme);
    let (pk, sk) = hesc.scheme().generate_keys().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(100);
    let ibp = streams(1, Encoding::InvertedBipolar);
    let enc: Vec<_> = ibp
        .iter()
        .map(|x| hesc.encrypt(&pk, x, &mut rng).unwrap())
        .collect();

    // Round trips.
    for (x, c) in ibp.iter().zip(&enc) {
        assert_eq!(&hesc.decrypt(&sk, c).unwrap(), x);
        assert_eq!(c.len(), LEN);
    }
    // Multiplication (XOR), also of three factors (the sum holds up to 3).
    let ab = hesc.multiply(&pk, &enc[0], &enc[1]).unwrap();
    assert_eq!(
        hesc.decrypt(&sk, &ab).unwrap(),
        model::multiply(&ibp[0], &ibp[1]).unwrap()
    );
    let abc = hesc.multiply(&pk, &ab, &enc[2]).unwrap();
    assert_eq!(abc.terms(), 3);
    assert_eq!(
        hesc.decrypt(&sk, &abc).unwrap(),
        model::product(&[&ibp[0], &ibp[1], &ibp[2]]).unwrap()
    );
    // Multiplexed addition, two and three inputs.
    let sel = Selection::uniform(2, LEN, B2s::Bernoulli, &mut rng).unwrap();
    let sum = hesc.mux_add(&[&ab, &enc[2]], &sel).unwrap();
    let ab_plain = model::multiply(&ibp[0], &ibp[1]).unwrap();
    assert_eq!(
        hesc.decrypt(&sk, &sum).unwrap(),
        model::mux_add(&[&ab_plain, &ibp[2]], &sel).unwrap()
    );
    let s = hesc::BitStream::from_fn(LEN, |i| i % 3 != 1);
    assert_eq!(
        hesc.decrypt(&sk, &hesc.scaled_add(&enc[0], &enc[1], &s).unwrap())
            .unwrap(),
        model::scaled_add(&ibp[0], &ibp[1], &s).unwrap()
    );
    let sel3 = Selection::weighted(&[1.0, 2.0, 3.0], LEN, B2s::ExactWeight, &mut rng).unwrap();
    let refs: Vec<_> = enc.iter().collect();
    let plain_refs: Vec<_> = ibp.iter().collect();
    assert_eq!(
        hesc.decrypt(&sk, &hesc.mux_add(&refs, &sel3).unwrap())
            .unwrap(),
        model::mux_add(&plain_refs, &sel3).unwrap()
    );
    // Concatenated addition.
    let cat = hesc.concat_add(&refs).unwrap();
    assert_eq!(cat.len(), 3 * LEN);
    assert_eq!(
        hesc.decrypt(&sk, &cat).unwrap(),
        model::concat_add(&plain_refs).unwrap()
    );

    // Errors instead of panics.
    let up = streams(2, Encoding::Unipolar);
    let up_enc = hesc.encrypt(&pk, &up[0], &mut rng).unwrap();
    assert_eq!(hesc.decrypt(&sk, &up_enc).unwrap(), up[0]);
    assert!(matches!(
        hesc.multiply(&pk, &up_enc, &up_enc),
        Err(Error::Unsupported(_))
    ));
    assert!(matches!(
        hesc.multiply(&pk, &up_enc, &enc[0]),
        Err(Error::EncodingMismatch)
    ));
    assert!(matches!(
        hesc.concat_add(&[&up_enc, &enc[0]]),
        Err(Error::EncodingMismatch)
    ));
    let short = hesc
        .encrypt(
            &pk,
            &StochasticNumber::from_bits(
                ibp[0].bits().slice(0, 5).unwrap(),
                Encoding::InvertedBipolar,
            ),
            &mut rng,
        )
        .unwrap();
    assert!(matches!(
        hesc.multiply(&pk, &short, &enc[0]),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(
        hesc.mux_add(&[&enc[0]], &sel),
        Err(Error::InvalidArgument(_))
    ));
    assert!(hesc.concat_add(&[]).is_err());
}

#[test]
fn goldwasser_micali_matches_the_model() {
    check_backend(GoldwasserMicali::insecure_with_modulus_bits(256).unwrap());
}

#[test]
fn ec_elgamal_matches_the_model() {
    check_backend(EcElGamal::new(8).unwrap());
}

#[test]
fn bgv_bit_mode_matches_the_model() {
    check_backend(BgvBits::secure().unwrap());
}

#[test]
fn ec_elgamal_refuses_sums_beyond_its_table() {
    let hesc = BasicHesc::new(EcElGamal::new(2).unwrap());
    let (pk, _sk) = hesc.scheme().generate_keys().unwrap();
    let mut rng = ChaCha20Rng::seed_from_u64(3);
    let x = &streams(4, Encoding::InvertedBipolar)[0];
    let c = hesc.encrypt(&pk, x, &mut rng).unwrap();
    let c2 = hesc.multiply(&pk, &c, &c).unwrap();
    assert!(matches!(
        hesc.multiply(&pk, &c2, &c),
        Err(Error::PlaintextOverflow { bound: 2 })
    ));
}
