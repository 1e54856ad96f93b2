//! The work destination: follow-up tasks on the vendor's own board, with two-way comments.

use host_runtime::HostError;
use host_runtime::work::{Container, Containers, CreatedComment, CreatedItem, NewComment, NewItem};

use crate::{ContainersCall, Task, Tracker, Work, WorkCall};

/// The boards every account has.
const BOARDS: [(&str, &str); 2] = [("aso", "ASO backlog"), ("listing", "Store listing copy")];

/// Where a task lives in the vendor's web app.
const TASK_URL: &str = "https://app.keywordtracker.example/tasks/";

impl Work for Tracker {
    async fn containers(&self, call: ContainersCall) -> Result<Containers, HostError> {
        let q = call.input.q.unwrap_or_default().trim().to_lowercase();
        let items = BOARDS
            .iter()
            .filter(|(_, label)| label.to_lowercase().contains(&q))
            .map(|(id, label)| Container {
                id: (*id).to_owned(),
                label: (*label).to_owned(),
            })
            .collect();
        Ok(Containers { items })
    }

    async fn create_item(&self, call: WorkCall<NewItem>) -> Result<CreatedItem, HostError> {
        // The runtime has already refused kinds the manifest's `creates` does not list (`issue` only)
        // and attachments that are not https links.
        let item = call.input;
        if !BOARDS.iter().any(|(id, _)| *id == item.container) {
            return Err(HostError::new(
                "BOARD_NOT_FOUND",
                format!(
                    "there is no board `{}`; pick one from the board list",
                    item.container
                ),
            )
            .with_status(404));
        }
        let title = item.title.trim();
        if title.is_empty() {
            return Err(HostError::bad_request("/title: a task needs a title"));
        }
        let id = self.with_install(&call.install.id, |s| {
            let id = format!("KT-{}", s.next_task);
            s.next_task += 1;
            s.tasks.insert(
                id.clone(),
                Task {
                    title: title.to_owned(),
                    comments: Vec::new(),
                },
            );
            id
        });
        Ok(CreatedItem {
            url: format!("{TASK_URL}{id}"),
            id,
            status: "todo".to_owned(),
        })
    }

    async fn create_comment(
        &self,
        call: WorkCall<(String, NewComment)>,
    ) -> Result<CreatedComment, HostError> {
        let (task, comment) = call.input;
        let id = self.with_install(&call.install.id, |s| {
            let t = s.tasks.get_mut(&task)?;
            t.comments.push(comment.body);
            Some(format!("{task}-c{}", t.comments.len()))
        });
        match id {
            Some(id) => Ok(CreatedComment { id }),
            None => Err(HostError::new(
                "TASK_NOT_FOUND",
                format!("there is no task `{task}` on this install's boards"),
            )
            .with_status(404)),
        }
    }
}
