//! The console of `cargo host dev` in a real browser: headless Chromium driven over WebDriver
//! (chromedriver), every panel through the page's own controls, axe-core on every view.
//!
//! Between the console, the example server and the local host sits a proxy ([`proxy`]) that
//! records what the console sent and can misbehave: break an answer, refuse or fail the events the
//! example posts (so its outbox holds dead letters and pending events, which the console reads from
//! Redis), or act as a naive vendor that reacts to every attempt of a delivery. Each state is saved
//! as a screenshot under the build folder, in `console-screenshots/`.
//!
//! Needs `chromium` and `chromedriver` (Debian: `apt-get install chromium chromium-driver`, or
//! `CHROMEDRIVER` and `CHROMIUM` naming them), `redis-server`, and axe-core
//! (`npm ci --prefix host-cli/tests/console`); `.ci/run` installs all of them, and the test fails
//! without them.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

#[path = "console/browser.rs"]
mod browser;
mod harness;
#[path = "console/proxy.rs"]
mod proxy;

use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use base64::Engine as _;
use browser::{axe, browser, click, driver, field, js, js_string, shot, text, type_into, until};
use fantoccini::key::Key;
use fantoccini::{Client, Locator};
use harness::{Dev, example_on_redis};
use host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET;
use host_test_support::RedisServer;
use serde_json::{Value, json};

const WAIT: Duration = Duration::from_secs(20);

fn console_url(dev: &Dev) -> String {
    dev.banner
        .iter()
        .find_map(|l| l.trim().strip_prefix("console").map(str::trim))
        .and_then(|l| l.split_whitespace().next())
        .unwrap_or_else(|| panic!("no console line in the banner: {:#?}", dev.banner))
        .to_owned()
}

/// The claims of a `Bearer` token, read without checking it (the example checked it).
fn claims(authorization: &str) -> Value {
    let token = authorization.trim_start_matches("Bearer ");
    let payload = token.split('.').nth(1).unwrap();
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// Sets the checkbox `css` to `checked` through the page, and waits until it is.
async fn tick(c: &Client, css: &str, checked: bool) {
    let state = format!("return document.querySelector({}).checked", js_string(css));
    for _ in 0..3 {
        if js(c, &state).await == json!(checked) {
            return;
        }
        click(c, css).await;
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        js(c, &state).await,
        json!(checked),
        "{css} would not turn {checked}"
    );
}

/// The ids of the navigation's buttons, one per contribution.
async fn contributions(c: &Client) -> Vec<String> {
    serde_json::from_value(
        js(
            c,
            "return [...document.querySelectorAll('#nav-contributions button')].map(b => b.id)",
        )
        .await,
    )
    .unwrap()
}

/// Opens a panel from the navigation and waits for its heading.
async fn open(c: &Client, nav: &str, heading: &str) {
    click(c, &format!("#{nav}")).await;
    until(
        c,
        &format!("the panel {heading}"),
        &format!(
            "const h = document.querySelector('#panel h2'); return h && h.textContent === {}",
            js_string(heading)
        ),
        WAIT,
    )
    .await;
}

/// The JSON editor's value.
async fn json_editor(c: &Client) -> Value {
    let v = js(c, "return document.getElementById('json').value").await;
    serde_json::from_str(v.as_str().unwrap()).unwrap()
}

/// The answer under the form, once it is in: its summary line and the answer shown.
async fn result(c: &Client) -> (String, Value) {
    let summary = until(
        c,
        "the answer under the form",
        "const s = document.getElementById('result-summary'); return s && !s.textContent.startsWith('Running') ? s.textContent : null",
        Duration::from_secs(40),
    )
    .await;
    let answer = js(
        c,
        "const a = document.querySelector('#result pre.answer'); return a ? a.textContent : 'null'",
    )
    .await;
    (
        summary.as_str().unwrap_or("").to_owned(),
        serde_json::from_str(answer.as_str().unwrap_or("null")).unwrap_or(Value::Null),
    )
}

/// Presses Send and waits for the answer.
async fn send(c: &Client) -> (String, Value) {
    let before = js(
        c,
        "return document.querySelectorAll('#timeline > li').length",
    )
    .await;
    click(c, "#send").await;
    until(
        c,
        "a new entry on the timeline",
        &format!(
            "return document.querySelectorAll('#timeline > li').length > {before} || document.getElementById('form-errors').textContent"
        ),
        WAIT,
    )
    .await;
    result(c).await
}

/// How many entries of `kind` the timeline holds.
async fn count(c: &Client, kind: &str) -> u64 {
    js(
        c,
        &format!("return document.querySelectorAll('#timeline > li[data-kind={kind}]').length"),
    )
    .await
    .as_u64()
    .unwrap()
}

/// A delivery's entry, once its verdict is in.
async fn delivery(c: &Client, id: u64) -> Value {
    until(
        c,
        &format!("delivery #{id} to finish"),
        &format!(
            "return fetch('/api/timeline').then(r => r.json()).then(all => {{ const e = all.find(e => e.id === {id}); return e && e.outcome !== 'running' ? e : null; }})"
        ),
        Duration::from_secs(40),
    )
    .await
}

async fn deliver(c: &Client) -> u64 {
    click(c, "#deliver").await;
    let said = until(
        c,
        "the delivery to start",
        "const d = document.getElementById('delivered'); return d && d.textContent.startsWith('Delivered as #') ? d.textContent : null",
        WAIT,
    )
    .await;
    let id = said.as_str().unwrap()["Delivered as #".len()..]
        .split(';')
        .next()
        .unwrap()
        .parse()
        .unwrap();
    // The next delivery waits for this one's text to change.
    js(c, "document.getElementById('delivered').textContent = ''").await;
    id
}

fn check<'a>(entry: &'a Value, name: &str) -> &'a Value {
    entry["checks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no `{name}` check in {entry:#}"))
}

#[test]
fn the_console_in_a_real_browser() {
    let started = Instant::now();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let redis = RedisServer::start().unwrap_or_else(|e| {
        panic!("the console's outbox panel is tested on Redis: cannot start redis-server ({e}); on Debian `apt-get install -y redis-server`")
    });
    let proxy = proxy::Proxy::start(&runtime, DEVELOPMENT_WEBHOOK_SECRET);
    let dev = Dev::start(&[
        "--console",
        "127.0.0.1:0",
        "--server",
        &proxy.url,
        "--outbox",
        &redis.url(),
    ]);
    let console = console_url(&dev);
    assert!(console.starts_with("http://127.0.0.1:"), "{console}");
    // The example posts its events through the proxy, which forwards them to the local host.
    let mut env = dev.exports.clone();
    proxy.set_inbox(&env["HOST_EVENT_POST_URL"]);
    env.insert(
        "HOST_EVENT_POST_URL".to_owned(),
        format!("{}/v1/events", proxy.url),
    );
    let server = example_on_redis(&env, &redis.url());
    proxy.set_example(&server.url);
    let driver = driver();

    runtime.block_on(async {
        let c = browser(&driver, 1500).await;
        c.goto(&console).await.unwrap();
        until(
            &c,
            "the contributions",
            "return document.getElementById('nav-tool-keyword-ranks')",
            WAIT,
        )
        .await;
        until(
            &c,
            "the server's health",
            "return document.getElementById('server-status').className === 'state-pass'",
            WAIT,
        )
        .await;
        shot(&c, "01-console").await;
        axe(&c, "start").await;

        // First: a sync (in the forms) reports today's drops, so a release after it finds them
        // reported already, under the same ids.
        host_events(&c, &proxy).await;
        every_form_sends_what_it_shows(&c, &proxy).await;
        optional_members_and_the_json_editor(&c, &proxy).await;
        invalid_inputs_and_format_warnings(&c, &proxy).await;
        the_install_editor(&c, &proxy).await;
        the_outbox(&c, &proxy, &console).await;
        the_timeline(&c, &proxy).await;
        the_keyboard_alone(&c, &console).await;
        c.close().await.unwrap();
    });
    eprintln!(
        "console browser test: {:.1} s; screenshots in {}",
        started.elapsed().as_secs_f64(),
        browser::screenshots().display()
    );
}

