#!/usr/bin/env python3
"""Benchmark: what the Workers warm-up's signature checks cost as the module loads.

`Handler::warm` checks one refused token per algorithm of the keys held, with a signature that
reaches the verification's last comparison, so that V8 compiles the verification before the first
call rather than on it. That moves the compiling to the load and adds one verification's run
there. This builds scripts/warm-verify-cost (the three verifications, as the example worker is
built: wasm32, opt-level "z", LTO) and times them in node's V8 with its baseline compiler alone
(Liftoff, functions compiled on first call, no tier-up: how workerd runs a function on its first
calls), in fresh node processes:

    python3 scripts/warm_verify_cost.py [processes]

For each algorithm: the first check (compiling and running it), the second (running it), medians
over the processes (default 9). Needs the wasm32-unknown-unknown target, clang (for ring) and node.
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CRATE = os.path.join(ROOT, "scripts", "warm-verify-cost")
TARGET = os.path.join(ROOT, "target", "warm-verify-cost")
ALGORITHMS = ["ed25519", "es256", "rs256"]

RUNNER = """
import fs from "fs";
const module = new WebAssembly.Module(fs.readFileSync(process.argv[2]));
// The imports ring's randomness would use: never called by a verification.
const imports = {};
for (const i of WebAssembly.Module.imports(module)) {
  (imports[i.module] ??= {})[i.name] = () => { throw new Error(`${i.name} called`); };
}
const exports = new WebAssembly.Instance(module, imports).exports;
const times = {};
for (const name of %s) {
  const ms = [];
  for (let i = 0; i < 2; i++) {
    const start = performance.now();
    if (exports[name](1) !== 0) throw new Error(`${name}: a warm-up signature verified`);
    ms.push(performance.now() - start);
  }
  times[name] = ms;
}
console.log(JSON.stringify(times));
"""


def main():
    processes = int(sys.argv[1]) if len(sys.argv) > 1 else 9
    subprocess.run(["cargo", "build", "--quiet", "--release", "--target", "wasm32-unknown-unknown"],
                   cwd=CRATE, env=dict(os.environ, CARGO_TARGET_DIR=TARGET), check=True)
    wasm = os.path.join(TARGET, "wasm32-unknown-unknown", "release", "warm_verify_cost.wasm")
    with tempfile.NamedTemporaryFile("w", suffix=".mjs", delete=False) as runner:
        runner.write(RUNNER % ALGORITHMS)
    runs = []
    try:
        for _ in range(processes):
            out = subprocess.run(
                ["node", "--wasm-lazy-compilation", "--liftoff", "--no-wasm-tier-up",
                 runner.name, wasm], capture_output=True, text=True, check=True)
            runs.append(json.loads(out.stdout))
    finally:
        os.unlink(runner.name)
    print(f"{os.path.getsize(wasm)} bytes of wasm; medians of {processes} node processes "
          "(Liftoff only, compiled on first call):")
    for name in ALGORITHMS:
        first = statistics.median(r[name][0] for r in runs)
        second = statistics.median(r[name][1] for r in runs)
        print(f"  {name}: first check {first:.2f} ms (compiling and running), "
              f"second {second:.2f} ms (running)")


if __name__ == "__main__":
    main()
