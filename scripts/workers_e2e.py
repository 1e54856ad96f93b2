#!/usr/bin/env python3
"""Runs the Workers example in the real Workers runtime, locally, and drives it as the host would.

    python3 scripts/workers_e2e.py [--record FILE] [--first-requests]

What it does, from the repository root:

1. Installs pinned copies of worker-build and wasm-bindgen-cli under workers/.tools (cargo; or
   under $WORKERS_TOOLS), and
   wrangler (which brings workerd, the Workers runtime) and binaryen (wasm-opt) under
   workers/example/node_modules (npm), unless they are there already.
2. Starts `cargo host dev`, the local host: it serves the development key set and checks the
   events the worker posts (signature, declared name, payload schema, `why`). The worker posts
   through a stand-in in front of it, which counts every post by `webhook-id` and can refuse an
   event's first post with a 503.
3. Writes workers/example/.dev.vars pointing the worker at them, and starts `wrangler dev`
   (state persisted to a fresh folder), which builds the worker with worker-build (release,
   wasm-opt) and serves it in workerd.
4. Calls it: health; the tool with a valid token (200) and with a forged one (401); the approved
   action; `release.shipped` delivered four times with fresh event ids (204 each, processed once);
   the worker's signed `release.noted` alert accepted by the local host exactly once.
5. Deduplication in Durable Objects: one release delivered by 8 concurrent requests, then 4
   more one after another (each its own `X-Host-Event-Id`): every one answered 2xx, the handler's
   effect (its alert) posted once.
6. The outbox's alarm: the stand-in refuses a new release's alert once (503); with no further
   request to the worker, the `HostOutbox` alarm posts it again and the local host accepts it.
   Then the SDK's store contracts (`host_runtime::testing::contract`), run inside workerd by the
   worker's `/__store-contracts` route (served because .dev.vars sets `HOST_STORE_CONTRACTS`)
   against a fresh `HostOutbox` object, the `HostDedupe` objects, and deduplication records kept in
   a fresh `HostOutbox` object; and a claim in a fresh `HostOutbox` object has the object's alarm
   set for when its record ends, half a second later (the object sets it after its answer).
7. A restart: workerd stopped and started on the same persisted state, several times, each
   first request timed; the release of step 5 delivered again is still processed once. Then
   `cargo host check`. Then a claim whose isolate died: a delivery's handler is left waiting on
   its alert's post (held by the stand-in), workerd is killed with SIGKILL and started again, and
   the same release delivered again waits for the dead attempt's lease (10 s here) to end, then
   runs; the alert the killed isolate was posting (never stored: a send in a delivery posts
   first) is then taken by the local host, sent again by that run or by the outbox's alarm.
8. workerd started directly, without wrangler (its local proxy adds tens of milliseconds to every
   first request), from a config written for the built modules. Each first request is timed from
   Python (connecting included) as the very first request of its own fresh workerd, several
   starts each, taken in turn: a JavaScript worker that only answers "ok" (the floor), then the
   example's `GET /host/health`, a tool call and a `release.shipped` delivery, as `cargo host
   call` and `cargo host trigger` send them (fresh tokens and event ids). The example gets the
   local host's key set as a copy (HOST_JWKS), and in other starts none (fetched on the first
   call); a copy without the token's key must still answer 200 (the key fetched at once). A token
   with a forged signature, starts with the objects' storage in memory and starts that find the
   outbox object already on disk (as an earlier delivery left it) tell the parts apart,
   and traced starts (a JavaScript module wrapped around the example's) time each request it
   makes to its Durable Objects and the local host. Fails when the median first tool call or
   first event delivery is over its budget (FIRST_CALL_BUDGET_MS, several times the 20 ms
   target, so that a busy machine does not fail it).
9. Prints the optimised wasm size and the first requests' times and parts, and with --record
   writes the whole log to FILE: a path in the build folder, such as target/workers-e2e.log (run
   logs are not kept in the repository).

With --prepare it only installs the tools and builds the worker (CI does that in the background
while its other steps run), then exits. With --first-requests it builds the worker as wrangler
does and runs step 8 alone (under a minute once built), with `cargo host` built in release, as
`cargo install` builds it: the figures BENCHMARKS.md gives.

Exits non-zero at the first check that fails. Needs cargo, the wasm32-unknown-unknown target,
clang (for ring), node and npm; about 10 minutes the first time on 2 cores, 2 after.
"""

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

ROOT = pathlib.Path(__file__).resolve().parent.parent
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


