//! The explicit secret-key export: round trips (the loaded key decrypts what
//! the original encrypted, and re-exports to the same bytes), other contexts
//! refused, every truncation and every single bit flip refused, payload
//! edits with a recomputed checksum either refused (a code that is no
//! coefficient) or loaded as exactly the key the bytes describe, and the
//! ark-serialize / serde wrapper.

mod common;

use common::*;
use helib_rs::ark_serialize::{CanonicalDeserialize, CanonicalSerialize};
use helib_rs::{Ciphertext, Error, ExportSecret, Plaintext, PublicKey, SecretKey, SecretKeyExport};
use sha2::{Digest, Sha256};

const CONSENT: ExportSecret = ExportSecret::IUnderstandTheBytesAreTheKey;
/// Header bytes before the payload, checksum bytes after it.
const HEADER: usize = 48;
const CHECKSUM: usize = 32;

#[track_caller]
fn assert_malformed<T>(result: helib_rs::Result<T>, what: &str) -> String {
    match result {
        Err(Error::Malformed(message)) => message,
        Err(other) => panic!("{what}: expected Error::Malformed, got {other:?}"),
        Ok(_) => panic!("{what}: expected Error::Malformed, the bytes loaded"),
    }
}

/// Recomputes the trailing SHA-256 after an edit (the checksum is not a MAC).
fn rechecksum(bytes: &mut [u8]) {
    let body = bytes.len() - CHECKSUM;
    let sum = Sha256::digest(&bytes[..body]);
    bytes[body..].copy_from_slice(&sum);
}

fn messages(context: &helib_rs::Context) -> Vec<Plaintext> {
    vec![
        Plaintext::from_u64s(context, &[1, 2, 3, 65536]).unwrap(),
        Plaintext::from_i64s(context, &[-5, 0, 9]).unwrap(),
    ]
}

#[test]
fn an_exported_key_loads_and_decrypts_what_the_original_encrypted() {
    let keyed = t65537_1024();
    let bytes = keyed.sk.export_secret(CONSENT).unwrap();
    // Frame, then N ternary coefficients of 2 bits.
    assert_eq!(bytes.len(), HEADER + keyed.n() / 4 + CHECKSUM);
    assert_eq!(&bytes[..4], b"HBGV");
    assert_eq!(bytes[6], 7, "kind 7: secret key");
    assert_eq!(&bytes[8..40], &keyed.context.fingerprint().unwrap());

    let loaded = SecretKey::import_secret(&keyed.context, &bytes).unwrap();
    for m in messages(&keyed.context) {
        assert_eq!(loaded.decrypt(&keyed.pk.encrypt(&m).unwrap()).unwrap(), m);
        assert_eq!(loaded.decrypt(&keyed.sk.encrypt(&m).unwrap()).unwrap(), m);
        // And the other way: the original decrypts what the loaded key encrypts.
        assert_eq!(keyed.sk.decrypt(&loaded.encrypt(&m).unwrap()).unwrap(), m);
    }
    // Its public key encrypts for the original too.
    let pk = loaded.public_key().unwrap();
    let m = Plaintext::from_u64s(&keyed.context, &[42]).unwrap();
    assert_eq!(keyed.sk.decrypt(&pk.encrypt(&m).unwrap()).unwrap(), m);
    // The encoding is a function of the key.
    assert_eq!(*loaded.export_secret(CONSENT).unwrap(), *bytes);

    // A different key has different bytes.
    let other = SecretKey::generate(&keyed.context).unwrap();
    assert_ne!(*other.export_secret(CONSENT).unwrap(), *bytes);
}

