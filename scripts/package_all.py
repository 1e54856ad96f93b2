#!/usr/bin/env python3
"""Packages every published crate, in dependency order, as `cargo publish` would upload it.

    python3 scripts/package_all.py [--no-verify]

1. The seven crates of the root workspace, with one `cargo package`: cargo packages workspace
   members in dependency order and resolves each one against the ones packaged before it, as if
   they were already on crates.io. Unless --no-verify, each package is then built from its
   unpacked .crate, as `cargo publish` does (about 8 minutes on 2 cores: every crate builds its
   own dependencies; CI passes --no-verify and builds the packages in scripts/registry_e2e.py
   instead, which also runs them).
2. host-runtime-workers (the Workers workspace), without its lock file: it is a library, and
   until host-runtime is on crates.io no lock file can be made for it. It builds for wasm32 only;
   scripts/registry_e2e.py checks it from its package.
3. Reads every .crate: each `include_str!`/`include_bytes!` of a literal path in its sources must
   name a file inside the package, and no package carries the workspace's tests.

The .crate files land in $CARGO_TARGET_DIR/package (./target/package by default). Publishing
itself, from a clean tree: `cargo publish --workspace --exclude host-sdk-tests --exclude
host-sdk-ui-tests --exclude keyword-tracker --exclude keyword-tracker-vercel --exclude
keyword-tracker-lambda`, then
`cargo publish --manifest-path workers/Cargo.toml -p host-runtime-workers`.
"""

import argparse
import os
import pathlib
import posixpath
import re
import subprocess
import sys
import tarfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent

# In dependency order (each after everything it depends on).
CRATES = [
    "host-interface",
    "host-manifest",
    "host-codegen",
    "host-macros",
    "host-runtime",
    "host-runtime-build",
    "host-cli",
]
WORKERS_CRATE = "host-runtime-workers"

INCLUDE = re.compile(r'include_(?:str|bytes)!\(\s*"([^"]+)"\s*\)')


def target_dir() -> pathlib.Path:
    given = os.environ.get("CARGO_TARGET_DIR")
    return pathlib.Path(given).resolve() if given else ROOT / "target"


def version() -> str:
    text = (ROOT / "Cargo.toml").read_text()
    found = re.search(r'^\[workspace\.package\][^\[]*?^version = "([^"]+)"', text, re.M | re.S)
    if not found:
        sys.exit("error: no `version` under [workspace.package] in Cargo.toml")
    return found.group(1)


def run(cmd: list[str]) -> float:
    print("+", " ".join(cmd), flush=True)
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=ROOT)
    if done.returncode != 0:
        sys.exit(f"error: `{' '.join(cmd)}` failed (exit {done.returncode}); its output is above")
    return time.monotonic() - start


def check_package(path: pathlib.Path) -> list[str]:
    """What is wrong with one .crate file (nothing, when it is fine)."""
    problems = []
    with tarfile.open(path) as tar:
        members = {m.name.split("/", 1)[1]: m for m in tar.getmembers() if "/" in m.name}
        for name, member in members.items():
            if name.startswith("tests/"):
                problems.append(f"{path.name} carries the test file {name}")
            if not name.endswith(".rs"):
                continue
            source = tar.extractfile(member)
            text = source.read().decode("utf-8", "replace") if source else ""
            for wanted in INCLUDE.findall(text):
                resolved = posixpath.normpath(posixpath.join(posixpath.dirname(name), wanted))
                if resolved not in members:
                    problems.append(
                        f"{path.name}: {name} includes {wanted!r}, which is not in the package "
                        "(add it to `include` in the crate's Cargo.toml, inside the crate's folder)"
                    )
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-verify", action="store_true", help="package without building")
    args = parser.parse_args()
    target = target_dir()
    ver = version()

    verify = ["--no-verify"] if args.no_verify else []
    # --allow-dirty: this checks packaging, so it runs on work in progress too; publishing
    # itself should happen from a clean tree.
    crates = [a for c in CRATES for a in ("-p", c)]
    root_time = run(["cargo", "package", "--allow-dirty", *verify, *crates])
    workers_time = run(
        [
            "cargo", "package", "--allow-dirty", "--no-verify", "--exclude-lockfile",
            "--manifest-path", str(ROOT / "workers/Cargo.toml"), "-p", WORKERS_CRATE,
            "--target-dir", str(target),
        ]
    )

    problems = []
    for crate in CRATES + [WORKERS_CRATE]:
        path = target / "package" / f"{crate}-{ver}.crate"
        if not path.is_file():
            problems.append(f"{path} was not made")
            continue
        problems += check_package(path)
        with tarfile.open(path) as tar:
            files = sum(1 for m in tar.getmembers() if m.isfile())
        print(f"  {path.name}: {files} files, {path.stat().st_size / 1024:.1f} KiB")
    if problems:
        for p in problems:
            print(f"error: {p}", file=sys.stderr)
        sys.exit(1)
    how = "packaged" if args.no_verify else "packaged and verified"
    print(
        f"{len(CRATES) + 1} crates {how}: the workspace's in {root_time:.0f} s, "
        f"{WORKERS_CRATE} in {workers_time:.0f} s; .crate files in {target / 'package'}"
    )


if __name__ == "__main__":
    main()
