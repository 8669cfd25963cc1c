//! `skill` over the fixture folders `tests/fixtures/skills/{main,extra}`
//! (SPEC SKILL): valid and malformed skills, the catalog, the result
//! layout, caps, symlinks, and the build-error rules.
#![cfg(feature = "skills")]

use crate::tools_support;

use golem_io::tools::skills::{BuildError, SkillError, Skills};
use std::fs;
use std::path::{Path, PathBuf};

fn fixtures(dir: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/skills").join(dir)
}

fn write_skill(root: &Path, name: &str, frontmatter: &str, body: &str) -> PathBuf {
    let dir = root.join(name);
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), format!("---\n{frontmatter}---\n{body}")).unwrap();
    dir
}

#[test]
fn valid_skills_load_and_malformed_ones_are_reported() {
    let skills = Skills::builder().dir(fixtures("main")).build().unwrap();
    let names: Vec<&str> = skills.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["block-scalars", "pdf-forms", "use-when"], "lexical order; bare files and SKILL.md ignored");

    let use_when = &skills.skills()[2];
    assert_eq!(use_when.description, "Use when: the user asks for a summary of a long document.");
    assert_eq!(use_when.compatibility.as_deref(), Some("Requires: nothing special"));
    let block = &skills.skills()[0];
    assert_eq!(block.description, "Folded description that spans two lines, with \"quotes\" & 'apostrophes'.");
    assert_eq!(block.compatibility.as_deref(), Some("Linux\nmacOS"));

    let main = fs::canonicalize(fixtures("main")).unwrap();
    let problems: Vec<(PathBuf, Vec<String>)> = skills
        .problems()
        .iter()
        .map(|p| (p.path.strip_prefix(&main).unwrap().to_path_buf(), p.errors.clone()))
        .collect();
    let expected: Vec<(PathBuf, Vec<String>)> = vec![
        (
            "bad-name/SKILL.md".into(),
            vec![
                "name must be lowercase letters and digits in groups joined by single hyphens".into(),
                "name \"Bad_Name\" must match its directory \"bad-name\"".into(),
            ],
        ),
        ("mismatch/SKILL.md".into(), vec!["name \"other-name\" must match its directory \"mismatch\"".into()]),
        ("missing-description/SKILL.md".into(), vec!["description is required".into()]),
        ("no-frontmatter/SKILL.md".into(), vec!["SKILL.md must start with a --- frontmatter block".into()]),
        (
            "not-a-mapping/SKILL.md".into(),
            vec![
                "frontmatter is not valid YAML (frontmatter is not a YAML mapping) and its plain lines are incomplete"
                    .into(),
                "name is required".into(),
                "description is required".into(),
            ],
        ),
        ("unclosed/SKILL.md".into(), vec!["frontmatter is not closed by a --- line".into()]),
    ];
    assert_eq!(problems, expected);
    let shown = skills.problems()[0].to_string();
    assert!(shown.ends_with("bad-name/SKILL.md: name must be lowercase letters and digits in groups joined by single hyphens; name \"Bad_Name\" must match its directory \"bad-name\""), "{shown}");
}

#[test]
fn strict_mode_fails_the_build_naming_every_invalid_file() {
    let error = Skills::builder().dir(fixtures("main")).strict(true).build().unwrap_err();
    let BuildError::Invalid(problems) = &error else { panic!("{error:?}") };
    assert_eq!(problems.len(), 6);
    let text = error.to_string();
    for name in ["bad-name", "mismatch", "missing-description", "no-frontmatter", "not-a-mapping", "unclosed"] {
        assert!(text.contains(&format!("{name}/SKILL.md")), "{name} named in {text}");
    }
    assert!(Skills::builder().dir(fixtures("extra")).strict(true).build().is_ok());
}

#[test]
fn the_first_directory_wins_and_later_ones_add() {
    let skills = Skills::builder().dir(fixtures("main")).dir(fixtures("extra")).build().unwrap();
    let names: Vec<&str> = skills.skills().iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["block-scalars", "pdf-forms", "use-when", "extra-skill"]);
    assert_eq!(skills.skills()[1].description, "Fill in PDF forms & check fields <before> sending.");
    let reversed = Skills::builder().dir(fixtures("extra")).dir(fixtures("main")).build().unwrap();
    assert_eq!(reversed.skills()[1].description, "Shadowed by the first directory's pdf-forms.");
}

