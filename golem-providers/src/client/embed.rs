//! Every client over an [`EmbedCodec`] is an embedder (SPEC EXTRA-02):
//! the request is checked before anything is sent, split into batches of
//! the provider's limit, each batch sent (and retried) on its own, and the
//! answers joined in input order with their usage summed.
//!
//! Retries: a model call is retried by the run machine, but an embeddings
//! call has no run around it — a retrieval tool, an indexing job — so the
//! client retries each batch itself, by the same [`RetryPolicy`] the
//! machine applies to model calls ([`RetryPolicy::delay`]: the backoff, the
//! provider's Retry-After hint up to `max_retry_after`, jitter). Only
//! retryable errors are retried (429, 5xx, transport faults); a batch that
//! fails for good fails the request, and batches already answered are not
//! sent again by the next call.

use super::{call, Client};
use crate::codec::EmbedCodec;
use golem_core::embed::{Batches, EmbedRequest, Embeddings};
use golem_core::model::ModelError;
use golem_core::RetryPolicy;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

#[cfg(feature = "async")]
use golem_core::embed::AsyncEmbedder;
#[cfg(feature = "blocking")]
use golem_core::embed::Embedder;
#[cfg(feature = "async")]
use golem_core::model::BoxFuture;

/// The policy embedding calls retry by unless
/// [`Client::embed_retry`] sets another: three attempts, the exponential
/// backoff, Retry-After honoured up to a minute, jitter on.
pub fn default_embed_retry() -> RetryPolicy {
    RetryPolicy::new().max_attempts(3).jitter(true)
}

impl<C> Client<C> {
    /// Builder-style: the retry policy of embedding calls (each batch is
    /// retried on its own); `RetryPolicy::new()` — one attempt — turns
    /// retrying off. Give it the agent's policy to retry as model calls do.
    ///
    /// ```
    /// use golem_core::RetryPolicy;
    /// use golem_providers::OpenAi;
    ///
    /// let embedder = OpenAi::builder()
    ///     .model("text-embedding-3-small")
    ///     .api_key("sk-test")
    ///     .build()?
    ///     .embed_retry(RetryPolicy::new().max_attempts(5));
    /// assert_eq!(embedder.embed_retry_policy().max_attempts, 5);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn embed_retry(mut self, policy: RetryPolicy) -> Self {
        self.embed_retry = policy;
        self
    }

    /// The retry policy of embedding calls.
    pub fn embed_retry_policy(&self) -> &RetryPolicy {
        &self.embed_retry
    }

    /// The wait before retrying after `error` on failed attempt `attempt`,
    /// or `None` when it is not retried.
    fn embed_wait(&self, error: &ModelError, attempt: u32) -> Option<Duration> {
        let policy = &self.embed_retry;
        (error.retryable && attempt < policy.max_attempts).then(|| policy.delay(attempt, error.retry_after, seed()))
    }
}

/// A seed for the jitter: the clock's nanoseconds, so two processes
/// retrying the same provider do not wait in lockstep.
fn seed() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
}

impl<C: EmbedCodec> Client<C> {
    /// The batches of `request`, after the checks made before anything is
    /// sent.
    fn batches(&self, request: &EmbedRequest) -> Result<Vec<EmbedRequest>, ModelError> {
        request.check()?;
        Ok(Batches::new(request, self.codec.embed_batch_limit()).map(|range| request.part(range)).collect())
    }

    #[cfg(feature = "blocking")]
    fn embed_batch(&self, part: &EmbedRequest) -> Result<Embeddings, ModelError> {
        let mut attempt = 1;
        loop {
            let result = self
                .codec
                .encode_embed(part)
                .and_then(|http| self.codec.authorize(http, SystemTime::now()))
                .and_then(|http| call::exchange(&*self.blocking, &http))
                .and_then(|(head, body)| self.codec.decode_embed(part, &head, &body));
            match result {
                Err(error) => match self.embed_wait(&error, attempt) {
                    Some(wait) => std::thread::sleep(wait),
                    None => return Err(error),
                },
                answer => return answer,
            }
            attempt += 1;
        }
    }

    #[cfg(feature = "async")]
    async fn embed_batch_async(&self, part: &EmbedRequest) -> Result<Embeddings, ModelError> {
        let mut attempt = 1;
        loop {
            let http = self.codec.encode_embed(part).and_then(|http| self.codec.authorize(http, SystemTime::now()));
            let result = match http {
                Ok(http) => call::exchange_async(&*self.asynchronous, &http).await,
                Err(error) => Err(error),
            };
            match result.and_then(|(head, body)| self.codec.decode_embed(part, &head, &body)) {
                Err(error) => match self.embed_wait(&error, attempt) {
                    Some(wait) => {
                        async_io::Timer::after(wait).await;
                    }
                    None => return Err(error),
                },
                answer => return answer,
            }
            attempt += 1;
        }
    }
}

#[cfg(feature = "blocking")]
impl<C: EmbedCodec> Embedder for Client<C> {
    fn embed(&self, request: &EmbedRequest) -> Result<Embeddings, ModelError> {
        let parts = self.batches(request)?;
        let answers = parts.iter().map(|part| self.embed_batch(part)).collect::<Result<Vec<_>, _>>()?;
        Ok(Embeddings::join(answers))
    }
}

#[cfg(feature = "async")]
impl<C: EmbedCodec> AsyncEmbedder for Client<C> {
    fn embed_async<'a>(&'a self, request: &'a EmbedRequest) -> BoxFuture<'a, Result<Embeddings, ModelError>> {
        Box::pin(async move {
            let mut answers = Vec::new();
            for part in self.batches(request)? {
                answers.push(self.embed_batch_async(&part).await?);
            }
            Ok(Embeddings::join(answers))
        })
    }
}

#[cfg(all(test, feature = "openai"))]
mod tests {
    use super::*;
    use crate::openai::{Codec, Config, Preset};
    use golem_core::model::ModelErrorKind;
    use golem_core::Backoff;

    fn client(policy: RetryPolicy) -> Client<Codec> {
        let config = Config::builder(Preset::ollama(), "nomic-embed-text").build().unwrap();
        Client::with_codec(Codec::new(config)).embed_retry(policy)
    }

    #[test]
    fn retryable_errors_wait_the_policy_s_delay_until_the_attempts_run_out() {
        let policy = RetryPolicy::new()
            .max_attempts(3)
            .backoff(Backoff::Table { delays: vec![Duration::from_millis(10)] })
            .honor_retry_after(true);
        let client = client(policy);
        let busy = ModelError::api(429, "slow down").with_retry_after(Duration::from_secs(2));
        assert_eq!(client.embed_wait(&busy, 1), Some(Duration::from_secs(2)), "Retry-After over the table");
        let flaky = ModelError::api(503, "overloaded");
        assert_eq!(client.embed_wait(&flaky, 2), Some(Duration::from_millis(10)));
        assert_eq!(client.embed_wait(&flaky, 3), None, "the third attempt was the last");
        let refused = ModelError::new(ModelErrorKind::Decode, "2 embeddings for 3 inputs");
        assert_eq!(client.embed_wait(&refused, 1), None, "not retryable");
    }

    #[test]
    fn the_default_policy_retries_three_times_with_jitter() {
        let client = client(default_embed_retry());
        let wait = client.embed_wait(&ModelError::api(500, "boom"), 1).unwrap();
        assert!(wait >= Duration::from_millis(375) && wait < Duration::from_millis(625), "{wait:?}");
        assert_eq!(client.embed_retry_policy().max_attempts, 3);
    }
}
