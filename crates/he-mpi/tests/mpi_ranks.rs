//! The distributed products and FFTs on every rank of an MPI job, against
//! the one-process results. Run under `mpirun -np R` (R = 1, 2, 4; scripts/test-mpi.sh);
//! run alone it is a job of one rank. Each check runs on all ranks; a
//! failing check ends the job with status 1 (MPI_Abort), so no rank waits.

use std::time::Duration;

use ark_bn254::Fr;
use ark_ff::UniformRand;
use ark_poly::univariate::DensePolynomial;
use ark_poly::DenseUVPolynomial;
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use he_mpi::cost::{rank_cost, ProductShape};
use he_mpi::mpi::topology::{Communicator, SimpleCommunicator};
use he_mpi::{Cluster, DistributedPolynomial, Error, Transport};
use he_poly::EncryptedPolynomial;
use helib_rs::{Ciphertext, Context, Parameters, PublicKey, SecretKey};
use rand::{rngs::StdRng, SeedableRng};

#[path = "mpi_ranks/fft.rs"]
mod fft;

/// N = 4096: blocks of 2048 coefficients.
const STRIDE: usize = 2048;

/// A named check run on every rank.
type Check = (&'static str, fn(&Job<'_>));

struct Job<'k> {
    cluster: Cluster,
    sk: &'k SecretKey,
    pk: &'k PublicKey,
}

fn main() {
    let universe = he_mpi::mpi::initialize().expect("MPI initializes once");
    // A panic anywhere ends the whole job at once (unwinding would reach
    // MPI_Finalize, which waits for the other ranks).
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        default_hook(info);
        // SAFETY: MPI is initialized; MPI_Abort on the world communicator
        // ends every rank and does not return.
        unsafe { he_mpi::mpi::ffi::MPI_Abort(he_mpi::mpi::ffi::RSMPI_COMM_WORLD, 1) };
    }));
    let world = universe.world();
    let rank = world.rank() as usize;
    let size = world.size() as usize;
    let checks: [Check; 7] = [
        (
            "products equal the one-process ciphertexts",
            products_equal_one_process,
        ),
        (
            "the Groth16 quotient equals the one-process result",
            quotient_equals_one_process,
        ),
        (
            "the bytes exchanged are the cost model's",
            bytes_match_the_model,
        ),
        ("sums and scalar products stay local", sums_are_local),
        (
            "corrupted residues fail on every rank, naming the ranks",
            corruption_is_named,
        ),
        (
            "a layout with fewer blocks than ranks is refused",
            too_few_blocks_are_refused,
        ),
        (
            "a polynomial scattered from one rank is the one spread from every rank's copy",
            scatter_spreads_the_roots_polynomial,
        ),
    ];
    // Keys once per job: made on rank 0, the secret key exported to all
    // ranks only because the tests compare on every rank.
    let params = test_parameters();
    let context = Context::new(&params).expect("test context");
    let secret = if rank == 0 {
        let sk = SecretKey::generate(&context).expect("key");
        sk.export_secret(helib_rs::ExportSecret::IUnderstandTheBytesAreTheKey)
            .expect("export")
            .to_vec()
    } else {
        Vec::new()
    };
    let secret = Cluster::broadcast_over(&world, 0, secret).expect("broadcast");
    let sk = SecretKey::import_secret(&context, &secret).expect("import");
    let pk_bytes = if rank == 0 {
        sk.public_key().expect("pk").to_bytes().expect("bytes")
    } else {
        Vec::new()
    };
    let pk_bytes = Cluster::broadcast_over(&world, 0, pk_bytes).expect("broadcast");
    let pk = PublicKey::from_bytes(&context, &pk_bytes).expect("pk");
    if std::env::args().any(|a| a == "--lose-rank") {
        lose_a_rank(world, &context, &pk);
    }
    // One rank per ciphertext of the FFT (8), where some rank's own terms of
    // an output are ±1 and a peer's are not.
    if std::env::args().any(|a| a == "--fft-only") {
        fft::checks(world.duplicate(), Transport::SharedMemoryOnNode);
        return;
    }
    mismatched_parameters_are_refused(&world, rank, size);
    mismatched_transports_are_refused(&world, &context);
    // Every check under each transport: payloads read in place from shared
    // memory (all ranks here are on one node), in messages, and both at
    // once (groups of 2 ranks share memory, the groups exchange messages).
    for transport in TRANSPORTS {
        fft::checks(world.duplicate(), transport);
        let job = Job {
            cluster: cluster(&world, &context, transport),
            sk: &sk,
            pk: &pk,
        };
        assert_eq!(
            job.cluster.shared_memory_peers(),
            expected_peers(transport, rank, size)
        );
        for (name, check) in checks {
            check(&job);
            job.cluster.barrier().expect("barrier");
            if rank == 0 {
                println!("{size} ranks, {transport:?}: {name} ... ok");
            }
        }
    }
}

