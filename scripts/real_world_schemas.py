#!/usr/bin/env python3
"""Published real-world JSON Schemas with instances, for tests/tests/json_schema_suite.rs.

The schemas are facts taken from packages on public registries (each group records its source):

- the tool input (and output) schemas of Model Context Protocol servers published on npm, as each
  server answers `tools/list` over stdio once installed (`npm install <package>@<version>`);
- SchemaStore schemas as vendored by the PyPI package `check-jsonschema`
  (`check_jsonschema/builtin_schemas/vendor/*.json`).

Instances are generated from each schema by `hypothesis-jsonschema` (derandomised, so a rerun
writes the same files) plus simple mutations of them, and every instance is labelled valid or
invalid by the Python `jsonschema` package (Draft 2020-12, the dialect of the manifest's schemas),
which shares no code with the Rust generator or the runtime's validator.

    python3 scripts/real_world_schemas.py generate WORK [NAME...]   # WORK: node_modules/, the wheel
    python3 scripts/real_world_schemas.py check           # CI: re-judge every stored label

Each output file is a list of groups in the JSON Schema Test Suite's format
(`description`, `schema`, `tests: [{description, data, valid}]`) plus `source`.
"""

import copy
import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

OUT = Path(__file__).resolve().parent.parent / "tests" / "schemas" / "real-world"

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
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis_jsonschema import from_schema

    import signal

    def too_long(*_):
        raise TimeoutError

    # hypothesis-jsonschema resolves `#/...` references against the document only without `$id`,
    # and canonicalises the schema it is given in place: it gets a copy.
    bare = copy.deepcopy({k: v for k, v in schema.items() if k != "$id"})
    found = []
    # Slow schemas keep what was generated in time.
    signal.signal(signal.SIGALRM, too_long)
    signal.alarm(GENERATION_SECONDS)
    try:
        strategy = from_schema(bare)

        @settings(max_examples=count * 4, derandomize=True, database=None, deadline=None,
                  phases=[Phase.generate], suppress_health_check=list(HealthCheck))
        @given(strategy)
        def collect(value):
            found.append(value)

        collect()
    except TimeoutError:
        print(f"  stopped generating after {GENERATION_SECONDS} s with {len(found)} values", file=sys.stderr)
    finally:
        signal.alarm(0)
    unique = {}
    for value in found:
        text = json.dumps(value, sort_keys=True)
        if len(text) <= MAX_INSTANCE_CHARS:
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


def write(file, groups):
    text = json.dumps(groups, indent=1, ensure_ascii=False, sort_keys=False)
    (OUT / file).write_text(text + "\n")
    n = sum(len(g["tests"]) for g in groups)
    print(f"{file}: {len(groups)} schemas, {n} instances", file=sys.stderr)


def check():
    """Re-judges every stored instance; a label the validator disagrees with fails."""
    wrong = 0
    schemas = instances = 0
    for path in sorted(OUT.glob("*.json")):
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
    elif sys.argv[1:] == ["check"]:
        sys.exit(0 if check() else 1)
    else:
        sys.exit(__doc__)
