//! The client the official MCP conformance suite drives (SPEC MCP-17):
//! `npx @modelcontextprotocol/conformance client --command "<this binary>"`
//! starts a test server per scenario, runs this program with the server's
//! URL as its last argument and the scenario's name in
//! `MCP_CONFORMANCE_SCENARIO` (and, for some, credentials as JSON in
//! `MCP_CONFORMANCE_CONTEXT`), then checks what the server saw.
//!
//! Every scenario is golem's MCP client used as an application would:
//! connect, list the tools, call the one the scenario offers, close. The
//! only scenario-specific parts are what an application would configure —
//! an elicitation handler, OAuth credentials and the authorization server
//! they belong to — and the authorize callback, which plays the user's
//! browser by fetching the authorization URL and handing back the
//! redirect. It exits 0 when the scenario's work succeeded, 1 with the
//! error on stderr otherwise.
//!
//! `.ci/run` builds it (`cargo build -p golem-io --features mcp --example
//! mcp_conformance`) and runs every client scenario of the pinned suite.

use golem_io::mcp::{
    AuthorizationRequest, AuthorizationResponse, Challenge, ClientAuth, ClientOptions, ElicitationResponse, HttpConfig,
    McpClient, OAuth, SigningKey,
};
use serde_json::{json, Map, Value};
use std::time::Duration;

/// The client ID metadata document URL the suite's CIMD scenarios expect.
const CLIENT_METADATA_URL: &str = "https://conformance-test.local/client-metadata.json";

fn main() {
    let scenario = std::env::var("MCP_CONFORMANCE_SCENARIO").unwrap_or_default();
    let Some(url) = std::env::args().skip(1).last() else {
        eprintln!("usage: MCP_CONFORMANCE_SCENARIO=<scenario> mcp_conformance <server-url>");
        std::process::exit(2);
    };
    match run(&scenario, &url) {
        Ok(()) => println!("{scenario}: done"),
        Err(error) => {
            eprintln!("{scenario}: {error}");
            std::process::exit(1);
        }
    }
}

fn run(scenario: &str, url: &str) -> Result<(), Box<dyn std::error::Error>> {
    let context: Value = match std::env::var("MCP_CONFORMANCE_CONTEXT") {
        Ok(text) => serde_json::from_str(&text)?,
        Err(_) => Value::Null,
    };
    let text = |key: &str| context.get(key).and_then(Value::as_str).unwrap_or_default().to_string();
    let mut options =
        ClientOptions::new().timeout(Duration::from_secs(20)).on_log(|log| eprintln!("[{}] {}", log.level, log.data));
    let mut config = HttpConfig::new(url);
    match scenario {
        // Accept every elicitation with an empty answer: the client fills
        // in the schema's defaults (SEP-1034).
        "elicitation-sep1034-client-defaults" => {
            options = options.on_elicitation(|_| ElicitationResponse::Accept(Map::new()));
        }
        // A client with credentials is pinned to the authorization server
        // that issued them (SPEC AUTH-02); an operator reads it from the
        // server's protected-resource metadata once, as `issuer_of` does.
        "auth/client-credentials-jwt" => {
            let key = SigningKey::es256_pem(&text("private_key_pem"))?;
            let oauth = OAuth::client_credentials(text("client_id"), ClientAuth::PrivateKeyJwt(key));
            config = config.oauth(oauth.issuer(issuer_of(url)?));
        }
        "auth/client-credentials-basic" => {
            let auth = ClientAuth::SecretBasic(text("client_secret").into());
            config = config.oauth(OAuth::client_credentials(text("client_id"), auth).issuer(issuer_of(url)?));
        }
        "auth/cross-app-access-complete-flow" => {
            let oauth = OAuth::id_jag(
                text("client_id"),
                text("client_secret"),
                text("idp_token_endpoint"),
                text("idp_client_id"),
                text("idp_id_token"),
            );
            config = config.oauth(oauth.issuer(issuer_of(url)?));
        }
        "auth/pre-registration" => {
            let oauth = browser_oauth().client(text("client_id"), Some(text("client_secret").into()));
            config = config.oauth(oauth.issuer(issuer_of(url)?));
        }
        other if other.starts_with("auth/") => config = config.oauth(browser_oauth()),
        _ => {}
    }
    let client = McpClient::http(config, options)?;
    let tools = client.list_tools()?;
    if let Some(tool) = tools.first() {
        let arguments = match tool.name.as_str() {
            "add_numbers" => json!({"a": 5, "b": 3}),
            _ => json!({}),
        };
        let result = client.call_tool(&tool.name, arguments, None)?;
        println!("{}: {result}", tool.name);
    }
    client.close();
    Ok(())
}

/// The authorization code flow as a user with a browser would run it.
fn browser_oauth() -> OAuth {
    OAuth::authorization_code(follow_once)
        .client_name("golem-conformance")
        .redirect_uri("http://localhost:3000/callback")
        .client_metadata_url(CLIENT_METADATA_URL)
}

/// The "browser": the test authorization server approves at once and
/// redirects; the redirect's `Location` is what a real callback listener
/// would receive.
fn follow_once(request: &AuthorizationRequest) -> Result<AuthorizationResponse, String> {
    let agent =
        ureq::Agent::config_builder().max_redirects(0).http_status_as_error(false).proxy(None).build().new_agent();
    let response = agent.get(&request.url).call().map_err(|e| e.to_string())?;
    let location = response
        .headers()
        .get("location")
        .and_then(|v| v.to_str().ok())
        .ok_or_else(|| format!("no redirect from the authorization endpoint (HTTP {})", response.status()))?;
    Ok(AuthorizationResponse::Redirect(location.to_string()))
}

/// The authorization server the MCP server at `url` names: its 401's
/// `resource_metadata`, else the well-known place, then the document's
/// first `authorization_servers` entry.
fn issuer_of(url: &str) -> Result<String, String> {
    let agent =
        ureq::Agent::config_builder().max_redirects(0).http_status_as_error(false).proxy(None).build().new_agent();
    let probe = agent
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .send(r#"{"jsonrpc":"2.0","id":0,"method":"ping"}"#)
        .map_err(|e| e.to_string())?;
    let header = probe.headers().get("www-authenticate").and_then(|v| v.to_str().ok()).unwrap_or_default();
    let metadata = match Challenge::parse(header).resource_metadata {
        Some(metadata) => metadata,
        None => {
            let parsed = url::Url::parse(url).map_err(|e| e.to_string())?;
            let origin = parsed.origin().ascii_serialization();
            format!("{origin}/.well-known/oauth-protected-resource{}", parsed.path().trim_end_matches('/'))
        }
    };
    let mut document = agent.get(&metadata).call().map_err(|e| e.to_string())?;
    let text = document.body_mut().read_to_string().map_err(|e| e.to_string())?;
    let document: Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    document["authorization_servers"][0]
        .as_str()
        .map(str::to_string)
        .ok_or_else(|| format!("{metadata} names no authorization server"))
}
