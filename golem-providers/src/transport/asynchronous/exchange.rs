//! One HTTP/1.1 exchange up to the response head, driven through
//! ureq-proto's sans-IO client: it writes the request head, we write the
//! bytes; we read bytes, it parses the response head.

use super::super::config::TransportConfig;
use super::super::error::{TimeoutPhase, TransportError};
use super::super::{classify_io, now_unix};
use super::conn::Conn;
use super::input::Input;
use super::timeout::{with_timeout, Deadline};
use crate::http::{HttpRequest, HttpResponseHead, Method};
use futures_lite::AsyncWriteExt;
use ureq_proto::client::state::{RecvBody, RecvResponse};
use ureq_proto::client::{Call, RecvResponseResult, SendRequestResult};
use ureq_proto::http;

/// Response heads larger than this are refused: real ones are a few KiB,
/// and the buffer must not grow without bound on a hostile server.
const MAX_HEAD: usize = 64 * 1024;

/// What follows the head.
pub(crate) enum AfterHead {
    /// A body to read.
    Body(Box<Call<RecvBody>>),
    /// No body; the connection may be reused if `reusable`.
    Done { reusable: bool },
}

/// A failed exchange. `silent` is true when the connection failed while
/// the request was still being written — the mark of a pooled connection
/// the server had already closed, so the request never reached it and is
/// safe to send again on a fresh one. Once the request is written, a
/// connection that closes without an answer is an error like any other:
/// the server may have acted on it, and only the run machine retries model
/// calls (SPEC RETRY-01, issue 17), as the blocking transport does.
pub(crate) struct Failed {
    pub(crate) error: TransportError,
    pub(crate) silent: bool,
}

impl From<TransportError> for Failed {
    fn from(error: TransportError) -> Self {
        Failed { error, silent: false }
    }
}

/// A request ready to go: its bytes (the head, and the body too when it is
/// small enough to share the head's write) and the protocol call that
/// then waits for the response. Made before connecting, so a request that
/// cannot be sent is refused before any connection, and made again for a
/// resend.
pub(crate) struct Prepared {
    /// Boxed: the call is 376 bytes, and it sits in every request's
    /// future from before the connection to the head.
    call: Box<Call<RecvResponse>>,
    out: Vec<u8>,
    /// The body goes in a write of its own after `out`.
    body_apart: bool,
}

impl Prepared {
    /// `request` with the URL already parsed (`uri`).
    pub(crate) fn new(request: &HttpRequest, uri: http::Uri, config: &TransportConfig) -> Result<Self, TransportError> {
        let (call, out, body_apart) = request_bytes(http_request(request, uri, config)?, request)?;
        Ok(Prepared { call: Box::new(call), out, body_apart })
    }

    /// The head as the caller gets it and what follows it, once
    /// [`exchange`] returned `response`.
    pub(crate) fn finish(self, response: http::Response<()>) -> Result<(HttpResponseHead, AfterHead), TransportError> {
        head_of(response, *self.call)
    }
}

/// Send the `prepared` request (whose body is `request`'s) over `conn` and
/// read the response head. Bytes read past the head are left in `input`
/// for the body.
///
/// The protocol's states are stepped through without waiting (the request
/// is laid out whole before it is written, the response head parsed as
/// bytes come) and the call lives with the caller, so the future holds one
/// wait at a time: it is moved whole into every request's box (issue 37:
/// 3.8 KB before).
pub(crate) async fn exchange(
    conn: &mut Conn,
    prepared: &mut Prepared,
    request: &HttpRequest,
    config: &TransportConfig,
    host: &str,
    input: &mut Input,
    deadline: Option<Deadline>,
) -> Result<http::Response<()>, Failed> {
    let body = prepared.body_apart.then_some(&request.body[..]);
    send(conn, &prepared.out, body, config, host, deadline).await?;
    receive_head(conn, &mut prepared.call, config, host, input, deadline).await
}

