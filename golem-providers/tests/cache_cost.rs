//! What a 20-tool-turn agent run pays for its input, with and without
//! prompt caching (issue 37), per family: each turn's request is encoded
//! by the family's codec as a run would send it, and billed by the
//! providers' documented caching rules at list prices.
//!
//! The rules, as each provider documents them:
//! - Anthropic and Bedrock (explicit): a request reads the longest prefix
//!   ending at one of its marks that an earlier request wrote, and writes
//!   the prefix up to its last mark; prefixes under the model's minimum
//!   (1,024 tokens for Claude Sonnet and Nova) are not cached.
//! - OpenAI, Azure OpenAI, Gemini (implicit): a request reads the longest
//!   prefix it shares with an earlier one, from 1,024 tokens, in steps of
//!   128 tokens (OpenAI, Azure); writes cost nothing extra.
//!
//! Tokens are estimated at four bytes of JSON each, the same estimate for
//! every family, so the columns compare policies, not tokenizers.
//! `cargo test -p golem-providers --all-features --test integration cache_cost -- --nocapture`
//! prints the table BENCHMARKS.md shows.

use golem_core::message::{Message, ToolCall, Usage};
use golem_core::model::Request;
use golem_core::tool::ToolDefinition;
use golem_core::Price;
use golem_providers::codec::HttpCodec;
use golem_providers::sigv4::Credentials;
use golem_providers::{anthropic, azure, bedrock, gemini, openai};
use serde_json::{json, Value};
use std::collections::HashSet;
use std::sync::Arc;

const TOOL_TURNS: usize = 20;

/// Instructions of about 1,500 tokens, as agents with a few pages of
/// rules and examples carry.
fn instructions() -> String {
    (0..60).map(|n| format!("Rule {n}: check each figure twice against the source before quoting it. ")).collect()
}

fn tools() -> Arc<Vec<ToolDefinition>> {
    let tool = |name: &str, what: &str| {
        let schema = json!({"type": "object", "required": ["query"],
            "properties": {"query": {"type": "string", "description": format!("What to {what}, in plain words.")},
                           "limit": {"type": "integer", "minimum": 1, "maximum": 50}}});
        ToolDefinition::new(name, format!("{what} and return the matching records as JSON lines."), schema)
    };
    Arc::new(vec![tool("search", "Search the catalogue"), tool("fetch", "Fetch a record"), tool("sum", "Sum figures")])
}

