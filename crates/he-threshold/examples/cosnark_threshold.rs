//! A Groth16 proof whose quotient h is computed by an untrusted server on a
//! witness that no single party knows: three parties hold additive shares of
//! the witness vectors, encrypt them under a collective (threshold) key, the
//! server computes h = ⌊A·B / X^n⌋ on the ciphertexts, and encryption to
//! shares turns the encrypted h straight back into additive shares, which
//! the parties would feed to a collaborative prover. Here they are summed
//! to check h against ark-groth16's own witness map and to prove.
//!
//! The circuit is the one of `groth16_prove`: z_{i+1} = z_i² + c_i for
//! `--constraints` steps, the last z public. Per party and for the server,
//! the time and bytes of each round are printed, and, measured in the same
//! run, collective key generation against single-party key generation and a
//! decryption share / encryption-to-shares share against one decryption.
//! The exit status is 0 only when the shares reconstruct ark-groth16's h
//! and the proof verifies.
//!
//! ```text
//! cargo run --release --example cosnark_threshold                     # 500 constraints
//! cargo run --release --example cosnark_threshold -- --constraints 4000
//! ```

use std::error::Error;
use std::time::{Duration, Instant};

use ark_bn254::{Bn254, Fr};
use ark_ff::{AdditiveGroup, Field, PrimeField, UniformRand};
use ark_groth16::r1cs_to_qap::{LibsnarkReduction, R1CSToQAP};
use ark_groth16::Groth16;
use ark_poly::{EvaluationDomain, GeneralEvaluationDomain};
use ark_relations::r1cs::ConstraintMatrices;
use ark_snark::SNARK;
use example_support::circuits::{ProverView, SquareChain};
use example_support::outln;
use he_poly::groth16::ProvidedQuotient;
use he_poly::{EncryptedPolynomial, PolyParameters};
use he_threshold::{
    AdditiveShare, Aggregate, Aggregator, Commitment, Commitments, Opening, Party, Session,
    ShareMessage, Step,
};
use helib_rs::{Context, FieldCoefficientEncoder, Parameters, PublicKey, RelinKey, SecretKey};
use rand::{rngs::StdRng, Rng, SeedableRng};

type Result<T> = std::result::Result<T, Box<dyn Error>>;
type Domain = GeneralEvaluationDomain<Fr>;

const PARTIES: u32 = 3;

/// Three parties with additively shared Groth16 witness vectors; an
/// untrusted server computes the quotient h under their collective BGV key;
/// encryption to shares returns h as additive shares; the shares are checked
/// against ark-groth16's h and the proof is verified.
#[derive(Debug, clap::Parser)]
#[command(version)]
struct Options {
    /// R1CS constraints (steps of the chain)
    #[arg(long, default_value_t = 500, value_parser = example_support::cli::positive)]
    constraints: usize,
}

fn main() {
    let options = <Options as clap::Parser>::parse();
    example_support::exit_with(run(options.constraints));
}

fn ms(d: Duration) -> String {
    format!("{:.1} ms", d.as_secs_f64() * 1e3)
}

fn kib(bytes: usize) -> String {
    format!("{:.1} KiB", bytes as f64 / 1024.0)
}

fn timed<T>(f: impl FnOnce() -> T) -> (T, Duration) {
    let start = Instant::now();
    let value = f();
    (value, start.elapsed())
}

/// Per-round accounting: each party's time and bytes sent, the server's time
/// and bytes broadcast.
#[derive(Default)]
struct Round {
    party_time: Vec<Duration>,
    party_bytes: Vec<usize>,
    server_time: Duration,
    server_bytes: usize,
}

impl Round {
    fn print(&self, name: &str) {
        let times: Vec<String> = self.party_time.iter().map(|t| ms(*t)).collect();
        let bytes = self.party_bytes.first().copied().unwrap_or(0);
        outln!(
            "  {name:<34} parties [{}], {} each; server {}, broadcast {}",
            times.join(", "),
            kib(bytes),
            ms(self.server_time),
            kib(self.server_bytes)
        );
    }

