#!/usr/bin/env python3
"""Runs the Workers example in the real Workers runtime, locally, and drives it as the host would.

    python3 scripts/workers_e2e.py [--record FILE]

What it does, from the repository root:

1. Installs pinned copies of worker-build and wasm-bindgen-cli under workers/.tools (cargo), and
   wrangler (which brings workerd, the Workers runtime) and binaryen (wasm-opt) under
   workers/example/node_modules (npm), unless they are there already.
2. Starts `cargo host dev`, the local host: it serves the development key set and checks the
   events the worker posts (signature, declared name, payload schema, `why`).
3. Writes workers/example/.dev.vars pointing the worker at that local host, and starts
   `wrangler dev`, which builds the worker with worker-build (release, wasm-opt) and serves it in
   workerd.
4. Calls it: health; the tool with a valid token (200) and with a forged one (401); the approved
   action; `release.shipped` delivered four times with fresh event ids (204 each, processed once);
   the worker's signed `release.noted` alert accepted by the local host exactly once; then
   `cargo host check`.
5. Prints the optimised wasm size and the first request's time, and with --record writes the
   whole log to FILE.

Exits non-zero at the first check that fails. Needs cargo, the wasm32-unknown-unknown target,
clang (for ring), node and npm; about 10 minutes the first time on 2 cores, 2 after.
"""

import argparse
import gzip
import os
import pathlib
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request

ROOT = pathlib.Path(__file__).resolve().parent.parent
WORKERS = ROOT / "workers"
EXAMPLE = WORKERS / "example"
TOOLS = WORKERS / ".tools"
WORKER_BUILD = "0.8.7"
WASM_BINDGEN = "0.2.130"  # the `wasm-bindgen` pinned in workers/Cargo.toml

LOG = []


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


def install_tools():
    bins = TOOLS / "bin"
    if not (bins / "worker-build").exists():
        say(f"installing worker-build {WORKER_BUILD} ...")
        run(["cargo", "install", "--locked", "--root", TOOLS, "worker-build", "--version", WORKER_BUILD])
    if not (bins / "wasm-bindgen").exists():
        say(f"installing wasm-bindgen-cli {WASM_BINDGEN} ...")
        # Not --locked: its lock file names a webpki-roots release the registry no longer serves.
        run(["cargo", "install", "--root", TOOLS, "wasm-bindgen-cli", "--version", WASM_BINDGEN])
    if not (EXAMPLE / "node_modules" / ".bin" / "wrangler").exists():
        say("installing wrangler and binaryen (npm) ...")
        run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXAMPLE)
    run(["rustup", "target", "add", "wasm32-unknown-unknown"])


def http_get(url, timeout=10):
    with urllib.request.urlopen(url, timeout=timeout) as r:
        return r.status, r.read().decode()


