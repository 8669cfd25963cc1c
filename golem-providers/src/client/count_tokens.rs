//! Token counting for every client whose codec supports it (SPEC
//! PROV-ANT-07, PROV-GEM-08, PROV-BR-06): one request, authorized like a
//! model call, read whole.

use super::{call, Client};
use crate::codec::TokenCounting;
use golem_core::model::{ModelError, Request};
use std::time::SystemTime;

impl<C: TokenCounting> Client<C> {
    /// How many input tokens `request` — messages, system text, tools —
    /// comes to for the configured model, on the blocking transport. Not a
    /// model call: nothing is generated.
    #[cfg(feature = "blocking")]
    pub fn count_tokens(&self, request: &Request) -> Result<u64, ModelError> {
        let http = self.codec.authorize(self.codec.encode_count_tokens(request)?, SystemTime::now())?;
        let (head, body) = call::exchange(&*self.blocking, &http)?;
        self.codec.decode_count_tokens(&head, &body)
    }

    /// [`count_tokens`](Self::count_tokens) on the async transport.
    #[cfg(feature = "async")]
    pub async fn count_tokens_async(&self, request: &Request) -> Result<u64, ModelError> {
        let http = self.codec.authorize(self.codec.encode_count_tokens(request)?, SystemTime::now())?;
        let (head, body) = call::exchange_async(&*self.asynchronous, &http).await?;
        self.codec.decode_count_tokens(&head, &body)
    }
}