const TRANSPORTS: [Transport; 3] = [
    Transport::SharedMemoryOnNode,
    Transport::Messages,
    Transport::SharedMemoryInGroupsOf(2),
];

fn cluster(world: &SimpleCommunicator, context: &Context, transport: Transport) -> Cluster {
    Cluster::with_transport(
        world.duplicate(),
        context,
        Duration::from_secs(300),
        transport,
    )
    .expect("cluster")
}

/// The ranks `rank` shares memory with under `transport` when every rank
/// runs on this machine.
fn expected_peers(transport: Transport, rank: usize, size: usize) -> Vec<usize> {
    let group = match transport {
        Transport::Messages => return Vec::new(),
        Transport::SharedMemoryOnNode => size,
        Transport::SharedMemoryInGroupsOf(k) => k,
    };
    let first = rank / group * group;
    (first..(first + group).min(size))
        .filter(|&r| r != rank)
        .collect()
}

/// Rank 1 asks for messages where the others share memory: every rank's
/// cluster refuses, naming rank 1.
fn mismatched_transports_are_refused(world: &SimpleCommunicator, context: &Context) {
    if world.size() < 2 {
        return;
    }
    let transport = if world.rank() == 1 {
        Transport::Messages
    } else {
        Transport::SharedMemoryOnNode
    };
    let err = Cluster::with_transport(
        world.duplicate(),
        context,
        Duration::from_secs(300),
        transport,
    )
    .unwrap_err();
    assert!(
        err.to_string().contains("rank 1 chose another transport"),
        "{err}"
    );
    if world.rank() == 0 {
        println!(
            "{} ranks: mismatched transports are refused, naming the rank ... ok",
            world.size()
        );
    }
}

/// N = 4096, t = BN254, a chain for one product of up to 8 blocks a side
/// (insecure: tests only).
fn test_parameters() -> Parameters {
    let t: num_bigint::BigUint = <Fr as ark_ff::PrimeField>::MODULUS.into();
    let chain = helib_rs::noise::product_chain_bits(4096, &t, 1, 8);
    Parameters::builder()
        .ring_degree(4096)
        .plaintext_modulus(t)
        .chain_bits(&chain)
        .special_bits(&[])
        .allow_insecure()
        .build()
        .expect("test parameters")
}

/// Polynomials every rank knows: rank 0 encrypts them, every rank loads the bytes.
fn shared(job: &Job, coefficients: &[Fr]) -> EncryptedPolynomial<Fr> {
    let bytes = if job.cluster.rank() == 0 {
        EncryptedPolynomial::encrypt(job.pk, coefficients, STRIDE)
            .unwrap()
            .to_bytes()
            .unwrap()
    } else {
        Vec::new()
    };
    let bytes = job.cluster.broadcast(0, bytes).unwrap();
    EncryptedPolynomial::from_bytes(job.cluster.context(), &bytes).unwrap()
}

fn random(seed: u64, len: usize) -> Vec<Fr> {
    let mut rng = StdRng::seed_from_u64(seed);
    (0..len).map(|_| Fr::rand(&mut rng)).collect()
}

