//! The console of `cargo host dev` in a real browser: headless Chromium driven over WebDriver
//! (chromedriver) against the example server, started as the example's end-to-end test starts it.
//!
//! Between the console and the example sits a small proxy that can break the example's answer, so
//! the console's explanation of a refused answer is seen too. Each state is saved as a screenshot
//! under the build folder, in `console-screenshots/`.
//!
//! Needs `chromium` and `chromedriver` on the PATH (Debian: `apt-get install chromium
//! chromium-driver`), or `CHROMEDRIVER` and `CHROMIUM` naming them; the test fails without them.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

mod harness;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use fantoccini::key::Key;
use fantoccini::{Client, ClientBuilder, Locator};
use harness::{Dev, example};
use http_body_util::{BodyExt, Full};
use serde_json::{Value, json};

/// Between the console and the example: forwards every request, or breaks the `keyword-ranks`
/// answer when told to.
struct Proxy {
    addr: SocketAddr,
    upstream: Arc<Mutex<String>>,
    broken: Arc<AtomicBool>,
}

/// A `series` card the host refuses: a point whose time is no time and whose value is no number.
const BROKEN_SERIES: &str = r#"{"series":[{"key":"app_store","label":"App Store rank","points":[{"t":"yesterday","v":"high"}]}]}"#;

fn proxy(runtime: &tokio::runtime::Runtime) -> Proxy {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let upstream = Arc::new(Mutex::new(String::new()));
    let broken = Arc::new(AtomicBool::new(false));
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let (up, br) = (Arc::clone(&upstream), Arc::clone(&broken));
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                continue;
            };
            let (http, up, br) = (http.clone(), Arc::clone(&up), Arc::clone(&br));
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let (http, up, br) = (http.clone(), Arc::clone(&up), Arc::clone(&br));
                    async move { Ok::<_, Infallible>(forward(&http, &up, &br, request).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Proxy {
        addr,
        upstream,
        broken,
    }
}

async fn forward(
    http: &reqwest::Client,
    upstream: &Mutex<String>,
    broken: &AtomicBool,
    request: http::Request<hyper::body::Incoming>,
) -> http::Response<Full<Bytes>> {
    let (parts, body) = request.into_parts();
    let body = body
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    if broken.load(Ordering::SeqCst) && parts.uri.path() == "/host/tools/keyword-ranks" {
        return http::Response::builder()
            .status(200)
            .header("content-type", "application/json")
            .body(Full::new(Bytes::from_static(BROKEN_SERIES.as_bytes())))
            .unwrap();
    }
    let base = upstream.lock().unwrap().clone();
    let path = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut out = http.request(parts.method.clone(), format!("{base}{path}"));
    for (name, value) in &parts.headers {
        if name != http::header::HOST {
            out = out.header(name, value);
        }
    }
    match out.body(body).send().await {
        Ok(answer) => {
            let mut response = http::Response::builder().status(answer.status().as_u16());
            for (name, value) in answer.headers() {
                response = response.header(name, value);
            }
            let bytes = answer.bytes().await.unwrap_or_default();
            response.body(Full::new(bytes)).unwrap()
        }
        Err(e) => http::Response::builder()
            .status(502)
            .body(Full::new(Bytes::from(e.to_string())))
            .unwrap(),
    }
}

/// chromedriver on a free port, killed when dropped.
struct Driver {
    child: Child,
    url: String,
}

impl Drop for Driver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn driver() -> Driver {
    let program = std::env::var("CHROMEDRIVER").unwrap_or_else(|_| "chromedriver".to_owned());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let child = Command::new(&program)
        .arg(format!("--port={port}"))
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
    Driver { child, url }
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
        if std::path::Path::new(candidate).exists() {
            return candidate.to_owned();
        }
    }
    panic!(
        "no Chromium found (tried /usr/bin/chromium, chromium-browser, google-chrome): on Debian `apt-get install -y chromium chromium-driver`, or set CHROMIUM"
    );
}

