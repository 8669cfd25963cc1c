//! The event-stream frame decoder (SPEC PROV-BR-05, STREAM-06/08): AWS's
//! encoding vectors (valid frames decode, malformed ones are typed errors
//! in the specified check order), the recorded ConverseStream bodies split
//! at every byte, the 16 MiB bound and EOF only at a frame boundary.

use crate::bedrock::recorded;
use crate::support::case_dir;
use bytes::Bytes;
use golem_providers::eventstream::{encode_frame, Frame, FrameDecoder, FrameError, Header, HeaderValue, MAX_FRAME};

fn vector(name: &str) -> Vec<u8> {
    std::fs::read(case_dir("bedrock/eventstream_test_vectors").join(name)).unwrap()
}

/// Every frame and the error (if any) of `chunks`, end of input included.
fn decode(chunks: &[&[u8]]) -> (Vec<Frame>, Option<FrameError>) {
    let mut decoder = FrameDecoder::new();
    let mut frames = Vec::new();
    let mut error = None;
    let mut drain = |decoder: &mut FrameDecoder| {
        while let Some(item) = decoder.next_frame() {
            match item {
                Ok(frame) => frames.push(frame),
                Err(e) => error = Some(e),
            }
        }
    };
    for chunk in chunks {
        decoder.feed(chunk);
        drain(&mut decoder);
    }
    decoder.finish();
    drain(&mut decoder);
    (frames, error)
}

fn one(bytes: &[u8]) -> Result<Frame, FrameError> {
    match decode(&[bytes]) {
        (mut frames, None) if frames.len() == 1 => Ok(frames.remove(0)),
        (frames, Some(error)) if frames.is_empty() => Err(error),
        other => panic!("expected one frame or one error, got {other:?}"),
    }
}

#[test]
fn the_valid_vectors_decode_with_every_header_type() {
    let frame = one(&vector("valid_no_headers")).unwrap();
    assert!(frame.headers.is_empty());
    assert_eq!(&frame.payload[..], b"another test payload");

    let frame = one(&vector("valid_empty_payload")).unwrap();
    assert!(frame.payload.is_empty());
    assert_eq!(frame.header("some-header"), Some(&HeaderValue::Short(500)));

    let frame = one(&vector("valid_with_all_headers_and_payload")).unwrap();
    let value = |name: &str| frame.header(name).cloned().unwrap_or_else(|| panic!("header {name}"));
    assert_eq!(value("true"), HeaderValue::Bool(true));
    assert_eq!(value("false"), HeaderValue::Bool(false));
    assert_eq!(value("byte"), HeaderValue::Byte(50));
    assert_eq!(value("short"), HeaderValue::Short(20_000));
    assert_eq!(value("int"), HeaderValue::Int(500_000));
    assert_eq!(value("long"), HeaderValue::Long(50_000_000_000));
    assert_eq!(value("bytes"), HeaderValue::Bytes(Bytes::from_static(b"some bytes")));
    assert_eq!(frame.string_header("str"), Some("some str"));
    assert_eq!(value("time"), HeaderValue::Timestamp(5_000_000_000));
    assert!(matches!(value("uuid"), HeaderValue::Uuid(_)));
    assert_eq!(&frame.payload[..], b"some payload");
    // Re-encoding gives the vector's bytes back.
    assert_eq!(encode_frame(&frame.headers, &frame.payload), vector("valid_with_all_headers_and_payload"));
}

#[test]
fn every_malformed_vector_is_the_typed_error_of_its_first_failing_check() {
    type Check = fn(&FrameError) -> bool;
    let cases: [(&str, Check); 8] = [
        ("invalid_prelude_checksum", |e| matches!(e, FrameError::PreludeChecksum { .. })),
        ("invalid_message_checksum", |e| matches!(e, FrameError::MessageChecksum { .. })),
        ("invalid_headers_length", |e| matches!(e, FrameError::HeadersLength { headers: 77, length: 89 })),
        ("invalid_header_value_type", |e| matches!(e, FrameError::HeaderType { kind: 0x60, .. })),
        // A name length of 255 after the two bool headers.
        ("invalid_header_name_length", |e| *e == FrameError::Header { offset: 13, what: "name runs past the headers" }),
        ("invalid_header_name_length_too_long", |e| {
            *e == FrameError::Header { offset: 6, what: "name runs past the headers" }
        }),
        // The `str` header, after seven others: one byte left for its length.
        ("invalid_header_string_length_cut_off", |e| {
            *e == FrameError::Header { offset: 71, what: "value length runs past the headers" }
        }),
        ("invalid_header_string_value_length", |e| {
            *e == FrameError::Header { offset: 71, what: "value runs past the headers" }
        }),
    ];
    for (name, expected) in cases {
        let bytes = vector(name);
        let error = one(&bytes).expect_err(name);
        assert!(expected(&error), "{name}: {error:?}");
        // The same error however the bytes arrive.
        for cut in 0..=bytes.len() {
            let (frames, split) = decode(&[&bytes[..cut], &bytes[cut..]]);
            assert!(frames.is_empty(), "{name} split at {cut}");
            assert_eq!(split.as_ref(), Some(&error), "{name} split at {cut}");
        }
    }
}

