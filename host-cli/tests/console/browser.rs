//! Headless Chromium over WebDriver (chromedriver), and what the browser tests do with it: wait for
//! the page, read it, type, take screenshots into the build folder, and run axe-core.
//!
//! axe-core comes from the npm registry, pinned by `host-cli/tests/console/package-lock.json`;
//! `.ci/run` installs it with `npm ci --prefix host-cli/tests/console`.

use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use fantoccini::{Client, ClientBuilder, Locator};
use serde_json::{Value, json};

/// chromedriver on a free port, killed when dropped.
///
/// Its temporary folder (where Chromium keeps each session's profile) is its own, removed with it:
/// a session a failed test never closed would otherwise leave its profile in `/tmp`.
pub(crate) struct Driver {
    child: Child,
    url: String,
    _scratch: tempfile::TempDir,
}

/// chromedriver runs in a process group of its own, with the browsers it starts: a test that
/// panicked before closing its session would otherwise leave Chromium running after the test
/// binary is gone.
impl Drop for Driver {
    fn drop(&mut self) {
        let _ = Command::new("kill")
            .args(["-KILL", "--", &format!("-{}", self.child.id())])
            .stderr(Stdio::null())
            .status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub(crate) fn driver() -> Driver {
    let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_owned());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let scratch = tempfile::Builder::new()
        .prefix("host-console-chromium-")
        .tempdir()
        .unwrap();
    let child = Command::new(&program)
        .arg(format!("--port={port}"))
        .env("TMPDIR", scratch.path())
        .process_group(0)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap_or_else(|e| {
            panic!(
                "cannot start `{program}` ({e}): the console's browser test needs Chromium and its WebDriver; on Debian `apt-get install -y chromium chromium-driver`, or set CHROMEDRIVER and CHROMIUM"
            )
        });
    let url = format!("http://127.0.0.1:{port}");
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "`{program}` did not listen on {port} within 20 s"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    Driver {
        child,
        url,
        _scratch: scratch,
    }
}

fn chromium() -> String {
    if let Ok(path) = std::env::var("CHROMIUM") {
        return path;
    }
    for candidate in [
        "/usr/bin/chromium",
        "/usr/bin/chromium-browser",
        "/usr/bin/google-chrome",
    ] {
        if Path::new(candidate).exists() {
            return candidate.to_owned();
        }
    }
    panic!(
        "no Chromium found (tried /usr/bin/chromium, chromium-browser, google-chrome): on Debian `apt-get install -y chromium chromium-driver`, or set CHROMIUM"
    );
}

/// A headless Chromium session, `width` by 1100 pixels.
pub(crate) async fn browser(driver: &Driver, width: u32) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".to_owned(),
        json!({
            "binary": chromium(),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     format!("--window-size={width},1100"), "--no-first-run", "--no-default-browser-check",
                     "--disable-background-networking", "--disable-component-update", "--disable-sync"],
        }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .unwrap_or_else(|e| panic!("chromedriver at {} gave no session: {e}", driver.url))
}

/// The build folder's `console-screenshots/` (the test binary lives in `<target>/debug/deps/`).
pub(crate) fn screenshots() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            let exe = std::env::current_exe().ok()?;
            Some(exe.parent()?.parent()?.parent()?.to_path_buf())
        })
        .unwrap_or_else(|| PathBuf::from("target"));
    let dir = target.join("console-screenshots");
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

pub(crate) async fn shot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
}

/// Runs `script` in the page and gives what it returns.
pub(crate) async fn js(c: &Client, script: &str) -> Value {
    c.execute(script, vec![])
        .await
        .unwrap_or_else(|e| panic!("the page could not run `{script}`: {e}"))
}

