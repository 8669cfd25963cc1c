//! Thinking with a token budget, and effort: how Anthropic's models are
//! asked to reason, on Anthropic's API and on Bedrock alike (SPEC
//! THINK-02, PROV-ANT-02, PROV-BR-03). The settings, their setters and
//! their checks are written once for every family whose [`Options`]
//! hold a [`Reasoning`].

use super::{Builder, Config, Options};
use serde_json::{json, Value};

/// Extended thinking (`thinking`; on Bedrock inside
/// `additionalModelRequestFields`): exactly one mode.
///
/// ```
/// use golem_providers::anthropic::Thinking;
///
/// assert_eq!(Thinking::Enabled { budget_tokens: 2048 }.wire(),
///            serde_json::json!({"type": "enabled", "budget_tokens": 2048}));
/// assert_eq!(Thinking::Adaptive.wire(), serde_json::json!({"type": "adaptive"}));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Thinking {
    /// `{"type": "adaptive"}`: the model decides whether and how much to
    /// think (newer models).
    Adaptive,
    /// `{"type": "enabled", "budget_tokens": N}`: for Anthropic's models
    /// 1024 ≤ N, and N < `max_tokens` (Anthropic's API always has a limit;
    /// on Bedrock it is checked when one is set).
    Enabled {
        /// The thinking budget in tokens.
        budget_tokens: u32,
    },
    /// `{"type": "disabled"}`.
    Disabled,
}

impl Thinking {
    /// The smallest budget Anthropic's models accept.
    pub const MIN_BUDGET: u32 = 1024;

    /// True for the modes that think (adaptive, enabled).
    pub fn is_on(self) -> bool {
        !matches!(self, Thinking::Disabled)
    }

    /// The `thinking` object.
    pub fn wire(self) -> Value {
        match self {
            Thinking::Adaptive => json!({"type": "adaptive"}),
            Thinking::Enabled { budget_tokens } => json!({"type": "enabled", "budget_tokens": budget_tokens}),
            Thinking::Disabled => json!({"type": "disabled"}),
        }
    }
}

/// The thinking mode and the effort of a family that takes them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Reasoning {
    thinking: Option<Thinking>,
    effort: Option<String>,
}

impl Reasoning {
    /// The effort must be printable text; an enabled budget at least
    /// [`Thinking::MIN_BUDGET`] and below `max_tokens` when there is a
    /// limit (`checks_budget`: false for models that set their own rules).
    #[cfg(any(feature = "anthropic", feature = "bedrock"))]
    pub(crate) fn check(&self, checks_budget: bool, max_tokens: Option<u32>) -> Result<(), super::ConfigError> {
        super::validate::effort(self.effort.as_deref())?;
        match self.thinking {
            Some(Thinking::Enabled { budget_tokens }) if checks_budget => {
                super::validate::thinking_budget(budget_tokens, Thinking::MIN_BUDGET, max_tokens)
            }
            _ => Ok(()),
        }
    }
}

/// A family whose options hold a [`Reasoning`] (Anthropic, Bedrock): it
/// gets the `thinking` and `effort` setters and accessors.
pub trait Reasons: Options {
    /// The reasoning settings.
    fn reasoning(&self) -> &Reasoning;

    /// The reasoning settings, to set.
    fn reasoning_mut(&mut self) -> &mut Reasoning;
}

/// The reasoning setters, on the config builder and the client builder
/// alike.
impl<O: Reasons, T> Builder<O, T> {
    /// The thinking mode (checked at build, see [`Thinking::Enabled`]).
    pub fn thinking(mut self, thinking: Thinking) -> Self {
        self.options.reasoning_mut().thinking = Some(thinking);
        self
    }

    /// The effort (`low`, `medium`, `high`, … as the model documents),
    /// sent as `output_config.effort` (Bedrock: `outputConfig.effort`).
    pub fn effort(mut self, effort: impl Into<String>) -> Self {
        self.options.reasoning_mut().effort = Some(effort.into());
        self
    }
}

impl<O: Reasons> Config<O> {
    /// The thinking mode, if configured.
    pub fn thinking(&self) -> Option<Thinking> {
        self.options.reasoning().thinking
    }

    /// True while thinking is adaptive or enabled: the API then refuses a
    /// forced tool choice (SPEC PROV-ANT-04, PROV-BR-03).
    pub fn thinks(&self) -> bool {
        self.thinking().is_some_and(Thinking::is_on)
    }

    /// The effort, if configured.
    pub fn effort(&self) -> Option<&str> {
        self.options.reasoning().effort.as_deref()
    }
}
