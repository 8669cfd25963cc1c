//! A typed view of a whole Chat Completions response: the fast path of
//! [`decode_body`](super::decode_body) (issue 20).
//!
//! Deserializing straight into these structs skips building a
//! `serde_json::Value` tree of the whole body, which was the largest single
//! cost of a plain turn. The view is *strict*: a field of an unexpected type,
//! a duplicated field or an empty `choices` fails it, and the caller then
//! decodes through the `Value` path. That path's leniency (a wrong-typed field
//! reads as absent) stays the one definition of what a body means, so the
//! view only has to agree with it on the bodies it accepts — which
//! `fuzzing::chat_response` checks on every input.
//!
//! One difference is deliberate: fields golem never reads are skipped
//! without being parsed, so a number beyond `f64`'s range in, say, a
//! vendor's extra field no longer turns a usable answer into a retried
//! decode error.

use super::meaning::{finish_reason_of, usage_of, DeltaSink};
use golem_core::message::{FinishReason, Usage};
use golem_core::model::Delta;
use serde::de::value::MapAccessDeserializer;
use serde::de::{Deserializer, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;

/// What a body that fits the view decodes to, before assembly.
pub(crate) struct Decoded {
    /// The message as stream deltas, in stream order.
    pub deltas: Vec<Delta>,
    /// The call's token counts.
    pub usage: Usage,
    /// Why generation stopped.
    pub finish: FinishReason,
}

/// The decoded body, or `None` when it does not fit the view (including
/// every body that is not valid JSON or has no choices).
pub(crate) fn decode(body: &[u8], turn: usize) -> Option<Decoded> {
    let Obj(body) = crate::codec::json::parse_json::<Obj<Body>>(body).ok()?;
    let Obj(choice) = body.choices.into_iter().next()?;
    let message = choice.message.map(|m| m.0).unwrap_or_default();
    let refused = message.refusal.as_deref().is_some_and(|r| !r.is_empty());
    let finish = if refused { FinishReason::ContentFilter } else { finish_reason_of(choice.finish_reason.as_deref()) };
    Some(Decoded {
        deltas: message.into_deltas(turn),
        usage: body.usage.map(|u| u.0).unwrap_or_default().counts(),
        finish,
    })
}

#[derive(Deserialize)]
struct Body {
    choices: Vec<Obj<Choice>>,
    #[serde(default)]
    usage: Option<Obj<UsageWire>>,
}

#[derive(Deserialize)]
struct Choice {
    #[serde(default)]
    message: Option<Obj<MessageWire>>,
    #[serde(default)]
    finish_reason: Option<String>,
}

/// A response's message, or a stream chunk's delta: the same fields.
#[derive(Default, Deserialize)]
pub(super) struct MessageWire {
    #[serde(default)]
    pub(super) reasoning_content: Option<String>,
    #[serde(default)]
    pub(super) reasoning: Option<String>,
    #[serde(default)]
    pub(super) content: Option<Content>,
    #[serde(default)]
    pub(super) refusal: Option<String>,
    /// Rare (search models only), so kept as a `Value`: the one shape the
    /// `Value` path reads, with no second definition to agree with.
    #[serde(default)]
    pub(super) annotations: Option<serde_json::Value>,
    #[serde(default)]
    pub(super) tool_calls: Option<Vec<Obj<CallWire>>>,
    #[serde(default)]
    pub(super) function_call: Option<Obj<FunctionWire>>,
}

impl MessageWire {
    /// The same deltas, in the same order, as `message_deltas` makes of the
    /// message's `Value`.
    fn into_deltas(self, turn: usize) -> Vec<Delta> {
        let mut sink = DeltaSink::new(turn);
        if let Some(text) = reasoning(self.reasoning_content, self.reasoning) {
            sink.thinking(text);
        }
        Content::texts(self.content, |text| sink.text(text));
        if let Some(refusal) = self.refusal {
            sink.text(refusal);
        }
        sink.annotations(self.annotations.as_ref());
        let calls = self.tool_calls.into_iter().flatten().map(|call| call.0);
        let functions = calls
            .filter(|call| call.kind.as_deref().is_none_or(|t| t == "function"))
            .filter_map(|call| Some((call.id, call.function?.0)))
            .chain(self.function_call.map(|f| (None, f.0)));
        for (id, function) in functions {
            sink.call(id, function.name.unwrap_or_default(), function.arguments.unwrap_or_default());
        }
        sink.finish()
    }
}

/// `content`: a string, or an array of parts. Anything else fails the view.
pub(super) enum Content {
    Text(String),
    Parts(Vec<Obj<PartWire>>),
}

impl Content {
    /// Each non-empty text, as `content_texts` finds them in a `Value`.
    pub(super) fn texts(content: Option<Content>, mut each: impl FnMut(String)) {
        match content {
            Some(Content::Text(text)) if !text.is_empty() => each(text),
            Some(Content::Parts(parts)) => {
                for Obj(part) in parts {
                    let is_text = part.kind.as_deref().is_none_or(|t| t == "text");
                    if let Some(text) = part.text.filter(|t| is_text && !t.is_empty()) {
                        each(text);
                    }
                }
            }
            _ => {}
        }
    }
}

/// `reasoning_content` (DeepSeek, vLLM) or else `reasoning` (OpenRouter,
/// Ollama), the first that is non-empty.
pub(super) fn reasoning(content: Option<String>, reasoning: Option<String>) -> Option<String> {
    [content, reasoning].into_iter().flatten().find(|t| !t.is_empty())
}

impl<'de> Deserialize<'de> for Content {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ContentVisitor;
        impl<'de> Visitor<'de> for ContentVisitor {
            type Value = Content;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string or an array of content parts")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Content, E> {
                Ok(Content::Text(text.to_owned()))
            }
            fn visit_string<E: serde::de::Error>(self, text: String) -> Result<Content, E> {
                Ok(Content::Text(text))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Content, A::Error> {
                let mut parts = Vec::new();
                while let Some(part) = seq.next_element()? {
                    parts.push(part);
                }
                Ok(Content::Parts(parts))
            }
        }
        deserializer.deserialize_any(ContentVisitor)
    }
}