async fn browser(driver: &Driver) -> Client {
    let mut caps = serde_json::Map::new();
    caps.insert(
        "goog:chromeOptions".to_owned(),
        json!({
            "binary": chromium(),
            "args": ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--window-size=1500,1100", "--no-first-run", "--no-default-browser-check"],
        }),
    );
    ClientBuilder::new(hyper_util::client::legacy::connect::HttpConnector::new())
        .capabilities(caps)
        .connect(&driver.url)
        .await
        .unwrap_or_else(|e| panic!("chromedriver at {} gave no session: {e}", driver.url))
}

/// The build folder's `console-screenshots/` (the test binary lives in `<target>/debug/deps/`).
fn screenshots() -> PathBuf {
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

async fn shot(c: &Client, name: &str) {
    let png = c.screenshot().await.unwrap();
    std::fs::write(screenshots().join(format!("{name}.png")), png).unwrap();
}

/// Runs `script` (which returns a value) until it returns something truthy, for at most `wait`.
async fn until(c: &Client, what: &str, script: &str, wait: Duration) -> Value {
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

async fn text(c: &Client, css: &str) -> String {
    c.find(Locator::Css(css))
        .await
        .unwrap()
        .text()
        .await
        .unwrap()
}

/// Fills the `keyword-ranks` form: the keyword, and the days (replacing the default).
async fn fill_ranks(c: &Client, keyword: &str, days: &str) {
    let keyword_input = c
        .wait()
        .at_most(Duration::from_secs(10))
        .for_element(Locator::Css(r#"[name="root[keyword]"]"#))
        .await
        .unwrap();
    keyword_input.clear().await.unwrap();
    keyword_input.send_keys(keyword).await.unwrap();
    let Ok(days_input) = c.find(Locator::Css(r#"[name="root[days]"]"#)).await else {
        let form = c
            .execute("return document.getElementById('form').outerHTML", vec![])
            .await;
        panic!("no days field in the form: {form:?}");
    };
    days_input.clear().await.unwrap();
    days_input.send_keys(days).await.unwrap();
    // The form library reads a field when it changes.
    days_input
        .send_keys(&char::from(Key::Tab).to_string())
        .await
        .unwrap();
}

async fn open_ranks(c: &Client) {
    c.find(Locator::Id("nav-tool-keyword-ranks"))
        .await
        .unwrap()
        .click()
        .await
        .unwrap();
}

/// The answer under the form, once it is in.
async fn result(c: &Client) -> (String, Value) {
    let summary = until(
        c,
        "the answer under the form",
        "const s = document.getElementById('result-summary'); return s && !s.textContent.startsWith('Running') ? s.textContent : null",
        Duration::from_secs(30),
    )
    .await;
    let answer = text(c, "#result pre.answer").await;
    (
        summary.as_str().unwrap_or("").to_owned(),
        serde_json::from_str(&answer).unwrap_or(Value::Null),
    )
}

#[test]
fn the_console_in_a_real_browser() {
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let proxy = proxy(&runtime);
    let server_url = format!("http://{}", proxy.addr);
    let dev = Dev::start(&["--console", "127.0.0.1:0", "--server", &server_url]);
    let console = dev
        .banner
        .iter()
        .find_map(|l| l.trim().strip_prefix("console").map(str::trim))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no console line in the banner: {:#?}", dev.banner))
        .to_owned();
    assert!(console.starts_with("http://127.0.0.1:"), "{console}");
    let server = example(&dev.exports);
    *proxy.upstream.lock().unwrap() = server.url.clone();
    let driver = driver();

    runtime.block_on(async {
        let c = browser(&driver).await;
        c.goto(&console).await.unwrap();
        until(&c, "the contributions", "return document.getElementById('nav-tool-keyword-ranks')", Duration::from_secs(15)).await;
        until(&c, "the server's health", "return document.getElementById('server-status').className === 'state-pass'", Duration::from_secs(15)).await;
        let nav = text(&c, "nav").await;
        for kind in ["keyword-ranks", "save-rank-insight", "addKeyword", "keyword", "tracked-keywords", "sync", "work-item"] {
            assert!(nav.contains(kind), "`{kind}` missing from the contributions:\n{nav}");
        }
        shot(&c, "01-console").await;

        // The keyword-ranks form, filled and sent: a series of seven days, every check passed.
        open_ranks(&c).await;
        fill_ranks(&c, "habit tracker", "7").await;
        shot(&c, "02-keyword-ranks-filled").await;
        c.find(Locator::Id("send")).await.unwrap().click().await.unwrap();
        let (summary, answer) = result(&c).await;
        assert!(summary.starts_with("✓ passed: 200"), "{summary}");
        let points = answer["body"]["series"][0]["points"].as_array().map(Vec::len);
        assert_eq!(points, Some(7), "{answer}");
        let checks = text(&c, "#result table.checks").await;
        for check in ["token", "input schema", "answer shape", "time limit"] {
            assert!(checks.contains(check), "`{check}` missing:\n{checks}");
        }
        shot(&c, "03-keyword-ranks-answer").await;

        // The page checks the schema before sending: 365 days is over the maximum, nothing is sent.
        let calls_before = c.execute("return document.querySelectorAll('#timeline li[data-kind=call]').length", vec![]).await.unwrap();
        fill_ranks(&c, "habit tracker", "365").await;
        c.find(Locator::Id("send")).await.unwrap().click().await.unwrap();
        let errors = until(&c, "the form's errors", "return document.getElementById('form-errors').textContent", Duration::from_secs(5)).await;
        assert!(errors.as_str().unwrap().contains("days"), "{errors}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let calls_after = c.execute("return document.querySelectorAll('#timeline li[data-kind=call]').length", vec![]).await.unwrap();
        assert_eq!(calls_before, calls_after, "an invalid form is not sent");
        shot(&c, "04-keyword-ranks-invalid").await;

        // release.shipped on the retry schedule: four attempts, and the example's four signed
        // events on the timeline, each verified by the local host.
        c.find(Locator::Id("nav-events")).await.unwrap().click().await.unwrap();
        c.find(Locator::Id("event")).await.unwrap().select_by_value("release.shipped").await.unwrap();
        let payload = c.find(Locator::Id("payload")).await.unwrap().prop("value").await.unwrap().unwrap_or_default();
        let payload: Value = serde_json::from_str(&payload).unwrap();
        assert!(payload["releaseId"].as_str().is_some_and(|r| r.starts_with("rel_")), "{payload}");
        c.find(Locator::Id("retry")).await.unwrap().click().await.unwrap();
        let scale = c.find(Locator::Id("time-scale")).await.unwrap();
        scale.clear().await.unwrap();
        scale.send_keys("1000").await.unwrap();
        c.find(Locator::Id("deliver")).await.unwrap().click().await.unwrap();
        until(&c, "the four posted events, verified", "return document.querySelectorAll('#timeline li[data-kind=posted][data-outcome=passed]').length >= 4", Duration::from_secs(20)).await;
        until(&c, "the delivery's outcome", "return document.querySelector('#timeline li[data-kind=delivery][data-outcome=passed]')", Duration::from_secs(20)).await;
        let posted: Vec<String> = serde_json::from_value(
            c.execute("return [...document.querySelectorAll('#timeline li[data-kind=posted]')].map(e => e.dataset.title)", vec![]).await.unwrap(),
        )
        .unwrap();
        assert_eq!(posted.iter().filter(|t| *t == "rank.dropped (alert)").count(), 3, "{posted:?}");
        assert_eq!(posted.iter().filter(|t| *t == "rank.collapsed (banner)").count(), 1, "{posted:?}");
        let delivery = text(&c, "#result").await;
        assert!(delivery.contains("4 of 4 attempts answered 2xx"), "{delivery}");
        assert!(delivery.contains("posted 4 events back"), "{delivery}");
        // Open one posted event: its checks name the signature and the `why` the owner reads.
        c.execute("document.querySelector('#timeline li[data-kind=posted] details').open = true", vec![]).await.unwrap();
        let first_posted = text(&c, "#timeline li[data-kind=posted]").await;
        assert!(first_posted.contains("signature") && first_posted.contains("the owner reads"), "{first_posted}");
        shot(&c, "05-release-shipped").await;

        // Replaying a posted event: the local host has it already, so it is a duplicate.
        let before = c.execute("return document.querySelectorAll('#timeline li').length", vec![]).await.unwrap();
        c.find(Locator::Css("#timeline li[data-kind=posted] button.replay")).await.unwrap().click().await.unwrap();
        until(&c, "the replayed event", &format!("return document.querySelectorAll('#timeline li').length > {before}"), Duration::from_secs(10)).await;
        let newest = c.execute("return document.querySelector('#timeline li').dataset.title", vec![]).await.unwrap();
        assert!(newest.as_str().unwrap().ends_with("(duplicate)"), "{newest}");

        // The server's answer broken: the console says what is wrong with it.
        proxy.broken.store(true, Ordering::SeqCst);
        open_ranks(&c).await;
        fill_ranks(&c, "habit tracker", "7").await;
        c.find(Locator::Id("send")).await.unwrap().click().await.unwrap();
        let (summary, _) = result(&c).await;
        assert!(summary.starts_with("✗ failed: 200"), "{summary}");
        let why = text(&c, "#result-why").await;
        assert!(why.starts_with("answer shape:") && why.contains("refuse"), "{why}");
        let failures = text(&c, "#failures").await;
        assert!(failures.contains("keyword-ranks") && failures.contains("answer shape"), "{failures}");
        shot(&c, "06-broken-answer").await;
        proxy.broken.store(false, Ordering::SeqCst);

        // The keyboard alone: Tab to the form, type, Tab to Send, Enter.
        c.goto(&console).await.unwrap();
        until(&c, "the contributions", "return document.getElementById('nav-tool-keyword-ranks')", Duration::from_secs(15)).await;
        let tab = char::from(Key::Tab).to_string();
        let enter = char::from(Key::Enter).to_string();
        let focused = "return document.activeElement ? document.activeElement.id || document.activeElement.name || document.activeElement.tagName : null";
        let mut reached = false;
        for _ in 0..40 {
            c.active_element().await.unwrap().send_keys(&tab).await.unwrap();
            if c.execute(focused, vec![]).await.unwrap() == json!("nav-tool-keyword-ranks") {
                reached = true;
                break;
            }
        }
        assert!(reached, "Tab never reaches the keyword-ranks button");
        c.active_element().await.unwrap().send_keys(&enter).await.unwrap();
        until(&c, "the form's first field focused", "return document.activeElement && document.activeElement.name === 'root[keyword]'", Duration::from_secs(10)).await;
        c.active_element().await.unwrap().send_keys("notes").await.unwrap();
        let mut on_send = false;
        for _ in 0..15 {
            let here = c.execute(focused, vec![]).await.unwrap();
            if here == json!("root[days]") {
                let days = c.active_element().await.unwrap();
                days.send_keys(&char::from(Key::Backspace).to_string().repeat(3)).await.unwrap();
                days.send_keys("5").await.unwrap();
            }
            c.active_element().await.unwrap().send_keys(&tab).await.unwrap();
            if c.execute(focused, vec![]).await.unwrap() == json!("send") {
                on_send = true;
                break;
            }
        }
        assert!(on_send, "Tab never reaches Send from the form");
        shot(&c, "07-keyboard-form").await;
        c.active_element().await.unwrap().send_keys(&enter).await.unwrap();
        let (summary, answer) = result(&c).await;
        assert!(summary.starts_with("✓ passed: 200"), "{summary}");
        assert_eq!(answer["body"]["series"][0]["points"].as_array().map(Vec::len), Some(5), "{answer}");
        shot(&c, "08-keyboard-answer").await;

        c.close().await.unwrap();
    });
    eprintln!(
        "console browser test: {:.1} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        screenshots().display()
    );
}

/// What a page (or anything else on this machine) can send the console: each wrong request gets a
/// JSON error naming what was wrong, and the local host keeps serving.
#[test]
fn the_console_refuses_bad_requests_in_words() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // No server behind it: calls fail as "no answer", which is an entry, not an error.
    let dev = Dev::start(&["--console", "127.0.0.1:0", "--server", "http://127.0.0.1:9"]);
    let console = dev
        .banner
        .iter()
        .find_map(|l| l.trim().strip_prefix("console").map(str::trim))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    let _ = rustls::crypto::ring::default_provider().install_default();
    // A connection each: the console closes one it refused a body on (over its limit), and a
    // pooled connection taken again before the close is seen would fail the next request.
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let post = |path: &str, body: &str, content_type: &str| {
        let request = http
            .post(format!("{console}{}", path.trim_start_matches('/')))
            .header("content-type", content_type)
            .body(body.to_owned());
        runtime.block_on(async {
            // The console may answer before the whole body is sent (over its limit) and close.
            let Ok(answer) = request.send().await else {
                return (0, Value::Null);
            };
            let status = answer.status().as_u16();
            (status, answer.json::<Value>().await.unwrap_or(Value::Null))
        })
    };
    let message = |v: &Value| v["error"]["message"].as_str().unwrap_or("").to_owned();

    let (status, body) = post("/api/call", "{not json", "application/json");
    assert_eq!(status, 400, "{body}");
    assert!(
        message(&body).contains("not what this route takes"),
        "{body}"
    );
    let (status, body) = post("/api/call", r#"{"kind":"tool"}"#, "text/plain");
    assert_eq!(status, 415, "{body}");
    let (status, body) = post(
        "/api/call",
        r#"{"kind":"tool","extra":1}"#,
        "application/json",
    );
    assert_eq!(status, 400, "{body}");
    assert!(message(&body).contains("extra"), "{body}");
    let (status, body) = post("/api/replay", r#"{"id":"x"}"#, "application/json");
    assert_eq!(status, 400, "{body}");
    let (status, body) = post("/api/replay", r#"{"id":999}"#, "application/json");
    assert_eq!(status, 404, "{body}");
    let (status, body) = post("/api/outbox/drop", r#"{"id":"evt_1"}"#, "application/json");
    assert_eq!(status, 409, "{body}");
    let (status, body) = post("/api/nothing", "{}", "application/json");
    assert_eq!(status, 404, "{body}");
    let huge = format!(
        r#"{{"kind":"tool","input":"{}"}}"#,
        "x".repeat(2 * 1024 * 1024)
    );
    let (status, _) = post("/api/call", &huge, "application/json");
    assert!(matches!(status, 0 | 413), "{status}");

    // Requests the console understands but cannot carry out are failed entries, in words.
    let entry = |body: &str| {
        let (status, entry) = post("/api/call", body, "application/json");
        assert_eq!(status, 200, "{entry}");
        assert_eq!(entry["outcome"], "failed", "{entry}");
        entry["why"].as_str().unwrap_or("").to_owned()
    };
    let why = entry(r#"{"kind":"toll","id":"keyword-ranks"}"#);
    assert!(why.contains("`toll` is not a kind of call"), "{why}");
    let why = entry(r#"{"kind":"tool","id":"keyword-rank"}"#);
    assert!(why.contains("did you mean `keyword-ranks`?"), "{why}");
    let why = entry(r#"{"kind":"tool","id":"keyword-ranks","install":{"scopes":["ai:tool"]}}"#);
    assert!(why.contains("did you mean `ai:tools`?"), "{why}");
    let why = entry(r#"{"kind":"tool","id":"keyword-ranks","input":{"keyword":"notes"}}"#);
    assert!(why.starts_with("answer: cannot connect"), "{why}");
    let (status, delivery) = post(
        "/api/deliver",
        r#"{"event":"release.shipped","retry":true,"timeScale":-1}"#,
        "application/json",
    );
    assert_eq!(status, 200);
    assert!(
        delivery["why"]
            .as_str()
            .unwrap_or("")
            .contains("not a positive number"),
        "{delivery}"
    );

    // A page on another name (DNS rebinding) is not answered.
    let foreign = runtime.block_on(async {
        http.get(format!("{console}api/manifest"))
            .header("host", "evil.example")
            .send()
            .await
            .unwrap()
            .status()
            .as_u16()
    });
    assert_eq!(foreign, 421);

    // Still serving.
    let manifest: Value = runtime.block_on(async {
        http.get(format!("{console}api/manifest"))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    });
    assert_eq!(manifest["extension"]["id"], "keyword-tracker");
}

/// The server's outbox in the console (`--outbox`): pending events and dead letters listed, a dead
/// letter retried, an event dropped.
#[test]
fn the_console_shows_and_mends_the_outbox() {
    use host_runtime::outbox::{Entry, FileOutbox, OutboxStore, Settlement};
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    runtime.block_on(async {
        let store = FileOutbox::open(dir.path()).unwrap();
        let now = chrono::Utc::now().timestamp_millis();
        for id in ["rank.dropped-ins_1-habit", "rank.collapsed-ins_1"] {
            let body = br#"{"event":"rank.dropped"}"#.to_vec();
            store.put(Entry::new(id, body, now)).await.unwrap();
        }
        store.claim(now, 10, now + 60_000, "server").await.unwrap();
        let dead = Settlement::Dead {
            attempts: 1,
            at: now,
            reason: "refused with 422: payload invalid".into(),
        };
        store
            .settle("rank.collapsed-ins_1", "server", dead)
            .await
            .unwrap();
    });
    let folder = dir.path().to_str().unwrap().to_owned();
    let dev = Dev::start(&["--console", "127.0.0.1:0", "--outbox", &folder]);
    let console = dev
        .banner
        .iter()
        .find_map(|l| l.trim().strip_prefix("console").map(str::trim))
        .and_then(|l| l.split_whitespace().next())
        .unwrap()
        .to_owned();
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let list = || -> Value {
        runtime.block_on(async {
            let answer = http
                .get(format!("{console}api/outbox"))
                .send()
                .await
                .unwrap();
            answer.json().await.unwrap()
        })
    };
    let change = |what: &str, id: &str| -> u16 {
        runtime.block_on(async {
            http.post(format!("{console}api/outbox/{what}"))
                .header("content-type", "application/json")
                .body(json!({ "id": id }).to_string())
                .send()
                .await
                .unwrap()
                .status()
                .as_u16()
        })
    };
    let ids = |o: &Value, list: &str| -> Vec<String> {
        o[list]
            .as_array()
            .unwrap_or(&Vec::new())
            .iter()
            .filter_map(|e| e["id"].as_str().map(str::to_owned))
            .collect()
    };
    let o = list();
    assert_eq!(o["exposed"], true, "{o}");
    assert_eq!(ids(&o, "pending"), ["rank.dropped-ins_1-habit"], "{o}");
    assert_eq!(ids(&o, "dead"), ["rank.collapsed-ins_1"], "{o}");
    assert_eq!(
        o["dead"][0]["lastError"], "refused with 422: payload invalid",
        "{o}"
    );
    assert_eq!(change("retry", "rank.collapsed-ins_1"), 200);
    assert_eq!(ids(&list(), "pending").len(), 2);
    assert_eq!(change("drop", "rank.dropped-ins_1-habit"), 200);
    assert_eq!(change("drop", "rank.dropped-ins_1-habit"), 404);
    let o = list();
    assert_eq!(ids(&o, "pending"), ["rank.collapsed-ins_1"], "{o}");
    assert!(ids(&o, "dead").is_empty(), "{o}");
}
