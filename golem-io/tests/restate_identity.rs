//! Request identity (SPEC DUR-05): a service given Restate's public key
//! refuses every request the server did not sign — a plain HTTP/2 request,
//! a forged signature, a Restate server without the private key — and
//! serves the server that has it. The key pair is made for the test.

use crate::restate_support::service::{serve_if_child, Service};
use crate::restate_support::{free_port, server_binary, Server};
use golem_io::restate::{DurableAgents, Ingress, IngressError, RunRequest};
use golem_io::{Agent, Response};
use serde_json::json;
use std::hash::{BuildHasher, Hasher};
use std::path::Path;
use std::time::Duration;

fn agents(_dir: &Path) -> DurableAgents {
    let model = golem_core::testing::FnModel::new(|_| Ok(Response::text("signed and served")));
    DurableAgents::new().agent("echo", Agent::<()>::builder(model).build().unwrap(), ())
}

/// Not a test: the service the tests start, as a child process.
#[test]
fn service_child() {
    serve_if_child(agents);
}

/// An ed25519 key pair as Restate takes it: the private key as a PKCS#8
/// PEM file for the server, the public key as `publickeyv1_<base58>` for
/// the service.
struct KeyPair {
    public: String,
    pem: String,
}

fn key_pair() -> KeyPair {
    // Randomness without another crate: std's hasher keys are random.
    let mut seed = [0u8; 32];
    for chunk in seed.chunks_mut(8) {
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u64(0x5eed);
        chunk.copy_from_slice(&hasher.finish().to_le_bytes());
    }
    let public = ed25519_dalek::SigningKey::from_bytes(&seed).verifying_key().to_bytes();
    // PKCS#8 v1 (RFC 8410): the fixed prefix of an Ed25519 private key,
    // then its 32-byte seed.
    let mut der = vec![0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20];
    der.extend_from_slice(&seed);
    let pem = format!("-----BEGIN PRIVATE KEY-----\n{}\n-----END PRIVATE KEY-----\n", base64(&der));
    KeyPair { public: format!("publickeyv1_{}", base58(&public)), pem }
}

fn base64(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk.iter().enumerate().fold(0u32, |n, (i, b)| n | u32::from(*b) << (16 - 8 * i));
        for i in 0..4 {
            let c = if i <= chunk.len() { ALPHABET[(n >> (18 - 6 * i) & 63) as usize] as char } else { '=' };
            out.push(c);
        }
    }
    out
}

fn base58(bytes: &[u8]) -> String {
    const ALPHABET: &[u8] = b"123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz";
    // Base-58 digits, least significant first.
    let mut digits: Vec<u8> = Vec::new();
    for byte in bytes {
        let mut carry = u32::from(*byte);
        for digit in digits.iter_mut() {
            carry += u32::from(*digit) << 8;
            *digit = (carry % 58) as u8;
            carry /= 58;
        }
        while carry > 0 {
            digits.push((carry % 58) as u8);
            carry /= 58;
        }
    }
    let zeros = bytes.iter().take_while(|b| **b == 0).count();
    let ones = std::iter::repeat_n('1', zeros);
    ones.chain(digits.iter().rev().map(|d| ALPHABET[*d as usize] as char)).collect()
}

/// The status a plain HTTP/2 POST of `path` gets from the service on
/// `port` (the SDK serves HTTP/2 without TLS only).
fn status_of(port: u16, path: &str, headers: &[(&str, &str)]) -> u16 {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let tcp = tokio::net::TcpStream::connect(("127.0.0.1", port)).await.unwrap();
        let (client, connection) = h2::client::handshake(tcp).await.unwrap();
        tokio::spawn(async move {
            let _ = connection.await;
        });
        let mut client = client.ready().await.unwrap();
        let mut request = http::Request::post(format!("http://127.0.0.1:{port}{path}"));
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let (response, _) = client.send_request(request.body(()).unwrap(), true).unwrap();
        response.await.unwrap().status().as_u16()
    })
}

#[test]
fn helpers_encode_as_their_standards_say() {
    assert_eq!(base64(b"Ma"), "TWE=");
    assert_eq!(base64(b"Man"), "TWFu");
    assert_eq!(base64(b"M"), "TQ==");
    assert_eq!(base58(b"Hello World!"), "2NEpo7TZRRrLZSi2U");
    assert_eq!(base58(&[0, 0, 1]), "112");
    // A key the SDK reads.
    assert!(DurableAgents::new().identity_key(&key_pair().public).is_ok());
}

#[test]
fn dur05_an_unsigned_request_to_a_keyed_service_is_refused() {
    let Some(binary) = server_binary("restate_identity (DUR-05)") else { return };
    let scratch = tempfile::tempdir().unwrap();
    let keys = key_pair();
    let pem = scratch.path().join("request-identity.pem");
    std::fs::write(&pem, &keys.pem).unwrap();
    let counts = scratch.path().join("counts");
    std::fs::create_dir(&counts).unwrap();
    let service = Service::start("restate_identity::service_child", free_port(), &counts, Some(&keys.public));

    // Straight to the service's port: refused, whatever is asked.
    assert_eq!(status_of(service.port, "/discover", &[]), 401);
    assert_eq!(status_of(service.port, "/invoke/GolemAgent/run", &[("content-type", "application/json")]), 401);
    assert_eq!(status_of(service.port, "/health", &[]), 401);
    let forged = [("x-restate-signature-scheme", "v1"), ("x-restate-jwt-v1", "e30.e30.c2lnbmVk")];
    assert_eq!(status_of(service.port, "/invoke/GolemAgent/run", &forged), 401);
    let unsigned = [("x-restate-signature-scheme", "unsigned")];
    assert_eq!(status_of(service.port, "/discover", &unsigned), 401);

    // A Restate server without the private key cannot even register it.
    let stranger = Server::start(&binary, &scratch.path().join("stranger-data"));
    let refused = stranger.try_register(service.port, Duration::from_secs(3)).unwrap_err();
    assert!(matches!(refused, IngressError::Status { .. }), "{refused}");
    assert!(refused.to_string().contains("401"), "{refused}");
    drop(stranger);

    // The server with the private key registers it and runs through it.
    let env =
        vec![("RESTATE_WORKER__INVOKER__REQUEST_IDENTITY_PRIVATE_KEY_PEM_FILE".to_string(), pem.display().to_string())];
    let server = Server::start_with(&binary, &scratch.path().join("restate-data"), env);
    server.register(service.port);
    let ingress = Ingress::new(server.ingress_url());
    ingress.start("signed-1", &RunRequest::new("echo", "hello")).unwrap();
    let outcome = ingress.outcome("signed-1").unwrap();
    assert_eq!(outcome.output(), Some(&json!("signed and served")), "{:?}", outcome.error);
}