#[derive(Deserialize)]
pub(super) struct PartWire {
    #[serde(default, rename = "type")]
    kind: Option<String>,
    #[serde(default)]
    text: Option<String>,
}

#[derive(Deserialize)]
pub(super) struct CallWire {
    /// A stream fragment's position; a whole response has none (one given
    /// there must still be a number, or the body takes the `Value` path).
    #[serde(default)]
    pub(super) index: Option<u64>,
    #[serde(default)]
    pub(super) id: Option<String>,
    #[serde(default, rename = "type")]
    pub(super) kind: Option<String>,
    #[serde(default)]
    pub(super) function: Option<Obj<FunctionWire>>,
}

#[derive(Deserialize)]
pub(super) struct FunctionWire {
    #[serde(default)]
    pub(super) name: Option<String>,
    /// Only the string form; an object here fails the view, and the `Value`
    /// path turns it into JSON text.
    #[serde(default)]
    pub(super) arguments: Option<String>,
}

#[derive(Default, Deserialize)]
pub(super) struct UsageWire {
    #[serde(default)]
    prompt_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens: Option<u64>,
    #[serde(default)]
    prompt_tokens_details: Option<Obj<PromptDetails>>,
    #[serde(default)]
    prompt_cache_hit_tokens: Option<u64>,
    #[serde(default)]
    completion_tokens_details: Option<Obj<CompletionDetails>>,
}

impl UsageWire {
    /// The counts, with the `Value` path's rules.
    pub(super) fn counts(self) -> Usage {
        // A present `cached_tokens` wins even when null, as a JSON pointer
        // finds it in the `Value` path; only an absent one defers to
        // DeepSeek's field.
        let cached = match self.prompt_tokens_details.and_then(|d| d.0.cached_tokens) {
            Some(present) => present,
            None => self.prompt_cache_hit_tokens,
        };
        usage_of(
            self.prompt_tokens,
            self.completion_tokens,
            cached,
            self.completion_tokens_details.and_then(|d| d.0.reasoning_tokens),
        )
    }
}

