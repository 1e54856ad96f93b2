//! `cargo host`: the command-line front door to the manifest engine, and a local stand-in for the
//! host.
//!
//! Installed as `cargo-host`, so `cargo host validate ...` works; from the repository,
//! `cargo run -p host-cli -- validate ...` does the same.
//!
//! `validate`, `schema` and `expand` work on the manifest alone. `dev`, `call`, `trigger` and
//! `check` (in [`local`]) exercise a running vendor server the way the host does. `outbox` reads and
//! mends a vendor server's outbox.
//!
//! This file is the top: it parses the command line and hands each command to its module. Below
//! it, the commands (`diff`, `init`, `outbox`, `postgres`, `watch`, the local host in [`local`]);
//! below them, what they share ([`manifest`], [`output`], [`outbox_store`]). No module names an
//! item of this file (`tests/module_graph.rs` holds them to it).
//!
//! Exit codes: 0 when the manifest has no error (warnings allowed), 1 when it is invalid (malformed
//! JSON included), 2 when the file cannot be read or the arguments are wrong. The local host's
//! commands add: 1 for a failed answer or check, 2 when no server answers.

mod diff;
mod init;
mod local;
mod manifest;
mod outbox;
mod outbox_store;
mod output;
mod postgres;
mod watch;

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

use output::{ColorChoice, Format};

