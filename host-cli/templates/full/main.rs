//! {{name}}: every kind of contribution in one vendor server: assistant tools, an approved action,
//! a mention picker, a context provider and a procedure over notes kept per install; a connector
//! syncing daily sign-ups; a task board as the work destination; and a signed `release.noted`
//! alert posted back to the host after each release.
//!
//! `cargo run` serves it on 127.0.0.1:8787 and posts its events to `cargo host dev` (run it in a
//! second terminal to see them checked); `cargo host check` runs the host's publish-time checks.
//! Notes and tasks live in memory and sign-ups are made up: a real server keeps its own data.

host_runtime::host_extension!("host.extension.json");

mod config;

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Mutex;

use chrono::{Days, NaiveDate, NaiveTime, SecondsFormat, TimeZone, Utc};
use host_runtime::answer::{Table, Value};
use host_runtime::events::{InstallCreated, ReleaseShipped};
use host_runtime::metrics::{MetricPoint, SyncAnswer};
use host_runtime::serde_json::{self, json};
use host_runtime::work::{Container, Containers, CreatedComment, CreatedItem, NewComment, NewItem};
use host_runtime::{ContextBlock, ContextCall, HostError, MentionCall, MentionItem, MentionItems};

/// The countries reported.
const COUNTRIES: [&str; 3] = ["US", "DE", "JP"];
/// Days one sync answer covers; the rest follow through `cursor`.
const DAYS_PER_PAGE: u64 = 7;
/// Where a task lives in the vendor's web app.
const TASK_URL: &str = "https://{{id}}.example.com/tasks/";
/// The boards every account has.
const BOARDS: [(&str, &str); 2] = [("product", "Product"), ("marketing", "Marketing")];

/// One saved note.
#[derive(Debug, Clone)]
struct Note {
    id: String,
    text: String,
}

/// What the server keeps for one install.
#[derive(Debug, Default)]
struct Install {
    notes: Vec<Note>,
    /// Task id -> its comments.
    tasks: HashMap<String, Vec<String>>,
}

/// The extension.
struct Server {
    installs: Mutex<HashMap<String, Install>>,
    webhooks: Webhooks,
}

impl Server {
    /// Runs `f` on the install's state.
    fn with_install<T>(&self, install: &str, f: impl FnOnce(&mut Install) -> T) -> T {
        let mut installs = self.installs.lock().unwrap_or_else(|e| e.into_inner());
        f(installs.entry(install.to_owned()).or_default())
    }

    /// The install's notes, newest first.
    fn notes(&self, install: &str) -> Vec<Note> {
        self.with_install(install, |i| i.notes.iter().rev().cloned().collect())
    }
}

impl Tools for Server {
    async fn greet(&self, call: ToolCall<tools::greet::Input>) -> Result<Value, HostError> {
        Ok(Value::new(format!("Hello, {}!", call.input.name.as_str())))
    }

    async fn recent_notes(
        &self,
        call: ToolCall<tools::recent_notes::Input>,
    ) -> Result<Table, HostError> {
        let limit = call
            .input
            .limit
            .map_or(10, |n| usize::try_from(n.get()).unwrap_or(50));
        let mut table = Table::new().column("id", "Id").column("text", "Note");
        for note in self.notes(&call.install.id).into_iter().take(limit) {
            table = table.row([("id", note.id), ("text", note.text)]);
        }
        Ok(table)
    }
}

impl Actions for Server {
    async fn save_note(
        &self,
        call: Approved<actions::save_note::Input>,
    ) -> Result<serde_json::Value, HostError> {
        let text = call.input.text.as_str().to_owned();
        let id = self.with_install(&call.install.id, |i| {
            let id = format!("note-{}", i.notes.len() + 1);
            i.notes.push(Note {
                id: id.clone(),
                text,
            });
            id
        });
        Ok(json!({ "saved": true, "id": id }))
    }
}

impl Mentions for Server {
    async fn note(&self, call: MentionCall) -> Result<MentionItems, HostError> {
        let q = call.q.to_lowercase();
        let items = self
            .notes(&call.install.id)
            .into_iter()
            .filter(|n| n.text.to_lowercase().contains(&q))
            .map(|n| MentionItem::new(n.id, n.text))
            .collect();
        Ok(MentionItems { items })
    }
}

impl ContextProviders for Server {
    async fn notes_summary(&self, call: ContextCall) -> Result<ContextBlock, HostError> {
        let notes = self.notes(&call.install.id);
        Ok(match notes.first() {
            Some(latest) => ContextBlock::new(format!(
                "{} notes saved; the latest: {}",
                notes.len(),
                latest.text
            )),
            None => ContextBlock::new("No notes saved yet."),
        })
    }
}

impl Procedures for Server {
    async fn list_notes(
        &self,
        call: ProcedureCall<procedures::list_notes::Input>,
    ) -> Result<procedures::list_notes::Output, HostError> {
        let items = self
            .notes(&call.install.id)
            .into_iter()
            .map(|n| procedures::list_notes::OutputItemsItem {
                id: n.id,
                text: n.text,
            })
            .collect();
        Ok(procedures::list_notes::Output { items })
    }
}

/// `day:2026-11-01` -> the date.
fn parse_cursor(cursor: &str) -> Option<NaiveDate> {
    cursor.strip_prefix("day:")?.parse().ok()
}

