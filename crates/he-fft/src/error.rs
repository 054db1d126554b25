//! Errors of the encrypted FFT.

/// What can go wrong building or running an FFT plan.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The size is not a power of two ≥ 2, or the field has no root of unity of that order.
    #[error("FFT size {0} is not a power of two ≥ 2 supported by the field")]
    InvalidSize(usize),
    /// A factored plan needs 1 to 4 levels.
    #[error("{0} levels requested; the factored strategy uses 1 to 4")]
    InvalidLevels(usize),
    /// The input level leaves too little noise budget for the plan.
    #[error(
        "the plan needs {needed} multiplication levels but the input level affords {available}"
    )]
    InsufficientBudget {
        /// Levels the plan needs.
        needed: usize,
        /// Levels the input's modulus affords.
        available: usize,
    },
    /// A vector of the wrong length.
    #[error("expected a vector of {expected} entries, got {got}")]
    WrongLength {
        /// The plan's size.
        expected: usize,
        /// The given length.
        got: usize,
    },
    /// The wrong number of input ciphertexts.
    #[error("expected {expected} input ciphertexts, got {got}")]
    WrongInputCount {
        /// Ciphertexts per vector.
        expected: usize,
        /// Ciphertexts given.
        got: usize,
    },
    /// An input ciphertext is not at the level the plan was built for.
    #[error("input ciphertext at level {got}, the plan expects level {expected}")]
    WrongInputLevel {
        /// The plan's input level.
        expected: usize,
        /// The ciphertext's level.
        got: usize,
    },
    /// A conversion between slots and coefficients takes 2 ≤ n ≤ N/2.
    #[error(
        "a conversion between slots and coefficients takes n ≤ N/2 = {max} values, got n = {n}"
    )]
    ConversionSize {
        /// The requested length.
        n: usize,
        /// N/2 for the context.
        max: usize,
    },
    /// A conversion level count outside what its butterflies allow.
    #[error("{levels} levels requested; this conversion takes 1 to {max}")]
    InvalidConversionLevels {
        /// The requested count.
        levels: usize,
        /// Its number of butterfly stages.
        max: usize,
    },
    /// The coset offset is zero: `0 · ⟨ω⟩` is not a coset, and an inverse
    /// transform would need 1/0.
    #[error("the coset offset must be nonzero")]
    InvalidCosetOffset,
    /// `max_baby_steps(0)`: a schedule needs at least one baby step per level.
    #[error("at most {0} baby steps per level requested; at least 1 is needed")]
    InvalidMaxBabySteps(usize),
    /// `executions(0)`: a plan's keys are amortized over at least one run.
    #[error("{0} executions per set of Galois keys requested; at least 1 is needed")]
    InvalidExecutions(u64),
    /// The requested input level is above the context's top level.
    #[error("input level {level} requested, but the context's top level is {max}")]
    InputLevelOutOfRange {
        /// The requested level.
        level: usize,
        /// The context's top level.
        max: usize,
    },
    /// The wrong number of output ciphertexts to decrypt.
    #[error("expected {expected} output ciphertexts, got {got}")]
    WrongOutputCount {
        /// Ciphertexts per vector.
        expected: usize,
        /// Ciphertexts given.
        got: usize,
    },
    /// A group or sum index outside a four-step plan's ciphertexts.
    #[error("index {index} is outside a plan over {ciphertexts} ciphertexts")]
    GroupOutOfRange {
        /// The index given.
        index: usize,
        /// The plan's ciphertexts.
        ciphertexts: usize,
    },
    /// [`FftPlanBuilder::only_groups`](crate::FftPlanBuilder::only_groups)
    /// with a range that is empty or runs past the plan's ciphertexts.
    #[error(
        "groups {start}..{end} are not a non-empty range of the plan's {ciphertexts} ciphertexts"
    )]
    InvalidGroups {
        /// The range's first group.
        start: usize,
        /// One past its last group.
        end: usize,
        /// The plan's ciphertexts.
        ciphertexts: usize,
    },
    /// A group whose own level a plan built with
    /// [`FftPlanBuilder::only_groups`](crate::FftPlanBuilder::only_groups)
    /// does not hold.
    #[error("group {index} is not among the groups {start}..{end} this plan holds")]
    GroupNotHeld {
        /// The group asked for.
        index: usize,
        /// The first group the plan holds.
        start: usize,
        /// One past the last.
        end: usize,
    },
    /// A whole-plan operation (one-process execution, saving) on a plan that
    /// holds only some groups' own levels.
    #[error("{operation} needs every group's level; this plan holds groups {start}..{end} of {ciphertexts}")]
    PartialPlan {
        /// What was refused.
        operation: &'static str,
        /// The first group the plan holds.
        start: usize,
        /// One past the last.
        end: usize,
        /// The plan's ciphertexts.
        ciphertexts: usize,
    },
    /// A ciphertext or key belongs to another context than the plan.
    #[error("a ciphertext or key belongs to a different context than the plan")]
    ContextMismatch,
    /// An input ciphertext has more than two parts (a product not yet relinearized).
    #[error("input ciphertext has {parts} parts; relinearize it to 2 first")]
    InputNotRelinearized {
        /// Its number of parts.
        parts: usize,
    },
    /// The plan would need more memory than the limit allows.
    #[error(
        "the plan needs an estimated {:.2} GiB ({estimated} bytes) at its peak, above the limit of {:.2} GiB ({limit} bytes)",
        gib(*estimated),
        gib(*limit)
    )]
    InsufficientMemory {
        /// Estimated peak bytes of the plan: its encoded diagonals, its
        /// Galois keys and one execution's working memory.
        estimated: usize,
        /// The limit: [`FftPlanBuilder::memory_limit`](crate::FftPlanBuilder::memory_limit),
        /// or by default the memory the system reports available.
        limit: usize,
    },
    /// A Galois key the plan needs is not in the key set.
    #[error("missing Galois key for element {element} (generate the plan's required elements)")]
    MissingGaloisKey {
        /// The Galois element.
        element: u64,
    },
    /// The system could not start the worker threads the context asks for.
    #[error("could not start the plan's worker threads: {0}")]
    ThreadPool(String),
    /// A combination the plan does not support.
    #[error("unsupported: {0}")]
    Unsupported(&'static str),
    /// Bytes given to [`FftPlanBuilder::load_from`](crate::FftPlanBuilder::load_from)
    /// are not a plan file: a bad magic, a truncated or corrupted file (checksum
    /// mismatch), out-of-range fields, or levels that do not match the
    /// plan's header (the message says which).
    #[error("not a valid FFT plan file: {0}")]
    PlanFormat(String),
    /// The plan file was written in a format version this build does not
    /// read (it reads its own and version 6, the latter by verification only).
    #[error("the plan file has format version {found}; this build reads versions 6 to {supported}: build the plan again (remove the file from a plan cache)")]
    PlanVersion {
        /// The file's version.
        found: u64,
        /// The version this build writes (the newest it reads).
        supported: u64,
    },
    /// The plan file was saved for a context with other parameters (its
    /// fingerprint differs).
    #[error("the plan file was saved for a context with other parameters")]
    PlanContextMismatch,
    /// The plan file was saved for another field F.
    #[error("the plan file was saved for another field (its modulus differs)")]
    PlanFieldMismatch,
    /// The plan file holds a plan of another spec than the builder it was
    /// loaded with ([`FftPlanBuilder::load_from`](crate::FftPlanBuilder::load_from)):
    /// an inverse plan where the forward one was asked for, another coset,
    /// size, strategy, option, key policy or input level.
    #[error("the plan file holds another plan: its {field} is {found}, the plan asked for has {expected}")]
    PlanMismatch {
        /// The first setting that differs (`"n"`, `"direction"`, `"coset"`,
        /// `"strategy"`, `"input order"`, `"natural output"`,
        /// `"encode per execution"`, `"key mode"`, `"max baby steps"`,
        /// `"executions"`, `"input level"`).
        field: &'static str,
        /// The builder's value.
        expected: String,
        /// The file's value.
        found: String,
    },
    /// A level of the plan file is not what the plan it claims to be is
    /// made of: its diagonals were changed, swapped or come from another
    /// plan (checksums pass for anyone who recomputes them), found by the
    /// verification of [`FftPlanBuilder::load_from`](crate::FftPlanBuilder::load_from).
    /// The message names the level and the difference.
    #[error("the plan file failed verification against the plan asked for: {0}")]
    PlanVerification(String),
    /// The plan key file may be read or written by others than its owner
    /// ([`PlanKey::load`](crate::PlanKey::load)); it is not used.
    #[error("the plan key file {} has mode {mode:03o}: it must be readable by its owner only (chmod 600), and its key may have leaked", path.display())]
    PlanKeyPermissions {
        /// The key file.
        path: std::path::PathBuf,
        /// Its permission bits.
        mode: u32,
    },
    /// The plan key file does not hold exactly the 32 bytes of a key
    /// ([`PlanKey::load`](crate::PlanKey::load)); it is not used, nor
    /// replaced.
    #[error("the plan key file {} holds {size} bytes, not 32: move it away to get a new key (plans saved with the old one then load by verification)", path.display())]
    PlanKeySize {
        /// The key file.
        path: std::path::PathBuf,
        /// Its size in bytes.
        size: u64,
    },
    /// The plan key file cannot be used: missing, not a regular file,
    /// owned by another user, or failing to read or to be created.
    #[error("the plan key file {}: {problem}", path.display())]
    PlanKeyFile {
        /// The key file (or the directory that could not be created).
        path: std::path::PathBuf,
        /// What is wrong.
        problem: String,
    },
    /// None of `HE_PLAN_KEY`, `XDG_CONFIG_HOME` and `HOME` is set, so the
    /// user's plan key has no place ([`PlanKey::default_path`](crate::PlanKey::default_path)).
    #[error("no place for the plan key: set HE_PLAN_KEY (a file path), XDG_CONFIG_HOME or HOME")]
    PlanKeyLocation,
    /// Reading or writing a plan file failed.
    #[error("plan file I/O: {0}")]
    Io(#[from] std::io::Error),
    /// The homomorphic-encryption layer failed.
    #[error(transparent)]
    He(#[from] helib_rs::Error),
    /// An internal invariant failed (a bug).
    #[error("internal error: {0}")]
    Internal(&'static str),
}

fn gib(bytes: usize) -> f64 {
    bytes as f64 / (1u64 << 30) as f64
}

/// Result alias.
pub type Result<T> = std::result::Result<T, Error>;
