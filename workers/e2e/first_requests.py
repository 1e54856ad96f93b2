"""Step 8: workerd started directly, without wrangler, and the first requests of fresh isolates
timed, with the budget the run fails above."""

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

    def __init__(self, port, modules, bindings=None, storage="disk", state=None, eager=False,
                 v8flags=()):
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
            "v8flags": (f"\n  v8Flags = {json.dumps(flags)}," if (flags := [
                *(["--no-wasm-lazy-compilation"] if eager else []), *v8flags]) else ""),
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
        run([common.CARGO_HOST, *args, "--server", self.url, "--manifest", EXAMPLE,
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


# The first requests --compiled profiles, each in a fresh workerd of its own.
COMPILED_REQUESTS = ["health", "tool", "event"]


def compiled_profile(port, exports, stand_in, folder):
    """--compiled: what V8 compiles as workerd loads the example and on each first request.

    One fresh workerd for each of COMPILED_REQUESTS, run with V8's `--perf-basic-prof`, which
    appends every piece of code V8 makes (address, size, name) to /tmp/perf-PID.map as it makes
    it. The map as it stands when the socket opens is what loading compiled; what it gains until
    the answer (and 0.3 s after, for work under `ctx.wait_until`) is the request's. Both are kept
    in `folder` (NAME.load, NAME.request) and summed up: WebAssembly functions (Liftoff's code;
    the module must be built with its names, as `worker-build` leaves it), machine code bytes, the
    largest functions of each request."""
    folder.mkdir(parents=True, exist_ok=True)
    bindings = {k: exports[k] for k in ["HOST_JWKS_URL", "HOST_ISSUER", "HOST_SIGNING_SECRET"]}
    bindings["HOST_EVENT_POST_URL"] = stand_in.upstream
    bindings["HOST_JWKS"] = http_get(exports["HOST_JWKS_URL"])[1]
    built = EXAMPLE / "build"
    example = {"index.js": ("esModule", (built / "index.js").read_bytes()),
               "index_bg.wasm": ("wasm", (built / "index_bg.wasm").read_bytes())}
    requests = {name: request for name, _, _, _, request, _ in FIRST_REQUESTS}
    capture = Capture()
    say(f"what V8 compiles, from its --perf-basic-prof maps (kept in {folder}):")
    try:
        for name in COMPILED_REQUESTS:
            sent = requests[name](capture)
            workerd = Workerd(port, example, bindings, v8flags=["--perf-basic-prof"])
            try:
                maps = set(pathlib.Path("/tmp").glob("perf-*.map"))
                loaded = {m: m.stat().st_size for m in maps}
                status, took, _ = first_request(port, sent)
                time.sleep(0.3)
            finally:
                workerd.stop()
            # workerd's own process: the map that grew while it loaded the worker.
            grown = [m for m in pathlib.Path("/tmp").glob("perf-*.map")
                     if m not in loaded or m.stat().st_size > loaded[m]]
            if len(grown) != 1:
                fail(f"{name}: expected one V8 perf map to grow, found {len(grown)}")
            data = grown[0].read_bytes()
            grown[0].unlink()
            at = loaded.get(grown[0], 0)
            (folder / f"{name}.load").write_bytes(data[:at])
            (folder / f"{name}.request").write_bytes(data[at:])
            if name == COMPILED_REQUESTS[0]:
                count, size, _ = compiled_wasm(data[:at])
                say(f"    as the example loads: {count} functions, {size / 1024:.0f} KiB of "
                    "machine code")
            count, size, largest = compiled_wasm(data[at:])
            say(f"    {name} (status {status}, {took:.1f} ms): {count} functions, "
                f"{size / 1024:.0f} KiB; the largest:")
            for bytes_, function in largest[:8]:
                say(f"        {bytes_ / 1024:5.1f} KiB  {function[:140]}")
    finally:
        capture.stop()


def compiled_wasm(map_text):
    """The WebAssembly functions a part of a perf map lists: how many, their machine code's bytes,
    and each (bytes, name), largest first."""
    functions = []
    for line in map_text.decode(errors="replace").splitlines():
        parts = line.split(" ", 2)
        if len(parts) == 3 and parts[2].endswith("-liftoff"):
            functions.append((int(parts[1], 16), parts[2].removeprefix("JS:")))
    functions.sort(reverse=True)
    return len(functions), sum(size for size, _ in functions), functions


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
