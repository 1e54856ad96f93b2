#!/usr/bin/env bash
# The fuzz targets in CI (see FUZZING.md): installs cargo-afl if missing, builds the targets
# instrumented, replays every committed corpus and regression input with that build, then fuzzes
# each target for a bounded time and fails on any crash or hang. The targets come from
# `host-fuzz --list` through scripts/fuzz_targets.sh, which fails when that list is empty or differs
# from FUZZING.md's table or the corpus folders; the run fails too when fewer targets ran.
#
#   scripts/fuzz_ci.sh                 # FUZZ_SECONDS=20 per target, FUZZ_JOBS=2 at a time
#   FUZZ_SECONDS=600 scripts/fuzz_ci.sh manifest request   # longer, some targets only
#   scripts/fuzz_ci.sh --build-only    # install and build only
#
# Builds in $CARGO_TARGET_DIR (default $TMPDIR/host-sdk-fuzz-target), away from the workspace's.
# Findings are kept under $FUZZ_OUT (default $TMPDIR/host-sdk-fuzz-out); a crash's input replays
# with `host-fuzz <target> <file>` and becomes a regression input under fuzz/regressions/<target>/.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TMP="${TMPDIR:-/tmp}"
AFL_VERSION=0.18.2
SECONDS_EACH="${FUZZ_SECONDS:-20}"
JOBS="${FUZZ_JOBS:-2}"
OUT="${FUZZ_OUT:-$TMP/host-sdk-fuzz-out}"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_FUZZ:-$TMP/host-sdk-fuzz-target}"
started=$(date +%s)
# `--build-only`: install and build, nothing more (CI builds while other steps run).
BUILD_ONLY=0
if [ "${1:-}" = --build-only ]; then
    BUILD_ONLY=1
    shift
fi

step() { printf '\n== %s (%ds)\n' "$1" $(($(date +%s) - started)); }

step "tools"
if ! cargo afl --version 2>/dev/null | grep -q "cargo-afl $AFL_VERSION"; then
    cargo install --locked cargo-afl --version "$AFL_VERSION"
fi
# AFL++ itself, built once per rustc version (`config --build` fails when it is built already).
if ! built=$(cargo afl config --build 2>&1) && ! grep -q "already built" <<<"$built"; then
    echo "$built"
    exit 1
fi

step "build (instrumented, release)"
cd "$ROOT/fuzz"
# A failed build fails the script: a binary left from an earlier build must not be fuzzed instead.
if ! cargo afl build --release --features afl --locked >"$TMP/host-fuzz-build.log" 2>&1; then
    grep -v '^\s*Compiling ' "$TMP/host-fuzz-build.log" >&2
    echo "error: the fuzz targets did not build" >&2
    exit 1
fi
BIN="$CARGO_TARGET_DIR/release/host-fuzz"
test -x "$BIN"
if [ "$BUILD_ONLY" = 1 ]; then
    step "built"
    exit 0
fi

step "targets"
# `host-fuzz --list`, checked against FUZZING.md's table and the corpus folders: an empty or
# different list fails here rather than leave targets unfuzzed.
list="$(bash "$ROOT/scripts/fuzz_targets.sh" "$BIN")"
mapfile -t ALL <<<"$list"
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=("${ALL[@]}")
for t in "${TARGETS[@]}"; do
    if ! printf '%s\n' "${ALL[@]}" | grep -qx -- "$t"; then
        echo "error: no fuzz target \`$t\`; the targets: ${ALL[*]}" >&2
        exit 1
    fi
done
echo "${#TARGETS[@]} targets: ${TARGETS[*]}"

step "replay the committed corpus and regression inputs"
for t in "${TARGETS[@]}"; do
    inputs=()
    for dir in "corpus/$t" "regressions/$t"; do
        [ -d "$dir" ] && inputs+=("$dir")
    done
    [ ${#inputs[@]} -gt 0 ] || continue
    "$BIN" "$t" "${inputs[@]}"
done

step "fuzz each target for ${SECONDS_EACH}s, $JOBS at a time"
rm -rf "$OUT"
mkdir -p "$OUT"
export AFL_NO_UI=1 AFL_SKIP_CPUFREQ=1 AFL_I_DONT_CARE_ABOUT_MISSING_CRASHES=1 AFL_NO_AFFINITY=1
export AFL_FAST_CAL=1
fuzz_one() {
    local t="$1" seeds="corpus/$1"
    [ -d "$seeds" ] || seeds="seeds/$1"
    # A request may take 1 s (the target asserts it); the generator types schemas for longer.
    local limit=2000
    [ "$t" = codegen ] && limit=10000
    timeout --kill-after=10 $((SECONDS_EACH + 120)) \
        cargo afl fuzz -V "$SECONDS_EACH" -t "$limit" -m none -i "$seeds" -o "$OUT/$t" -- "$BIN" "$t" \
        >"$OUT/$t.log" 2>&1 || { echo "afl-fuzz failed on $t:"; tail -20 "$OUT/$t.log"; return 1; }
}
pids=()
failed=0
for t in "${TARGETS[@]}"; do
    fuzz_one "$t" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$JOBS" ]; then
        wait "${pids[0]}" || failed=1
        pids=("${pids[@]:1}")
    fi
done
for p in "${pids[@]}"; do wait "$p" || failed=1; done

step "findings"
ran=0
for t in "${TARGETS[@]}"; do
    stats="$OUT/$t/default/fuzzer_stats"
    [ -f "$stats" ] || { echo "$t: no statistics"; failed=1; continue; }
    get() { sed -n "s/^$1 *: //p" "$stats"; }
    ran=$((ran + 1))
    crashes=$(find "$OUT/$t/default/crashes" -type f ! -name README.txt 2>/dev/null | wc -l)
    hangs=$(find "$OUT/$t/default/hangs" -type f 2>/dev/null | wc -l)
    printf '%-20s %8s execs %7s/s  corpus %5s  map %7s  crashes %s  hangs %s\n' "$t" \
        "$(get execs_done)" "$(get execs_per_sec)" "$(get corpus_count)" "$(get bitmap_cvg)" "$crashes" "$hangs"
    if [ "$crashes" -gt 0 ] || [ "$hangs" -gt 0 ]; then
        failed=1
        find "$OUT/$t/default/crashes" "$OUT/$t/default/hangs" -type f ! -name README.txt | head -5
    fi
done
# Every target asked for ran (each with its statistics), and at least one was asked for.
if [ "$ran" -ne ${#TARGETS[@]} ] || [ "$ran" -eq 0 ]; then
    echo "error: $ran of the ${#TARGETS[@]} targets ran" >&2
    failed=1
fi
step "done: $ran targets fuzzed"
exit "$failed"
