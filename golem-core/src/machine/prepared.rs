//! A run configuration checked and digested once, for every run that uses
//! it: machines share it instead of each copying the configuration and the
//! tool schemas it advertises.

use crate::config::{BuildError, OutputMode, RunConfig};
use crate::model::OutputSchema;
use crate::tool::ToolDefinition;
use std::ops::Deref;
use std::sync::Arc;

/// A [`RunConfig`] validated once, with what every run derives from it —
/// the tool list the model sees, the names it may call, the native output
/// schema — computed once and shared. Cloning is a reference count, so an
/// agent keeps one and hands it to each run's [`RunMachine`](super::RunMachine).
///
/// A `RunConfig` converts into one, so `RunMachine::new(config, ..)` takes
/// either; a broken configuration is reported when a machine starts.
///
/// ```
/// use golem_core::machine::{PreparedConfig, Start};
/// use golem_core::{Moment, RunConfig, RunMachine};
///
/// let config = PreparedConfig::new(RunConfig::default());
/// let first = RunMachine::new(config.clone(), Start::prompt("one"), Moment::ZERO)?;
/// let second = RunMachine::new(config, Start::prompt("two"), Moment::ZERO)?;
/// assert_eq!(first.config(), second.config());
/// # Ok::<(), golem_core::machine::SetupError>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
pub struct PreparedConfig(Arc<Prepared>);

#[derive(Debug, PartialEq)]
struct Prepared {
    config: RunConfig,
    checked: Result<(), BuildError>,
    /// The tools a request advertises (SPEC RUN-04): registration order,
    /// filtered by tool choice, output tool last.
    advertised: Arc<Vec<ToolDefinition>>,
    /// Their names, which calls are checked against.
    names: Vec<String>,
    /// The provider's own tools, shared by every request.
    builtins: Arc<Vec<crate::builtin::BuiltinTool>>,
    /// The schema for native structured output.
    output_schema: Option<Arc<OutputSchema>>,
}

impl PreparedConfig {
    /// Check `config` and derive what runs need from it.
    pub fn new(config: RunConfig) -> Self {
        let checked = config.validate();
        let chosen = config.tool_choice.as_ref().map(|c| c.name());
        let mut advertised: Vec<ToolDefinition> = config
            .tools
            .iter()
            .filter(|t| chosen.is_none_or(|c| c == t.name()))
            .map(|t| t.definition.clone())
            .collect();
        if let OutputMode::Tool { name, description, schema } = &config.output {
            // The output tool stays advertised under any tool choice, or the run could never finish.
            advertised.push(ToolDefinition {
                name: name.clone(),
                description: description.clone(),
                parameters: schema.clone(),
            });
        }
        let names = advertised.iter().map(|d| d.name.clone()).collect();
        let output_schema = match &config.output {
            OutputMode::Native { schema } => Some(Arc::new(schema.clone())),
            _ => None,
        };
        let builtins = Arc::new(config.builtin_tools.clone());
        PreparedConfig(Arc::new(Prepared {
            config,
            checked,
            advertised: Arc::new(advertised),
            names,
            builtins,
            output_schema,
        }))
    }

    /// The configuration.
    pub fn config(&self) -> &RunConfig {
        &self.0.config
    }

    /// Whether the configuration keeps every rule (SPEC CFG-03).
    pub fn check(&self) -> Result<(), BuildError> {
        self.0.checked.clone()
    }

    /// The tools a request advertises, in order.
    pub(crate) fn advertised(&self) -> &Arc<Vec<ToolDefinition>> {
        &self.0.advertised
    }

    /// The names of the advertised tools.
    pub(crate) fn advertised_names(&self) -> &[String] {
        &self.0.names
    }

    /// The provider's own tools a request declares.
    pub(crate) fn builtins(&self) -> &Arc<Vec<crate::builtin::BuiltinTool>> {
        &self.0.builtins
    }

    /// The native output schema, when the run uses native mode.
    pub(crate) fn output_schema(&self) -> Option<&Arc<OutputSchema>> {
        self.0.output_schema.as_ref()
    }
}

impl Deref for PreparedConfig {
    type Target = RunConfig;

    fn deref(&self) -> &RunConfig {
        &self.0.config
    }
}

impl From<RunConfig> for PreparedConfig {
    fn from(config: RunConfig) -> Self {
        PreparedConfig::new(config)
    }
}
