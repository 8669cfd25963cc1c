//! HTML to readable text (SPEC WEB-07) on html5ever's spec tokenizer:
//! quote-aware tags, entities decoded, raw-text elements handled as a
//! browser does. Comments and the contents of script, style, noscript,
//! template, svg and nav are dropped; headings become `#` lines, links
//! "text (href)"; block elements and `<br>` break lines; lines are trimmed
//! and empty ones dropped. An unterminated construct swallows the rest of
//! the input, as in a browser, which ends the conversion there.

use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, Tag, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer, TokenizerOpts};
use html5ever::TokenizerResult;
use std::cell::RefCell;
use url::Url;

/// The visible text of `html`; relative link targets are resolved against
/// `base` when given.
pub fn html_to_text(html: &str, base: Option<&Url>) -> String {
    let sink = Sink { text: RefCell::new(Text::new(base.cloned())) };
    let tokenizer = Tokenizer::new(sink, TokenizerOpts::default());
    let queue = BufferQueue::default();
    queue.push_back(StrTendril::from_slice(html));
    // The sink never asks to pause for a script, so one feed consumes all.
    while let TokenizerResult::Script(()) = tokenizer.feed(&queue) {}
    tokenizer.end();
    tokenizer.sink.text.into_inner().finish()
}

/// Elements whose whole content is dropped.
const SKIPPED: &[&str] = &["script", "style", "noscript", "template", "svg", "nav"];

/// Elements that start and end a line.
const BLOCKS: &[&str] = &[
    "address",
    "article",
    "aside",
    "blockquote",
    "body",
    "caption",
    "dd",
    "details",
    "dialog",
    "div",
    "dl",
    "dt",
    "fieldset",
    "figcaption",
    "figure",
    "footer",
    "form",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "head",
    "header",
    "hgroup",
    "hr",
    "html",
    "legend",
    "li",
    "main",
    "menu",
    "ol",
    "option",
    "p",
    "pre",
    "section",
    "summary",
    "table",
    "tbody",
    "tfoot",
    "thead",
    "title",
    "tr",
    "ul",
];

struct Sink {
    text: RefCell<Text>,
}

impl TokenSink for Sink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        let mut text = self.text.borrow_mut();
        match token {
            Token::TagToken(tag) => return text.tag(&tag),
            Token::CharacterTokens(chars) => text.chars(&chars),
            // Comments, doctypes, NULs, parse errors: nothing visible.
            _ => {}
        }
        TokenSinkResult::Continue
    }
}

/// The text being built.
struct Text {
    base: Option<Url>,
    lines: Vec<String>,
    line: String,
    /// Open skipped elements, innermost last.
    skipping: Vec<String>,
    /// Depth of `<pre>`: whitespace kept, newlines break lines.
    pre: usize,
    /// The open link's target and the text it has shown so far.
    link: Option<(String, String)>,
}

impl Text {
    fn new(base: Option<Url>) -> Self {
        Text { base, lines: Vec::new(), line: String::new(), skipping: Vec::new(), pre: 0, link: None }
    }

    fn tag(&mut self, tag: &Tag) -> TokenSinkResult<()> {
        let name: &str = &tag.name;
        let start = tag.kind == TagKind::StartTag;
        // The tokenizer needs the tree builder's hint to read raw text, even
        // inside dropped elements, or `</div>` in a script would end it.
        let raw = if start { raw_kind(name) } else { None };
        if SKIPPED.contains(&name) {
            if start && !tag.self_closing {
                self.skipping.push(name.to_string());
            } else if !start {
                if let Some(at) = self.skipping.iter().rposition(|open| open == name) {
                    self.skipping.truncate(at);
                }
            }
            return raw.unwrap_or(TokenSinkResult::Continue);
        }
        if !self.skipping.is_empty() {
            return raw.unwrap_or(TokenSinkResult::Continue);
        }
        match name {
            "br" => self.break_line(),
            "a" if start => {
                self.close_link();
                let href = tag.attrs.iter().find(|a| &*a.name.local == "href").map(|a| a.value.trim().to_string());
                self.link = href.and_then(|h| self.link_target(&h)).map(|h| (h, String::new()));
            }
            "a" => self.close_link(),
            "pre" if start => {
                self.break_line();
                self.pre += 1;
            }
            "pre" => {
                self.break_line();
                self.pre = self.pre.saturating_sub(1);
            }
            "td" | "th" if start => self.push_space(),
            _ if BLOCKS.contains(&name) => {
                self.break_line();
                if start {
                    if let Some(level) = heading_level(name) {
                        self.line.push_str(&"#".repeat(level));
                        self.line.push(' ');
                    }
                }
            }
            _ => {}
        }
        raw.unwrap_or(TokenSinkResult::Continue)
    }

