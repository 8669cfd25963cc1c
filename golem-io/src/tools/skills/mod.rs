//! The `skill` tool (SPEC SKILL): Agent Skills — folders with a `SKILL.md`
//! (frontmatter with a name and a description, then instructions, plus
//! resource files) — loaded on demand.
//!
//! **Discovery** happens once, at [`build`](SkillsBuilder::build), in the
//! directories given (never the working directory, home or environment):
//! `<dir>/<name>/SKILL.md`, one level deep, directory order then lexical;
//! on a duplicate name the first directory wins. The model sees each
//! skill's name and description in the tool's description; a call returns
//! one skill's instructions with its base directory and up to 20 of its
//! files. Scripts are never executed.
//!
//! **Confined to the directories.** A skill folder or `SKILL.md` that is a
//! symlink leading out of its configured directory is reported as a
//! problem, like a malformed skill, unless
//! [`allow_symlinks_outside`](SkillsBuilder::allow_symlinks_outside) says
//! otherwise; a listed file must resolve inside its skill's folder. A
//! loaded body cannot close the `<skill_content>` wrapper it is returned
//! in: tags of the wrapper inside it are escaped. Frontmatter is bounded
//! in size (64 KiB) and in YAML nesting: past 64 flow collections (`[`,
//! `{`) only the plain `key: value` lines are read.
//!
//! **Malformed skills are reported, not fatal** (the issue's wording; SPEC
//! SKILL-01 makes any invalid SKILL.md a build error). By default every
//! problem — unparsable frontmatter, a missing or invalid name or
//! description, a name that differs from its directory — is collected in
//! [`Skills::problems`], naming the file and giving all its errors, and the
//! build fails only when no valid skill remains.
//! [`strict`](SkillsBuilder::strict) restores the SPEC's rule: any problem
//! fails the build, naming every invalid file.
//!
//! ```
//! use golem_io::tools::skills::Skills;
//!
//! let dir = tempfile::tempdir()?;
//! std::fs::create_dir(dir.path().join("haiku"))?;
//! std::fs::write(
//!     dir.path().join("haiku/SKILL.md"),
//!     "---\nname: haiku\ndescription: Use when: the user wants a haiku.\n---\nWrite 5-7-5.\n",
//! )?;
//! let skills = Skills::builder().dir(dir.path()).build()?;
//! assert_eq!(skills.skills()[0].description, "Use when: the user wants a haiku.");
//! assert!(skills.load("haiku")?.contains("# Skill: haiku\n\nWrite 5-7-5.\n"));
//! let tool: golem_io::Tool<()> = skills.tool();
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod discover;
mod files;
pub(crate) mod frontmatter;
pub mod texts;

pub use discover::{MAX_COMPATIBILITY_CHARS, MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS};
pub use files::MAX_LISTED;

use crate::{Tool, ToolContext, ToolError, ToolResult};
use serde::Deserialize;
use serde_json::Value;
use std::fmt;
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// The body cap unless configured (SPEC SKILL-01).
pub const DEFAULT_MAX_BODY_BYTES: usize = 1 << 20;

/// One discovered, valid skill.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Skill {
    /// Its name (equal to its directory's).
    pub name: String,
    /// What it is for, as the model sees it.
    pub description: String,
    /// Its `compatibility` note, if any.
    pub compatibility: Option<String>,
    /// The instructions after the frontmatter, cut at the body cap.
    pub body: String,
    /// True when the body was cut.
    pub body_truncated: bool,
    /// Its directory (the configured directory, canonical, joined with the
    /// skill's name).
    pub dir: PathBuf,
}

/// A SKILL.md that was not loaded, with every reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SkillProblem {
    /// The file (or directory) concerned.
    pub path: PathBuf,
    /// What is wrong with it.
    pub errors: Vec<String>,
}

impl fmt::Display for SkillProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.path.display(), self.errors.join("; "))
    }
}

/// A built catalog: cheap to clone, shared by every tool made from it.
#[derive(Clone)]
pub struct Skills {
    inner: Arc<Catalog>,
}

struct Catalog {
    skills: Vec<Skill>,
    problems: Vec<SkillProblem>,
    max_body: usize,
    description: String,
}

impl Skills {
    /// A builder; add at least one directory.
    pub fn builder() -> SkillsBuilder {
        SkillsBuilder { dirs: Vec::new(), max_body: DEFAULT_MAX_BODY_BYTES, strict: false, outside: false }
    }

    /// The valid skills, in discovery order.
    pub fn skills(&self) -> &[Skill] {
        &self.inner.skills
    }

    /// The SKILL.md files that were skipped, and why (empty in strict mode).
    pub fn problems(&self) -> &[SkillProblem] {
        &self.inner.problems
    }

    /// The tool's description: the fixed opening and the catalog.
    pub fn description(&self) -> &str {
        &self.inner.description
    }

