//! A scripted loopback HTTP/1.1 server for transport and client tests
//! (127.0.0.1:0, std threads, optional TLS through rustls with an rcgen
//! test CA). Each request takes the next scripted [`Reply`]; a reply
//! streams its parts with delays, gates the test releases, or a reset.
#![allow(dead_code)]

use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// One step of a reply body.
pub enum Part {
    /// Bytes to send (one chunk when chunked).
    Data(Vec<u8>),
    /// Wait this long.
    Sleep(Duration),
    /// Wait until the test sends (or drops its sender).
    Gate(mpsc::Receiver<()>),
    /// Drop the connection at once.
    Reset,
}

/// How the body is delimited.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Framing {
    /// `content-length` of the data parts.
    Length,
    /// `content-length` of this many bytes, whatever is sent.
    DeclaredLength(usize),
    /// `transfer-encoding: chunked`, one chunk per data part.
    Chunked,
    /// No length; the connection closes after the body.
    Close,
}

/// A scripted response.
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub framing: Framing,
    pub parts: Vec<Part>,
    /// Steps before the head is sent.
    pub before_head: Vec<Part>,
    /// Close the connection after the reply without announcing it.
    pub close_after: bool,
}

impl Reply {
    pub fn new(status: u16) -> Self {
        Reply {
            status,
            headers: Vec::new(),
            framing: Framing::Length,
            parts: Vec::new(),
            before_head: Vec::new(),
            close_after: false,
        }
    }

    /// A JSON body with `content-length`.
    pub fn json(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Reply::new(status).header("content-type", "application/json").data(body)
    }

    /// An event stream, chunked, one chunk per piece.
    pub fn sse<I: Into<Vec<u8>>>(pieces: impl IntoIterator<Item = I>) -> Self {
        let mut reply = Reply::new(200).header("content-type", "text/event-stream").framing(Framing::Chunked);
        for piece in pieces {
            reply = reply.data(piece);
        }
        reply
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub fn framing(mut self, framing: Framing) -> Self {
        self.framing = framing;
        self
    }

    pub fn data(self, bytes: impl Into<Vec<u8>>) -> Self {
        self.then(Part::Data(bytes.into()))
    }

    pub fn then(mut self, part: Part) -> Self {
        self.parts.push(part);
        self
    }

    pub fn close_after(mut self) -> Self {
        self.close_after = true;
        self
    }

    pub fn before_head(mut self, part: Part) -> Self {
        self.before_head.push(part);
        self
    }
}

/// A request as the server saw it.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).expect("request body is JSON")
    }
}

struct Shared {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Recorded>>,
    accepted: AtomicUsize,
    stop: AtomicBool,
    tls: Option<Arc<rustls::ServerConfig>>,
}

/// The running server; stops accepting when dropped.
pub struct Server {
    addr: SocketAddr,
    shared: Arc<Shared>,
}

impl Server {
    /// A plain HTTP server answering with `replies` in order.
    pub fn start(replies: Vec<Reply>) -> Server {
        Server::launch(replies, None)
    }

    /// An HTTPS server presenting `tls`'s certificate.
    pub fn start_tls(replies: Vec<Reply>, tls: Arc<rustls::ServerConfig>) -> Server {
        Server::launch(replies, Some(tls))
    }

    fn launch(replies: Vec<Reply>, tls: Option<Arc<rustls::ServerConfig>>) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind loopback");
        let addr = listener.local_addr().unwrap();
        let shared = Arc::new(Shared {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
            accepted: AtomicUsize::new(0),
            stop: AtomicBool::new(false),
            tls,
        });
        let accept_shared = Arc::clone(&shared);
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                if accept_shared.stop.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(stream) = stream else { continue };
                accept_shared.accepted.fetch_add(1, Ordering::SeqCst);
                let conn_shared = Arc::clone(&accept_shared);
                std::thread::spawn(move || serve(stream, conn_shared));
            }
        });
        Server { addr, shared }
    }

    /// `http://127.0.0.1:port` (or `https://…`).
    pub fn url(&self) -> String {
        let scheme = if self.shared.tls.is_some() { "https" } else { "http" };
        format!("{scheme}://{}", self.addr)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> usize {
        self.shared.accepted.load(Ordering::SeqCst)
    }

    /// Requests received so far.
    pub fn requests(&self) -> Vec<Recorded> {
        self.shared.requests.lock().unwrap().clone()
    }

    /// Script more replies.
    pub fn push(&self, reply: Reply) {
        self.shared.replies.lock().unwrap().push_back(reply);
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.shared.stop.store(true, Ordering::SeqCst);
        let _ = TcpStream::connect(self.addr);
    }
}

trait Stream: Read + Write + Send {}
impl<T: Read + Write + Send> Stream for T {}

