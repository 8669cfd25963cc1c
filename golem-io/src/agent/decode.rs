//! Output decoders: the boundary where model output becomes a typed value
//! (SPEC OUT-01, OUT-02, RUN-11).

use crate::run::context::RunContext;
use crate::tool::schema::short_type_name;
use golem_core::model::BoxError;
use golem_core::{texts, Response};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

/// Why a decoder refused a response.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum DecodeError {
    /// Correctable: the model is told the reason and answers again, while
    /// the output correction budget lasts.
    #[error("{0}")]
    Retry(String),
    /// Not correctable: the run fails at the decode stage with this error
    /// in its `source()` chain.
    #[error(transparent)]
    Fatal(BoxError),
}

impl DecodeError {
    /// A correctable rejection.
    pub fn retry(reason: impl Into<String>) -> Self {
        DecodeError::Retry(reason.into())
    }

    /// A fatal error.
    pub fn fatal(error: impl Into<BoxError>) -> Self {
        DecodeError::Fatal(error.into())
    }
}

/// Turns the final response into the agent's output. It runs in the driver,
/// never in the machine; the machine only sees its verdict.
///
/// The decoder sees its run through a [`RunContext`] — the deps and ids,
/// like a tool. A decoder that does not read the deps implements the trait
/// for every `Deps`, as the built-in ones do:
///
/// ```
/// use golem_core::Response;
/// use golem_io::{DecodeError, Decoder, RunContext};
///
/// struct Shouting;
/// impl<Deps> Decoder<String, Deps> for Shouting {
///     fn decode(&self, _: &RunContext<Deps>, response: &Response) -> Result<String, DecodeError> {
///         Ok(response.message.content.to_uppercase())
///     }
/// }
/// ```
pub trait Decoder<O, Deps = ()>: Send + Sync {
    /// Decode `response` (in output-tool mode its content is the output
    /// call's arguments).
    fn decode(&self, ctx: &RunContext<Deps>, response: &Response) -> Result<O, DecodeError>;
}

/// The text decoder: the final content, with an empty reply rejected
/// correctably so it never becomes `Ok("")` (SPEC RUN-11) — as filtered
/// when a content filter stopped it.
#[derive(Clone, Copy, Debug, Default)]
pub struct TextDecoder;

impl<Deps> Decoder<String, Deps> for TextDecoder {
    fn decode(&self, _: &RunContext<Deps>, response: &Response) -> Result<String, DecodeError> {
        if let Some(filtered) = filtered(response) {
            return Err(filtered);
        }
        if response.message.content.is_empty() {
            return Err(DecodeError::Retry(texts::EMPTY_RESPONSE.to_string()));
        }
        Ok(response.message.content.clone())
    }
}

/// An empty reply a content filter stopped: rejected as such, so the run
/// says why the answer is missing rather than that it was empty.
fn filtered(response: &Response) -> Option<DecodeError> {
    (response.message.content.is_empty() && response.finish_reason == golem_core::FinishReason::ContentFilter)
        .then(|| DecodeError::Retry(texts::CONTENT_FILTERED.to_string()))
}

/// The JSON decoder: the content deserialised into `T`; content that does
/// not fit is a correctable rejection quoting serde (SPEC OUT-02).
pub struct JsonDecoder<T> {
    // Tool-mode output of a non-object type arrives as {"response": T}.
    wrapped: bool,
    // fn() -> T keeps the decoder Send + Sync whatever T is.
    _output: PhantomData<fn() -> T>,
}

impl<T> JsonDecoder<T> {
    /// A decoder reading the content as `T`.
    pub fn new() -> Self {
        JsonDecoder { wrapped: false, _output: PhantomData }
    }

    /// A decoder reading the content as `{"response": T}` (SPEC OUT-03).
    pub(crate) fn wrapped() -> Self {
        JsonDecoder { wrapped: true, _output: PhantomData }
    }
}

impl<T> Default for JsonDecoder<T> {
    fn default() -> Self {
        JsonDecoder::new()
    }
}

impl<T> Clone for JsonDecoder<T> {
    fn clone(&self) -> Self {
        JsonDecoder { wrapped: self.wrapped, _output: PhantomData }
    }
}

impl<T> fmt::Debug for JsonDecoder<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JsonDecoder").field("type", &short_type_name::<T>()).field("wrapped", &self.wrapped).finish()
    }
}

#[derive(Deserialize)]
struct Wrapped<T> {
    response: T,
}

impl<T: DeserializeOwned, Deps> Decoder<T, Deps> for JsonDecoder<T> {
    fn decode(&self, _: &RunContext<Deps>, response: &Response) -> Result<T, DecodeError> {
        if let Some(filtered) = filtered(response) {
            return Err(filtered);
        }
        let content = response.message.content.as_str();
        let parsed = if self.wrapped {
            serde_json::from_str::<Wrapped<T>>(content).map(|w| w.response)
        } else {
            serde_json::from_str::<T>(content)
        };
        parsed
            .map_err(|e| DecodeError::Retry(golem_core::texts::not_valid_json(&short_type_name::<T>(), &e.to_string())))
    }
}

