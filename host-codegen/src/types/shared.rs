//! One Rust type for a type several schema modules have alike.
//!
//! Every contribution's schema is a document of its own, so a manifest whose tools and procedures
//! share a definition (an `Owner`, a `Repository`) carries a copy of it in each, and each copy is
//! typed in its own module. typify writes a definition's items from its name and content, so the
//! copies come out alike. The modules' items are therefore compared after typing: types whose
//! items are equal but for the names of the types they name, and those alike in turn, are one
//! class; a class found in two modules or more is written once in the module `shared`, and each
//! module names it with a `pub use` at the path it has always had (`as` its own name where the
//! module named it otherwise: a copy of a subschema takes its name from the first place the
//! module holds it, which differs between modules). A vendor's helper can then take one type from
//! every contribution.
//!
//! Compared is everything but where the schema sits in the manifest: the docs' pointers are
//! placeholders until [`super::Types::splice`] and are set aside, so two copies of one definition
//! compare equal wherever they sit. The shared type's docs point at the first module's copy and
//! name every module that has it.

use std::collections::{BTreeMap, HashMap, HashSet};

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use super::rewrite::ROOTS;
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
}

/// The items of a module's `stream`, grouped by the type each defines or implements for, in the
/// order of the definitions. An `impl` goes with its self type ([`header_name`]); an `impl` that
/// names no type of the module, or an item of another kind, is a group of its own that is never
/// shared (its name is empty). `clean` is applied to each item's text.
pub(super) fn split(stream: TokenStream, clean: impl Fn(String) -> String) -> Vec<Named> {
    let items = items(stream);
    let names: HashSet<String> = items.iter().filter_map(|i| defined_name(i)).collect();
    let mut groups: Vec<Named> = Vec::new();
    let mut by_name: HashMap<String, usize> = HashMap::new();
    let mut pending_impls: Vec<(String, String)> = Vec::new();
    for item in items {
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
        if is_impl {
            match by_name.get(&name) {
                Some(&g) => {
                    groups[g].text.push(' ');
                    groups[g].text.push_str(&text);
                }
                // An `impl` before its type: kept until the type comes.
                None => pending_impls.push((name, text)),
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
        });
    }
    for (name, text) in pending_impls {
        match by_name.get(&name) {
            Some(&g) => {
                groups[g].text.push(' ');
                groups[g].text.push_str(&text);
            }
            None => groups.push(Named {
                name: String::new(),
                text,
                docs_end: 0,
            }),
        }
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
        if semicolon
            && after_brace
            && item.is_empty()
            && let Some(last) = out.last_mut()
        {
            last.push(tree);
            after_brace = false;
            continue;
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
    /// By module key: `(its name for the type, the name in shared)` of each of its groups that
    /// `shared` holds.
    pub by_module: BTreeMap<String, Vec<(String, String)>>,
    /// The shared types, by their name in `shared`.
    pub shared: BTreeMap<String, Shared>,
}

/// One type of the module `shared`.
#[derive(Debug)]
pub(super) struct Shared {
    /// Its items, written from the first module's copy with the names of `shared`.
    pub text: String,
    /// Where the leading docs end in `text`.
    pub docs_end: usize,
    /// The module whose copy `text` is: its placeholders are that module's.
    pub first: String,
    /// Every module that has it, with the name it has there.
    pub places: Vec<(String, String)>,
}

/// `text` with each identifier in `names` replaced by `rename(its node)`; the nodes of the
/// identifiers replaced, in order, go to `found`. String literals (docs, serde's names) are left
/// as they are: a doc saying "A GitHub user" does not name the type `User`.
fn rename(
    text: &str,
    names: &HashMap<&str, usize>,
    found: &mut Vec<usize>,
    rename: impl Fn(usize) -> String,
) -> String {
    let is_word = |b: u8| b.is_ascii_alphanumeric() || b == b'_';
    let mut out = String::with_capacity(text.len());
    let bytes = text.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        if bytes[i] == b'"' {
            i = string_end(text, i);
            out.push_str(&text[start..i]);
        } else if is_word(bytes[i]) {
            while i < bytes.len() && is_word(bytes[i]) {
                i += 1;
            }
            let word = &text[start..i];
            match names.get(word) {
                // A raw string's `r` is a word of its own; it is no type's name.
                Some(&n) => {
                    found.push(n);
                    out.push_str(&rename(n));
                }
                None => out.push_str(word),
            }
        } else {
            // Up to the next ASCII word byte or quote: never inside a multi-byte character.
            while i < bytes.len() && !is_word(bytes[i]) && bytes[i] != b'"' {
                i += 1;
            }
            out.push_str(&text[start..i]);
        }
    }
    out
}

/// Where the string literal whose opening quote is at `open` ends (after its closing quote, and the
/// `#`s of a raw string).
fn string_end(text: &str, open: usize) -> usize {
    let before = &text[..open];
    let hashes = before.len() - before.trim_end_matches('#').len();
    let raw = before[..before.len() - hashes].ends_with('r');
    let bytes = text.as_bytes();
    let mut i = open + 1;
    if raw {
        let close = format!("\"{}", "#".repeat(hashes));
        return text[i..]
            .find(&close)
            .map_or(text.len(), |at| i + at + close.len());
    }
    while i < bytes.len() {
        match bytes[i] {
            b'\\' => i += 2,
            b'"' => return i + 1,
            _ => i += 1,
        }
    }
    text.len()
}

/// A group's text with what depends on where it sits taken out: the placeholders' root indexes,
/// and the sentences the generator writes around a pointer ("The member `x`, at `...`.", "Written
/// the same at 2 places in the schema, the first at `...`."), which differ with the place and the
/// module's other copies. So two copies of one definition compare equal wherever they sit; the
/// schema's own descriptions are compared.
fn comparable(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(OPEN) {
        let after = &rest[at + OPEN.len()..];
        let Some(end) = after.find(CLOSE) else { break };
        out.push_str(&rest[..at]);
        let mark = &after[..end];
        let mut tail = &after[end + CLOSE.len()..];
        let kind = mark.trim_end_matches(|c: char| c.is_ascii_digit());
        if kind == "at-" {
            // The sentence, from its start to the end of the pointer after the mark.
            let start = ["\"", "\\n", "\n", ". "]
                .iter()
                .filter_map(|b| out.rfind(b).map(|at| at + b.len()))
                .max()
                .unwrap_or(0);
            out.truncate(start);
            let stop = tail.find(['`', '"']).unwrap_or(tail.len());
            tail = &tail[stop..];
            tail = tail
                .strip_prefix("`.")
                .or_else(|| tail.strip_prefix('`'))
                .unwrap_or(tail);
            out.push_str(OPEN);
            out.push_str("at");
        } else {
            out.push_str(OPEN);
            out.push_str(if kind == "root-" { kind } else { mark });
        }
        out.push_str(CLOSE);
        rest = tail;
    }
    out.push_str(rest);
    out
}

/// One group of one module, for [`share`].
struct Node<'a> {
    key: &'a str,
    group: &'a Named,
    /// Whether it may be shared: named, and no root.
    eligible: bool,
    /// Its comparable text with every name of its module replaced by one mark.
    skeleton: String,
    /// The groups its names stand for, in order (itself included).
    refs: Vec<usize>,
}

