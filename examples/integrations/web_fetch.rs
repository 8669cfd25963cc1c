//! Web fetch (EX-03): `web_fetch` on a page served on loopback. Loopback is
//! a private address, refused by default (SPEC WEB-03), so this program opts
//! in with `allow_private_networks(true)` — and shows the default refusing
//! the same URL. Offline: a scripted model.

use golem_io::testing::ScriptedModel;
use golem_io::tools::web_fetch::WebFetch;
use golem_io::Agent;
use golem_io::Role;
use std::io::{Read, Write};
use std::net::TcpListener;

const PAGE: &str = "<html><head><title>Release notes</title><script>track()</script></head>
<body><nav><a href=\"/\">Home</a></nav><h1>golem 0.1</h1>
<p>Common tools: <a href=\"/tools\">web fetch</a>, file read, commands and skills.</p></body></html>";

/// Serve `PAGE` to every request on 127.0.0.1:0; returns the page's URL.
fn serve_page() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    let url = format!("http://{}/notes", listener.local_addr()?);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().flatten() {
            let mut request = [0u8; 4096];
            let _ = stream.read(&mut request);
            let head = format!("HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n", PAGE.len());
            let _ = stream.write_all(head.as_bytes()).and_then(|()| stream.write_all(PAGE.as_bytes()));
        }
    });
    Ok(url)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = serve_page()?;

    // The opt-in: this fetcher may reach loopback and private networks.
    let fetch = WebFetch::builder().allow_private_networks(true).build()?;
    let model = ScriptedModel::new()
        .tool_call("web_fetch", serde_json::json!({ "url": url }).to_string())
        .text("golem 0.1 ships four common tools.");
    let agent = Agent::builder(model).tool(fetch.tool()).build()?;
    let result = agent.run((), "What is in the release notes?")?;

    let tool_message = result.messages.iter().find(|m| m.role == Role::Tool).ok_or("no tool result")?;
    println!("web_fetch returned (failed: {}):\n{}\n", tool_message.failed, tool_message.content);
    println!("output: {}", result.output);

    // Without the opt-in, the same URL is refused before any connection.
    let default = WebFetch::builder().build()?;
    match default.fetch(&url) {
        Ok(page) => println!("unexpected: fetched {}", page.url),
        Err(refused) => println!("\ndefault policy: {refused}"),
    }
    Ok(())
}
