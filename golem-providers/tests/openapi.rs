//! Our request bodies validate against the official OpenAPI spec's
//! `CreateChatCompletionRequest` for the fields we send (issue 5, "Show").
//!
//! The checker is deliberately small — not a JSON Schema validator. It
//! follows `$ref`, merges `allOf`, accepts a value when any `oneOf`/`anyOf`
//! branch does, and checks basic types, enums, required keys and — the point
//! of the exercise — that every key we send exists in the spec.

use crate::support;

use bytes::Bytes;
use golem_core::message::{Message, Part, PartKind, ToolCall};
use golem_core::model::{Request, WireToolChoice};
use golem_providers::azure;
use golem_providers::chat_completions::Tuning;
use golem_providers::codec::HttpCodec;
use golem_providers::openai::{Codec, Config, Preset};
use serde_json::{json, Map, Value};
use std::sync::{Arc, OnceLock};

struct Spec {
    schemas: Map<String, Value>,
}

fn spec() -> &'static Spec {
    static SPEC: OnceLock<Spec> = OnceLock::new();
    SPEC.get_or_init(|| {
        let path = support::fixtures_dir().join("specs/openai-openapi.yaml");
        let text = String::from_utf8(support::read(&path)).expect("UTF-8 spec");
        let yaml: serde_norway::Value =
            serde_norway::from_str(&widen_huge_integers(&text)).expect("the OpenAPI spec parses");
        let doc = to_json(&yaml);
        let schemas = doc["components"]["schemas"].as_object().expect("components.schemas").clone();
        Spec { schemas }
    })
}

/// The spec bounds `seed` with integers beyond 64 bits, which no YAML value
/// type here holds; written as floats they parse (and are never compared).
fn widen_huge_integers(text: &str) -> String {
    text.lines()
        .map(|line| {
            let value =
                line.trim_start().strip_prefix("minimum: ").or_else(|| line.trim_start().strip_prefix("maximum: "));
            match value {
                Some(v) if v.parse::<i64>().is_err() && v.parse::<i128>().is_ok() => format!("{line}.0\n"),
                _ => format!("{line}\n"),
            }
        })
        .collect()
}

/// YAML to JSON by hand: the spec has integers beyond 64 bits (`seed`'s
/// bounds), which a direct deserialisation into JSON refuses.
fn to_json(yaml: &serde_norway::Value) -> Value {
    use serde_norway::Value as Y;
    match yaml {
        Y::Null => Value::Null,
        Y::Bool(b) => Value::Bool(*b),
        Y::Number(n) => n
            .as_i64()
            .map(Value::from)
            .or_else(|| n.as_u64().map(Value::from))
            .unwrap_or_else(|| n.as_f64().map(Value::from).unwrap_or(Value::Null)),
        Y::String(s) => Value::String(s.clone()),
        Y::Sequence(items) => Value::Array(items.iter().map(to_json).collect()),
        Y::Mapping(map) => Value::Object(
            map.iter()
                .map(|(k, v)| (k.as_str().map(str::to_string).unwrap_or_else(|| format!("{k:?}")), to_json(v)))
                .collect(),
        ),
        Y::Tagged(tagged) => to_json(&tagged.value),
    }
}

impl Spec {
    fn resolve<'a>(&'a self, mut schema: &'a Value) -> &'a Value {
        for _ in 0..32 {
            match schema.get("$ref").and_then(Value::as_str) {
                Some(reference) => {
                    let name = reference.strip_prefix("#/components/schemas/").expect("local ref");
                    schema = self.schemas.get(name).unwrap_or_else(|| panic!("unknown schema {name}"));
                }
                None => return schema,
            }
        }
        panic!("$ref cycle")
    }

