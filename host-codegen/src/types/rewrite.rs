//! The rewrite of typify's output, token by token, into code that needs no crate in the vendor's
//! build but `host-runtime`, reads well in rustdoc and keeps the facts the lowering pass marked
//! (`crate::sentinels`): a member that may be `null`, a renamed member, a variant's other members.
//!
//! Separate from [`super::typing`], which decides what typify is given and what to do when it
//! fails: this is one pass over the tokens typify wrote, and it never fails. It walks the tokens
//! rather than a syntax tree because parsing a megabyte of typify's output cost more than typify
//! itself.

use proc_macro2::{Delimiter, Group, Ident, Literal, Punct, Spacing, Span, TokenStream, TokenTree};
use quote::quote;

use crate::sentinels::{CLOSE, member_marks};

/// The crates typify's output refers to, re-exported by the runtime's hidden module ([`crate::runtime`]).
/// (The lowering pass drops `format` and `pattern`, so typify no longer writes `chrono`, `uuid` or
/// `regress` paths.)
const REEXPORTED: [&str; 2] = ["serde", "serde_json"];

/// The fixed names of schema roots: the rewrite documents an undescribed root by its role
/// ([`role_doc`]), and [`super::shared`] never shares a root.
pub(super) const ROOTS: [&str; 5] = ["Input", "Output", "Document", "Settings", "Payload"];

/// Rewrites typify's tokens:
/// - `::serde::...` (and the other re-exported crates) becomes `<runtime>::serde::...` ([`crate::runtime::PATH`]),
///   also inside serde's string attributes (`skip_serializing_if = "::serde_json::Map::is_empty"`);
/// - a type deriving serde's traits learns where serde is (`#[serde(crate = "...")]`);
/// - the schema each type repeats in its docs (`<details>` blocks) is dropped: it is the manifest's own
///   text, a fifth of the output, and the item docs keep the descriptions;
/// - typify's `defaults` helper module is hidden from docs, and its `error` module, repeated in every
///   schema module, is replaced by the runtime's one `ConversionError`;
/// - its doc of an undescribed type (the type's own name in backticks) becomes, for a root, what
///   the value is in the call, and for any other type, where its doc would come from;
/// - fields and variants the schema does not describe get a doc line naming their JSON member.
pub(super) fn rewrite(stream: TokenStream) -> TokenStream {
    rewrite_in(stream, false)
}

/// [`rewrite`], knowing whether the tokens are inside a `#[serde(...)]` attribute (the only place
/// typify writes paths in strings).
fn rewrite_in(stream: TokenStream, in_serde: bool) -> TokenStream {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let mut pass = Pass {
        out: Vec::with_capacity(tokens.len()),
        in_details: false,
        in_serde,
    };
    let mut i = 0;
    while i < tokens.len() {
        i += pass.step(&tokens, i);
    }
    pass.out.into_iter().collect()
}

/// One rule of the rewrite: at `tokens[i]`, either writes what it makes of the tokens there and
/// says how many it took, or says `None`, leaving them to the next rule.
type Clause = fn(&mut Pass, &[TokenTree], usize) -> Option<usize>;

/// The rules of the rewrite, tried in this order at each token; a token none takes is kept.
const CLAUSES: [Clause; 7] = [
    Pass::doc,
    Pass::reexported_path,
    Pass::hidden_defaults,
    Pass::error_module,
    Pass::conversion_error,
    Pass::serde_literal,
    Pass::group,
];

/// One pass over a list of tokens (the inside of each group is a pass of its own).
struct Pass {
    /// The rewritten tokens so far.
    out: Vec<TokenTree>,
    /// Whether the docs read so far opened a `<details>` block and have not closed it.
    in_details: bool,
    /// Whether the tokens are inside a `#[serde(...)]` attribute.
    in_serde: bool,
}

impl Pass {
    /// Rewrites what starts at `tokens[i]` by the first of [`CLAUSES`] that takes it, and says how
    /// many tokens that was.
    fn step(&mut self, tokens: &[TokenTree], i: usize) -> usize {
        for clause in CLAUSES {
            if let Some(taken) = clause(self, tokens, i) {
                return taken;
            }
        }
        self.out.push(tokens[i].clone());
        1
    }

