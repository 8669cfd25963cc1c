//! Finding the authorization server (SPEC MCP-15): the protected-resource
//! metadata (RFC 9728) the 401 challenge points at, else at its well-known
//! places, path-based first; then the authorization server's metadata
//! (RFC 8414, or OpenID discovery) in the order the MCP spec gives. A
//! server without any of it is a 2025-03-26 server: its origin is the
//! authorization server, with metadata at the root or the default
//! endpoints `/authorize`, `/token` and `/register`.
//!
//! Every URL is held to [`Endpoints`] (SPEC AUTH-01), and the metadata's
//! `issuer` must be the issuer it was looked up for (RFC 8414 §3.3, SPEC
//! AUTH-02): a host the resource metadata names cannot pose as another
//! authorization server. A 2025-03-26 server, which names no issuer, has
//! its metadata at its own origin's root; the issuer that metadata claims
//! must then be on that origin (it may have a path: the metadata was not
//! looked up from it).

use super::challenge::Challenge;
use super::endpoint::Endpoints;
use super::wire::Wire;
use crate::mcp::error::{AuthStage, McpError};
use serde_json::Value;
use url::Url;

/// The protected resource and its authorization server.
#[derive(Clone, Debug)]
pub(crate) struct Discovered {
    /// The `resource` parameter (RFC 8707) for authorization and token
    /// requests.
    pub(crate) resource: String,
    /// The resource's `scopes_supported`, when its metadata lists them.
    pub(crate) resource_scopes: Option<Vec<String>>,
    pub(crate) server: ServerMetadata,
}

/// What the flow needs from the authorization server's metadata.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServerMetadata {
    /// The issuer identifier, as checked against the metadata.
    pub(crate) issuer: String,
    pub(crate) authorization_endpoint: String,
    pub(crate) token_endpoint: String,
    pub(crate) registration_endpoint: Option<String>,
    pub(crate) scopes_supported: Option<Vec<String>>,
    pub(crate) auth_methods: Vec<String>,
    pub(crate) client_id_metadata_documents: bool,
}

fn fail(reason: impl Into<String>) -> McpError {
    McpError::auth(AuthStage::Discovery, reason)
}

/// True when issuer identifiers `a` and `b` name the same authorization
/// server: identical, but for a trailing slash (`https://as.example.com`
/// and `https://as.example.com/` are one URL once parsed).
pub(crate) fn same_issuer(a: &str, b: &str) -> bool {
    a == b || a.strip_suffix('/').unwrap_or(a) == b.strip_suffix('/').unwrap_or(b)
}

/// Discover for the MCP endpoint `server`, after `challenge`.
pub(crate) fn discover(wire: &Wire, server: &str, challenge: &Challenge) -> Result<Discovered, McpError> {
    let server_url = Url::parse(server).map_err(|_| fail("the server URL does not parse"))?;
    let endpoints = Endpoints::for_server(&server_url);
    let resource_doc = protected_resource(wire, &endpoints, &server_url, challenge)?;
    let (resource, resource_scopes, issuer) = match &resource_doc {
        Some(doc) => {
            let resource = doc.get("resource").and_then(Value::as_str).unwrap_or(server);
            check_resource(&server_url, resource)?;
            let issuer = doc
                .get("authorization_servers")
                .and_then(Value::as_array)
                .and_then(|servers| servers.iter().find_map(Value::as_str))
                .ok_or_else(|| fail("the protected-resource metadata names no authorization server"))?;
            (resource.to_string(), strings(doc.get("scopes_supported")), issuer.to_string())
        }
        None => (canonical(&server_url), None, origin(&server_url).as_str().trim_end_matches('/').to_string()),
    };
    let issuer_url = endpoints.check("authorization server", &issuer)?;
    let legacy = resource_doc.is_none();
    let server = match server_metadata(wire, &endpoints, &issuer, &issuer_url, legacy)? {
        Some(metadata) => metadata,
        // 2025-03-26: no metadata means the default endpoints.
        None if resource_doc.is_none() => legacy_endpoints(&issuer),
        None => return Err(fail(format!("no authorization server metadata for {}", shown(&issuer)))),
    };
    Ok(Discovered { resource, resource_scopes, server })
}

