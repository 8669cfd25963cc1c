//! Tool-call id quirks (SPEC PROV-COMMON-06).
//!
//! Some responses carry calls without ids, and some services accept only
//! ids of one shape. Both are handled here, deterministically, so the same
//! conversation always produces the same wire bytes and a replayed run the
//! same ids.

use super::IdRule;
use std::borrow::Cow;

/// The id given to the `n`-th call (1-based) of a response that carries
/// none, where `turn` is the number of assistant messages in the request
/// plus one — unique within a conversation.
///
/// ```
/// assert_eq!(golem_providers::chat_completions::ids::synthesized(3, 2), "call_3_2");
/// ```
pub fn synthesized(turn: usize, n: usize) -> String {
    format!("call_{turn}_{n}")
}

pub use crate::codec::response_turn;

/// `id` as it goes on the wire under `rule`.
///
/// Under [`IdRule::Alphanumeric9`] an id that already has the shape is kept
/// (so ids the service issued round-trip unchanged); any other id is mapped
/// through a 64-bit FNV-1a hash to nine base-62 characters, so the call and
/// its result map to the same wire id in every request.
///
/// ```
/// use golem_providers::chat_completions::{ids::wire_id, IdRule};
///
/// assert_eq!(wire_id("abcDEF123", IdRule::Alphanumeric9), "abcDEF123");
/// let mapped = wire_id("call_ZR5UUuTt3pf61kjwAJIYdVMj", IdRule::Alphanumeric9);
/// assert_eq!(mapped.len(), 9);
/// assert!(mapped.bytes().all(|b| b.is_ascii_alphanumeric()));
/// assert_eq!(mapped, wire_id("call_ZR5UUuTt3pf61kjwAJIYdVMj", IdRule::Alphanumeric9));
/// ```
pub fn wire_id(id: &str, rule: IdRule) -> Cow<'_, str> {
    match rule {
        IdRule::Verbatim => Cow::Borrowed(id),
        IdRule::Alphanumeric9 if id.len() == 9 && id.bytes().all(|b| b.is_ascii_alphanumeric()) => Cow::Borrowed(id),
        IdRule::Alphanumeric9 => Cow::Owned(alphanumeric9(id)),
    }
}

fn alphanumeric9(id: &str) -> String {
    const ALPHABET: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in id.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    // FNV's low bits mix poorly for short inputs; a splitmix64 finaliser
    // spreads every input bit over the digits taken below.
    hash = (hash ^ (hash >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    hash = (hash ^ (hash >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    hash ^= hash >> 31;
    (0..9)
        .map(|_| {
            let digit = usize::try_from(hash % 62).unwrap_or(0);
            hash /= 62;
            char::from(ALPHABET[digit])
        })
        .collect()
}
