//! A vendor crate in miniature: the example manifest expanded under `#![deny(warnings, missing_docs)]`
//! and the workspace's clippy settings, with every generated trait implemented as a vendor would.

#![deny(warnings, missing_docs)]

use host_runtime::answer::{Cell, Comparison, ComparisonRow, List, ListItem, Series, Table, Value};
use host_runtime::metrics::{MetricPoint, SyncAnswer};
use host_runtime::{ContextBlock, ContextCall, HostError, MentionCall, MentionItem, MentionItems};

pub mod docs;

host_runtime::host_extension!(
    "../host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json"
);

/// The vendor's server state.
#[derive(Debug, Default)]
pub struct Server {
    /// Tracked keywords.
    pub keywords: Vec<String>,
    /// Switches the runtime tests flip to make handlers misbehave.
    pub behaviour: Behaviour,
}

/// How the test server misbehaves, and what it saw.
#[derive(Debug, Default)]
pub struct Behaviour {
    /// `keyword-ranks` panics.
    pub panic: std::sync::atomic::AtomicBool,
    /// `keyword-ranks` sleeps this long first.
    pub delay_ms: std::sync::atomic::AtomicU64,
    /// The next `release.shipped` deliveries that fail with a 503.
    pub fail_events: std::sync::atomic::AtomicUsize,
    /// `release.shipped` works this long before it succeeds or fails.
    pub event_delay_ms: std::sync::atomic::AtomicU64,
    /// `release.shipped` deliveries handled successfully.
    pub releases_handled: std::sync::atomic::AtomicUsize,
    /// `top-movers` and `tracked-keywords` answer what the interface forbids (a row key that is no
    /// column, a context block over 2 KB).
    pub bad_answers: std::sync::atomic::AtomicBool,
    /// Every sync answer says more pages follow, from the same cursor: paging that never ends.
    pub looping_cursor: std::sync::atomic::AtomicBool,
}

impl Tools for Server {
    async fn keyword_ranks(
        &self,
        call: ToolCall<tools::keyword_ranks::Input>,
    ) -> Result<Series, HostError> {
        use std::sync::atomic::Ordering;
        let delay = self.behaviour.delay_ms.load(Ordering::SeqCst);
        if delay > 0 {
            tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        }
        if self.behaviour.panic.load(Ordering::SeqCst) {
            // The runtime's panic isolation is what the tests exercise here.
            #[allow(clippy::panic)]
            {
                panic!("the rank provider exploded");
            }
        }
        let keyword: &str = &call.input.keyword;
        let _key: &str = &call.credentials.api_key;
        let _workspace: Option<&str> = call.credentials.workspace.as_deref();
        Ok(Series {
            series: vec![host_runtime::answer::Line {
                key: keyword.into(),
                label: keyword.into(),
                unit: None,
                points: vec![],
            }],
        })
    }

    async fn compare_keywords(
        &self,
        _call: ToolCall<tools::compare_keywords::Input>,
    ) -> Result<Comparison, HostError> {
        Ok(Comparison {
            subjects: vec!["notes".into(), "todo".into()],
            rows: vec![ComparisonRow {
                label: "Rank".into(),
                values: vec![Some(3.0.into()), None],
            }],
        })
    }

    async fn top_movers(
        &self,
        _call: ToolCall<tools::top_movers::Input>,
    ) -> Result<Table, HostError> {
        let table = Table::new()
            .column("keyword", "Keyword")
            .row([("keyword", Cell::from("notes"))]);
        if self
            .behaviour
            .bad_answers
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return Ok(table.row([("rank", 3.0)]));
        }
        Ok(table)
    }

    async fn keyword_ideas(
        &self,
        _call: ToolCall<tools::keyword_ideas::Input>,
    ) -> Result<List, HostError> {
        Ok(List {
            items: self.keywords.iter().map(ListItem::new).collect(),
        })
    }

    async fn visibility_score(
        &self,
        _call: ToolCall<tools::visibility_score::Input>,
    ) -> Result<Value, HostError> {
        Ok(Value::new(71.5).label("Visibility"))
    }
}

impl Actions for Server {
    async fn save_rank_insight(
        &self,
        call: Approved<actions::save_rank_insight::Input>,
    ) -> Result<host_runtime::serde_json::Value, HostError> {
        Ok(host_runtime::serde_json::json!({
            "saved": true,
            "install": call.install.id,
            "platform": call.context.platform,
        }))
    }
}

impl Mentions for Server {
    async fn keyword(&self, call: MentionCall) -> Result<MentionItems, HostError> {
        let items = self
            .keywords
            .iter()
            .filter(|k| k.contains(&call.q))
            .map(|k| MentionItem::new(k, k))
            .collect();
        Ok(MentionItems { items })
    }
}

impl ContextProviders for Server {
    async fn tracked_keywords(&self, call: ContextCall) -> Result<ContextBlock, HostError> {
        // The request is readable: a trace id the host sent comes back in the block.
        if let Some(trace) = call.request.header("x-trace-id") {
            let token_seen = call.request.header("authorization").is_some();
            return Ok(ContextBlock::new(format!(
                "trace {trace} on {} {}; token visible: {token_seen}",
                call.request.method(),
                call.request.path()
            )));
        }
        if self
            .behaviour
            .bad_answers
            .load(std::sync::atomic::Ordering::SeqCst)
        {
            return Ok(ContextBlock::new("keyword ".repeat(400)));
        }
        Ok(ContextBlock::new(format!(
            "{} keywords tracked",
            self.keywords.len()
        )))
    }
}