    /// The `skill` tool, for an agent with any deps.
    pub fn tool<Deps: Send + Sync + 'static>(&self) -> Tool<Deps> {
        let skills = self.clone();
        Tool::new(
            texts::TOOL_NAME,
            self.inner.description.clone(),
            texts::schema(),
            move |_: ToolContext<Deps>, args| skills.call(args),
        )
        .idempotent()
    }

    /// What a call for `name` returns (SPEC SKILL-05), or the correctable
    /// rejection of an unknown name.
    pub fn load(&self, name: &str) -> Result<String, SkillError> {
        if name.is_empty() {
            return Err(SkillError::Rejected(texts::NAME_REQUIRED.into()));
        }
        let Some(skill) = self.inner.skills.iter().find(|s| s.name == name) else {
            let mut names: Vec<&str> = self.inner.skills.iter().map(|s| s.name.as_str()).collect();
            names.sort_unstable();
            return Err(SkillError::Rejected(texts::unknown_skill(name, &names)));
        };
        let mut out = texts::content_open(&skill.name);
        out.push_str(&texts::heading(&skill.name));
        out.push_str(&texts::fence(&skill.body));
        if skill.body_truncated {
            out.push_str(&texts::body_truncated(self.inner.max_body));
        }
        if !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&texts::base_directory(&skill.dir.display().to_string()));
        out.push_str(texts::RELATIVE_PATHS);
        let (listed, more) = files::list(&skill.dir);
        if !listed.is_empty() {
            out.push_str(texts::FILES_OPEN);
            for file in &listed {
                out.push_str(&texts::file(file));
            }
            out.push_str(texts::FILES_CLOSE);
            if more {
                out.push_str(texts::FILES_TRUNCATED);
            }
        }
        out.push_str(texts::CONTENT_CLOSE);
        Ok(out)
    }

    fn call(&self, args: Value) -> Result<ToolResult, ToolError> {
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Args {
            name: String,
        }
        let args: Args =
            serde_json::from_value(args).map_err(|e| ToolError::Reject(texts::bad_args(&e.to_string())))?;
        Ok(ToolResult::text(self.load(&args.name).map_err(SkillError::into_tool_error)?))
    }
}

impl fmt::Debug for Skills {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = self.inner.skills.iter().map(|s| s.name.as_str()).collect();
        f.debug_struct("Skills")
            .field("skills", &names)
            .field("problems", &self.inner.problems)
            .field("max_body", &self.inner.max_body)
            .finish()
    }
}

/// Why a call returned no skill. Its `Display` is the text the model reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    /// The model should fix its call (an empty or unknown name).
    #[error("{0}")]
    Rejected(String),
}

impl SkillError {
    /// The tool's verdict: a correctable rejection. (`?` on a `SkillError`
    /// in a tool of your own gives a failed result, like any error.)
    pub fn into_tool_error(self) -> ToolError {
        match self {
            SkillError::Rejected(reason) => ToolError::Reject(reason),
        }
    }
}

/// Configuration for [`Skills`].
#[derive(Clone, Debug)]
pub struct SkillsBuilder {
    dirs: Vec<PathBuf>,
    max_body: usize,
    strict: bool,
    outside: bool,
}

impl SkillsBuilder {
    /// Add a directory of skill folders; earlier directories win on
    /// duplicate names.
    pub fn dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.dirs.push(dir.into());
        self
    }

    /// The body cap in bytes (default 1 MiB).
    pub fn max_body_bytes(mut self, max: usize) -> Self {
        self.max_body = max;
        self
    }

    /// Fail the build on any invalid SKILL.md (SPEC SKILL-01) instead of
    /// reporting it in [`Skills::problems`].
    pub fn strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Follow symlinks out of the configured directories: a skill folder
    /// or `SKILL.md` that is a symlink to elsewhere loads, and its folder's
    /// files are listed, instead of being reported in
    /// [`Skills::problems`] (off by default). Turn it on only when every
    /// place those links can lead is as trusted as the directories.
    pub fn allow_symlinks_outside(mut self, allow: bool) -> Self {
        self.outside = allow;
        self
    }

    /// Check the directories, discover and check every skill.
    pub fn build(self) -> Result<Skills, BuildError> {
        if self.dirs.is_empty() {
            return Err(BuildError::NoDirs);
        }
        if self.max_body == 0 {
            return Err(BuildError::ZeroMaxBody);
        }
        let mut dirs = Vec::with_capacity(self.dirs.len());
        for dir in &self.dirs {
            let canonical =
                std::fs::canonicalize(dir).map_err(|e| BuildError::Dir { dir: dir.clone(), source: Arc::new(e) })?;
            if !canonical.is_dir() {
                return Err(BuildError::NotADirectory(dir.clone()));
            }
            dirs.push(canonical);
        }
        let (skills, problems) = discover::discover(&dirs, self.max_body, self.outside);
        if self.strict && !problems.is_empty() {
            return Err(BuildError::Invalid(problems));
        }
        if skills.is_empty() {
            return Err(BuildError::NoSkills { dirs: dirs.len(), problems });
        }
        let description = texts::description(skills.iter().map(|s| (s.name.as_str(), s.description.as_str())));
        Ok(Skills { inner: Arc::new(Catalog { skills, problems, max_body: self.max_body, description }) })
    }
}

/// Why a [`SkillsBuilder`] could not build.
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BuildError {
    /// No directory was given.
    #[error("skills: at least one directory is required")]
    NoDirs,
    /// The body cap is zero.
    #[error("skills: max body bytes must be greater than zero")]
    ZeroMaxBody,
    /// A directory cannot be resolved.
    #[error("skills: dir {}: {source}", dir.display())]
    Dir {
        /// The directory as given.
        dir: PathBuf,
        /// Why it cannot be resolved.
        #[source]
        source: Arc<io::Error>,
    },
    /// A directory is not a directory.
    #[error("skills: dir {} is not a directory", .0.display())]
    NotADirectory(PathBuf),
    /// Strict mode: these SKILL.md files are invalid.
    #[error("skills: invalid SKILL.md: {}", problems_text(.0))]
    Invalid(Vec<SkillProblem>),
    /// No valid skill in any directory (with the problems met).
    #[error("skills: no valid skills found in {dirs} configured dir(s){}", if problems.is_empty() { String::new() } else { format!("; {}", problems_text(problems)) })]
    NoSkills {
        /// How many directories were searched.
        dirs: usize,
        /// The invalid files met.
        problems: Vec<SkillProblem>,
    },
}

fn problems_text(problems: &[SkillProblem]) -> String {
    problems.iter().map(ToString::to_string).collect::<Vec<_>>().join(" | ")
}