    /// A `#[doc = "..."]`: typify's doc of an undescribed type becomes [`undescribed_doc`], a doc
    /// line gets the leading space a doc comment has ([`spaced_doc`]), and the schema typify
    /// repeats in a `<details>` block goes ([`Pass::in_schema_dump`]).
    fn doc(&mut self, tokens: &[TokenTree], i: usize) -> Option<usize> {
        let text = doc_text(tokens, i)?;
        if let Some(name) = title_only(&text) {
            let doc = undescribed_doc(name);
            self.out.extend(quote!(#[doc = #doc]));
            return Some(2);
        }
        if !self.in_details
            && let Some(spaced) = spaced_doc(&text)
        {
            self.out.push(tokens[i].clone());
            self.out.push(TokenTree::Group(Group::new(
                Delimiter::Bracket,
                quote!(doc = #spaced),
            )));
            return Some(2);
        }
        self.in_schema_dump(&text).then_some(2)
    }

    /// Whether the doc line `text` is part of a `<details>` block, the schema typify repeats in a
    /// type's docs: the manifest's own text, a fifth of the output, while the item docs keep the
    /// descriptions. Follows where a block opens and closes.
    fn in_schema_dump(&mut self, text: &str) -> bool {
        let dropped = self.in_details || text.contains("<details>");
        self.in_details = dropped && !text.contains("</details>");
        dropped
    }

    /// `::` before a re-exported crate (`::serde::Deserialize`): the path goes through the
    /// runtime's hidden module.
    fn reexported_path(&mut self, tokens: &[TokenTree], i: usize) -> Option<usize> {
        let TokenTree::Punct(p) = &tokens[i] else {
            return None;
        };
        if p.as_char() != ':' || p.spacing() != Spacing::Joint || !is_reexported_path(tokens, i) {
            return None;
        }
        self.out.push(tokens[i].clone());
        self.out.push(tokens[i + 1].clone());
        push_path_prefix(&mut self.out);
        Some(2)
    }

    /// typify's `defaults` helper module: kept, hidden from docs.
    fn hidden_defaults(&mut self, tokens: &[TokenTree], i: usize) -> Option<usize> {
        let defaults = is_ident(tokens, i, "pub")
            && is_ident(tokens, i + 1, "mod")
            && is_ident(tokens, i + 2, "defaults");
        if !defaults {
            return None;
        }
        self.out.extend(quote!(#[doc(hidden)]));
        self.out.push(tokens[i].clone());
        Some(1)
    }

    /// typify's `error` module, repeated in every schema module: its one type is the runtime's
    /// `ConversionError` ([`Pass::conversion_error`]), so the module goes, with its doc.
    fn error_module(&mut self, tokens: &[TokenTree], i: usize) -> Option<usize> {
        let error = is_ident(tokens, i, "pub")
            && is_ident(tokens, i + 1, "mod")
            && is_ident(tokens, i + 2, "error")
            && matches!(tokens.get(i + 3), Some(TokenTree::Group(g)) if g.delimiter() == Delimiter::Brace);
        if !error {
            return None;
        }
        if self.out.len() >= 2 && doc_text(&self.out, self.out.len() - 2).is_some() {
            self.out.truncate(self.out.len() - 2);
        }
        Some(4)
    }

    /// `self::error::ConversionError`, the type of the module [`Pass::error_module`] drops, becomes
    /// `::host_runtime::ConversionError`.
    fn conversion_error(&mut self, tokens: &[TokenTree], i: usize) -> Option<usize> {
        let conversion_error = is_ident(tokens, i, "self")
            && is_punct(tokens, i + 1, ':')
            && is_punct(tokens, i + 2, ':')
            && is_ident(tokens, i + 3, "error")
            && is_punct(tokens, i + 4, ':')
            && is_punct(tokens, i + 5, ':')
            && is_ident(tokens, i + 6, "ConversionError");
        if !conversion_error {
            return None;
        }
        self.out.extend(quote!(::host_runtime::ConversionError));
        Some(7)
    }

    /// A string inside `#[serde(...)]` (`skip_serializing_if = "::serde_json::Map::is_empty"`):
    /// its paths are rerooted as the others are ([`reroot_literal`]).
    fn serde_literal(&mut self, tokens: &[TokenTree], i: usize) -> Option<usize> {
        let TokenTree::Literal(lit) = &tokens[i] else {
            return None;
        };
        if !self.in_serde {
            return None;
        }
        self.out.push(reroot_literal(lit));
        Some(1)
    }

    /// A group, rewritten inside: the body of a struct or an enum by [`Pass::item_body`], any
    /// other in a pass of its own. After `#[derive(..Serialize..)]`, serde is told where it lives
    /// (`#[serde(crate = "...")]`).
    fn group(&mut self, tokens: &[TokenTree], i: usize) -> Option<usize> {
        let TokenTree::Group(g) = &tokens[i] else {
            return None;
        };
        let kind = if g.delimiter() == Delimiter::Brace {
            item_kind(&self.out)
        } else {
            None
        };
        let inner = match kind {
            Some(is_enum) => self.item_body(g, is_enum),
            None => rewrite_in(g.stream(), self.in_serde || is_serde_attribute(g)),
        };
        let mut group = Group::new(g.delimiter(), inner);
        group.set_span(g.span());
        let is_attr = g.delimiter() == Delimiter::Bracket
            && is_punct(&self.out, self.out.len().wrapping_sub(1), '#');
        self.out.push(TokenTree::Group(group));
        if is_attr && derives_serde(g) {
            let serde = crate::runtime::SERDE;
            self.out.extend(quote!(#[serde(crate = #serde)]));
        }
        Some(1)
    }

    /// The body `g` of the struct or enum the output ends with, rewritten, its members documented
    /// and typed ([`document_members`]); a struct's members that may be `null` are named in its
    /// docs ([`marked_members`]). A tagged union whose variants keep their other members also
    /// drops `deny_unknown_fields`: serde cannot deny unknown members beside a flattened map (and
    /// the variants take them all).
    fn item_body(&mut self, g: &Group, is_enum: bool) -> TokenStream {
        let nullable = if is_enum {
            Vec::new()
        } else {
            marked_members(&self.out)
        };
        let inner = document_members(rewrite_in(g.stream(), false), is_enum, &nullable);
        if is_enum && inner.to_string().contains(OTHER_MEMBERS_MAP) {
            allow_unknown_fields(&mut self.out);
        }
        inner
    }
}

/// The doc of a type typify documents only with its own name in backticks (the schema describes
/// it not): for a root, what the value is in the call ([`role_doc`]); for any other type, where
/// its doc would come from.
fn undescribed_doc(name: &str) -> String {
    if ROOTS.contains(&name) {
        role_doc(name)
    } else {
        " Typed from a part of the schema without a `description`; add one in the manifest to document it here.".to_owned()
    }
}

/// typify writes `#[doc = "Text"]`; a doc comment reads `/// Text`. The doc literal `text` with
/// that leading space, unless it has one already or opens a `<details>` block.
fn spaced_doc(text: &str) -> Option<Literal> {
    if !text.starts_with('"')
        || text.starts_with("\" ")
        || text.len() <= 2
        || text.contains("<details>")
    {
        return None;
    }
    format!("\" {}", &text[1..]).parse::<Literal>().ok()
}

/// The doc of a root type whose schema has no description: what the value is in the call.
fn role_doc(root: &str) -> String {
    match root {
        "Input" => " The call's `input`, typed from the `input` schema.".to_owned(),
        "Output" => " The answer, typed from the `output` schema.".to_owned(),
        "Document" => " One document of the collection, typed from its `schema`.".to_owned(),
        "Settings" => " The settings panel's values, typed from its `schema`.".to_owned(),
        "Payload" => " The event's payload, typed from its `payload` schema.".to_owned(),
        other => format!(" `{other}`, typed from its schema."),
    }
}

/// `Name` when a doc literal is only `` `Name` ``, typify's doc of an undescribed type.
fn title_only(literal: &str) -> Option<&str> {
    let name = literal.strip_prefix("\"`")?.strip_suffix("`\"")?;
    let plain = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    plain.then_some(name)
}

/// The string of `# [doc = "..."]` starting at `i`, if that is what is there.
fn doc_text(tokens: &[TokenTree], i: usize) -> Option<String> {
    let (TokenTree::Punct(hash), Some(TokenTree::Group(g))) = (&tokens[i], tokens.get(i + 1))
    else {
        return None;
    };
    if hash.as_char() != '#' || g.delimiter() != Delimiter::Bracket {
        return None;
    }
    let mut inner = g.stream().into_iter();
    match (inner.next(), inner.next(), inner.next(), inner.next()) {
        (
            Some(TokenTree::Ident(doc)),
            Some(TokenTree::Punct(eq)),
            Some(TokenTree::Literal(lit)),
            None,
        ) if doc == "doc" && eq.as_char() == '=' => Some(lit.to_string()),
        _ => None,
    }
}

/// `::` at `i` followed by one of the re-exported crates. typify writes these crates only as leading
/// paths (`::serde::Deserialize`, `<D::Error as ::serde::de::Error>`), never as a later segment.
fn is_reexported_path(tokens: &[TokenTree], i: usize) -> bool {
    matches!(tokens.get(i + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':')
        && matches!(tokens.get(i + 2), Some(TokenTree::Ident(id)) if REEXPORTED.iter().any(|c| id == c))
}

fn push_path_prefix(out: &mut Vec<TokenTree>) {
    out.push(TokenTree::Ident(Ident::new(
        "host_runtime",
        Span::call_site(),
    )));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Joint)));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Alone)));
    out.push(TokenTree::Ident(Ident::new(
        crate::runtime::MODULE,
        Span::call_site(),
    )));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Joint)));
    out.push(TokenTree::Punct(Punct::new(':', Spacing::Alone)));
}

