//! Which parts of a document to extract: pages of a PDF, sheets of a
//! workbook, slides of a presentation; and the page-list grammar
//! (`"1-3,5,8-"`) the model writes them in.

use super::error::Fault;
use super::texts;

/// Which parts of a document to extract. The default is everything.
///
/// ```
/// use golem_io::tools::documents::Filter;
///
/// let first_pages = Filter::all().pages("1-3");
/// let budget = Filter::all().sheets(["Budget"]);
/// assert_ne!(first_pages, budget);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Filter {
    pub(crate) pages: Option<String>,
    pub(crate) sheets: Option<Vec<String>>,
    pub(crate) slides: Option<String>,
}

impl Filter {
    /// Everything in the document.
    pub fn all() -> Filter {
        Filter::default()
    }

    /// PDF pages, 1-based: `"3"`, `"2-5"`, `"1,4,7-"` (7 to the end).
    pub fn pages(mut self, spec: impl Into<String>) -> Self {
        self.pages = Some(spec.into());
        self
    }

    /// Workbook sheets, by name.
    pub fn sheets(mut self, names: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.sheets = Some(names.into_iter().map(Into::into).collect());
        self
    }

    /// Presentation slides, 1-based, in the page-list grammar.
    pub fn slides(mut self, spec: impl Into<String>) -> Self {
        self.slides = Some(spec.into());
        self
    }
}

/// One item of a page list: `first..=last`, `last` `None` meaning the end.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Span {
    first: usize,
    last: Option<usize>,
}

/// Parse `spec` (`what` is "pages" or "slides", for the rejection).
fn parse(what: &str, spec: &str) -> Result<Vec<Span>, Fault> {
    let bad = || Fault::Rejected(texts::bad_range(what, spec));
    let number = |text: &str| text.trim().parse::<usize>().ok().filter(|n| *n >= 1).ok_or_else(bad);
    let mut spans = Vec::new();
    for item in spec.split(',') {
        let item = item.trim();
        let span = match item.split_once('-') {
            None => {
                let n = number(item)?;
                Span { first: n, last: Some(n) }
            }
            Some((first, last)) => {
                let first = if first.trim().is_empty() { 1 } else { number(first)? };
                let last = if last.trim().is_empty() { None } else { Some(number(last)?) };
                if first == 1 && last.is_none() && item.trim() == "-" {
                    return Err(bad());
                }
                if last.is_some_and(|last| last < first) {
                    return Err(bad());
                }
                Span { first, last }
            }
        };
        spans.push(span);
    }
    Ok(spans)
}

/// The 1-based numbers among `1..=count` that `spec` selects (all of them
/// without one), in document order; a rejection when it selects none.
pub(crate) fn select(what: &str, spec: Option<&str>, path: &str, count: usize) -> Result<Vec<usize>, Fault> {
    let Some(spec) = spec else {
        return Ok((1..=count).collect());
    };
    let spans = parse(what, spec)?;
    let chosen: Vec<usize> = (1..=count)
        .filter(|n| spans.iter().any(|span| *n >= span.first && span.last.is_none_or(|last| *n <= last)))
        .collect();
    if chosen.is_empty() {
        return Err(Fault::Rejected(texts::out_of_range(what, spec, path, count)));
    }
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_lists_select_in_document_order() {
        assert_eq!(select("pages", None, "a.pdf", 3).unwrap(), [1, 2, 3]);
        assert_eq!(select("pages", Some("3,1"), "a.pdf", 5).unwrap(), [1, 3]);
        assert_eq!(select("pages", Some(" 2 - 3 , 5- "), "a.pdf", 6).unwrap(), [2, 3, 5, 6]);
        assert_eq!(select("pages", Some("-2"), "a.pdf", 6).unwrap(), [1, 2]);
        assert_eq!(select("pages", Some("2-99"), "a.pdf", 3).unwrap(), [2, 3]);
    }

    #[test]
    fn bad_lists_are_rejections() {
        for spec in ["", "0", "a", "3-1", "1,,2", "-", "1-2-3", "99999999999999999999999", "1.5"] {
            let error = select("pages", Some(spec), "a.pdf", 5).unwrap_err();
            assert!(
                matches!(&error, Fault::Rejected(text) if text.starts_with("pages must be numbers")),
                "{spec}: {error:?}"
            );
        }
        assert_eq!(
            select("slides", Some("7-"), "deck.pptx", 4).unwrap_err(),
            Fault::Rejected("slides \"7-\" selects nothing: deck.pptx has 4 slides".into())
        );
    }
}
