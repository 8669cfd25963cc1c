//! Cost (SPEC USAGE-03, USAGE-05, USAGE-07, OBS-05) in simulated time: the
//! price formula, the run's cost on its summary, and the cost limit.

use crate::outcomes::{completed, failed};
use golem_core::machine::Start;
use golem_core::sim::{ModelReply, Sim};
use golem_core::*;
use std::time::Duration;

const MS: Duration = Duration::from_millis(1);

fn text(input: u64, output: u64) -> ModelReply {
    ModelReply::ok(MS, Response::text("x").with_usage(Usage::new(input, output)))
}

/// Two members: $1 / $2 per million in / out, and $10 / $20.
fn priced(limit: Option<f64>) -> RunConfig {
    let mut config = RunConfig::default();
    config.models = 2;
    config.prices = vec![Some(Price::per_million(1.0, 2.0)), Some(Price::per_million(10.0, 20.0))];
    if let Some(limit) = limit {
        config.limits = UsageLimits::new().cost_usd(limit);
    }
    config
}

#[test]
fn usage_07_cached_tokens_at_their_rates_and_zero_rates_fall_back_to_input() {
    let usage = Usage::new(1_000_000, 1_000_000).with_cache_read_tokens(200_000).with_cache_write_tokens(100_000);
    let price = Price::per_million(3.0, 15.0).with_cache_read(0.3).with_cache_write(3.75);
    // 700k uncached × 3 + 200k × 0.3 + 100k × 3.75 + 1M × 15
    assert!((price.cost(&usage) - (2.1 + 0.06 + 0.375 + 15.0)).abs() < 1e-9);
    let flat = Price::per_million(3.0, 15.0);
    assert!((flat.cost(&usage) - (3.0 + 15.0)).abs() < 1e-9);
    // A bad table entry cannot make a cost negative or NaN.
    let bad = Price::per_million(f64::NAN, -1.0);
    assert_eq!(bad.cost(&usage), 0.0);
}

#[test]
fn usage_07_the_summary_prices_each_members_usage_at_its_own_rate() {
    let replies = vec![ModelReply::err(MS, ModelError::api(503, "down")), text(1_000, 500)];
    let summary = completed(Sim::new(priced(None), Start::prompt("hi"), Sim::scripted(replies)).unwrap().run());
    // The failed primary used nothing; the fallback member 1k in, 500 out.
    let cost = summary.cost.expect("every member is priced");
    assert!((cost - (1_000.0 * 10.0 + 500.0 * 20.0) / 1e6).abs() < 1e-12, "{cost}");
    let unpriced = completed(
        Sim::new(RunConfig::default(), Start::prompt("hi"), Sim::scripted(vec![text(10, 10)])).unwrap().run(),
    );
    assert_eq!(unpriced.cost, None);
}

#[test]
fn usage_05_the_cost_limit_fails_after_the_crossing_response_in_micro_dollars() {
    // 3000 in + 1000 out on member 0: $0.003 + $0.002 = 5000 micro-dollars.
    let replies = vec![ModelReply::ok(
        MS,
        Response::tool_calls(vec![ToolCall::new("c1", "t", "{}")]).with_usage(Usage::new(3_000, 1_000)),
    )];
    let mut config = priced(Some(0.004));
    config.tools = vec![ToolSpec::new("t", "", serde_json::json!({"type": "object"}))];
    let error = failed(Sim::new(config, Start::prompt("hi"), Sim::scripted(replies)).unwrap().run());
    assert_eq!(error.stage, Stage::Usage);
    assert_eq!(error.to_string(), "usage stage: run exceeded the cost (micro-USD) limit of 4000 (used 5000)");
    assert_eq!(error.partial.expect("evidence").tool_calls, 0, "the crossing response's calls are not run");
    // Reaching the bound exactly is fine (crossing is strict).
    let replies = vec![text(3_000, 1_000)];
    completed(Sim::new(priced(Some(0.005)), Start::prompt("hi"), Sim::scripted(replies)).unwrap().run());
}

#[test]
fn cfg_03_a_cost_limit_without_a_price_for_every_member_does_not_build() {
    let mut config = priced(Some(1.0));
    config.prices[1] = None;
    assert_eq!(config.validate(), Err(BuildError::CostLimitWithoutPrice { unpriced: 1 }));
    config.prices.clear();
    assert_eq!(config.validate(), Err(BuildError::CostLimitWithoutPrice { unpriced: 2 }));
    assert_eq!(priced(Some(1.0)).validate(), Ok(()));
}