fn is_ident(tokens: &[TokenTree], i: usize, want: &str) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Ident(id)) if id == want)
}

fn is_punct(tokens: &[TokenTree], i: usize, want: char) -> bool {
    matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == want)
}

fn reroot_literal(lit: &Literal) -> TokenTree {
    let text = lit.to_string();
    if !text.starts_with('"')
        || !REEXPORTED
            .iter()
            .any(|c| text.contains(&format!("\"::{c}::")))
    {
        return TokenTree::Literal(lit.clone());
    }
    let mut new = text;
    for c in REEXPORTED {
        new = new.replace(
            &format!("\"::{c}::"),
            &format!("\"{}::{c}::", crate::runtime::PATH),
        );
    }
    match new
        .parse::<TokenStream>()
        .ok()
        .and_then(|ts| ts.into_iter().next())
    {
        Some(TokenTree::Literal(mut l)) => {
            l.set_span(lit.span());
            TokenTree::Literal(l)
        }
        _ => TokenTree::Literal(lit.clone()),
    }
}

fn derives_serde(g: &Group) -> bool {
    let mut tokens = g.stream().into_iter();
    matches!(tokens.next(), Some(TokenTree::Ident(id)) if id == "derive")
        && tokens.any(|t| match t {
            TokenTree::Group(args) => args.stream().into_iter().any(
                |a| matches!(&a, TokenTree::Ident(id) if id == "Serialize" || id == "Deserialize"),
            ),
            _ => false,
        })
}

/// `Some(is_enum)` when the tokens end with `struct Name` or `enum Name`: the brace group that follows
/// is the body. Generic parameters do not occur in typify's output.
fn item_kind(out: &[TokenTree]) -> Option<bool> {
    match out {
        [.., TokenTree::Ident(kw), TokenTree::Ident(_)] if kw == "struct" => Some(false),
        [.., TokenTree::Ident(kw), TokenTree::Ident(_)] if kw == "enum" => Some(true),
        _ => None,
    }
}

/// The members named by [`crate::sentinels::NULLABLE_MEMBER_MARK`]s in the docs of the item `out` ends
/// with (a struct's header: its attributes, `pub struct Name`).
fn marked_members(out: &[TokenTree]) -> Vec<String> {
    let mut names = Vec::new();
    for i in (0..out.len()).rev() {
        match &out[i] {
            TokenTree::Punct(p) if p.as_char() == ';' => break,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
            _ => {}
        }
        let Some(text) = doc_text(out, i) else {
            continue;
        };
        for (_, hex) in member_marks(&text) {
            let bytes: Option<Vec<u8>> = (0..hex.len())
                .step_by(2)
                .map(|k| {
                    hex.get(k..k + 2)
                        .and_then(|b| u8::from_str_radix(b, 16).ok())
                })
                .collect();
            if let Some(name) = bytes.and_then(|b| String::from_utf8(b).ok()) {
                names.push(name);
            }
        }
    }
    names
}

