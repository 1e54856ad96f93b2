//! The embedded outbox file under real faults: a writer process killed with SIGKILL in the middle of
//! its commits, again and again, leaves a file that opens and holds every event it reported
//! accepted; a disk that fills up (a file size limit) is an error for the sender, never a silent
//! drop or a panic.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Lines};
use std::path::Path;
use std::process::{Child, ChildStderr, Command, Stdio};
use std::time::{Duration, Instant};

use host_runtime::outbox::{FileOutbox, OutboxStore, Which};

const WRITER: &str = env!("CARGO_BIN_EXE_outbox_writer");

/// Runs `command`, reads what it reports for `run_for` (or until it exits), kills it (SIGKILL) and
/// returns the ids it reported accepted and any `error:` line.
fn run_and_kill(
    mut command: Command,
    run_for: Duration,
) -> (Vec<String>, Option<String>, Option<i32>) {
    let mut child = command
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut ids = Vec::new();
        let mut error = None;
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            match line.strip_prefix("error: ") {
                Some(e) => error = Some(e.to_owned()),
                None => ids.push(line),
            }
        }
        (ids, error)
    });
    let until = Instant::now() + run_for;
    while Instant::now() < until && child.try_wait().unwrap().is_none() {
        std::thread::sleep(Duration::from_millis(5));
    }
    // SIGKILL if it still runs (a process that already exited cannot be signalled).
    let _ = child.kill();
    let status = child.wait().unwrap();
    let (ids, error) = reader.join().unwrap();
    (ids, error, status.code())
}

async fn stored_ids(dir: &Path) -> HashSet<String> {
    let store = FileOutbox::open(dir).unwrap_or_else(|e| panic!("the outbox does not open: {e}"));
    store
        .list(Which::Pending, usize::MAX)
        .await
        .unwrap()
        .into_iter()
        .map(|e| e.id)
        .collect()
}

#[tokio::test]
async fn a_file_killed_mid_commit_opens_with_every_accepted_event() {
    let dir = tempfile::tempdir().unwrap();
    let mut accepted = Vec::new();
    // Kills at different points of the commit cycle.
    for ms in [40, 90, 170, 260, 400, 650] {
        let mut command = Command::new(WRITER);
        command.arg(dir.path());
        let (ids, error, _) = run_and_kill(command, Duration::from_millis(ms));
        assert_eq!(error, None, "the writer met an error");
        accepted.extend(ids);
        let stored = stored_ids(dir.path()).await;
        let lost: Vec<&String> = accepted.iter().filter(|id| !stored.contains(*id)).collect();
        assert!(
            lost.is_empty(),
            "accepted then lost after a kill at {ms} ms: {lost:?}"
        );
    }
    assert!(
        accepted.len() > 100,
        "the writer got going: {} events",
        accepted.len()
    );
}

/// Starts the writer on `dir` with its stdout discarded and returns it once it says it is opening
/// the store, with the rest of its stderr to read.
fn start_writer(dir: &Path) -> (Child, Lines<BufReader<ChildStderr>>) {
    let mut writer = Command::new(WRITER)
        .arg(dir)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut said = BufReader::new(writer.stderr.take().unwrap()).lines();
    let first = said.next().map(Result::unwrap);
    assert_eq!(first.as_deref(), Some("opening"), "the writer's first word");
    (writer, said)
}

