//! Hostile documents (SPEC EXTRA-03): zip bombs that tell the truth about
//! their size and ones that lie, packages of many entries, XML and PDF
//! objects nested without end, huge pages, page trees that loop,
//! password-protected files, truncated files and garbage — each a failed
//! result within the caps, never a panic, a hang or a runaway allocation.
#![cfg(all(feature = "documents", unix))]

use crate::documents_support::*;
use golem_io::tools::documents::{Documents, ExtractError, Filter, Limit};
use lopdf::encryption::crypt_filters::{Aes128CryptFilter, CryptFilter};
use lopdf::{dictionary, EncryptionState, EncryptionVersion, Object, Permissions};
use std::collections::BTreeMap;
use std::sync::Arc;

fn limit_of(result: Result<String, ExtractError>) -> Limit {
    match result {
        Err(ExtractError::Limit { limit, .. }) => limit,
        other => panic!("not a limit: {other:?}"),
    }
}

/// A deflated entry of `n` zero bytes declaring `declared` as its size.
fn lying_bomb(n: usize, declared: u32) -> Vec<u8> {
    let mut bytes = docx(&format!("<w:p><w:r><w:t>{}</w:t></w:r></w:p>", "a".repeat(n)));
    // Rewrite the document entry's uncompressed size in its local header
    // (offset 22) and central directory record (offset 24).
    let name = b"word/document.xml";
    for (signature, size_at) in [(b"PK\x03\x04", 22usize), (b"PK\x01\x02", 24usize)] {
        let at = (0..bytes.len() - 4)
            .filter(|i| &bytes[*i..*i + 4] == signature)
            .find(|i| {
                let name_at = if signature == b"PK\x03\x04" { i + 30 } else { i + 46 };
                bytes.get(name_at..name_at + name.len()) == Some(name.as_slice())
            })
            .expect("entry header");
        bytes[at + size_at..at + size_at + 4].copy_from_slice(&declared.to_le_bytes());
    }
    bytes
}

#[test]
fn zip_bombs_stop_at_the_inflation_cap_whatever_they_declare() {
    let root = tempfile::tempdir().unwrap();
    // 8 MiB of text, deflated to a few KiB.
    put(root.path(), "honest.docx", &docx(&format!("<w:p><w:r><w:t>{}</w:t></w:r></w:p>", "a".repeat(8 << 20))));
    put(root.path(), "lying.docx", &lying_bomb(8 << 20, 100));
    let documents = Documents::builder(root.path()).max_inflated_bytes(1 << 20).build().unwrap();
    assert_eq!(limit_of(documents.extract_doc("honest.docx", &Filter::all())), Limit::InflatedBytes(1 << 20));
    // The lie gets past the declared-size check; the inflated bytes are
    // counted (or zip stops at the declared size and the XML is cut).
    let error = documents.extract_doc("lying.docx", &Filter::all()).unwrap_err();
    assert!(
        matches!(error, ExtractError::Limit { limit: Limit::InflatedBytes(_), .. } | ExtractError::Malformed { .. }),
        "{error:?}"
    );
    // Under the default caps the honest one is read, its output cut.
    let text = Documents::builder(root.path()).build().unwrap().extract_doc("honest.docx", &Filter::all()).unwrap();
    assert!(text.ends_with("[documents: output truncated at 200000 characters]"), "{}", &text[text.len() - 80..]);
}

#[test]
fn packages_with_too_many_entries_are_refused_before_any_part_is_read() {
    let root = tempfile::tempdir().unwrap();
    let entries: Vec<(String, Vec<u8>)> = (0..300).map(|i| (format!("junk/{i}.xml"), Vec::new())).collect();
    let mut all: Vec<(&str, Vec<u8>)> = entries.iter().map(|(n, b)| (n.as_str(), b.clone())).collect();
    all.push(("_rels/.rels", rels(&[("rId1", "officeDocument", "word/document.xml")])));
    put(root.path(), "many.docx", &zip_of(&all));
    let documents = Documents::builder(root.path()).max_entries(256).build().unwrap();
    assert_eq!(limit_of(documents.extract_doc("many.docx", &Filter::all())), Limit::Entries(256));
}

#[test]
fn deeply_nested_xml_is_refused_at_the_depth_cap() {
    let root = tempfile::tempdir().unwrap();
    let deep = "<w:p>".repeat(100_000) + &"</w:p>".repeat(100_000);
    put(root.path(), "deep.docx", &docx(&deep));
    let unclosed = "<w:tbl><w:tr><w:tc>".repeat(50_000);
    put(root.path(), "unclosed.docx", &docx(&unclosed));
    let documents = Documents::builder(root.path()).build().unwrap();
    assert_eq!(limit_of(documents.extract_doc("deep.docx", &Filter::all())), Limit::XmlDepth(256));
    assert_eq!(limit_of(documents.extract_doc("unclosed.docx", &Filter::all())), Limit::XmlDepth(256));
}

