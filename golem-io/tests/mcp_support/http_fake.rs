//! An in-process HTTP/1.1 server on 127.0.0.1:0 whose answers a test
//! scripts, recording every request it gets.

use serde_json::Value;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::{Arc, Mutex};
use std::time::Duration;

#[derive(Clone, Debug)]
pub struct FakeRequest {
    pub method: String,
    /// The request target: path and query.
    pub path: String,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl FakeRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(k, _)| k.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap_or(Value::Null)
    }

    /// The path without its query.
    pub fn route(&self) -> &str {
        self.path.split('?').next().unwrap_or_default()
    }

    /// The form fields of a URL-encoded body.
    pub fn form(&self) -> Vec<(String, String)> {
        url::form_urlencoded::parse(&self.body).into_owned().collect()
    }

    pub fn field(&self, name: &str) -> Option<String> {
        self.form().into_iter().find(|(k, _)| k == name).map(|(_, v)| v)
    }

    /// The JSON-RPC method, or the HTTP method for bodiless requests.
    pub fn rpc_method(&self) -> String {
        match self.json().get("method").and_then(Value::as_str) {
            Some(m) => m.to_string(),
            None if self.body.is_empty() => self.method.clone(),
            None => "reply".to_string(),
        }
    }
}

pub struct FakeResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// Written in pieces, each after its delay (chunked encoding).
    pub chunks: Vec<(Duration, Vec<u8>)>,
}

impl FakeResponse {
    pub fn status(status: u16) -> Self {
        FakeResponse { status, headers: Vec::new(), chunks: Vec::new() }
    }

    pub fn accepted() -> Self {
        FakeResponse::status(202)
    }

    pub fn json(value: &Value) -> Self {
        FakeResponse::status(200).header("Content-Type", "application/json").chunk(Duration::ZERO, value.to_string())
    }

    /// `event: message` frames, one per value.
    pub fn sse(values: &[Value]) -> Self {
        let mut response = FakeResponse::status(200).header("Content-Type", "text/event-stream");
        for value in values {
            response = response.chunk(Duration::ZERO, format!("event: message\ndata: {value}\n\n"));
        }
        response
    }

    pub fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.to_string(), value.to_string()));
        self
    }

    pub fn chunk(mut self, delay: Duration, bytes: impl Into<Vec<u8>>) -> Self {
        self.chunks.push((delay, bytes.into()));
        self
    }
}

type Handler = dyn Fn(&FakeRequest) -> FakeResponse + Send + Sync;

pub struct FakeHttp {
    pub url: String,
    requests: Arc<Mutex<Vec<FakeRequest>>>,
}

impl FakeHttp {
    pub fn start(handler: impl Fn(&FakeRequest) -> FakeResponse + Send + Sync + 'static) -> FakeHttp {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind a loopback port");
        let url = format!("http://{}/mcp", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let handler: Arc<Handler> = Arc::new(handler);
        let seen = Arc::clone(&requests);
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                let (handler, seen) = (Arc::clone(&handler), Arc::clone(&seen));
                std::thread::spawn(move || serve(stream, &*handler, &seen));
            }
        });
        FakeHttp { url, requests }
    }

    /// `http://127.0.0.1:PORT`, without the `/mcp` path.
    pub fn base(&self) -> String {
        self.url.trim_end_matches("/mcp").to_string()
    }

    pub fn requests(&self) -> Vec<FakeRequest> {
        self.requests.lock().unwrap().clone()
    }
}

fn serve(stream: TcpStream, handler: &Handler, seen: &Mutex<Vec<FakeRequest>>) {
    let _ = stream.set_read_timeout(Some(Duration::from_secs(30)));
    let mut writer = stream.try_clone().expect("clone the stream");
    let mut reader = BufReader::new(stream);
    while let Some(request) = read_request(&mut reader) {
        seen.lock().unwrap().push(request.clone());
        let response = handler(&request);
        if write_response(&mut writer, &response).is_err() {
            return;
        }
    }
}

fn read_request(reader: &mut BufReader<TcpStream>) -> Option<FakeRequest> {
    let mut line = String::new();
    if reader.read_line(&mut line).ok()? == 0 {
        return None;
    }
    let mut words = line.split_whitespace();
    let method = words.next()?.to_string();
    let path = words.next().unwrap_or("/").to_string();
    let mut headers = Vec::new();
    loop {
        let mut line = String::new();
        reader.read_line(&mut line).ok()?;
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        let (name, value) = line.split_once(':')?;
        headers.push((name.trim().to_string(), value.trim().to_string()));
    }
    let length = headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("content-length"))
        .and_then(|(_, v)| v.parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    Some(FakeRequest { method, path, headers, body })
}

fn write_response(writer: &mut TcpStream, response: &FakeResponse) -> std::io::Result<()> {
    let mut head = format!("HTTP/1.1 {} X\r\n", response.status);
    for (name, value) in &response.headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    if response.chunks.is_empty() {
        head.push_str("Content-Length: 0\r\n\r\n");
        return writer.write_all(head.as_bytes());
    }
    head.push_str("Transfer-Encoding: chunked\r\n\r\n");
    writer.write_all(head.as_bytes())?;
    for (delay, bytes) in &response.chunks {
        std::thread::sleep(*delay);
        writer.write_all(format!("{:x}\r\n", bytes.len()).as_bytes())?;
        writer.write_all(bytes)?;
        writer.write_all(b"\r\n")?;
        writer.flush()?;
    }
    writer.write_all(b"0\r\n\r\n")?;
    writer.flush()
}
