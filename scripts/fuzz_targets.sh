#!/usr/bin/env bash
# Prints the fuzz targets, one name a line in the order `host-fuzz --list` gives them, once they are
# checked to be exactly the targets of FUZZING.md's table (under "## The targets") and the folders
# under fuzz/corpus/. An empty list fails, and so does a target missing from any of the three: the
# CI steps that fuzz and replay each target (scripts/fuzz_ci.sh, scripts/fuzz_reach.sh) take their
# list from here, so none of them runs fewer targets than the table lists.
#
#   scripts/fuzz_targets.sh <host-fuzz binary>
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BIN="${1:?usage: scripts/fuzz_targets.sh <host-fuzz binary>}"
export LC_ALL=C

if ! listed="$("$BIN" --list)"; then
    echo "error: \`$BIN --list\` failed, so the fuzz targets are unknown" >&2
    exit 1
fi
listed="$(grep -v '^$' <<<"$listed" || true)"
if [ -z "$listed" ]; then
    echo "error: \`$BIN --list\` printed no target" >&2
    exit 1
fi
table="$(sed -n '/^## The targets/,/^## /p' "$ROOT/FUZZING.md" | sed -n 's/^| `\([A-Za-z0-9_]*\)` |.*/\1/p' | sort)"
corpus="$(find "$ROOT/fuzz/corpus" -mindepth 1 -maxdepth 1 -type d -printf '%f\n' | sort)"

failed=0
same() {
    local theirs="$1" where="$2"
    if [ "$(sort <<<"$listed")" != "$theirs" ]; then
        echo "error: the targets of host-fuzz and $where differ:" >&2
        diff <(sort <<<"$listed") <(printf '%s\n' "$theirs") |
            sed -n "s|^< |  only in host-fuzz: |p; s|^> |  only in $where: |p" >&2 || true
        failed=1
    fi
}
same "$table" "FUZZING.md's table of targets"
same "$corpus" "the folders under fuzz/corpus/"
[ "$failed" = 0 ] || exit 1
printf '%s\n' "$listed"
