//! An Excel workbook as Markdown: each chosen sheet, in workbook order, as
//! a table whose header row holds the used columns' letters and whose
//! first column holds row numbers, so the model can name any cell. Values
//! are the cached ones (formulas are not evaluated; a formula without a
//! cached value is shown as `=FORMULA`): shared and inline
//! strings, numbers as Excel shows them, dates in ISO form, booleans and
//! errors as Excel spells them.

use super::cells::{self, DateKind};
use super::collect::push_capped;
use super::error::Fault;
use super::markdown::{counted, table, Markdown};
use super::office::Office;
use super::rels::Rels;
use super::texts;
use super::xml::{Node, Xml};
use std::collections::{BTreeSet, HashMap, HashSet};
use std::io::{Read, Seek};

/// One sheet as the workbook lists it.
#[derive(Debug)]
struct Sheet {
    name: String,
    hidden: bool,
    part: Option<String>,
}

/// What the workbook part says: its sheets and its date system.
#[derive(Debug, Default)]
struct Workbook {
    sheets: Vec<Sheet>,
    date1904: bool,
}

/// How each cell style shows numbers, and the shared strings.
#[derive(Debug, Default)]
struct Shared {
    strings: Strings,
    styles: Vec<Option<DateKind>>,
    date1904: bool,
}

/// Extract the chosen sheets (`None`: all) into `out`.
pub(crate) fn extract(
    office: &mut Office<impl Read + Seek>,
    path: &str,
    sheets: Option<&[String]>,
    out: &mut Markdown,
) -> Result<(), Fault> {
    let main = office.main().to_string();
    let rels = office.rels(&main)?;
    let workbook = workbook(&office.required(&main)?, &rels, office.max_depth())?;
    let names: Vec<String> = workbook.sheets.iter().map(|s| s.name.clone()).collect();
    let chosen: Vec<&Sheet> = match sheets {
        None => workbook.sheets.iter().collect(),
        Some(wanted) => {
            let known: HashSet<&String> = names.iter().collect();
            let missing: Vec<String> = wanted.iter().filter(|w| !known.contains(w)).cloned().collect();
            if !missing.is_empty() {
                return Err(Fault::Rejected(texts::unknown_sheets(&missing, path, &names)));
            }
            let wanted: HashSet<&String> = wanted.iter().collect();
            workbook.sheets.iter().filter(|s| wanted.contains(&s.name)).collect()
        }
    };
    let mut shared = Shared { date1904: workbook.date1904, ..Shared::default() };
    if let Some(part) = rels.of_kind("sharedStrings").map(str::to_string) {
        if let Some(text) = office.text(&part)? {
            shared.strings = shared_strings(&text, office.max_depth(), out.room())?;
        }
    }
    if let Some(part) = rels.of_kind("styles").map(str::to_string) {
        if let Some(text) = office.text(&part)? {
            shared.styles = styles(&text, office.max_depth())?;
        }
    }
    let listing: Vec<String> = names.iter().map(|n| format!("{n:?}")).collect();
    out.block(&format!("Workbook with {}: {}.", counted(names.len(), "sheet"), listing.join(", ")));
    for (i, sheet) in chosen.iter().enumerate() {
        if out.is_full() {
            break;
        }
        out.resume_with(resume(&chosen[i..]));
        let hidden = if sheet.hidden { " (hidden)" } else { "" };
        out.block(&format!("## Sheet: {}{hidden}", sheet.name));
        let part = sheet.part.as_deref().map(|part| office.text(part)).transpose()?.flatten();
        match part {
            Some(text) => {
                let (grid, clipped) = grid(&text, &shared, office.max_depth(), out.room())?;
                out.block(&render(&grid).unwrap_or_else(|| "(no cells)".to_string()));
                // Cells held back at the cap: the output ends with this sheet.
                if clipped {
                    out.cut();
                }
            }
            None => out.block("(no cells)"),
        }
    }
    Ok(())
}

/// The sheets in workbook order, their parts resolved, and the date
/// system.
fn workbook(text: &str, rels: &Rels, max_depth: usize) -> Result<Workbook, Fault> {
    let mut xml = Xml::new(text, max_depth);
    let mut workbook = Workbook::default();
    while let Some(node) = xml.next()? {
        let Node::Open(tag) = node else { continue };
        match tag.name() {
            b"sheet" => {
                let Some(name) = tag.attr(b"name") else { continue };
                let hidden = tag.attr(b"state").is_some_and(|s| s != "visible");
                let part = tag.prefixed_attr(b"id").and_then(|id| rels.target(&id).map(str::to_string));
                workbook.sheets.push(Sheet { name, hidden, part });
            }
            b"workbookPr" => {
                workbook.date1904 = tag.attr(b"date1904").is_some_and(|v| v == "1" || v == "true");
            }
            _ => {}
        }
    }
    Ok(workbook)
}

