//! A small LSP client for driving rust-analyzer the way an editor does: it opens and edits documents,
//! asks for completions, hovers and definitions, keeps the diagnostics the server publishes, and
//! watches the files the server asks it to watch (`workspace/didChangeWatchedFiles` registrations,
//! which is how editors such as VS Code report changes under `target/.../out`).

use std::collections::HashMap;
use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender, channel};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use serde_json::{Value, json};

/// What the reader thread shares with the test.
#[derive(Default)]
struct Shared {
    quiescent: bool,
    diagnostics: HashMap<String, Vec<Value>>,
    /// Directories and extensions to watch, from the server's registrations: `(base, extension)`.
    watched: Vec<(PathBuf, String)>,
}

/// A running rust-analyzer.
pub(crate) struct Server {
    child: Child,
    stdin: Arc<Mutex<ChildStdin>>,
    responses: Receiver<Value>,
    shared: Arc<Mutex<Shared>>,
    next_id: i64,
    versions: HashMap<String, i64>,
    stop: Arc<Mutex<bool>>,
}

/// `file://` URI of a path.
pub(crate) fn uri(path: &Path) -> String {
    format!("file://{}", path.display())
}

fn send(stdin: &Mutex<ChildStdin>, message: &Value) {
    let body = message.to_string();
    let Ok(mut stdin) = stdin.lock() else { return };
    // The server may have exited; the test then fails on the missing answer instead.
    let _ = write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len());
    let _ = stdin.flush();
}

fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length:") {
            length = n.trim().parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// Turns a registration's glob (`/base/**/*.rs`) into what to watch; other globs are not needed here.
fn watch_of(glob: &str) -> Option<(PathBuf, String)> {
    let (base, ext) = glob.split_once("/**/*.")?;
    (!ext.contains(['{', '*', '/'])).then(|| (PathBuf::from(base), ext.to_owned()))
}

fn reader_loop(
    stdout: impl Read,
    stdin: Arc<Mutex<ChildStdin>>,
    shared: Arc<Mutex<Shared>>,
    responses: Sender<Value>,
) {
    let mut reader = BufReader::new(stdout);
    while let Some(message) = read_message(&mut reader) {
        let method = message.get("method").and_then(Value::as_str);
        match (method, message.get("id")) {
            (Some("experimental/serverStatus"), _) => {
                if let Ok(mut s) = shared.lock() {
                    s.quiescent = message["params"]["quiescent"].as_bool().unwrap_or(false);
                }
            }
            (Some("textDocument/publishDiagnostics"), _) => {
                let uri = message["params"]["uri"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                let list = message["params"]["diagnostics"]
                    .as_array()
                    .cloned()
                    .unwrap_or_default();
                if let Ok(mut s) = shared.lock() {
                    s.diagnostics.insert(uri, list);
                }
            }
            (Some(method), Some(id)) => {
                // A request from the server: answer as a plain editor would.
                if method == "client/registerCapability" {
                    let globs = message["params"]["registrations"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|r| r["method"] == "workspace/didChangeWatchedFiles")
                        .flat_map(|r| {
                            r["registerOptions"]["watchers"]
                                .as_array()
                                .cloned()
                                .unwrap_or_default()
                        })
                        .filter_map(|w| w["globPattern"].as_str().and_then(watch_of));
                    if let Ok(mut s) = shared.lock() {
                        s.watched.extend(globs);
                    }
                }
                // `null` for everything, `workspace/configuration` included: the server then keeps
                // the initialization options.
                send(
                    &stdin,
                    &json!({ "jsonrpc": "2.0", "id": id, "result": null }),
                );
            }
            (None, Some(_)) => {
                let _ = responses.send(message);
            }
            _ => {}
        }
    }
}

/// Every file under the watched directories with a watched extension, with its modification time.
fn snapshot(watched: &[(PathBuf, String)]) -> HashMap<PathBuf, SystemTime> {
    fn walk(dir: &Path, ext: &str, out: &mut HashMap<PathBuf, SystemTime>, depth: usize) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            let Ok(meta) = entry.metadata() else { continue };
            if meta.is_dir() {
                // A build folder inside a watched package is the editor's business to exclude too.
                if depth < 12
                    && path
                        .file_name()
                        .is_some_and(|n| n != "target" && n != ".git")
                {
                    walk(&path, ext, out, depth + 1);
                }
            } else if path.extension().is_some_and(|e| e == ext)
                && let Ok(modified) = meta.modified()
            {
                out.insert(path, modified);
            }
        }
    }
    let mut out = HashMap::new();
    for (base, ext) in watched {
        walk(base, ext, &mut out, 0);
    }
    out
}

