//! [`FileOutbox`]: the outbox in one file on local disk, with `redb`.
//!
//! One thread owns the database. Requests reach it over a channel; the writes waiting when it
//! wakes are applied in one transaction and committed together (one fsync for the lot), and only
//! then answered. Under load that groups hundreds of accepted events into each commit, so the rate
//! is not bounded by the disk's flush latency; alone, an event waits for one commit.

use std::path::{Path, PathBuf};
use std::sync::mpsc;

use redb::{
    Database, ReadableDatabase as _, ReadableTable as _, TableDefinition, WriteTransaction,
};

use crate::platform::BoxFuture;
use crate::stores::outbox::{
    Destination, Entry, OutboxStore, Put, Settlement, StoreError, StoreErrorKind, Which, codec,
};

/// Pending events by id: the record with the owner of its claim.
const PENDING: TableDefinition<&str, &[u8]> = TableDefinition::new("pending");
/// (due, id) of every pending event: the claim order.
const DUE: TableDefinition<(i64, &str), ()> = TableDefinition::new("due");
/// Dead letters by id.
const DEAD: TableDefinition<&str, &[u8]> = TableDefinition::new("dead");
/// Events delivered within [`SENT_WINDOW`](crate::stores::outbox::SENT_WINDOW) by id: their digest (32 bytes) and
/// when they are forgotten (8 bytes, little-endian Unix milliseconds).
const SENT: TableDefinition<&str, &[u8]> = TableDefinition::new("sent");
/// (forgotten at, id) of every entry of [`SENT`], to forget them in order.
const FORGET: TableDefinition<(i64, &str), ()> = TableDefinition::new("forget");
/// The most delivered events forgotten by one settlement: forgetting keeps pace with delivering
/// while no commit grows with a backlog.
const FORGET_AT_ONCE: usize = 16;

/// The outbox's file name in its folder.
const FILE: &str = "outbox.redb";
/// A file being made (`outbox.redb.<pid>-<n>.new`) before it takes [`FILE`]'s name.
const MAKING: &str = ".new";
/// A half-made file older than this is from a process that died making it.
const STALE: std::time::Duration = std::time::Duration::from_secs(60);

/// The most writes committed together.
const GROUP: usize = 4096;
/// The page cache: enough for the due index and recent records; the outbox's size on disk does not
/// change the process's memory.
const CACHE: usize = 8 * 1024 * 1024;

/// An outbox in one file (`outbox.redb` in the folder given to [`open`](Self::open)): every
/// accepted event is on disk, fsynced, before the send reports it accepted, and the file opens
/// whole after a crash at any point (redb commits are atomic and checksummed). For one instance:
/// the file is locked while open, and a second process opening it is refused. Several instances
/// share a [`RedisOutbox`](crate::outbox::RedisOutbox) instead.
#[derive(Clone)]
pub struct FileOutbox {
    inner: std::sync::Arc<Inner>,
}

