#!/usr/bin/env python3
"""Writes the `cargo host diff` fixture pairs under host-manifest/tests/fixtures/diff/.

Each case is a folder `<class>-<what>` holding `old.json` (the base manifest below), `new.json`
(the base with one edit) and `expected.txt` (the changes `diff` must report, one
`<class> <pointer>` per line, `old:` before pointers into the old manifest). Run it again after
changing the base or a case; the test reads the folders, not this script.
"""
import copy
import json
import pathlib
import shutil

BASE = {
    "$schema": "https://host.example/schemas/extension/v2.json",
    "id": "rank-watch",
    "name": "Rank Watch",
    "description": "Keyword ranks for apps, with alerts and a task board.",
    "icon": "icon.svg",
    "category": "market_data",
    "sdk": "^2.0.0",
    "visibility": "private",
    "installScope": "project",
    "scopes": [
        {"key": "ai:tools"},
        {"key": "ai:actions"},
        {"key": "ai:skills"},
        {"key": "insights:write"},
        {"key": "metrics:write"},
        {"key": "alerts:write"},
        {"key": "work:create"},
        {"key": "work:sync"},
    ],
    "contributes": {
        "ai": {
            "tools": [
                {
                    "id": "keyword-ranks",
                    "description": "Daily ranks of one keyword.",
                    "input": {
                        "type": "object",
                        "properties": {
                            "keyword": {"type": "string", "minLength": 1, "maxLength": 100},
                            "days": {"type": "number", "minimum": 1, "maximum": 90},
                            "store": {"type": "string", "enum": ["app_store", "google_play"]},
                        },
                        "required": ["keyword"],
                    },
                    "returns": "series",
                    "cost": "low",
                },
                {
                    "id": "top-movers",
                    "description": "Keywords that moved most.",
                    "input": {"type": "object", "properties": {}, "additionalProperties": False},
                    "returns": "table",
                    "cost": "low",
                },
            ],
            "actions": [
                {
                    "id": "save-insight",
                    "description": "Saves an insight about a keyword.",
                    "input": {
                        "type": "object",
                        "properties": {"summary": {"type": "string", "minLength": 10}},
                        "required": ["summary"],
                        "additionalProperties": False,
                    },
                    "approval": True,
                    "reversible": True,
                    "scope": "insights:write",
                }
            ],
            "mentions": [{"id": "keyword", "label": "Keyword", "list": "/host/mentions/keyword"}],
            "context": [
                {
                    "id": "tracked",
                    "description": "The tracked keywords.",
                    "when": ["turn_start"],
                }
            ],
        },
        "webhooks": [
            {
                "event": "rank.dropped",
                "as": "alert",
                "payload": {
                    "type": "object",
                    "properties": {
                        "why": {"type": "string", "minLength": 1, "maxLength": 280},
                        "keyword": {"type": "string"},
                    },
                    "required": ["why"],
                    "additionalProperties": False,
                },
            }
        ],
        "connector": {
            "auth": {
                "method": "api_key",
                "fields": [
                    {"name": "api_key", "label": "API key", "type": "password", "required": True}
                ],
            },
            "sync": "6h",
            "metrics": [
                {
                    "key": "average_rank",
                    "label": "Average rank",
                    "unit": "count",
                    "kind": "gauge",
                    "dimensions": [{"key": "country", "label": "Country"}],
                }
            ],
        },
        "work": {
            "kind": "tracker",
            "container": {"label": "Board", "list": "/host/work/boards"},
            "creates": ["issue", "page"],
            "fields": {"priority": ["high", "low"], "required": []},
            "attachments": ["link"],
            "comments": "two-way",
            "identity": "install",
        },
    },
    "server": {
        "baseUrl": "https://api.rankwatch.example/host",
        "procedures": {
            "listWatchlists": {
                "input": {"type": "object", "properties": {}, "additionalProperties": False},
                "output": {
                    "type": "object",
                    "properties": {
                        "items": {
                            "type": "array",
                            "items": {
                                "type": "object",
                                "properties": {
                                    "id": {"type": "string"},
                                    "state": {"type": "string", "enum": ["active", "paused"]},
                                },
                                "required": ["id"],
                                "additionalProperties": False,
                            },
                        }
                    },
                    "required": ["items"],
                    "additionalProperties": False,
                },
                "kind": "read",
            }
        },
        "events": ["release.shipped", "install.created"],
    },
}

