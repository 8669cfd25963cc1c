//! The authorization flow as the HTTP transport runs it (SPEC MCP-15):
//! the token for each request, and what to do about a 401 (refresh, else
//! the full flow) or a 403 asking for more scope (step up).
//!
//! One flow at a time: requests that hit a 401 together wait for the first
//! one's flow and then use its token (a generation counter tells them a
//! newer token is in).
//!
//! A client with credentials goes only to the authorization server it
//! belongs to (SPEC AUTH-02): a pre-registered one to the issuer the
//! application pinned it to ([`OAuth::issuer`]), a registered one to the
//! issuer that registered it. Every error the flow returns is cleaned of
//! every credential it holds or sent ([`Wire::redact`], SPEC AUTH-03).

use super::challenge::Challenge;
use super::config::{AuthorizationRequest, AuthorizationResponse, ClientAuth, Grant, OAuth};
use super::crypto::{random_token, s256};
use super::discovery::{discover, same_issuer, Discovered, ServerMetadata};
use super::store::Tokens;
use super::wire::{Answer, Wire};
use crate::mcp::error::{AuthStage, McpError};
use crate::mcp::redact::{one_line, shown_url};
use golem_providers::Secret;
use serde_json::{json, Value};
use std::collections::BTreeSet;
use std::fmt;
use std::sync::{Mutex, MutexGuard};
use std::time::{Duration, SystemTime};
use url::Url;

const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
const ID_JAG: &str = "urn:ietf:params:oauth:token-type:id-jag";
const ID_TOKEN: &str = "urn:ietf:params:oauth:token-type:id_token";
const ASSERTION_TYPE: &str = "urn:ietf:params:oauth:client-assertion-type:jwt-bearer";

/// A client the authorization server knows, however it came to.
#[derive(Clone, Debug)]
struct Client {
    id: String,
    auth: ClientAuth,
    /// The authorization server it belongs to.
    issuer: String,
}

#[derive(Default)]
struct State {
    /// Bumped whenever the token changes.
    generation: u64,
    tokens: Option<Tokens>,
    loaded: bool,
    discovered: Option<Discovered>,
    client: Option<Client>,
}

/// The flow for one HTTP client.
pub(crate) struct Authorizer {
    config: OAuth,
    /// The MCP endpoint: the token store's key.
    server: String,
    wire: Wire,
    state: Mutex<State>,
    /// Held while a flow runs.
    flow: Mutex<()>,
}

