//! The SSE decoder against the WHATWG event-stream rules and its bounds
//! (SPEC STREAM-06, STREAM-08).

use golem_providers::sse::{SseDecoder, SseError, SseEvent, MAX_EVENT, MAX_LINE};
use proptest::prelude::*;

/// Decode `chunks` to the end: every event, then the error if any.
fn decode<'a>(chunks: impl IntoIterator<Item = &'a [u8]>) -> (Vec<SseEvent>, Option<SseError>) {
    let mut decoder = SseDecoder::new();
    let mut events = Vec::new();
    let drain = |decoder: &mut SseDecoder, events: &mut Vec<SseEvent>| -> Option<SseError> {
        while let Some(item) = decoder.next() {
            match item {
                Ok(event) => events.push(event),
                Err(error) => return Some(error),
            }
        }
        None
    };
    for chunk in chunks {
        decoder.feed(chunk);
        if let Some(error) = drain(&mut decoder, &mut events) {
            return (events, Some(error));
        }
    }
    decoder.finish();
    let error = drain(&mut decoder, &mut events);
    (events, error)
}

fn whole(text: &str) -> Vec<SseEvent> {
    let (events, error) = decode([text.as_bytes()]);
    assert_eq!(error, None);
    events
}

fn data(data: &str) -> SseEvent {
    SseEvent { data: data.into(), ..SseEvent::default() }
}

#[test]
fn data_lines_join_with_newlines_and_one_leading_space_is_stripped() {
    assert_eq!(whole("data: a\ndata:b\ndata:  c\n\n"), vec![data("a\nb\n c")]);
}

#[test]
fn all_three_line_endings_work_and_mix() {
    assert_eq!(
        whole("data: a\r\n\r\ndata: b\r\rdata: c\n\ndata: d\r\n\n"),
        vec![data("a"), data("b"), data("c"), data("d")]
    );
}

#[test]
fn a_cr_at_a_chunk_end_and_lf_in_the_next_is_one_line_end() {
    let (events, _) = decode([&b"data: a\r"[..], b"\ndata: b\r", b"\n\r", b"\n"]);
    assert_eq!(events, vec![data("a\nb")]);
}

#[test]
fn comments_unknown_fields_and_empty_events_are_ignored() {
    assert_eq!(whole(": hi\nfoo: bar\n\nevent: x\n\ndata: y\n\n"), vec![data("y")]);
}

#[test]
fn empty_data_still_dispatches() {
    assert_eq!(whole("data\n\ndata:\n\n"), vec![data(""), data("")]);
}

#[test]
fn event_id_and_retry_fields() {
    let events = whole(
        "event: delta\nid: 7\nretry: 1500\ndata: x\n\ndata: y\n\nid\ndata: z\n\nretry: soon\nid: a\0b\ndata: w\n\n",
    );
    assert_eq!(
        events[0],
        SseEvent { event: "delta".into(), data: "x".into(), id: Some("7".into()), retry: Some(1500), own_id: true }
    );
    assert_eq!(events[0].event_type(), "delta");
    // The id persists; the type and retry do not.
    assert_eq!(
        events[1],
        SseEvent { event: String::new(), data: "y".into(), id: Some("7".into()), retry: None, own_id: false }
    );
    assert_eq!(events[1].event_type(), "message");
    // An empty id resets it; an id with NUL and a non-numeric retry are ignored.
    assert_eq!(events[2].id, None);
    assert_eq!((events[3].id.clone(), events[3].retry), (None, None));
}

#[test]
fn a_leading_bom_is_stripped_even_when_split() {
    let (events, _) = decode([&b"\xEF"[..], b"\xBB", b"\xBFdata: a\n\n"]);
    assert_eq!(events, vec![data("a")]);
    // A BOM later in the stream is part of the field name, so the line is unknown.
    assert_eq!(whole("data: a\n\n\u{feff}data: b\n\n"), vec![data("a")]);
}

#[test]
fn an_unterminated_last_event_is_delivered_at_the_end() {
    assert_eq!(whole("data: a\n\ndata: [DONE]"), vec![data("a"), data("[DONE]")]);
    assert_eq!(whole("data: a\n\ndata: b\n"), vec![data("a"), data("b")]);
}

#[test]
fn the_end_of_the_body_inside_an_event_is_flagged() {
    for (body, cut) in
        [("data: a\n\ndata: b", true), ("data: a\n\ndata: {\"x\":\n", true), ("data: a\n\n", false), ("", false)]
    {
        let mut decoder = SseDecoder::new();
        decoder.feed(body.as_bytes());
        decoder.finish();
        while decoder.next().is_some() {}
        assert_eq!(decoder.ended_mid_event(), cut, "{body:?}");
    }
    // Not before the end: an event still arriving is no cut.
    let mut decoder = SseDecoder::new();
    decoder.feed(b"data: par");
    assert!(decoder.next().is_none());
    assert!(!decoder.ended_mid_event());
}

