//! Finding and checking skills at build (SPEC SKILL-01, SKILL-03):
//! `<dir>/<name>/SKILL.md`, one level deep, directory order then lexical,
//! first directory wins on a duplicate name; every problem of every file is
//! collected. A skill folder or SKILL.md that is a symlink leading out of
//! its configured directory is a problem too, unless allowed (issue 15).

use super::frontmatter;
use super::{Skill, SkillProblem};
use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};

/// Longest accepted name, description and compatibility, in characters.
pub const MAX_NAME_CHARS: usize = 64;
/// See [`MAX_NAME_CHARS`].
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// See [`MAX_NAME_CHARS`].
pub const MAX_COMPATIBILITY_CHARS: usize = 500;

/// How much of a SKILL.md may be frontmatter.
const MAX_FRONTMATTER_BYTES: usize = 64 * 1024;

/// The skills found in `dirs` (canonical, in order) and the problems met;
/// `outside` allows symlinks that leave their directory.
pub(super) fn discover(dirs: &[PathBuf], max_body: usize, outside: bool) -> (Vec<Skill>, Vec<SkillProblem>) {
    let mut skills: Vec<Skill> = Vec::new();
    let mut problems = Vec::new();
    for dir in dirs {
        let mut entries = match fs::read_dir(dir) {
            Ok(entries) => entries.filter_map(Result::ok).map(|e| e.path()).collect::<Vec<_>>(),
            Err(e) => {
                problems.push(SkillProblem { path: dir.clone(), errors: vec![e.to_string()] });
                continue;
            }
        };
        entries.sort();
        for skill_dir in entries {
            // A bare SKILL.md or any other file at the top level is ignored.
            if !skill_dir.is_dir() {
                continue;
            }
            let path = skill_dir.join("SKILL.md");
            if !path.is_file() {
                continue;
            }
            if !outside {
                if let Some(error) = leaves(dir, &skill_dir).or_else(|| leaves(dir, &path)) {
                    problems.push(SkillProblem { path, errors: vec![error] });
                    continue;
                }
            }
            match load(&skill_dir, &path, max_body) {
                Ok(skill) if skills.iter().any(|s| s.name == skill.name) => {}
                Ok(skill) => skills.push(skill),
                Err(errors) => problems.push(SkillProblem { path, errors }),
            }
        }
    }
    (skills, problems)
}

/// Why `path` — checked with every symlink resolved — is not inside `dir`
/// (canonical), if it is not.
fn leaves(dir: &Path, path: &Path) -> Option<String> {
    match fs::canonicalize(path) {
        Ok(target) if target.starts_with(dir) => None,
        Ok(target) => Some(format!(
            "{} is a symlink to {}, outside the configured directory; symlinks out of it are refused unless allowed",
            path.display(),
            target.display()
        )),
        Err(e) => Some(format!("cannot resolve {}: {e}", path.display())),
    }
}

/// Read, parse and check one SKILL.md; every error found.
fn load(skill_dir: &Path, path: &Path, max_body: usize) -> Result<Skill, Vec<String>> {
    let content = read_capped(path, max_body)?;
    let (yaml, body) = frontmatter::split(&content).map_err(|e| vec![e])?;
    if yaml.len() > MAX_FRONTMATTER_BYTES {
        return Err(vec![format!("frontmatter is longer than {MAX_FRONTMATTER_BYTES} bytes")]);
    }
    let fm = frontmatter::parse(yaml).map_err(|e| vec![e])?;
    let dir_name = skill_dir.file_name().and_then(|n| n.to_str()).unwrap_or_default();
    let mut errors = validate(&fm, dir_name);
    if !errors.is_empty() {
        if let Some(yaml_error) = &fm.yaml_error {
            errors
                .insert(0, format!("frontmatter is not valid YAML ({yaml_error}) and its plain lines are incomplete"));
        }
        return Err(errors);
    }
    let (body, truncated) = cut(body, max_body);
    Ok(Skill {
        name: fm.name.unwrap_or_default(),
        description: fm.description.unwrap_or_default(),
        compatibility: fm.compatibility.filter(|c| !c.is_empty()),
        body: body.to_string(),
        body_truncated: truncated,
        dir: skill_dir.to_path_buf(),
    })
}

/// The file as UTF-8, at most the cap plus room for the frontmatter.
fn read_capped(path: &Path, max_body: usize) -> Result<String, Vec<String>> {
    let limit = max_body.saturating_add(MAX_FRONTMATTER_BYTES).saturating_add(1);
    let mut bytes = Vec::new();
    fs::File::open(path)
        .and_then(|f| f.take(limit as u64).read_to_end(&mut bytes))
        .map_err(|e| vec![format!("cannot read SKILL.md: {e}")])?;
    let truncated = bytes.len() == limit;
    match String::from_utf8(bytes) {
        Ok(text) => Ok(text),
        Err(e) if truncated && e.utf8_error().error_len().is_none() => {
            let valid = e.utf8_error().valid_up_to();
            let mut bytes = e.into_bytes();
            bytes.truncate(valid);
            String::from_utf8(bytes).map_err(|_| vec!["SKILL.md is not valid UTF-8".to_string()])
        }
        Err(_) => Err(vec!["SKILL.md is not valid UTF-8".to_string()]),
    }
}

/// `body` cut to at most `max` bytes on a character boundary.
fn cut(body: &str, max: usize) -> (&str, bool) {
    let kept = crate::tools::clip::prefix(body, max);
    (kept, kept.len() < body.len())
}

/// SKILL-03's checks, all of them.
fn validate(fm: &frontmatter::Frontmatter, dir_name: &str) -> Vec<String> {
    let mut errors = Vec::new();
    match fm.name.as_deref().filter(|n| !n.is_empty()) {
        None => errors.push("name is required".to_string()),
        Some(name) => {
            if name.chars().count() > MAX_NAME_CHARS {
                errors.push(format!("name exceeds {MAX_NAME_CHARS} characters"));
            }
            if !valid_name(name) {
                errors.push("name must be lowercase letters and digits in groups joined by single hyphens".into());
            }
            if name != dir_name {
                errors.push(format!("name {name:?} must match its directory {dir_name:?}"));
            }
        }
    }
    match fm.description.as_deref().filter(|d| !d.trim().is_empty()) {
        None => errors.push("description is required".to_string()),
        Some(d) if d.chars().count() > MAX_DESCRIPTION_CHARS => {
            errors.push(format!("description exceeds {MAX_DESCRIPTION_CHARS} characters"));
        }
        Some(_) => {}
    }
    if fm.compatibility.as_deref().is_some_and(|c| c.chars().count() > MAX_COMPATIBILITY_CHARS) {
        errors.push(format!("compatibility exceeds {MAX_COMPATIBILITY_CHARS} characters"));
    }
    errors
}

/// `^[a-z0-9]+(-[a-z0-9]+)*$`.
fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .split('-')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}
