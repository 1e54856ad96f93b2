//! `diff` against the fixture pairs in `tests/fixtures/diff` (written by `scripts/diff_fixtures.py`:
//! one base manifest and one edit per case) and against edited copies of the example's manifest.

#![allow(clippy::expect_used, clippy::unwrap_used, clippy::panic)] // Tests fail loudly on purpose.

use std::path::Path;

use host_manifest::Manifest;
use host_manifest::diff::{Change, Class, Side, diff};
use serde_json::{Value, json};

/// The typed manifest `diff` compares, from a valid manifest's bytes.
fn typed(bytes: &[u8], name: &str) -> Manifest {
    host_manifest::validate_bytes(bytes, None)
        .into_manifest()
        .unwrap_or_else(|report| panic!("{name}: {:?}", report.diagnostics()))
}

/// A valid manifest file: its typed model, and its JSON as written (pointers are checked against
/// it).
fn valid(path: &Path) -> (Manifest, Value) {
    let bytes = std::fs::read(path).unwrap();
    let manifest = typed(&bytes, &path.display().to_string());
    (manifest, serde_json::from_slice(&bytes).unwrap())
}

fn line(c: &Change) -> String {
    let side = if c.side == Side::Old { "old:" } else { "" };
    format!("{} {side}{}", c.class.as_str(), c.pointer)
}

#[test]
fn every_fixture_pair_is_classified_as_expected() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/diff");
    let mut cases = 0;
    let mut classes = std::collections::BTreeSet::new();
    for entry in std::fs::read_dir(&root).unwrap() {
        let dir = entry.unwrap().path();
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let (old, old_json) = valid(&dir.join("old.json"));
        let (new, new_json) = valid(&dir.join("new.json"));
        let changes = diff(&old, &new);
        let got: Vec<String> = changes.iter().map(line).collect();
        let expected: Vec<String> = std::fs::read_to_string(dir.join("expected.txt"))
            .unwrap()
            .lines()
            .map(str::to_owned)
            .collect();
        assert_eq!(got, expected, "{name}:\n{changes:#?}");
        // The folder's name starts with the most severe class of its changes.
        let worst = changes.iter().map(|c| c.class).min().unwrap_or(Class::Safe);
        assert!(name.starts_with(worst.as_str()), "{name}: {worst:?}");
        for c in &changes {
            assert!(!c.message.is_empty() && c.message.len() < 300, "{c:?}");
            let manifest = if c.side == Side::Old {
                &old_json
            } else {
                &new_json
            };
            assert!(
                manifest.pointer(&c.pointer).is_some(),
                "{name}: {} does not point into the {} manifest",
                c.pointer,
                c.side.as_str()
            );
        }
        classes.insert(worst);
        cases += 1;
    }
    assert!(cases >= 30, "only {cases} cases");
    assert_eq!(classes.len(), 3, "every class has cases");
}

fn example() -> (Manifest, Value) {
    valid(
        &Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../examples/keyword-tracker/host.extension.json"),
    )
}

/// The example with one edit, and what `diff` says about it.
fn edited(edit: impl FnOnce(&mut Value)) -> Vec<String> {
    edited_changes(edit).iter().map(line).collect()
}

/// The example with one edit, and the changes `diff` finds.
fn edited_changes(edit: impl FnOnce(&mut Value)) -> Vec<Change> {
    let (old, mut new) = example();
    edit(&mut new);
    let new = typed(&serde_json::to_vec(&new).unwrap(), "the edited example");
    diff(&old, &new)
}

#[test]
fn edited_copies_of_the_example() {
    assert_eq!(edited(|_| {}), Vec::<String>::new());
    // The tracked-keyword procedure now needs a store.
    assert_eq!(
        edited(|m| {
            let input = &mut m["server"]["procedures"]["addKeyword"]["input"];
            input["properties"]["store"] =
                json!({ "type": "string", "enum": ["app_store", "google_play"] });
            input["required"]
                .as_array_mut()
                .unwrap()
                .push(json!("store"));
        }),
        [
            "breaking /server/procedures/addKeyword/input/required",
            "safe /server/procedures/addKeyword/input/properties/store",
        ]
    );
    // A metric renamed is one removed and one added.
    assert_eq!(
        edited(|m| m["contributes"]["connector"]["metrics"][2]["key"] = json!("store_impressions")),
        [
            "breaking old:/contributes/connector/metrics/2",
            "safe /contributes/connector/metrics/2",
        ]
    );
    // Alerts may now name any country, not only two capital letters.
    let widened = edited(|m| {
        let alert = m["contributes"]["webhooks"]
            .as_array_mut()
            .unwrap()
            .iter_mut()
            .find(|w| w["event"] == "rank.dropped")
            .unwrap();
        alert["payload"]["properties"]["country"]
            .as_object_mut()
            .unwrap()
            .remove("pattern");
    });
    assert_eq!(widened.len(), 1, "{widened:?}");
    assert!(
        widened[0].starts_with("risky /contributes/webhooks/"),
        "{widened:?}"
    );
    // Comments stop syncing back.
    assert_eq!(
        edited(|m| m["contributes"]["work"]["comments"] = json!("none")),
        ["breaking /contributes/work/comments"]
    );
    // A new sandbox address and a reworded tool.
    assert_eq!(
        edited(|m| {
            m["server"]["sandboxBaseUrl"] = json!("https://sandbox2.keywordtracker.example/host");
            m["contributes"]["ai"]["tools"][0]["description"] = json!("Daily ranks of a keyword.");
        }),
        [
            "risky /server/sandboxBaseUrl",
            "safe /contributes/ai/tools/0/description",
        ]
    );
}

#[test]
fn members_without_a_rule_of_their_own_are_compared_as_a_whole() {
    let changes = edited_changes(|m| {
        m["server"]
            .as_object_mut()
            .unwrap()
            .remove("sandboxBaseUrl");
        m["server"]["procedures"]["listWatchlists"]["kind"] = json!("write");
        m["contributes"]["settings"]["entry"] = json!("ui/Preferences.tsx");
        m["contributes"]["connector"]["auth"]["fields"][1]["label"] = json!("Team");
        m["contributes"]["storage"]["preferences"]["singleton"] = json!(false);
        m["listing"] = json!({ "website": "https://keywordtracker.example" });
    });
    let got: Vec<String> = changes
        .iter()
        .map(|c| format!("{}  {}", line(c), c.message))
        .collect();
    assert_eq!(
        got,
        [
            r#"risky /contributes/settings/entry  `/contributes/settings/entry` changes from "ui/Settings.tsx" to "ui/Preferences.tsx""#,
            "risky /contributes/storage/preferences/singleton  storage collection `preferences` changes `singleton` from true to false",
            r#"risky /listing  `/listing` is added: {"website":"https://keywordtracker.example"}"#,
            r#"risky /server/procedures/listWatchlists/kind  procedure `listWatchlists` changes `kind` from "read" to "write""#,
            r#"risky old:/server/sandboxBaseUrl  `/server/sandboxBaseUrl` is removed (was "https://sandbox.keywordtracker.example/host")"#,
            r#"safe /contributes/connector/auth/fields/1/label  auth field `workspace` changes `label` from "Workspace" to "Team""#,
        ]
    );
}