#[test]
fn a_key_loads_under_an_equal_context_only() {
    let keyed = t65537_1024();
    let bytes = keyed.sk.export_secret(CONSENT).unwrap();
    // The same parameters built again: the same fingerprint.
    let twin = context(1024, &t65537(), 3);
    let loaded = SecretKey::import_secret(&twin, &bytes).unwrap();
    assert!(loaded.context().same_as(&twin));
    let m = Plaintext::from_u64s(&twin, &[3, 1, 4]).unwrap();
    assert_eq!(loaded.decrypt(&loaded.encrypt(&m).unwrap()).unwrap(), m);

    // Other parameters: another depth, another t, another ring degree.
    for other in [
        context(1024, &t65537(), 2),
        context(1024, &bn254(), 3),
        context(2048, &t65537(), 3),
    ] {
        assert!(
            matches!(
                SecretKey::import_secret(&other, &bytes),
                Err(Error::ContextMismatch)
            ),
            "N = {}",
            other.ring_degree()
        );
    }
}

#[test]
fn every_truncation_and_every_bit_flip_is_refused() {
    let keyed = t65537_1024();
    let bytes = keyed.sk.export_secret(CONSENT).unwrap();
    let load = |b: &[u8]| SecretKey::import_secret(&keyed.context, b);
    for cut in 0..bytes.len() {
        assert_malformed(load(&bytes[..cut]), &format!("first {cut} bytes"));
    }
    let mut longer = bytes.to_vec();
    longer.push(0);
    assert_malformed(load(&longer), "one byte more");
    for bit in 0..bytes.len() * 8 {
        let mut bad = bytes.to_vec();
        bad[bit / 8] ^= 1 << (bit % 8);
        // A flip in the fingerprint may also be reported as another
        // context's key; the checksum is checked first, so it is malformed.
        assert_malformed(load(&bad), &format!("bit {bit} flipped"));
    }
}

#[test]
fn edited_coefficients_with_a_valid_checksum_load_as_written_or_are_refused() {
    let keyed = t65537_1024();
    let bytes = keyed.sk.export_secret(CONSENT).unwrap();
    let load = |b: &[u8]| SecretKey::import_secret(&keyed.context, b);
    let payload = HEADER..bytes.len() - CHECKSUM;
    let mut loaded_edits = 0;
    for bit in payload.start * 8..payload.end * 8 {
        let mut edited = bytes.to_vec();
        edited[bit / 8] ^= 1 << (bit % 8);
        rechecksum(&mut edited);
        let code = (edited[bit / 8] >> ((bit % 8) & !1)) & 3;
        match load(&edited) {
            // Code 3 is no coefficient.
            Err(Error::Malformed(message)) => {
                assert_eq!(code, 3, "bit {bit}: refused a valid code: {message}");
                assert!(message.contains("code 3"), "{message}");
            }
            // Anything else is a key: exactly the one the bytes describe.
            Ok(key) => {
                assert_ne!(code, 3, "bit {bit}: loaded a coefficient code 3");
                assert_eq!(
                    *key.export_secret(CONSENT).unwrap(),
                    edited[..],
                    "bit {bit}"
                );
                loaded_edits += 1;
            }
            Err(other) => panic!("bit {bit}: {other:?}"),
        }
    }
    assert!(loaded_edits > 0);

    // A key whose coefficients are all 3 (0xff bytes) and one that is all
    // zero: the first refused, the second loads (the format does not judge
    // the key's distribution, only its range).
    let mut all_three = bytes.to_vec();
    all_three[payload.clone()].fill(0xff);
    rechecksum(&mut all_three);
    assert_malformed(load(&all_three), "all codes 3");
    let mut zero = bytes.to_vec();
    zero[payload].fill(0);
    rechecksum(&mut zero);
    let zero_key = load(&zero).unwrap();
    let m = Plaintext::from_u64s(&keyed.context, &[11]).unwrap();
    assert_eq!(zero_key.decrypt(&zero_key.encrypt(&m).unwrap()).unwrap(), m);
}

