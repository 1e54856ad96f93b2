//! [`Invocation`]: one request on a platform where no task outlives the request, and the attempt
//! its events get before it is answered.
//!
//! While an invocation's work runs, every event an outbox accepts is noted in it (an
//! [`enqueue`](crate::webhook::OutboundEvent::enqueue), a [`send`](crate::webhook::OutboundEvent::send)
//! or a [`spawn`](crate::webhook::OutboundEvent::spawn)); once the work is done, those events get one
//! attempt each, claimed by id, before the invocation returns. The invocation is found through a
//! thread-local set for the span of each poll of its future, so it reaches every future the work
//! awaits, however deep, and nothing else.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use futures_util::future::join_all;

use super::{DrainReport, Outbox};
use crate::platform::BoxFuture;
use crate::platform::rt::Instant;
use crate::platform::scope::{Scoped, Slot};

/// How long the attempts after the work may take by default: an attempt's usual timeout on these
/// platforms, well inside the host's own patience for a call.
const DEFAULT_BUDGET: Duration = Duration::from_secs(5);

/// One request on a platform where no task outlives the request (AWS Lambda, Vercel, Cloudflare
/// Workers): the events the request's code hands to an outbox get an attempt before the answer
/// goes back.
///
/// The serverless adapters (`lambda::respond`, `host_runtime_workers::respond`) run every request
/// in one; an adapter of your own does the same around [`Handler::handle`](crate::Handler::handle):
///
/// ```no_run
/// # async fn answer(handler: &host_runtime::Handler, request: http::Request<bytes::Bytes>) {
/// use host_runtime::outbox::Invocation;
/// let (response, events) = Invocation::new().run(handler.handle(request)).await;
/// # let _ = (response, events);
/// # }
/// ```
///
/// Inside an invocation, whatever the sender's [`DrainMode`](super::DrainMode):
///
/// - no background dispatcher is started (it would be frozen or killed with the request);
/// - [`send`](crate::webhook::OutboundEvent::send) makes one attempt at its own event and answers
///   with the outcome, or [`SendError::Pending`](super::SendError::Pending);
/// - [`enqueue`](crate::webhook::OutboundEvent::enqueue) stores the event, and
///   [`spawn`](crate::webhook::OutboundEvent::spawn) stores it once the work is done;
/// - once the work is done, every event accepted during it that is still due gets one attempt,
///   all at once, within the budget ([`with_budget`](Self::with_budget), 5 s by default) and
///   before the deadline ([`with_deadline`](Self::with_deadline)).
///
/// An event the host did not take stays in the outbox's store, to be posted by the next
/// [`drain`](crate::EventSender::drain): a scheduled one (`lambda::run_drain`, a cron route, the
/// Durable Object outbox's alarm). So the store must outlive the instance: Redis, PostgreSQL, or a
/// Durable Object on Workers. Events in a [`MemoryOutbox`](super::MemoryOutbox) are lost with the instance.
#[derive(Debug, Clone)]
pub struct Invocation {
    budget: Duration,
    deadline: Option<Instant>,
}

impl Default for Invocation {
    fn default() -> Self {
        Invocation::new()
    }
}

impl Invocation {
    /// An invocation whose events get up to 5 s of attempts once its work is done.
    pub fn new() -> Self {
        Invocation {
            budget: DEFAULT_BUDGET,
            deadline: None,
        }
    }

    /// Sets how long the attempts after the work may take (what they add to the answer's time at
    /// most). An attempt under way when it runs out is abandoned; its event stays in the store.
    pub fn with_budget(mut self, budget: Duration) -> Self {
        self.budget = budget;
        self
    }

    /// Ends the attempts by `deadline` whatever the budget left: the platform's own deadline for
    /// the invocation, less the time to send the answer.
    pub fn with_deadline(mut self, deadline: Instant) -> Self {
        self.deadline = Some(deadline);
        self
    }

