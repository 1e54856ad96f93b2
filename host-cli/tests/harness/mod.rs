//! What the tests of the example share: `cargo host dev` as a child process and the example
//! vendor server in process, started from the environment `dev` prints.

#![allow(dead_code)] // Each test crate uses its own part.

use std::collections::HashMap;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::mpsc;
use std::time::Duration;

use keyword_tracker::Tracker;
use keyword_tracker::config::{Config, Mode};

/// The example's folder.
pub(crate) fn manifest() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../examples/keyword-tracker")
        .to_string_lossy()
        .into_owned()
}

/// `cargo host dev`, killed when dropped.
pub(crate) struct Dev {
    child: Child,
    lines: mpsc::Receiver<String>,
    /// The `export NAME=value` lines of the banner.
    pub exports: HashMap<String, String>,
    /// The banner up to the last export line.
    pub banner: Vec<String>,
}

impl Drop for Dev {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Dev {
    /// Starts `cargo host dev --listen 127.0.0.1:0` on the example with `extra` arguments.
    pub(crate) fn start(extra: &[&str]) -> Dev {
        Dev::start_with_manifest(Path::new(&manifest()), extra)
    }

    /// Starts `cargo host dev --listen 127.0.0.1:0` on the manifest at `path`.
    pub(crate) fn start_with_manifest(path: &Path, extra: &[&str]) -> Dev {
        let mut child = Command::new(env!("CARGO_BIN_EXE_cargo-host"))
            .args(["dev", "--listen", "127.0.0.1:0", "--manifest"])
            .arg(path)
            .args(extra)
            .env_remove("NO_COLOR")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("starts");
        let stdout = child.stdout.take().expect("piped");
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        let mut dev = Dev {
            child,
            lines,
            exports: HashMap::new(),
            banner: Vec::new(),
        };
        // The banner: the address, then `export NAME=value` lines for the vendor server.
        let first = dev.line(Duration::from_secs(20)).expect("a banner");
        assert!(
            first.starts_with("local host listening on http://127.0.0.1:"),
            "{first}"
        );
        dev.banner.push(first);
        while dev.exports.len() < 5 {
            let line = dev.line(Duration::from_secs(5)).expect("the export lines");
            dev.banner.push(line.clone());
            if let Some((name, value)) = line
                .trim()
                .strip_prefix("export ")
                .and_then(|l| l.split_once('='))
            {
                dev.exports.insert(name.to_owned(), value.to_owned());
            }
        }
        dev
    }

    /// Where it listens (`http://127.0.0.1:<port>`), from the banner's first line.
    pub(crate) fn base(&self) -> &str {
        self.banner[0]
            .strip_prefix("local host listening on ")
            .unwrap_or_default()
    }

    /// The next line printed, waiting at most 20 s.
    pub(crate) fn next_line(&self) -> String {
        self.line(Duration::from_secs(20))
            .expect("a line from `cargo host dev`")
    }

    /// Lines printed from now up to and including the first that contains `word`.
    pub(crate) fn until(&self, word: &str) -> Vec<String> {
        let mut seen = Vec::new();
        loop {
            let line = self.next_line();
            let done = line.contains(word);
            seen.push(line);
            if done {
                return seen;
            }
        }
    }

    /// The next line printed, waiting at most `wait`.
    pub(crate) fn line(&self, wait: Duration) -> Option<String> {
        self.lines.recv_timeout(wait).ok()
    }

    /// The event lines (`accepted`, `duplicate`, `rejected`) printed until `n` arrived, then for
    /// half a second more (to catch extra ones).
    pub(crate) fn events(&self, n: usize) -> Vec<String> {
        let mut seen = Vec::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(15);
        while seen.len() < n && std::time::Instant::now() < deadline {
            if let Some(line) = self.line(Duration::from_millis(100))
                && is_event_line(&line)
            {
                seen.push(line);
            }
        }
        while let Some(line) = self.line(Duration::from_millis(500)) {
            if is_event_line(&line) {
                seen.push(line);
            }
        }
        seen
    }
}

/// Whether a line of `dev` is a verdict on a posted event.
pub(crate) fn is_event_line(line: &str) -> bool {
    ["accepted ", "duplicate ", "rejected "].iter().any(|w| {
        line.split_whitespace()
            .nth(1)
            .is_some_and(|second| second == w.trim())
    })
}

/// The example server, configured from `env` (what `cargo host dev` exported), on a free port.
pub(crate) struct Example {
    /// Where it listens.
    pub url: String,
    /// Its state.
    pub tracker: Arc<Tracker>,
    _runtime: tokio::runtime::Runtime,
}

pub(crate) fn example(env: &HashMap<String, String>) -> Example {
    start_example(env, |_| host_runtime::outbox::MemoryOutbox::new())
}

/// [`example`] keeping its outbox in Redis at `url` (the default key prefix), where
/// `cargo host dev --outbox redis://...` reads it while the server runs.
pub(crate) fn example_on_redis(env: &HashMap<String, String>, url: &str) -> Example {
    start_example(env, |runtime| {
        runtime
            .block_on(host_runtime::outbox::RedisOutbox::connect(url))
            .unwrap()
    })
}

fn start_example<O: host_runtime::outbox::OutboxStore>(
    env: &HashMap<String, String>,
    outbox: impl FnOnce(&tokio::runtime::Runtime) -> O,
) -> Example {
    let config = Config::load(Some("127.0.0.1:0"), false, |k| env.get(k).cloned()).unwrap();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    // The sender's background tasks run on this runtime.
    let _entered = runtime.enter();
    let tracker = Arc::new(Tracker::from_config(&config, outbox(&runtime)).unwrap());
    let handler = runtime
        .block_on(keyword_tracker::app_with_stores(tracker.clone(), &config))
        .unwrap();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind(config.listen))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    runtime.spawn(handler.serve_on(listener));
    assert_eq!(
        config.mode,
        if env.contains_key("HOST_MODE") {
            Mode::Production
        } else {
            Mode::Development
        }
    );
    drop(_entered);
    Example {
        url,
        tracker,
        _runtime: runtime,
    }
}
