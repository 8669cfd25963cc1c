//! Fuzz-target bodies (SPEC ARCH-02): plain functions, so `cargo test`
//! runs them over the seed corpus and `cargo fuzz` over anything. Each
//! panics only when an invariant breaks.

/// Arbitrary bytes as an HTML page: never a panic; every line of the text
/// is trimmed and non-empty.
#[cfg(feature = "web-fetch")]
pub fn html_text(data: &[u8]) {
    let html = String::from_utf8_lossy(data);
    let base = url::Url::parse("http://fuzz.test/dir/page.html").ok();
    for text in
        [super::web_fetch::html::html_to_text(&html, None), super::web_fetch::html::html_to_text(&html, base.as_ref())]
    {
        for line in text.split('\n').filter(|_| !text.is_empty()) {
            assert!(!line.is_empty(), "empty line in {text:?}");
            assert_eq!(line, line.trim(), "untrimmed line in {text:?}");
        }
    }
}

/// Arbitrary bytes as a SKILL.md: never a panic; a split body is a suffix
/// of the input and the frontmatter reader always answers.
#[cfg(feature = "skills")]
pub fn frontmatter(data: &[u8]) {
    use super::skills::frontmatter;
    let text = String::from_utf8_lossy(data);
    if let Ok((yaml, body)) = frontmatter::split(&text) {
        assert!(text.ends_with(body), "the body is the end of the file");
        let _ = frontmatter::parse(yaml);
    }
    let _ = frontmatter::parse(&text);
}

/// Arbitrary bytes as a document (PDF, DOCX, XLSX, PPTX or anything
/// else) through the extractors' readers under small caps: never a
/// panic, the output under its cap.
#[cfg(feature = "documents")]
pub fn documents(data: &[u8]) {
    super::documents::fuzz::body(data);
}
