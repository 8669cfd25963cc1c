//! Beyond tools: the server's instructions, resources and prompts as typed
//! values, and the read-only resource tool, against the official Python
//! SDK over stdio and streamable HTTP, plus the listing guards and odd
//! shapes against a fake (SPEC MCP-02, MCP-11).
#![cfg(feature = "mcp")]

use crate::mcp_support;

use golem_core::testing::ScriptedModel;
use golem_core::Role;
use golem_io::mcp::{
    read_result, BridgeOptions, ClientOptions, HttpConfig, McpBridge, McpClient, McpError, McpResource, ResourceBody,
    RESOURCE_TOOL,
};
use golem_io::Agent;
use mcp_support::http_fake::{FakeHttp, FakeRequest, FakeResponse};
use mcp_support::{options, stdio_client, HttpServer};
use serde_json::{json, Value};
use std::sync::Arc;
use std::time::Duration;

/// The fixture's PNG, as its resource serves it.
const PNG_LEN: usize = 70;

/// Everything MCP-11 offers, the same over either transport; one item per
/// page, so every listing follows its cursors.
fn check_resources_and_prompts(client: &McpClient) {
    assert_eq!(client.instructions().as_deref(), Some("Test tools for golem."));

    let resources = client.list_resources().unwrap();
    let uris: Vec<&str> = resources.iter().map(|r| r.uri.as_str()).collect();
    assert_eq!(uris, ["fixture://readme", "fixture://pixel"]);
    assert_eq!(resources[0].name, "readme");
    assert_eq!(resources[0].description.as_deref(), Some("What this server is."));
    assert_eq!(resources[0].mime_type.as_deref(), Some("text/markdown"));

    let readme = client.read_resource("fixture://readme").unwrap();
    assert_eq!(readme.len(), 1);
    assert_eq!(readme[0].text(), Some("# Fixture\nTest tools for golem."));
    assert_eq!(readme[0].mime_type.as_deref(), Some("text/markdown"));
    let pixel = client.read_resource("fixture://pixel").unwrap();
    assert!(matches!(&pixel[0].body, ResourceBody::Blob(bytes) if bytes.starts_with(b"\x89PNG")), "{pixel:?}");
    assert_eq!(pixel[0].render(), format!("[mcp: binary resource fixture://pixel, image/png, {PNG_LEN} bytes]"));
    let missing = client.read_resource("fixture://nothing").unwrap_err();
    assert!(matches!(missing, McpError::Protocol { .. }), "{missing:?}");

    let prompts = client.list_prompts().unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(names, ["review", "hello"]);
    assert_eq!(prompts[0].description.as_deref(), Some("Ask for a code review."));
    let arguments: Vec<(&str, bool)> = prompts[0].arguments.iter().map(|a| (a.name.as_str(), a.required)).collect();
    assert_eq!(arguments, [("code", true), ("language", false)]);
    assert!(prompts[1].arguments.is_empty());

    let review = client.get_prompt("review", &[("code", "fn main() {}"), ("language", "rust")]).unwrap();
    assert_eq!(review.messages.len(), 1);
    assert_eq!(review.messages[0].role, "user");
    assert_eq!(review.messages[0].text(), Some("Please review this rust:\nfn main() {}"));
    assert_eq!(client.get_prompt("hello", &[]).unwrap().messages[0].text(), Some("Hello!"));
    assert!(matches!(client.get_prompt("nope", &[]), Err(McpError::Protocol { .. })));
}

#[test]
fn resources_and_prompts_over_stdio() {
    let client = stdio_client(&["--page-size", "1"]);
    check_resources_and_prompts(&client);
}

#[test]
fn resources_and_prompts_over_streamable_http() {
    let server = HttpServer::start(&["--page-size", "1"]);
    check_resources_and_prompts(&server.client());
}

fn tool_texts(result: &golem_io::RunResult<String>) -> Vec<String> {
    result.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.clone()).collect()
}

#[test]
fn an_agent_reads_resources_with_the_resource_tool_and_gets_the_instructions() {
    for client in [stdio_client(&[]), HttpServer::start(&[]).client()] {
        let client = Arc::new(client);
        let bridge = McpBridge::with_options(Arc::clone(&client), BridgeOptions::new().prefix("fx")).unwrap();
        assert_eq!(bridge.instructions().as_deref(), Some("Test tools for golem."));
        let tool = bridge.resources_tool::<()>();
        assert_eq!(tool.name(), format!("fx_{RESOURCE_TOOL}"));
        assert_eq!(tool.spec().definition.parameters["required"], json!(["uri"]));
        assert!(bridge.listed().iter().all(|t| t.name != tool.name()), "not one of the bridged tools");

        let model = ScriptedModel::new()
            .tool_call("fx_read_mcp_resource", r#"{"uri":"fixture://readme"}"#)
            .tool_call("fx_read_mcp_resource", r#"{"uri":"fixture://pixel"}"#)
            .tool_call("fx_read_mcp_resource", r#"{"uri":"fixture://nothing"}"#)
            .text("read");
        let instructions = format!("Be brief.\n\n{}", bridge.instructions().unwrap_or_default());
        let agent =
            Agent::builder(model.clone()).instructions(&instructions).tools(bridge.tools()).tool(tool).build().unwrap();
        let result = agent.run((), "read the readme").unwrap();
        let texts = tool_texts(&result);
        assert_eq!(texts[0], "# Fixture\nTest tools for golem.");
        assert_eq!(texts[1], format!("[mcp: binary resource fixture://pixel, image/png, {PNG_LEN} bytes]"));
        assert!(
            texts[2].starts_with("reading fixture://nothing failed: "),
            "a failed result the model reads: {}",
            texts[2]
        );
        assert_eq!(result.output, "read");
        let system = serde_json::to_string(&model.requests()[0]).unwrap();
        assert!(system.contains("Test tools for golem."), "the server's instructions reached the model");
    }
}

fn init_answer(request: &FakeRequest) -> Value {
    json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": {"protocolVersion": "2025-11-25",
        "capabilities": {"resources": {}, "prompts": {}}, "serverInfo": {"name": "fake", "version": "1"},
        "instructions": "  \n "}})
}

