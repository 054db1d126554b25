//! Packed HESC over BGV against the plaintext stochastic model: the same
//! streams must give identical bits, lane by lane, with and without fusion.

use ark_bn254::Fr;
use helib_rs::{Context, Parameters, PublicKey, SecretKey};
use hesc::fields::Fp65537;
use hesc::{
    model, params, B2s, BitStream, Encoding, Error, PackedHesc, Selection, StochasticNumber,
};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

const IBP: Encoding = Encoding::InvertedBipolar;

struct Setup {
    hesc: PackedHesc<Fp65537>,
    sk: SecretKey,
    pk: PublicKey,
}

fn setup() -> Setup {
    let context = Context::new(&params::t65537_for_tests().unwrap()).unwrap();
    let hesc = PackedHesc::new(&context).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    Setup { hesc, sk, pk }
}

fn lanes(seed: u64, count: usize, len: usize, encoding: Encoding) -> Vec<StochasticNumber> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let (min, max) = encoding.range();
    (0..count)
        .map(|i| {
            let v = min + (max - min) * (i as f64 + 0.5) / count as f64;
            StochasticNumber::encode(v, len, encoding, B2s::Bernoulli, &mut rng).unwrap()
        })
        .collect()
}

fn lanewise(
    a: &[StochasticNumber],
    b: &[StochasticNumber],
    f: fn(&StochasticNumber, &StochasticNumber) -> hesc::Result<StochasticNumber>,
) -> Vec<StochasticNumber> {
    a.iter().zip(b).map(|(x, y)| f(x, y).unwrap()).collect()
}

#[test]
fn round_trips_across_lanes_and_blocks() {
    let s = setup();
    // N = 4096: 3 lanes of 1000 bits fit one block; 3 lanes of 3000 bits need
    // blocks of 1365, 1365 and 270 bits per lane.
    for (len, blocks) in [(1000, 1), (3000, 3), (4096, 1)] {
        let count = if len == 4096 { 1 } else { 3 };
        let x = lanes(len as u64, count, len, IBP);
        let c = s.hesc.encrypt(&s.pk, &x).unwrap();
        assert_eq!(c.ciphertext_count(), blocks);
        assert_eq!(c.lane_len(), len);
        assert_eq!(s.hesc.decrypt(&s.sk, &c).unwrap(), x);
    }
}

#[test]
fn multiplication_and_addition_match_the_model() {
    let s = setup();
    let (n, len) = (3, 2000);
    let x = lanes(1, n, len, IBP);
    let y = lanes(2, n, len, IBP);
    let z = lanes(3, n, len, IBP);
    let (cx, cy, cz) = (
        s.hesc.encrypt(&s.pk, &x).unwrap(),
        s.hesc.encrypt(&s.pk, &y).unwrap(),
        s.hesc.encrypt(&s.pk, &z).unwrap(),
    );
    // XOR by addition, twice (slot values up to 3).
    let xy = s.hesc.xor(&cx, &cy).unwrap();
    let xyz = s.hesc.xor(&xy, &cz).unwrap();
    assert_eq!(xyz.max_count(), 3);
    let want_xy = lanewise(&x, &y, model::multiply);
    let want_xyz = lanewise(&want_xy, &z, model::multiply);
    assert_eq!(s.hesc.decrypt(&s.sk, &xyz).unwrap(), want_xyz);

    // XOR with a public stream.
    let w = lanes(4, n, len, IBP);
    let xw = s.hesc.xor_plain(&xy, &w).unwrap();
    assert_eq!(
        s.hesc.decrypt(&s.sk, &xw).unwrap(),
        lanewise(&want_xy, &w, model::multiply)
    );

    // Multiplexed addition of three terms (one of them with counts up to 3).
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let sel: Vec<Selection> = (0..n)
        .map(|_| Selection::weighted(&[1.0, 1.0, 2.0], len, B2s::Bernoulli, &mut rng).unwrap())
        .collect();
    let sum = s.hesc.mux(&[&cx, &xyz, &cz], &sel).unwrap();
    let want: Vec<_> = (0..n)
        .map(|i| model::mux_add(&[&x[i], &want_xyz[i], &z[i]], &sel[i]).unwrap())
        .collect();
    assert_eq!(s.hesc.decrypt(&s.sk, &sum).unwrap(), want);

    // Two-input S·A¹ + S̄·A².
    let s2: Vec<Selection> = (0..n)
        .map(|i| Selection::from_stream(&BitStream::from_fn(len, |j| (i + j) % 3 == 0)))
        .collect();
    let sum2 = s.hesc.mux(&[&cx, &cy], &s2).unwrap();
    let want2: Vec<_> = (0..n)
        .map(|i| model::mux_add(&[&x[i], &y[i]], &s2[i]).unwrap())
        .collect();
    assert_eq!(s.hesc.decrypt(&s.sk, &sum2).unwrap(), want2);

    // Concatenation, lane by lane.
    let cat = s.hesc.concat(&[&cx, &xyz, &sum]).unwrap();
    assert_eq!(cat.lane_len(), 3 * len);
    let want_cat: Vec<_> = (0..n)
        .map(|i| model::concat_add(&[&x[i], &want_xyz[i], &want[i]]).unwrap())
        .collect();
    assert_eq!(s.hesc.decrypt(&s.sk, &cat).unwrap(), want_cat);
}

