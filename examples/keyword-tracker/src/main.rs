//! `cargo run -p keyword-tracker`: serves the example on `127.0.0.1:8787` in development mode.
//!
//! ```text
//! keyword-tracker [--listen ADDR] [--production]
//! ```
//!
//! Settings and their environment variables: see the `config` module.

use std::process::ExitCode;
use std::sync::Arc;

use clap::Parser;
use keyword_tracker::Tracker;
use keyword_tracker::config::{Config, Mode};

/// The Keyword Tracker example vendor server.
///
/// Development mode (the default) trusts the public development key set, so `cargo host call`
/// can call it, and posts its own events to `cargo host dev`. Production mode takes everything
/// from the environment: HOST_JWKS_URL, HOST_ISSUER, HOST_EVENT_POST_URL, HOST_SIGNING_SECRET.
#[derive(Debug, Parser)]
#[command(version)]
struct Args {
    /// Address to listen on (also LISTEN_ADDR; default 127.0.0.1:8787; port 0 picks a free one).
    #[arg(long, value_name = "ADDR")]
    listen: Option<String>,
    /// Production mode (also HOST_MODE=production): no development defaults.
    #[arg(long)]
    production: bool,
    /// Apply the database's migrations (the runtime's and the example's own) and exit, as a deploy
    /// step run as the schema's owner, before servers that start with
    /// HOST_DATABASE_MIGRATIONS=check. Uses HOST_DATABASE_DIRECT_URL, else HOST_DATABASE_URL.
    #[arg(long)]
    migrate: bool,
    /// Print the statements that give ROLE what a server needs of the database (the runtime's
    /// tables and the example's), nothing on the schema, and exit.
    #[arg(long, value_name = "ROLE")]
    grants: Option<String>,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_max_level(tracing::Level::INFO)
        .with_writer(std::io::stderr)
        .init();
    if let Some(role) = &args.grants {
        print!("{}", keyword_tracker::database::grants(role));
        return ExitCode::SUCCESS;
    }
    let config = match Config::load(args.listen.as_deref(), args.production, |k| {
        std::env::var(k).ok()
    }) {
        Ok(config) => config,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if args.migrate {
        return migrate(&config).await;
    }
    // With HOST_DATABASE_URL the alerts, the deduplication keys and the outbox share one database.
    let database = match &config.database {
        Some(settings) => match keyword_tracker::database::Database::open_with(settings).await {
            Ok(database) => Some(database.with_dedupe_lease(config.dedupe_lease)),
            Err(e) => {
                eprintln!("error: {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    let outbox = match &database {
        Some(database) => database.outbox().await,
        None => config.outbox.open().await,
    };
    let outbox = match outbox {
        Ok(outbox) => outbox,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    let left = outbox
        .list(host_runtime::outbox::Which::Pending, 10_000)
        .await
        .map_or(0, |pending| pending.len());
    if left > 0 {
        tracing::info!(events = left, outbox = %config.outbox, "posting events a previous run left in the outbox");
    }
    let sender = match Tracker::event_sender(&config, outbox) {
        Ok(sender) => sender,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    sender.start();
    let tracker = match Tracker::with_sender(sender.clone()) {
        Ok(tracker) => Arc::new(match database {
            Some(database) => tracker.with_database(database),
            None => tracker,
        }),
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::FAILURE;
        }
    };
    // Without a database, production keeps the deduplication keys by its outbox: in its Redis, or
    // in this process for the one instance an outbox folder serves.
    let handler = match keyword_tracker::app_with_stores(tracker, &config).await {
        Ok(handler) => handler,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    if let Err(e) = handler.check_start() {
        eprintln!("error: {e}");
        return ExitCode::from(2);
    }
    let listener = match tokio::net::TcpListener::bind(config.listen).await {
        Ok(listener) => listener,
        Err(e) => {
            eprintln!(
                "error: cannot listen on {}: {e}; pick another address with --listen or LISTEN_ADDR",
                config.listen
            );
            return ExitCode::from(2);
        }
    };
    let addr = listener.local_addr().unwrap_or(config.listen);
    let operator = match config.metrics {
        Some(at) => match operator_port(at, &handler, &sender).await {
            Ok(bound) => Some(bound),
            Err(e) => {
                eprintln!("error: cannot serve the operator port on {at} (HOST_METRICS_ADDR): {e}");
                return ExitCode::from(2);
            }
        },
        None => None,
    };
    // SIGTERM is handled from here on, before the banner says the server listens.
    let stop = host_runtime::shutdown_signal();
    // Written at once, and a closed stdout (a supervisor that stopped reading) is no reason to stop
    // serving, so write errors are ignored.
    let _ = std::io::Write::write_all(
        &mut std::io::stdout(),
        banner(&config, addr, operator).as_bytes(),
    );
    if let Err(e) = handler.serve_until(listener, stop).await {
        eprintln!("error: the server stopped: {e}");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// Serves the operator's routes on `at` (`/livez`, `/readyz`, `/metrics` in Prometheus' text), in
/// the background: the runtime's metrics recorded by Prometheus' exporter, and the stores of
/// `handler` and `sender` asked by the readiness probe. Gives the address bound.
async fn operator_port(
    at: std::net::SocketAddr,
    handler: &host_runtime::Handler,
    sender: &host_runtime::EventSender,
) -> std::io::Result<std::net::SocketAddr> {
    let listener = tokio::net::TcpListener::bind(at).await?;
    let bound = listener.local_addr()?;
    // Durations as histograms (buckets from 1 ms to 10 s), which add up across replicas.
    let prometheus = metrics_exporter_prometheus::PrometheusBuilder::new()
        .set_buckets(&[
            0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
        ])
        .map_err(std::io::Error::other)?
        .install_recorder()
        .map_err(std::io::Error::other)?;
    host_runtime::observe::describe();
    let probes = host_runtime::observe::Probes::new()
        .with_handler(handler)
        .with_sender(sender)
        .with_metrics(move || prometheus.render());
    tokio::spawn(probes.serve_until(listener, std::future::pending()));
    Ok(bound)
}

/// `--migrate`: applies the migrations to the database of the configuration, and says what it did.
async fn migrate(config: &Config) -> ExitCode {
    let Some(database) = &config.database else {
        eprintln!("error: --migrate needs the database: set HOST_DATABASE_URL");
        return ExitCode::from(2);
    };
    let mut settings = database.clone();
    settings.migrations = keyword_tracker::config::Migrations::Apply;
    if let Some(direct) = settings.direct_url.take() {
        settings.url = direct;
    }
    match keyword_tracker::database::Database::open_with(&settings).await {
        Ok(_) => {
            println!("keyword-tracker: the database's migrations are applied");
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(2)
        }
    }
}

/// What the server prints when it starts: the address first (tools and tests read that line), then
/// how to reach it.
fn banner(
    config: &Config,
    addr: std::net::SocketAddr,
    operator: Option<std::net::SocketAddr>,
) -> String {
    let mut out = format!(
        "keyword-tracker listening on http://{addr} ({} mode)\n",
        config.mode
    );
    if let Some(at) = operator {
        out += &format!(
            "  metrics http://{at}/metrics (Prometheus), /readyz, /livez (HOST_METRICS_ADDR)\n"
        );
    }
    out += &format!(
        "  outbox  {} (HOST_OUTBOX: a folder, or redis://host:port)\n",
        config.outbox
    );
    if config.database.is_some() {
        out += "  alerts  in the database of HOST_DATABASE_URL, committed with their events and the delivery's record\n";
    }
    out += match config.dedupe_setting() {
        None if config.database.is_some() => "  dedupe  host events, in the database\n",
        None => "  dedupe  host events, in this process's memory (development defaults)\n",
        Some(keyword_tracker::config::DedupeSetting::Redis) => {
            "  dedupe  host events, in the Redis of HOST_OUTBOX (shared by every instance)\n"
        }
        Some(keyword_tracker::config::DedupeSetting::Process) => {
            "  dedupe  host events, in this process: one instance (set HOST_OUTBOX=redis://... or HOST_DATABASE_URL for several)\n"
        }
    };
    match config.mode {
        Mode::Development => {
            out += "  tokens  the public development key set: `cargo host call` works; never expose this server\n";
            out += &format!(
                "  events  posted to {} (run `cargo host dev` to see them)\n\n",
                host_runtime::store::without_password(&config.event_post_url)
            );
            out += "Try, from the repository root:\n";
            out += &format!("  curl http://{addr}/host/health\n");
            let host = "cargo run -p host-cli --";
            let target = format!("--manifest examples/keyword-tracker --server http://{addr}");
            out += &format!(
                "  {host} call tool keyword-ranks {target} --input '{{\"keyword\":\"habit tracker\"}}'\n"
            );
            out += &format!("  {host} trigger release.shipped {target}\n");
            out += &format!("  {host} check {target}\n");
        }
        Mode::Production => {
            out += &format!(
                "  events  posted to {}\n",
                host_runtime::store::without_password(&config.event_post_url)
            );
        }
    }
    out
}
