"""What every part of the Workers end-to-end test shares: paths, pinned versions, the log, and
running programs."""

import argparse
import gzip
import http.client
import http.server
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import statistics
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
import uuid

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
WORKERS = ROOT / "workers"
EXAMPLE = WORKERS / "example"
# CI keeps them beside its cargo build folder, so a warm run installs nothing.
TOOLS = pathlib.Path(os.environ.get("WORKERS_TOOLS") or WORKERS / ".tools")
WORKER_BUILD = "0.8.7"
WASM_BINDGEN = "0.2.130"  # the `wasm-bindgen` pinned in workers/Cargo.toml

LOG = []
# Cargo's build folder: CI and shared caches set CARGO_TARGET_DIR.
TARGET = pathlib.Path(os.environ.get("CARGO_TARGET_DIR") or ROOT / "target")
# The `cargo host` binary: the test's debug build; with --first-requests, a release build, as
# `cargo install` makes it (the debug build takes 1.2 ms, not 0.3, to check and take an alert, which
# a first event delivery waits for).
CARGO_HOST = TARGET / "debug" / "cargo-host"
FRESH_STARTS = 5  # workerd restarts (through wrangler) whose first request is timed
DIRECT_STARTS = 9  # fresh starts of workerd itself per first request timed (a start is ~0.1 s)
# The example's deduplication lease in this run (HOST_DEDUPE_LEASE_MS; 60 s by default): a claim
# whose isolate was killed holds its key this long.
LEASE_SECONDS = 10
HANG_SECONDS = 15  # how long the stand-in holds a post it was told to hold


def say(line):
    print(line, flush=True)
    LOG.append(line)


def fail(message):
    say(f"FAIL: {message}")
    raise SystemExit(1)


def run(args, cwd=ROOT, env=None, check=True):
    done = subprocess.run(args, cwd=cwd, env=env, capture_output=True, text=True)
    if check and done.returncode != 0:
        fail(f"{' '.join(map(str, args))} exited {done.returncode}:\n{done.stdout}{done.stderr}")
    return done


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Process:
    """A child whose output lines are collected as they come."""

    def __init__(self, args, cwd, env):
        self.proc = subprocess.Popen(
            args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            text=True, start_new_session=True,
        )
        self.lines = []
        self.ended = False  # the output is closed: no more lines will come
        self.cond = threading.Condition()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            with self.cond:
                self.lines.append(line.rstrip("\n"))
                self.cond.notify_all()
        with self.cond:
            self.ended = True
            self.cond.notify_all()

    def wait_for(self, pattern, timeout, start=0):
        """The index and text of the first line from `start` matching `pattern`."""
        deadline = time.monotonic() + timeout
        regex = re.compile(pattern)
        with self.cond:
            while True:
                for i in range(start, len(self.lines)):
                    if regex.search(self.lines[i]):
                        return i, self.lines[i]
                left = deadline - time.monotonic()
                if left <= 0 or self.ended:
                    tail = "\n".join(self.lines[-40:])
                    fail(f"no line matching {pattern!r} within {timeout} s:\n{tail}")
                self.cond.wait(min(left, 0.5))

    def matching(self, pattern):
        regex = re.compile(pattern)
        with self.cond:
            return [l for l in self.lines if regex.search(l)]

    def stop(self):
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)

    def kill(self):
        """SIGKILL to the whole process group (wrangler and its workerd): no shutdown at all."""
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait(10)


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def cargo_host(args, server):
    host = CARGO_HOST
    done = subprocess.run(
        [host, *args, "--server", server, "--manifest", EXAMPLE, "--color", "never"],
        cwd=ROOT, capture_output=True, text=True,
    )
    for line in (done.stdout + done.stderr).rstrip().splitlines():
        say(f"    {line}")
    return done