struct Inner {
    jobs: Option<mpsc::Sender<Job>>,
    path: PathBuf,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The last handle closes the file before it is gone, so the same process (or the next one) can
/// open it again at once.
impl Drop for Inner {
    fn drop(&mut self) {
        self.jobs.take();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl std::fmt::Debug for FileOutbox {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FileOutbox")
            .field("path", &self.inner.path)
            .finish()
    }
}

/// The answer to a request, sent once its transaction committed (or failed).
type Reply = Box<dyn FnOnce(Result<(), StoreError>) + Send>;
/// A write: applied to the shared transaction (or told why there is none).
type Write = Box<dyn FnOnce(Result<&WriteTransaction, StoreError>) -> (bool, Reply) + Send>;
/// A request to the database thread.
enum Job {
    /// Reads from a snapshot, answered at once.
    Read(Box<dyn FnOnce(&Database) + Send>),
    /// Writes in the shared transaction (or hears why there is none); `false` with the reply when
    /// the write failed (the whole transaction is then abandoned).
    Write(Write),
}

/// Makes the outbox file at `path` if there is none, so that it appears whole or not at all.
///
/// redb initialises a new file in place and writes its magic number last: a process killed in
/// those few milliseconds leaves a file that every later open refuses as invalid data, and the
/// outbox would stay down until someone deleted it by hand. So the file is made under a name of
/// its own, with its tables, closed, and then linked to `path`; a link (unlike a rename) never
/// replaces a file another process made first.
fn create_whole(dir: &Path, file: &str, path: &Path) -> Result<(), StoreError> {
    sweep_half_made(dir, file);
    if path.exists() {
        return Ok(());
    }
    static MADE: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = MADE.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let making = dir.join(format!("{file}.{}-{n}{MAKING}", std::process::id()));
    let made = Database::builder()
        .create(&making)
        .map_err(redb::Error::from)
        .and_then(|db| {
            let txn = db.begin_write()?;
            txn.open_table(PENDING)?;
            txn.open_table(DUE)?;
            txn.open_table(DEAD)?;
            txn.open_table(SENT)?;
            txn.open_table(FORGET)?;
            txn.open_table(dedupe::RECORDED)?;
            txn.open_table(dedupe::RECORDED_AT)?;
            txn.commit()?;
            Ok(())
        });
    if let Err(e) = made {
        let _ = std::fs::remove_file(&making);
        return Err(failed(&making, "cannot create", e));
    }
    let linked = match std::fs::hard_link(&making, path) {
        Ok(()) => Ok(()),
        // Another process made it first: theirs is the outbox.
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        // A file system without hard links: a rename, which can only replace a file made in the
        // same instant.
        Err(_) => std::fs::rename(&making, path),
    };
    let _ = std::fs::remove_file(&making);
    linked.map_err(|e| failed_io(path, "cannot create", e))?;
    // The new name is durable once the folder is.
    if let Ok(folder) = std::fs::File::open(dir) {
        let _ = folder.sync_all();
    }
    Ok(())
}

/// Removes files left half-made by a process that died making the outbox.
fn sweep_half_made(dir: &Path, file: &str) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if !(name.starts_with(file) && name.ends_with(MAKING)) {
            continue;
        }
        let old = entry
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|m| m.elapsed().ok())
            .is_some_and(|age| age > STALE);
        if old {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// What failed at `path`, caused by redb's error (the source).
fn failed(path: &Path, what: &str, e: impl Into<redb::Error>) -> StoreError {
    let e = e.into();
    let kind = match &e {
        redb::Error::Io(io) => io_kind(io),
        redb::Error::Corrupted(_) => StoreErrorKind::Corrupt,
        redb::Error::DatabaseAlreadyOpen => StoreErrorKind::Refused,
        _ => StoreErrorKind::Other,
    };
    StoreError::new("file", kind, format!("{}: {what}", path.display())).with_source(e)
}

/// What failed at `path`, caused by an I/O error (the source).
fn failed_io(path: &Path, what: &str, e: std::io::Error) -> StoreError {
    StoreError::new("file", io_kind(&e), format!("{}: {what}", path.display())).with_source(e)
}

/// What failed at `path` and why, with no error value to keep.
fn refused(path: &Path, kind: StoreErrorKind, what: &str, why: &str) -> StoreError {
    StoreError::new("file", kind, format!("{}: {what}: {why}", path.display()))
}

fn io_kind(e: &std::io::Error) -> StoreErrorKind {
    match e.kind() {
        std::io::ErrorKind::StorageFull | std::io::ErrorKind::QuotaExceeded => StoreErrorKind::Full,
        std::io::ErrorKind::PermissionDenied | std::io::ErrorKind::ReadOnlyFilesystem => {
            StoreErrorKind::Refused
        }
        _ => StoreErrorKind::Unavailable,
    }
}

impl FileOutbox {
    /// Opens (or creates) the outbox in folder `dir`, creating the folder if needed.
    ///
    /// Fails, naming the path, when the folder cannot be made, the file is not an outbox, or
    /// another process has it open.
    pub fn open(dir: impl AsRef<Path>) -> Result<Self, StoreError> {
        Self::open_file(dir.as_ref(), FILE)
    }

    /// [`open`](Self::open) on the file `file` of `dir`.
    pub(super) fn open_file(dir: &Path, file: &str) -> Result<Self, StoreError> {
        std::fs::create_dir_all(dir).map_err(|e| failed_io(dir, "cannot create the folder", e))?;
        let path = dir.join(file);
        create_whole(dir, file, &path)?;
        // redb asserts (panics) on some damaged files, e.g. one shorter than its header says;
        // that is a damaged outbox to name, not a crash of the server opening it.
        let opened = std::panic::catch_unwind(|| {
            Database::builder().set_cache_size(CACHE).create(&path)
        })
        .map_err(|_| {
            refused(
                &path,
                StoreErrorKind::Corrupt,
                "cannot open",
                "the file is damaged (for example cut short); move it aside to start an empty \
                 outbox, and keep it to recover its events",
            )
        })?;
        let db = opened.map_err(|e| match e {
            redb::DatabaseError::DatabaseAlreadyOpen => refused(
                &path,
                StoreErrorKind::Refused,
                "cannot open",
                "another process has this outbox open (one instance per file; \
                     several instances share a Redis outbox)",
            ),
            e => failed(&path, "cannot open", e),
        })?;
        // Make the tables now, so reads never meet a missing one, and take back the claims of the
        // process that had the file before: it is gone (the file is locked while open), so what it
        // was posting is due again now rather than when its leases would have run out.
        let made = db.begin_write().map_err(redb::Error::from).and_then(|txn| {
            release_claims(&txn, crate::stores::outbox::now_ms())?;
            txn.open_table(DEAD)?;
            // A file of an earlier release has no record of delivered events or keys yet.
            txn.open_table(SENT)?;
            txn.open_table(FORGET)?;
            txn.open_table(dedupe::RECORDED)?;
            txn.open_table(dedupe::RECORDED_AT)?;
            txn.commit()?;
            Ok(())
        });
        made.map_err(|e| failed(&path, "cannot prepare", e))?;
        let (jobs, queue) = mpsc::channel();
        let thread_path = path.clone();
        let thread = std::thread::Builder::new()
            .name("host-outbox".into())
            .spawn(move || serve(&db, &queue, &thread_path))
            .map_err(|e| failed_io(&path, "cannot start its thread", e))?;
        Ok(FileOutbox {
            inner: std::sync::Arc::new(Inner {
                jobs: Some(jobs),
                path,
                thread: Some(thread),
            }),
        })
    }

    /// The database file.
    pub fn path(&self) -> &Path {
        &self.inner.path
    }

    fn stopped(&self) -> StoreError {
        refused(
            self.path(),
            StoreErrorKind::Unavailable,
            "unavailable",
            "its thread stopped",
        )
    }

    fn write<T: Send + 'static>(
        &self,
        op: impl FnOnce(&WriteTransaction) -> Result<T, redb::Error> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let (tell, told) = futures_channel::oneshot::channel();
        let path = self.inner.path.clone();
        let job = Job::Write(Box::new(move |txn| {
            let result = txn.and_then(|txn| op(txn).map_err(|e| failed(&path, "cannot write", e)));
            let ok = result.is_ok();
            let reply: Reply = Box::new(move |committed| {
                let _ = tell.send(committed.and(result));
            });
            (ok, reply)
        }));
        self.submit(job, told)
    }

    fn read<T: Send + 'static>(
        &self,
        op: impl FnOnce(&Database) -> Result<T, redb::Error> + Send + 'static,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let (tell, told) = futures_channel::oneshot::channel();
        let path = self.inner.path.clone();
        let job = Job::Read(Box::new(move |db| {
            let _ = tell.send(op(db).map_err(|e| failed(&path, "cannot read", e)));
        }));
        self.submit(job, told)
    }