/// Adds `#[doc = " `member`."]` to each public field or variant of a body that has no doc of its own;
/// a struct's members named in `nullable` become `Nullable<T>`.
fn document_members(body: TokenStream, is_enum: bool, nullable: &[String]) -> TokenStream {
    let mut out = TokenStream::new();
    let mut member: Vec<TokenTree> = Vec::new();
    let flush = |member: &mut Vec<TokenTree>, out: &mut TokenStream| {
        if member.is_empty() {
            return;
        }
        if !is_enum {
            let renamed = renamed_field(member);
            let named = member_name(member).is_some_and(|name| nullable.contains(&name));
            nullable_member(member, named);
            if let Some(json) = renamed {
                document_renamed(member, &json);
            }
        }
        let has_doc = (0..member.len()).any(|i| doc_text(member, i).is_some());
        let public = is_enum
            || member
                .iter()
                .any(|t| matches!(t, TokenTree::Ident(id) if id == "pub"));
        if !has_doc
            && public
            && let Some(name) = member_name(member)
        {
            let flattened = member.iter().any(
                |t| matches!(t, TokenTree::Group(g) if g.stream().to_string().contains("flatten")),
            );
            let doc = if flattened && name == "extra" {
                " The members the schema does not name, as they were sent.".to_owned()
            } else {
                format!(" `{name}`.")
            };
            out.extend(quote!(#[doc = #doc]));
        }
        if is_enum {
            // A struct-like variant's fields.
            for t in member.iter_mut() {
                if let TokenTree::Group(g) = t
                    && g.delimiter() == Delimiter::Brace
                {
                    *g = Group::new(Delimiter::Brace, optional_collections(g.stream()));
                }
            }
        } else {
            optional_collection(member);
        }
        out.extend(member.drain(..));
    };
    let mut depth = 0usize;
    for t in body {
        let end = top_level_comma(&t, &mut depth);
        member.push(t);
        if end {
            flush(&mut member, &mut out);
        }
    }
    flush(&mut member, &mut out);
    out
}

/// Whether `t` is a comma between members, not one inside a type's angle brackets (`Map<K, V>`),
/// which are no token group. `depth` follows the brackets.
fn top_level_comma(t: &TokenTree, depth: &mut usize) -> bool {
    match t {
        TokenTree::Punct(p) if p.as_char() == '<' => *depth += 1,
        TokenTree::Punct(p) if p.as_char() == '>' => *depth = depth.saturating_sub(1),
        TokenTree::Punct(p) if p.as_char() == ',' => return *depth == 0,
        _ => {}
    }
    false
}

/// [`optional_collection`] on each field of a brace-delimited field list (a struct-like variant's),
/// a doc line naming the JSON member of each undescribed field, and the member standing
/// for a variant's other members ([`crate::sentinels::OTHER_MEMBERS`]) back into the map `extra`.
fn optional_collections(fields: TokenStream) -> TokenStream {
    let mut out = Vec::new();
    let mut field = Vec::new();
    let mut depth = 0usize;
    let mut other_members = false;
    let mut finish = |field: &mut Vec<TokenTree>, out: &mut Vec<TokenTree>| {
        if field.iter().any(|t| {
            matches!(t, TokenTree::Group(g) if g.stream().to_string().contains(crate::sentinels::OTHER_MEMBERS))
        }) {
            other_members = true;
            field.clear();
            return;
        }
        let renamed = renamed_field(field);
        nullable_member(field, false);
        if let Some(json) = renamed {
            document_renamed(field, &json);
        }
        let has_doc = (0..field.len()).any(|i| doc_text(field, i).is_some());
        if !has_doc && let Some(name) = member_name(field) {
            let doc = format!(" `{name}`.");
            out.extend(quote!(#[doc = #doc]));
        }
        optional_collection(field);
        out.append(field);
    };
    for t in fields {
        let end = top_level_comma(&t, &mut depth);
        field.push(t);
        if end {
            finish(&mut field, &mut out);
        }
    }
    finish(&mut field, &mut out);
    if other_members {
        if !out.is_empty() && !matches!(out.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',')
        {
            out.extend(quote!(,));
        }
        let rt = crate::runtime::path();
        out.extend(quote! {
            #[doc = " The members the schema does not name, as they were sent."]
            #[serde(flatten)]
            extra: #rt::serde_json::Map<::std::string::String, #rt::serde_json::Value>,
        });
    }
    out.into_iter().collect()
}

/// A field typify named after a [`renamed_member`](crate::sentinels::renamed_member) name (the
/// lowering pass gives one to a member whose own Rust field name is taken): its
/// `#[serde(rename = "...")]` becomes the member's JSON name again, and a line of its doc is to say
/// which JSON member it holds ([`document_renamed`]). Returns that JSON name.
fn renamed_field(field: &mut [TokenTree]) -> Option<String> {
    let mut json = None;
    for t in field.iter_mut() {
        let TokenTree::Group(g) = t else { continue };
        if !is_serde_attribute(g) {
            continue;
        }
        let mut inner: Vec<TokenTree> = g.stream().into_iter().collect();
        let Some(TokenTree::Group(args)) = inner.get(1) else {
            continue;
        };
        let mut args: Vec<TokenTree> = args.stream().into_iter().collect();
        for k in 2..args.len() {
            if let (TokenTree::Ident(key), TokenTree::Literal(lit)) = (&args[k - 2], &args[k])
                && key == "rename"
                && let Some((_, name)) =
                    crate::sentinels::renamed_json_name(lit.to_string().trim_matches('"'))
            {
                let mut spelled = Literal::string(&name);
                spelled.set_span(lit.span());
                args[k] = TokenTree::Literal(spelled);
                json = Some(name);
            }
        }
        if json.is_some() {
            inner[1] = TokenTree::Group(Group::new(
                Delimiter::Parenthesis,
                args.into_iter().collect(),
            ));
            *g = Group::new(Delimiter::Bracket, inner.into_iter().collect());
            break;
        }
    }
    json
}

/// Adds to the docs of a renamed field which JSON member, `json`, it holds.
fn document_renamed(field: &mut Vec<TokenTree>, json: &str) {
    let mut at = 0;
    while doc_text(field, at).is_some() {
        at += 2;
    }
    let own = crate::lower::typify_field(json);
    let line = format!(
        " Holds the JSON member `{json}`: its own Rust name, `{own}`, is taken by another member or by a field the generator writes."
    );
    let doc: Vec<TokenTree> = if at == 0 {
        quote!(#[doc = #line]).into_iter().collect()
    } else {
        quote!(#[doc = ""] #[doc = #line]).into_iter().collect()
    };
    field.splice(at..at, doc);
}

/// How a variant's other members read once [`optional_collections`] made them the map `extra`.
const OTHER_MEMBERS_MAP: &str = "# [serde (flatten)] extra";

/// Drops `deny_unknown_fields` from the `#[serde(...)]` attributes of the item `out` ends with.
fn allow_unknown_fields(out: &mut [TokenTree]) {
    for t in out.iter_mut().rev() {
        match t {
            TokenTree::Punct(p) if p.as_char() == ';' => break,
            TokenTree::Group(g) if g.delimiter() == Delimiter::Brace => break,
            TokenTree::Group(g) if is_serde_attribute(g) => {
                let inner: TokenStream = g
                    .stream()
                    .into_iter()
                    .map(|t| match t {
                        TokenTree::Group(args) if args.delimiter() == Delimiter::Parenthesis => {
                            let kept: Vec<TokenTree> = args
                                .stream()
                                .into_iter()
                                .filter(|a| !matches!(a, TokenTree::Ident(id) if id == "deny_unknown_fields"))
                                .collect();
                            // A comma left at either end or doubled goes too.
                            let is_comma = |t: Option<&TokenTree>| {
                                matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == ',')
                            };
                            let mut tidy: Vec<TokenTree> = Vec::new();
                            for a in kept {
                                if is_comma(Some(&a)) && (tidy.is_empty() || is_comma(tidy.last())) {
                                    continue;
                                }
                                tidy.push(a);
                            }
                            if is_comma(tidy.last()) {
                                tidy.pop();
                            }
                            TokenTree::Group(Group::new(Delimiter::Parenthesis, tidy.into_iter().collect()))
                        }
                        other => other,
                    })
                    .collect();
                *g = Group::new(Delimiter::Bracket, inner);
            }
            _ => {}
        }
    }
}

/// Whether `g` is the bracketed body of a `#[serde(...)]` attribute.
fn is_serde_attribute(g: &proc_macro2::Group) -> bool {
    g.delimiter() == Delimiter::Bracket
        && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(id)) if id == "serde")
}

/// typify writes an optional array or map member as the collection, skipped when empty: an empty
/// array sent by the host would come back absent. The member becomes an `Option` of the collection,
/// so absent and empty stay apart.
fn optional_collection(member: &mut Vec<TokenTree>) {
    let mut skips_empty = false;
    for t in member.iter_mut() {
        let TokenTree::Group(g) = t else { continue };
        if !is_serde_attribute(g) {
            continue;
        }
        let inner: Vec<TokenTree> = g
            .stream()
            .into_iter()
            .map(|t| match t {
                TokenTree::Group(args) => {
                    let delimiter = args.delimiter();
                    let args: TokenStream = args
                        .stream()
                        .into_iter()
                        .map(|a| match &a {
                            TokenTree::Literal(lit)
                                if lit.to_string().ends_with("::is_empty\"") =>
                            {
                                skips_empty = true;
                                TokenTree::Literal(Literal::string(
                                    "::std::option::Option::is_none",
                                ))
                            }
                            _ => a,
                        })
                        .collect();
                    TokenTree::Group(Group::new(delimiter, args))
                }
                other => other,
            })
            .collect();
        *g = Group::new(Delimiter::Bracket, inner.into_iter().collect());
    }
    if !skips_empty {
        return;
    }
    let Some(colon) = type_colon(member) else {
        return;
    };
    let end = type_end(member);
    let ty: TokenStream = member[colon + 1..end].iter().cloned().collect();
    let wrapped: Vec<TokenTree> = quote!(::std::option::Option<#ty>).into_iter().collect();
    member.splice(colon + 1..end, wrapped);
}

/// The [`crate::sentinels::NULLABLE_MARK`]s left in docs (of the types made for marked members),
/// removed from the module's text.
pub(super) fn without_nullable_marks(text: String) -> String {
    let mark = crate::sentinels::NULLABLE_MARK;
    let open = crate::sentinels::NULLABLE_MEMBER_MARK;
    if !text.contains(mark) && !text.contains(open) {
        return text;
    }
    let mut text = text.replace(&format!("\\n\\n{mark}"), "").replace(mark, "");
    // Member marks, each `open` + hex + `@@`, with the blank line before the first of a run.
    let mut out = String::with_capacity(text.len());
    while let Some(at) = text.find(open) {
        let end = text[at + open.len()..]
            .find(CLOSE)
            .map_or(text.len(), |e| at + open.len() + e + CLOSE.len());
        out.push_str(text[..at].strip_suffix("\\n\\n").unwrap_or(&text[..at]));
        text.replace_range(..end, "");
    }
    out.push_str(&text);
    out
}

/// An optional member whose schema may be `null` (its doc holds [`crate::sentinels::NULLABLE_MARK`]):
/// typify types it `Option<T>`, which reads `null` as absent. It becomes
/// the runtime's `Nullable<T>`, defaulted when absent and skipped when serialized only
/// when absent; the mark leaves its doc. `named` says its object's doc named it (a bare `$ref`).
fn nullable_member(member: &mut Vec<TokenTree>, named: bool) {
    let marked = take_nullable_marks(member) || named;
    // A member that must be present is `Option<T>` read by `Option::deserialize` (typify's way
    // for a required member that may be `null`), whatever the marks say: a merge (an `allOf`, a
    // union's branch with its node's members) can require a member another part left optional.
    if !marked || required_nullable(member) {
        return;
    }
    let is_absent = format!("{}::Nullable::is_absent", crate::runtime::PATH);
    // typify may write `default` in an attribute of its own.
    let defaulted = serde_arguments(member).any(|args| {
        args.iter()
            .any(|x| matches!(x, TokenTree::Ident(id) if id == "default"))
    });
    let skips = skip_when_absent(member, defaulted, &is_absent);
    let Some(colon) = type_colon(member) else {
        return;
    };
    if !skips {
        // Attributes go before the visibility or the name.
        let attr = if defaulted {
            quote!(#[serde(skip_serializing_if = #is_absent)])
        } else {
            quote!(#[serde(default, skip_serializing_if = #is_absent)])
        };
        let at = (0..colon)
            .find(|&i| matches!(&member[i], TokenTree::Ident(_)))
            .unwrap_or(0);
        let attr: Vec<TokenTree> = attr.into_iter().collect();
        let n = attr.len();
        member.splice(at..at, attr);
        return nullable_type(member, colon + n);
    }
    nullable_type(member, colon);
}

/// Takes the [`crate::sentinels::NULLABLE_MARK`]s out of the member's docs (a doc left empty
/// goes) and says whether there was one.
fn take_nullable_marks(member: &mut Vec<TokenTree>) -> bool {
    let mark = crate::sentinels::NULLABLE_MARK;
    let mut marked = false;
    let mut i = 0;
    while i < member.len() {
        if let Some(text) = doc_text(member, i)
            && text.contains(mark)
        {
            marked = true;
            let cleaned = without_nullable_marks(text);
            let empty = cleaned.trim_matches('"').trim().is_empty();
            match cleaned.parse::<Literal>() {
                Ok(lit) if !empty => {
                    member[i + 1] =
                        TokenTree::Group(Group::new(Delimiter::Bracket, quote!(doc = #lit)));
                }
                _ => {
                    member.drain(i..i + 2);
                    continue;
                }
            }
        }
        i += 1;
    }
    marked
}

/// Points each `skip_serializing_if` of the member's serde attributes (typify's `is_none` or
/// `is_empty`) at `is_absent`, with `default` beside it unless the member is `defaulted` already,
/// and says whether there was one.
fn skip_when_absent(member: &mut [TokenTree], defaulted: bool, is_absent: &str) -> bool {
    let mut skips = false;
    for t in member.iter_mut() {
        let TokenTree::Group(g) = t else { continue };
        if !is_serde_attribute(g) {
            continue;
        }
        let inner: Vec<TokenTree> = g
            .stream()
            .into_iter()
            .map(|t| match t {
                TokenTree::Group(args) if args.delimiter() == Delimiter::Parenthesis => {
                    let mut has_default = defaulted;
                    let mut this_skips = false;
                    let mut args: Vec<TokenTree> = args
                        .stream()
                        .into_iter()
                        .map(|a| match &a {
                            TokenTree::Ident(id) if id == "default" => {
                                has_default = true;
                                a
                            }
                            TokenTree::Literal(lit)
                                if lit.to_string().ends_with("::is_none\"")
                                    || lit.to_string().ends_with("::is_empty\"") =>
                            {
                                this_skips = true;
                                TokenTree::Literal(Literal::string(is_absent))
                            }
                            _ => a,
                        })
                        .collect();
                    if this_skips && !has_default {
                        let mut with: Vec<TokenTree> = quote!(default,).into_iter().collect();
                        with.append(&mut args);
                        args = with;
                    }
                    skips |= this_skips;
                    TokenTree::Group(Group::new(
                        Delimiter::Parenthesis,
                        args.into_iter().collect(),
                    ))
                }
                other => other,
            })
            .collect();
        *g = Group::new(Delimiter::Bracket, inner.into_iter().collect());
    }
    skips
}

/// Where a member's type starts: after its first lone `:` (not part of a `::` path).
fn type_colon(member: &[TokenTree]) -> Option<usize> {
    (0..member.len()).find(|&i| {
        matches!(&member[i], TokenTree::Punct(p) if p.as_char() == ':' && p.spacing() == Spacing::Alone)
            && !matches!(i.checked_sub(1).map(|j| &member[j]), Some(TokenTree::Punct(p)) if p.as_char() == ':')
    })
}

/// Where a member's type ends: before its trailing comma, if it has one.
fn type_end(member: &[TokenTree]) -> usize {
    if matches!(member.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',') {
        member.len() - 1
    } else {
        member.len()
    }
}

/// The arguments of each `#[serde(...)]` attribute of `member`, as tokens.
fn serde_arguments(member: &[TokenTree]) -> impl Iterator<Item = Vec<TokenTree>> + '_ {
    member.iter().flat_map(|t| match t {
        TokenTree::Group(g) if is_serde_attribute(g) => g
            .stream()
            .into_iter()
            .filter_map(|a| match a {
                TokenTree::Group(args) => Some(args.stream().into_iter().collect()),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    })
}

/// Whether typify typed `member` as one that must be present and may be `null`: its serde
/// attributes read it with `deserialize_with = "::std::option::Option::deserialize"`.
fn required_nullable(member: &[TokenTree]) -> bool {
    serde_arguments(member).any(|args| {
        args.windows(3).any(|w| {
            matches!((&w[0], &w[2]), (TokenTree::Ident(key), TokenTree::Literal(lit))
                if key == "deserialize_with" && lit.to_string().ends_with("Option::deserialize\""))
        })
    })
}

/// Replaces the type after `member[colon]` (`Option<T>`, `Option<Option<T>>` or `T`) with
/// `Nullable<T>`.
fn nullable_type(member: &mut Vec<TokenTree>, colon: usize) {
    let end = type_end(member);
    let mut ty: Vec<TokenTree> = member[colon + 1..end].to_vec();
    // `:: std :: option :: Option <` is ten tokens.
    while ty.len() > 11
        && TokenStream::from_iter(ty[..10].iter().cloned()).to_string()
            == ":: std :: option :: Option <"
        && matches!(ty.last(), Some(TokenTree::Punct(p)) if p.as_char() == '>')
    {
        ty = ty[10..ty.len() - 1].to_vec();
    }
    let ty: TokenStream = ty.into_iter().collect();
    let rt = crate::runtime::path();
    let wrapped: Vec<TokenTree> = quote!(#rt::Nullable<#ty>).into_iter().collect();
    member.splice(colon + 1..end, wrapped);
}

/// The JSON name of a member: its `#[serde(rename = "...")]`, else its identifier.
fn member_name(member: &[TokenTree]) -> Option<String> {
    for t in member {
        let TokenTree::Group(g) = t else { continue };
        let inner: Vec<TokenTree> = g.stream().into_iter().collect();
        if !matches!(inner.first(), Some(TokenTree::Ident(id)) if id == "serde") {
            continue;
        }
        let Some(TokenTree::Group(args)) = inner.get(1) else {
            continue;
        };
        let args: Vec<TokenTree> = args.stream().into_iter().collect();
        for w in args.windows(3) {
            if let [
                TokenTree::Ident(k),
                TokenTree::Punct(eq),
                TokenTree::Literal(v),
            ] = w
                && k == "rename"
                && eq.as_char() == '='
            {
                return Some(v.to_string().trim_matches('"').to_owned());
            }
        }
    }
    // Otherwise the first identifier after the attributes and `pub`.
    member.iter().find_map(|t| match t {
        TokenTree::Ident(id) if id != "pub" => {
            Some(id.to_string().trim_start_matches("r#").to_owned())
        }
        _ => None,
    })
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::types::typing::tests::render_one;

    #[test]
    fn paths_point_at_the_runtime() {
        let out = render_one(
            json!({ "type": "object", "properties": { "c": { "type": "string", "minLength": 2 } } }),
        );
        assert!(
            out.contains(&format!(
                ":: host_runtime :: {} :: serde :: Deserialize",
                crate::runtime::MODULE
            )),
            "{out}"
        );
        assert!(
            out.contains(&format!("crate = \"{}\"", crate::runtime::SERDE)),
            "{out}"
        );
        assert!(
            out.contains(&format!(
                "< D :: Error as :: host_runtime :: {} :: serde :: de :: Error >",
                crate::runtime::MODULE
            )),
            "{out}"
        );
        assert!(
            !out.contains("(:: serde ::") && !out.contains("< :: serde ::"),
            "{out}"
        );
    }

    #[test]
    fn members_without_descriptions_get_docs_and_schema_dumps_go() {
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "type": { "type": "string" },
                "kind": { "enum": ["a-b", "c"] },
                "described": { "type": "string", "description": "Has its own." }
            }
        }));
        assert!(out.contains("\" `type`.\""), "{out}");
        assert!(out.contains("\" `a-b`.\""), "{out}");
        assert!(out.contains("Has its own."), "{out}");
        assert!(!out.contains("\" `described`.\""), "{out}");
        assert!(
            !out.contains("<details>") && !out.contains("JSON schema"),
            "{out}"
        );
    }

    #[test]
    fn an_optional_member_that_may_be_null_is_nullable() {
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "q": { "type": ["string", "null"], "description": "The query." },
                "any": {},
                "u": { "anyOf": [{ "type": "integer" }, { "type": "null" }] },
                "r": { "$ref": "#/$defs/R" },
                "plain": { "type": "string" },
                "nothing": { "type": "null" },
                "req": { "type": ["string", "null"] }
            },
            "required": ["req"],
            "$defs": { "R": { "type": ["object", "null"], "properties": { "a": { "type": "string" } } } }
        }));
        let field = |name: &str| {
            let at = out.find(&format!("pub {name} :")).expect(name);
            let end = out[at..].find(',').map_or(out.len(), |e| at + e);
            out[at..end].to_owned()
        };
        // A bare `$ref` is named in its object's doc (marking it trips typify; see UPSTREAM.md).
        assert!(
            !out.contains(crate::sentinels::NULLABLE_MEMBER_MARK),
            "{out}"
        );
        for name in ["q", "any", "u", "r"] {
            assert!(
                field(name).contains("Nullable <"),
                "{name}: {}",
                field(name)
            );
        }
        assert!(
            field("q").contains("Nullable < :: std :: string :: String >"),
            "{}",
            field("q")
        );
        assert!(!field("plain").contains("Nullable"), "{out}");
        assert!(
            field("nothing").contains("Nullable <"),
            "{}",
            field("nothing")
        );
        assert!(!field("req").contains("Nullable"), "{out}");
        assert!(
            out.contains("\" The query.\""),
            "the member keeps its doc: {out}"
        );
        assert!(
            out.contains(&format!(
                "skip_serializing_if = \"{}::Nullable::is_absent\"",
                crate::runtime::PATH
            )),
            "{out}"
        );
        assert!(!out.contains(crate::sentinels::NULLABLE_MARK), "{out}");
    }

    #[test]
    fn members_whose_rust_names_are_taken_are_renamed_fields_with_their_json_names() {
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "extra": { "type": "string" },
                "a-b": { "type": "string" },
                "a_b": { "type": ["integer", "null"] },
                "tagged": { "oneOf": [
                    { "type": "object", "properties": { "kind": { "const": "a" },
                        "extra": { "type": "string" }, "__host_sdk_other_members__": { "type": "integer" } },
                      "required": ["kind"] },
                    { "type": "object", "properties": { "kind": { "const": "b" } }, "required": ["kind"] }
                ] }
            },
            "required": ["extra"]
        }));
        assert!(!out.contains("@@="), "{out}");
        let text = crate::expansion::pretty(&out);
        for (field, json) in [
            ("pub extra_member: ::std::string::String", "extra"),
            ("pub a_b_2: ", "a_b"),
            ("extra_member: ::std::option::Option<", "extra"),
            (
                "host_sdk_other_members_member: ",
                "__host_sdk_other_members__",
            ),
        ] {
            // The field's last doc line names its JSON member, and its attributes rename it.
            let at = text
                .find(field)
                .unwrap_or_else(|| panic!("{field}: {text}"));
            let doc = text[..at].rfind("///").unwrap_or(0);
            let tail = &text[doc..at];
            assert!(
                tail.starts_with(&format!("/// Holds the JSON member `{json}`:")),
                "{field}: {tail}"
            );
            assert!(
                tail.contains(&format!("rename = \"{json}\"")),
                "{field}: {tail}"
            );
        }
        assert!(
            text.contains("pub a_b: ::std::option::Option<::std::string::String>"),
            "{text}"
        );
        // The member that may be `null` is still told apart from an absent one.
        assert!(text.contains("pub a_b_2: ::host_runtime::"), "{text}");
        // The maps of other members keep their name.
        assert_eq!(
            text.matches("extra: ::host_runtime::__private_0_1_0::serde_json::Map")
                .count(),
            3,
            "{text}"
        );
    }

    #[test]
    fn bare_refs_that_may_be_null_are_nullable_whatever_their_names_and_docs() {
        let out = render_one(json!({
            "type": "object",
            "description": "Holds references.",
            "properties": {
                "first-ref": { "$ref": "#/$defs/N" },
                "ünïcode": { "$ref": "#/$defs/N" },
                "@@odd@@": { "$ref": "#/$defs/N" },
                "closed": { "$ref": "#/$defs/S" }
            },
            "$defs": {
                "N": { "anyOf": [{ "type": "integer" }, { "type": "null" }] },
                "S": { "type": "string" }
            }
        }));
        assert!(
            !out.contains(crate::sentinels::NULLABLE_MEMBER_MARK),
            "{out}"
        );
        assert!(
            out.contains("\" Holds references.\\n\\n@@host-root"),
            "the doc is kept: {out}"
        );
        let nullable = out.matches("Nullable <").count();
        assert_eq!(
            nullable, 3,
            "the three that may be null, not `closed`: {out}"
        );
    }

    #[test]
    fn a_member_that_may_be_null_stays_nullable_in_an_all_of() {
        // GitHub's `pull-request-webhook`: a pull request and some more members.
        let out = render_one(json!({
            "type": "object",
            "properties": { "pull_request": { "$ref": "#/$defs/PullRequestWebhook" } },
            "$defs": {
                "PullRequest": { "type": "object", "properties": {
                    "active_lock_reason": { "type": ["string", "null"] } } },
                "PullRequestWebhook": { "allOf": [
                    { "$ref": "#/$defs/PullRequest" },
                    { "type": "object", "properties": { "allow_auto_merge": { "type": "boolean" } } }
                ] }
            }
        }));
        let at = out
            .find("pub active_lock_reason :")
            .expect("the member is typed");
        let field = &out[at..at + out[at..].find(',').unwrap_or(0)];
        assert!(field.contains("Nullable <"), "{field}");
        assert!(out.contains("pub allow_auto_merge :"), "{out}");
    }

    #[test]
    fn a_member_one_part_leaves_optional_and_another_requires_is_an_option_read_as_required() {
        // The GitHub workflow schema's `step`: members beside a `oneOf` whose branches each
        // require one of them; and the same through an `allOf`, with a bare `$ref` member too.
        let out = render_one(json!({
            "type": "object",
            "properties": {
                "step": {
                    "type": "object",
                    "properties": {
                        "wait-all": { "anyOf": [{ "type": "boolean" }, { "type": "null" }] },
                        "run": { "type": "string" }
                    },
                    "oneOf": [
                        { "type": "object", "properties": { "wait-all": true }, "required": ["wait-all"] },
                        { "type": "object", "properties": { "run": true }, "required": ["run"] }
                    ]
                },
                "merged": { "allOf": [
                    { "type": "object", "properties": {
                        "a": { "type": ["string", "null"] }, "n": { "$ref": "#/$defs/N" } } },
                    { "type": "object", "required": ["a", "n"] }
                ] }
            },
            "$defs": { "N": { "type": ["integer", "null"] } }
        }));
        let text = crate::expansion::pretty(&out);
        // A required bare `$ref` to a type that takes `null` is that type.
        assert!(text.contains("    pub n: N,\n"), "{text}");
        for field in ["wait_all: ", "pub a: "] {
            let fields: Vec<&str> = text
                .match_indices(field)
                .map(|(at, _)| {
                    let attrs = text[..at].rfind("///").unwrap_or(0);
                    &text[attrs..at + text[at..].find(',').unwrap_or(0)]
                })
                .collect();
            assert!(!fields.is_empty(), "{field}: {text}");
            // Where the member is required it must be sent, `null` or not; where it is optional
            // it may be absent, `null` or a value.
            assert!(
                fields.iter().any(|f| f.contains("Option::deserialize")),
                "{field}: {text}"
            );
            for f in fields {
                let required = f.contains("Option::deserialize");
                assert_eq!(!required, f.contains("Nullable<"), "{f}");
                assert!(!(required && f.contains("default")), "{f}");
            }
        }
    }
}
