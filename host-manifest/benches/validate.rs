//! Parsing plus full validation of the manifest that sits at every limit of the interface
//! (`tests/fixtures/valid/at-every-limit`). Figures are recorded in `BENCHMARKS.md`.
//!
//! Release: `cargo bench -p host-manifest`. Debug (how the macro runs unless build scripts are
//! optimised): `cargo bench -p host-manifest --profile dev`.

#![allow(missing_docs, clippy::expect_used)] // criterion's macros generate undocumented items

use std::hint::black_box;
use std::path::Path;

use criterion::{Criterion, criterion_group, criterion_main};

fn at_every_limit(c: &mut Criterion) {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/valid/at-every-limit");
    let file = dir.join("host.extension.json");
    let text = std::fs::read_to_string(&file).expect("fixture");
    // The first call compiles the manifest schema once per process; measure steady state.
    assert!(
        host_manifest::validate_file(&file)
            .expect("readable")
            .is_valid()
    );

    let mut group = c.benchmark_group("at-every-limit");
    group.sample_size(30);
    group.bench_function(
        "validate_file (read, parse, schema, rules, files, model)",
        |b| b.iter(|| host_manifest::validate_file(black_box(&file)).expect("readable")),
    );
    group.bench_function("validate_str without file rules", |b| {
        b.iter(|| host_manifest::validate_str(black_box(&text), None))
    });
    group.finish();
}

criterion_group!(benches, at_every_limit);
criterion_main!(benches);