    /// Runs `work`, then attempts the events it handed to an outbox, and returns the work's output
    /// with what the attempts did. An outbox that failed is reported in the report's `error` (and
    /// logged); the events it accepted are still in it.
    pub async fn run<F: Future>(self, work: F) -> (F::Output, DrainReport) {
        let (output, report, _) = self.run_in(Scope::default(), work).await;
        (output, report)
    }

    /// Runs `work` and the attempts as [`run`](Self::run) does, but leaves the outbox's record of
    /// each attempt (delivered, to retry, dead letter) for after the answer: the records come back
    /// as [`AfterAnswer`], a future to run once the answer is on its way, where the platform lets
    /// work outlive the answer (`ctx.wait_until` on Cloudflare Workers). The answer then waits for
    /// the attempts but not for those store requests.
    ///
    /// A record that is never made costs a second post, not an event: the event keeps its claim
    /// until the outbox's lease ends, and is then posted again with the same id and bytes, as after
    /// a crash. So a platform that cannot run work after the answer uses [`run`](Self::run).
    ///
    /// ```no_run
    /// # async fn answer(handler: &host_runtime::Handler, request: http::Request<bytes::Bytes>) {
    /// use host_runtime::outbox::Invocation;
    /// let (response, _, records) = Invocation::new().run_answer_first(handler.handle(request)).await;
    /// // Send `response`, then, on the platform's after-the-answer hook:
    /// records.await;
    /// # let _ = response;
    /// # }
    /// ```
    pub async fn run_answer_first<F: Future>(
        self,
        work: F,
    ) -> (F::Output, DrainReport, AfterAnswer) {
        let scope = Scope {
            records: Some(Mutex::default()),
            ..Scope::default()
        };
        self.run_in(scope, work).await
    }

    async fn run_in<F: Future>(
        self,
        scope: Scope,
        work: F,
    ) -> (F::Output, DrainReport, AfterAnswer) {
        let scope = Arc::new(scope);
        let output = Scoped::new(&CURRENT, Arc::clone(&scope), work).await;
        let until = {
            let budget = Instant::now() + self.budget;
            self.deadline
                .map_or(budget, |deadline| deadline.min(budget))
        };
        // Most requests leave nothing to attempt (no event, or sends that made their own).
        let report = if scope.idle() {
            DrainReport::default()
        } else {
            let settling = crate::platform::rt::apart(scope.settle(until));
            Scoped::new(&CURRENT, Arc::clone(&scope), settling).await
        };
        let records = scope
            .records
            .as_ref()
            .map(|records| std::mem::take(&mut *lock(records)))
            .unwrap_or_default();
        (output, report, AfterAnswer::new(records))
    }
}

/// The outbox's records of an invocation's attempts, left for after its answer by
/// [`Invocation::run_answer_first`]: a future that makes them, all at once. Each store failure is
/// logged; the event it concerns is posted again when its claim ends.
#[must_use = "unless it runs, the events the invocation posted are posted again when their claims end"]
pub struct AfterAnswer {
    records: usize,
    making: BoxFuture<'static, ()>,
}

impl AfterAnswer {
    fn new(records: Vec<BoxFuture<'static, ()>>) -> Self {
        AfterAnswer {
            records: records.len(),
            making: Box::pin(async move {
                join_all(records).await;
            }),
        }
    }

    /// How many records are left to make.
    pub fn len(&self) -> usize {
        self.records
    }

    /// Whether there is nothing left to record (no event was attempted).
    pub fn is_empty(&self) -> bool {
        self.records == 0
    }
}

impl Future for AfterAnswer {
    type Output = ();

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<()> {
        self.making.as_mut().poll(cx)
    }
}

impl std::fmt::Debug for AfterAnswer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AfterAnswer")
            .field("records", &self.records)
            .finish_non_exhaustive()
    }
}

/// What an invocation collected while its work ran.
#[derive(Default)]
struct Scope {
    /// Accepted events: their outbox and id.
    accepted: Mutex<Vec<(Arc<Outbox>, String)>>,
    /// Hand-overs to run once the work is done (the spawned events).
    deferred: Mutex<Vec<BoxFuture<'static, ()>>>,
    /// The attempts' records, when they are left for after the answer.
    records: Option<Mutex<Vec<BoxFuture<'static, ()>>>>,
}