/// The history before request `turn`: per tool turn one call and a result
/// of about 200 tokens.
fn history(turn: usize) -> Vec<Message> {
    let mut messages = vec![Message::system(instructions()), Message::user("Reconcile the March invoices.")];
    for t in 0..turn {
        let id = format!("toolu_{t:02}");
        messages.push(Message::assistant_calls(vec![ToolCall::new(
            &id,
            "search",
            format!(r#"{{"query": "invoice batch {t}", "limit": 20}}"#),
        )]));
        let rows: String =
            (0..8).map(|r| format!("{{\"invoice\": \"INV-{t}-{r}\", \"amount\": {}.25}}\n", 100 + r)).collect();
        messages.push(Message::tool_result(&id, "search", rows));
    }
    messages
}

/// One block of the prompt in the order the provider caches it (tools,
/// instructions, conversation), its size in tokens and whether it ends
/// with a cache mark.
struct Block {
    bytes: Vec<u8>,
    marked: bool,
}

fn tokens(bytes: usize) -> u64 {
    bytes.div_ceil(4) as u64
}

fn block(value: &Value) -> Block {
    let mut value = value.clone();
    let marked = value.as_object_mut().is_some_and(|map| map.remove("cache_control").is_some());
    Block { bytes: serde_json::to_vec(&value).unwrap(), marked }
}

/// Anthropic's prompt order, marks on the blocks that carry them.
fn anthropic_blocks(body: &Value) -> Vec<Block> {
    let mut blocks: Vec<Block> = body["tools"].as_array().into_iter().flatten().map(block).collect();
    match &body["system"] {
        Value::Array(system) => blocks.extend(system.iter().map(block)),
        Value::Null => {}
        // The same text block a marked system is, counted alike.
        text => blocks.push(block(&json!({"type": "text", "text": text}))),
    }
    let content = body["messages"].as_array().into_iter().flatten().flat_map(|m| m["content"].as_array().unwrap());
    blocks.extend(content.map(block));
    blocks
}

/// Bedrock's prompt order; a `cachePoint` marks the block before it.
fn bedrock_blocks(body: &Value) -> Vec<Block> {
    let tools = body.pointer("/toolConfig/tools").and_then(Value::as_array).into_iter().flatten();
    let system = body["system"].as_array().into_iter().flatten();
    let content = body["messages"].as_array().into_iter().flatten().flat_map(|m| m["content"].as_array().unwrap());
    let mut blocks: Vec<Block> = Vec::new();
    for item in tools.chain(system).chain(content) {
        match (item.get("cachePoint"), blocks.last_mut()) {
            (Some(_), Some(last)) => last.marked = true,
            _ => blocks.push(block(item)),
        }
    }
    blocks
}

/// The prompt order of the implicit caches: tools, instructions, turns.
fn implicit_blocks(body: &Value, keys: &[&str]) -> Vec<Block> {
    let mut blocks = Vec::new();
    for key in keys {
        match &body[*key] {
            Value::Array(items) => blocks.extend(items.iter().map(block)),
            Value::Null => {}
            other => blocks.push(block(other)),
        }
    }
    blocks
}

/// The cumulative token count after each block.
fn ends(blocks: &[Block]) -> Vec<u64> {
    blocks
        .iter()
        .scan(0, |sum, b| {
            *sum += tokens(b.bytes.len());
            Some(*sum)
        })
        .collect()
}

/// The prefix of `blocks` up to block `i`, as a key.
fn prefix(blocks: &[Block], i: usize) -> Vec<u8> {
    blocks[..=i].iter().flat_map(|b| b.bytes.iter().copied()).collect()
}

/// Usage of each request under explicit marks (Anthropic, Bedrock).
fn explicit(requests: &[Vec<Block>], minimum: u64) -> Vec<Usage> {
    let mut written: HashSet<Vec<u8>> = HashSet::new();
    let mut usage = Vec::new();
    for blocks in requests {
        let ends = ends(blocks);
        let marks: Vec<usize> = (0..blocks.len()).filter(|&i| blocks[i].marked && ends[i] >= minimum).collect();
        let read = marks.iter().rev().find(|&&i| written.contains(&prefix(blocks, i))).map_or(0, |&i| ends[i]);
        let write = marks.last().map_or(0, |&i| ends[i].saturating_sub(read));
        written.extend(marks.iter().map(|&i| prefix(blocks, i)));
        let input = ends.last().copied().unwrap_or(0);
        usage.push(Usage::new(input, 0).with_cache_read_tokens(read).with_cache_write_tokens(write));
    }
    usage
}

/// Usage of each request under an implicit cache reading the longest
/// prefix shared with an earlier request, from `minimum` tokens, in steps.
fn implicit(requests: &[Vec<Block>], minimum: u64, step: u64) -> Vec<Usage> {
    let mut usage = Vec::new();
    for (n, blocks) in requests.iter().enumerate() {
        let ends = ends(blocks);
        let shared = requests[..n]
            .iter()
            .map(|earlier| earlier.iter().zip(blocks).take_while(|(a, b)| a.bytes == b.bytes).count())
            .max()
            .unwrap_or(0);
        let tokens = if shared == 0 { 0 } else { ends[shared - 1] / step * step };
        let read = if tokens >= minimum { tokens } else { 0 };
        usage.push(Usage::new(ends.last().copied().unwrap_or(0), 0).with_cache_read_tokens(read));
    }
    usage
}

struct Row {
    family: &'static str,
    model: &'static str,
    price: Price,
    uncached: Vec<Usage>,
    cached: Vec<Usage>,
}

fn total(usage: &[Usage]) -> Usage {
    usage.iter().fold(Usage::default(), |mut sum, u| {
        sum.add(u);
        sum
    })
}

fn bodies(codec: &impl HttpCodec) -> Vec<Value> {
    (0..=TOOL_TURNS)
        .map(|turn| {
            let request = Request::new(history(turn)).with_tools(tools());
            serde_json::from_slice(&codec.encode(&request, true).unwrap().body).unwrap()
        })
        .collect()
}

fn explicit_row(
    family: &'static str,
    model: &'static str,
    price: Price,
    plain: &impl HttpCodec,
    caching: &impl HttpCodec,
    blocks: fn(&Value) -> Vec<Block>,
) -> Row {
    let uncached: Vec<Vec<Block>> = bodies(plain).iter().map(blocks).collect();
    let cached: Vec<Vec<Block>> = bodies(caching).iter().map(blocks).collect();
    assert!(uncached.iter().flatten().all(|b| !b.marked), "{family}: no marks without caching");
    Row { family, model, price, uncached: explicit(&uncached, 1024), cached: explicit(&cached, 1024) }
}

fn implicit_row(
    family: &'static str,
    model: &'static str,
    price: Price,
    codec: &impl HttpCodec,
    keys: &[&str],
    step: u64,
) -> Row {
    let requests: Vec<Vec<Block>> = bodies(codec).iter().map(|b| implicit_blocks(b, keys)).collect();
    // Without a byte-stable prefix nothing would be shared: the
    // "without" column is what a run pays when its prefix changes.
    let uncached = requests.iter().map(|blocks| Usage::new(*ends(blocks).last().unwrap(), 0)).collect();
    Row { family, model, price, uncached, cached: implicit(&requests, 1024, step) }
}

fn rows() -> Vec<Row> {
    let credentials = || Credentials::new("AKIDEXAMPLE", "secret");
    let anthropic = |b: anthropic::ConfigBuilder| anthropic::Codec::new(b.build().unwrap());
    let claude = || anthropic::Config::builder("claude-sonnet-4-5").api_key("sk-ant-test");
    let bedrock = |b: bedrock::ConfigBuilder| bedrock::Codec::new(b.build().unwrap());
    let on_bedrock = |model: &str| bedrock::Config::builder("us-east-1", model).credentials(credentials());
    let sonnet = Price::per_million(3.0, 15.0).with_cache_read(0.30).with_cache_write(3.75);
    let nova_pro = Price::per_million(0.80, 3.20).with_cache_read(0.20);
    let openai = openai::Codec::new(
        openai::Config::builder(openai::Preset::openai(), "gpt-4.1").api_key("sk-test").build().unwrap(),
    );
    let azure = azure::Codec::new(
        azure::Config::builder("https://example.openai.azure.com", "gpt-4o", "2024-12-01-preview")
            .api_key("azure-test-key")
            .build()
            .unwrap(),
    );
    let gemini = gemini::Codec::new(gemini::Config::builder("gemini-2.5-flash").api_key("AIza-test").build().unwrap());
    const CLAUDE: &str = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
    const NOVA: &str = "amazon.nova-pro-v1:0";
    vec![
        explicit_row(
            "anthropic",
            "claude-sonnet-4-5",
            sonnet,
            &anthropic(claude().no_cache()),
            &anthropic(claude()),
            anthropic_blocks,
        ),
        explicit_row(
            "bedrock",
            "claude-sonnet-4-5",
            sonnet,
            &bedrock(on_bedrock(CLAUDE).no_cache()),
            &bedrock(on_bedrock(CLAUDE)),
            bedrock_blocks,
        ),
        explicit_row(
            "bedrock",
            "nova-pro",
            nova_pro,
            &bedrock(on_bedrock(NOVA).no_cache()),
            &bedrock(on_bedrock(NOVA)),
            bedrock_blocks,
        ),
        implicit_row(
            "openai",
            "gpt-4.1",
            Price::per_million(2.0, 8.0).with_cache_read(0.50),
            &openai,
            &["tools", "messages"],
            128,
        ),
        implicit_row(
            "azure",
            "gpt-4o",
            Price::per_million(2.5, 10.0).with_cache_read(1.25),
            &azure,
            &["tools", "messages"],
            128,
        ),
        implicit_row(
            "gemini",
            "gemini-2.5-flash",
            Price::per_million(0.30, 2.50).with_cache_read(0.075),
            &gemini,
            &["tools", "systemInstruction", "contents"],
            1,
        ),
    ]
}

#[test]
fn caching_cuts_what_a_twenty_turn_run_pays_for_its_input() {
    println!("| family | model | input tokens | full price, no caching | full price, caching | cache read | cache write | input $ no caching | input $ caching | saved |");
    println!("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|");
    for row in rows() {
        let (before, after) = (total(&row.uncached), total(&row.cached));
        assert_eq!(before.input_tokens, after.input_tokens, "{}: the marks are not billed as input", row.family);
        let (cost_before, cost_after) = (row.price.cost(&before), row.price.cost(&after));
        println!(
            "| {} | {} | {} | {} | {} | {} | {} | {:.4} | {:.4} | {:.0}% |",
            row.family,
            row.model,
            before.input_tokens,
            before.uncached_input_tokens(),
            after.uncached_input_tokens(),
            after.cache_read_tokens,
            after.cache_write_tokens,
            cost_before,
            cost_after,
            100.0 * (1.0 - cost_after / cost_before)
        );
        // Every turn after the first reads what the turn before it wrote.
        for (turn, usage) in row.cached.iter().enumerate().skip(1) {
            assert!(usage.cache_read_tokens > 0, "{} {}: turn {turn} reads nothing: {usage:?}", row.family, row.model);
        }
        assert!(after.uncached_input_tokens() * 5 < before.uncached_input_tokens(), "{} {}", row.family, row.model);
        assert!(cost_after < cost_before * 0.6, "{} {}: {cost_after} vs {cost_before}", row.family, row.model);
    }
}
