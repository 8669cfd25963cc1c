//! The whole authorization flow (SPEC MCP-15) against a loopback
//! authorization server and a protected MCP server, both in-process fakes
//! on 127.0.0.1: discovery from the 401 challenge, registration, PKCE S256
//! checked by the server, the application's authorize callback, tokens in
//! the store, refresh, scope step-up, and the refusals (state, resource).
//! The conformance suite's 22 auth scenarios cross-check the same code
//! (`.ci/mcp-conformance`).
#![cfg(feature = "mcp")]

use crate::mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use base64::Engine as _;
use golem_io::mcp::{
    AuthStage, AuthorizationRequest, AuthorizationResponse, ClientOptions, HttpConfig, McpClient, McpError,
    MemoryTokenStore, OAuth, TokenStore,
};
use serde_json::{json, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

const REDIRECT: &str = "http://127.0.0.1:1/callback";

/// What both servers know and what they saw.
#[derive(Default)]
struct World {
    /// The code challenge of the pending authorization.
    challenge: String,
    /// Valid access tokens and their scopes.
    tokens: HashMap<String, String>,
    refresh_tokens: HashMap<String, String>,
    issued: usize,
    /// The scope of each authorization request, in order.
    authorizations: Vec<Option<String>>,
    token_forms: Vec<Vec<(String, String)>>,
    registrations: usize,
    /// The `resource` the PRM names (the MCP URL unless a test lies).
    resource_override: Option<String>,
}

struct Servers {
    world: Arc<Mutex<World>>,
    mcp: FakeHttp,
    auth: FakeHttp,
}

fn s256(verifier: &str) -> String {
    let digest = ring::digest::digest(&ring::digest::SHA256, verifier.as_bytes());
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(digest)
}

fn json_response(status: u16, value: &Value) -> FakeResponse {
    FakeResponse::status(status).header("Content-Type", "application/json").chunk(Duration::ZERO, value.to_string())
}

fn start() -> Servers {
    let world = Arc::new(Mutex::new(World::default()));
    let w = Arc::clone(&world);
    let auth = FakeHttp::start(move |request: &FakeRequest| {
        let mut world = w.lock().unwrap();
        let base = format!("http://{}", request.header("Host").unwrap_or_default());
        match (request.method.as_str(), request.route()) {
            ("GET", "/.well-known/oauth-authorization-server") => json_response(
                200,
                &json!({
                "issuer": base, "authorization_endpoint": format!("{base}/authorize"),
                "token_endpoint": format!("{base}/token"), "registration_endpoint": format!("{base}/register"),
                "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
                "grant_types_supported": ["authorization_code", "refresh_token"],
                "token_endpoint_auth_methods_supported": ["client_secret_post"],
                "scopes_supported": ["files:read", "files:write", "offline_access"]}),
            ),
            ("POST", "/register") => {
                world.registrations += 1;
                let body = request.json();
                assert_eq!(body["redirect_uris"], json!([REDIRECT]));
                json_response(
                    201,
                    &json!({"client_id": "client-1", "client_secret": "cs-SECRET",
                    "token_endpoint_auth_method": "client_secret_post", "redirect_uris": [REDIRECT]}),
                )
            }
            ("POST", "/token") => {
                world.token_forms.push(request.form());
                if request.field("client_secret").as_deref() != Some("cs-SECRET") {
                    return json_response(401, &json!({"error": "invalid_client"}));
                }
                let scope = match request.field("grant_type").as_deref() {
                    Some("authorization_code") => {
                        let verifier = request.field("code_verifier").unwrap_or_default();
                        if request.field("code").as_deref() != Some("code-1") || s256(&verifier) != world.challenge {
                            return json_response(400, &json!({"error": "invalid_grant"}));
                        }
                        world.authorizations.last().cloned().flatten().unwrap_or_default()
                    }
                    Some("refresh_token") => {
                        let token = request.field("refresh_token").unwrap_or_default();
                        match world.refresh_tokens.get(&token) {
                            Some(scope) => scope.clone(),
                            None => return json_response(400, &json!({"error": "invalid_grant"})),
                        }
                    }
                    _ => return json_response(400, &json!({"error": "unsupported_grant_type"})),
                };
                world.issued += 1;
                let (access, refresh) = (format!("at-{}", world.issued), format!("rt-{}", world.issued));
                world.tokens.insert(access.clone(), scope.clone());
                world.refresh_tokens.insert(refresh.clone(), scope.clone());
                json_response(
                    200,
                    &json!({"access_token": access, "token_type": "bearer", "expires_in": 3600,
                    "refresh_token": refresh, "scope": scope}),
                )
            }
            _ => FakeResponse::status(404),
        }
    });
    let w = Arc::clone(&world);
    let auth_base = auth.base();
    let mcp = FakeHttp::start(move |request: &FakeRequest| {
        let world = w.lock().unwrap();
        let base = format!("http://{}", request.header("Host").unwrap_or_default());
        let metadata = format!("{base}/.well-known/oauth-protected-resource/mcp");
        match (request.method.as_str(), request.route()) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => json_response(
                200,
                &json!({
                "resource": world.resource_override.clone().unwrap_or(format!("{base}/mcp")),
                "authorization_servers": [auth_base], "scopes_supported": ["files:read"]}),
            ),
            ("POST", "/mcp") => {
                let token = request.header("Authorization").and_then(|h| h.strip_prefix("Bearer ")).unwrap_or_default();
                let Some(scope) = world.tokens.get(token) else {
                    return FakeResponse::status(401).header(
                        "WWW-Authenticate",
                        &format!(r#"Bearer error="invalid_token", resource_metadata="{metadata}""#),
                    );
                };
                let body = request.json();
                let id = body["id"].clone();
                let result = match body["method"].as_str().unwrap_or_default() {
                    "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "protected", "version": "1"}}),
                    "tools/list" => json!({"tools": [{"name": "read"}, {"name": "write"}]}),
                    "tools/call" if body["params"]["name"] == "write" && !scope.contains("files:write") => {
                        return FakeResponse::status(403).header(
                            "WWW-Authenticate",
                            &format!(r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="{metadata}""#),
                        )
                    }
                    "tools/call" => json!({"content": [{"type": "text", "text": format!("done with {token}")}]}),
                    _ => return FakeResponse::accepted(),
                };
                json_response(200, &json!({"jsonrpc": "2.0", "id": id, "result": result}))
            }
            ("GET", "/mcp") => FakeResponse::status(405),
            _ => FakeResponse::status(404),
        }
    });
    Servers { world, mcp, auth }
}

/// The user's browser: approve at once, redirect back with the code.
fn approve(world: &Arc<Mutex<World>>) -> impl Fn(&AuthorizationRequest) -> Result<AuthorizationResponse, String> {
    let world = Arc::clone(world);
    move |request| {
        let url = url::Url::parse(&request.url).unwrap();
        let query: HashMap<String, String> = url.query_pairs().into_owned().collect();
        assert_eq!(query["response_type"], "code");
        assert_eq!(query["code_challenge_method"], "S256");
        assert_eq!(query["redirect_uri"], REDIRECT);
        assert_eq!(query["state"], request.state);
        assert!(query["resource"].ends_with("/mcp"));
        let mut world = world.lock().unwrap();
        world.challenge = query["code_challenge"].clone();
        world.authorizations.push(query.get("scope").cloned());
        Ok(AuthorizationResponse::Redirect(format!("{REDIRECT}?code=code-1&state={}", request.state)))
    }
}

fn connect(servers: &Servers, oauth: OAuth) -> Result<McpClient, McpError> {
    let config = HttpConfig::new(&servers.mcp.url).oauth(oauth);
    McpClient::http(config, ClientOptions::new().timeout(Duration::from_secs(10)))
}

fn oauth(servers: &Servers) -> OAuth {
    OAuth::authorization_code(approve(&servers.world)).redirect_uri(REDIRECT).client_name("golem-test")
}

#[test]
fn a_401_runs_the_whole_flow_and_the_request_goes_through() {
    let servers = start();
    let store = Arc::new(MemoryTokenStore::new());
    let client = connect(&servers, oauth(&servers).token_store(store.clone())).unwrap();
    assert_eq!(client.server_info().unwrap().name, "protected");
    let result = client.call_tool("read", json!({}), None).unwrap();
    assert_eq!(result["content"][0]["text"], "done with at-1");

    let world = servers.world.lock().unwrap();
    assert_eq!(world.registrations, 1);
    assert_eq!(
        world.authorizations,
        [Some("files:read offline_access".to_string())],
        "scopes_supported + offline_access"
    );
    let form: HashMap<String, String> = world.token_forms[0].iter().cloned().collect();
    assert_eq!(form["grant_type"], "authorization_code");
    assert_eq!(form["resource"], servers.mcp.url);
    assert_eq!(form["client_id"], "client-1");
    let tokens = store.load(&servers.mcp.url).expect("tokens kept under the server's URL");
    assert_eq!(tokens.access_token.expose(), "at-1");
    assert_eq!(tokens.refresh_token.as_ref().map(|t| t.expose()), Some("rt-1"));
    assert!(tokens.expires_at.is_some());
    // After the flow every request carries the token.
    let mcp = servers.mcp.requests();
    let after: Vec<&FakeRequest> = mcp.iter().filter(|r| r.method == "POST").skip(1).collect();
    assert!(after.iter().all(|r| r.header("Authorization") == Some("Bearer at-1")), "{after:?}");
    let shown = format!("{client:?} {tokens:?} {:?}", HttpConfig::new("x").oauth(oauth(&servers)));
    assert!(!shown.contains("at-1") && !shown.contains("rt-1") && !shown.contains("cs-SECRET"), "{shown}");
}

#[test]
fn a_stored_token_is_used_and_a_refused_one_is_refreshed() {
    let servers = start();
    let store: Arc<MemoryTokenStore> = Arc::new(MemoryTokenStore::new());
    let client = connect(&servers, oauth(&servers).token_store(store.clone())).unwrap();
    client.call_tool("read", json!({}), None).unwrap();
    // The server forgets the access token (expired, revoked).
    servers.world.lock().unwrap().tokens.remove("at-1");
    let result = client.call_tool("read", json!({}), None).unwrap();
    assert_eq!(result["content"][0]["text"], "done with at-2");
    let world = servers.world.lock().unwrap();
    assert_eq!(world.authorizations.len(), 1, "refreshed, not authorized again");
    let refresh: HashMap<String, String> = world.token_forms[1].iter().cloned().collect();
    assert_eq!((refresh["grant_type"].as_str(), refresh["refresh_token"].as_str()), ("refresh_token", "rt-1"));
    assert_eq!(refresh["resource"], servers.mcp.url);
    drop(world);
    assert_eq!(store.load(&servers.mcp.url).unwrap().access_token.expose(), "at-2");

    // A second client finds the token in the store and never asks the user.
    let again = connect(&servers, oauth(&servers).token_store(store.clone())).unwrap();
    again.call_tool("read", json!({}), None).unwrap();
    assert_eq!(servers.world.lock().unwrap().authorizations.len(), 1);
}

#[test]
fn a_403_for_more_scope_steps_up_once_with_the_union() {
    let servers = start();
    let client = connect(&servers, oauth(&servers)).unwrap();
    let result = client.call_tool("write", json!({}), None).unwrap();
    assert_eq!(result["content"][0]["text"], "done with at-2");
    let world = servers.world.lock().unwrap();
    assert_eq!(world.authorizations.len(), 2);
    let scopes: Vec<&str> = world.authorizations[1].as_deref().unwrap().split(' ').collect();
    for wanted in ["files:read", "files:write", "offline_access"] {
        assert!(scopes.contains(&wanted), "{scopes:?}");
    }
}

#[test]
fn a_redirect_with_another_state_is_refused() {
    let servers = start();
    let forged = OAuth::authorization_code(|request: &AuthorizationRequest| {
        Ok(AuthorizationResponse::Redirect(format!("{}?code=code-1&state=forged", request.redirect_uri)))
    })
    .redirect_uri(REDIRECT);
    let error = connect(&servers, forged).unwrap_err();
    assert!(matches!(error, McpError::Auth { stage: AuthStage::Authorize, .. }), "{error:?}");
    assert!(servers.world.lock().unwrap().token_forms.is_empty(), "no code was exchanged");

    let denied = OAuth::authorization_code(|request: &AuthorizationRequest| {
        Ok(AuthorizationResponse::Redirect(format!(
            "{}?error=access_denied&state={}",
            request.redirect_uri, request.state
        )))
    })
    .redirect_uri(REDIRECT);
    let error = connect(&servers, denied).unwrap_err();
    assert!(error.to_string().contains("access_denied"), "{error}");
}

#[test]
fn metadata_for_another_resource_stops_the_flow_before_the_user_is_asked() {
    let servers = start();
    servers.world.lock().unwrap().resource_override = Some("https://evil.example.com/mcp".to_string());
    let error = connect(&servers, oauth(&servers)).unwrap_err();
    assert!(matches!(error, McpError::Auth { stage: AuthStage::ResourceMismatch, .. }), "{error:?}");
    let world = servers.world.lock().unwrap();
    assert!(world.authorizations.is_empty() && world.registrations == 0);
    assert!(servers.auth.requests().is_empty(), "the authorization server was never contacted");
}

#[test]
fn credentials_never_show_in_debug() {
    use golem_io::mcp::{ClientAuth, Tokens};
    let shown = format!(
        "{:?} {:?} {:?} {:?}",
        OAuth::id_jag("client", "cs-SECRET", "https://idp/token", "idp-client", "idt-SECRET"),
        ClientAuth::SecretPost("cs-SECRET".into()),
        Tokens::new("at-SECRET").with_refresh_token("rt-SECRET"),
        AuthorizationResponse::Code { code: "code-SECRET".into(), state: Some("s".into()) },
    );
    assert!(!shown.contains("SECRET"), "{shown}");
}
