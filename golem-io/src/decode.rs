//! Output decoders: the boundary where model output becomes a typed value
//! (SPEC OUT-01, OUT-02, RUN-11).

use crate::schema::short_type_name;
use golem_core::model::BoxError;
use golem_core::{texts, Response};
use serde::de::DeserializeOwned;
use serde::Deserialize;
use std::fmt;
use std::marker::PhantomData;

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
pub trait Decoder<O>: Send + Sync {
    /// Decode `response` (in output-tool mode its content is the output
    /// call's arguments).
    fn decode(&self, response: &Response) -> Result<O, DecodeError>;
}

/// The text decoder: the final content, with an empty reply rejected
/// correctably so it never becomes `Ok("")` (SPEC RUN-11).
#[derive(Clone, Copy, Debug, Default)]
pub struct TextDecoder;

impl Decoder<String> for TextDecoder {
    fn decode(&self, response: &Response) -> Result<String, DecodeError> {
        if response.message.content.is_empty() {
            return Err(DecodeError::Retry(texts::EMPTY_RESPONSE.to_string()));
        }
        Ok(response.message.content.clone())
    }
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

impl<T: DeserializeOwned> Decoder<T> for JsonDecoder<T> {
    fn decode(&self, response: &Response) -> Result<T, DecodeError> {
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

/// A decoder made from a function.
///
/// ```
/// use golem_io::{decode_fn, DecodeError, Decoder};
/// use golem_core::Response;
///
/// let digits = decode_fn(|r: &Response| {
///     r.message.content.trim().parse::<i64>().map_err(|_| DecodeError::retry("answer with digits only"))
/// });
/// assert_eq!(digits.decode(&Response::text(" 7 ")).unwrap(), 7);
/// ```
pub fn decode_fn<O, F>(f: F) -> DecodeFn<F>
where
    F: Fn(&Response) -> Result<O, DecodeError> + Send + Sync,
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

impl<O, F> Decoder<O> for DecodeFn<F>
where
    F: Fn(&Response) -> Result<O, DecodeError> + Send + Sync,
{
    fn decode(&self, response: &Response) -> Result<O, DecodeError> {
        (self.0)(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Deserialize)]
    struct Weather {
        city: String,
    }

    #[test]
    fn text_rejects_an_empty_reply() {
        let err = TextDecoder.decode(&Response::text("")).unwrap_err();
        assert!(matches!(err, DecodeError::Retry(r) if r == texts::EMPTY_RESPONSE));
        assert_eq!(TextDecoder.decode(&Response::text("hi")).unwrap(), "hi");
    }

    #[test]
    fn json_rejection_names_the_short_type() {
        let err = JsonDecoder::<Weather>::new().decode(&Response::text("nope")).unwrap_err();
        let DecodeError::Retry(reason) = err else { panic!("not a retry") };
        assert!(reason.starts_with("response content is not valid JSON for Weather: expected"), "{reason}");
    }

    #[test]
    fn json_rejects_an_empty_reply() {
        let err = JsonDecoder::<Weather>::new().decode(&Response::text("")).unwrap_err();
        assert!(matches!(err, DecodeError::Retry(_)));
    }

    #[test]
    fn wrapped_json_unwraps_the_response_field() {
        let decoder = JsonDecoder::<u32>::wrapped();
        assert_eq!(decoder.decode(&Response::text(r#"{"response":31}"#)).unwrap(), 31);
        assert!(decoder.decode(&Response::text("31")).is_err());
    }
}
