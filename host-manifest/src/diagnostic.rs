//! What validation reports: located diagnostics with a stable rule name.
//!
//! Nothing here knows about `syn` or terminals; the macro and the command-line tool turn a
//! [`Diagnostic`] into a compiler error or a rendered snippet at their own boundary.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Whether a diagnostic fails validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The manifest is invalid.
    Error,
    /// Worth fixing, never fatal.
    Warning,
}

impl Severity {
    /// `"error"` or `"warning"`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

macro_rules! rules {
    ($( $(#[doc = $doc:literal])* $variant:ident = $name:literal, )*) => {
        /// The rule a diagnostic comes from. Names are stable: tools and tests may match on them.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
        #[non_exhaustive]
        pub enum Rule {
            $( $(#[doc = $doc])* $variant, )*
        }

        impl Rule {
            /// Every rule, in declaration order.
            pub const ALL: &'static [Rule] = &[$(Rule::$variant),*];

            /// The stable name, for example `widget-slot` or `schema.required`.
            pub fn name(self) -> &'static str {
                match self { $( Rule::$variant => $name, )* }
            }

            /// What the rule checks, in one sentence.
            pub fn summary(self) -> &'static str {
                match self { $( Rule::$variant => concat!($($doc),*).trim_ascii(), )* }
            }
        }
    };
}

rules! {
    /// The file could not be read as a manifest (too large, not UTF-8).
    ManifestSize = "manifest-file",
    /// The text is not well-formed JSON.
    JsonSyntax = "json-syntax",
    /// An object names the same member twice.
    DuplicateKey = "duplicate-key",
    /// A required member is missing.
    SchemaRequired = "schema.required",
    /// A member the schema does not define.
    SchemaUnknownField = "schema.unknown-field",
    /// A value of the wrong JSON type.
    SchemaType = "schema.type",
    /// A value outside its list of allowed values.
    SchemaEnum = "schema.enum",
    /// A string that does not match its pattern.
    SchemaPattern = "schema.pattern",
    /// A string that is too short or too long.
    SchemaLength = "schema.length",
    /// An array or object with too few or too many entries.
    SchemaCount = "schema.count",
    /// A number outside its range.
    SchemaRange = "schema.range",
    /// A string that is not of its format (for example a URI).
    SchemaFormat = "schema.format",
    /// Any other structural rule of the schema.
    SchemaOther = "schema.other",
    /// The reserved `pricing` or `score` member is present.
    ReservedField = "reserved-field",
    /// A subscribed event name outside the catalogue.
    UnknownEvent = "unknown-event",
    /// A widget slot that is not on the widget's page.
    WidgetSlot = "widget-slot",
    /// A banner naming no webhook declared with `as: "banner"`.
    BannerWebhook = "banner-webhook",
    /// A marker naming no webhook declared with `as: "event"`.
    MarkerWebhook = "marker-webhook",
    /// An `sdk` value that is not an npm range, or excludes the served major.
    SdkRange = "sdk-range",
    /// A series naming a metric the connector does not declare.
    SeriesMetric = "series-metric",
    /// A contribution needs a scope that `scopes` does not declare.
    ScopeMissing = "scope-missing",
    /// `server` is missing while something needs the vendor server.
    ServerMissing = "server-missing",
    /// A public extension without all five listing fields.
    ListingIncomplete = "listing-incomplete",
    /// An organization install contributing pages, tabs, widgets or series.
    OrganizationUi = "organization-ui",
    /// More than 20 UI contributions in total.
    UiLimit = "ui-limit",
    /// A storage collection named `settings`.
    StorageReserved = "storage-reserved",
    /// An action whose `scope` is not declared under `scopes`.
    ActionScope = "action-scope",
    /// A skill or prompt naming a tool the extension does not declare.
    UndeclaredTool = "undeclared-tool",
    /// A prompt template placeholder other than `{{project.*}}`, `{{context.*}}` or an
    /// `{{input.*}}` field of the prompt's own input form.
    PromptPlaceholder = "prompt-placeholder",
    /// `work.status.webhook` names no declared webhook.
    WorkStatusWebhook = "work-status-webhook",
    /// Two contributions of one kind share an id.
    DuplicateId = "duplicate-id",
    /// Two names of one kind that would become the same Rust name (`list-runs` and `listRuns`).
    RustName = "rust-name",
    /// A scope key declared twice.
    DuplicateScope = "duplicate-scope",
    /// An alert or banner webhook whose payload does not require a string `why`.
    WebhookWhy = "webhook-why",
    /// A tool or action `input` schema over 16,384 bytes of compact JSON.
    InputSchemaSize = "input-schema-size",
    /// An embedded schema that is not itself a valid JSON Schema.
    InvalidJsonSchema = "invalid-json-schema",
    /// A `patternProperties` name needing lookaround or a backreference, in a schema checked per
    /// request.
    KeyPattern = "key-pattern",
    /// A file the manifest names does not exist next to it.
    FileMissing = "file-missing",
    /// A file path that is absolute or leaves the manifest's folder.
    FilePath = "file-path",
    /// An icon that is not a square png or svg of at most 512 KB.
    IconFormat = "icon-format",
    /// A listing screenshot that is not a png of 1600 by 1000 pixels.
    ScreenshotFormat = "screenshot-format",
    /// A declared scope that no contribution or subscribed event uses.
    UnusedScope = "unused-scope",
    /// A subscribed event whose needed scope is not declared, so it is never delivered.
    EventScopeMissing = "event-scope-missing",
    /// A reserved event under `server.events`: it validates but is never delivered yet.
    ReservedEvent = "reserved-event",
    /// A scope that writes or acts, declared without a `justification`.
    ScopeJustification = "scope-justification",
    /// The validator itself failed; please report it.
    Internal = "internal",
}

impl Serialize for Rule {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.name())
    }
}

impl Serialize for Severity {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

// Read back by name, so a diagnostic written to a file (the build script's) comes back typed.
impl<'de> Deserialize<'de> for Rule {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let name = String::deserialize(d)?;
        Rule::ALL
            .iter()
            .copied()
            .find(|r| r.name() == name)
            .ok_or_else(|| serde::de::Error::custom(format!("no rule is named `{name}`")))
    }
}

impl<'de> Deserialize<'de> for Severity {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match String::deserialize(d)?.as_str() {
            "error" => Ok(Severity::Error),
            "warning" => Ok(Severity::Warning),
            other => Err(serde::de::Error::custom(format!(
                "`{other}` is no severity; expected `error` or `warning`"
            ))),
        }
    }
}

