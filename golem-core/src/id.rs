//! Run and conversation ids as messages and events carry them (SPEC EXTRA-01).

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// A run or conversation id on a [`Message`](crate::Message) or
/// [`RunEvent`](crate::RunEvent). Empty means none.
///
/// A run stamps its two ids on every message it adds and every event it
/// emits, so they are shared rather than copied: cloning an `Id` never
/// allocates, and neither does the empty default. It reads as a `str` and
/// compares with strings; it serializes as a plain JSON string.
///
/// ```
/// use golem_core::{Id, Message};
///
/// let mut message = Message::user("hi");
/// assert!(message.run_id.is_empty());
/// message.run_id = "run-1".into();
/// assert_eq!(message.run_id, "run-1");
/// assert_eq!(message.run_id.as_str(), String::from("run-1"));
/// let copy: Id = message.run_id.clone(); // the same text, not a copy of it
/// assert_eq!(copy.to_string(), "run-1");
/// ```
#[derive(Clone, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Id(Arc<str>);

impl Id {
    /// An id with this text.
    pub fn new(id: impl Into<Arc<str>>) -> Id {
        Id(id.into())
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// True when there is no id.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// Unset the id (make it empty).
    pub fn clear(&mut self) {
        *self = Id::default();
    }
}

impl Deref for Id {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Id {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl Borrow<str> for Id {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl From<&str> for Id {
    fn from(id: &str) -> Id {
        Id(id.into())
    }
}

impl From<&String> for Id {
    fn from(id: &String) -> Id {
        Id(id.as_str().into())
    }
}

impl From<String> for Id {
    fn from(id: String) -> Id {
        Id(id.into())
    }
}

impl From<Arc<str>> for Id {
    fn from(id: Arc<str>) -> Id {
        Id(id)
    }
}

impl From<&Id> for Id {
    fn from(id: &Id) -> Id {
        id.clone()
    }
}

impl From<Id> for String {
    fn from(id: Id) -> String {
        id.0.to_string()
    }
}

impl From<Id> for Arc<str> {
    fn from(id: Id) -> Arc<str> {
        id.0
    }
}

impl PartialEq<str> for Id {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Id {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<String> for Id {
    fn eq(&self, other: &String) -> bool {
        *self.0 == **other
    }
}

impl PartialEq<Id> for str {
    fn eq(&self, other: &Id) -> bool {
        *self == *other.0
    }
}

impl PartialEq<Id> for &str {
    fn eq(&self, other: &Id) -> bool {
        **self == *other.0
    }
}

impl PartialEq<Id> for String {
    fn eq(&self, other: &Id) -> bool {
        **self == *other.0
    }
}

impl Serialize for Id {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Id {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Id, D::Error> {
        // An empty id takes the shared empty default instead of allocating.
        let text = String::deserialize(deserializer)?;
        Ok(if text.is_empty() { Id::default() } else { Id(text.into()) })
    }
}
