//! The common tools (SPEC WEB, FILE, SHELL, SKILL, EXTRA-03): ordinary [`Tool`](crate::Tool)s
//! for any `Deps`, each built from a checked configuration and each behind
//! its own feature (the modules exist only with it; docs.rs shows them all).
//!
//! | feature | module | tool | what it does |
//! |---|---|---|---|
//! | `web-fetch` | `web_fetch` | `web_fetch` | GET a public http(s) URL as text |
//! | `file-read` | `file_read` | `read_file` | read a text file confined to a root folder |
//! | `command` | `command` | `run_command` | run one local command (Unix) |
//! | `skills` | `skills` | `skill` | load a `SKILL.md` folder's instructions on demand |
//! | `documents` | `documents` | `extract_pdf`, `extract_doc` | PDF, DOCX, XLSX and PPTX under a root folder, as Markdown |
//!
//! Each module keeps the sentences the model reads — descriptions,
//! rejections, failed results, markers — as constants in its own `texts`
//! module: they are part of the public contract (changing one changes what
//! models read and what recorded histories replay).
//!
//! The tools are blocking handlers, so they run on the blocking driver's
//! threads and on the async driver's blocking pool alike.
//!
//! **Safety.** `web_fetch` refuses non-public addresses unless told
//! otherwise, and `read_file` and the document extractors never leave
//! their root (the same code confines both, in `confine`), but `run_command` is
//! not a sandbox: the command runs with this process's privileges. Register
//! it only where that is acceptable.

// Room rule (ARCHITECTURE.md): imports `start`, `agent`, `tool`, `run`,
// golem-core (delegation runs another agent).

#[cfg(any(
    feature = "web-fetch",
    feature = "file-read",
    feature = "command",
    feature = "skills",
    feature = "mcp",
    feature = "documents"
))]
pub(crate) mod clip;
#[cfg(all(feature = "command", unix))]
pub mod command;
#[cfg(any(feature = "file-read", feature = "documents"))]
pub(crate) mod confine;
pub(crate) mod delegation;
#[cfg(feature = "documents")]
pub mod documents;
#[cfg(feature = "file-read")]
pub mod file_read;
#[cfg(feature = "skills")]
pub mod skills;
#[cfg(feature = "web-fetch")]
pub mod web_fetch;

#[cfg(any(feature = "web-fetch", feature = "skills", feature = "documents"))]
#[doc(hidden)]
pub mod fuzzing;
