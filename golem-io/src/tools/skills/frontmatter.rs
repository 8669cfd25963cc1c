//! SKILL.md's frontmatter (SPEC SKILL-02): a `---` line, YAML, a `---`
//! line, then the body. A YAML parser reads the mapping; where it fails,
//! upstream's line subset (`key: rest of line`, quoted and block scalars)
//! is tried, so the common unquoted `description: Use when: …` — invalid
//! YAML — still loads.
//!
//! The YAML parser's work grows with the square of flow nesting (a 60 kB
//! `a: [[[[…` took seconds); frontmatter with more than
//! [`MAX_FLOW_COLLECTIONS`] `[` or `{` characters skips it and is read
//! with the line subset alone, which is linear (issue 15). Every bracket
//! counts, quoted or not, so none can be hidden from the count.

use serde_norway::Value;

/// The most `[` and `{` characters frontmatter may hold and still be read
/// by the YAML parser.
pub const MAX_FLOW_COLLECTIONS: usize = 64;

/// The tracked fields; the others (license, metadata, allowed-tools, …)
/// are ignored.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Frontmatter {
    /// `name`.
    pub name: Option<String>,
    /// `description`.
    pub description: Option<String>,
    /// `compatibility`.
    pub compatibility: Option<String>,
    /// The YAML parser's complaint when the line subset had to be used.
    pub yaml_error: Option<String>,
}

/// Split a SKILL.md into its frontmatter text and its body (the rest minus
/// one leading newline). CRLF line ends are tolerated.
pub fn split(content: &str) -> Result<(&str, &str), String> {
    let content = content.strip_prefix('\u{feff}').unwrap_or(content);
    let (first, mut rest) = next_line(content);
    if first != "---" {
        return Err("SKILL.md must start with a --- frontmatter block".into());
    }
    let yaml_start = rest;
    loop {
        if rest.is_empty() {
            return Err("frontmatter is not closed by a --- line".into());
        }
        let before = rest;
        let (line, after) = next_line(rest);
        if line == "---" {
            let yaml = &yaml_start[..yaml_start.len() - before.len()];
            let body = after.strip_prefix("\r\n").or_else(|| after.strip_prefix('\n')).unwrap_or(after);
            return Ok((yaml, body));
        }
        rest = after;
    }
}

/// The first line of `text` without its line end, and the text after it.
fn next_line(text: &str) -> (&str, &str) {
    let (line, rest) = match text.find('\n') {
        Some(at) => (&text[..at], &text[at + 1..]),
        None => (text, ""),
    };
    (line.strip_suffix('\r').unwrap_or(line), rest)
}

/// Read the tracked fields from the frontmatter text.
pub fn parse(yaml: &str) -> Result<Frontmatter, String> {
    let flow = yaml.bytes().filter(|b| matches!(b, b'[' | b'{')).count();
    let parsed = if flow > MAX_FLOW_COLLECTIONS {
        Err(format!("more than {MAX_FLOW_COLLECTIONS} flow collections ([ or {{) for the YAML parser"))
    } else {
        serde_norway::from_str::<Value>(yaml).map_err(|e| e.to_string())
    };
    let yaml_error = match parsed {
        Ok(Value::Mapping(map)) => {
            let field = |key: &str| scalar(key, map.get(key));
            return Ok(Frontmatter {
                name: field("name")?,
                description: field("description")?,
                compatibility: field("compatibility")?,
                yaml_error: None,
            });
        }
        Ok(Value::Null) if yaml.trim().is_empty() => return Ok(Frontmatter::default()),
        Ok(_) => "frontmatter is not a YAML mapping".to_string(),
        Err(e) => e,
    };
    let mut fields = line_subset(yaml);
    fields.yaml_error = Some(yaml_error);
    Ok(fields)
}

/// A tracked key's value as text: strings as they are, numbers and
/// booleans spelled out, null as absent.
fn scalar(key: &str, value: Option<&Value>) -> Result<Option<String>, String> {
    match value {
        None | Some(Value::Null) => Ok(None),
        // Block scalars keep a final newline; a name or description has no use for it.
        Some(Value::String(s)) => Ok(Some(s.trim().to_string())),
        Some(Value::Bool(b)) => Ok(Some(b.to_string())),
        Some(Value::Number(n)) => Ok(Some(n.to_string())),
        Some(_) => Err(format!("{key} must be a string")),
    }
}

/// What a pending multi-line value collects into.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Pending {
    None,
    /// An untracked key's nested lines, swallowed.
    Ignored,
    /// A tracked key's block: literal (`|`) or folded (`>` or a plain
    /// scalar continued on indented lines).
    Tracked {
        key: Key,
        folded: bool,
    },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Key {
    Name,
    Description,
    Compatibility,
}

/// Upstream's line subset: top-level `key: value` lines, quoted values,
/// block scalars; anything else is skipped.
fn line_subset(yaml: &str) -> Frontmatter {
    let mut out = Frontmatter::default();
    let mut pending = Pending::None;
    let mut block: Vec<&str> = Vec::new();
    let flush = |out: &mut Frontmatter, pending: Pending, block: &mut Vec<&str>| {
        if let Pending::Tracked { key, folded } = pending {
            assign(out, key, render_block(block, folded));
        }
        block.clear();
    };
    for raw in yaml.split('\n') {
        let line = raw.strip_suffix('\r').unwrap_or(raw);
        if pending != Pending::None && (line.trim().is_empty() || line.starts_with([' ', '\t'])) {
            block.push(line);
            continue;
        }
        let Some((key, rest)) = split_key(line) else { continue };
        flush(&mut out, pending, &mut block);
        let Some(key) = tracked(key) else {
            pending = Pending::Ignored;
            continue;
        };
        if rest.is_empty() {
            pending = Pending::Tracked { key, folded: true };
        } else if is_block_indicator(rest) {
            pending = Pending::Tracked { key, folded: rest.starts_with('>') };
        } else {
            pending = Pending::None;
            assign(&mut out, key, unquote(rest));
        }
    }
    flush(&mut out, pending, &mut block);
    out
}

