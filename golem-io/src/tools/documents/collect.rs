//! Text gathered while an office part is walked, held to what the output
//! can still take: a hostile part full of text costs memory only up to the
//! character cap, however much of it there is.

/// Append `text` to `buffer`, which holds at most `cap` bytes; true when
/// some of `text` was dropped.
pub(crate) fn push_capped(buffer: &mut String, text: &str, cap: usize) -> bool {
    let kept = crate::tools::clip::prefix(text, cap.saturating_sub(buffer.len()));
    buffer.push_str(kept);
    kept.len() < text.len()
}

/// A table being read: rows of cells, holding at most `cap` bytes.
#[derive(Debug, Default)]
pub(crate) struct TableBuild {
    pub(crate) rows: Vec<Vec<String>>,
    row: Vec<String>,
    cell: Option<String>,
    held: usize,
    /// Some text was dropped at the cap.
    pub(crate) clipped: bool,
}

impl TableBuild {
    /// A row starts.
    pub(crate) fn open_row(&mut self) {
        self.row.clear();
    }

    /// A cell starts.
    pub(crate) fn open_cell(&mut self) {
        self.cell = Some(String::new());
    }

    /// True while a cell is open, so text has a place to go.
    pub(crate) fn in_cell(&self) -> bool {
        self.cell.is_some()
    }

    /// Text for the open cell; a new paragraph in it starts a new line.
    pub(crate) fn add_paragraph(&mut self, text: &str, cap: usize) {
        let room = cap.saturating_sub(self.held);
        if let Some(cell) = &mut self.cell {
            let before = cell.len();
            if !cell.is_empty() {
                self.clipped |= push_capped(cell, "\n", before + room);
            }
            self.clipped |= push_capped(cell, text, before + room);
            self.held += cell.len() - before;
        }
    }

    /// The open cell ends.
    pub(crate) fn close_cell(&mut self) {
        if let Some(cell) = self.cell.take() {
            self.row.push(cell);
        }
    }

    /// The row ends.
    pub(crate) fn close_row(&mut self) {
        self.close_cell();
        if !self.row.is_empty() {
            self.rows.push(std::mem::take(&mut self.row));
        }
    }

    /// The table as plain lines, for a table nested in a cell.
    pub(crate) fn flattened(&self) -> String {
        self.rows.iter().map(|row| row.join("; ")).collect::<Vec<_>>().join("\n")
    }

    /// The table in Markdown, its first row the header.
    pub(crate) fn markdown(&self) -> Option<String> {
        let (header, rows) = self.rows.split_first()?;
        Some(super::markdown::table(header, rows))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buffers_stop_at_their_cap() {
        let mut buffer = String::new();
        assert!(push_capped(&mut buffer, "héllo", 2));
        assert_eq!(buffer, "h");
        assert!(push_capped(&mut buffer, "more", 2));
        assert_eq!(buffer, "hm");
        assert!(!push_capped(&mut buffer, "", 2));
        assert!(!push_capped(&mut String::new(), "ab", 2));
        let mut table = TableBuild::default();
        table.open_row();
        table.open_cell();
        table.add_paragraph("abc", 4);
        table.add_paragraph("def", 4);
        table.close_row();
        assert_eq!(table.rows, [vec!["abc\n".to_string()]]);
        assert!(table.clipped);
    }
}
