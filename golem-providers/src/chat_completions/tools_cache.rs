//! The encoded `tools` array of the tool set a codec sent last (issue 20).
//!
//! Every request of a run carries the agent's whole tool set, and its JSON
//! schemas are `serde_json::Value`s that serialize anew each time. A run's
//! requests share one `Arc` of the set (the run's prepared configuration),
//! and so do all runs of one agent; the codec keeps the bytes of the last
//! set it encoded next to that `Arc`, and reuses them when the next request
//! carries the same one. Holding the `Arc` keeps the set alive and
//! unchanged, so its address cannot be reused by another set while the
//! bytes are kept. Another set simply replaces the entry.

use super::wire::{WireFunction, WireTool};
use crate::classify::encode_error;
use golem_core::model::ModelError;
use golem_core::tool::ToolDefinition;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};

/// One codec's last encoded tool set, shared by the codec's clones.
///
/// Equality and cloning ignore the contents, as for the prefix cache: it is
/// not part of a codec's value.
#[derive(Clone, Default)]
pub(crate) struct ToolsCache {
    last: Arc<Mutex<Option<Entry>>>,
}

struct Entry {
    tools: Arc<Vec<ToolDefinition>>,
    bytes: Arc<[u8]>,
}

impl ToolsCache {
    /// The JSON array of `tools`, reused when it is the set encoded last.
    pub(crate) fn encoded(&self, tools: &Arc<Vec<ToolDefinition>>) -> Result<Arc<[u8]>, ModelError> {
        let mut last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = last.as_ref().filter(|e| Arc::ptr_eq(&e.tools, tools)) {
            return Ok(Arc::clone(&entry.bytes));
        }
        let bytes: Arc<[u8]> = encode_tools(tools)?.into();
        *last = Some(Entry { tools: Arc::clone(tools), bytes: Arc::clone(&bytes) });
        Ok(bytes)
    }
}

/// The `tools` array of a request body.
pub(crate) fn encode_tools(tools: &[ToolDefinition]) -> Result<Vec<u8>, ModelError> {
    let wire: Vec<WireTool<'_>> = tools
        .iter()
        .map(|t| WireTool {
            kind: "function",
            function: WireFunction { name: &t.name, description: &t.description, parameters: &t.parameters },
        })
        .collect();
    serde_json::to_vec(&wire).map_err(|e| encode_error(&e.to_string()))
}

impl PartialEq for ToolsCache {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl fmt::Debug for ToolsCache {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let last = self.last.lock().unwrap_or_else(PoisonError::into_inner);
        let bytes = last.as_ref().map_or(0, |e| e.bytes.len());
        f.debug_struct("ToolsCache").field("bytes", &bytes).finish()
    }
}