#[test]
fn the_description_lists_the_catalog_xml_escaped() {
    let skills = Skills::builder().dir(fixtures("main")).build().unwrap();
    let expected = "Load one available skill and return its full instructions. Call this when the current task matches a skill listed in available_skills; then follow the returned instructions.

<available_skills>
  <skill>
    <name>block-scalars</name>
    <description>Folded description that spans two lines, with &quot;quotes&quot; &amp; &apos;apostrophes&apos;.</description>
  </skill>
  <skill>
    <name>pdf-forms</name>
    <description>Fill in PDF forms &amp; check fields &lt;before&gt; sending.</description>
  </skill>
  <skill>
    <name>use-when</name>
    <description>Use when: the user asks for a summary of a long document.</description>
  </skill>
</available_skills>";
    assert_eq!(skills.description(), expected);
    let tool = skills.tool::<()>();
    assert_eq!((tool.name(), tool.spec().definition.description.as_str()), ("skill", expected));
}

#[test]
fn a_loaded_skill_has_upstreams_layout() {
    let skills = Skills::builder().dir(fixtures("main")).build().unwrap();
    let dir = fs::canonicalize(fixtures("main")).unwrap().join("pdf-forms");
    let expected = format!(
        "<skill_content name=\"pdf-forms\">
# Skill: pdf-forms

# Filling PDF forms

1. Run `scripts/fill.py` with the form and the values.
2. Read `references/fields.md` for the field names.

Base directory for this skill: {}
Relative paths in this skill (e.g. scripts/, references/, assets/) are relative to this base directory.

<skill_files>
<file>references/fields.md</file>
<file>scripts/fill.py</file>
</skill_files>
</skill_content>",
        dir.display()
    );
    assert_eq!(skills.load("pdf-forms").unwrap(), expected);
    let no_files = skills.load("use-when").unwrap();
    assert!(no_files.ends_with("are relative to this base directory.\n</skill_content>"), "{no_files}");
    assert!(no_files.contains("# Skill: use-when\n\nSummarise in three bullet points.\n\nBase directory"));
}

#[test]
fn unknown_names_are_rejected_with_the_sorted_names() {
    let skills = Skills::builder().dir(fixtures("extra")).dir(fixtures("main")).build().unwrap();
    assert_eq!(
        skills.load("nope").unwrap_err(),
        SkillError::Rejected(
            "unknown skill \"nope\"; available skills: block-scalars, extra-skill, pdf-forms, use-when".into()
        )
    );
    assert_eq!(skills.load("").unwrap_err(), SkillError::Rejected("name is required".into()));
}

#[cfg(unix)]
#[test]
fn the_file_list_is_capped_and_never_follows_symlinks_out() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside.txt");
    fs::write(&outside, "secret").unwrap();
    let root = tmp.path().join("skills");
    let many = write_skill(&root, "many", "name: many\ndescription: d\n", "b\n");
    for i in 0..25 {
        fs::write(many.join(format!("f{i:02}.txt")), "").unwrap();
    }
    let twenty = write_skill(&root, "twenty", "name: twenty\ndescription: d\n", "b\n");
    for i in 0..20 {
        fs::write(twenty.join(format!("f{i:02}.txt")), "").unwrap();
    }
    let links = write_skill(&root, "links", "name: links\ndescription: d\n", "b\n");
    fs::create_dir(links.join("docs")).unwrap();
    fs::write(links.join("docs/inside.md"), "").unwrap();
    std::os::unix::fs::symlink(&outside, links.join("out-link.txt")).unwrap();
    std::os::unix::fs::symlink(tmp.path(), links.join("out-dir")).unwrap();
    std::os::unix::fs::symlink("docs/inside.md", links.join("in-link.md")).unwrap();
    let skills = Skills::builder().dir(&root).build().unwrap();

    let many = skills.load("many").unwrap();
    assert_eq!(many.matches("<file>").count(), 20);
    assert!(many.contains("<file>f19.txt</file>\n</skill_files>\n[skills: file list truncated]\n</skill_content>"));
    let twenty = skills.load("twenty").unwrap();
    assert_eq!(twenty.matches("<file>").count(), 20);
    assert!(!twenty.contains("[skills: file list truncated]"));
    let links = skills.load("links").unwrap();
    assert!(
        links.contains("<skill_files>\n<file>docs/inside.md</file>\n<file>in-link.md</file>\n</skill_files>"),
        "{links}"
    );
    assert!(!links.contains("out-link") && !links.contains("outside.txt"));
}

