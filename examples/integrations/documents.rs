//! Document extraction (SPEC EXTRA-03): `extract_pdf` and `extract_doc` in
//! a temp workspace — a PDF page, one sheet of a workbook, and a `..` path
//! the tools reject so the model can correct it. Offline: a scripted model.
//!
//! Run with `cargo run -p golem-examples --features documents --bin documents`.

use golem_io::testing::ScriptedModel;
use golem_io::tools::documents::Documents;
use golem_io::{Agent, Role};
use std::io::Write;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let workspace = tempfile::tempdir()?;
    std::fs::write(workspace.path().join("memo.pdf"), memo_pdf())?;
    std::fs::write(workspace.path().join("budget.xlsx"), budget_xlsx()?)?;
    let documents = Documents::builder(workspace.path()).build()?;

    let model = ScriptedModel::new()
        .tool_call("extract_pdf", r#"{"path":"../secret.pdf"}"#)
        .tool_call("extract_pdf", r#"{"path":"memo.pdf","pages":"1"}"#)
        .tool_call("extract_doc", r#"{"path":"budget.xlsx","sheets":["Q1"]}"#)
        .text("Rent is due on 1 March; the memo asks to pay it early.");
    // Path mistakes are correctable rejections: give each tool a budget.
    let mut agent = Agent::builder(model);
    for tool in documents.tools() {
        agent = agent.tool(tool.max_retries(1));
    }
    let result = agent.build()?.run((), "When is rent due?")?;

    for message in result.messages.iter().filter(|m| m.role == Role::Tool) {
        println!("{} returned (failed: {}):\n{}\n", message.tool_name, message.failed, message.content);
    }
    println!("output: {}", result.output);
    Ok(())
}

/// A one-page PDF written by hand (a real application reads its own).
fn memo_pdf() -> Vec<u8> {
    let content = "BT /F1 14 Tf 50 700 Td (Memo: pay the rent early.) Tj 0 -20 Td (It is due on 1 March.) Tj ET";
    let objects = [
        "<</Type/Catalog/Pages 2 0 R>>".to_string(),
        "<</Type/Pages/Kids[3 0 R]/Count 1>>".to_string(),
        "<</Type/Page/Parent 2 0 R/MediaBox[0 0 612 792]/Resources<</Font<</F1 4 0 R>>>>/Contents 5 0 R>>".to_string(),
        "<</Type/Font/Subtype/Type1/BaseFont/Helvetica/Encoding/WinAnsiEncoding>>".to_string(),
        format!("<</Length {}>>stream\n{content}\nendstream", content.len() + 1),
    ];
    let mut pdf = b"%PDF-1.4\n".to_vec();
    let mut offsets = Vec::new();
    for (i, body) in objects.iter().enumerate() {
        offsets.push(pdf.len());
        pdf.extend(format!("{} 0 obj\n{body}\nendobj\n", i + 1).bytes());
    }
    let xref = pdf.len();
    pdf.extend(format!("xref\n0 {}\n0000000000 65535 f \n", objects.len() + 1).bytes());
    for offset in offsets {
        pdf.extend(format!("{offset:010} 00000 n \n").bytes());
    }
    pdf.extend(format!("trailer\n<</Size {}/Root 1 0 R>>\nstartxref\n{xref}\n%%EOF\n", objects.len() + 1).bytes());
    pdf
}

/// A workbook with two sheets, written part by part into a zip.
fn budget_xlsx() -> Result<Vec<u8>, Box<dyn std::error::Error>> {
    const REL: &str = "http://schemas.openxmlformats.org/officeDocument/2006/relationships";
    const MAIN: &str = "http://schemas.openxmlformats.org/spreadsheetml/2006/main";
    let rels = |items: &[(&str, &str, &str)]| {
        let items: String = items
            .iter()
            .map(|(id, kind, target)| format!(r#"<Relationship Id="{id}" Type="{REL}/{kind}" Target="{target}"/>"#))
            .collect();
        format!(
            r#"<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">{items}</Relationships>"#
        )
    };
    let sheet = |rows: &str| format!(r#"<worksheet xmlns="{MAIN}"><sheetData>{rows}</sheetData></worksheet>"#);
    let cell = |at: &str, text: &str| format!(r#"<c r="{at}" t="inlineStr"><is><t>{text}</t></is></c>"#);
    let parts = [
        ("_rels/.rels", rels(&[("rId1", "officeDocument", "xl/workbook.xml")])),
        (
            "xl/workbook.xml",
            format!(
                r#"<workbook xmlns="{MAIN}" xmlns:r="{REL}"><sheets><sheet name="Q1" sheetId="1" r:id="rId1"/><sheet name="Q2" sheetId="2" r:id="rId2"/></sheets></workbook>"#
            ),
        ),
        (
            "xl/_rels/workbook.xml.rels",
            rels(&[("rId1", "worksheet", "worksheets/q1.xml"), ("rId2", "worksheet", "worksheets/q2.xml")]),
        ),
        (
            "xl/worksheets/q1.xml",
            sheet(&format!(
                r#"<row r="1">{}{}{}</row><row r="2">{}<c r="B2"><v>1200</v></c>{}</row>"#,
                cell("A1", "Item"),
                cell("B1", "Cost"),
                cell("C1", "Due"),
                cell("A2", "Rent"),
                cell("C2", "1 March")
            )),
        ),
        ("xl/worksheets/q2.xml", sheet(&format!(r#"<row r="1">{}</row>"#, cell("A1", "later")))),
    ];
    let mut zip = zip::ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for (name, text) in parts {
        zip.start_file(name, zip::write::SimpleFileOptions::default())?;
        zip.write_all(text.as_bytes())?;
    }
    Ok(zip.finish()?.into_inner())
}
