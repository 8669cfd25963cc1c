//! Which URLs the authorization flow may use (SPEC AUTH-01, the pattern
//! behind CVE-2025-6514): every URL discovery finds — metadata documents,
//! issuers, the authorization, token and registration endpoints — must be
//! `https`; `http` is accepted only on a loopback host, for development,
//! and loopback hosts (either scheme) only when the MCP server itself is on
//! one, so a remote server cannot aim the client at the machine's own
//! services. Nothing with another scheme (`file:`, `javascript:`, `data:`,
//! a custom one) ever reaches the application's browser callback, and no
//! URL may carry credentials.
//!
//! A 401 challenge's `resource_metadata` must moreover be on the MCP
//! server's own origin or `https`.

use crate::mcp::error::{AuthStage, McpError};
use std::net::IpAddr;
use url::{Host, Url};

/// The URLs the flow of one MCP server may use.
#[derive(Clone, Debug)]
pub(crate) struct Endpoints {
    /// The MCP server is on a loopback host (development): loopback
    /// endpoints, and `http` on them, are fine.
    local: bool,
}

impl Endpoints {
    /// The policy for the MCP server at `server`.
    pub(crate) fn for_server(server: &Url) -> Endpoints {
        Endpoints { local: is_loopback(server) }
    }

    /// `url`, parsed, when the flow may use it as `what`; else why not.
    pub(crate) fn check(&self, what: &str, url: &str) -> Result<Url, McpError> {
        let refuse = |why: &str| {
            McpError::auth(
                AuthStage::Discovery,
                format!("refused {what} {}: {why}", crate::mcp::redact::shown_url(url)),
            )
        };
        let parsed = Url::parse(url).map_err(|_| refuse("not a URL"))?;
        if !parsed.username().is_empty() || parsed.password().is_some() {
            return Err(refuse("a URL with credentials"));
        }
        if parsed.host().is_none() {
            return Err(refuse("no host"));
        }
        let loopback = is_loopback(&parsed);
        match parsed.scheme() {
            "https" | "http" if loopback && !self.local => {
                Err(refuse("a loopback address, while the MCP server is not on one"))
            }
            "https" => Ok(parsed),
            "http" if loopback => Ok(parsed),
            "http" => Err(refuse("not https (http is accepted only on loopback, for development)")),
            _ => Err(refuse("not https")),
        }
    }

    /// The `resource_metadata` URL of a challenge from `server`: on the
    /// server's origin, or an `https` URL the [`check`](Self::check)
    /// accepts.
    pub(crate) fn check_challenge(&self, server: &Url, url: &str) -> Result<Url, McpError> {
        let parsed = self.check("resource metadata URL", url)?;
        if parsed.origin() == server.origin() || parsed.scheme() == "https" {
            return Ok(parsed);
        }
        Err(McpError::auth(
            AuthStage::Discovery,
            format!(
                "refused resource metadata URL {}: neither on the MCP server's origin nor https",
                crate::mcp::redact::shown_url(url)
            ),
        ))
    }
}

/// True for `localhost` (and names under it), 127.0.0.0/8 and `::1`.
fn is_loopback(url: &Url) -> bool {
    match url.host() {
        Some(Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            name == "localhost" || name.ends_with(".localhost")
        }
        Some(Host::Ipv4(ip)) => IpAddr::V4(ip).is_loopback(),
        Some(Host::Ipv6(ip)) => IpAddr::V6(ip).is_loopback(),
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(server: &str) -> Endpoints {
        Endpoints::for_server(&Url::parse(server).unwrap())
    }

    #[test]
    fn auth_01_only_https_and_loopback_http_for_a_local_server() {
        let local = policy("http://127.0.0.1:9/mcp");
        for fine in
            ["https://as.example.com/authorize", "http://127.0.0.1:7/token", "http://localhost:7/t", "http://[::1]:7/"]
        {
            assert!(local.check("endpoint", fine).is_ok(), "{fine}");
        }
        for bad in [
            "file:///etc/passwd",
            "javascript:alert(1)",
            "data:text/html,<script>alert(1)</script>",
            "myapp://authorize",
            "ftp://as.example.com/",
            "http://as.example.com/authorize",
            "http://10.0.0.1/authorize",
            "https://user:pass@as.example.com/",
            "not a url",
        ] {
            let error = local.check("authorization endpoint", bad).unwrap_err();
            assert!(matches!(error, McpError::Auth { stage: AuthStage::Discovery, .. }), "{bad}");
        }
    }

    #[test]
    fn auth_01_a_remote_server_cannot_point_the_client_at_loopback() {
        let remote = policy("https://mcp.example.com/mcp");
        assert!(remote.check("token endpoint", "https://as.example.com/token").is_ok());
        for bad in ["http://127.0.0.1:8080/", "https://localhost/token", "https://[::1]/", "http://app.localhost/"] {
            assert!(remote.check("token endpoint", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn challenges_point_at_the_servers_origin_or_https() {
        let server = Url::parse("http://127.0.0.1:9/mcp").unwrap();
        let local = policy(server.as_str());
        assert!(local.check_challenge(&server, "http://127.0.0.1:9/.well-known/oauth-protected-resource").is_ok());
        assert!(local.check_challenge(&server, "https://meta.example.com/prm").is_ok());
        assert!(local.check_challenge(&server, "http://127.0.0.1:10/prm").is_err(), "another port, plain http");
    }
}
