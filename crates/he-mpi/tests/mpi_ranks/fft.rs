//! The distributed four-step FFT on every rank, against the one-process
//! plan and ark-poly, on its own context (N = 1024, BN254, 19 primes of 60
//! bits, insecure) and so its own cluster.

use std::time::Duration;

use ark_bn254::Fr;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_fft::{FftPlan, FftPlanBuilder, Strategy};
use he_mpi::cost::fft_exchange;
use he_mpi::mpi::topology::SimpleCommunicator;
use he_mpi::{Cluster, DistributedFft, Error, Transport};
use helib_rs::{Ciphertext, Context, Parameters, SecretKey};

/// Eight ciphertexts of N = 1024 slots: with a rank per ciphertext, rank 2's
/// own term of output 2 is a multiple by −1 while rank 1's is by a primitive
/// 4th root, so each output's partials carry their own noise estimates.
const N: usize = 1024;
const CIPHERTEXTS: usize = 8;

/// Runs the FFT checks on a cluster of `comm`'s ranks moving payloads by `transport`.
pub fn checks(comm: SimpleCommunicator, transport: Transport) {
    let params = Parameters::builder()
        .ring_degree(N)
        .plaintext_modulus_from_field::<Fr>()
        .chain_bits(&[60; 19])
        .allow_insecure()
        .build()
        .expect("FFT test parameters");
    let context = Context::new(&params).expect("FFT test context");
    let cluster = Cluster::with_transport(comm, &context, Duration::from_secs(300), transport)
        .expect("cluster");
    let secret = if cluster.rank() == 0 {
        SecretKey::generate(&context)
            .and_then(|sk| sk.export_secret(helib_rs::ExportSecret::IUnderstandTheBytesAreTheKey))
            .expect("a key")
            .to_vec()
    } else {
        Vec::new()
    };
    let secret = cluster.broadcast(0, secret).expect("broadcast");
    let sk = SecretKey::import_secret(&context, &secret).expect("import");
    let size = cluster.size();
    for inverse in [false, true] {
        equals_one_process(&cluster, &sk, inverse);
        if cluster.rank() == 0 {
            let which = if inverse { "inverse" } else { "forward" };
            println!("{size} ranks, {transport:?}: the {which} FFT over {CIPHERTEXTS} ciphertexts equals the one-process plan and ark-poly, bytes as modelled ... ok");
        }
    }
    refusals(&cluster, &sk);
    if cluster.rank() == 0 {
        println!("{size} ranks, {transport:?}: one-ciphertext plans, wrong input counts and plans without a rank's groups are refused on every rank ... ok");
    }
}

/// The builder of the plan over four ciphertexts, forward or inverse.
fn builder(context: &Context, inverse: bool) -> FftPlanBuilder<Fr> {
    let builder = FftPlan::<Fr>::builder(context, CIPHERTEXTS * N)
        .strategy(Strategy::Factored { levels: Some(2) });
    if inverse {
        builder.inverse()
    } else {
        builder
    }
}

/// The whole plan over four ciphertexts, forward or inverse.
fn plan(context: &Context, inverse: bool) -> FftPlan<Fr> {
    builder(context, inverse).build().expect("a four-step plan")
}

fn equals_one_process(cluster: &Cluster, sk: &SecretKey, inverse: bool) {
    let context = cluster.context();
    let plan = plan(context, inverse);
    // Each rank runs with only its groups' own levels, and the keys that
    // part names are the whole plan's.
    let mine = DistributedFft::build_plan(builder(context, inverse), cluster).expect("my part");
    assert_eq!(
        mine.held_groups(),
        cluster.partition().range(CIPHERTEXTS, cluster.rank())
    );
    let (ours, whole) = (mine.memory_estimate(), plan.memory_estimate());
    assert_eq!(ours.plan_bytes < whole.plan_bytes, cluster.size() > 1);
    let keys = mine.generate_galois_keys(sk).expect("Galois keys");
    let values = super::random(if inverse { 52 } else { 51 }, plan.len());
    // Rank 0 encrypts; every rank loads the same input ciphertexts.
    let inputs = shared_inputs(cluster, &plan, sk, &values);
    let fft = DistributedFft::new(&mine, cluster).expect("spread");
    let local = &inputs[fft.local_range()];
    let before = cluster.traffic();
    let outputs = fft.execute(cluster, local, &keys).expect("execute");
    let after = cluster.traffic();
    assert_eq!(outputs.len(), fft.local_range().len());

    let parts = plan.four_step().expect("four-step");
    let model = fft_exchange(
        N,
        parts.across_level() + 1,
        CIPHERTEXTS,
        &cluster.partition(),
        cluster.rank(),
    );
    assert_eq!(after.bytes_sent - before.bytes_sent, model.bytes_sent);
    assert_eq!(
        after.bytes_received - before.bytes_received,
        model.bytes_received
    );
    assert_eq!(after.exchanges - before.exchanges, model.exchanges);

    let gathered = fft.gather(0, cluster, &outputs).expect("gather");
    if let Some(all) = gathered {
        let one = plan.execute(&inputs, &keys).expect("one process");
        // Sums formed in another order may bound their noise a few bits
        // apart, never by a term's scalar (hundreds of bits for BN254).
        let slack = (CIPHERTEXTS as f64).log2() + 1.0;
        for (x, y) in all.iter().zip(&one) {
            assert_eq!((x.level(), x.size()), (y.level(), y.size()));
            assert_eq!(sk.decrypt(x).unwrap(), sk.decrypt(y).unwrap());
            assert!(
                (x.noise_estimate_bits() - y.noise_estimate_bits()).abs() <= slack,
                "noise estimates {} and {} bits",
                x.noise_estimate_bits(),
                y.noise_estimate_bits()
            );
        }
        let domain = Radix2EvaluationDomain::<Fr>::new(plan.len()).unwrap();
        let expected = if inverse {
            domain.ifft(&values)
        } else {
            domain.fft(&values)
        };
        assert_eq!(plan.decrypt(sk, &all).expect("decrypt"), expected);
    }
}

