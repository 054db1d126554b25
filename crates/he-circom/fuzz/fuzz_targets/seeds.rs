//! The seed corpus shared by the harnesses: with `HELIB_FUZZ_WRITE_SEEDS=DIR`
//! a harness writes the committed fixtures it reads, their prefixes and
//! tweaked copies to DIR and exits (as helib-sys/fuzz's harnesses do).

/// Writes `files`, cuts of them and copies with single bytes changed to
/// `$HELIB_FUZZ_WRITE_SEEDS` and exits, if that variable is set.
pub fn write_if_asked(files: &[&[u8]]) {
    let Ok(dir) = std::env::var("HELIB_FUZZ_WRITE_SEEDS") else {
        return;
    };
    let mut seeds: Vec<Vec<u8>> = Vec::new();
    for file in files {
        seeds.push(file.to_vec());
        for cut in [0, 4, 12, 24, file.len() / 2, file.len().saturating_sub(1)] {
            seeds.push(file[..cut.min(file.len())].to_vec());
        }
        for at in [0, 4, 8, 12, 16, 24, 40, file.len() / 3, file.len() / 2] {
            if at < file.len() {
                let mut tweaked = file.to_vec();
                tweaked[at] ^= 0x80;
                seeds.push(tweaked);
            }
        }
    }
    std::fs::create_dir_all(&dir).expect("seed directory");
    for (i, seed) in seeds.iter().enumerate() {
        std::fs::write(format!("{dir}/seed-{i:03}"), seed).expect("write seed");
    }
    std::process::exit(0);
}
