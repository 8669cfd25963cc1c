//! Instructions: static text plus one function of the run (SPEC CFG-04).

use crate::run::contain::{contain, Panicked};
use crate::run::context::RunContext;
use std::fmt;
use std::sync::Arc;

type Dynamic<Deps> = Arc<dyn Fn(&RunContext<Deps>) -> String + Send + Sync>;

/// An agent's instructions, resolved once per run by the driver.
pub(crate) struct Instructions<Deps> {
    pub(crate) fixed: String,
    pub(crate) dynamic: Option<Dynamic<Deps>>,
}

impl<Deps> Default for Instructions<Deps> {
    fn default() -> Self {
        Instructions { fixed: String::new(), dynamic: None }
    }
}

impl<Deps> Clone for Instructions<Deps> {
    fn clone(&self) -> Self {
        Instructions { fixed: self.fixed.clone(), dynamic: self.dynamic.clone() }
    }
}

impl<Deps> fmt::Debug for Instructions<Deps> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Instructions").field("fixed", &self.fixed).field("dynamic", &self.dynamic.is_some()).finish()
    }
}

impl<Deps> Instructions<Deps> {
    /// This run's instructions: static + blank line + dynamic, where an empty
    /// part contributes nothing (no stray separator). A panicking function
    /// is contained, like any application code the driver runs.
    ///
    /// The run's context is made by `ctx` only for a function to read
    /// (issue 37: most agents have none, and every run paid for a copy).
    pub(crate) fn resolve(&self, ctx: impl FnOnce() -> RunContext<Deps>) -> Result<String, Panicked> {
        let dynamic = match &self.dynamic {
            Some(f) => {
                let ctx = ctx();
                contain("the instructions function", || f(&ctx))?
            }
            None => String::new(),
        };
        Ok(match (self.fixed.is_empty(), dynamic.is_empty()) {
            (_, true) => self.fixed.clone(),
            (true, false) => dynamic,
            (false, false) => format!("{}\n\n{dynamic}", self.fixed),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(fixed: &str, dynamic: &'static str) -> Instructions<()> {
        Instructions { fixed: fixed.to_string(), dynamic: Some(Arc::new(move |_| dynamic.to_string())) }
    }

    fn ctx() -> RunContext<()> {
        RunContext::new(Arc::new(()), crate::run::ids::RunIds::new("r", "c"))
    }

    #[test]
    fn joins_static_and_dynamic_with_a_blank_line() {
        assert_eq!(with("a", "b").resolve(ctx).unwrap(), "a\n\nb");
    }

    #[test]
    fn an_empty_part_contributes_nothing() {
        assert_eq!(with("", "b").resolve(ctx).unwrap(), "b");
        assert_eq!(with("a", "").resolve(ctx).unwrap(), "a");
        assert_eq!(Instructions::<()>::default().resolve(ctx).unwrap(), "");
    }

    #[test]
    fn a_panic_is_contained() {
        let panicking = Instructions::<()> { fixed: String::new(), dynamic: Some(Arc::new(|_| panic!("no deps"))) };
        let err = panicking.resolve(ctx).unwrap_err();
        assert!(err.to_string().contains("the instructions function panicked"), "{err}");
    }
}
