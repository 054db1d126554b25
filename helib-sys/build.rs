//! Compiles the C++17 BGV engine and its C shim with the `cc` crate.
//!
//! GMP (`libgmp-dev` on Debian/Ubuntu) is the only system library needed;
//! without its header the build stops and says how to install it. Nothing is
//! downloaded.
//!
//! The engine is compiled for the target's baseline instruction set, so the
//! library runs on any CPU of the target architecture: the vector kernels
//! (AVX2, AVX-512) carry function-level target attributes and are chosen at
//! run time (cpp/src/util/cpu.hpp; `HELIB_CPU=scalar|avx2|avx512` forces one). The
//! `native` feature adds `-march=native`, for binaries that only ever run on
//! the machine that built them. The `test-api` feature compiles the test-only
//! entry points (declared in `cpp/src/capi/c_api_test_api.h`). With the `bindgen` feature the Rust bindings in
//! `src/bindings.rs` are regenerated from `cpp/include/helib_c.h`.

use std::path::{Path, PathBuf};

fn main() {
    let root = PathBuf::from(std::env::var("CARGO_MANIFEST_DIR").expect("set by cargo"));
    let include = root.join("cpp/include");
    let src = root.join("cpp/src");
    check_gmp();

    let mut sources = Vec::new();
    collect_sources(&src, &mut sources);
    sources.sort();

    let sanitize = std::env::var_os("CARGO_FEATURE_SANITIZE").is_some();
    let native = std::env::var_os("CARGO_FEATURE_NATIVE").is_some();
    let test_api = std::env::var_os("CARGO_FEATURE_TEST_API").is_some();
    let mut build = cc::Build::new();
    build
        .cpp(true)
        .std("c++17")
        .include(&include)
        .include(&src)
        .files(&sources)
        .warnings(true)
        .extra_warnings(true)
        .flag_if_supported("-Wshadow")
        .flag_if_supported("-Wno-unused-parameter")
        .flag_if_supported("-pthread");
    if native {
        build.flag_if_supported("-march=native");
    }
    if test_api {
        // The test-only entry points of cpp/src/capi/c_api_test_api.cpp.
        build.define("HELIB_TEST_API", None);
    }
    if sanitize {
        build
            .flag("-fsanitize=address,undefined")
            .flag("-fno-sanitize-recover=undefined")
            .flag("-fno-omit-frame-pointer")
            .opt_level(1)
            .debug(true);
        println!("cargo:rustc-link-lib=dylib=asan");
        println!("cargo:rustc-link-lib=dylib=ubsan");
    } else {
        build.opt_level(3).define("NDEBUG", None);
    }
    build.compile("helib_bgv");

    println!("cargo:rustc-link-lib=dylib=gmp");
    println!("cargo:rustc-link-lib=dylib=stdc++");
    println!("cargo:rustc-link-lib=dylib=pthread");
    println!("cargo:rerun-if-changed={}", include.display());
    println!("cargo:rerun-if-changed={}", src.display());
    println!("cargo:rerun-if-env-changed=CXXFLAGS");
    println!("cargo:include={}", include.display());

    #[cfg(feature = "bindgen")]
    regenerate_bindings(&include.join("helib_c.h"), &root.join("src/bindings.rs"));
}

/// Every `.cpp` file below `dir`: the engine's layers are its subfolders
/// (`util`, `ring`, `rlwe`, `bgv`, `io`, `capi`).
fn collect_sources(dir: &Path, sources: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("cpp/src is part of the crate") {
        let path = entry.expect("cpp/src is readable").path();
        if path.is_dir() {
            collect_sources(&path, sources);
        } else if path.extension().is_some_and(|ext| ext == "cpp") {
            sources.push(path);
        }
    }
}

/// Fails the build early, with instructions, when GMP's header is missing.
fn check_gmp() {
    let candidates = [
        "/usr/include/gmp.h",
        "/usr/include/x86_64-linux-gnu/gmp.h",
        "/usr/include/aarch64-linux-gnu/gmp.h",
        "/usr/local/include/gmp.h",
        "/opt/homebrew/include/gmp.h",
    ];
    let in_env = std::env::var("CPATH")
        .ok()
        .map(|paths| std::env::split_paths(&paths).any(|p| p.join("gmp.h").exists()))
        .unwrap_or(false);
    if !in_env && !candidates.iter().any(|p| Path::new(p).exists()) && !compiler_finds_gmp() {
        eprintln!(
            "error: GMP not found: helib-sys needs the GMP development files (gmp.h and libgmp).\n\
             Install them with:\n    \
             Debian/Ubuntu: sudo apt-get install libgmp-dev\n    \
             Fedora:        sudo dnf install gmp-devel\n    \
             macOS:         brew install gmp\n\
             or point CPATH at the directory holding gmp.h. GMP is the only system \
             library this crate uses."
        );
        std::process::exit(1);
    }
}

/// Whether the C++ compiler finds gmp.h on its own include path (a prefix
/// not among the usual ones), by preprocessing a one-line file.
fn compiler_finds_gmp() -> bool {
    let Ok(out_dir) = std::env::var("OUT_DIR") else {
        return false;
    };
    let probe = Path::new(&out_dir).join("gmp_probe.cpp");
    if std::fs::write(&probe, "#include <gmp.h>\n").is_err() {
        return false;
    }
    let Ok(compiler) = cc::Build::new()
        .cpp(true)
        .cargo_metadata(false)
        .try_get_compiler()
    else {
        return false;
    };
    compiler
        .to_command()
        .arg("-E")
        .arg(&probe)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

#[cfg(feature = "bindgen")]
fn regenerate_bindings(header: &Path, out: &Path) {
    let bindings = bindgen::Builder::default()
        .header(header.to_string_lossy())
        .allowlist_function("helib_.*")
        .allowlist_type("helib_.*")
        .allowlist_var("HELIB_.*")
        .prepend_enum_name(false)
        .opaque_type("helib_(context|secret_key|public_key|encoded_plaintext|ciphertext)")
        .layout_tests(false)
        .generate_comments(true)
        .generate()
        .expect("bindgen failed on helib_c.h");
    let text = format!(
        "// @generated by bindgen from cpp/include/helib_c.h; regenerate with\n\
         // `cargo build -p helib-sys --features bindgen`.\n{}",
        bindings
    );
    let current = std::fs::read_to_string(out).unwrap_or_default();
    if current != text {
        std::fs::write(out, text).expect("write src/bindings.rs");
        println!("cargo:warning=src/bindings.rs was out of date and has been regenerated");
    }
}
