//! Embeddings and retrieval (SPEC EXTRA-02, EX-29): a small corpus embedded
//! into an in-memory index, and a `search` tool that embeds the model's
//! query and returns the closest passages — retrieval as an ordinary golem
//! tool. The passages are embedded by a real provider when the environment
//! names one — `OPENAI_API_KEY` or `OPENAI_BASE_URL` (an Ollama or
//! llama.cpp server too; model `OPENAI_EMBEDDING_MODEL`, default
//! `text-embedding-3-small`), else `GEMINI_API_KEY` (model
//! `gemini-embedding-001`) — and offline by the `TestEmbedder` (texts
//! sharing words land close together): every provider client implements the
//! same `Embedder` trait. The model is a fake that searches, then answers
//! from what it found.
//!
//! The index is a plain vector of (passage, vector) pairs scored by cosine
//! similarity: enough for a few thousand passages. A real knowledge base
//! keeps its vectors in a vector database (Qdrant, LanceDB, pgvector, …);
//! the tool's shape stays the same, only `search` asks the database.

use golem_io::embed::cosine;
use golem_io::testing::{FnModel, TestEmbedder};
use golem_io::{Agent, EmbedRequest, Embedder, Response, Role, Tool, ToolCall, ToolContext, ToolError};
use golem_providers::{Gemini, OpenAi};
use std::sync::Arc;

/// A provider's embeddings client when the environment names one, else
/// the offline test embedder; with a label saying which.
fn embedder() -> Result<(Arc<dyn Embedder>, String), Box<dyn std::error::Error>> {
    let var = |name: &str| std::env::var(name).ok().filter(|v| !v.trim().is_empty());
    let (openai_key, openai_url) = (var("OPENAI_API_KEY"), var("OPENAI_BASE_URL"));
    if openai_key.is_some() || openai_url.is_some() {
        let model = var("OPENAI_EMBEDDING_MODEL").unwrap_or_else(|| "text-embedding-3-small".into());
        let mut builder = OpenAi::builder().model(&model);
        if let Some(key) = openai_key {
            builder = builder.api_key(key);
        }
        if let Some(url) = openai_url {
            builder = builder.base_url(url);
        }
        return Ok((Arc::new(builder.build()?), format!("{model} (OpenAI-compatible)")));
    }
    if let Some(key) = var("GEMINI_API_KEY") {
        let client = Gemini::builder().model("gemini-embedding-001").api_key(key).build()?;
        return Ok((Arc::new(client), "gemini-embedding-001 (Gemini)".into()));
    }
    let offline = "the offline TestEmbedder (set OPENAI_API_KEY, OPENAI_BASE_URL or GEMINI_API_KEY for a real one)";
    Ok((Arc::new(TestEmbedder::new(256)), offline.into()))
}

/// Passages and their vectors, searched by cosine similarity.
struct Index {
    embedder: Arc<dyn Embedder>,
    passages: Vec<(String, Vec<f32>)>,
}

impl Index {
    /// Embed `passages` as documents, in one request (a provider client
    /// splits it into batches its API accepts).
    fn build(embedder: Arc<dyn Embedder>, passages: &[&str]) -> Result<Index, golem_io::ModelError> {
        let embedded = embedder.embed(&EmbedRequest::documents(passages.iter().copied()))?;
        let passages = passages.iter().map(|p| p.to_string()).zip(embedded.vectors).collect();
        Ok(Index { embedder, passages })
    }

    /// The `k` passages closest to `query`, best first, with their scores.
    fn search(&self, query: &str, k: usize) -> Result<Vec<(f32, &str)>, golem_io::ModelError> {
        let query = self.embedder.embed(&EmbedRequest::query(query))?;
        let mut scored: Vec<(f32, &str)> =
            self.passages.iter().map(|(text, vector)| (cosine(vector, &query.vectors[0]), text.as_str())).collect();
        scored.sort_by(|a, b| b.0.total_cmp(&a.0));
        scored.truncate(k);
        Ok(scored)
    }
}

#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Search {
    /// What to look for, in a few words.
    query: String,
}

/// The tool: the top three passages as numbered lines.
fn search(ctx: ToolContext<Index>, args: Search) -> Result<String, ToolError> {
    let hits = ctx.deps().search(&args.query, 3)?;
    Ok(hits
        .iter()
        .enumerate()
        .map(|(n, (score, text))| format!("{}. ({score:.2}) {text}", n + 1))
        .collect::<Vec<_>>()
        .join("\n"))
}

const CORPUS: &[&str] = &[
    "Refunds are issued within 14 days of the return reaching our warehouse.",
    "Our support desk is open Monday to Friday, 9:00 to 17:00 CET.",
    "Shipping to Norway takes 3 to 5 working days and costs 9 euros.",
    "Gift cards never expire and can be used on any order.",
    "Returns are free within 30 days of delivery if the item is unused.",
];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (embedder, label) = embedder()?;
    println!("embedder: {label}");
    let index = Index::build(embedder, CORPUS)?;
    println!("indexed {} passages", index.passages.len());

    // Searches with the user's question, then answers from the best hit —
    // what a real model does with the tool's result.
    let model = FnModel::new(|request| {
        if let Some(found) = request.messages.iter().rev().find(|m| m.role == Role::Tool) {
            let best = found.content.lines().next().unwrap_or_default();
            let passage = best.split_once(") ").map_or(best, |(_, text)| text);
            return Ok(Response::text(format!("According to our policies: {passage}")));
        }
        let question = request.messages.iter().rev().find(|m| m.role == Role::User).map(|m| m.content.clone());
        let args = serde_json::json!({ "query": question.unwrap_or_default() });
        Ok(Response::tool_calls(vec![ToolCall::new("call_1", "search", args.to_string())]))
    });
    let agent = Agent::builder(model)
        .instructions("Answer from the knowledge base only; search it first.")
        .tool(Tool::typed("search", "Search the knowledge base for passages about a topic.", search))
        .build()?;
    let result = agent.run(index, "How many days do refunds take?")?;
    let found = result.messages.iter().find(|m| m.role == Role::Tool).map(|m| m.content.clone()).unwrap_or_default();
    println!("search results:\n{found}");
    println!("answer: {}", result.output);
    Ok(())
}
