//! Record, then replay, every scenario of the driver-equivalence corpus
//! (issue 4, SPEC LOG-01, LOG-02): recording changes nothing about a run,
//! and its log replays — with no model, no tools and no decoder — to the
//! very events the run's observers saw and to the same outcome.

use crate::corpus;

use corpus::{Driver, End, StepRecord};
use golem_core::log::{replay, EndKind, EventLog};
use golem_core::machine::{Outcome, Output};

fn replay_log(name: &str, text: &str) -> (Vec<String>, Outcome) {
    let log = EventLog::parse(text).unwrap_or_else(|e| panic!("{name}: the log does not parse: {e}"));
    assert!(log.end.is_some(), "{name}: a finished run's log has an end marker");
    let replayed = replay(&log).unwrap_or_else(|e| panic!("{name}: the log does not replay: {e}"));
    let events = replayed
        .outputs
        .iter()
        .flatten()
        .filter_map(|o| match o {
            Output::Event(e) => Some(serde_json::to_string(e).expect("events serialise")),
            _ => None,
        })
        .collect();
    let outcome = replayed.machine.outcome().cloned().unwrap_or_else(|| panic!("{name}: the replay did not finish"));
    (events, outcome)
}

fn check_outcome(what: &str, step: &StepRecord, outcome: &Outcome, end: Option<EndKind>) {
    let summary = &step.summary;
    match (outcome, &summary.end) {
        (Outcome::Completed { summary: s, .. }, End::Completed(_)) => {
            assert_eq!(end, Some(EndKind::Completed), "{what}");
            assert_eq!(
                (s.messages.len(), s.requests, s.tool_calls),
                (summary.messages, summary.requests, summary.tool_calls),
                "{what}"
            );
        }
        (Outcome::Paused { summary: s, deferred }, End::Paused { approvals, external }) => {
            assert_eq!(end, Some(EndKind::Paused), "{what}");
            assert_eq!(s.messages.len(), summary.messages, "{what}");
            let ids = |calls: &[golem_core::PendingCall]| calls.iter().map(|p| p.call_id.clone()).collect::<Vec<_>>();
            assert_eq!(&ids(&deferred.approvals), approvals, "{what}");
            assert_eq!(&ids(&deferred.external), external, "{what}");
        }
        (Outcome::Failed(error), End::Failed(stage)) => {
            assert_eq!(end, Some(EndKind::Failed), "{what}");
            assert_eq!(error.stage, *stage, "{what}");
            assert_eq!(error.requests, summary.requests, "{what}");
            // The replayed cause is the record; the live one may add a source.
            assert_eq!(Some(error.to_string()), summary.display, "{what}");
        }
        (outcome, expected) => panic!("{what}: replayed {outcome:?}, the run ended {expected:?}"),
    }
}

#[test]
fn every_corpus_scenario_records_and_replays_identically() {
    let scenarios = corpus::all();
    assert!(scenarios.len() >= 25);
    for scenario in &scenarios {
        let plain = corpus::run_checked(scenario, Driver::Blocking);
        for driver in [Driver::RecordedBlocking, Driver::RecordedSmol] {
            let what = format!("{} ({driver:?})", scenario.name);
            corpus::take_logs();
            let recorded = corpus::run_checked(scenario, driver);
            assert_eq!(plain, recorded, "{what}: recording changed the run");
            let logs = corpus::take_logs();
            // A step that failed setup never started a run, so left no log.
            let runs: Vec<&StepRecord> =
                recorded.steps.iter().filter(|s| !s.outcome.starts_with("{\"error\"")).collect();
            assert_eq!(logs.len(), runs.len(), "{what}: one log per run");
            for (i, (text, step)) in logs.iter().zip(runs).enumerate() {
                let what = format!("{what} run {i}");
                let (events, outcome) = replay_log(&what, text);
                assert_eq!(events, step.events, "{what}: replayed events");
                let end = EventLog::parse(text).ok().and_then(|l| l.end);
                check_outcome(&what, step, &outcome, end);
            }
        }
    }
}