/// Every block's residues, for exact comparison.
fn residues(blocks: &[Ciphertext]) -> Vec<Vec<u64>> {
    let mut out = Vec::new();
    for block in blocks {
        for part in 0..block.size() {
            for prime in 0..=block.level() {
                out.push(block.residues(part, prime).unwrap());
            }
        }
    }
    out
}

fn same_as_one_process(
    job: &Job,
    distributed: &DistributedPolynomial<Fr>,
    one: &EncryptedPolynomial<Fr>,
) {
    let gathered = distributed.gather(0, &job.cluster).unwrap();
    if let Some(gathered) = gathered {
        assert_eq!(gathered.layout(), one.layout());
        assert_eq!(residues(gathered.blocks()), residues(one.blocks()));
        for (x, y) in gathered.blocks().iter().zip(one.blocks()) {
            assert_eq!(x.correction_factor(), y.correction_factor());
            assert_eq!((x.level(), x.size()), (y.level(), y.size()));
        }
        assert_eq!(
            gathered.decrypt(job.sk).unwrap(),
            one.decrypt(job.sk).unwrap()
        );
    }
    let decrypted = distributed
        .decrypt_at_root(0, Some(job.sk), &job.cluster)
        .unwrap();
    if let Some(decrypted) = decrypted {
        assert_eq!(decrypted, one.decrypt(job.sk).unwrap());
    }
}

fn products_equal_one_process(job: &Job) {
    let c = &job.cluster;
    // 5 and 4 blocks: 8 product blocks, a transform of length 8.
    let (a, b) = (random(1, 4 * STRIDE + 100), random(2, 4 * STRIDE));
    let (wa, wb) = (shared(job, &a), shared(job, &b));
    let (da, db) = (
        DistributedPolynomial::from_whole(c, &wa).unwrap(),
        DistributedPolynomial::from_whole(c, &wb).unwrap(),
    );
    same_as_one_process(job, &da.mul(&db, c).unwrap(), &wa.mul(&wb).unwrap());
    let cut = 3 * STRIDE + 17;
    same_as_one_process(
        job,
        &da.mul_high(&db, cut, c).unwrap(),
        &wa.mul_high(&wb, cut).unwrap(),
    );
    // A plaintext of 2 blocks (fewer than 4 ranks: plaintext blocks need not cover the ranks).
    let p = random(3, STRIDE + 5);
    same_as_one_process(
        job,
        &da.mul_plain(&p, c).unwrap(),
        &wa.mul_plain(&p).unwrap(),
    );
    // Encrypted on each rank: decrypts to the plain product.
    let ea = DistributedPolynomial::encrypt(c, job.pk, &a, STRIDE).unwrap();
    let product = ea
        .mul_plain(&p, c)
        .unwrap()
        .decrypt_at_root(0, Some(job.sk), c)
        .unwrap();
    if let Some(product) = product {
        let poly = DensePolynomial::from_coefficients_slice;
        let expected = (&poly(&a) * &poly(&p)).coeffs;
        assert_eq!(product, expected);
    }
}

/// Interpolants of a valid witness over n points.
fn interpolants(seed: u64, n: usize) -> (Vec<Fr>, Vec<Fr>, Vec<Fr>) {
    let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
    let (a, b) = (random(seed, n), random(seed + 1, n));
    let c: Vec<Fr> = a.iter().zip(&b).map(|(x, y)| *x * y).collect();
    (domain.ifft(&a), domain.ifft(&b), domain.ifft(&c))
}