    fn max_party(&self) -> Duration {
        self.party_time.iter().copied().max().unwrap_or_default()
    }
}

/// Runs one round: each party makes its share (timed, through the wire
/// format), the server checks and sums them (timed).
fn round(
    parties: &mut [Party],
    mut aggregator: Aggregator,
    mut share: impl FnMut(&mut Party) -> he_threshold::Result<ShareMessage>,
) -> Result<(Aggregate, Round)> {
    let mut stats = Round::default();
    let mut wire = Vec::new();
    for p in parties.iter_mut() {
        let (msg, time) = timed(|| share(p));
        let bytes = msg?.to_bytes();
        stats.party_time.push(time);
        stats.party_bytes.push(bytes.len());
        wire.push(bytes);
    }
    let (aggregate, time) = timed(|| -> Result<Aggregate> {
        for bytes in &wire {
            aggregator.add(&ShareMessage::from_bytes(bytes)?)?;
        }
        Ok(aggregator.finish()?)
    });
    let aggregate = aggregate?;
    stats.server_time = time;
    stats.server_bytes = aggregate.size_bytes();
    Ok((aggregate, stats))
}

/// Round 1 of the relinearization key: every party commits to its share,
/// and opens it once the server has every commitment (timed, through the
/// wire format; a party's time and bytes are those of both steps).
fn relin_round1(parties: &mut [Party], session: &Session, run: u64) -> Result<(Aggregate, Round)> {
    let mut stats = Round::default();
    let mut wire = Vec::new();
    for p in parties.iter_mut() {
        let (commitment, time) = timed(|| p.relin_key_commit(run));
        let bytes = commitment?.to_bytes();
        stats.party_time.push(time);
        stats.party_bytes.push(bytes.len());
        wire.push(bytes);
    }
    let (commitments, time) = timed(|| -> Result<Commitments> {
        let mut collector = session.relin_commitments(run);
        for bytes in &wire {
            collector.add(&Commitment::from_bytes(bytes)?)?;
        }
        Ok(collector.finish()?)
    });
    let commitments = commitments?;
    stats.server_time = time;
    let mut openings = Vec::new();
    for (i, p) in parties.iter_mut().enumerate() {
        let (opening, time) = timed(|| p.relin_key_open(&commitments));
        let bytes = opening?.to_bytes();
        stats.party_time[i] += time;
        stats.party_bytes[i] += bytes.len();
        openings.push(bytes);
    }
    let (aggregate, time) = timed(|| -> Result<Aggregate> {
        let mut aggregator = session.relin_round1_aggregator(&commitments)?;
        for bytes in &openings {
            aggregator.add_opening(&Opening::from_bytes(bytes)?)?;
        }
        Ok(aggregator.finish()?)
    });
    let aggregate = aggregate?;
    stats.server_time += time;
    stats.server_bytes = aggregate.size_bytes();
    Ok((aggregate, stats))
}

/// The evaluations a = A·z and b = B·z on the domain's first points as
/// ark-groth16's LibsnarkReduction forms them (constraint rows, then the
/// public inputs in a), for a share z of the full assignment: the map is
/// linear, so shares of z give shares of a and b.
fn evaluation_shares(
    matrices: &ConstraintMatrices<Fr>,
    num_inputs: usize,
    z: &[Fr],
) -> [Vec<Fr>; 2] {
    let row = |r: &Vec<(Fr, usize)>| r.iter().map(|(c, i)| *c * z[*i]).sum::<Fr>();
    let mut a: Vec<Fr> = matrices.a.iter().map(row).collect();
    let b: Vec<Fr> = matrices.b.iter().map(row).collect();
    a.extend_from_slice(&z[..num_inputs]);
    [a, b]
}