/// By module key: the names of its types, each with its node.
type ModuleNames<'a> = HashMap<&'a str, HashMap<&'a str, usize>>;

/// The groups of each class (by its number) that may be shared, as nodes.
type Members = BTreeMap<usize, Vec<usize>>;

/// Decides which groups are shared. Two groups are alike when their texts are equal once the
/// names of their modules' types are set aside, and the types those names stand for are alike in
/// turn (found by refining classes of groups until no class splits). A class of groups alike in
/// two modules or more is one shared type, named as most of its groups are: each module names it
/// with a `pub use` (`as` its own name where that differs). Not shared: the roots, a module's
/// groups when it has two alike (each stays its own type), a class whose name a larger class
/// takes, and a group that names a type its module does not share.
pub(super) fn share(modules: &BTreeMap<&str, &[Named]>) -> Sharing {
    let (nodes, module_names) = nodes(modules);
    let class = refine(&nodes, by_skeleton(&nodes));
    let mut members = one_per_module(&nodes, eligible_members(&nodes, &class));
    let named = name_classes(&nodes, &mut members);
    keep_closed(&nodes, &mut members);
    write_sharing(&nodes, &module_names, &class, &named, &members)
}

/// Every group of every module as a [`Node`], in order, and the names of each module's types.
fn nodes<'a>(modules: &'a BTreeMap<&'a str, &'a [Named]>) -> (Vec<Node<'a>>, ModuleNames<'a>) {
    let mut nodes: Vec<Node<'a>> = Vec::new();
    let mut module_names: ModuleNames<'a> = HashMap::new();
    for (key, groups) in modules {
        let first = nodes.len();
        let names: HashMap<&str, usize> = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| !g.name.is_empty())
            .map(|(i, g)| (g.name.as_str(), first + i))
            .collect();
        for g in groups.iter() {
            let mut refs = Vec::new();
            let skeleton = comparable(&rename(&g.text, &names, &mut refs, |_| "\u{a7}".into()));
            nodes.push(Node {
                key,
                group: g,
                // A root's name is the same in every module but its content is not: never shared,
                // and nor is a type that names one.
                eligible: !g.name.is_empty() && !ROOTS.contains(&g.name.as_str()),
                skeleton,
                refs,
            });
        }
        module_names.insert(key, names);
    }
    (nodes, module_names)
}

