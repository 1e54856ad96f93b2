#!/usr/bin/env python3
"""Benchmark: what a schema-heavy vendor crate costs to build, for one or more SDK revisions.

The crate is what a vendor whose procedures take published payload schemas writes: for each corpus
of `tests/schemas/webhooks/` named with `--corpus` (default `github`), one procedure per schema
(its input; its output a small object), dealt into manifests of at most 30 procedures, the
interface's limit. Each schema is self-contained, as in a manifest, so procedures that share a
definition each carry a copy of it.

For each revision (a git revision of this repository, or `.` for the working tree, the default),
the script builds that revision's `cargo-host` (not timed), then:

- generated lines: `cargo host expand` of each manifest, summed (the validators left out, as
  `expand` prints them);
- distinct types: `pub struct` and `pub enum` items in those expansions, and the definition copies
  and distinct definitions (equal by name and content) of the schemas themselves;
- clean build: `cargo build` of the crate from an empty target folder (dependencies included);
- the crate alone: `cargo build` after `cargo clean -p scale-bench` (dependencies built);
- after a change to `main.rs` (a comment appended): `cargo build` again.

Each revision gets this repository's Cargo.lock as the revision has it, and builds are alternated
revision by revision, `runs` times (default 1; 0 gives the figures without building). Times are wall-clock seconds; run it on an
otherwise idle machine, since the builds use every core.

    python3 scripts/scale_bench.py [--runs N] [--corpus github,adyen] [--dir DIR] [REV ...]
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PER_MANIFEST = 30

OUTPUT_SCHEMA = {
    "type": "object",
    "properties": {"ok": {"type": "boolean", "description": "Whether the payload was taken."}},
    "required": ["ok"],
    "additionalProperties": False,
}

MAIN_HEAD = """//! Written by scripts/scale_bench.py: procedures that take published payload schemas.
#![allow(dead_code, unused_imports, missing_docs, deprecated)]
use host_runtime::HostError;

