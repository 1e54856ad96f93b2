#!/usr/bin/env python3
"""Writes the fuzz targets' seed inputs under fuzz/seeds/<target>/, from the repository's fixtures
(manifests, Lambda events) and from the call shapes the interface documents.

The seeds start a fuzzing run (scripts/fuzz_ci.sh, FUZZING.md); the corpus committed under
fuzz/corpus/ is what a run kept, minimised with afl-cmin. Run from anywhere:

    python3 fuzz/seeds.py
"""

import base64
import hashlib
import hmac
import json
import os
import shutil
import struct
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "fuzz", "seeds")
FIXTURES = os.path.join(ROOT, "host-manifest", "tests", "fixtures")

# Manifests larger than this are left out of the byte-level seeds: the fuzzer spends its time on
# each input's every byte, and one at every limit (240 KB) would take most of it.
MAX_SEED_BYTES = 20_000


def write(target, name, data):
    folder = os.path.join(OUT, target)
    os.makedirs(folder, exist_ok=True)
    if isinstance(data, str):
        data = data.encode()
    with open(os.path.join(folder, name), "wb") as f:
        f.write(data)


def manifests():
    found = []
    for kind in ("valid", "invalid"):
        base = os.path.join(FIXTURES, kind)
        for entry in sorted(os.listdir(base)):
            path = os.path.join(base, entry)
            if os.path.isdir(path):
                path = os.path.join(path, "host.extension.json")
            if path.endswith(".json") and os.path.isfile(path):
                found.append((f"{kind}-{os.path.basename(entry)}", path))
    for entry in sorted(os.listdir(os.path.join(ROOT, "tests", "manifests"))):
        found.append((f"tests-{entry}", os.path.join(ROOT, "tests", "manifests", entry, "host.extension.json")))
    return found


def manifest_seeds():
    for name, path in manifests():
        data = open(path, "rb").read()
        if len(data) <= MAX_SEED_BYTES:
            write("manifest", name.removesuffix(".json"), data)
    # The structured targets read choices, not text: a few short byte strings pick each fixture
    # and a handful of changes.
    for target in ("manifest_structured", "codegen", "diff"):
        for i in range(16):
            write(target, f"choices-{i:02}", bytes([i * 16 % 256, i, 255 - i, 7 * i % 256] * 4))


def token(claims, key_seed=None):
    """An unsigned-looking token: the fuzz target mints real ones (`$TOKEN`); these carry shapes."""
    header = base64.urlsafe_b64encode(json.dumps(claims[0]).encode()).rstrip(b"=").decode()
    payload = base64.urlsafe_b64encode(json.dumps(claims[1]).encode()).rstrip(b"=").decode()
    return f"{header}.{payload}.{'A' * 86}"


def token_seeds():
    payload = {
        "iss": "https://auth.host.example", "aud": "keyword-tracker", "sub": "inst-1",
        "iat": 1700000000, "exp": 4102444800, "organizationId": "org-1", "projectId": "prj-1",
        "generation": 1, "scopes": ["ai:tools"],
    }
    for i, alg in enumerate(["EdDSA", "RS256", "PS256", "ES256", "none", "HS256"]):
        write("token", f"alg-{i}", token(({"alg": alg, "typ": "JWT", "kid": "host-dev-1"}, payload)))
    write("token", "bearer", "Bearer " + token(({"alg": "EdDSA", "kid": "host-dev-1"}, payload)))
    write("token", "empty", "")
    write("token", "dots", "..")
    keys = [
        {"kty": "OKP", "crv": "Ed25519", "alg": "EdDSA", "use": "sig", "kid": "host-dev-1",
         "x": "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"},
        {"kty": "RSA", "n": "sXchDaQebHnPiGvyDOAT4saGEUetSyo9MKLOoWFsueri23bOdgWp4Dy1WlUzewbgBHod5pcM9H95GQRV3JDXboIRROSBigeC5yjU1hGzHHyXss8UDprecbAYxknTcQkhslANGRUZmdTOQ5qTRsLAt6BTYuyvVRdhS8exSZEy_c4gs_7svlJJQ4H9_NxsiIoLwAEk7-Q3UXERGYw_75IDrGA84-lA_-Ct4eTlXHBIY2EaV7t7LjJaynVJCpkv4LKjTTAumiGUIuQhrNhZLuF_RJLqHpM2kgWFLU7-VTdL1VbC2tejvcI2BlMkEpk1BzBZI0KQB0GaDWFLN-aEAw3vRw", "e": "AQAB", "kid": "rsa-1"},
        {"kty": "EC", "crv": "P-256", "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
         "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0", "kid": "ec-1"},
    ]
    write("token", "keyset-all", "K" + json.dumps({"keys": keys}))
    write("token", "keyset-one", "K" + json.dumps({"keys": keys[:1]}))
    write("token", "keyset-empty", "K" + json.dumps({"keys": []}))



