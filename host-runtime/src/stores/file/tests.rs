//! The file store beyond the contract every store keeps (`tests/contract_file.rs`): reopening, a
//! second opener, files left half-made or cut short, and records it cannot read.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use super::*;
use crate::stores::outbox::now_ms;

#[tokio::test]
async fn the_file_store_keeps_events_across_reopening_and_refuses_a_second_opener() {
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        for n in 0..100 {
            assert!(
                store
                    .put(Entry::new(format!("e{n:03}"), vec![n], n.into()))
                    .await
                    .unwrap()
                    .is_stored()
            );
        }
        let second = FileOutbox::open(&dir).unwrap_err().to_string();
        assert!(
            second.contains("another process has this outbox open"),
            "{second}"
        );
        assert!(second.contains("outbox.redb"), "{second}");
    }
    // The last handle closed the file when it was dropped.
    let store = FileOutbox::open(&dir).unwrap();
    let pending = store.list(Which::Pending, 1_000).await.unwrap();
    assert_eq!(pending.len(), 100);
    assert_eq!(pending[42].id, "e042");
    assert_eq!(pending[42].body, vec![42]);
}

#[tokio::test]
async fn reopening_the_file_takes_back_the_claims_of_the_process_that_had_it() {
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        store
            .put(Entry::new("in-flight", b"1".to_vec(), 100))
            .await
            .unwrap();
        let now = now_ms();
        // Claimed for an hour by a process that then died.
        let claimed = store.claim(now, 10, now + 3_600_000, "gone").await.unwrap();
        assert_eq!(claimed.len(), 1);
        assert!(
            store
                .claim(now, 10, now + 1, "other")
                .await
                .unwrap()
                .is_empty()
        );
    }
    let store = FileOutbox::open(&dir).unwrap();
    let now = now_ms();
    let claimed = store.claim(now, 10, now + 1_000, "next").await.unwrap();
    assert_eq!(claimed.len(), 1, "due at once, not in an hour");
    assert!(claimed[0].due <= now);
}

#[test]
fn a_half_made_file_left_by_a_dead_process_is_swept_and_a_young_one_kept() {
    let dir = tempdir();
    // What redb leaves when killed before its magic number: a sized file of zeros.
    let old = dir.path().join("outbox.redb.4242-0.new");
    let young = dir.path().join("outbox.redb.4243-0.new");
    for path in [&old, &young] {
        std::fs::write(path, vec![0u8; 4096]).unwrap();
    }
    let an_hour_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(3600);
    std::fs::File::options()
        .write(true)
        .open(&old)
        .unwrap()
        .set_modified(an_hour_ago)
        .unwrap();
    let store = FileOutbox::open(&dir).unwrap();
    assert!(store.path().ends_with("outbox.redb"));
    assert!(!old.exists(), "the dead process's half-made file is gone");
    assert!(
        young.exists(),
        "a file another process may still be making is kept"
    );
    let files = std::fs::read_dir(dir.path()).unwrap().flatten().count();
    assert_eq!(
        files, 2,
        "the outbox and the young file; none of this process's left over"
    );
}

#[tokio::test]
async fn a_file_cut_short_is_named_as_damaged_not_a_panic() {
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        for n in 0..200u32 {
            let entry = Entry::new(format!("e{n:03}"), vec![7; 2_000], n.into());
            store.put(entry).await.unwrap();
        }
    }
    let file = std::fs::File::options()
        .write(true)
        .open(dir.path().join("outbox.redb"))
        .unwrap();
    let len = file.metadata().unwrap().len();
    file.set_len(len / 3).unwrap();
    let error = FileOutbox::open(&dir).unwrap_err().to_string();
    assert!(error.contains("outbox.redb"), "{error}");
    assert!(error.contains("damaged"), "{error}");
}

#[test]
fn a_folder_that_cannot_hold_the_outbox_is_named() {
    let dir = tempdir();
    let file = dir.path().join("not-a-folder");
    std::fs::write(&file, b"x").unwrap();
    let e = FileOutbox::open(&file).unwrap_err().to_string();
    assert!(
        e.contains("not-a-folder") && e.contains("cannot create the folder"),
        "{e}"
    );
}

