//! Times the first validation in a fresh process (the case of the proc macro, which validates once per
//! compiler run and so pays for compiling the manifest schema), then the steady state.
//!
//! `cargo run -p host-manifest --example cold_validate [--release] [PATH]`

#![allow(clippy::expect_used)]

use std::path::PathBuf;
use std::time::Instant;

fn main() {
    let path = std::env::args_os()
        .nth(1)
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                .join("tests/fixtures/valid/at-every-limit/host.extension.json")
        });
    let start = Instant::now();
    let report = host_manifest::validate_file(&path).expect("readable");
    let cold = start.elapsed();
    let runs = 20;
    let start = Instant::now();
    for _ in 0..runs {
        host_manifest::validate_file(&path).expect("readable");
    }
    let warm = start.elapsed() / runs;
    println!(
        "{}: valid={} diagnostics={} first={:.1} ms steady={:.1} ms",
        path.display(),
        report.is_valid(),
        report.diagnostics().len(),
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3
    );
}