#[test]
fn unipolar_and_with_a_public_stream() {
    let s = setup();
    let x = lanes(6, 2, 1500, Encoding::Unipolar);
    let w = lanes(7, 2, 1500, Encoding::Unipolar);
    let cx = s.hesc.encrypt(&s.pk, &x).unwrap();
    let product = s.hesc.and_plain(&cx, &w).unwrap();
    assert_eq!(
        s.hesc.decrypt(&s.sk, &product).unwrap(),
        lanewise(&x, &w, model::multiply)
    );
    assert!(matches!(s.hesc.xor(&cx, &cx), Err(Error::Unsupported(_))));
}

#[test]
fn fusion_separates_exactly_and_respects_t() {
    let s = setup();
    let len = 4096;
    let streams: Vec<Vec<StochasticNumber>> = (0..5).map(|k| lanes(10 + k, 1, len, IBP)).collect();
    let enc: Vec<_> = streams
        .iter()
        .map(|x| s.hesc.encrypt(&s.pk, x).unwrap())
        .collect();
    // Slot values up to 5: W = 6, and 6^6 = 46656 ≤ 65537 < 6^7.
    let mut products = Vec::new();
    let mut plain = Vec::new();
    for i in 0..8usize {
        let mut acc = enc[i % 5].clone();
        let mut want = streams[i % 5][0].clone();
        for k in 1..5 {
            acc = s.hesc.xor(&acc, &enc[(i + k) % 5]).unwrap();
            want = model::multiply(&want, &streams[(i + k) % 5][0]).unwrap();
        }
        assert_eq!(acc.max_count(), 5);
        products.push(acc);
        plain.push(vec![want]);
    }
    let refs: Vec<_> = products.iter().collect();
    let fused = s.hesc.fuse(&refs, None).unwrap();
    assert_eq!(fused.original_count(), 8);
    assert_eq!(fused.ciphertext_count(), 2); // 6 + 2
    assert_eq!(fused.fused()[0].radices(), [6; 6]);
    assert_eq!(s.hesc.decrypt_fused(&s.sk, &fused).unwrap(), plain);
    // A group limit is honoured.
    let limited = s.hesc.fuse(&refs, Some(3)).unwrap();
    assert_eq!(limited.ciphertext_count(), 3);
    assert_eq!(s.hesc.decrypt_fused(&s.sk, &limited).unwrap(), plain);
    assert!(s.hesc.fuse(&[], None).is_err());
}

#[test]
fn bn254_fuses_far_more_than_small_t() {
    let context = Context::new(&Parameters::for_tests()).unwrap();
    let hesc = PackedHesc::<Fr>::new(&context).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    // 40 fresh single-bit streams: W = 2, and 2^40 is far below the 254-bit t.
    let streams: Vec<Vec<StochasticNumber>> =
        (0..40).map(|k| lanes(100 + k, 2, 2048, IBP)).collect();
    let enc: Vec<_> = streams
        .iter()
        .map(|x| hesc.encrypt(&pk, x).unwrap())
        .collect();
    let refs: Vec<_> = enc.iter().collect();
    let fused = hesc.fuse(&refs, None).unwrap();
    assert_eq!(fused.ciphertext_count(), 1);
    assert_eq!(hesc.decrypt_fused(&sk, &fused).unwrap(), streams);
}

#[test]
fn layout_mismatches_are_errors() {
    let s = setup();
    let a = s.hesc.encrypt(&s.pk, &lanes(20, 2, 100, IBP)).unwrap();
    let b = s.hesc.encrypt(&s.pk, &lanes(21, 2, 101, IBP)).unwrap();
    let c = s.hesc.encrypt(&s.pk, &lanes(22, 1, 100, IBP)).unwrap();
    assert!(matches!(
        s.hesc.xor(&a, &b),
        Err(Error::LengthMismatch { .. })
    ));
    assert!(matches!(s.hesc.xor(&a, &c), Err(Error::InvalidArgument(_))));
    assert!(s.hesc.concat(&[&a, &c]).is_err());
    assert!(s.hesc.xor_plain(&a, &lanes(23, 2, 99, IBP)).is_err());
    assert!(s.hesc.encrypt(&s.pk, &[]).is_err());
    let mixed = [
        lanes(24, 1, 10, IBP)[0].clone(),
        lanes(25, 1, 11, IBP)[0].clone(),
    ];
    assert!(s.hesc.encrypt(&s.pk, &mixed).is_err());
    let mut rng = ChaCha8Rng::seed_from_u64(26);
    let one_lane = vec![Selection::uniform(2, 100, B2s::Bernoulli, &mut rng).unwrap()];
    assert!(matches!(
        s.hesc.mux(&[&a, &a], &one_lane),
        Err(Error::InvalidArgument(_))
    ));
}