/// The procedures' output, `{"ok": true}`, as the generated type.
fn ok<O: serde::de::DeserializeOwned>() -> Result<O, HostError> {
    serde_json::from_value(serde_json::json!({ "ok": true }))
        .map_err(|e| HostError::internal(format!("the output type refused its value: {e}")))
}
"""


def run(cmd, cwd=None, env=None, quiet=True):
    """Runs `cmd`, failing the benchmark with its output if it fails."""
    done = subprocess.run(cmd, cwd=cwd, env=env, capture_output=quiet, text=True)
    if done.returncode != 0:
        if quiet:
            sys.stderr.write(done.stdout[-4000:] + done.stderr[-4000:])
        sys.exit(f"failed: {' '.join(cmd)} (in {cwd or os.getcwd()})")
    return done.stdout if quiet else ""


def timed(cmd, cwd, env):
    start = time.monotonic()
    run(cmd, cwd=cwd, env=env)
    return time.monotonic() - start


def schemas(corpora):
    """(procedure name, schema) of every schema of the named corpora, in file order."""
    out = []
    for corpus in corpora:
        path = os.path.join(ROOT, "tests", "schemas", "webhooks", f"{corpus}.json")
        with open(path) as f:
            for i, group in enumerate(json.load(f)):
                out.append((f"{corpus}{i:03}", group["schema"]))
    return out


def definition_figures(chosen, chunks):
    """(copies, distinct) of the schemas' `$defs`: distinct within each manifest (equal by name and
    content), summed over the manifests, and over the whole crate."""
    copies, per_manifest, whole = 0, 0, set()
    for chunk in chunks:
        seen = set()
        for _, schema in chunk:
            for name, d in (schema.get("$defs") or {}).items():
                copies += 1
                key = (name, json.dumps(d, sort_keys=True))
                seen.add(key)
                whole.add(key)
        per_manifest += len(seen)
    return copies, per_manifest, len(whole)


def manifest(index, chunk):
    procedures = {
        name: {"input": schema, "output": OUTPUT_SCHEMA, "kind": "write"} for name, schema in chunk
    }
    return {
        "id": f"scale-bench-{index}",
        "name": "Scale bench",
        "description": "Procedures that take published webhook payloads.",
        "icon": "icon.png",
        "category": "experiments",
        "sdk": "^2.0.0",
        "visibility": "private",
        "installScope": "project",
        "scopes": [{"key": "ui:render"}],
        "contributes": {},
        "server": {"baseUrl": "https://scale.example/api", "procedures": procedures},
    }


def write_crate(crate, source, chunks):
    if os.path.exists(crate):
        shutil.rmtree(crate)
    os.makedirs(os.path.join(crate, "src"))
    shutil.copy(
        os.path.join(source, "examples", "keyword-tracker", "assets", "icon.png"),
        os.path.join(crate, "icon.png"),
    )
    main = [MAIN_HEAD]
    for m, chunk in enumerate(chunks):
        with open(os.path.join(crate, f"m{m}.json"), "w") as f:
            json.dump(manifest(m, chunk), f, indent=2)
        main.append(f"mod m{m} {{")
        main.append(f'    host_runtime::host_extension!("m{m}.json");')
        main.append("    use host_runtime::HostError;")
        main.append("    pub struct Bench;")
        main.append("    impl Procedures for Bench {")
        for name, _ in chunk:
            main.append(
                f"        async fn {name}(&self, call: ProcedureCall<procedures::{name}::Input>)"
                f" -> Result<procedures::{name}::Output, HostError> {{ let _ = &call.input; crate::ok() }}"
            )
        main.append("    }")
        main.append("    pub fn make() -> host_runtime::Handler { handler(Bench) }")
        main.append("}")
    handlers = ", ".join(f"m{m}::make()" for m in range(len(chunks)))
    main.append(f"fn main() {{ let handlers = [{handlers}]; println!(\"{{}}\", handlers.len()); }}")
    with open(os.path.join(crate, "src", "main.rs"), "w") as f:
        f.write("\n".join(main) + "\n")
    runtime = os.path.join(source, "host-runtime")
    with open(os.path.join(crate, "Cargo.toml"), "w") as f:
        f.write(
            '[package]\nname = "scale-bench"\nversion = "0.0.0"\nedition = "2024"\npublish = false\n\n'
            f"[dependencies]\nhost-runtime = {{ path = {json.dumps(runtime)} }}\n"
            'serde_json = "1"\nserde = "1"\n\n[workspace]\n'
        )
    shutil.copy(os.path.join(source, "Cargo.lock"), os.path.join(crate, "Cargo.lock"))


def expansion_figures(cli, crate, chunks):
    lines, types = 0, 0
    for m in range(len(chunks)):
        text = run([cli, "host", "expand", f"m{m}.json"], cwd=crate)
        lines += text.count("\n")
        types += len(re.findall(r"^\s*pub (?:struct|enum) ", text, re.M))
    return lines, types


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("revs", nargs="*", default=["."])
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--corpus", default="github")
    parser.add_argument("--dir", default=os.path.join(ROOT, "target", "scale-bench"))
    args = parser.parse_args()
    work = os.path.abspath(args.dir)
    os.makedirs(work, exist_ok=True)

    chosen = schemas(args.corpus.split(","))
    chunks = [chosen[i : i + PER_MANIFEST] for i in range(0, len(chosen), PER_MANIFEST)]
    copies, distinct, whole = definition_figures(chosen, chunks)
    print(
        f"{len(chosen)} procedures in {len(chunks)} manifests; definitions: {copies} copies, "
        f"{distinct} distinct within their manifest ({whole} across the crate)"
    )

    revs = []
    for rev in args.revs:
        label = "working tree" if rev == "." else rev
        if rev == ".":
            source = ROOT
        else:
            source = os.path.join(work, f"src-{re.sub(r'[^A-Za-z0-9]', '_', rev)}")
            if os.path.exists(source):
                run(["git", "worktree", "remove", "--force", source], cwd=ROOT)
            run(["git", "worktree", "add", "--detach", source, rev], cwd=ROOT)
        slug = re.sub(r"[^A-Za-z0-9]", "_", rev if rev != "." else "worktree")
        cli_target = os.path.join(work, f"cli-{slug}")
        print(f"[{label}] building cargo-host (not timed)", flush=True)
        run(["cargo", "build", "--quiet", "-p", "host-cli", "--target-dir", cli_target], cwd=source)
        crate = os.path.join(work, f"crate-{slug}")
        write_crate(crate, source, chunks)
        env = dict(os.environ, CARGO_TARGET_DIR=os.path.join(crate, "target"), CARGO_INCREMENTAL="1")
        run(["cargo", "fetch", "--quiet"], cwd=crate, env=env)
        cli = os.path.join(cli_target, "debug", "cargo-host")
        lines, types = expansion_figures(cli, crate, chunks)
        revs.append({"label": label, "source": source, "crate": crate, "env": env,
                     "lines": lines, "types": types, "clean": [], "alone": [], "touched": []})

    for n in range(args.runs):
        for r in revs:
            crate, env = r["crate"], r["env"]
            shutil.rmtree(env["CARGO_TARGET_DIR"], ignore_errors=True)
            print(f"[{r['label']}] run {n + 1}: clean build", flush=True)
            r["clean"].append(timed(["cargo", "build", "--quiet"], crate, env))
            run(["cargo", "clean", "--quiet", "-p", "scale-bench"], cwd=crate, env=env)
            r["alone"].append(timed(["cargo", "build", "--quiet"], crate, env))
            with open(os.path.join(crate, "src", "main.rs"), "a") as f:
                f.write(f"// changed {n}\n")
            r["touched"].append(timed(["cargo", "build", "--quiet"], crate, env))

    print()
    print("| revision | generated lines | types | clean build | the crate alone | after a change to main.rs |")
    print("|---|---|---|---|---|---|")
    for r in revs:
        def med(xs):
            if not xs:
                return "not run"
            return f"{statistics.median(xs):.0f} s" + (f" ({min(xs):.0f}–{max(xs):.0f})" if len(xs) > 1 else "")
        print(f"| {r['label']} | {r['lines']:,} | {r['types']:,} | {med(r['clean'])} | "
              f"{med(r['alone'])} | {med(r['touched'])} |")
    for rev, r in zip(args.revs, revs):
        if rev != ".":
            run(["git", "worktree", "remove", "--force", r["source"]], cwd=ROOT)


if __name__ == "__main__":
    main()
