//! What the application tells the client about authorizing (SPEC MCP-15):
//! which grant, who the client is, where tokens live, and the callback
//! that sends the user to the authorization server.

use super::crypto::SigningKey;
use super::store::{MemoryTokenStore, TokenStore};
use golem_providers::Secret;
use std::fmt;
use std::sync::Arc;

/// The redirect URI used when none is configured.
pub const DEFAULT_REDIRECT_URI: &str = "http://127.0.0.1:33418/callback";

/// What the authorize callback is asked to do: send the user to `url`
/// (open a browser) and hand back where the authorization server
/// redirected to.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct AuthorizationRequest {
    /// The authorization URL, with PKCE challenge, state, scope and
    /// resource.
    pub url: String,
    /// Where the server will redirect the user's browser.
    pub redirect_uri: String,
    /// The `state` the redirect must carry back (checked by the client).
    pub state: String,
}

/// The authorize callback's answer.
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum AuthorizationResponse {
    /// The full URL the browser was redirected to (`…?code=…&state=…`, or
    /// `…?error=…`); the client reads code, state and error from it.
    Redirect(String),
    /// The code and state, already read from the redirect.
    Code {
        /// The authorization code.
        code: Secret,
        /// The state that came with it.
        state: Option<String>,
    },
}

impl fmt::Debug for AuthorizationResponse {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthorizationResponse::Redirect(_) => f.write_str("Redirect([redacted])"),
            AuthorizationResponse::Code { state, .. } => {
                f.debug_struct("Code").field("code", &"[redacted]").field("state", state).finish()
            }
        }
    }
}

/// The application's authorize callback. It runs on a client thread and
/// may block while the user signs in; an `Err` ends the flow
/// ([`AuthStage::Authorize`](crate::mcp::AuthStage::Authorize)).
pub(crate) type Authorize = Arc<dyn Fn(&AuthorizationRequest) -> Result<AuthorizationResponse, String> + Send + Sync>;

/// How the client proves who it is at the token endpoint.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum ClientAuth {
    /// A public client: only `client_id` (`none`).
    None,
    /// `client_secret_basic`: HTTP Basic with the URL-encoded id and secret.
    SecretBasic(Secret),
    /// `client_secret_post`: the secret in the form body.
    SecretPost(Secret),
    /// `private_key_jwt`: a signed assertion (RFC 7523).
    PrivateKeyJwt(SigningKey),
}

/// A client the authorization server already knows (pre-registration):
/// its id and how it authenticates.
#[derive(Clone, Debug)]
pub(crate) struct KnownClient {
    pub(crate) id: String,
    /// `None` lets the client pick from the server's supported methods
    /// (basic, then post) when a secret is given.
    pub(crate) secret: Option<Secret>,
    pub(crate) auth: Option<ClientAuth>,
}

#[derive(Clone)]
pub(crate) enum Grant {
    /// The user authorizes in a browser (the default).
    AuthorizationCode(Authorize),
    /// The client acts for itself (SEP-1046).
    ClientCredentials,
    /// Enterprise-managed authorization (SEP-990): an identity assertion
    /// from the user's IdP, exchanged there for an ID-JAG, which the
    /// authorization server takes as a JWT bearer grant.
    IdJag { idp_token_endpoint: String, idp_client_id: String, id_token: Secret },
}

/// OAuth 2.1 authorization for a streamable HTTP server, per the MCP
/// authorization spec: discovery from the server's 401 challenge,
/// registration, PKCE, tokens kept in a [`TokenStore`], refresh and scope
/// step-up. Hand it to [`HttpConfig::oauth`](crate::mcp::HttpConfig::oauth).
///
/// ```
/// use golem_io::mcp::{AuthorizationResponse, HttpConfig, OAuth};
///
/// let oauth = OAuth::authorization_code(|request| {
///     // Open request.url in a browser; wait for the redirect to
///     // request.redirect_uri (a loopback listener, a custom scheme…).
///     # let redirected = format!("{}?code=abc&state={}", request.redirect_uri, request.state);
///     Ok(AuthorizationResponse::Redirect(redirected))
/// })
/// .client_name("my-agent")
/// .redirect_uri("http://127.0.0.1:8976/callback");
/// let config = HttpConfig::new("https://mcp.example.com/mcp").oauth(oauth);
/// ```
#[derive(Clone)]
pub struct OAuth {
    pub(crate) grant: Grant,
    pub(crate) client: Option<KnownClient>,
    pub(crate) redirect_uri: String,
    pub(crate) client_name: String,
    pub(crate) client_metadata_url: Option<String>,
    pub(crate) scopes: Option<Vec<String>>,
    pub(crate) store: Arc<dyn TokenStore>,
    pub(crate) offline_access: bool,
    /// The authorization server a pre-registered client belongs to.
    pub(crate) issuer: Option<String>,
}

impl OAuth {
    fn with_grant(grant: Grant) -> OAuth {
        OAuth {
            grant,
            client: None,
            redirect_uri: DEFAULT_REDIRECT_URI.to_string(),
            client_name: "golem".to_string(),
            client_metadata_url: None,
            scopes: None,
            store: Arc::new(MemoryTokenStore::new()),
            offline_access: true,
            issuer: None,
        }
    }

    /// Every credential the configuration holds, for redaction.
    pub(crate) fn secrets(&self) -> Vec<&Secret> {
        let mut secrets = Vec::new();
        if let Some(client) = &self.client {
            secrets.extend(&client.secret);
            if let Some(ClientAuth::SecretBasic(secret) | ClientAuth::SecretPost(secret)) = &client.auth {
                secrets.push(secret);
            }
        }
        if let Grant::IdJag { id_token, .. } = &self.grant {
            secrets.push(id_token);
        }
        secrets
    }