/// The plan's input ciphertexts of `values`, encrypted on rank 0 and
/// loaded by every rank.
fn shared_inputs(
    cluster: &Cluster,
    plan: &FftPlan<Fr>,
    sk: &SecretKey,
    values: &[Fr],
) -> Vec<Ciphertext> {
    let pk = sk.public_key().expect("pk");
    let encrypted = (cluster.rank() == 0).then(|| plan.encrypt(&pk, values).expect("encrypt"));
    (0..plan.ciphertexts())
        .map(|i| {
            let bytes = encrypted
                .as_ref()
                .map(|cts| cts[i].to_bytes().expect("bytes"))
                .unwrap_or_default();
            let bytes = cluster.broadcast(0, bytes).expect("broadcast");
            Ciphertext::from_bytes(cluster.context(), &bytes).expect("load")
        })
        .collect()
}

fn refusals(cluster: &Cluster, sk: &SecretKey) {
    let context = cluster.context();
    let one = FftPlan::<Fr>::builder(context, N)
        .build()
        .expect("a one-ciphertext plan");
    let Err(err) = DistributedFft::new(&one, cluster) else {
        panic!("a one-ciphertext plan was spread");
    };
    assert!(matches!(err, Error::RankCount { .. }), "{err}");
    let Err(err) = DistributedFft::build_plan(FftPlan::<Fr>::builder(context, N), cluster) else {
        panic!("a one-ciphertext plan was split");
    };
    assert!(matches!(err, Error::RankCount { .. }), "{err}");

    let plan = plan(context, false);
    let keys = plan.generate_galois_keys(sk).expect("Galois keys");
    let inputs = shared_inputs(cluster, &plan, sk, &super::random(53, plan.len()));
    let fft = DistributedFft::new(&plan, cluster).expect("spread");
    // Rank 0 passes one input too many (or too few); every rank fails.
    let range = fft.local_range();
    let local = if cluster.rank() == 0 {
        if range.end < CIPHERTEXTS {
            &inputs[range.start..range.end + 1]
        } else {
            &inputs[range.start + 1..range.end]
        }
    } else {
        &inputs[range]
    };
    let Err(err) = fft.execute(cluster, local, &keys) else {
        panic!("a wrong number of inputs was accepted");
    };
    refused_by_rank_0(cluster, &err);

    // Rank 0's plan holds another rank's groups (or too few of its own).
    let range = fft.local_range();
    let groups = if cluster.rank() != 0 {
        range.clone()
    } else if range.end < CIPHERTEXTS {
        range.end..range.end + 1
    } else {
        range.start..range.start + 1
    };
    let partial = builder(context, false)
        .only_groups(groups)
        .build()
        .expect("a plan of some groups");
    let fft = DistributedFft::new(&partial, cluster).expect("spread");
    let Err(err) = fft.execute(cluster, &inputs[range], &keys) else {
        panic!("a plan without the rank's groups ran");
    };
    refused_by_rank_0(cluster, &err);
}

/// `err` names rank 0's mismatch there and rank 0 elsewhere.
fn refused_by_rank_0(cluster: &Cluster, err: &Error) {
    if cluster.rank() == 0 {
        assert!(matches!(err, Error::DistributionMismatch(_)), "{err}");
    } else {
        assert!(matches!(err, Error::RankFailed { rank: 0, .. }), "{err}");
    }
}
