"""Steps 2 to 7: the example worker under `wrangler dev`, driven as the host would. Each step is a
function of one [`Run`], in the order `__main__` calls them; the run stops at the first check that
fails."""

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

import common
from common import *  # noqa: F401,F403 (paths, constants, say, fail, run, ...)
from host import StandIn, deliver, delivered_ok, release_payload


class Run:
    """What the steps share: the local host, the stand-in in front of it, the worker and its state."""

    def __init__(self, env):
        self.env = env
        self.dev = Process([common.CARGO_HOST, "dev", "--listen", "127.0.0.1:0",
                            "--manifest", EXAMPLE, "--color", "never"], ROOT, env)
        self.worker = None
        self.persist = None
        self.exports = {}
        self.stand_in = None
        self.port = None
        self.server = None
        # The release step 5 delivers, delivered again after a restart.
        self.release = None
        self.payload = None
        # wrangler.toml without its build command: restarts serve what was built.
        self.restart_config = EXAMPLE / "wrangler.restart.toml"

    def close(self):
        if self.worker:
            self.worker.stop()
        self.restart_config.unlink(missing_ok=True)
        if self.persist:
            shutil.rmtree(self.persist, ignore_errors=True)
        self.dev.stop()

    def start_worker(self, config, wait):
        """`wrangler dev` with `config` on the run's port and persisted state."""
        config_args = ["-c", config] if config else []
        self.worker = Process(["wrangler", "dev", *config_args, "--ip", "127.0.0.1",
                               "--port", str(self.port), "--persist-to", self.persist,
                               "--log-level", "info"], EXAMPLE, self.env)
        self.worker.wait_for(r"Ready on http://", wait)


def local_host(e2e):
    """Step 2 and 3's settings: `cargo host dev`'s exports, the stand-in in front of it, and
    .dev.vars pointing the worker at them."""
    e2e.dev.wait_for(r"^local host listening on http://", 30)
    e2e.dev.wait_for(r"^export HOST_SIGNING_SECRET=", 10)
    e2e.exports = dict(
        l.split(" ", 1)[1].split("=", 1) for l in e2e.dev.matching(r"^export ")
    )
    e2e.stand_in = StandIn(e2e.exports["HOST_EVENT_POST_URL"])
    e2e.exports["HOST_EVENT_POST_URL"] = e2e.stand_in.url
    (EXAMPLE / ".dev.vars").write_text(
        "".join(f'{k}="{e2e.exports[k]}"\n' for k in
                ["HOST_JWKS_URL", "HOST_ISSUER", "HOST_EVENT_POST_URL", "HOST_SIGNING_SECRET"])
        + f'HOST_DEDUPE_LEASE_MS="{LEASE_SECONDS * 1000}"\n'
        + 'HOST_STORE_CONTRACTS="1"\n'
    )
    say(f"local host at {e2e.exports['HOST_JWKS_URL'].rsplit('/.well-known', 1)[0]}")


def build_for_first_requests(e2e, names=False):
    """--first-requests: the worker built as wrangler.toml's build command builds it. With
    `names` (--compiled), worker-build alone, which keeps the functions' names the command's
    second step strips."""
    if names:
        say("building the worker (worker-build --release, names kept) ...")
        run(["worker-build", "--release"], cwd=EXAMPLE, env=e2e.env)
        return
    say("building the worker (wrangler.toml's build command) ...")
    build = re.search(r'(?m)^command = "(.*)"$', (EXAMPLE / "wrangler.toml").read_text())
    run(["sh", "-c", build.group(1)], cwd=EXAMPLE, env=e2e.env)


def serve_and_call(e2e):
    """Steps 3 and 4: `wrangler dev` builds and serves the worker; health, a tool call with a
    development token and with a forged one, the approved action, `release.shipped` delivered four
    times, and the worker's signed alert accepted once."""
    e2e.port = free_port()
    e2e.server = server = f"http://127.0.0.1:{e2e.port}"
    say("wrangler dev: building the worker (worker-build --release) and starting workerd ...")
    started = time.monotonic()
    e2e.persist = tempfile.mkdtemp(prefix="workers-e2e-state-")
    e2e.start_worker(None, 900)
    say(f"workerd ready after {time.monotonic() - started:.1f} s (build included)")

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
    accepted = e2e.dev.matching(r"accepted release\.noted \(alert\)")
    rejected = e2e.dev.matching(r"rejected ")
    say(f"local host: {len(accepted)} release.noted accepted, {len(rejected)} rejected")
    for line in accepted + rejected:
        say(f"    {line}")
    if len(accepted) != 1 or rejected:
        fail("the worker's signed alert must be accepted once")