/// Every form of the example, filled through the page and sent: the input the example received is
/// the JSON editor's, and every answer passes the host's checks. axe-core runs on each form.
async fn every_form_sends_what_it_shows(c: &Client, proxy: &proxy::Proxy) {
    let nav = contributions(c).await;
    assert_eq!(nav.len(), 14, "{nav:?}");
    let mut created = None;
    for id in &nav {
        click(c, &format!("#{id}")).await;
        until(
            c,
            "the form",
            "return document.getElementById('send')",
            WAIT,
        )
        .await;
        // What each form needs from a person, typed in its fields.
        let typed: &[(&str, &str)] = match id.as_str() {
            "nav-tool-keyword-ranks" => &[("/keyword", "habit tracker")],
            "nav-tool-compare-keywords" => &[
                ("/keywords/0", "habit tracker"),
                ("/keywords/1", "daily planner"),
            ],
            "nav-tool-keyword-ideas" => &[("/seed", "habit")],
            "nav-action-save-rank-insight" => &[
                ("/keyword", "habit tracker"),
                ("/summary", "Ranks rose all week."),
            ],
            "nav-procedure-addKeyword" => &[("/keyword", "focus timer"), ("/country", "US")],
            "nav-work-item-work-item" => &[("/container", "aso")],
            _ => &[],
        };
        for (pointer, value) in typed {
            type_into(c, &field(c, pointer).await, value).await;
        }
        if id == "nav-mention-keyword" || id == "nav-work-containers-work-containers" {
            type_into(c, "#query", "a").await;
        }
        if id == "nav-work-comment-work-comment" {
            type_into(
                c,
                "#item",
                created.as_ref().map_or("KT-1", |s: &String| s.as_str()),
            )
            .await;
            type_into(c, &field(c, "/body").await, "Looked at it.").await;
        }
        axe(c, id).await;
        let shown = js(
            c,
            "const j = document.getElementById('json'); return j ? JSON.parse(j.value) : null",
        )
        .await;
        let (summary, answer) = send(c).await;
        assert!(
            summary.starts_with("✓ passed: 2"),
            "{id}: {summary}\n{}",
            text(c, "#result").await
        );
        // The page asks for the server's health every 10 s, through the same proxy: the call is
        // the last request that is not that.
        let sent = proxy
            .seen()
            .into_iter()
            .rev()
            .find(|s| s.path != "/host/health")
            .unwrap();
        if !shown.is_null() {
            assert_eq!(
                sent.body["input"], shown,
                "{id}: the server got another input than the page showed"
            );
        }
        if id == "nav-work-item-work-item" {
            created = answer["body"]["id"].as_str().map(str::to_owned);
        }
        shot(c, &format!("02-form-{}", id.trim_start_matches("nav-"))).await;
    }
    assert!(created.is_some(), "the work item form created no item");
}

