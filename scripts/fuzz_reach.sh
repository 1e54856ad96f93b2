#!/usr/bin/env bash
# What each fuzz target's committed inputs reach, checked in CI (see FUZZING.md, "What the corpus
# reaches"): builds the replay with coverage instrumentation on the SDK's crates only, replays each
# target's corpus and regression inputs, and lists the SDK's functions that ran (host-fuzz-reach).
# A function of the committed list fuzz/reached/<target>.txt that no longer runs fails the check,
# named; functions that newly run pass, printed with the command that adds them to the list.
#
#   scripts/fuzz_reach.sh                 # build if needed, then check every target
#   scripts/fuzz_reach.sh token request   # check some targets
#   scripts/fuzz_reach.sh --build-only    # install llvm-tools and build only (CI, in the background)
#   scripts/fuzz_reach.sh --update [target...]   # write the lists (after a corpus or SDK change)
#
# The targets come from scripts/fuzz_targets.sh, which fails unless `host-fuzz --list`, FUZZING.md's
# table and the corpus folders agree; every target must have a list, and every list a target.
#
# Determinism: each target replays in a process of its own, in a fixed order. The request targets
# keep state between inputs and run tasks on a runtime, so a function may run in one replay and not
# the next. `--update` replays each target $REACH_RUNS times (default 3) and lists only what every
# run reached; what only some runs reached goes to fuzz/reached/<target>.flaky.txt and is left out
# of the check both ways. A check that misses a function replays that target once more and fails
# only on functions neither replay reached.
#
# Builds in $CARGO_TARGET_DIR_REACH (default $TMPDIR/host-sdk-fuzz-cov): the dev profile without
# debug information, `-C instrument-coverage` added by scripts/fuzz_reach_rustc.sh to the crates
# inside the repository. Reports stay in $REACH_OUT (default $TMPDIR/host-sdk-fuzz-reach).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TMP="${TMPDIR:-/tmp}"
RUNS="${REACH_RUNS:-3}"
OUT="${REACH_OUT:-$TMP/host-sdk-fuzz-reach}"
LISTS="$ROOT/fuzz/reached"
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR_REACH:-$TMP/host-sdk-fuzz-cov}"
export LC_ALL=C
started=$(date +%s)
MODE=check
case "${1:-}" in
    --build-only) MODE=build; shift ;;
    --update) MODE=update; shift ;;
esac

step() { printf '\n== %s (%ds)\n' "$1" $(($(date +%s) - started)); }
# "1 function", "2 functions": the count of lines in $1.
functions() {
    local n
    n=$(grep -c . <<<"$1" || true)
    if [ "$n" = 1 ]; then echo "1 function"; else echo "$n functions"; fi
}

step "tools"
SYSROOT_BIN="$(rustc --print sysroot)/lib/rustlib/$(rustc -vV | sed -n 's/^host: //p')/bin"
if [ ! -x "$SYSROOT_BIN/llvm-profdata" ] || [ ! -x "$SYSROOT_BIN/llvm-cov" ]; then
    rustup component add llvm-tools-preview
fi
PROFDATA="$SYSROOT_BIN/llvm-profdata"
COV="$SYSROOT_BIN/llvm-cov"

step "build (coverage of the SDK's crates, dev profile)"
cd "$ROOT/fuzz"
if ! RUSTC_WRAPPER="$ROOT/scripts/fuzz_reach_rustc.sh" FUZZ_REACH_ROOT="$ROOT" \
    CARGO_PROFILE_DEV_DEBUG=0 CARGO_INCREMENTAL=0 \
    cargo build --locked --bins >"$TMP/host-fuzz-reach-build.log" 2>&1; then
    grep -v '^\s*Compiling ' "$TMP/host-fuzz-reach-build.log" >&2
    echo "error: the coverage build of the fuzz targets failed" >&2
    exit 1
fi
BIN="$CARGO_TARGET_DIR/debug/host-fuzz"
REACH="$CARGO_TARGET_DIR/debug/host-fuzz-reach"
test -x "$BIN" && test -x "$REACH"
if [ "$MODE" = build ]; then
    step "built"
    exit 0
fi

