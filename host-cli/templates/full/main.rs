//! {{name}}: every kind of contribution in one vendor server: assistant tools, an approved action,
//! a mention picker, a context provider and a procedure over notes kept per install; a connector
//! syncing daily sign-ups; a task board as the work destination; and a signed `release.noted`
//! alert posted back to the host after each release.
//!
//! `cargo run` serves it on 127.0.0.1:8787 and posts its events to `cargo host dev` (run it in a
//! second terminal to see them checked); `cargo host check` runs the host's publish-time checks.
//! Notes and tasks live in memory and sign-ups are made up: a real server keeps its own data.
//! What only reads or writes notes (the action, the mention picker, the context provider) is in
//! `notes.rs`, the connector's sync in `signups.rs`.

host_runtime::host_extension!("host.extension.json");

mod config;
mod notes;
mod signups;

use std::collections::HashMap;
use std::process::ExitCode;
use std::sync::Mutex;

use host_runtime::HostError;
use host_runtime::answer::{Table, Value};
use host_runtime::events::{InstallCreated, ReleaseShipped};
use host_runtime::work::{Container, Containers, CreatedComment, CreatedItem, NewComment, NewItem};

/// Where a task lives in the vendor's web app.
const TASK_URL: &str = "https://{{id}}.example.com/tasks/";
/// The boards every account has.
const BOARDS: [(&str, &str); 2] = [("product", "Product"), ("marketing", "Marketing")];

/// The extension.
struct Server {
    notes: notes::Notes,
    /// Each install's tasks: task id -> its comments.
    tasks: Mutex<HashMap<String, HashMap<String, Vec<String>>>>,
    webhooks: Webhooks,
}

impl Server {
    /// Runs `f` on the install's tasks.
    fn with_tasks<T>(
        &self,
        install: &str,
        f: impl FnOnce(&mut HashMap<String, Vec<String>>) -> T,
    ) -> T {
        let mut tasks = self.tasks.lock().unwrap_or_else(|e| e.into_inner());
        f(tasks.entry(install.to_owned()).or_default())
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
        Ok(self.notes.recent(&call))
    }
}

impl Procedures for Server {
    async fn list_notes(
        &self,
        call: ProcedureCall<procedures::list_notes::Input>,
    ) -> Result<procedures::list_notes::Output, HostError> {
        let items = self
            .notes
            .newest_first(&call.install.id)
            .into_iter()
            .map(|n| procedures::list_notes::OutputItemsItem {
                id: n.id,
                text: n.text,
            })
            .collect();
        Ok(procedures::list_notes::Output { items })
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
        let id = self.with_tasks(&call.install.id, |tasks| {
            let id = format!("T-{}", tasks.len() + 1);
            tasks.insert(id.clone(), Vec::new());
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
        let id = self.with_tasks(&call.install.id, |tasks| {
            let comments = tasks.get_mut(&task)?;
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
        notes: notes::Notes::default(),
        tasks: Mutex::default(),
        webhooks: Webhooks::new(sender),
    };
    config::serve(config.apply(handler(server)), &config).await
}