    fn submit<T: Send + 'static>(
        &self,
        job: Job,
        told: futures_channel::oneshot::Receiver<Result<T, StoreError>>,
    ) -> BoxFuture<'static, Result<T, StoreError>> {
        let stopped = self.stopped();
        let sent = self.inner.jobs.as_ref().map(|jobs| jobs.send(job));
        if !matches!(sent, Some(Ok(()))) {
            return Box::pin(std::future::ready(Err(stopped)));
        }
        Box::pin(async move { told.await.unwrap_or(Err(stopped)) })
    }
}

/// The database thread: answers reads at once and commits the writes waiting together.
fn serve(db: &Database, queue: &mpsc::Receiver<Job>, path: &Path) {
    let mut writes = Vec::new();
    while let Ok(first) = queue.recv() {
        let mut next = Some(first);
        while let Some(job) = next.take() {
            match job {
                Job::Read(read) => read(db),
                Job::Write(write) => writes.push(write),
            }
            if writes.len() < GROUP {
                next = queue.try_recv().ok();
            }
        }
        if writes.is_empty() {
            continue;
        }
        let batch = std::mem::take(&mut writes);
        let txn = match db.begin_write() {
            Ok(txn) => txn,
            Err(e) => {
                // Nothing is applied: each request hears why.
                let e = failed(path, "cannot write", e);
                tracing::error!(error = %crate::calls::error::Chain(&e), "the outbox file cannot be written");
                for write in batch {
                    let (_, reply) = write(Err(e.clone()));
                    reply(Err(e.clone()));
                }
                continue;
            }
        };
        let mut all_ok = true;
        let replies: Vec<Reply> = batch
            .into_iter()
            .map(|write| {
                let (ok, reply) = write(Ok(&txn));
                all_ok &= ok;
                reply
            })
            .collect();
        let committed = if all_ok {
            txn.commit().map_err(|e| failed(path, "cannot commit", e))
        } else {
            // One write failed part-way: none of the batch is kept, and each request hears so.
            let _ = txn.abort();
            Err(refused(
                path,
                StoreErrorKind::Other,
                "cannot write",
                "a write in the same commit failed; nothing of it was kept",
            ))
        };
        if let Err(e) = &committed {
            tracing::error!(error = %crate::calls::error::Chain(e), "outbox commit failed");
        }
        for reply in replies {
            reply(committed.clone());
        }
    }
}

