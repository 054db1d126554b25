//! Running `cosnark` processes in the tests: the fixtures, fresh
//! directories, each process's standard error collected as it comes, and a
//! bound on every wait (a process still running at its deadline is killed
//! and the test fails), so no test can hang.

#![allow(dead_code)]

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The `cosnark` executable under test.
pub const COSNARK: &str = env!("CARGO_BIN_EXE_cosnark");

/// The bound on a whole key session or proof in these tests (debug builds
/// on two loaded cores take a fraction of it).
pub const SESSION_LIMIT: Duration = Duration::from_secs(240);

/// The bound on a command that must fail before any network step.
pub const QUICK_LIMIT: Duration = Duration::from_secs(60);

/// A circom / snarkjs fixture of he-circom.
pub fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../he-circom/tests/fixtures")
        .join(name)
}

/// A path as a command-line argument.
pub fn arg(path: &Path) -> String {
    path.to_string_lossy().into_owned()
}

/// The prefix of the tests' directories under the temporary directory.
const PREFIX: &str = "cosnark-test-";

/// A fresh, empty directory under the temporary directory, removed (with
/// everything in it) when dropped, also when the test fails.
pub struct TempDir(PathBuf);

impl std::ops::Deref for TempDir {
    type Target = Path;

    fn deref(&self) -> &Path {
        &self.0
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// A fresh, empty directory named after `name` (see [`TempDir`]).
pub fn temp_dir(name: &str) -> TempDir {
    static SWEEP: std::sync::Once = std::sync::Once::new();
    SWEEP.call_once(sweep_stale_dirs);
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("{PREFIX}{name}-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    TempDir(dir)
}

/// Removes the directories of earlier test processes that are gone (the
/// session a test binary keeps for all its tests is never dropped, and a
/// killed run drops nothing).
fn sweep_stale_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(PREFIX) else {
            continue;
        };
        // `<name>-<pid>-<n>`: the second field from the end.
        let pid = rest.rsplit('-').nth(1).and_then(|p| p.parse::<u32>().ok());
        if let Some(pid) = pid {
            if pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists() {
                let _ = std::fs::remove_dir_all(entry.path());
            }
        }
    }
}

/// How a process ended.
#[derive(Debug)]
pub struct Outcome {
    /// The role's name in the test.
    pub name: String,
    /// The exit status; `None` when it was killed at its deadline.
    pub status: Option<ExitStatus>,
    /// Everything it wrote to standard error.
    pub stderr: String,
    /// When it started.
    pub started: Instant,
    /// When it ended (or was killed).
    pub ended: Instant,
}

impl Outcome {
    /// Whether it exited by itself with status 0.
    pub fn success(&self) -> bool {
        self.status.is_some_and(|s| s.success())
    }

    /// Asserts that it exited by itself with a non-zero status and that
    /// its error message contains every one of `needles`.
    pub fn assert_failed_naming(&self, needles: &[&str]) {
        let status = self
            .status
            .unwrap_or_else(|| panic!("{} did not end in time:\n{}", self.name, self.stderr));
        assert!(
            !status.success(),
            "{} succeeded, expected a failure:\n{}",
            self.name,
            self.stderr
        );
        let message = self.error_line();
        for needle in needles {
            assert!(
                message.contains(needle),
                "{}: the error does not name {needle:?}: {message}\nall output:\n{}",
                self.name,
                self.stderr
            );
        }
    }

    /// Asserts that it exited by itself with a non-zero status and that
    /// its error message contains `needle` and at least one of `any`.
    pub fn assert_failed_naming_one_of(&self, needle: &str, any: &[&str]) {
        self.assert_failed_naming(&[needle]);
        let message = self.error_line();
        assert!(
            any.iter().any(|a| message.contains(a)),
            "{}: the error names none of {any:?}: {message}",
            self.name
        );
    }

    /// Asserts exit status 0.
    pub fn assert_success(&self) {
        assert!(
            self.success(),
            "{} ended with {:?}:\n{}",
            self.name,
            self.status,
            self.stderr
        );
    }

    /// The `cosnark: error:` line, or the whole output when there is none.
    pub fn error_line(&self) -> String {
        self.stderr
            .lines()
            .rev()
            .find(|l| l.contains("cosnark: error:"))
            .unwrap_or(&self.stderr)
            .to_owned()
    }
}

/// Standard error collected so far, and a signal for each new line.
#[derive(Default)]
struct Collected {
    text: Mutex<String>,
    more: Condvar,
}

/// A running `cosnark` process, killed when dropped.
pub struct Proc {
    name: String,
    child: Child,
    collected: Arc<Collected>,
    reader: Option<JoinHandle<()>>,
    /// When it started.
    pub started: Instant,
}

impl Proc {
    /// Starts `cosnark <args>` as the role `name`.
    pub fn start(name: &str, args: &[String]) -> Proc {
        Self::start_with_env(name, args, &[])
    }