/// redb writes a new file in place and its magic number last; a process killed before that left a
/// file every later open refused. Kills spread over the making of fresh outboxes: timed from the
/// writer's "opening", over one and a half times the longest open measured here and now (a fixed
/// window measured from the process start missed the making on a busy machine). Where a loaded
/// machine still made no file within that window, the kills go on later and later (up to 5 s) until
/// one has: the sweep must reach past the making for its kills to have covered it.
#[tokio::test]
async fn a_file_killed_while_being_made_opens() {
    let mut longest = Duration::ZERO;
    for _ in 0..3 {
        let dir = tempfile::tempdir().unwrap();
        let (mut writer, mut said) = start_writer(dir.path());
        let started = Instant::now();
        let next = said.next().map(Result::unwrap);
        longest = longest.max(started.elapsed());
        assert_eq!(next.as_deref(), Some("opened"), "a fresh outbox opens");
        let _ = writer.kill();
        writer.wait().unwrap();
    }
    let window = longest * 3 / 2;

    let sweep = (0..96u32).map(|step| window * step / 95);
    let later = (1..=12u32).map(|k| (window * (k + 1)).min(Duration::from_secs(5)));
    let mut made = 0;
    let mut killed_after = Duration::ZERO;
    for (step, wait) in sweep.chain(later).enumerate() {
        if step >= 96 && made > 0 {
            break;
        }
        killed_after = wait;
        if kill_while_making(wait).await {
            made += 1;
        }
    }
    assert!(
        made > 0,
        "no writer got as far as making the file, though killed as late as {killed_after:?} \
         after saying it was opening (the longest open measured first took {longest:?})"
    );
}

/// Starts a writer on a fresh folder, kills it `wait` after it says it is opening, checks that the
/// folder's outbox opens and holds nothing but half-made files besides it, and says whether the
/// writer had got as far as linking the file into place.
async fn kill_while_making(wait: Duration) -> bool {
    let dir = tempfile::tempdir().unwrap();
    let (mut writer, _said) = start_writer(dir.path());
    std::thread::sleep(wait);
    let _ = writer.kill();
    writer.wait().unwrap();
    let made = dir.path().join("outbox.redb").exists();
    stored_ids(dir.path()).await;
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| name != "outbox.redb")
        .collect();
    assert!(
        left.iter().all(|name| name.ends_with(".new")),
        "only half-made files besides the outbox after a kill {wait:?} in: {left:?}"
    );
    made
}

#[tokio::test]
async fn a_full_disk_is_an_error_for_the_sender_and_the_file_still_opens() {
    let dir = tempfile::tempdir().unwrap();
    // A 4 MiB file size limit; the signal a process gets past it is ignored, so the write fails
    // with EFBIG as on a full disk.
    let mut command = Command::new("sh");
    command
        .arg("-c")
        .arg("ulimit -f 8192; trap '' XFSZ; exec \"$0\" \"$1\"")
        .arg(WRITER)
        .arg(dir.path());
    let (ids, error, code) = run_and_kill(command, Duration::from_secs(60));
    let error = error.expect("the store refused an event");
    assert_eq!(
        code,
        Some(3),
        "the writer stopped on the error, not a panic: {error}"
    );
    assert!(
        error.contains("outbox.redb"),
        "the error names the file: {error}"
    );
    assert!(!ids.is_empty());
    let stored = stored_ids(dir.path()).await;
    let lost: Vec<&String> = ids.iter().filter(|id| !stored.contains(*id)).collect();
    assert!(
        lost.is_empty(),
        "accepted then lost: {} of {}",
        lost.len(),
        ids.len()
    );
}

#[path = "../benches/support/crash_drain.rs"]
mod crash_drain;

/// An instance killed while it holds claims on events in a shared outbox (Redis) leaves them to
/// the next one when the lease set on the sender ends (here 2 s), not after a fixed minute. (The
/// file outbox, for one instance, takes its claims back when it opens, whatever the lease.)
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_killed_instances_events_are_posted_when_its_short_lease_ends() {
    let Some(redis) = host_test_support::RedisServer::start_or_skip() else {
        return;
    };
    let store = redis.url();
    let lease = Duration::from_secs(2);
    let drained = crash_drain::drain_after_crash(
        &store,
        20,
        lease,
        Duration::from_secs(1),
        Duration::from_secs(15),
    )
    .await;
    // Not before the claims end (they were taken just before the kill), and soon after.
    assert!(
        drained.first >= lease - Duration::from_millis(500),
        "{drained:?}"
    );
    assert!(
        drained.last <= lease + Duration::from_secs(4),
        "{drained:?}"
    );
}
