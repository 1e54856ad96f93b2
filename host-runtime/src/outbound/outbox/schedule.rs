//! The dispatcher: claims due events from a store, makes one attempt at each through a
//! [`Courier`], and records how it went.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Duration;

use futures_util::future::{join_all, select};
use tokio::sync::{Notify, Semaphore};

use super::{
    Entry, OutboxStore, Put, Receipt, RetryPolicy, SendError, Settlement, StoreError, Waiters,
    millis, now_ms,
};
use crate::platform::BoxFuture;
use crate::platform::rt::Instant;

/// How one attempt went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Try {
    /// A 2xx.
    Delivered(u16),
    /// A 4xx other than 429: the host's final answer.
    Refused {
        /// The status.
        status: u16,
        /// The answer, as text (at most 2 KB).
        body: String,
    },
    /// A 5xx, a 429, a timeout or no connection: worth another attempt.
    Failed {
        /// What it met.
        reason: String,
        /// How long the host asked to wait (`Retry-After`), if it did.
        retry_after: Option<Duration>,
    },
}

/// What posts one stored event: [`EventSender`](crate::EventSender) signs the stored bytes with the
/// current time and secrets and posts them.
pub(crate) trait Courier: Send + Sync + 'static {
    /// Makes one attempt at posting `body` as event `id`, within `timeout`.
    fn attempt<'a>(&'a self, id: &'a str, body: &'a [u8], timeout: Duration) -> BoxFuture<'a, Try>;
}

/// Who makes the attempts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrainMode {
    /// A task of its own drains the outbox for as long as the process lives (the default on
    /// servers). It starts with the first event sent, or with
    /// [`EventSender::start`](crate::EventSender::start).
    Background,
    /// No background task (the default on wasm32): each send makes one attempt at its own event
    /// before it returns, and [`EventSender::drain`](crate::EventSender::drain) posts what is due,
    /// within a time budget. Where no task outlives a request (Lambda, Vercel, Workers) the adapters
    /// also run each request as an [`Invocation`](super::Invocation), which behaves so whatever
    /// the mode.
    OnDemand,
}

impl Default for DrainMode {
    fn default() -> Self {
        if cfg!(target_arch = "wasm32") {
            DrainMode::OnDemand
        } else {
            DrainMode::Background
        }
    }
}

/// What one [`drain`](crate::EventSender::drain) did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct DrainReport {
    /// Events the host took.
    pub delivered: usize,
    /// Events that failed an attempt and wait for the next.
    pub retrying: usize,
    /// Events given up on (a final 4xx, or retries run out), now dead letters.
    pub dead: usize,
    /// Whether due events were left when the budget ran out.
    pub more: bool,
    /// The store failed: what was drained before is counted above.
    pub error: Option<StoreError>,
}

/// How long a store may take over one call before it counts as unavailable.
const STORE_TIMEOUT: Duration = Duration::from_secs(5);
/// The longest the background dispatcher sleeps before it looks at the store again (events from
/// other instances, leases that ran out).
const POLL: Duration = Duration::from_secs(1);
/// Events claimed at once by a drain.
const DRAIN_BATCH: usize = 16;
/// How long a claim lasts unless the sender sets it ([`lease_for`]).
pub(crate) const DEFAULT_LEASE: Duration = Duration::from_secs(60);

/// The lease an outbox uses: `asked` (or [`DEFAULT_LEASE`]), but never less than two attempt
/// timeouts. An attempt must end, and its outcome be stored, inside its claim: a lease shorter than
/// that would let another dispatcher take an event that is still being posted, and post it twice.
pub(crate) fn lease_for(asked: Option<Duration>, retry: &RetryPolicy) -> Duration {
    let floor = retry.timeout.saturating_mul(2);
    match asked {
        None => DEFAULT_LEASE.max(retry.timeout.saturating_mul(3)),
        Some(lease) if lease >= floor => lease,
        Some(lease) => {
            tracing::warn!(
                asked_ms = lease.as_millis() as u64,
                used_ms = floor.as_millis() as u64,
                "the outbox lease asked for is shorter than two attempt timeouts ({} ms each), so \
                 it is raised to {} ms: lower the retry policy's `timeout` to shorten the lease",
                retry.timeout.as_millis(),
                floor.as_millis()
            );
            floor
        }
    }
}

