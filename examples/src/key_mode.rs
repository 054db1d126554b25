//! `--key-mode`, the flag both FFT examples take for he-fft's plans (here
//! rather than in `example-support`, which cannot name he-fft: he-fft's own
//! examples depend on it).

use serde::Serialize;

/// `--key-mode` of the plans of he-fft.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum KeyModeArg {
    /// One Galois key per rotation used (double-hoisted baby steps)
    Fast,
    /// The fewest Galois keys (more key switches)
    Minimal,
}

impl From<KeyModeArg> for he_fft::KeyMode {
    fn from(mode: KeyModeArg) -> Self {
        match mode {
            KeyModeArg::Fast => he_fft::KeyMode::Fast,
            KeyModeArg::Minimal => he_fft::KeyMode::MinimalKeys,
        }
    }
}