/// The request's method, `uri` (its URL, parsed once by the caller) and
/// headers, with the ones the transport adds, or why it cannot be sent.
/// Assembled in place rather than through `http`'s builder, which moved
/// the whole request through a closure per header and checked each name
/// and value twice (issue 37).
fn http_request(
    request: &HttpRequest,
    uri: http::Uri,
    config: &TransportConfig,
) -> Result<http::Request<()>, TransportError> {
    let mut head = http::Request::new(());
    *head.method_mut() = match request.method {
        Method::Get => http::Method::GET,
        Method::Post => http::Method::POST,
        Method::Delete => http::Method::DELETE,
    };
    *head.uri_mut() = uri;
    let headers = head.headers_mut();
    for (name, value) in &request.headers {
        let (Ok(name), Ok(value)) =
            (http::HeaderName::from_bytes(name.as_bytes()), http::HeaderValue::from_str(value.expose()))
        else {
            return Err(TransportError::invalid(format!("header {name:?} cannot be sent")));
        };
        headers.append(name, value);
    }
    if request.header("user-agent").is_none() {
        let agent = http::HeaderValue::from_str(&config.user_agent)
            .map_err(|_| TransportError::invalid("the configured user agent cannot be sent"))?;
        headers.insert(http::header::USER_AGENT, agent);
    }
    if request.header("accept-encoding").is_none() {
        headers.insert(http::header::ACCEPT_ENCODING, http::HeaderValue::from_static("gzip"));
    }
    if request.header("content-length").is_none() && (!request.body.is_empty() || request.method == Method::Post) {
        headers.insert(http::header::CONTENT_LENGTH, http::HeaderValue::from(request.body.len()));
    }
    Ok(head)
}

/// Bodies up to this size go out in the same write as the end of the
/// head: one system call, one TCP segment (or TLS record) and one wake-up
/// of the server per request instead of two. Copying a body this small
/// costs less than the write it saves.
const COALESCE_BODY: usize = 16 * 1024;

/// The request as bytes — its head, followed by its body when `coalesce`
/// allows — and the call waiting for the response; `true` when the body is
/// to be written on its own after them.
fn request_bytes(
    head: http::Request<()>,
    request: &HttpRequest,
) -> Result<(Call<RecvResponse>, Vec<u8>, bool), TransportError> {
    // The head's size: the URL and every header it will carry, the ones
    // the transport adds included (a configured user agent of any length).
    let head_size =
        request.url.len() + head.headers().iter().map(|(n, v)| n.as_str().len() + v.len() + 4).sum::<usize>();
    let mut call = Call::new(head).map_err(TransportError::protocol)?.proceed();
    let body = &request.body;
    let coalesce = body.len() <= COALESCE_BODY;
    let mut out = head_bytes(&mut call, head_size, request.body.len(), coalesce)?;
    match call.proceed().map_err(TransportError::protocol)? {
        Some(SendRequestResult::RecvResponse(call)) => Ok((call, out, false)),
        Some(SendRequestResult::SendBody(mut call)) => {
            // The body is sized (we set content-length), so it goes to the
            // socket as is and the call is told how much was written.
            if coalesce {
                out.extend_from_slice(body);
            }
            call.consume_direct_write(body.len()).map_err(TransportError::protocol)?;
            let call = call.proceed().ok_or_else(|| TransportError::protocol("the request body was not accepted"))?;
            Ok((call, out, !coalesce))
        }
        Some(SendRequestResult::Await100(_)) | None => Err(TransportError::protocol("unexpected request state")),
    }
}

/// Write the request's bytes (and its body after them, when apart), and
/// flush.
async fn send(
    conn: &mut Conn,
    out: &[u8],
    body: Option<&[u8]>,
    config: &TransportConfig,
    host: &str,
    deadline: Option<Deadline>,
) -> Result<(), Failed> {
    write(conn, out, config, host, deadline).await?;
    if let Some(body) = body {
        write(conn, body, config, host, deadline).await?;
    }
    let flushed = with_timeout(config.read_timeout, TimeoutPhase::Read, deadline, async {
        conn.flush().await.map_err(|e| classify_io(e, host, config))
    });
    flushed.await.map_err(|error| Failed { silent: is_reset(&error), error })
}