/// Ring parameters for one product of polynomials of n coefficients, with
/// special primes (for the collective relinearization key) and room for the
/// smudging noise; the ring grows until that is 128-bit secure.
fn parameters(n: usize) -> Result<(Parameters, usize)> {
    let poly = PolyParameters::for_field::<Fr>(n, 1)?;
    let t: num_bigint::BigUint = Fr::MODULUS.into();
    let mut ring = poly.parameters().ring_degree();
    let mut reasons = Vec::new();
    while ring <= helib_rs::MAX_RING_DEGREE {
        let stride = poly.stride().min(ring / 2);
        let blocks = n.div_ceil(stride);
        let chain = helib_rs::noise::product_chain_bits(ring, &t, 1, blocks);
        let builder = Parameters::builder()
            .ring_degree(ring)
            .plaintext_modulus(t.clone())
            .chain_bits(&chain)
            .key_switching_digits(2)
            .threads(1);
        match he_threshold::with_smudging_room(
            builder,
            PARTIES,
            he_threshold::DEFAULT_SECURITY_BITS,
        ) {
            Ok(p) => return Ok((p, stride)),
            Err(e) => reasons.push(format!("N = {ring}: {e}")),
        }
        ring *= 2;
    }
    Err(reasons.join("; ").into())
}

