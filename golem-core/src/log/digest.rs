//! A short fingerprint of the outputs an input produced, so a replay can
//! tell exactly where it stopped matching the recording.

use crate::machine::Output;

/// FNV-1a (64-bit) over the outputs' JSON, as 16 hex digits. Not
/// cryptographic: it detects accidental divergence and edits, not forgery.
pub fn outputs_digest(outputs: &[Output]) -> String {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    let mut feed = |bytes: &[u8]| {
        for &b in bytes {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    };
    for output in outputs {
        // Serialising plain data cannot fail; an empty feed keeps the digest total.
        feed(&serde_json::to_vec(output).unwrap_or_default());
        feed(b"\n");
    }
    format!("{hash:016x}")
}
