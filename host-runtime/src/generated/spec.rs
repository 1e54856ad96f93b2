//! What the runtime needs of one extension's manifest, written by `host_extension!` as a `static`
//! when the crate is compiled: ids, schemas as JSON text, scopes, metrics and the work destination.
//! The runtime never parses the manifest itself; each schema comes with the validator the macro
//! generated from it (see [`schema`](crate::generated::schema)).
//!
//! Built by generated code only (its fields are public for that); not a stable API.

use crate::generated::schema::Check;

/// One extension, as the runtime serves it.
#[derive(Debug, Clone, Copy)]
pub struct Spec {
    /// The extension id.
    pub extension_id: &'static str,
    /// Assistant tools.
    pub tools: &'static [Tool],
    /// Owner-approved actions.
    pub actions: &'static [Action],
    /// Mention picker ids.
    pub mentions: &'static [&'static str],
    /// Context provider ids.
    pub context: &'static [&'static str],
    /// Procedures.
    pub procedures: &'static [Procedure],
    /// The connector's metrics.
    pub metrics: &'static [Metric],
    /// The work destination.
    pub work: Option<Work>,
    /// `server.events`: the events the server subscribes to.
    pub events: &'static [&'static str],
}

/// A tool: its id and `input` schema.
#[derive(Debug, Clone, Copy)]
pub struct Tool {
    /// The tool id.
    pub id: &'static str,
    /// The `input` JSON Schema, as JSON text.
    pub input: &'static str,
    /// Its validator, generated when the crate compiled (`None`: the text is compiled on first use).
    pub input_check: Option<Check>,
}

/// An action: its id, the scope it declares and its `input` schema.
#[derive(Debug, Clone, Copy)]
pub struct Action {
    /// The action id.
    pub id: &'static str,
    /// The action's own `scope`.
    pub scope: &'static str,
    /// The `input` JSON Schema, as JSON text.
    pub input: &'static str,
    /// Its validator, generated when the crate compiled (`None`: the text is compiled on first use).
    pub input_check: Option<Check>,
}

/// A procedure: its name and `input` and `output` schemas.
#[derive(Debug, Clone, Copy)]
pub struct Procedure {
    /// The procedure name.
    pub name: &'static str,
    /// The `input` JSON Schema, as JSON text.
    pub input: &'static str,
    /// The `output` JSON Schema, as JSON text.
    pub output: &'static str,
    /// The `input` schema's validator, generated when the crate compiled.
    pub input_check: Option<Check>,
    /// The `output` schema's validator, generated when the crate compiled.
    pub output_check: Option<Check>,
}

/// A connector metric and the dimension keys it declares.
pub type Metric = crate::calls::check::DeclaredMetric<'static>;

/// The work destination.
#[derive(Debug, Clone, Copy)]
pub struct Work {
    /// `work.container.list`: the path the host lists containers at.
    pub containers: &'static str,
    /// `work.creates`: the item kinds a new item may have.
    pub creates: &'static [&'static str],
    /// Whether comments sync both ways (`comments: "two-way"`), which opens the comment route.
    pub two_way_comments: bool,
}

impl Spec {
    /// Whether the route's contribution is declared: a route to an undeclared one is `404`.
    pub(crate) fn declares(&self, route: &crate::calls::route::Route<'_>) -> bool {
        use crate::calls::route::Route;
        match route {
            Route::Tool(_)
            | Route::Action(_)
            | Route::Mention(_)
            | Route::Context(_)
            | Route::Procedure(_) => self.declared(route).is_some(),
            Route::Metrics => !self.metrics.is_empty(),
            Route::WorkContainers | Route::WorkItems => self.work.is_some(),
            Route::WorkComment(_) => self.work.is_some_and(|w| w.two_way_comments),
            Route::Event(_) | Route::Health => true,
        }
    }

    /// The manifest's own id of the contribution a route names, when it is declared (`None` for
    /// an undeclared one and a route that names none).
    fn declared(&self, route: &crate::calls::route::Route<'_>) -> Option<&'static str> {
        use crate::calls::route::Route;
        fn find(mut ids: impl Iterator<Item = &'static str>, id: &str) -> Option<&'static str> {
            ids.find(|d| *d == id)
        }
        match route {
            Route::Tool(id) => find(self.tools.iter().map(|t| t.id), id),
            Route::Action(id) => find(self.actions.iter().map(|a| a.id), id),
            Route::Mention(id) => find(self.mentions.iter().copied(), id),
            Route::Context(id) => find(self.context.iter().copied(), id),
            Route::Procedure(name) => find(self.procedures.iter().map(|p| p.name), name),
            _ => None,
        }
    }

    /// The route as metric labels: its kind, and the declared contribution it names (its id from
    /// the manifest, `""` for an undeclared one or a route without one), so that no caller can
    /// add a label value.
    pub(crate) fn labels(
        &self,
        route: &crate::calls::route::Route<'_>,
    ) -> (&'static str, &'static str) {
        use crate::calls::route::Route;
        let kind = match route {
            Route::Health => "health",
            Route::Tool(_) => "tool",
            Route::Action(_) => "action",
            Route::Mention(_) => "mention",
            Route::Context(_) => "context",
            Route::Procedure(_) => "procedure",
            Route::Event(_) => "event",
            Route::Metrics => "metrics",
            Route::WorkContainers => "work_containers",
            Route::WorkItems => "work_items",
            Route::WorkComment(_) => "work_comment",
        };
        (kind, self.declared(route).unwrap_or(""))
    }

    /// The action's own scope, for an action route.
    pub(crate) fn action_scope(
        &self,
        route: &crate::calls::route::Route<'_>,
    ) -> Option<&'static str> {
        match route {
            crate::calls::route::Route::Action(id) => {
                self.actions.iter().find(|a| a.id == *id).map(|a| a.scope)
            }
            _ => None,
        }
    }

    /// The path the host lists work containers at, if there is a work destination.
    pub(crate) fn work_containers(&self) -> Option<&'static str> {
        self.work.map(|w| w.containers)
    }
}
