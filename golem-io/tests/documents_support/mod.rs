//! Shared by the document tests: a temp root holding the committed
//! samples (`tests/fixtures/documents/`), and documents built in code —
//! office packages written entry by entry, PDFs written with lopdf —
//! so each test states exactly the bytes it feeds the extractors.
#![allow(dead_code)]

use lopdf::content::{Content, Operation};
use lopdf::{dictionary, Document, Object, Stream};
use std::io::Write;
use std::path::{Path, PathBuf};
use zip::write::SimpleFileOptions;

/// The committed samples' folder.
pub fn fixtures() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/documents")
}

/// A temp root with every committed sample copied in.
pub fn root_with_samples() -> tempfile::TempDir {
    let root = tempfile::tempdir().unwrap();
    for name in ["report.docx", "budget.xlsx", "launch.pptx", "invoice.pdf"] {
        std::fs::copy(fixtures().join(name), root.path().join(name)).unwrap();
    }
    root
}

/// A zip package of `entries` (name, bytes), deflated.
pub fn zip_of(entries: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut writer = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    let options = SimpleFileOptions::default().compression_method(zip::CompressionMethod::Deflated);
    for (name, bytes) in entries {
        writer.start_file(*name, options).unwrap();
        writer.write_all(bytes).unwrap();
    }
    writer.finish().unwrap().into_inner()
}

const RELS_NS: &str = "http://schemas.openxmlformats.org/package/2006/relationships";
const DOC_REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";

/// A relationships part.
pub fn rels(items: &[(&str, &str, &str)]) -> Vec<u8> {
    let mut xml = format!(r#"<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="{RELS_NS}">"#);
    for (id, kind, target) in items {
        xml += &format!(r#"<Relationship Id="{id}" Type="{DOC_REL}/{kind}" Target="{target}"/>"#);
    }
    (xml + "</Relationships>").into_bytes()
}

/// A minimal Word package whose body is `body` (inside `w:body`).
pub fn docx(body: &str) -> Vec<u8> {
    let document = format!(
        r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>{body}</w:body></w:document>"#
    );
    zip_of(&[
        (
            "[Content_Types].xml",
            content_types(
                "/word/document.xml",
                "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml",
            ),
        ),
        ("_rels/.rels", rels(&[("rId1", "officeDocument", "word/document.xml")])),
        ("word/document.xml", document.into_bytes()),
    ])
}

/// `[Content_Types].xml` naming `part`'s type.
pub fn content_types(part: &str, content_type: &str) -> Vec<u8> {
    format!(
        r#"<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="{part}" ContentType="{content_type}"/></Types>"#
    )
    .into_bytes()
}

/// A one-sheet workbook whose sheet data is `rows` (inside `sheetData`).
pub fn xlsx(rows: &str) -> Vec<u8> {
    let workbook = format!(
        r#"<workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main" xmlns:r="{DOC_REL}"><sheets><sheet name="S" sheetId="1" r:id="rId1"/></sheets></workbook>"#
    );
    let sheet = format!(
        r#"<worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>{rows}</sheetData></worksheet>"#
    );
    zip_of(&[
        (
            "[Content_Types].xml",
            content_types(
                "/xl/workbook.xml",
                "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
            ),
        ),
        ("_rels/.rels", rels(&[("rId1", "officeDocument", "xl/workbook.xml")])),
        ("xl/workbook.xml", workbook.into_bytes()),
        ("xl/_rels/workbook.xml.rels", rels(&[("rId1", "worksheet", "worksheets/sheet1.xml")])),
        ("xl/worksheets/sheet1.xml", sheet.into_bytes()),
    ])
}

/// A PDF with one page per entry of `pages`, each showing its lines in
/// Helvetica, 20 points apart; content streams deflated.
pub fn pdf(pages: &[&[&str]]) -> Vec<u8> {
    pdf_with(pages, |_| {})
}

/// [`pdf`], with `edit` applied to the document before it is saved.
pub fn pdf_with(pages: &[&[&str]], edit: impl FnOnce(&mut Document)) -> Vec<u8> {
    let mut doc = Document::with_version("1.5");
    let pages_id = doc.new_object_id();
    let font = doc.add_object(dictionary! {
        "Type" => "Font", "Subtype" => "Type1", "BaseFont" => "Helvetica", "Encoding" => "WinAnsiEncoding",
    });
    let resources = doc.add_object(dictionary! { "Font" => dictionary! { "F1" => font } });
    let mut kids = Vec::new();
    for lines in pages {
        let mut operations = vec![Operation::new("BT", vec![]), Operation::new("Tf", vec!["F1".into(), 12.into()])];
        operations.push(Operation::new("Td", vec![50.into(), 700.into()]));
        for (i, line) in lines.iter().enumerate() {
            if i > 0 {
                operations.push(Operation::new("Td", vec![0.into(), (-20).into()]));
            }
            operations.push(Operation::new("Tj", vec![Object::string_literal(*line)]));
        }
        operations.push(Operation::new("ET", vec![]));
        let mut stream = Stream::new(dictionary! {}, Content { operations }.encode().unwrap());
        stream.compress().unwrap();
        let content = doc.add_object(stream);
        let page = doc.add_object(dictionary! {
            "Type" => "Page", "Parent" => pages_id, "Contents" => content, "Resources" => resources,
            "MediaBox" => vec![0.into(), 0.into(), 612.into(), 792.into()],
        });
        kids.push(page.into());
    }
    let count = kids.len() as i64;
    doc.objects
        .insert(pages_id, Object::Dictionary(dictionary! { "Type" => "Pages", "Kids" => kids, "Count" => count }));
    let catalog = doc.add_object(dictionary! { "Type" => "Catalog", "Pages" => pages_id });
    doc.trailer.set("Root", catalog);
    edit(&mut doc);
    let mut bytes = Vec::new();
    doc.save_to(&mut bytes).unwrap();
    bytes
}

/// Write `bytes` as `name` under `root`.
pub fn put(root: &Path, name: &str, bytes: &[u8]) {
    std::fs::write(root.join(name), bytes).unwrap();
}