/// Reports changes of watched files to the server every 200 ms, as an editor's file watcher does.
fn watch_loop(stdin: Arc<Mutex<ChildStdin>>, shared: Arc<Mutex<Shared>>, stop: Arc<Mutex<bool>>) {
    let mut known: HashMap<PathBuf, SystemTime> = HashMap::new();
    let mut watched_len = 0;
    while !stop.lock().map(|s| *s).unwrap_or(true) {
        std::thread::sleep(Duration::from_millis(200));
        let watched = shared.lock().map(|s| s.watched.clone()).unwrap_or_default();
        let now = snapshot(&watched);
        if watched.len() != watched_len {
            // New registrations: start from what is there.
            watched_len = watched.len();
            known = now;
            continue;
        }
        let mut changes = Vec::new();
        for (path, modified) in &now {
            match known.get(path) {
                None => changes.push(json!({ "uri": uri(path), "type": 1 })),
                Some(before) if before != modified => {
                    changes.push(json!({ "uri": uri(path), "type": 2 }));
                }
                _ => {}
            }
        }
        for path in known.keys().filter(|p| !now.contains_key(*p)) {
            changes.push(json!({ "uri": uri(path), "type": 3 }));
        }
        if !changes.is_empty() {
            send(
                &stdin,
                &json!({ "jsonrpc": "2.0", "method": "workspace/didChangeWatchedFiles", "params": { "changes": changes } }),
            );
        }
        known = now;
    }
}

impl Server {
    /// Starts rust-analyzer on the crate at `root`, with its `cargo check` on save, building into
    /// `target_dir`.
    pub(crate) fn start(root: &Path, target_dir: &Path) -> Server {
        let mut child = Command::new("rust-analyzer")
            .current_dir(root)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("rust-analyzer starts");
        let stdin = Arc::new(Mutex::new(child.stdin.take().expect("stdin")));
        let stdout = child.stdout.take().expect("stdout");
        let shared = Arc::new(Mutex::new(Shared::default()));
        let stop = Arc::new(Mutex::new(false));
        let (tx, rx) = channel();
        {
            let (stdin, shared) = (stdin.clone(), shared.clone());
            std::thread::spawn(move || reader_loop(stdout, stdin, shared, tx));
        }
        {
            let (stdin, shared, stop) = (stdin.clone(), shared.clone(), stop.clone());
            std::thread::spawn(move || watch_loop(stdin, shared, stop));
        }
        let mut server = Server {
            child,
            stdin,
            responses: rx,
            shared,
            next_id: 0,
            versions: HashMap::new(),
            stop,
        };
        let target = target_dir.display().to_string();
        server.request(
            "initialize",
            json!({
                "processId": std::process::id(),
                "rootUri": uri(root),
                "capabilities": {
                    "experimental": { "serverStatusNotification": true },
                    "window": { "workDoneProgress": true },
                    "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } },
                    "textDocument": {
                        "completion": { "completionItem": { "snippetSupport": false } },
                        "hover": { "contentFormat": ["markdown", "plaintext"] },
                        "definition": { "linkSupport": false },
                        "codeAction": {
                            "codeActionLiteralSupport": {
                                "codeActionKind": { "valueSet": ["", "quickfix", "refactor", "refactor.extract", "refactor.inline", "refactor.rewrite"] }
                            },
                            "resolveSupport": { "properties": ["edit"] }
                        }
                    }
                },
                "initializationOptions": {
                    "cargo": { "extraEnv": { "CARGO_TARGET_DIR": target } },
                    "check": { "extraEnv": { "CARGO_TARGET_DIR": target } },
                    "checkOnSave": true,
                    "files": { "watcher": "client" }
                }
            }),
            Duration::from_secs(60),
        );
        server.notify("initialized", json!({}));
        server
    }

    /// Sends a notification.
    pub(crate) fn notify(&self, method: &str, params: Value) {
        send(
            &self.stdin,
            &json!({ "jsonrpc": "2.0", "method": method, "params": params }),
        );
    }

