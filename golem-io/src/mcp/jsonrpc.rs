//! JSON-RPC 2.0 messages as MCP uses them (SPEC MCP-01): parsing arbitrary
//! bytes into a typed [`Message`] or a typed [`ParseError`] — never a panic —
//! and serialising messages for the wire.

use serde_json::{Map, Value};
use std::fmt;

/// A request id as it appears on the wire. Ours are integers from 1; a
/// server may use strings for its own requests. Matching is type-sensitive:
/// `1` and `"1"` are different ids.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Id {
    /// An integer id.
    Int(i64),
    /// A string id.
    Str(String),
    /// `null`, which servers use for errors about unparsable requests.
    Null,
}

impl Id {
    fn to_value(&self) -> Value {
        match self {
            Id::Int(n) => Value::from(*n),
            Id::Str(s) => Value::from(s.as_str()),
            Id::Null => Value::Null,
        }
    }

    /// The id a JSON value names (a `requestId`), if it is one.
    pub(crate) fn from_value(value: &Value) -> Option<Id> {
        parse_id(value.clone()).ok()
    }

    /// Our request number, when this id is one of ours (a positive integer).
    pub fn as_ours(&self) -> Option<u64> {
        match self {
            Id::Int(n) => u64::try_from(*n).ok().filter(|n| *n > 0),
            _ => None,
        }
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(n) => write!(f, "{n}"),
            Id::Str(s) => write!(f, "{s:?}"),
            Id::Null => f.write_str("null"),
        }
    }
}

/// The `error` member of a JSON-RPC error response.
#[derive(Clone, Debug, PartialEq)]
pub struct RpcError {
    /// The error code (e.g. -32601, method not found).
    pub code: i64,
    /// The short description.
    pub message: String,
    /// Extra information, when the server gave some.
    pub data: Option<Value>,
}

impl RpcError {
    /// −32601 for `method`, as this client answers requests it does not
    /// serve.
    pub(crate) fn method_not_found(method: &str) -> RpcError {
        RpcError { code: METHOD_NOT_FOUND, message: "Method not found".into(), data: Some(method.into()) }
    }
}

/// The JSON-RPC "method not found" code.
pub const METHOD_NOT_FOUND: i64 = -32601;

/// One JSON-RPC 2.0 message.
#[derive(Clone, Debug, PartialEq)]
pub enum Message {
    /// A call that expects an answer with the same id.
    Request {
        /// The id the answer must carry.
        id: Id,
        /// The method called.
        method: String,
        /// Its parameters (an object or an array), if any.
        params: Option<Value>,
    },
    /// A call that expects no answer.
    Notification {
        /// The method called.
        method: String,
        /// Its parameters, if any.
        params: Option<Value>,
    },
    /// A successful answer.
    Response {
        /// The id of the request answered.
        id: Id,
        /// The result.
        result: Value,
    },
    /// A failed answer.
    Error {
        /// The id of the request answered (`null` when unknown).
        id: Id,
        /// What went wrong.
        error: RpcError,
    },
}

/// Why some bytes are not a JSON-RPC 2.0 message.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseError {
    /// Not JSON at all (serde's explanation).
    #[error("not JSON: {0}")]
    Json(String),
    /// JSON, but not an object.
    #[error("a JSON-RPC message must be an object")]
    NotAnObject,
    /// A batch (array) where one message was expected.
    #[error("JSON-RPC batches are not supported here")]
    Batch,
    /// `jsonrpc` is missing or is not `"2.0"`.
    #[error("the jsonrpc member must be \"2.0\"")]
    Version,
    /// `method` is not a string.
    #[error("the method member must be a string")]
    Method,
    /// `params` is neither an object nor an array.
    #[error("the params member must be an object or an array")]
    Params,
    /// The id is not an integer, a string or null.
    #[error("the id member must be an integer, a string or null")]
    Id,
    /// A response without an id.
    #[error("a response must carry an id")]
    MissingId,
    /// Both `result` and `error`.
    #[error("a response cannot carry both result and error")]
    ResultAndError,
    /// An `error` member that is not `{code: integer, message: string}`.
    #[error("the error member must be an object with an integer code and a string message")]
    ErrorObject,
    /// None of `method`, `result` or `error`.
    #[error("neither a request, a notification nor a response")]
    Unrecognized,
}