step "targets"
# An instrumented binary writes its counts when it exits: those of every run but the replays go
# here, out of the working tree.
rm -rf "$OUT/other-runs"
mkdir -p "$OUT"
export LLVM_PROFILE_FILE="$OUT/other-runs/%p.profraw"
list="$(bash "$ROOT/scripts/fuzz_targets.sh" "$BIN")"
mapfile -t ALL <<<"$list"
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
    TARGETS=("${ALL[@]}")
    if [ "$MODE" = check ]; then
        # Every list belongs to a target, so that a renamed target leaves no list unchecked.
        shopt -s nullglob
        for file in "$LISTS"/*.txt; do
            name="$(basename "$file" .txt)"
            name="${name%.flaky}"
            if ! printf '%s\n' "${ALL[@]}" | grep -qx "$name"; then
                echo "error: $file is the list of no target of host-fuzz --list" >&2
                exit 1
            fi
        done
    fi
fi
for t in "${TARGETS[@]}"; do
    if ! printf '%s\n' "${ALL[@]}" | grep -qx "$t"; then
        echo "error: no fuzz target \`$t\`; the targets: ${ALL[*]}" >&2
        exit 1
    fi
done
echo "${#TARGETS[@]} targets: ${TARGETS[*]}"

# Replays target $1 (run $2) and writes the SDK functions it reached to $OUT/$1.$2.txt.
reach_once() {
    local t="$1" n="$2" dir="$OUT/$1.$2" inputs=()
    rm -rf "$dir"
    mkdir -p "$dir/tmp"
    for d in "corpus/$t" "regressions/$t"; do
        [ -d "$d" ] && inputs+=("$d")
    done
    # Scratch files of the targets (the generator's manifest) go to the run's folder.
    if ! TMPDIR="$dir/tmp" LLVM_PROFILE_FILE="$dir/%p.profraw" "$BIN" "$t" "${inputs[@]}" >"$dir/replay.log" 2>&1; then
        echo "error: $t: the replay failed:" >&2
        tail -20 "$dir/replay.log" >&2
        return 1
    fi
    # Each step is checked: `set -e` does not hold in a function called before `||`.
    if ! "$PROFDATA" merge -sparse "$dir"/*.profraw -o "$dir/merged.profdata" ||
        ! "$COV" export -format=lcov -instr-profile="$dir/merged.profdata" "$BIN" >"$dir/report.lcov" ||
        ! "$REACH" "$dir/report.lcov" "$ROOT" >"$OUT/$t.$n.txt" 2>"$dir/reach.log"; then
        echo "error: $t: no list of reached functions could be made from the replay's counts" >&2
        return 1
    fi
    rm -rf "$dir/tmp" "$dir"/*.profraw
}

failed=0

if [ "$MODE" = update ]; then
    step "replay each target $RUNS times and write the lists"
    mkdir -p "$LISTS"
    for t in "${TARGETS[@]}"; do
        rm -f "$OUT/$t".[0-9]*.txt
        for n in $(seq 1 "$RUNS"); do
            reach_once "$t" "$n"
        done
        # Kept: what every run reached; flaky: what some runs reached.
        cat "$OUT/$t".[0-9]*.txt | sort | uniq -c |
            awk -v runs="$RUNS" '$1 == runs { sub(/^ *[0-9]+ /, ""); print }' >"$LISTS/$t.txt"
        cat "$OUT/$t".[0-9]*.txt | sort | uniq -c |
            awk -v runs="$RUNS" '$1 < runs { sub(/^ *[0-9]+ /, ""); print }' >"$OUT/$t.flaky.txt"
        if [ -s "$OUT/$t.flaky.txt" ]; then
            cp "$OUT/$t.flaky.txt" "$LISTS/$t.flaky.txt"
        else
            rm -f "$LISTS/$t.flaky.txt"
        fi
        printf '%-20s %5d functions reached, %d left out as reached in some runs only\n' "$t" \
            "$(wc -l <"$LISTS/$t.txt")" "$(wc -l <"$OUT/$t.flaky.txt")"
    done
    step "done: commit fuzz/reached/"
    exit 0
fi

step "replay each target and compare with fuzz/reached/<target>.txt"
for t in "${TARGETS[@]}"; do
    committed="$LISTS/$t.txt"
    if [ ! -f "$committed" ]; then
        echo "error: $t has no list of reached functions; write it with scripts/fuzz_reach.sh --update $t" >&2
        failed=1
        continue
    fi
    flaky="$LISTS/$t.flaky.txt"
    [ -f "$flaky" ] || flaky=/dev/null
    reach_once "$t" 1 || { failed=1; continue; }
    missing="$(comm -23 "$committed" "$OUT/$t.1.txt")"
    if [ -n "$missing" ]; then
        echo "$t: $(functions "$missing") of the list did not run; replaying once more"
        reach_once "$t" 2 || { failed=1; continue; }
        missing="$(comm -23 <(printf '%s\n' "$missing") "$OUT/$t.2.txt")"
    fi
    new="$(comm -13 "$committed" "$OUT/$t.1.txt" | comm -23 - <(sort "$flaky"))"
    printf '%-20s %5d reached, %d in the list\n' "$t" "$(wc -l <"$OUT/$t.1.txt")" "$(wc -l <"$committed")"
    if [ -n "$missing" ]; then
        failed=1
        echo "error: $t no longer reaches $(functions "$missing") of fuzz/reached/$t.txt:" >&2
        sed 's/^/    /' <<<"$missing" >&2
        echo "  (a corpus input was lost, or the code changed so the inputs stop short of them; if" >&2
        echo "  that is meant, run scripts/fuzz_reach.sh --update $t and commit the list)" >&2
    fi
    if [ -n "$new" ]; then
        echo "$t newly reaches $(functions "$new") (scripts/fuzz_reach.sh --update $t writes the longer list; commit it):"
        sed 's/^/    /' <<<"$new"
    fi
done
step "done"
exit "$failed"
