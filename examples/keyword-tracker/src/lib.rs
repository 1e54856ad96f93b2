//! Keyword Tracker: an example vendor server for the host, written with `host-runtime`.
//!
//! It serves every kind of contribution its manifest (`host.extension.json`) declares, over a small
//! embedded data set ([`data`]): five assistant tools (one per `returns` kind), an approved action,
//! a mention picker, a context provider, two procedures, a connector sync with dimensioned metrics,
//! a work destination (a task board), seven subscribed host events, and its own signed events (an
//! alert when a tracked keyword drops, a banner when several drop at once, a chart marker when a
//! store changes its ranking algorithm).
//!
//! Run it with `cargo run -p keyword-tracker`; see the repository README for the walkthrough.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};

use chrono::NaiveDate;
use host_runtime::{Handler, HostError};

host_runtime::host_extension!("host.extension.json");

mod alerts;
mod assistant;
mod board;
pub mod config;
pub mod data;
pub mod database;
mod lifecycle;
mod ranking;
mod sync;

use data::Dataset;

/// The country used when neither the call nor the install's settings name one.
pub const DEFAULT_COUNTRY: &str = "US";
/// Rank positions lost in a day before an alert is raised, unless the settings say otherwise.
pub const DEFAULT_THRESHOLD: u32 = 10;

/// The vendor's server: the rank store and what it knows about each install.
pub struct Tracker {
    data: Dataset,
    installs: Mutex<HashMap<String, InstallState>>,
    webhooks: Webhooks,
    /// Where alerts are kept, with `HOST_DATABASE_URL`.
    database: Option<database::Database>,
}

/// What the server keeps per install (in memory: a real vendor would use its database).
#[derive(Debug, Clone)]
struct InstallState {
    /// (keyword, country) pairs alerts and the context provider cover.
    tracked: BTreeSet<(String, String)>,
    threshold: u32,
    country: String,
    paused: bool,
    generation: u64,
    insights: Vec<String>,
    tasks: BTreeMap<String, Task>,
    next_task: u32,
    releases: Vec<String>,
}

#[derive(Debug, Clone)]
struct Task {
    title: String,
    comments: Vec<String>,
}

/// A read-only view of one install's state, for tests and diagnostics.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InstallSnapshot {
    /// Tracked (keyword, country) pairs.
    pub tracked: Vec<(String, String)>,
    /// Rank positions lost in a day before an alert is raised.
    pub threshold: u32,
    /// The install's default country.
    pub country: String,
    /// Whether the owner paused the install.
    pub paused: bool,
    /// The install token generation last seen.
    pub generation: u64,
    /// Insights saved through the approved action.
    pub insights: Vec<String>,
    /// Tasks on the board: id, title and number of comments.
    pub tasks: Vec<(String, String, usize)>,
    /// Versions of the releases the server reacted to, in order.
    pub releases: Vec<String>,
}

impl Tracker {
    /// A tracker over the embedded data set, posting its events to `config`'s event-post URL signed
    /// with its secret, and naming this build (the package version) in them. Events wait in
    /// `outbox` until the host takes them (see [`config::OutboxSetting`]); the sender starts
    /// posting what a previous run left there at once.
    pub fn from_config(
        config: &config::Config,
        outbox: impl host_runtime::outbox::OutboxStore,
    ) -> Result<Self, String> {
        let sender = Self::event_sender(config, outbox)?;
        sender.start();
        Self::with_sender(sender)
    }

    /// The sender [`from_config`](Self::from_config) posts events with, not started: for serverless
    /// platforms, which change its drain mode (`DrainMode::OnDemand`) and drain it on a schedule.
    pub fn event_sender(
        config: &config::Config,
        outbox: impl host_runtime::outbox::OutboxStore,
    ) -> Result<host_runtime::EventSender, String> {
        let sender =
            host_runtime::EventSender::new(&config.event_post_url, &config.signing_secret, outbox)
                .map_err(|e| format!("HOST_SIGNING_SECRET: {e}"))?
                .with_build(env!("CARGO_PKG_VERSION"));
        Ok(match config.outbox_lease {
            Some(lease) => sender.with_lease(lease),
            None => sender,
        })
    }

    /// A tracker over the embedded data set posting its events with `sender`.
    pub fn with_sender(sender: host_runtime::EventSender) -> Result<Self, String> {
        Ok(Tracker {
            data: Dataset::embedded()?,
            installs: Mutex::new(HashMap::new()),
            webhooks: Webhooks::new(sender),
            database: None,
        })
    }

    /// Keeps the alerts in `database`, each written in the transaction of the handler that found
    /// it, with its event (sent through the same database's outbox) and the delivery's record.
    pub fn with_database(mut self, database: database::Database) -> Self {
        self.database = Some(database);
        self
    }

