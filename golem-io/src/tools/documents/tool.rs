//! The two tools the model calls, `extract_pdf` and `extract_doc`: their
//! arguments read strictly (unknown fields are a rejection), then one
//! extraction each.

use super::extract::Want;
use super::{texts, Documents, Filter};
use crate::{Tool, ToolContext, ToolError, ToolResult};
use serde::Deserialize;
use serde_json::Value;

impl Documents {
    /// The `extract_pdf` tool, for an agent with any deps.
    pub fn pdf_tool<Deps: Send + Sync + 'static>(&self) -> Tool<Deps> {
        let documents = self.clone();
        Tool::new(texts::EXTRACT_PDF, texts::PDF_DESCRIPTION, texts::pdf_schema(), move |_: ToolContext<Deps>, args| {
            documents.call_pdf(args)
        })
        .idempotent()
    }

    /// The `extract_doc` tool, for an agent with any deps.
    pub fn doc_tool<Deps: Send + Sync + 'static>(&self) -> Tool<Deps> {
        let documents = self.clone();
        Tool::new(texts::EXTRACT_DOC, texts::DOC_DESCRIPTION, texts::doc_schema(), move |_: ToolContext<Deps>, args| {
            documents.call_doc(args)
        })
        .idempotent()
    }

    /// Both tools: `extract_pdf`, then `extract_doc`.
    pub fn tools<Deps: Send + Sync + 'static>(&self) -> Vec<Tool<Deps>> {
        vec![self.pdf_tool(), self.doc_tool()]
    }

    fn call_pdf(&self, args: Value) -> Result<ToolResult, ToolError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Args {
            path: String,
            #[serde(default)]
            pages: Option<String>,
        }
        let args: Args = serde_json::from_value(args)
            .map_err(|e| ToolError::Reject(texts::bad_args(texts::EXTRACT_PDF, &e.to_string())))?;
        let filter = Filter { pages: args.pages, ..Filter::default() };
        let text = self.run(&args.path, &filter, Want::Pdf).map_err(super::ExtractError::into_tool_error)?;
        Ok(ToolResult::text(text))
    }

    fn call_doc(&self, args: Value) -> Result<ToolResult, ToolError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Args {
            path: String,
            #[serde(default)]
            sheets: Option<Vec<String>>,
            #[serde(default)]
            slides: Option<String>,
        }
        let args: Args = serde_json::from_value(args)
            .map_err(|e| ToolError::Reject(texts::bad_args(texts::EXTRACT_DOC, &e.to_string())))?;
        let filter = Filter { sheets: args.sheets, slides: args.slides, ..Filter::default() };
        let text = self.run(&args.path, &filter, Want::Office).map_err(super::ExtractError::into_tool_error)?;
        Ok(ToolResult::text(text))
    }
}
