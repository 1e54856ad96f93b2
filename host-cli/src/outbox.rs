//! `cargo host outbox`: what a vendor server's outbox holds (events waiting for the host, and dead
//! letters the host refused or that ran out of retries), and retrying or dropping one of them.
//!
//! The outbox is the one the server uses: a folder (the embedded store), a `redis://` URL or a
//! `postgres://` URL (the outbox in that database), from `--store`, else `HOST_OUTBOX`, else
//! `HOST_DATABASE_URL`, else `.host-outbox`. The embedded store is locked by a running
//! server: stop it first (a Redis outbox can be read while servers run).

use std::process::ExitCode;

use host_runtime::outbox::{Entry, OutboxStore, Which};

use crate::outbox_store::{now_ms, open, time};
use crate::output::{Term, line};

/// Where the outbox is when neither `--store` nor `HOST_OUTBOX` says.
const DEFAULT_STORE: &str = ".host-outbox";

/// `cargo host outbox` arguments.
#[derive(Debug, clap::Args)]
pub(crate) struct OutboxArgs {
    /// The outbox: a folder (the embedded store), a `redis://host:port` URL or a `postgres://` URL.
    /// Default: `HOST_OUTBOX`, else `HOST_DATABASE_URL`, else `.host-outbox`.
    #[arg(long, global = true, value_name = "FOLDER|URL")]
    store: Option<String>,
    /// The key prefix of a Redis outbox.
    #[arg(long, global = true, default_value = "host-outbox:")]
    prefix: String,
    #[command(subcommand)]
    action: Option<Action>,
}

#[derive(Debug, clap::Subcommand)]
enum Action {
    /// List pending events and dead letters (the default).
    List {
        /// Only the dead letters.
        #[arg(long)]
        dead: bool,
        /// At most this many of each list.
        #[arg(long, default_value_t = 100)]
        limit: usize,
        /// One JSON object per line (the body as text), for scripts.
        #[arg(long)]
        json: bool,
    },
    /// Move a dead letter back to pending: the server posts it again, with no attempts counted.
    Retry {
        /// The event's id (`webhook-id`).
        id: String,
    },
    /// Remove an event, pending or dead, for good.
    Drop {
        /// The event's id (`webhook-id`).
        id: String,
    },
}

/// Runs `cargo host outbox`.
pub(crate) async fn run(args: OutboxArgs, term: Term) -> ExitCode {
    let set = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let place = args
        .store
        .or_else(|| set("HOST_OUTBOX"))
        .or_else(|| set("HOST_DATABASE_URL"))
        .unwrap_or_else(|| DEFAULT_STORE.to_owned());
    let store = match open(&place, &args.prefix).await {
        Ok(store) => store,
        Err(e) => {
            term.error(&e.message);
            if let Some(note) = &e.note {
                term.note(note);
            }
            return ExitCode::from(2);
        }
    };
    let action = args.action.unwrap_or(Action::List {
        dead: false,
        limit: 100,
        json: false,
    });
    let outcome = match action {
        Action::List { dead, limit, json } => list(&*store, dead, limit, json, &term).await,
        Action::Retry { id } => store.revive(&id, now_ms()).await.map(|found| {
            report(
                found,
                &id,
                "back in pending: the server posts it within a second",
                &term,
            )
        }),
        Action::Drop { id } => store
            .discard(&id)
            .await
            .map(|found| report(found, &id, "dropped", &term)),
    };
    match outcome {
        Ok(code) => code,
        Err(e) => {
            term.error(&e.to_string());
            ExitCode::from(2)
        }
    }
}

fn report(found: bool, id: &str, done: &str, term: &Term) -> ExitCode {
    if found {
        line(&format!("{} {id}: {done}", term.ok()));
        ExitCode::SUCCESS
    } else {
        term.error(&format!(
            "no event `{id}` in this outbox (`cargo host outbox list` shows them)"
        ));
        ExitCode::from(1)
    }
}

async fn list(
    store: &dyn OutboxStore,
    dead_only: bool,
    limit: usize,
    json: bool,
    term: &Term,
) -> Result<ExitCode, host_runtime::outbox::StoreError> {
    let mut lists = Vec::new();
    if !dead_only {
        lists.push(("pending", store.list(Which::Pending, limit).await?));
    }
    lists.push(("dead", store.list(Which::Dead, limit).await?));
    for (name, entries) in &lists {
        if json {
            for e in entries {
                let row = serde_json::json!({
                    "list": name,
                    "id": e.id,
                    "attempts": e.attempts,
                    "due": time(e.due),
                    "accepted": time(e.accepted),
                    "lastError": e.last_error,
                    "body": String::from_utf8_lossy(&e.body),
                });
                line(&row.to_string());
            }
            continue;
        }
        line(&term.bold(&format!(
            "{name} ({}{})",
            entries.len(),
            if entries.len() == limit { "+" } else { "" }
        )));
        for e in entries {
            line(&describe(name, e));
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// One line for a person: id, attempts, when, what the last attempt met, size.
fn describe(list: &str, e: &Entry) -> String {
    let when = if list == "dead" { "given up" } else { "next" };
    let last = e
        .last_error
        .as_deref()
        .map(|why| format!("  last: {why}"))
        .unwrap_or_default();
    format!(
        "  {}  attempts {}  {when} {}  ({} bytes){last}",
        e.id,
        e.attempts,
        time(e.due),
        e.body.len()
    )
}