/// The first classes, one number per node: the groups with one skeleton are one class, and each
/// group that may not be shared is a class of its own.
fn by_skeleton(nodes: &[Node<'_>]) -> Vec<usize> {
    let mut ids: HashMap<&str, usize> = HashMap::new();
    let mut next = 0;
    nodes
        .iter()
        .map(|n| {
            if !n.eligible {
                next += 1;
                return usize::MAX - next;
            }
            let len = ids.len();
            *ids.entry(n.skeleton.as_str()).or_insert(len)
        })
        .collect()
}

/// `class` refined until the number of classes stays: two groups stay in one class only while
/// the groups their names stand for are in one class too, name by name.
fn refine(nodes: &[Node<'_>], mut class: Vec<usize>) -> Vec<usize> {
    let count = |class: &[usize]| class.iter().collect::<HashSet<_>>().len();
    let mut classes = count(&class);
    loop {
        let mut ids: HashMap<(usize, Vec<usize>), usize> = HashMap::new();
        let refined: Vec<usize> = nodes
            .iter()
            .zip(&class)
            .map(|(n, c)| {
                let signature = (*c, n.refs.iter().map(|r| class[*r]).collect());
                let len = ids.len();
                *ids.entry(signature).or_insert(len)
            })
            .collect();
        let now = count(&refined);
        class = refined;
        if now == classes {
            break;
        }
        classes = now;
    }
    class
}

/// The members of each class that may be shared: its eligible groups.
fn eligible_members(nodes: &[Node<'_>], class: &[usize]) -> Members {
    let mut members = Members::new();
    for (i, n) in nodes.iter().enumerate() {
        if n.eligible {
            members.entry(class[i]).or_default().push(i);
        }
    }
    members
}

/// The name of a class whose members are `list`: the one most of its groups have (then the first
/// in order).
fn best_name<'a>(nodes: &[Node<'a>], list: &[usize]) -> &'a str {
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();
    for i in list {
        *counts.entry(nodes[*i].group.name.as_str()).or_default() += 1;
    }
    counts
        .into_iter()
        .max_by(|a, b| a.1.cmp(&b.1).then_with(|| b.0.cmp(a.0)))
        .map_or("", |(name, _)| name)
}