/// Build, check and exercise extensions for the host.
#[derive(Debug, Parser)]
#[command(name = "cargo host", bin_name = "cargo host", version)]
struct Cli {
    #[command(subcommand)]
    command: Command,
    /// When to color output: `auto` colors a terminal unless `NO_COLOR` is set.
    #[arg(long, global = true, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Create a new extension crate: manifest, handlers, build script and icon, ready to serve.
    ///
    /// Templates: `minimal` (one tool), `assistant` (tools, an approved action, a mention, a
    /// context provider, an event), `connector` (a metric synced page by page), `full` (all of
    /// those, a procedure, a work destination and a signed alert). The crate builds without
    /// warnings and passes `cargo host check` as written. Refuses to overwrite any file.
    ///
    /// Exits 0 when the crate is written, 2 when nothing was written (a file exists, a bad name).
    Init(init::InitArgs),
    /// Validate a manifest: the JSON Schema v2 and every cross-field rule.
    ///
    /// Exits 0 when the manifest has no error (warnings allowed), 1 when it is invalid, 2 when the file
    /// cannot be read or the arguments are wrong.
    Validate {
        /// How to print diagnostics: `human` shows the offending line with a caret; `json` prints one
        /// JSON object per diagnostic per line.
        #[arg(long, value_enum, default_value_t = Format::Human)]
        format: Format,
        /// The manifest file, or a folder holding `host.extension.json`.
        #[arg(default_value = host_manifest::MANIFEST_FILE)]
        path: PathBuf,
    },
    /// Print the manifest JSON Schema (draft 2020-12), for editors and other tools.
    Schema,
    /// Print the SQL of the runtime's PostgreSQL stores (deduplication keys, the outbox), for teams
    /// that run their own migrations instead of `postgres::migrate` at start-up.
    PostgresSchema,
    /// Migrate a PostgreSQL database for the runtime's stores, check it, or print the grants an
    /// application role needs.
    ///
    /// `migrate` applies the stores' migrations the database lacks (as the schema's owner; run it
    /// as a deploy step before servers that only check); `check` reads, and exits 1 naming a
    /// missing or edited migration; `grants --role NAME` prints the statements that let a role
    /// without the right to change the schema run a server. The database: `--database-url`, else
    /// `HOST_DATABASE_URL`. Your own tables' migrations are your application's to apply
    /// (`postgres::migrate_with`).
    ///
    /// Exits 0 on success, 1 when `check` finds the schema behind, 2 when the database cannot be
    /// reached or refuses.
    Postgres(postgres::PostgresArgs),
    /// Print the Rust code `host_extension!` generates for a manifest, formatted.
    ///
    /// Manifest errors appear as `compile_error!` lines, as the compiler would report them. Exits 1 when
    /// the manifest is invalid.
    Expand {
        /// The manifest file, or a folder holding `host.extension.json`.
        #[arg(default_value = host_manifest::MANIFEST_FILE)]
        path: PathBuf,
    },
    /// Print an `impl` of every handler trait the manifest needs, for a server type, with a `todo!()`
    /// in each method: a start that compiles.
    ///
    /// Editors' "implement missing members" writes the traits' `impl Future + Send` signatures with a
    /// `todo!()` body, which does not compile; these are `async fn`s, which the traits accept.
    Stubs {
        /// The manifest file, or a folder holding `host.extension.json`.
        #[arg(default_value = host_manifest::MANIFEST_FILE)]
        path: PathBuf,
        /// The name of your server type.
        #[arg(long = "type", default_value = "Server")]
        server: String,
    },
    /// Classify every change between the published manifest and the one to publish as breaking,
    /// risky or safe for installed users.
    ///
    /// Breaking: a removed tool, action, procedure, mention, context provider, webhook, metric or
    /// subscribed event; an input that accepts less (a new required property, a narrower type,
    /// tighter bounds, a removed enum value); a changed `installScope`. Risky: new scopes (owners
    /// re-approve), outputs and payloads that may carry what consumers did not expect, schema
    /// changes that cannot be compared. Safe: additions and text. OLD may be a git revision.
    ///
    /// Exits 0 when nothing is breaking, 1 when something is, 2 when a manifest cannot be read or
    /// is invalid.
    Diff(diff::DiffArgs),
    /// Run a local host on loopback for a vendor server in development.
    ///
    /// Serves the development key set at `GET /.well-known/jwks.json` (Cache-Control: max-age=300) and
    /// an event-post endpoint at `POST /v1/events` that checks every event the vendor server posts
    /// as the host does: the Standard Webhooks signature with the secret (300 s skew), the envelope
    /// `{ event, source, occurredAt, build, dedupeKey, payload }`, `dedupeKey` = `webhook-id`, the
    /// event declared under `contributes.webhooks`, the payload against its schema, and `why` on
    /// alerts and banners. Accepted: 202 `{"accepted":true}` (the same `webhook-id` again: 200 with
    /// `"duplicate":true`); refused: 401, 400 or 422 with an error body. One line per event:
    /// `✓ accepted ...`, `↺ duplicate ...` or `✗ rejected ...`.
    ///
    /// It also serves a console on its own port (127.0.0.1:8789, or any free port when that one is
    /// taken; `--open` opens it): every contribution of the manifest with a form generated from its
    /// input schema and sent to `--server` with a development install token, host events delivered
    /// once or on the retry schedule, and a live timeline of every call and every posted event
    /// with the checks applied, failures first; any entry can be replayed. `--outbox` shows the
    /// server's outbox there too. `--no-console` turns it off.
    ///
    /// The first line printed is `local host listening on http://ADDR`, then the `export` lines that
    /// start a vendor server against it. Listens on 127.0.0.1:8788 unless told otherwise, and only
    /// on loopback: the development key is public. Ctrl-C stops it.
    Dev(local::dev::DevArgs),
    /// Keep the generated API in step with the manifest while you edit it, for your editor.
    ///
    /// With the build-script wiring (`host_runtime_build::generate` in `build.rs`), rewrites the
    /// expansion in the crate's build output each time the manifest or a file it names is saved, so
    /// rust-analyzer's completions, hovers and errors follow within a second, and prints whether the
    /// manifest is valid. Finds the build output with one `cargo check` first. Ctrl-C stops it.
    Watch(watch::WatchArgs),
    /// Call one route of a running vendor server as the host does, and print the answer.
    ///
    /// Mints an install token with the development key (install `ins_dev_1`, organization
    /// `org_dev_1`, project `prj_dev_1`, the manifest's scopes) and sends the call body
    /// `{ install, context, input, credentials, documents }` (`--context` sets `context`). Every
    /// route has a kind: tools, actions, mentions, context providers, procedures, the connector
    /// sync and the work destination's three routes. The id must be declared in the manifest.
    /// The input is checked against the declared schema first; a mismatch is a note and the call is
    /// sent anyway. Prints `<status> <reason> in <N> ms`, then the body as pretty JSON or the error
    /// as `error: <status> <CODE>: <message>`.
    ///
    /// Exits 0 on a 2xx answer, 1 on any other answer, 2 on bad arguments or when no server answers.
    Call(local::call::CallArgs),
    /// Deliver a host event to a running vendor server's `POST /host/events`.
    ///
    /// The event must be one of the 12 published names. The default payload is the catalogue's
    /// example made this invocation's own: `projectId`, `installId`, `organizationId` and
    /// `extensionId` set to the local install, every member ending in `At` set to now, a fresh
    /// `releaseId` (release.shipped) or `generation` (install.token_rotated). All attempts of one
    /// invocation carry the same body and each its own `X-Host-Event-Id` (`evt_` + UUID). Prints
    /// `attempt 1/4 X-Host-Event-Id=evt_... -> 204 in 8 ms` per attempt.
    ///
    /// Exits 0 when an attempt got a 2xx, 1 otherwise, 2 on bad arguments.
    Trigger(local::trigger::TriggerArgs),
    /// Run the host's publish-time checks against a running vendor server.
    ///
    /// `GET /host/health` must answer 200 within 3 s with `{"status":"ok","extensionId":<id>}`;
    /// then every declared tool, mention, context provider and procedure is called once, tools and
    /// procedures with a sample input built from their input schema, and the answer checked: tools
    /// against the card shape of their `returns` kind, mentions as `{items:[{id,label}]}`, context
    /// blocks within 2,048 bytes, procedures against their `output` schema. A route that refuses
    /// the sample input (INPUT_INVALID, or a 4xx with the vendor's own code) passes with a note.
    /// A connector's sync is run twice, as after an install: a backfill followed page by page
    /// through its `cursor`, then the scheduled 24-hour sync, each page checked. A work destination
    /// is walked as the host uses it: the container list, a new item in the first container, a
    /// comment on that item (two-way comments only).
    /// Prints `✓ ...` or `✗ ...: reason` per check as it completes, then `N passed, M failed`.
    ///
    /// Exits 0 when every check passes, 1 otherwise, 2 when nothing answers at all.
    Check(local::check::CheckArgs),
    /// Show what a vendor server's outbox holds, and retry or drop an event.
    ///
    /// The outbox is where the server's own events wait until the host takes them: a folder (the
    /// embedded store), a `redis://` URL or a `postgres://` URL (the database's `host_outbox`),
    /// from `--store`, else `HOST_OUTBOX`, else `HOST_DATABASE_URL`, else `.host-outbox`.
    /// `list` (the default) shows pending events (attempts, next attempt, what the last one met)
    /// and dead letters (refused by the host, or out of retries); `retry ID` puts a dead letter
    /// back in pending; `drop ID` removes an event for good. A running server locks the embedded
    /// store: stop it first.
    ///
    /// Exits 0 on success, 1 when no event has the id, 2 when the outbox cannot be opened.
    Outbox(outbox::OutboxArgs),
}

