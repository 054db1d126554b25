//! The all-ones polynomial over packed BGV gives the plaintext model's bits.

use helib_rs::{Context, SecretKey};
use hesc::fields::Fp65537;
use hesc::{params, B2s, PackedHesc, Selection, StochasticNumber};
use hesc_apps::polynomial::{self, Addition};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

#[test]
fn encrypted_polynomial_matches_the_model() {
    let context = Context::new(&params::t65537_for_tests().unwrap()).unwrap();
    let hesc = PackedHesc::<Fp65537>::new(&context).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(60);
    let (degree, len) = (5, 600);
    let xs = [-0.9, 0.2, 0.7];
    // copies[i][lane]: the i-th input stream of each x.
    let per_x: Vec<Vec<StochasticNumber>> = xs
        .iter()
        .map(|&x| polynomial::input_streams(x, degree, len, B2s::Bernoulli, &mut rng).unwrap())
        .collect();
    let copies: Vec<Vec<StochasticNumber>> = (0..degree)
        .map(|i| per_x.iter().map(|s| s[i].clone()).collect())
        .collect();
    let encrypted: Vec<_> = copies
        .iter()
        .map(|lanes| hesc.encrypt(&pk, lanes).unwrap())
        .collect();
    let selections: Vec<Selection> = xs
        .iter()
        .map(|_| Selection::uniform(degree + 1, len, B2s::Bernoulli, &mut rng).unwrap())
        .collect();
    for addition in [Addition::Concatenated, Addition::Conventional] {
        let result =
            polynomial::evaluate_packed(&hesc, &pk, &encrypted, addition, Some(&selections))
                .unwrap();
        let decrypted = hesc.decrypt(&sk, &result).unwrap();
        for (lane, inputs) in per_x.iter().enumerate() {
            let want =
                polynomial::evaluate_model(inputs, addition, Some(&selections[lane])).unwrap();
            assert_eq!(decrypted[lane], want, "{addition:?}, lane {lane}");
        }
        let values = polynomial::decrypt_packed(&hesc, &sk, &result, degree, true).unwrap();
        for (lane, v) in values.iter().enumerate() {
            assert_eq!(*v, decrypted[lane].value() * (degree + 1) as f64);
        }
    }
    assert!(
        polynomial::evaluate_packed(&hesc, &pk, &encrypted, Addition::Conventional, None).is_err()
    );
    assert!(polynomial::evaluate_packed(&hesc, &pk, &[], Addition::Concatenated, None).is_err());
}
