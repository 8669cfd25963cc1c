//! Tool names providers accept (`^[A-Za-z0-9_-]{1,64}$`, SPEC CFG-03) made
//! from whatever a server calls its tools (SPEC MCP-07).

/// The longest name providers accept.
pub const MAX_NAME: usize = 64;

/// True for a name every provider accepts.
pub fn is_valid_name(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len()) && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The model-facing name of server tool `name` under an optional prefix:
/// `<prefix>_<name>`, with invalid characters replaced by `_` and an
/// over-long result cut to 55 characters plus `_` and a hash of the whole,
/// so distinct long names stay distinct.
pub fn model_name(prefix: Option<&str>, name: &str) -> String {
    let full = match prefix {
        Some(prefix) => format!("{prefix}_{name}"),
        None => name.to_string(),
    };
    if is_valid_name(&full) {
        return full;
    }
    let mut clean: String = full.chars().map(|c| if c.is_ascii_alphanumeric() || c == '-' { c } else { '_' }).collect();
    if clean.is_empty() {
        clean.push('_');
    }
    if clean.len() > MAX_NAME {
        clean.truncate(MAX_NAME - 9);
        clean.push_str(&format!("_{:08x}", fnv1a(full.as_bytes())));
    }
    clean
}

/// FNV-1a: stable across platforms and releases, unlike `DefaultHasher`.
fn fnv1a(bytes: &[u8]) -> u32 {
    bytes.iter().fold(0x811c_9dc5_u32, |hash, b| (hash ^ u32::from(*b)).wrapping_mul(0x0100_0193))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_kept_prefixed_cleaned_and_shortened() {
        assert_eq!(model_name(None, "get-sum"), "get-sum");
        assert_eq!(model_name(Some("fs"), "read"), "fs_read");
        assert_eq!(model_name(None, "files.read/all"), "files_read_all");
        assert_eq!(model_name(None, ""), "_");
        assert_eq!(model_name(None, "café"), "caf_");
        let long = "x".repeat(100);
        let short = model_name(None, &long);
        assert_eq!(short.len(), MAX_NAME);
        assert!(is_valid_name(&short));
        assert_ne!(short, model_name(None, &"x".repeat(101)));
    }
}
