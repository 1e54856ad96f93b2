//! The routes a host calls, as one type: reading a request path, writing one, the HTTP methods each
//! answers and the scopes the install must hold. The runtime's pipeline, the generated dispatcher,
//! `cargo host call` and [`crate::testing`] all use it, so a route is spelled in one place.
//!
//! The routes are listed in [`crate::interface`], section "Routes"
//! ([link](crate::interface#routes)).

use std::borrow::Cow;

use host_interface::Contribution;
use http::Method;

/// The request target (path and query) of an absolute URL, for platforms that hand a request over
/// with its whole URL (Workers): `https://host/path?q` gives `/path?q`. The fragment is dropped, an
/// empty path is `/`, and a string with no `://` is taken to be a target already.
///
/// No URL parser is involved: routing needs only the path and query, which begin at the first `/`
/// or `?` after the authority.
///
/// ```
/// use host_runtime::route::target_of;
/// assert_eq!(target_of("https://ext.example/host/tools/a?q=1#top"), "/host/tools/a?q=1");
/// assert_eq!(target_of("http://127.0.0.1:8787"), "/");
/// assert_eq!(target_of("http://127.0.0.1:8787?q=1"), "/?q=1");
/// ```
pub fn target_of(url: &str) -> Cow<'_, str> {
    let url = url.split_once('#').map_or(url, |(before, _)| before);
    let Some((_, rest)) = url.split_once("://") else {
        return Cow::Borrowed(url);
    };
    match rest.find(['/', '?']) {
        Some(at) if rest[at..].starts_with('/') => Cow::Borrowed(&rest[at..]),
        Some(at) => Cow::Owned(format!("/{}", &rest[at..])),
        None => Cow::Borrowed("/"),
    }
}

/// The scopes of the work destination: both of its kinds' (the catalogue's `WorkItems` and
/// `WorkComments`), on each of its routes.
const WORK_SCOPES: &[&str] = &["work:create", "work:sync"];

