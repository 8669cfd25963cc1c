//! History processors: rewriting a run's history before it starts
//! (SPEC HIST-03, HIST-04).

use golem_core::model::BoxError;
use golem_core::Message;
use std::sync::Arc;

/// A processor as the agent stores it.
pub(crate) type Processor = Arc<dyn Fn(Vec<Message>) -> Result<Vec<Message>, BoxError> + Send + Sync>;

/// A history processor keeping the newest `max_messages` messages, cut so
/// the kept history opens with a user message (SPEC HIST-04). A budget
/// below 1, or a history with nothing left to open a request, fails the run
/// as a setup error.
///
/// ```
/// use golem_io::trim_history;
/// use golem_core::Message;
///
/// let trim = trim_history(2);
/// let history = vec![Message::user("a"), Message::assistant("b"), Message::user("c"), Message::assistant("d")];
/// let kept = trim(history).unwrap();
/// assert_eq!(kept, vec![Message::user("c"), Message::assistant("d")]);
/// ```
pub fn trim_history(
    max_messages: usize,
) -> impl Fn(Vec<Message>) -> Result<Vec<Message>, BoxError> + Clone + Send + Sync + 'static {
    move |history| shim::trim_history(history, max_messages).map_err(BoxError::from)
}

/// Stand-in for `golem_core::history::trim_history`, which is being written
/// on another branch; delete once it lands.
mod shim {
    use golem_core::history::HistoryError;
    use golem_core::{Message, Role};

    pub(super) fn trim_history(history: Vec<Message>, max: usize) -> Result<Vec<Message>, HistoryError> {
        if max < 1 {
            return Err(HistoryError::InvalidTrimBudget(max));
        }
        if history.len() <= max {
            return Ok(history);
        }
        let cut = history.len() - max;
        if let Some(offset) = history[cut..].iter().position(|m| m.role == Role::User) {
            return Ok(history[cut + offset..].to_vec());
        }
        let prompt = history[..cut].iter().rposition(|m| m.role == Role::User).ok_or(HistoryError::NothingLeft)?;
        let rest = history[cut..].iter().skip_while(|m| m.role == Role::Tool).cloned();
        Ok(std::iter::once(history[prompt].clone()).chain(rest).collect())
    }
}