#[test]
fn huge_and_sprawling_sheets_stay_within_the_output_cap() {
    let root = tempfile::tempdir().unwrap();
    // One cell at the last column and row, and 200,000 rows of cells.
    let far = "<row r=\"1048576\"><c r=\"XFD1048576\" t=\"inlineStr\"><is><t>far</t></is></c></row>";
    put(root.path(), "far.xlsx", &xlsx(far));
    let rows: String = (1..=200_000).map(|r| format!("<row r=\"{r}\"><c r=\"A{r}\"><v>{r}</v></c></row>")).collect();
    put(root.path(), "long.xlsx", &xlsx(&rows));
    let documents = Documents::builder(root.path()).max_output_chars(10_000).build().unwrap();
    assert_eq!(
        documents.extract_doc("far.xlsx", &Filter::all()).unwrap(),
        "Workbook with 1 sheet: \"S\".\n\n## Sheet: S\n\n|  | XFD |\n| --- | --- |\n| 1048576 | far |\n"
    );
    let long = documents.extract_doc("long.xlsx", &Filter::all()).unwrap();
    assert!(long.ends_with("call again with sheets [\"S\"]]"), "{}", &long[long.len() - 100..]);
    assert!(long.chars().count() < 10_200);
}

#[test]
fn huge_pdf_pages_are_cut_and_inflation_is_counted() {
    let root = tempfile::tempdir().unwrap();
    let line = "word ".repeat(4_000);
    let lines: Vec<&str> = std::iter::repeat_n(line.as_str(), 400).collect();
    put(root.path(), "huge.pdf", &pdf(&[&lines, &["next page"]]));
    let documents = Documents::builder(root.path()).build().unwrap();
    let text = documents.extract_pdf("huge.pdf", &Filter::all()).unwrap();
    assert!(text.ends_with("call again with pages \"1-\"]"), "{}", &text[text.len() - 100..]);
    // The page's content inflates past a 1 MiB budget.
    let small = Documents::builder(root.path()).max_inflated_bytes(1 << 20).build().unwrap();
    assert_eq!(limit_of(small.extract_pdf("huge.pdf", &Filter::all())), Limit::InflatedBytes(1 << 20));
}

#[test]
fn nested_pdf_objects_and_looping_page_trees_end_in_bounded_time() {
    let root = tempfile::tempdir().unwrap();
    let deep_array = "[".repeat(200_000) + &"]".repeat(200_000);
    let deep_dict = "<</A ".repeat(100_000) + &">>".repeat(100_000);
    for (name, body) in [("array.pdf", &deep_array), ("dict.pdf", &deep_dict)] {
        let pdf = format!(
            "%PDF-1.4\n1 0 obj<</Type/Catalog/Pages 2 0 R/X {body}>>endobj\n2 0 obj<</Type/Pages/Kids[]/Count 0>>endobj\ntrailer<</Root 1 0 R>>\n%%EOF\n"
        );
        put(root.path(), name, pdf.as_bytes());
    }
    // Content nested 200,000 arrays deep.
    let content_bomb = pdf_with(&[&["x"]], |doc| {
        let page = *doc.get_pages().get(&1).unwrap();
        let content = deep_array.clone().into_bytes();
        let id = doc.add_object(lopdf::Stream::new(dictionary! {}, content));
        doc.get_dictionary_mut(page).unwrap().set("Contents", id);
    });
    put(root.path(), "content.pdf", &content_bomb);
    // A page tree whose kid is its own parent.
    let looping = pdf_with(&[&["x"]], |doc| {
        let pages = doc.catalog().unwrap().get(b"Pages").unwrap().as_reference().unwrap();
        let kids = vec![Object::Reference(pages), Object::Reference(pages)];
        doc.get_dictionary_mut(pages).unwrap().set("Kids", kids);
    });
    put(root.path(), "loop.pdf", &looping);
    let documents = Documents::builder(root.path()).build().unwrap();
    for name in ["array.pdf", "dict.pdf", "content.pdf", "loop.pdf"] {
        let started = std::time::Instant::now();
        let result = documents.extract_pdf(name, &Filter::all());
        assert!(started.elapsed() < std::time::Duration::from_secs(20), "{name} took {:?}", started.elapsed());
        if let Err(error) = &result {
            assert!(!error.is_rejection(), "{name}: {error:?}");
        }
    }
}

