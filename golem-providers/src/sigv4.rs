//! AWS Signature Version 4 (SPEC PROV-BR-02): pure request signing.
//!
//! Signing is a function of the request, the credentials and the time, so
//! it lives here with no clock and no I/O: the caller passes `time`. The
//! steps are AWS's: a canonical request (method, canonical URI, canonical
//! query, canonical headers, signed header names, payload hash), a string
//! to sign over its SHA-256, and an HMAC-SHA256 chain date → region →
//! service → `aws4_request` that keys the signature. The hashes come from
//! RustCrypto's `sha2` and `hmac`; nothing here implements a primitive.
//!
//! For every service but S3 the canonical URI encodes each path segment of
//! the request *as sent* once more, so a segment that went on the wire as
//! `v1%3A0` is signed as `v1%253A0` — the rule Bedrock model ids with `:`
//! depend on (upstream golem encoded once and its signatures failed).
//!
//! Not covered: S3's single encoding, dot-segment normalisation of paths
//! (golem never builds such paths), chunked payload signing and presigned
//! URLs.
//!
//! Why not AWS's `aws-sigv4`: it brings the smithy runtime with it — even
//! without default features, aws-sigv4 1.6 adds 39 crates to this one's
//! tree, among them tokio (through `aws-smithy-async`), tracing, time,
//! futures-util and a proc-macro crate, where `sha2` and `hmac` add 10
//! (a clean debug build of a crate holding only them took about a sixth of
//! the CPU time of one holding aws-sigv4 and aws-smithy-eventstream).
//! Correctness is shown against AWS's own vectors instead: the IAM example,
//! the published test suite and botocore's signature of a recorded request
//! (`tests/bedrock_sigv4.rs`).
//!
//! ```
//! use golem_providers::sigv4::{sign, Credentials, SignableRequest, SigningParams};
//! use std::time::{Duration, UNIX_EPOCH};
//!
//! // AWS's documented IAM ListUsers example.
//! let headers = vec![
//!     ("content-type".to_string(), "application/x-www-form-urlencoded; charset=utf-8".to_string()),
//!     ("host".to_string(), "iam.amazonaws.com".to_string()),
//!     ("x-amz-date".to_string(), "20150830T123600Z".to_string()),
//! ];
//! let request = SignableRequest::new("GET", "/", &headers).with_query("Action=ListUsers&Version=2010-05-08");
//! let credentials = Credentials::new("AKIDEXAMPLE", "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY");
//! let time = UNIX_EPOCH + Duration::from_secs(1_440_938_160);
//! let params = SigningParams::new(&credentials, "us-east-1", "iam", time);
//! let signed = sign(&request, &params).unwrap();
//! assert_eq!(signed.signature, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
//! ```

use crate::http::{HeaderValue, HttpRequest};
use crate::secret::Secret;
use hmac::{Hmac, KeyInit, Mac};
use sha2::{Digest, Sha256};
use std::fmt;
use std::time::{SystemTime, UNIX_EPOCH};

/// The algorithm name in the string to sign and the `Authorization` header.
pub const ALGORITHM: &str = "AWS4-HMAC-SHA256";

/// AWS credentials: an access key id, its secret and, for temporary
/// credentials, a session token. Every part is a [`Secret`], so no
/// formatting of the credentials shows any of them (SPEC ERR-06).
///
/// ```
/// use golem_providers::sigv4::Credentials;
///
/// let credentials = Credentials::new("AKIDEXAMPLE", "wJalrXUtnFEMI").with_session_token("FwoGZXIvYXdz");
/// assert!(!format!("{credentials:?}").contains("AKIDEXAMPLE"));
/// assert_eq!(credentials.session_token().map(|t| t.expose()), Some("FwoGZXIvYXdz"));
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct Credentials {
    access_key_id: Secret,
    secret_access_key: Secret,
    session_token: Option<Secret>,
}

impl Credentials {
    /// Long-term credentials: an access key id and its secret.
    pub fn new(access_key_id: impl Into<Secret>, secret_access_key: impl Into<Secret>) -> Self {
        Credentials {
            access_key_id: access_key_id.into(),
            secret_access_key: secret_access_key.into(),
            session_token: None,
        }
    }

    /// Builder-style: the session token of temporary credentials (an empty
    /// token counts as none).
    pub fn with_session_token(mut self, token: impl Into<Secret>) -> Self {
        let token = token.into();
        self.session_token = (!token.is_empty()).then_some(token);
        self
    }

    /// The access key id.
    pub fn access_key_id(&self) -> &Secret {
        &self.access_key_id
    }

    /// The secret access key.
    pub fn secret_access_key(&self) -> &Secret {
        &self.secret_access_key
    }

