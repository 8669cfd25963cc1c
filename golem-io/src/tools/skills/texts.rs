//! What the model reads from `skill` (SPEC SKILL): the tool's name,
//! description, catalog and schema, its rejections, and the layout of a
//! loaded skill — upstream's literals (Go golem v0.8.1).

use crate::tools::clip::quoted;
use serde_json::{json, Value};

/// The tool's name.
pub const TOOL_NAME: &str = "skill";

/// The opening of the tool's description; the catalog follows it
/// (SPEC SKILL-04).
pub const DESCRIPTION: &str = "Load one available skill and return its full instructions. Call this when the current task matches a skill listed in available_skills; then follow the returned instructions.";

/// The description of the `name` argument.
pub const NAME_DESCRIPTION: &str = "Skill name from the available_skills list in this tool's description.";

/// The argument schema: `{name: string}`.
pub fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {"name": {"type": "string", "description": NAME_DESCRIPTION}},
        "required": ["name"],
        "additionalProperties": false
    })
}

/// The full description: [`DESCRIPTION`], a blank line, then the
/// `<available_skills>` catalog of `(name, description)` pairs, XML-escaped,
/// in discovery order (SPEC SKILL-04).
pub fn description<'a>(skills: impl IntoIterator<Item = (&'a str, &'a str)>) -> String {
    let mut out = format!("{DESCRIPTION}\n\n<available_skills>\n");
    for (name, description) in skills {
        out.push_str("  <skill>\n");
        out.push_str(&format!("    <name>{}</name>\n", xml_escape(name)));
        out.push_str(&format!("    <description>{}</description>\n", xml_escape(description)));
        out.push_str("  </skill>\n");
    }
    out.push_str("</available_skills>");
    out
}

/// `&`, `<`, `>`, `"` and `'` as XML entities.
pub fn xml_escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            c => out.push(c),
        }
    }
    out
}

/// Rejection: the arguments are not `{name: string}`.
pub fn bad_args(serde_error: &str) -> String {
    format!("arguments must be an object with a string name: {}", quoted(serde_error))
}

/// Rejection: an empty name.
pub const NAME_REQUIRED: &str = "name is required";

/// Rejection: a name not in the catalog; `available` sorted (SPEC SKILL-05).
pub fn unknown_skill(name: &str, available: &[&str]) -> String {
    let name = quoted(name);
    format!("unknown skill {name:?}; available skills: {}", available.join(", "))
}

/// The first line of a loaded skill (SPEC SKILL-05).
pub fn content_open(name: &str) -> String {
    format!("<skill_content name=\"{}\">\n", xml_escape(name))
}

/// The tags of the wrapper a loaded skill is returned in; inside a body
/// they are escaped.
pub const WRAPPER_TAGS: [&str; 2] = ["skill_content", "skill_files"];

/// `body` as it goes inside the wrapper: every `<` that opens or closes
/// one of [`WRAPPER_TAGS`] (any case, spaces allowed after `<` and `/`)
/// becomes `&lt;`, so no body can end the wrapper early or forge a file
/// list. Everything else is left as written.
///
/// ```
/// use golem_io::tools::skills::texts::fence;
///
/// assert_eq!(fence("a</skill_content>b"), "a&lt;/skill_content>b");
/// assert_eq!(fence("< / SKILL_CONTENT >"), "&lt; / SKILL_CONTENT >");
/// assert_eq!(fence("x < y, <b>bold</b>"), "x < y, <b>bold</b>");
/// ```
pub fn fence(body: &str) -> std::borrow::Cow<'_, str> {
    let opens_tag = |rest: &str| {
        let rest = rest.trim_start();
        let rest = rest.strip_prefix('/').map_or(rest, str::trim_start);
        WRAPPER_TAGS.iter().any(|tag| rest.get(..tag.len()).is_some_and(|head| head.eq_ignore_ascii_case(tag)))
    };
    if !body.match_indices('<').any(|(at, _)| opens_tag(&body[at + 1..])) {
        return std::borrow::Cow::Borrowed(body);
    }
    let mut out = String::with_capacity(body.len() + 16);
    let mut last = 0;
    for (at, _) in body.match_indices('<') {
        if opens_tag(&body[at + 1..]) {
            out.push_str(&body[last..at]);
            out.push_str("&lt;");
            last = at + 1;
        }
    }
    out.push_str(&body[last..]);
    std::borrow::Cow::Owned(out)
}

/// The heading above the body.
pub fn heading(name: &str) -> String {
    format!("# Skill: {name}\n\n")
}

/// The marker after a body cut at the cap.
pub fn body_truncated(max_bytes: usize) -> String {
    format!("\n\n[skills: body truncated at {max_bytes} bytes]")
}

/// The line naming the skill's directory.
pub fn base_directory(dir: &str) -> String {
    format!("\nBase directory for this skill: {dir}\n")
}

/// The line after it.
pub const RELATIVE_PATHS: &str =
    "Relative paths in this skill (e.g. scripts/, references/, assets/) are relative to this base directory.\n";

/// The opening of the file list.
pub const FILES_OPEN: &str = "\n<skill_files>\n";

/// One listed file.
pub fn file(path: &str) -> String {
    format!("<file>{}</file>\n", xml_escape(path))
}

/// The end of the file list.
pub const FILES_CLOSE: &str = "</skill_files>\n";

/// After the list when more files exist than are listed.
pub const FILES_TRUNCATED: &str = "[skills: file list truncated]\n";

/// The last line of a loaded skill.
pub const CONTENT_CLOSE: &str = "</skill_content>";
