//! The optional OCR hook: text for PDF pages that have none (scans). golem
//! ships no OCR engine; an application that has one implements [`Ocr`]
//! (or passes a closure) and the PDF extractor calls it for each chosen
//! page whose content yields no text.

use crate::BoxError;

/// Recognises the text of a page that has no text layer.
///
/// Called on the extracting thread, once per chosen page without text; a
/// panic is contained and reads as a failed recognition. What it returns
/// counts against the output cap like any other text.
///
/// ```
/// use golem_io::tools::documents::{Ocr, ScannedPage};
///
/// struct Tesseract;
/// impl Ocr for Tesseract {
///     fn recognize(&self, page: &ScannedPage<'_>) -> Result<String, golem_io::BoxError> {
///         // Hand `page.images` (or `page.pdf` and `page.number`, to render
///         // the page) to an OCR engine.
///         Ok(format!("page {} has {} images", page.number, page.images.len()))
///     }
/// }
/// ```
pub trait Ocr: Send + Sync + 'static {
    /// The text of `page`; an empty string when there is none.
    fn recognize(&self, page: &ScannedPage<'_>) -> Result<String, BoxError>;
}

impl<F> Ocr for F
where
    F: Fn(&ScannedPage<'_>) -> Result<String, BoxError> + Send + Sync + 'static,
{
    fn recognize(&self, page: &ScannedPage<'_>) -> Result<String, BoxError> {
        self(page)
    }
}

/// A PDF page without text, as the OCR hook sees it.
#[derive(Debug)]
#[non_exhaustive]
pub struct ScannedPage<'a> {
    /// The page's number, 1-based.
    pub number: u32,
    /// The whole PDF file, as read once under the confinement checks (a
    /// hook that renders pages uses these bytes, never the path).
    pub pdf: &'a [u8],
    /// The images drawn directly on the page, as stored.
    pub images: Vec<PageImage<'a>>,
}

/// An image on a scanned page, its data as stored in the PDF: a
/// `DCTDecode` image is a JPEG file, a `JPXDecode` one a JPEG 2000 file;
/// others are compressed raw samples.
#[derive(Debug)]
#[non_exhaustive]
pub struct PageImage<'a> {
    /// Width in samples.
    pub width: i64,
    /// Height in samples.
    pub height: i64,
    /// The colour space's name (`DeviceRGB`, …), when it has a simple one.
    pub color_space: Option<String>,
    /// Bits per sample, when given.
    pub bits_per_component: Option<i64>,
    /// The stream's filters in order (`DCTDecode`, `FlateDecode`, …).
    pub filters: Vec<String>,
    /// The stream's bytes, still encoded by `filters`.
    pub data: &'a [u8],
}
