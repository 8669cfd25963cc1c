//! Authorization for streamable HTTP servers (SPEC MCP-15), per the MCP
//! authorization spec (2025-11-25, with 2025-03-26 servers still served).
//!
//! When a server answers 401, the client reads the `Bearer` challenge,
//! finds the protected-resource metadata and the authorization server's
//! metadata, identifies itself (a configured client, a
//! client ID metadata document, or dynamic registration), runs the grant
//! — the authorization code with PKCE S256 and the application's
//! [authorize callback](OAuth::authorization_code), client credentials, or
//! an enterprise identity assertion — keeps the tokens in a
//! [`TokenStore`], and sends the request again. A 403 with
//! `insufficient_scope` steps up to the scopes it names; an expired token
//! is refreshed. Tokens are [`Secret`](golem_providers::Secret)s: no
//! `Debug`, error or log shows one.
//!
//! The flow is written on the client's own blocking HTTP agent; its
//! cryptography (SHA-256, randomness, ES256) is ring's.

mod challenge;
mod config;
mod crypto;
mod discovery;
mod endpoint;
mod flow;
mod store;
mod wire;

pub use challenge::Challenge;
pub use config::{AuthorizationRequest, AuthorizationResponse, ClientAuth, OAuth, DEFAULT_REDIRECT_URI};
pub use crypto::SigningKey;
pub use store::{MemoryTokenStore, TokenStore, Tokens};

pub(crate) use flow::Authorizer;