/// Runs `script` (which returns a value) until it returns something truthy, for at most `wait`.
pub(crate) async fn until(c: &Client, what: &str, script: &str, wait: Duration) -> Value {
    let deadline = Instant::now() + wait;
    loop {
        let value = c.execute(script, vec![]).await.unwrap_or(Value::Null);
        let truthy = match &value {
            Value::Null | Value::Bool(false) => false,
            Value::Number(n) => n.as_f64() != Some(0.0),
            Value::String(s) => !s.is_empty(),
            _ => true,
        };
        if truthy {
            return value;
        }
        if Instant::now() > deadline {
            let page = c
                .execute("return document.body.innerText", vec![])
                .await
                .unwrap_or(Value::Null);
            panic!(
                "waited {wait:?} for {what}; the page reads:\n{}",
                page.as_str().unwrap_or("")
            );
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// The text of the first element `css` matches.
pub(crate) async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}` on the page: {e}"))
        .text()
        .await
        .unwrap()
}

pub(crate) async fn click(c: &Client, css: &str) {
    // A click lands where the element was a moment before: wait until no verdict still to be
    // drawn can move it (a field's new problem line pushes everything below it down).
    until(
        c,
        "the input's verdict",
        "return !document.querySelector('[aria-busy=\"true\"]')",
        Duration::from_secs(20),
    )
    .await;
    c.find(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}` to click: {e}"))
        .click()
        .await
        .unwrap_or_else(|e| panic!("`{css}` cannot be clicked: {e}"));
}

/// Replaces what the field `css` holds with `text`, as typed.
pub(crate) async fn type_into(c: &Client, css: &str, text: &str) {
    let field = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(css))
        .await
        .unwrap_or_else(|e| panic!("no `{css}` to type into: {e}"));
    // Select what is there and type over it, so the page sees one input event per key.
    field.click().await.unwrap();
    let select_all = format!(
        "{}a{}",
        char::from(fantoccini::key::Key::Control),
        char::from(fantoccini::key::Key::Control)
    );
    field.send_keys(&select_all).await.unwrap();
    field
        .send_keys(&char::from(fantoccini::key::Key::Backspace).to_string())
        .await
        .unwrap();
    if !text.is_empty() {
        field.send_keys(text).await.unwrap();
    }
}

/// Waits for the field at JSON pointer `pointer` of the open form; gives its CSS selector.
pub(crate) async fn field(c: &Client, pointer: &str) -> String {
    let css = format!(
        "#form [data-pointer={}] input, #form [data-pointer={}] select, #form [data-pointer={}] textarea",
        css_string(pointer),
        css_string(pointer),
        css_string(pointer)
    );
    until(
        c,
        &format!("the field {pointer}"),
        &format!("return document.querySelector({})", js_string(&css)),
        Duration::from_secs(10),
    )
    .await;
    css
}

/// `text` as a CSS string.
pub(crate) fn css_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `text` as a JavaScript string.
pub(crate) fn js_string(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// axe-core's source, from the test folder's npm install.
fn axe_source() -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/console/node_modules/axe-core/axe.min.js");
    std::fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): the browser test runs axe-core from the npm registry; install it with `npm ci --prefix host-cli/tests/console`",
            path.display()
        )
    })
}

/// Runs axe-core (WCAG 2.0, 2.1 and 2.2, levels A and AA) on the page as it is, and fails on a
/// serious or critical violation, naming each and where it is. Gives the count of the others.
pub(crate) async fn axe(c: &Client, view: &str) -> usize {
    let source = axe_source();
    c.execute(&format!("{source}\nreturn true;"), vec![])
        .await
        .unwrap_or_else(|e| panic!("axe-core did not load into the page: {e}"));
    let found = c
        .execute_async(
            r#"const done = arguments[arguments.length - 1];
               axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "wcag22a", "wcag22aa"] } })
                 .then(r => done(r.violations.map(v => ({ id: v.id, impact: v.impact, help: v.help,
                                                          nodes: v.nodes.map(n => n.target.join(" ")).slice(0, 5) }))),
                       e => done([{ id: "axe-failed", impact: "critical", help: String(e), nodes: [] }]));"#,
            vec![],
        )
        .await
        .unwrap();
    let violations = found.as_array().cloned().unwrap_or_default();
    let serious: Vec<&Value> = violations
        .iter()
        .filter(|v| matches!(v["impact"].as_str(), Some("serious" | "critical")))
        .collect();
    assert!(
        serious.is_empty(),
        "axe-core finds serious or critical violations on the {view} view:\n{}",
        serde_json::to_string_pretty(&serious).unwrap()
    );
    violations.len()
}