fn main() -> ExitCode {
    // Run as `cargo host ...`, cargo passes `host` as the first argument; run directly, it does not.
    let mut args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    if args.get(1).is_some_and(|a| a == "host") {
        args.remove(1);
    }
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) if !e.use_stderr() => {
            // --help and --version.
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            let rendered = e.render().to_string();
            let first = match e.kind() {
                clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
                | clap::error::ErrorKind::MissingSubcommand => {
                    "error: name a command, such as `validate` or `schema`"
                }
                _ => rendered
                    .lines()
                    .find(|l| l.starts_with("error:"))
                    .unwrap_or("error: invalid arguments"),
            };
            eprintln!("{first}; run `cargo host --help` for usage");
            return ExitCode::from(2);
        }
    };
    let color = cli.color;
    let term = output::Term::new(color);
    match cli.command {
        Command::Validate { format, path } => validate(&path, format, color),
        Command::Expand { path } => expand(&path),
        Command::Stubs { path, server } => stubs(&path, &server),
        Command::Schema => {
            println!("{}", host_manifest::SCHEMA_JSON.trim_end());
            ExitCode::SUCCESS
        }
        Command::PostgresSchema => {
            print!("{}", host_runtime::postgres::schema());
            ExitCode::SUCCESS
        }
        Command::Diff(args) => diff::run(args, &term),
        Command::Init(args) => init::run(args, &term),
        Command::Dev(args) => local::block_on(local::dev::run(args, term)),
        Command::Watch(args) => watch::run(args, term),
        Command::Call(args) => local::block_on(local::call::run(args, term)),
        Command::Trigger(args) => local::block_on(local::trigger::run(args, term)),
        Command::Check(args) => local::block_on(local::check::run(args, term)),
        Command::Outbox(args) => local::block_on(outbox::run(args, term)),
        Command::Postgres(args) => local::block_on(postgres::run(args, term)),
    }
}