def token_claims_seeds():
    # Choices, not text (fuzz/src/claims.rs): choice 0 of every decision is the valid one, so a
    # zero byte (then nothing) is an accepted token; the others turn many decisions each.
    write("token_claims", "valid", b"\0")
    for i in range(12):
        write("token_claims", f"choices-{i:02}", bytes((i * 29 + j * 37) % 256 for j in range(48)))


ROUTES = [
    "/host/health", "/host/tools/keyword-ranks", "/host/actions/save-rank-insight",
    "/host/mentions/keyword", "/host/context/tracked-keywords", "/host/procedures/listWatchlists",
    "/host/procedures/addKeyword", "/host/events", "/host/metrics", "/host/work/items",
    "/host/work/items/ISS-1/comments", "/host/tools/", "/host//tools/x", "/host/tools/a/b",
]


def route_seeds():
    for i, r in enumerate(ROUTES):
        write("route", f"path-{i:02}", r)
    write("route", "containers", "/host/work/containers\0/host/work/containers?q=a")
    write("route", "url", "https://x.example:8443/host/tools/a?q=1#f")
    for i, q in enumerate(["q=caf%C3%A9+noir", "x=1&q=%", "q=" + "a" * 1200, "q&q=1", "%zz=q&q=%F0%9F"]):
        write("query", f"query-{i}", q)


INSTALL = {"id": "ins_test_1", "extensionId": "keyword-tracker", "projectId": "prj_test_1",
           "organizationId": "org_test_1"}

CREDENTIALS = {"api_key": "key-1", "workspace": "ws-1"}

BODIES = {
    "keyword-ranks": {"input": {"keyword": "notes", "days": 7}},
    "save-rank-insight": {"input": {"keyword": "notes", "summary": "Rank dropped after release."},
                           "approval": {"approvedBy": "user-1"}},
    "listWatchlists": {"input": {}},
    "addKeyword": {"input": {"keyword": "notes", "country": "US"}},
    "event": {"event": {"name": "release.shipped", "id": "evt-1",
                        "payload": {"projectId": "prj_test_1", "version": "1.2.0",
                                    "platform": "ios"}}},
    "metrics": {"input": {"cursor": None, "metric": "average_rank"}},
    "work": {"input": {"container": "prj-mobile", "title": "Broken", "body": "x"}},
}


def body_seeds():
    for name, body in BODIES.items():
        full = dict(body, install=INSTALL, context={"projectId": "prj_test_1", "platform": "ios"},
                    credentials=CREDENTIALS, documents={})
        write("body", name, json.dumps(full))
        write("envelope", name, json.dumps(full))
    write("body", "duplicate", '{"input": {}, "input": {"a": 1}}')
    write("body", "deep", "[" * 200 + "]" * 200)
    write("body", "numbers", '{"a": 1e400, "b": -0, "c": 1.0, "d": 18446744073709551616}')
    write("envelope", "install-wrong", json.dumps({"install": {"id": 1}, "input": []}))


def wire(method, target, body=None, token="$TOKEN", kind="application/json"):
    head = [f"{method} {target}"]
    if token is not None:
        head.append(f"authorization: Bearer {token}")
    if body is not None:
        head.append(f"content-type: {kind}")
    text = "\n".join(head) + "\n\n"
    if body is not None:
        text += json.dumps(dict(body, install=INSTALL, credentials=CREDENTIALS))
    return text


