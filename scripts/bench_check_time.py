#!/usr/bin/env python3
"""Benchmark: `cargo check` of a vendor crate after a manifest change versus after a one-line .rs change.

Builds a scratch crate (under target/bench-check) that expands a fixture manifest with
host_extension! and implements every generated trait, then times, alternately, `cargo check` after
editing one description in the manifest and after editing one line of src/main.rs. Prints the medians,
their ratio, the macro's own expansion time (HOST_EXTENSION_TIMING) and the size of the generated code.

    python3 scripts/bench_check_time.py [at-every-limit|keyword-tracker] [runs] [--optimized-macros]

--optimized-macros adds `[profile.dev.build-override] opt-level = 3` to the scratch crate (the setting
the guide's manifest page suggests to vendors with very large manifests): the crate stays a debug
build, the macro and its dependencies are optimized.
"""
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = {
    "at-every-limit": ("host-manifest/tests/fixtures/valid/at-every-limit", "tests/ui-tests/ui/pass/at_every_limit.rs"),
    "keyword-tracker": ("host-manifest/tests/fixtures/valid/keyword-tracker", "tests/src/lib.rs"),
}


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    optimized = "--optimized-macros" in sys.argv[1:]
    name = args[0] if args else "at-every-limit"
    runs = int(args[1]) if len(args) > 1 else 5
    fixture, source = FIXTURES[name]
    work = os.path.join(ROOT, "target", "bench-check", name + ("-optimized" if optimized else ""))
    shutil.rmtree(work, ignore_errors=True)
    shutil.copytree(os.path.join(ROOT, fixture), work)
    os.makedirs(os.path.join(work, "src"))
    text = open(os.path.join(ROOT, source)).read()
    # Point every host_extension! at a manifest inside the scratch crate: the fixture itself, or a copy
    # of any other fixture the source expands (the test crate's work module, say).
    # (Sources name fixtures relative to their own crate, so the path is read from `host-manifest/` on.)
    def local(m):
        written = m.group(1)
        target = os.path.normpath(os.path.join(ROOT, written[written.index("host-manifest/"):]))
        if os.path.dirname(target) == os.path.normpath(os.path.join(ROOT, fixture)):
            return 'host_extension!("host.extension.json")'
        folder = os.path.basename(os.path.dirname(target))
        shutil.copytree(os.path.dirname(target), os.path.join(work, folder), dirs_exist_ok=True)
        return f'host_extension!("{folder}/{os.path.basename(target)}")'

    text = re.sub(r'host_extension!\(\s*"([^"]*)"\s*\)', local, text)
    main_rs = os.path.join(work, "src", "main.rs")
    if name == "keyword-tracker":
        text = text.replace("#![deny(warnings, missing_docs)]", "#![allow(dead_code)]") + "\nfn main() {}\n"
    open(main_rs, "w").write(text)
    open(os.path.join(work, "Cargo.toml"), "w").write(
        '[package]\nname = "bench-check"\nversion = "0.1.0"\nedition = "2024"\n\n'
        f'[dependencies]\nhost-runtime = {{ path = "{ROOT}/host-runtime" }}\n'
        'tokio = { version = "1", features = ["time"] }\n\n[workspace]\n'
        + ("\n[profile.dev.build-override]\nopt-level = 3\n" if optimized else "")
    )
    shutil.copy(os.path.join(ROOT, "Cargo.lock"), work)
    env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(work, "target"), HOST_EXTENSION_TIMING="1")

    def check():
        start = time.monotonic()
        out = subprocess.run(["cargo", "check", "--offline", "-q"], cwd=work, env=env, capture_output=True, text=True)
        elapsed = time.monotonic() - start
        if out.returncode != 0:
            sys.exit(f"cargo check failed:\n{out.stderr}")
        m = re.search(r"expanded in ([\d.]+) ms", out.stderr)
        return elapsed, float(m.group(1)) if m else float("nan")

    check()  # build the dependencies once
    manifest_path = os.path.join(work, "host.extension.json")
    manifest = json.load(open(manifest_path))
    manifest_times, rs_times, expansions = [], [], []
    for i in range(runs):
        manifest["description"] = manifest["description"][:150] + f" (run {i})"
        json.dump(manifest, open(manifest_path, "w"), indent=2)
        t, e = check()
        manifest_times.append(t)
        expansions.append(e)
        open(main_rs, "a").write(f"// edit {i}\n")
        t, e = check()
        rs_times.append(t)
        expansions.append(e)
    pretty = subprocess.run(
        ["cargo", "run", "-q", "--release", "-p", "host-cli", "--", "expand", manifest_path],
        cwd=ROOT, capture_output=True, text=True,
    ).stdout
    m, r = statistics.median(manifest_times), statistics.median(rs_times)
    print(f"{name}: runs={runs}" + (" (macros optimized)" if optimized else ""))
    print(f"  cargo check after a manifest change: median {m:.2f} s  ({', '.join(f'{t:.2f}' for t in manifest_times)})")
    print(f"  cargo check after a one-line .rs change: median {r:.2f} s  ({', '.join(f'{t:.2f}' for t in rs_times)})")
    print(f"  ratio: {m / r:.2f}")
    print(
        f"  macro expansion inside rustc: median {statistics.median(expansions):.1f} ms "
        f"(min {min(expansions):.1f}, max {max(expansions):.1f})"
    )
    print(f"  generated code: {len(pretty):,} bytes, {pretty.count(chr(10)):,} lines (formatted)")


if __name__ == "__main__":
    main()
