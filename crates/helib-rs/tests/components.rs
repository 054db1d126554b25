//! `Ciphertext::residues`: the evaluation-form residues of each polynomial.

use helib_rs::{Context, Error, Parameters, Plaintext, SecretKey};

fn context() -> Context {
    let params = Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(65537u32.into())
        .chain_bits(&[50, 50, 50])
        .special_bits(&[60])
        .threads(1)
        .allow_insecure()
        .build()
        .unwrap();
    Context::new(&params).unwrap()
}

#[test]
fn residues_add_like_the_ciphertexts() {
    let context = context();
    let sk = SecretKey::generate(&context).unwrap();
    let pk = sk.public_key().unwrap();
    let a = pk
        .encrypt(&Plaintext::from_u64s(&context, &[1, 2, 3]).unwrap())
        .unwrap();
    let b = pk
        .encrypt(&Plaintext::from_u64s(&context, &[7, 0, 65536]).unwrap())
        .unwrap();
    let sum = a.add(&b).unwrap();
    let negated = a.negate().unwrap();
    for (prime, &q) in context.chain_primes().iter().enumerate() {
        for part in 0..2 {
            let (ra, rb) = (
                a.residues(part, prime).unwrap(),
                b.residues(part, prime).unwrap(),
            );
            let (rs, rn) = (
                sum.residues(part, prime).unwrap(),
                negated.residues(part, prime).unwrap(),
            );
            assert_eq!(ra.len(), 1024);
            assert!(ra.iter().chain(&rb).all(|&r| r < q));
            for j in 0..ra.len() {
                assert_eq!(
                    rs[j],
                    (ra[j] + rb[j]) % q,
                    "part {part}, prime {prime}, value {j}"
                );
                assert_eq!(
                    (rn[j] + ra[j]) % q,
                    0,
                    "part {part}, prime {prime}, value {j}"
                );
            }
        }
    }
    // Two independent encryptions differ (their masks are fresh).
    assert_ne!(a.residues(1, 0).unwrap(), b.residues(1, 0).unwrap());
}

#[test]
fn residues_outside_the_ciphertext_are_refused() {
    let context = context();
    let sk = SecretKey::generate(&context).unwrap();
    let ct = sk
        .encrypt(&Plaintext::from_u64s(&context, &[5]).unwrap())
        .unwrap()
        .mod_switch()
        .unwrap();
    assert_eq!(ct.level(), 1);
    assert!(ct.residues(0, 1).is_ok());
    assert_eq!(
        ct.residues(0, 2),
        Err(Error::InvalidLevel { level: 2, max: 1 })
    );
    assert!(matches!(ct.residues(2, 0), Err(Error::InvalidArgument(_))));
    let product = ct.multiply(&ct).unwrap();
    assert_eq!(product.size(), 3);
    assert!(product.residues(2, 0).is_ok());
}
