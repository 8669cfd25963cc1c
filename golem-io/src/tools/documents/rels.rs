//! OPC relationships (`_rels/*.rels`): how one part names the others it
//! uses, and the part names their targets resolve to — resolved as text,
//! inside the package, never on disk.

use super::error::Fault;
use super::xml::{Node, Xml};
use std::collections::HashMap;

/// One relationship: its id, its type URI and the part it points to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Rel {
    pub(crate) id: String,
    pub(crate) kind: String,
    pub(crate) target: String,
}

/// The relationships of `source` (a part name; `""` for the package).
#[derive(Clone, Debug, Default)]
pub(crate) struct Rels {
    rels: Vec<Rel>,
    /// Index into `rels` by id (a hostile part may hold very many).
    by_id: HashMap<String, usize>,
}

impl Rels {
    /// Parse the `.rels` part `text` of part `source`. Targets are
    /// resolved to part names; external ones (hyperlinks) are dropped.
    pub(crate) fn parse(source: &str, text: &str, max_depth: usize) -> Result<Rels, Fault> {
        let mut xml = Xml::new(text, max_depth);
        let mut rels = Rels::default();
        while let Some(node) = xml.next()? {
            let Node::Open(tag) = node else { continue };
            if tag.name() != b"Relationship" || tag.attr(b"TargetMode").is_some_and(|m| m == "External") {
                continue;
            }
            let (Some(id), Some(kind), Some(target)) = (tag.attr(b"Id"), tag.attr(b"Type"), tag.attr(b"Target")) else {
                continue;
            };
            if let Some(target) = resolve(source, &target) {
                rels.by_id.entry(id.clone()).or_insert(rels.rels.len());
                rels.rels.push(Rel { id, kind, target });
            }
        }
        Ok(rels)
    }

    /// The target of relationship `id`.
    pub(crate) fn target(&self, id: &str) -> Option<&str> {
        self.by_id.get(id).map(|i| self.rels[*i].target.as_str())
    }

    /// The first target whose type URI ends with `/kind`.
    pub(crate) fn of_kind(&self, kind: &str) -> Option<&str> {
        self.rels.iter().find(|r| r.kind.rsplit('/').next() == Some(kind)).map(|r| r.target.as_str())
    }
}

/// The `.rels` part that holds the relationships of `part`.
pub(crate) fn rels_part(part: &str) -> String {
    match part.rsplit_once('/') {
        Some((dir, file)) => format!("{dir}/_rels/{file}.rels"),
        None if part.is_empty() => "_rels/.rels".to_string(),
        None => format!("_rels/{part}.rels"),
    }
}

/// `target` as a part name, relative to the folder of `source`: `..` and
/// `.` resolved, a leading `/` meaning the package root. `None` when it
/// climbs out of the package.
pub(crate) fn resolve(source: &str, target: &str) -> Option<String> {
    let target = target.split(['#', '?']).next().unwrap_or("");
    let mut segments: Vec<&str> = Vec::new();
    if !target.starts_with('/') {
        if let Some((dir, _)) = source.rsplit_once('/') {
            segments.extend(dir.split('/').filter(|s| !s.is_empty()));
        }
    }
    for segment in target.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                segments.pop()?;
            }
            segment => segments.push(segment),
        }
    }
    (!segments.is_empty()).then(|| segments.join("/"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_resolve_inside_the_package() {
        assert_eq!(resolve("xl/workbook.xml", "worksheets/sheet1.xml").as_deref(), Some("xl/worksheets/sheet1.xml"));
        assert_eq!(
            resolve("ppt/slides/slide1.xml", "../notesSlides/n1.xml").as_deref(),
            Some("ppt/notesSlides/n1.xml")
        );
        assert_eq!(resolve("", "word/document.xml").as_deref(), Some("word/document.xml"));
        assert_eq!(resolve("xl/workbook.xml", "/xl/styles.xml").as_deref(), Some("xl/styles.xml"));
        assert_eq!(resolve("a.xml", "../../etc/passwd"), None);
        assert_eq!(rels_part("xl/workbook.xml"), "xl/_rels/workbook.xml.rels");
        assert_eq!(rels_part(""), "_rels/.rels");
    }

    #[test]
    fn relationships_parse_and_external_ones_are_dropped() {
        let text = r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">
            <Relationship Id="rId1" Type="http://x/officeDocument" Target="word/document.xml"/>
            <Relationship Id="rId2" Type="http://x/hyperlink" Target="https://example.com" TargetMode="External"/>
        </Relationships>"#;
        let rels = Rels::parse("", text, 8).unwrap();
        assert_eq!(rels.of_kind("officeDocument"), Some("word/document.xml"));
        assert_eq!(rels.target("rId1"), Some("word/document.xml"));
        assert_eq!(rels.target("rId2"), None);
    }
}
