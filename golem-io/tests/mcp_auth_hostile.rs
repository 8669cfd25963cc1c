//! The authorization flow against hostile servers on 127.0.0.1 (SPEC
//! AUTH-01..03, issue 33 items 6–9): an MCP server and authorization
//! servers that name dangerous endpoints, pose as another issuer, echo every
//! credential back, and send the client where it should not go.
#![cfg(feature = "mcp")]

use crate::mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use base64::Engine as _;
use golem_core::testing::ScriptedModel;
use golem_io::mcp::{
    AuthStage, AuthorizationRequest, AuthorizationResponse, ClientAuth, ClientOptions, HttpConfig, McpBridge,
    McpClient, McpError, OAuth, SigningKey,
};
use golem_io::{Agent, Response, ToolCall};
use serde_json::{json, Value};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

const REDIRECT: &str = "http://127.0.0.1:1/callback";

fn json_response(status: u16, value: &Value) -> FakeResponse {
    FakeResponse::status(status).header("Content-Type", "application/json").chunk(Duration::ZERO, value.to_string())
}

fn base(request: &FakeRequest) -> String {
    format!("http://{}", request.header("Host").unwrap_or_default())
}

/// Authorization server metadata claiming `issuer`, with its endpoints at
/// `endpoints` (the server's own base unless a test lies).
fn metadata(issuer: &str, endpoints: &str) -> Value {
    json!({
        "issuer": issuer, "authorization_endpoint": format!("{endpoints}/authorize"),
        "token_endpoint": format!("{endpoints}/token"), "registration_endpoint": format!("{endpoints}/register"),
        "response_types_supported": ["code"], "code_challenge_methods_supported": ["S256"],
        "token_endpoint_auth_methods_supported": ["client_secret_post", "client_secret_basic", "private_key_jwt"],
    })
}

/// A protected MCP server whose resource metadata names `issuer` (read
/// when asked, so a test can point it at a server started later). With
/// `open_handshake`, only `tools/call` wants a token: a bridge can list the
/// tools and the flow runs inside a tool call.
fn mcp_server(issuer: Arc<Mutex<String>>, open_handshake: bool) -> FakeHttp {
    mcp_server_taking(issuer, open_handshake, Arc::new(Mutex::new(vec!["at-1".to_string()])))
}

