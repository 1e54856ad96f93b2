# What .ci/run and .ci/install share: package installs, timed steps, and steps run in the background.
# Sourced, never run.

# Installs Debian packages, as root or through sudo.
apt_install() {
    if [ "$(id -u)" = 0 ]; then
        apt-get update -q >/dev/null
        DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
    else
        sudo apt-get update -q >/dev/null
        sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -q "$@" >/dev/null
    fi
}

# Installs Python packages for the user running CI (on a system Python that refuses, past its
# "externally managed" guard).
pip_install() {
    python3 -m pip install -q "$@" || python3 -m pip install -q --break-system-packages "$@"
}

# `step CMD...` runs one step; its wall time is printed as it ends and listed at the end.
step_times=()
step() {
    local started=$SECONDS
    "$@"
    step_times+=("$(printf '%5d s  %s' $((SECONDS - started)) "$*")")
    echo "ci: $((SECONDS - started)) s: $*"
}

# Long steps run in the background, at the lowest CPU priority, while the steps in front of them
# run: they take the time those leave idle (tests waiting on timers, servers and child processes),
# not theirs. Each builds in a folder or profile of its own, so no step waits on another's build
# folder lock. `background NAME CMD...` starts one in a process group of its own (so that a failing
# step stops it with everything it started) but in this session: where the kernel schedules
# sessions as groups (autogroup), a session of its own would get an equal share of the CPU
# whatever its niceness. `finish NAME` waits for it and shows its log.
declare -A bg_pids=()
background() {
    local name=$1
    shift
    nice -n 19 python3 -c 'import os, sys; os.setpgid(0, 0); os.execvp(sys.argv[1], sys.argv[1:])' \
        "$@" >"$CARGO_TARGET_DIR/$name.log" 2>&1 &
    bg_pids[$name]=$!
}
finish() {
    local status=0
    wait "${bg_pids[$1]}" || status=$?
    unset "bg_pids[$1]"
    cat "$CARGO_TARGET_DIR/$1.log"
    if [ "$status" != 0 ]; then
        echo "error: $1 (in the background) failed with exit status $status; its log is above" >&2
        exit 1
    fi
}

# Folders of this run outside the build folder, removed however the run ends (with the background
# steps): a failed run must not leave gigabytes in /tmp for the next one to run out of disk on.
scratch=()
stop_background() {
    local pid
    for pid in ${bg_pids[@]+"${bg_pids[@]}"}; do
        kill -- -"$pid" 2>/dev/null || true
    done
    wait 2>/dev/null || true
    if [ "${#scratch[@]}" != 0 ]; then
        rm -rf "${scratch[@]}"
    fi
}
