//! `web_fetch` against loopback servers (SPEC WEB): conversion, redirects,
//! caps, charsets, timeouts, statuses, and the default SSRF policy, which
//! refuses every non-public address before any connection.
#![cfg(feature = "web-fetch")]

use crate::tools_support;

use golem_io::tools::web_fetch::{AddressClass, FetchError, WebFetch};
use std::net::TcpListener;
use std::time::{Duration, Instant};
use tools_support::{through_agent, through_agent_async, Reply, Server};

fn private() -> WebFetch {
    WebFetch::builder().allow_private_networks(true).build().unwrap()
}

const PAGE: &str = r#"<!doctype html>
<html><head><title>Shop</title><style>body { color: red }</style><script>var x = "<p>no</p>";</script></head>
<body><nav><a href="/">Home</a> <a href="/about">About</a></nav>
<!-- a comment -->
<h1>Fresh &amp; cheap</h1>
<p>Apples<br>Pears and <a href="/plums">plums</a>.</p>
<noscript>Turn on JavaScript</noscript>
<template><p>hidden</p></template><svg><text>logo</text></svg>
<ul><li>one</li><li>two</li></ul>
</body></html>"#;

#[test]
fn html_becomes_visible_text_with_headings_and_links() {
    let server = Server::start(|_| Reply::ok("text/html; charset=utf-8", PAGE));
    let fetched = private().fetch(&server.url("/shop")).unwrap();
    let plums = server.url("/plums");
    assert_eq!(fetched.text, format!("Shop\n# Fresh & cheap\nApples\nPears and plums ({plums}).\none\ntwo"));
    assert_eq!(fetched.content_type.as_deref(), Some("text/html"));
    assert_eq!(fetched.model_text(), fetched.text, "no redirect, no cut: the text alone");
    let head = &server.requests()[0];
    assert!(head.starts_with("GET /shop HTTP/1.1\r\n"), "{head}");
    assert!(head.to_ascii_lowercase().contains(&format!("user-agent: golem-webfetch/{}", env!("CARGO_PKG_VERSION"))));
    assert!(!head.to_ascii_lowercase().contains("cookie"));
}

#[test]
fn text_like_types_pass_through_and_others_are_failed_results() {
    let json = r#"{"a": [1, 2]}"#;
    let server = Server::start(move |path| match path {
        "/json" => Reply::ok("application/json", json),
        "/problem" => Reply::ok("application/problem+json", json),
        "/yaml" => Reply::ok("application/yaml", "a: 1\n"),
        "/csv" => Reply::ok("text/csv", "a,b\n1,2\n"),
        "/png" => Reply::ok("image/png", b"\x89PNG\r\n".to_vec()),
        "/untyped-text" => Reply::untyped("plain words"),
        "/untyped-binary" => Reply::untyped(b"ab\0cd".to_vec()),
        _ => Reply::status(404),
    });
    let fetch = private();
    assert_eq!(fetch.fetch(&server.url("/json")).unwrap().text, json);
    assert_eq!(fetch.fetch(&server.url("/problem")).unwrap().text, json);
    assert_eq!(fetch.fetch(&server.url("/yaml")).unwrap().text, "a: 1\n");
    assert_eq!(fetch.fetch(&server.url("/csv")).unwrap().text, "a,b\n1,2\n");
    assert_eq!(fetch.fetch(&server.url("/untyped-text")).unwrap().text, "plain words");
    let png = fetch.fetch(&server.url("/png")).unwrap_err();
    assert_eq!(
        png.to_string(),
        format!(
            "GET {}: unsupported content type \"image/png\"; only text, HTML, JSON, XML and YAML are returned",
            server.url("/png")
        )
    );
    assert!(matches!(fetch.fetch(&server.url("/untyped-binary")), Err(FetchError::NotText { .. })));
}

