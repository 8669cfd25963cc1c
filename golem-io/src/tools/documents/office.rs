//! What the three office formats share: the package opened under the
//! caps, parts read as text against the call's budget, relationships, and
//! which format a package is (its main part's content type).

use super::error::Fault;
use super::limits::{Budget, Limits};
use super::package::Package;
use super::rels::{rels_part, Rels};
use super::xml::{utf8, Node, Xml};
use std::io::{Read, Seek};

/// The office formats read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum OfficeKind {
    /// A Word document (`.docx`, `.docm`, templates).
    Docx,
    /// An Excel workbook (`.xlsx`, `.xlsm`, templates).
    Xlsx,
    /// A PowerPoint presentation (`.pptx`, `.pptm`, templates).
    Pptx,
}

impl OfficeKind {
    /// The kind in words, for messages.
    pub(crate) fn describe(self) -> &'static str {
        match self {
            OfficeKind::Docx => "a Word document",
            OfficeKind::Xlsx => "an Excel workbook",
            OfficeKind::Pptx => "a PowerPoint presentation",
        }
    }
}

/// An opened office package and what one call may still inflate from it.
pub(crate) struct Office<R> {
    package: Package<R>,
    budget: Budget,
    max_depth: usize,
    kind: OfficeKind,
    main: String,
}

impl<R: Read + Seek> Office<R> {
    /// Open `file` as an office package and tell which format it is.
    pub(crate) fn open(file: R, limits: &Limits) -> Result<Office<R>, Fault> {
        let package = Package::open(file, limits.max_entries)?;
        let mut office = Office {
            package,
            budget: Budget::new(limits.max_inflated_bytes),
            max_depth: limits.max_xml_depth,
            kind: OfficeKind::Docx,
            main: String::new(),
        };
        let rels = office.rels("")?;
        let Some(main) = rels.of_kind("officeDocument").map(str::to_string) else {
            return Err(Fault::Unsupported(office.describe_other()));
        };
        office.kind = office.kind_of(&main)?;
        office.main = main;
        Ok(office)
    }

    /// Which format the package is.
    pub(crate) fn kind(&self) -> OfficeKind {
        self.kind
    }

    /// The main part (`word/document.xml`, …).
    pub(crate) fn main(&self) -> &str {
        &self.main
    }

    /// The deepest nesting allowed.
    pub(crate) fn max_depth(&self) -> usize {
        self.max_depth
    }

    /// The text of `part`, `None` when the package has none.
    pub(crate) fn text(&mut self, part: &str) -> Result<Option<String>, Fault> {
        match self.package.read(part, &mut self.budget)? {
            None => Ok(None),
            Some(bytes) => utf8(&bytes).map(|text| Some(text.to_string())),
        }
    }

    /// The text of `part`, which the format requires.
    pub(crate) fn required(&mut self, part: &str) -> Result<String, Fault> {
        self.text(part)?.ok_or_else(|| Fault::malformed(format!("the package has no part {part}")))
    }

    /// The relationships of `part` (none when it has no `.rels` part).
    pub(crate) fn rels(&mut self, part: &str) -> Result<Rels, Fault> {
        match self.text(&rels_part(part))? {
            Some(text) => Rels::parse(part, &text, self.max_depth),
            None => Ok(Rels::default()),
        }
    }

    /// The format of a package whose main part is `main`: its content
    /// type, else the folder it lives in.
    fn kind_of(&mut self, main: &str) -> Result<OfficeKind, Fault> {
        let content_type = match self.text("[Content_Types].xml")? {
            Some(types) => override_type(&types, main, self.max_depth)?,
            None => None,
        };
        let by_type = content_type.as_deref().and_then(|t| {
            if t.contains("wordprocessingml") || t.contains("ms-word") {
                Some(OfficeKind::Docx)
            } else if t.contains("spreadsheetml") || t.contains("ms-excel") {
                Some(OfficeKind::Xlsx)
            } else if t.contains("presentationml") || t.contains("ms-powerpoint") {
                Some(OfficeKind::Pptx)
            } else {
                None
            }
        });
        let by_folder = || match main.split('/').next() {
            Some("word") => Some(OfficeKind::Docx),
            Some("xl") => Some(OfficeKind::Xlsx),
            Some("ppt") => Some(OfficeKind::Pptx),
            _ => None,
        };
        by_type.or_else(by_folder).ok_or_else(|| Fault::Unsupported("an office package of another kind".into()))
    }

    /// What a zip without an office document is.
    fn describe_other(&self) -> String {
        if self.package.has("mimetype") && self.package.has("content.xml") {
            "an OpenDocument file".into()
        } else {
            "a zip archive".into()
        }
    }
}

/// The content type `[Content_Types].xml` gives part `part`.
fn override_type(types: &str, part: &str, max_depth: usize) -> Result<Option<String>, Fault> {
    let mut xml = Xml::new(types, max_depth);
    while let Some(node) = xml.next()? {
        if let Node::Open(tag) = node {
            let name = tag.attr(b"PartName");
            if tag.name() == b"Override" && name.is_some_and(|n| n.trim_start_matches('/').eq_ignore_ascii_case(part)) {
                return Ok(tag.attr(b"ContentType"));
            }
        }
    }
    Ok(None)
}