#[test]
fn other_kinds_are_not_secret_keys_and_a_secret_key_is_no_other_kind() {
    let keyed = t65537_1024();
    let ctx = &keyed.context;
    let sk_bytes = keyed.sk.export_secret(CONSENT).unwrap();
    let m = Plaintext::from_u64s(ctx, &[1]).unwrap();
    let ct_bytes = keyed.pk.encrypt(&m).unwrap().to_bytes().unwrap();
    let pk_bytes = keyed.pk.to_bytes().unwrap();
    for (bytes, what) in [
        (&ct_bytes, "a ciphertext"),
        (&pk_bytes, "a public key"),
        (&m.to_bytes().unwrap(), "a plaintext"),
        (&ctx.parameters().to_bytes().unwrap(), "parameters"),
    ] {
        let message = assert_malformed(SecretKey::import_secret(ctx, bytes), what);
        assert!(message.contains("not a secret key"), "{message}");
    }
    let message = assert_malformed(PublicKey::from_bytes(ctx, &sk_bytes), "as public key");
    assert!(message.contains("a secret key"), "{message}");
    assert_malformed(Ciphertext::from_bytes(ctx, &sk_bytes), "as ciphertext");
    assert_malformed(Plaintext::from_bytes(ctx, &sk_bytes), "as plaintext");
}

#[test]
fn the_wrapper_round_trips_through_ark_serialize_and_hides_its_bytes() {
    let keyed = bn254_1024();
    let export = SecretKeyExport::new(&keyed.sk, CONSENT).unwrap();
    assert_eq!(
        export.as_bytes(),
        &keyed.sk.export_secret(CONSENT).unwrap()[..]
    );
    let mut wire = Vec::new();
    export.serialize_compressed(&mut wire).unwrap();
    assert_eq!(
        wire.len(),
        export.serialized_size(helib_rs::ark_serialize::Compress::Yes)
    );
    assert_eq!(wire[..8], (export.as_bytes().len() as u64).to_le_bytes());
    let back = SecretKeyExport::deserialize_compressed(&wire[..]).unwrap();
    let loaded = back.bind(&keyed.context).unwrap();
    let m = Plaintext::from_u64s(&keyed.context, &[123_456_789]).unwrap();
    assert_eq!(loaded.decrypt(&keyed.pk.encrypt(&m).unwrap()).unwrap(), m);

    // A length prefix longer than the input is an error, not an allocation.
    let mut short = wire.clone();
    short.truncate(100);
    assert!(SecretKeyExport::deserialize_compressed(&short[..]).is_err());
    let mut huge = u64::MAX.to_le_bytes().to_vec();
    huge.extend_from_slice(&[0u8; 16]);
    assert!(SecretKeyExport::deserialize_compressed(&huge[..]).is_err());
    // Damage passes the framing but not bind.
    let mut bad = wire;
    bad[8 + 60] ^= 1;
    let framed = SecretKeyExport::deserialize_compressed(&bad[..]).unwrap();
    assert_malformed(framed.bind(&keyed.context), "damaged wrapper");

    // Debug shows no byte of the key.
    let shown = format!("{export:?}");
    assert!(shown.contains("secret bytes"), "{shown}");
    let hex: String = export.as_bytes()[HEADER..HEADER + 4]
        .iter()
        .map(|b| format!("{b}"))
        .collect::<Vec<_>>()
        .join(", ");
    assert!(!shown.contains(&hex), "{shown}");
}

#[cfg(feature = "serde")]
#[test]
fn the_wrapper_round_trips_through_serde() {
    let keyed = t65537_1024();
    let export = SecretKeyExport::new(&keyed.sk, CONSENT).unwrap();
    let json = serde_json::to_string(&export).unwrap();
    let back: SecretKeyExport = serde_json::from_str(&json).unwrap();
    assert_eq!(back.as_bytes(), export.as_bytes());
    let loaded = back.bind(&keyed.context).unwrap();
    let m = Plaintext::from_u64s(&keyed.context, &[8, 9]).unwrap();
    assert_eq!(loaded.decrypt(&keyed.sk.encrypt(&m).unwrap()).unwrap(), m);
}
