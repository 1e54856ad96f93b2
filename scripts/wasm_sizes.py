#!/usr/bin/env python3
"""What a wasm module's code is made of: function body bytes by crate, from its name section.

    python3 scripts/wasm_sizes.py FILE.wasm [--top N]

Reads the module's sections (code, data, names) and prints each section's size, then the code
bytes per crate (the first path segment of each function's demangled Rust name; `<T as
crate::Trait>` names count for the trait's crate when T is generic, else for T's), and the
largest functions. Needs a module with its names section (worker-build keeps it in `build/`).
"""

import argparse
import collections
import re
import sys


def leb(data, pos):
    result = shift = 0
    while True:
        byte = data[pos]
        pos += 1
        result |= (byte & 0x7F) << shift
        shift += 7
        if not byte & 0x80:
            return result, pos


def sections(data):
    if data[:4] != b"\0asm":
        raise SystemExit("not a wasm module")
    pos = 8
    while pos < len(data):
        sid = data[pos]
        size, pos = leb(data, pos + 1)
        yield sid, data[pos:pos + size]
        pos += size


def imported_functions(body):
    count, pos = leb(body, 0)
    funcs = 0
    for _ in range(count):
        for _ in range(2):
            n, pos = leb(body, pos)
            pos += n
        kind = body[pos]
        pos += 1
        if kind == 0:
            _, pos = leb(body, pos)
            funcs += 1
        elif kind == 1:
            pos += 1
            flags, pos = leb(body, pos)
            _, pos = leb(body, pos)
            if flags & 1:
                _, pos = leb(body, pos)
        elif kind == 2:
            flags, pos = leb(body, pos)
            _, pos = leb(body, pos)
            if flags & 1:
                _, pos = leb(body, pos)
        elif kind == 3:
            pos += 2
        elif kind == 4:
            pos += 1
            _, pos = leb(body, pos)
    return funcs


def function_names(body):
    pos = 0
    names = {}
    while pos < len(body):
        sub = body[pos]
        size, pos = leb(body, pos + 1)
        if sub == 1:
            p = pos
            count, p = leb(body, p)
            for _ in range(count):
                index, p = leb(body, p)
                n, p = leb(body, p)
                names[index] = body[p:p + n].decode("utf-8", "replace")
                p += n
        pos += size
    return names


def demangle(name):
    """Rust's legacy mangling (`_ZN3foo3bar17h...E`) as `foo::bar`, with `<`, `>`, spaces and
    `::` put back inside the segments."""
    if not name.startswith("_ZN"):
        return name
    pos, parts = 3, []
    while pos < len(name) and name[pos].isdigit():
        digits = re.match(r"\d+", name[pos:]).group()
        pos += len(digits)
        parts.append(name[pos:pos + int(digits)])
        pos += int(digits)
    text = "::".join(p for p in parts if not re.fullmatch(r"h[0-9a-f]{16}", p))
    for code, char in (("$LT$", "<"), ("$GT$", ">"), ("$u20$", " "), ("$RF$", "&"),
                       ("$BP$", "*"), ("$C$", ","), ("$u7b$", "{"), ("$u7d$", "}"), ("..", "::")):
        text = text.replace(code, char)
    return text.lstrip("_")


def crate_of(name):
    name = demangle(name)
    trait = re.match(r"^<(.+?) as ([A-Za-z_][A-Za-z0-9_]*)::", name)
    if trait:
        subject = trait.group(1).lstrip("&*").replace("mut ", "").replace("dyn ", "")
        first = re.match(r"([A-Za-z_][A-Za-z0-9_]*)::", subject)
        return first.group(1) if first else trait.group(2)
    first = re.match(r"^<?&?([A-Za-z_][A-Za-z0-9_]*)::", name)
    return first.group(1) if first else "(other)"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("wasm")
    parser.add_argument("--top", type=int, default=25)
    args = parser.parse_args()
    data = open(args.wasm, "rb").read()
    imports = 0
    bodies = []
    names = {}
    by_section = collections.Counter()
    section_names = {0: "custom", 1: "type", 2: "import", 3: "function", 5: "memory", 6: "global",
                     7: "export", 9: "element", 10: "code", 11: "data", 12: "datacount"}
    for sid, body in sections(data):
        label = section_names.get(sid, str(sid))
        if sid == 0:
            n, p = leb(body, 0)
            label = f"custom {body[p:p + n].decode()}"
            if body[p:p + n] == b"name":
                names = function_names(body[p + n:])
        by_section[label] += len(body)
        if sid == 2:
            imports = imported_functions(body)
        if sid == 10:
            count, pos = leb(body, 0)
            for _ in range(count):
                size, start = leb(body, pos)
                bodies.append(start + size - pos)
                pos = start + size
    print(f"{args.wasm}: {len(data):,} bytes")
    for label, size in by_section.most_common():
        print(f"  {label:<28} {size:>10,}")
    if not names:
        print("no names section: code cannot be split by crate", file=sys.stderr)
        return
    crates = collections.Counter()
    funcs = []
    for i, size in enumerate(bodies):
        name = names.get(imports + i, f"func{imports + i}")
        crates[crate_of(name)] += size
        funcs.append((size, demangle(name)))
    total = sum(bodies)
    print(f"\ncode by crate ({total:,} bytes of function bodies):")
    for crate, size in crates.most_common(args.top):
        print(f"  {crate:<28} {size:>10,}  {100 * size / total:5.1f} %")
    print(f"\nlargest functions:")
    for size, name in sorted(funcs, reverse=True)[:args.top]:
        print(f"  {size:>8,}  {name[:110]}")


if __name__ == "__main__":
    main()
