//! `cargo host dev --watch`: builds the vendor server, runs it against the local host, and
//! rebuilds and restarts it whenever its sources or manifest change, while the local host stays up.
//!
//! The loop is the one `wrangler dev` and `shopify app dev` give: save, and the next call reaches
//! the new code. The files watched are the crate's `Cargo.toml`, `build.rs`, the manifest and
//! everything under `src/` (looked at every 250 ms, as `cargo host watch` does: no file-system
//! notification API is portable enough to rely on). A change is built with `cargo build`
//! (compiler output on stderr as usual); only a successful build replaces the running server, which
//! is stopped with SIGTERM (its graceful shutdown; killed after 5 s) before the new one starts.
//! A failed build leaves the last good server serving and says so.

use std::collections::BTreeMap;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use crate::output::Term;

/// How often the files are looked at.
const POLL: Duration = Duration::from_millis(250);
/// How long a running server has to stop after SIGTERM before it is killed.
const STOP_GRACE: Duration = Duration::from_secs(5);

/// What to run and how.
pub(crate) struct Supervisor {
    /// The crate's folder.
    pub crate_dir: PathBuf,
    /// The manifest file.
    pub manifest: PathBuf,
    /// `--bin`, for a crate with several binaries.
    pub bin: Option<String>,
    /// The environment the server starts with (the local host's `export` lines, `LISTEN_ADDR`).
    pub env: Vec<(String, String)>,
    /// Shared with the local host, so it can stop the server when it stops.
    pub running: Arc<Mutex<Option<Child>>>,
    /// Output style.
    pub term: Term,
}

impl Supervisor {
    /// Builds and starts the server, then watches until the process ends. Runs on its own thread.
    pub(crate) fn run(self) {
        let mut seen = self.stamps();
        self.rebuild("starting");
        loop {
            std::thread::sleep(POLL);
            let now = self.stamps();
            if now == seen {
                continue;
            }
            // Editors write in several steps; wait until the files stop changing.
            let mut settled = now;
            loop {
                std::thread::sleep(POLL);
                let again = self.stamps();
                if again == settled {
                    break;
                }
                settled = again;
            }
            seen = settled;
            self.rebuild("a change was saved");
        }
    }

    /// Modification times of the watched files.
    fn stamps(&self) -> BTreeMap<PathBuf, Option<SystemTime>> {
        let mut files = vec![
            self.crate_dir.join("Cargo.toml"),
            self.crate_dir.join("build.rs"),
            self.manifest.clone(),
        ];
        collect(&self.crate_dir.join("src"), &mut files, 0);
        files
            .into_iter()
            .map(|f| {
                let modified = std::fs::metadata(&f).and_then(|m| m.modified()).ok();
                (f, modified)
            })
            .collect()
    }

    /// `cargo build`, then a restart if it succeeded.
    fn rebuild(&self, why: &str) {
        crate::output::line(&format!(
            "{} {why}: building the vendor server ...",
            self.term.dim("dev:")
        ));
        let started = Instant::now();
        let executable = match self.build() {
            Ok(path) => path,
            Err(message) => {
                let serving = self.running.lock().map(|r| r.is_some()).unwrap_or(false);
                crate::output::line(&format!(
                    "{} {message}; {}",
                    self.term.bad(),
                    if serving {
                        "the last good build keeps serving"
                    } else {
                        "nothing is serving until the next save"
                    }
                ));
                return;
            }
        };
        self.stop();
        let mut command = Command::new(&executable);
        command
            .current_dir(&self.crate_dir)
            .envs(self.env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .stdin(Stdio::null());
        match command.spawn() {
            Ok(child) => {
                crate::output::line(&format!(
                    "{} built in {:.1} s; started {} (pid {})",
                    self.term.ok(),
                    started.elapsed().as_secs_f64(),
                    executable.display(),
                    child.id()
                ));
                if let Ok(mut running) = self.running.lock() {
                    *running = Some(child);
                }
            }
            Err(e) => crate::output::line(&format!(
                "{} cannot start {}: {e}",
                self.term.bad(),
                executable.display()
            )),
        }
    }

    /// Builds the crate; the path of its executable.
    fn build(&self) -> Result<PathBuf, String> {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let mut command = Command::new(cargo);
        command
            .args(["build", "--message-format=json-render-diagnostics"])
            .current_dir(&self.crate_dir)
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit());
        if let Some(bin) = &self.bin {
            command.args(["--bin", bin]);
        }
        let mut child = command
            .spawn()
            .map_err(|e| format!("cannot run cargo: {e}"))?;
        let mut executables = Vec::new();
        if let Some(stdout) = child.stdout.take() {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let Ok(message) = serde_json::from_str::<serde_json::Value>(&line) else {
                    continue;
                };
                if message["reason"] == "compiler-artifact"
                    && let Some(exe) = message["executable"].as_str()
                {
                    executables.push(PathBuf::from(exe));
                }
                if message["reason"] == "compiler-message"
                    && let Some(rendered) = message["message"]["rendered"].as_str()
                {
                    eprint!("{rendered}");
                }
            }
        }
        let status = child.wait().map_err(|e| format!("cargo failed: {e}"))?;
        if !status.success() {
            return Err("the build failed (see above)".to_owned());
        }
        match executables.as_slice() {
            [one] => Ok(one.clone()),
            [] => Err(format!(
                "{} builds no binary to serve",
                self.crate_dir.display()
            )),
            _ => Err("the crate has several binaries; name one with `--bin`".to_owned()),
        }
    }

    /// Stops the running server, if any: SIGTERM, then a kill after the grace period.
    fn stop(&self) {
        let Ok(mut running) = self.running.lock() else {
            return;
        };
        if let Some(child) = running.take() {
            stop_child(child);
        }
    }
}

/// Stops a child: SIGTERM (its graceful shutdown), a kill if it is still running after the grace.
pub(crate) fn stop_child(mut child: Child) {
    #[cfg(unix)]
    {
        let _ = Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + STOP_GRACE;
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let _ = child.kill();
    let _ = child.wait();
}

/// Files under `dir`, skipping hidden folders; at most 8 levels deep.
fn collect(dir: &Path, out: &mut Vec<PathBuf>, depth: usize) {
    if depth > 8 {
        return;
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let hidden = entry.file_name().to_string_lossy().starts_with('.');
        match entry.file_type() {
            Ok(t) if t.is_dir() && !hidden => collect(&path, out, depth + 1),
            Ok(t) if t.is_file() => out.push(path),
            _ => {}
        }
    }
}