    /// Sends a request and waits for its answer's `result` (`Null` on an error answer).
    pub(crate) fn request(&mut self, method: &str, params: Value, timeout: Duration) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        send(
            &self.stdin,
            &json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }),
        );
        let end = Instant::now() + timeout;
        loop {
            let left = end.saturating_duration_since(Instant::now());
            match self.responses.recv_timeout(left) {
                Ok(answer) if answer["id"] == id => {
                    if let Some(error) = answer.get("error") {
                        return json!({ "error": error });
                    }
                    return answer.get("result").cloned().unwrap_or(Value::Null);
                }
                Ok(_) => continue,
                Err(RecvTimeoutError::Timeout) => panic!("rust-analyzer did not answer {method}"),
                Err(RecvTimeoutError::Disconnected) => panic!("rust-analyzer exited"),
            }
        }
    }

    /// Waits until the server says it is quiescent (indexing and build scripts done); the time taken.
    pub(crate) fn wait_quiescent(&self, timeout: Duration) -> Duration {
        let start = Instant::now();
        std::thread::sleep(Duration::from_millis(500));
        while start.elapsed() < timeout {
            if self.shared.lock().is_ok_and(|s| s.quiescent) {
                return start.elapsed();
            }
            std::thread::sleep(Duration::from_millis(200));
        }
        panic!("rust-analyzer was still busy after {timeout:?}");
    }

    /// Opens a document with `text`, or replaces its text when it is open.
    pub(crate) fn set_text(&mut self, path: &Path, text: &str) {
        let key = uri(path);
        match self.versions.get_mut(&key) {
            None => {
                self.versions.insert(key.clone(), 1);
                self.notify(
                    "textDocument/didOpen",
                    json!({ "textDocument": { "uri": key, "languageId": "rust", "version": 1, "text": text } }),
                );
            }
            Some(version) => {
                *version += 1;
                let version = *version;
                self.notify(
                    "textDocument/didChange",
                    json!({ "textDocument": { "uri": key, "version": version }, "contentChanges": [{ "text": text }] }),
                );
            }
        }
    }

    /// Tells the server that a file changed on disk and was saved, as an editor reports a save.
    pub(crate) fn saved(&self, path: &Path) {
        self.notify(
            "workspace/didChangeWatchedFiles",
            json!({ "changes": [{ "uri": uri(path), "type": 2 }] }),
        );
    }

    /// Labels of the completions at `(line, character)` (0-based).
    pub(crate) fn completions(
        &mut self,
        path: &Path,
        line: usize,
        character: usize,
    ) -> Vec<String> {
        let result = self.request(
            "textDocument/completion",
            json!({ "textDocument": { "uri": uri(path) }, "position": { "line": line, "character": character } }),
            Duration::from_secs(60),
        );
        let items = match &result {
            Value::Array(items) => items.clone(),
            Value::Object(list) => list
                .get("items")
                .and_then(Value::as_array)
                .cloned()
                .unwrap_or_default(),
            _ => Vec::new(),
        };
        items
            .iter()
            .filter_map(|i| i["label"].as_str())
            .map(|l| l.split('(').next().unwrap_or(l).trim().to_owned())
            .collect()
    }

    /// The answer of a position request (`textDocument/hover`, `textDocument/definition`, ...).
    pub(crate) fn at(&mut self, method: &str, path: &Path, line: usize, character: usize) -> Value {
        self.request(
            method,
            json!({ "textDocument": { "uri": uri(path) }, "position": { "line": line, "character": character } }),
            Duration::from_secs(60),
        )
    }

    /// The diagnostics last published for a file.
    pub(crate) fn diagnostics(&self, path: &Path) -> Vec<Value> {
        self.shared
            .lock()
            .ok()
            .and_then(|s| s.diagnostics.get(&uri(path)).cloned())
            .unwrap_or_default()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        if let Ok(mut stop) = self.stop.lock() {
            *stop = true;
        }
        let id = self.next_id + 1;
        send(
            &self.stdin,
            &json!({ "jsonrpc": "2.0", "id": id, "method": "shutdown", "params": null }),
        );
        send(
            &self.stdin,
            &json!({ "jsonrpc": "2.0", "method": "exit", "params": null }),
        );
        let end = Instant::now() + Duration::from_secs(5);
        while Instant::now() < end {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(100));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