    /// The authorization code grant with PKCE: `authorize` sends the user
    /// to the authorization URL and returns the redirect (see
    /// [`AuthorizationRequest`]).
    pub fn authorization_code(
        authorize: impl Fn(&AuthorizationRequest) -> Result<AuthorizationResponse, String> + Send + Sync + 'static,
    ) -> OAuth {
        OAuth::with_grant(Grant::AuthorizationCode(Arc::new(authorize)))
    }

    /// The client credentials grant: no user; the client authenticates
    /// with `auth` as `client_id`. Name the authorization server the
    /// client belongs to with [`issuer`](Self::issuer): its credentials go
    /// nowhere else.
    pub fn client_credentials(client_id: impl Into<String>, auth: ClientAuth) -> OAuth {
        let mut oauth = OAuth::with_grant(Grant::ClientCredentials);
        oauth.client = Some(KnownClient { id: client_id.into(), secret: None, auth: Some(auth) });
        oauth
    }

    /// Enterprise-managed authorization (SEP-990, cross-app access): the
    /// user's identity token `id_token` from their IdP is exchanged at
    /// `idp_token_endpoint` (as `idp_client_id`) for an identity assertion
    /// grant, which the MCP server's authorization server takes from
    /// `client_id` (authenticated with `client_secret`, HTTP Basic). Name
    /// that authorization server with [`issuer`](Self::issuer).
    pub fn id_jag(
        client_id: impl Into<String>,
        client_secret: impl Into<Secret>,
        idp_token_endpoint: impl Into<String>,
        idp_client_id: impl Into<String>,
        id_token: impl Into<Secret>,
    ) -> OAuth {
        let mut oauth = OAuth::with_grant(Grant::IdJag {
            idp_token_endpoint: idp_token_endpoint.into(),
            idp_client_id: idp_client_id.into(),
            id_token: id_token.into(),
        });
        let secret = client_secret.into();
        oauth.client =
            Some(KnownClient { id: client_id.into(), secret: None, auth: Some(ClientAuth::SecretBasic(secret)) });
        oauth
    }

    /// Builder-style: a pre-registered client (no registration): its id
    /// and, for a confidential client, its secret. The token endpoint
    /// method follows the server's metadata (basic, else post). With a
    /// secret, name the authorization server it belongs to with
    /// [`issuer`](Self::issuer).
    pub fn client(mut self, client_id: impl Into<String>, client_secret: Option<Secret>) -> Self {
        self.client = Some(KnownClient { id: client_id.into(), secret: client_secret, auth: None });
        self
    }

    /// Builder-style: the authorization server (its issuer identifier, as
    /// its metadata names it: `https://auth.example.com`) a pre-registered
    /// client belongs to (SPEC AUTH-02). The client's credentials go to
    /// that server only: when the MCP server names another, the flow stops
    /// with [`AuthStage::Issuer`](crate::mcp::AuthStage::Issuer) before
    /// anything is sent. **Required** for a client with credentials — a
    /// secret ([`client`](Self::client) with one, [`client_credentials`],
    /// [`id_jag`]) or a signing key — and checked, when given, for a public
    /// one.
    ///
    /// [`client_credentials`]: Self::client_credentials
    /// [`id_jag`]: Self::id_jag
    pub fn issuer(mut self, issuer: impl Into<String>) -> Self {
        self.issuer = Some(issuer.into());
        self
    }

    /// Builder-style: where the authorization server sends the browser
    /// back ([`DEFAULT_REDIRECT_URI`] by default).
    pub fn redirect_uri(mut self, uri: impl Into<String>) -> Self {
        self.redirect_uri = uri.into();
        self
    }

    /// Builder-style: the `client_name` sent at dynamic registration
    /// (`golem` by default).
    pub fn client_name(mut self, name: impl Into<String>) -> Self {
        self.client_name = name.into();
        self
    }

    /// Builder-style: the URL of this client's metadata document (an https
    /// URL the application publishes). Used as the `client_id` when the
    /// authorization server supports client ID metadata documents, instead
    /// of registering.
    pub fn client_metadata_url(mut self, url: impl Into<String>) -> Self {
        self.client_metadata_url = Some(url.into());
        self
    }

    /// Builder-style: the scopes to ask for, replacing the server's choice
    /// (its challenge's `scope`, else its metadata's `scopes_supported`).
    pub fn scopes<I, S>(mut self, scopes: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.scopes = Some(scopes.into_iter().map(Into::into).collect());
        self
    }

    /// Builder-style: where tokens are kept ([`MemoryTokenStore`] by
    /// default).
    pub fn token_store(mut self, store: Arc<dyn TokenStore>) -> Self {
        self.store = store;
        self
    }

    /// Builder-style: ask for `offline_access` (a refresh token) when the
    /// authorization server lists it (on by default).
    pub fn offline_access(mut self, on: bool) -> Self {
        self.offline_access = on;
        self
    }
}

impl fmt::Debug for OAuth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let grant = match &self.grant {
            Grant::AuthorizationCode(_) => "authorization_code",
            Grant::ClientCredentials => "client_credentials",
            Grant::IdJag { .. } => "id_jag",
        };
        f.debug_struct("OAuth")
            .field("grant", &grant)
            .field("client", &self.client)
            .field("redirect_uri", &self.redirect_uri)
            .field("client_name", &self.client_name)
            .field("client_metadata_url", &self.client_metadata_url)
            .field("scopes", &self.scopes)
            .field("offline_access", &self.offline_access)
            .field("issuer", &self.issuer)
            .finish_non_exhaustive()
    }
}
