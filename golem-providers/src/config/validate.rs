//! Checks shared by every family's config: URLs, header names and values,
//! credentials.
//!
//! Configs are validated once, at construction (SPEC PROV-COMMON-02), so a
//! bad value fails where it was written rather than on the first request.

/// Why a URL is not an acceptable base.
pub fn base_url_problem(url: &str) -> Option<&'static str> {
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    match rest {
        None => Some("it must start with http:// or https://"),
        Some("") => Some("it has no host"),
        Some(_) if url.chars().any(|c| c.is_whitespace() || c.is_control()) => Some("it contains whitespace"),
        Some(_) if url.contains(['?', '#']) => Some("it must not have a query or fragment"),
        Some(_) => None,
    }
}

/// `url` without trailing slashes (SPEC PROV-OAI-01).
pub fn trim_base_url(url: &str) -> String {
    url.trim().trim_end_matches('/').to_string()
}

/// Why an extra header cannot be sent; `None` when it can.
pub fn header_problem(name: &str, value: &str) -> Option<&'static str> {
    if !is_header_name(name) {
        Some("not a valid header name")
    } else if CREDENTIAL_HEADERS.iter().any(|c| c.eq_ignore_ascii_case(name)) {
        Some("credentials go in api_key, which is kept secret")
    } else if !is_header_value(value) {
        Some("the value holds line breaks or non-ASCII characters")
    } else {
        None
    }
}

/// True for an RFC 9110 token (a header name).
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// True for a value a header can carry: visible ASCII and inner spaces, no
/// line breaks (which would let a value inject headers).
pub fn is_header_value(value: &str) -> bool {
    value.bytes().all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b))
}

/// True for a credential: visible ASCII only, non-empty.
pub fn is_credential(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| (0x21..0x7f).contains(&b))
}

/// Header names that carry credentials or signatures, of any family, and
/// so must come from the config's key or credentials — never from extra
/// headers.
pub const CREDENTIAL_HEADERS: [&str; 8] = [
    "authorization",
    "proxy-authorization",
    "api-key",
    "x-api-key",
    "x-goog-api-key",
    "x-amz-date",
    "x-amz-security-token",
    "x-amz-content-sha256",
];

/// An effort (`low`, `high`, … as the model documents) must be printable
/// text.
pub fn effort(effort: Option<&str>) -> Result<(), super::ConfigError> {
    match effort {
        Some(effort) if effort.trim().is_empty() || effort.chars().any(char::is_control) => {
            Err(super::ConfigError::InvalidThinking { reason: "effort must be non-empty printable text".into() })
        }
        _ => Ok(()),
    }
}

/// A thinking budget of at least `min` tokens, and below `max_tokens`
/// when there is a limit (THINK-02).
pub fn thinking_budget(budget: u32, min: u32, max_tokens: Option<u32>) -> Result<(), super::ConfigError> {
    if budget < min {
        return Err(super::ConfigError::InvalidThinking {
            reason: format!("budget_tokens must be at least {min}, got {budget}"),
        });
    }
    match max_tokens {
        Some(max) if budget >= max => Err(super::ConfigError::InvalidThinking {
            reason: format!("budget_tokens ({budget}) must be below max_tokens ({max}); raise max_tokens"),
        }),
        _ => Ok(()),
    }
}