fn quotient_equals_one_process(job: &Job) {
    let c = &job.cluster;
    let n = 1 << 13; // 4 blocks a side
    let (ia, ib, ic) = interpolants(7, n);
    let (wa, wb) = (shared(job, &ia), shared(job, &ib));
    let one = EncryptedPolynomial::groth16_quotient(&wa, &wb, n).unwrap();
    let da = DistributedPolynomial::from_whole(c, &wa).unwrap();
    let db = DistributedPolynomial::from_whole(c, &wb).unwrap();
    let h = DistributedPolynomial::groth16_quotient(&da, &db, n, c).unwrap();
    same_as_one_process(job, &h, &one);
    // And h is the quotient in the clear (ark-poly's, by FFTs).
    if let Some(h) = h.decrypt_at_root(0, Some(job.sk), c).unwrap() {
        let domain = Radix2EvaluationDomain::<Fr>::new(n).unwrap();
        let evaluations = [&ia, &ib, &ic].map(|v| domain.fft(v));
        let plain = example_support::plain_groth16_quotient(
            &domain,
            &evaluations[0],
            &evaluations[1],
            &evaluations[2],
        );
        assert_eq!(h[..], plain[..n - 1]);
    }
}

fn bytes_match_the_model(job: &Job) {
    let c = &job.cluster;
    let n = 1 << 13;
    let (ia, ib, _) = interpolants(9, n);
    let da = DistributedPolynomial::encrypt(c, job.pk, &ia, STRIDE).unwrap();
    let db = DistributedPolynomial::encrypt(c, job.pk, &ib, STRIDE).unwrap();
    let before = c.traffic();
    DistributedPolynomial::groth16_quotient(&da, &db, n, c).unwrap();
    let after = c.traffic();
    let primes = da.local_blocks()[0].level() + 1;
    let shape =
        ProductShape::groth16_quotient(c.context().ring_degree(), primes, n, STRIDE).unwrap();
    let model = rank_cost(&shape, &c.partition(), c.rank());
    assert_eq!(after.bytes_sent - before.bytes_sent, model.bytes_sent);
    assert_eq!(
        after.bytes_received - before.bytes_received,
        model.bytes_received
    );
    assert_eq!(after.exchanges - before.exchanges, model.exchanges);
}

fn sums_are_local(job: &Job) {
    let c = &job.cluster;
    let (a, b) = (random(11, 4 * STRIDE), random(12, 4 * STRIDE - 3));
    let (wa, wb) = (shared(job, &a), shared(job, &b));
    let da = DistributedPolynomial::from_whole(c, &wa).unwrap();
    let db = DistributedPolynomial::from_whole(c, &wb).unwrap();
    let before = c.traffic();
    let sum = da
        .add(&db)
        .unwrap()
        .sub(&da.mul_scalar(Fr::from(3u64)).unwrap())
        .unwrap();
    assert_eq!(c.traffic(), before);
    let expected = wa
        .add(&wb)
        .unwrap()
        .sub(&wa.mul_scalar(Fr::from(3u64)).unwrap())
        .unwrap();
    same_as_one_process(job, &sum, &expected);
}

fn corruption_is_named(job: &Job) {
    let c = &job.cluster;
    if c.size() < 2 {
        return;
    }
    let (a, b) = (random(21, 4 * STRIDE), random(22, 4 * STRIDE));
    let da = DistributedPolynomial::encrypt(c, job.pk, &a, STRIDE).unwrap();
    let db = DistributedPolynomial::encrypt(c, job.pk, &b, STRIDE).unwrap();
    // The operands a and b, checked on arrival, and the result rows,
    // checked as they are written into the blocks.
    for skip in 0..3 {
        if c.rank() == 0 {
            c.corrupt_exchange(skip);
        }
        let err = da.mul(&db, c).unwrap_err();
        match &err {
            Error::Corrupted {
                sender, receiver, ..
            } => assert_eq!((*sender, *receiver), (0, 1), "exchange {skip}"),
            other => panic!("expected a corruption error in exchange {skip}, got {other}"),
        }
        let text = err.to_string();
        assert!(
            text.contains("rank 1 received corrupted residues from rank 0"),
            "{text}"
        );
    }
    // The job goes on: the next product is fine.
    da.mul(&db, c).unwrap();
}

fn too_few_blocks_are_refused(job: &Job) {
    let c = &job.cluster;
    if c.size() < 2 {
        return;
    }
    let short = random(31, STRIDE); // one block
    let err = DistributedPolynomial::encrypt(c, job.pk, &short, STRIDE).unwrap_err();
    assert!(matches!(err, Error::RankCount { .. }), "{err}");
    assert!(err.to_string().contains("fewer than the ranks"), "{err}");
}

