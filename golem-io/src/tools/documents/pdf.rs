//! A PDF as Markdown, one section per chosen page, read by lopdf under the
//! caps: the file's size is checked before it is read; the streams lopdf
//! inflates while loading (object and cross-reference streams) share the
//! inflation budget, each allowed at most its share of it (the budget over
//! the number of `stream` keywords in the file, which no escape can hide);
//! page contents are drawn from the budget as they are inflated. A
//! password-protected file is [`Fault::Encrypted`]; one that opens with
//! the empty password (an owner password only) is read.

use super::error::Fault;
use super::limits::{Budget, Limits};
use super::markdown::{counted, Markdown};
use super::ocr::{Ocr, PageImage, ScannedPage};
use super::pdf_text::{page_text, Fonts};
use super::{selection, texts};
use lopdf::{DecompressError, Document, Error, LoadOptions, ObjectId};

/// Extract the chosen pages (`None`: all) of the PDF `bytes` into `out`.
pub(crate) fn extract(
    bytes: &[u8],
    path: &str,
    pages: Option<&str>,
    limits: &Limits,
    ocr: Option<&dyn Ocr>,
    out: &mut Markdown,
) -> Result<(), Fault> {
    let share = limits.max_inflated_bytes / count_streams(bytes).max(1);
    let share = usize::try_from(share).unwrap_or(usize::MAX);
    let mut options = LoadOptions::with_max_decompressed_size(share);
    options.strict = false;
    let doc = Document::load_mem_with_options(bytes, options).map_err(|e| load_fault(e, limits))?;
    // Opened without the password: lopdf leaves the objects encrypted.
    if doc.trailer.has(b"Encrypt") && !doc.was_encrypted() {
        return Err(Fault::Encrypted);
    }
    let page_ids = doc.get_pages();
    let count = page_ids.len();
    out.block(&format!("PDF with {}.", counted(count, "page")));
    if count == 0 {
        return Ok(());
    }
    let mut budget = Budget::new(limits.max_inflated_bytes);
    let mut fonts = Fonts::new(share);
    for number in selection::select("pages", pages, path, count)? {
        if out.is_full() {
            break;
        }
        out.resume_with(format!("pages \"{number}-\""));
        out.block(&format!("## Page {number}"));
        let Some(&page) = u32::try_from(number).ok().and_then(|n| page_ids.get(&n)) else { continue };
        let left = usize::try_from(budget.left()).unwrap_or(usize::MAX);
        let content = doc.get_page_content_with_limit(page, left).map_err(|e| match e {
            Error::Decompress(DecompressError::MemoryLimitExceeded { .. }) => budget.exceeded(),
            other => Fault::malformed(other),
        })?;
        budget.take(content.len() as u64)?;
        let (text, clipped) = page_text(&doc, page, &content, &mut fonts, out.room());
        if !text.trim().is_empty() {
            out.block(&text);
            // Text held back at the cap: the output ends with this page.
            if clipped {
                out.cut();
            }
            continue;
        }
        let recognized = match ocr {
            Some(ocr) => recognize(ocr, &doc, page, number, bytes),
            None => Ok(String::new()),
        };
        match recognized {
            Ok(text) if !text.trim().is_empty() => out.block(&text),
            Ok(_) => out.block(texts::NO_TEXT),
            Err(error) => out.block(&texts::ocr_failed(&error)),
        }
    }
    Ok(())
}

/// How many streams the file can hold at most: its `stream` keywords
/// (an `endstream` is not one).
fn count_streams(bytes: &[u8]) -> u64 {
    let mut count = 0;
    for (at, window) in bytes.windows(6).enumerate() {
        if window == b"stream" && !(at >= 3 && &bytes[at - 3..at] == b"end") {
            count += 1;
        }
    }
    count
}

/// A load error as a fault.
fn load_fault(error: Error, limits: &Limits) -> Fault {
    match error {
        Error::Decompress(DecompressError::MemoryLimitExceeded { .. }) => {
            Fault::Limit(super::error::Limit::InflatedBytes(limits.max_inflated_bytes))
        }
        Error::Decryption(_) | Error::InvalidPassword | Error::UnsupportedSecurityHandler(_) => Fault::Encrypted,
        other => Fault::malformed(other),
    }
}

/// Ask the OCR hook for the page's text, its panic contained.
fn recognize(ocr: &dyn Ocr, doc: &Document, page: ObjectId, number: usize, pdf: &[u8]) -> Result<String, String> {
    let images = doc
        .get_page_images(page)
        .unwrap_or_default()
        .into_iter()
        .map(|image| PageImage {
            width: image.width,
            height: image.height,
            color_space: image.color_space,
            bits_per_component: image.bits_per_component,
            filters: image.filters.unwrap_or_default(),
            data: image.content,
        })
        .collect();
    let scanned = ScannedPage { number: u32::try_from(number).unwrap_or(u32::MAX), pdf, images };
    match crate::run::contain::contain("the OCR hook", || ocr.recognize(&scanned)) {
        Ok(Ok(text)) => Ok(text),
        Ok(Err(error)) => Err(error.to_string()),
        Err(panicked) => Err(panicked.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::count_streams;

    #[test]
    fn stream_keywords_are_counted_without_their_ends() {
        assert_eq!(count_streams(b"1 0 obj<<>>stream\nxx\nendstream endobj 2 0 obj<<>>stream\r\nendstream"), 2);
        assert_eq!(count_streams(b"%PDF-1.7 nothing inside"), 0);
    }
}