impl Scope {
    /// Whether no event waits for an attempt or a hand-over.
    fn idle(&self) -> bool {
        lock(&self.accepted).is_empty() && lock(&self.deferred).is_empty()
    }

    /// Runs the deferred hand-overs, then makes one attempt at each accepted event, by outbox,
    /// all within `until`.
    async fn settle(&self, until: Instant) -> DrainReport {
        let deferred = std::mem::take(&mut *lock(&self.deferred));
        let left = until.saturating_duration_since(Instant::now());
        if !deferred.is_empty()
            && crate::platform::rt::timeout(left, join_all(deferred))
                .await
                .is_err()
        {
            tracing::warn!(
                "events handed over with `spawn` were not all stored within the invocation's budget"
            );
        }
        let accepted = std::mem::take(&mut *lock(&self.accepted));
        let mut by_outbox: Vec<(Arc<Outbox>, Vec<String>)> = Vec::new();
        for (outbox, id) in accepted {
            match by_outbox.iter_mut().find(|(o, _)| Arc::ptr_eq(o, &outbox)) {
                Some((_, ids)) => ids.push(id),
                None => by_outbox.push((outbox, vec![id])),
            }
        }
        let left = until.saturating_duration_since(Instant::now());
        let reports = join_all(
            by_outbox
                .iter()
                .map(|(outbox, ids)| outbox.attempt_ids(ids, left, |_, _| {})),
        )
        .await;
        let mut total = DrainReport::default();
        for report in reports {
            total.delivered += report.delivered;
            total.retrying += report.retrying;
            total.dead += report.dead;
            total.more |= report.more;
            if let Some(e) = report.error {
                tracing::error!(error = %crate::calls::error::Chain(&e), "the outbox failed while the invocation's events were attempted; they stay in it");
                total.error.get_or_insert(e);
            }
        }
        total
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

thread_local! {
    /// The invocation whose future this thread is polling, if any.
    static CURRENT: Slot<Scope> = const { std::cell::RefCell::new(None) };
}

fn current() -> Option<Arc<Scope>> {
    crate::platform::scope::current(&CURRENT)
}

/// Whether an invocation is under way on this task.
pub(crate) fn active() -> bool {
    current().is_some()
}

/// Notes that `outbox` accepted event `id`, for the current invocation's attempts.
pub(crate) fn accepted(outbox: &Arc<Outbox>, id: &str) {
    if let Some(scope) = current() {
        lock(&scope.accepted).push((Arc::clone(outbox), id.to_owned()));
    }
}

/// Notes that event `id` of `outbox` had its attempt already (a `send` makes its own): the
/// invocation does not claim it again once the work is done.
pub(crate) fn attempted(outbox: &Arc<Outbox>, id: &str) {
    if let Some(scope) = current() {
        lock(&scope.accepted).retain(|(o, noted)| !(Arc::ptr_eq(o, outbox) && noted == id));
    }
}

/// Leaves `record` (an attempt's record in the outbox) for after the current invocation's answer,
/// when it runs answer first; gives it back otherwise, to be made at once.
pub(crate) fn record_later(record: BoxFuture<'static, ()>) -> Result<(), BoxFuture<'static, ()>> {
    match current() {
        Some(scope) => match &scope.records {
            Some(records) => {
                lock(records).push(record);
                Ok(())
            }
            None => Err(record),
        },
        None => Err(record),
    }
}

/// Runs `hand_over` once the current invocation's work is done; gives it back when there is no
/// invocation.
pub(crate) fn defer(hand_over: BoxFuture<'static, ()>) -> Result<(), BoxFuture<'static, ()>> {
    match current() {
        Some(scope) => {
            lock(&scope.deferred).push(hand_over);
            Ok(())
        }
        None => Err(hand_over),
    }
}