def cargo_host(args, server):
    host = ROOT / "target" / "debug" / "cargo-host"
    done = subprocess.run(
        [host, *args, "--server", server, "--manifest", EXAMPLE, "--color", "never"],
        cwd=ROOT, capture_output=True, text=True,
    )
    for line in (done.stdout + done.stderr).rstrip().splitlines():
        say(f"    {line}")
    return done


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", type=pathlib.Path)
    args = parser.parse_args()

    install_tools()
    say("building cargo-host ...")
    run(["cargo", "build", "-q", "-p", "host-cli"])

    env = dict(os.environ)
    env["PATH"] = f"{TOOLS / 'bin'}:{EXAMPLE / 'node_modules' / '.bin'}:{env['PATH']}"
    env["WASM_BINDGEN_BIN"] = str(TOOLS / "bin" / "wasm-bindgen")
    env["WASM_OPT_BIN"] = str(EXAMPLE / "node_modules" / ".bin" / "wasm-opt")
    env["NO_COLOR"] = "1"
    env["WRANGLER_SEND_METRICS"] = "false"
    env["CI"] = "1"

    dev = Process([ROOT / "target" / "debug" / "cargo-host", "dev", "--listen", "127.0.0.1:0",
                   "--manifest", EXAMPLE, "--color", "never"], ROOT, env)
    worker = None
    try:
        dev.wait_for(r"^local host listening on http://", 30)
        dev.wait_for(r"^export HOST_SIGNING_SECRET=", 10)
        exports = dict(
            l.split(" ", 1)[1].split("=", 1) for l in dev.matching(r"^export ")
        )
        (EXAMPLE / ".dev.vars").write_text(
            "".join(f'{k}="{exports[k]}"\n' for k in
                    ["HOST_JWKS_URL", "HOST_ISSUER", "HOST_EVENT_POST_URL", "HOST_SIGNING_SECRET"])
        )
        say(f"local host at {exports['HOST_JWKS_URL'].rsplit('/.well-known', 1)[0]}")

        port = free_port()
        server = f"http://127.0.0.1:{port}"
        say("wrangler dev: building the worker (worker-build --release) and starting workerd ...")
        started = time.monotonic()
        worker = Process(["wrangler", "dev", "--ip", "127.0.0.1", "--port", str(port),
                          "--log-level", "info"], EXAMPLE, env)
        worker.wait_for(r"Ready on http://", 900)
        ready = time.monotonic()
        say(f"workerd ready after {ready - started:.1f} s (build included)")

        wasm = next((EXAMPLE / "build").rglob("*.wasm"))
        raw = wasm.stat().st_size
        packed = len(gzip.compress(wasm.read_bytes(), 9))
        say(f"wasm: {wasm.relative_to(EXAMPLE)} {raw / 1024:.0f} KiB, {packed / 1024:.0f} KiB gzipped")

        t0 = time.monotonic()
        status, body = http_get(f"{server}/host/health")
        first = (time.monotonic() - t0) * 1000
        say(f"first request: GET /host/health -> {status} in {first:.0f} ms: {body}")
        if status != 200 or '"status":"ok"' not in body:
            fail("health is not ok")
        t0 = time.monotonic()
        http_get(f"{server}/host/health")
        say(f"second request: {(time.monotonic() - t0) * 1000:.0f} ms")

        say("tool call with a development token (the key set fetched by the worker over HTTP):")
        done = cargo_host(["call", "tool", "latest-release"], server)
        if done.returncode != 0 or not done.stdout.startswith("200 "):
            fail("the tool call was not answered 200")

        say("tool call with a forged token:")
        request = urllib.request.Request(
            f"{server}/host/tools/latest-release", method="POST",
            data=b'{"input":{}}',
            headers={"Authorization": "Bearer eyJhbGciOiJFZERTQSJ9.e30.AAAA",
                     "Content-Type": "application/json"})
        try:
            urllib.request.urlopen(request, timeout=10)
            fail("a forged token was accepted")
        except urllib.error.HTTPError as e:
            body = e.read().decode()
            say(f"    {e.code} {body}")
            if e.code != 401:
                fail("a forged token did not get 401")

        say("approved action:")
        done = cargo_host(["call", "action", "add-note", "--input", '{"text": "Faster sync"}'], server)
        if done.returncode != 0:
            fail("the action failed")

        say("release.shipped delivered four times, each with a fresh event id:")
        done = cargo_host(["trigger", "release.shipped", "--retry", "--time-scale", "1000"], server)
        attempts = [l for l in done.stdout.splitlines() if l.startswith("attempt ")]
        if len(attempts) != 4 or not all("-> 204" in a for a in attempts):
            fail("every attempt must be answered 204")
        done = cargo_host(["call", "tool", "latest-release"], server)
        if '"1 releases seen' not in done.stdout:
            fail("the release was not processed exactly once")

        time.sleep(1.0)
        accepted = dev.matching(r"accepted release\.noted \(alert\)")
        rejected = dev.matching(r"rejected ")
        say(f"local host: {len(accepted)} release.noted accepted, {len(rejected)} rejected")
        for line in accepted + rejected:
            say(f"    {line}")
        if len(accepted) != 1 or rejected:
            fail("the worker's signed alert must be accepted once")

        say("publish-time checks:")
        done = cargo_host(["check"], server)
        if done.returncode != 0:
            fail("cargo host check failed")
        say("PASS")
    finally:
        if worker:
            worker.stop()
        dev.stop()
        if args.record:
            args.record.write_text("\n".join(LOG) + "\n")


if __name__ == "__main__":
    main()