    /// The session token, for temporary credentials.
    pub fn session_token(&self) -> Option<&Secret> {
        self.session_token.as_ref()
    }

    /// `text` with every part of these credentials redacted — for messages
    /// a server might echo them in.
    pub fn scrub(&self, text: &str) -> String {
        let text = self.access_key_id.scrub(text);
        let text = self.secret_access_key.scrub(&text);
        match &self.session_token {
            Some(token) => token.scrub(&text),
            None => text,
        }
    }
}

/// Shows that credentials are present, and whether they are temporary;
/// never any part of them.
impl fmt::Debug for Credentials {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Credentials")
            .field("access_key_id", &self.access_key_id)
            .field("secret_access_key", &self.secret_access_key)
            .field("session_token", &self.session_token.as_ref().map(|_| crate::secret::REDACTED))
            .finish()
    }
}

/// Who signs, for which region and service, and when. Built with
/// [`SigningParams::new`]; the fields stay readable.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct SigningParams<'a> {
    /// The credentials.
    pub credentials: &'a Credentials,
    /// The region, e.g. `us-east-1`.
    pub region: &'a str,
    /// The signing name of the service, e.g. `bedrock`.
    pub service: &'a str,
    /// The signing time (the caller's clock; signatures are valid for
    /// minutes around it).
    pub time: SystemTime,
}

/// The parts of a request that are signed. Built with
/// [`SignableRequest::new`] and its `with_*` setters; the fields stay
/// readable.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct SignableRequest<'a> {
    /// The method, e.g. `POST`.
    pub method: &'a str,
    /// The path exactly as it goes on the wire (percent-encoded already);
    /// empty means `/`.
    pub path: &'a str,
    /// The query string as it goes on the wire, without `?`.
    pub query: &'a str,
    /// The headers to sign, names in any case. Repeated names are signed
    /// as one header whose values are joined with commas, in order.
    pub headers: &'a [(String, String)],
    /// The body.
    pub payload: &'a [u8],
}

/// A computed signature with the intermediate texts, for diagnostics and
/// tests against AWS's published vectors. `Debug` redacts the
/// `Authorization` value (it names the access key id).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Signed {
    /// The canonical request (SigV4 task 1).
    pub canonical_request: String,
    /// The string to sign (task 2).
    pub string_to_sign: String,
    /// The signature, lowercase hex (task 3).
    pub signature: String,
    /// The `Authorization` header value (task 4).
    pub authorization: Secret,
    /// The `x-amz-date` value the signature is for.
    pub amz_date: String,
}

impl<'a> SigningParams<'a> {
    /// Sign with `credentials` for `service` (its signing name, e.g.
    /// `bedrock`) in `region`, at `time`.
    pub fn new(credentials: &'a Credentials, region: &'a str, service: &'a str, time: SystemTime) -> Self {
        SigningParams { credentials, region, service, time }
    }
}

impl<'a> SignableRequest<'a> {
    /// `method` on `path` (as sent, percent-encoded already) with the
    /// headers to sign; no query and an empty body until set.
    pub fn new(method: &'a str, path: &'a str, headers: &'a [(String, String)]) -> Self {
        SignableRequest { method, path, query: "", headers, payload: b"" }
    }

    /// Builder-style: the query string as sent, without `?`.
    pub fn with_query(mut self, query: &'a str) -> Self {
        self.query = query;
        self
    }

    /// Builder-style: the body.
    pub fn with_payload(mut self, payload: &'a [u8]) -> Self {
        self.payload = payload;
        self
    }
}

/// Why a request could not be signed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SigningError {
    /// The signing time is before 1970 or after 9999.
    #[error("the signing time is outside the years 1970 to 9999")]
    InvalidTime,
    /// The URL has no `scheme://host`.
    #[error("the URL {0:?} has no scheme and host to sign")]
    InvalidUrl(String),
}

/// Sign `request` (SigV4 tasks 1–4). The headers given are the signed
/// headers; `x-amz-date` among them should carry [`amz_date`] of the same
/// time, as AWS checks the two agree.
pub fn sign(request: &SignableRequest<'_>, params: &SigningParams<'_>) -> Result<Signed, SigningError> {
    let amz_date = amz_date(params.time)?;
    let date = &amz_date[..8];
    let scope = format!("{date}/{}/{}/aws4_request", params.region, params.service);
    let (canonical_headers, signed_headers) = canonical_headers(request.headers);
    let canonical_request = format!(
        "{}\n{}\n{}\n{}\n{}\n{}",
        request.method,
        canonical_uri(request.path),
        canonical_query(request.query),
        canonical_headers,
        signed_headers,
        hex_sha256(request.payload)
    );
    let string_to_sign = format!("{ALGORITHM}\n{amz_date}\n{scope}\n{}", hex_sha256(canonical_request.as_bytes()));
    let key = signing_key(params.credentials.secret_access_key.expose(), date, params.region, params.service);
    let signature = hex(&hmac(&key, string_to_sign.as_bytes()));
    let authorization = Secret::new(format!(
        "{ALGORITHM} Credential={}/{scope}, SignedHeaders={signed_headers}, Signature={signature}",
        params.credentials.access_key_id.expose()
    ));
    Ok(Signed { canonical_request, string_to_sign, signature, authorization, amz_date })
}

