//! Secrets never show in `Debug` or `Display` of the MCP configuration
//! and errors (SPEC ERR-06, issue 11 item 4): environment values handed to
//! a stdio server, header and bearer values, proxy credentials and URL
//! queries.
#![cfg(feature = "mcp")]

use golem_io::mcp::{ClientOptions, HttpConfig, McpClient, StdioConfig};
use std::time::Duration;

#[test]
fn stdio_config_debug_shows_environment_keys_never_values() {
    let config = StdioConfig::new("mcp-server-github")
        .arg("--stdio")
        .env("GITHUB_PERSONAL_ACCESS_TOKEN", "ghp-SECRET-0123456789")
        .env("LOG_LEVEL", "SECRET-too")
        .clear_env();
    let shown = format!("{config:?} {config:#?}");
    assert!(!shown.contains("SECRET"), "{shown}");
    assert!(shown.contains("GITHUB_PERSONAL_ACCESS_TOKEN") && shown.contains("LOG_LEVEL"), "{shown}");
    assert!(shown.contains("mcp-server-github") && shown.contains("--stdio"), "{shown}");
}

#[test]
fn http_config_and_its_errors_hide_headers_tokens_and_queries() {
    let config = HttpConfig::new("http://127.0.0.1:9/mcp?key=SECRET-Q")
        .bearer_token("SECRET-T")
        .header("X-Api-Key", "SECRET-H")
        .proxy("http://user:SECRET-P@proxy.example:3128");
    let shown = format!("{config:?}");
    assert!(shown.contains("proxy.example:3128"), "{shown}");
    assert!(!shown.contains("SECRET"), "{shown}");

    // A URL ureq refuses is reported without the URL's query.
    let bad = HttpConfig::new("http://exa mple.invalid/mcp?key=SECRET-Q");
    let error = McpClient::http(bad, ClientOptions::new().timeout(Duration::from_secs(5))).unwrap_err();
    let shown = format!("{error} {error:?}");
    assert!(!shown.contains("SECRET"), "{shown}");
}
