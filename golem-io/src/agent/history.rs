//! History processors: rewriting a run's history before it starts
//! (SPEC HIST-03, HIST-04).

use golem_core::model::BoxError;
use golem_core::Message;
use std::sync::Arc;

/// A processor as the agent stores it.
pub(crate) type Processor = Arc<dyn Fn(Vec<Message>) -> Result<Vec<Message>, BoxError> + Send + Sync>;

/// A history processor keeping at most `max_messages` of the newest
/// messages, cut so the kept history opens with a user message (SPEC
/// HIST-04): when the window would open with an assistant turn, the newest
/// earlier user message goes in front and counts toward the budget. See
/// [`golem_core::history::trim_history`]. A budget below 1, or a history
/// with nothing left to open a request, fails the run as a setup error.
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
    move |history| golem_core::history::trim_history(&history, max_messages).map_err(BoxError::from)
}
