//! The document extractors on real files (SPEC EXTRA-03): samples made by
//! python-docx, openpyxl, python-pptx and fpdf2 (`tests/fixtures/documents`)
//! and documents built in the tests, read as Markdown through both tools,
//! with their filters, the output cap, confinement and the OCR hook.
#![cfg(all(feature = "documents", unix))]

use crate::documents_support::*;
use golem_core::testing::ScriptedModel;
use golem_core::Role;
use golem_io::tools::documents::{texts, Documents, ExtractError, Filter, ScannedPage};
use golem_io::Agent;
use std::os::unix::fs::symlink;
use std::sync::mpsc;
use std::time::Duration;

fn documents(root: &std::path::Path) -> Documents {
    Documents::builder(root).build().unwrap()
}

#[test]
fn a_word_document_reads_as_headings_lists_tables_and_paragraphs() {
    let root = root_with_samples();
    assert_eq!(
        documents(root.path()).extract_doc("report.docx", &Filter::all()).unwrap(),
        "# Quarterly report\n\nSales grew in every region.\n\n# Regions\n\n- North\n- South & East\n- Inner note\n\n\
         | Region | Revenue |\n| --- | --- |\n| North | 1200 |\n| South \\| East | 950 |\n\n\
         Line one\nline two\tafter a tab\n"
    );
}

#[test]
fn a_workbook_reads_as_one_table_per_sheet_with_cell_addresses() {
    let root = root_with_samples();
    let documents = documents(root.path());
    assert_eq!(
        documents.extract_doc("budget.xlsx", &Filter::all()).unwrap(),
        "Workbook with 3 sheets: \"Budget\", \"Notes\", \"Old\".\n\n## Sheet: Budget\n\n\
         |  | A | B | C | D |\n| --- | --- | --- | --- | --- |\n| 1 | Item | Cost | Paid | Due |\n\
         | 2 | Rent | 1200 | TRUE | 2024-03-01 |\n| 3 | Power | 80.5 | FALSE | 2024-03-15 |\n\
         | 4 |  | =SUM(B2:B3) |  |  |\n\n## Sheet: Notes\n\n|  | A | C |\n| --- | --- | --- |\n\
         | 1 | Shared \\| text |  |\n| 3 |  | 0.3 |\n\n## Sheet: Old (hidden)\n\n|  | A |\n| --- | --- |\n| 1 | archived |\n"
    );
    assert_eq!(
        documents.extract_doc("budget.xlsx", &Filter::all().sheets(["Old"])).unwrap(),
        "Workbook with 3 sheets: \"Budget\", \"Notes\", \"Old\".\n\n## Sheet: Old (hidden)\n\n\
         |  | A |\n| --- | --- |\n| 1 | archived |\n"
    );
    let error = documents.extract_doc("budget.xlsx", &Filter::all().sheets(["Budget", "Q3"])).unwrap_err();
    assert_eq!(
        error,
        ExtractError::Rejected("budget.xlsx has no sheet \"Q3\"; its sheets are \"Budget\", \"Notes\", \"Old\"".into())
    );
}

#[test]
fn a_presentation_reads_slide_by_slide_with_notes_and_tables() {
    let root = root_with_samples();
    let documents = documents(root.path());
    assert_eq!(
        documents.extract_doc("launch.pptx", &Filter::all()).unwrap(),
        "Presentation with 3 slides.\n\n## Slide 1: Launch plan\n\nSpring 2024\n\n## Slide 2: Steps\n\n\
         Build\n  Test on real files\nShip\n\nNotes: Mention the fuzzing.\n\n## Slide 3: Numbers\n\n\
         | Week | Tasks |\n| --- | --- |\n| 1 | 12 |\n"
    );
    assert_eq!(
        documents.extract_doc("launch.pptx", &Filter::all().slides("3-")).unwrap(),
        "Presentation with 3 slides.\n\n## Slide 3: Numbers\n\n| Week | Tasks |\n| --- | --- |\n| 1 | 12 |\n"
    );
    assert_eq!(
        documents.extract_doc("launch.pptx", &Filter::all().slides("4")).unwrap_err(),
        ExtractError::Rejected("slides \"4\" selects nothing: launch.pptx has 3 slides".into())
    );
}

