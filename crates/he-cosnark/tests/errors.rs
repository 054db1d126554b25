//! Every message a role did not expect is refused with a typed error naming
//! the sender or the cause, before the round goes on.

mod common;

use ark_bn254::Fr;
use ark_ff::Field;
use he_cosnark::{share_witness, Error, Role, WitnessShare};
use rand::rngs::OsRng;

use common::{Chain, Roles};

const PARTIES: u32 = 2;

fn uploads(roles: &Roles, chain: &Chain, proof: u64) -> Vec<Vec<u8>> {
    let shares = share_witness(&chain.witness, PARTIES, &mut OsRng).unwrap();
    roles
        .parties
        .iter()
        .zip(&shares)
        .map(|(p, s)| {
            p.upload(proof, None, &chain.public_inputs, s, &mut OsRng)
                .unwrap()
                .1
        })
        .collect()
}

fn is_binding_error_from(e: &Error, party: u32) -> bool {
    matches!(e, Error::WrongBinding { from: Role::Party(i), .. } if *i == party)
}

#[test]
fn uploads_of_another_proof_session_round_or_circuit_are_refused_naming_the_party() {
    let chain = common::chain(12);
    let context = common::context(PARTIES);
    let roles = common::roles(&context, [1; 32], PARTIES, &chain.circuit);
    let public = &chain.public_inputs;

    // Honest uploads of proof 0 go through.
    let honest = uploads(&roles, &chain, 0);
    assert!(roles.server.compute(0, None, public, &honest).is_ok());

    // Party 1's upload is for proof 1.
    let mut mixed = honest.clone();
    mixed[1] = uploads(&roles, &chain, 1).swap_remove(1);
    let e = roles.server.compute(0, None, public, &mixed).err().unwrap();
    assert!(is_binding_error_from(&e, 1), "{e}");

    // Party 0's upload comes from another session (same circuit and keys' shape).
    let other = common::roles(&context, [2; 32], PARTIES, &chain.circuit);
    let mut mixed = honest.clone();
    mixed[0] = uploads(&other, &chain, 0).swap_remove(0);
    let e = roles.server.compute(0, None, public, &mixed).err().unwrap();
    assert!(is_binding_error_from(&e, 0), "{e}");

    // Party 1's upload is for another circuit with the same domain.
    let longer = common::chain(13);
    assert_eq!(longer.circuit.domain_size(), chain.circuit.domain_size());
    let foreign = common::roles(&context, [1; 32], PARTIES, &longer.circuit);
    let mut mixed = honest.clone();
    mixed[1] = uploads(&foreign, &longer, 0).swap_remove(1);
    let e = roles.server.compute(0, None, public, &mixed).err().unwrap();
    assert!(is_binding_error_from(&e, 1), "{e}");

    // A truncated upload and one with a changed byte.
    let mut mixed = honest.clone();
    mixed[0] = mixed[0][..mixed[0].len() / 2].to_vec();
    assert!(matches!(
        roles.server.compute(0, None, public, &mixed),
        Err(Error::Malformed {
            from: Role::Party(0),
            ..
        })
    ));
    let mut flipped = honest.clone();
    let middle = flipped[1].len() / 2;
    flipped[1][middle] ^= 4;
    assert!(matches!(
        roles.server.compute(0, None, public, &flipped),
        Err(Error::Malformed {
            from: Role::Party(1),
            ..
        })
    ));

    // A missing party.
    assert!(matches!(
        roles.server.compute(0, None, public, &honest[..1]),
        Err(Error::WrongLength {
            expected: 2,
            got: 1,
            ..
        })
    ));
}

#[test]
fn messages_of_the_wrong_round_are_refused() {
    let chain = common::chain(12);
    let context = common::context(PARTIES);
    let roles = common::roles(&context, [3; 32], PARTIES, &chain.circuit);
    let public = &chain.public_inputs;
    let shares = share_witness(&chain.witness, PARTIES, &mut OsRng).unwrap();
    let (mut states, uploads): (Vec<_>, Vec<_>) = roles
        .parties
        .iter()
        .zip(&shares)
        .map(|(p, s)| p.upload(0, None, public, s, &mut OsRng).unwrap())
        .unzip();
    let (server_state, broadcast) = roles.server.compute(0, None, public, &uploads).unwrap();

    // A party handed an upload instead of the server's broadcast.
    let e = roles.parties[0]
        .convert(&mut states[0], &uploads[1])
        .err()
        .unwrap();
    assert!(matches!(e, Error::WrongBinding { .. }), "{e}");
    // The server handed uploads where conversion shares belong.
    let e = roles.server.open(&server_state, &uploads).err().unwrap();
    assert!(is_binding_error_from(&e, 0), "{e}");

    let converts: Vec<Vec<u8>> = roles
        .parties
        .iter()
        .zip(states.iter_mut())
        .map(|(p, s)| p.convert(s, &broadcast).unwrap())
        .collect();
    // Party 1 replays its conversion shares as party 0's.
    let replayed = vec![converts[1].clone(), converts[1].clone()];
    let e = roles.server.open(&server_state, &replayed).err().unwrap();
    assert!(is_binding_error_from(&e, 0), "{e}");

    let aggregates = roles.server.open(&server_state, &converts).unwrap();
    // The designated party opens the sums of the server only.
    let (mut again, _) = roles.parties[0]
        .upload(0, None, public, &shares[0], &mut OsRng)
        .unwrap();
    roles.parties[0].convert(&mut again, &broadcast).unwrap();
    let e = roles.parties[0]
        .combine(again, Some(&converts[1]))
        .err()
        .unwrap();
    assert!(matches!(e, Error::WrongBinding { .. }), "{e}");
    // The sums go to the designated party only, and it needs them.
    let mut states = states.into_iter();
    let (first, second) = (states.next().unwrap(), states.next().unwrap());
    assert!(matches!(
        roles.parties[1].combine(second, Some(&aggregates)),
        Err(Error::InvalidArgument(_))
    ));
    assert!(matches!(
        roles.parties[0].combine(first, None),
        Err(Error::InvalidArgument(_))
    ));
}

#[test]
fn shares_and_public_inputs_that_do_not_fit_the_circuit_are_refused() {
    let chain = common::chain(12);
    let context = common::context(PARTIES);
    let roles = common::roles(&context, [4; 32], PARTIES, &chain.circuit);
    let party = &roles.parties[0];
    let witness = WitnessShare::new(chain.witness.clone());
    let short = WitnessShare::new(chain.witness[1..].to_vec());
    assert!(matches!(
        party.upload(0, None, &chain.public_inputs, &short, &mut OsRng),
        Err(Error::WrongLength {
            what: "witness share",
            ..
        })
    ));
    let two_inputs = [chain.public_inputs[0], Fr::ONE];
    assert!(matches!(
        party.upload(0, None, &two_inputs, &witness, &mut OsRng),
        Err(Error::WrongLength {
            what: "list of public inputs",
            expected: 1,
            got: 2
        })
    ));
    assert!(matches!(
        roles.server.compute(0, None, &[], &[]),
        Err(Error::WrongLength {
            what: "list of public inputs",
            ..
        })
    ));
    assert!(matches!(
        party.upload(
            he_cosnark::MAX_PROOF_INDEX + 1,
            None,
            &chain.public_inputs,
            &witness,
            &mut OsRng
        ),
        Err(Error::InvalidArgument(_))
    ));
}