/// The protected-resource metadata document, if the server has one.
fn protected_resource(
    wire: &Wire,
    endpoints: &Endpoints,
    server: &Url,
    challenge: &Challenge,
) -> Result<Option<Value>, McpError> {
    let mut candidates = Vec::new();
    if let Some(url) = &challenge.resource_metadata {
        candidates.push(endpoints.check_challenge(server, url)?.to_string());
    } else {
        let path = server.path().trim_end_matches('/');
        let root = origin(server);
        if !path.is_empty() {
            candidates
                .push(format!("{}/.well-known/oauth-protected-resource{path}", root.as_str().trim_end_matches('/')));
        }
        candidates.push(format!("{}/.well-known/oauth-protected-resource", root.as_str().trim_end_matches('/')));
        for candidate in &candidates {
            endpoints.check("resource metadata URL", candidate)?;
        }
    }
    first_document(wire, &candidates)
}

/// The first candidate that answers 2xx with a JSON object. Transport
/// failures fail discovery; refusals move on.
fn first_document(wire: &Wire, candidates: &[String]) -> Result<Option<Value>, McpError> {
    for url in candidates {
        let answer = wire.get(url).map_err(|e| fail(format!("GET {}: {e}", shown(url))))?;
        if answer.ok() && answer.body.is_object() {
            return Ok(Some(answer.body));
        }
    }
    Ok(None)
}

/// The metadata of the authorization server `issuer` (the identifier as
/// named, and parsed): its `issuer` must be that identifier — or, for a
/// `legacy` server whose origin `issuer` is, on that origin — and its
/// endpoints must pass [`Endpoints::check`].
fn server_metadata(
    wire: &Wire,
    endpoints: &Endpoints,
    issuer: &str,
    issuer_url: &Url,
    legacy: bool,
) -> Result<Option<ServerMetadata>, McpError> {
    let root = origin(issuer_url);
    let root = root.as_str().trim_end_matches('/');
    let path = issuer_url.path().trim_end_matches('/');
    let candidates = if path.is_empty() {
        vec![
            format!("{root}/.well-known/oauth-authorization-server"),
            format!("{root}/.well-known/openid-configuration"),
        ]
    } else {
        vec![
            format!("{root}/.well-known/oauth-authorization-server{path}"),
            format!("{root}/.well-known/openid-configuration{path}"),
            format!("{root}{path}/.well-known/openid-configuration"),
        ]
    };
    let Some(doc) = first_document(wire, &candidates)? else { return Ok(None) };
    let text = |key: &str| doc.get(key).and_then(Value::as_str).map(str::to_string);
    let claimed = text("issuer").ok_or_else(|| {
        McpError::auth(AuthStage::Issuer, format!("the metadata of {} names no issuer", shown(issuer)))
    })?;
    let on_origin = || Url::parse(&claimed).is_ok_and(|claimed| claimed.origin() == issuer_url.origin());
    if !(same_issuer(&claimed, issuer) || legacy && on_origin()) {
        return Err(McpError::auth(
            AuthStage::Issuer,
            format!("the metadata looked up for {} claims to be {}", shown(issuer), shown(&claimed)),
        ));
    }
    let endpoint = |key: &str| {
        let url = text(key).ok_or_else(|| fail(format!("the authorization server metadata has no {key}")))?;
        endpoints.check(&key.replace('_', " "), &url).map(|_| url)
    };
    // PKCE is required; metadata that does not offer S256 cannot be used.
    let methods = strings(doc.get("code_challenge_methods_supported")).unwrap_or_default();
    if !methods.iter().any(|m| m == "S256") {
        return Err(fail("the authorization server does not offer PKCE with S256"));
    }
    Ok(Some(ServerMetadata {
        issuer: if legacy { claimed } else { issuer.to_string() },
        authorization_endpoint: endpoint("authorization_endpoint")?,
        token_endpoint: endpoint("token_endpoint")?,
        registration_endpoint: text("registration_endpoint").map(|_| endpoint("registration_endpoint")).transpose()?,
        scopes_supported: strings(doc.get("scopes_supported")),
        auth_methods: strings(doc.get("token_endpoint_auth_methods_supported"))
            .unwrap_or_else(|| vec!["client_secret_basic".to_string()]),
        client_id_metadata_documents: doc.get("client_id_metadata_document_supported") == Some(&Value::Bool(true)),
    }))
}