def pattern_verdicts(e2e):
    """Step 4b: one body, one verdict. 60,000 tags (about 800 KB) under `count-tags`' pattern, each
    body sent three times: valid, answered 200 every time; with one bad tag last, answered 422 naming
    that tag every time. The Workers build's validators are generated at compile time and run
    every pattern on the linear-time engine (a pattern that could backtrack is refused when the
    worker compiles), so nothing in the verdict depends on how busy the isolate is."""
    work = pathlib.Path(tempfile.mkdtemp(prefix="workers-e2e-tags-"))
    tags = [f"v2.1.{i:05d}" for i in range(60_000)]
    bodies = {"valid": tags, "invalid": tags[:-1] + ["V2.1.BAD"]}
    for name, values in bodies.items():
        path = work / f"{name}.json"
        path.write_text(json.dumps({"tags": values}))
        say(f"count-tags, {name} body of {path.stat().st_size / 1024:.0f} KiB, three times:")
        for attempt in range(3):
            started = time.monotonic()
            done = cargo_host(["call", "tool", "count-tags", "--input", f"@{path}"], server=e2e.server)
            took = (time.monotonic() - started) * 1000
            answer = done.stdout + done.stderr
            say(f"    attempt {attempt + 1}: {took:.0f} ms")
            if name == "valid" and not (done.stdout.startswith("200 ") and "60000 tags" in answer):
                fail("the valid body was not answered 200 with its count")
            if name == "invalid" and not ("422 INPUT_INVALID" in answer
                                          and "at `/tags/59999`" in answer):
                fail("the body with one bad tag was not answered 422 naming /tags/59999")
    shutil.rmtree(work, ignore_errors=True)


def concurrent_deliveries(e2e):
    """Step 5: one release delivered by 8 concurrent requests, then 4 in turn; its handler runs
    once."""
    e2e.release = release = f"rel_conc_{uuid.uuid4().hex[:12]}"
    e2e.payload = payload = release_payload(release)
    say(f"one release ({release}) delivered by 8 concurrent requests, then 4 in turn:")
    t0 = time.monotonic()
    results = [delivered_ok(p) for p in [deliver(e2e.server, payload) for _ in range(8)]]
    say(f"    8 concurrent deliveries answered in {time.monotonic() - t0:.1f} s: "
        f"{sum(ok for ok, _ in results)} with 2xx")
    for ok, out in results:
        if not ok:
            fail(f"a concurrent delivery was not answered 2xx:\n{out}")
    for n in range(4):
        ok, out = delivered_ok(deliver(e2e.server, payload))
        say(f"    in turn {n + 1}: {out.splitlines()[-1] if out else '(no output)'}")
        if not ok:
            fail("a repeated delivery was not answered 2xx")
    posts = e2e.stand_in.statuses(release)
    say(f"    the handler's alert for {release} posted {len(posts)} time(s): {posts}")
    if len(posts) != 1:
        fail("12 deliveries of one release must run the handler once")


def outbox_alarm(e2e):
    """Step 6, first half: an alert refused once is posted again by the outbox object's alarm."""
    outboxed = f"rel_outbox_{uuid.uuid4().hex[:12]}"
    e2e.stand_in.refuse.add(outboxed)
    say(f"the outbox's alarm: the alert of {outboxed} refused once (503), then left alone:")
    ok, out = delivered_ok(deliver(e2e.server, release_payload(outboxed)))
    if not ok:
        fail(f"the delivery was not answered 2xx:\n{out}")
    t0 = time.monotonic()
    while time.monotonic() - t0 < 60 and e2e.stand_in.statuses(outboxed)[-1:] != [202]:
        time.sleep(0.1)
    posts = e2e.stand_in.statuses(outboxed)
    say(f"    posts of its alert: {posts}, the last {time.monotonic() - t0:.1f} s after the "
        f"delivery was answered")
    for line in e2e.worker.matching(r"HostOutbox alarm"):
        say(f"    worker: {line.strip()}")
    if posts[:1] != [503] or posts[-1:] != [202]:
        fail("the refused alert must be posted again by the outbox's alarm and accepted")


def store_contracts(e2e):
    """Step 6, second half: the SDK's store contracts, run inside workerd."""
    say("the SDK's store contracts, run in workerd against the Durable Objects:")
    status, body = http_get(f"{e2e.server}/__store-contracts", timeout=120)
    say(f"    {status} {body}")
    verdicts = json.loads(body) if status == 200 else {}
    for store in ["outbox", "dedupe", "dedupe_in_outbox", "dedupe_alarm"]:
        if verdicts.get(store) != "ok":
            fail(f"the Durable Object check `{store}` failed: {verdicts.get(store)}")