/// A pending record that cannot be read (another format, or damaged) becomes a dead letter that
/// `list` shows and `discard` drops, not an entry that stays pending out of every view.
#[tokio::test]
async fn an_unreadable_record_in_the_file_store_becomes_a_visible_dead_letter() {
    use redb::TableDefinition;
    let dir = tempdir();
    {
        let store = FileOutbox::open(&dir).unwrap();
        store
            .put(Entry::new("damaged", b"{}".to_vec(), 1))
            .await
            .unwrap();
        store
            .put(Entry::new("fine", b"{}".to_vec(), 1))
            .await
            .unwrap();
    }
    {
        // Another program (or a failing disk) leaves bytes no build of this format reads.
        let db = redb::Database::open(dir.path().join("outbox.redb")).unwrap();
        let txn = db.begin_write().unwrap();
        {
            let pending: TableDefinition<&str, &[u8]> = TableDefinition::new("pending");
            let mut table = txn.open_table(pending).unwrap();
            table.insert("damaged", &[9u8, 0, 1][..]).unwrap();
        }
        txn.commit().unwrap();
    }
    let store = FileOutbox::open(&dir).unwrap();
    let now = now_ms();
    let claimed = store.claim(now, 10, now + 1_000, "me").await.unwrap();
    assert_eq!(
        claimed.iter().map(|e| e.id.as_str()).collect::<Vec<_>>(),
        ["fine"]
    );
    let dead = store.list(Which::Dead, 10).await.unwrap();
    assert_eq!(dead.len(), 1, "{dead:?}");
    assert_eq!(dead[0].id, "damaged");
    assert_eq!(dead[0].body, vec![9, 0, 1]);
    let why = dead[0].last_error.as_deref().unwrap_or_default();
    assert!(why.contains("cannot be read"), "{why}");
    assert!(why.contains("format 9"), "{why}");
    assert!(store.discard("damaged").await.unwrap());
    assert!(store.list(Which::Dead, 10).await.unwrap().is_empty());
}

/// A folder of the test's own, removed when dropped.
fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new()
        .prefix("host-outbox-test-")
        .tempdir()
        .unwrap()
}

/// The deduplication store in the outbox's file keeps the store contract, and a key it recorded
/// is remembered by the next process that opens the file: a restart inside the host's retry
/// window does not run a delivery again. A key released (its handler failed) is not.
#[tokio::test]
async fn the_file_dedupe_store_keeps_the_contract_and_remembers_across_a_restart() {
    use crate::dedupe::{Claim, DedupeStore};
    let dir = tempfile::tempdir().unwrap();
    {
        let outbox = FileOutbox::open(dir.path()).unwrap();
        let dedupe = outbox.dedupe();
        assert_eq!(
            crate::testing::contract::dedupe_store(&dedupe).await,
            Ok(())
        );
        assert!(matches!(
            dedupe.claim("ran", "a").await.unwrap(),
            Claim::Run
        ));
        dedupe.complete("ran", "a").await;
        assert!(matches!(
            dedupe.claim("failed", "a").await.unwrap(),
            Claim::Run
        ));
        dedupe.release("failed", "a").await;
        assert!(matches!(
            dedupe.claim("crashed", "a").await.unwrap(),
            Claim::Run
        ));
    }
    let outbox = FileOutbox::open(dir.path()).unwrap();
    let dedupe = outbox.dedupe();
    assert!(matches!(
        dedupe.claim("ran", "b").await.unwrap(),
        Claim::Done
    ));
    // A file of its own beside the outbox's, in the same folder.
    let own = crate::dedupe::FileDedupe::open(dir.path()).unwrap();
    assert!(matches!(own.claim("ran", "c").await.unwrap(), Claim::Run));
    own.complete("ran", "c").await;
    drop(own);
    let own = crate::dedupe::FileDedupe::open(dir.path()).unwrap();
    assert!(matches!(own.claim("ran", "d").await.unwrap(), Claim::Done));
    assert!(dir.path().join("dedupe.redb").exists());
    assert!(matches!(
        dedupe.claim("failed", "b").await.unwrap(),
        Claim::Run
    ));
    // In flight when the process stopped: the claim went with it.
    assert!(matches!(
        dedupe.claim("crashed", "b").await.unwrap(),
        Claim::Run
    ));
}
