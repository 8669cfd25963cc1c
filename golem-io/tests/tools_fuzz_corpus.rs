//! The `html_text` and `frontmatter` fuzz targets' bodies over their
//! committed seeds (`fuzz/corpus/<target>/`), so CI runs them on stable Rust
//! (SPEC ARCH-02).
#![cfg(all(feature = "web-fetch", feature = "skills"))]

use std::path::PathBuf;

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus").join(target);
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("seed corpus {} missing: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(!files.is_empty(), "seed corpus {} is empty", dir.display());
    files.into_iter().map(|p| (p.clone(), std::fs::read(&p).unwrap())).collect()
}

#[test]
fn html_text_seed_corpus() {
    for (path, data) in corpus("html_text") {
        eprintln!("{}", path.display());
        golem_io::tools::fuzzing::html_text(&data);
        // Every prefix too: a page cut anywhere must not panic either.
        for end in (0..data.len()).step_by(7) {
            golem_io::tools::fuzzing::html_text(&data[..end]);
        }
    }
}

#[test]
fn frontmatter_seed_corpus() {
    for (path, data) in corpus("frontmatter") {
        eprintln!("{}", path.display());
        for end in 0..=data.len() {
            golem_io::tools::fuzzing::frontmatter(&data[..end]);
        }
    }
}

/// Thousands of pseudo-random inputs from a fixed seed, built from the
/// tokens that matter to each parser.
#[test]
fn both_bodies_on_pseudo_random_inputs() {
    const HTML: &[&str] = &[
        "<",
        ">",
        "</",
        "<!--",
        "-->",
        "<script>",
        "</script>",
        "<a href=\"",
        "\"",
        "'",
        "&amp;",
        "&#",
        "<br>",
        "<pre>",
        "\n",
        " ",
        "x",
        "<svg>",
        "<nav>",
        "</nav>",
        "<title>",
        "<plaintext>",
        "\0",
        "é",
    ];
    const YAML: &[&str] = &[
        "---",
        "\n",
        "\r\n",
        "name",
        "description",
        ":",
        " ",
        "|",
        ">",
        "-",
        "\"",
        "'",
        "&a",
        "*a",
        "[",
        "]",
        "{",
        "}",
        "#",
        "!!str",
        "  ",
        "é",
        "\t",
    ];
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for _ in 0..2000 {
        let len = (next() % 40) as usize;
        let html: String = (0..len).map(|_| HTML[(next() % HTML.len() as u64) as usize]).collect();
        golem_io::tools::fuzzing::html_text(html.as_bytes());
        let yaml: String = (0..len).map(|_| YAML[(next() % YAML.len() as u64) as usize]).collect();
        golem_io::tools::fuzzing::frontmatter(yaml.as_bytes());
        golem_io::tools::fuzzing::frontmatter(format!("---\n{yaml}\n---\n").as_bytes());
    }
}
