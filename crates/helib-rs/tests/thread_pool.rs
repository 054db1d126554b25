//! The engine's worker pool: thread counts beyond the limit are refused with a
//! typed error, a pool whose threads cannot be started fails cleanly (no
//! abort, no thread left behind), and a failed resize leaves the pool as it
//! was: truthful about its size and usable, with later resizes working.

mod common;

use std::io::Read;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use helib_rs::{Context, Error, Parameters, Plaintext, SecretKey};
use num_bigint::BigUint;

/// Set in the environment of the child process that runs under a memory limit.
const CHILD: &str = "HELIB_THREAD_POOL_TEST_CHILD";
/// Printed by the child when every check passed.
const CHILD_DONE: &str = "thread pool child: all checks passed";

fn params(threads: u32) -> Parameters {
    Parameters::builder()
        .ring_degree(1024)
        .plaintext_modulus(BigUint::from(65537u32))
        .chain_bits(&[40, 40])
        .special_bits(&[])
        .threads(threads)
        .allow_insecure()
        .build()
        .expect("valid parameters")
}

fn too_many(result: Result<impl std::fmt::Debug, Error>, requested: u32) {
    match result {
        Err(Error::TooManyThreads { requested: r, max }) => {
            assert_eq!(r, requested);
            assert_eq!(max, Context::MAX_THREADS);
        }
        other => panic!("{requested} threads: expected TooManyThreads, got {other:?}"),
    }
}

/// A public-key round trip: the context's pool does its work.
fn round_trip(context: &Context) {
    let sk = SecretKey::generate(context).expect("secret key");
    let pk = sk.public_key().expect("public key");
    let message = Plaintext::from_u64s(context, &[5, 6, 7, 65536]).expect("plaintext");
    let ct = pk.encrypt(&message).expect("encrypt");
    assert_eq!(sk.decrypt(&ct).expect("decrypt"), message);
}

#[test]
fn thread_counts_beyond_the_limit_are_refused() {
    assert_eq!(Context::MAX_THREADS, 256);
    too_many(Context::new(&params(u32::MAX)), u32::MAX);
    too_many(
        Context::new(&params(Context::MAX_THREADS + 1)),
        Context::MAX_THREADS + 1,
    );
    let message = Context::new(&params(1000)).unwrap_err().to_string();
    assert!(
        message.contains("1000") && message.contains("256"),
        "the message names the count and the limit: {message}"
    );

    let context = Context::new(&params(2)).expect("context");
    too_many(context.set_threads(1000), 1000);
    too_many(context.set_threads(u32::MAX), u32::MAX);
    assert_eq!(
        context.threads().expect("threads"),
        2,
        "a refused resize changes nothing"
    );
    context.set_threads(3).expect("resize after a refused one");
    assert_eq!(context.threads().expect("threads"), 3);
    round_trip(&context);
    context.set_threads(0).expect("one per hardware thread");
    let hardware = context.threads().expect("threads");
    assert!((1..=Context::MAX_THREADS).contains(&hardware));
    context.set_threads(1).expect("shrink to the caller alone");
    assert_eq!(context.threads().expect("threads"), 1);
    round_trip(&context);
}

/// The largest pool the limit allows works and shrinks back.
#[test]
fn the_largest_pool_starts_and_stops() {
    let context = Context::new(&params(Context::MAX_THREADS)).expect("context");
    assert_eq!(context.threads().expect("threads"), Context::MAX_THREADS);
    round_trip(&context);
    context.set_threads(2).expect("shrink");
    assert_eq!(context.threads().expect("threads"), 2);
    round_trip(&context);
}

