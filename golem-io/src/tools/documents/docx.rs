//! A Word document (`word/document.xml`) as Markdown: headings from the
//! paragraph styles (`styles.xml` names and outline levels), list items
//! (numbered in the paragraph or by its style),
//! tables (a nested table flattened into its cell), line breaks and tabs.
//! Text boxes are read once (a `mc:Fallback` copy is skipped); deleted
//! revisions and field codes are not text.

use super::collect::{push_capped, TableBuild};
use super::error::Fault;
use super::markdown::Markdown;
use super::office::Office;
use super::xml::{Node, Xml};
use std::collections::HashMap;
use std::io::{Read, Seek};

/// Extract the document into `out`.
pub(crate) fn extract(office: &mut Office<impl Read + Seek>, out: &mut Markdown) -> Result<(), Fault> {
    let main = office.main().to_string();
    let rels = office.rels(&main)?;
    let styles = match rels.of_kind("styles").map(str::to_string) {
        Some(part) => match office.text(&part)? {
            Some(styles) => Styles::parse(&styles, office.max_depth())?,
            None => Styles::default(),
        },
        None => Styles::default(),
    };
    let body = office.required(&main)?;
    Walk { styles, out, stack: Vec::new(), in_text: 0, listed: false, clipped: false }.run(&body, office.max_depth())
}

/// What the paragraph styles make of a paragraph: the heading level (1–6)
/// of each heading style, the list level of each style that numbers its
/// paragraphs.
#[derive(Debug, Default)]
struct Styles {
    headings: HashMap<String, usize>,
    lists: HashMap<String, usize>,
}

impl Styles {
    fn parse(styles: &str, max_depth: usize) -> Result<Styles, Fault> {
        let mut xml = Xml::new(styles, max_depth);
        let mut parsed = Styles::default();
        let mut current: Option<String> = None;
        while let Some(node) = xml.next()? {
            let Node::Open(tag) = node else { continue };
            let Some(id) = current.clone().filter(|_| tag.name() != b"style") else {
                current = tag.attr(b"styleId");
                continue;
            };
            match tag.name() {
                b"name" => {
                    if let Some(level) = tag.attr(b"val").and_then(|name| level_of_name(&name)) {
                        parsed.headings.insert(id, level);
                    }
                }
                b"outlineLvl" => {
                    if let Some(level) = tag.attr(b"val").and_then(|v| v.parse::<usize>().ok()).filter(|v| *v < 9) {
                        parsed.headings.entry(id).or_insert((level + 1).min(6));
                    }
                }
                b"numPr" => {
                    parsed.lists.entry(id).or_insert(0);
                }
                b"ilvl" => {
                    let level = tag.attr(b"val").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0).min(8);
                    parsed.lists.insert(id, level);
                }
                _ => {}
            }
        }
        Ok(parsed)
    }
}

/// `Title` → 1, `heading N` → N (at most 6).
fn level_of_name(name: &str) -> Option<usize> {
    let name = name.trim().to_ascii_lowercase();
    if name == "title" {
        return Some(1);
    }
    let level = name.strip_prefix("heading")?.trim().parse::<usize>().ok()?;
    (1..=9).contains(&level).then_some(level.min(6))
}

/// A paragraph being read.
#[derive(Debug, Default)]
struct Para {
    text: String,
    style: Option<String>,
    outline: Option<usize>,
    list: Option<usize>,
}

/// What text is being gathered into.
#[derive(Debug)]
enum Holder {
    Para(Para),
    Table(TableBuild),
}

struct Walk<'o> {
    styles: Styles,
    out: &'o mut Markdown,
    stack: Vec<Holder>,
    in_text: usize,
    /// The last block written was a list item (the next one follows on
    /// the next line).
    listed: bool,
    /// Text was dropped at the cap: the output ends at the next block.
    clipped: bool,
}