/// Makes every claimed event unclaimed and due by `now`.
fn release_claims(txn: &WriteTransaction, now: i64) -> Result<(), redb::Error> {
    let mut pending = txn.open_table(PENDING)?;
    let mut due = txn.open_table(DUE)?;
    let mut claimed = Vec::new();
    for row in pending.iter()? {
        let (id, raw) = row?;
        if let Ok((entry, owner)) = codec::decode(raw.value())
            && !owner.is_empty()
        {
            claimed.push((id.value().to_owned(), entry));
        }
    }
    for (id, mut entry) in claimed {
        due.remove((entry.due, id.as_str()))?;
        entry.due = entry.due.min(now);
        pending.insert(id.as_str(), codec::encode(&entry, "").as_slice())?;
        due.insert((entry.due, id.as_str()), ())?;
    }
    Ok(())
}

/// The record of pending event `id` and its claim's owner; a record that does not decode is
/// reported and treated as absent.
fn pending_record(
    table: &impl redb::ReadableTable<&'static str, &'static [u8]>,
    id: &str,
) -> Result<Option<(Entry, String)>, redb::Error> {
    let Some(raw) = table.get(id)? else {
        return Ok(None);
    };
    match codec::decode(raw.value()) {
        Ok(record) => Ok(Some(record)),
        Err(e) => {
            tracing::error!(event_id = %id, error = %e, "a damaged outbox record is skipped");
            Ok(None)
        }
    }
}

/// A pending record that does not decode (written by another format, or damaged) becomes a dead
/// letter as it is, its bytes as the body: `list` and `cargo host outbox` show it, and it can be
/// dropped, instead of staying pending out of every view and never being posted.
fn bury_damaged(
    txn: &WriteTransaction,
    pending: &mut redb::Table<'_, &'static str, &'static [u8]>,
    id: &str,
    raw: Vec<u8>,
    why: codec::DecodeError,
    now: i64,
) -> Result<(), redb::Error> {
    pending.remove(id)?;
    let entry = codec::unreadable(id, raw, &why, now);
    txn.open_table(DEAD)?
        .insert(id, codec::encode(&entry, "").as_slice())?;
    Ok(())
}