/// The status a send of an event delivered already answers: the host took it (its own status is
/// not kept).
pub(crate) const ALREADY_DELIVERED: u16 = 200;

/// Event `id` refused because another event holds its id.
fn conflict(id: &str) -> SendError {
    SendError::Conflict { id: id.to_owned() }
}

/// A store, the courier that posts its events, and the schedule they are retried on.
pub(crate) struct Outbox {
    store: Arc<dyn OutboxStore>,
    /// The store's name, for the metrics.
    store_name: &'static str,
    courier: Arc<dyn Courier>,
    retry: RetryPolicy,
    dispatch: DrainMode,
    lease: Duration,
    /// Names this process's claims.
    owner: String,
    waiters: Waiters,
    wake: Notify,
    slots: Arc<Semaphore>,
    /// The fewest free slots a claim waits for.
    claim_floor: usize,
    running: AtomicBool,
    store_failures: AtomicU32,
    /// The background dispatcher's settler, once it runs ([`settle_together`]).
    settler: std::sync::OnceLock<Settler>,
}

/// An attempt to record, and where its answer goes.
type ToSettle = (
    String,
    Settlement,
    futures_channel::oneshot::Sender<Result<bool, StoreError>>,
);

/// Hands attempts that ended to [`settle_together`].
type Settler = futures_channel::mpsc::UnboundedSender<ToSettle>;

/// The most attempts settled in one request.
const SETTLE_BATCH: usize = 256;

/// Records the attempts handed over, one request at a time, each holding every attempt that ended
/// while the one before was under way ([`OutboxStore::settle_all`]). So attempts that end one at
/// a time are settled at once, each on its own, and under load a store that can settle many in one
/// request (PostgreSQL: one statement) makes one request where it would make one per attempt.
/// Ends when the outbox is gone.
async fn settle_together(
    store: Arc<dyn OutboxStore>,
    owner: String,
    mut handed: futures_channel::mpsc::UnboundedReceiver<ToSettle>,
) {
    use futures_util::StreamExt as _;
    while let Some(first) = handed.next().await {
        let mut batch = vec![first];
        while batch.len() < SETTLE_BATCH {
            match handed.try_recv() {
                Ok(more) => batch.push(more),
                Err(_) => break,
            }
        }
        settle_batch(&*store, &owner, batch).await;
    }
}

/// Settles `batch` in one [`OutboxStore::settle_all`], and tells each its answer.
async fn settle_batch(store: &dyn OutboxStore, owner: &str, batch: Vec<ToSettle>) {
    let (settlements, tells): (Vec<_>, Vec<_>) = batch
        .into_iter()
        .map(|(id, settlement, tell)| ((id, settlement), tell))
        .unzip();
    let answers =
        match crate::platform::rt::timeout(STORE_TIMEOUT, store.settle_all(owner, &settlements))
            .await
        {
            Ok(answers) if answers.len() == tells.len() => answers,
            Ok(answers) => vec![
                Err(StoreError::new(
                    "outbox",
                    super::StoreErrorKind::Corrupt,
                    format!(
                        "the store answered {} settlements for {} attempts",
                        answers.len(),
                        tells.len()
                    ),
                ));
                tells.len()
            ],
            Err(_) => vec![
                Err(StoreError::new(
                    "outbox",
                    super::StoreErrorKind::Timeout,
                    format!(
                        "the store did not answer within {} s",
                        STORE_TIMEOUT.as_secs_f64()
                    ),
                ));
                tells.len()
            ],
        };
    for (tell, answer) in tells.into_iter().zip(answers) {
        let _ = tell.send(answer);
    }
}

impl std::fmt::Debug for Outbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Outbox")
            .field("dispatch", &self.dispatch)
            .field("retry", &self.retry)
            .field("lease", &self.lease)
            .finish_non_exhaustive()
    }
}

/// How an attempt was settled, for a drain's report.
enum Settled {
    Delivered,
    Retrying,
    Dead,
}

