//! A page's text from its content stream: lopdf parses the operators and
//! decodes strings through each font's encoding (ToUnicode maps included);
//! this walks the text operators and lays the strings out in reading
//! order of the stream — a new line when the baseline moves, a blank line
//! for a paragraph-sized gap, a space for a gap on the same line or a wide
//! `TJ` kerning. Glyph widths are estimated (half an em), not read from
//! the font: enough to tell a word gap from the next glyph.
//!
//! Text in form XObjects and annotations is not read.

use lopdf::content::Content;
use lopdf::{Document, Encoding, Object, ObjectId};
use std::collections::HashMap;

/// Each font's encoding, decoded once per call however many pages use it
/// (keyed by the font dictionary's place in the loaded document), its
/// ToUnicode map inflated within `limit` bytes.
pub(crate) struct Fonts<'d> {
    limit: usize,
    encodings: HashMap<usize, Option<Encoding<'d>>>,
}

impl<'d> Fonts<'d> {
    pub(crate) fn new(limit: usize) -> Fonts<'d> {
        Fonts { limit, encodings: HashMap::new() }
    }

    /// The page's fonts by resource name, as keys into the cache.
    fn of_page(&mut self, doc: &'d Document, page: ObjectId) -> HashMap<Vec<u8>, usize> {
        let mut names = HashMap::new();
        for (name, font) in doc.get_page_fonts(page).unwrap_or_default() {
            let key = std::ptr::from_ref(font) as usize;
            self.encodings.entry(key).or_insert_with(|| font.get_font_encoding_with_limit(doc, self.limit).ok());
            names.insert(name, key);
        }
        names
    }
}

/// The text of `page`, whose inflated content is `content`; at most about
/// `cap` bytes of it, and true when more was held back.
pub(crate) fn page_text<'d>(
    doc: &'d Document,
    page: ObjectId,
    content: &[u8],
    fonts: &mut Fonts<'d>,
    cap: usize,
) -> (String, bool) {
    let names = fonts.of_page(doc, page);
    let mut layout = Layout::new(cap);
    for operation in Content::decode_iter(content) {
        let Ok(operation) = operation else { break };
        if layout.text.len() >= cap {
            return (layout.finish(), true);
        }
        let operands = &operation.operands;
        let number = |i: usize| operands.get(i).and_then(|o| o.as_float().ok()).filter(|n| n.is_finite());
        match operation.operator.as_str() {
            "BT" => layout.begin(),
            "Tf" => {
                let key = operands.first().and_then(|o| o.as_name().ok()).and_then(|name| names.get(name));
                layout.encoding = key.and_then(|key| fonts.encodings.get(key)).and_then(Option::as_ref);
                layout.size = number(1).unwrap_or(layout.size).abs().max(0.1);
            }
            "TL" => layout.leading = number(0).unwrap_or(layout.leading),
            "Td" => layout.move_line(number(0).unwrap_or(0.0), number(1).unwrap_or(0.0)),
            "TD" => {
                let ty = number(1).unwrap_or(0.0);
                layout.leading = -ty;
                layout.move_line(number(0).unwrap_or(0.0), ty);
            }
            "Tm" => {
                let m: Vec<f32> = (0..6).map_while(number).collect();
                if let [a, b, c, d, e, f] = m[..] {
                    layout.set_matrix([a, b, c, d, e, f]);
                }
            }
            "T*" => layout.next_line(),
            "Tj" => layout.show_operand(operands.first()),
            "'" => {
                layout.next_line();
                layout.show_operand(operands.first());
            }
            "\"" => {
                layout.next_line();
                layout.show_operand(operands.get(2));
            }
            "TJ" => {
                for item in operands.first().and_then(|o| o.as_array().ok()).into_iter().flatten() {
                    match item {
                        Object::String(..) => layout.show_operand(Some(item)),
                        // Kerning in thousandths of an em, negative moving
                        // right: a wide one is a word gap.
                        other => {
                            if let Ok(k) = other.as_float() {
                                layout.kern(k);
                            }
                        }
                    }
                }
            }
            _ => {}
        }
    }
    (layout.finish(), false)
}

