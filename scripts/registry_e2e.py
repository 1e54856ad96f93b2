#!/usr/bin/env python3
"""What a vendor does with the published SDK, offline, against a registry made of its packages.

    python3 scripts/registry_e2e.py [--work DIR] [--release] [--build-only | --run-only]

From the repository root:

1. Packages every crate (scripts/package_all.py --no-verify).
2. Makes a local registry in DIR/registry: the dependencies of both workspaces, vendored by
   `cargo vendor` (the only step that uses the network), and the SDK's .crate files unpacked next
   to them, each with the `.cargo-checksum.json` a directory source needs. DIR/.cargo/config.toml
   replaces crates.io with it and turns the network off for every later step.
3. `cargo install host-cli --locked` from that registry (a debug build unless --release: `cargo
   install` builds release, this checks the same sources in less time), as a vendor installs
   the CLI; the CLI so built has no checkout to point at.
4. `cargo host init` in an empty folder: the new Cargo.toml must ask for the SDK by version, with
   no path. The crate builds without warnings of its own, its server starts, and `cargo host
   check` passes against it.
5. host-runtime-workers from its package: `cargo check --target wasm32-unknown-unknown`.

With --build-only it does all of that but start the server (builds that can run beside other
work, as CI does while its tests run) and keeps DIR; --run-only then starts that server and runs
`cargo host check`, and removes DIR.

Exits non-zero at the first step that fails, saying which. DIR defaults to a new temporary folder,
removed at the end when everything passed. It builds the SDK and its dependencies again from the
registry's sources, natively and for wasm32: 7.3 minutes of CPU time (user and system) and 12.5
minutes of wall time on a busy 2-core machine (install 252 s, the new crate 184 s, wasm32 274 s).
"""

import argparse
import hashlib
import json
import os
import pathlib
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import time

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import package_all  # noqa: E402

TIMES: list[tuple[str, float]] = []


def fail(message: str) -> None:
    sys.exit(f"error: {message}")


def run(step: str, cmd: list[str], cwd: pathlib.Path, env: dict[str, str]) -> str:
    """Runs `cmd`, echoing it; its stderr (cargo's log) is returned and shown on failure."""
    print(f"+ ({cwd}) {' '.join(cmd)}", flush=True)
    start = time.monotonic()
    done = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    TIMES.append((step, time.monotonic() - start))
    if done.returncode != 0:
        fail(f"{step}: `{' '.join(cmd)}` failed (exit {done.returncode}):\n{done.stdout}{done.stderr}")
    return done.stdout + done.stderr


