#!/usr/bin/env python3
"""Fails when a document names a Rust item the sources no longer define.

    python3 scripts/doc_items.py

Reads the Markdown files the repository tracks (not the CHANGELOG, which names what was removed on
purpose, nor vendored folders) and takes each code span that reads as a Rust path of two or more
segments: `EventSender::new`, `host_runtime::observe::Probes`, `Settings::with_transaction_pooler()`.
Its last segment must be defined somewhere in the tracked Rust sources (a `fn`, type, trait,
constant, module, macro, enum variant or field), and each CamelCase segment before it must be a
type, trait or enum the sources define. Paths of other crates (`std::`, `tokio::`, `serde_json::`,
...) are skipped. rustdoc checks the doc comments' links (`-D warnings`); this checks the prose.
Prints each miss as `file:line: span` and exits 1 when there is one.
"""

import pathlib
import re
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SPAN = re.compile(r"`([^`\n]+)`")
PATH = re.compile(r"^(?:[A-Za-z_][A-Za-z0-9_]*)(?:::[A-Za-z_][A-Za-z0-9_]*)+$")
# Crates of the project; a path starting with anything else lowercase is another crate's.
OURS = {"host_runtime", "host_manifest", "host_codegen", "host_macros", "host_interface",
        "host_runtime_build", "host_runtime_workers", "host_cli", "host_test_support",
        "keyword_tracker", "crate", "self", "super"}
# Types of other crates the docs name, with whose they are.
OTHER_TYPES = {"Service": "tower", "TypeSpace": "typify", "PgPool": "sqlx"}
SKIP_DOCS = ("CHANGELOG.md", "node_modules/", "target/", "fuzz/corpus")
DEFINITION = re.compile(
    r"\b(?:fn|struct|enum|trait|type|const|static|mod|union)\s+([A-Za-z_][A-Za-z0-9_]*)"
    r"|macro_rules!\s*([A-Za-z_][A-Za-z0-9_]*)"
)
# Variants and fields: a capitalised name opening a line inside braces, or `name:` of a field.
MEMBER = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?([A-Za-z_][A-Za-z0-9_]*)\s*(?:[,({:=]|$)")


def tracked(pattern):
    out = subprocess.run(["git", "ls-files", "-z", pattern], cwd=ROOT, capture_output=True,
                         check=True)
    return [f for f in out.stdout.decode().split("\0") if f]


def defined_names():
    names, types = set(), set()
    for path in tracked("*.rs"):
        try:
            text = (ROOT / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        for m in DEFINITION.finditer(text):
            name = m.group(1) or m.group(2)
            names.add(name)
            if re.match(r"\b(?:struct|enum|trait|type|union)\b", m.group(0)):
                types.add(name)
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith(("//", "#", "use ", "let ", "return", "}")):
                continue
            m = MEMBER.match(line)
            if m:
                names.add(m.group(1))
    # Generated at build time from the manifest: the macro's output, not the sources.
    return names, types


def spans(path):
    text = (ROOT / path).read_text(encoding="utf-8")
    in_fence = False
    for number, line in enumerate(text.splitlines(), 1):
        if line.lstrip().startswith("```"):
            in_fence = not in_fence
            continue
        if in_fence:
            continue
        for m in SPAN.finditer(line):
            yield number, m.group(1)


def item_of(span):
    """The Rust path in `span`, without a call's `(...)`, generics or a trailing `!`; or None."""
    text = re.sub(r"\(.*\)$", "", span.strip())
    text = re.sub(r"<[^<>]*>", "", text).rstrip("!")
    if not PATH.match(text):
        return None
    first = text.split("::")[0]
    if (first[0].islower() and first not in OURS) or first in OTHER_TYPES:
        return None
    return text.split("::")


def main():
    names, types = defined_names()
    misses = []
    for path in tracked("*.md"):
        if any(s in path for s in SKIP_DOCS):
            continue
        for number, span in spans(path):
            segments = item_of(span)
            if segments is None:
                continue
            last = segments[-1]
            wrong = [s for s in segments[:-1] if s[0].isupper() and s not in types]
            if last not in names or wrong:
                misses.append(f"{path}:{number}: `{span}`")
    for miss in misses:
        print(miss)
    if misses:
        print(f"{len(misses)} item(s) named in the docs are not defined in the sources",
              file=sys.stderr)
        return 1
    print("doc items: every Rust item the Markdown docs name is defined")
    return 0


if __name__ == "__main__":
    sys.exit(main())
