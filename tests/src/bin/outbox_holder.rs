//! Sends events through an outbox whose dispatcher holds their claims, so that a test can kill it
//! (SIGKILL) while it holds them and time how soon another instance posts them.
//!
//! `outbox_holder STORE POST_URL EVENTS LEASE_MS TIMEOUT_MS`: `STORE` is `file:DIR`, a `redis://`
//! URL or a `postgres://` URL. It sends `EVENTS` events (ids `held-<pid>-0`, `held-<pid>-1`, ...) with the
//! outbox's lease set to `LEASE_MS` and each attempt's timeout to `TIMEOUT_MS`, prints `accepted`
//! once the store holds them all, and then waits to be killed: its dispatcher posts them to
//! `POST_URL`, which the test leaves unanswered, so every event stays claimed by this process.
//! With `EVENTS` 0 it is the instance that takes over: its dispatcher starts at once and posts what
//! the store holds once it is due.

use std::time::Duration;

use host_runtime::EventSender;
use host_runtime::outbox::{
    DrainMode, FileOutbox, OutboxStore, PostgresOutbox, RedisOutbox, RetryPolicy,
};
use host_runtime::testing::DEVELOPMENT_WEBHOOK_SECRET;
use host_runtime::webhook::PayloadSchema;

static HELD: PayloadSchema = PayloadSchema::new(
    "rank.dropped",
    r#"{"type": "object", "required": ["why"], "properties": {"why": {"type": "string"}}}"#,
    None,
    true,
);

async fn open(store: &str) -> Result<std::sync::Arc<dyn OutboxStore>, String> {
    let opened: std::sync::Arc<dyn OutboxStore> = if let Some(dir) = store.strip_prefix("file:") {
        std::sync::Arc::new(FileOutbox::open(dir).map_err(|e| e.to_string())?)
    } else if store.starts_with("redis://") {
        std::sync::Arc::new(
            RedisOutbox::connect(store)
                .await
                .map_err(|e| e.to_string())?,
        )
    } else {
        let pool = host_runtime::postgres::connect(store)
            .await
            .map_err(|e| e.to_string())?;
        host_runtime::postgres::migrate(&pool)
            .await
            .map_err(|e| e.to_string())?;
        std::sync::Arc::new(PostgresOutbox::new(pool).await.map_err(|e| e.to_string())?)
    };
    Ok(opened)
}

/// `e` and its sources, in one line.
fn chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(cause) = source {
        text = format!("{text}: {cause}");
        source = cause.source();
    }
    text
}

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [store, post_url, events, lease_ms, timeout_ms] = args.as_slice() else {
        eprintln!("usage: outbox_holder STORE POST_URL EVENTS LEASE_MS TIMEOUT_MS");
        return std::process::ExitCode::from(2);
    };
    let (Ok(events), Ok(lease_ms), Ok(timeout_ms)) = (
        events.parse::<u64>(),
        lease_ms.parse::<u64>(),
        timeout_ms.parse::<u64>(),
    ) else {
        eprintln!("EVENTS, LEASE_MS and TIMEOUT_MS must be whole numbers: {args:?}");
        return std::process::ExitCode::from(2);
    };
    let store = match open(store).await {
        Ok(store) => store,
        Err(e) => {
            println!("error: {e}");
            return std::process::ExitCode::from(3);
        }
    };
    let sender =
        EventSender::new(post_url.as_str(), DEVELOPMENT_WEBHOOK_SECRET, store).map(|sender| {
            sender
                .with_retry(RetryPolicy {
                    timeout: Duration::from_millis(timeout_ms),
                    ..RetryPolicy::default()
                })
                .with_lease(Duration::from_millis(lease_ms))
        });
    let sender = match sender {
        Ok(sender) => sender,
        Err(e) => {
            println!("error: {e}");
            return std::process::ExitCode::from(3);
        }
    };
    // The events are stored first, with nothing posting them, then one dispatcher claims them all
    // at once: every one is then in flight when the test kills this process.
    let storing = sender.clone().with_drain_mode(DrainMode::OnDemand);
    // Ids of this process's own, so that runs on one store never share one.
    let run = std::process::id();
    for n in 0..events {
        let payload = host_runtime::serde_json::json!({ "why": format!("held event {n}") });
        let accepted = match storing.event(&HELD, "ins_held", &format!("held-{run}-{n}"), &payload)
        {
            Ok(event) => event.enqueue().await.map(drop).map_err(|e| chain(&e)),
            Err(e) => Err(e.to_string()),
        };
        if let Err(e) = accepted {
            println!("error: {e}");
            return std::process::ExitCode::from(3);
        }
    }
    // As a server does at start: what the store holds is posted without waiting for a new event.
    let posting = sender
        .with_drain_mode(DrainMode::Background)
        .with_concurrency(usize::try_from(events).unwrap_or(1).max(1));
    posting.start();
    println!("accepted");
    std::future::pending::<()>().await;
    std::process::ExitCode::SUCCESS
}
