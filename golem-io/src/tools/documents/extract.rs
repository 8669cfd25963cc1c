//! One extraction from path to Markdown: the path confined and the file
//! opened as `read_file` does, its size checked before it is read, its
//! kind told by its signature, the matching reader run with its panics
//! contained, and every fault named with the path the model gave.

use super::error::{ExtractError, Fault, Limit};
use super::kind::{self, Kind, HEAD_BYTES};
use super::markdown::Markdown;
use super::office::{Office, OfficeKind};
use super::selection::Filter;
use super::{docx, pdf, pptx, texts, xlsx, Inner};
use std::io::{Read, Seek, SeekFrom};

/// Which tool asks: each reads its own kinds and points to the other.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Want {
    Pdf,
    Office,
    Any,
}

/// Extract `path` as Markdown.
pub(crate) fn extract(inner: &Inner, path: &str, filter: &Filter, want: Want) -> Result<String, ExtractError> {
    let root = &inner.root;
    let resolved = root.resolve(path).map_err(ExtractError::refused)?;
    let max_file_bytes = inner.limits.max_file_bytes;
    if resolved.metadata().len() > max_file_bytes {
        return Err(Fault::Limit(Limit::FileBytes(max_file_bytes)).named(path));
    }
    let mut file = root.open(path, &resolved).map_err(ExtractError::refused)?;
    let io = |e: std::io::Error| ExtractError::Failed(crate::tools::confine::texts::io(path, &e.to_string()));
    let mut head = Vec::with_capacity(HEAD_BYTES);
    file.by_ref().take(HEAD_BYTES as u64).read_to_end(&mut head).map_err(io)?;
    file.seek(SeekFrom::Start(0)).map_err(io)?;
    let mut out = Markdown::new(inner.limits.max_output_chars);
    let outcome = crate::run::contain::contain("document extraction", || {
        read(inner, path, filter, want, kind::sniff(&head), file, &mut out)
    });
    match outcome {
        Ok(Ok(())) => Ok(out.finish()),
        Ok(Err(ReadFailure::Fault(fault))) => Err(fault.named(path)),
        Ok(Err(ReadFailure::Io(error))) => Err(io(error)),
        Err(panicked) => Err(Fault::malformed(format!("the reader failed on it ({panicked})")).named(path)),
    }
}

/// A reader's failure: about the document, or about reading the file.
pub(crate) enum ReadFailure {
    Fault(Fault),
    Io(std::io::Error),
}

impl From<Fault> for ReadFailure {
    fn from(fault: Fault) -> Self {
        ReadFailure::Fault(fault)
    }
}

/// Run the reader for `kind` (the caller contains its panics).
pub(crate) fn read(
    inner: &Inner,
    path: &str,
    filter: &Filter,
    want: Want,
    kind: Kind,
    file: impl Read + Seek,
    out: &mut Markdown,
) -> Result<(), ReadFailure> {
    let limits = &inner.limits;
    match kind {
        Kind::Pdf => {
            if want == Want::Office {
                return Err(Fault::Rejected(texts::use_pdf_tool(path)).into());
            }
            let given = [filter.sheets.as_ref().map(|_| "sheets"), filter.slides.as_ref().map(|_| "slides")];
            refuse_filters(path, "a PDF", &given)?;
            let bytes = read_all(file, limits.max_file_bytes)?;
            pdf::extract(&bytes, path, filter.pages.as_deref(), limits, inner.ocr.as_deref(), out)?;
        }
        Kind::Zip => {
            let mut office = Office::open(file, limits)?;
            let kind = office.kind();
            if want == Want::Pdf {
                return Err(Fault::Rejected(texts::use_doc_tool(path, kind.describe())).into());
            }
            let pages = filter.pages.as_ref().map(|_| "pages");
            let sheets = filter.sheets.as_ref().map(|_| "sheets");
            let slides = filter.slides.as_ref().map(|_| "slides");
            match kind {
                OfficeKind::Docx => {
                    refuse_filters(path, kind.describe(), &[pages, sheets, slides])?;
                    docx::extract(&mut office, out)?;
                }
                OfficeKind::Xlsx => {
                    refuse_filters(path, kind.describe(), &[pages, slides])?;
                    xlsx::extract(&mut office, path, filter.sheets.as_deref(), out)?;
                }
                OfficeKind::Pptx => {
                    refuse_filters(path, kind.describe(), &[pages, sheets])?;
                    pptx::extract(&mut office, path, filter.slides.as_deref(), out)?;
                }
            }
        }
        Kind::Compound => {
            let bytes = read_all(file, limits.max_file_bytes)?;
            if kind::is_encrypted_package(&bytes) {
                return Err(Fault::Encrypted.into());
            }
            return Err(Fault::Unsupported("a legacy Office file (.doc, .xls or .ppt)".into()).into());
        }
        Kind::Other => return Err(Fault::Unsupported("no PDF or zip signature".into()).into()),
    }
    Ok(())
}

/// A rejection for the first filter given that does not apply.
fn refuse_filters(path: &str, kind: &str, given: &[Option<&str>]) -> Result<(), Fault> {
    match given.iter().flatten().next() {
        Some(argument) => Err(Fault::Rejected(texts::not_applicable(argument, path, kind))),
        None => Ok(()),
    }
}

/// The whole file, which the size check let through; a file that grew
/// past the cap since is refused.
fn read_all(file: impl Read, max: u64) -> Result<Vec<u8>, ReadFailure> {
    let mut bytes = Vec::new();
    file.take(max.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadFailure::Io)?;
    if bytes.len() as u64 > max {
        return Err(Fault::Limit(Limit::FileBytes(max)).into());
    }
    Ok(bytes)
}