#[test]
fn a_pdf_reads_page_by_page_through_its_fonts_unicode_maps() {
    let root = root_with_samples();
    let documents = documents(root.path());
    // fpdf2 embeds DejaVu Sans as a Type0 font: the text comes back
    // through its ToUnicode map.
    assert_eq!(
        documents.extract_pdf("invoice.pdf", &Filter::all()).unwrap(),
        "PDF with 3 pages.\n\n## Page 1\n\nInvoice 42\n\nCafé au lait, 3 × 2.50 € — paid.\nThank you for your order.\n\n\
         ## Page 2\n\nSecond page\n\n## Page 3\n\n[documents: no text on this page; it may be a scanned image]\n"
    );
    assert_eq!(
        documents.extract_pdf("invoice.pdf", &Filter::all().pages("2")).unwrap(),
        "PDF with 3 pages.\n\n## Page 2\n\nSecond page\n"
    );
    for (spec, expected) in [
        ("0", "pages must be numbers and ranges from 1, separated by commas, like \"1-3,5,8-\"; got \"0\""),
        ("2-1", "pages must be numbers and ranges from 1, separated by commas, like \"1-3,5,8-\"; got \"2-1\""),
        ("9", "pages \"9\" selects nothing: invoice.pdf has 3 pages"),
    ] {
        let error = documents.extract_pdf("invoice.pdf", &Filter::all().pages(spec)).unwrap_err();
        assert_eq!(error, ExtractError::Rejected(expected.into()), "{spec}");
    }
}

#[test]
fn built_documents_read_as_written() {
    let root = tempfile::tempdir().unwrap();
    put(root.path(), "lines.pdf", &pdf(&[&["First line", "Second line"], &["Other page"]]));
    put(
        root.path(),
        "nested.docx",
        &docx(
            "<w:p><w:pPr><w:pStyle w:val=\"Heading2\"/></w:pPr><w:r><w:t>Plan</w:t></w:r></w:p>\
             <w:tbl><w:tr><w:tc><w:p><w:r><w:t>outer</w:t></w:r></w:p>\
             <w:tbl><w:tr><w:tc><w:p><w:r><w:t>in</w:t></w:r></w:p></w:tc><w:tc><w:p><w:r><w:t>ner</w:t></w:r></w:p></w:tc></w:tr></w:tbl>\
             </w:tc></w:tr></w:tbl>\
             <w:p><w:pPr><w:numPr><w:ilvl w:val=\"1\"/></w:numPr></w:pPr><w:r><w:t xml:space=\"preserve\">deep &amp; item</w:t></w:r></w:p>",
        ),
    );
    put(
        root.path(),
        "cells.xlsx",
        &xlsx(
            "<row r=\"2\"><c r=\"B2\" t=\"inlineStr\"><is><t>inline</t></is></c><c r=\"AA2\"><v>3.5</v></c></row>\
             <row r=\"5\"><c r=\"B5\" t=\"e\"><v>#DIV/0!</v></c><c t=\"b\"><v>1</v></c></row>",
        ),
    );
    let documents = documents(root.path());
    assert_eq!(
        documents.extract("lines.pdf", &Filter::all()).unwrap(),
        "PDF with 2 pages.\n\n## Page 1\n\nFirst line\nSecond line\n\n## Page 2\n\nOther page\n"
    );
    assert_eq!(
        documents.extract("nested.docx", &Filter::all()).unwrap(),
        "## Plan\n\n| outer<br>in; ner |\n| --- |\n\n  - deep & item\n"
    );
    assert_eq!(
        documents.extract("cells.xlsx", &Filter::all()).unwrap(),
        "Workbook with 1 sheet: \"S\".\n\n## Sheet: S\n\n|  | B | C | AA |\n| --- | --- | --- | --- |\n\
         | 2 | inline |  | 3.5 |\n| 5 | #DIV/0! | TRUE |  |\n"
    );
}