impl Walk<'_> {
    fn run(mut self, body: &str, max_depth: usize) -> Result<(), Fault> {
        let mut xml = Xml::new(body, max_depth);
        while let Some(node) = xml.next()? {
            if self.out.is_full() {
                break;
            }
            match node {
                Node::Open(tag) => match tag.name() {
                    b"p" => self.stack.push(Holder::Para(Para::default())),
                    b"pStyle" => self.para(|p| p.style = tag.attr(b"val")),
                    b"outlineLvl" => {
                        let level = tag.attr(b"val").and_then(|v| v.parse::<usize>().ok()).filter(|v| *v < 9);
                        self.para(|p| p.outline = level.map(|l| (l + 1).min(6)));
                    }
                    b"numPr" => self.para(|p| p.list = Some(p.list.unwrap_or(0))),
                    b"ilvl" => {
                        let level = tag.attr(b"val").and_then(|v| v.parse::<usize>().ok()).unwrap_or(0).min(8);
                        self.para(|p| p.list = Some(level));
                    }
                    b"t" => self.in_text += 1,
                    // A tab stop in the paragraph's properties has a value;
                    // a tab in the text has none.
                    b"tab" if tag.attr(b"val").is_none() => self.text("\t"),
                    b"br" | b"cr" => self.text("\n"),
                    b"noBreakHyphen" => self.text("-"),
                    b"tbl" => self.stack.push(Holder::Table(TableBuild::default())),
                    b"tr" => self.table(TableBuild::open_row),
                    b"tc" => self.table(TableBuild::open_cell),
                    b"Fallback" => xml.skip()?,
                    _ => {}
                },
                Node::Text(text) if self.in_text > 0 => self.text(&text),
                Node::Text(_) => {}
                Node::Close(name) => match name.as_slice() {
                    b"t" => self.in_text = self.in_text.saturating_sub(1),
                    b"p" => self.close_para(),
                    b"tc" => self.table(TableBuild::close_cell),
                    b"tr" => self.table(TableBuild::close_row),
                    b"tbl" => self.close_table(),
                    _ => {}
                },
            }
        }
        Ok(())
    }

    /// The room text may take: what the output can still hold.
    fn cap(&self) -> usize {
        self.out.room()
    }

    fn para(&mut self, f: impl FnOnce(&mut Para)) {
        if let Some(Holder::Para(para)) = self.stack.last_mut() {
            f(para);
        }
    }

    fn table(&mut self, f: impl FnOnce(&mut TableBuild)) {
        if let Some(Holder::Table(table)) = self.stack.last_mut() {
            f(table);
        }
    }

    fn text(&mut self, text: &str) {
        let cap = self.cap();
        let mut clipped = false;
        self.para(|p| clipped = push_capped(&mut p.text, text, cap));
        self.clipped |= clipped;
    }

    fn close_para(&mut self) {
        let Some(Holder::Para(para)) = self.stack.pop() else { return };
        let text = para.text.trim();
        if text.is_empty() {
            return;
        }
        let cap = self.cap();
        match self.stack.last_mut() {
            Some(Holder::Table(table)) if table.in_cell() => table.add_paragraph(text, cap),
            Some(Holder::Table(_)) => {}
            // A paragraph in a text box inside another paragraph.
            Some(Holder::Para(outer)) => {
                self.clipped |= push_capped(&mut outer.text, "\n", cap);
                self.clipped |= push_capped(&mut outer.text, text, cap);
            }
            None => self.write(&para, text),
        }
    }

    fn close_table(&mut self) {
        let Some(Holder::Table(mut table)) = self.stack.pop() else { return };
        table.close_row();
        self.clipped |= table.clipped;
        let cap = self.cap();
        match self.stack.last_mut() {
            Some(Holder::Table(outer)) if outer.in_cell() => outer.add_paragraph(&table.flattened(), cap),
            Some(Holder::Table(_)) => {}
            Some(Holder::Para(outer)) => self.clipped |= push_capped(&mut outer.text, &table.flattened(), cap),
            None => {
                if let Some(markdown) = table.markdown() {
                    self.out.block(&markdown);
                    self.listed = false;
                }
                self.end_if_clipped();
            }
        }
    }

    /// After a top-level block: held-back text ends the output here.
    fn end_if_clipped(&mut self) {
        if self.clipped {
            self.out.cut();
        }
    }

    /// A top-level paragraph as a heading, a list item or plain text.
    fn write(&mut self, para: &Para, text: &str) {
        let style = para.style.as_deref();
        let heading = style
            .and_then(|style| {
                self.styles
                    .headings
                    .get(style)
                    .copied()
                    .or_else(|| level_of_name(&style.replace("Heading", "heading ")))
            })
            .or(para.outline);
        let list = para.list.or_else(|| style.and_then(|style| self.styles.lists.get(style).copied()));
        if let Some(level) = heading {
            let line = text.replace('\n', " ");
            self.out.block(&format!("{} {}", "#".repeat(level), line));
            self.listed = false;
        } else if let Some(level) = list {
            let item = format!("{}- {}", "  ".repeat(level), text.replace('\n', " "));
            if self.listed {
                self.out.line(&item);
            } else {
                self.out.block(&item);
            }
            self.listed = true;
        } else {
            self.out.block(text);
            self.listed = false;
        }
        self.end_if_clipped();
    }
}