def restarts(e2e):
    """Step 7, first part: workerd restarted on the same state, each first request timed; the
    release of step 5 is still processed once; then `cargo host check`."""
    say(f"restarts: workerd stopped and started {FRESH_STARTS} times on the same state "
        "(no rebuild), the first request timed:")
    e2e.worker.stop()
    e2e.restart_config.write_text(re.sub(r"(?ms)^\[build\].*?(?=^\[)", "",
                                         (EXAMPLE / "wrangler.toml").read_text()))
    firsts = []
    for n in range(FRESH_STARTS):
        e2e.start_worker(e2e.restart_config.name, 120)
        t0 = time.monotonic()
        status, body = http_get(f"{e2e.server}/host/health")
        firsts.append((time.monotonic() - t0) * 1000)
        if status != 200:
            fail(f"health after a restart answered {status}")
        if n == 0:
            ok, out = delivered_ok(deliver(e2e.server, e2e.payload))
            posts = e2e.stand_in.statuses(e2e.release)
            say(f"    {e2e.release} delivered again after the restart: "
                f"{out.splitlines()[-1] if out else ''}; its alert posted {len(posts)} time(s)")
            if not ok or len(posts) != 1:
                fail("a delivery processed before the restart must not run again")
        if n + 1 < FRESH_STARTS:
            e2e.worker.stop()
    say("    first request to a fresh workerd: " + ", ".join(f"{t:.0f}" for t in firsts)
        + f" ms; median {statistics.median(firsts):.0f} ms")

    say("publish-time checks:")
    done = cargo_host(["check"], e2e.server)
    if done.returncode != 0:
        fail("cargo host check failed")


def killed_claim(e2e):
    """Step 7, last part: a claim whose isolate died (SIGKILL) holds its key until its lease ends;
    the alert the killed isolate was posting is taken afterwards."""
    lost = f"rel_lease_{uuid.uuid4().hex[:12]}"
    e2e.stand_in.hang.add(lost)
    say(f"a claim whose isolate died: {lost} delivered, its alert's post held, and workerd "
        f"killed (SIGKILL) while the handler waits on it; lease {LEASE_SECONDS} s:")
    first = deliver(e2e.server, release_payload(lost))
    t0 = time.monotonic()
    while e2e.stand_in.arrived(lost) == 0:
        if time.monotonic() - t0 > 30:
            fail("the held alert was never posted")
        time.sleep(0.05)
    e2e.worker.kill()
    killed = time.monotonic()
    first.communicate(timeout=60)
    e2e.start_worker(e2e.restart_config.name, 120)
    restarted = time.monotonic() - killed
    t0 = time.monotonic()
    ok, out = delivered_ok(deliver(e2e.server, release_payload(lost)))
    waited = time.monotonic() - t0
    say(f"    restarted {restarted:.1f} s after the kill; delivered again: "
        f"{out.splitlines()[-1] if out else '(no output)'}, answered after {waited:.1f} s")
    if not ok:
        fail("a delivery whose earlier claim's isolate died must run once the lease ends")
    # The claim outlived the killed isolate (the new delivery waited for it), then lapsed. It was
    # renewed every third of the lease until the kill, so at least two thirds were left.
    if restarted + waited < LEASE_SECONDS * 2 / 3 - 1:
        fail("the delivery ran before the dead attempt's lease ended: the claim was lost")
    # The alert the killed isolate was posting was stored under its claim first: the delivery's
    # next run finds the same event waiting (and sends nothing twice), and the outbox object's
    # alarm posts it once the dead isolate's claim ends (the example's outbox lease, 15 s from the
    # send).
    t0 = time.monotonic()
    while not any(200 <= status < 300 for status in e2e.stand_in.statuses(lost)):
        if time.monotonic() - t0 > 40:
            fail(f"the alert cut off by the kill was never taken: {e2e.stand_in.statuses(lost)}")
        time.sleep(0.1)
    say(f"    the alert cut off by the kill, taken {time.monotonic() - t0:.1f} s after the "
        f"delivery's next run was answered; posts so far: {e2e.stand_in.statuses(lost)}")
    done = cargo_host(["call", "tool", "latest-release"], e2e.server)
    if '"1 releases seen' not in done.stdout:
        fail("the handler did not run in the restarted isolate")
    e2e.worker.stop()
    e2e.worker = None