    /// The state of install `id`, if the server has seen it.
    pub fn install(&self, id: &str) -> Option<InstallSnapshot> {
        let installs = self.lock();
        let s = installs.get(id)?;
        Some(InstallSnapshot {
            tracked: s.tracked.iter().cloned().collect(),
            threshold: s.threshold,
            country: s.country.clone(),
            paused: s.paused,
            generation: s.generation,
            insights: s.insights.clone(),
            tasks: s
                .tasks
                .iter()
                .map(|(id, t)| (id.clone(), t.title.clone(), t.comments.len()))
                .collect(),
            releases: s.releases.clone(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<String, InstallState>> {
        // A handler that panicked while holding the lock left whole values behind (every update
        // below is a single assignment or push), so the data is still usable.
        self.installs
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Runs `f` on install `id`'s state, creating the default state on first sight (the host may
    /// call before `install.created` reaches this instance).
    fn with_install<R>(&self, id: &str, f: impl FnOnce(&mut InstallState) -> R) -> R {
        let mut installs = self.lock();
        let state = installs
            .entry(id.to_owned())
            .or_insert_with(|| self.default_state());
        f(state)
    }

    fn default_state(&self) -> InstallState {
        InstallState {
            tracked: self
                .data
                .keywords()
                .into_iter()
                .map(|k| (k.to_owned(), DEFAULT_COUNTRY.to_owned()))
                .collect(),
            threshold: DEFAULT_THRESHOLD,
            country: DEFAULT_COUNTRY.to_owned(),
            paused: false,
            generation: 0,
            insights: Vec::new(),
            tasks: BTreeMap::new(),
            next_task: 1,
            releases: Vec::new(),
        }
    }

    /// Takes the owner's settings from a call's documents (the host sends them on every call with
    /// a body) and returns the install's country.
    fn apply_settings(&self, install: &str, documents: &Documents) -> String {
        self.with_install(install, |s| {
            if let Some(settings) = &documents.settings {
                // The schema's defaults (10 positions, US) for what the owner left unset.
                let threshold = settings.alert_threshold.map_or(10, |t| t.get());
                s.threshold = u32::try_from(threshold).unwrap_or(u32::MAX);
                s.country = settings
                    .default_country
                    .clone()
                    .unwrap_or_else(|| "US".to_owned());
            }
            s.country.clone()
        })
    }

    /// Today (UTC): the last day of the replayed data set.
    fn today(&self) -> NaiveDate {
        chrono::Utc::now().date_naive()
    }
}

/// Checks the API key the owner entered when connecting (`connector.auth.fields`).
///
/// Every non-blank key opens the demo account: the example has no accounts to look keys up in.
fn account(credentials: &Credentials) -> Result<(), HostError> {
    if credentials.api_key.trim().is_empty() {
        return Err(HostError::new(
            "API_KEY_INVALID",
            "The Keyword Tracker API key is empty: reconnect the extension with the key from \
             Settings, API in your Keyword Tracker account.",
        )
        .with_status(401));
    }
    Ok(())
}

/// The handler for `tracker`, trusting the key set and issuer `config` names. With a database, host
/// events are deduplicated in it, and every handler runs in a transaction of it. In development
/// mode a store not chosen is kept in memory; in production the caller chooses the deduplication
/// store (see [`config::Config::dedupe_store`]), or the handler does not start.
pub fn app(tracker: Arc<Tracker>, config: &config::Config) -> Handler {
    let dedupe = tracker.database.as_ref().map(database::Database::dedupe);
    let mut handler = handler(tracker).with_issuer(config.issuer.clone());
    if let Some(dedupe) = dedupe {
        handler = handler.with_dedupe_store(dedupe);
    }
    if config.mode == config::Mode::Development {
        handler = handler.with_development_defaults();
    }
    match &config.keys {
        config::Keys::Inline(jwks) => handler.with_jwks(jwks.clone()),
        config::Keys::Url(url) => handler.with_jwks_url(url.clone()),
    }
}

/// [`app`] with the deduplication store production needs when there is no database (see
/// [`config::Config::dedupe_store`]): in the Redis of a `redis://` outbox, or in this process beside
/// an outbox folder. An error when that store cannot be reached.
pub async fn app_with_stores(
    tracker: Arc<Tracker>,
    config: &config::Config,
) -> Result<Handler, config::ConfigError> {
    let dedupe = config.dedupe_store().await?;
    let handler = app(tracker, config);
    Ok(match dedupe {
        Some(dedupe) => handler.with_dedupe_store(dedupe),
        None => handler,
    })
}
