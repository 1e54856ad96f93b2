//! One Rust type for a definition that several schema modules carry alike.
//!
//! Every contribution's schema is a document of its own, so a manifest whose tools and procedures
//! share a definition (an `Owner`, a `Repository`) carries a copy of it in each, and each copy is
//! typed in its own module. Those types are equal item for item: typify names a definition after
//! its name and writes its items from its content. So the modules' items are compared after typing:
//! a type that several modules have alike, and whose every type it names is also alike in each of
//! them, is written once in the module `shared`, and each module names it with a `pub use` at the
//! path it has always had. A vendor's helper can then take the one type from every contribution.
//!
//! Compared is everything but where the schema sits in the manifest: the docs' pointers are
//! placeholders until [`super::Types::splice`], so two copies of one definition compare equal
//! wherever they sit. The shared type's docs point at the first module's copy and name every module
//! that shares it.

use std::collections::{BTreeMap, HashMap, HashSet};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::sentinels::{CLOSE, OPEN};

/// The items of one type in a module, as text: its definition and the `impl` blocks that name it.
#[derive(Clone, Debug)]
pub(super) struct Named {
    /// The type's (or module's, or alias's) name.
    pub name: String,
    /// The items' text, each item whole.
    pub text: String,
    /// Where the definition's leading `#[doc]` attributes end in `text`: a doc line goes there.
    pub docs_end: usize,
    /// The other names of the same module that the items mention.
    pub mentions: Vec<String>,
}

/// The root types: their names are the same in every module but their contents are not, so they
/// are never shared, and nor is a type that names one.
const ROOTS: [&str; 5] = ["Input", "Output", "Document", "Settings", "Payload"];

/// The items of a module's `stream`, grouped by the type each defines or implements for, in the
/// order of the definitions. An `impl` goes with the first name of the module its header mentions;
/// an `impl` that mentions none, or an item of another kind, is a group of its own that is never
/// shared (its name is empty). `clean` is applied to each item's text.
pub(super) fn split(stream: TokenStream, clean: impl Fn(String) -> String) -> Vec<Named> {
    let items = items(stream);
    let names: HashSet<String> = items.iter().filter_map(|i| defined_name(i)).collect();
    let mut groups: Vec<Named> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut pending_impls: Vec<(String, String, Vec<String>)> = Vec::new();
    for item in items {
        let mentions = mentioned(&item, &names);
        let (name, is_impl) = match defined_name(&item) {
            Some(name) => (name, false),
            None => match header_name(&item, &names) {
                Some(name) => (name, true),
                None => (String::new(), false),
            },
        };
        let (docs, rest) = leading_docs(&item);
        let docs = clean(docs);
        let docs_end = docs.len();
        let text = format!("{docs} {}", clean(rest));
        let mentions: Vec<String> = mentions.into_iter().filter(|m| *m != name).collect();
        if is_impl {
            match by_name.get(&name) {
                Some(&g) => {
                    let group = &mut groups[g];
                    group.text.push(' ');
                    group.text.push_str(&text);
                    group.mentions.extend(mentions);
                }
                // An `impl` before its type: kept until the type comes.
                None => pending_impls.push((name, text, mentions)),
            }
            continue;
        }
        if !name.is_empty() {
            by_name.insert(name.clone(), groups.len());
        }
        groups.push(Named {
            name,
            text,
            docs_end,
            mentions,
        });
    }
    for (name, text, mentions) in pending_impls {
        match by_name.get(&name) {
            Some(&g) => {
                let group = &mut groups[g];
                group.text.push(' ');
                group.text.push_str(&text);
                group.mentions.extend(mentions);
            }
            None => groups.push(Named {
                name: String::new(),
                text,
                docs_end: 0,
                mentions,
            }),
        }
    }
    for group in &mut groups {
        group.mentions.sort();
        group.mentions.dedup();
    }
    groups
}

/// The top-level items of `stream`: each ends with a `;` or a `{ ... }` at the top level (and a `;`
/// right after a `{ ... }` is the same item's).
fn items(stream: TokenStream) -> Vec<Vec<TokenTree>> {
    let mut out: Vec<Vec<TokenTree>> = Vec::new();
    let mut item = Vec::new();
    let mut after_brace = false;
    for tree in stream {
        let (semicolon, brace) = match &tree {
            TokenTree::Punct(p) => (p.as_char() == ';', false),
            TokenTree::Group(g) => (false, g.delimiter() == Delimiter::Brace),
            _ => (false, false),
        };
        if semicolon && after_brace && item.is_empty() {
            if let Some(last) = out.last_mut() {
                last.push(tree);
                after_brace = false;
                continue;
            }
        }
        after_brace = brace;
        item.push(tree);
        if semicolon || brace {
            out.push(std::mem::take(&mut item));
        }
    }
    if !item.is_empty() {
        out.push(item);
    }
    out
}