#[test]
fn the_body_is_cut_on_a_character_boundary() {
    let tmp = tempfile::tempdir().unwrap();
    write_skill(tmp.path(), "long", "name: long\ndescription: d\n", &"é".repeat(10));
    let skills = Skills::builder().dir(tmp.path()).max_body_bytes(5).build().unwrap();
    assert!(skills.skills()[0].body_truncated);
    let loaded = skills.load("long").unwrap();
    assert!(
        loaded.contains("# Skill: long\n\néé\n\n[skills: body truncated at 5 bytes]\n\nBase directory"),
        "{loaded}"
    );
}

#[test]
fn crlf_files_and_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("crlf");
    fs::create_dir(&dir).unwrap();
    fs::write(dir.join("SKILL.md"), "---\r\nname: crlf\r\ndescription: Windows line ends\r\n---\r\n\r\nBody\r\n")
        .unwrap();
    let long_desc = "d".repeat(1025);
    write_skill(
        tmp.path(),
        "too-long",
        &format!("name: too-long\ndescription: {long_desc}\ncompatibility: {}\n", "c".repeat(501)),
        "",
    );
    let long_name = "a".repeat(65);
    write_skill(tmp.path(), &long_name, &format!("name: {long_name}\ndescription: d\n"), "");
    write_skill(tmp.path(), "double--hyphen", "name: double--hyphen\ndescription: d\n", "");
    let skills = Skills::builder().dir(tmp.path()).build().unwrap();
    assert_eq!(skills.skills().len(), 1);
    assert_eq!(skills.skills()[0].description, "Windows line ends");
    assert_eq!(skills.skills()[0].body, "Body\r\n");
    let errors: Vec<String> = skills.problems().iter().flat_map(|p| p.errors.clone()).collect();
    assert_eq!(
        errors,
        [
            "name exceeds 64 characters",
            "name must be lowercase letters and digits in groups joined by single hyphens",
            "description exceeds 1024 characters",
            "compatibility exceeds 500 characters",
        ]
    );
}

#[test]
fn directories_are_checked_and_an_empty_catalog_is_a_build_error() {
    let tmp = tempfile::tempdir().unwrap();
    assert!(matches!(Skills::builder().build(), Err(BuildError::NoDirs)));
    assert!(matches!(Skills::builder().dir(tmp.path().join("missing")).build(), Err(BuildError::Dir { .. })));
    fs::write(tmp.path().join("file"), "").unwrap();
    assert!(matches!(Skills::builder().dir(tmp.path().join("file")).build(), Err(BuildError::NotADirectory(_))));
    let empty = tmp.path().join("empty");
    fs::create_dir(&empty).unwrap();
    let error = Skills::builder().dir(&empty).build().unwrap_err();
    assert_eq!(error.to_string(), "skills: no valid skills found in 1 configured dir(s)");
    write_skill(&empty, "broken", "name: Broken\n", "");
    let error = Skills::builder().dir(&empty).build().unwrap_err();
    assert!(matches!(&error, BuildError::NoSkills { problems, .. } if problems.len() == 1), "{error:?}");
    assert!(error.to_string().contains("broken/SKILL.md: name must be lowercase"));
}

#[test]
fn the_model_loads_a_skill_through_an_agent() {
    let skills = Skills::builder().dir(fixtures("main")).build().unwrap();
    let message = tools_support::through_agent(skills.tool(), r#"{"name":"use-when"}"#);
    assert!(message.content.starts_with("<skill_content name=\"use-when\">\n# Skill: use-when\n\nSummarise"));
    assert!(!message.failed);
}
