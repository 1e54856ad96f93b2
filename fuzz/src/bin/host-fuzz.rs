//! The AFL++ harness. `host-fuzz <target>` runs one target in persistent mode under `afl-fuzz`;
//! `host-fuzz <target> <file or folder>...` replays inputs once each and names the slowest (what
//! CI runs on the committed corpus with the same build); `host-fuzz --list` prints the targets, one
//! name a line. Built with `cargo afl build --release --features afl`; see FUZZING.md. Built without
//! the `afl` feature (the coverage build of `scripts/fuzz_reach.sh`), it lists and replays only.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let name = args.first().map(String::as_str).unwrap_or_default();
    if name == "--list" {
        for target in host_sdk_fuzz::TARGETS {
            println!("{}", target.name);
        }
        return;
    }
    let Some(target) = host_sdk_fuzz::target(name) else {
        eprintln!(
            "usage: host-fuzz <target> [input file or folder...], or host-fuzz --list for the targets"
        );
        std::process::exit(2);
    };
    if args.len() > 1 {
        replay(target, &args[1..]);
        return;
    }
    fuzz(target);
}

/// Runs `target` under afl-fuzz, in persistent mode.
#[cfg(feature = "afl")]
fn fuzz(target: &host_sdk_fuzz::Target) {
    let run = target.run;
    afl::fuzz!(|data: &[u8]| run(data));
}

/// Without afl, there is nothing to fuzz with.
#[cfg(not(feature = "afl"))]
fn fuzz(target: &host_sdk_fuzz::Target) {
    eprintln!(
        "host-fuzz was built without the `afl` feature: it replays inputs (host-fuzz {} <files>)",
        target.name
    );
    std::process::exit(2);
}

/// Runs every input once; the first that panics is named and ends the run with status 1.
fn replay(target: &host_sdk_fuzz::Target, paths: &[String]) {
    let mut files: Vec<PathBuf> = Vec::new();
    for path in paths.iter().map(Path::new) {
        match std::fs::read_dir(path) {
            Ok(entries) => files.extend(entries.filter_map(|e| e.ok()).map(|e| e.path())),
            Err(_) => files.push(path.to_owned()),
        }
    }
    files.retain(|f| f.is_file() && f.file_name().is_some_and(|n| n != "README.txt"));
    files.sort();
    let mut slowest = (Duration::ZERO, PathBuf::new());
    for file in &files {
        let Ok(data) = std::fs::read(file) else {
            continue;
        };
        let started = Instant::now();
        if std::panic::catch_unwind(|| (target.run)(&data)).is_err() {
            eprintln!("{}: {} fails", target.name, file.display());
            std::process::exit(1);
        }
        let took = started.elapsed();
        if took > slowest.0 {
            slowest = (took, file.clone());
        }
    }
    println!(
        "{}: {} inputs replayed, slowest {:?} ({})",
        target.name,
        files.len(),
        slowest.0,
        slowest.1.display()
    );
}
