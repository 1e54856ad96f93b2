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

    python3 scripts/build_cost.py [runs] [--dir DIR]

Run it on an otherwise idle machine: both builds use every core.
"""
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


def build(dir):
    """Seconds for a clean `cargo build`, and the number of crates compiled."""
    target = os.path.join(dir, "target")
    shutil.rmtree(target, ignore_errors=True)
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    start = time.monotonic()
    out = subprocess.run(["cargo", "build"], cwd=dir, env=env, capture_output=True, text=True)
    seconds = time.monotonic() - start
    if out.returncode != 0:
        sys.exit(f"cargo build failed in {dir}:\n{out.stderr[-4000:]}")
    compiled = sum(1 for line in out.stderr.splitlines() if line.strip().startswith("Compiling "))
    return seconds, compiled


def main():
    args = sys.argv[1:]
    base = os.path.join(ROOT, "target", "build-cost")
    if "--dir" in args:
        i = args.index("--dir")
        base = args[i + 1]
        del args[i : i + 2]
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
            seconds, compiled = build(dir)
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
