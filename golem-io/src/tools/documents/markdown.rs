//! The Markdown a call returns, written under its character cap: blocks
//! separated by blank lines, tables with escaped cells, and the marker
//! that says where a cut output stopped and how to read on.

use super::texts;

/// Markdown under construction, at most `max` characters of it.
#[derive(Debug)]
pub(crate) struct Markdown {
    text: String,
    chars: usize,
    max: usize,
    full: bool,
    /// The arguments that read on from the unit being written when the
    /// cap was reached.
    resume: Option<String>,
}

impl Markdown {
    pub(crate) fn new(max: usize) -> Markdown {
        Markdown { text: String::new(), chars: 0, max, full: false, resume: None }
    }

    /// True once the cap is reached: callers stop producing.
    pub(crate) fn is_full(&self) -> bool {
        self.full
    }

    /// The bytes a unit still being collected (a paragraph, a table) may
    /// usefully hold: enough for the characters left under the cap
    /// however many bytes each takes, and one more, so a unit that was
    /// held back always overflows the cap when written.
    pub(crate) fn room(&self) -> usize {
        (self.max - self.chars).saturating_add(1).saturating_mul(4)
    }

    /// Mark the output cut: a unit was held back at [`room`](Self::room),
    /// so nothing after it may follow as if it were whole.
    pub(crate) fn cut(&mut self) {
        self.full = true;
    }

    /// Append `text`, cut at the cap.
    pub(crate) fn push(&mut self, text: &str) {
        if self.full {
            return;
        }
        let room = self.max - self.chars;
        let count = text.chars().count();
        if count <= room {
            self.text.push_str(text);
            self.chars += count;
            return;
        }
        let end = text.char_indices().nth(room).map_or(text.len(), |(at, _)| at);
        self.text.push_str(&text[..end]);
        self.chars = self.max;
        self.full = true;
    }

    /// Start a block: a blank line after whatever came before.
    pub(crate) fn block(&mut self, text: &str) {
        if !self.text.is_empty() {
            self.push("\n\n");
        }
        self.push(text.trim_end_matches('\n'));
    }

    /// Continue a list: the next item on the next line.
    pub(crate) fn line(&mut self, text: &str) {
        if !self.text.is_empty() {
            self.push("\n");
        }
        self.push(text.trim_end_matches('\n'));
    }

    /// Name the arguments that read on from here, should the cap be
    /// reached before the next call to this.
    pub(crate) fn resume_with(&mut self, resume: String) {
        if !self.full {
            self.resume = Some(resume);
        }
    }

    /// The Markdown, with the truncation marker when it was cut.
    pub(crate) fn finish(mut self) -> String {
        if self.full {
            self.text.push_str(&texts::truncated(self.max, self.resume.as_deref()));
        } else if !self.text.is_empty() {
            self.text.push('\n');
        }
        self.text
    }
}

/// `count` and `noun`, the noun plural unless the count is one
/// ("1 page", "3 pages").
pub(crate) fn counted(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

/// A cell's text on one table row: pipes escaped, line breaks as `<br>`,
/// runs of spaces kept single.
pub(crate) fn cell(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.trim().lines().enumerate() {
        if i > 0 {
            out.push_str("<br>");
        }
        let mut space = false;
        for c in line.trim().chars() {
            match c {
                '|' => out.push_str("\\|"),
                c if c.is_whitespace() => {
                    if !space {
                        out.push(' ');
                    }
                    space = true;
                    continue;
                }
                c => out.push(c),
            }
            space = false;
        }
    }
    out
}

/// A Markdown table: `header` names the columns; each row is padded to
/// its width. Cells are escaped here.
pub(crate) fn table(header: &[String], rows: &[Vec<String>]) -> String {
    let width = header.len().max(rows.iter().map(Vec::len).max().unwrap_or(0)).max(1);
    let mut out = String::new();
    let mut line = |cells: &mut dyn Iterator<Item = String>| {
        out.push('|');
        for cell in cells {
            out.push(' ');
            out.push_str(&cell);
            out.push_str(" |");
        }
        out.push('\n');
    };
    let padded = |row: &[String]| (0..width).map(|i| row.get(i).map_or(String::new(), |c| cell(c))).collect::<Vec<_>>();
    line(&mut padded(header).into_iter());
    line(&mut (0..width).map(|_| "---".to_string()));
    for row in rows {
        line(&mut padded(row).into_iter());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_is_cut_at_the_cap_with_a_marker() {
        let mut md = Markdown::new(10);
        md.block("# Título");
        md.resume_with("pages \"2-\"".into());
        md.block("more text");
        assert!(md.is_full());
        assert_eq!(
            md.finish(),
            "# Título\n\n\n\n[documents: output truncated at 10 characters; to read on, call again with pages \"2-\"]"
        );
        let mut md = Markdown::new(100);
        md.block("one");
        md.block("two\n");
        assert_eq!(md.finish(), "one\n\ntwo\n");
    }

    #[test]
    fn tables_escape_and_pad_their_cells() {
        let header = vec!["".to_string(), "A".to_string(), "B".to_string()];
        let rows =
            vec![vec!["1".to_string(), "a|b".to_string()], vec!["2".into(), "x".into(), "two\nlines  here".into()]];
        assert_eq!(
            table(&header, &rows),
            "|  | A | B |\n| --- | --- | --- |\n| 1 | a\\|b |  |\n| 2 | x | two<br>lines here |\n"
        );
    }
}
