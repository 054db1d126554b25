//! The secure pool: bounded, refilled, each encryption of zero used once,
//! and the caller's choice when it runs dry.

mod common;

use std::sync::Arc;

use common::{t65537_keyed, Keyed};
use he_cache::{Encryptor, Error, PoolConfig, PoolStats, SecurePool, WhenDry};
use num_bigint::BigUint;

fn manual(keyed: &Keyed, capacity: usize, when_dry: WhenDry) -> SecurePool {
    let config = PoolConfig::new(capacity).workers(0).when_dry(when_dry);
    SecurePool::new(keyed.pk.clone(), config).unwrap()
}

#[test]
fn manual_fill_never_exceeds_the_capacity() {
    let keyed = t65537_keyed();
    let pool = manual(keyed, 3, WhenDry::Fail);
    assert_eq!(pool.fill(2).unwrap(), 2);
    assert_eq!(pool.fill(5).unwrap(), 1);
    assert_eq!(pool.fill(1).unwrap(), 0);
    let stats = pool.stats();
    assert_eq!((stats.available, stats.produced), (3, 3));
    let per_ciphertext = 2 * 4096 * (keyed.context.max_level() + 1) * 8;
    assert_eq!(pool.memory_bound_bytes(), 3 * per_ciphertext);
}

#[test]
fn parallel_fill_never_exceeds_the_capacity_and_each_item_encrypts() {
    let keyed = t65537_keyed();
    let pool = manual(keyed, 5, WhenDry::Fail);
    assert_eq!(pool.fill_parallel(3).unwrap(), 3);
    assert_eq!(pool.fill_parallel(9).unwrap(), 2);
    assert_eq!(pool.fill_parallel(1).unwrap(), 0);
    let stats = pool.stats();
    assert_eq!((stats.available, stats.produced), (5, 5));
    for value in 0..5u32 {
        let ct = pool.encrypt_value(&BigUint::from(value)).unwrap();
        keyed.assert_decrypts_to(&ct, &BigUint::from(value), "parallel pool");
    }
    assert_eq!(
        pool.encrypt_value(&BigUint::from(9u32)).err(),
        Some(Error::PoolDry)
    );
}

#[test]
fn a_dry_pool_fails_when_told_to() {
    let keyed = t65537_keyed();
    for policy in [WhenDry::Fail, WhenDry::Block] {
        // Without workers, blocking would wait forever: it fails instead.
        let pool = manual(keyed, 2, policy);
        pool.fill(2).unwrap();
        for value in [5u32, 6] {
            let ct = pool.encrypt_value(&BigUint::from(value)).unwrap();
            keyed.assert_decrypts_to(&ct, &BigUint::from(value), "pool");
        }
        assert_eq!(
            pool.encrypt_value(&BigUint::from(7u32)).err(),
            Some(Error::PoolDry)
        );
        assert_eq!(pool.stats().consumed, 2);
    }
}

#[test]
fn a_dry_pool_falls_back_to_fresh_encryption_when_told_to() {
    let keyed = t65537_keyed();
    let pool = manual(keyed, 1, WhenDry::FallBackToFresh);
    pool.fill(1).unwrap();
    for value in 0..3u32 {
        let ct = pool.encrypt_value(&BigUint::from(value)).unwrap();
        keyed.assert_decrypts_to(&ct, &BigUint::from(value), "pool");
    }
    let stats = pool.stats();
    assert_eq!(
        (stats.consumed, stats.fallbacks, stats.available),
        (1, 2, 0)
    );
}

#[test]
fn workers_refill_and_blocking_callers_get_every_item_once() {
    let keyed = t65537_keyed();
    let config = PoolConfig::new(3).workers(2).when_dry(WhenDry::Block);
    let pool = Arc::new(SecurePool::new(keyed.pk.clone(), config).unwrap());
    pool.wait_until_full().unwrap();
    let full = pool.stats();
    assert_eq!(full.available, 3);
    assert_eq!(
        full.produced, 3,
        "workers never prepare beyond the capacity"
    );

    // Two callers drain it several times over; the workers keep up.
    let threads: Vec<_> = (0..2u32)
        .map(|id| {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || {
                (0..5u32)
                    .map(|i| {
                        let value = BigUint::from(100 * id + i);
                        (pool.encrypt_value(&value).unwrap(), value)
                    })
                    .collect::<Vec<_>>()
            })
        })
        .collect();
    for handle in threads {
        for (ct, value) in handle.join().unwrap() {
            keyed.assert_decrypts_to(&ct, &value, "pool");
        }
    }
    pool.wait_until_full().unwrap();
    let PoolStats {
        available,
        produced,
        consumed,
        fallbacks,
    } = pool.stats();
    assert_eq!((consumed, fallbacks, available), (10, 0, 3));
    // Every item produced is either consumed once or still waiting.
    assert_eq!(produced, consumed + available as u64);
}

#[test]
fn bad_configurations_are_refused() {
    let keyed = t65537_keyed();
    for config in [PoolConfig::new(0), PoolConfig::new(1).workers(10_000)] {
        assert!(matches!(
            SecurePool::new(keyed.pk.clone(), config),
            Err(Error::InvalidConfig(_))
        ));
    }
}

#[test]
fn dropping_a_busy_pool_stops_its_workers() {
    let keyed = t65537_keyed();
    for _ in 0..3 {
        let pool = SecurePool::new(keyed.pk.clone(), PoolConfig::new(2).workers(2)).unwrap();
        let _ = pool.encrypt_value(&BigUint::from(1u32)).unwrap();
        drop(pool);
    }
}
