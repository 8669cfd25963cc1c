//! Deadlines as async-io timers raced against the work.

use super::super::error::TransportError;
use async_io::Timer;
use std::future::Future;
use std::time::Duration;

/// Run `work`, failing with `error` if it takes longer than `limit`.
pub(crate) async fn with_timeout<T>(
    limit: Duration,
    error: TransportError,
    work: impl Future<Output = Result<T, TransportError>>,
) -> Result<T, TransportError> {
    futures_lite::future::or(work, async move {
        Timer::after(limit).await;
        Err(error)
    })
    .await
}