    /// The properties, required keys and additionalProperties of an object
    /// schema, merged over `allOf`.
    fn object_view<'a>(
        &'a self,
        schema: &'a Value,
        props: &mut Vec<(&'a str, &'a Value)>,
        required: &mut Vec<&'a str>,
    ) -> bool {
        let schema = self.resolve(schema);
        let mut open = match schema.get("additionalProperties") {
            Some(Value::Bool(false)) | None => false,
            Some(_) => true,
        };
        if let Some(Value::Object(p)) = schema.get("properties") {
            props.extend(p.iter().map(|(k, v)| (k.as_str(), v)));
        }
        if let Some(Value::Array(r)) = schema.get("required") {
            required.extend(r.iter().filter_map(Value::as_str));
        }
        for member in schema.get("allOf").and_then(Value::as_array).into_iter().flatten() {
            open |= self.object_view(member, props, required);
        }
        open
    }

    fn check(&self, value: &Value, schema: &Value, path: &str) -> Result<(), String> {
        let schema = self.resolve(schema);
        if value.is_null() && schema.get("nullable") == Some(&Value::Bool(true)) {
            return Ok(());
        }
        for combinator in ["oneOf", "anyOf"] {
            if let Some(branches) = schema.get(combinator).and_then(Value::as_array) {
                let errors: Vec<String> = branches.iter().filter_map(|b| self.check(value, b, path).err()).collect();
                if errors.len() == branches.len() {
                    return Err(format!("{path}: no {combinator} branch matches: [{}]", errors.join(" | ")));
                }
            }
        }
        if let Some(expected) = schema.get("type") {
            let types: Vec<&str> = match expected {
                Value::String(t) => vec![t.as_str()],
                Value::Array(ts) => ts.iter().filter_map(Value::as_str).collect(),
                _ => vec![],
            };
            let ok = types.iter().any(|t| match *t {
                "string" => value.is_string(),
                "integer" => value.is_i64() || value.is_u64(),
                "number" => value.is_number(),
                "boolean" => value.is_boolean(),
                "object" => value.is_object(),
                "array" => value.is_array(),
                "null" => value.is_null(),
                _ => false,
            });
            if !ok {
                return Err(format!("{path}: expected {types:?}, got {value}"));
            }
        }
        if let Some(Value::Array(allowed)) = schema.get("enum") {
            if !allowed.contains(value) {
                return Err(format!("{path}: {value} is not one of {allowed:?}"));
            }
        }
        if let Value::Array(items) = value {
            if let Some(item_schema) = schema.get("items") {
                for (i, item) in items.iter().enumerate() {
                    self.check(item, item_schema, &format!("{path}[{i}]"))?;
                }
            }
        }
        if let Value::Object(fields) = value {
            let is_object_schema = schema.get("properties").is_some() || schema.get("allOf").is_some();
            if is_object_schema {
                let (mut props, mut required) = (Vec::new(), Vec::new());
                let open = self.object_view(schema, &mut props, &mut required);
                for (key, field) in fields {
                    let schemas: Vec<&Value> = props.iter().filter(|(k, _)| k == key).map(|(_, s)| *s).collect();
                    if schemas.is_empty() && !open {
                        return Err(format!("{path}: key {key:?} is not in the spec"));
                    }
                    for s in schemas {
                        self.check(field, s, &format!("{path}.{key}"))?;
                    }
                }
                if let Some(missing) = required.iter().find(|r| !fields.contains_key(**r)) {
                    return Err(format!("{path}: required key {missing:?} is missing"));
                }
            }
        }
        Ok(())
    }

    fn check_request(&self, body: &Value) -> Result<(), String> {
        let root = self.schemas.get("CreateChatCompletionRequest").expect("CreateChatCompletionRequest");
        self.check(body, root, "$")
    }
}

