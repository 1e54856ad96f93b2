//! What an expansion reports besides code: the engine's diagnostics, the generator's notes about
//! embedded schemas and a manifest that could not be read, kept typed from the pipeline to the point
//! where they become tokens ([`Messages::into_tokens`]). The macro, the build script's file and
//! `cargo host expand` all go through that one function.

use std::fmt;

use host_manifest::{Diagnostic, Severity};
use proc_macro2::{Span, TokenStream};
use quote::quote_spanned;
use serde::{Deserialize, Serialize};

/// One message of an expansion.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "from", rename_all = "kebab-case")]
pub enum Message {
    /// A finding of the manifest engine, with its rule.
    Manifest(Diagnostic),
    /// A finding of the generator about an embedded schema (no engine rule checks it): a schema
    /// that could not be typed, or a node typed as `serde_json::Value`.
    Schema(SchemaNote),
    /// The manifest could not be found or read; nothing else is reported.
    Unreadable {
        /// What went wrong, as the vendor reads it.
        message: String,
    },
}

/// A finding of the generator, located in the manifest like a [`Diagnostic`].
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaNote {
    /// An error fails the build; a warning is a compiler warning.
    pub severity: Severity,
    /// RFC 6901 JSON pointer to the schema node.
    pub pointer: String,
    /// 1-based line in the manifest.
    pub line: usize,
    /// 1-based column, in characters.
    pub column: usize,
    /// What the generator did and why.
    pub message: String,
}

impl Message {
    /// Whether it fails the build.
    pub fn severity(&self) -> Severity {
        match self {
            Message::Manifest(d) => d.severity,
            Message::Schema(n) => n.severity,
            Message::Unreadable { .. } => Severity::Error,
        }
    }

    /// The text the compiler shows: `FILE:LINE:COL: /pointer: message`, with ` [rule]` for the
    /// engine's findings; `file` is the manifest's path as the macro call wrote it.
    pub fn display_with_file<'a>(&'a self, file: &'a str) -> impl fmt::Display + 'a {
        struct Shown<'a>(&'a Message, &'a str);
        impl fmt::Display for Shown<'_> {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self.0 {
                    Message::Manifest(d) => d.display_with_file(self.1).fmt(f),
                    Message::Schema(n) => write!(
                        f,
                        "{}:{}:{}: {}: {}",
                        self.1, n.line, n.column, n.pointer, n.message
                    ),
                    Message::Unreadable { message } => f.write_str(message),
                }
            }
        }
        Shown(self, file)
    }
}

/// The messages of one expansion, with the manifest's path as the macro call wrote it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Messages {
    file: String,
    list: Vec<Message>,
}

impl Messages {
    /// No messages yet, about the manifest `file` (its path as written in the macro call).
    pub fn new(file: &str) -> Messages {
        Messages {
            file: file.to_owned(),
            list: Vec::new(),
        }
    }

    /// The manifest's path as written in the macro call.
    pub fn file(&self) -> &str {
        &self.file
    }

    /// Adds a message.
    pub fn push(&mut self, message: Message) {
        self.list.push(message);
    }

    /// Every message: errors and warnings in the order they were found.
    pub fn iter(&self) -> impl Iterator<Item = &Message> {
        self.list.iter()
    }

    /// The errors.
    pub fn errors(&self) -> impl Iterator<Item = &Message> {
        self.of(Severity::Error)
    }

    /// The warnings.
    pub fn warnings(&self) -> impl Iterator<Item = &Message> {
        self.of(Severity::Warning)
    }

    /// Whether any message fails the build.
    pub fn has_errors(&self) -> bool {
        self.errors().next().is_some()
    }

    fn of(&self, severity: Severity) -> impl Iterator<Item = &Message> {
        self.list.iter().filter(move |m| m.severity() == severity)
    }

    /// Each message as the compiler shows it, errors first.
    pub fn lines(&self, severity: Severity) -> Vec<String> {
        self.of(severity)
            .map(|m| m.display_with_file(&self.file).to_string())
            .collect()
    }

    /// The messages as tokens spanned on `span` (the manifest's path literal): each error a
    /// `compile_error!`, each warning a real compiler warning. Errors come first.
    pub fn into_tokens(&self, span: Span) -> TokenStream {
        let mut out = TokenStream::new();
        for text in self.lines(Severity::Error) {
            out.extend(error_at(span, &text));
        }
        for text in self.lines(Severity::Warning) {
            out.extend(warning_at(span, &text));
        }
        out
    }
}

/// `compile_error!(message)` on `span`.
fn error_at(span: Span, message: &str) -> TokenStream {
    quote_spanned! {span=> ::core::compile_error!(#message); }
}

/// A real compiler warning on stable Rust: the use of a deprecated item whose note is the message.
fn warning_at(span: Span, message: &str) -> TokenStream {
    let name = quote::format_ident!("host_extension_warning", span = span);
    quote_spanned! {span=>
        const _: () = {
            #[deprecated(note = #message)]
            #[allow(non_upper_case_globals)]
            const #name: () = ();
            #name
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use host_manifest::Rule;

    fn sample() -> Messages {
        let mut m = Messages::new("host.extension.json");
        m.push(Message::Schema(SchemaNote {
            severity: Severity::Warning,
            pointer: "/server/procedures/a/input".into(),
            line: 4,
            column: 2,
            message: "typed as a JSON value".into(),
        }));
        m.push(Message::Manifest(Diagnostic {
            severity: Severity::Error,
            rule: Rule::SchemaPattern,
            pointer: "/id".into(),
            line: 1,
            column: 9,
            message: "bad".into(),
        }));
        m
    }

    #[test]
    fn errors_come_first_and_read_as_before() {
        let m = sample();
        assert_eq!(
            m.lines(Severity::Error),
            ["host.extension.json:1:9: /id: bad [schema.pattern]"]
        );
        assert_eq!(
            m.lines(Severity::Warning),
            ["host.extension.json:4:2: /server/procedures/a/input: typed as a JSON value"]
        );
        let tokens = m.into_tokens(Span::call_site()).to_string();
        let error = tokens.find("compile_error").unwrap_or(usize::MAX);
        let warning = tokens.find("deprecated").unwrap_or(0);
        assert!(error < warning, "{tokens}");
    }

    #[test]
    fn messages_survive_json() {
        let m = sample();
        let text = serde_json::to_string(&m).unwrap_or_default();
        assert_eq!(serde_json::from_str::<Messages>(&text).ok(), Some(m));
    }
}
