//! What a run's trace says about its models, and what it may record.

use golem_core::Price;

/// Who serves one member of an agent's fallback chain, for the trace
/// (`gen_ai.provider.name`, `gen_ai.request.model`), the run report and cost
/// estimates. golem's model ports carry no name, so the agent is told.
///
/// ```
/// use golem_io::observe::ModelInfo;
/// use golem_io::Price;
///
/// let info = ModelInfo::new("openai", "gpt-4o-mini").with_price(Price::per_million(0.15, 0.6));
/// assert_eq!(info.model(), "gpt-4o-mini");
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ModelInfo {
    provider: String,
    model: String,
    price: Option<Price>,
}

impl ModelInfo {
    /// `model` served by `provider` — a well-known name of the GenAI
    /// conventions where there is one (`openai`, `anthropic`,
    /// `gcp.gemini`, `aws.bedrock`, `azure.ai.openai`, …).
    pub fn new(provider: impl Into<String>, model: impl Into<String>) -> Self {
        ModelInfo { provider: provider.into(), model: model.into(), price: None }
    }

    /// Builder-style: what the model's tokens cost, for cost estimates.
    pub fn with_price(mut self, price: Price) -> Self {
        self.price = Some(price);
        self
    }

    /// The provider's name.
    pub fn provider(&self) -> &str {
        &self.provider
    }

    /// The model's name.
    pub fn model(&self) -> &str {
        &self.model
    }

    /// Its price, when known.
    pub fn price(&self) -> Option<Price> {
        self.price
    }
}

/// What a run's trace and report know beyond its events: the models behind
/// each fallback member, the agent's name, and whether message content may
/// be recorded (SPEC OBS-02: off unless opted in).
///
/// ```
/// use golem_io::observe::{ModelInfo, TraceSettings};
///
/// let settings = TraceSettings::new()
///     .agent_name("support")
///     .model(ModelInfo::new("openai", "gpt-4o"))
///     .model(ModelInfo::new("anthropic", "claude-sonnet-4"))
///     .record_content(true);
/// assert_eq!(settings.model_info(1).map(|m| m.provider()), Some("anthropic"));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TraceSettings {
    agent_name: Option<String>,
    models: Vec<ModelInfo>,
    record_content: bool,
}

impl TraceSettings {
    /// No names, no prices, no content.
    pub fn new() -> Self {
        TraceSettings::default()
    }

    /// Builder-style: the agent's name (`gen_ai.agent.name`, and the root
    /// span's name `invoke_agent {name}`).
    pub fn agent_name(mut self, name: impl Into<String>) -> Self {
        self.agent_name = Some(name.into());
        self
    }

    /// Builder-style: the next fallback member's model — the primary first,
    /// in the order the agent's builder was given them.
    pub fn model(mut self, info: ModelInfo) -> Self {
        self.models.push(info);
        self
    }

    /// Builder-style: record message content — prompts, responses, tool
    /// arguments and results — on spans (`gen_ai.input.messages`,
    /// `gen_ai.output.messages`, `gen_ai.tool.call.arguments`,
    /// `gen_ai.tool.call.result`). Off by default: content is often
    /// personal data, and traces travel further than logs.
    pub fn record_content(mut self, on: bool) -> Self {
        self.record_content = on;
        self
    }

    /// The agent's name, when set.
    pub fn name(&self) -> Option<&str> {
        self.agent_name.as_deref()
    }

    /// Fallback member `member`'s model, when known.
    pub fn model_info(&self, member: u32) -> Option<&ModelInfo> {
        self.models.get(usize::try_from(member).ok()?)
    }

    /// Whether content is recorded.
    pub fn records_content(&self) -> bool {
        self.record_content
    }
}