impl fmt::Display for Rule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// One finding about a manifest, located in the file as written.
///
/// Serialises as `{"severity","rule","pointer","line","column","message"}`, in that order, and reads
/// back from the same.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    /// Error or warning.
    pub severity: Severity,
    /// The rule that found it.
    pub rule: Rule,
    /// RFC 6901 JSON pointer to the value concerned (`""` is the whole document). For a missing
    /// member it points at the member that should be there.
    pub pointer: String,
    /// 1-based line in the file.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What is wrong and how to fix it, in one or two sentences.
    pub message: String,
}

impl Diagnostic {
    /// Whether this diagnostic fails validation.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }

    /// `FILE:LINE:COL: POINTER: message`, the form the macro and plain-text tools print.
    pub fn display_with_file<'a>(&'a self, file: &'a str) -> impl fmt::Display + 'a {
        struct Located<'a>(&'a Diagnostic, &'a str);
        impl fmt::Display for Located<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let d = self.0;
                let pointer = if d.pointer.is_empty() {
                    "(document)"
                } else {
                    &d.pointer
                };
                write!(
                    f,
                    "{}:{}:{}: {pointer}: {} [{}]",
                    self.1, d.line, d.column, d.message, d.rule
                )
            }
        }
        Located(self, file)
    }
}

/// Escapes one reference token for a JSON pointer (RFC 6901: `~` as `~0`, `/` as `~1`).
pub fn escape_token(token: &str) -> std::borrow::Cow<'_, str> {
    if token.contains(['~', '/']) {
        token.replace('~', "~0").replace('/', "~1").into()
    } else {
        token.into()
    }
}

/// Splits a JSON pointer into unescaped reference tokens.
pub fn pointer_tokens(pointer: &str) -> impl Iterator<Item = String> + '_ {
    pointer
        .split('/')
        .skip(1)
        .map(|t| t.replace("~1", "/").replace("~0", "~"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_diagnostic_reads_back_as_written() {
        let d = Diagnostic {
            severity: Severity::Warning,
            rule: Rule::UnusedScope,
            pointer: "/scopes/1".into(),
            line: 3,
            column: 5,
            message: "unused".into(),
        };
        let text = serde_json::to_string(&d).unwrap_or_default();
        assert!(text.contains(r#""rule":"unused-scope""#), "{text}");
        assert_eq!(serde_json::from_str::<Diagnostic>(&text).ok(), Some(d));
        assert!(serde_json::from_str::<Rule>(r#""no-such-rule""#).is_err());
    }
}