impl Authorizer {
    pub(crate) fn new(config: OAuth, server: String, agent: ureq::Agent) -> Authorizer {
        let wire = Wire::new(agent);
        for secret in config.secrets() {
            wire.hold(secret.expose());
        }
        Authorizer { config, server, wire, state: Mutex::new(State::default()), flow: Mutex::new(()) }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The access token for the next request, and its generation. An
    /// expired token is refreshed first when it can be.
    pub(crate) fn bearer(&self) -> (Option<Secret>, u64) {
        let expired = {
            let mut state = self.state();
            if !state.loaded {
                state.loaded = true;
                state.tokens = self.config.store.load(&self.server);
                if let Some(tokens) = &state.tokens {
                    self.hold(tokens);
                }
            }
            state.tokens.as_ref().is_some_and(|t| t.expired(SystemTime::now()) && t.refresh_token.is_some())
        };
        if expired {
            let _flow = self.flow.lock().unwrap_or_else(|p| p.into_inner());
            let _ = self.refresh();
        }
        let state = self.state();
        (state.tokens.as_ref().map(|t| t.access_token.clone()), state.generation)
    }

    /// The token in use, as is (no loading, no refresh): for redacting.
    pub(crate) fn current(&self) -> Option<Secret> {
        self.state().tokens.as_ref().map(|t| t.access_token.clone())
    }

    fn hold(&self, tokens: &Tokens) {
        self.wire.hold(tokens.access_token.expose());
        if let Some(refresh) = &tokens.refresh_token {
            self.wire.hold(refresh.expose());
        }
    }

    /// The server refused the token of `generation` (401): unless a newer
    /// token came meanwhile, refresh it, else run the whole flow.
    pub(crate) fn unauthorized(&self, generation: u64, challenge: &Challenge) -> Result<(), McpError> {
        self.unauthorized_raw(generation, challenge).map_err(|e| self.wire.redact(e))
    }

    fn unauthorized_raw(&self, generation: u64, challenge: &Challenge) -> Result<(), McpError> {
        let _flow = self.flow.lock().unwrap_or_else(|p| p.into_inner());
        if self.state().generation != generation {
            return Ok(());
        }
        if self.refresh().unwrap_or(false) {
            return Ok(());
        }
        self.run(challenge, None)
    }

    /// The server wants more scope than the token of `generation` has
    /// (403 `insufficient_scope`). False when a step-up cannot help: the
    /// token already holds every scope the challenge names.
    pub(crate) fn step_up(&self, generation: u64, challenge: &Challenge) -> Result<bool, McpError> {
        self.step_up_raw(generation, challenge).map_err(|e| self.wire.redact(e))
    }

    fn step_up_raw(&self, generation: u64, challenge: &Challenge) -> Result<bool, McpError> {
        let _flow = self.flow.lock().unwrap_or_else(|p| p.into_inner());
        if self.state().generation != generation {
            return Ok(true);
        }
        let granted: BTreeSet<String> = {
            let state = self.state();
            state.tokens.as_ref().map(|t| t.scope.split_whitespace().map(str::to_string).collect()).unwrap_or_default()
        };
        let wanted: BTreeSet<String> =
            challenge.scope.as_deref().unwrap_or_default().split_whitespace().map(str::to_string).collect();
        if wanted.is_subset(&granted) {
            return Ok(false);
        }
        let scope: Vec<String> = granted.union(&wanted).cloned().collect();
        self.run(challenge, Some(scope.join(" "))).map(|()| true)
    }

    /// Refresh with the stored refresh token; `Ok(false)` when there is
    /// none or the server declined (the caller runs the full flow).
    fn refresh(&self) -> Result<bool, McpError> {
        let (refresh, discovered, client) = {
            let state = self.state();
            let refresh = state.tokens.as_ref().and_then(|t| t.refresh_token.clone());
            (refresh, state.discovered.clone(), state.client.clone())
        };
        let (Some(refresh), Some(discovered)) = (refresh, discovered) else { return Ok(false) };
        let client = match client {
            Some(client) => client,
            None => match self.known_client(&discovered) {
                Ok(Some(client)) => client,
                _ => return Ok(false),
            },
        };
        let form = vec![
            ("grant_type", "refresh_token".to_string()),
            ("refresh_token", refresh.expose().to_string()),
            ("resource", discovered.resource.clone()),
        ];
        match self.token_request(&discovered, &client, form) {
            Ok(answer) => {
                let previous = self.state().tokens.as_ref().map(|t| t.scope.clone()).unwrap_or_default();
                let mut tokens = tokens_from(&answer, &previous)?;
                if tokens.refresh_token.is_none() {
                    tokens.refresh_token = Some(refresh); // servers that do not rotate keep the old one valid
                }
                self.keep(tokens);
                Ok(true)
            }
            Err(_) => Ok(false),
        }
    }

    /// The whole flow: discover, identify the client, get a token.
    fn run(&self, challenge: &Challenge, step_up_scope: Option<String>) -> Result<(), McpError> {
        let discovered = discover(&self.wire, &self.server, challenge)?;
        self.state().discovered = Some(discovered.clone());
        let scope = step_up_scope.or_else(|| self.scope(&discovered, challenge));
        let tokens = match &self.config.grant {
            Grant::AuthorizationCode(_) => {
                let client = self.client(&discovered)?;
                self.authorization_code(&discovered, &client, scope.as_deref())?
            }
            Grant::ClientCredentials => {
                let client = self.known_client(&discovered)?.ok_or_else(|| token_error("no client configured"))?;
                let mut form = vec![("grant_type", "client_credentials".to_string())];
                form.push(("resource", discovered.resource.clone()));
                if let Some(scope) = &scope {
                    form.push(("scope", scope.clone()));
                }
                let answer = self.token_request(&discovered, &client, form)?;
                self.state().client = Some(client);
                tokens_from(&answer, scope.as_deref().unwrap_or_default())?
            }
            Grant::IdJag { idp_token_endpoint, idp_client_id, id_token } => {
                let client = self.known_client(&discovered)?.ok_or_else(|| token_error("no client configured"))?;
                let grant = self.id_jag(&discovered, idp_token_endpoint, idp_client_id, id_token)?;
                let mut form = vec![("grant_type", JWT_BEARER.to_string()), ("assertion", grant.expose().to_string())];
                if let Some(scope) = &scope {
                    form.push(("scope", scope.clone()));
                }
                let answer = self.token_request(&discovered, &client, form)?;
                self.state().client = Some(client);
                tokens_from(&answer, scope.as_deref().unwrap_or_default())?
            }
        };
        self.keep(tokens);
        Ok(())
    }

    fn keep(&self, tokens: Tokens) {
        self.hold(&tokens);
        self.config.store.save(&self.server, &tokens);
        let mut state = self.state();
        state.tokens = Some(tokens);
        state.generation += 1;
    }

    /// The scopes to ask for (MCP's scope selection): the application's,
    /// else the challenge's, else the resource's `scopes_supported`, else
    /// none; plus `offline_access` where the server offers it and a
    /// refresh token is wanted.
    fn scope(&self, discovered: &Discovered, challenge: &Challenge) -> Option<String> {
        let mut scopes: Vec<String> = match (&self.config.scopes, &challenge.scope, &discovered.resource_scopes) {
            (Some(own), _, _) => own.clone(),
            (None, Some(scope), _) => scope.split_whitespace().map(str::to_string).collect(),
            (None, None, Some(supported)) => supported.clone(),
            (None, None, None) => Vec::new(),
        };
        let offered =
            discovered.server.scopes_supported.as_ref().is_some_and(|s| s.iter().any(|s| s == "offline_access"));
        let interactive = matches!(self.config.grant, Grant::AuthorizationCode(_));
        if self.config.offline_access && offered && interactive && !scopes.iter().any(|s| s == "offline_access") {
            scopes.push("offline_access".to_string());
        }
        (!scopes.is_empty()).then(|| scopes.join(" "))
    }

    /// The configured client, with its token endpoint method settled —
    /// if it may go to the authorization server found (SPEC AUTH-02): one
    /// with credentials only to the issuer it is pinned to.
    fn known_client(&self, discovered: &Discovered) -> Result<Option<Client>, McpError> {
        let Some(known) = self.config.client.as_ref() else { return Ok(None) };
        let auth = match (&known.auth, &known.secret) {
            (Some(auth), _) => auth.clone(),
            (None, None) => ClientAuth::None,
            (None, Some(secret)) => secret_auth(&discovered.server.auth_methods, secret.clone()),
        };
        let found = &discovered.server.issuer;
        match &self.config.issuer {
            Some(pinned) if !same_issuer(pinned, found) => {
                return Err(McpError::auth(
                    AuthStage::Issuer,
                    format!(
                        "the client is registered with {}, but the server names {}",
                        shown_url(pinned),
                        shown_url(found)
                    ),
                ))
            }
            None if !matches!(auth, ClientAuth::None) => {
                return Err(McpError::auth(
                    AuthStage::Issuer,
                    format!(
                        "the client's credentials go only to the authorization server that issued them; the server \
                         names {}: pin the client to its issuer (OAuth::issuer)",
                        shown_url(found)
                    ),
                ))
            }
            _ => {}
        }
        Ok(Some(Client { id: known.id.clone(), auth, issuer: found.clone() }))
    }

    /// Who the client is for the authorization code grant: configured,
    /// else its metadata document URL (where the server takes one), else
    /// registered (RFC 7591). Registration happens once per server.
    fn client(&self, discovered: &Discovered) -> Result<Client, McpError> {
        if let Some(client) = self.known_client(discovered)? {
            return Ok(client);
        }
        let server = &discovered.server;
        // A registered client belongs to the server that registered it.
        let registered = self.state().client.clone().filter(|c| same_issuer(&c.issuer, &server.issuer));
        if let Some(client) = registered {
            return Ok(client);
        }
        let client = match (&self.config.client_metadata_url, &server.registration_endpoint) {
            (Some(url), _) if server.client_id_metadata_documents => {
                Client { id: url.clone(), auth: ClientAuth::None, issuer: server.issuer.clone() }
            }
            (_, Some(endpoint)) => self.register(endpoint, server)?,
            _ => {
                return Err(McpError::auth(
                    AuthStage::Registration,
                    "the authorization server offers no registration; configure a client id (OAuth::client)",
                ))
            }
        };
        self.state().client = Some(client.clone());
        Ok(client)
    }

    fn register(&self, endpoint: &str, server: &ServerMetadata) -> Result<Client, McpError> {
        let methods = &server.auth_methods;
        let fail = |reason: String| McpError::auth(AuthStage::Registration, reason);
        let method = if methods.iter().any(|m| m == "none") {
            "none"
        } else if methods.iter().any(|m| m == "client_secret_basic") {
            "client_secret_basic"
        } else {
            "client_secret_post"
        };
        let request = json!({
            "client_name": self.config.client_name,
            "redirect_uris": [self.config.redirect_uri],
            "grant_types": ["authorization_code", "refresh_token"],
            "response_types": ["code"],
            "token_endpoint_auth_method": method,
        });
        let answer = self.wire.post_json(endpoint, &request).map_err(fail)?;
        if !answer.ok() {
            return Err(fail(answer.oauth_error()));
        }
        let text = |key: &str| answer.body.get(key).and_then(Value::as_str).map(str::to_string);
        let id = text("client_id").ok_or_else(|| fail("the registration answer has no client_id".into()))?;
        let secret = text("client_secret").map(Secret::new);
        let auth = match (text("token_endpoint_auth_method").as_deref(), secret) {
            (_, None) | (Some("none"), _) => ClientAuth::None,
            (Some("client_secret_post"), Some(secret)) => ClientAuth::SecretPost(secret),
            (Some("client_secret_basic"), Some(secret)) => ClientAuth::SecretBasic(secret),
            (_, Some(secret)) => secret_auth(methods, secret),
        };
        Ok(Client { id, auth, issuer: server.issuer.clone() })
    }

    /// PKCE, the application's authorize callback, and the code exchange.
    fn authorization_code(
        &self,
        discovered: &Discovered,
        client: &Client,
        scope: Option<&str>,
    ) -> Result<Tokens, McpError> {
        let Grant::AuthorizationCode(authorize) = &self.config.grant else {
            return Err(token_error("not an authorization code grant"));
        };
        let fail = |reason: String| McpError::auth(AuthStage::Authorize, reason);
        let verifier = random_token(32).map_err(fail)?;
        let state = random_token(16).map_err(fail)?;
        let mut url = Url::parse(&discovered.server.authorization_endpoint)
            .map_err(|_| fail("the authorization endpoint does not parse".into()))?;
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &client.id)
                .append_pair("redirect_uri", &self.config.redirect_uri)
                .append_pair("code_challenge", &s256(&verifier))
                .append_pair("code_challenge_method", "S256")
                .append_pair("state", &state)
                .append_pair("resource", &discovered.resource);
            if let Some(scope) = scope {
                query.append_pair("scope", scope);
            }
        }
        let request = AuthorizationRequest {
            url: url.to_string(),
            redirect_uri: self.config.redirect_uri.clone(),
            state: state.clone(),
        };
        let (code, returned_state) = match authorize(&request).map_err(fail)? {
            AuthorizationResponse::Code { code, state } => (code, state),
            AuthorizationResponse::Redirect(redirect) => read_redirect(&redirect).map_err(fail)?,
        };
        if returned_state.as_deref() != Some(state.as_str()) {
            return Err(fail("the redirect's state does not match the request's".into()));
        }
        let form = vec![
            ("grant_type", "authorization_code".to_string()),
            ("code", code.expose().to_string()),
            ("redirect_uri", self.config.redirect_uri.clone()),
            ("code_verifier", verifier),
            ("resource", discovered.resource.clone()),
        ];
        let answer = self.token_request(discovered, client, form)?;
        tokens_from(&answer, scope.unwrap_or_default())
    }

    /// The identity assertion grant from the user's IdP (RFC 8693 token
    /// exchange, SEP-990).
    fn id_jag(
        &self,
        discovered: &Discovered,
        idp_token_endpoint: &str,
        idp_client_id: &str,
        id_token: &Secret,
    ) -> Result<Secret, McpError> {
        let form = [
            ("grant_type", TOKEN_EXCHANGE),
            ("requested_token_type", ID_JAG),
            ("audience", discovered.server.issuer.as_str()),
            ("resource", discovered.resource.as_str()),
            ("subject_token", id_token.expose()),
            ("subject_token_type", ID_TOKEN),
            ("client_id", idp_client_id),
        ];
        let answer = self.wire.post_form(idp_token_endpoint, &form, None).map_err(token_error)?;
        if !answer.ok() {
            return Err(token_error(format!("the IdP's token exchange: {}", answer.oauth_error())));
        }
        answer
            .body
            .get("access_token")
            .and_then(Value::as_str)
            .map(Secret::new)
            .ok_or_else(|| token_error("the IdP's token exchange returned no grant"))
    }

    /// POST to the token endpoint with the client's authentication.
    fn token_request(
        &self,
        discovered: &Discovered,
        client: &Client,
        mut form: Vec<(&'static str, String)>,
    ) -> Result<Answer, McpError> {
        let endpoint = &discovered.server.token_endpoint;
        let mut basic = None;
        match &client.auth {
            ClientAuth::None => form.push(("client_id", client.id.clone())),
            ClientAuth::SecretBasic(secret) => basic = Some((client.id.as_str(), secret)),
            ClientAuth::SecretPost(secret) => {
                form.push(("client_id", client.id.clone()));
                form.push(("client_secret", secret.expose().to_string()));
            }
            ClientAuth::PrivateKeyJwt(key) => {
                let assertion = key.assertion(&client.id, &discovered.server.issuer).map_err(token_error)?;
                form.push(("client_id", client.id.clone()));
                form.push(("client_assertion_type", ASSERTION_TYPE.to_string()));
                form.push(("client_assertion", assertion));
            }
        }
        let pairs: Vec<(&str, &str)> = form.iter().map(|(k, v)| (*k, v.as_str())).collect();
        let answer = self.wire.post_form(endpoint, &pairs, basic).map_err(token_error)?;
        if !answer.ok() {
            return Err(token_error(answer.oauth_error()));
        }
        Ok(answer)
    }
}