class StandIn:
    """The event endpoint the worker posts to: forwards each post to the local host, counting them
    by `webhook-id`, and answers 503 to the first post of an id containing a marker in `refuse`,
    or holds the first post of one with a marker in `hang` for HANG_SECONDS before answering 503."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.posts = {}  # webhook-id -> [status answered, ...]
        self.refuse = set()
        self.hang = set()
        self.lock = threading.Lock()
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                event_id = self.headers.get("webhook-id", "")
                with stand_in.lock:
                    seen = stand_in.posts.setdefault(event_id, [])
                    refuse = not seen and any(m in event_id for m in stand_in.refuse)
                    hang = not seen and any(m in event_id for m in stand_in.hang)
                if hang:
                    time.sleep(HANG_SECONDS)
                    status, answer = 503, b'{"error":"held, then refused, by the e2e stand-in"}'
                elif refuse:
                    status, answer = 503, b'{"error":"refused once by the e2e stand-in"}'
                else:
                    forward = urllib.request.Request(
                        stand_in.upstream, data=body, method="POST",
                        headers={k: v for k, v in self.headers.items()
                                 if k.lower().startswith("webhook-") or k.lower() == "content-type"})
                    try:
                        with urllib.request.urlopen(forward, timeout=10) as r:
                            status, answer = r.status, r.read()
                    except urllib.error.HTTPError as e:
                        status, answer = e.code, e.read()
                with stand_in.lock:
                    seen.append(status)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:
                    pass  # the worker is gone (killed while it waited on a held post)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def arrived(self, marker):
        """How many event ids containing `marker` have been posted, answered or not."""
        with self.lock:
            return sum(marker in i for i in self.posts)

    def statuses(self, marker):
        """The statuses answered to the posts of the ids containing `marker`."""
        with self.lock:
            return [s for i, answered in self.posts.items() if marker in i for s in answered]


def release_payload(release_id):
    return json.dumps({
        "projectId": "prj_dev_1", "platform": "ios", "appId": "com.example.edge",
        "version": "3.1.0", "shippedAt": "2026-11-25T09:00:00Z", "build": None,
        "releaseId": release_id,
    })


def deliver(server, payload):
    """Delivers `release.shipped` once (its own event id); the `cargo host trigger` process."""
    return subprocess.Popen(
        [CARGO_HOST, "trigger", "release.shipped", "--payload", payload,
         "--server", server, "--manifest", EXAMPLE, "--color", "never"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def delivered_ok(proc):
    out, _ = proc.communicate(timeout=60)
    lines = [l for l in out.splitlines() if l.startswith("attempt ")]
    return proc.returncode == 0 and lines and "-> 20" in lines[-1], out.strip()


def tool_env():
    """The environment worker-build and wrangler run in: the pinned tools first on PATH."""
    env = dict(os.environ)
    env["PATH"] = f"{TOOLS / 'bin'}:{EXAMPLE / 'node_modules' / '.bin'}:{env['PATH']}"
    env["WASM_BINDGEN_BIN"] = str(TOOLS / "bin" / "wasm-bindgen")
    env["WASM_OPT_BIN"] = str(EXAMPLE / "node_modules" / ".bin" / "wasm-opt")
    env["NO_COLOR"] = "1"
    env["WRANGLER_SEND_METRICS"] = "false"
    env["CI"] = "1"
    return env


def install_tools():
    bins = TOOLS / "bin"
    # Both tools build in one folder of their own (they share many dependencies), so this can run
    # beside builds in the main target folder without waiting on its lock; removed once installed.
    build = dict(os.environ, CARGO_TARGET_DIR=str(TOOLS / "build"))
    if not (bins / "worker-build").exists():
        say(f"installing worker-build {WORKER_BUILD} ...")
        # Debug builds: they compile in half the time, and their work (a shim, reading and writing
        # one wasm module) takes seconds either way.
        # Only the binary used: each debug binary linked is seconds of CI and ~130 MB of disk.
        run(["cargo", "install", "--debug", "--locked", "--root", TOOLS, "worker-build",
             "--version", WORKER_BUILD, "--bin", "worker-build"], env=build)
    if not (bins / "wasm-bindgen").exists():
        say(f"installing wasm-bindgen-cli {WASM_BINDGEN} ...")
        # Not --locked: its lock file names a webpki-roots release the registry no longer serves.
        run(["cargo", "install", "--debug", "--root", TOOLS, "wasm-bindgen-cli",
             "--version", WASM_BINDGEN, "--bin", "wasm-bindgen"], env=build)
    shutil.rmtree(TOOLS / "build", ignore_errors=True)
    if not (EXAMPLE / "node_modules" / ".bin" / "wrangler").exists():
        say("installing wrangler and binaryen (npm) ...")
        run(["npm", "ci", "--no-audit", "--no-fund"], cwd=EXAMPLE)
    run(["rustup", "target", "add", "wasm32-unknown-unknown"])


def prepare():
    """Installs the tools and builds the worker (release, wasm32) without running anything: CI
    does this in the background, at low priority, while its other steps run. `wrangler dev`'s
    own build then finds the crate built."""
    started = time.monotonic()
    install_tools()
    say(f"tools installed after {time.monotonic() - started:.0f} s; building the worker ...")
    run(["worker-build", "--release"], cwd=EXAMPLE, env=tool_env())
    say(f"prepared in {time.monotonic() - started:.0f} s")


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


def main():
    global CARGO_HOST
    parser = argparse.ArgumentParser()
    parser.add_argument("--record", type=pathlib.Path)
    parser.add_argument("--prepare", action="store_true",
                        help="only install the tools and build the worker, then exit")
    parser.add_argument("--first-requests", action="store_true",
                        help="only build the worker and time its first requests (step 8)")
    args = parser.parse_args()
    if args.prepare:
        prepare()
        return

    install_tools()
    if args.first_requests:
        say("building cargo-host (release) ...")
        run(["cargo", "build", "-q", "--release", "-p", "host-cli", "--bin", "cargo-host"])
        CARGO_HOST = TARGET / "release" / "cargo-host"
    else:
        say("building cargo-host ...")
        run(["cargo", "build", "-q", "-p", "host-cli"])

    env = tool_env()

    dev = Process([CARGO_HOST, "dev", "--listen", "127.0.0.1:0",
                   "--manifest", EXAMPLE, "--color", "never"], ROOT, env)
    worker = None
    persist = None
    try:
        dev.wait_for(r"^local host listening on http://", 30)
        dev.wait_for(r"^export HOST_SIGNING_SECRET=", 10)
        exports = dict(
            l.split(" ", 1)[1].split("=", 1) for l in dev.matching(r"^export ")
        )
        stand_in = StandIn(exports["HOST_EVENT_POST_URL"])
        exports["HOST_EVENT_POST_URL"] = stand_in.url
        (EXAMPLE / ".dev.vars").write_text(
            "".join(f'{k}="{exports[k]}"\n' for k in
                    ["HOST_JWKS_URL", "HOST_ISSUER", "HOST_EVENT_POST_URL", "HOST_SIGNING_SECRET"])
            + f'HOST_DEDUPE_LEASE_MS="{LEASE_SECONDS * 1000}"\n'
            + 'HOST_STORE_CONTRACTS="1"\n'
        )
        say(f"local host at {exports['HOST_JWKS_URL'].rsplit('/.well-known', 1)[0]}")
        if args.first_requests:
            say("building the worker (wrangler.toml's build command) ...")
            build = re.search(r'(?m)^command = "(.*)"$', (EXAMPLE / "wrangler.toml").read_text())
            run(["sh", "-c", build.group(1)], cwd=EXAMPLE, env=env)
            time_first_requests(free_port(), exports, stand_in)
            say("PASS")
            return

        port = free_port()
        server = f"http://127.0.0.1:{port}"
        say("wrangler dev: building the worker (worker-build --release) and starting workerd ...")
        started = time.monotonic()
        persist = tempfile.mkdtemp(prefix="workers-e2e-state-")
        worker = Process(["wrangler", "dev", "--ip", "127.0.0.1", "--port", str(port),
                          "--persist-to", persist, "--log-level", "info"], EXAMPLE, env)
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

        release = f"rel_conc_{uuid.uuid4().hex[:12]}"
        payload = release_payload(release)
        say(f"one release ({release}) delivered by 8 concurrent requests, then 4 in turn:")
        t0 = time.monotonic()
        results = [delivered_ok(p) for p in [deliver(server, payload) for _ in range(8)]]
        say(f"    8 concurrent deliveries answered in {time.monotonic() - t0:.1f} s: "
            f"{sum(ok for ok, _ in results)} with 2xx")
        for ok, out in results:
            if not ok:
                fail(f"a concurrent delivery was not answered 2xx:\n{out}")
        for n in range(4):
            ok, out = delivered_ok(deliver(server, payload))
            say(f"    in turn {n + 1}: {out.splitlines()[-1] if out else '(no output)'}")
            if not ok:
                fail("a repeated delivery was not answered 2xx")
        posts = stand_in.statuses(release)
        say(f"    the handler's alert for {release} posted {len(posts)} time(s): {posts}")
        if len(posts) != 1:
            fail("12 deliveries of one release must run the handler once")

        outboxed = f"rel_outbox_{uuid.uuid4().hex[:12]}"
        stand_in.refuse.add(outboxed)
        say(f"the outbox's alarm: the alert of {outboxed} refused once (503), then left alone:")
        ok, out = delivered_ok(deliver(server, release_payload(outboxed)))
        if not ok:
            fail(f"the delivery was not answered 2xx:\n{out}")
        t0 = time.monotonic()
        while time.monotonic() - t0 < 60 and stand_in.statuses(outboxed)[-1:] != [202]:
            time.sleep(0.1)
        posts = stand_in.statuses(outboxed)
        say(f"    posts of its alert: {posts}, the last {time.monotonic() - t0:.1f} s after the "
            f"delivery was answered")
        for line in worker.matching(r"HostOutbox alarm"):
            say(f"    worker: {line.strip()}")
        if posts[:1] != [503] or posts[-1:] != [202]:
            fail("the refused alert must be posted again by the outbox's alarm and accepted")

        say("the SDK's store contracts, run in workerd against the Durable Objects:")
        status, body = http_get(f"{server}/__store-contracts", timeout=120)
        say(f"    {status} {body}")
        verdicts = json.loads(body) if status == 200 else {}
        for store in ["outbox", "dedupe", "dedupe_in_outbox", "dedupe_alarm"]:
            if verdicts.get(store) != "ok":
                fail(f"the Durable Object check `{store}` failed: {verdicts.get(store)}")

        say(f"restarts: workerd stopped and started {FRESH_STARTS} times on the same state "
            "(no rebuild), the first request timed:")
        worker.stop()
        config = EXAMPLE / "wrangler.restart.toml"
        config.write_text(re.sub(r"(?ms)^\[build\].*?(?=^\[)", "",
                                 (EXAMPLE / "wrangler.toml").read_text()))
        firsts = []
        for n in range(FRESH_STARTS):
            worker = Process(["wrangler", "dev", "-c", config.name, "--ip", "127.0.0.1",
                              "--port", str(port), "--persist-to", persist, "--log-level", "info"],
                             EXAMPLE, env)
            worker.wait_for(r"Ready on http://", 120)
            t0 = time.monotonic()
            status, body = http_get(f"{server}/host/health")
            firsts.append((time.monotonic() - t0) * 1000)
            if status != 200:
                fail(f"health after a restart answered {status}")
            if n == 0:
                ok, out = delivered_ok(deliver(server, payload))
                posts = stand_in.statuses(release)
                say(f"    {release} delivered again after the restart: "
                    f"{out.splitlines()[-1] if out else ''}; its alert posted {len(posts)} time(s)")
                if not ok or len(posts) != 1:
                    fail("a delivery processed before the restart must not run again")
            if n + 1 < FRESH_STARTS:
                worker.stop()
        say("    first request to a fresh workerd: " + ", ".join(f"{t:.0f}" for t in firsts)
            + f" ms; median {statistics.median(firsts):.0f} ms")

        say("publish-time checks:")
        done = cargo_host(["check"], server)
        if done.returncode != 0:
            fail("cargo host check failed")

        lost = f"rel_lease_{uuid.uuid4().hex[:12]}"
        stand_in.hang.add(lost)
        say(f"a claim whose isolate died: {lost} delivered, its alert's post held, and workerd "
            f"killed (SIGKILL) while the handler waits on it; lease {LEASE_SECONDS} s:")
        first = deliver(server, release_payload(lost))
        t0 = time.monotonic()
        while stand_in.arrived(lost) == 0:
            if time.monotonic() - t0 > 30:
                fail("the held alert was never posted")
            time.sleep(0.05)
        worker.kill()
        killed = time.monotonic()
        first.communicate(timeout=60)
        worker = Process(["wrangler", "dev", "-c", config.name, "--ip", "127.0.0.1",
                          "--port", str(port), "--persist-to", persist, "--log-level", "info"],
                         EXAMPLE, env)
        worker.wait_for(r"Ready on http://", 120)
        restarted = time.monotonic() - killed
        t0 = time.monotonic()
        ok, out = delivered_ok(deliver(server, release_payload(lost)))
        waited = time.monotonic() - t0
        say(f"    restarted {restarted:.1f} s after the kill; delivered again: "
            f"{out.splitlines()[-1] if out else '(no output)'}, answered after {waited:.1f} s")
        if not ok:
            fail("a delivery whose earlier claim's isolate died must run once the lease ends")
        # The claim outlived the killed isolate (the new delivery waited for it), then lapsed. It
        # was renewed every third of the lease until the kill, so at least two thirds were left.
        if restarted + waited < LEASE_SECONDS * 2 / 3 - 1:
            fail("the delivery ran before the dead attempt's lease ended: the claim was lost")
        # The alert the killed isolate was posting was stored under its claim first: the
        # delivery's next run finds the same event waiting (and sends nothing twice), and the
        # outbox object's alarm posts it once the dead isolate's claim ends (the example's outbox
        # lease, 15 s from the send).
        t0 = time.monotonic()
        while not any(200 <= status < 300 for status in stand_in.statuses(lost)):
            if time.monotonic() - t0 > 40:
                fail(f"the alert cut off by the kill was never taken: {stand_in.statuses(lost)}")
            time.sleep(0.1)
        say(f"    the alert cut off by the kill, taken {time.monotonic() - t0:.1f} s after the "
            f"delivery's next run was answered; posts so far: {stand_in.statuses(lost)}")
        done = cargo_host(["call", "tool", "latest-release"], server)
        if '"1 releases seen' not in done.stdout:
            fail("the handler did not run in the restarted isolate")
        worker.stop()
        worker = None
        time_first_requests(port, exports, stand_in)
        say("PASS")
    finally:
        if worker:
            worker.stop()
        (EXAMPLE / "wrangler.restart.toml").unlink(missing_ok=True)
        if persist:
            shutil.rmtree(persist, ignore_errors=True)
        dev.stop()
        if args.record:
            args.record.write_text("\n".join(LOG) + "\n")


WORKERD_CONFIG = """using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (%(v8flags)s
  services = [
    (name = "main", worker = .worker),
    (name = "state", disk = (path = "state", writable = true)),
    # The worker fetches the key set from, and posts events to, the local host on loopback.
    (name = "internet", network = (allow = ["public", "private", "local"])),
  ],
  sockets = [(name = "http", address = "127.0.0.1:%(port)d", http = (), service = "main")],
);
const worker :Workerd.Worker = (
  modules = [%(modules)s],
  compatibilityDate = "%(date)s",
  bindings = [%(bindings)s],%(objects)s
);
"""
# The example's two Durable Object classes (wrangler.toml), stored on disk as `wrangler dev` does
# (or, to tell what the disk costs, in memory).
WORKERD_OBJECTS = """
  durableObjectNamespaces = [
    (className = "HostDedupe", uniqueKey = "host-dedupe", enableSql = true),
    (className = "HostOutbox", uniqueKey = "host-outbox", enableSql = true),
  ],
  durableObjectStorage = %s,"""
STORAGE = {"disk": '(localDisk = "state")', "memory": "(inMemory = void)"}


class Workerd:
    """workerd itself, without wrangler: the worker's modules and bindings written into a config of
    its own in a fresh folder, so nothing but the runtime stands between the request and the
    worker. The socket accepting connections is the start: workerd has loaded the worker by then."""

    def __init__(self, port, modules, bindings=None, storage="disk", state=None, eager=False):
        self.folder = pathlib.Path(tempfile.mkdtemp(prefix="workers-e2e-workerd-"))
        if state is None:
            (self.folder / "state").mkdir()
        else:
            # The objects another workerd left on disk, as after a restart or a new deployment.
            shutil.copytree(state, self.folder / "state")
        entries = []
        for name, (kind, source) in modules.items():
            (self.folder / name).write_bytes(source)
            entries.append(f'(name = "{name}", {kind} = embed "{name}")')
        # Bindings: the example's settings and its objects; none for a worker given none.
        listed = []
        if bindings is not None:
            listed = ['(name = "HOST_DEDUPE", durableObjectNamespace = "HostDedupe")',
                      '(name = "HOST_OUTBOX", durableObjectNamespace = "HostOutbox")']
            listed += [f"(name = {json.dumps(k)}, text = {json.dumps(v)})"
                       for k, v in bindings.items()]
        (self.folder / "config.capnp").write_text(WORKERD_CONFIG % {
            "port": port, "modules": ", ".join(entries), "date": compatibility_date(),
            "bindings": ", ".join(listed),
            "objects": WORKERD_OBJECTS % STORAGE[storage] if bindings else "",
            # V8 compiles a WebAssembly function when it is first called; eagerly, the whole
            # module is compiled as workerd loads it, before the socket opens.
            "v8flags": '\n  v8Flags = ["--no-wasm-lazy-compilation"],' if eager else "",
        })
        self.proc = Process([EXAMPLE / "node_modules" / ".bin" / "workerd", "serve",
                             "config.capnp", "--experimental"], self.folder, None)
        deadline = time.monotonic() + 30
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                if self.proc.proc.poll() is not None or time.monotonic() > deadline:
                    self.stop()
                    fail("workerd did not start:\n" + "\n".join(self.proc.lines[-20:]))
                time.sleep(0.005)

    def stop(self):
        self.proc.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def keep_state(self, into):
        """Stops workerd and keeps the objects it stored in `into`."""
        self.proc.stop()
        shutil.copytree(self.folder / "state", into)
        shutil.rmtree(self.folder, ignore_errors=True)


def compatibility_date():
    return re.search(r'(?m)^compatibility_date = "([^"]+)"',
                     (EXAMPLE / "wrangler.toml").read_text()).group(1)


# Two JavaScript modules wrapped around the example's, for the traced starts: the first, loaded
# before the example's, times each request the example makes (its `fetch`es, and those to its
# Durable Objects, through the bindings the runtime gives every module); the second logs them, in
# order, with the runtime's clock, in one `TRACE` line per request. The example is unchanged.
TRACE_FIRST = b"""import { env } from "cloudflare:workers";
export const spans = [];
const timed = async (name, send) => {
  const start = Date.now();
  try { return await send(); } finally { spans.push(`${name}=${Date.now() - start}`); }
};
const fetchOf = globalThis.fetch;
globalThis.fetch = (input, init) =>
  timed(new URL(input.url ?? input).pathname, () => fetchOf(input, init));