/// `cargo host stubs`: the handler stubs of a valid manifest.
fn stubs(path: &std::path::Path, server: &str) -> ExitCode {
    let (file, report) = match manifest::load(path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(manifest) = report.manifest() else {
        eprintln!(
            "{} is invalid; `cargo host validate` lists its errors",
            file.display()
        );
        return ExitCode::from(1);
    };
    match host_codegen::handler_stubs(manifest, server) {
        Ok(stubs) => {
            print!("{stubs}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{message}");
            ExitCode::from(2)
        }
    }
}

fn expand(path: &std::path::Path) -> ExitCode {
    let (file, report) = match manifest::load(path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    // The macro resolves the literal against the crate folder; here the folder is the manifest's own.
    let (dir, name) = match (file.parent(), file.file_name()) {
        (Some(d), Some(n)) => (
            if d.as_os_str().is_empty() {
                std::path::Path::new(".")
            } else {
                d
            },
            n,
        ),
        _ => {
            eprintln!("error: `{}` does not name a file", file.display());
            return ExitCode::from(2);
        }
    };
    let dir = dir.canonicalize().unwrap_or_else(|_| dir.to_owned());
    print!(
        "{}",
        host_codegen::Settings::new()
            .expand(&name.to_string_lossy(), Some(&dir))
            .pretty()
    );
    if report.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}

fn validate(path: &std::path::Path, format: Format, color: ColorChoice) -> ExitCode {
    let (file, report) = match manifest::load(path) {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let shown = file.display().to_string();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let written = match format {
        Format::Json => report.diagnostics().iter().try_for_each(|d| {
            let line = serde_json::to_string(d).map_err(std::io::Error::other)?;
            writeln!(out, "{line}")
        }),
        Format::Human => {
            let styled = match color {
                ColorChoice::Always => true,
                ColorChoice::Never => false,
                ColorChoice::Auto => {
                    std::io::stdout().is_terminal() && std::env::var_os("NO_COLOR").is_none()
                }
            };
            write!(out, "{}", manifest::render::human(&report, &shown, styled))
        }
    };
    // A closed pipe (`| head`) is not a failure of validation.
    if let Err(e) = written.and_then(|()| out.flush())
        && e.kind() != std::io::ErrorKind::BrokenPipe
    {
        eprintln!("error: cannot write the report: {e}");
        return ExitCode::from(2);
    }
    if report.is_valid() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(1)
    }
}
