//! The plan key file: created once with mode 0600 and reused, never
//! replaced; refused when others may read it or when it is not a key.

use he_fft::{Error, PlanKey, PLAN_KEY_BYTES};
use std::os::unix::fs::PermissionsExt;
use std::path::PathBuf;

/// A fresh directory for one test (removed by the test).
fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("he-fft-plan-key-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

#[test]
fn a_key_file_is_created_private_and_reused() {
    let dir = scratch("create");
    // The directory is created too.
    let path = dir.join("nested").join("plan.key");
    let key = PlanKey::load_or_create(&path).expect("create");
    let meta = std::fs::metadata(&path).expect("the key file");
    assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    assert_eq!(meta.len(), PLAN_KEY_BYTES as u64);
    let dir_mode = std::fs::metadata(path.parent().unwrap())
        .unwrap()
        .permissions()
        .mode();
    assert_eq!(dir_mode & 0o077, 0, "the directory is the user's alone");
    assert_eq!(
        PlanKey::load_or_create(&path).expect("again").id(),
        key.id()
    );
    assert_eq!(PlanKey::load(&path).expect("load").id(), key.id());
    // No temporary file is left behind.
    let left: Vec<_> = std::fs::read_dir(path.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, ["plan.key"]);
    // Debug shows the id, not the key.
    let shown = format!("{key:?}");
    assert!(shown.contains("id"), "{shown}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_readable_key_file_is_refused() {
    let dir = scratch("mode");
    let path = dir.join("plan.key");
    PlanKey::load_or_create(&path).expect("create");
    for mode in [0o644, 0o640, 0o604, 0o620] {
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
        for result in [PlanKey::load(&path), PlanKey::load_or_create(&path)] {
            match result {
                Err(Error::PlanKeyPermissions { mode: m, .. }) => assert_eq!(m, mode),
                other => panic!("mode {mode:o}: {other:?}"),
            }
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_key_file_of_another_size_is_refused_and_kept() {
    let dir = scratch("size");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("plan.key");
    for size in [0usize, 31, 33, 64] {
        std::fs::write(&path, vec![1u8; size]).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        for result in [PlanKey::load(&path), PlanKey::load_or_create(&path)] {
            match result {
                Err(Error::PlanKeySize { size: s, .. }) => assert_eq!(s, size as u64),
                other => panic!("size {size}: {other:?}"),
            }
        }
        assert_eq!(
            std::fs::read(&path).unwrap(),
            vec![1u8; size],
            "not replaced"
        );
    }
    // A directory where the key should be.
    std::fs::remove_file(&path).unwrap();
    std::fs::create_dir(&path).unwrap();
    assert!(matches!(
        PlanKey::load_or_create(&path),
        Err(Error::PlanKeyFile { .. })
    ));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_key_file_is_an_error_for_load() {
    let dir = scratch("missing");
    assert!(matches!(
        PlanKey::load(&dir.join("plan.key")),
        Err(Error::PlanKeyFile { .. })
    ));
}

/// Threads asking for a key that does not exist yet all get the same one.
#[test]
fn concurrent_creation_gives_one_key() {
    for round in 0..5 {
        let dir = scratch(&format!("race-{round}"));
        let path = dir.join("plan.key");
        let barrier = std::sync::Barrier::new(8);
        let ids: Vec<[u8; 16]> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    s.spawn(|| {
                        barrier.wait();
                        PlanKey::load_or_create(&path).expect("key").id()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(ids.iter().all(|id| *id == ids[0]), "round {round}: {ids:?}");
        assert_eq!(PlanKey::load(&path).unwrap().id(), ids[0]);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

#[test]
fn keys_are_random_and_named_by_their_id() {
    let a = PlanKey::generate().unwrap();
    let b = PlanKey::generate().unwrap();
    assert_ne!(a.id(), b.id());
    assert_eq!(
        PlanKey::from_bytes([3; 32]).id(),
        PlanKey::from_bytes([3; 32]).id()
    );
}

/// A key file of another owner is refused (checked where the test may
/// give the file away, i.e. as root; elsewhere the test has nothing to do).
#[test]
fn a_key_file_of_another_owner_is_refused() {
    let dir = scratch("owner");
    let path = dir.join("plan.key");
    PlanKey::load_or_create(&path).expect("create");
    if std::os::unix::fs::chown(&path, Some(54_321), None).is_ok() {
        match PlanKey::load(&path) {
            Err(Error::PlanKeyFile { problem, .. }) => {
                assert!(problem.contains("belongs to user 54321"), "{problem}")
            }
            other => panic!("{other:?}"),
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