fn scatter_spreads_the_roots_polynomial(job: &Job) {
    let c = &job.cluster;
    let root = c.size() - 1;
    let whole = shared(job, &random(41, 4 * STRIDE - 5));
    let mine = (c.rank() == root).then_some(&whole);
    let scattered = DistributedPolynomial::scatter(root, mine, c).unwrap();
    let spread = DistributedPolynomial::from_whole(c, &whole).unwrap();
    assert_eq!(scattered.layout(), spread.layout());
    assert_eq!(scattered.block_count(), spread.block_count());
    assert_eq!(
        residues(scattered.local_blocks()),
        residues(spread.local_blocks())
    );
    for (x, y) in scattered.local_blocks().iter().zip(spread.local_blocks()) {
        assert_eq!(x.correction_factor(), y.correction_factor());
        assert_eq!(x.noise_estimate_bits(), y.noise_estimate_bits());
    }
    // The root passes nothing, or another rank passes its copy too: every
    // rank fails, naming the one at fault.
    let faulty = 0;
    let cases: [(Option<&EncryptedPolynomial<Fr>>, usize); 2] = [
        (None, root),
        (
            (c.rank() == faulty || c.rank() == root).then_some(&whole),
            faulty,
        ),
    ];
    for (passed, at_fault) in cases {
        if at_fault == root && passed.is_some() {
            continue; // one rank: the second case is the valid call
        }
        let err = DistributedPolynomial::scatter(root, passed, c).unwrap_err();
        if c.rank() == at_fault {
            assert!(matches!(err, Error::Poly(_)), "{err}");
        } else {
            assert!(
                matches!(err, Error::RankFailed { rank, .. } if rank == at_fault),
                "{err}"
            );
        }
    }
}

/// The drill of scripts/test-mpi.sh: rank 1 exits without a word just
/// before a product, the others enter it. The job must end (Open MPI ends
/// it when a rank exits without MPI_Finalize; the watchdog, at 30 s here,
/// if nothing else does) with a non-zero status naming rank 1.
fn lose_a_rank(
    world: he_mpi::mpi::topology::SimpleCommunicator,
    context: &Context,
    pk: &PublicKey,
) -> ! {
    let cluster = Cluster::with_timeout(world, context, Duration::from_secs(30)).expect("cluster");
    let a = DistributedPolynomial::encrypt(&cluster, pk, &random(41, 4 * STRIDE), STRIDE)
        .expect("encrypt");
    if cluster.rank() == 1 {
        eprintln!("rank 1: leaving the job on purpose");
        std::process::exit(9);
    }
    let outcome = a.mul(&a, &cluster);
    eprintln!(
        "rank {}: the product returned {:?}",
        cluster.rank(),
        outcome.map(|_| ())
    );
    cluster.abort(1)
}

/// Rank 1 builds its context from other parameters: every rank's `Cluster::new` names it.
fn mismatched_parameters_are_refused(
    world: &he_mpi::mpi::topology::SimpleCommunicator,
    rank: usize,
    size: usize,
) {
    if size < 2 {
        return;
    }
    let params = if rank == 1 {
        helib_rs::Parameters::builder()
            .ring_degree(4096)
            .plaintext_modulus_from_field::<Fr>()
            .chain_bits(&helib_rs::noise::product_chain_bits(
                4096,
                &<Fr as ark_ff::PrimeField>::MODULUS.into(),
                1,
                2,
            ))
            .special_bits(&[])
            .allow_insecure()
            .build()
            .unwrap()
    } else {
        test_parameters()
    };
    let context = Context::new(&params).unwrap();
    let comm = world.duplicate();
    let err = Cluster::with_timeout(comm, &context, Duration::from_secs(300)).unwrap_err();
    assert!(matches!(err, Error::ParameterMismatch { rank: 1 }), "{err}");
    if rank == 0 {
        println!("{size} ranks: mismatched parameters are refused, naming the rank ... ok");
    }
}
