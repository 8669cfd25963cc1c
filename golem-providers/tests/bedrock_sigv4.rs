//! SigV4 against AWS's vectors (SPEC PROV-BR-02): the documented IAM
//! ListUsers example, every applicable case of AWS's published test suite
//! (tests/data/sigv4/aws-sig-v4-test-suite), and a recorded Bedrock request
//! whose model id holds `:` as botocore signs it.

use crate::bedrock;
use golem_core::model::Request;
use golem_core::Message;
use golem_providers::codec::HttpCodec;
use golem_providers::http::{HeaderValue, HttpRequest, Method};
use golem_providers::sigv4::{
    amz_date, canonical_query, canonical_uri, sign, sign_http, Credentials, SignableRequest, SigningError,
    SigningParams,
};
use serde_json::Value;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

const SUITE_KEY_ID: &str = "AKIDEXAMPLE";
const SUITE_SECRET: &str = "wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY";
/// 2015-08-30T12:36:00Z, the time of every suite case.
const SUITE_TIME: u64 = 1_440_938_160;

fn data() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/sigv4")
}

fn at(secs: u64) -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(secs)
}

#[test]
fn the_documented_iam_list_users_example_signs_to_its_published_signature() {
    let headers = vec![
        ("Content-Type".to_string(), "application/x-www-form-urlencoded; charset=utf-8".to_string()),
        ("Host".to_string(), "iam.amazonaws.com".to_string()),
        ("X-Amz-Date".to_string(), "20150830T123600Z".to_string()),
    ];
    let request = SignableRequest::new("GET", "/", &headers).with_query("Action=ListUsers&Version=2010-05-08");
    let credentials = Credentials::new(SUITE_KEY_ID, SUITE_SECRET);
    let params = SigningParams::new(&credentials, "us-east-1", "iam", at(SUITE_TIME));
    let signed = sign(&request, &params).unwrap();
    assert_eq!(
        signed.canonical_request,
        "GET\n/\nAction=ListUsers&Version=2010-05-08\ncontent-type:application/x-www-form-urlencoded; charset=utf-8\n\
         host:iam.amazonaws.com\nx-amz-date:20150830T123600Z\n\ncontent-type;host;x-amz-date\n\
         e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    );
    assert!(signed.string_to_sign.ends_with("f536975d06c0309214f805bb90ccff089219ecd68b2577efef23edd43b7e1a59"));
    assert_eq!(signed.signature, "5d672d79c15b13162d9279b0855cfba6789a8edb4c82c400e06b5924a6f2b5d7");
}

/// A parsed `.req` file: request line, headers (a line starting with
/// whitespace continues the previous header as another value), a blank
/// line, the body.
struct SuiteRequest {
    method: String,
    path: String,
    query: String,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
}

fn parse_req(text: &str) -> SuiteRequest {
    let (head, body) = match text.split_once("\n\n") {
        Some((head, body)) => (head, body),
        None => (text, ""),
    };
    let mut lines = head.lines();
    let first = lines.next().unwrap();
    let target = first.strip_prefix(first.split(' ').next().unwrap()).unwrap().trim();
    let target = target.strip_suffix("HTTP/1.1").unwrap().trim();
    let (path, query) = target.split_once('?').unwrap_or((target, ""));
    let mut headers: Vec<(String, String)> = Vec::new();
    for line in lines {
        if line.starts_with([' ', '\t']) {
            let name = headers.last().unwrap().0.clone();
            headers.push((name, line.trim().to_string()));
        } else {
            let (name, value) = line.split_once(':').unwrap();
            headers.push((name.to_string(), value.to_string()));
        }
    }
    SuiteRequest {
        method: first.split(' ').next().unwrap().to_string(),
        path: path.to_string(),
        query: query.to_string(),
        headers,
        body: body.as_bytes().to_vec(),
    }
}

#[test]
fn every_applicable_case_of_the_aws_test_suite_passes() {
    let suite = data().join("aws-sig-v4-test-suite");
    let mut cases: Vec<PathBuf> =
        std::fs::read_dir(&suite).unwrap().map(|e| e.unwrap().path()).filter(|p| p.is_dir()).collect();
    cases.sort();
    assert_eq!(cases.len(), 24, "the committed cases");
    let credentials = Credentials::new(SUITE_KEY_ID, SUITE_SECRET);
    let params = SigningParams::new(&credentials, "us-east-1", "service", at(SUITE_TIME));
    for dir in cases {
        let name = dir.file_name().unwrap().to_str().unwrap().to_string();
        let file = |ext: &str| std::fs::read_to_string(dir.join(format!("{name}.{ext}"))).unwrap();
        let req = parse_req(&file("req"));
        let sign_with = |names: &[&str], replace: Option<(&str, &str)>| {
            let headers: Vec<(String, String)> = req
                .headers
                .iter()
                .filter(|(n, _)| names.contains(&n.to_ascii_lowercase().as_str()))
                .map(|(n, v)| match replace {
                    Some((name, value)) if n.eq_ignore_ascii_case(name) => (n.clone(), value.to_string()),
                    _ => (n.clone(), v.clone()),
                })
                .collect();
            let request =
                SignableRequest::new(&req.method, &req.path, &headers).with_query(&req.query).with_payload(&req.body);
            sign(&request, &params).unwrap()
        };
        let (creq, sts, authz) = (file("creq"), file("sts"), file("authz"));
        // The canonical request signs the headers its own signed-headers line names.
        let creq_names: Vec<&str> = creq.lines().rev().nth(1).unwrap().split(';').collect();
        assert_eq!(sign_with(&creq_names, None).canonical_request, creq, "{name}: canonical request");
        let authz_names: Vec<&str> =
            authz.split("SignedHeaders=").nth(1).unwrap().split(',').next().unwrap().split(';').collect();
        match name.as_str() {
            // Two cases whose files disagree with each other: their .creq
            // was updated to sign content-length, their .sts (whose SHA-256
            // line is not that of the .creq) was not. Here the .sts and the
            // .authz agree with each other, without content-length.
            "post-x-www-form-urlencoded" => {
                let signed = sign_with(&authz_names, None);
                assert_eq!((signed.string_to_sign, signed.authorization.expose()), (sts, authz.as_str()), "{name}");
            }
            // Here the .sts is that of the suite's older request, with
            // `charset=utf8` and no content-length; the .authz carries its
            // signature under the newer SignedHeaders list.
            "post-x-www-form-urlencoded-parameters" => {
                let old = ("content-type", "application/x-www-form-urlencoded; charset=utf8");
                let signed = sign_with(&["content-type", "host", "x-amz-date"], Some(old));
                assert_eq!(signed.string_to_sign, sts, "{name}");
                assert!(authz.ends_with(&format!("Signature={}", signed.signature)), "{name}");
            }
            _ => {
                assert_eq!(authz_names, creq_names, "{name}: one signed-headers list");
                let signed = sign_with(&authz_names, None);
                assert_eq!(signed.string_to_sign, sts, "{name}: string to sign");
                assert_eq!(signed.authorization.expose(), authz, "{name}: authorization");
            }
        }
    }
}

fn golden() -> Value {
    serde_json::from_slice(&std::fs::read(data().join("bedrock_converse_colon.json")).unwrap()).unwrap()
}

/// The recorded Converse request (model id with `:`) signs exactly as
/// botocore signed it: same canonical request (the `%3A` of the wire
/// path encoded again to `%253A`), same Authorization (SPEC PROV-BR-02).
#[test]
fn a_recorded_bedrock_request_with_a_colon_in_the_model_id_signs_as_botocore_does() {
    let golden = golden();
    let s = |k: &str| golden[k].as_str().unwrap().to_string();
    let credentials =
        Credentials::new(s("access_key_id"), s("secret_access_key")).with_session_token(s("session_token"));
    let time = at(golden["unix_time"].as_u64().unwrap());
    let http = HttpRequest::new(Method::Post, s("url"))
        .with_header("content-type", HeaderValue::Plain("application/json".into()))
        .with_body(s("body").into_bytes());
    let params = SigningParams::new(&credentials, "us-east-1", "bedrock", time);
    let signed = sign_http(http, &params).unwrap();
    assert_eq!(signed.header("authorization").unwrap().expose(), s("authorization"));
    assert!(signed.header("authorization").unwrap().is_secret());
    assert_eq!(signed.header("x-amz-date").unwrap().expose(), s("x_amz_date"));
    assert_eq!(signed.header("x-amz-security-token").unwrap().expose(), s("session_token"));
    assert!(signed.header("x-amz-security-token").unwrap().is_secret());
    assert_eq!(signed.header("host").unwrap().expose(), "bedrock-runtime.us-east-1.amazonaws.com");
    assert!(s("canonical_request").contains("/model/us.anthropic.claude-3-7-sonnet-20250219-v1%253A0/converse\n"));
    assert_eq!(signed.url, s("url"), "the URL itself keeps the single encoding");

    // The codec builds that URL from the model id and signs the same way.
    let codec = golem_providers::bedrock::Codec::new(
        golem_providers::bedrock::Config::builder("us-east-1", "us.anthropic.claude-3-7-sonnet-20250219-v1:0")
            .credentials(credentials.clone())
            .build()
            .unwrap(),
    );
    let encoded = codec.encode(&Request::new(vec![Message::user("x")]), false).unwrap();
    assert_eq!(encoded.url, s("url"));
    let signed = codec.sign(encoded.with_body(s("body").into_bytes()), &credentials, time).unwrap();
    assert_eq!(signed.header("authorization").unwrap().expose(), s("authorization"));
}

#[test]
fn model_ids_are_encoded_once_on_the_wire_and_twice_when_signed() {
    for (model, segment) in [
        ("us.amazon.nova-micro-v1:0", "us.amazon.nova-micro-v1%3A0"),
        (
            "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20241022-v2:0",
            "arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-3-5-sonnet-20241022-v2%3A0",
        ),
    ] {
        let codec = golem_providers::bedrock::Codec::new(
            golem_providers::bedrock::Config::builder("us-east-1", model)
                .credentials(bedrock::credentials())
                .build()
                .unwrap(),
        );
        let url = codec.url("converse-stream");
        assert_eq!(url, format!("https://bedrock-runtime.us-east-1.amazonaws.com/model/{segment}/converse-stream"));
        let path = url.split(".com").nth(1).unwrap();
        assert_eq!(canonical_uri(path), format!("/model/{}/converse-stream", segment.replace('%', "%25")));
    }
}

#[test]
fn signing_covers_host_with_port_and_replaces_stale_auth_headers() {
    let credentials = Credentials::new("AKID", "secret");
    let params = SigningParams::new(&credentials, "eu-west-1", "bedrock", at(SUITE_TIME));
    let http = HttpRequest::new(Method::Post, "http://127.0.0.1:8080/model/m/converse?x=1#frag")
        .with_header("authorization", HeaderValue::Plain("stale".into()))
        .with_header("x-amz-date", HeaderValue::Plain("stale".into()))
        .with_body(b"{}".to_vec());
    let signed = sign_http(http, &params).unwrap();
    assert_eq!(signed.headers.iter().filter(|(n, _)| n == "authorization").count(), 1);
    assert_eq!(signed.headers.iter().filter(|(n, _)| n == "x-amz-date").count(), 1);
    assert_eq!(signed.header("host").unwrap().expose(), "127.0.0.1:8080");
    assert!(signed.header("x-amz-security-token").is_none(), "no token, no header");
    let auth = signed.header("authorization").unwrap().expose().to_string();
    assert!(
        auth.contains("/20150830/eu-west-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature="),
        "{auth}"
    );
    let default_port = HttpRequest::new(Method::Post, "https://Bedrock-Runtime.example.com:443/x");
    assert_eq!(
        sign_http(default_port, &params).unwrap().header("host").unwrap().expose(),
        "bedrock-runtime.example.com"
    );
    let error = sign_http(HttpRequest::new(Method::Post, "no-scheme"), &params).unwrap_err();
    assert!(matches!(error, SigningError::InvalidUrl(_)));
}

#[test]
fn dates_queries_and_paths_canonicalise_as_aws_specifies() {
    assert_eq!(amz_date(at(0)).unwrap(), "19700101T000000Z");
    assert_eq!(amz_date(at(951_782_400)).unwrap(), "20000229T000000Z");
    assert_eq!(amz_date(UNIX_EPOCH - Duration::from_secs(1)), Err(SigningError::InvalidTime));
    assert_eq!(amz_date(at(253_402_300_800)), Err(SigningError::InvalidTime), "year 10000");
    assert_eq!(canonical_query(""), "");
    assert_eq!(canonical_query("b=1&a=2&a=1"), "a=1&a=2&b=1");
    assert_eq!(canonical_query("k=a+b&s=%zz&e=%E1%88%B4"), "e=%E1%88%B4&k=a%2Bb&s=%25zz");
    assert_eq!(canonical_uri("/a b/%41"), "/a%20b/%2541");
}
