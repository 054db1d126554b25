//! Criterion benches of cached encryption (crate `he-cache`): per-message
//! encryption time of fresh public-key encryption, Rache, Smuche and the
//! secure pool's online step, the pool's offline cost, and the scaling
//! shapes of the Smuche paper (Rache: time vs pivots; Smuche: time vs messages).
//!
//! Parameter sets, all ≥ 128-bit secure, from `he_cache::params::cached_encryption`
//! (chain sized for a fresh encryption plus one full-size scalar product, no
//! special primes since encryption needs no key switching), engine threads = 1:
//! - N = 2^13 and N = 2^14 with t = 65537 (BN254 does not fit N = 2^13 at 128 bits);
//! - N = 2^15 and N = 2^16 with t = BN254 Fr.
//!
//! Messages are uniform in [0, t) (seeded): the worst case for Smuche's
//! noise, and all radix digits in use for Rache. Run with
//! `cargo bench --bench cache`; filter with e.g. `cargo bench --bench cache -- per_message`.

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use std::sync::Arc;
use std::time::Duration;

use ark_ff::PrimeField;
use criterion::measurement::WallTime;
use criterion::{
    criterion_group, criterion_main, BatchSize, BenchmarkGroup, BenchmarkId, Criterion,
};
use he_cache::{
    params, Encryptor, Engine, FreshEncryptor, InsecureRache, InsecureSmuche, Prepared, Radix,
};
use helib_rs::{Context, SecretKey};
use num_bigint::BigUint;
use rand::{rngs::StdRng, RngCore, SeedableRng};

/// One parameter set with its keys and seeded messages.
struct Setup {
    label: String,
    engine: Engine,
    values: Vec<BigUint>,
}

impl Setup {
    fn new(log_n: u32, t: BigUint) -> Self {
        let scalar_bits = t.bits() as u32;
        let params = params::cached_encryption(1 << log_n, t.clone(), scalar_bits)
            .threads(1)
            .build()
            .expect("the bench parameters are 128-bit secure");
        let context = Context::new(&params).expect("context");
        let sk = SecretKey::generate(&context).expect("secret key");
        let engine = Engine::new(Arc::new(sk.public_key().expect("public key")));
        let log_q = context.log2_modulus(context.max_level()).unwrap_or(0.0);
        let t_name = if t.bits() > 64 {
            "BN254".to_string()
        } else {
            t.to_string()
        };
        let mut rng = StdRng::seed_from_u64(u64::from(log_n));
        let values = (0..64).map(|_| random_below(&mut rng, &t)).collect();
        Self {
            label: format!("N=2^{log_n}/t={t_name}/logQ={log_q:.0}"),
            engine,
            values,
        }
    }

    fn context(&self) -> &Context {
        self.engine.context()
    }
}

fn random_below(rng: &mut StdRng, t: &BigUint) -> BigUint {
    let mut bytes = vec![0u8; (t.bits() as usize).div_ceil(8) + 8];
    rng.fill_bytes(&mut bytes);
    BigUint::from_bytes_le(&bytes) % t
}

fn setups() -> Vec<Setup> {
    let bn254: BigUint = ark_bn254::Fr::MODULUS.into();
    let t65537 = BigUint::from(65537u32);
    vec![
        Setup::new(13, t65537.clone()),
        Setup::new(14, t65537),
        Setup::new(15, bn254.clone()),
        Setup::new(16, bn254),
    ]
}

fn configure(group: &mut BenchmarkGroup<'_, WallTime>) {
    group
        .sample_size(10)
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(2));
}

/// Encrypts the setup's values round-robin, one per iteration.
fn bench_encryptor(
    group: &mut BenchmarkGroup<'_, WallTime>,
    setup: &Setup,
    encryptor: &dyn Encryptor,
) {
    let mut next = setup.values.iter().cycle();
    group.bench_function(BenchmarkId::new(encryptor.name(), &setup.label), |b| {
        b.iter(|| {
            encryptor
                .encrypt_value(next.next().expect("cycle"))
                .expect("encrypt")
        })
    });
}

