//! Reading logs a crash cut short, at every byte (issue 16, SPEC LOG-03,
//! LOG-05): a log cut anywhere — with or without bytes a power loss might
//! leave after the cut — reads as the complete records before the cut, and
//! the intact part it reports reads the same on its own; a cut inside the
//! header is a run that never started.

use golem_core::log::{EndKind, EventLog, LogError};
use golem_core::machine::Start;
use golem_core::sim::{ModelReply, Sim, ToolReply};
use golem_core::*;
use serde_json::json;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

/// A finished two-turn run with a tool call, as text.
fn recorded() -> String {
    let mut config = RunConfig::default();
    config.tools = vec![ToolSpec::new("roll", "", json!({"type": "object"}))];
    let replies = vec![
        ModelReply::ok(MS, Response::tool_calls(vec![ToolCall::new("c1", "roll", r#"{"sides":6}"#)])),
        ModelReply::ok(MS, Response::text("rolled a four")),
    ];
    let mut sim = Sim::new(config, Start::prompt("roll"), Sim::scripted(replies))
        .unwrap()
        .tool("roll", |_, _| ToolReply::output(2 * MS, "4"));
    sim.run();
    let mut log = sim.log();
    log.finish(EndKind::Completed);
    log.to_jsonl()
}

/// Bytes a power loss may leave after a cut: anything, newlines included.
fn garbage(state: &mut u64) -> Vec<u8> {
    let mut next = || {
        *state ^= *state << 13;
        *state ^= *state >> 7;
        *state ^= *state << 17;
        *state
    };
    let len = (next() % 40) as usize;
    // The first byte is no whitespace, which would end a cut line cleanly.
    let first = loop {
        let b = (next() >> 24) as u8;
        if !b.is_ascii_whitespace() {
            break b;
        }
    };
    let rest = (0..len).map(|_| match next() % 8 {
        0 => b'\n',
        1 => 0,
        2 => b'{',
        _ => (next() >> 24) as u8,
    });
    std::iter::once(first).chain(rest).collect()
}

#[test]
fn issue_16_a_log_cut_at_every_byte_reads_as_its_complete_records() {
    let text = recorded();
    let full = EventLog::parse(&text).unwrap();
    assert_eq!(full.end, Some(EndKind::Completed));
    let bytes = text.as_bytes();
    let header_end = text.find('\n').unwrap() + 1;
    // Where each record line (and the end marker) ends, newline included.
    let line_ends: Vec<usize> = text.match_indices('\n').map(|(i, _)| i + 1).skip(1).collect();
    assert_eq!(line_ends.len(), full.records.len() + 1);
    let mut state = 0x9e37_79b9_7f4a_7c15;
    for cut in 0..=bytes.len() {
        let clean = bytes[..cut].to_vec();
        let mut garbled = clean.clone();
        garbled.extend(garbage(&mut state));
        for (kind, damaged) in [("cut", clean), ("cut + garbage", garbled)] {
            let read = EventLog::read_bytes(&damaged);
            // The header's last byte before its newline completes it; with
            // garbage glued on, only the newline does.
            let header_complete = cut >= header_end || (kind == "cut" && cut + 1 == header_end);
            if !header_complete {
                assert_eq!(read, Err(LogError::NotStarted { bytes: damaged.len() }), "{kind} at {cut}");
                continue;
            }
            let read = read.unwrap_or_else(|e| panic!("{kind} at {cut}: {e}"));
            // Every line that ends before the cut is read; a line cut short
            // is not, unless only its newline is missing and nothing follows.
            let whole = line_ends.iter().filter(|&&end| end <= cut).count();
            let last_unterminated = kind == "cut" && line_ends.contains(&(cut + 1));
            let unterminated = last_unterminated || (kind == "cut" && cut + 1 == header_end);
            let lines = whole + usize::from(last_unterminated);
            let records = lines.min(full.records.len());
            assert_eq!(read.log.records, full.records[..records], "{kind} at {cut}");
            assert_eq!(read.log.end.is_some(), lines > full.records.len(), "{kind} at {cut}");
            assert_eq!(read.unterminated, unterminated, "{kind} at {cut}");
            // The intact part is all of it up to the torn line, and alone
            // it reads the same, with nothing left to cut.
            assert!(read.intact <= cut.max(header_end), "{kind} at {cut}");
            let again = EventLog::read_bytes(&damaged[..read.intact]).unwrap();
            assert_eq!((&again.log, again.intact), (&read.log, read.intact), "{kind} at {cut}");
        }
    }
}

#[test]
fn issue_16_damage_before_a_record_or_a_bad_record_at_the_end_is_an_error() {
    let text = recorded();
    let lines: Vec<&str> = text.lines().collect();
    // A torn line with records after it — what appending to a torn log
    // without cutting it back made (the bug of issue 16): not a crash's.
    let glued = format!("{}\n{}\n{}{}\n{}\n", lines[0], lines[1], &lines[2][..10], lines[3], lines[4]);
    assert!(matches!(EventLog::parse(&glued), Err(LogError::Record { line: 3, .. })));
    // A complete line that looks like a record but is not one fails closed,
    // last line or not.
    let unknown = format!("{}\n{}\n{}\n", lines[0], lines[1], r#"{"at":5,"input":{"teleport":{}}}"#);
    assert!(matches!(EventLog::parse(&unknown), Err(LogError::Record { line: 3, .. })));
    // Garbage in place of the header, records after it: a damaged header.
    let headless = format!("\0\0\0\n{}\n", lines[1]);
    assert!(matches!(EventLog::parse(&headless), Err(LogError::Header(_))));
    // Only garbage: a run that never started.
    assert_eq!(EventLog::read_bytes(b"\0\0\n\xff"), Err(LogError::NotStarted { bytes: 4 }));
}
