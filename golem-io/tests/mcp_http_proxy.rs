//! The MCP HTTP client's proxy is explicit, as the providers' transports'
//! (issue 11 item 17): a configured proxy carries every request (POSTs and
//! the GET stream) through a `CONNECT` tunnel, and without one the client
//! connects directly even when `HTTP_PROXY` and friends name a proxy.
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_io::mcp::{ClientOptions, HttpConfig, ListenState, McpClient, McpError};
use mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use proxy::ConnectProxy;
use serde_json::json;
use std::time::Duration;

#[path = "../../golem-providers/tests/support/proxy.rs"]
mod proxy;

fn server() -> FakeHttp {
    FakeHttp::start(|request: &FakeRequest| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": {
            "protocolVersion": "2025-06-18", "capabilities": {"tools": {}},
            "serverInfo": {"name": "behind-a-proxy", "version": "1"}}}))
        .header("Mcp-Session-Id", "s-1"),
        "tools/list" => {
            FakeResponse::json(&json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": {"tools": []}}))
        }
        "GET" => FakeResponse::status(405),
        "DELETE" => FakeResponse::status(200),
        _ => FakeResponse::accepted(),
    })
}

fn options() -> ClientOptions {
    ClientOptions::new().timeout(Duration::from_secs(10))
}

fn authority(url: &str) -> String {
    let rest = url.split_once("://").map_or(url, |(_, rest)| rest);
    rest.split('/').next().unwrap_or_default().to_string()
}

#[test]
fn a_configured_proxy_carries_every_request() {
    let fake = server();
    let proxy = ConnectProxy::start();
    let client = McpClient::http(HttpConfig::new(&fake.url).proxy(proxy.url()), options()).unwrap();
    assert_eq!(client.server_info().map(|s| s.name), Some("behind-a-proxy".to_string()));
    assert!(mcp_support::eventually(Duration::from_secs(10), || client.listen_state() == ListenState::Unsupported));
    client.list_tools().unwrap();
    client.close();
    let tunnels = proxy.tunnels();
    assert!(!tunnels.is_empty());
    assert!(tunnels.iter().all(|t| t.target == authority(&fake.url)), "{tunnels:?}");
    assert!(fake.requests().iter().any(|r| r.method == "GET"), "the GET stream went through it too");
}

#[test]
fn proxy_credentials_are_sent_and_bad_proxy_urls_refused_without_them() {
    let fake = server();
    // base64("mcp:pr0xy")
    let proxy = ConnectProxy::requiring("Basic bWNwOnByMHh5");
    let url = proxy.url().replace("http://", "http://mcp:pr0xy@");
    let client = McpClient::http(HttpConfig::new(&fake.url).proxy(url).listen(false), options()).unwrap();
    client.close();
    assert_eq!(proxy.tunnels()[0].authorization.as_deref(), Some("Basic bWNwOnByMHh5"));

    for bad in ["socks5://mcp:pr0xy@127.0.0.1:1080", "ftp://mcp:pr0xy@host"] {
        let error = McpClient::http(HttpConfig::new(&fake.url).proxy(bad), options()).unwrap_err();
        let shown = format!("{error} {error:?}");
        assert!(matches!(error, McpError::Http(_)) && shown.contains("proxy"), "{shown}");
        assert!(!shown.contains("pr0xy"), "{shown}");
    }
}

/// Marks the child run of [`environment_proxies_are_ignored`].
const CHILD: &str = "GOLEM_MCP_PROXY_ENV_CHILD";

/// Checked in a child process of this binary, so the variables never
/// reach the other tests' environment.
#[test]
fn environment_proxies_are_ignored() {
    if std::env::var_os(CHILD).is_none() {
        proxy::assert_environment_proxies_unused("mcp_http_proxy::environment_proxies_are_ignored", CHILD);
        return;
    }
    let fake = server();
    let client = McpClient::http(HttpConfig::new(&fake.url).listen(false), options()).unwrap();
    client.list_tools().unwrap();
    client.close();
}