fn serve(tcp: TcpStream, shared: Arc<Shared>) {
    let _ = tcp.set_nodelay(true);
    let mut stream: Box<dyn Stream> = match &shared.tls {
        None => Box::new(tcp),
        Some(config) => match rustls::ServerConnection::new(Arc::clone(config)) {
            Ok(conn) => Box::new(rustls::StreamOwned::new(conn, tcp)),
            Err(_) => return,
        },
    };
    loop {
        let Some(request) = read_request(&mut *stream) else { return };
        shared.requests.lock().unwrap().push(request);
        let reply = shared.replies.lock().unwrap().pop_front();
        let reply = reply.unwrap_or_else(|| Reply::json(500, r#"{"error":{"message":"no scripted reply"}}"#));
        match write_reply(&mut *stream, reply) {
            Outcome::KeepAlive => continue,
            Outcome::Close => return,
        }
    }
}

enum Outcome {
    KeepAlive,
    Close,
}

fn read_request(stream: &mut dyn Stream) -> Option<Recorded> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1024];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut byte).ok()?;
        if n == 0 || buf.len() > 1 << 20 {
            return None;
        }
        buf.extend_from_slice(&byte[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut first = lines.next()?.split(' ');
    let (method, path) = (first.next()?.to_string(), first.next()?.to_string());
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize =
        headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut byte).ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&byte[..n]);
    }
    Some(Recorded { method, path, headers, body })
}

fn wait(part: Part) {
    match part {
        Part::Sleep(d) => std::thread::sleep(d),
        Part::Gate(rx) => {
            let _ = rx.recv();
        }
        _ => {}
    }
}

fn write_reply(stream: &mut dyn Stream, reply: Reply) -> Outcome {
    let close_after = reply.close_after;
    match write_parts(stream, reply) {
        Outcome::KeepAlive if !close_after => Outcome::KeepAlive,
        _ => Outcome::Close,
    }
}

fn write_parts(stream: &mut dyn Stream, reply: Reply) -> Outcome {
    for part in reply.before_head {
        if let Part::Reset = part {
            return Outcome::Close;
        }
        wait(part);
    }
    let data_len: usize = reply.parts.iter().map(|p| if let Part::Data(d) = p { d.len() } else { 0 }).sum();
    let mut head = format!("HTTP/1.1 {} Scripted\r\n", reply.status);
    for (name, value) in &reply.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    match reply.framing {
        Framing::Length => head.push_str(&format!("content-length: {data_len}\r\n")),
        Framing::DeclaredLength(n) => head.push_str(&format!("content-length: {n}\r\n")),
        Framing::Chunked => head.push_str("transfer-encoding: chunked\r\n"),
        Framing::Close => head.push_str("connection: close\r\n"),
    }
    head.push_str("\r\n");
    if stream.write_all(head.as_bytes()).and_then(|()| stream.flush()).is_err() {
        return Outcome::Close;
    }
    for part in reply.parts {
        let sent = match part {
            Part::Data(data) if reply.framing == Framing::Chunked => {
                if data.is_empty() {
                    continue;
                }
                let mut chunk = format!("{:x}\r\n", data.len()).into_bytes();
                chunk.extend_from_slice(&data);
                chunk.extend_from_slice(b"\r\n");
                stream.write_all(&chunk).and_then(|()| stream.flush())
            }
            Part::Data(data) => stream.write_all(&data).and_then(|()| stream.flush()),
            Part::Reset => return Outcome::Close,
            other => {
                wait(other);
                Ok(())
            }
        };
        if sent.is_err() {
            return Outcome::Close;
        }
    }
    match reply.framing {
        Framing::Chunked => {
            if stream.write_all(b"0\r\n\r\n").and_then(|()| stream.flush()).is_err() {
                return Outcome::Close;
            }
            Outcome::KeepAlive
        }
        Framing::Length => Outcome::KeepAlive,
        Framing::DeclaredLength(_) | Framing::Close => Outcome::Close,
    }
}

/// A test CA and a server certificate it signed for 127.0.0.1 and
/// localhost.
pub struct TestCa {
    pub ca_der: CertificateDer<'static>,
    pub server: Arc<rustls::ServerConfig>,
}

pub fn test_ca() -> TestCa {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair};
    let ca_key = KeyPair::generate().unwrap();
    let mut ca_params = CertificateParams::new(Vec::<String>::new()).unwrap();
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params.distinguished_name.push(DnType::CommonName, "golem test CA");
    let ca_cert = ca_params.self_signed(&ca_key).unwrap();
    let issuer = Issuer::new(ca_params, ca_key);
    let leaf_key = KeyPair::generate().unwrap();
    let mut leaf_params = CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()]).unwrap();
    leaf_params.distinguished_name.push(DnType::CommonName, "golem test server");
    let leaf = leaf_params.signed_by(&leaf_key, &issuer).unwrap();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(leaf_key.serialize_der()));
    let provider = golem_providers::transport::tls_provider();
    let server = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone(), ca_cert.der().clone()], key)
        .unwrap();
    TestCa { ca_der: ca_cert.der().clone(), server: Arc::new(server) }
}

/// An SSE event line for `data`.
pub fn sse_event(data: &str) -> Vec<u8> {
    format!("data: {data}\n\n").into_bytes()
}

/// A Chat Completions text chunk event.
pub fn text_chunk(text: &str) -> Vec<u8> {
    let chunk = serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]});
    sse_event(&chunk.to_string())
}

/// The closing events of a Chat Completions stream: finish reason, usage, `[DONE]`.
pub fn stream_end() -> Vec<u8> {
    let finish = serde_json::json!({"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]});
    let usage =
        serde_json::json!({"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}});
    [sse_event(&finish.to_string()), sse_event(&usage.to_string()), sse_event("[DONE]")].concat()
}

/// A whole Chat Completions text response body.
pub fn text_body(text: &str) -> String {
    serde_json::json!({
        "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 5, "completion_tokens": 2, "total_tokens": 7}
    })
    .to_string()
}