fn date_of(member: &str, t: &host_runtime::Timestamp) -> Result<NaiveDate, HostError> {
    t.to_datetime()
        .map(|t| t.date_naive())
        .ok_or_else(|| HostError::input_invalid(format!("/input/{member}: not an ISO 8601 time")))
}

impl Connector for Server {
    async fn sync(&self, call: SyncCall) -> Result<SyncAnswer<manifest::Metric>, HostError> {
        if call.credentials.api_key.is_empty() {
            return Err(
                HostError::new("API_KEY_MISSING", "connect an API key first").with_status(401),
            );
        }
        let request = call.input;
        let from = date_of("from", &request.from)?;
        let to = date_of("to", &request.to)?;
        let start = match &request.cursor {
            None => from,
            Some(cursor) => parse_cursor(cursor).filter(|d| *d >= from).ok_or_else(|| {
                HostError::input_invalid(format!(
                    "/input/cursor: `{cursor}` is not a cursor this server gave out"
                ))
            })?,
        };
        let mut answer = SyncAnswer::default();
        let mut day = start;
        while day <= to {
            if day >= start + Days::new(DAYS_PER_PAGE) {
                answer.cursor = Some(format!("day:{day}"));
                break;
            }
            let midnight = Utc.from_utc_datetime(&day.and_time(NaiveTime::MIN));
            let t = midnight.to_rfc3339_opts(SecondsFormat::Secs, true);
            for metric in &request.metrics {
                for (i, country) in COUNTRIES.iter().enumerate() {
                    let v = f64::from(day.format("%d").to_string().parse::<u8>().unwrap_or(1))
                        * (i as f64 + 1.0);
                    answer.points.push(
                        MetricPoint::new(*metric, t.as_str(), v).dimension("country", *country),
                    );
                }
            }
            let Some(next) = day.succ_opt() else {
                break;
            };
            day = next;
        }
        Ok(answer)
    }
}

impl Work for Server {
    async fn containers(&self, call: ContainersCall) -> Result<Containers, HostError> {
        let q = call.input.q.unwrap_or_default().to_lowercase();
        let items = BOARDS
            .iter()
            .filter(|(_, label)| label.to_lowercase().contains(&q))
            .map(|(id, label)| Container {
                id: (*id).to_owned(),
                label: (*label).to_owned(),
            })
            .collect();
        Ok(Containers { items })
    }

    async fn create_item(&self, call: WorkCall<NewItem>) -> Result<CreatedItem, HostError> {
        let item = call.input;
        if !BOARDS.iter().any(|(id, _)| *id == item.container) {
            return Err(HostError::new(
                "BOARD_NOT_FOUND",
                format!("there is no board `{}`", item.container),
            )
            .with_status(404));
        }
        let id = self.with_install(&call.install.id, |i| {
            let id = format!("T-{}", i.tasks.len() + 1);
            i.tasks.insert(id.clone(), Vec::new());
            id
        });
        Ok(CreatedItem {
            url: format!("{TASK_URL}{id}"),
            id,
            status: "todo".to_owned(),
        })
    }

    async fn create_comment(
        &self,
        call: WorkCall<(String, NewComment)>,
    ) -> Result<CreatedComment, HostError> {
        let (task, comment) = call.input;
        let id = self.with_install(&call.install.id, |i| {
            let comments = i.tasks.get_mut(&task)?;
            comments.push(comment.body);
            Some(format!("{task}-c{}", comments.len()))
        });
        id.map(|id| CreatedComment { id }).ok_or_else(|| {
            HostError::new("TASK_NOT_FOUND", format!("there is no task `{task}`")).with_status(404)
        })
    }
}

impl Events for Server {
    async fn release_shipped(&self, call: EventCall<ReleaseShipped>) -> Result<(), HostError> {
        let release = call.input;
        let why = format!("Version {} is live; its notes are saved.", release.version);
        let payload = webhooks::release_noted::Payload {
            why: why
                .parse()
                .map_err(|_| HostError::internal("the alert sentence does not fit its schema"))?,
            version: Some(release.version.to_string()),
        };
        // The same release always has the same key, so a redelivery is not a second alert.
        let release_key = release
            .release_id
            .clone()
            .unwrap_or_else(|| release.version.to_string());
        let key = format!("release.noted-{}-{release_key}", call.install.id);
        match self
            .webhooks
            .release_noted(&call.install.id, &key, &payload)
        {
            // Sent in its own task with retries; the outcome is logged.
            Ok(event) => drop(event.spawn()),
            Err(e) => eprintln!("error: the alert was not signed: {e}"),
        }
        Ok(())
    }

    async fn install_created(&self, call: EventCall<InstallCreated>) -> Result<(), HostError> {
        println!("installed: {}", call.install.id);
        Ok(())
    }
}

#[tokio::main]
async fn main() -> ExitCode {
    let config = match config::Config::from_env() {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    // Events are signed with HOST_SIGNING_SECRET and posted to HOST_EVENT_POST_URL (in
    // development, `cargo host dev`'s), waiting on disk in HOST_OUTBOX until the host takes them.
    let sender = match config.event_sender() {
        Ok(sender) => sender,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let server = Server {
        installs: Mutex::default(),
        webhooks: Webhooks::new(sender),
    };
    config::serve(config.apply(handler(server)), &config).await
}
