"""The pinned tools the test needs (worker-build, wasm-bindgen-cli, wrangler, binaryen), installed
where missing, and the worker built ahead of the run."""

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
