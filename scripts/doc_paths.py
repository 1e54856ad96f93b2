#!/usr/bin/env python3
"""Fails when a document names a file or folder of the repository that is not there.

    python3 scripts/doc_paths.py

Reads every Markdown file the repository tracks and the doc comments (`//!`, `///`) of its Rust
sources, and takes each code span (`...`) that looks like a path of the repository: no spaces, a
`/` in it, and a file extension the repository uses (or a trailing `/` for a folder). Such a path
must name something tracked, read from the repository's root, from the document's own folder, from
its crate's folder or that crate's `src/`, or as the end of a tracked path (`outbox/schedule.rs`).
URLs, globs, placeholders (`<name>`, `{...}`, `$VAR`) and paths under build folders are skipped.
Prints each miss as `file:line: path` and exits 1 when there is one.
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
EXTENSIONS = (".rs", ".md", ".py", ".sh", ".toml", ".json", ".sql", ".js", ".css", ".html",
              ".yml", ".yaml", ".txt", ".tsv", ".pgbench", ".svg", ".png", ".lock")
SPAN = re.compile(r"`([^`\s]+)`")
# Folders that exist only once something is built or installed.
GENERATED = ("target/", ".tools/", "node_modules/", "OUT_DIR", ".host-outbox", "/tmp/",
             "workers/example/build", "workers/example/.dev.vars", ".wrangler",
             "console-screenshots/", "seeds/")
# Files of other projects the docs cite, with whose they are.
EXTERNAL = {
    "lambda_http/src/request.rs": "the lambda_http crate",
    "generated/api.github.com.json": "the npm package @octokit/openapi-webhooks",
}
BRACES = re.compile(r"\{([^{}]*)\}")


def tracked():
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True)
    files = [f for f in out.stdout.decode().split("\0") if f]
    folders = {str(pathlib.PurePosixPath(f).parent) + "/" for f in files}
    for f in list(folders):
        parts = f.rstrip("/").split("/")
        for i in range(1, len(parts)):
            folders.add("/".join(parts[:i]) + "/")
    return set(files), folders


def looks_like_path(span):
    if "/" not in span or "://" in span or span.startswith(("-", "@", "http")):
        return False
    if span.startswith("/") or "path/to" in span or span in EXTERNAL:
        return False
    if any(c in span for c in "<>*$?|;()[]=\"'"):
        return False
    if "..." in span or "…" in span:
        return False
    if any(g in span for g in GENERATED):
        return False
    # `rust::paths` and `owner/repo` names are not files.
    return span.endswith(EXTENSIONS) or (span.endswith("/") and not span.startswith("/"))


def crate_dir(path):
    for parent in path.parents:
        if (ROOT / parent / "Cargo.toml").exists() and parent != pathlib.PurePosixPath("."):
            return parent
        if parent == pathlib.PurePosixPath("."):
            break
    return None


def found(span, doc, files, folders):
    span = span.lstrip("./") if span.startswith("./") else span
    span = span.split(":")[0]  # `file.rs:120`
    want = span.rstrip("/")
    is_dir = span.endswith("/")
    bases = [pathlib.PurePosixPath("."), doc.parent]
    crate = crate_dir(doc)
    if crate is not None:
        bases += [crate, crate / "src"]
    for base in bases:
        candidate = str(pathlib.PurePosixPath(base) / want).replace("./", "", 1) if str(base) != "." else want
        candidate = str(pathlib.PurePosixPath(candidate))
        if candidate in files or candidate + "/" in folders:
            return True
        # `..` in a document's own relative link.
        resolved = (ROOT / base / want).resolve()
        try:
            rel = str(resolved.relative_to(ROOT))
        except ValueError:
            continue
        if rel in files or rel + "/" in folders:
            return True
    suffix = "/" + want
    if is_dir:
        return any(f.endswith(suffix + "/") or f == want + "/" for f in folders)
    return any(f.endswith(suffix) or f == want for f in files) or any(
        f.endswith(suffix + "/") for f in folders)


def spans(path, text):
    rust = path.suffix == ".rs"
    for number, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if rust and not (stripped.startswith("//!") or stripped.startswith("///")):
            continue
        for m in SPAN.finditer(line):
            yield from ((number, one) for one in expand(m.group(1)))


def expand(span):
    """`stores/{memory,file}.rs` as the paths it stands for."""
    m = BRACES.search(span)
    if not m:
        return [span]
    return [one for choice in m.group(1).split(",")
            for one in expand(span[:m.start()] + choice + span[m.end():])]


def main():
    files, folders = tracked()
    misses = []
    for name in sorted(files):
        path = pathlib.PurePosixPath(name)
        if path.suffix not in (".md", ".rs"):
            continue
        if any(part in ("corpora", "fixtures", "node_modules", "golden") for part in path.parts):
            continue
        # A test's comments name the files it makes in a temporary folder.
        if path.suffix == ".rs" and "tests" in path.parts:
            continue
        text = (ROOT / name).read_text(errors="replace")
        for number, span in spans(path, text):
            if looks_like_path(span) and not found(span, path, files, folders):
                misses.append(f"{name}:{number}: `{span}`")
    for miss in misses:
        print(miss)
    if misses:
        print(f"{len(misses)} path(s) named in the docs do not exist", file=sys.stderr)
        return 1
    print(f"doc paths: every path named in {len(files)} tracked files' docs exists")
    return 0


if __name__ == "__main__":
    sys.exit(main())
