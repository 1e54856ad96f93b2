//! Doc comments for generated items, from the manifest's own text plus one line saying how the host
//! calls the item.

use proc_macro2::TokenStream;
use quote::quote;

/// `#[doc = ...]` attributes, one per line of `text`; blank lines separate paragraphs.
pub(crate) fn doc(text: &str) -> TokenStream {
    let lines = text.lines().map(|l| format!(" {l}"));
    quote! { #( #[doc = #lines] )* }
}

/// A doc with the manifest's description, then a blank line and the synthesized lines.
pub(crate) fn doc_with(description: &str, extra: &[String]) -> TokenStream {
    let mut text = description.trim().to_owned();
    for line in extra {
        if !text.is_empty() {
            text.push_str("\n\n");
        }
        text.push_str(line);
    }
    doc(&text)
}
