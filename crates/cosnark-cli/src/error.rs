//! The command's errors: each names the file, role or step it is about.

use std::path::{Path, PathBuf};

/// A failed command.
#[derive(Debug, thiserror::Error)]
pub enum CliError {
    /// A file could not be read, written or created.
    #[error("{}: {source}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// A file has the wrong content.
    #[error("{}: {reason}", path.display())]
    Malformed {
        /// The file.
        path: PathBuf,
        /// What is wrong.
        reason: String,
    },
    /// The arguments do not fit together.
    #[error("{0}")]
    Usage(String),
    /// A step of the collaborative prover failed.
    #[error(transparent)]
    Prover(#[from] he_cosnark::Error),
    /// A circom or snarkjs file was refused.
    #[error("{}: {source}", path.display())]
    Circom {
        /// The file.
        path: PathBuf,
        /// Why it was refused (the section and field).
        #[source]
        source: he_circom::Error,
    },
    /// A circom or snarkjs file could not be read or written (the reader's
    /// message names the path already).
    #[error(transparent)]
    CircomIo(he_circom::Error),
    /// The network failed.
    #[error(transparent)]
    Network(#[from] he_net::Error),
    /// The threshold layer refused a key file.
    #[error(transparent)]
    Threshold(#[from] he_threshold::Error),
    /// The engine failed.
    #[error(transparent)]
    Engine(#[from] helib_rs::Error),
    /// A role process failed.
    #[error("{role}: {reason}")]
    Child {
        /// The role (`server`, `party-<i>`).
        role: String,
        /// How it ended.
        reason: String,
    },
    /// The server made no proof, or sent one that does not verify.
    #[error("the server made no proof {index}: {reason}")]
    NoProof {
        /// The proof index.
        index: u64,
        /// Why, as the server says or as this party found.
        reason: String,
    },
    /// The proof does not verify.
    #[error("the proof does not verify against the verifying key for these public inputs")]
    NotVerified,
}

impl CliError {
    /// A file error for `path`.
    pub fn file(path: &Path, source: std::io::Error) -> Self {
        CliError::File {
            path: path.to_owned(),
            source,
        }
    }

    /// A circom or snarkjs reader's or writer's error for `path`.
    pub fn circom(path: &Path, source: he_circom::Error) -> Self {
        match source {
            he_circom::Error::Io { .. } => CliError::CircomIo(source),
            source => CliError::Circom {
                path: path.to_owned(),
                source,
            },
        }
    }

    /// A content error for `path`.
    pub fn malformed(path: &Path, reason: impl Into<String>) -> Self {
        CliError::Malformed {
            path: path.to_owned(),
            reason: reason.into(),
        }
    }
}

/// `Result` with [`CliError`].
pub type CliResult<T> = Result<T, CliError>;
