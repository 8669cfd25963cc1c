//! Machine-minted ids and the answers they are owed (SPEC MACH-03, MSG-07).

use super::vocabulary::ApiMisuse;

/// What an id was minted for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IdKind {
    Model,
    Tool,
    Decode,
}

impl IdKind {
    fn name(self) -> &'static str {
        match self {
            IdKind::Model => "model",
            IdKind::Tool => "tool",
            IdKind::Decode => "decode",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum IdState {
    Pending,
    Answered,
    /// Canceled or timed out: a later answer is a normal race.
    Abandoned,
    /// Abandoned, and its late answer arrived; another is a duplicate.
    AnsweredLate,
}

/// How an incoming answer relates to its id.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// The id was waiting for this answer.
    Live,
    /// The work was abandoned; the answer is late and is dropped.
    Late,
}

/// One counter for every kind, so ids are unique across kinds and a log
/// reader can tell them apart without knowing the kind.
#[derive(Debug, Default)]
pub(crate) struct Ids {
    entries: Vec<(IdKind, IdState)>,
}

impl Ids {
    pub(crate) fn mint(&mut self, kind: IdKind) -> u64 {
        self.entries.push((kind, IdState::Pending));
        (self.entries.len() - 1) as u64
    }

    /// Check an answer for `id` of `kind` and mark it answered.
    pub(crate) fn answer(&mut self, kind: IdKind, id: u64) -> Result<Answer, ApiMisuse> {
        let unknown = ApiMisuse::UnknownId { what: kind.name(), id };
        let Some(entry) = usize::try_from(id).ok().and_then(|i| self.entries.get_mut(i)) else {
            return Err(unknown);
        };
        if entry.0 != kind {
            return Err(unknown);
        }
        match entry.1 {
            IdState::Pending => {
                entry.1 = IdState::Answered;
                Ok(Answer::Live)
            }
            IdState::Abandoned => {
                entry.1 = IdState::AnsweredLate;
                Ok(Answer::Late)
            }
            IdState::Answered | IdState::AnsweredLate => Err(ApiMisuse::DuplicateAnswer { what: kind.name(), id }),
        }
    }

    /// True when `id` of `kind` is still owed an answer.
    pub(crate) fn is_pending(&self, kind: IdKind, id: u64) -> bool {
        usize::try_from(id).ok().and_then(|i| self.entries.get(i)) == Some(&(kind, IdState::Pending))
    }

    /// Check that `id` names something of `kind` that was minted.
    pub(crate) fn check_known(&self, kind: IdKind, id: u64) -> Result<(), ApiMisuse> {
        match usize::try_from(id).ok().and_then(|i| self.entries.get(i)) {
            Some((k, _)) if *k == kind => Ok(()),
            _ => Err(ApiMisuse::UnknownId { what: kind.name(), id }),
        }
    }

    /// Stop waiting for `id`; its answer, if it ever comes, is late.
    pub(crate) fn abandon(&mut self, id: u64) {
        if let Some(entry) = usize::try_from(id).ok().and_then(|i| self.entries.get_mut(i)) {
            if entry.1 == IdState::Pending {
                entry.1 = IdState::Abandoned;
            }
        }
    }
}

/// A set of machine ids, kept sorted. Ids are minted in increasing order,
/// so an insert is nearly always a push: a plain vector instead of a
/// `BTreeSet`, whose node code and allocation every run with a tool paid
/// (issue 37).
#[derive(Debug, Default)]
pub(crate) struct IdSet(Vec<u64>);

impl IdSet {
    /// Add `id`; false when it was there already.
    pub(crate) fn insert(&mut self, id: u64) -> bool {
        match self.0.last() {
            Some(&last) if last < id => {
                self.0.push(id);
                true
            }
            None => {
                self.0.push(id);
                true
            }
            Some(_) => match self.0.binary_search(&id) {
                Ok(_) => false,
                Err(at) => {
                    self.0.insert(at, id);
                    true
                }
            },
        }
    }

    /// Whether `id` is in the set.
    pub(crate) fn contains(&self, id: u64) -> bool {
        self.0.binary_search(&id).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::IdSet;

    #[test]
    fn an_id_set_holds_each_id_once_in_any_insertion_order() {
        let mut set = IdSet::default();
        for id in [5, 9, 2, 7, 9, 5, 1, 12] {
            let fresh = !set.contains(id);
            assert_eq!(set.insert(id), fresh, "{id}");
            assert!(set.contains(id));
        }
        assert_eq!(set.0, [1, 2, 5, 7, 9, 12]);
        assert!(!set.contains(3) && !set.contains(0) && !set.contains(13));
    }
}