/// One member per module in each class: where a module has two types alike, the one of the
/// class's name (or the first by name) is shared and the other stays the module's own type. A
/// class left in fewer than two modules is not shared.
fn one_per_module(nodes: &[Node<'_>], mut members: Members) -> Members {
    for list in members.values_mut() {
        let name = best_name(nodes, list);
        let mut kept: BTreeMap<&str, usize> = BTreeMap::new();
        for &i in list.iter() {
            let better = kept.get(nodes[i].key).is_none_or(|&k| {
                let (this, that) = (nodes[i].group.name.as_str(), nodes[k].group.name.as_str());
                (this != name, this) < (that != name, that)
            });
            if better {
                kept.insert(nodes[i].key, i);
            }
        }
        *list = kept.into_values().collect();
    }
    members.retain(|_, list| list.len() >= 2);
    members
}

/// The name of each shared class in `shared`, the larger classes choosing first: a class whose
/// name a larger one took is not shared, and leaves `members`.
fn name_classes<'a>(nodes: &[Node<'a>], members: &mut Members) -> HashMap<usize, &'a str> {
    let mut order: Vec<(usize, &str)> = members
        .iter()
        .map(|(c, list)| (*c, best_name(nodes, list)))
        .collect();
    order.sort_by(|a, b| {
        members[&b.0]
            .len()
            .cmp(&members[&a.0].len())
            .then_with(|| a.1.cmp(b.1))
    });
    let mut named: HashMap<usize, &str> = HashMap::new();
    let mut taken: HashSet<&str> = HashSet::new();
    for (c, name) in order {
        if taken.insert(name) {
            named.insert(c, name);
        } else {
            members.remove(&c);
        }
    }
    named
}

