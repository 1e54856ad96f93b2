//! Writes events into the file outbox in folder `argv[1]` as fast as it can, from 32 tasks, and
//! prints each event's id once the store has accepted it (so a test that kills this process knows
//! what must survive). When the store refuses an event it prints `error: <why>` and exits 3.
//!
//! On stderr it says `opening` just before it opens (or makes) the store and `opened` once that is
//! done, so a test can time its kill from the open rather than from the process start, which a
//! busy machine stretches.

use std::io::Write as _;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use host_runtime::outbox::{Entry, FileOutbox, OutboxStore};

#[tokio::main]
async fn main() -> std::process::ExitCode {
    let Some(dir) = std::env::args().nth(1) else {
        eprintln!("usage: outbox_writer DIR");
        return std::process::ExitCode::from(2);
    };
    eprintln!("opening");
    let store = match FileOutbox::open(&dir) {
        Ok(store) => {
            eprintln!("opened");
            Arc::new(store)
        }
        Err(e) => {
            println!("error: {e}");
            return std::process::ExitCode::from(3);
        }
    };
    // Ids continue from a previous run's, so every run adds new events.
    let run = std::process::id();
    let next = Arc::new(AtomicU64::new(0));
    let (tell, mut told) = tokio::sync::mpsc::unbounded_channel::<Result<String, String>>();
    for _ in 0..32 {
        let (store, next, tell) = (Arc::clone(&store), Arc::clone(&next), tell.clone());
        tokio::spawn(async move {
            loop {
                let n = next.fetch_add(1, Ordering::Relaxed);
                let id = format!("run{run}-{n:08}");
                let body = format!("{{\"n\":{n},\"pad\":\"{}\"}}", "x".repeat(700)).into_bytes();
                let accepted = store.put(Entry::new(id.clone(), body, 0)).await;
                let stop = accepted.is_err();
                if tell
                    .send(accepted.map(|_| id).map_err(|e| e.to_string()))
                    .is_err()
                    || stop
                {
                    return;
                }
            }
        });
    }
    drop(tell);
    let mut out = std::io::stdout().lock();
    while let Some(accepted) = told.recv().await {
        match accepted {
            Ok(id) => {
                let _ = writeln!(out, "{id}");
            }
            Err(e) => {
                let _ = writeln!(out, "error: {e}");
                let _ = out.flush();
                return std::process::ExitCode::from(3);
            }
        }
    }
    std::process::ExitCode::SUCCESS
}