impl Outbox {
    /// An outbox over `store`, posting through `courier`; `concurrency` attempts at once at most.
    pub(crate) fn new(
        store: Arc<dyn OutboxStore>,
        courier: Arc<dyn Courier>,
        retry: RetryPolicy,
        dispatch: DrainMode,
        concurrency: usize,
        lease: Duration,
    ) -> Self {
        Outbox {
            store_name: store.name(),
            store,
            courier,
            retry,
            dispatch,
            lease,
            owner: crate::platform::rt::random_token(),
            waiters: Waiters::default(),
            wake: Notify::new(),
            slots: Arc::new(Semaphore::new(concurrency.max(1))),
            claim_floor: (concurrency / 4).max(1),
            running: AtomicBool::new(false),
            store_failures: AtomicU32::new(0),
            settler: std::sync::OnceLock::new(),
        }
    }

    /// How long a claim of this outbox lasts.
    pub(crate) fn lease(&self) -> Duration {
        self.lease
    }

    /// The store.
    pub(crate) fn store(&self) -> &Arc<dyn OutboxStore> {
        &self.store
    }

    /// What the store holds now, also set in the outbox gauges.
    pub(crate) async fn backlog(&self) -> Result<crate::stores::outbox::Backlog, StoreError> {
        match answered(STORE_TIMEOUT, self.store.backlog()).await {
            Ok(backlog) => {
                crate::telemetry::outbox_backlog(
                    self.store_name,
                    backlog.pending,
                    backlog.oldest_age_secs(now_ms()),
                    backlog.dead,
                );
                Ok(backlog)
            }
            Err(e) => {
                crate::telemetry::store_error(self.store_name, "backlog");
                Err(e)
            }
        }
    }

    /// A receipt for the final outcome of event `id` in this process. Taken before the event is
    /// stored, so an attempt that settles it at once is not missed.
    pub(crate) fn wait(&self, id: &str) -> Receipt {
        self.waiters.wait(id)
    }

    /// Tells the receipt with `ticket` alone that its send was not accepted: `error`.
    pub(crate) fn refuse(&self, id: &str, ticket: u64, error: &SendError) {
        self.waiters.tell_one(id, ticket, &Err(error.clone()));
    }

    /// Stores event `id` (durably, for a durable store) and wakes the dispatcher. An error means
    /// the event was not accepted and will not be sent; the sender's own receipt (`ticket`) hears it,
    /// and no other: an event another sender stored under the id is still on its way. The same
    /// event pending already counts as accepted; the same event delivered already is told to
    /// those waiting as delivered, with status 200 (the host's own status is not kept).
    pub(crate) async fn accept(
        self: &Arc<Self>,
        id: &str,
        body: Vec<u8>,
        ticket: u64,
    ) -> Result<Put, SendError> {
        let stored = answered(
            STORE_TIMEOUT,
            self.store.put(Entry::new(id, body, now_ms())),
        )
        .await;
        let put = match stored {
            Ok(put) => put,
            Err(e) => {
                crate::telemetry::store_error(self.store_name, "put");
                return Err(self.not_accepted(id, ticket, SendError::Store(e)));
            }
        };
        match put {
            Put::Conflict => return Err(self.not_accepted(id, ticket, conflict(id))),
            Put::AlreadyDelivered => {
                self.waiters.tell_one(id, ticket, &Ok(ALREADY_DELIVERED));
                return Ok(put);
            }
            Put::Stored(()) => self.accepted(id),
            Put::AlreadyPending => {}
        }
        super::invocation::accepted(self, id);
        self.start();
        // An event written in the handler's transaction is claimable once that commits: woken
        // then, rather than now for a claim that would find nothing.
        let outbox = Arc::clone(self);
        if let Err(wake) =
            crate::stores::transaction::once_committed(id, move || outbox.wake.notify_one())
        {
            wake();
        }
        Ok(put)
    }

    /// Whether events are posted by a background task, started if it was not yet. Never inside an
    /// [`Invocation`](super::Invocation): the task would be frozen or killed with the request.
    pub(crate) fn start(self: &Arc<Self>) -> bool {
        if self.dispatch != DrainMode::Background || super::invocation::active() {
            return false;
        }
        if self.running.swap(true, Ordering::AcqRel) {
            return true;
        }
        let outbox = Arc::clone(self);
        if crate::platform::rt::spawn(outbox.run()) {
            let _ = crate::platform::rt::spawn(sample_backlog(Arc::downgrade(self)));
            let (settler, handed) = futures_channel::mpsc::unbounded();
            if crate::platform::rt::spawn(settle_together(
                Arc::clone(&self.store),
                self.owner.clone(),
                handed,
            )) {
                let _ = self.settler.set(settler);
            }
            true
        } else {
            self.running.store(false, Ordering::Release);
            false
        }
    }

