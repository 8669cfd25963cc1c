//! The one built-in tool Chat Completions has: web search, on the search
//! models (`gpt-4o-search-preview`, `gpt-5-search-api`, …), as the
//! request's `web_search_options`. The search happens inside the model's
//! turn and leaves no blocks to replay; its citations ride on the text.

use super::tuning::Tuning;
use crate::blocks::{location_fields, unsupported_builtin};
use golem_core::builtin::{BuiltinTool, UserLocation};
use golem_core::model::ModelError;
use serde_json::{Map, Value};

/// The family name in errors.
const FAMILY: &str = "chat completions";

/// Whether `model` searches the web: OpenAI's search models say so in
/// their name; other models refuse `web_search_options` (recorded).
pub(crate) fn searches(model: &str) -> bool {
    model.contains("search")
}

/// `web_search_options` for the declared built-ins, `None` without web
/// search; any other built-in, or a search option the API has no field
/// for, is refused.
pub(crate) fn web_search_options(tools: &[BuiltinTool], tuning: &Tuning) -> Result<Option<Value>, ModelError> {
    let mut options = None;
    for tool in tools {
        let BuiltinTool::WebSearch(search) = tool else {
            return Err(unsupported_builtin(tool, FAMILY, "Chat Completions runs web search only"));
        };
        if !search.allowed_domains.is_empty() || !search.blocked_domains.is_empty() || search.max_uses.is_some() {
            return Err(unsupported_builtin(tool, FAMILY, "web_search_options take no domains or use limit"));
        }
        let mut fields = Map::new();
        if let Some(size) = &tuning.extras.search_context_size {
            fields.insert("search_context_size".into(), size.as_str().into());
        }
        if let Some(location) = &search.user_location {
            fields.insert("user_location".into(), user_location(location));
        }
        options = Some(Value::Object(fields));
    }
    Ok(options)
}

fn user_location(location: &UserLocation) -> Value {
    serde_json::json!({"type": "approximate", "approximate": location_fields(location)})
}
