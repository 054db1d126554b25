//! libFuzzer harness for `he_circom::ptau::Ptau::parse`.
//!
//! Any bytes must give `Ok` or `Err`, never a panic. The oracle for
//! accepted files: the power is in range, the ceremony power at least the
//! power, every section's size the power's, and decoding the points of any
//! section gives `Ok` (with the count the size implies) or `Err`, never a
//! panic. Seeds: a prepared file of power 1 (2 KB, made by
//! `ptau::write_prepared`), its prefixes and tweaked copies. Built and run
//! by crates/he-circom/fuzz/run.sh.
#![no_main]

mod seeds;

use he_circom::ptau::{self, Ptau, MAX_POWER, MIN_POWER};
use libfuzzer_sys::fuzz_target;

/// A prepared file of power 1, written by the crate.
fn seed() -> Vec<u8> {
    let path =
        std::env::temp_dir().join(format!("he-circom-fuzz-ptau-{}.ptau", std::process::id()));
    ptau::write_prepared(&path, 1).expect("a power-1 ptau");
    let bytes = std::fs::read(&path).expect("the power-1 ptau");
    let _ = std::fs::remove_file(&path);
    bytes
}

fuzz_target!(
    init: {
        if std::env::var_os("HELIB_FUZZ_WRITE_SEEDS").is_some() {
            seeds::write_if_asked(&[&seed()]);
        }
    },
    |data: &[u8]| {
        let Ok(file) = Ptau::parse(data) else {
            return;
        };
        let h = file.header();
        assert!((MIN_POWER..=MAX_POWER).contains(&h.power));
        assert!(h.ceremony_power >= h.power);
        let layout = ptau::layout(h.power).expect("an accepted power has a layout");
        for (section, size) in layout {
            if section == 1 || section == 7 || (section >= 12 && !file.is_prepared()) {
                continue;
            }
            let body = file.section(section).expect("a checked section");
            assert_eq!(body.len() as u64, size, "section {section}");
            let bytes_per_point = if matches!(section, 3 | 6 | 13) { 128 } else { 64 };
            let count = if bytes_per_point == 128 {
                file.g2_points(section).map(|p| p.len())
            } else {
                file.g1_points(section).map(|p| p.len())
            };
            if let Ok(count) = count {
                assert_eq!(count as u64 * bytes_per_point, size);
            }
        }
    }
);
