//! Every committed input of every target, replayed without the fuzzer: the corpus under
//! `fuzz/corpus/<target>/` and the inputs of fixed findings under `fuzz/regressions/<target>/`.
//! A panic names the file; an input slower than the target allows fails too.

use std::path::Path;
use std::time::{Duration, Instant};

/// The most one input may take here, in a debug build (the request targets' own limit is 1 s).
const PER_INPUT: Duration = Duration::from_secs(10);

fn replay(folder: &str) -> usize {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let mut count = 0;
    for target in host_sdk_fuzz::TARGETS {
        let Ok(entries) = std::fs::read_dir(root.join(target.name)) else {
            continue;
        };
        let mut files: Vec<_> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        files.sort();
        for file in files {
            let Ok(data) = std::fs::read(&file) else {
                continue;
            };
            eprintln!("{}: {}", target.name, file.display());
            let started = Instant::now();
            (target.run)(&data);
            let took = started.elapsed();
            assert!(took < PER_INPUT, "{} took {took:?}", file.display());
            count += 1;
        }
    }
    count
}

#[test]
fn every_regression_input_passes() {
    replay("regressions");
}

#[test]
fn every_corpus_input_passes() {
    let count = replay("corpus");
    assert!(count > 0, "no corpus under fuzz/corpus");
}
