//! `.output::<T>()` on the OpenAI client (issue 11 item 2, SPEC OUT-03,
//! OUT-08): an output type whose schema is not a plain object — a list, an
//! integer, an enum, an `Option` — goes out in native mode wrapped as
//! `{"response": T}`, with `strict` decided on the wrapped schema, and the
//! wrapped answer decodes back into `T`.

use crate::models::openai;
use crate::server::{text_body, Reply, Server};

use golem_io::Agent;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{json, Value};
use std::fmt::Debug;

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
struct Item {
    name: String,
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
enum Shape {
    Circle { radius: f64 },
    Label(String),
}

#[derive(Debug, PartialEq, Deserialize, JsonSchema)]
enum Colour {
    Red,
    Green,
}

/// One run of `.output::<T>()` against a server answering `answer` (the
/// model's JSON text): the decoded output and the `json_schema` sent.
fn run<T: DeserializeOwned + JsonSchema + Send + Sync + 'static>(answer: Value) -> (T, Value) {
    let server = Server::start(vec![Reply::json(200, text_body(&answer.to_string()))]);
    let agent = Agent::<()>::builder(openai(&server.url())).output::<T>().build().unwrap();
    let result = agent.run((), "answer").unwrap();
    let output = result.output;
    let sent = server.requests()[0].json();
    assert_eq!(sent["response_format"]["type"], "json_schema", "native mode on OpenAI: {sent}");
    (output, sent["response_format"]["json_schema"].clone())
}

/// The wrapper OpenAI accepts: an object root holding `response`, closed
/// and fully required, with nothing at the root OpenAI refuses there.
fn assert_wrapped(json_schema: &Value) -> &Value {
    let schema = &json_schema["schema"];
    assert_eq!(schema["type"], "object", "{schema}");
    assert_eq!(schema["required"], json!(["response"]), "{schema}");
    assert_eq!(schema["additionalProperties"], false, "{schema}");
    for keyword in ["anyOf", "oneOf", "allOf", "enum", "not"] {
        assert!(schema.get(keyword).is_none(), "{keyword} at the root: {schema}");
    }
    &schema["properties"]["response"]
}

fn check<T>(answer: Value, expected: T, strict: bool) -> Value
where
    T: DeserializeOwned + JsonSchema + Debug + PartialEq + Send + Sync + 'static,
{
    let (output, json_schema) = run::<T>(json!({ "response": answer }));
    assert_eq!(output, expected);
    assert_eq!(json_schema["strict"], strict, "{json_schema}");
    assert_wrapped(&json_schema).clone()
}

#[test]
fn a_list_is_wrapped_and_strict_when_its_items_qualify() {
    let inner =
        check(json!([{"name": "a"}, {"name": "b"}]), vec![Item { name: "a".into() }, Item { name: "b".into() }], true);
    assert_eq!(inner["type"], "array");
}

#[test]
fn an_integer_is_wrapped_and_loose_for_its_schemars_format() {
    // schemars marks u32 with `"format": "uint32"`, which strict mode refuses.
    let inner = check(json!(42), 42u32, false);
    assert_eq!(inner["type"], "integer");
}

#[test]
fn enums_are_wrapped_whatever_their_root() {
    let inner = check(json!({"Circle": {"radius": 1.5}}), Shape::Circle { radius: 1.5 }, false);
    assert!(inner.get("oneOf").is_some(), "a data enum is a oneOf: {inner}");
    let inner = check(json!("Green"), Colour::Green, true);
    assert_eq!(inner["enum"], json!(["Red", "Green"]));
}

#[test]
fn an_option_is_wrapped_and_null_decodes_to_none() {
    let some = check(json!({"name": "x"}), Some(Item { name: "x".into() }), true);
    assert!(some.get("type").is_none_or(|t| t != "object"), "an Option's root is not a plain object: {some}");
    check(Value::Null, None::<Item>, true);
}

#[test]
fn a_plain_object_goes_unwrapped() {
    let (output, json_schema) = run::<Item>(json!({"name": "solo"}));
    assert_eq!(output, Item { name: "solo".into() });
    assert_eq!(json_schema["schema"]["properties"]["name"]["type"], "string");
    assert_eq!(json_schema["strict"], true);
}