#[derive(Deserialize)]
struct PromptDetails {
    #[serde(default, deserialize_with = "present")]
    cached_tokens: Option<Option<u64>>,
}

#[derive(Deserialize)]
struct CompletionDetails {
    #[serde(default)]
    reasoning_tokens: Option<u64>,
}

/// A field that is present, null or not: `Some(None)` for null, so it can be
/// told apart from an absent one (`None`, through `default`).
pub(super) fn present<'de, D: Deserializer<'de>, T: Deserialize<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
    T::deserialize(deserializer).map(Some)
}

/// A struct that must come as a JSON object. Derived structs also accept
/// an array of their fields in order, which the `Value` path reads as no
/// fields at all; this wrapper refuses arrays so such a body fails the view.
pub(super) struct Obj<T>(pub(super) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjVisitor<T>(PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjVisitor<T> {
            type Value = Obj<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Obj<T>, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(Obj)
            }
        }
        deserializer.deserialize_map(ObjVisitor(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::decode;
    use golem_core::message::FinishReason;
    use golem_core::model::Delta;

    fn texts(deltas: &[Delta]) -> Vec<&str> {
        deltas.iter().filter_map(|d| if let Delta::Text { text } = d { Some(text.as_str()) } else { None }).collect()
    }

    #[test]
    fn reads_the_fields_and_skips_the_rest() {
        let body = br#"{"id":"x","system_fingerprint":"fp","choices":[{"index":0,"logprobs":null,
            "message":{"role":"assistant","content":"Hi","annotations":[{"a":[1,{"b":null}]}]},
            "finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}}"#;
        let decoded = decode(body, 1).expect("fits the view");
        assert_eq!(texts(&decoded.deltas), ["Hi"]);
        assert_eq!(decoded.finish, FinishReason::Stop);
        assert_eq!((decoded.usage.input_tokens, decoded.usage.output_tokens), (3, 1));
    }

    #[test]
    fn mistyped_or_positional_fields_do_not_fit() {
        for body in [
            &br#"{"choices":[{"message":["x"]}]}"#[..],
            br#"[[{"message":{"content":"x"}}]]"#,
            br#"{"choices":[{"message":{"content":7}}]}"#,
            br#"{"choices":[{"message":{"tool_calls":[{"function":{"name":"t","arguments":{"a":1}}}]}}]}"#,
            br#"{"choices":[{"message":{"content":"a","content":"b"}}]}"#,
            br#"{"choices":[],"error":{"message":"no"}}"#,
            br#"{"choices":[{"message":{}}],"usage":{"prompt_tokens":1.5}}"#,
            br#"not json"#,
        ] {
            assert!(decode(body, 1).is_none(), "{}", String::from_utf8_lossy(body));
        }
    }

    #[test]
    fn a_null_cached_count_wins_over_deepseeks_field() {
        let body = br#"{"choices":[{"message":{}}],"usage":{"prompt_tokens_details":{"cached_tokens":null},
            "prompt_cache_hit_tokens":9}}"#;
        assert_eq!(decode(body, 1).map(|d| d.usage.cache_read_tokens), Some(0));
        let body = br#"{"choices":[{"message":{}}],"usage":{"prompt_tokens_details":{},"prompt_cache_hit_tokens":9}}"#;
        assert_eq!(decode(body, 1).map(|d| d.usage.cache_read_tokens), Some(9));
    }

    #[test]
    fn an_unread_field_out_of_range_does_not_fail_the_answer() {
        let body = br#"{"choices":[{"message":{"content":"ok"}}],"vendor_score":1e400}"#;
        assert!(serde_json::from_slice::<serde_json::Value>(body).is_err());
        assert_eq!(decode(body, 1).map(|d| texts(&d.deltas).concat()), Some("ok".to_string()));
    }
}