/// keyword-ranks: an optional member is absent until added and gone once removed, a default fills
/// it when added; the JSON editor and the form follow each other.
async fn optional_members_and_the_json_editor(c: &Client, proxy: &proxy::Proxy) {
    open(c, "nav-tool-keyword-ranks", "Tool keyword-ranks").await;
    let keyword = field(c, "/keyword").await;
    type_into(c, &keyword, "habit tracker").await;
    assert_eq!(json_editor(c).await, json!({ "keyword": "habit tracker" }));
    // Added: the schema's default; removed: gone.
    click(c, "button[data-member=days]").await;
    let days = field(c, "/days").await;
    assert_eq!(
        json_editor(c).await,
        json!({ "keyword": "habit tracker", "days": 30 })
    );
    type_into(c, &days, "7").await;
    assert_eq!(json_editor(c).await["days"], 7);
    click(c, "#form [data-pointer='/days'] button.remove").await;
    until(
        c,
        "days removed",
        "return !document.querySelector('#form [data-pointer=\"/days\"]')",
        WAIT,
    )
    .await;
    click(c, "button[data-member=country]").await;
    type_into(c, &field(c, "/country").await, "US").await;
    shot(c, "03-optional-members").await;
    let (summary, _) = send(c).await;
    assert!(summary.starts_with("✓ passed: 200"), "{summary}");
    // Untouched and removed members are not sent.
    let sent = proxy.last("/host/tools/keyword-ranks");
    assert_eq!(
        sent.body["input"],
        json!({ "keyword": "habit tracker", "country": "US" })
    );

    // The JSON editor drives the form.
    type_into(c, "#json", r#"{"keyword": "notes", "days": 5}"#).await;
    until(c, "the days field from the JSON", "const d = document.querySelector('#form [data-pointer=\"/days\"] input'); return d && d.value === '5'", WAIT).await;
    let kw = js(
        c,
        "return document.querySelector('#form [data-pointer=\"/keyword\"] input').value",
    )
    .await;
    assert_eq!(kw, "notes");
    assert!(
        js(
            c,
            "return !document.querySelector('#form [data-pointer=\"/country\"]')"
        )
        .await
        .as_bool()
        .unwrap(),
        "country left the JSON, so it leaves the form"
    );
    // Text that is not JSON is said so, and not sent.
    type_into(c, "#json", r#"{"keyword": "#).await;
    let status = until(
        c,
        "the JSON editor's complaint",
        "return document.getElementById('json-status').textContent",
        WAIT,
    )
    .await;
    assert!(status.as_str().unwrap().starts_with("Not JSON"), "{status}");
    let calls = count(c, "call").await;
    click(c, "#send").await;
    let blocked = until(
        c,
        "the refusal to send",
        "return document.getElementById('form-errors').textContent",
        WAIT,
    )
    .await;
    assert!(blocked.as_str().unwrap().contains("not JSON"), "{blocked}");
    assert_eq!(count(c, "call").await, calls);
    shot(c, "04-json-editor").await;
    axe(c, "keyword-ranks with the JSON editor").await;
}

/// What the host refuses is named on its field and not sent (unless asked); what the runtime lets
/// through but the host never sends (a `format`) is a warning in words, and sent.
async fn invalid_inputs_and_format_warnings(c: &Client, proxy: &proxy::Proxy) {
    open(c, "nav-tool-keyword-ranks", "Tool keyword-ranks").await;
    type_into(c, &field(c, "/keyword").await, "habit tracker").await;
    click(c, "button[data-member=days]").await;
    type_into(c, &field(c, "/days").await, "365").await;
    let on_field = until(c, "the error on the days field", "const p = document.querySelector('#form [data-pointer=\"/days\"] .field-problem'); return p && p.textContent", WAIT).await;
    assert!(on_field.as_str().unwrap().contains("365"), "{on_field}");
    let calls = count(c, "call").await;
    click(c, "#send").await;
    until(
        c,
        "the refusal to send",
        "return document.getElementById('form-errors').textContent",
        WAIT,
    )
    .await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert_eq!(
        count(c, "call").await,
        calls,
        "an invalid input is not sent"
    );
    assert_eq!(
        js(
            c,
            "return document.activeElement.closest('[data-pointer]').dataset.pointer"
        )
        .await,
        "/days",
        "Send puts the cursor on the first wrong field"
    );
    shot(c, "05-invalid").await;
    axe(c, "an invalid form").await;
    // Sent anyway: the server refuses it as the local host said it would.
    tick(c, "#send-invalid", true).await;
    let (summary, answer) = send(c).await;
    assert!(summary.starts_with("✗ failed: 422"), "{summary}");
    assert_eq!(answer["body"]["error"]["code"], "INPUT_INVALID", "{answer}");

    // A sync whose `from` is not a date-time: the runtime does not check `format`, the page says so.
    open(c, "nav-sync-sync", "Connector sync").await;
    type_into(c, &field(c, "/from").await, "yesterday").await;
    let warning = until(
        c,
        "the format warning",
        "const w = document.querySelector('#form-check ul.warnings'); return w && w.textContent",
        WAIT,
    )
    .await;
    assert!(
        warning.as_str().unwrap().contains("/from")
            && warning
                .as_str()
                .unwrap()
                .contains("does not check `format`"),
        "{warning}"
    );
    assert!(
        js(c, "return document.querySelector('#form [data-pointer=\"/from\"] .field-warning').textContent").await.as_str().unwrap().contains("date-time")
    );
    shot(c, "06-format-warning").await;
    // A warning does not stop the call: the example, which reads the time, refuses it itself.
    let (summary, answer) = send(c).await;
    assert_eq!(
        proxy.last("/host/metrics").body["input"]["from"],
        "yesterday"
    );
    assert!(summary.contains("422"), "{summary} {answer}");
    let checks = text(c, "#result table.checks").await;
    assert!(checks.contains("input format"), "{checks}");
}

/// The install editor: its id, scopes, documents, credentials and context reach the token and the
/// body of the next call; bad JSON is refused in words; the defaults come back.
async fn the_install_editor(c: &Client, proxy: &proxy::Proxy) {
    open(c, "nav-install", "The local install").await;
    axe(c, "install").await;
    let labels = text(c, "#panel").await;
    assert!(!labels.contains("[object"), "{labels}");
    type_into(c, "#install-id", "ins_dev_7").await;
    tick(c, "#scope-ai-tools", false).await;
    type_into(
        c,
        "#install-documents",
        r#"{"settings": {"defaultCountry": "DE"}}"#,
    )
    .await;
    type_into(c, "#install-credentials", r#"{"api_key": "k-7"}"#).await;
    type_into(
        c,
        "#install-context",
        r#"{"projectId": "prj_dev_1", "platform": "android"}"#,
    )
    .await;
    click(c, "#install-save").await;
    let saved = until(
        c,
        "saved",
        "return document.getElementById('install-saved').textContent",
        WAIT,
    )
    .await;
    assert!(saved.as_str().unwrap().contains("ins_dev_7"), "{saved}");
    shot(c, "07-install").await;

    // A procedure needs no `ai:tools`: it answers, and carries the install as edited.
    open(
        c,
        "nav-procedure-listWatchlists",
        "Procedure listWatchlists",
    )
    .await;
    let (summary, answer) = send(c).await;
    assert!(summary.starts_with("✓ passed: 200"), "{summary} {answer}");
    let sent = proxy.last("/host/procedures/listWatchlists");
    let token = claims(sent.authorization.as_deref().unwrap());
    assert_eq!(token["sub"], "ins_dev_7");
    let scopes: Vec<String> = serde_json::from_value(token["scopes"].clone()).unwrap();
    assert!(
        !scopes.contains(&"ai:tools".to_owned()) && scopes.contains(&"metrics:write".to_owned()),
        "{scopes:?}"
    );
    assert_eq!(sent.body["install"]["id"], "ins_dev_7");
    assert_eq!(
        sent.body["documents"],
        json!({ "settings": { "defaultCountry": "DE" } })
    );
    assert_eq!(sent.body["credentials"], json!({ "api_key": "k-7" }));
    assert_eq!(sent.body["context"]["platform"], "android");
    // A tool needs `ai:tools`, which the install no longer grants.
    open(c, "nav-tool-keyword-ideas", "Tool keyword-ideas").await;
    type_into(c, &field(c, "/seed").await, "habit").await;
    let (summary, answer) = send(c).await;
    assert!(summary.starts_with("✗ failed: 403"), "{summary}");
    assert_eq!(answer["body"]["error"]["code"], "SCOPE_MISSING", "{answer}");

    // Bad JSON and a non-object are refused, naming the field.
    open(c, "nav-install", "The local install").await;
    let id = js(c, "return document.getElementById('install-id').value").await;
    assert_eq!(id, "ins_dev_7", "the editor shows the install in use");
    type_into(c, "#install-documents", "{not json").await;
    type_into(c, "#install-credentials", "[1]").await;
    click(c, "#install-save").await;
    let errors = until(
        c,
        "the install's errors",
        "return document.getElementById('install-errors').textContent",
        WAIT,
    )
    .await;
    let errors = errors.as_str().unwrap();
    assert!(
        errors.contains("Documents") && errors.contains("not JSON"),
        "{errors}"
    );
    assert!(
        errors.contains("Credentials") && errors.contains("must be a JSON object"),
        "{errors}"
    );
    axe(c, "install with errors").await;
    click(c, "#install-reset").await;
    until(c, "the defaults", "return document.getElementById('install-id').value === 'ins_dev_1' && document.getElementById('scope-ai-tools').checked", WAIT).await;
}

/// Host events: on the retry schedule the example reacts once; each Deliver is a new event unless
/// "redeliver the same" is ticked; a naive vendor that reacts to every attempt fails the dedupe row.
async fn host_events(c: &Client, proxy: &proxy::Proxy) {
    open(c, "nav-events", "Deliver a host event").await;
    c.find(Locator::Id("event"))
        .await
        .unwrap()
        .select_by_value("release.shipped")
        .await
        .unwrap();
    until(
        c,
        "the release example",
        "return JSON.parse(document.getElementById('payload').value).releaseId",
        WAIT,
    )
    .await;
    axe(c, "events").await;
    tick(c, "#retry", true).await;
    type_into(c, "#time-scale", "1000").await;
    let posted_before = count(c, "posted").await;
    let first = deliver(c).await;
    let entry = delivery(c, first).await;
    assert_eq!(entry["outcome"], "passed", "{entry:#}");
    assert_eq!(entry["attempts"].as_array().unwrap().len(), 4);
    assert_eq!(check(&entry, "dedupe")["state"], "pass", "{entry:#}");
    assert!(
        check(&entry, "dedupe")["detail"]
            .as_str()
            .unwrap()
            .contains("posted 4 new events, each once"),
        "{entry:#}"
    );
    until(c, "the four posted events", &format!("return document.querySelectorAll('#timeline > li[data-kind=posted][data-outcome=passed]').length >= {}", posted_before + 4), WAIT).await;
    let attempts = text(c, "#result ol.attempts").await;
    assert!(
        attempts.contains("sent at +") && attempts.contains("answered 204"),
        "{attempts}"
    );
    shot(c, "08-release-shipped").await;
    let first_release = entry["request"]["body"]["event"]["payload"]["releaseId"].clone();
    let shown: Value = serde_json::from_str(
        js(c, "return document.getElementById('payload').value")
            .await
            .as_str()
            .unwrap(),
    )
    .unwrap();
    assert_eq!(
        shown["releaseId"], first_release,
        "the panel shows what was delivered"
    );

    // Deliver again: a new event, with a new release id.
    tick(c, "#retry", false).await;
    let second = deliver(c).await;
    let entry = delivery(c, second).await;
    let second_release = entry["request"]["body"]["event"]["payload"]["releaseId"].clone();
    assert_ne!(second_release, first_release, "each Deliver is a new event");
    // The same event again: the example posts nothing new.
    tick(c, "#same", true).await;
    let again = deliver(c).await;
    let entry = delivery(c, again).await;
    assert_eq!(
        entry["request"]["body"]["event"]["payload"]["releaseId"],
        second_release
    );
    let dedupe = check(&entry, "dedupe");
    assert_eq!(dedupe["state"], "pass", "{entry:#}");
    assert!(
        dedupe["detail"]
            .as_str()
            .unwrap()
            .contains(&format!("redelivery of delivery #{second}")),
        "{dedupe}"
    );
    tick(c, "#same", false).await;

    // A naive vendor: the same alert again for every attempt, under new ids. The dedupe row
    // fails, naming the ids.
    proxy.modes.naive.store(true, Ordering::SeqCst);
    tick(c, "#retry", true).await;
    let naive = deliver(c).await;
    let entry = delivery(c, naive).await;
    proxy.modes.naive.store(false, Ordering::SeqCst);
    tick(c, "#retry", false).await;
    let dedupe = check(&entry, "dedupe");
    assert_eq!(dedupe["state"], "fail", "{entry:#}");
    assert!(
        dedupe["detail"]
            .as_str()
            .unwrap()
            .contains("under several ids"),
        "{dedupe}"
    );
    assert_eq!(entry["outcome"], "failed");
    until(
        c,
        "the failed delivery in the failures",
        &format!("return document.querySelector('#failures li[data-id=\"{naive}\"]')"),
        WAIT,
    )
    .await;
    shot(c, "09-naive-vendor").await;

    // A payload that is not the event's, and text that is not JSON.
    type_into(c, "#payload", r#"{"releaseId": "rel_1"}"#).await;
    let problems = until(
        c,
        "the payload's problems",
        "const p = document.querySelector('#payload-check ul.problems'); return p && p.textContent",
        WAIT,
    )
    .await;
    assert!(
        problems.as_str().unwrap().contains("missing field"),
        "{problems}"
    );
    type_into(c, "#payload", "{").await;
    until(
        c,
        "the payload's JSON complaint",
        "return document.getElementById('payload-status').textContent.startsWith('Not JSON')",
        WAIT,
    )
    .await;
    click(c, "#deliver").await;
    until(
        c,
        "the refusal to deliver",
        "return document.getElementById('deliver-errors').textContent.includes('not JSON')",
        WAIT,
    )
    .await;
    axe(c, "events with errors").await;
    click(c, "#fresh-example").await;
    until(c, "a new example", "try { return JSON.parse(document.getElementById('payload').value).releaseId } catch (_) { return null }", WAIT).await;
}

/// Types the payload again with its `version` set to `version`, as a user edits it.
async fn as_version(c: &Client, version: &str) {
    let mut payload = js(
        c,
        "return JSON.parse(document.getElementById('payload').value)",
    )
    .await;
    payload["version"] = json!(version);
    type_into(c, "#payload", &payload.to_string()).await;
    until(
        c,
        "the payload's new version",
        &format!(
            "try {{ return JSON.parse(document.getElementById('payload').value).version === '{version}' }} catch (_) {{ return false }}"
        ),
        WAIT,
    )
    .await;
}

/// The outbox panel, readable at 1024 px: the example's refused events are dead letters, its
/// failing ones pending; details, retry, and a drop that asks first.
async fn the_outbox(c: &Client, proxy: &proxy::Proxy, console: &str) {
    // The host refuses the example's events: dead letters.
    proxy.modes.post_status.store(422, Ordering::SeqCst);
    open(c, "nav-events", "Deliver a host event").await;
    c.find(Locator::Id("event"))
        .await
        .unwrap()
        .select_by_value("release.shipped")
        .await
        .unwrap();
    until(
        c,
        "the release example",
        "return JSON.parse(document.getElementById('payload').value).releaseId",
        WAIT,
    )
    .await;
    // A version the example has not reported on: each release's alerts have ids of their own, and
    // an event delivered already (an earlier step's, under the same ids) is not posted again.
    as_version(c, "9.0.1").await;
    let refused = deliver(c).await;
    delivery(c, refused).await;
    // The host fails: pending, to be retried.
    proxy.modes.post_status.store(503, Ordering::SeqCst);
    click(c, "#fresh-example").await;
    tokio::time::sleep(Duration::from_millis(300)).await;
    as_version(c, "9.0.2").await;
    let failing = deliver(c).await;
    delivery(c, failing).await;
    c.set_window_size(1024, 1100).await.unwrap();
    open(c, "nav-outbox", "The server's outbox").await;
    until(c, "the dead letters", "const t = document.getElementById('outbox-dead'); return t && t.querySelectorAll('tbody tr[data-id]').length >= 1", WAIT).await;
    until(c, "the pending events", "const t = document.getElementById('outbox-pending'); return t && t.querySelectorAll('tbody tr[data-id]').length >= 1", WAIT).await;
    let backlog = text(c, "#outbox-backlog").await;
    assert!(
        backlog.contains("waiting, the oldest for") && backlog.contains("dead letter"),
        "{backlog}"
    );
    shot(c, "10-outbox-1024").await;
    axe(c, "outbox").await;
    // Readable: no column narrower than its heading's longest word, no button on two lines, nothing
    // wider than the panel.
    let layout = js(c, r#"
        const out = [];
        for (const table of document.querySelectorAll('table.outbox')) {
            for (const th of table.querySelectorAll('th')) if (th.getBoundingClientRect().width < 60) out.push(`column ${th.textContent} is ${th.getBoundingClientRect().width}px`);
            for (const b of table.querySelectorAll('button')) if (b.getBoundingClientRect().height > 40) out.push(`button ${b.textContent} is ${b.getBoundingClientRect().height}px high`);
            if (table.scrollWidth > table.parentElement.clientWidth + 1) out.push(`table ${table.id} overflows: ${table.scrollWidth} > ${table.parentElement.clientWidth}`);
        }
        return out;"#).await;
    assert_eq!(layout, json!([]), "the outbox table at 1024 px");
    // An id cut short shows whole on hover and in Details.
    let dead_id = js(
        c,
        "return document.querySelector('#outbox-dead tbody tr[data-id]').dataset.id",
    )
    .await;
    let dead_id = dead_id.as_str().unwrap().to_owned();
    let title = js(
        c,
        "return document.querySelector('#outbox-dead tbody tr[data-id] td.id .truncate').title",
    )
    .await;
    assert_eq!(title, dead_id.as_str());
    click(c, "#outbox-dead tbody tr[data-id] button[aria-expanded]").await;
    let more = text(c, "#outbox-dead tr.more:not([hidden])").await;
    assert!(more.contains(&dead_id) && more.contains("422"), "{more}");
    shot(c, "11-outbox-details").await;

    // Drop asks first; Keep keeps it.
    let row = format!("#outbox-dead tr[data-id={}]", browser::css_string(&dead_id));
    click(c, &format!("{row} button[aria-label^='Drop']")).await;
    let asked = text(c, &format!("{row} td.actions")).await;
    assert!(asked.contains("Drop for good?"), "{asked}");
    shot(c, "12-outbox-confirm").await;
    axe(c, "outbox, confirming a drop").await;
    click(c, &format!("{row} td.actions button:last-child")).await;
    assert!(
        text(c, &format!("{row} td.actions"))
            .await
            .contains("Retry")
    );
    // Drop it.
    click(c, &format!("{row} button[aria-label^='Drop']")).await;
    click(c, &format!("{row} button.primary")).await;
    until(
        c,
        "the dropped letter gone",
        &format!("return !document.querySelector({})", js_string(&row)),
        WAIT,
    )
    .await;
    let listed: Value = reqwest::get(format!("{console}api/outbox"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert!(!listed.to_string().contains(&dead_id), "{listed}");

    // Retry another dead letter once the host takes events again: it leaves the dead letters.
    proxy.modes.post_status.store(0, Ordering::SeqCst);
    let next = js(c, "const r = document.querySelector('#outbox-dead tbody tr[data-id]'); return r && r.dataset.id").await;
    let next = next.as_str().expect("another dead letter").to_owned();
    let row = format!("#outbox-dead tr[data-id={}]", browser::css_string(&next));
    click(c, &format!("{row} button[aria-label^='Retry']")).await;
    until(
        c,
        "the retry said",
        "return document.getElementById('outbox-said').textContent.includes('pending again')",
        WAIT,
    )
    .await;
    until(
        c,
        "the retried letter out of the dead letters",
        &format!("return !document.querySelector({})", js_string(&row)),
        WAIT,
    )
    .await;
    c.set_window_size(1500, 1100).await.unwrap();
}

/// The timeline: filters by kind, status and name; replays; a broken answer explained.
async fn the_timeline(c: &Client, proxy: &proxy::Proxy) {
    proxy.modes.broken_ranks.store(true, Ordering::SeqCst);
    open(c, "nav-tool-keyword-ranks", "Tool keyword-ranks").await;
    type_into(c, &field(c, "/keyword").await, "habit tracker").await;
    let (summary, _) = send(c).await;
    proxy.modes.broken_ranks.store(false, Ordering::SeqCst);
    assert!(summary.starts_with("✗ failed: 200"), "{summary}");
    let why = text(c, "#result-why").await;
    assert!(
        why.starts_with("answer shape:") && why.contains("refuse"),
        "{why}"
    );
    let failures = text(c, "#failures").await;
    assert!(
        failures.contains("keyword-ranks") && failures.contains("answer shape"),
        "{failures}"
    );

    let all = count(c, "call").await + count(c, "delivery").await + count(c, "posted").await;
    let kinds = |k: &str| {
        format!(
            "return [...document.querySelectorAll('#timeline > li')].every(e => e.dataset.kind === '{k}') && document.querySelectorAll('#timeline > li').length > 0"
        )
    };
    c.find(Locator::Id("filter-kind"))
        .await
        .unwrap()
        .select_by_value("posted")
        .await
        .unwrap();
    until(c, "only posted events", &kinds("posted"), WAIT).await;
    c.find(Locator::Id("filter-kind"))
        .await
        .unwrap()
        .select_by_value("")
        .await
        .unwrap();
    c.find(Locator::Id("filter-outcome"))
        .await
        .unwrap()
        .select_by_value("failed")
        .await
        .unwrap();
    until(c, "only failures", "return [...document.querySelectorAll('#timeline > li')].every(e => e.dataset.outcome === 'failed')", WAIT).await;
    c.find(Locator::Id("filter-outcome"))
        .await
        .unwrap()
        .select_by_value("")
        .await
        .unwrap();
    type_into(c, "#filter-name", "keyword-ranks").await;
    until(c, "only keyword-ranks", "return [...document.querySelectorAll('#timeline > li')].every(e => e.dataset.title.includes('keyword-ranks'))", WAIT).await;
    // "N of M": N the entries shown, M every entry. The dead letter retried just before may be
    // posted meanwhile (a new entry), so M is at least the count taken before filtering.
    let count_text = text(c, "#timeline-count").await;
    let shown = js(
        c,
        "return document.querySelectorAll('#timeline > li').length",
    )
    .await
    .as_u64()
    .unwrap();
    let (n, m) = count_text
        .split_once(" of ")
        .and_then(|(n, m)| {
            Some((
                n.trim().parse::<u64>().ok()?,
                m.split_whitespace().next()?.parse::<u64>().ok()?,
            ))
        })
        .unwrap_or_else(|| panic!("not `N of M entries`: {count_text}"));
    assert!(
        n == shown && m >= all,
        "{count_text}: {shown} shown, {all} before filtering"
    );
    shot(c, "13-timeline-filtered").await;
    axe(c, "timeline filtered").await;
    type_into(c, "#filter-name", "").await;

    // Open an entry; replay a call, a delivery and a posted event.
    js(
        c,
        "document.querySelector('#timeline > li[data-kind=delivery] details').open = true",
    )
    .await;
    axe(c, "timeline with an entry open").await;
    let before = js(c, "return Math.max(...[...document.querySelectorAll('#timeline > li')].map(e => +e.dataset.id))").await.as_u64().unwrap();
    for kind in ["call", "delivery", "posted"] {
        js(
            c,
            &format!(
                "document.querySelector('#timeline > li[data-kind={kind}] details').open = true"
            ),
        )
        .await;
        // A row whose entry changes is drawn anew; the click finds the row as it is now.
        js(
            c,
            &format!(
                "document.querySelector('#timeline > li[data-kind={kind}] button.replay').click()"
            ),
        )
        .await;
    }
    until(c, "three replays", &format!("return [...document.querySelectorAll('#timeline > li')].filter(e => +e.dataset.id > {before}).length >= 3"), WAIT).await;
    let newest = js(c, &format!("return [...document.querySelectorAll('#timeline > li')].filter(e => +e.dataset.id > {before}).map(e => e.dataset.title)")).await;
    assert!(
        newest.to_string().contains("(duplicate)"),
        "a replayed posted event is a duplicate: {newest}"
    );
    shot(c, "14-replays").await;
}

/// Types `keys` where the focus is.
async fn press(c: &Client, keys: &str) {
    c.active_element()
        .await
        .unwrap()
        .send_keys(keys)
        .await
        .unwrap();
}

/// The keyboard alone: Tab to a form, type, Tab to Send, Enter.
async fn the_keyboard_alone(c: &Client, console: &str) {
    c.goto(console).await.unwrap();
    until(
        c,
        "the contributions",
        "return document.getElementById('nav-tool-keyword-ranks')",
        WAIT,
    )
    .await;
    let tab = char::from(Key::Tab).to_string();
    let enter = char::from(Key::Enter).to_string();
    let focused = "return document.activeElement ? document.activeElement.id || document.activeElement.name || document.activeElement.tagName : null";
    let mut reached = false;
    for _ in 0..40 {
        press(c, &tab).await;
        if js(c, focused).await == json!("nav-tool-keyword-ranks") {
            reached = true;
            break;
        }
    }
    assert!(reached, "Tab never reaches the keyword-ranks button");
    press(c, &enter).await;
    until(
        c,
        "the form's first field focused",
        "return document.activeElement && document.activeElement.name === 'root[keyword]'",
        WAIT,
    )
    .await;
    press(c, "notes").await;
    let mut on_send = false;
    for _ in 0..15 {
        press(c, &tab).await;
        if js(c, focused).await == json!("send") {
            on_send = true;
            break;
        }
    }
    assert!(on_send, "Tab never reaches Send from the form");
    press(c, &enter).await;
    let (summary, answer) = result(c).await;
    assert!(summary.starts_with("✓ passed: 200"), "{summary}");
    assert_eq!(
        answer["body"]["series"][0]["points"]
            .as_array()
            .map(Vec::len),
        Some(30),
        "{answer}"
    );
    shot(c, "15-keyboard").await;
}

/// Markup in every text a manifest controls (names, descriptions, titles, enum values, defaults,
/// member names) and in every answer of the server: the console shows it as text and runs none.
#[test]
fn a_hostile_manifest_and_server_run_nothing_in_the_page() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let manifest = hostile_manifest(dir.path());
    let server = hostile_server(&runtime);
    let dev = harness::Dev::start_with_manifest(
        &manifest,
        &["--console", "127.0.0.1:0", "--server", &server],
    );
    let console = console_url(&dev);
    let driver = driver();
    runtime.block_on(async {
        let c = browser(&driver, 1500).await;
        c.goto(&console).await.unwrap();
        until(&c, "the contributions", "return document.querySelector('#nav-contributions button')", WAIT).await;
        // Any policy violation from here on is counted: none may happen.
        js(&c, "window.__violations = []; document.addEventListener('securitypolicyviolation', e => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));").await;
        let nav = contributions(&c).await;
        let mut shown = String::new();
        for id in nav.iter().map(String::as_str).chain(["nav-events", "nav-install", "nav-outbox"]) {
            click(&c, &format!("#{id}")).await;
            until(&c, "the panel", "return document.querySelector('#panel h2')", WAIT).await;
            // Every optional member added, so every title and description is drawn.
            for _ in 0..20 {
                let added = js(&c, "const b = document.querySelector('#form button.add'); if (b) { b.click(); return true } return false").await;
                if added != json!(true) {
                    break;
                }
            }
            if js(&c, "return !!document.getElementById('send')").await == json!(true) {
                js(&c, "const a = document.getElementById('send-invalid'); if (a) a.checked = true").await;
                if js(&c, "return !!document.getElementById('item')").await == json!(true) {
                    type_into(&c, "#item", "KT-1").await;
                }
                click(&c, "#send").await;
                until(&c, "an answer", "const s = document.getElementById('result-summary'); return s && !s.textContent.startsWith('Running')", WAIT).await;
            }
            if id == "nav-events" {
                click(&c, "#deliver").await;
                until(&c, "the delivery", "return document.getElementById('delivered').textContent", WAIT).await;
            }
            js(&c, "for (const d of document.querySelectorAll('#panel details')) d.open = true").await;
            shown.push_str(js(&c, "return document.getElementById('panel').innerText").await.as_str().unwrap());
        }
        js(&c, "for (const d of document.querySelectorAll('details')) d.open = true").await;
        tokio::time::sleep(Duration::from_millis(500)).await;
        shot(&c, "20-hostile").await;
        let pwned = js(&c, "return window.__pwned || null").await;
        assert_eq!(pwned, Value::Null, "script from the manifest or the server ran");
        let injected = js(&c, "return [...document.querySelectorAll('body img, body svg, body iframe, body object, body embed, body script, body a[href^=javascript]')].map(e => e.outerHTML)").await;
        assert_eq!(injected, json!([]), "markup from the manifest or the server became elements");
        let violations = js(&c, "return window.__violations").await;
        assert_eq!(violations, json!([]), "the page tried to run what its policy blocked");
        shown.push_str(js(&c, "return document.body.innerText").await.as_str().unwrap());
        for text in ["<img src=x onerror=", "<script>window.__pwned", "<b>bold</b>"] {
            assert!(shown.contains(text), "`{text}` is not shown as text:\n{shown}");
        }
        axe(&c, "hostile").await;
        c.close().await.unwrap();
    });
}

const IMG: &str = "<img src=x onerror=\"window.__pwned=1\">";
const SCRIPT: &str = "<script>window.__pwned=2</script>";
/// Markup that fits a 60-character label.
const SHORT: &str = "<b>bold</b><img src=x onerror=window.__pwned=3>";

/// The example's manifest with markup in every text a vendor writes.
fn hostile_manifest(dir: &std::path::Path) -> std::path::PathBuf {
    let example = std::path::Path::new(&harness::manifest()).to_path_buf();
    let mut m: Value = serde_json::from_str(
        &std::fs::read_to_string(example.join("host.extension.json")).unwrap(),
    )
    .unwrap();
    fn walk(v: &mut Value) {
        match v {
            Value::Object(map) => {
                for (k, v) in map.iter_mut() {
                    if matches!(
                        k.as_str(),
                        "description" | "title" | "label" | "help" | "justification"
                    ) {
                        if let Value::String(s) = v {
                            // As much markup as the manifest's length limits let through.
                            let full = format!("{s} <b>bold</b> {IMG} {SCRIPT}");
                            *s = if full.chars().count() <= 60 || k == "description" {
                                full
                            } else {
                                SHORT.to_owned()
                            };
                        }
                    } else {
                        walk(v);
                    }
                }
                // An input schema: a member named with markup, an enum of markup, a default of it.
                if map.get("type") == Some(&json!("object")) && map.contains_key("properties") {
                    let props = map["properties"].as_object_mut().unwrap();
                    props.insert(
                        IMG.to_owned(),
                        json!({ "type": "string", "title": SCRIPT, "default": IMG }),
                    );
                    props.insert(
                        "choice".to_owned(),
                        json!({ "enum": [IMG, SCRIPT], "description": IMG }),
                    );
                }
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut m["contributes"]);
    walk(&mut m["server"]);
    m["description"] = json!(format!("An extension {IMG} {SCRIPT} <b>bold</b>"));
    for file in std::fs::read_dir(&example).unwrap() {
        let file = file.unwrap();
        if file.file_type().unwrap().is_file() && file.file_name() != "host.extension.json" {
            std::fs::copy(file.path(), dir.join(file.file_name())).unwrap();
        }
    }
    for folder in ["assets", "ui", "docs"] {
        copy_dir(&example.join(folder), &dir.join(folder));
    }
    let path = dir.join("host.extension.json");
    std::fs::write(&path, serde_json::to_string_pretty(&m).unwrap()).unwrap();
    path
}

fn copy_dir(from: &std::path::Path, to: &std::path::Path) {
    let Ok(entries) = std::fs::read_dir(from) else {
        return;
    };
    std::fs::create_dir_all(to).unwrap();
    for entry in entries {
        let entry = entry.unwrap();
        if entry.file_type().unwrap().is_dir() {
            copy_dir(&entry.path(), &to.join(entry.file_name()));
        } else {
            std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
        }
    }
}

/// A server whose every answer carries markup: bodies, error messages, health.
fn hostile_server(runtime: &tokio::runtime::Runtime) -> String {
    use axum::response::IntoResponse;
    async fn answer(uri: http::Uri) -> axum::response::Response {
        let body = if uri.path() == "/host/health" {
            json!({ "status": "ok", "extensionId": format!("x{IMG}") })
        } else if uri.path().starts_with("/host/tools/") {
            json!({ "value": { "label": IMG, "value": SCRIPT } })
        } else {
            json!({ "error": { "code": "BAD", "message": format!("{IMG} {SCRIPT}") } })
        };
        let status = if body.get("error").is_some() {
            422
        } else {
            200
        };
        (
            http::StatusCode::from_u16(status).unwrap(),
            [(http::header::CONTENT_TYPE, "application/json")],
            body.to_string(),
        )
            .into_response()
    }
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new().fallback(answer);
    runtime.spawn(async move { axum::serve(listener, router).await });
    url
}

/// What a page (or anything else on this machine) can send the console: each wrong request gets a
/// JSON error naming what was wrong, every answer carries the console's security headers, a change
/// from another origin is refused, and the local host keeps serving.
#[test]
fn the_console_refuses_bad_requests_in_words() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    // No server behind it: calls fail as "no answer", which is an entry, not an error.
    let dev = Dev::start(&["--console", "127.0.0.1:0", "--server", "http://127.0.0.1:9"]);
    let console = console_url(&dev);
    #[allow(deprecated)] // ring, as everywhere in the SDK (see host-runtime's client)
    let _ = rustls::crypto::ring::default_provider().install_default();
    // A connection each: the console closes one it refused a body on (over its limit), and a
    // pooled connection taken again before the close is seen would fail the next request.
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let own = console.trim_end_matches('/').to_owned();
    let post_from = |path: &str, body: &str, content_type: &str, origin: Option<&str>| {
        let mut request = http
            .post(format!("{console}{}", path.trim_start_matches('/')))
            .header("content-type", content_type)
            .body(body.to_owned());
        if let Some(origin) = origin {
            request = request.header("origin", origin);
        }
        runtime.block_on(async {
            // The console may answer before the whole body is sent (over its limit) and close.
            let Ok(answer) = request.send().await else {
                return (0, Value::Null, http::HeaderMap::new());
            };
            let status = answer.status().as_u16();
            let headers = answer.headers().clone();
            (
                status,
                answer.json::<Value>().await.unwrap_or(Value::Null),
                headers,
            )
        })
    };
    let post = |path: &str, body: &str, content_type: &str| {
        let (status, body, _) = post_from(path, body, content_type, Some(&own));
        (status, body)
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
    let (status, body) = post(
        "/api/check/input",
        r#"{"kind":"toll","input":{}}"#,
        "application/json",
    );
    assert_eq!(status, 422, "{body}");
    let (status, body) = post(
        "/api/check/input",
        r#"{"kind":"tool","id":"keyword-ranks","input":{"days":0}}"#,
        "application/json",
    );
    assert_eq!(status, 200, "{body}");
    let mut at: Vec<&str> = body["errors"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["at"].as_str().unwrap())
        .collect();
    at.sort_unstable();
    assert_eq!(at, ["/", "/days"], "every error, by pointer: {body}");
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

    // A change from another origin is refused before it is read; one without an origin (curl, a
    // script) is taken, as is the console's own.
    for foreign in [
        "http://evil.example",
        "http://127.0.0.1:1",
        "null",
        &own.replace("http://", "https://"),
    ] {
        let (status, body, _) = post_from(
            "/api/outbox/drop",
            r#"{"id":"evt_1"}"#,
            "application/json",
            Some(foreign),
        );
        assert_eq!(status, 403, "{foreign}: {body}");
        assert_eq!(body["error"]["code"], "FOREIGN_ORIGIN");
    }
    let (status, _, _) = post_from(
        "/api/outbox/drop",
        r#"{"id":"evt_1"}"#,
        "application/json",
        None,
    );
    assert_eq!(status, 409);

    // Every answer, the page's files and the errors alike, carries the policy.
    let get = |path: &str, host: Option<&str>| {
        let mut request = http.get(format!("{console}{}", path.trim_start_matches('/')));
        if let Some(host) = host {
            request = request.header("host", host);
        }
        runtime.block_on(async {
            let answer = request.send().await.unwrap();
            (answer.status().as_u16(), answer.headers().clone())
        })
    };
    for path in [
        "/",
        "/console.js",
        "/form.js",
        "/console.css",
        "/api/manifest",
        "/api/nothing",
    ] {
        let (_, headers) = get(path, None);
        let csp = headers["content-security-policy"].to_str().unwrap();
        assert!(
            csp.contains("script-src 'self'")
                && csp.contains("frame-ancestors 'none'")
                && !csp.contains("unsafe"),
            "{path}: {csp}"
        );
        assert_eq!(headers["x-frame-options"], "DENY", "{path}");
        assert_eq!(headers["x-content-type-options"], "nosniff", "{path}");
    }
    let (_, _, headers) = post_from(
        "/api/outbox/drop",
        "{}",
        "application/json",
        Some("http://evil.example"),
    );
    assert_eq!(headers["x-frame-options"], "DENY");

    // A page on another name (DNS rebinding) is not answered.
    let (status, headers) = get("/api/manifest", Some("evil.example"));
    assert_eq!(status, 421);
    assert!(headers.contains_key("content-security-policy"));

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

/// The server's outbox through the console's API (`--outbox`): pending events and dead letters
/// listed, a dead letter retried, an event dropped.
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
    let console = console_url(&dev);
    #[allow(deprecated)] // ring, as everywhere in the SDK (see host-runtime's client)
    let _ = rustls::crypto::ring::default_provider().install_default();
    let http = reqwest::Client::builder().no_proxy().build().unwrap();
    let list = || -> Value {
        runtime.block_on(async {
            http.get(format!("{console}api/outbox"))
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap()
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
    // The backlog the server's gauges give, counted by the store.
    assert_eq!(o["backlog"]["pending"], 1, "{o}");
    assert_eq!(o["backlog"]["dead"], 1, "{o}");
    assert!(
        o["backlog"]["oldestAgeSecs"].as_f64().unwrap() >= 0.0,
        "{o}"
    );
    assert_eq!(change("retry", "rank.collapsed-ins_1"), 200);
    assert_eq!(ids(&list(), "pending").len(), 2);
    assert_eq!(change("drop", "rank.dropped-ins_1-habit"), 200);
    assert_eq!(change("drop", "rank.dropped-ins_1-habit"), 404);
    let o = list();
    assert_eq!(ids(&o, "pending"), ["rank.collapsed-ins_1"], "{o}");
    assert!(ids(&o, "dead").is_empty(), "{o}");
    assert_eq!(
        (&o["backlog"]["pending"], &o["backlog"]["dead"]),
        (&json!(1), &json!(0)),
        "{o}"
    );
}

/// Every form of the `full` template (a crate as `cargo host init` writes it), filled through the
/// page and sent to a server that records what it gets: the input it got is the JSON editor's,
/// every form passes axe-core, and the page raises no script error.
#[test]
fn every_form_of_the_full_template_sends_what_it_shows() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let made = std::process::Command::new(env!("CARGO_BIN_EXE_cargo-host"))
        .args(["init", "notes-ext", "--template", "full"])
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        made.status.success(),
        "{}",
        String::from_utf8_lossy(&made.stderr)
    );
    let (server, got) = recording_server(&runtime);
    let dev = Dev::start_with_manifest(
        &dir.path().join("notes-ext/host.extension.json"),
        &["--console", "127.0.0.1:0", "--server", &server],
    );
    let console = console_url(&dev);
    let driver = driver();
    runtime.block_on(async {
        let c = browser(&driver, 1500).await;
        c.goto(&console).await.unwrap();
        until(&c, "the contributions", "return document.querySelector('#nav-contributions button')", WAIT).await;
        js(&c, "window.__errors = []; window.addEventListener('error', e => window.__errors.push(String(e.message)));").await;
        let nav = contributions(&c).await;
        assert_eq!(nav.len(), 10, "{nav:?}");
        for id in &nav {
            click(&c, &format!("#{id}")).await;
            until(&c, "the form", "return document.getElementById('send')", WAIT).await;
            let typed: &[(&str, &str)] = match id.as_str() {
                "nav-tool-greet" => &[("/name", "Ada")],
                "nav-action-save-note" => &[("/text", "Remember the milk.")],
                "nav-work-item-work-item" => &[("/container", "board-1")],
                "nav-work-comment-work-comment" => &[("/body", "Done.")],
                _ => &[],
            };
            if id == "nav-tool-recent-notes" {
                click(&c, "button[data-member=limit]").await;
                type_into(&c, &field(&c, "/limit").await, "5").await;
            }
            if id == "nav-work-item-work-item" {
                click(&c, "button[data-member=priority]").await;
                click(&c, "button[data-member=labels]").await;
                click(&c, "#form [data-pointer='/labels'] button.add").await;
                type_into(&c, &field(&c, "/labels/0").await, "urgent").await;
            }
            if id == "nav-work-comment-work-comment" {
                type_into(&c, "#item", "T-1").await;
            }
            if id == "nav-mention-note" || id == "nav-work-containers-work-containers" {
                type_into(&c, "#query", "no").await;
            }
            for (pointer, value) in typed {
                type_into(&c, &field(&c, pointer).await, value).await;
            }
            axe(&c, id).await;
            let shown = js(&c, "const j = document.getElementById('json'); return j ? JSON.parse(j.value) : null").await;
            let before = got.lock().unwrap().len();
            click(&c, "#send").await;
            until(&c, "the answer", "const s = document.getElementById('result-summary'); return s && !s.textContent.startsWith('Running')", WAIT).await;
            let refused = text(&c, "#form-errors").await;
            let sent = got.lock().unwrap().clone();
            assert_eq!(sent.len(), before + 1, "{id}: {refused}");
            if !shown.is_null() {
                assert_eq!(sent[before]["body"]["input"], shown, "{id}");
            }
        }
        let sent = got.lock().unwrap().clone();
        let item = sent.iter().find(|b| b["body"]["input"]["container"] == "board-1").unwrap();
        assert_eq!(item["body"]["input"]["labels"], json!(["urgent"]));
        assert_eq!(item["body"]["input"]["priority"], "high", "an enum member added starts at its first value");
        let mention = sent.iter().find(|b| b["path"] == "/host/mentions/note").unwrap();
        assert_eq!(mention["query"], "q=no");
        assert_eq!(js(&c, "return window.__errors").await, json!([]));
        shot(&c, "30-full-template").await;
        c.close().await.unwrap();
    });
}

/// A server that answers every route `{}` and records what it gets (the path, the query, the JSON
/// body), but for health.
fn recording_server(
    runtime: &tokio::runtime::Runtime,
) -> (String, std::sync::Arc<std::sync::Mutex<Vec<Value>>>) {
    use axum::extract::State;
    use std::sync::{Arc, Mutex};
    type Got = Arc<Mutex<Vec<Value>>>;
    async fn answer(
        State(got): State<Got>,
        uri: http::Uri,
        body: axum::body::Bytes,
    ) -> axum::Json<Value> {
        if uri.path() != "/host/health" {
            let body = serde_json::from_slice::<Value>(&body).unwrap_or(Value::Null);
            got.lock()
                .unwrap()
                .push(json!({ "path": uri.path(), "query": uri.query(), "body": body }));
        }
        let answer = if uri.path() == "/host/health" {
            json!({ "status": "ok" })
        } else {
            json!({})
        };
        axum::Json(answer)
    }
    let got: Got = Arc::default();
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let router = axum::Router::new()
        .fallback(answer)
        .with_state(Arc::clone(&got));
    runtime.spawn(async move { axum::serve(listener, router).await });
    (url, got)
}