impl fmt::Debug for Authorizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Authorizer").field("config", &self.config).finish_non_exhaustive()
    }
}

fn token_error(reason: impl Into<String>) -> McpError {
    McpError::auth(AuthStage::Token, reason)
}

/// With a secret, the method the server supports: basic, else post.
fn secret_auth(methods: &[String], secret: Secret) -> ClientAuth {
    if methods.iter().any(|m| m == "client_secret_basic") || !methods.iter().any(|m| m == "client_secret_post") {
        ClientAuth::SecretBasic(secret)
    } else {
        ClientAuth::SecretPost(secret)
    }
}

/// Code and state of a redirect URL, or the error it carries.
fn read_redirect(redirect: &str) -> Result<(Secret, Option<String>), String> {
    let url = Url::parse(redirect).map_err(|_| "the redirect URL does not parse".to_string())?;
    let get = |name: &str| url.query_pairs().find(|(k, _)| k == name).map(|(_, v)| v.into_owned());
    if let Some(error) = get("error") {
        // What the server put there is shown, bounded and on one line.
        let description = get("error_description").map(|d| format!(": {}", one_line(&d, 200))).unwrap_or_default();
        return Err(format!("the authorization server answered {}{description}", one_line(&error, 100)));
    }
    let code = get("code").ok_or_else(|| "the redirect carries no code".to_string())?;
    Ok((Secret::new(code), get("state")))
}

/// Tokens from a token endpoint answer; `asked` stands in for a missing
/// `scope`.
fn tokens_from(answer: &Answer, asked: &str) -> Result<Tokens, McpError> {
    let body = &answer.body;
    let text = |key: &str| body.get(key).and_then(Value::as_str).map(str::to_string);
    let access = text("access_token").ok_or_else(|| token_error("the token answer has no access_token"))?;
    if let Some(kind) = text("token_type") {
        if !kind.eq_ignore_ascii_case("bearer") {
            return Err(token_error(format!("token type {kind:?} is not Bearer")));
        }
    }
    let mut tokens = Tokens::new(access).with_scope(text("scope").unwrap_or_else(|| asked.to_string()));
    if let Some(refresh) = text("refresh_token") {
        tokens = tokens.with_refresh_token(refresh);
    }
    if let Some(seconds) = body.get("expires_in").and_then(Value::as_u64) {
        tokens = tokens.with_expires_at(SystemTime::now() + Duration::from_secs(seconds.min(10 * 365 * 86_400)));
    }
    Ok(tokens)
}
