#!/usr/bin/env python3
"""Benchmark: a clean debug build of the guide's hello extension against a hand-written baseline.

Writes two crates under target/build-cost/ (or the folder given with --dir):

- hello: the guide's hello-extension crate, made as the guide makes it: `cargo host init` (built
  from this checkout, not timed, with `--sdk` this checkout, so the crates are path dependencies)
  writes Cargo.toml, src/config.rs and the icon; the manifest, build.rs and src/main.rs are then
  the guide's (the code blocks marked `<!-- anchor: hello-... -->` in host-runtime/docs);
- baseline: scripts/build-cost/baseline, the same tool call by hand on axum, jsonwebtoken and
  jsonschema.

Both get this repository's Cargo.lock, so they build the same versions of shared dependencies. After a
`cargo fetch` (not timed), each is built `runs` times from an empty target folder with
`cargo build` (debug, the default jobs), alternating the two; the script prints every time, the
medians, their ratio and how many crates each build compiled (the "Compiling" lines).

    python3 scripts/build_cost.py [runs] [--dir DIR] [--timings]

With `--timings`, each build is `cargo build --timings`, and after it the script prints the CPU
time of its units against the wall time, the largest units and the chain of units that ended the
build (each waiting for the one before); the last report of each crate is kept beside it as
cargo-timing.html.

Run it on an otherwise idle machine: both builds use every core.
"""
import json
import os
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def doc_files():
    """The Markdown files that hold the guide's code blocks: the README and host-runtime's docs."""
    files = [os.path.join(ROOT, "README.md")]
    for folder, _, names in os.walk(os.path.join(ROOT, "host-runtime", "docs")):
        files.extend(os.path.join(folder, n) for n in sorted(names) if n.endswith(".md"))
    return files


def doc_block(anchor):
    """The code block right after `<!-- anchor: NAME -->` in the docs; it must be there exactly once."""
    marker = f"<!-- anchor: {anchor} -->"
    found = []
    for path in doc_files():
        lines = open(path, encoding="utf-8").read().splitlines()
        for i, line in enumerate(lines):
            if line.strip() != marker:
                continue
            if i + 1 >= len(lines) or not lines[i + 1].startswith("```"):
                sys.exit(f"{path}: {marker} is not followed by a code block")
            block = []
            for body in lines[i + 2:]:
                if body.rstrip() == "```":
                    break
                block.append(body + "\n")
            found.append("".join(block))
    if len(found) != 1:
        sys.exit(f"the docs hold {marker} {len(found)} times, not once")
    return found[0]


def write_hello(dir):
    """The crate as a new user gets it: `cargo host init` (this checkout's CLI, on this checkout's
    crates), then the guide's manifest, build script and main.rs in place of the template's."""
    shutil.rmtree(dir, ignore_errors=True)
    subprocess.run(["cargo", "build", "--quiet", "-p", "host-cli"], cwd=ROOT, check=True)
    cli = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "debug", "cargo-host")
    subprocess.run(
        [cli, "host", "init", dir, "--name", "hello-extension", "--sdk", ROOT],
        check=True,
        capture_output=True,
    )
    for name, anchor in [
        ("host.extension.json", "hello-manifest"),
        ("build.rs", "hello-build-rs"),
        (os.path.join("src", "main.rs"), "hello-main-rs"),
    ]:
        with open(os.path.join(dir, name), "w") as f:
            f.write(doc_block(anchor))


def write_baseline(dir):
    shutil.copytree(os.path.join(ROOT, "scripts", "build-cost", "baseline"), dir, dirs_exist_ok=True)