/// Keeps in `members` only groups whose names all stand for shared groups: a shared type cannot
/// name a type its module keeps. Dropping one group can leave a class in one module, which then
/// is not shared either, so this runs until nothing more is dropped.
fn keep_closed(nodes: &[Node<'_>], members: &mut Members) {
    let mut shared_node: HashSet<usize> = members.values().flatten().copied().collect();
    loop {
        let unfit: Vec<usize> = shared_node
            .iter()
            .copied()
            .filter(|i| nodes[*i].refs.iter().any(|r| !shared_node.contains(r)))
            .collect();
        if unfit.is_empty() {
            break;
        }
        for i in unfit {
            shared_node.remove(&i);
        }
        for list in members.values_mut() {
            list.retain(|i| shared_node.contains(i));
        }
        for list in members.values() {
            if list.len() < 2 {
                for i in list {
                    shared_node.remove(i);
                }
            }
        }
        members.retain(|_, list| list.len() >= 2);
    }
}

/// The [`Sharing`] of the classes left in `members`, each named as `named` says.
fn write_sharing(
    nodes: &[Node<'_>],
    module_names: &ModuleNames<'_>,
    class: &[usize],
    named: &HashMap<usize, &str>,
    members: &Members,
) -> Sharing {
    let mut sharing = Sharing::default();
    for (c, list) in members {
        let name = named[c];
        let Some(shared) = shared_type(nodes, module_names, class, named, list, name) else {
            continue;
        };
        for (key, local) in &shared.places {
            sharing
                .by_module
                .entry(key.clone())
                .or_default()
                .push((local.clone(), name.to_owned()));
        }
        sharing.shared.insert(name.to_owned(), shared);
    }
    for names in sharing.by_module.values_mut() {
        names.sort();
    }
    sharing
}

/// The shared type `name` of the class whose members are `list`: written from the first module
/// that has it under that name, with the names of `shared` for the types it names.
fn shared_type(
    nodes: &[Node<'_>],
    module_names: &ModuleNames<'_>,
    class: &[usize],
    named: &HashMap<usize, &str>,
    list: &[usize],
    name: &str,
) -> Option<Shared> {
    let mut places: Vec<(String, String)> = list
        .iter()
        .map(|i| (nodes[*i].key.to_owned(), nodes[*i].group.name.clone()))
        .collect();
    places.sort();
    let &first = list
        .iter()
        .filter(|i| nodes[**i].group.name == name)
        .min_by_key(|i| nodes[**i].key)?;
    let node = &nodes[first];
    let names = module_names.get(node.key)?;
    let shared_name = |n: usize| {
        named
            .get(&class[n])
            .map_or_else(|| nodes[n].group.name.clone(), |s| (*s).to_owned())
    };
    let text = rename(&node.group.text, names, &mut Vec::new(), shared_name);
    let docs = rename(
        &node.group.text[..node.group.docs_end],
        names,
        &mut Vec::new(),
        shared_name,
    );
    Some(Shared {
        text,
        docs_end: docs.len(),
        first: node.key.to_owned(),
        places,
    })
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
            .map(|(name, s)| {
                let keys = s.places.iter().map(|(key, _)| key.as_str()).collect();
                (name.as_str(), keys)
            })
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
    fn types_alike_but_for_their_names_are_one_type_named_as_most_name_it() {
        let a = module(quote! {
            pub struct Repo { perms: Perms }
            pub struct Perms { admin: bool }
        });
        let b = module(quote! {
            pub struct Repo { perms: MinimalPerms2 }
            pub struct MinimalPerms2 { admin: bool }
        });
        let modules = BTreeMap::from([
            ("procedures/a", a.as_slice()),
            ("procedures/b", b.as_slice()),
            ("procedures/c", a.as_slice()),
        ]);
        let sharing = share(&modules);
        assert_eq!(
            shared_names(&sharing),
            [
                (
                    "Perms",
                    vec!["procedures/a", "procedures/b", "procedures/c"]
                ),
                ("Repo", vec!["procedures/a", "procedures/b", "procedures/c"])
            ]
        );
        assert_eq!(
            sharing.by_module["procedures/b"],
            [
                ("MinimalPerms2".to_owned(), "Perms".to_owned()),
                ("Repo".to_owned(), "Repo".to_owned())
            ]
        );
        // Written with the names of `shared`.
        assert!(sharing.shared["Repo"].text.contains("perms : Perms"));
        // Of two types alike in one module, one is shared and the other stays its own: they are
        // two types there.
        let twice = module(quote! {
            pub struct One { admin: bool }
            pub struct Two { admin: bool }
        });
        let modules =
            BTreeMap::from([("tools/a", twice.as_slice()), ("tools/b", twice.as_slice())]);
        let sharing = share(&modules);
        assert_eq!(
            shared_names(&sharing),
            [("One", vec!["tools/a", "tools/b"])]
        );
    }

    #[test]
    fn docs_compare_without_the_sentences_written_around_a_pointer() {
        let at = crate::sentinels::at_placeholder;
        let member = format!(
            "# [doc = \" A user.\\n\\nThe member `owner`, at `{}/properties/owner`.\"]",
            at(0)
        );
        let copy = format!(
            "# [doc = \" A user.\\n\\nWritten the same at 2 places in the schema, the first at `{}/$defs/x`.\"]",
            at(1)
        );
        assert_eq!(comparable(&member), comparable(&copy));
        // The schema's own words are compared.
        let other = member.replace("A user.", "An owner.");
        assert_ne!(comparable(&member), comparable(&other));
    }

    #[test]
    fn names_in_strings_are_no_types() {
        let names = HashMap::from([("User", 0), ("Login", 1)]);
        let mut found = Vec::new();
        let text =
            r##"# [doc = "A User, \"User\""] # [doc = r#"User "x" "#] struct User (Login) ;"##;
        let out = rename(text, &names, &mut found, |n| format!("T{n}"));
        assert_eq!(
            out,
            r##"# [doc = "A User, \"User\""] # [doc = r#"User "x" "#] struct T0 (T1) ;"##
        );
        assert_eq!(found, [0, 1]);
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