impl Procedures for Server {
    async fn add_keyword(
        &self,
        call: ProcedureCall<procedures::add_keyword::Input>,
    ) -> Result<procedures::add_keyword::Output, HostError> {
        let _country: &str = &call.input.country;
        Ok(procedures::add_keyword::Output { tracked: true })
    }

    async fn list_watchlists(
        &self,
        _call: ProcedureCall<procedures::list_watchlists::Input>,
    ) -> Result<procedures::list_watchlists::Output, HostError> {
        Ok(procedures::list_watchlists::Output { items: vec![] })
    }
}

impl Connector for Server {
    async fn sync(&self, call: SyncCall) -> Result<SyncAnswer<manifest::Metric>, HostError> {
        let bad = self
            .behaviour
            .bad_answers
            .load(std::sync::atomic::Ordering::SeqCst);
        let points = call
            .input
            .metrics
            .iter()
            .map(|m| {
                let point = MetricPoint::new(*m, call.input.to.clone(), 1.0);
                if bad {
                    // No metric of the manifest declares a `planet` dimension.
                    point.dimension("planet", "mars")
                } else {
                    point
                }
            })
            .collect();
        let looping = self
            .behaviour
            .looping_cursor
            .load(std::sync::atomic::Ordering::SeqCst);
        Ok(SyncAnswer {
            points,
            cursor: looping.then(|| "page-2".to_owned()),
        })
    }
}

impl Events for Server {
    async fn release_shipped(
        &self,
        call: EventCall<host_runtime::events::ReleaseShipped>,
    ) -> Result<(), HostError> {
        use std::sync::atomic::Ordering;
        let _version: &str = &call.input.version;
        // Slow enough that a concurrent duplicate arrives while this one is in flight.
        let delay = 50 + self.behaviour.event_delay_ms.load(Ordering::SeqCst);
        tokio::time::sleep(std::time::Duration::from_millis(delay)).await;
        let failing = self.behaviour.fail_events.load(Ordering::SeqCst);
        if failing > 0 {
            self.behaviour
                .fail_events
                .store(failing - 1, Ordering::SeqCst);
            return Err(HostError::new("RANKS_DOWN", "the rank store is down").with_status(503));
        }
        self.behaviour
            .releases_handled
            .fetch_add(1, Ordering::SeqCst);
        Ok(())
    }
    async fn install_created(
        &self,
        _call: EventCall<host_runtime::events::InstallCreated>,
    ) -> Result<(), HostError> {
        Ok(())
    }
    async fn install_paused(
        &self,
        _call: EventCall<host_runtime::events::InstallPaused>,
    ) -> Result<(), HostError> {
        Ok(())
    }
    async fn install_resumed(
        &self,
        _call: EventCall<host_runtime::events::InstallResumed>,
    ) -> Result<(), HostError> {
        Ok(())
    }
    async fn install_revoked(
        &self,
        _call: EventCall<host_runtime::events::InstallRevoked>,
    ) -> Result<(), HostError> {
        Ok(())
    }
    async fn install_token_rotated(
        &self,
        _call: EventCall<host_runtime::events::InstallTokenRotated>,
    ) -> Result<(), HostError> {
        Ok(())
    }
    async fn settings_changed(
        &self,
        _call: EventCall<host_runtime::events::SettingsChanged>,
    ) -> Result<(), HostError> {
        Ok(())
    }
}

/// The handler for [`Server`]: compiles only because every trait the manifest needs is implemented.
pub fn build() -> host_runtime::Handler {
    handler(Server::default())
}

/// A second extension in the same crate: a work destination (tracker) with two-way comments.
pub mod work_tracker {
    use host_runtime::HostError;
    use host_runtime::work::{
        Container, Containers, CreatedComment, CreatedItem, NewComment, NewItem,
    };

    host_runtime::host_extension!(
        "../host-manifest/tests/fixtures/valid/work-tracker/host.extension.json"
    );

    /// A tracker with two projects.
    #[derive(Debug, Default)]
    pub struct Tracker;

    impl Work for Tracker {
        async fn containers(&self, call: ContainersCall) -> Result<Containers, HostError> {
            let q = call.input.q.unwrap_or_default().to_lowercase();
            let items = [("prj-mobile", "Mobile app"), ("prj-web", "Web")]
                .into_iter()
                .filter(|(_, label)| label.to_lowercase().contains(&q))
                .map(|(id, label)| Container {
                    id: id.into(),
                    label: label.into(),
                })
                .collect();
            Ok(Containers { items })
        }

        async fn create_item(&self, call: WorkCall<NewItem>) -> Result<CreatedItem, HostError> {
            let url = match call.input.container.as_str() {
                "prj-mobile" | "prj-web" => "https://tracker.example/ISS-101",
                // A project whose links the tracker gets wrong: the runtime must refuse the answer.
                "prj-insecure" => "http://tracker.example/ISS-101",
                _ => {
                    return Err(
                        HostError::new("NO_SUCH_PROJECT", "that project does not exist")
                            .with_status(404),
                    );
                }
            };
            Ok(CreatedItem {
                id: "ISS-101".into(),
                url: url.into(),
                status: "Backlog".into(),
            })
        }

        async fn create_comment(
            &self,
            call: WorkCall<(String, NewComment)>,
        ) -> Result<CreatedComment, HostError> {
            let (item, comment) = call.input;
            Ok(CreatedComment {
                id: format!("{item}-c{}", comment.body.len()),
            })
        }
    }
}