/// One route of the interface, with the id or name its path carries.
///
/// ```
/// use host_runtime::route::Route;
/// let route = Route::parse("/host/tools/keyword-ranks", None).unwrap();
/// assert_eq!(route, Route::Tool("keyword-ranks"));
/// assert_eq!(route.method(), http::Method::POST);
/// assert_eq!(route.path(None).as_deref(), Some("/host/tools/keyword-ranks"));
/// assert_eq!(route.scopes().collect::<Vec<_>>(), ["ai:tools"]);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Route<'a> {
    /// `GET` or `HEAD /host/health`, the only route without a token.
    Health,
    /// `POST /host/tools/<id>`.
    Tool(&'a str),
    /// `POST /host/actions/<id>`.
    Action(&'a str),
    /// `GET /host/mentions/<id>?q=...`.
    Mention(&'a str),
    /// `GET /host/context/<id>`.
    Context(&'a str),
    /// `POST /host/procedures/<name>`.
    Procedure(&'a str),
    /// `POST /host/events`. The path does not name the event: `None` until the delivery's body has
    /// been read, then `Some(name)`.
    Event(Option<&'a str>),
    /// `POST /host/metrics`, the connector sync.
    Metrics,
    /// `GET` of the path the manifest gives as `work.container.list`.
    WorkContainers,
    /// `POST /host/work/items`.
    WorkItems,
    /// `POST /host/work/items/<id>/comments`.
    WorkComment(&'a str),
}

impl<'a> Route<'a> {
    /// The route of `path` (without the base path), or `None` when no route has that path.
    /// `work_containers` is the manifest's `work.container.list` path, for an extension with a work
    /// destination (a query string in it is ignored).
    pub fn parse(path: &'a str, work_containers: Option<&str>) -> Option<Route<'a>> {
        if let Some(list) = work_containers {
            let list = list.split('?').next().unwrap_or(list);
            if path == list || path.strip_prefix('/') == Some(list) {
                return Some(Route::WorkContainers);
            }
        }
        match path {
            "/host/health" => return Some(Route::Health),
            "/host/events" => return Some(Route::Event(None)),
            "/host/metrics" => return Some(Route::Metrics),
            "/host/work/items" => return Some(Route::WorkItems),
            _ => {}
        }
        let segment = |rest: &'a str| (!rest.is_empty() && !rest.contains('/')).then_some(rest);
        if let Some(rest) = path.strip_prefix("/host/work/items/") {
            return rest
                .strip_suffix("/comments")
                .and_then(segment)
                .map(Route::WorkComment);
        }
        let (kind, rest) = path.strip_prefix("/host/")?.split_once('/')?;
        let id = segment(rest)?;
        Some(match kind {
            "tools" => Route::Tool(id),
            "actions" => Route::Action(id),
            "mentions" => Route::Mention(id),
            "context" => Route::Context(id),
            "procedures" => Route::Procedure(id),
            _ => return None,
        })
    }

    /// The path to call (without a base path or query). `None` only for
    /// [`WorkContainers`](Route::WorkContainers) without the manifest's `work.container.list`.
    pub fn path(&self, work_containers: Option<&str>) -> Option<String> {
        Some(match self {
            Route::Health => "/host/health".to_owned(),
            Route::Tool(id) => format!("/host/tools/{id}"),
            Route::Action(id) => format!("/host/actions/{id}"),
            Route::Mention(id) => format!("/host/mentions/{id}"),
            Route::Context(id) => format!("/host/context/{id}"),
            Route::Procedure(name) => format!("/host/procedures/{name}"),
            Route::Event(_) => "/host/events".to_owned(),
            Route::Metrics => "/host/metrics".to_owned(),
            Route::WorkContainers => {
                let list = work_containers?;
                let list = list.split('?').next().unwrap_or(list);
                if list.starts_with('/') {
                    list.to_owned()
                } else {
                    format!("/{list}")
                }
            }
            Route::WorkItems => "/host/work/items".to_owned(),
            Route::WorkComment(item) => format!("/host/work/items/{item}/comments"),
        })
    }

    /// The methods the route answers; any other is `405` with an `Allow` header.
    pub fn methods(&self) -> &'static [Method] {
        match self {
            Route::Health => &[Method::GET, Method::HEAD],
            Route::Mention(_) | Route::Context(_) | Route::WorkContainers => &[Method::GET],
            _ => &[Method::POST],
        }
    }

    /// The method the host calls the route with.
    pub fn method(&self) -> Method {
        self.methods()[0].clone()
    }

    /// The kind of contribution the route reaches, for the scopes it needs.
    pub fn contribution(&self) -> Option<Contribution> {
        match self {
            Route::Tool(_) => Some(Contribution::Tools),
            Route::Mention(_) => Some(Contribution::Mentions),
            Route::Action(_) => Some(Contribution::Actions),
            Route::Context(_) => Some(Contribution::ContextProviders),
            Route::Metrics => Some(Contribution::ConnectorMetrics),
            Route::WorkContainers | Route::WorkItems => Some(Contribution::WorkItems),
            Route::WorkComment(_) => Some(Contribution::WorkComments),
            Route::Health | Route::Procedure(_) | Route::Event(_) => None,
        }
    }

    /// The scopes the install must hold for the call to reach a handler: those of the kind of
    /// contribution, and for a named event the scope the catalogue gives it. An action's own
    /// `scope` comes from the manifest and is added by the pipeline.
    pub fn scopes(&self) -> impl Iterator<Item = &'static str> + use<'a> {
        let contribution = match self {
            // The work destination is one contribution with two scopes, and every one of its
            // routes needs both.
            Route::WorkContainers | Route::WorkItems | Route::WorkComment(_) => Some(WORK_SCOPES),
            _ => self.contribution().map(Contribution::scopes),
        };
        let event = match self {
            Route::Event(Some(name)) => {
                host_interface::catalogue::event(name).and_then(|e| e.scope)
            }
            _ => None,
        };
        contribution.into_iter().flatten().copied().chain(event)
    }

    /// A short name for logs and messages: `tools/keyword-ranks`, `events`, `work/items`.
    pub fn name(&self) -> String {
        match self {
            Route::Health => "health".into(),
            Route::Tool(id) => format!("tools/{id}"),
            Route::Action(id) => format!("actions/{id}"),
            Route::Mention(id) => format!("mentions/{id}"),
            Route::Context(id) => format!("context/{id}"),
            Route::Procedure(name) => format!("procedures/{name}"),
            Route::Event(_) => "events".into(),
            Route::Metrics => "metrics".into(),
            Route::WorkContainers => "work/containers".into(),
            Route::WorkItems => "work/items".into(),
            Route::WorkComment(_) => "work/comments".into(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_target_is_what_a_url_parser_reads_as_path_and_query() {
        for url in [
            "https://ext.example/host/tools/keyword-ranks",
            "https://ext.example/host/mentions/k?q=a%20b&x=1",
            "http://127.0.0.1:8787/host/health",
            "http://[::1]:8787/host/health?x",
            "https://user:pass@ext.example:443/host/events",
            "https://ext.example/a/b#frag",
            "https://ext.example/a?q=1#frag?x/y",
            "https://ext.example",
            "https://ext.example?q=1",
            "https://ext.example/",
            "https://ext.example/host/work/items/42/comments",
        ] {
            let parsed = url::Url::parse(url).unwrap();
            let expected = match parsed.query() {
                Some(q) => format!("{}?{q}", parsed.path()),
                None => parsed.path().to_owned(),
            };
            assert_eq!(target_of(url), expected, "{url}");
        }
        assert_eq!(target_of("/host/health?x"), "/host/health?x");
    }

    #[test]
    fn paths_map_to_routes_and_back() {
        let list = Some("/work/projects?mine=1");
        for (path, route) in [
            ("/host/tools/keyword-ranks", Route::Tool("keyword-ranks")),
            ("/host/actions/pause", Route::Action("pause")),
            ("/host/mentions/keyword", Route::Mention("keyword")),
            ("/host/context/tracked", Route::Context("tracked")),
            (
                "/host/procedures/addKeyword",
                Route::Procedure("addKeyword"),
            ),
            ("/host/events", Route::Event(None)),
            ("/host/metrics", Route::Metrics),
            ("/host/health", Route::Health),
            ("/work/projects", Route::WorkContainers),
            ("/host/work/items", Route::WorkItems),
            ("/host/work/items/42/comments", Route::WorkComment("42")),
        ] {
            assert_eq!(Route::parse(path, list), Some(route), "{path}");
            assert_eq!(route.path(list).as_deref(), Some(path));
        }
        assert_eq!(Route::WorkContainers.path(None), None);
    }

    #[test]
    fn other_paths_are_no_route() {
        for path in [
            "/host/tools/a/b",
            "/host/tools/",
            "/host/nothing/x",
            "/elsewhere",
            "/host/work/items//comments",
            "/host/work/items/1/2/comments",
            "",
        ] {
            assert_eq!(Route::parse(path, None), None, "{path}");
        }
    }

    #[test]
    fn scopes_come_from_the_shared_tables() {
        let scopes = |r: Route<'_>| r.scopes().collect::<Vec<_>>();
        assert_eq!(scopes(Route::Mention("k")), ["ai:tools"]);
        assert_eq!(scopes(Route::Context("k")), ["ai:skills"]);
        for work in [
            Route::WorkContainers,
            Route::WorkItems,
            Route::WorkComment("1"),
        ] {
            assert_eq!(scopes(work), ["work:create", "work:sync"], "{work:?}");
        }
        let catalogue: Vec<&str> = [Contribution::WorkItems, Contribution::WorkComments]
            .iter()
            .flat_map(|c| c.scopes().iter().copied())
            .collect();
        assert_eq!(WORK_SCOPES, catalogue);
        assert_eq!(scopes(Route::Action("a")), ["ai:actions"]);
        assert_eq!(scopes(Route::Metrics), ["metrics:write"]);
        assert_eq!(
            scopes(Route::Event(Some("release.shipped"))),
            ["projects:read"]
        );
        assert!(scopes(Route::Event(Some("install.created"))).is_empty());
        assert!(scopes(Route::Procedure("p")).is_empty());
    }
}