fn legacy_endpoints(issuer: &str) -> ServerMetadata {
    let root = issuer.trim_end_matches('/').to_string();
    ServerMetadata {
        issuer: root.clone(),
        authorization_endpoint: format!("{root}/authorize"),
        token_endpoint: format!("{root}/token"),
        registration_endpoint: Some(format!("{root}/register")),
        auth_methods: vec!["client_secret_basic".to_string(), "client_secret_post".to_string(), "none".to_string()],
        ..ServerMetadata::default()
    }
}

/// The metadata must describe the server being reached: same origin, and
/// the endpoint's path under the resource's (RFC 9728 §3.3).
fn check_resource(server: &Url, resource: &str) -> Result<(), McpError> {
    let mismatch = || {
        McpError::auth(
            AuthStage::ResourceMismatch,
            format!("the metadata is for {}, not for {}", shown(resource), shown(server.as_str())),
        )
    };
    let resource = Url::parse(resource).map_err(|_| mismatch())?;
    if resource.origin() != server.origin() {
        return Err(mismatch());
    }
    let with_slash = |path: &str| if path.ends_with('/') { path.to_string() } else { format!("{path}/") };
    if !with_slash(server.path()).starts_with(&with_slash(resource.path())) {
        return Err(mismatch());
    }
    Ok(())
}

/// The server URL as a resource indicator: no fragment, no query.
fn canonical(url: &Url) -> String {
    let mut url = url.clone();
    url.set_fragment(None);
    url.set_query(None);
    url.as_str().to_string()
}

fn origin(url: &Url) -> Url {
    let mut url = url.clone();
    url.set_path("/");
    url.set_query(None);
    url.set_fragment(None);
    url
}

fn strings(value: Option<&Value>) -> Option<Vec<String>> {
    let items = value?.as_array()?;
    Some(items.iter().filter_map(Value::as_str).map(str::to_string).collect())
}

fn shown(url: &str) -> String {
    crate::mcp::redact::shown_url(url)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resources_must_be_the_server_or_above_it() {
        let server = Url::parse("http://localhost:9/mcp").unwrap();
        assert!(check_resource(&server, "http://localhost:9/mcp").is_ok());
        assert!(check_resource(&server, "http://localhost:9").is_ok());
        assert!(check_resource(&server, "http://localhost:9/mcp/").is_ok());
        for other in ["https://evil.example.com/mcp", "http://localhost:10/mcp", "http://localhost:9/other", "x"] {
            let error = check_resource(&server, other).unwrap_err();
            assert!(matches!(error, McpError::Auth { stage: AuthStage::ResourceMismatch, .. }), "{other}");
        }
    }

    #[test]
    fn auth_02_issuers_match_exactly_but_for_a_trailing_slash() {
        assert!(same_issuer("https://as.example.com", "https://as.example.com/"));
        assert!(same_issuer("https://as.example.com/tenant", "https://as.example.com/tenant"));
        assert!(!same_issuer("https://as.example.com", "https://evil.example.com"));
        assert!(!same_issuer("https://as.example.com/a", "https://as.example.com/b"));
        assert!(!same_issuer("https://as.example.com", "http://as.example.com"));
    }
}