impl Message {
    /// Parse one message from `bytes` (surrounding whitespace allowed).
    pub fn parse(bytes: &[u8]) -> Result<Message, ParseError> {
        match serde_json::from_slice::<Value>(bytes).map_err(|e| ParseError::Json(e.to_string()))? {
            Value::Array(_) => Err(ParseError::Batch),
            value => Message::from_value(value),
        }
    }

    /// Parse one message or a batch of them (an array) from `bytes`.
    pub fn parse_batch(bytes: &[u8]) -> Result<Vec<Message>, ParseError> {
        match serde_json::from_slice::<Value>(bytes).map_err(|e| ParseError::Json(e.to_string()))? {
            Value::Array(items) => items.into_iter().map(Message::from_value).collect(),
            value => Message::from_value(value).map(|m| vec![m]),
        }
    }

    /// Interpret an already-parsed JSON value.
    pub fn from_value(value: Value) -> Result<Message, ParseError> {
        let Value::Object(mut object) = value else { return Err(ParseError::NotAnObject) };
        if object.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            return Err(ParseError::Version);
        }
        let id = object.remove("id").map(parse_id).transpose()?;
        if let Some(method) = object.remove("method") {
            let Value::String(method) = method else { return Err(ParseError::Method) };
            let params = match object.remove("params") {
                None => None,
                Some(p @ (Value::Object(_) | Value::Array(_))) => Some(p),
                Some(_) => return Err(ParseError::Params),
            };
            return Ok(match id {
                Some(id) => Message::Request { id, method, params },
                None => Message::Notification { method, params },
            });
        }
        match (object.remove("result"), object.remove("error")) {
            (Some(_), Some(_)) => Err(ParseError::ResultAndError),
            (Some(result), None) => Ok(Message::Response { id: id.ok_or(ParseError::MissingId)?, result }),
            (None, Some(error)) => {
                Ok(Message::Error { id: id.ok_or(ParseError::MissingId)?, error: parse_error_object(error)? })
            }
            (None, None) => Err(ParseError::Unrecognized),
        }
    }

    /// The message as JSON.
    pub fn to_value(&self) -> Value {
        let mut object = Map::new();
        object.insert("jsonrpc".into(), "2.0".into());
        match self {
            Message::Request { id, method, params } => {
                object.insert("id".into(), id.to_value());
                object.insert("method".into(), method.as_str().into());
                if let Some(params) = params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Notification { method, params } => {
                object.insert("method".into(), method.as_str().into());
                if let Some(params) = params {
                    object.insert("params".into(), params.clone());
                }
            }
            Message::Response { id, result } => {
                object.insert("id".into(), id.to_value());
                object.insert("result".into(), result.clone());
            }
            Message::Error { id, error } => {
                object.insert("id".into(), id.to_value());
                let mut e = Map::new();
                e.insert("code".into(), error.code.into());
                e.insert("message".into(), error.message.as_str().into());
                if let Some(data) = &error.data {
                    e.insert("data".into(), data.clone());
                }
                object.insert("error".into(), Value::Object(e));
            }
        }
        Value::Object(object)
    }

    /// The message as compact JSON bytes. They never contain a raw newline
    /// (JSON escapes them inside strings), so they frame as one stdio line.
    pub fn to_bytes(&self) -> Vec<u8> {
        // Serialising a `Value` cannot fail: its keys are strings.
        serde_json::to_vec(&self.to_value()).unwrap_or_default()
    }

    /// The method of a request or notification.
    pub fn method(&self) -> Option<&str> {
        match self {
            Message::Request { method, .. } | Message::Notification { method, .. } => Some(method),
            _ => None,
        }
    }
}

fn parse_id(value: Value) -> Result<Id, ParseError> {
    match value {
        Value::Number(n) => n.as_i64().map(Id::Int).ok_or(ParseError::Id),
        Value::String(s) => Ok(Id::Str(s)),
        Value::Null => Ok(Id::Null),
        _ => Err(ParseError::Id),
    }
}

fn parse_error_object(value: Value) -> Result<RpcError, ParseError> {
    let Value::Object(mut error) = value else { return Err(ParseError::ErrorObject) };
    let code = error.get("code").and_then(Value::as_i64).ok_or(ParseError::ErrorObject)?;
    let Some(Value::String(message)) = error.remove("message") else { return Err(ParseError::ErrorObject) };
    Ok(RpcError { code, message, data: error.remove("data") })
}
