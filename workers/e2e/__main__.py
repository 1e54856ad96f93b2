#!/usr/bin/env python3
"""Runs the Workers example in the real Workers runtime, locally, and drives it as the host would.

    python3 workers/e2e [--record FILE] [--first-requests] [--compiled DIR] [--prepare]

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
   the worker's signed `release.noted` alert accepted by the local host exactly once. Then one
   body, one verdict: 60,000 tags (about 800 KB) under the `count-tags` tool's pattern, valid and
   with one bad tag last, each sent three times: 200 every time, and 422 naming the bad tag every
   time.
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

With --compiled DIR it builds the worker keeping its functions' names (worker-build alone, without
the build command's stripping) and lists what V8 compiles as workerd loads the example and on a
first health check, tool call and event delivery, each in a fresh workerd run with V8's
`--perf-basic-prof` (the maps kept in DIR): the figures BENCHMARKS.md gives for the compiling.

With --prepare it only installs the tools and builds the worker (CI does that in the background
while its other steps run), then exits. With --first-requests it builds the worker as wrangler
does and runs step 8 alone (under a minute once built), with `cargo host` built in release, as
`cargo install` builds it: the figures BENCHMARKS.md gives.

The parts: `common.py` (paths, pinned versions, running programs), `tools.py` (step 1),
`host.py` (the stand-in host and deliveries), `scenarios.py` (steps 2 to 7, one function each)
and `first_requests.py` (step 8).

Exits non-zero at the first check that fails. Needs cargo, the wasm32-unknown-unknown target,
clang (for ring), node and npm; about 10 minutes the first time on 2 cores, 2 after.
"""

import argparse

import common
import first_requests
import scenarios
import tools
from common import LOG, TARGET, free_port, run, say


def main():
    parser = argparse.ArgumentParser(prog="python3 workers/e2e")
    parser.add_argument("--record", type=common.pathlib.Path)
    parser.add_argument("--prepare", action="store_true",
                        help="only install the tools and build the worker, then exit")
    parser.add_argument("--first-requests", action="store_true",
                        help="only build the worker and time its first requests (step 8)")
    parser.add_argument("--compiled", type=common.pathlib.Path, metavar="DIR",
                        help="only build the worker with its names and list what V8 compiles as "
                             "it loads and on its first requests (maps kept in DIR)")
    args = parser.parse_args()
    if args.prepare:
        tools.prepare()
        return

    tools.install_tools()
    if args.first_requests or args.compiled:
        say("building cargo-host (release) ...")
        run(["cargo", "build", "-q", "--release", "-p", "host-cli", "--bin", "cargo-host"])
        common.CARGO_HOST = TARGET / "release" / "cargo-host"
    else:
        say("building cargo-host ...")
        run(["cargo", "build", "-q", "-p", "host-cli"])

    e2e = scenarios.Run(tools.tool_env())
    try:
        scenarios.local_host(e2e)
        if args.compiled:
            scenarios.build_for_first_requests(e2e, names=True)
            first_requests.compiled_profile(free_port(), e2e.exports, e2e.stand_in, args.compiled)
            say("PASS")
            return
        if args.first_requests:
            scenarios.build_for_first_requests(e2e)
            first_requests.time_first_requests(free_port(), e2e.exports, e2e.stand_in)
            say("PASS")
            return
        for step in [scenarios.serve_and_call, scenarios.pattern_verdicts,
                     scenarios.concurrent_deliveries,
                     scenarios.outbox_alarm, scenarios.store_contracts, scenarios.restarts,
                     scenarios.killed_claim]:
            step(e2e)
        first_requests.time_first_requests(e2e.port, e2e.exports, e2e.stand_in)
        say("PASS")
    finally:
        e2e.close()
        if args.record:
            args.record.write_text("\n".join(LOG) + "\n")


if __name__ == "__main__":
    main()