type Matrix = [f32; 6];
const IDENTITY: Matrix = [1.0, 0.0, 0.0, 1.0, 0.0, 0.0];

/// Where the text operators have put the pen, and the text so far.
struct Layout<'e, 'd> {
    text: String,
    cap: usize,
    encoding: Option<&'e Encoding<'d>>,
    size: f32,
    leading: f32,
    /// The text matrix and the line matrix (PDF 32000-1, 9.4.2).
    tm: Matrix,
    tlm: Matrix,
    /// Where the last string ended: (x, y) in text space.
    pen: Option<(f32, f32)>,
}

impl<'e, 'd> Layout<'e, 'd> {
    fn new(cap: usize) -> Self {
        Layout {
            text: String::new(),
            cap,
            encoding: None,
            size: 1.0,
            leading: 0.0,
            tm: IDENTITY,
            tlm: IDENTITY,
            pen: None,
        }
    }

    fn begin(&mut self) {
        self.tm = IDENTITY;
        self.tlm = IDENTITY;
    }

    fn set_matrix(&mut self, m: Matrix) {
        self.tm = m;
        self.tlm = m;
    }

    fn move_line(&mut self, tx: f32, ty: f32) {
        let [a, b, c, d, e, f] = self.tlm;
        self.tlm = [a, b, c, d, e + tx * a + ty * c, f + tx * b + ty * d];
        self.tm = self.tlm;
    }

    fn next_line(&mut self) {
        self.move_line(0.0, -self.leading);
    }

    /// The font size as drawn (the text matrix scales it).
    fn em(&self) -> f32 {
        (self.size * self.tm[3].abs().max(self.tm[0].abs())).max(0.1)
    }

    fn kern(&mut self, thousandths: f32) {
        let shift = -thousandths / 1000.0 * self.size * self.tm[0];
        self.tm[4] += shift;
        if thousandths < -250.0 && !self.text.ends_with([' ', '\n']) && !self.text.is_empty() {
            self.text.push(' ');
        }
    }

    fn show_operand(&mut self, operand: Option<&Object>) {
        let (Some(encoding), Some(Object::String(bytes, _))) = (self.encoding, operand) else { return };
        let Ok(decoded) = Document::decode_text(encoding, bytes) else { return };
        let decoded: String = decoded.chars().filter(|c| !c.is_control() || *c == '\t').collect();
        if decoded.is_empty() {
            return;
        }
        self.separate();
        let room = self.cap.saturating_sub(self.text.len());
        self.text.push_str(crate::tools::clip::prefix(&decoded, room));
        // Half an em per character: an estimate of where the string ends.
        let width = decoded.chars().count() as f32 * 0.5 * self.size * self.tm[0];
        self.tm[4] += width;
        self.pen = Some((self.tm[4], self.tm[5]));
    }

    /// A line break, a paragraph break or a space between the last string
    /// and the one about to be shown, from where the pen moved.
    fn separate(&mut self) {
        let Some((x, y)) = self.pen else { return };
        let em = self.em();
        let dy = (self.tm[5] - y).abs();
        if dy > 1.8 * em {
            self.text.push_str("\n\n");
        } else if dy > 0.3 * em {
            self.text.push('\n');
        } else if (self.tm[4] - x).abs() > 0.15 * em && !self.text.ends_with([' ', '\n']) {
            self.text.push(' ');
        }
    }

    /// The text, each line trimmed, at most one blank line in a row.
    fn finish(self) -> String {
        let mut out = String::with_capacity(self.text.len());
        let mut blank = true;
        for line in self.text.lines() {
            let line = line.trim();
            if line.is_empty() {
                if !blank {
                    out.push('\n');
                }
                blank = true;
                continue;
            }
            out.push_str(line);
            out.push('\n');
            blank = false;
        }
        out.trim_end().to_string()
    }
}