/// Sign an outgoing [`HttpRequest`] the way AWS JSON services expect: set
/// `host` (the URL's authority without a default port), `x-amz-date` and,
/// with temporary credentials, `x-amz-security-token`; sign those and
/// `content-type`; add `authorization`. Earlier values of those headers are
/// replaced. The token and the authorization go in as secret header values.
pub fn sign_http(mut http: HttpRequest, params: &SigningParams<'_>) -> Result<HttpRequest, SigningError> {
    let parts = UrlParts::parse(&http.url).ok_or_else(|| SigningError::InvalidUrl(http.url.clone()))?;
    let date = amz_date(params.time)?;
    let replaced = ["host", "x-amz-date", "x-amz-security-token", "authorization"];
    http.headers.retain(|(name, _)| !replaced.iter().any(|r| name.eq_ignore_ascii_case(r)));
    let mut signed: Vec<(String, String)> = vec![("host".into(), parts.host.clone()), ("x-amz-date".into(), date)];
    if let Some(content_type) = http.header("content-type") {
        signed.push(("content-type".into(), content_type.expose().to_string()));
    }
    if let Some(token) = params.credentials.session_token() {
        signed.push(("x-amz-security-token".into(), token.expose().to_string()));
    }
    let request = SignableRequest::new(http.method.as_str(), parts.path, &signed)
        .with_query(parts.query)
        .with_payload(&http.body);
    let result = sign(&request, params)?;
    let mut headers = vec![
        ("host".into(), HeaderValue::Plain(parts.host.into())),
        ("x-amz-date".into(), HeaderValue::Plain(result.amz_date.into())),
    ];
    if let Some(token) = params.credentials.session_token() {
        headers.push(("x-amz-security-token".into(), HeaderValue::Secret(token.clone())));
    }
    headers.push(("authorization".into(), HeaderValue::Secret(result.authorization)));
    http.headers.extend(headers);
    Ok(http)
}

/// The `x-amz-date` form of `time`: `YYYYMMDD'T'HHMMSS'Z'` in UTC.
///
/// ```
/// use std::time::{Duration, UNIX_EPOCH};
/// let time = UNIX_EPOCH + Duration::from_secs(1_440_938_160);
/// assert_eq!(golem_providers::sigv4::amz_date(time).unwrap(), "20150830T123600Z");
/// ```
pub fn amz_date(time: SystemTime) -> Result<String, SigningError> {
    let secs = time.duration_since(UNIX_EPOCH).map_err(|_| SigningError::InvalidTime)?.as_secs();
    let secs = i64::try_from(secs).map_err(|_| SigningError::InvalidTime)?;
    let (year, month, day, hour, minute, second) = crate::http_date::civil_utc(secs);
    if year > 9999 {
        return Err(SigningError::InvalidTime);
    }
    Ok(format!("{year:04}{month:02}{day:02}T{hour:02}{minute:02}{second:02}Z"))
}

/// The canonical URI: the wire path with every byte outside the unreserved
/// set and `/` percent-encoded once more (a `%` becomes `%25`).
///
/// ```
/// use golem_providers::sigv4::canonical_uri;
/// assert_eq!(canonical_uri("/model/us.amazon.nova-micro-v1%3A0/converse"), "/model/us.amazon.nova-micro-v1%253A0/converse");
/// assert_eq!(canonical_uri(""), "/");
/// ```
pub fn canonical_uri(path: &str) -> String {
    if path.is_empty() {
        return "/".to_string();
    }
    let mut out = String::with_capacity(path.len() + 8);
    for byte in path.bytes() {
        push_encoded(&mut out, byte, true);
    }
    out
}

/// The canonical query: each `name=value` pair percent-decoded, encoded
/// again with the unreserved set, sorted by name then value, joined by `&`.
///
/// ```
/// use golem_providers::sigv4::canonical_query;
/// assert_eq!(canonical_query("b=2&a=x%20y&a"), "a=&a=x%20y&b=2");
/// ```
pub fn canonical_query(query: &str) -> String {
    let mut pairs: Vec<(String, String)> = query
        .split('&')
        .filter(|pair| !pair.is_empty())
        .map(|pair| {
            let (name, value) = pair.split_once('=').unwrap_or((pair, ""));
            (encode_all(&percent_decode(name)), encode_all(&percent_decode(value)))
        })
        .collect();
    pairs.sort();
    pairs.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join("&")
}