const bind = (target, value) =>
  typeof value === "function" && value !== target.constructor ? value.bind(target) : value;
// A request to an object is named after its binding and the operation its JSON body names (a
// deduplication request kept in the outbox's object: `dedupe-` and its own operation).
const stub = (name, target) => new Proxy(target, { get: (t, k) =>
  k !== "fetch" ? bind(t, Reflect.get(t, k)) : async (request) => {
    const body = await request.clone().json().catch(() => ({}));
    const op = body.op === "dedupe" ? `dedupe-${body.dedupe}` : body.op ?? "?";
    return timed(`${name}:${op}`, () => t.fetch(request));
  } });
// The bindings themselves, before the example's module is loaded: it builds its handler, objects
// included, with this `env` as it loads.
for (const name of ["HOST_DEDUPE", "HOST_OUTBOX"]) {
  const namespace = env[name];
  const get = namespace.get.bind(namespace);
  namespace.get = (...args) => stub(name, get(...args));
}
"""
TRACER = b"""import { spans } from "./trace-first.mjs";
import Example from "./index.js";
export { HostDedupe, HostOutbox } from "./index.js";
export default class Traced extends Example {
  async fetch(request) {
    const start = Date.now();
    spans.length = 0;
    try {
      return await super.fetch(request);
    } finally {
      console.log(`TRACE ${spans.join(" ")} total=${Date.now() - start}`);
    }
  }
}
"""

# A key set without the development key: a copy taken before the host rotated its keys.
ROTATED_COPY = json.dumps({"keys": [{"kty": "OKP", "crv": "Ed25519", "kid": "retired",
                                     "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}]})


class Capture:
    """Takes the requests `cargo host call` and `cargo host trigger` make (a fresh token and event
    id each), answering them without looking, so that each can be sent again, byte for byte, as the
    first request of a fresh workerd and timed from Python."""

    def __init__(self):
        self.taken = []
        capture = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                headers = [(k, v) for k, v in self.headers.items()
                           if k.lower() not in ("host", "content-length", "connection")]
                capture.taken.append(("POST", self.path, headers, body))
                self.send_response(204 if self.path.endswith("/events") else 200)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self, *args):
        """The request `cargo host <args>` sends."""
        before = len(self.taken)
        run([CARGO_HOST, *args, "--server", self.url, "--manifest", EXAMPLE,
             "--color", "never"], check=False)
        if len(self.taken) != before + 1:
            fail(f"`cargo host {' '.join(args)}` sent {len(self.taken) - before} requests, not 1")
        return self.taken[-1]

    def stop(self):
        self.server.shutdown()


def forged(request):
    """`request` with the last bytes of its token's signature changed."""
    method, path, headers, body = request
    changed = []
    for name, value in headers:
        if name.lower() == "authorization":
            value = value[:-4] + ("AAAA" if not value.endswith("AAAA") else "BBBB")
        changed.append((name, value))
    return method, path, changed, body