def build(dir, timings=False):
    """Seconds for a clean `cargo build`, and the number of crates compiled. With `timings`, the
    build also writes cargo's timing report, and its units are summed up (see `report`)."""
    target = os.path.join(dir, "target")
    shutil.rmtree(target, ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    command = ["cargo", "build"] + (["--timings"] if timings else [])
    start = time.monotonic()
    out = subprocess.run(command, cwd=dir, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if out.returncode != 0:
        sys.exit(f"cargo build failed in {dir}:\n{out.stderr[-4000:]}")
    compiled = sum(1 for line in out.stderr.splitlines() if line.strip().startswith("Compiling "))
    if timings:
        report(dir, os.path.join(target, "cargo-timings", "cargo-timing.html"))
    return seconds, compiled


def report(dir, html):
    """Prints what a `--timings` build spent: the CPU time of all units against the wall time,
    the largest units, and the longest chain of units each waiting for the one before (what no
    number of cores would shorten). Keeps the report as DIR/cargo-timing.html."""
    text = open(html, encoding="utf-8").read()
    start = text.index("const UNIT_DATA = ") + len("const UNIT_DATA = ")
    units, _ = json.JSONDecoder().raw_decode(text[start:])
    shutil.copy(html, os.path.join(dir, "cargo-timing.html"))
    name = lambda u: f"{u['name']}{' (' + u['target'].strip() + ')' if u['target'].strip() else ''}"
    cpu = sum(u["duration"] for u in units)
    wall = max(u["start"] + u["duration"] for u in units)
    print(f"  {os.path.basename(dir)}: {len(units)} units, {cpu:.1f} s of compiling over {wall:.1f} s")
    for u in sorted(units, key=lambda u: -u["duration"])[:12]:
        print(f"    {u['duration']:5.1f} s  {name(u)}")
    # A unit starts when the last unit it waits for unblocks it (for a unit waiting on metadata
    # only, at the latest when it starts): walk back from the unit that ended the build.
    by_index = {u["i"]: u for u in units}
    unblocker = {}
    for u in units:
        for j in u.get("unblocked_units", []) + u.get("unblocked_rmeta_units", []):
            end = min(u["start"] + u["duration"], by_index[j]["start"]) if j in by_index else 0
            if j not in unblocker or end > unblocker[j][1]:
                unblocker[j] = (u["i"], end)
    chain = [max(units, key=lambda u: u["start"] + u["duration"])]
    while chain[-1]["i"] in unblocker:
        chain.append(by_index[unblocker[chain[-1]["i"]][0]])
    print("    the chain that ends the build, last first:")
    for u in chain:
        print(f"      {u['start']:5.1f} s + {u['duration']:4.1f} s  {name(u)}")


def main():
    args = sys.argv[1:]
    base = os.path.join(ROOT, "target", "build-cost")
    if "--dir" in args:
        i = args.index("--dir")
        base = args[i + 1]
        del args[i : i + 2]
    timings = "--timings" in args
    if timings:
        args.remove("--timings")
    runs = int(args[0]) if args else 3
    crates = {"hello": os.path.join(base, "hello"), "baseline": os.path.join(base, "baseline")}
    write_hello(crates["hello"])
    write_baseline(crates["baseline"])
    for dir in crates.values():
        shutil.copy(os.path.join(ROOT, "Cargo.lock"), os.path.join(dir, "Cargo.lock"))
        subprocess.run(["cargo", "fetch", "--quiet"], cwd=dir, check=True)
    times = {name: [] for name in crates}
    counts = {}
    for run in range(runs):
        for name, dir in crates.items():
            seconds, compiled = build(dir, timings)
            times[name].append(seconds)
            counts[name] = compiled
            print(f"run {run + 1}: {name:<8} {seconds:6.1f} s, {compiled} crates compiled", flush=True)
    hello, baseline = (statistics.median(times[n]) for n in ("hello", "baseline"))
    print(f"median: hello {hello:.1f} s ({counts['hello']} crates), "
          f"baseline {baseline:.1f} s ({counts['baseline']} crates), ratio {hello / baseline:.2f}")
    for dir in crates.values():
        shutil.rmtree(os.path.join(dir, "target"), ignore_errors=True)


if __name__ == "__main__":
    main()
