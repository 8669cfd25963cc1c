//! A PowerPoint presentation as Markdown: each chosen slide, in the
//! presentation's order, as a section titled by its title placeholder,
//! then its text paragraph by paragraph (indented by outline level), its
//! tables, and its speaker notes.

use super::collect::{push_capped, TableBuild};
use super::error::Fault;
use super::markdown::{counted, Markdown};
use super::office::Office;
use super::selection;
use super::xml::{Node, Xml};
use std::io::{Read, Seek};

/// Extract the chosen slides (`None`: all) into `out`.
pub(crate) fn extract(
    office: &mut Office<impl Read + Seek>,
    path: &str,
    slides: Option<&str>,
    out: &mut Markdown,
) -> Result<(), Fault> {
    let main = office.main().to_string();
    let rels = office.rels(&main)?;
    let presentation = office.required(&main)?;
    let parts = slide_parts(&presentation, office.max_depth())?;
    let count = parts.len();
    out.block(&format!("Presentation with {}.", counted(count, "slide")));
    if count == 0 {
        return Ok(());
    }
    for number in selection::select("slides", slides, path, count)? {
        if out.is_full() {
            break;
        }
        out.resume_with(format!("slides \"{number}-\""));
        let Some(part) = rels.target(&parts[number - 1]).map(str::to_string) else {
            out.block(&format!("## Slide {number}"));
            continue;
        };
        let slide = match office.text(&part)? {
            Some(text) => read_shapes(&text, office.max_depth(), out.room(), &[])?,
            None => Shapes::default(),
        };
        let title = slide.title.trim().replace('\n', " ");
        out.block(&if title.is_empty() { format!("## Slide {number}") } else { format!("## Slide {number}: {title}") });
        write_blocks(out, &slide.blocks);
        let mut clipped = slide.clipped;
        let notes_part = office.rels(&part)?.of_kind("notesSlide").map(str::to_string);
        if let Some(text) = notes_part.map(|p| office.text(&p)).transpose()?.flatten() {
            // The notes page repeats the slide's image and number; only
            // its body is the speaker's notes.
            let notes = read_shapes(&text, office.max_depth(), out.room(), &["sldImg", "sldNum", "hdr", "ftr", "dt"])?;
            let lines: Vec<&str> = notes.blocks.iter().filter_map(Block::line).collect();
            if !lines.is_empty() {
                out.block(&format!("Notes: {}", lines.join("\n")));
            }
            clipped |= notes.clipped;
        }
        // Text held back at the cap: the output ends with this slide.
        if clipped {
            out.cut();
        }
    }
    Ok(())
}

/// The relationship ids of the slides, in presentation order.
fn slide_parts(presentation: &str, max_depth: usize) -> Result<Vec<String>, Fault> {
    let mut xml = Xml::new(presentation, max_depth);
    let mut ids = Vec::new();
    while let Some(node) = xml.next()? {
        if let Node::Open(tag) = node {
            if tag.name() == b"sldId" {
                ids.extend(tag.prefixed_attr(b"id"));
            }
        }
    }
    Ok(ids)
}

/// What a slide's shapes say, in reading order.
#[derive(Debug, Default)]
struct Shapes {
    title: String,
    blocks: Vec<Block>,
    /// Some text was dropped at the cap.
    clipped: bool,
}

#[derive(Debug)]
enum Block {
    /// A paragraph (indented by its outline level).
    Line(String),
    /// A table, in Markdown.
    Table(String),
}

impl Block {
    fn line(&self) -> Option<&str> {
        match self {
            Block::Line(line) => Some(line),
            Block::Table(_) => None,
        }
    }
}

/// Paragraphs then tables on consecutive lines; a table in its own block.
fn write_blocks(out: &mut Markdown, blocks: &[Block]) {
    let mut in_lines = false;
    for block in blocks {
        match block {
            Block::Line(line) if in_lines => out.line(line),
            Block::Line(line) => {
                out.block(line);
                in_lines = true;
            }
            Block::Table(table) => {
                out.block(table);
                in_lines = false;
            }
        }
    }
}

/// Read a slide (or notes page), skipping shapes whose placeholder type is
/// in `skip`; text held to about `cap` bytes.
fn read_shapes(text: &str, max_depth: usize, cap: usize, skip: &[&str]) -> Result<Shapes, Fault> {
    let mut xml = Xml::new(text, max_depth);
    let mut shapes = Shapes::default();
    let mut held = 0usize;
    let (mut in_title, mut skipping) = (false, false);
    let mut paragraph: Option<(usize, String)> = None;
    let mut tables: Vec<TableBuild> = Vec::new();
    let mut in_t = 0usize;
    while let Some(node) = xml.next()? {
        match node {
            Node::Open(tag) => match tag.name() {
                b"sp" => (in_title, skipping) = (false, false),
                b"ph" => {
                    let kind = tag.attr(b"type").unwrap_or_default();
                    in_title = kind == "title" || kind == "ctrTitle";
                    skipping = skip.contains(&kind.as_str());
                }
                b"p" => paragraph = Some((0, String::new())),
                b"pPr" => {
                    let level = tag.attr(b"lvl").and_then(|l| l.parse::<usize>().ok()).unwrap_or(0).min(8);
                    if let Some((l, _)) = &mut paragraph {
                        *l = level;
                    }
                }
                b"t" => in_t += 1,
                b"br" => {
                    if let Some((_, text)) = &mut paragraph {
                        shapes.clipped |= push_capped(text, "\n", cap);
                    }
                }
                b"tbl" => tables.push(TableBuild::default()),
                b"tr" => tables.last_mut().into_iter().for_each(TableBuild::open_row),
                b"tc" => tables.last_mut().into_iter().for_each(TableBuild::open_cell),
                b"Fallback" => xml.skip()?,
                _ => {}
            },
            Node::Text(t) if in_t > 0 => {
                if let Some((_, text)) = &mut paragraph {
                    shapes.clipped |= push_capped(text, &t, cap);
                }
            }
            Node::Text(_) => {}
            Node::Close(name) => match name.as_slice() {
                b"t" => in_t = in_t.saturating_sub(1),
                b"p" => {
                    let Some((level, text)) = paragraph.take() else { continue };
                    let text = text.trim();
                    if text.is_empty() || skipping {
                        continue;
                    }
                    if held > cap {
                        shapes.clipped = true;
                        continue;
                    }
                    held += text.len();
                    match tables.last_mut() {
                        Some(table) if table.in_cell() => table.add_paragraph(text, cap),
                        Some(_) => {}
                        None if in_title => {
                            if !shapes.title.is_empty() {
                                shapes.title.push(' ');
                            }
                            shapes.clipped |= push_capped(&mut shapes.title, text, cap);
                        }
                        None => shapes.blocks.push(Block::Line(format!("{}{}", "  ".repeat(level), text))),
                    }
                }
                b"tc" => tables.last_mut().into_iter().for_each(TableBuild::close_cell),
                b"tr" => tables.last_mut().into_iter().for_each(TableBuild::close_row),
                b"tbl" => {
                    let Some(mut table) = tables.pop() else { continue };
                    table.close_row();
                    shapes.clipped |= table.clipped;
                    match tables.last_mut() {
                        Some(outer) if outer.in_cell() => outer.add_paragraph(&table.flattened(), cap),
                        Some(_) => {}
                        None => shapes.blocks.extend(table.markdown().map(Block::Table)),
                    }
                }
                _ => {}
            },
        }
    }
    Ok(shapes)
}