def first_request(port, request):
    """Sends `request` on a new connection; its status, the milliseconds from sending to the whole
    answer read (connecting included), and the body."""
    method, path, headers, body = request
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        t0 = time.perf_counter()
        connection.request(method, path, body=body, headers=dict(headers))
        answer = connection.getresponse()
        data = answer.read()
        return answer.status, (time.perf_counter() - t0) * 1000, data
    finally:
        connection.close()


# The first requests timed, each in starts of its own: name, what it is, the worker ("ok", the
# example, or the example traced), whether HOST_JWKS holds a copy of the key set (and which), the
# request, and the status it must get.
FIRST_REQUESTS = [
    ("ok", 'a JavaScript worker that answers "ok" (the runtime\'s own share)', "ok", None,
     lambda c: ("GET", "/", [], None), 200),
    ("health", "GET /host/health", "example", "copy",
     lambda c: ("GET", "/host/health", [], None), 200),
    ("tool", "a tool call, key set from HOST_JWKS", "example", "copy",
     lambda c: c.take("call", "tool", "latest-release"), 200),
    ("tool-fetched", "a tool call, key set fetched (no HOST_JWKS)", "example", None,
     lambda c: c.take("call", "tool", "latest-release"), 200),
    ("tool-rotated", "a tool call signed with a key HOST_JWKS lacks (fetched at once)", "example",
     "rotated", lambda c: c.take("call", "tool", "latest-release"), 200),
    ("forged", "a tool call with a forged signature (401 once the signature is checked)",
     "example", "copy", lambda c: forged(c.take("call", "tool", "latest-release")), 401),
    ("event", "release.shipped delivered, key set from HOST_JWKS", "example", "copy",
     lambda c: c.take("trigger", "release.shipped"), 204),
    ("event-fetched", "release.shipped delivered, key set fetched (no HOST_JWKS)", "example",
     None, lambda c: c.take("trigger", "release.shipped"), 204),
    ("event-traced", "the same with HOST_JWKS, its requests to objects and hosts timed",
     "traced", "copy", lambda c: c.take("trigger", "release.shipped"), 204),
    ("event-memory", "the same with HOST_JWKS, the objects' storage in memory, not on disk",
     "example", "copy", lambda c: c.take("trigger", "release.shipped"), 204),
    ("event-kept", "the same with HOST_JWKS, the outbox object already on disk (an earlier "
     "workerd's delivery made it)", "example", "copy",
     lambda c: c.take("trigger", "release.shipped"), 204),
    ("tool-eager", "a tool call, HOST_JWKS, the module compiled as workerd loads it (not on first "
     "call)", "example", "copy", lambda c: c.take("call", "tool", "latest-release"), 200),
    ("event-eager", "release.shipped, HOST_JWKS, the module compiled as workerd loads it", "example",
     "copy", lambda c: c.take("trigger", "release.shipped"), 204),
]
# The target for the first call a host makes to a fresh worker, a tool call or an event delivery.
FIRST_CALL_TARGET_MS = 20
# What fails the run: a regression of several times, not a miss of the target. The figures against
# the target are a benchmark, measured on an idle machine (BENCHMARKS.md); in CI the other steps
# share the two cores, and with a fuzzer beside it one run measured 40 ms and 115 ms where an idle
# machine measured 12 ms and 31 ms (10 ms and 23 ms since the delivery asks one object).
FIRST_CALL_BUDGET_MS = {"tool": 100, "event": 250}


