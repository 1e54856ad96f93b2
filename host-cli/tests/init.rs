//! `cargo host init` and `cargo host dev --watch` over real processes: every template is generated,
//! built (no warnings), served and checked with `cargo host check`; the full one is run by `dev
//! --watch`, reached by `trigger` (its signed alert accepted by the local host), edited, rebuilt
//! and restarted, and kept serving through a broken build.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

/// The SDK checkout.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// The target folder this test was built in, shared with the crates it builds.
fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// A fresh, empty folder for one test.
fn scratch(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("init-test")
        .join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn host(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir())
        .env_remove("HOST_SERVER_URL")
        .env_remove("HOST_SDK_PATH")
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// `cargo host init <name> --template <template>` in `parent`; the crate's folder.
fn init(parent: &Path, name: &str, template: &str) -> PathBuf {
    let root = root();
    let o = host(
        parent,
        &[
            "init",
            name,
            "--template",
            template,
            "--sdk",
            root.to_str().unwrap(),
        ],
    );
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert!(
        text(&o.stdout).contains(&format!("created `{name}` ({template} template)")),
        "{}",
        text(&o.stdout)
    );
    parent.join(name)
}

/// A child process whose stdout lines arrive on a channel; stopped when dropped.
struct Running {
    child: Option<Child>,
    lines: mpsc::Receiver<String>,
    seen: Vec<String>,
}

impl Running {
    fn start(mut command: Command) -> Running {
        let mut child = command
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if tx.send(line).is_err() {
                    return;
                }
            }
        });
        Running {
            child: Some(child),
            lines,
            seen: Vec::new(),
        }
    }

    /// The next line satisfying `want`, within `wait`.
    fn wait_for(&mut self, wait: Duration, want: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + wait;
        while let Some(left) = deadline.checked_duration_since(Instant::now()) {
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    if want(&line) {
                        return line;
                    }
                }
                Err(_) => break,
            }
        }
        panic!(
            "no such line within {wait:?}; seen:\n{}",
            self.seen.join("\n")
        );
    }

    /// SIGTERM, then the exit status.
    fn terminate(&mut self) -> Option<i32> {
        let mut child = self.child.take()?;
        Command::new("kill")
            .args(["-TERM", &child.id().to_string()])
            .status()
            .unwrap();
        let deadline = Instant::now() + Duration::from_secs(20);
        while Instant::now() < deadline {
            if let Ok(Some(status)) = child.try_wait() {
                return status.code();
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        panic!("did not stop within 20 s of SIGTERM");
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}

/// `http://ADDR` from a `listening on http://ADDR` line.
fn url_of(line: &str) -> String {
    line.split_whitespace()
        .find(|w| w.starts_with("http://"))
        .unwrap()
        .to_owned()
}

/// A port nothing listens on right now.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

const FIRST_BUILD: Duration = Duration::from_secs(600);

#[test]
fn every_template_builds_without_warnings_serves_and_passes_check() {
    let parent = scratch("templates");
    for template in ["minimal", "assistant", "connector", "full"] {
        let name = format!("{template}-ext");
        let dir = init(&parent, &name, template);
        let manifest = host(&dir, &["validate"]);
        assert_eq!(
            manifest.status.code(),
            Some(0),
            "{}",
            text(&manifest.stdout)
        );
        assert!(
            text(&manifest.stdout).trim_end().ends_with("is valid"),
            "{template}: the manifest has warnings: {}",
            text(&manifest.stdout)
        );

        let build = Command::new(env!("CARGO"))
            .args(["build", "--message-format=short"])
            .current_dir(&dir)
            .env("CARGO_TARGET_DIR", target_dir())
            .output()
            .unwrap();
        let log = text(&build.stderr);
        assert!(build.status.success(), "{template}: {log}");
        let own_warnings: Vec<&str> = log
            .lines()
            .filter(|l| l.contains("warning") && !l.contains("/host-"))
            .collect();
        assert!(own_warnings.is_empty(), "{template}: {log}");

        let mut server = Running::start({
            let mut c = Command::new(target_dir().join("debug").join(&name));
            c.env("LISTEN_ADDR", "127.0.0.1:0")
                .env_remove("HOST_JWKS_URL")
                .current_dir(&dir);
            c
        });
        let url = url_of(&server.wait_for(Duration::from_secs(30), |l| {
            l.starts_with("listening on http://")
        }));
        let check = host(&dir, &["check", "--server", &url]);
        let out = text(&check.stdout);
        assert_eq!(check.status.code(), Some(0), "{template}: {out}");
        assert!(
            out.trim_end().ends_with(" failed") && out.contains(" 0 failed"),
            "{out}"
        );
        // Graceful shutdown on SIGTERM.
        assert_eq!(server.terminate(), Some(0), "{template}");
        if template == "full" {
            started_as_production(&dir, &target_dir().join("debug").join(&name));
        }
    }
}

/// The `full` template started the way production starts it (the host's key set on another
/// machine in HOST_JWKS_URL): it assumes nothing. Without the event URL or the secret it refuses
/// to start naming each; with the published development secret it refuses naming it; with both it
/// serves, keeping the keys of host events on disk beside the outbox.
fn started_as_production(dir: &std::path::Path, binary: &std::path::Path) {
    let production = |extra: &[(&str, &str)]| {
        let mut c = Command::new(binary);
        c.env("LISTEN_ADDR", "127.0.0.1:0")
            .env(
                "HOST_JWKS_URL",
                "https://auth.host.example/.well-known/jwks.json",
            )
            .env("HOST_OUTBOX", dir.join("production-outbox"))
            .env_remove("HOST_EVENT_POST_URL")
            .env_remove("HOST_SIGNING_SECRET")
            .env_remove("HOST_MODE")
            .env_remove("HOST_DEDUPE")
            .envs(extra.iter().copied())
            .current_dir(dir);
        c
    };
    let refused = |extra: &[(&str, &str)]| {
        let out = production(extra).output().unwrap();
        assert_eq!(out.status.code(), Some(2), "{}", text(&out.stdout));
        text(&out.stderr)
    };
    let said = refused(&[]);
    assert!(
        said.contains("production needs HOST_EVENT_POST_URL and HOST_SIGNING_SECRET"),
        "{said}"
    );
    let said = refused(&[("HOST_EVENT_POST_URL", "https://host.example/v1/events")]);
    assert!(
        said.contains("production needs HOST_SIGNING_SECRET"),
        "{said}"
    );
    let said = refused(&[
        ("HOST_EVENT_POST_URL", "https://host.example/v1/events"),
        (
            "HOST_SIGNING_SECRET",
            host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET,
        ),
    ]);
    assert!(
        said.contains("development secret published with the SDK"),
        "{said}"
    );
    let mut server = Running::start(production(&[
        ("HOST_EVENT_POST_URL", "https://host.example/v1/events"),
        (
            "HOST_SIGNING_SECRET",
            "whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD",
        ),
    ]));
    server.wait_for(Duration::from_secs(30), |l| {
        l.starts_with("listening on http://")
    });
    assert!(
        dir.join("production-outbox/dedupe.redb").exists(),
        "the keys of host events are not on disk"
    );
    assert_eq!(server.terminate(), Some(0));
}

#[test]
fn init_overwrites_nothing_and_refuses_bad_names() {
    let parent = scratch("refusals");
    let dir = init(&parent, "taken-ext", "minimal");
    let main = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    std::fs::write(dir.join("src/main.rs"), "// mine\n").unwrap();
    let o = host(&parent, &["init", "taken-ext", "--template", "full"]);
    assert_eq!(o.status.code(), Some(2));
    let err = text(&o.stderr);
    assert!(
        err.contains("already has Cargo.toml, build.rs, host.extension.json, icon.svg, .gitignore, src/main.rs, src/config.rs"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("src/main.rs")).unwrap(),
        "// mine\n"
    );
    assert!(main.contains("impl Tools for Server"));

    // One file is enough to refuse, and nothing else is written.
    let partial = parent.join("partial");
    std::fs::create_dir_all(&partial).unwrap();
    std::fs::write(partial.join("Cargo.toml"), "[package]\n").unwrap();
    let o = host(&partial, &["init"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("already has Cargo.toml;"),
        "{}",
        text(&o.stderr)
    );
    assert!(!partial.join("host.extension.json").exists());

    let o = host(&parent, &["init", "ok-folder", "--name", "Bad_Name"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("`Bad_Name` cannot be the extension's id"),
        "{}",
        text(&o.stderr)
    );
    assert!(!parent.join("ok-folder/Cargo.toml").exists());
    // Without `--sdk`, a CLI built in the checkout writes path dependencies on it.
    let o = host(&parent, &["init", "plain-ext"]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    let manifest = std::fs::read_to_string(parent.join("plain-ext/Cargo.toml")).unwrap();
    let runtime = root().canonicalize().unwrap().join("host-runtime");
    assert!(
        manifest.contains(&format!(
            "host-runtime = {{ path = \"{}\" }}",
            runtime.display()
        )),
        "{manifest}"
    );
    assert!(
        text(&o.stdout).contains("SDK: host-runtime and host-runtime-build in "),
        "{}",
        text(&o.stdout)
    );

    let o = host(&parent, &["init", "x-ext", "--sdk", "/no/such/sdk"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("is not the SDK checkout"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn dev_watch_runs_rebuilds_and_restarts_the_vendor_server() {
    let parent = scratch("watch");
    let dir = init(&parent, "watched-ext", "full");
    let port = free_port();
    let listen = format!("127.0.0.1:{port}");
    let server = format!("http://{listen}");
    let mut dev = Running::start({
        let mut c = Command::new(env!("CARGO_BIN_EXE_cargo-host"));
        c.args([
            "dev",
            "--listen",
            "127.0.0.1:0",
            "--watch",
            "--server-listen",
            &listen,
        ])
        .current_dir(&dir)
        .env("CARGO_TARGET_DIR", target_dir());
        c
    });
    dev.wait_for(FIRST_BUILD, |l| l.starts_with("listening on http://"));

    let greet = |expected: &str| {
        let o = host(
            &dir,
            &[
                "call",
                "tool",
                "greet",
                "--server",
                &server,
                "--input",
                r#"{"name": "Ada"}"#,
            ],
        );
        let out = text(&o.stdout);
        assert!(out.starts_with("200 "), "{out}{}", text(&o.stderr));
        assert!(out.contains(expected), "{out}");
    };
    greet("Hello, Ada!");

    // The server runs against the local host: its signed alert is checked and accepted there.
    let o = host(&dir, &["trigger", "release.shipped", "--server", &server]);
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stdout));
    dev.wait_for(Duration::from_secs(30), |l| {
        l.contains("accepted release.noted (alert)")
    });

    // An edit is rebuilt and served.
    let main = dir.join("src/main.rs");
    let source = std::fs::read_to_string(&main).unwrap();
    std::fs::write(&main, source.replace("Hello, {}!", "Welcome back, {}!")).unwrap();
    dev.wait_for(Duration::from_secs(300), |l| {
        l.contains("built in") && l.contains("started")
    });
    dev.wait_for(Duration::from_secs(30), |l| {
        l.starts_with("listening on http://")
    });
    greet("Welcome back, Ada!");

    // A broken edit leaves the last good build serving.
    std::fs::write(&main, format!("{source}\nfn broken( {{\n")).unwrap();
    dev.wait_for(Duration::from_secs(300), |l| {
        l.contains("the build failed") && l.contains("the last good build keeps serving")
    });
    greet("Welcome back, Ada!");

    // Stopping the local host stops the server it runs.
    assert_eq!(dev.terminate(), Some(0));
    let refused = std::net::TcpStream::connect(&listen);
    assert!(
        refused.is_err(),
        "the vendor server outlived `cargo host dev`"
    );
}

/// The shell block at `anchor`, as (command, expected status) pairs: the comment after a command
/// may start with the HTTP status it prints (`# 200 ...`, `# 422 ...`, `# 204; ...`).
fn doc_commands(anchor: &str) -> Vec<(String, Option<u16>)> {
    host_sdk_tests::docs::code_block(anchor)
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let (command, comment) = match l.find("  #") {
                Some(i) => (&l[..i], l[i + 3..].trim()),
                None => (l, ""),
            };
            let status = comment
                .split(|c: char| !c.is_ascii_digit())
                .next()
                .and_then(|d| d.parse().ok());
            (command.trim().to_owned(), status)
        })
        .collect()
}

/// `PATH` with `cargo-host` and `cargo` first, so `cargo host ...` runs this build.
fn path_with_cargo_host() -> String {
    let bin = Path::new(env!("CARGO_BIN_EXE_cargo-host"))
        .parent()
        .unwrap();
    let cargo = Path::new(env!("CARGO")).parent().unwrap();
    format!(
        "{}:{}:{}",
        bin.display(),
        cargo.display(),
        std::env::var("PATH").unwrap_or_default()
    )
}

/// Runs one documented command with `sh`, as a reader would paste it.
fn shell(dir: &Path, command: &str, server: &str) -> Output {
    Command::new("sh")
        .args(["-c", command])
        .current_dir(dir)
        .env("PATH", path_with_cargo_host())
        .env("CARGO_TARGET_DIR", target_dir())
        .env("HOST_SERVER_URL", server)
        .output()
        .unwrap()
}

/// `cargo run` in `dir` on `listen`, until `listening on` is printed.
fn cargo_run(dir: &Path, listen: &str) -> Running {
    let mut server = Running::start({
        let mut c = Command::new(env!("CARGO"));
        c.args(["run", "--quiet"])
            .current_dir(dir)
            .env("CARGO_TARGET_DIR", target_dir())
            .env("LISTEN_ADDR", listen)
            .env_remove("HOST_JWKS_URL");
        c
    });
    server.wait_for(FIRST_BUILD, |l| l.starts_with("listening on http://"));
    server
}

/// Runs documented commands against `server`, checking each one's exit code and printed status.
fn run_doc_commands(dir: &Path, commands: &[(String, Option<u16>)], server: &str) {
    for (command, status) in commands {
        let o = shell(dir, command, server);
        let out = text(&o.stdout);
        let expected_exit = match status {
            Some(s) if *s >= 300 => 1,
            _ => 0,
        };
        assert_eq!(
            o.status.code(),
            Some(expected_exit),
            "`{command}`:\n{out}{}",
            text(&o.stderr)
        );
        if let Some(status) = status {
            assert!(
                out.starts_with(&format!("{status} ")) || out.contains(&format!("-> {status} ")),
                "`{command}` should print {status}:\n{out}"
            );
        }
    }
}

#[test]
fn the_quick_start_and_guide_walkthrough_run_as_written() {
    let parent = scratch("walkthrough");
    let listen = format!("127.0.0.1:{}", free_port());
    let server_url = format!("http://{listen}");
    // The README's quick start: `cargo host init`, `cd`, `cargo run`. (`cargo install` is what
    // put `cargo-host` on the PATH; this test puts its own build there instead.)
    let mut dir = parent.clone();
    let mut server = None;
    for (command, _) in doc_commands("hello-init") {
        if command.starts_with("cargo install") {
            continue;
        } else if let Some(folder) = command.strip_prefix("cd ") {
            dir = dir.join(folder.trim());
        } else if command == "cargo run" {
            server = Some(cargo_run(&dir, &listen));
        } else {
            let o = shell(&dir, &command, &server_url);
            assert_eq!(o.status.code(), Some(0), "`{command}`: {}", text(&o.stderr));
        }
    }
    assert!(server.is_some(), "the block runs the server");
    run_doc_commands(&dir, &doc_commands("hello-calls"), &server_url);

    // The guide's "Grow it": the manifest and main.rs as it shows them after the edit.
    std::fs::write(
        dir.join("host.extension.json"),
        host_sdk_tests::docs::code_block("hello-manifest"),
    )
    .unwrap();
    std::fs::write(
        dir.join("src/main.rs"),
        host_sdk_tests::docs::code_block("hello-main-rs"),
    )
    .unwrap();
    if let Some(mut old) = server.take() {
        old.terminate();
    }
    let _server = cargo_run(&dir, &listen);
    let commands = doc_commands("hello-trigger");
    run_doc_commands(&dir, &commands, &server_url);
    let o = shell(
        &dir,
        &commands
            .iter()
            .find(|(c, _)| c.contains("call tool greet"))
            .unwrap()
            .0,
        &server_url,
    );
    assert!(
        text(&o.stdout).contains("1 releases seen"),
        "{}",
        text(&o.stdout)
    );
}
