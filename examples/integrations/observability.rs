//! Watch a run the way production tools do: OpenTelemetry GenAI spans —
//! `invoke_agent`, one `chat {model}` per model-call attempt, one
//! `execute_tool {name}` per tool call — printed to stdout by
//! `tracing-subscriber`, and exported over OTLP/HTTP when
//! `OTEL_EXPORTER_OTLP_ENDPOINT` is set (e.g. `http://127.0.0.1:4318` for a
//! local collector or Jaeger).
//!
//! ```sh
//! cargo run -p golem-examples --bin observability
//! OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 cargo run -p golem-examples --bin observability
//! ```
//!
//! The run is offline (a scripted model: one failed attempt, a retry that
//! calls a tool, an answer), so the trace shows a retry, a tool span and
//! the cost the price table estimates. golem-io's `tracing` feature emits
//! the spans; this program only chooses where they go.

use golem_io::observe::{ModelInfo, TraceSettings};
use golem_io::testing::ScriptedModel;
use golem_io::{Agent, Tool, ToolContext};
use golem_io::{ModelError, Price, Response, ToolCall, Usage};
use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use std::time::Duration;
use tracing_subscriber::fmt::format::FmtSpan;
use tracing_subscriber::layer::SubscriberExt as _;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Spans to stdout as they close, with every attribute golem recorded.
    let stdout = tracing_subscriber::fmt::layer().with_ansi(false).with_span_events(FmtSpan::CLOSE).with_target(false);
    // …and to an OpenTelemetry collector when one is configured.
    let endpoint = std::env::var("OTEL_EXPORTER_OTLP_ENDPOINT").ok().filter(|e| !e.is_empty());
    let provider = match &endpoint {
        Some(endpoint) => {
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_http_client(UreqClient(ureq::Agent::new_with_defaults()))
                .with_endpoint(format!("{}/v1/traces", endpoint.trim_end_matches('/')))
                .build()?;
            Some(opentelemetry_sdk::trace::SdkTracerProvider::builder().with_simple_exporter(exporter).build())
        }
        None => None,
    };
    let otel = provider.as_ref().map(|p| tracing_opentelemetry::layer().with_tracer(p.tracer("golem-example")));
    let subscriber = tracing_subscriber::registry().with(stdout).with(otel);
    tracing::subscriber::set_global_default(subscriber)?;
    match &endpoint {
        Some(endpoint) => println!("exporting spans over OTLP/HTTP to {endpoint}"),
        None => println!("OTEL_EXPORTER_OTLP_ENDPOINT (not set: spans printed only)"),
    }

    let result = agent()?.run((), "What should I wear in Lagos today?")?;
    println!("output: {}", result.output);
    if let Some(provider) = provider {
        // Simple export already sent each span as it ended; this says
        // whether the last ones arrived.
        provider.shutdown()?;
    }
    Ok(())
}

/// An agent on a scripted model whose first attempt fails, priced like a
/// small hosted model so the trace carries `golem.cost_usd`.
fn agent() -> Result<Agent<()>, Box<dyn std::error::Error>> {
    let model = ScriptedModel::new()
        .fail(ModelError::api(503, "the service is busy"))
        .respond(
            Response::tool_calls(vec![ToolCall::new("call_1", "forecast", r#"{"city":"Lagos"}"#)])
                .with_usage(Usage::new(120, 18)),
        )
        .respond(Response::text("Sunny and 31°C: pack light clothes.").with_usage(Usage::new(160, 12)));
    let forecast = Tool::new(
        "forecast",
        "Today's forecast for a city.",
        serde_json::json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        |_: ToolContext<()>, args| Ok(format!("{}: sunny, 31°C", args["city"].as_str().unwrap_or("?"))),
    );
    let settings = TraceSettings::new()
        .agent_name("wardrobe")
        .model(ModelInfo::new("openai", "gpt-4o-mini").with_price(Price::per_million(0.15, 0.6)));
    Ok(Agent::builder(model)
        .tool(forecast)
        .max_attempts(2)
        .backoff(|_| Duration::from_millis(5))
        .trace(settings)
        .build()?)
}

/// OTLP's HTTP client on ureq, the HTTP stack golem already uses — no
/// async runtime needed. The simple span processor calls it from the
/// thread that ends a span, so blocking here is what it expects.
#[derive(Debug)]
struct UreqClient(ureq::Agent);

#[async_trait::async_trait]
impl opentelemetry_http::HttpClient for UreqClient {
    async fn send_bytes(
        &self,
        request: http::Request<opentelemetry_http::Bytes>,
    ) -> Result<http::Response<opentelemetry_http::Bytes>, opentelemetry_http::HttpError> {
        let (parts, body) = request.into_parts();
        let response = self.0.run(http::Request::from_parts(parts, body.to_vec()))?;
        let (parts, mut body) = response.into_parts();
        // A collector's answer is small; cap it anyway.
        let bytes = body.with_config().limit(4 * 1024 * 1024).read_to_vec()?;
        Ok(http::Response::from_parts(parts, opentelemetry_http::Bytes::from(bytes)))
    }
}