def time_first_requests(port, exports, stand_in):
    """Step 8: the first requests to workerd started directly, timed and taken apart."""
    say(f"workerd started directly (no wrangler), {DIRECT_STARTS} fresh starts for each first "
        "request timed:")
    bindings = {k: exports[k] for k in ["HOST_JWKS_URL", "HOST_ISSUER", "HOST_SIGNING_SECRET"]}
    # The alert goes to the local host itself: the stand-in's forwarding is no part of it.
    bindings["HOST_EVENT_POST_URL"] = stand_in.upstream
    key_set = http_get(exports["HOST_JWKS_URL"])[1]
    built_at_load(port, bindings)
    first_request_report(*direct_first_requests(port, bindings, key_set))


def built_at_load(port, bindings):
    """The example builds its handler as workerd loads it, before any request: started without
    HOST_JWKS_URL, it says what is missing with no request made, then answers 500 with it."""
    unset = {k: v for k, v in bindings.items() if k != "HOST_JWKS_URL"}
    built = EXAMPLE / "build"
    example = {"index.js": ("esModule", (built / "index.js").read_bytes()),
               "index_bg.wasm": ("wasm", (built / "index_bg.wasm").read_bytes())}
    workerd = Workerd(port, example, unset)
    try:
        # Before any request: fails, with workerd's output, if the line never comes.
        workerd.proc.wait_for(r"not configured: HOST_JWKS_URL is not set", 10)
        status, _, body = first_request(port, ("GET", "/host/health", [], None))
        if status != 500 or b"HOST_JWKS_URL is not set" not in body:
            fail(f"without HOST_JWKS_URL the example answered {status}: {body[:300]!r}")
    finally:
        workerd.stop()
    say("    the handler is built as workerd loads the example: without HOST_JWKS_URL it says so "
        "before any request, then answers 500")


