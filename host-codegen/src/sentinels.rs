//! The sentinels that carry facts from the lowering pass (`lower.rs`) through typify to the rewrite
//! of its output (`types/rewrite.rs`), and from the generator to the final text: a schema can only
//! tell typify things through its descriptions and member names, so the facts ride along as marks
//! that typify copies into docs and identifiers. Each is removed or replaced before the expansion
//! is handed out; the test below expands every golden manifest and finds none left.

/// How every mark in a description opens; its end is [`CLOSE`].
pub(crate) const OPEN: &str = "@@host-";

/// What every mark opens and closes with. The schema's own docs are written with it apart
/// (`lower::description`).
pub(crate) const RESERVED: &str = "@@";

/// How every mark in a description closes.
pub(crate) const CLOSE: &str = "@@";

/// Where the manifest pointer of root `index` goes in a description: replaced when the module's text
/// is spliced in, so that modules with equal schemas can share one typing.
pub(crate) fn at_placeholder(index: usize) -> String {
    format!("{OPEN}at-{index}{CLOSE}")
}

/// Where the sentence saying what root `index` is goes in its description.
pub(crate) fn origin_placeholder(index: usize) -> String {
    format!("{OPEN}root-{index}{CLOSE}")
}

/// Written into the description of an optional member that may be `null`: `types::rewrite` types
/// that member as `Nullable<T>` (absent, `null` or a value) and removes the mark.
pub(crate) const NULLABLE_MARK: &str = "@@host-nullable@@";

/// Opens a mark, written into the description of an object, naming one of its optional members
/// that is a bare `$ref` and may be `null` (the member's own schema cannot carry a description):
/// `@@host-nullable-member:<the name's UTF-8 in hex>@@`. `types::rewrite` types that member as
/// `Nullable<T>` and removes the mark.
pub(crate) const NULLABLE_MEMBER_MARK: &str = "@@host-nullable-member:";

/// The [`NULLABLE_MEMBER_MARK`] of member `name`.
pub(crate) fn member_mark(name: &str) -> String {
    let hex: String = name.bytes().map(|b| format!("{b:02x}")).collect();
    format!("{NULLABLE_MEMBER_MARK}{hex}{CLOSE}")
}

/// Each [`NULLABLE_MEMBER_MARK`] in `text`, as [`member_mark`] writes it: the whole mark and the hex
/// between its opening and its closing `@@`.
pub(crate) fn member_marks(text: &str) -> impl Iterator<Item = (&str, &str)> {
    let open = NULLABLE_MEMBER_MARK;
    let mut rest = text;
    std::iter::from_fn(move || {
        let at = rest.find(open)?;
        let tail = &rest[at + open.len()..];
        let end = tail.find(CLOSE)?;
        let found = (&rest[at..at + open.len() + end + CLOSE.len()], &tail[..end]);
        rest = &tail[end + CLOSE.len()..];
        Some(found)
    })
}

/// The member that stands, in a variant of a tagged union, for the members its schema does not name:
/// typify tags a union only when its variants are closed, so open variants are closed with this
/// member in their place, which `types::rewrite` turns back into the flattened map `extra`.
pub(crate) const OTHER_MEMBERS: &str = "__host_sdk_other_members__";

/// Opens the JSON name a renamed member carries in its lowered name ([`renamed_member`]).
const RENAMED_OPEN: &str = "@@=";

/// Closes the JSON name a renamed member carries in its lowered name.
const RENAMED_CLOSE: &str = "=@@";

/// The characters that spell the JSON name of a renamed member, one per half byte: none of them
/// may continue an identifier, so typify's field name (and the names of nested types) leaves them
/// out, and none is `"`, `\`, `=` or `@`.
const RENAMED_DIGITS: [char; 16] = [
    '!', '#', '$', '%', '&', '(', ')', '*', '+', ',', '-', '.', '/', ':', ';', '<',
];

/// The name under which the lowering pass hands typify a member whose own Rust field name is
/// taken: `field` followed by the member's JSON name spelled in [`RENAMED_DIGITS`]. typify names
/// the field `field` (the rest is no identifier) and writes the whole name in
/// `#[serde(rename = "...")]`, where `types::rewrite` puts the JSON name back
/// ([`renamed_json_name`]). The JSON name travels in the member's name rather than in its docs,
/// since typify drops a member's docs where it merges schemas, and the name is what decides which
/// member goes on the wire.
pub(crate) fn renamed_member(field: &str, json: &str) -> String {
    let mut out = format!("{field}{RENAMED_OPEN}");
    for b in json.bytes() {
        out.push(RENAMED_DIGITS[usize::from(b >> 4)]);
        out.push(RENAMED_DIGITS[usize::from(b & 0x0f)]);
    }
    out.push_str(RENAMED_CLOSE);
    out
}