/// The name an item defines: the identifier after `struct`, `enum`, `type`, `mod`, `union`,
/// `trait`, `const`, `static` or `fn`; `None` for an `impl` and anything else.
fn defined_name(item: &[TokenTree]) -> Option<String> {
    let mut trees = item.iter().skip_while(|t| is_attribute_part(t));
    while let Some(tree) = trees.next() {
        let TokenTree::Ident(i) = tree else { continue };
        match i.to_string().as_str() {
            "impl" | "use" => return None,
            "struct" | "enum" | "type" | "mod" | "union" | "trait" | "const" | "static" | "fn" => {
                return match trees.next() {
                    Some(TokenTree::Ident(name)) => Some(name.to_string()),
                    _ => None,
                };
            }
            _ => {}
        }
    }
    None
}

/// Whether a token is part of an attribute (`#` or its `[...]`): skipped when looking for the
/// item's keyword. Attributes are read whole by their bracket group, so any `#` and bracket group
/// before the keyword is one.
fn is_attribute_part(tree: &TokenTree) -> bool {
    match tree {
        TokenTree::Punct(p) => p.as_char() == '#',
        TokenTree::Group(g) => g.delimiter() == Delimiter::Bracket,
        _ => false,
    }
}

/// The name an `impl` is for: its self type when that is one of `names` (`impl From<A> for B` is
/// `B`'s), else the first of `names` its header mentions (`impl From<A> for String` and
/// `impl From<A> for Option<B>` are `A`'s).
fn header_name(item: &[TokenTree], names: &HashSet<String>) -> Option<String> {
    let start = item
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(i) if i == "impl"))?;
    let header: Vec<&TokenTree> = item[start + 1..]
        .iter()
        .take_while(|t| !matches!(t, TokenTree::Group(g) if g.delimiter() == Delimiter::Brace))
        .collect();
    let local = |t: &&TokenTree| match t {
        TokenTree::Ident(i) if names.contains(&i.to_string()) => Some(i.to_string()),
        _ => None,
    };
    // The self type's name: the last segment of the path after `for`, before its generics.
    let self_type = header
        .iter()
        .position(|t| matches!(t, TokenTree::Ident(i) if i == "for"))
        .and_then(|f| {
            header[f + 1..]
                .iter()
                .take_while(|t| match t {
                    TokenTree::Punct(p) => p.as_char() == ':',
                    TokenTree::Ident(_) => true,
                    _ => false,
                })
                .filter_map(|t| match t {
                    TokenTree::Ident(i) => Some(i.to_string()),
                    _ => None,
                })
                .last()
        })
        .filter(|name| names.contains(name));
    self_type.or_else(|| header.iter().find_map(local))
}