def direct_first_requests(port, bindings, key_set):
    """First-request times in workerd started directly: DIRECT_STARTS fresh starts for each of
    FIRST_REQUESTS, taken in turn, after one round that is not counted (it warms the machine's file
    cache and the local host, which checks its first event's schema). `key_set` is the key set
    document the local host serves, the copy HOST_JWKS holds. Returns {name: [ms, ...]} and the
    traced starts' TRACE lines."""
    built = EXAMPLE / "build"
    example = {"index.js": ("esModule", (built / "index.js").read_bytes()),
               "index_bg.wasm": ("wasm", (built / "index_bg.wasm").read_bytes())}
    workers = {
        "ok": {"ok.mjs": ("esModule",
                          b'export default { async fetch() { return new Response("ok"); } };\n')},
        "example": example,
        "traced": {"tracer.mjs": ("esModule", TRACER),
                   "trace-first.mjs": ("esModule", TRACE_FIRST), **example},
    }
    copies = {None: {}, "copy": {"HOST_JWKS": key_set}, "rotated": {"HOST_JWKS": ROTATED_COPY}}
    capture = Capture()
    times = {name: [] for name, *_ in FIRST_REQUESTS}
    traces = []
    # The objects a first delivery leaves on disk, for the starts that find them there.
    kept = pathlib.Path(tempfile.mkdtemp(prefix="workers-e2e-kept-")) / "state"
    try:
        seeding = Workerd(port, example, {**bindings, **copies["copy"]})
        status, _, body = first_request(port, capture.take("trigger", "release.shipped"))
        seeding.keep_state(kept)
        if status != 204:
            fail(f"the delivery that stores the outbox object answered {status}: {body[:300]!r}")
        for n in range(DIRECT_STARTS + 1):
            for name, what, worker, copy, request, expected in FIRST_REQUESTS:
                sent = request(capture)
                given = None if worker == "ok" else {**bindings, **copies[copy]}
                storage = "memory" if name.endswith("-memory") else "disk"
                state = kept if name.endswith("-kept") else None
                workerd = Workerd(port, workers[worker], given, storage, state,
                                  eager=name.endswith("-eager"))
                try:
                    status, took, body = first_request(port, sent)
                    if status != expected:
                        fail(f"{what}: the first request to workerd answered {status}, not "
                             f"{expected}: {body[:300]!r}\n" + "\n".join(workerd.proc.lines[-20:]))
                    if worker == "traced":
                        _, line = workerd.proc.wait_for(r"TRACE ", 10)
                        if n:
                            traces.append(line.split("TRACE ", 1)[1])
                finally:
                    workerd.stop()
                if n:
                    times[name].append(took)
    finally:
        capture.stop()
        shutil.rmtree(kept.parent, ignore_errors=True)
    return times, traces