#[test]
fn nothing_is_yielded_before_an_event_is_complete() {
    let mut decoder = SseDecoder::new();
    decoder.feed(b"data: a\n");
    assert!(decoder.next().is_none());
    decoder.feed(b"\n");
    assert_eq!(decoder.next(), Some(Ok(data("a"))));
    assert!(decoder.next().is_none());
}

#[test]
fn a_line_over_one_mebibyte_is_an_error_and_the_decoder_stops() {
    let mut text = b"data: ".to_vec();
    text.extend(std::iter::repeat_n(b'x', MAX_LINE));
    text.extend_from_slice(b"\n\ndata: after\n\n");
    let (events, error) = decode([&text[..]]);
    assert!(events.is_empty());
    assert_eq!(error, Some(SseError::LineTooLong { line: 1, limit: MAX_LINE }));
    // Fed in small pieces the error comes before the line ends: memory stays bounded.
    let mut decoder = SseDecoder::new();
    let mut error = None;
    for piece in text.chunks(4096) {
        decoder.feed(piece);
        if let Some(Err(e)) = decoder.next() {
            error = Some(e);
            break;
        }
    }
    assert_eq!(error, Some(SseError::LineTooLong { line: 1, limit: MAX_LINE }));
    assert!(decoder.is_failed());
    decoder.feed(b"data: more\n\n");
    assert!(decoder.next().is_none());
}

#[test]
fn an_event_over_eight_mebibytes_is_an_error() {
    let line = format!("data: {}\n", "y".repeat(1000 * 1000));
    let text = line.repeat(9) + "\n";
    let (events, error) = decode([text.as_bytes()]);
    assert!(events.is_empty());
    assert_eq!(error, Some(SseError::EventTooLarge { line: 9, limit: MAX_EVENT }));
}

#[test]
fn a_line_of_exactly_the_limit_is_accepted() {
    let value = "z".repeat(MAX_LINE - "data: ".len());
    let text = format!("data: {value}\n\n");
    assert_eq!(whole(&text), vec![data(&value)]);
}

#[test]
fn invalid_utf8_in_a_field_value_is_an_error() {
    let (_, error) = decode([&b"data: ok\n\ndata: \xff\n\n"[..]]);
    assert_eq!(error, Some(SseError::InvalidUtf8 { line: 3 }));
    // …but not in a comment, which is never read.
    assert_eq!(decode([&b": \xff\ndata: ok\n\n"[..]]).0, vec![data("ok")]);
}

const SAMPLE: &str = "\u{feff}: c\r\nevent: e\r\ndata: 1\r\ndata: 2\r\rid: 9\ndata\n\ndata: ünï\u{1F600}\n\ndata: tail";

#[test]
fn the_sample_decodes_identically_at_every_split_and_byte_by_byte() {
    let bytes = SAMPLE.as_bytes();
    let expected = decode([bytes]);
    assert_eq!(expected.0.len(), 4);
    assert_eq!(decode(bytes.chunks(1)), expected);
    for a in 0..=bytes.len() {
        for b in a..=bytes.len() {
            let chunks = [&bytes[..a], &bytes[a..b], &bytes[b..]];
            assert_eq!(decode(chunks), expected, "cuts at {a}, {b}");
        }
    }
}

proptest! {
    #[test]
    fn any_chunking_gives_the_same_events(
        body in proptest::collection::vec(prop_oneof![
            Just(b'\n'), Just(b'\r'), Just(b':'), Just(b' '), Just(b'd'), Just(b'a'), Just(b't'),
            Just(b'\xEF'), Just(b'\xBB'), Just(b'\xBF'), any::<u8>()
        ], 0..300),
        cuts in proptest::collection::vec(0usize..300, 0..8),
    ) {
        let mut cuts: Vec<usize> = cuts.into_iter().map(|c| c.min(body.len())).collect();
        cuts.sort_unstable();
        let mut chunks = Vec::new();
        let mut start = 0;
        for cut in cuts {
            chunks.push(&body[start..cut]);
            start = cut;
        }
        chunks.push(&body[start..]);
        prop_assert_eq!(decode(chunks), decode([&body[..]]));
    }

    #[test]
    fn random_bytes_never_panic(body in proptest::collection::vec(any::<u8>(), 0..2000)) {
        let _ = decode(body.chunks(7));
    }
}
