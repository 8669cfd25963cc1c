//! An office part's XML as a flat stream of opens, closes and text, with
//! its nesting depth capped: quick-xml reads it without building a tree or
//! expanding any DTD entity, and every element counts against the depth
//! before it is handed on. Namespaces are matched by local name, which is
//! all the OOXML vocabularies here need.

use super::error::{Fault, Limit};
use quick_xml::events::{BytesStart, Event};
use quick_xml::{Reader, XmlVersion};
use std::borrow::Cow;

/// One step through a part.
#[derive(Debug)]
pub(crate) enum Node<'a> {
    /// An element opens (an empty element opens, then closes).
    Open(Tag<'a>),
    /// An element closes; its local name.
    Close(Vec<u8>),
    /// Character data, entities resolved.
    Text(Cow<'a, str>),
}

/// An opened element: its local name and attributes.
#[derive(Debug)]
pub(crate) struct Tag<'a> {
    start: BytesStart<'a>,
}

impl Tag<'_> {
    /// The local name (`p` for `w:p`).
    pub(crate) fn name(&self) -> &[u8] {
        self.start.local_name().into_inner().as_bytes()
    }

    /// The attribute with local name `local` (`val` for `w:val`), its
    /// entities resolved; `None` when absent or unreadable.
    pub(crate) fn attr(&self, local: &[u8]) -> Option<String> {
        self.start
            .attributes()
            .flatten()
            .find(|a| a.key.local_name().into_inner().as_bytes() == local)
            .and_then(|a| a.normalized_value(XmlVersion::Implicit1_0).ok().map(Cow::into_owned))
    }

    /// The attribute with a namespace prefix and local name `local`
    /// (`r:id`, told from a bare `id` beside it).
    pub(crate) fn prefixed_attr(&self, local: &[u8]) -> Option<String> {
        self.start
            .attributes()
            .flatten()
            .find(|a| a.key.prefix().is_some() && a.key.local_name().into_inner().as_bytes() == local)
            .and_then(|a| a.normalized_value(XmlVersion::Implicit1_0).ok().map(Cow::into_owned))
    }
}

/// A part's XML being read.
pub(crate) struct Xml<'a> {
    reader: Reader<&'a [u8]>,
    depth: usize,
    max_depth: usize,
    /// The close an empty element owes.
    owed_close: Option<Vec<u8>>,
}

impl<'a> Xml<'a> {
    /// Read `text` (a part, as UTF-8), refusing nesting deeper than
    /// `max_depth`.
    pub(crate) fn new(text: &'a str, max_depth: usize) -> Xml<'a> {
        let mut reader = Reader::from_str(text);
        reader.config_mut().check_end_names = true;
        Xml { reader, depth: 0, max_depth, owed_close: None }
    }

    /// The next step, or `None` at the end.
    pub(crate) fn next(&mut self) -> Result<Option<Node<'a>>, Fault> {
        if let Some(name) = self.owed_close.take() {
            self.depth -= 1;
            return Ok(Some(Node::Close(name)));
        }
        loop {
            let event = self.reader.read_event().map_err(Fault::malformed)?;
            return Ok(Some(match event {
                Event::Start(start) => {
                    self.enter()?;
                    Node::Open(Tag { start })
                }
                Event::Empty(start) => {
                    self.enter()?;
                    self.owed_close = Some(start.local_name().into_inner().as_bytes().to_vec());
                    Node::Open(Tag { start })
                }
                Event::End(end) => {
                    self.depth = self.depth.saturating_sub(1);
                    Node::Close(end.local_name().into_inner().as_bytes().to_vec())
                }
                Event::Text(text) => Node::Text(text.xml10_content()),
                Event::CData(data) => Node::Text(data.xml10_content()),
                Event::GeneralRef(reference) => match resolve(&reference)? {
                    Some(text) => Node::Text(Cow::Owned(text)),
                    None => continue,
                },
                Event::Eof => return Ok(None),
                // Declarations, comments, processing instructions and a
                // DOCTYPE (whose entities are never expanded) say nothing.
                Event::Decl(_) | Event::Comment(_) | Event::PI(_) | Event::DocType(_) => continue,
            }));
        }
    }

    /// Skip the rest of the element just opened (its close included).
    pub(crate) fn skip(&mut self) -> Result<(), Fault> {
        let target = self.depth - 1;
        while self.depth > target {
            if self.next()?.is_none() {
                break;
            }
        }
        Ok(())
    }

    fn enter(&mut self) -> Result<(), Fault> {
        self.depth += 1;
        if self.depth > self.max_depth {
            return Err(Fault::Limit(Limit::XmlDepth(self.max_depth)));
        }
        Ok(())
    }
}

/// An entity reference's text: a character reference or one of XML's five
/// predefined entities; any other name is dropped (no DTD is read).
fn resolve(reference: &quick_xml::events::BytesRef<'_>) -> Result<Option<String>, Fault> {
    if let Some(c) = reference.resolve_char_ref().map_err(Fault::malformed)? {
        return Ok(Some(c.to_string()));
    }
    Ok(quick_xml::escape::resolve_predefined_entity(reference).map(str::to_string))
}

/// A part's bytes as text: UTF-8, a byte-order mark dropped.
pub(crate) fn utf8(bytes: &[u8]) -> Result<&str, Fault> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    std::str::from_utf8(bytes).map_err(|_| Fault::malformed("an XML part is not UTF-8"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn walk(text: &str, max_depth: usize) -> Result<Vec<String>, Fault> {
        let mut xml = Xml::new(text, max_depth);
        let mut seen = Vec::new();
        while let Some(node) = xml.next()? {
            seen.push(match node {
                Node::Open(tag) => format!("<{}>", String::from_utf8_lossy(tag.name())),
                Node::Close(name) => format!("</{}>", String::from_utf8_lossy(&name)),
                Node::Text(text) => text.into_owned(),
            });
        }
        Ok(seen)
    }

    #[test]
    fn empty_elements_open_and_close_and_entities_resolve() {
        let seen = walk(r#"<w:p xmlns:w="x"><w:t>a &amp; b &#233;&unknown;</w:t><w:br/></w:p>"#, 8).unwrap();
        assert_eq!(seen.concat(), "<p><t>a & b é</t><br></br></p>");
    }

    #[test]
    fn nesting_past_the_cap_is_refused() {
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert!(walk(&deep, 100).is_ok());
        assert_eq!(walk(&deep, 99).unwrap_err(), Fault::Limit(Limit::XmlDepth(99)));
        let unclosed = "<a>".repeat(1_000_000);
        assert_eq!(walk(&unclosed, 256).unwrap_err(), Fault::Limit(Limit::XmlDepth(256)));
    }

    #[test]
    fn a_doctype_expands_nothing() {
        let laughs = r#"<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><x>&b;</x>"#;
        assert_eq!(walk(laughs, 8).unwrap().concat(), "<x></x>");
    }

    #[test]
    fn mismatched_tags_are_malformed() {
        assert!(matches!(walk("<a><b></a>", 8), Err(Fault::Malformed(_))));
    }
}
