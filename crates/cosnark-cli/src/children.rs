//! Role processes started by `cosnark prove`: each runs this same
//! executable with one role's subcommand; its standard error is passed on
//! line by line with the role's name in front (and the last lines kept for
//! the error message); the first one to fail stops the others.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::error::{CliError, CliResult};

/// How many lines of a failed role's output the error message quotes.
const TAIL: usize = 5;

/// A running role process.
struct Running {
    role: String,
    child: Child,
    tail: Arc<Mutex<Vec<String>>>,
    echo: Option<JoinHandle<()>>,
}

/// Starts one process per `(role, arguments)` and waits for all of them,
/// for at most `limit`.
///
/// # Errors
/// [`CliError::Child`] for the first role that fails (exit status and its
/// last lines), that cannot start, or that outlives `limit`; the others
/// are then killed.
pub fn run_all(jobs: Vec<(String, Vec<String>)>, limit: Duration) -> CliResult<()> {
    let exe = std::env::current_exe().map_err(|e| CliError::Child {
        role: "cosnark".into(),
        reason: format!("cannot find this executable: {e}"),
    })?;
    let mut running = Vec::with_capacity(jobs.len());
    for (role, args) in jobs {
        match start(&exe, &role, &args) {
            Ok(child) => running.push(child),
            Err(error) => {
                stop(&mut running);
                return Err(error);
            }
        }
    }
    let deadline = Instant::now() + limit;
    let outcome = wait(&mut running, deadline);
    if outcome.is_err() {
        stop(&mut running);
    }
    for r in &mut running {
        if let Some(echo) = r.echo.take() {
            let _ = echo.join();
        }
    }
    outcome
}

fn start(exe: &std::path::Path, role: &str, args: &[String]) -> CliResult<Running> {
    let mut child = Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| CliError::Child {
            role: role.to_owned(),
            reason: format!("cannot start: {e}"),
        })?;
    let tail = Arc::new(Mutex::new(Vec::new()));
    let echo = child.stderr.take().map(|stderr| {
        let (tail, role) = (tail.clone(), role.to_owned());
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let line = line
                    .strip_prefix(&format!("[{role}] "))
                    .unwrap_or(&line)
                    .to_owned();
                eprintln!("[{role}] {line}");
                let mut tail = tail
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                if tail.len() == TAIL {
                    tail.remove(0);
                }
                tail.push(line);
            }
        })
    });
    Ok(Running {
        role: role.to_owned(),
        child,
        tail,
        echo,
    })
}

/// Waits until every process has ended well, one has failed, or the
/// deadline passes.
fn wait(running: &mut [Running], deadline: Instant) -> CliResult<()> {
    let mut done = vec![false; running.len()];
    while done.iter().any(|d| !d) {
        for (r, done) in running
            .iter_mut()
            .zip(done.iter_mut())
            .filter(|(_, d)| !**d)
        {
            match r.child.try_wait() {
                Ok(Some(status)) if status.success() => *done = true,
                Ok(Some(status)) => {
                    // Let the echo thread take the last lines first.
                    if let Some(echo) = r.echo.take() {
                        let _ = echo.join();
                    }
                    let tail = r
                        .tail
                        .lock()
                        .unwrap_or_else(std::sync::PoisonError::into_inner);
                    return Err(CliError::Child {
                        role: r.role.clone(),
                        reason: format!("{status}; last output: {}", tail.join(" | ")),
                    });
                }
                Ok(None) => {}
                Err(e) => {
                    return Err(CliError::Child {
                        role: r.role.clone(),
                        reason: format!("cannot wait for it: {e}"),
                    })
                }
            }
        }
        if Instant::now() >= deadline {
            let late = running
                .iter()
                .zip(&done)
                .find(|(_, d)| !**d)
                .map_or("a role".to_owned(), |(r, _)| r.role.clone());
            return Err(CliError::Child {
                role: late,
                reason: "did not finish in time".into(),
            });
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    Ok(())
}

/// Kills every process still running and reaps it.
fn stop(running: &mut [Running]) {
    for r in running.iter_mut() {
        if let Ok(None) = r.child.try_wait() {
            let _ = r.child.kill();
        }
        let _ = r.child.wait();
    }
}
