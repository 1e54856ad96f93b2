#!/usr/bin/env python3
"""Every Rust function outside tests holds at most LIMIT lines (default 120).

A function that long reads as phases run one after another; each phase wants a name of its own.
Counted from the line of `fn` to the line of its closing brace. Test code is not counted: files
under `tests/`, `benches/`, `fuzz/` and `examples/*/tests`, and anything after a `#[cfg(test)]`
line in a file (test modules sit at the end of a file in this project). Generated and vendored
files (target folders, node_modules) are skipped.

    python3 scripts/fn_length.py            # fails naming each function over the limit
    python3 scripts/fn_length.py --list 80  # every function over 80 lines, longest first
"""

import os
import re
import subprocess
import sys

LIMIT = 120
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SKIP_PARTS = {"tests", "benches", "fuzz", "target", "node_modules", "ui"}
FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?(?:extern\s+\"[^\"]*\"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)")


def tracked_rust_files():
    out = subprocess.run(
        ["git", "ls-files", "*.rs"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    for path in out.split():
        parts = path.split("/")
        if SKIP_PARTS.intersection(parts[:-1]):
            continue
        yield path


def code_only(text):
    """`text` with comments, strings and char literals blanked, lines kept."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            depth, j = 1, i + 2
            while j < n and depth:
                if text.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif text.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            hashes = re.match(r'r(#*)"', text[i:]).group(1)
            end = text.find('"' + hashes, i + 2 + len(hashes))
            end = n if end < 0 else end + 1 + len(hashes)
            out.append(re.sub(r"[^\n]", " ", text[i:end]))
            i = end
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(re.sub(r"[^\n]", " ", text[i : j + 1]))
            i = j + 1
        elif c == "'":
            # A char literal ('a', '\n', '\u{1F980}', '{'), not a lifetime ('a).
            m = re.match(r"'(\\u\{[0-9a-fA-F]+\}|\\.|[^\\'])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path):
    try:
        with open(os.path.join(ROOT, path), encoding="utf-8") as f:
            text = f.read()
    except FileNotFoundError:  # Deleted in the work tree, not yet in the index.
        return
    cut = text.find("#[cfg(test)]")
    if cut >= 0:
        text = text[:cut]
    code = code_only(text)
    lines = code.split("\n")
    offsets = [0]
    for line in lines:
        offsets.append(offsets[-1] + len(line) + 1)
    for number, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        # The body opens at the first `{` after the signature, unless a `;` ends it first.
        start = offsets[number] + m.end()
        depth, i, opened = 0, start, None
        while i < len(code):
            ch = code[i]
            if opened is None and ch == ";" and depth == 0:
                break
            if ch in "([":
                depth += 1
            elif ch in ")]":
                depth -= 1
            elif ch == "{":
                if opened is None and depth == 0:
                    opened, depth = i, 0
                    level = 1
                    i += 1
                    while i < len(code) and level:
                        if code[i] == "{":
                            level += 1
                        elif code[i] == "}":
                            level -= 1
                        i += 1
                    end_line = code.count("\n", 0, i - 1)
                    yield m.group(1), number + 1, end_line - number + 1
                    break
                depth += 1
            elif ch == "}":
                depth -= 1
            i += 1


def main():
    args = sys.argv[1:]
    limit = LIMIT
    listing = False
    if args[:1] == ["--list"]:
        listing = True
        limit = int(args[1]) if len(args) > 1 else LIMIT
    found = []
    for path in tracked_rust_files():
        for name, line, length in functions(path):
            if length > limit:
                found.append((length, f"{path}:{line}", name))
    found.sort(reverse=True)
    for length, at, name in found:
        print(f"{length:5} lines  {at}  fn {name}")
    if listing:
        return 0
    if found:
        print(
            f"{len(found)} function(s) over {limit} lines outside tests: give each phase, clause or "
            "case a function of its own",
            file=sys.stderr,
        )
        return 1
    print(f"function length: every function outside tests holds at most {limit} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
