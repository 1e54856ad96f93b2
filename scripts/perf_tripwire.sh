#!/usr/bin/env bash
# CI's throughput tripwires: small runs of two benchmarks, each beside its own limit measured in
# the same run on the same machine, failing when the ratio falls under a floor an order of
# magnitude below what it is. A floor so low does not fail on a busy machine's noise; it fails on
# a loss like the one that once took the PostgreSQL transactional path from 941 to 37 deliveries a
# second, which no test noticed. The figures themselves are BENCHMARKS.md's, from full runs.
#
# - The keyword tracker's transactional deliveries (400, plaintext) over pgbench's TPC-B-like rate
#   on the same server (floor 0.05; the path runs at about 0.23 in a release build here, the loss
#   ran at 0.008).
# - Each durable outbox store's accepted rate over the memory store's (20,000 events; floors in
#   tests/benches/outbox.rs, a tenth of each store's ratio).
#
#   scripts/perf_tripwire.sh               # build (profile `perf-ci`) and run both
#   scripts/perf_tripwire.sh --build-only  # build only (CI builds while other steps run)
#
# Builds in $CARGO_TARGET_DIR/perf, a folder of its own, so that it never waits on another
# build's lock.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-target}/perf"
# Both packages in every command, so that their dependencies' features are the same each time and
# nothing is built twice.
packages=(-p keyword-tracker -p host-sdk-tests)
if [ "${1:-}" = --build-only ]; then
    cargo bench --no-run --locked --profile perf-ci "${packages[@]}" --bench deliveries --bench outbox
    exit
fi
DELIVERIES=400 CONCURRENCY=32 PGBENCH_SECONDS=5 PATHS=plaintext FLOOR=0.05 \
    cargo bench --locked --profile perf-ci "${packages[@]}" --bench deliveries
OUTBOX_EVENTS=20000 OUTBOX_SOAK=0 OUTBOX_STORES=memory,file,redis,postgres OUTBOX_TRIPWIRE=1 \
    cargo bench --locked --profile perf-ci "${packages[@]}" --bench outbox
