//! Containing panics of application code (tools, models, decoders,
//! callbacks), so a faulty one fails its call, never the driver.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Application code (a tool, a model, a decoder) panicked.
#[derive(Debug, thiserror::Error)]
#[error("{what} panicked: {message}")]
pub(crate) struct Panicked {
    what: &'static str,
    message: String,
}

impl Panicked {
    pub(crate) fn new(what: &'static str, payload: Box<dyn Any + Send>) -> Self {
        let message = match payload.downcast::<String>() {
            Ok(s) => *s,
            Err(payload) => {
                payload.downcast_ref::<&str>().map_or_else(|| "unknown panic".to_string(), |s| s.to_string())
            }
        };
        Panicked { what, message }
    }
}

/// Run `f`, turning a panic into [`Panicked`] for `what`.
pub(crate) fn contain<T>(what: &'static str, f: impl FnOnce() -> T) -> Result<T, Panicked> {
    // The code is abandoned after a panic, so whatever state it broke is
    // never observed again by it; the driver only keeps the error.
    catch_unwind(AssertUnwindSafe(f)).map_err(|p| Panicked::new(what, p))
}

/// Await `future`, turning a panic in any of its polls into [`Panicked`].
#[cfg(feature = "async")]
pub(crate) async fn contain_async<T>(
    what: &'static str,
    future: impl std::future::Future<Output = T>,
) -> Result<T, Panicked> {
    use futures_lite::FutureExt;
    AssertUnwindSafe(future).catch_unwind().await.map_err(|p| Panicked::new(what, p))
}