#[test]
fn each_tool_points_to_the_other_and_refuses_filters_that_do_not_apply() {
    let root = root_with_samples();
    let documents = documents(root.path());
    let rejected = |result: Result<String, ExtractError>| match result {
        Err(ExtractError::Rejected(text)) => text,
        other => panic!("not a rejection: {other:?}"),
    };
    assert_eq!(
        rejected(documents.extract_doc("invoice.pdf", &Filter::all())),
        "invoice.pdf is a PDF; read it with extract_pdf"
    );
    assert_eq!(
        rejected(documents.extract_pdf("budget.xlsx", &Filter::all())),
        "budget.xlsx is an Excel workbook, not a PDF; read it with extract_doc"
    );
    assert_eq!(
        rejected(documents.extract_doc("report.docx", &Filter::all().sheets(["A"]))),
        "sheets does not apply to report.docx, which is a Word document"
    );
    assert_eq!(
        rejected(documents.extract_doc("launch.pptx", &Filter::all().pages("1"))),
        "pages does not apply to launch.pptx, which is a PowerPoint presentation"
    );
    assert_eq!(
        rejected(documents.extract("invoice.pdf", &Filter::all().slides("1"))),
        "slides does not apply to invoice.pdf, which is a PDF"
    );
}

#[test]
fn paths_are_confined_as_read_file_confines_them() {
    let outer = root_with_samples();
    let root = outer.path().join("root");
    std::fs::create_dir(&root).unwrap();
    std::fs::copy(outer.path().join("invoice.pdf"), root.join("inside.pdf")).unwrap();
    symlink(outer.path().join("invoice.pdf"), root.join("out.pdf")).unwrap();
    symlink("inside.pdf", root.join("alias.pdf")).unwrap();
    let status = std::process::Command::new("mkfifo").arg(root.join("pipe.pdf")).status().unwrap();
    assert!(status.success());
    let documents = documents(&root);
    for (path, expected) in [
        ("../invoice.pdf", "path must stay within the root directory, got \"../invoice.pdf\""),
        ("/etc/passwd", "path must be relative to the root directory, got \"/etc/passwd\""),
        ("out.pdf", "path must stay within the root directory: out.pdf resolves outside it"),
        ("pipe.pdf", "pipe.pdf is not a regular file"),
        ("missing.pdf", "no such file: missing.pdf"),
        ("", "path is required"),
    ] {
        // A FIFO opened for reading would block: a deadline turns a
        // regression into a failure instead of a hang.
        let (documents, path_owned) = (documents.clone(), path.to_string());
        let (send, receive) = mpsc::channel();
        std::thread::spawn(move || send.send(documents.extract_pdf(&path_owned, &Filter::all())).unwrap());
        let result = receive.recv_timeout(Duration::from_secs(10)).expect("no hang");
        assert_eq!(result, Err(ExtractError::Rejected(expected.into())), "{path}");
    }
    assert!(documents.extract_pdf("alias.pdf", &Filter::all()).unwrap().contains("Invoice 42"));
}

