//! Iris end to end on small (insecure, N = 2^12) parameters: training,
//! SC accuracy, and encrypted inference whose bits equal the plaintext model's.

use helib_rs::{Context, SecretKey};
use hesc::fields::Fp65537;
use hesc::{params, PackedHesc};
use hesc_apps::iris::{self, sc, Dataset, Normalizer, TrainConfig};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn iris_data() -> Dataset {
    let ds = linfa_datasets::iris();
    let r = &ds.records;
    let features = (0..r.nrows())
        .map(|i| std::array::from_fn(|a| r[[i, a]]))
        .collect();
    Dataset::new(features, ds.targets.to_vec()).unwrap()
}

#[test]
fn trained_network_classifies_and_encrypted_bits_match() {
    let data = iris_data();
    assert_eq!(data.len(), 150);
    let (train_raw, test_raw) = iris::stratified_split(&data, 10, 7);
    let normalizer = Normalizer::fit(&train_raw).unwrap();
    let (train, test) = (
        normalizer.apply_all(&train_raw),
        normalizer.apply_all(&test_raw),
    );
    let net = iris::train(
        &train,
        &TrainConfig {
            epochs: 1500,
            ..TrainConfig::default()
        },
    );
    let float = iris::accuracy(&test, |x| Ok(net.forward(x))).unwrap();
    assert!(float >= 0.9, "float accuracy {float}");

    // Concatenated SC at L = 512 in the clear stays close to float.
    let mut rng = ChaCha8Rng::seed_from_u64(70);
    let outputs = sc::concatenated(&net, &test.features, 512, &mut rng).unwrap();
    let hits = outputs
        .iter()
        .zip(&test.labels)
        .filter(|(o, &y)| iris::argmax(o) == y)
        .count();
    assert!(
        hits as f64 / 30.0 >= float - 0.1,
        "SC {hits}/30 vs float {float}"
    );

    // Encrypted: 8 test samples side by side, L = 64.
    let context = Context::new(&params::t65537_for_tests().unwrap()).unwrap();
    let hesc = PackedHesc::<Fp65537>::new(&context).unwrap();
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    let samples = &test.features[..8];
    let model_plain = sc::ModelStreams::generate(&net, samples.len(), 64, &mut rng).unwrap();
    assert_eq!(model_plain.len(), 32 + 8 + 300 + 75);
    let inputs_plain = sc::InputStreams::generate(samples, 64, &mut rng).unwrap();
    let model = model_plain.map(|l| hesc.encrypt(&pk, l)).unwrap();
    let inputs = inputs_plain.map(|l| hesc.encrypt(&pk, l)).unwrap();
    let outputs = sc::layer2(&hesc, &sc::layer1(&hesc, &inputs, &model).unwrap(), &model).unwrap();
    assert_eq!(outputs.len(), 3);
    assert!(outputs
        .iter()
        .all(|o| o.ciphertext_count() == sc::OUTPUT_PARTS && o.lane_len() == 64 * 125));
    let decrypted: Vec<sc::Lanes> = outputs
        .iter()
        .map(|o| hesc.decrypt(&sk, o).unwrap())
        .collect();
    let want = sc::layer2(
        &sc::Plain,
        &sc::layer1(&sc::Plain, &inputs_plain, &model_plain).unwrap(),
        &model_plain,
    )
    .unwrap();
    assert_eq!(decrypted, want);
    // Malformed stream sets are errors, not panics.
    let mut short = model_plain.clone();
    short.w2.pop();
    assert!(sc::layer1(&sc::Plain, &inputs_plain, &short).is_err());
    let hidden = sc::layer1(&sc::Plain, &inputs_plain, &model_plain).unwrap();
    assert!(sc::layer2(&sc::Plain, &hidden[..3], &model_plain).is_err());
    // Fusion: slots hold up to 5, so at most 6 per ciphertext with t = 65537.
    let refs: Vec<_> = outputs.iter().collect();
    let fused = hesc.fuse(&refs, None).unwrap();
    assert_eq!(fused.original_count(), 375);
    assert!(
        fused.ciphertext_count() <= 375 / 5,
        "{}",
        fused.ciphertext_count()
    );
    assert_eq!(hesc.decrypt_fused(&sk, &fused).unwrap(), decrypted);
}