    fn chars(&mut self, chars: &str) {
        if !self.skipping.is_empty() {
            return;
        }
        if let Some((_, shown)) = &mut self.link {
            shown.push_str(chars);
        }
        if self.pre > 0 {
            let mut parts = chars.split('\n');
            if let Some(first) = parts.next() {
                self.line.push_str(first);
            }
            for part in parts {
                self.break_line();
                self.line.push_str(part);
            }
            return;
        }
        for c in chars.chars() {
            if c.is_ascii_whitespace() {
                self.push_space();
            } else {
                self.line.push(c);
            }
        }
    }

    fn push_space(&mut self) {
        if !self.line.is_empty() && !self.line.ends_with(' ') {
            self.line.push(' ');
        }
    }

    fn break_line(&mut self) {
        let line = std::mem::take(&mut self.line);
        let trimmed = line.trim();
        if !trimmed.is_empty() && !trimmed.chars().all(|c| c == '#') {
            self.lines.push(trimmed.to_string());
        }
    }

    /// A link target worth showing: not a fragment or script, resolved
    /// against the page when possible.
    fn link_target(&self, href: &str) -> Option<String> {
        // As a browser's URL parser does: tabs and newlines vanish.
        let href: String = href.chars().filter(|c| !matches!(c, '\t' | '\n' | '\r')).collect();
        let href = href.trim();
        let lower = href.to_ascii_lowercase();
        if href.is_empty() || href.starts_with('#') || lower.starts_with("javascript:") {
            return None;
        }
        let resolved = self.base.as_ref().and_then(|base| base.join(href).ok());
        Some(resolved.map_or_else(|| href.to_string(), String::from))
    }

    fn close_link(&mut self) {
        let Some((href, shown)) = self.link.take() else { return };
        let shown = shown.trim();
        if shown.is_empty() || shown == href {
            return;
        }
        let had_space = self.line.ends_with(' ');
        let line = self.line.trim_end().to_string();
        self.line = line;
        self.line.push_str(&format!(" ({href})"));
        if had_space {
            self.line.push(' ');
        }
    }

    fn finish(mut self) -> String {
        self.close_link();
        self.break_line();
        self.lines.join("\n")
    }
}

fn heading_level(name: &str) -> Option<usize> {
    match name.as_bytes() {
        [b'h', d @ b'1'..=b'6'] => Some(usize::from(d - b'0')),
        _ => None,
    }
}

/// The tokenizer state a start tag switches to, as the tree builder would.
fn raw_kind(name: &str) -> Option<TokenSinkResult<()>> {
    let kind = match name {
        "script" => RawKind::ScriptData,
        "style" | "xmp" | "iframe" | "noembed" | "noframes" | "noscript" => RawKind::Rawtext,
        "title" | "textarea" => RawKind::Rcdata,
        "plaintext" => return Some(TokenSinkResult::Plaintext),
        _ => return None,
    };
    Some(TokenSinkResult::RawData(kind))
}

#[cfg(test)]
mod tests {
    use super::html_to_text;

    fn text(html: &str) -> String {
        html_to_text(html, None)
    }

    #[test]
    fn drops_invisible_content_and_keeps_structure() {
        let html = r#"<!doctype html><html><head><title>T &amp; U</title><style>p{color:red}</style>
            <script>if (a < b) { document.write("</div>") }</script></head>
            <body><nav><a href="/">Home</a></nav><!-- hidden --><h1>Hello   world</h1>
            <p>One<br>two &lt;three&gt; <a href="https://x.test/y">link</a>.</p>
            <noscript>enable js</noscript><template><p>tpl</p></template><svg><text>vector</text></svg>
            <ul><li>a</li><li>b</li></ul></body></html>"#;
        assert_eq!(text(html), "T & U\n# Hello world\nOne\ntwo <three> link (https://x.test/y).\na\nb");
    }

    #[test]
    fn links_resolve_against_the_base() {
        let base = url::Url::parse("http://example.test/dir/page.html").unwrap();
        let out = html_to_text(r##"<p><a href="../other">Other</a> <a href="#top">Top</a></p>"##, Some(&base));
        assert_eq!(out, "Other (http://example.test/other) Top");
    }

    #[test]
    fn attributes_are_quote_aware_and_unterminated_constructs_end_the_text() {
        assert_eq!(text(r#"<p title="a > b">x</p>"#), "x");
        assert_eq!(text("<p>before</p><!-- never closed <p>after</p>"), "before");
        assert_eq!(text("<p>before</p><script>never closed"), "before");
        assert_eq!(text("<pre>  a\n    b\n</pre>"), "a\nb");
        assert_eq!(text("<table><tr><td>1</td><td>2</td></tr></table>"), "1 2");
    }
}