/// [`mcp_server`] taking the access tokens in `valid`.
fn mcp_server_taking(issuer: Arc<Mutex<String>>, open_handshake: bool, valid: Arc<Mutex<Vec<String>>>) -> FakeHttp {
    FakeHttp::start(move |request| {
        let prm = format!("{}/.well-known/oauth-protected-resource/mcp", base(request));
        match (request.method.as_str(), request.route()) {
            ("GET", "/.well-known/oauth-protected-resource/mcp") => json_response(
                200,
                &json!({"resource": format!("{}/mcp", base(request)),
                        "authorization_servers": [issuer.lock().unwrap().clone()]}),
            ),
            ("POST", "/mcp") => {
                let body = request.json();
                let method = body["method"].as_str().unwrap_or_default().to_string();
                let token = request.header("Authorization").and_then(|h| h.strip_prefix("Bearer ")).unwrap_or_default();
                let authorized = valid.lock().unwrap().iter().any(|t| t == token);
                let open = open_handshake && method != "tools/call";
                if !(authorized || open) {
                    return FakeResponse::status(401)
                        .header("WWW-Authenticate", &format!(r#"Bearer resource_metadata="{prm}""#));
                }
                let result = match method.as_str() {
                    "initialize" => json!({"protocolVersion": "2025-11-25", "capabilities": {"tools": {}},
                        "serverInfo": {"name": "protected", "version": "1"}}),
                    "tools/list" => json!({"tools": [{"name": "t"}]}),
                    "tools/call" => json!({"content": [{"type": "text", "text": "done"}]}),
                    _ => return FakeResponse::accepted(),
                };
                json_response(200, &json!({"jsonrpc": "2.0", "id": body["id"], "result": result}))
            }
            ("GET", "/mcp") => FakeResponse::status(405),
            _ => FakeResponse::status(404),
        }
    })
}

/// An authorization server answering metadata with `describe(base)` and
/// tokens with `token(request)`.
fn auth_server(
    describe: impl Fn(&str) -> Value + Send + Sync + 'static,
    token: impl Fn(&FakeRequest) -> FakeResponse + Send + Sync + 'static,
) -> FakeHttp {
    FakeHttp::start(move |request| match (request.method.as_str(), request.route()) {
        ("GET", "/.well-known/oauth-authorization-server") => json_response(200, &describe(&base(request))),
        ("POST", "/token") => token(request),
        ("POST", "/register") => json_response(
            201,
            &json!({"client_id": "registered", "token_endpoint_auth_method": "none", "redirect_uris": [REDIRECT]}),
        ),
        _ => FakeResponse::status(404),
    })
}

fn issues_tokens(_: &FakeRequest) -> FakeResponse {
    json_response(200, &json!({"access_token": "at-1", "token_type": "Bearer", "expires_in": 3600}))
}

fn connect(mcp: &FakeHttp, oauth: OAuth) -> Result<McpClient, McpError> {
    McpClient::http(
        HttpConfig::new(&mcp.url).oauth(oauth).listen(false),
        ClientOptions::new().timeout(Duration::from_secs(10)),
    )
}

/// The application's browser callback, counting how often it is opened.
fn browser(opened: &Arc<AtomicUsize>) -> OAuth {
    let opened = Arc::clone(opened);
    OAuth::authorization_code(move |request: &AuthorizationRequest| {
        opened.fetch_add(1, Ordering::SeqCst);
        Ok(AuthorizationResponse::Redirect(format!("{REDIRECT}?code=code-1&state={}", request.state)))
    })
    .redirect_uri(REDIRECT)
}

fn stage(error: &McpError) -> Option<AuthStage> {
    match error {
        McpError::Auth { stage, .. } => Some(*stage),
        _ => None,
    }
}

// Item 6: endpoints of any scheme went straight to the browser callback.
#[test]
fn auth_01_authorization_endpoints_that_are_not_https_never_reach_the_browser() {
    for endpoint in [
        "file:///etc/passwd",
        "javascript:alert(document.cookie)",
        "data:text/html,<script>alert(1)</script>",
        "myapp://authorize",
        "http://as.example.com/authorize",
    ] {
        let issuer = Arc::new(Mutex::new(String::new()));
        let auth = auth_server(
            move |base| {
                let mut doc = metadata(base, base);
                doc["authorization_endpoint"] = json!(endpoint);
                doc
            },
            issues_tokens,
        );
        *issuer.lock().unwrap() = auth.base();
        let mcp = mcp_server(issuer, false);
        let opened = Arc::new(AtomicUsize::new(0));
        let error = connect(&mcp, browser(&opened)).unwrap_err();
        assert_eq!(stage(&error), Some(AuthStage::Discovery), "{endpoint}: {error}");
        assert!(error.to_string().contains("refused authorization endpoint"), "{error}");
        assert_eq!(opened.load(Ordering::SeqCst), 0, "{endpoint} never reached the callback");
        assert!(auth.requests().iter().all(|r| r.method == "GET"), "nothing was posted anywhere");
    }
}

#[test]
fn auth_01_token_and_registration_endpoints_and_issuers_are_held_to_https_too() {
    let auth = auth_server(
        |base| {
            let mut doc = metadata(base, base);
            doc["token_endpoint"] = json!("http://as.example.com/token");
            doc
        },
        issues_tokens,
    );
    let mcp = mcp_server(Arc::new(Mutex::new(auth.base())), false);
    let secret = OAuth::client_credentials("c", ClientAuth::SecretPost("cs-SECRET-1".into())).issuer(auth.base());
    let error = connect(&mcp, secret).unwrap_err();
    assert!(error.to_string().contains("refused token endpoint"), "{error}");

    for named in ["http://as.example.com", "ftp://127.0.0.1/"] {
        let mcp = mcp_server(Arc::new(Mutex::new(named.to_string())), false);
        let error = connect(&mcp, browser(&Arc::new(AtomicUsize::new(0)))).unwrap_err();
        assert!(error.to_string().contains("refused authorization server"), "{named}: {error}");
    }
}

// Item 9: a 401 challenge could make the client fetch any URL.
#[test]
fn auth_01_a_challenge_cannot_send_the_client_to_another_local_service() {
    let probed = FakeHttp::start(|_| json_response(200, &json!({"authorization_servers": ["http://127.0.0.1:1"]})));
    let target = format!("{}/admin/metadata", probed.base());
    let mcp = FakeHttp::start(move |_| {
        FakeResponse::status(401).header("WWW-Authenticate", &format!(r#"Bearer resource_metadata="{target}""#))
    });
    let error = connect(&mcp, browser(&Arc::new(AtomicUsize::new(0)))).unwrap_err();
    assert_eq!(stage(&error), Some(AuthStage::Discovery), "{error}");
    assert!(error.to_string().contains("neither on the MCP server's origin nor https"), "{error}");
    assert!(probed.requests().is_empty(), "the other service was never contacted");
}

// Item 7: a host the resource metadata names posed as the real server.
#[test]
fn auth_02_an_authorization_server_claiming_another_issuer_is_refused() {
    let real = auth_server(|base| metadata(base, base), issues_tokens);
    let real_issuer = real.base();
    let impostor = auth_server(move |base| metadata(&real_issuer, base), issues_tokens);
    let mcp = mcp_server(Arc::new(Mutex::new(impostor.base())), false);
    let pem = signing_pem();
    let key = SigningKey::es256_pem(&pem).unwrap();
    let oauth = OAuth::client_credentials("c", ClientAuth::PrivateKeyJwt(key)).issuer(real.base());
    let error = connect(&mcp, oauth).unwrap_err();
    assert_eq!(stage(&error), Some(AuthStage::Issuer), "{error}");
    assert!(error.to_string().contains("claims to be"), "{error}");
    assert!(impostor.requests().iter().all(|r| r.method == "GET"), "no assertion was posted to the impostor");
    assert!(real.requests().is_empty());
}

#[test]
fn auth_02_a_2025_03_26_servers_metadata_may_only_claim_an_issuer_on_its_own_origin() {
    // No resource metadata: the server's origin is the authorization
    // server, and its metadata sits at the root.
    let claim = Arc::new(Mutex::new(String::new()));
    let claimed = Arc::clone(&claim);
    let mcp = FakeHttp::start(move |request| match (request.method.as_str(), request.route()) {
        ("GET", "/.well-known/oauth-authorization-server") => {
            let issuer = claimed.lock().unwrap().replace("{base}", &base(request));
            json_response(200, &metadata(&issuer, &base(request)))
        }
        ("POST", "/token") => issues_tokens(request),
        ("POST", "/mcp") if request.header("Authorization").is_none() => FakeResponse::status(401),
        ("POST", "/mcp") => {
            let body = request.json();
            let result = json!({"protocolVersion": "2025-03-26", "capabilities": {}, "serverInfo": {"name": "old", "version": "1"}});
            json_response(200, &json!({"jsonrpc": "2.0", "id": body["id"], "result": result}))
        }
        _ => FakeResponse::status(404),
    });
    let credentials =
        |issuer: String| OAuth::client_credentials("c", ClientAuth::SecretPost("cs-SECRET-3".into())).issuer(issuer);
    *claim.lock().unwrap() = "https://as.example.com".to_string();
    let error = connect(&mcp, credentials("https://as.example.com".into())).unwrap_err();
    assert_eq!(stage(&error), Some(AuthStage::Issuer), "another origin: {error}");
    assert!(mcp.requests().iter().all(|r| r.route() != "/token"));
    // A path on its own origin is how such servers name themselves.
    *claim.lock().unwrap() = "{base}/oauth".to_string();
    let client = connect(&mcp, credentials(format!("{}/oauth", mcp.base()))).unwrap();
    assert_eq!(client.server_info().unwrap().name, "old");
}

// Item 9: a pre-registered secret went to whichever server was named.
#[test]
fn auth_02_a_pre_registered_client_goes_only_to_its_own_issuer() {
    let own = auth_server(|base| metadata(base, base), issues_tokens);
    let other = auth_server(|base| metadata(base, base), issues_tokens);
    let named = Arc::new(Mutex::new(other.base()));
    let mcp = mcp_server(Arc::clone(&named), false);
    let credentials = || OAuth::client_credentials("c", ClientAuth::SecretBasic("cs-SECRET-2".into()));

    let error = connect(&mcp, credentials().issuer(own.base())).unwrap_err();
    assert_eq!(stage(&error), Some(AuthStage::Issuer), "{error}");
    let error = connect(&mcp, credentials()).unwrap_err();
    assert_eq!(stage(&error), Some(AuthStage::Issuer), "unpinned credentials go nowhere: {error}");
    assert!(error.to_string().contains("OAuth::issuer"), "{error}");
    let opened = Arc::new(AtomicUsize::new(0));
    let pre_registered = browser(&opened).client("c", Some("cs-SECRET-2".into())).issuer(own.base());
    assert_eq!(stage(&connect(&mcp, pre_registered).unwrap_err()), Some(AuthStage::Issuer));
    assert_eq!(opened.load(Ordering::SeqCst), 0);
    assert!(other.requests().iter().all(|r| r.method == "GET"), "nothing was posted to the other server");

    // Named honestly, the same client goes through.
    *named.lock().unwrap() = own.base();
    let client = connect(&mcp, credentials().issuer(format!("{}/", own.base()))).unwrap();
    assert_eq!(client.call_tool("t", json!({}), None).unwrap()["content"][0]["text"], "done");
    let posted = own.requests().into_iter().find(|r| r.method == "POST").unwrap();
    let basic = base64::engine::general_purpose::STANDARD.encode("c:cs-SECRET-2");
    assert_eq!(posted.header("Authorization"), Some(format!("Basic {basic}").as_str()));
}

/// Every credential a flow could send, in every form a server could echo.
fn forms(secrets: &[&str]) -> Vec<String> {
    let mut forms = Vec::new();
    for secret in secrets {
        let encoded: String = url::form_urlencoded::byte_serialize(secret.as_bytes()).collect();
        forms.extend([secret.to_string(), encoded]);
    }
    forms
}

/// A token endpoint (or IdP) that answers 400 with everything it got.
fn echo(request: &FakeRequest) -> FakeResponse {
    let got = format!(
        "{} | {} | {:?}",
        String::from_utf8_lossy(&request.body),
        request.header("Authorization").unwrap_or_default(),
        request.form()
    );
    json_response(400, &json!({"error": format!("invalid_client: {got}"), "error_description": got, "echo": got}))
}

fn assert_clean(what: &str, shown: &[String], secrets: &[String]) {
    for text in shown {
        for secret in secrets {
            assert!(!text.contains(secret.as_str()), "{what}: {secret:?} leaked into {text}");
        }
    }
    // An error's own text is bounded; a whole run's Debug (with its
    // evidence and recorded cause chain) is long by nature.
    assert!(shown[0].chars().count() < 2000, "{what}: unbounded: {} chars", shown[0].chars().count());
}

fn signing_pem() -> String {
    let rng = ring::rand::SystemRandom::new();
    let pkcs8 =
        ring::signature::EcdsaKeyPair::generate_pkcs8(&ring::signature::ECDSA_P256_SHA256_FIXED_SIGNING, &rng).unwrap();
    let body = base64::engine::general_purpose::STANDARD.encode(pkcs8.as_ref());
    format!("-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----\n")
}

// Item 8: a token endpoint that echoes the request leaked the secret.
#[test]
fn auth_03_an_echoing_token_endpoint_gets_no_credential_into_any_error() {
    const SECRET: &str = "cs-SECRET/+=&3";
    let echoing = auth_server(|base| metadata(base, base), echo);
    let idp = FakeHttp::start(echo);
    let mcp = mcp_server(Arc::new(Mutex::new(echoing.base())), false);
    let issuer = echoing.base();
    let basic = base64::engine::general_purpose::STANDARD.encode(format!("c:{}", forms(&[SECRET])[1]));
    let opened = Arc::new(AtomicUsize::new(0));
    let key = SigningKey::es256_pem(&signing_pem()).unwrap();
    let flows: Vec<(&str, OAuth)> = vec![
        ("secret_post", OAuth::client_credentials("c", ClientAuth::SecretPost(SECRET.into()))),
        ("secret_basic", OAuth::client_credentials("c", ClientAuth::SecretBasic(SECRET.into()))),
        ("private_key_jwt", OAuth::client_credentials("c", ClientAuth::PrivateKeyJwt(key))),
        ("authorization_code", browser(&opened).client("c", Some(SECRET.into()))),
        ("id_jag", OAuth::id_jag("c", SECRET, format!("{}/token", idp.base()), "idp-c", "idt-SECRET-4")),
    ];
    for (name, oauth) in flows {
        let oauth = oauth.issuer(issuer.clone());
        let shown_config = format!("{oauth:?}");
        let error = connect(&mcp, oauth).unwrap_err();
        let mut sent: Vec<String> = forms(&[SECRET, "idt-SECRET-4", "code-1"]);
        sent.push(basic.clone());
        // What was actually posted: every form value that is a credential.
        for request in echoing.requests().iter().chain(idp.requests().iter()).filter(|r| r.method == "POST") {
            for (key, value) in request.form() {
                if ["code_verifier", "client_assertion", "subject_token", "assertion", "client_secret"]
                    .contains(&key.as_str())
                {
                    sent.extend(forms(&[&value]));
                }
            }
        }
        assert!(error.to_string().contains("invalid_client"), "{name}: the server's error is still told: {error}");
        assert_clean(name, &[error.to_string(), format!("{error:?}"), shown_config], &sent);
    }
}

#[test]
fn auth_03_a_server_echoing_every_credential_it_ever_saw_and_issued_leaks_none_and_is_bounded() {
    // It issues tokens once, then refuses everything, echoing all it has
    // seen and issued so far, at length.
    let history = Arc::new(Mutex::new(Vec::<String>::new()));
    let seen = Arc::clone(&history);
    let echoing = auth_server(
        |base| metadata(base, base),
        move |request| {
            let mut seen = seen.lock().unwrap();
            seen.push(format!(
                "{} {}",
                String::from_utf8_lossy(&request.body),
                request.header("Authorization").unwrap_or_default()
            ));
            if seen.len() == 1 {
                seen.push("at-1 rt-SECRET-5".to_string());
                return json_response(
                    200,
                    &json!({"access_token": "at-1", "refresh_token": "rt-SECRET-5", "token_type": "Bearer", "expires_in": 3600}),
                );
            }
            let all = format!("{} {}", seen.join(" | "), "x".repeat(100_000));
            json_response(400, &json!({"error": "invalid_grant", "error_description": all}))
        },
    );
    let valid = Arc::new(Mutex::new(vec!["at-1".to_string()]));
    let mcp = mcp_server_taking(Arc::new(Mutex::new(echoing.base())), false, Arc::clone(&valid));
    let opened = Arc::new(AtomicUsize::new(0));
    let oauth = browser(&opened).client("c", Some("cs-SECRET-6".into())).issuer(echoing.base());
    let client = connect(&mcp, oauth).unwrap();
    // The server revokes the token: the client refreshes (refused, with the
    // echo), then runs the flow again (refused, echoing the refresh token).
    valid.lock().unwrap().clear();
    let error = client.call_tool("t", json!({}), None).unwrap_err();
    assert_eq!(stage(&error), Some(AuthStage::Token), "{error}");
    let kinds: Vec<String> = echoing.requests().iter().filter_map(|r| r.field("grant_type")).collect();
    assert_eq!(kinds, ["authorization_code", "refresh_token", "authorization_code"]);
    let shown = [error.to_string(), format!("{error:?}"), format!("{client:?}")];
    assert_clean("echo of all", &shown, &forms(&["rt-SECRET-5", "at-1", "cs-SECRET-6", "code-1"]));
    assert!(shown[0].contains("invalid_grant"), "{}", shown[0]);
}

// Item 8, the last step: from the flow into the run error of a bridged call.
#[test]
fn auth_03_a_bridged_tool_calls_run_error_holds_no_credential() {
    const SECRET: &str = "cs-SECRET-7";
    let echoing = auth_server(|base| metadata(base, base), echo);
    let mcp = mcp_server(Arc::new(Mutex::new(echoing.base())), true);
    let oauth = OAuth::client_credentials("c", ClientAuth::SecretPost(SECRET.into())).issuer(echoing.base());
    let client = Arc::new(connect(&mcp, oauth).unwrap());
    let bridge = McpBridge::new(Arc::clone(&client)).unwrap();
    let model = ScriptedModel::new().respond(Response::tool_calls(vec![ToolCall::new("call-1", "t", "{}")]));
    let agent = Agent::<()>::builder(model).tools(bridge.tools()).build().unwrap();
    let error = agent.run((), "go").unwrap_err();
    let shown = [error.to_string(), format!("{error:?}"), format!("{client:?}")];
    assert!(shown[1].contains("invalid_client"), "the cause is kept: {}", shown[1]);
    assert_clean("bridged run", &shown, &forms(&[SECRET]));
}

#[test]
fn auth_03_an_authorization_error_description_is_bounded() {
    let auth = auth_server(|base| metadata(base, base), issues_tokens);
    let mcp = mcp_server(Arc::new(Mutex::new(auth.base())), false);
    let denied = OAuth::authorization_code(|request: &AuthorizationRequest| {
        let description: String = url::form_urlencoded::byte_serialize("no\r\n".repeat(20_000).as_bytes()).collect();
        Ok(AuthorizationResponse::Redirect(format!(
            "{}?error=access_denied&error_description={description}&state={}",
            request.redirect_uri, request.state
        )))
    })
    .redirect_uri(REDIRECT);
    let error = connect(&mcp, denied).unwrap_err();
    let shown = error.to_string();
    assert!(shown.contains("access_denied: no  no"), "{shown}");
    assert!(shown.chars().count() < 600 && !shown.contains('\n'), "{} chars", shown.chars().count());
}
