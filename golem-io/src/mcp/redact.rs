//! Keeping what a server says out of harm's way before it goes into an
//! error (SPEC MCP-13, AUTH-03): every secret the client holds or sent
//! replaced, control characters flattened, the length bounded. A hostile
//! server that echoes the request back gets nothing into a `Display` or
//! `Debug` string.

use super::error::BODY_EXCERPT;

/// `text` with every secret (of four bytes or more: shorter ones would
/// match ordinary words) replaced by `[redacted]` — the longest first, so
/// a secret that contains another is caught whole.
pub(crate) fn scrub(text: &str, secrets: &[&str]) -> String {
    let mut secrets: Vec<&str> = secrets.iter().copied().filter(|s| s.len() >= 4).collect();
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    let mut text = text.to_string();
    for secret in secrets {
        if text.contains(secret) {
            text = text.replace(secret, "[redacted]");
        }
    }
    text
}

/// `text` as one line of at most `max` characters (`…` marks a cut).
pub(crate) fn one_line(text: &str, max: usize) -> String {
    let text = text.trim();
    let mut out: String = text.chars().take(max).map(|c| if c.is_control() { ' ' } else { c }).collect();
    if text.chars().nth(max).is_some() {
        out.push('…');
    }
    out
}

/// The start of `body` as one line of text, secrets scrubbed.
pub(crate) fn excerpt(body: &[u8], secrets: &[&str]) -> String {
    one_line(&scrub(String::from_utf8_lossy(body).trim(), secrets), BODY_EXCERPT)
}

/// `url` without user info, query or fragment — they may hold secrets.
pub(crate) fn shown_url(url: &str) -> String {
    let url = url.split(['?', '#']).next().unwrap_or_default();
    let Some((scheme, rest)) = url.split_once("://") else { return url.to_string() };
    let (authority, path) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    let host = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
    format!("{scheme}://{host}{path}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_urls_lose_credentials_and_queries() {
        assert_eq!(shown_url("https://u:p@h.example:8443/mcp?key=1#x"), "https://h.example:8443/mcp");
        assert_eq!(shown_url("http://127.0.0.1:9/mcp"), "http://127.0.0.1:9/mcp");
        assert_eq!(shown_url("not a url?x"), "not a url");
    }

    #[test]
    fn excerpts_are_bounded_one_line_and_secret_free() {
        let body = format!("token sk-12345 rejected\r\n{}", "x".repeat(2000));
        let shown = excerpt(body.as_bytes(), &["sk-12345"]);
        assert!(shown.starts_with("token [redacted] rejected  x"));
        assert_eq!(shown.chars().count(), BODY_EXCERPT + 1);
        assert!(!shown.contains('\n'));
        assert_eq!(excerpt(b"  \n", &[]), "");
    }

    #[test]
    fn a_secret_inside_another_is_caught_whole() {
        let shown = scrub("key=abcd-efgh-ijkl", &["efgh", "abcd-efgh-ijkl"]);
        assert_eq!(shown, "key=[redacted]");
        assert_eq!(scrub("short abc", &["abc"]), "short abc", "too short to tell from words");
    }
}