#[test]
fn redirects_are_followed_by_hand_and_the_result_names_the_final_url() {
    let server = Server::start(|path| match path {
        "/start" => Reply::redirect(301, "/middle"),
        "/middle" => Reply::redirect(307, "end?x=1"),
        "/end?x=1" => Reply::ok("text/plain", "arrived"),
        "/loop" => Reply::redirect(302, "/loop"),
        "/ftp" => Reply::redirect(302, "ftp://example.com/file"),
        "/creds" => Reply::redirect(302, "http://user:pw@example.com/"),
        _ => Reply::status(404),
    });
    let fetch = private();
    let fetched = fetch.fetch(&server.url("/start")).unwrap();
    assert_eq!(fetched.url, server.url("/end?x=1"));
    assert_eq!(fetched.model_text(), format!("[webfetch: redirected to {}]\n\narrived", server.url("/end?x=1")));

    let looped = fetch.fetch(&server.url("/loop")).unwrap_err();
    assert_eq!(looped.to_string(), format!("GET {}: stopped after 5 redirects", server.url("/loop")));
    assert_eq!(server.requests().iter().filter(|r| r.starts_with("GET /loop ")).count(), 6);
    let strict = WebFetch::builder().allow_private_networks(true).max_redirects(1).build().unwrap();
    assert!(matches!(strict.fetch(&server.url("/start")), Err(FetchError::TooManyRedirects { max: 1, .. })));
    for path in ["/ftp", "/creds"] {
        assert!(matches!(fetch.fetch(&server.url(path)), Err(FetchError::BadRedirect { .. })), "{path}");
    }
}

#[test]
fn a_redirect_to_loopback_is_blocked_under_the_default_policy() {
    // The start host is allowed by name only; its redirect to the loopback
    // literal meets the default policy on the next hop.
    let server = Server::start(|_| Reply::ok("text/plain", "secret"));
    let port = server.addr.port();
    let target = format!("http://127.0.0.1:{port}/secret");
    let redirecting = Server::start(move |_| Reply::redirect(302, &target));
    let fetch = WebFetch::builder().allow_host("localhost").build().unwrap();
    let error = fetch.fetch(&format!("http://localhost:{}/public", redirecting.addr.port())).unwrap_err();
    assert!(
        matches!(&error, FetchError::Blocked { class: AddressClass::Loopback, url, .. } if url.contains("127.0.0.1")),
        "{error:?}"
    );
    assert_eq!(error.to_string(), format!("GET http://127.0.0.1:{port}/secret: blocked: 127.0.0.1 is a loopback address; this tool only fetches public addresses"));
    assert_eq!(server.connections(), 0, "the loopback target was never contacted");
}

#[test]
fn the_body_cap_cuts_on_a_character_boundary_and_marks_the_cut() {
    let server = Server::start(|path| match path {
        "/ascii" => Reply::ok("text/plain", "x".repeat(3000)),
        "/utf8" => Reply::ok("text/plain; charset=utf-8", "é".repeat(100)),
        "/html" => Reply::ok("text/html", format!("<p>{}</p><p>tail</p>", "a".repeat(50))),
        _ => Reply::status(404),
    });
    let fetch = WebFetch::builder().allow_private_networks(true).max_bytes(1001).build().unwrap();
    let ascii = fetch.fetch(&server.url("/ascii")).unwrap();
    assert_eq!((ascii.text.len(), ascii.truncated), (1001, true));
    assert!(ascii.model_text().ends_with("x\n\n[webfetch: response truncated at 1001 bytes]"));
    let small = WebFetch::builder().allow_private_networks(true).max_bytes(11).build().unwrap();
    let utf8 = small.fetch(&server.url("/utf8")).unwrap();
    assert_eq!(utf8.text, "é".repeat(5), "11 bytes hold five é and half of a sixth");
    let html = WebFetch::builder().allow_private_networks(true).max_bytes(20).build().unwrap();
    let cut = html.fetch(&server.url("/html")).unwrap();
    assert_eq!(cut.model_text(), format!("{}\n\n[webfetch: response truncated at 20 bytes]", "a".repeat(17)));
}

#[test]
fn charsets_from_the_content_type() {
    let server = Server::start(|path| match path {
        "/latin1" => Reply::ok("text/plain; charset=ISO-8859-1", b"caf\xe9".to_vec()),
        "/cp1252" => Reply::ok("text/html; charset=windows-1252", b"<p>\x93quoted\x94 \x80</p>".to_vec()),
        _ => Reply::ok("text/plain; charset=utf-8", "naïve"),
    });
    let fetch = private();
    assert_eq!(fetch.fetch(&server.url("/latin1")).unwrap().text, "café");
    assert_eq!(fetch.fetch(&server.url("/cp1252")).unwrap().text, "\u{201c}quoted\u{201d} €");
    assert_eq!(fetch.fetch(&server.url("/utf8")).unwrap().text, "naïve");
}

