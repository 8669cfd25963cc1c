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
    let mut hash = Fnv(0xcbf2_9ce4_8422_2325);
    for output in outputs {
        // Serialising plain data into the hash cannot fail; ignoring the
        // impossible error keeps the digest total.
        let _ = serde_json::to_writer(&mut hash, &output);
        hash.feed(b"\n");
    }
    format!("{:016x}", hash.0)
}

/// The FNV-1a state, fed the JSON as it is written (no buffer).
struct Fnv(u64);

impl Fnv {
    fn feed(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
}

impl std::io::Write for Fnv {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.feed(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}