def first_request_report(times, traces):
    """Says the first-request times and what they are made of; fails when a first call is over
    its budget."""
    median = {name: statistics.median(t) for name, t in times.items()}
    for name, what, *_ in FIRST_REQUESTS:
        t = times[name]
        say(f"    {what}: median {median[name]:.1f} ms ({min(t):.1f}-{max(t):.1f}): "
            + ", ".join(f"{x:.1f}" for x in t))
    # The traced starts: each request to an object or a host, in order (milliseconds, the
    # runtime's clock, 1 ms steps).
    spans = {"claim": [], "complete": [], "post": [], "store": []}
    for trace in traces:
        items = [item.rsplit("=", 1) for item in trace.split()]
        # The deduplication requests, to a HostDedupe object or kept in the outbox's object.
        dedupe = {op: sum(float(ms) for name, ms in items
                          if name in (f"HOST_DEDUPE:{op}", f"HOST_OUTBOX:dedupe-{op}"))
                  for op in ["claim", "complete"]}
        # A trace that saw no claim did not see the objects at all, and would prove nothing below.
        if not any(name in ("HOST_DEDUPE:claim", "HOST_OUTBOX:dedupe-claim")
                   for name, _ in items):
            fail(f"a traced first event shows no deduplication claim: {trace}")
        # A send stores its event under its own claim before posting it (so an id another event
        # holds is refused before the host sees anything): one request. Its settlement is made
        # after the answer (ctx.wait_until), out of the request's time and of this trace.
        stored = [(name, float(ms)) for name, ms in items
                  if name.startswith("HOST_OUTBOX:") and not name.startswith("HOST_OUTBOX:dedupe-")]
        if [name for name, _ in stored] != ["HOST_OUTBOX:put_claimed"]:
            fail("the first event's alert was not stored under its claim in one request before "
                 f"the answer: {trace}")
        spans["store"].append(sum(ms for _, ms in stored))
        spans["claim"].append(dedupe["claim"])
        spans["complete"].append(dedupe["complete"])
        spans["post"].append(sum(float(ms) for name, ms in items if name == "/v1/events"))
    span = {name: statistics.median(v) for name, v in spans.items() if v}
    for kind in ["tool", "event"]:
        say(f"    the first {kind}, compiled on the way: {median[kind] - median[kind + '-eager']:.1f} "
            f"ms of its {median[kind]:.1f} ms (V8 compiles each WebAssembly function on its first "
            "call; the module compiled as workerd loads it saves that much)")
    say("    the first tool call, in parts (differences of medians: noise on a busy machine):")
    for part, ms in [
        ("the runtime's first request (the JavaScript worker)", median["ok"]),
        ("the example's first request (health - ok: its code compiled; the handler is built at load)",
         median["health"] - median["ok"]),
        ("the token up to its signature (forged - health)", median["forged"] - median["health"]),
        ("claims, input schema, handler, answer (tool - forged)",
         median["tool"] - median["forged"]),
        ("without HOST_JWKS: the key set fetched from the local host (tool-fetched - tool)",
         median["tool-fetched"] - median["tool"]),
    ]:
        say(f"        {part}: {ms:.1f} ms")
    if span:
        say("    the first event delivery, in parts (traced starts, medians, 1 ms clock):")
        for part, ms in [
            ("what a first tool call costs (its median)", median["tool"]),
            ("the deduplication claim: the outbox object's first request", span["claim"]),
            ("the alert stored under its claim (one request; settled after the answer)",
             span["store"]),
            ("the alert's post to the local host", span["post"]),
            ("the deduplication record (complete)", span["complete"]),
            ("the rest: the payload, the handler, the alert signed (event - all above)",
             median["event"] - median["tool"] - span["claim"] - span["store"] - span["post"]
             - span["complete"]),
        ]:
            say(f"        {part}: {ms:.1f} ms")
        say(f"        the objects' storage on disk (event - event-memory): "
            f"{median['event'] - median['event-memory']:.1f} ms")
        say(f"        of which making the outbox object's storage (event - event-kept): "
            f"{median['event'] - median['event-kept']:.1f} ms")
    for kind, budget in FIRST_CALL_BUDGET_MS.items():
        verdict = "within" if median[kind] <= FIRST_CALL_TARGET_MS else "over"
        say(f"    first {kind}: median {median[kind]:.1f} ms, {verdict} the "
            f"{FIRST_CALL_TARGET_MS} ms target; the run fails above {budget} ms")
    over = [f"the first {kind} ({median[kind]:.1f} ms) is over its {budget} ms budget"
            for kind, budget in FIRST_CALL_BUDGET_MS.items() if median[kind] > budget]
    if over:
        fail("; ".join(over))


if __name__ == "__main__":
    main()