/// Every name of `names` that `item` mentions, anywhere in it.
fn mentioned(item: &[TokenTree], names: &HashSet<String>) -> Vec<String> {
    fn walk(
        trees: &mut dyn Iterator<Item = TokenTree>,
        names: &HashSet<String>,
        out: &mut Vec<String>,
    ) {
        for tree in trees {
            match tree {
                TokenTree::Ident(i) => {
                    let i = i.to_string();
                    if names.contains(&i) {
                        out.push(i);
                    }
                }
                TokenTree::Group(g) => walk(&mut g.stream().into_iter(), names, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(&mut item.iter().cloned(), names, &mut out);
    out
}

/// An item's leading `#[doc = ...]` attributes and the rest, as text.
fn leading_docs(item: &[TokenTree]) -> (String, String) {
    let mut end = 0;
    while let (Some(TokenTree::Punct(p)), Some(TokenTree::Group(g))) =
        (item.get(end), item.get(end + 1))
    {
        let is_doc = p.as_char() == '#'
            && g.delimiter() == Delimiter::Bracket
            && matches!(g.stream().into_iter().next(), Some(TokenTree::Ident(i)) if i == "doc");
        if !is_doc {
            break;
        }
        end += 2;
    }
    let text = |trees: &[TokenTree]| trees.iter().cloned().collect::<TokenStream>().to_string();
    (text(&item[..end]), text(&item[end..]))
}

/// Which groups of which modules are shared.
#[derive(Debug, Default)]
pub(super) struct Sharing {
    /// By module key: the names of its groups that `shared` holds.
    pub by_module: BTreeMap<String, Vec<String>>,
    /// The shared groups, by name: the module whose copy is written (the first by key) and every
    /// module that shares it.
    pub shared: BTreeMap<String, (String, Vec<String>)>,
}

/// A group's text with the placeholders' root indexes taken out: two copies of one definition
/// compare equal whichever root of their module they sit under.
fn comparable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after.find(CLOSE) else { break };
        out.push_str(&rest[..at]);
        let mark = &after[..end];
        // `at-N` and `root-N`: the index goes; other marks stay as they are.
        let kind = mark.trim_end_matches(|c: char| c.is_ascii_digit());
        out.push_str(OPEN);
        out.push_str(if kind.ends_with('-') { kind } else { mark });
        out.push_str(CLOSE);
        rest = &after[end + CLOSE.len()..];
    }
    out.push_str(rest);
    out
}

/// Decides which groups are shared: a named group that is not a root, alike in at least two
/// modules, where every name it mentions is shared too, alike in each of those modules. Of two
/// different groups of one name, the one more modules have is shared (the other stays apart).
pub(super) fn share(modules: &BTreeMap<&str, &[Named]>) -> Sharing {
    // (name, comparable text) -> the modules that have it.
    let mut copies: HashMap<(&str, String), Vec<&str>> = HashMap::new();
    // (module, name) -> its comparable text.
    let mut texts: HashMap<(&str, &str), String> = HashMap::new();
    for (key, groups) in modules {
        for g in groups.iter() {
            if g.name.is_empty() || ROOTS.contains(&g.name.as_str()) {
                continue;
            }
            let text = comparable(&g.text);
            texts.insert((*key, g.name.as_str()), text.clone());
            copies
                .entry((g.name.as_str(), text))
                .or_default()
                .push(*key);
        }
    }
    // One candidate per name: the text most modules have (then the shorter, then the first).
    let mut candidates: BTreeMap<&str, (String, Vec<&str>)> = BTreeMap::new();
    for ((name, text), keys) in copies {
        if keys.len() < 2 {
            continue;
        }
        let better = match candidates.get(name) {
            None => true,
            Some((t, k)) => {
                (
                    keys.len(),
                    std::cmp::Reverse(text.len()),
                    std::cmp::Reverse(&text),
                ) > (k.len(), std::cmp::Reverse(t.len()), std::cmp::Reverse(t))
            }
        };
        if better {
            candidates.insert(name, (text, keys));
        }
    }
    let mentions: HashMap<(&str, &str), &[String]> = modules
        .iter()
        .flat_map(|(key, groups)| {
            groups
                .iter()
                .map(move |g| ((*key, g.name.as_str()), g.mentions.as_slice()))
        })
        .collect();
    // A module keeps its own copy of a candidate when the copy mentions a name that the module does
    // not share alike; a candidate left with fewer than two modules is not shared. Until nothing
    // changes.
    loop {
        let mut changed = false;
        let names: Vec<&str> = candidates.keys().copied().collect();
        for name in names {
            let Some((_, keys)) = candidates.get(name) else {
                continue;
            };
            let kept: Vec<&str> = keys
                .iter()
                .copied()
                .filter(|key| {
                    mentions.get(&(*key, name)).is_none_or(|ms| {
                        ms.iter().all(|m| {
                            candidates.get(m.as_str()).is_some_and(|(text, sharing)| {
                                sharing.contains(key)
                                    && texts.get(&(*key, m.as_str())) == Some(text)
                            })
                        })
                    })
                })
                .collect();
            if kept.len() == keys.len() {
                continue;
            }
            changed = true;
            if kept.len() < 2 {
                candidates.remove(name);
            } else if let Some((_, keys)) = candidates.get_mut(name) {
                *keys = kept;
            }
        }
        if !changed {
            break;
        }
    }
    let mut sharing = Sharing::default();
    for (name, (_, keys)) in candidates {
        let mut keys: Vec<String> = keys.into_iter().map(str::to_owned).collect();
        keys.sort();
        for key in &keys {
            sharing
                .by_module
                .entry(key.clone())
                .or_default()
                .push(name.to_owned());
        }
        sharing
            .shared
            .insert(name.to_owned(), (keys[0].clone(), keys));
    }
    sharing
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn split_plain(stream: TokenStream) -> Vec<Named> {
        split(stream, |t| t)
    }

    #[test]
    fn impls_go_with_the_type_they_are_for() {
        let groups = split_plain(quote! {
            /// An owner.
            #[derive(Clone)]
            pub struct Owner(String);
            impl From<Owner> for String { fn from(o: Owner) -> String { o.0 } }
            impl From<Login> for Option<Owner> { fn from(l: Login) -> Self { l.0 } }
            pub struct Login(Option<Owner>);
            impl Owner { pub fn name(&self) -> &str { &self.0 } }
            pub struct Unit {};
            impl Display for Elsewhere {}
        });
        let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["Owner", "Login", "Unit", ""]);
        // `From<Owner> for String` and `impl Owner` are Owner's; `From<Login> for Option<Owner>`
        // is Login's, whose type is not Owner, which it only names.
        assert!(groups[0].text.contains("for String"), "{}", groups[0].text);
        assert!(groups[0].text.contains("fn name"), "{}", groups[0].text);
        assert!(!groups[0].text.contains("Login"), "{}", groups[0].text);
        assert!(
            groups[1].text.contains("for Option < Owner >"),
            "{}",
            groups[1].text
        );
        assert_eq!(groups[1].mentions, ["Owner"]);
        // The `;` after a braced item stays with it.
        assert!(groups[2].text.ends_with("{ } ;"), "{}", groups[2].text);
        // Where a doc line goes: after the leading docs.
        assert_eq!(
            &groups[0].text[..groups[0].docs_end],
            "# [doc = r\" An owner.\"]"
        );
    }

    fn module(stream: TokenStream) -> Vec<Named> {
        split_plain(stream)
    }

    fn shared_names(sharing: &Sharing) -> Vec<(&str, Vec<&str>)> {
        sharing
            .shared
            .iter()
            .map(|(name, (_, keys))| (name.as_str(), keys.iter().map(String::as_str).collect()))
            .collect()
    }

    #[test]
    fn a_type_alike_in_several_modules_is_shared_and_roots_never_are() {
        let at = |i: usize| {
            format!(
                " Owner, at `{}/$defs/owner`.",
                crate::sentinels::at_placeholder(i)
            )
        };
        let (a0, a1) = (at(0), at(1));
        let a = module(quote! {
            pub struct Input { owner: Owner }
            #[doc = #a0] pub struct Owner { login: Login }
            pub struct Login(String);
        });
        // The same definition under another root of its module: still alike.
        let b = module(quote! {
            pub struct Input { other: u8 }
            pub struct Output { owner: Owner }
            #[doc = #a1] pub struct Owner { login: Login }
            pub struct Login(String);
        });
        // A different `Login`: its `Owner` names it, so this module keeps both of its own.
        let c = module(quote! {
            pub struct Input { owner: Owner }
            #[doc = #a0] pub struct Owner { login: Login }
            pub struct Login(u64);
        });
        let modules = BTreeMap::from([
            ("tools/a", a.as_slice()),
            ("tools/b", b.as_slice()),
            ("tools/c", c.as_slice()),
        ]);
        let sharing = share(&modules);
        assert_eq!(
            shared_names(&sharing),
            [
                ("Login", vec!["tools/a", "tools/b"]),
                ("Owner", vec!["tools/a", "tools/b"])
            ]
        );
        assert_eq!(sharing.by_module.get("tools/c"), None);
    }

    #[test]
    fn of_two_types_of_one_name_the_one_more_modules_have_is_shared() {
        let one = module(quote! { pub struct Tag(String); });
        let other = module(quote! { pub struct Tag(u8); });
        let modules = BTreeMap::from([
            ("tools/a", one.as_slice()),
            ("tools/b", other.as_slice()),
            ("tools/c", other.as_slice()),
        ]);
        let sharing = share(&modules);
        assert_eq!(
            shared_names(&sharing),
            [("Tag", vec!["tools/b", "tools/c"])]
        );
        assert_eq!(sharing.by_module.get("tools/a"), None);
        // Alone in its module, no type is shared.
        let modules = BTreeMap::from([("tools/a", one.as_slice()), ("tools/b", other.as_slice())]);
        assert!(share(&modules).shared.is_empty());
    }

    #[test]
    fn a_cycle_of_types_alike_is_shared_whole() {
        let a = module(quote! {
            pub struct Node { next: Option<Box<Next>> }
            pub struct Next { node: Node }
        });
        let modules = BTreeMap::from([
            ("procedures/a", a.as_slice()),
            ("procedures/b", a.as_slice()),
        ]);
        let sharing = share(&modules);
        assert_eq!(sharing.shared.len(), 2);
    }
}
