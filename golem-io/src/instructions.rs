//! Instructions: static text plus one function of the deps (SPEC CFG-04).

use std::fmt;
use std::sync::Arc;

type Dynamic<Deps> = Arc<dyn Fn(&Deps) -> String + Send + Sync>;

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
    /// part contributes nothing (no stray separator).
    pub(crate) fn resolve(&self, deps: &Deps) -> String {
        let dynamic = self.dynamic.as_ref().map(|f| f(deps)).unwrap_or_default();
        match (self.fixed.is_empty(), dynamic.is_empty()) {
            (_, true) => self.fixed.clone(),
            (true, false) => dynamic,
            (false, false) => format!("{}\n\n{dynamic}", self.fixed),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(fixed: &str, dynamic: &'static str) -> Instructions<()> {
        Instructions { fixed: fixed.to_string(), dynamic: Some(Arc::new(move |_| dynamic.to_string())) }
    }

    #[test]
    fn joins_static_and_dynamic_with_a_blank_line() {
        assert_eq!(with("a", "b").resolve(&()), "a\n\nb");
    }

    #[test]
    fn an_empty_part_contributes_nothing() {
        assert_eq!(with("", "b").resolve(&()), "b");
        assert_eq!(with("a", "").resolve(&()), "a");
        assert_eq!(Instructions::<()>::default().resolve(&()), "");
    }
}