/// What holds `entry`'s id, if anything does; else stores it claimed by `owner` (empty: none).
fn put_in(txn: &WriteTransaction, entry: &Entry, owner: &str) -> Result<Put, redb::Error> {
    // Digested only when the id is taken: a new id, the usual case, costs the database thread no
    // digest.
    let mut pending = txn.open_table(PENDING)?;
    if let Some(raw) = pending.get(entry.id.as_str())? {
        // A record that does not decode is another event as far as anyone can tell.
        return Ok(match codec::decode(raw.value()) {
            Ok((found, _)) => Put::found(&found.digest(), &entry.digest(), true),
            Err(_) => Put::Conflict,
        });
    }
    let now = crate::stores::outbox::now_ms();
    let sent = txn.open_table(SENT)?;
    if let Some(raw) = sent.get(entry.id.as_str())?
        && let Some((found, until)) = sent_record(raw.value())
        && until > now
    {
        return Ok(Put::found(&found, &entry.digest(), false));
    }
    drop(sent);
    pending.insert(entry.id.as_str(), codec::encode(entry, owner).as_slice())?;
    txn.open_table(DUE)?
        .insert((entry.due, entry.id.as_str()), ())?;
    txn.open_table(DEAD)?.remove(entry.id.as_str())?;
    Ok(Put::Stored(()))
}

/// A [`SENT`] value: the digest and when it is forgotten.
fn sent_record(raw: &[u8]) -> Option<([u8; 32], i64)> {
    let digest = raw.get(..32)?.try_into().ok()?;
    let until = i64::from_le_bytes(raw.get(32..40)?.try_into().ok()?);
    Some((digest, until))
}

/// Remembers that `entry` was delivered, for [`SENT_WINDOW`](crate::stores::outbox::SENT_WINDOW), and forgets a
/// few of the delivered events whose window ended.
fn remember_sent(txn: &WriteTransaction, entry: &Entry) -> Result<(), redb::Error> {
    let now = crate::stores::outbox::now_ms();
    let until = now.saturating_add(crate::stores::outbox::millis(
        crate::stores::outbox::SENT_WINDOW,
    ));
    let mut sent = txn.open_table(SENT)?;
    let mut forget = txn.open_table(FORGET)?;
    let ended: Vec<(i64, String)> = forget
        .range((i64::MIN, "")..(now.saturating_add(1), ""))?
        .take(FORGET_AT_ONCE)
        .map(|row| row.map(|(k, _)| (k.value().0, k.value().1.to_owned())))
        .collect::<Result<_, _>>()?;
    for (at, id) in ended {
        forget.remove((at, id.as_str()))?;
        let current = sent
            .get(id.as_str())?
            .and_then(|raw| sent_record(raw.value()));
        if current.is_some_and(|(_, u)| u == at) {
            sent.remove(id.as_str())?;
        }
    }
    let mut record = entry.digest().to_vec();
    record.extend_from_slice(&until.to_le_bytes());
    let replaced = sent
        .insert(entry.id.as_str(), record.as_slice())?
        .and_then(|old| sent_record(old.value()));
    if let Some((_, at)) = replaced {
        forget.remove((at, entry.id.as_str()))?;
    }
    forget.insert((until, entry.id.as_str()), ())?;
    Ok(())
}

