//! Checks shared by provider configs: URLs, header names and values.
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

// The header checks serve the extra headers of OpenAI configs only.

/// True for an RFC 9110 token (a header name).
#[cfg(feature = "openai")]
pub fn is_header_name(name: &str) -> bool {
    !name.is_empty() && name.bytes().all(|b| b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b))
}

/// True for a value a header can carry: visible ASCII and inner spaces, no
/// line breaks (which would let a value inject headers).
#[cfg(feature = "openai")]
pub fn is_header_value(value: &str) -> bool {
    value.bytes().all(|b| b == b' ' || b == b'\t' || (0x21..0x7f).contains(&b))
}

/// True for a credential: visible ASCII only, non-empty.
pub fn is_credential(value: &str) -> bool {
    !value.is_empty() && value.bytes().all(|b| (0x21..0x7f).contains(&b))
}

/// Header names that carry credentials and so must come from the config's
/// key, held as a secret — never from plain extra headers.
#[cfg(feature = "openai")]
pub const CREDENTIAL_HEADERS: [&str; 4] = ["authorization", "api-key", "x-api-key", "proxy-authorization"];