    /// Whether a send makes its own attempt: no background dispatcher posts this outbox's events
    /// (on demand, or inside an [`Invocation`](super::Invocation)).
    pub(crate) fn on_demand(&self) -> bool {
        self.dispatch != DrainMode::Background || super::invocation::active()
    }

    /// Stores event `id` already claimed and makes its one attempt, within one attempt's timeout:
    /// an on-demand send outside a handler's transaction, one store request fewer than storing the
    /// event and then claiming it by id. The same event already pending is attempted as
    /// [`settle_now`](Self::settle_now) would; the same event delivered already answers 200 with no
    /// attempt; another event under this id is refused. An error storing it means the event was not
    /// accepted and will not be sent.
    pub(crate) async fn store_and_attempt(
        self: &Arc<Self>,
        id: &str,
        body: Vec<u8>,
        receipt: Receipt,
    ) -> Result<u16, SendError> {
        let lease_until = now_ms().saturating_add(millis(self.lease));
        let stored = answered(
            STORE_TIMEOUT,
            self.store
                .put_claimed(Entry::new(id, body, now_ms()), lease_until, &self.owner),
        )
        .await;
        match stored {
            Ok(Put::Stored(entry)) => {
                self.accepted(id);
                self.deliver(entry, self.retry.timeout).await.2
            }
            Ok(Put::AlreadyPending) => {
                super::invocation::accepted(self, id);
                self.settle_now(id, receipt).await
            }
            Ok(Put::AlreadyDelivered) => {
                self.waiters
                    .tell_one(id, receipt.ticket, &Ok(ALREADY_DELIVERED));
                Ok(ALREADY_DELIVERED)
            }
            Ok(Put::Conflict) => Err(self.not_accepted(id, receipt.ticket, conflict(id))),
            Err(e) => {
                crate::telemetry::store_error(self.store_name, "put");
                Err(self.not_accepted(id, receipt.ticket, SendError::Store(e)))
            }
        }
    }

    /// A new event was stored: counted, and marked in the span of the call that sent it, so a
    /// trace joins the call to the later attempts by `webhook_id`.
    fn accepted(&self, id: &str) {
        crate::telemetry::outbox_accepted(self.store_name);
        tracing::debug!(webhook_id = %id, store = self.store_name, "outbox_accept");
    }

    /// The send with receipt `ticket` under event `id` was not accepted: the error, told to that
    /// receipt alone.
    fn not_accepted(&self, id: &str, ticket: u64, e: SendError) -> SendError {
        // Logged here, once for every send: a handler may drop the error.
        tracing::error!(event_id = %id, error = %crate::calls::error::Chain(&e), "event not sent");
        self.waiters.tell_one(id, ticket, &Err(e.clone()));
        e
    }

    /// Waits for the final outcome of event `id` from the background dispatcher; or, on demand and
    /// inside an invocation, makes one attempt at it, within one attempt's timeout, and reports
    /// where it stands.
    pub(crate) async fn settle_now(
        self: &Arc<Self>,
        id: &str,
        receipt: Receipt,
    ) -> Result<u16, SendError> {
        if self.start() {
            return receipt.outcome().await;
        }
        let mut mine = None;
        let report = self
            .attempt_ids(
                &[id.to_owned()],
                self.retry.timeout,
                |settled_id, outcome| {
                    if settled_id == id {
                        mine = Some(outcome.clone());
                    }
                },
            )
            .await;
        if mine.is_some() {
            super::invocation::attempted(self, id);
        }
        match mine {
            Some(outcome) => outcome,
            None => Err(SendError::Pending {
                attempts: 0,
                last: match report.error {
                    Some(e) => e.to_string(),
                    None => "not attempted now: another dispatcher holds it".to_owned(),
                },
            }),
        }
    }