/// The canonical headers block (each `name:value\n`, names lowercase and
/// sorted, values trimmed with inner runs of spaces collapsed, repeated
/// names joined by commas) and the signed-headers list (`a;b;c`).
pub fn canonical_headers(headers: &[(String, String)]) -> (String, String) {
    let mut merged: Vec<(String, String)> = Vec::with_capacity(headers.len());
    for (name, value) in headers {
        let name = name.trim().to_ascii_lowercase();
        let value = collapse_spaces(value);
        match merged.iter_mut().find(|(n, _)| *n == name) {
            Some((_, existing)) => {
                existing.push(',');
                existing.push_str(&value);
            }
            None => merged.push((name, value)),
        }
    }
    merged.sort_by(|a, b| a.0.cmp(&b.0));
    let block = merged.iter().map(|(name, value)| format!("{name}:{value}\n")).collect();
    let names = merged.iter().map(|(name, _)| name.as_str()).collect::<Vec<_>>().join(";");
    (block, names)
}

/// The signing key: HMAC chain `AWS4<secret>` → date → region → service →
/// `aws4_request`.
pub fn signing_key(secret: &str, date: &str, region: &str, service: &str) -> [u8; 32] {
    let k_date = hmac(format!("AWS4{secret}").as_bytes(), date.as_bytes());
    let k_region = hmac(&k_date, region.as_bytes());
    let k_service = hmac(&k_region, service.as_bytes());
    hmac(&k_service, b"aws4_request")
}

/// Lowercase hex of the SHA-256 of `data` (the payload hash).
pub fn hex_sha256(data: &[u8]) -> String {
    hex(&Sha256::digest(data))
}

fn hmac(key: &[u8], data: &[u8]) -> [u8; 32] {
    // HMAC accepts keys of any length, so this cannot fail.
    let mut mac = Hmac::<Sha256>::new_from_slice(key).expect("HMAC takes keys of any length");
    mac.update(data);
    mac.finalize().into_bytes().into()
}

fn hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut out = String::with_capacity(bytes.len() * 2);
    for byte in bytes {
        out.push(char::from(DIGITS[usize::from(byte >> 4)]));
        out.push(char::from(DIGITS[usize::from(byte & 0x0f)]));
    }
    out
}

fn push_encoded(out: &mut String, byte: u8, keep_slash: bool) {
    const HEX: &[u8; 16] = b"0123456789ABCDEF";
    if byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~') || (keep_slash && byte == b'/') {
        out.push(char::from(byte));
    } else {
        out.push('%');
        out.push(char::from(HEX[usize::from(byte >> 4)]));
        out.push(char::from(HEX[usize::from(byte & 0x0f)]));
    }
}

fn encode_all(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for &byte in bytes {
        push_encoded(&mut out, byte, false);
    }
    out
}

/// `%XX` sequences decoded; anything else (including a stray `%`) kept.
fn percent_decode(text: &str) -> Vec<u8> {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex_pair = bytes.get(i + 1..i + 3).and_then(|pair| std::str::from_utf8(pair).ok());
        match (bytes[i], hex_pair.and_then(|pair| u8::from_str_radix(pair, 16).ok())) {
            (b'%', Some(decoded)) => {
                out.push(decoded);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    out
}

/// The value trimmed, inner runs of whitespace as one space.
fn collapse_spaces(value: &str) -> String {
    value.split_ascii_whitespace().collect::<Vec<_>>().join(" ")
}

/// The pieces of an absolute URL that signing needs.
struct UrlParts<'a> {
    host: String,
    path: &'a str,
    query: &'a str,
}

impl<'a> UrlParts<'a> {
    fn parse(url: &'a str) -> Option<Self> {
        let (scheme, rest) = url.split_once("://")?;
        let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let authority = &rest[..authority_end];
        let authority = authority.rsplit_once('@').map_or(authority, |(_, host)| host);
        if authority.is_empty() {
            return None;
        }
        let default_port = match scheme.to_ascii_lowercase().as_str() {
            "https" => ":443",
            "http" => ":80",
            _ => "",
        };
        let host = if !default_port.is_empty() && authority.ends_with(default_port) {
            &authority[..authority.len() - default_port.len()]
        } else {
            authority
        };
        let rest = &rest[authority_end..];
        let rest = rest.split('#').next().unwrap_or_default();
        let (path, query) = rest.split_once('?').unwrap_or((rest, ""));
        Some(UrlParts { host: host.to_ascii_lowercase(), path, query })
    }
}
