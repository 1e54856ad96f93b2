//! The work destination's routes: listing containers, creating items and syncing comments.

use serde::{Deserialize, Serialize};

/// `?q=` of the container list.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct ContainerQuery {
    /// What the owner has typed, if anything.
    #[serde(default)]
    pub q: Option<String>,
}

/// Selectable containers (projects, spaces, channels).
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Containers {
    /// The containers.
    pub items: Vec<Container>,
}

/// One container.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Container {
    /// Id the host sends back in `container`.
    pub id: String,
    /// Label.
    pub label: String,
}

/// What can be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ItemKind {
    /// `issue`
    Issue,
    /// `page`
    Page,
    /// `message`
    Message,
}

/// What can be attached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum AttachmentKind {
    /// `image`
    Image,
    /// `link`
    Link,
}

/// One attachment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Attachment {
    /// Image or link.
    #[serde(rename = "type")]
    pub kind: AttachmentKind,
    /// An https URL.
    pub url: String,
}

/// `POST /host/work/items`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewItem {
    /// One of the manifest's `creates`.
    pub kind: ItemKind,
    /// A container id from the container list.
    pub container: String,
    /// Title.
    pub title: String,
    /// Markdown body.
    #[serde(default)]
    pub body: Option<String>,
    /// One of the manifest's priorities.
    #[serde(default)]
    pub priority: Option<String>,
    /// Labels.
    #[serde(default)]
    pub labels: Vec<String>,
    /// Assignee.
    #[serde(default)]
    pub assignee: Option<String>,
    /// Attachments.
    #[serde(default)]
    pub attachments: Vec<Attachment>,
}

/// The created item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedItem {
    /// The vendor's id.
    pub id: String,
    /// An https link to it.
    pub url: String,
    /// The vendor's status name.
    pub status: String,
}

/// `POST /host/work/items/<id>/comments`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct NewComment {
    /// Markdown body.
    pub body: String,
}

/// The created comment.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CreatedComment {
    /// The vendor's id.
    pub id: String,
}