/// The arguments that read on from `rest` (the first ten names; the
/// model sees the workbook's list at the top).
fn resume(rest: &[&Sheet]) -> String {
    let mut names: Vec<String> = rest.iter().take(10).map(|s| format!("{:?}", s.name)).collect();
    if rest.len() > 10 {
        names.push("…".into());
    }
    format!("sheets [{}]", names.join(", "))
}

/// The shared strings in one buffer: a hostile table of millions of
/// empty strings costs a few bytes each, not a `String` each.
#[derive(Debug, Default)]
struct Strings {
    text: String,
    ends: Vec<usize>,
}

impl Strings {
    fn push(&mut self, s: &str) {
        self.text.push_str(s);
        self.ends.push(self.text.len());
    }

    fn get(&self, i: usize) -> Option<&str> {
        let end = *self.ends.get(i)?;
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        self.text.get(start..end)
    }
}

/// The shared strings, in order; phonetic runs left out. Each string
/// keeps at most `cap` bytes.
fn shared_strings(text: &str, max_depth: usize, cap: usize) -> Result<Strings, Fault> {
    let mut xml = Xml::new(text, max_depth);
    let mut strings = Strings::default();
    let (mut current, mut in_t, mut in_phonetic) = (None::<String>, 0usize, 0usize);
    while let Some(node) = xml.next()? {
        match node {
            Node::Open(tag) => match tag.name() {
                b"si" => current = Some(String::new()),
                b"t" => in_t += 1,
                b"rPh" => in_phonetic += 1,
                _ => {}
            },
            Node::Text(t) if in_t > 0 && in_phonetic == 0 => {
                if let Some(s) = &mut current {
                    // A string longer than the output can take is cut
                    // anyway when shown.
                    push_capped(s, &t, cap);
                }
            }
            Node::Text(_) => {}
            Node::Close(name) => match name.as_slice() {
                b"si" => {
                    if let Some(s) = current.take() {
                        strings.push(&s);
                    }
                }
                b"t" => in_t = in_t.saturating_sub(1),
                b"rPh" => in_phonetic = in_phonetic.saturating_sub(1),
                _ => {}
            },
        }
    }
    Ok(strings)
}

/// For each cell style (`cellXfs` in order), whether it shows a date.
fn styles(text: &str, max_depth: usize) -> Result<Vec<Option<DateKind>>, Fault> {
    let mut xml = Xml::new(text, max_depth);
    let mut formats: HashMap<u32, Option<DateKind>> = HashMap::new();
    let mut styles = Vec::new();
    let mut in_cell_xfs = false;
    while let Some(node) = xml.next()? {
        match node {
            Node::Open(tag) => match tag.name() {
                b"numFmt" => {
                    if let (Some(id), Some(code)) = (tag.attr(b"numFmtId"), tag.attr(b"formatCode")) {
                        if let Ok(id) = id.parse() {
                            formats.insert(id, cells::format_date(&code));
                        }
                    }
                }
                b"cellXfs" => in_cell_xfs = true,
                b"xf" if in_cell_xfs => {
                    let id = tag.attr(b"numFmtId").and_then(|id| id.parse::<u32>().ok()).unwrap_or(0);
                    let custom = formats.get(&id).copied();
                    styles.push(custom.unwrap_or_else(|| cells::builtin_date(id)));
                }
                _ => {}
            },
            Node::Close(name) if name == b"cellXfs" => in_cell_xfs = false,
            _ => {}
        }
    }
    Ok(styles)
}

/// A sheet's non-empty cells, by row: (row, [(column, text)]).
type Grid = Vec<(u32, Vec<(u32, String)>)>;

