//! A short fingerprint of the outputs an input produced, so a replay can
//! tell exactly where it stopped matching the recording.

use super::legacy;
use crate::event::EventKind;
use crate::machine::Output;
use serde::Serialize;

/// FNV-1a (64-bit) over the outputs' JSON, as 16 hex digits. Not
/// cryptographic: it detects accidental divergence and edits, not forgery.
/// This is the digest of the current format ([`super::FORMAT_VERSION`]).
///
/// A `retry_declined` event is left out: it is the last event before the
/// run fails, follows from the same input as the failure, and did not
/// exist when earlier logs were written — a run that declined a retry then
/// went silent, so its recorded digest still checks (SPEC LOG-03).
pub fn outputs_digest(outputs: &[Output]) -> String {
    fnv(outputs.iter().filter(|o| !is_retry_declined(o)))
}

fn is_retry_declined(output: &Output) -> bool {
    matches!(output, Output::Event(e) if matches!(e.kind, EventKind::RetryDeclined { .. }))
}

/// The digest a log of format `format` records: format 1 hashed the tool
/// events in their format-1 shape (SPEC LOG-03); later formats hash the
/// outputs as they are.
pub fn outputs_digest_for(format: u32, outputs: &[Output]) -> String {
    if format == 1 {
        fnv(outputs.iter().filter(|o| !is_retry_declined(o)).map(legacy::v1))
    } else {
        outputs_digest(outputs)
    }
}

fn fnv<T: Serialize>(outputs: impl Iterator<Item = T>) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for output in outputs {
        // Serialising plain data cannot fail; an empty feed keeps the digest total.
        feed(&serde_json::to_vec(&output).unwrap_or_default());
        feed(b"\n");
    }
    format!("{hash:016x}")
}