impl OutboxStore for FileOutbox {
    fn name(&self) -> &'static str {
        "file"
    }

    fn put(&self, entry: Entry) -> BoxFuture<'_, Result<Put, StoreError>> {
        self.write(move |txn| put_in(txn, &entry, ""))
    }

    fn put_claimed<'a>(
        &'a self,
        entry: Entry,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Put<Entry>, StoreError>> {
        let owner = owner.to_owned();
        self.write(move |txn| {
            let leased = Entry {
                due: lease_until,
                ..entry.clone()
            };
            Ok(put_in(txn, &leased, &owner)?.map(|()| entry))
        })
    }

    fn claim<'a>(
        &'a self,
        now: i64,
        limit: usize,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        let owner = owner.to_owned();
        self.write(move |txn| {
            let mut due = txn.open_table(DUE)?;
            let mut pending = txn.open_table(PENDING)?;
            let keys: Vec<(i64, String)> = due
                .range((i64::MIN, "")..(now.saturating_add(1), ""))?
                .take(limit)
                .map(|row| row.map(|(k, _)| (k.value().0, k.value().1.to_owned())))
                .collect::<Result<_, _>>()?;
            let mut claimed = Vec::with_capacity(keys.len());
            for (at, id) in keys {
                due.remove((at, id.as_str()))?;
                // Decoded once; only an unreadable record's bytes are copied, to keep them.
                let decoded = match pending.get(id.as_str())? {
                    None => continue,
                    Some(raw) => {
                        codec::decode(raw.value()).map_err(|why| (raw.value().to_vec(), why))
                    }
                };
                let mut entry = match decoded {
                    Ok((entry, _)) => entry,
                    Err((raw, why)) => {
                        bury_damaged(txn, &mut pending, &id, raw, why, now)?;
                        continue;
                    }
                };
                claimed.push(entry.clone());
                entry.due = lease_until;
                pending.insert(id.as_str(), codec::encode(&entry, &owner).as_slice())?;
                due.insert((lease_until, id.as_str()), ())?;
            }
            Ok(claimed)
        })
    }

    fn claim_ids<'a>(
        &'a self,
        ids: &'a [String],
        now: i64,
        lease_until: i64,
        owner: &'a str,
    ) -> BoxFuture<'a, Result<Vec<Entry>, StoreError>> {
        let (ids, owner) = (ids.to_vec(), owner.to_owned());
        self.write(move |txn| {
            let mut due = txn.open_table(DUE)?;
            let mut pending = txn.open_table(PENDING)?;
            let mut claimed = Vec::new();
            for id in &ids {
                // An unreadable record is left to `claim`, which moves it to the dead letters.
                let Some((mut entry, _)) = pending_record(&pending, id)? else {
                    continue;
                };
                if entry.due > now {
                    continue;
                }
                due.remove((entry.due, id.as_str()))?;
                claimed.push(entry.clone());
                entry.due = lease_until;
                pending.insert(id.as_str(), codec::encode(&entry, &owner).as_slice())?;
                due.insert((lease_until, id.as_str()), ())?;
            }
            Ok(claimed)
        })
    }

    fn settle<'a>(
        &'a self,
        id: &'a str,
        owner: &'a str,
        settlement: Settlement,
    ) -> BoxFuture<'a, Result<bool, StoreError>> {
        let (id, owner) = (id.to_owned(), owner.to_owned());
        self.write(move |txn| {
            let mut pending = txn.open_table(PENDING)?;
            let Some((mut entry, holder)) = pending_record(&pending, &id)? else {
                return Ok(false);
            };
            if holder != owner {
                return Ok(false);
            }
            let mut due = txn.open_table(DUE)?;
            due.remove((entry.due, id.as_str()))?;
            match entry.settle(settlement) {
                Destination::Delivered => {
                    pending.remove(id.as_str())?;
                    remember_sent(txn, &entry)?;
                }
                Destination::Pending => {
                    pending.insert(id.as_str(), codec::encode(&entry, "").as_slice())?;
                    due.insert((entry.due, id.as_str()), ())?;
                }
                Destination::Dead => {
                    pending.remove(id.as_str())?;
                    txn.open_table(DEAD)?
                        .insert(id.as_str(), codec::encode(&entry, "").as_slice())?;
                }
            }
            Ok(true)
        })
    }

    fn next_due(&self) -> BoxFuture<'_, Result<Option<i64>, StoreError>> {
        self.read(|db| {
            let txn = db.begin_read()?;
            let due = txn.open_table(DUE)?;
            Ok(due.first()?.map(|(k, _)| k.value().0))
        })
    }

    /// Counts both lists exactly; the oldest waiting event is looked for among the 100 due
    /// soonest (the file orders events by due time only), so under a long backoff the age it
    /// gives may be younger than the oldest event's.
    fn backlog(&self) -> BoxFuture<'_, Result<crate::stores::outbox::Backlog, StoreError>> {
        use redb::ReadableTableMetadata as _;
        self.read(|db| {
            let txn = db.begin_read()?;
            let pending = txn.open_table(PENDING)?;
            let mut oldest_accepted = None::<i64>;
            for row in txn.open_table(DUE)?.iter()?.take(100) {
                let (key, _) = row?;
                if let Some((entry, _)) = pending_record(&pending, key.value().1)? {
                    oldest_accepted =
                        Some(oldest_accepted.map_or(entry.accepted, |o| o.min(entry.accepted)));
                }
            }
            Ok(crate::stores::outbox::Backlog {
                pending: pending.len()?,
                oldest_accepted,
                dead: txn.open_table(DEAD)?.len()?,
            })
        })
    }

    fn list(&self, which: Which, limit: usize) -> BoxFuture<'_, Result<Vec<Entry>, StoreError>> {
        self.read(move |db| {
            let txn = db.begin_read()?;
            let mut out = Vec::new();
            match which {
                Which::Pending => {
                    let pending = txn.open_table(PENDING)?;
                    for row in txn.open_table(DUE)?.iter()?.take(limit) {
                        let (key, _) = row?;
                        if let Some((entry, _)) = pending_record(&pending, key.value().1)? {
                            out.push(entry);
                        }
                    }
                }
                Which::Dead => {
                    for row in txn.open_table(DEAD)?.iter()? {
                        let (id, raw) = row?;
                        match codec::decode(raw.value()) {
                            Ok((entry, _)) => out.push(entry),
                            Err(e) => tracing::error!(event_id = %id.value(), error = %e, "a damaged dead letter is skipped"),
                        }
                    }
                    out.sort_by(|a, b| (a.due, &a.id).cmp(&(b.due, &b.id)));
                    out.truncate(limit);
                }
            }
            Ok(out)
        })
    }

    fn revive<'a>(&'a self, id: &'a str, now: i64) -> BoxFuture<'a, Result<bool, StoreError>> {
        let id = id.to_owned();
        self.write(move |txn| {
            let mut dead = txn.open_table(DEAD)?;
            let Some(raw) = dead.remove(id.as_str())? else {
                return Ok(false);
            };
            let decoded = codec::decode(raw.value());
            drop(raw);
            let (mut entry, _) = decoded.map_err(|e| {
                redb::Error::Corrupted(format!("dead letter `{id}` cannot be read: {e}"))
            })?;
            let mut pending = txn.open_table(PENDING)?;
            if pending.get(id.as_str())?.is_some() {
                // The same event was sent again meanwhile and is pending already.
                return Ok(true);
            }
            entry.attempts = 0;
            entry.due = now;
            pending.insert(id.as_str(), codec::encode(&entry, "").as_slice())?;
            txn.open_table(DUE)?.insert((now, id.as_str()), ())?;
            Ok(true)
        })
    }

    fn discard<'a>(&'a self, id: &'a str) -> BoxFuture<'a, Result<bool, StoreError>> {
        let id = id.to_owned();
        self.write(move |txn| {
            let mut pending = txn.open_table(PENDING)?;
            let mut found = false;
            if let Some((entry, _)) = pending_record(&pending, &id)? {
                txn.open_table(DUE)?.remove((entry.due, id.as_str()))?;
            }
            found |= pending.remove(id.as_str())?.is_some();
            found |= txn.open_table(DEAD)?.remove(id.as_str())?.is_some();
            Ok(found)
        })
    }
}

mod dedupe;
pub use dedupe::FileDedupe;

#[cfg(test)]
mod tests;