/// A request exercising every field and message shape we encode.
fn kitchen_sink() -> Request {
    let parts = vec![
        Part::image_url("https://example.com/cat.png"),
        Part::image_data("image/png", Bytes::from_static(b"PNG")),
        {
            let mut part = golem_core::Part::from_url(PartKind::Document, String::new());
            part.url = String::new();
            part.data = Bytes::from_static(b"%PDF");
            part.media_type = "application/pdf".into();
            part
        },
        {
            let mut part = golem_core::Part::from_url(PartKind::Audio, String::new());
            part.url = String::new();
            part.data = Bytes::from_static(b"RIFF");
            part.media_type = "audio/wav".into();
            part
        },
    ];
    let tool = golem_core::tool::ToolDefinition::new(
        "chart",
        "Draw a chart.",
        json!({"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": false}),
    );
    {
        let mut request = golem_core::Request::new(vec![
            Message::system("Be brief."),
            Message::user("Look at these").with_parts(parts.clone()),
            {
                let mut request = Message::assistant_calls(vec![
                    ToolCall::new("c1", "chart", r#"{"q":"x"}"#),
                    ToolCall::new("c2", "chart", ""),
                ]);
                request.content = "Let me check.".into();
                request
            },
            Message::tool_result("c1", "chart", "done").with_parts(parts[..3].to_vec()),
            {
                let mut request = Message::tool_result("c2", "chart", "bad");
                request.failed = true;
                request
            },
            Message::assistant("Here."),
            Message::user("thanks"),
        ]);
        request.tools = Arc::new(vec![tool]);
        request.output_schema = Some(Arc::new(golem_core::model::OutputSchema::new(
            "Answer",
            json!({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"], "additionalProperties": false}),
        )));
        request.tool_choice = Some(WireToolChoice::Tool("chart".into()));
        request
    }
}

fn all_tuning() -> Tuning {
    Tuning::new()
        .temperature(0.7)
        .top_p(0.9)
        .max_tokens(256)
        .reasoning_effort("low")
        .parallel_tool_calls(true)
        .stop("STOP")
        .seed(42)
        .presence_penalty(0.1)
        .frequency_penalty(0.2)
        .user("user-1")
        .service_tier("auto")
}

fn body<C: HttpCodec>(codec: &C, request: &Request, stream: bool) -> Value {
    serde_json::from_slice(&codec.encode(request, stream).unwrap().body).unwrap()
}

#[test]
fn every_body_we_send_validates_against_the_spec() {
    let mut requests = vec![kitchen_sink(), Request::new(vec![Message::user("hi")])];
    let mut auto = kitchen_sink();
    auto.tool_choice = Some(WireToolChoice::Auto);
    requests.push(auto);
    for preset in [Preset::openai(), Preset::groq(), Preset::mistral()] {
        let codec =
            Codec::new(Config::builder(preset, "gpt-4o").api_key("sk-spec-test").tuning(all_tuning()).build().unwrap());
        for request in &requests {
            for stream in [false, true] {
                let json = body(&codec, request, stream);
                spec()
                    .check_request(&json)
                    .unwrap_or_else(|e| panic!("{} stream={stream}: {e}\n{json:#}", preset.name));
            }
        }
    }
    // Azure omits `model` on purpose (PROV-AZ-01); the rest is the same schema.
    let config = azure::Config::builder("https://x.openai.azure.com", "d", "2024-12-01-preview")
        .api_key("k-1234")
        .tuning(all_tuning())
        .build()
        .unwrap();
    let mut json = body(&azure::Codec::new(config), &kitchen_sink(), true);
    assert!(json.get("model").is_none());
    json["model"] = json!("gpt-4o");
    spec().check_request(&json).unwrap();
}

#[test]
fn recorded_request_bodies_validate_too() {
    for case in [
        "openai/chat_stream_parallel_tool_calls",
        "openai/chat_tool_call_gpt4o",
        "openai/chat_tool_call_roundtrip_gpt5mini",
    ] {
        for (n, _, _) in support::interactions(case) {
            let recorded = support::read_json(&support::case_dir(case).join(format!("{n:02}.request.json")));
            spec().check_request(&recorded).unwrap_or_else(|e| panic!("{case} {n}: {e}"));
        }
    }
}

#[test]
fn the_checker_catches_unknown_keys_and_wrong_types() {
    let good = json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]});
    spec().check_request(&good).unwrap();
    let cases = [
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "bogus": 1}),
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}], "temperature": "hot"}),
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi", "extra": true}]}),
        json!({"model": "gpt-4o", "messages": [{"role": "robot", "content": "hi"}]}),
        json!({"model": "gpt-4o", "messages": [{"role": "tool", "content": "hi"}]}),
        json!({"model": "gpt-4o", "messages": [{"role": "user", "content": [{"type": "image_url", "image_url": {"href": "x"}}]}]}),
        json!({"messages": [{"role": "user", "content": "hi"}]}),
        json!({"model": "gpt-4o", "messages": [], "tools": [{"type": "function", "function": {"name": 3}}]}),
    ];
    for bad in cases {
        assert!(spec().check_request(&bad).is_err(), "should fail: {bad}");
    }
}