    /// As [`Proc::start`], with environment variables `env` set.
    pub fn start_with_env(name: &str, args: &[String], env: &[(&str, &Path)]) -> Proc {
        let mut child = Command::new(COSNARK)
            .args(args)
            .envs(env.iter().map(|(k, v)| (*k, *v)))
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start {COSNARK}: {e}"));
        let collected = Arc::new(Collected::default());
        let stderr = child.stderr.take().expect("a piped stderr");
        let sink = collected.clone();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let mut text = sink.text.lock().unwrap_or_else(|e| e.into_inner());
                text.push_str(&line);
                text.push('\n');
                sink.more.notify_all();
            }
        });
        Proc {
            name: name.to_owned(),
            child,
            collected,
            reader: Some(reader),
            started: Instant::now(),
        }
    }

    /// The operating system's id of the process.
    pub fn id(&self) -> u32 {
        self.child.id()
    }

    /// Waits until its standard error contains `needle`, at most `limit`.
    ///
    /// # Panics
    /// When the line does not come in time.
    pub fn wait_for_output(&self, needle: &str, limit: Duration) {
        let deadline = Instant::now() + limit;
        let mut text = self
            .collected
            .text
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        while !text.contains(needle) {
            let left = deadline.saturating_duration_since(Instant::now());
            assert!(
                !left.is_zero(),
                "{} did not print {needle:?} within {limit:?}:\n{text}",
                self.name
            );
            text = self
                .collected
                .more
                .wait_timeout(text, left.min(Duration::from_millis(200)))
                .unwrap_or_else(|e| e.into_inner())
                .0;
        }
    }

    /// Kills it at once (as a crash would end it).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
    }

    /// Waits for it to end until `deadline`, killing it then.
    pub fn wait_until(mut self, deadline: Instant) -> Outcome {
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() >= deadline => {
                    let _ = self.child.kill();
                    let _ = self.child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(20)),
                Err(e) => panic!("waiting for {}: {e}", self.name),
            }
        };
        let ended = Instant::now();
        if let Some(reader) = self.reader.take() {
            let _ = reader.join();
        }
        let stderr = self
            .collected
            .text
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        Outcome {
            name: self.name.clone(),
            status,
            stderr,
            started: self.started,
            ended,
        }
    }
}

impl Drop for Proc {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

/// Runs `cosnark <args>` to its end, at most `limit`.
pub fn run(name: &str, args: &[String], limit: Duration) -> Outcome {
    let proc = Proc::start(name, args);
    let deadline = proc.started + limit;
    proc.wait_until(deadline)
}

/// Waits for every process until one shared deadline.
pub fn wait_all(procs: Vec<Proc>, deadline: Instant) -> Vec<Outcome> {
    let outcomes: Vec<Outcome> = procs.into_iter().map(|p| p.wait_until(deadline)).collect();
    for o in &outcomes {
        println!(
            "{} ({:.1} s): {:?}: {}",
            o.name,
            (o.ended - o.started).as_secs_f64(),
            o.status,
            o.error_line().trim_end()
        );
    }
    outcomes
}

/// `[a, b, …]` as owned arguments.
pub fn args<const N: usize>(items: [&str; N]) -> Vec<String> {
    items.iter().map(|s| (*s).to_owned()).collect()
}

/// `cosnark verify --vk <vk> --public <public> --proof <proof>` succeeds.
pub fn assert_verifies(vk: &Path, public: &Path, proof: &Path) {
    let out = run(
        "verify",
        &[
            "verify".into(),
            "--vk".into(),
            arg(vk),
            "--public".into(),
            arg(public),
            "--proof".into(),
            arg(proof),
        ],
        QUICK_LIMIT,
    );
    out.assert_success();
}

/// The pinned snarkjs (scripts/circom-fixtures.sh --tools-only), or the
/// one `SNARKJS` names; `None` when it is not installed.
pub fn snarkjs() -> Option<PathBuf> {
    let path = std::env::var_os("SNARKJS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/circom-tools/node_modules/.bin/snarkjs")
        });
    path.exists().then_some(path)
}

/// `snarkjs groth16 verify` prints OK! for the files, when snarkjs is
/// installed; otherwise says that the check is skipped.
pub fn assert_snarkjs_verifies(vk: &Path, public: &Path, proof: &Path) {
    let Some(snarkjs) = snarkjs() else {
        println!(
            "note: snarkjs is not installed (scripts/circom-fixtures.sh --tools-only): \
             the snarkjs check of {} is skipped",
            proof.display()
        );
        return;
    };
    let mut child = Command::new(&snarkjs)
        .args(["groth16", "verify"])
        .args([vk, public, proof])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run {}: {e}", snarkjs.display()));
    let deadline = Instant::now() + QUICK_LIMIT;
    while child.try_wait().expect("waiting for snarkjs").is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            panic!("snarkjs groth16 verify did not end within {QUICK_LIMIT:?}");
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    let out = child.wait_with_output().expect("snarkjs's output");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        out.status.success() && text.contains("OK!"),
        "snarkjs groth16 verify {}: {text}",
        proof.display()
    );
}

/// The per-process reports of `--json`: every step has CPU time and bytes
/// both ways, and the process counted socket bytes.
pub fn assert_report_has_costs(report: &serde_json::Value, steps: usize) {
    let role = report["role"].as_str().expect("a role");
    let list = report["steps"].as_array().expect("steps");
    assert_eq!(list.len(), steps, "{role}: {report}");
    for step in list {
        assert!(
            step["cpu_s"].as_f64().expect("cpu_s") > 0.0,
            "{role}: {step}"
        );
        assert!(
            step["wall_s"].as_f64().expect("wall_s") > 0.0,
            "{role}: {step}"
        );
        for field in ["bytes_sent", "bytes_received"] {
            assert!(step[field].as_u64().expect(field) > 0, "{role}: {step}");
        }
    }
    for field in ["wire_bytes_sent", "wire_bytes_received"] {
        assert!(report[field].as_u64().expect(field) > 0, "{role}: {report}");
    }
}
