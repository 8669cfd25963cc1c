//! What the model reads from `web_fetch` (SPEC WEB): the tool's name,
//! description and schema, its rejections, failed results and markers.
//! Upstream's literals (Go golem v0.8.1) where the SPEC quotes them or the
//! seed had them; the SSRF, redirect and content texts are ours. URLs,
//! hosts, locations and header values are quoted whole up to 200 bytes,
//! else as their first 200 bytes and their length (issue 15): a page or
//! the model chose them, and a long one must not flood the model's
//! context through an error.

use crate::tools::clip::quoted;
use serde_json::{json, Value};

/// The tool's name.
pub const TOOL_NAME: &str = "web_fetch";

/// The tool's description (SPEC WEB-01).
pub const DESCRIPTION: &str = "Fetch an http or https URL with GET and return the response body as text. HTML pages are reduced to their visible text; other text-like formats such as plain text, JSON, XML, YAML, CSV, and Markdown pass through unchanged.";

/// The description of the `url` argument.
pub const URL_DESCRIPTION: &str = "Absolute http or https URL to fetch with GET.";

/// The argument schema: `{url: string}`, no other properties.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"url": {"type": "string", "description": URL_DESCRIPTION}},
        "required": ["url"],
        "additionalProperties": false
    })
}

/// Rejection: the arguments are not `{url: string}`.
pub fn bad_args(serde_error: &str) -> String {
    format!("arguments must be an object with a string url: {}", quoted(serde_error))
}

/// Rejection: an empty URL.
pub const URL_REQUIRED: &str = "url is required";

/// Rejection: a URL that does not parse.
pub fn invalid_url(error: &str) -> String {
    let error = quoted(error);
    format!("url is not a valid URL: {error}")
}

/// Rejection: not http/https, or no host.
pub fn not_http(url: &str) -> String {
    let url = quoted(url);
    format!("url must be an absolute http or https URL, got {url:?}")
}

/// Rejection: a user name or password in the URL (SPEC WEB-02).
pub const CREDENTIALS: &str = "url must not contain a user name or password; this tool sends no credentials";

/// Failed result: the host or one of its addresses is not public (SPEC WEB-03).
pub fn blocked(url: &str, host: &str, addr: &str, category: &str) -> String {
    let url = quoted(url);
    let host = quoted(host);
    if host == addr {
        format!("GET {url}: blocked: {addr} is a {category} address; this tool only fetches public addresses")
    } else {
        format!(
            "GET {url}: blocked: {host} resolves to {addr}, a {category} address; this tool only fetches public addresses"
        )
    }
}

/// Failed result: a non-2xx status (SPEC WEB-08).
pub fn status(url: &str, code: u16, reason: &str) -> String {
    let url = quoted(url);
    format!("GET {url}: status {code} {reason}").trim_end().to_string()
}

/// Failed result: more redirects than allowed (SPEC WEB-04).
pub fn too_many_redirects(url: &str, max: u32) -> String {
    let url = quoted(url);
    format!("GET {url}: stopped after {max} redirects")
}

/// Failed result: a redirect to somewhere this tool does not go.
pub fn bad_redirect(url: &str, location: &str, why: &str) -> String {
    let url = quoted(url);
    let location = quoted(location);
    format!("GET {url}: redirect to {location:?} refused: {why}")
}

/// Why a redirect was refused: not http/https.
pub const REDIRECT_NOT_HTTP: &str = "not an http or https URL";

/// Why a redirect was refused: it carries credentials.
pub const REDIRECT_CREDENTIALS: &str = "it contains a user name or password";

/// Why a redirect was refused: the location does not parse.
pub const REDIRECT_INVALID: &str = "not a valid URL";

/// Failed result: a content type this tool does not read (SPEC WEB-05).
pub fn unsupported_type(url: &str, content_type: &str) -> String {
    let url = quoted(url);
    let content_type = quoted(content_type);
    format!("GET {url}: unsupported content type {content_type:?}; only text, HTML, JSON, XML and YAML are returned")
}

/// Failed result: no content type, and the body is not UTF-8 text.
pub fn untyped_binary(url: &str) -> String {
    let url = quoted(url);
    format!("GET {url}: no content type and the body is not text")
}

/// Failed result: a body labelled as text that is binary (issue 15).
pub fn binary_body(url: &str, content_type: &str) -> String {
    let url = quoted(url);
    let content_type = quoted(content_type);
    format!("GET {url}: the body is binary although its content type is {content_type:?}; it was not returned")
}

/// Failed result: the whole fetch overran its timeout (SPEC WEB-01, WEB-08).
pub fn timed_out(url: &str, seconds: f64) -> String {
    let url = quoted(url);
    format!("GET {url}: timed out after {seconds} s")
}

/// Failed result: the host name does not resolve.
pub fn host_not_found(url: &str, host: &str) -> String {
    let url = quoted(url);
    let host = quoted(host);
    format!("GET {url}: host {host} not found")
}

/// Failed result: a connection, TLS or protocol error (SPEC WEB-08).
pub fn network(url: &str, error: &str) -> String {
    let url = quoted(url);
    let error = quoted(error);
    format!("GET {url}: {error}")
}

/// Failed result: the run no longer wants the fetch.
pub fn canceled(url: &str) -> String {
    let url = quoted(url);
    format!("GET {url}: canceled")
}

/// Marker appended after conversion when the body was cut (SPEC WEB-06).
pub fn truncated(max_bytes: u64) -> String {
    format!("\n\n[webfetch: response truncated at {max_bytes} bytes]")
}

/// Line opening a result whose final URL differs from the requested one
/// (SPEC WEB-04: results name the final URL).
pub fn redirected(final_url: &str) -> String {
    let final_url = quoted(final_url);
    format!("[webfetch: redirected to {final_url}]\n\n")
}