/// Runs the checks of `thread_start_failures_are_clean_errors_child` in a
/// process whose address space is capped, so that the system cannot start
/// all of the threads asked for. Before this was handled, the child aborted
/// (`terminate called without an active exception`) or hung in a resize.
#[test]
fn thread_start_failures_are_clean_errors() {
    if std::env::var_os(CHILD).is_some() {
        return thread_start_failures_are_clean_errors_child();
    }
    if common::address_sanitizer_loaded() {
        // AddressSanitizer reserves terabytes of address space: a cap on it
        // cannot be set. The sanitizer run covers the other tests.
        eprintln!("skipped under AddressSanitizer");
        return;
    }
    let mut child = Command::new(std::env::current_exe().expect("test binary"))
        .args([
            "--exact",
            "thread_start_failures_are_clean_errors",
            "--nocapture",
            "--test-threads=1",
        ])
        .env(CHILD, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the child process");
    let deadline = Instant::now() + Duration::from_secs(120);
    let status = loop {
        if let Some(status) = child.try_wait().expect("child status") {
            break status;
        }
        if Instant::now() > deadline {
            child.kill().expect("kill the child");
            child.wait().expect("reap the child");
            panic!("the child hangs (a resize after a failed one never returns)");
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    let mut stdout = String::new();
    let mut stderr = String::new();
    child
        .stdout
        .take()
        .unwrap()
        .read_to_string(&mut stdout)
        .unwrap();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut stderr)
        .unwrap();
    assert!(
        status.success() && stdout.contains(CHILD_DONE),
        "the child failed ({status}):\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
}

fn thread_start_failures_are_clean_errors_child() {
    let context = Context::new(&params(2)).expect("context");
    let baseline = os_threads();
    limit_address_space();

    // A context whose threads cannot all be started is an error, not an
    // abort, and the threads it did start are stopped.
    match Context::new(&params(Context::MAX_THREADS)) {
        Err(Error::OutOfMemory(message)) => {
            println!("Context::new: {message}");
            assert!(message.contains("thread"), "the message says what failed");
        }
        other => panic!("expected OutOfMemory from Context::new, got {other:?}"),
    }
    assert_eq!(
        os_threads(),
        baseline,
        "no thread of the failed context is left"
    );

    // A resize the system cannot complete fails cleanly and changes nothing.
    match context.set_threads(Context::MAX_THREADS) {
        Err(Error::OutOfMemory(message)) => {
            println!("set_threads: {message}");
            assert!(message.contains("thread"), "the message says what failed");
        }
        other => panic!("expected OutOfMemory from a resize, got {other:?}"),
    }
    assert_eq!(
        context.threads().expect("threads"),
        2,
        "the pool keeps its threads"
    );
    assert_eq!(
        os_threads(),
        baseline,
        "the threads started are stopped again"
    );
    round_trip(&context);
    // Later resizes work (they used to spin forever), both ways.
    context.set_threads(3).expect("grow after a failed resize");
    assert_eq!(context.threads().expect("threads"), 3);
    assert_eq!(os_threads(), baseline + 1);
    round_trip(&context);
    context
        .set_threads(2)
        .expect("shrink after a failed resize");
    assert_eq!(context.threads().expect("threads"), 2);
    assert_eq!(os_threads(), baseline);
    round_trip(&context);
    println!("{CHILD_DONE}");
}

/// Threads of this process.
fn os_threads() -> usize {
    std::fs::read_dir("/proc/self/task")
        .expect("/proc/self/task")
        .count()
}

/// Caps the address space at what is mapped now plus room for some thread
/// stacks, far fewer than `Context::MAX_THREADS` of them.
fn limit_address_space() {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    let mapped_kib: u64 = status
        .lines()
        .find_map(|line| line.strip_prefix("VmSize:"))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .expect("VmSize in /proc/self/status");
    let mut stack = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `stack` is a valid rlimit for the call to fill.
    let status = unsafe { libc::getrlimit(libc::RLIMIT_STACK, &mut stack) };
    assert_eq!(status, 0);
    // New threads get stacks of the soft stack limit (glibc uses 2 MiB
    // when it is unlimited); count at least 1 MiB each.
    let stack_bytes = match stack.rlim_cur {
        libc::RLIM_INFINITY => 2 << 20,
        bytes => bytes.max(1 << 20),
    };
    let room = (64 << 20) + 16 * stack_bytes;
    assert!(
        room < u64::from(Context::MAX_THREADS - 1) * stack_bytes,
        "the cap leaves room for fewer threads than the test asks for"
    );
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid rlimit for the call to fill.
    let status = unsafe { libc::getrlimit(libc::RLIMIT_AS, &mut limit) };
    assert_eq!(status, 0);
    limit.rlim_cur = limit.rlim_max.min(mapped_kib * 1024 + room);
    // SAFETY: `limit` is a valid rlimit; lowering the soft limit of this
    // (child) process only affects later mappings.
    let status = unsafe { libc::setrlimit(libc::RLIMIT_AS, &limit) };
    assert_eq!(status, 0);
}