/// The request head as the call writes it (about `head_size` bytes), in a
/// buffer with room for the body (`body_len`) after it when `coalesce`.
fn head_bytes(
    call: &mut Call<ureq_proto::client::state::SendRequest>,
    head_size: usize,
    body_len: usize,
    coalesce: bool,
) -> Result<Vec<u8>, TransportError> {
    // Room for the whole head (the request line and the `host` header fit
    // in the margin), and no more: the room is zero-filled per request.
    let head_room = head_size + 1024;
    let mut out = Vec::with_capacity(head_room + if coalesce { body_len } else { 0 });
    out.resize(head_room, 0);
    let mut len = 0;
    while !call.can_proceed() {
        match call.write(&mut out[len..]) {
            Ok(0) => return Err(TransportError::protocol("the request head could not be written")),
            Ok(used) => len += used,
            // A line longer than the room left; the head's size bounds
            // every line, so the room grows a few times at most.
            Err(ureq_proto::Error::OutputOverflow) if out.len() < 4 * head_room => {
                let more = out.len() * 2;
                out.resize(more, 0);
            }
            Err(error) => return Err(TransportError::protocol(error)),
        }
    }
    out.truncate(len);
    Ok(out)
}

async fn write(
    conn: &mut Conn,
    bytes: &[u8],
    config: &TransportConfig,
    host: &str,
    deadline: Option<Deadline>,
) -> Result<(), Failed> {
    let written = with_timeout(config.read_timeout, TimeoutPhase::Read, deadline, async {
        conn.write_all(bytes).await.map_err(|e| classify_io(e, host, config))
    });
    written.await.map_err(|error| Failed { silent: is_reset(&error), error })
}

/// Read until the response head is whole, and parse it.
async fn receive_head(
    conn: &mut Conn,
    call: &mut Call<RecvResponse>,
    config: &TransportConfig,
    host: &str,
    input: &mut Input,
    deadline: Option<Deadline>,
) -> Result<http::Response<()>, Failed> {
    loop {
        let (used, response) = call.try_response(input.bytes(), false).map_err(TransportError::protocol)?;
        input.consume(used);
        if let Some(response) = response {
            return Ok(response);
        }
        if input.len() > MAX_HEAD {
            return Err(TransportError::protocol("the response head is too large").into());
        }
        if input.read_more(conn, config, host, deadline).await? == 0 {
            return Err(TransportError::reset("the server closed the connection before responding").into());
        }
    }
}

/// The head as the caller gets it, and what follows it.
fn head_of(
    response: http::Response<()>,
    call: Call<RecvResponse>,
) -> Result<(HttpResponseHead, AfterHead), TransportError> {
    let headers = response
        .headers()
        .iter()
        .map(|(name, value)| (name.as_str().to_string(), String::from_utf8_lossy(value.as_bytes()).into_owned()))
        .collect();
    let mut head = HttpResponseHead::new(response.status().as_u16(), headers);
    head.now_unix = now_unix();
    let after = match call.proceed() {
        Some(RecvResponseResult::RecvBody(body)) => AfterHead::Body(Box::new(body)),
        Some(RecvResponseResult::Redirect(redirect)) => AfterHead::Done { reusable: !redirect.must_close_connection() },
        Some(RecvResponseResult::Cleanup(done)) => AfterHead::Done { reusable: !done.must_close_connection() },
        None => return Err(TransportError::protocol("incomplete response head")),
    };
    Ok((head, after))
}

fn is_reset(error: &TransportError) -> bool {
    matches!(error, TransportError::Reset { .. })
}