/// The pool's online step alone: one prepared item (made outside the timing)
/// plus the message. `SecurePool::encrypt_value` adds only a queue pop.
fn bench_pool_online(group: &mut BenchmarkGroup<'_, WallTime>, setup: &Setup) {
    let engine = &setup.engine;
    let mut next = setup.values.iter().cycle();
    group.bench_function(BenchmarkId::new("pool-online", &setup.label), |b| {
        b.iter_batched(
            || Prepared::new(engine).expect("offline item"),
            |item| {
                item.encrypt(engine, next.next().expect("cycle"))
                    .expect("online")
            },
            BatchSize::PerIteration,
        )
    });
}

/// Per-message times of every encryptor at every ring size.
fn per_message(c: &mut Criterion) {
    let mut group = c.benchmark_group("per_message");
    configure(&mut group);
    for setup in setups() {
        let pk = setup.engine.public_key().clone();
        let t = setup.context().plaintext_modulus().clone();
        bench_encryptor(&mut group, &setup, &FreshEncryptor::new(pk));
        for radix in [16u64, 1 << 16] {
            let radix = Radix::covering(radix, &t).expect("radix");
            let rache = InsecureRache::new(setup.engine.clone(), radix).expect("rache");
            bench_encryptor(&mut group, &setup, &rache);
        }
        let smuche = InsecureSmuche::new(setup.engine.clone(), Radix::new(10, 1).expect("radix"))
            .expect("smuche");
        bench_encryptor(&mut group, &setup, &smuche);
        bench_pool_online(&mut group, &setup);
        // The offline cost of one pool item: a fresh encryption of zero.
        group.bench_function(BenchmarkId::new("pool-offline-item", &setup.label), |b| {
            b.iter(|| Prepared::new(&setup.engine).expect("offline item"))
        });
    }
    group.finish();
}

/// Rache's time per message against its pivot count (radix 2, as in the
/// Smuche paper's Table 1), at N = 2^14, t = 65537: linear in k.
fn rache_pivots(c: &mut Criterion) {
    let mut group = c.benchmark_group("rache_pivots");
    configure(&mut group);
    let setup = Setup::new(14, BigUint::from(65537u32));
    for pivots in [4usize, 8, 16, 32, 64] {
        let radix = Radix::new(2, pivots).expect("radix");
        let rache = InsecureRache::new(setup.engine.clone(), radix).expect("rache");
        let bound = BigUint::from(65537u32).min(BigUint::from(1u32) << pivots);
        let values: Vec<BigUint> = setup.values.iter().map(|v| v % &bound).collect();
        let mut next = values.iter().cycle();
        group.bench_function(BenchmarkId::new("rache(r=2)", format!("k={pivots}")), |b| {
            b.iter(|| {
                rache
                    .encrypt_value(next.next().expect("cycle"))
                    .expect("encrypt")
            })
        });
    }
    group.finish();
}

/// Smuche's total time against the number of messages (40..120, as in the
/// paper's Table 2), at N = 2^14, t = 65537: linear, constant per message.
fn smuche_messages(c: &mut Criterion) {
    let mut group = c.benchmark_group("smuche_messages");
    configure(&mut group);
    let setup = Setup::new(14, BigUint::from(65537u32));
    let smuche = InsecureSmuche::new(setup.engine.clone(), Radix::new(10, 1).expect("radix"))
        .expect("smuche");
    for messages in [40usize, 60, 80, 100, 120] {
        let values: Vec<BigUint> = setup
            .values
            .iter()
            .cycle()
            .take(messages)
            .cloned()
            .collect();
        group.bench_function(
            BenchmarkId::new("smuche", format!("messages={messages}")),
            |b| b.iter(|| smuche.encrypt_values(&values).expect("encrypt")),
        );
    }
    group.finish();
}

criterion_group!(benches, per_message, rache_pivots, smuche_messages);
criterion_main!(benches);
