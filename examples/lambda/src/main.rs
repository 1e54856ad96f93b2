//! The keyword-tracker example served as an AWS Lambda function (API Gateway REST or HTTP API, or
//! a Function URL), built with `cargo lambda build --release -p keyword-tracker-lambda`.
//!
//! Configuration is the example's own environment (`HOST_MODE`, `HOST_JWKS_URL`, `HOST_ISSUER`,
//! `HOST_EVENT_POST_URL`, `HOST_SIGNING_SECRET`, `HOST_OUTBOX`), plus:
//!
//! - `HOST_DEDUPE_TABLE`: the DynamoDB table event deliveries are deduplicated in, shared by every
//!   instance of the function (region, credentials and endpoint from the usual AWS variables, which
//!   Lambda sets). Unset, production keeps the keys in the Redis of `HOST_OUTBOX` (and development
//!   mode in memory). The table is checked at start; a missing one stops the function with the command that
//!   creates it;
//! - `HOST_OUTBOX` (required): where the function's own events wait, a `redis://` URL shared by
//!   every instance. Lambda may freeze an instance for good once it answers, so an instance's
//!   memory or `/tmp` would lose them: unset, or a folder, stops the function at start saying so
//!   (`memory` is taken, for tests, and said at start). Every invocation attempts the events it
//!   accepted before it answers (the adapter runs it as an `Invocation`); what the host does not
//!   take waits in Redis for the drain function;
//! - the function's handler setting (`_HANDLER`): `drain` makes the same binary the outbox's
//!   drain, for a second function an EventBridge schedule invokes (every minute): each invocation
//!   posts what is due, for up to `HOST_DRAIN_BUDGET_SECS` seconds (default 50; never past the
//!   invocation's deadline). Any other handler setting serves HTTP.
//!
//! A setting that is wrong, or a store that cannot be reached, stops the function at start: the
//! reason goes to the log and, as a `Runtime.InitError`, to the Runtime API, so the invocation
//! that started the instance fails with it.

use std::process::ExitCode;
use std::sync::Arc;
use std::time::Duration;

use host_runtime::dedupe::DynamoDbDedupe;
use keyword_tracker::Tracker;
use keyword_tracker::config::Config;

#[tokio::main]
async fn main() -> ExitCode {
    // Lambda sends stderr to CloudWatch Logs, which stamps each line itself.
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(std::io::stderr)
        .with_ansi(false)
        .without_time()
        .init();
    let serving = match start().await {
        Ok(serving) => serving,
        Err(e) => {
            eprintln!("error: {e}");
            // The invocation that started this instance fails with the reason, not only an exit.
            if let Err(why) = host_runtime::lambda::report_init_error(&e).await {
                eprintln!("error: {why}");
            }
            return ExitCode::FAILURE;
        }
    };
    let stopped = match serving {
        Serving::Http(handler) => host_runtime::lambda::run(handler).await,
        Serving::Drain(sender, budget) => host_runtime::lambda::run_drain(*sender, budget).await,
    };
    match stopped {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("error: the Lambda runtime stopped: {e}");
            ExitCode::FAILURE
        }
    }
}

/// What this instance serves once started.
enum Serving {
    /// HTTP calls from the host.
    Http(host_runtime::Handler),
    /// Scheduled drains of the outbox, each for up to the budget (boxed: the sender is large).
    Drain(Box<host_runtime::EventSender>, Duration),
}

/// The function's init: its settings read and its stores reached. An error here is an init error.
async fn start() -> Result<Serving, String> {
    let env = |k: &str| std::env::var(k).ok().filter(|v| !v.trim().is_empty());
    // The address is Lambda's; `LISTEN_ADDR` and `--listen` do not apply here.
    let config = Config::load(Some("127.0.0.1:0"), false, env).map_err(|e| e.to_string())?;
    let outbox = config
        .outbox
        .open_serverless(env("HOST_OUTBOX").is_some(), "AWS Lambda")
        .await
        .map_err(|e| e.to_string())?;
    let sender = Tracker::event_sender(&config, outbox)?;
    if env("_HANDLER").as_deref() == Some("drain") {
        let budget = match env("HOST_DRAIN_BUDGET_SECS") {
            None => Duration::from_secs(50),
            Some(secs) => secs.trim().parse().map(Duration::from_secs).map_err(|_| {
                format!("HOST_DRAIN_BUDGET_SECS is `{secs}`; give whole seconds, such as 50")
            })?,
        };
        return Ok(Serving::Drain(Box::new(sender), budget));
    }
    let tracker = Arc::new(Tracker::with_sender(sender)?);
    let handler = keyword_tracker::app(tracker, &config);
    let handler = match env("HOST_DEDUPE_TABLE") {
        Some(table) => {
            let store = DynamoDbDedupe::from_env(table.trim()).map_err(|e| e.to_string())?;
            store.check().await.map_err(|e| e.to_string())?;
            handler.with_dedupe_store(store)
        }
        // Without a table, production keeps the keys in the Redis of HOST_OUTBOX (development
        // mode, in memory).
        None => match config.dedupe_store().await.map_err(|e| e.to_string())? {
            Some(store) => handler.with_dedupe_store(store),
            None => handler,
        },
    };
    // A function that could not deduplicate its events fails its init, naming the fix.
    handler.check_start().map_err(|e| e.to_string())?;
    Ok(Serving::Http(handler))
}
