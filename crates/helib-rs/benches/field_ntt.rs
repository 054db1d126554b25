//! Criterion benches of the size-2^16 inverse coset transform over BN254 Fr
//! (one diagonal of an encrypted-FFT plan): arkworks' coset IFFT against the
//! engine's [`FieldNtt`] with its portable and its AVX-512 IFMA kernel (on
//! canonical limbs), and [`SlotLayout::slots_to_coefficients`] end to end
//! (slot permutation and field-element conversions included).
//!
//! `cargo bench -p helib-rs --bench field_ntt`

// criterion_group! generates an undocumented public function.
#![allow(missing_docs)]

use ark_bn254::Fr;
use ark_ff::{BigInteger, PrimeField};
use ark_poly::{EvaluationDomain, Radix2EvaluationDomain};
use ark_std::UniformRand;
use criterion::{criterion_group, criterion_main, Criterion};
use helib_rs::{FieldNtt, FieldNttKernel, SlotLayout};
use std::time::Duration;

const N: usize = 1 << 16;

fn limbs<B: BigInteger>(value: &B) -> [u64; 4] {
    let mut out = [0u64; 4];
    for (o, &l) in out.iter_mut().zip(value.as_ref()) {
        *o = l;
    }
    out
}

fn bench_inverse(c: &mut Criterion) {
    let mut rng = ark_std::test_rng();
    let values: Vec<Fr> = (0..N).map(|_| Fr::rand(&mut rng)).collect();
    let psi = Radix2EvaluationDomain::<Fr>::new(2 * N)
        .unwrap()
        .group_gen();
    let coset = Radix2EvaluationDomain::<Fr>::new(N)
        .unwrap()
        .get_coset(psi)
        .unwrap();
    let ntt = FieldNtt::new(limbs(&Fr::MODULUS), N, limbs(&psi.into_bigint())).unwrap();
    let input: Vec<u64> = values
        .iter()
        .flat_map(|v| limbs(&v.into_bigint()))
        .collect();
    let layout = SlotLayout::<Fr>::new(N).unwrap();
    eprintln!(
        "IFMA kernel available: {}; SlotLayout uses the engine: {}",
        ntt.ifma_available(),
        layout.uses_engine()
    );

    let mut group = c.benchmark_group("field_ntt_inverse_2^16");
    group
        .sample_size(10)
        .measurement_time(Duration::from_secs(3));
    group.bench_function("arkworks_coset_ifft", |b| {
        b.iter(|| coset.ifft(&values));
    });
    group.bench_function("engine_scalar", |b| {
        b.iter(|| {
            let mut v = input.clone();
            ntt.inverse(&mut v, FieldNttKernel::Scalar).unwrap();
            v
        });
    });
    if ntt.ifma_available() {
        group.bench_function("engine_ifma", |b| {
            b.iter(|| {
                let mut v = input.clone();
                ntt.inverse(&mut v, FieldNttKernel::Ifma).unwrap();
                v
            });
        });
    }
    group.bench_function("slot_layout_slots_to_coefficients", |b| {
        b.iter(|| layout.slots_to_coefficients(&values).unwrap());
    });
    group.finish();
}

criterion_group!(benches, bench_inverse);
criterion_main!(benches);