    /// Makes one attempt at each of `ids` that is due and not under another dispatcher's claim,
    /// all at once, within `budget`.
    pub(crate) async fn attempt_ids(
        &self,
        ids: &[String],
        budget: Duration,
        mut seen: impl FnMut(&str, &Result<u16, SendError>),
    ) -> DrainReport {
        let mut report = DrainReport::default();
        if ids.is_empty() || budget.is_zero() {
            report.more = !ids.is_empty();
            return report;
        }
        let now = now_ms();
        let claimed = answered(
            STORE_TIMEOUT.min(budget),
            self.store
                .claim_ids(ids, now, now + millis(self.lease), &self.owner),
        )
        .await;
        match claimed {
            Ok(batch) => {
                self.attempt_batch(
                    batch,
                    self.retry.timeout.min(budget),
                    &mut report,
                    &mut seen,
                )
                .await;
            }
            Err(e) => report.error = Some(e),
        }
        report
    }

    /// Posts due events in the caller's task for up to `budget` (attempts under way when it runs
    /// out finish, within their own timeout).
    pub(crate) async fn drain(&self, budget: Duration) -> DrainReport {
        self.drain_with(budget, |_, _| {}).await
    }

    async fn drain_with(
        &self,
        budget: Duration,
        mut seen: impl FnMut(&str, &Result<u16, SendError>),
    ) -> DrainReport {
        let until = Instant::now() + budget;
        let mut report = DrainReport::default();
        loop {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                report.more = matches!(
                    crate::platform::rt::timeout(STORE_TIMEOUT, self.store.next_due()).await,
                    Ok(Ok(Some(at))) if at <= now_ms()
                );
                break;
            }
            let now = now_ms();
            let claimed = answered(
                STORE_TIMEOUT,
                self.store
                    .claim(now, DRAIN_BATCH, now + millis(self.lease), &self.owner),
            )
            .await;
            let batch = match claimed {
                Ok(batch) if batch.is_empty() => break,
                Ok(batch) => batch,
                Err(e) => {
                    report.error = Some(e);
                    break;
                }
            };
            self.attempt_batch(batch, self.retry.timeout.min(left), &mut report, &mut seen)
                .await;
        }
        report
    }

    /// One attempt at each claimed event, all at once, counted in `report`.
    async fn attempt_batch(
        &self,
        batch: Vec<Entry>,
        timeout: Duration,
        report: &mut DrainReport,
        seen: &mut impl FnMut(&str, &Result<u16, SendError>),
    ) {
        let settled = join_all(batch.into_iter().map(|entry| self.deliver(entry, timeout))).await;
        for (id, settled, outcome) in settled {
            match settled {
                Settled::Delivered => report.delivered += 1,
                Settled::Retrying => report.retrying += 1,
                Settled::Dead => report.dead += 1,
            }
            seen(&id, &outcome);
        }
    }

    /// The background task: claims what is due while there are free slots, and sleeps until the
    /// next event is due, a new one arrives or a slot frees up.
    async fn run(self: Arc<Self>) {
        loop {
            // Under load, claims wait for a quarter of the slots to be free: each claim is a write
            // (a commit, for the file store), and one per finished attempt would cost more than the
            // attempts.
            let free = self.slots.available_permits();
            if free >= self.claim_floor {
                let now = now_ms();
                let claimed = answered(
                    STORE_TIMEOUT,
                    self.store
                        .claim(now, free, now + millis(self.lease), &self.owner),
                )
                .await;
                match claimed {
                    Ok(batch) => {
                        self.store_recovered();
                        let full = batch.len() == free;
                        for entry in batch {
                            let Ok(slot) = Arc::clone(&self.slots).try_acquire_owned() else {
                                break;
                            };
                            let outbox = Arc::clone(&self);
                            let timeout = self.retry.timeout;
                            crate::platform::rt::spawn(async move {
                                let (_, _, _) = outbox.deliver(entry, timeout).await;
                                drop(slot);
                                outbox.wake.notify_one();
                            });
                        }
                        if full {
                            continue;
                        }
                    }
                    Err(e) => {
                        let pause = self.store_failed(&e);
                        crate::platform::rt::sleep(pause).await;
                        continue;
                    }
                }
            }
            // With too few slots free to claim, the next claim waits for attempts to finish (each
            // wakes this task): when the next event is due does not matter yet. Asking anyway
            // would be a store request per finished attempt, and over a long backlog in
            // PostgreSQL one that costs more each time (it walks the index entries the claims
            // left until the table is vacuumed): a million-event drain slowed by half.
            let next = if free < self.claim_floor {
                None
            } else {
                match crate::platform::rt::timeout(STORE_TIMEOUT, self.store.next_due()).await {
                    Ok(Ok(next)) => next,
                    _ => None,
                }
            };
            let wait = next.map_or(POLL, |at| {
                Duration::from_millis(u64::try_from(at - now_ms()).unwrap_or(0)).min(POLL)
            });
            if wait.is_zero() && free >= self.claim_floor {
                continue;
            }
            // Woken by an event of this process, by the store (another instance's event, a
            // transaction that committed), or when the next event is due.
            let woken = std::pin::pin!(self.wake.notified());
            let changed = self.store.changed();
            let slept = std::pin::pin!(crate::platform::rt::sleep(
                wait.max(Duration::from_millis(1))
            ));
            let _ = select(select(woken, changed), slept).await;
        }
    }

    /// Logs a store failure (the first, then every 60th in a row) and says how long to pause.
    fn store_failed(&self, e: &StoreError) -> Duration {
        crate::telemetry::store_error(self.store_name, "claim");
        let n = self.store_failures.fetch_add(1, Ordering::Relaxed);
        if n.is_multiple_of(60) {
            tracing::error!(error = %e, failures = n + 1, "the outbox store is unavailable; pending events wait until it is back");
        }
        Duration::from_millis(250u64.saturating_mul(u64::from(n.min(20)) + 1))
            .min(Duration::from_secs(5))
    }

    fn store_recovered(&self) {
        if self.store_failures.swap(0, Ordering::Relaxed) > 0 {
            tracing::info!("the outbox store is back; draining pending events");
        }
    }

    /// Records an attempt at event `id`: now, or after the answer of an invocation run answer first.
    async fn keep_record(&self, id: String, settlement: Settlement) {
        let record = self.record(id, settlement);
        if let Err(record) = super::invocation::record_later(Box::pin(record)) {
            record.await;
        }
    }

    /// Records an attempt at event `id` in the store (logging a record it could not make).
    fn record(
        &self,
        id: String,
        settlement: Settlement,
    ) -> impl std::future::Future<Output = ()> + Send + 'static {
        let store = Arc::clone(&self.store);
        let store_name = self.store_name;
        let owner = self.owner.clone();
        let settler = self.settler.get().cloned();
        async move {
            let settled = match settler {
                // The background dispatcher's attempts: settled with those that end meanwhile.
                Some(settler) => {
                    let (tell, told) = futures_channel::oneshot::channel();
                    match settler.unbounded_send((id.clone(), settlement, tell)) {
                        Ok(()) => told.await.unwrap_or_else(|_| {
                            Err(StoreError::new(
                                "outbox",
                                super::StoreErrorKind::Unavailable,
                                "the settler stopped before the store answered",
                            ))
                        }),
                        Err(e) => {
                            let (_, settlement, _) = e.into_inner();
                            answered(STORE_TIMEOUT, store.settle(&id, &owner, settlement)).await
                        }
                    }
                }
                None => answered(STORE_TIMEOUT, store.settle(&id, &owner, settlement)).await,
            };
            match settled {
                Ok(true) => {}
                Ok(false) => tracing::debug!(
                    event_id = %id,
                    "the event's claim had passed to another dispatcher or it was dropped; not recorded here"
                ),
                Err(e) => {
                    crate::telemetry::store_error(store_name, "settle");
                    tracing::warn!(
                        event_id = %id,
                        error = %e,
                        "could not record an attempt; the event is attempted again when its claim ends"
                    );
                }
            }
        }
    }

    /// One attempt at `entry`, recorded in the store (at once, or after the answer of an
    /// invocation run answer first); the final outcome is logged and given to whoever waits for it
    /// in this process.
    async fn deliver(
        &self,
        entry: Entry,
        timeout: Duration,
    ) -> (String, Settled, Result<u16, SendError>) {
        let number = entry.attempts.saturating_add(1);
        let span = tracing::info_span!(
            "outbox_attempt",
            webhook_id = %entry.id,
            attempt = number,
            store = self.store_name,
            outcome = tracing::field::Empty,
            status = tracing::field::Empty,
        );
        let started = Instant::now();
        let (settlement, settled, outcome) =
            tracing::Instrument::instrument(self.attempt(&entry, timeout), span.clone()).await;
        let ended = match settled {
            Settled::Delivered => crate::telemetry::Attempt::Posted,
            Settled::Retrying => crate::telemetry::Attempt::Retried,
            Settled::Dead => crate::telemetry::Attempt::Dead,
        };
        crate::telemetry::outbox_attempt(self.store_name, ended, started.elapsed());
        span.record("outcome", ended.label());
        if let Ok(status) | Err(SendError::Rejected { status, .. }) = &outcome {
            span.record("status", status);
        }
        self.keep_record(entry.id.clone(), settlement).await;
        self.conclude(
            &entry.id,
            entry.attempts.saturating_add(1),
            &settled,
            &outcome,
        );
        (entry.id, settled, outcome)
    }

    /// Posts `entry` once: what to record of it, where it stands, and the outcome for the sender.
    async fn attempt(
        &self,
        entry: &Entry,
        timeout: Duration,
    ) -> (Settlement, Settled, Result<u16, SendError>) {
        let attempts = entry.attempts.saturating_add(1);
        let tried = self.courier.attempt(&entry.id, &entry.body, timeout).await;
        let now = now_ms();
        match tried {
            Try::Delivered(status) => (Settlement::Delivered, Settled::Delivered, Ok(status)),
            Try::Refused { status, body } => (
                Settlement::Dead {
                    attempts,
                    at: now,
                    reason: format!("refused with {status}: {body}"),
                },
                Settled::Dead,
                Err(SendError::Rejected { status, body }),
            ),
            Try::Failed { reason, .. } if attempts >= self.retry.attempts.max(1) => (
                Settlement::Dead {
                    attempts,
                    at: now,
                    reason: format!("retries ran out after {attempts} attempts; last: {reason}"),
                },
                Settled::Dead,
                Err(SendError::Exhausted {
                    attempts,
                    last: reason,
                }),
            ),
            Try::Failed {
                reason,
                retry_after,
            } => {
                // The host says when; never longer than the policy's longest wait.
                let wait = retry_after.map_or_else(
                    || self.retry.backoff(attempts),
                    |told| told.min(self.retry.max_backoff),
                );
                (
                    Settlement::Retry {
                        attempts,
                        due: now.saturating_add(millis(wait)),
                        error: reason.clone(),
                    },
                    Settled::Retrying,
                    Err(SendError::Pending {
                        attempts,
                        last: reason,
                    }),
                )
            }
        }
    }

    /// Logs the outcome of attempt number `attempts` at event `id`, and gives a final one to
    /// whoever waits for it in this process.
    fn conclude(
        &self,
        id: &str,
        attempts: u32,
        settled: &Settled,
        outcome: &Result<u16, SendError>,
    ) {
        match (settled, outcome) {
            (Settled::Delivered, Ok(status)) => {
                tracing::info!(event_id = %id, status, attempts, "event delivered");
            }
            (Settled::Retrying, Err(e)) => {
                tracing::debug!(event_id = %id, attempts, error = %e, "event post failed; retrying");
            }
            (_, Err(e)) => {
                tracing::error!(event_id = %id, attempts, error = %e, "event not delivered; it is in the outbox's dead letters");
            }
            (_, Ok(_)) => {}
        }
        if !matches!(settled, Settled::Retrying) {
            self.waiters.finish(id, outcome);
        }
    }
}

/// Samples the store's backlog into the outbox gauges every
/// [`BACKLOG_EVERY`](crate::stores::outbox::BACKLOG_EVERY), while the outbox lives.
async fn sample_backlog(outbox: std::sync::Weak<Outbox>) {
    loop {
        let Some(alive) = outbox.upgrade() else {
            return;
        };
        let _ = alive.backlog().await;
        drop(alive);
        crate::platform::rt::sleep(crate::stores::outbox::BACKLOG_EVERY).await;
    }
}

/// What the store answered to `call`, or a timeout error if it did not answer within `limit`.
async fn answered<T>(
    limit: Duration,
    call: impl std::future::Future<Output = Result<T, StoreError>>,
) -> Result<T, StoreError> {
    crate::platform::rt::timeout(limit, call)
        .await
        .unwrap_or_else(|_| {
            Err(StoreError::new(
                "outbox",
                super::StoreErrorKind::Timeout,
                format!("the store did not answer within {} s", limit.as_secs_f64()),
            ))
        })
}
