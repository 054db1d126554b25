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
//! `src/bindings/` are regenerated from `cpp/include/helib_c.h`, one module a
//! part of it (`cpp/include/helib_c/<part>.h` gives `src/bindings/<part>.rs`).

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
        // The same flags in every profile, so that one compile of a file
        // serves debug, release and test builds alike (a compiler cache hits
        // across them); CXXFLAGS=-g adds debug information when wanted.
        build.opt_level(3).debug(false).define("NDEBUG", None);
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
    regenerate_bindings(&include, &root.join("src/bindings"));
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

/// Regenerates `src/bindings/<part>.rs` from each part `helib_c/<part>.h` of
/// the public header: bindgen reads the whole header (as C users do) and keeps
/// the items declared in that part; the types a part uses from another come
/// through `use super::*` (the module `bindings` re-exports every part).
/// `types.h`, which every other part builds on, needs no import.
#[cfg(feature = "bindgen")]
fn regenerate_bindings(include: &Path, out_dir: &Path) {
    let header = include.join("helib_c.h");
    let mut parts: Vec<String> = std::fs::read_dir(include.join("helib_c"))
        .expect("cpp/include/helib_c holds the parts of helib_c.h")
        .map(|entry| entry.expect("cpp/include/helib_c is readable").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "h"))
        .map(|path| {
            path.file_stem()
                .expect("a header has a name")
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    parts.sort();
    for part in parts {
        let bindings = bindgen::Builder::default()
            .header(header.to_string_lossy())
            .allowlist_file(format!(r".*[/\\]helib_c[/\\]{part}\.h"))
            .allowlist_recursively(false)
            .prepend_enum_name(false)
            .opaque_type("helib_(context|secret_key|public_key|encoded_plaintext|ciphertext)")
            .layout_tests(false)
            .generate_comments(true)
            .parse_callbacks(Box::new(OtherParts))
            .generate()
            .unwrap_or_else(|e| panic!("bindgen failed on helib_c/{part}.h: {e}"));
        let imports = if part == "types" {
            ""
        } else {
            "use super::*;\n"
        };
        let text = format!(
            "// @generated by bindgen from cpp/include/helib_c/{part}.h; regenerate with\n\
             // `cargo build -p helib-sys --features bindgen`.\n{imports}{bindings}"
        );
        let out = out_dir.join(format!("{part}.rs"));
        let current = std::fs::read_to_string(&out).unwrap_or_default();
        if current != text {
            std::fs::write(&out, text).unwrap_or_else(|e| panic!("write {}: {e}", out.display()));
            println!(
                "cargo:warning=src/bindings/{part}.rs was out of date and has been regenerated"
            );
        }
    }
}

/// What bindgen, generating one part, may assume of the types it does not
/// generate there (those of other parts, such as `helib_status`, and the
/// `<stdint.h>` integers): every type the header holds by value is an
/// integer or a plain struct, so a struct holding one derives `Debug`,
/// `Copy` and `Clone` as it does when the whole header is generated at once.
#[cfg(feature = "bindgen")]
#[derive(Debug)]
struct OtherParts;

#[cfg(feature = "bindgen")]
impl bindgen::callbacks::ParseCallbacks for OtherParts {
    fn blocklisted_type_implements_trait(
        &self,
        _name: &str,
        derive: bindgen::callbacks::DeriveTrait,
    ) -> Option<bindgen::callbacks::ImplementsTrait> {
        use bindgen::callbacks::{DeriveTrait, ImplementsTrait};
        matches!(derive, DeriveTrait::Copy | DeriveTrait::Debug).then_some(ImplementsTrait::Yes)
    }
}
