"""The host's side of the test: a stand-in in front of the local host that counts the worker's
posts, and deliveries of `release.shipped` sent with `cargo host trigger`."""

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


class StandIn:
    """The event endpoint the worker posts to: forwards each post to the local host, counting them
    by `webhook-id`, and answers 503 to the first post of an id containing a marker in `refuse`,
    or holds the first post of one with a marker in `hang` for HANG_SECONDS before answering 503."""

    def __init__(self, upstream):
        self.upstream = upstream
        self.posts = {}  # webhook-id -> [status answered, ...]
        self.refuse = set()
        self.hang = set()
        self.lock = threading.Lock()
        stand_in = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                event_id = self.headers.get("webhook-id", "")
                with stand_in.lock:
                    seen = stand_in.posts.setdefault(event_id, [])
                    refuse = not seen and any(m in event_id for m in stand_in.refuse)
                    hang = not seen and any(m in event_id for m in stand_in.hang)
                if hang:
                    time.sleep(HANG_SECONDS)
                    status, answer = 503, b'{"error":"held, then refused, by the e2e stand-in"}'
                elif refuse:
                    status, answer = 503, b'{"error":"refused once by the e2e stand-in"}'
                else:
                    forward = urllib.request.Request(
                        stand_in.upstream, data=body, method="POST",
                        headers={k: v for k, v in self.headers.items()
                                 if k.lower().startswith("webhook-") or k.lower() == "content-type"})
                    try:
                        with urllib.request.urlopen(forward, timeout=10) as r:
                            status, answer = r.status, r.read()
                    except urllib.error.HTTPError as e:
                        status, answer = e.code, e.read()
                with stand_in.lock:
                    seen.append(status)
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(answer)))
                    self.end_headers()
                    self.wfile.write(answer)
                except OSError:
                    pass  # the worker is gone (killed while it waited on a held post)

            def log_message(self, *_):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1/events"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def arrived(self, marker):
        """How many event ids containing `marker` have been posted, answered or not."""
        with self.lock:
            return sum(marker in i for i in self.posts)

    def statuses(self, marker):
        """The statuses answered to the posts of the ids containing `marker`."""
        with self.lock:
            return [s for i, answered in self.posts.items() if marker in i for s in answered]


def release_payload(release_id):
    return json.dumps({
        "projectId": "prj_dev_1", "platform": "ios", "appId": "com.example.edge",
        "version": "3.1.0", "shippedAt": "2026-11-25T09:00:00Z", "build": None,
        "releaseId": release_id,
    })


def deliver(server, payload):
    """Delivers `release.shipped` once (its own event id); the `cargo host trigger` process."""
    return subprocess.Popen(
        [common.CARGO_HOST, "trigger", "release.shipped", "--payload", payload,
         "--server", server, "--manifest", EXAMPLE, "--color", "never"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def delivered_ok(proc):
    out, _ = proc.communicate(timeout=60)
    lines = [l for l in out.splitlines() if l.startswith("attempt ")]
    return proc.returncode == 0 and lines and "-> 20" in lines[-1], out.strip()