fn answer(request: &FakeRequest, result: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": request.json()["id"], "result": result})
}

#[test]
fn listings_keep_their_guards_and_odd_shapes_are_typed_errors() {
    let fake = FakeHttp::start(|request| match request.rpc_method().as_str() {
        "initialize" => FakeResponse::json(&init_answer(request)),
        // A cursor that never moves on.
        "resources/list" => FakeResponse::json(&answer(request, json!({"resources": [], "nextCursor": "again"}))),
        "prompts/list" => FakeResponse::json(&answer(request, json!({"prompts": [{"description": "no name"}]}))),
        "prompts/get" => FakeResponse::json(&answer(request, json!({"messages": [{"role": "user"}]}))),
        "resources/read" => FakeResponse::json(&answer(request, json!({"contents": [{"uri": "x", "blob": "%%%"}]}))),
        "GET" => FakeResponse::status(405),
        _ => FakeResponse::accepted(),
    });
    let config = HttpConfig::new(&fake.url);
    let client = McpClient::http(config, ClientOptions::new().timeout(Duration::from_secs(10))).unwrap();
    assert_eq!(client.instructions(), None, "blank instructions are none");
    let error = client.list_resources().unwrap_err();
    assert!(matches!(&error, McpError::Pagination(reason) if reason.contains("resources/list")), "{error}");
    assert!(matches!(client.list_prompts(), Err(McpError::InvalidResult { method, .. }) if method == "prompts/list"));
    assert!(
        matches!(client.get_prompt("p", &[]), Err(McpError::InvalidResult { method, .. }) if method == "prompts/get")
    );
    assert!(matches!(client.read_resource("x"), Err(McpError::InvalidResult { .. })));
    let pages = fake.requests().into_iter().filter(|r| r.rpc_method() == "resources/list").count();
    assert_eq!(pages, 2, "the second page repeats the cursor");
}

#[test]
fn resource_contents_render_for_the_model() {
    let contents = read_result(&json!({"contents": [
        {"uri": "mem://a", "text": "alpha", "mimeType": "text/plain"},
        {"uri": "mem://b", "blob": "AAEC"},
        {"uri": "mem://c", "blob": "", "mimeType": ""},
    ]}))
    .unwrap();
    let rendered: Vec<String> = contents.iter().map(|c| c.render()).collect();
    assert_eq!(
        rendered,
        [
            "alpha",
            "[mcp: binary resource mem://b, unknown type, 3 bytes]",
            "[mcp: binary resource mem://c, unknown type, 0 bytes]"
        ]
    );
    for bad in [json!({}), json!({"contents": [{"text": "no uri"}]}), json!({"contents": [{"uri": "u"}]})] {
        assert!(matches!(read_result(&bad), Err(McpError::InvalidResult { .. })), "{bad}");
    }
    let resource = McpResource::from_value(&json!({"uri": "u", "size": 12, "annotations": {"priority": 1}})).unwrap();
    assert_eq!((resource.name.as_str(), resource.size), ("", Some(12)));
    assert!(McpResource::from_value(&json!({"name": "no uri"})).is_err());
}

#[test]
fn the_resource_tool_rejects_a_missing_uri_and_ends_the_run_on_transport_failures() {
    let client = Arc::new(McpClient::stdio(mcp_support::stdio_config(&[]), options()).unwrap());
    let bridge = McpBridge::new(Arc::clone(&client)).unwrap();
    let model = ScriptedModel::new().tool_call(RESOURCE_TOOL, r#"{"path":"x"}"#).text("done");
    let agent = Agent::builder(model).tool(bridge.resources_tool()).tool_retries(1).build().unwrap();
    let result = agent.run((), "read").unwrap();
    assert!(tool_texts(&result)[0].contains("`uri` must be a string"), "a correctable rejection");

    client.close();
    let model = ScriptedModel::new().tool_call(RESOURCE_TOOL, r#"{"uri":"fixture://readme"}"#).text("done");
    let agent = Agent::builder(model).tool(bridge.resources_tool()).build().unwrap();
    let error = agent.run((), "read").unwrap_err();
    assert_eq!(error.stage(), Some(golem_core::Stage::Tool), "{error}");
}