fn run(steps: usize) -> Result<bool> {
    let mut rng = StdRng::seed_from_u64(2026);
    let start = Fr::from(7u64);
    let circuit = SquareChain {
        steps,
        start: Some(start),
    };
    let image = circuit.end(start);

    let ProverView {
        num_constraints,
        num_inputs,
        domain,
        matrices,
        assignment,
    } = ProverView::of(&circuit)?;
    let n = domain.size();
    outln!(
        "circuit: {num_constraints} constraints, {num_inputs} instance variables; domain n = {n}"
    );

    let (params, stride) = parameters(n)?;
    let context = Context::new(&params)?;
    outln!(
        "ring: N = {}, log2 Q = {}, log2 P = {:.0}, {} parties, smudging 2^-{}, {} bits of security",
        params.ring_degree(),
        params.chain_bits().iter().sum::<u32>(),
        context.log2_special_modulus(),
        PARTIES,
        he_threshold::DEFAULT_SECURITY_BITS,
        params.security_level().bits()
    );

    // The single-party baseline, in the same run.
    let (single, single_keygen) = timed(|| -> Result<(SecretKey, PublicKey, RelinKey)> {
        let sk = SecretKey::generate(&context)?;
        let pk = sk.public_key()?;
        let rk = RelinKey::generate(&sk)?;
        Ok((sk, pk, rk))
    });
    let (single_sk, single_pk, _) = single?;

    // Setup: a fresh session, three parties, the collective keys.
    let mut id = [0u8; 32];
    rng.fill(&mut id);
    let session = Session::new(&context, id, PARTIES)?;
    let (parties, party_setup) = timed(|| -> he_threshold::Result<Vec<Party>> {
        (0..PARTIES).map(|i| Party::new(&session, i)).collect()
    });
    let mut parties = parties?;
    let setup_each = party_setup / PARTIES;

    outln!("collective key generation (per round):");
    let (pk_agg, pk_round) = round(
        &mut parties,
        session.key_aggregator(1, Step::PublicKey)?,
        |p| p.public_key_share(1),
    )?;
    let (collective_pk, t) = timed(|| session.public_key(&pk_agg));
    let collective_pk = collective_pk?;
    pk_round.print("public key");
    let (r1_agg, r1_round) = relin_round1(&mut parties, &session, 2)?;
    r1_round.print("relinearization key, round 1 (commit, then open)");
    let (r2_agg, r2_round) = round(
        &mut parties,
        session.key_aggregator(2, Step::RelinRound2)?,
        |p| p.relin_key_round2(&r1_agg),
    )?;
    r2_round.print("relinearization key, round 2");
    let (collective_rk, t_rk) = timed(|| session.relin_key(&r1_agg, &r2_agg));
    let collective_rk = collective_rk?;
    outln!("  server assembles the keys          {}", ms(t + t_rk));
    let per_party_keygen =
        setup_each + pk_round.max_party() + r1_round.max_party() + r2_round.max_party();
    outln!(
        "  per party {} vs single-party key generation {} (secret, public and relinearization key): {:.2}x",
        ms(per_party_keygen),
        ms(single_keygen),
        per_party_keygen.as_secs_f64() / single_keygen.as_secs_f64()
    );

    // Each party's share of the full assignment (instance || witness): party
    // 0 holds the public part, the witness is split into three random shares.
    let mut z_shares: Vec<Vec<Fr>> = (1..PARTIES)
        .map(|_| {
            (0..assignment.len())
                .map(|i| {
                    if i < num_inputs {
                        Fr::ZERO
                    } else {
                        Fr::rand(&mut rng)
                    }
                })
                .collect()
        })
        .collect();
    let first: Vec<Fr> = (0..assignment.len())
        .map(|i| assignment[i] - z_shares.iter().map(|z| z[i]).sum::<Fr>())
        .collect();
    z_shares.insert(0, first);

    // Parties: their shares of the interpolants A and B, encrypted under the collective key.
    outln!("witness and quotient:");
    let mut encrypted = Vec::new();
    let mut encrypt_times = Vec::new();
    let mut encrypt_bytes = 0;
    for z in &z_shares {
        let (pair, time) = timed(|| -> Result<[EncryptedPolynomial<Fr>; 2]> {
            let [a, b] = evaluation_shares(&matrices, num_inputs, z);
            let ea = EncryptedPolynomial::encrypt(&collective_pk, &domain.ifft(&a), stride)?;
            let eb = EncryptedPolynomial::encrypt(&collective_pk, &domain.ifft(&b), stride)?;
            Ok([ea, eb])
        });
        let pair = pair?;
        encrypt_bytes = pair[0].size_bytes()? + pair[1].size_bytes()?;
        encrypt_times.push(time);
        encrypted.push(pair);
    }
    outln!(
        "  parties: 2 iffts + encrypt A_i, B_i  [{}], {} each",
        encrypt_times
            .iter()
            .map(|t| ms(*t))
            .collect::<Vec<_>>()
            .join(", "),
        kib(encrypt_bytes)
    );

    // Server: sums the shares and computes h = ⌊A·B / X^n⌋, relinearized
    // with the collective key.
    let (h, server_time) = timed(|| -> Result<EncryptedPolynomial<Fr>> {
        let mut ea = encrypted[0][0].add(&encrypted[1][0])?;
        let mut eb = encrypted[0][1].add(&encrypted[1][1])?;
        for pair in &encrypted[2..] {
            ea = ea.add(&pair[0])?;
            eb = eb.add(&pair[1])?;
        }
        let h = EncryptedPolynomial::groth16_quotient(&ea, &eb, n)?;
        Ok(h.relinearize(&collective_rk)?)
    });
    let h = h?;
    outln!(
        "  server: sum, A·B / X^n, relinearize {}  ({} blocks, level {}, budget {:.0} bits, {})",
        ms(server_time),
        h.blocks().len(),
        h.level(),
        h.estimated_budget_bits(),
        kib(h.size_bytes()?)
    );

    // Encryption to shares, block by block: every party ends with additive
    // shares of the block plaintexts, placed by the layout into shares of h.
    let encoder = FieldCoefficientEncoder::<Fr>::new(&context)?;
    let layout = *h.layout();
    let mut h_shares = vec![vec![Fr::ZERO; n]; PARTIES as usize];
    let mut e2s = Round {
        party_time: vec![Duration::ZERO; PARTIES as usize],
        party_bytes: vec![0; PARTIES as usize],
        ..Round::default()
    };
    // The smudging the parties agreed on before the server computed: the
    // product stays at the level of the uploads (the top level), and the
    // width depends on that level alone, never on the noise estimate a block
    // carries.
    let smudging = session.smudging(context.max_level())?;
    for (index, block) in h.blocks().iter().enumerate() {
        let run = 100 + index as u64;
        let mut aggregator = session.ciphertext_aggregator(run, Step::EncryptionToShares, block)?;
        let mut block_shares: Vec<AdditiveShare> = Vec::new();
        let mut wire = Vec::new();
        for p in &parties {
            let (out, time) = timed(|| p.encryption_to_shares(run, block, &smudging));
            let (share, msg) = out?;
            let bytes = msg.to_bytes();
            e2s.party_time[p.index() as usize] += time;
            e2s.party_bytes[p.index() as usize] += bytes.len();
            block_shares.push(share);
            wire.push(bytes);
        }
        let (opening, time) = timed(|| -> Result<helib_rs::Plaintext> {
            for bytes in &wire {
                aggregator.add(&ShareMessage::from_bytes(bytes)?)?;
            }
            Ok(session.open_masked(block, &aggregator.finish()?, &smudging)?)
        });
        let opening = opening?;
        e2s.server_time += time;
        e2s.server_bytes += opening.ring_degree() * 32;
        // The designated party (0) absorbs the public opening.
        let (absorbed, time) = timed(|| block_shares[0].absorb_opening(&opening));
        absorbed?;
        e2s.party_time[0] += time;
        let start = layout.block_exponent(index);
        for (party, share) in block_shares.iter().enumerate() {
            let values = encoder.decode(share.plaintext())?;
            for (j, value) in values.into_iter().take(layout.width).enumerate() {
                let exponent = start + j as i64;
                if let Some(slot) = usize::try_from(exponent).ok().filter(|&e| e < layout.len) {
                    h_shares[party][slot] += value;
                }
            }
        }
    }
    e2s.print("encryption to shares of h");

    // Against one ordinary decryption of a block of the same shape (the
    // single-party key's encryption of the same values).
    let block0 = &h.blocks()[0];
    let reference = single_pk.encrypt_at_level(&encoder.encode(&[Fr::ONE])?, block0.level())?;
    let (_, one_decryption) = timed(|| single_sk.decrypt(&reference));
    let block_smudging = session.smudging(block0.level())?;
    let (_, one_share) = timed(|| parties[1].decryption_share(999, &reference, &block_smudging));
    let (_, one_e2s) = timed(|| parties[1].encryption_to_shares(998, &reference, &block_smudging));
    outln!(
        "  one block: decryption {}, decryption share {} ({:.2}x), encryption-to-shares share {} ({:.2}x)",
        ms(one_decryption),
        ms(one_share),
        one_share.as_secs_f64() / one_decryption.as_secs_f64(),
        ms(one_e2s),
        one_e2s.as_secs_f64() / one_decryption.as_secs_f64()
    );

    // Check: the shares reconstruct ark-groth16's h.
    let plain = LibsnarkReduction::witness_map_from_matrices::<Fr, Domain>(
        &matrices,
        num_inputs,
        num_constraints,
        &assignment,
    )?;
    let reconstructed: Vec<Fr> = (0..n)
        .map(|i| h_shares.iter().map(|s| s[i]).sum())
        .collect();
    let same = reconstructed == plain;
    let revealing = h_shares.contains(&plain);
    outln!("h from the shares equals LibsnarkReduction's: {same}; a single share equals h: {revealing}");

    // Prove with that h (the shares would go to a collaborative prover; here
    // they are summed) and verify.
    let setup_circuit = SquareChain {
        start: None,
        ..circuit.clone()
    };
    let (pk, vk) = Groth16::<Bn254>::circuit_specific_setup(setup_circuit, &mut rng)?;
    let h_for_proof = reconstructed.clone();
    let (proof, prove) = timed(|| {
        ProvidedQuotient::with_quotient(h_for_proof, || {
            Groth16::<Bn254, ProvidedQuotient>::prove(&pk, circuit, &mut rng)
        })
    });
    let proof = proof?;
    let verified = Groth16::<Bn254>::verify(&vk, &[image], &proof)?;
    let rejected = !Groth16::<Bn254>::verify(&vk, &[image + Fr::ONE], &proof)?;
    outln!("prove (with the reconstructed h) {}", ms(prove));
    outln!("wrong public input rejected: {rejected}");
    outln!("verified: {verified}");
    Ok(verified && rejected && same && !revealing)
}