AI = ("contributes", "ai")


def get(m, *path):
    for p in path:
        m = m[p]
    return m


def tool_input(m):
    return get(m, *AI, "tools", 0, "input")


CASES = {
    # Breaking: installs of the old version stop working as they did.
    "breaking-tool-removed": (
        lambda m: get(m, *AI, "tools").pop(1),
        ["breaking old:/contributes/ai/tools/1"],
    ),
    "breaking-action-removed": (
        lambda m: get(m, *AI).pop("actions"),
        ["breaking old:/contributes/ai/actions/0"],
    ),
    "breaking-mention-removed": (
        lambda m: get(m, *AI).pop("mentions"),
        ["breaking old:/contributes/ai/mentions/0"],
    ),
    "breaking-context-removed": (
        lambda m: get(m, *AI).pop("context"),
        ["breaking old:/contributes/ai/context/0"],
    ),
    "breaking-procedure-removed": (
        lambda m: m["server"].pop("procedures"),
        ["breaking old:/server/procedures/listWatchlists"],
    ),
    "breaking-webhook-removed": (
        lambda m: (get(m, "contributes").pop("webhooks"), m["scopes"].pop(5)),
        ["breaking old:/contributes/webhooks/0", "safe old:/scopes/5"],
    ),
    "breaking-event-unsubscribed": (
        lambda m: m["server"]["events"].remove("install.created"),
        ["breaking old:/server/events/1"],
    ),
    "breaking-metric-dimension-removed": (
        lambda m: get(m, "contributes", "connector", "metrics", 0)["dimensions"].clear(),
        ["breaking old:/contributes/connector/metrics/0/dimensions/0"],
    ),
    "breaking-input-new-required": (
        lambda m: tool_input(m)["required"].append("days"),
        ["breaking /contributes/ai/tools/0/input/required"],
    ),
    "breaking-input-type-narrowed": (
        lambda m: tool_input(m)["properties"]["days"].update(type="integer"),
        ["breaking /contributes/ai/tools/0/input/properties/days/type"],
    ),
    "breaking-input-bounds-tightened": (
        lambda m: tool_input(m)["properties"]["days"].update(maximum=30),
        ["breaking /contributes/ai/tools/0/input/properties/days/maximum"],
    ),
    "breaking-input-enum-value-removed": (
        lambda m: tool_input(m)["properties"]["store"]["enum"].pop(),
        ["breaking /contributes/ai/tools/0/input/properties/store/enum"],
    ),
    "breaking-input-closed": (
        lambda m: tool_input(m).update(additionalProperties=False),
        ["breaking /contributes/ai/tools/0/input/additionalProperties"],
    ),
    "breaking-action-input-pattern-added": (
        lambda m: get(m, *AI, "actions", 0, "input", "properties", "summary").update(pattern="^[A-Z]"),
        ["breaking /contributes/ai/actions/0/input/properties/summary/pattern"],
    ),
    "breaking-returns-changed": (
        lambda m: get(m, *AI, "tools", 1).update(returns="list"),
        ["breaking /contributes/ai/tools/1/returns"],
    ),
    "breaking-install-scope-changed": (
        lambda m: m.update(installScope="organization"),
        ["breaking /installScope"],
    ),
    "breaking-auth-field-required-added": (
        lambda m: get(m, "contributes", "connector", "auth", "fields").append(
            {"name": "workspace", "label": "Workspace", "type": "text", "required": True}
        ),
        ["breaking /contributes/connector/auth/fields/1"],
    ),
    "breaking-work-kind-removed": (
        lambda m: get(m, "contributes", "work", "creates").remove("page"),
        ["breaking old:/contributes/work/creates/1"],
    ),
    # Risky: installs keep working, but someone must act or may be surprised.
    "risky-scope-added": (
        lambda m: m["scopes"].append({"key": "projects:read"}),
        ["risky /scopes/8"],
    ),
    "risky-output-widened": (
        lambda m: get(m, "server", "procedures", "listWatchlists", "output", "properties", "items", "items", "properties", "state", "enum").append("archived"),
        ["risky /server/procedures/listWatchlists/output/properties/items/items/properties/state/enum"],
    ),
    "risky-payload-widened": (
        lambda m: get(m, "contributes", "webhooks", 0, "payload", "properties", "why").update(maxLength=500),
        ["risky /contributes/webhooks/0/payload/properties/why/maxLength"],
    ),
    "risky-base-url-changed": (
        lambda m: m["server"].update(baseUrl="https://api2.rankwatch.example/host"),
        ["risky /server/baseUrl"],
    ),
    "risky-input-combinator-changed": (
        lambda m: tool_input(m).update(anyOf=[{"required": ["keyword"]}]),
        ["risky /contributes/ai/tools/0/input/anyOf"],
    ),
    "risky-action-scope-changed": (
        lambda m: (get(m, *AI, "actions", 0).update(scope="alerts:write")),
        ["risky /contributes/ai/actions/0/scope"],
    ),
    # Safe: additions and text.
    "safe-tool-added": (
        lambda m: get(m, *AI, "tools").append(
            {
                "id": "keyword-ideas",
                "description": "Ideas for new keywords.",
                "input": {"type": "object", "properties": {}},
                "returns": "list",
                "cost": "low",
            }
        ),
        ["safe /contributes/ai/tools/2"],
    ),
    "safe-input-optional-property-added": (
        lambda m: tool_input(m)["properties"].update(country={"type": "string"}),
        ["safe /contributes/ai/tools/0/input/properties/country"],
    ),
    "safe-input-loosened": (
        lambda m: (
            tool_input(m)["properties"]["days"].update(maximum=365),
            tool_input(m)["properties"]["store"]["enum"].append("huawei"),
        ),
        [
            "safe /contributes/ai/tools/0/input/properties/days/maximum",
            "safe /contributes/ai/tools/0/input/properties/store/enum",
        ],
    ),
    "safe-output-narrowed": (
        lambda m: get(m, "server", "procedures", "listWatchlists", "output", "properties", "items").update(maxItems=100),
        ["safe /server/procedures/listWatchlists/output/properties/items/maxItems"],
    ),
    "safe-text-changed": (
        lambda m: (
            m.update(description="Keyword ranks for apps, with rank alerts and a task board."),
            get(m, *AI, "tools", 0).update(description="Daily ranks of one keyword, per store."),
        ),
        ["safe /contributes/ai/tools/0/description", "safe /description"],
    ),
    "safe-scope-removed": (
        lambda m: m["scopes"].pop(2) and get(m, *AI).pop("context"),
        ["breaking old:/contributes/ai/context/0", "safe old:/scopes/2"],
    ),
    "safe-event-subscribed": (
        lambda m: m["server"]["events"].append("install.paused"),
        ["safe /server/events/2"],
    ),
    "safe-tools-reordered": (
        lambda m: get(m, *AI, "tools").reverse(),
        [],
    ),
    "safe-nothing-changed": (lambda m: None, []),
}

# A scope removed alone is safe; the case above also removes what needed it, so it is breaking.
CASES["breaking-context-and-its-scope-removed"] = CASES.pop("safe-scope-removed")


def main():
    root = pathlib.Path(__file__).resolve().parent.parent / "host-manifest/tests/fixtures/diff"
    if root.exists():
        shutil.rmtree(root)
    for name, (edit, expected) in sorted(CASES.items()):
        new = copy.deepcopy(BASE)
        edit(new)
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "old.json").write_text(json.dumps(BASE, indent=2) + "\n")
        (folder / "new.json").write_text(json.dumps(new, indent=2) + "\n")
        (folder / "expected.txt").write_text("".join(line + "\n" for line in expected))
    print(f"{len(CASES)} cases in {root}")


if __name__ == "__main__":
    main()
