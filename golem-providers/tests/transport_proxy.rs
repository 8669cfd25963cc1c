//! Proxies are explicit (issue 11 item 17): both transports go through a
//! configured HTTP proxy — a `CONNECT` tunnel for http and https targets,
//! with Basic credentials — and without one they connect directly, even
//! when `HTTP_PROXY` and friends name a proxy.

use crate::proxy::{self, ConnectProxy, Tunnel};
use crate::server::{test_ca, Reply, Server};
use crate::transports::{Kind, Sender};

use golem_providers::http::HttpRequest;
use golem_providers::transport::{Proxy, TransportConfig, TransportError};
use std::time::Duration;

const KINDS: [Kind; 2] = [Kind::Blocking, Kind::Async];

fn config() -> TransportConfig {
    TransportConfig::new().connect_timeout(Duration::from_secs(5)).read_timeout(Duration::from_secs(10))
}

fn post(sender: &Sender, url: &str) -> Result<(u16, Vec<u8>), TransportError> {
    let (head, body) = sender.send(&HttpRequest::post_json(format!("{url}/v1/echo"), b"{}".to_vec(), false))?;
    Ok((head.status, body.read_to_end()?))
}

fn authority(url: &str) -> String {
    url.split_once("://").map_or(url, |(_, rest)| rest).to_string()
}

#[test]
fn a_configured_proxy_tunnels_plain_http() {
    for kind in KINDS {
        let server = Server::start(vec![Reply::json(200, "{\"via\":\"proxy\"}")]);
        let proxy = ConnectProxy::start();
        let sender = Sender::new(kind, config().proxy(Proxy::new(&proxy.url()).unwrap()));
        let (status, body) = post(&sender, &server.url()).unwrap();
        assert_eq!((status, body.as_slice()), (200, &b"{\"via\":\"proxy\"}"[..]), "{kind:?}");
        assert_eq!(proxy.tunnels(), [Tunnel { target: authority(&server.url()), authorization: None }], "{kind:?}");
        assert_eq!(server.requests()[0].path, "/v1/echo", "{kind:?}: the server saw the request itself");
    }
}

#[test]
fn a_configured_proxy_tunnels_tls_verified_end_to_end() {
    let ca = test_ca();
    for kind in KINDS {
        let server = Server::start_tls(vec![Reply::json(200, "{}")], ca.server.clone());
        let proxy = ConnectProxy::start();
        let trusted = config().add_root_certificate(ca.ca_der.to_vec()).proxy(Proxy::new(&proxy.url()).unwrap());
        let (status, _) = post(&Sender::new(kind, trusted), &server.url()).unwrap();
        assert_eq!(status, 200, "{kind:?}");
        assert_eq!(proxy.tunnels()[0].target, authority(&server.url()));

        // The tunnel does not replace verification: without the CA it fails.
        let untrusted = config().proxy(Proxy::new(&proxy.url()).unwrap());
        let error = post(&Sender::new(kind, untrusted), &server.url()).unwrap_err();
        assert!(matches!(error, TransportError::Tls { .. }), "{kind:?}: {error:?}");
    }
}

#[test]
fn proxy_credentials_are_sent_as_basic_and_never_shown() {
    // base64("alice:s3cr%t") — the URL's user info is percent-decoded.
    let expected = "Basic YWxpY2U6czNjciV0";
    for kind in KINDS {
        let server = Server::start(vec![Reply::json(200, "{}")]);
        let proxy = ConnectProxy::requiring(expected);
        let url = proxy.url().replace("http://", "http://alice:s3cr%25t@");
        let configured = Proxy::new(&url).unwrap();
        let with_proxy = config().proxy(configured.clone());
        assert!(!format!("{configured:?} {with_proxy:?}").contains("s3cr"), "{with_proxy:?}");
        let (status, _) = post(&Sender::new(kind, with_proxy), &server.url()).unwrap();
        assert_eq!(status, 200, "{kind:?}");
        assert_eq!(proxy.tunnels()[0].authorization.as_deref(), Some(expected), "{kind:?}");

        let wrong = Proxy::new(&proxy.url()).unwrap().basic_auth("alice", "guess").unwrap();
        let error = post(&Sender::new(kind, config().proxy(wrong)), &server.url()).unwrap_err();
        let shown = format!("{error} {error:?}");
        assert!(matches!(error, TransportError::Connect { .. }) && shown.contains("407"), "{kind:?}: {shown}");
        assert!(!shown.contains("guess"), "{shown}");
    }
}

/// Marks the child run of [`environment_proxies_are_ignored`].
const CHILD: &str = "GOLEM_PROXY_ENV_CHILD";

/// Without a configured proxy both transports connect directly, whatever
/// the environment says (checked in a child process of this binary).
#[test]
fn environment_proxies_are_ignored() {
    if std::env::var_os(CHILD).is_none() {
        proxy::assert_environment_proxies_unused("transport_proxy::environment_proxies_are_ignored", CHILD);
        return;
    }
    for kind in KINDS {
        let server = Server::start(vec![Reply::json(200, "{}")]);
        let (status, _) = post(&Sender::new(kind, config()), &server.url()).unwrap();
        assert_eq!(status, 200, "{kind:?}");
    }
}
