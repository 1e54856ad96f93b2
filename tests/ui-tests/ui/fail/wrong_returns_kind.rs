// `visibility-score` declares `returns: "value"`: answering a table does not compile.

use host_runtime::answer::{Comparison, List, Series, Table};
use host_runtime::HostError;

host_runtime::host_extension!("repo/host-manifest/tests/fixtures/valid/keyword-tracker/host.extension.json");

struct Server;

impl Tools for Server {
    async fn keyword_ranks(&self, _call: ToolCall<tools::keyword_ranks::Input>) -> Result<Series, HostError> {
        Ok(Series::default())
    }
    async fn compare_keywords(&self, _call: ToolCall<tools::compare_keywords::Input>) -> Result<Comparison, HostError> {
        Ok(Comparison::default())
    }
    async fn top_movers(&self, _call: ToolCall<tools::top_movers::Input>) -> Result<Table, HostError> {
        Ok(Table::new())
    }
    async fn keyword_ideas(&self, _call: ToolCall<tools::keyword_ideas::Input>) -> Result<List, HostError> {
        Ok(List::default())
    }
    async fn visibility_score(&self, _call: ToolCall<tools::visibility_score::Input>) -> Result<Table, HostError> {
        Ok(Table::new())
    }
}

fn main() {}