#[test]
fn output_past_the_cap_is_cut_with_the_arguments_that_read_on() {
    let root = root_with_samples();
    let documents = Documents::builder(root.path()).max_output_chars(60).build().unwrap();
    let first = documents.extract_pdf("invoice.pdf", &Filter::all()).unwrap();
    assert_eq!(
        first,
        "PDF with 3 pages.\n\n## Page 1\n\nInvoice 42\n\nCafé au lait, 3 × \
         \n\n[documents: output truncated at 60 characters; to read on, call again with pages \"1-\"]"
    );
    let sheets = documents.extract_doc("budget.xlsx", &Filter::all().sheets(["Notes", "Old"])).unwrap();
    assert!(sheets.ends_with("call again with sheets [\"Notes\", \"Old\"]]"), "{sheets}");
    let big = Documents::builder(root.path()).max_output_chars(150).build().unwrap();
    let slides = big.extract_doc("launch.pptx", &Filter::all()).unwrap();
    assert!(slides.ends_with("call again with slides \"3-\"]"), "{slides}");
}

#[test]
fn pages_without_text_go_to_the_ocr_hook() {
    let root = root_with_samples();
    let (send, receive) = mpsc::channel();
    let send = std::sync::Mutex::new(send);
    let ocr = move |page: &ScannedPage<'_>| -> Result<String, golem_io::BoxError> {
        send.lock().unwrap().send((page.number, page.pdf.len())).unwrap();
        Ok(format!("recognized page {}", page.number))
    };
    let documents = Documents::builder(root.path()).ocr(ocr).build().unwrap();
    let text = documents.extract_pdf("invoice.pdf", &Filter::all().pages("2-3")).unwrap();
    assert_eq!(text, "PDF with 3 pages.\n\n## Page 2\n\nSecond page\n\n## Page 3\n\nrecognized page 3\n");
    let size = std::fs::metadata(root.path().join("invoice.pdf")).unwrap().len() as usize;
    assert_eq!(receive.try_iter().collect::<Vec<_>>(), [(3, size)], "called once, for the page without text");

    let failing = Documents::builder(root.path())
        .ocr(|_: &ScannedPage<'_>| -> Result<String, golem_io::BoxError> { Err("engine offline".into()) })
        .build()
        .unwrap();
    let text = failing.extract_pdf("invoice.pdf", &Filter::all().pages("3")).unwrap();
    assert!(text.ends_with("[documents: no text on this page, and OCR failed: engine offline]\n"), "{text}");
    let panicking = Documents::builder(root.path())
        .ocr(|_: &ScannedPage<'_>| -> Result<String, golem_io::BoxError> { panic!("ocr bug") })
        .build()
        .unwrap();
    let text = panicking.extract_pdf("invoice.pdf", &Filter::all().pages("3")).unwrap();
    assert!(text.contains("OCR failed: the OCR hook panicked: ocr bug"), "{text}");
}

#[test]
fn the_tools_read_through_an_agent() {
    let root = root_with_samples();
    let documents = documents(root.path());
    let model = ScriptedModel::new()
        .tool_call("extract_pdf", r#"{"path":"budget.xlsx"}"#)
        .tool_call("extract_doc", r#"{"path":"budget.xlsx","sheets":["Notes"]}"#)
        .tool_call("extract_pdf", r#"{"path":"invoice.pdf","pages":"2","colour":"red"}"#)
        .text("The notes sheet holds one shared text.");
    let mut builder = Agent::builder(model);
    for tool in documents.tools() {
        builder = builder.tool(tool.max_retries(2));
    }
    let result = builder.build().unwrap().run((), "What is in the notes?").unwrap();
    let results: Vec<&str> =
        result.messages.iter().filter(|m| m.role == Role::Tool).map(|m| m.content.as_str()).collect();
    assert_eq!(results.len(), 3);
    assert!(
        results[0].contains("budget.xlsx is an Excel workbook, not a PDF; read it with extract_doc"),
        "{}",
        results[0]
    );
    assert!(results[1].starts_with("Workbook with 3 sheets"), "{}", results[1]);
    assert!(results[1].contains("| 1 | Shared \\| text |  |"), "{}", results[1]);
    assert!(
        results[2].contains("arguments must be an object with a string path and an optional string pages"),
        "{}",
        results[2]
    );
    assert_eq!(texts::EXTRACT_PDF, "extract_pdf");
}
