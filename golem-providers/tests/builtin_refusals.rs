//! BUILTIN-01, per family: `Agent::build` accepts exactly the built-in
//! tools the family's client can run and refuses every other one with
//! `BuildError::UnsupportedBuiltin(name)` — before anything is sent (no
//! server is reached; the clients point at an unused loopback port).

use golem_core::builtin::{BuiltinTool, WebFetch, WebSearch};
use golem_io::{Agent, BuildError, Model};
use golem_providers::{azure, openai, AzureOpenAi, OpenAi};

const NOWHERE: &str = "http://127.0.0.1:9";

fn every_builtin() -> [BuiltinTool; 4] {
    [
        BuiltinTool::WebSearch(WebSearch::new()),
        BuiltinTool::WebFetch(WebFetch::new()),
        BuiltinTool::CodeExecution,
        BuiltinTool::UrlContext,
    ]
}

/// `model` runs the built-ins named in `runs` and refuses the others at build.
fn builds_only<M: Model + Clone + 'static>(family: &str, model: M, runs: &[&str]) {
    for tool in every_builtin() {
        let name = tool.name();
        let built = Agent::<()>::builder(model.clone()).builtin_tool(tool).build();
        if runs.contains(&name) {
            assert!(built.is_ok(), "{family} runs {name}: {:?}", built.err());
        } else {
            assert!(
                matches!(&built, Err(BuildError::UnsupportedBuiltin(refused)) if *refused == name),
                "{family} cannot run {name}: {:?}",
                built.err()
            );
        }
    }
}

#[test]
fn builtin_01_each_family_builds_what_it_runs_and_refuses_the_rest() {
    builds_only("anthropic", crate::anthropic::client(NOWHERE), &["web_search", "web_fetch", "code_execution"]);
    builds_only("gemini", crate::gemini::client(NOWHERE), &["web_search", "code_execution", "url_context"]);
    let nova = crate::bedrock::client_with(crate::bedrock::builder(NOWHERE).model("us.amazon.nova-2-lite-v1:0"));
    builds_only("bedrock nova", nova, &["web_search", "code_execution"]);
    builds_only("bedrock claude", crate::bedrock::client(NOWHERE), &[]);
    builds_only("openai responses", crate::responses::client(NOWHERE), &["web_search", "code_execution"]);
    let chat = |model: &str| {
        let config = openai::Config::builder(openai::Preset::openai(), model).base_url(NOWHERE).api_key("sk-x");
        OpenAi::new(config.build().unwrap())
    };
    builds_only("openai chat", chat("gpt-4o"), &[]);
    builds_only("openai chat search", chat("gpt-4o-mini-search-preview"), &["web_search"]);
    let azure = azure::Config::builder(NOWHERE, "gpt-4o", "2024-12-01-preview").api_key("k").build().unwrap();
    builds_only("azure chat", AzureOpenAi::new(azure), &[]);
}
