//! A party's multi-scalar multiplications: [`he_cosnark::msm::msm`]
//! (batched affine additions) against ark-ec's `msm_unchecked` on the same
//! full-size random scalars (a witness share's), in G1 at 2^16 and 2^17
//! points (a 2^17-domain circuit's A, B and C queries and its H query) and
//! in G2 at 2^16.
//!
//! ```text
//! cargo bench -p he-cosnark --bench msm
//! ```

#![allow(missing_docs)] // criterion_group! generates an undocumented public function.

use std::time::Duration;

use ark_bn254::{G1Projective, G2Projective};
use ark_ec::{CurveGroup, VariableBaseMSM};
use ark_ff::UniformRand;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use he_cosnark::msm::BatchedMsm;
use rand::SeedableRng;

/// `n` random points (doubled from a few, which is cheap to make and as
/// good as any for the sums) and random scalars.
fn inputs<G: CurveGroup>(n: usize) -> (Vec<G::Affine>, Vec<G::ScalarField>) {
    let mut rng = rand_chacha::ChaCha20Rng::seed_from_u64(7);
    let mut point = G::rand(&mut rng);
    let points: Vec<G> = (0..n)
        .map(|_| {
            point.double_in_place();
            point += G::generator();
            point
        })
        .collect();
    let scalars = (0..n).map(|_| G::ScalarField::rand(&mut rng)).collect();
    (G::normalize_batch(&points), scalars)
}

fn group<G: BatchedMsm + VariableBaseMSM>(c: &mut Criterion, name: &str, sizes: &[usize]) {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(20));
    for &n in sizes {
        let (bases, scalars) = inputs::<G>(n);
        group.bench_with_input(BenchmarkId::new("ark-ec", n), &n, |b, _| {
            b.iter(|| G::msm_unchecked(&bases, &scalars))
        });
        group.bench_with_input(BenchmarkId::new("batched affine", n), &n, |b, _| {
            b.iter(|| G::batched_msm(&bases, &scalars))
        });
    }
    group.finish();
}

fn msm(c: &mut Criterion) {
    group::<G1Projective>(c, "msm G1", &[1 << 16, 1 << 17]);
    group::<G2Projective>(c, "msm G2", &[1 << 16]);
}

criterion_group!(benches, msm);
criterion_main!(benches);