fn tracked(key: &str) -> Option<Key> {
    match key {
        "name" => Some(Key::Name),
        "description" => Some(Key::Description),
        "compatibility" => Some(Key::Compatibility),
        _ => None,
    }
}

fn assign(out: &mut Frontmatter, key: Key, value: String) {
    let slot = match key {
        Key::Name => &mut out.name,
        Key::Description => &mut out.description,
        Key::Compatibility => &mut out.compatibility,
    };
    *slot = Some(value);
}

/// A top-level `key: rest` line (not indented, not a comment, a plain key).
fn split_key(line: &str) -> Option<(&str, &str)> {
    if line.is_empty() || line.starts_with([' ', '\t', '#']) {
        return None;
    }
    let (key, rest) = line.split_once(':')?;
    let key = key.trim();
    if key.is_empty() || key.contains([' ', '\t', '"', '\'', '{', '}', '[', ']', ',', '&', '*']) {
        return None;
    }
    Some((key, rest.trim()))
}

/// `|`, `>`, with optional chomping (`+`, `-`) and indentation digits.
fn is_block_indicator(value: &str) -> bool {
    let mut chars = value.chars();
    matches!(chars.next(), Some('|' | '>')) && chars.all(|c| c.is_ascii_digit() || c == '+' || c == '-')
}

/// Block lines with their common indentation removed: joined by newlines
/// (literal) or by spaces with blank lines as newlines (folded).
fn render_block(lines: &[&str], folded: bool) -> String {
    let indent = lines
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start_matches([' ', '\t']).len())
        .min()
        .unwrap_or(0);
    let lines: Vec<&str> = lines.iter().map(|l| if l.trim().is_empty() { "" } else { &l[indent..] }).collect();
    if !folded {
        return lines.join("\n").trim_end_matches('\n').to_string();
    }
    let mut out = String::new();
    for (i, line) in lines.iter().enumerate() {
        if line.is_empty() {
            out.push('\n');
            continue;
        }
        if i > 0 && !lines[i - 1].is_empty() {
            out.push(' ');
        }
        out.push_str(line);
    }
    out.trim_end_matches(['\n', ' ']).to_string()
}

/// A quoted scalar's content (`"…"` with `\"` and `\\`, `'…'` with `''`).
fn unquote(value: &str) -> String {
    if value.len() >= 2 {
        if let Some(inner) = value.strip_prefix('"').and_then(|v| v.strip_suffix('"')) {
            return inner.replace("\\\"", "\"").replace("\\\\", "\\");
        }
        if let Some(inner) = value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')) {
            return inner.replace("''", "'");
        }
    }
    value.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn splits_with_crlf_and_drops_one_leading_newline() {
        assert_eq!(split("---\r\nname: a\r\n---\r\n\r\nbody\n"), Ok(("name: a\r\n", "body\n")));
        assert_eq!(split("---\n---\nbody"), Ok(("", "body")));
        assert!(split("name: a\n---\n").is_err());
        assert!(split("---\nname: a\n").is_err());
    }

    #[test]
    fn yaml_first_then_the_line_subset() {
        let fm = parse("name: pdf\ndescription: \"Read PDFs\"\nlicense: MIT\nmetadata:\n  a: 1\n").unwrap();
        assert_eq!(
            (fm.name.as_deref(), fm.description.as_deref(), fm.yaml_error),
            (Some("pdf"), Some("Read PDFs"), None)
        );
        let fm = parse("name: pdf\ndescription: Use when: the user asks\n").unwrap();
        assert_eq!(fm.description.as_deref(), Some("Use when: the user asks"));
        assert!(fm.yaml_error.is_some());
        let fm =
            parse("name: x\ndescription: a: b\ncompatibility: |\n  line one\n  line two\nother: >\n  skip\n").unwrap();
        assert_eq!(fm.compatibility.as_deref(), Some("line one\nline two"));
        assert!(parse("name: [a, b]\ndescription: d\n").is_err());
    }

    #[test]
    fn deep_flow_nesting_skips_the_yaml_parser() {
        let nested = format!("name: x\ndescription: d\nmetadata: {}{}\n", "[".repeat(30_000), "]".repeat(30_000));
        let fm = parse(&nested).unwrap();
        assert_eq!((fm.name.as_deref(), fm.description.as_deref()), (Some("x"), Some("d")), "the line subset reads it");
        assert!(fm.yaml_error.as_deref().is_some_and(|e| e.contains("more than 64 flow collections")), "{fm:?}");
        // Brackets inside quotes count too: they cannot hide nesting.
        let quoted = format!("name: x\ndescription: \"{}\"\n", "[".repeat(65));
        assert!(parse(&quoted).unwrap().yaml_error.is_some());
        let ordinary = "name: x\ndescription: d\nallowed-tools: [Read, Write]\nmetadata: {a: [1, 2]}\n";
        assert_eq!(parse(ordinary).unwrap().yaml_error, None);
    }
}