/// Whether a name or string value of a schema holds what opens a mark ([`OPEN`] or the opening
/// of a [`renamed_member`] name): the generator would read it as its own, so such a schema is
/// typed as JSON (see `lower::reserved_text_at`).
pub(crate) fn opens_a_mark(text: &str) -> bool {
    text.contains(OPEN) || text.contains(RENAMED_OPEN)
}

/// The Rust field name and the JSON name of a [`renamed_member`] name, or `None` for any other name.
pub(crate) fn renamed_json_name(name: &str) -> Option<(&str, String)> {
    let (field, rest) = name.split_once(RENAMED_OPEN)?;
    let spelled = rest.strip_suffix(RENAMED_CLOSE)?;
    let digit = |c: char| RENAMED_DIGITS.iter().position(|d| *d == c);
    let digits: Option<Vec<usize>> = spelled.chars().map(digit).collect();
    let digits = digits.filter(|d| d.len() % 2 == 0)?;
    let bytes: Vec<u8> = digits
        .chunks(2)
        .map(|pair| (pair[0] * 16 + pair[1]) as u8)
        .collect();
    Some((field, String::from_utf8(bytes).ok()?))
}

/// The identifiers the generator leaves where a typed schema module goes; `Types::splice` replaces
/// each with the module's text.
pub(crate) const MODULE_MARKER: &str = "__host_generated_types_";

/// The first sentinel left in `text`, if any.
#[cfg(test)]
pub(crate) fn first_in(text: &str) -> Option<&'static str> {
    [OPEN, OTHER_MEMBERS, MODULE_MARKER, RENAMED_OPEN]
        .into_iter()
        .find(|s| text.contains(s))
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use super::*;

    /// The manifests whose expansions are committed in `tests/golden`, and every valid fixture.
    fn golden_manifests() -> Vec<PathBuf> {
        let fixtures =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("../host-manifest/tests/fixtures");
        let mut out: Vec<PathBuf> = std::fs::read_dir(fixtures.join("valid"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path().join("host.extension.json"))
            .filter(|p| p.is_file())
            .collect();
        out.push(fixtures.join("invalid/widget-slot.json"));
        out.push(fixtures.join("invalid/schema-type-scopes.json"));
        out.sort();
        out
    }

    #[test]
    fn no_sentinel_survives_into_an_expansion() {
        let manifests = golden_manifests();
        assert!(manifests.len() >= 8, "{manifests:?}");
        for path in manifests {
            let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
                continue;
            };
            for validators in [false, true] {
                let e = crate::Settings::new()
                    .validators(validators)
                    .expand(&name.to_string_lossy(), Some(dir));
                assert_eq!(first_in(&e.items), None, "{}", path.display());
                assert_eq!(first_in(&e.pretty()), None, "{}", path.display());
            }
        }
    }

    #[test]
    fn a_renamed_member_carries_its_json_name() {
        for json in ["extra", "a-b", "Self", "", "ünï \"quoted\" \\ @@=x=@@"] {
            let name = renamed_member("extra_member", json);
            assert_eq!(
                renamed_json_name(&name),
                Some(("extra_member", json.to_owned())),
                "{name}"
            );
            // typify's field name and the names it gives nested types keep only `field`.
            assert!(
                name["extra_member".len()..]
                    .chars()
                    .all(|c| !unicode_ident::is_xid_continue(c) && c != '"' && c != '\\'),
                "{name}"
            );
        }
        assert_eq!(renamed_json_name("extra"), None);
        assert_eq!(renamed_json_name("a@@=!x=@@"), None);
        assert_eq!(first_in(&renamed_member("a", "b")), Some(RENAMED_OPEN));
    }

    #[test]
    fn the_marks_are_found() {
        assert_eq!(first_in(&member_mark("a")), Some(OPEN));
        assert_eq!(first_in(&at_placeholder(3)), Some(OPEN));
        assert_eq!(
            first_in("struct __host_generated_types_x;"),
            Some(MODULE_MARKER)
        );
        assert_eq!(first_in("pub mod __host_validators {}"), None);
    }
}