#[test]
fn a_stalling_server_is_a_timed_out_failed_result() {
    let server = Server::start(|path| match path {
        "/head" => Reply::Stall(Duration::from_secs(5)),
        _ => Reply::StallBody { declared: 100, first: b"partial".to_vec(), stall: Duration::from_secs(5) },
    });
    let fetch = WebFetch::builder().allow_private_networks(true).timeout(Duration::from_millis(300)).build().unwrap();
    for path in ["/head", "/body"] {
        let started = Instant::now();
        let error = fetch.fetch(&server.url(path)).unwrap_err();
        assert!(started.elapsed() < Duration::from_secs(3), "{path}: took {:?}", started.elapsed());
        assert_eq!(error.to_string(), format!("GET {}: timed out after 0.3 s", server.url(path)), "{path}");
    }
}

#[test]
fn non_2xx_and_network_errors_are_failed_results() {
    let server = Server::start(|path| match path {
        "/gone" => Reply::status(410),
        _ => Reply::status(500),
    });
    let fetch = private();
    assert_eq!(
        fetch.fetch(&server.url("/gone")).unwrap_err().to_string(),
        format!("GET {}: status 410 Gone", server.url("/gone"))
    );
    assert!(matches!(fetch.fetch(&server.url("/boom")), Err(FetchError::Status { status: 500, .. })));
    // A port nobody listens on: the connection is refused.
    let port = TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let refused = fetch.fetch(&format!("http://127.0.0.1:{port}/")).unwrap_err();
    assert!(matches!(refused, FetchError::Network { .. }), "{refused:?}");
    let tool = fetch.tool::<()>();
    let message = through_agent(tool, &format!(r#"{{"url":"{}"}}"#, server.url("/gone")));
    assert!(message.failed);
    assert_eq!(message.content, format!("GET {}: status 410 Gone", server.url("/gone")));
}

#[test]
fn the_default_policy_refuses_non_public_hosts_without_connecting() {
    let listener = Server::start(|_| Reply::ok("text/plain", "secret"));
    let port = listener.addr.port();
    let fetch = WebFetch::builder().build().unwrap();
    let cases = [
        (format!("http://127.0.0.1:{port}/"), AddressClass::Loopback),
        (format!("http://localhost:{port}/"), AddressClass::Loopback),
        ("http://10.0.0.1/".to_string(), AddressClass::Private),
        ("http://169.254.169.254/latest/meta-data/".to_string(), AddressClass::LinkLocal),
        (format!("http://[::1]:{port}/"), AddressClass::Loopback),
    ];
    for (url, class) in cases {
        let started = Instant::now();
        let error = fetch.fetch(&url).unwrap_err();
        assert!(matches!(&error, FetchError::Blocked { class: c, .. } if *c == class), "{url}: {error:?}");
        assert!(error.to_string().contains("this tool only fetches public addresses"), "{error}");
        assert!(started.elapsed() < Duration::from_secs(2), "{url} was refused without waiting");
    }
    assert_eq!(listener.connections(), 0, "no connection was made");
}

#[test]
fn every_ip_notation_the_url_parser_normalises_is_judged_as_the_address_it_is() {
    use AddressClass::*;
    let fetch = WebFetch::builder().build().unwrap();
    let private = WebFetch::builder().allow_private_networks(true).build().unwrap();
    let table = [
        ("http://2130706433/", Loopback),
        ("http://0x7f000001/", Loopback),
        ("http://0177.0.0.1/", Loopback),
        ("http://0x7f.1/", Loopback),
        ("http://127.1/", Loopback),
        ("http://017700000001/", Loopback),
        ("http://[::ffff:127.0.0.1]/", Loopback),
        ("http://[::ffff:7f00:1]/", Loopback),
        ("http://[0:0:0:0:0:ffff:a9fe:a9fe]/", LinkLocal),
        ("http://[64:ff9b::7f00:1]/", Loopback),
        ("http://[64:ff9b::a9fe:a9fe]/", LinkLocal),
        ("http://[64:ff9b::10.1.2.3]/", Private),
        ("http://[2002:c0a8:101::1]/", Private),
        ("http://0/", Unspecified),
        ("http://0.0.0.0/", Unspecified),
        ("http://[::]/", Unspecified),
        ("http://172.16.0.1/", Private),
        ("http://172.31.255.255/", Private),
        ("http://192.168.1.1/", Private),
        ("http://[fc00::1]/", Private),
        ("http://[fd12:3456::1]/", Private),
        ("http://[fe80::1]/", LinkLocal),
        ("http://100.64.0.1/", SharedAddressSpace),
        ("http://100.127.255.254/", SharedAddressSpace),
        ("http://224.0.0.1/", Multicast),
        ("http://[ff02::1]/", Multicast),
        ("http://255.255.255.255/", Broadcast),
        ("http://192.0.2.1/", Documentation),
        ("http://198.51.100.7/", Documentation),
        ("http://203.0.113.9/", Documentation),
        ("http://[2001:db8::1]/", Documentation),
        ("http://198.18.0.1/", Benchmarking),
        ("http://240.0.0.1/", Reserved),
        ("http://192.0.0.8/", Reserved),
        ("http://[100::1]/", Reserved),
        ("http://[2001::1]/", Reserved),
    ];
    for (url, class) in table {
        let error = fetch.fetch(url).unwrap_err();
        assert!(matches!(&error, FetchError::Blocked { class: c, .. } if *c == class), "{url}: {error:?}");
        if !class.is_private_network() {
            let still = private.fetch(url).unwrap_err();
            assert!(
                matches!(still, FetchError::Blocked { .. }),
                "{url} stays refused with private networks: {still:?}"
            );
        }
    }
}

#[test]
fn ranges_and_hosts_can_be_allowed_explicitly() {
    let server = Server::start(|_| Reply::ok("text/plain", "intranet"));
    let by_range = WebFetch::builder().allow_range("127.0.0.0/8").build().unwrap();
    assert_eq!(by_range.fetch(&server.url("/")).unwrap().text, "intranet");
    let by_host = WebFetch::builder().allow_host("LOCALHOST").build().unwrap();
    assert_eq!(by_host.fetch(&format!("http://localhost:{}/", server.addr.port())).unwrap().text, "intranet");
    assert!(WebFetch::builder().allow_range("10.0.0.0/40").build().is_err());
}

#[test]
fn malformed_urls_are_correctable_rejections() {
    let fetch = WebFetch::builder().build().unwrap();
    let cases = [
        ("", "url is required"),
        ("not a url", "url is not a valid URL: relative URL without a base"),
        ("ftp://example.com/x", "url must be an absolute http or https URL, got \"ftp://example.com/x\""),
        ("file:///etc/passwd", "url must be an absolute http or https URL, got \"file:///etc/passwd\""),
        (
            "http://user:secret@example.com/",
            "url must not contain a user name or password; this tool sends no credentials",
        ),
        ("http://user@example.com/", "url must not contain a user name or password; this tool sends no credentials"),
    ];
    for (url, text) in cases {
        let error = fetch.fetch(url).unwrap_err();
        assert!(error.is_rejection(), "{url}");
        assert_eq!(error.to_string(), text, "{url}");
    }
    let tool = fetch.tool::<()>();
    assert_eq!(tool.spec().definition.parameters["additionalProperties"], false);
}

#[test]
fn the_tool_runs_under_both_drivers() {
    let server = Server::start(|_| Reply::ok("text/html", "<h2>Hi</h2><p>there</p>"));
    let fetch = private();
    let args = format!(r#"{{"url":"{}"}}"#, server.url("/"));
    for message in [through_agent(fetch.tool(), &args), through_agent_async(fetch.tool(), &args)] {
        assert_eq!(message.content, "## Hi\nthere");
        assert!(!message.failed);
    }
    let spec = fetch.tool::<()>();
    assert_eq!(spec.name(), "web_fetch");
    assert_eq!(spec.spec().definition.description, golem_io::tools::web_fetch::texts::DESCRIPTION);
}

#[test]
fn a_url_normalised_by_the_parser_is_not_called_a_redirect() {
    let server = Server::start(|_| Reply::ok("text/plain", "same page"));
    let fetched = private().fetch(&format!("HTTP://LOCALHOST:{}", server.addr.port())).unwrap();
    assert_eq!((fetched.redirects, fetched.model_text().as_str()), (0, "same page"));
    assert_eq!(fetched.url, format!("http://localhost:{}/", server.addr.port()));
}