#[test]
fn password_protected_documents_are_a_typed_error() {
    let root = tempfile::tempdir().unwrap();
    let encrypted = |user: &'static str| {
        pdf_with(&[&["secret text"]], move |doc| {
            doc.trailer.set(
                "ID",
                vec![Object::string_literal("0123456789abcdef"), Object::string_literal("0123456789abcdef")],
            );
            let filter: Arc<dyn CryptFilter> = Arc::new(Aes128CryptFilter);
            let version = EncryptionVersion::V4 {
                document: doc,
                encrypt_metadata: true,
                crypt_filters: BTreeMap::from([(b"StdCF".to_vec(), filter)]),
                stream_filter: b"StdCF".to_vec(),
                string_filter: b"StdCF".to_vec(),
                owner_password: "owner",
                user_password: user,
                permissions: Permissions::all(),
            };
            let state = EncryptionState::try_from(version).unwrap();
            doc.encrypt(&state).unwrap();
        })
    };
    put(root.path(), "locked.pdf", &encrypted("user"));
    put(root.path(), "owner-only.pdf", &encrypted(""));
    // An encrypted Office file is an OLE compound file with an
    // `EncryptedPackage` stream.
    let mut ole = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1".to_vec();
    ole.resize(512, 0);
    ole.extend("EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes));
    put(root.path(), "locked.docx", &ole);
    let documents = Documents::builder(root.path()).build().unwrap();
    assert_eq!(
        documents.extract_pdf("locked.pdf", &Filter::all()),
        Err(ExtractError::Encrypted { path: "locked.pdf".into() })
    );
    assert_eq!(
        documents.extract_pdf("locked.pdf", &Filter::all()).unwrap_err().to_string(),
        "locked.pdf is password-protected; its text cannot be extracted"
    );
    // Only an owner password: readable, as every PDF viewer reads it.
    assert!(documents.extract_pdf("owner-only.pdf", &Filter::all()).unwrap().contains("secret text"));
    assert_eq!(
        documents.extract_doc("locked.docx", &Filter::all()),
        Err(ExtractError::Encrypted { path: "locked.docx".into() })
    );
}

#[test]
fn truncated_files_and_garbage_are_failed_results_never_panics() {
    let root = root_with_samples();
    let documents = Documents::builder(root.path()).build().unwrap();
    for name in ["report.docx", "budget.xlsx", "launch.pptx", "invoice.pdf"] {
        let bytes = std::fs::read(root.path().join(name)).unwrap();
        let step = (bytes.len() / 97).max(1);
        for end in (0..bytes.len()).step_by(step) {
            put(root.path(), "cut", &bytes[..end]);
            match documents.extract("cut", &Filter::all()) {
                Ok(_) => {}
                Err(error) => assert!(!error.is_rejection(), "{name} cut at {end}: {error:?}"),
            }
        }
    }
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    for (i, prefix) in [b"".as_slice(), b"%PDF-1.7\n", b"PK\x03\x04"].iter().enumerate() {
        let garbage: Vec<u8> = prefix
            .iter()
            .copied()
            .chain((0..4096).map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            }))
            .collect();
        put(root.path(), "garbage", &garbage);
        let error = documents.extract("garbage", &Filter::all()).unwrap_err();
        match i {
            0 => assert_eq!(
                error.to_string(),
                "garbage is not a PDF, DOCX, XLSX or PPTX document (no PDF or zip signature)"
            ),
            _ => assert!(matches!(error, ExtractError::Malformed { .. }), "{error:?}"),
        }
    }
    // A zip that is not an office file, and a file past the size cap.
    put(root.path(), "plain.zip", &zip_of(&[("a.txt", b"hello".to_vec())]));
    assert_eq!(
        documents.extract("plain.zip", &Filter::all()).unwrap_err().to_string(),
        "plain.zip is not a PDF, DOCX, XLSX or PPTX document (a zip archive)"
    );
    let tiny = Documents::builder(root.path()).max_file_bytes(1000).build().unwrap();
    assert_eq!(limit_of(tiny.extract("invoice.pdf", &Filter::all())), Limit::FileBytes(1000));
}

/// The `documents` fuzz target's body over its committed seeds
/// (`fuzz/corpus/documents/`) and prefixes of each, so CI runs it on
/// stable Rust (SPEC ARCH-02).
#[test]
fn the_fuzz_body_holds_on_its_seed_corpus() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/documents");
    let mut seeds: Vec<_> = std::fs::read_dir(&dir).unwrap().map(|e| e.unwrap().path()).collect();
    seeds.sort();
    assert!(seeds.len() >= 5, "seed corpus {} is missing", dir.display());
    for seed in seeds {
        let data = std::fs::read(&seed).unwrap();
        golem_io::tools::fuzzing::documents(&data);
        for end in (0..data.len()).step_by((data.len() / 13).max(1)) {
            golem_io::tools::fuzzing::documents(&data[..end]);
        }
    }
}
