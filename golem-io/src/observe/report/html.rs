//! The timeline as one HTML page.
//!
//! Every string from the run — prompts, responses, tool names, arguments,
//! results, error texts, ids, model names — is untrusted and goes through
//! [`escape`]. The page loads nothing: its style and script are inline, and
//! its Content-Security-Policy forbids every other source, so an escaping
//! slip still could not fetch or send anything.

use super::timeline::{Item, ModelRow, Note, Timeline, ToolRow};
use crate::observe::names::{finish_reason, model_error_type};
use golem_core::{Message, ProviderPartKind, Role, ToolEndOutcome, Usage};
use std::fmt::Write as _;

/// Text made safe for HTML element content and quoted attribute values.
pub(crate) fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            // Controls other than whitespace have no business in a page.
            c if c.is_control() && !matches!(c, '\n' | '\t' | '\r') => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = r#"
body{font:14px/1.45 system-ui,sans-serif;margin:24px;color:#1d2330;background:#fafbfc}
h1{font-size:20px;margin:0 0 4px}h2{font-size:16px;margin:24px 0 8px}
.meta{color:#5b6475;font-size:12px}.totals{display:flex;gap:16px;flex-wrap:wrap;margin:12px 0}
.totals div{background:#fff;border:1px solid #dde1e8;border-radius:6px;padding:8px 12px}
.totals b{display:block;font-size:18px}
.outcome-completed{color:#1a7f37}.outcome-failed{color:#c62828}.outcome-paused,.outcome-unfinished{color:#9a6700}
.turn{margin:16px 0 4px;font-weight:600}
.row{display:grid;grid-template-columns:90px 150px 1fr 110px;gap:8px;align-items:start;background:#fff;
border:1px solid #dde1e8;border-left:4px solid #6f8cff;border-radius:4px;padding:6px 10px;margin:4px 0}
.row.tool{border-left-color:#2da44e}.row.note{border-left-color:#9a6700}.row.error{border-left-color:#c62828;background:#fff5f5}
.kind{font-weight:600}.at,.dur{color:#5b6475;font-variant-numeric:tabular-nums}
.bar{height:4px;background:#6f8cff;border-radius:2px;margin-top:4px;min-width:2px}
.tool .bar{background:#2da44e}
pre{white-space:pre-wrap;word-break:break-word;margin:4px 0;background:#f3f4f7;padding:6px;border-radius:4px}
details summary{cursor:pointer;color:#33407a}
.msg{border-top:1px solid #eef0f4;padding:6px 0}.role{font-weight:600;text-transform:uppercase;font-size:11px;color:#5b6475}
"#;

/// The page's only script: it marks the page as scripted (a test reads the
/// mark) and, should anything throw, writes an error marker into the page.
const SCRIPT: &str = r#"
window.onerror=function(m){var e=document.createElement('div');e.id='golem-script-error';
e.textContent=String(m);document.body.appendChild(e);};
document.addEventListener('DOMContentLoaded',function(){
var open=document.getElementById('expand-all');
open.addEventListener('click',function(){var all=document.querySelectorAll('details');
var shut=Array.prototype.some.call(all,function(d){return !d.open;});
all.forEach(function(d){d.open=shut;});open.textContent=shut?'Collapse all':'Expand all';});
document.body.setAttribute('data-script-ok','1');});
"#;

/// The page for `timeline`.
pub(super) fn page(timeline: &Timeline) -> String {
    let mut out = String::new();
    // Writing to a String cannot fail.
    let _ = write_page(&mut out, timeline);
    out
}

fn write_page(out: &mut String, t: &Timeline) -> std::fmt::Result {
    let ending = &t.ending;
    let tools = t.items.iter().filter(|i| matches!(i, Item::Tool(_))).count();
    let attempts = t.items.iter().filter(|i| matches!(i, Item::Model(_))).count();
    writeln!(out, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">")?;
    writeln!(
        out,
        "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'\">"
    )?;
    writeln!(out, "<meta name=\"viewport\" content=\"width=device-width\">")?;
    let agent = match t.agent.as_str() {
        "" => String::new(),
        name => format!(" of <span id=\"agent\">{}</span>", escape(name)),
    };
    let titled = if t.agent.is_empty() { String::new() } else { format!("{} — ", escape(&t.agent)) };
    writeln!(out, "<title>{titled}golem run {}</title>", escape(&t.run_id))?;
    writeln!(out, "<style>{STYLE}</style><script>{SCRIPT}</script></head><body>")?;
    writeln!(out, "<h1>golem run{agent} <span class=\"outcome-{0}\" id=\"outcome\">{0}</span></h1>", ending.kind)?;
    writeln!(
        out,
        "<div class=\"meta\">run <code id=\"run-id\">{}</code> · conversation <code>{}</code> · started <time id=\"started\">{}</time></div>",
        escape(&t.run_id),
        escape(&t.conversation_id),
        utc(t.started_at_unix_ms)
    )?;
    if let Some(error) = &ending.error {
        writeln!(out, "<pre class=\"outcome-failed\" id=\"run-error\">{}</pre>", escape(error))?;
    }
    writeln!(out, "<div class=\"totals\">")?;
    let total = |label: &str, id: &str, value: String| format!("<div>{label}<b id=\"{id}\">{value}</b></div>");
    out.push_str(&total("turns", "turn-count", t.turns().to_string()));
    out.push_str(&total("model attempts", "attempt-count", attempts.to_string()));
    out.push_str(&total("tool calls", "tool-count", tools.to_string()));
    out.push_str(&total("input tokens", "input-tokens", ending.usage.input_tokens.to_string()));
    out.push_str(&total("output tokens", "output-tokens", ending.usage.output_tokens.to_string()));
    out.push_str(&total("requests", "requests", ending.requests.to_string()));
    out.push_str(&total("duration", "duration", format!("{:.1} ms", t.offset_ms(t.last))));
    if let Some(cost) = t.cost {
        out.push_str(&total("est. cost", "cost", format!("${cost:.6}")));
    }
    writeln!(out, "</div>")?;
    writeln!(out, "<h2>Timeline <button id=\"expand-all\" type=\"button\">Expand all</button></h2>")?;
    writeln!(out, "<div id=\"timeline\">")?;
    let span = t.offset_ms(t.last).max(1.0);
    let mut turn = None;
    for item in &t.items {
        if let Item::Model(row) = item {
            if turn != Some((row.round, row.turn)) {
                turn = Some((row.round, row.turn));
                let round = if row.round > 0 { format!(" (correction round {})", row.round) } else { String::new() };
                writeln!(out, "<div class=\"turn\">Turn {}{round}</div>", row.turn + 1)?;
            }
        }
        match item {
            Item::Model(row) => model_row(out, t, row, span)?,
            Item::Tool(row) => tool_row(out, t, row, span)?,
            Item::Note(note) => note_row(out, t, note)?,
        }
    }
    writeln!(out, "</div>")?;
    writeln!(out, "<h2>Messages</h2><div id=\"messages\">")?;
    for message in &ending.messages {
        message_block(out, message)?;
    }
    writeln!(out, "</div></body></html>")
}

/// `unix_ms` as `YYYY-MM-DD HH:MM:SS.mmm UTC` (proleptic Gregorian, from
/// the day count; logs written before runs had a start time read 1970).
fn utc(unix_ms: u64) -> String {
    let (days, ms) = (unix_ms / 86_400_000, unix_ms % 86_400_000);
    // Days since 1970-01-01 to a civil date: eras of 400 years (146,097
    // days) starting on 0000-03-01, so leap days fall at the end of a year.
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + u64::from(month <= 2);
    let (h, m, s) = (ms / 3_600_000, ms / 60_000 % 60, ms / 1_000 % 60);
    format!("{year:04}-{month:02}-{day:02} {h:02}:{m:02}:{s:02}.{:03} UTC", ms % 1_000)
}

fn duration(t: &Timeline, started: golem_core::Moment, ended: Option<golem_core::Moment>) -> (f64, String) {
    match ended {
        Some(end) => {
            let ms = t.offset_ms(end) - t.offset_ms(started);
            (ms, format!("{ms:.1} ms"))
        }
        None => (0.0, "unfinished".to_string()),
    }
}

fn bar(t: &Timeline, started: golem_core::Moment, ms: f64, span: f64) -> String {
    let left = t.offset_ms(started) / span * 100.0;
    let width = (ms / span * 100.0).max(0.5);
    format!("<div class=\"bar\" style=\"margin-left:{left:.2}%;width:{width:.2}%\"></div>")
}

fn usage_text(usage: &Usage) -> String {
    let mut text = format!("{} in / {} out", usage.input_tokens, usage.output_tokens);
    if usage.cache_read_tokens > 0 {
        let _ = write!(text, " ({} cached)", usage.cache_read_tokens);
    }
    text
}

fn model_row(out: &mut String, t: &Timeline, row: &ModelRow, span: f64) -> std::fmt::Result {
    let (ms, dur) = duration(t, row.started, row.ended);
    let class = if row.error.is_some() { "row model error" } else { "row model" };
    let model = row.model.as_deref().map_or_else(|| format!("member {}", row.member), escape);
    let mut detail = format!("{model} · attempt {}", row.attempt);
    if row.member > 0 {
        let _ = write!(detail, " · fallback member {}", row.member);
    }
    if row.streamed {
        detail.push_str(" · streamed");
    }
    match &row.error {
        Some(error) => {
            let _ = write!(
                detail,
                " · <span class=\"error-type\">{}</span>: {}",
                model_error_type(error),
                escape(&error.to_string())
            );
        }
        None => {
            let _ = write!(detail, " · {}", usage_text(&row.usage));
            if let Some(finish) = row.finish {
                let _ = write!(detail, " · {}", finish_reason(finish));
            }
            if let Some(cost) = row.cost {
                let _ = write!(detail, " · ${cost:.6}");
            }
        }
    }
    writeln!(
        out,
        "<div class=\"{class}\" data-kind=\"model\"><span class=\"at\">+{:.1} ms</span><span class=\"kind\">chat</span><div>{detail}{}",
        t.offset_ms(row.started),
        bar(t, row.started, ms, span)
    )?;
    if let Some(message) = &row.response {
        writeln!(out, "<details><summary>response</summary>")?;
        message_block(out, message)?;
        writeln!(out, "</details>")?;
    }
    writeln!(out, "</div><span class=\"dur\">{dur}</span></div>")
}

fn tool_row(out: &mut String, t: &Timeline, row: &ToolRow, span: f64) -> std::fmt::Result {
    let (ms, dur) = duration(t, row.started, row.ended);
    let (status, text, error) = match (&row.outcome, &row.deferred) {
        (_, Some(reason)) => ("deferred".to_string(), reason.clone(), false),
        (Some(ToolEndOutcome::Output { content }), _) => ("ok".to_string(), content.clone(), false),
        (Some(outcome), _) => {
            let kind = serde_json::to_value(outcome).ok();
            let kind = kind.as_ref().and_then(|v| v.get("type")).and_then(|v| v.as_str()).unwrap_or("error");
            (kind.to_string(), outcome.error_text().unwrap_or_default(), true)
        }
        (None, None) => ("unfinished".to_string(), String::new(), true),
    };
    let class = if error { "row tool error" } else { "row tool" };
    writeln!(
        out,
        "<div class=\"{class}\" data-kind=\"tool\"><span class=\"at\">+{:.1} ms</span><span class=\"kind\">execute_tool</span><div><span class=\"tool-name\">{}</span> <code>{}</code> · {}{}",
        t.offset_ms(row.started),
        escape(&row.tool),
        escape(&row.call_id),
        escape(&status),
        bar(t, row.started, ms, span)
    )?;
    writeln!(
        out,
        "<details><summary>arguments and result</summary><pre>{}</pre><pre>{}</pre></details>",
        escape(&row.args),
        escape(&text)
    )?;
    writeln!(out, "</div><span class=\"dur\">{dur}</span></div>")
}

fn note_row(out: &mut String, t: &Timeline, note: &Note) -> std::fmt::Result {
    let class = if note.error { "row note error" } else { "row note" };
    writeln!(
        out,
        "<div class=\"{class}\" data-kind=\"note\"><span class=\"at\">+{:.1} ms</span><span class=\"kind\">{}</span><div>{}</div><span></span></div>",
        t.offset_ms(note.at),
        note.kind,
        escape(&note.text)
    )
}

fn message_block(out: &mut String, message: &Message) -> std::fmt::Result {
    let role = match message.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    write!(out, "<div class=\"msg\"><div class=\"role\">{role}")?;
    if !message.tool_name.is_empty() {
        write!(out, " · {}", escape(&message.tool_name))?;
    }
    writeln!(out, "</div>")?;
    let short: String = message.content.chars().take(160).collect();
    if short.len() < message.content.len() {
        writeln!(
            out,
            "<details><summary>{}…</summary><pre>{}</pre></details>",
            escape(&short),
            escape(&message.content)
        )?;
    } else if !message.content.is_empty() {
        writeln!(out, "<pre>{}</pre>", escape(&message.content))?;
    }
    for call in &message.tool_calls {
        writeln!(
            out,
            "<details><summary>calls {} <code>{}</code></summary><pre>{}</pre></details>",
            escape(&call.name),
            escape(&call.id),
            escape(call.args.as_str())
        )?;
    }
    // What the provider's built-in tools did: run by the provider, shown as such.
    for part in &message.provider_parts {
        let kind = match part.kind {
            ProviderPartKind::Call => "runs",
            ProviderPartKind::Result => "result of",
            _ => "metadata",
        };
        writeln!(
            out,
            "<details class=\"builtin\"><summary>{} {kind} {} <code>{}</code></summary><pre>{}</pre></details>",
            escape(&part.provider),
            escape(&part.name),
            escape(&part.id),
            escape(part.raw.as_str())
        )?;
    }
    writeln!(out, "</div>")
}

#[cfg(test)]
mod tests {
    use super::utc;

    #[test]
    fn civil_dates_from_unix_milliseconds() {
        assert_eq!(utc(0), "1970-01-01 00:00:00.000 UTC");
        // A leap day, and the day after a century non-leap February.
        assert_eq!(utc(951_782_400_000), "2000-02-29 00:00:00.000 UTC");
        assert_eq!(utc(4_107_542_400_000), "2100-03-01 00:00:00.000 UTC");
        assert_eq!(utc(1_796_314_238_577), "2026-12-03 16:10:38.577 UTC");
        // Far past any log, still no panic.
        assert!(utc(u64::MAX).ends_with(" UTC"));
    }
}
