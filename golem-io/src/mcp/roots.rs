//! Roots (SPEC MCP-19): the places on the user's machine a server may work
//! in, as the client tells it — `roots/list` answered from the roots the
//! application configured ([`ClientOptions::roots`]), and
//! `notifications/roots/list_changed` when it changes them
//! ([`McpClient::set_roots`]).
//!
//! [`ClientOptions::roots`]: crate::mcp::ClientOptions::roots
//! [`McpClient::set_roots`]: crate::mcp::McpClient::set_roots

use serde_json::{json, Value};
use std::path::Path;

/// One root: a `file://` URI and, optionally, a name to show.
///
/// ```
/// use golem_io::mcp::Root;
///
/// let root = Root::new("file:///home/ada/project").named("project");
/// assert_eq!(root.uri, "file:///home/ada/project");
/// let here = Root::from_path("/tmp").unwrap();
/// assert!(here.uri.starts_with("file:///tmp"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Root {
    /// Where it is: a `file://` URI (the protocol allows no other scheme).
    pub uri: String,
    /// A name to show, when given.
    pub name: Option<String>,
}

impl Root {
    /// A root at `uri`.
    pub fn new(uri: impl Into<String>) -> Self {
        Root { uri: uri.into(), name: None }
    }

    /// Builder-style: a name to show.
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The directory `path` as a root (`file://…/`), made absolute against
    /// the current directory; an error for a path no URL can hold.
    pub fn from_path(path: impl AsRef<Path>) -> std::io::Result<Root> {
        let absolute = std::path::absolute(path.as_ref())?;
        let url = url::Url::from_directory_path(&absolute).map_err(|()| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, "the path cannot be written as a file:// URL")
        })?;
        Ok(Root::new(url.as_str()))
    }

    pub(crate) fn to_value(&self) -> Value {
        match &self.name {
            Some(name) => json!({"uri": self.uri, "name": name}),
            None => json!({"uri": self.uri}),
        }
    }
}
