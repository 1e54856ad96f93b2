#!/usr/bin/env bash
# The RUSTC_WRAPPER of the coverage build in scripts/fuzz_reach.sh: adds `-C instrument-coverage`
# to the crates whose source is inside the repository ($FUZZ_REACH_ROOT: the SDK's crates and the
# fuzz targets), and to nothing else. Dependencies, build scripts and proc macros build as usual:
# their coverage is not read, and instrumenting the whole graph makes the build slower.
set -euo pipefail
rustc="$1"
shift
root="${FUZZ_REACH_ROOT:?the repository root}"
instrument=0
previous=""
for arg in "$@"; do
    case "$previous" in
        --crate-name) [[ "$arg" == build_script_* ]] && exec "$rustc" "$@" ;;
        --crate-type) [ "$arg" = proc-macro ] && exec "$rustc" "$@" ;;
    esac
    if [[ "$arg" == *.rs ]]; then
        path="$arg"
        [[ "$path" == /* ]] || path="$PWD/$path"
        [[ "$path" == "$root"/* ]] && instrument=1
    fi
    previous="$arg"
done
if [ "$instrument" = 1 ]; then
    exec "$rustc" "$@" -C instrument-coverage
fi
exec "$rustc" "$@"
