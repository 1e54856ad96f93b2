//! The call types handlers receive (`ToolCall`, `ProcedureCall`, `Approved`, `EventCall`, `SyncCall`,
//! `WorkCall`, `ContainersCall`), named with this manifest's `Credentials` and `Documents`.

use host_manifest::model::Manifest;
use proc_macro2::TokenStream;
use quote::quote;

/// The aliases `m`'s handler methods use; none that no method names.
pub(super) fn aliases(m: &Manifest) -> TokenStream {
    let c = &m.contributes;
    let mut out = TokenStream::new();
    if !c.ai.tools.is_empty() {
        out.extend(quote! {
            /// A call to an assistant tool, with its typed `input`.
            pub type ToolCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
        });
    }
    if m.server.as_ref().is_some_and(|s| !s.procedures.is_empty()) {
        out.extend(quote! {
            /// A call to a procedure, with its typed `input`.
            pub type ProcedureCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
        });
    }
    if !c.ai.actions.is_empty() {
        out.extend(quote! {
            /// An action call the owner approved; only the runtime can make one.
            pub type Approved<I> = ::host_runtime::Approved<I, Credentials, Documents>;
        });
    }
    if !m.subscribed_events().is_empty() {
        out.extend(quote! {
            /// A host event delivery, with its typed payload as `input`.
            pub type EventCall<P> = ::host_runtime::Call<P, Credentials, Documents>;
        });
    }
    if c.connector.as_ref().is_some_and(|c| !c.metrics.is_empty()) {
        out.extend(quote! {
            /// A metrics sync call (`POST /host/metrics`).
            pub type SyncCall = ::host_runtime::Call<::host_runtime::metrics::SyncRequest<manifest::Metric>, Credentials, Documents>;
        });
    }
    if c.work.is_some() {
        out.extend(quote! {
            /// A work destination call, with its typed body as `input`.
            pub type WorkCall<I> = ::host_runtime::Call<I, Credentials, Documents>;
            /// The container list call (`GET`): its query as `input`. A GET carries no body, so it
            /// has no credentials or documents; its install comes from the verified token.
            pub type ContainersCall = ::host_runtime::Call<::host_runtime::work::ContainerQuery, ::host_runtime::NoCredentials, ::host_runtime::NoDocuments>;
        });
    }
    out
}