/// A decoder as an agent keeps it: shared by all its runs.
pub(crate) type SharedDecoder<O, Deps> = Arc<dyn Decoder<O, Deps>>;

/// A decoder that reads no deps, for an agent with any: it sees the run's
/// ids, and `()` for deps.
struct AnyDeps<O>(Arc<dyn Decoder<O>>);

impl<O, Deps> Decoder<O, Deps> for AnyDeps<O> {
    fn decode(&self, ctx: &RunContext<Deps>, response: &Response) -> Result<O, DecodeError> {
        self.0.decode(&ctx.without_deps(), response)
    }
}

/// `decoder`, which reads no deps, as a decoder for agents with any deps.
pub(crate) fn for_any_deps<O: 'static, Deps>(decoder: Arc<dyn Decoder<O>>) -> SharedDecoder<O, Deps> {
    Arc::new(AnyDeps(decoder))
}

/// A decoder made from a function of the run's [`RunContext`] and the
/// final response — the reference's `DecodeFunc`. Annotate the context's
/// type when the function reads the deps; see [`RunContext`].
///
/// ```
/// use golem_core::testing::ScriptedModel;
/// use golem_io::{decode_fn, Agent, DecodeError};
///
/// let digits = decode_fn(|_ctx, r: &golem_core::Response| {
///     r.message.content.trim().parse::<i64>().map_err(|_| DecodeError::retry("answer with digits only"))
/// });
/// let agent = Agent::<()>::builder(ScriptedModel::new().text(" 7 ")).decoder(digits).build()?;
/// assert_eq!(agent.run((), "pick one")?.output, 7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn decode_fn<O, Deps, F>(f: F) -> DecodeFn<F>
where
    F: Fn(&RunContext<Deps>, &Response) -> Result<O, DecodeError> + Send + Sync,
{
    DecodeFn(f)
}

/// The decoder [`decode_fn`] returns.
#[derive(Clone, Copy)]
pub struct DecodeFn<F>(F);

impl<F> fmt::Debug for DecodeFn<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("DecodeFn")
    }
}

impl<O, Deps, F> Decoder<O, Deps> for DecodeFn<F>
where
    F: Fn(&RunContext<Deps>, &Response) -> Result<O, DecodeError> + Send + Sync,
{
    fn decode(&self, ctx: &RunContext<Deps>, response: &Response) -> Result<O, DecodeError> {
        (self.0)(ctx, response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ctx() -> RunContext<()> {
        RunContext::new(Arc::new(()), crate::run::ids::RunIds::new("r", "c"))
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Weather {
        city: String,
    }

    #[test]
    fn text_rejects_an_empty_reply() {
        let err = Decoder::<String, ()>::decode(&TextDecoder, &ctx(), &Response::text("")).unwrap_err();
        assert!(matches!(err, DecodeError::Retry(r) if r == texts::EMPTY_RESPONSE));
        assert_eq!(Decoder::<String, ()>::decode(&TextDecoder, &ctx(), &Response::text("hi")).unwrap(), "hi");
    }

    #[test]
    fn an_empty_reply_stopped_by_a_content_filter_is_rejected_as_filtered() {
        let filtered = Response::text("").with_finish_reason(golem_core::FinishReason::ContentFilter);
        for err in [
            Decoder::<String, ()>::decode(&TextDecoder, &ctx(), &filtered).unwrap_err(),
            JsonDecoder::<Weather>::new().decode(&ctx(), &filtered).unwrap_err(),
        ] {
            assert!(matches!(err, DecodeError::Retry(r) if r == texts::CONTENT_FILTERED));
        }
        let partial = Response::text("Part of it").with_finish_reason(golem_core::FinishReason::ContentFilter);
        assert_eq!(Decoder::<String, ()>::decode(&TextDecoder, &ctx(), &partial).unwrap(), "Part of it");
    }

    #[test]
    fn json_rejection_names_the_short_type() {
        let err = JsonDecoder::<Weather>::new().decode(&ctx(), &Response::text("nope")).unwrap_err();
        let DecodeError::Retry(reason) = err else { panic!("not a retry") };
        assert!(reason.starts_with("response content is not valid JSON for Weather: expected"), "{reason}");
    }

    #[test]
    fn json_rejects_an_empty_reply() {
        let err = JsonDecoder::<Weather>::new().decode(&ctx(), &Response::text("")).unwrap_err();
        assert!(matches!(err, DecodeError::Retry(_)));
    }

    #[test]
    fn wrapped_json_unwraps_the_response_field() {
        let decoder = JsonDecoder::<u32>::wrapped();
        assert_eq!(decoder.decode(&ctx(), &Response::text(r#"{"response":31}"#)).unwrap(), 31);
        assert!(decoder.decode(&ctx(), &Response::text("31")).is_err());
    }
}