#[test]
fn a_frame_is_refused_as_soon_as_its_prelude_declares_too_much() {
    for length in [0u32, 15, MAX_FRAME as u32 + 1, u32::MAX] {
        let mut prelude = length.to_be_bytes().to_vec();
        prelude.extend_from_slice(&0u32.to_be_bytes());
        prelude.extend_from_slice(&crc32fast::hash(&prelude).to_be_bytes());
        let mut decoder = FrameDecoder::new();
        decoder.feed(&prelude);
        assert_eq!(decoder.next_frame(), Some(Err(FrameError::FrameLength { length })), "{length}");
        assert_eq!(decoder.next_frame(), None, "an error is terminal");
    }
    // 16 MiB exactly is allowed: the decoder waits for the rest.
    let mut prelude = (MAX_FRAME as u32).to_be_bytes().to_vec();
    prelude.extend_from_slice(&0u32.to_be_bytes());
    prelude.extend_from_slice(&crc32fast::hash(&prelude).to_be_bytes());
    let mut decoder = FrameDecoder::new();
    decoder.feed(&prelude);
    assert_eq!(decoder.next_frame(), None);
    decoder.finish();
    assert_eq!(decoder.next_frame(), Some(Err(FrameError::Truncated { buffered: 12 })));
}

#[test]
fn the_input_may_end_only_between_frames() {
    let frame = vector("valid_no_headers");
    let two = [frame.clone(), frame.clone()].concat();
    for cut in 1..two.len() {
        let (frames, error) = decode(&[&two[..cut]]);
        if cut == frame.len() {
            assert_eq!((frames.len(), error), (1, None));
        } else {
            assert_eq!(error, Some(FrameError::Truncated { buffered: cut % frame.len() }), "cut at {cut}");
        }
    }
    assert_eq!(decode(&[]), (vec![], None), "an empty body is no frame and no error");
}

#[test]
fn recorded_converse_streams_decode_identically_at_every_split() {
    for (case, file, count) in [
        ("converse_stream_text", "01.response.bin", 33),
        ("converse_stream_tool_use", "01.response.bin", 26),
        ("converse_stream_tool_use", "02.response.bin", 9),
        ("converse_stream_reasoning_signature", "01.response.bin", 25),
    ] {
        let body = recorded(case, file);
        let (whole, error) = decode(&[&body]);
        assert_eq!((whole.len(), error), (count, None), "{case}/{file}");
        assert!(whole.iter().all(|f| f.string_header(":message-type") == Some("event")));
        let (bytewise, _) = decode(&body.chunks(1).collect::<Vec<_>>());
        assert_eq!(bytewise, whole, "{case}/{file}: byte by byte");
        for cut in 0..=body.len() {
            assert_eq!(decode(&[&body[..cut], &body[cut..]]).0, whole, "{case}/{file}: split at {cut}");
        }
    }
}

#[test]
fn frames_round_trip_through_the_encoder() {
    let headers = vec![
        Header { name: ":event-type".into(), value: HeaderValue::String("metadata".into()) },
        Header { name: "n".into(), value: HeaderValue::Int(-7) },
        Header { name: "u".into(), value: HeaderValue::Uuid([7; 16]) },
    ];
    let bytes = encode_frame(&headers, b"{}");
    let frame = one(&bytes).unwrap();
    assert_eq!(frame.headers, headers);
    // A flipped payload byte fails the message checksum, not earlier.
    let mut damaged = bytes.clone();
    let at = damaged.len() - 5;
    damaged[at] ^= 1;
    assert!(matches!(one(&damaged), Err(FrameError::MessageChecksum { .. })));
    // An empty header name is malformed.
    let mut empty_name = encode_frame(&[Header { name: String::new(), value: HeaderValue::Bool(true) }], b"");
    let crc = crc32fast::hash(&empty_name[..empty_name.len() - 4]);
    let n = empty_name.len();
    empty_name[n - 4..].copy_from_slice(&crc.to_be_bytes());
    assert!(matches!(one(&empty_name), Err(FrameError::Header { what: "empty name", .. })));
}