def add_package(crate: pathlib.Path, registry: pathlib.Path) -> None:
    """Unpacks a .crate into the directory source, with the checksum file cargo requires."""
    with tarfile.open(crate) as tar:
        tops = {m.name.split("/", 1)[0] for m in tar.getmembers()}
        if len(tops) != 1:
            fail(f"{crate} does not hold one folder but {sorted(tops)}")
        (top,) = tops
        shutil.rmtree(registry / top, ignore_errors=True)
        try:
            tar.extractall(registry, filter="data")
        except TypeError:  # Python before 3.11.4 has no extraction filters; the file is ours.
            tar.extractall(registry)
    checksum = hashlib.sha256(crate.read_bytes()).hexdigest()
    (registry / top / ".cargo-checksum.json").write_text(json.dumps({"files": {}, "package": checksum}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=pathlib.Path, help="the folder to work in [default: a new temporary one]")
    parser.add_argument("--release", action="store_true", help="install the CLI as `cargo install` does, optimised")
    parser.add_argument(
        "--build-only", action="store_true",
        help="every step but running the new crate's server; DIR (--work) is kept for --run-only",
    )
    parser.add_argument(
        "--run-only", action="store_true",
        help="only run the server of the crate a --build-only run left in DIR (--work), then remove DIR",
    )
    args = parser.parse_args()
    if (args.build_only or args.run_only) and args.work is None:
        fail("--build-only and --run-only need --work DIR")
    work = (args.work or pathlib.Path(tempfile.mkdtemp(prefix="host-registry-e2e-"))).resolve()
    if work.is_relative_to(ROOT):
        fail(f"{work} is inside the repository; cargo would read the workspace above it. Pick a folder outside it")
    work.mkdir(parents=True, exist_ok=True)
    print(f"working in {work}")
    env = dict(os.environ)
    for var in ("HOST_SDK_PATH", "HOST_JWKS_URL", "HOST_SERVER_URL", "RUSTFLAGS", "CARGO_BUILD_TARGET"):
        env.pop(var, None)
    # One target folder for the install and the vendor's crate: the dependencies they share are
    # built once.
    env["CARGO_TARGET_DIR"] = str(work / "target")
    # No debug info: these builds run once, and debug info is most of their size on disk and of
    # their link time (with it, DIR held 3 GB before the wasm32 step).
    env["CARGO_PROFILE_DEV_DEBUG"] = "false"
    # Every step but `cargo vendor` (which has an environment of its own) runs with the network
    # off, and finds the installed `cargo host` first on PATH.
    env["CARGO_NET_OFFLINE"] = "true"
    env["PATH"] = f"{work / 'cli' / 'bin'}{os.pathsep}{env['PATH']}"
    started = time.monotonic()
    project = work / "hello-vendor"
    if args.run_only:
        serve_and_check(work, project, env)
        report(started, "the new crate's server started and passed `cargo host check`")
        shutil.rmtree(work, ignore_errors=True)
        return
    build(args, work, project, env)
    if not args.build_only:
        serve_and_check(work, project, env)
    report(started, "a vendor's crate built from the packaged SDK"
           + (", ready for --run-only" if args.build_only else " and passed `cargo host check`, offline"))
    if args.work is None:
        shutil.rmtree(work, ignore_errors=True)


def report(started: float, what: str) -> None:
    for step, seconds in TIMES:
        print(f"  {step}: {seconds:.0f} s")
    print(f"{what}, in {time.monotonic() - started:.0f} s")


def build(args: argparse.Namespace, work: pathlib.Path, project: pathlib.Path, env: dict[str, str]) -> None:
    """Steps 1 to 5 but the server: packages, registry, CLI, the new crate built, the adapter."""
    # 1. The packages.
    t = time.monotonic()
    subprocess.run([sys.executable, str(ROOT / "scripts/package_all.py"), "--no-verify"], cwd=ROOT, check=True)
    TIMES.append(("package", time.monotonic() - t))
    packages = package_all.target_dir() / "package"
    ver = package_all.version()

    # 2. The registry: vendored dependencies, then the SDK's packages.
    registry = work / "registry"
    shutil.rmtree(registry, ignore_errors=True)
    vendor_env = {k: v for k, v in os.environ.items() if k != "CARGO_TARGET_DIR"}
    run(
        "vendor",
        [
            "cargo", "vendor", "--locked", "--versioned-dirs", "--manifest-path", str(ROOT / "Cargo.toml"),
            "--sync", str(ROOT / "workers/Cargo.toml"), str(registry),
        ],
        ROOT,
        vendor_env,
    )
    for crate in package_all.CRATES + [package_all.WORKERS_CRATE]:
        add_package(packages / f"{crate}-{ver}.crate", registry)
    (work / ".cargo").mkdir(exist_ok=True)
    (work / ".cargo/config.toml").write_text(
        "# Everything from the local registry; nothing from the network.\n"
        "[source.crates-io]\nreplace-with = \"local-registry\"\n\n"
        f"[source.local-registry]\ndirectory = {json.dumps(str(registry))}\n\n"
        "[net]\noffline = true\n"
    )

    # 3. The CLI, as a vendor installs it.
    bin_root = work / "cli"
    # `cargo install` reads no configuration of the folder it runs in: the file is named.
    install = ["cargo", "install", "host-cli", "--version", ver, "--locked", "--root", str(bin_root)]
    install += ["--config", str(work / ".cargo/config.toml")]
    if not args.release:
        install.append("--debug")
    run("install host-cli", install, work, env)

    # 4. A new extension.
    shutil.rmtree(project, ignore_errors=True)
    out = run("cargo host init", ["cargo", "host", "init", project.name], work, env)
    print(out.strip())
    manifest = (project / "Cargo.toml").read_text()
    for wanted in (f'host-runtime = "{ver}"', f'host-runtime-build = "{ver}"'):
        if wanted not in manifest:
            fail(f"the new crate's Cargo.toml has no `{wanted}`:\n{manifest}")
    if "path =" in manifest:
        fail(f"the new crate's Cargo.toml has a path dependency, but the CLI came from a package:\n{manifest}")
    if "from the registry" not in out:
        fail(f"`cargo host init` did not say the SDK comes from the registry:\n{out}")

    log = run("cargo build (new crate)", ["cargo", "build", "--message-format=short"], project, env)
    own = [line for line in log.splitlines() if "warning" in line and str(registry) not in line]
    if own:
        fail("the new crate builds with warnings:\n" + "\n".join(own))
    run("cargo host validate", ["cargo", "host", "validate"], project, env)

    # 5. The Workers adapter, from its package, for the platform it is for.
    adapter = work / package_all.WORKERS_CRATE
    shutil.rmtree(adapter, ignore_errors=True)
    shutil.copytree(registry / f"{package_all.WORKERS_CRATE}-{ver}", adapter)
    (adapter / ".cargo-checksum.json").unlink()
    run(
        "cargo check host-runtime-workers (wasm32)",
        ["cargo", "check", "--target", "wasm32-unknown-unknown"],
        adapter,
        env,
    )


def serve_and_check(work: pathlib.Path, project: pathlib.Path, env: dict[str, str]) -> None:
    """Step 4's end: the new crate's server started, `cargo host check` against it, SIGTERM."""
    server_env = dict(env, LISTEN_ADDR="127.0.0.1:0")
    server = subprocess.Popen(
        [str(work / "target/debug" / project.name)], cwd=project, env=server_env, stdout=subprocess.PIPE, text=True
    )
    try:
        url = None
        deadline = time.monotonic() + 30
        while url is None and time.monotonic() < deadline:
            line = server.stdout.readline() if server.stdout else ""
            if not line:
                break
            if line.startswith("listening on http://"):
                url = next(w for w in line.split() if w.startswith("http://"))
        if url is None:
            fail("the new crate's server did not say `listening on http://...` within 30 s")
        check = run("cargo host check", ["cargo", "host", "check", "--server", url], project, env)
        print(check.strip())
        if " 0 failed" not in check:
            fail(f"`cargo host check` reported failures:\n{check}")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            code = server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
            fail("the new crate's server did not stop within 20 s of SIGTERM")
    if code != 0:
        fail(f"the new crate's server exited {code} on SIGTERM")


if __name__ == "__main__":
    main()