/// The sheet's values, holding at most about `cap` bytes of them; true
/// when some were held back.
fn grid(text: &str, shared: &Shared, max_depth: usize, cap: usize) -> Result<(Grid, bool), Fault> {
    let mut xml = Xml::new(text, max_depth);
    let mut grid: Grid = Vec::new();
    let mut held = 0usize;
    let (mut row, mut column) = (0u32, 0u32);
    let mut cell: Option<Cell> = None;
    let mut reading: Option<Reading> = None;
    let mut in_phonetic = 0usize;
    let mut clipped = false;
    while let Some(node) = xml.next()? {
        match node {
            Node::Open(tag) => match tag.name() {
                b"row" => {
                    row = tag.attr(b"r").and_then(|r| r.parse().ok()).unwrap_or(row + 1);
                    column = 0;
                }
                b"c" => {
                    let at = tag.attr(b"r").and_then(|r| cells::parse_ref(&r));
                    (column, row) = at.unwrap_or((column + 1, row.max(1)));
                    let style = tag.attr(b"s").and_then(|s| s.parse::<usize>().ok());
                    cell = Some(Cell { kind: tag.attr(b"t"), style, value: String::new(), formula: String::new() });
                }
                b"v" => reading = Some(Reading::Value),
                b"f" if cell.is_some() => reading = Some(Reading::Formula),
                b"t" if cell.is_some() => reading = Some(Reading::Inline),
                b"rPh" => in_phonetic += 1,
                _ => {}
            },
            Node::Text(t) => match (&mut cell, reading, in_phonetic) {
                (Some(cell), Some(Reading::Formula), 0) => clipped |= push_capped(&mut cell.formula, &t, cap),
                (Some(cell), Some(_), 0) => clipped |= push_capped(&mut cell.value, &t, cap),
                _ => {}
            },
            Node::Close(name) => match name.as_slice() {
                b"v" | b"t" | b"f" => reading = None,
                b"rPh" => in_phonetic = in_phonetic.saturating_sub(1),
                b"c" => {
                    let Some(done) = cell.take() else { continue };
                    let text = done.text(shared);
                    if text.is_empty() {
                        continue;
                    }
                    if held > cap {
                        clipped = true;
                        continue;
                    }
                    held += text.len() + 8;
                    match grid.last_mut() {
                        Some((r, cells)) if *r == row => cells.push((column, text)),
                        _ => grid.push((row, vec![(column, text)])),
                    }
                }
                _ => {}
            },
        }
    }
    Ok((grid, clipped))
}

#[derive(Clone, Copy, Debug)]
enum Reading {
    Value,
    Inline,
    Formula,
}

/// A cell being read.
#[derive(Debug)]
struct Cell {
    kind: Option<String>,
    style: Option<usize>,
    value: String,
    /// The formula, shown when the file holds no value computed from it.
    formula: String,
}

impl Cell {
    /// The cell's value as text.
    fn text(self, shared: &Shared) -> String {
        if self.value.is_empty() && !self.formula.trim().is_empty() {
            return format!("={}", self.formula.trim());
        }
        let value = self.value;
        match self.kind.as_deref() {
            Some("s") => {
                value.trim().parse::<usize>().ok().and_then(|i| shared.strings.get(i)).unwrap_or_default().to_string()
            }
            Some("b") => match value.trim() {
                "1" | "true" => "TRUE".into(),
                "0" | "false" => "FALSE".into(),
                other => other.into(),
            },
            Some("str" | "inlineStr" | "e") => value,
            _ => {
                let Ok(number) = value.trim().parse::<f64>() else { return value };
                let kind = self.style.and_then(|s| shared.styles.get(s).copied().flatten());
                kind.and_then(|kind| cells::date(number, kind, shared.date1904))
                    .unwrap_or_else(|| cells::number(number))
            }
        }
    }
}

/// The grid as a Markdown table: the used columns' letters, row numbers.
fn render(grid: &Grid) -> Option<String> {
    if grid.is_empty() {
        return None;
    }
    let columns: BTreeSet<u32> = grid.iter().flat_map(|(_, cells)| cells.iter().map(|(c, _)| *c)).collect();
    let columns: Vec<u32> = columns.into_iter().collect();
    let header: Vec<String> =
        std::iter::once(String::new()).chain(columns.iter().map(|c| cells::column_name(*c))).collect();
    let rows: Vec<Vec<String>> = grid
        .iter()
        .map(|(row, cells)| {
            let mut line = vec![String::new(); columns.len() + 1];
            line[0] = row.to_string();
            for (column, text) in cells {
                if let Ok(at) = columns.binary_search(column) {
                    line[at + 1].clone_from(text);
                }
            }
            line
        })
        .collect();
    Some(table(&header, &rows))
}