def request_seeds():
    cases = [
        ("GET", "/host/health", None),
        ("POST", "/host/tools/keyword-ranks", BODIES["keyword-ranks"]),
        ("POST", "/host/actions/save-rank-insight", BODIES["save-rank-insight"]),
        ("GET", "/host/mentions/keyword?q=no", None),
        ("GET", "/host/context/tracked-keywords", None),
        ("POST", "/host/procedures/listWatchlists", BODIES["listWatchlists"]),
        ("POST", "/host/procedures/addKeyword", BODIES["addKeyword"]),
        ("POST", "/host/events", BODIES["event"]),
        ("POST", "/host/metrics", BODIES["metrics"]),
        ("POST", "/host/tools/nope", {"input": {}}),
    ]
    for i, (method, path, body) in enumerate(cases):
        write("request", f"call-{i:02}", wire(method, path, body))
        write("workers", f"call-{i:02}", wire(method, "https://kw.workers.dev" + path, body))
    write("request", "scoped", wire("POST", "/host/tools/keyword-ranks", BODIES["keyword-ranks"],
                                    token="$TOKEN:ui:render"))
    write("request", "no-token", wire("POST", "/host/tools/keyword-ranks", BODIES["keyword-ranks"], token=None))
    write("request", "text-body", wire("POST", "/host/tools/keyword-ranks", BODIES["keyword-ranks"],
                                       kind="text/plain"))


def lambda_seeds():
    for file in sorted(os.listdir(os.path.join(ROOT, "tests", "lambda-events"))):
        event = json.load(open(os.path.join(ROOT, "tests", "lambda-events", file)))
        write("lambda", f"health-{file}", json.dumps(event))
        call = json.loads(json.dumps(event))
        body = json.dumps(dict(BODIES["keyword-ranks"], install=INSTALL, credentials=CREDENTIALS))
        if "httpMethod" in call:
            call["path"] = "/host/tools/keyword-ranks"
            call["httpMethod"] = "POST"
            call["requestContext"]["httpMethod"] = "POST"
            call["requestContext"]["path"] = "/prod/host/tools/keyword-ranks"
            call["headers"]["authorization"] = "Bearer $TOKEN"
            call["headers"]["content-type"] = "application/json"
            call["multiValueHeaders"]["authorization"] = ["Bearer $TOKEN"]
            call["multiValueHeaders"]["content-type"] = ["application/json"]
        else:
            raw = "/host/tools/keyword-ranks" if "function-url" in file else "/prod/host/tools/keyword-ranks"
            call["rawPath"] = raw
            call["requestContext"]["http"]["method"] = "POST"
            call["requestContext"]["http"]["path"] = raw
            call["headers"]["authorization"] = "Bearer $TOKEN"
            call["headers"]["content-type"] = "application/json"
        call["body"] = body
        write("lambda", f"tool-{file}", json.dumps(call))


def webhook_seeds():
    secret_text = "whsec_aG9zdC1zZGsgZGV2ZWxvcG1lbnQgc2VjcmV0IQ=="
    secret = base64.b64decode(secret_text.removeprefix("whsec_"))
    for i, body in enumerate([b'{"type":"rank.dropped","data":{}}', b"", b"\xff\x00binary"]):
        msg_id, ts = f"msg_{i}", "1700000000"
        mac = hmac.new(secret, f"{msg_id}.{ts}.".encode() + body, hashlib.sha256).digest()
        sig = "v1," + base64.b64encode(mac).decode()
        write("webhook", f"signed-{i}", f"{secret_text}\n{msg_id}\n{ts}\nv1,bad {sig}\n".encode() + body)
    write("webhook", "plain-secret", "not-a-secret\nmsg\n-1\nv1,\n{}")


def outbox_seeds():
    def record(attempts, due, accepted, owner, error, msg_id, body):
        out = bytes([1]) + struct.pack("<Iqq", attempts, due, accepted)
        for s in (owner, error, msg_id):
            if s is None:
                out += struct.pack("<I", 0xFFFFFFFF)
            else:
                out += struct.pack("<I", len(s.encode())) + s.encode()
        return out + body
    write("outbox", "fresh", record(0, 1700000000000, 1700000000000, "", None, "evt-1", b'{"a":1}'))
    write("outbox", "claimed", record(3, 1, 2, "owner-1", "503 from the host", "evt-2", b""))
    write("outbox", "version", b"\x02" + b"\x00" * 30)


def main():
    shutil.rmtree(OUT, ignore_errors=True)
    manifest_seeds()
    token_seeds()
    token_claims_seeds()
    route_seeds()
    body_seeds()
    request_seeds()
    lambda_seeds()
    webhook_seeds()
    outbox_seeds()
    total = sum(len(files) for _, _, files in os.walk(OUT))
    print(f"{total} seeds under {os.path.relpath(OUT, ROOT)}", file=sys.stderr)


if __name__ == "__main__":
    main()
