//! Every provider fuzz target's body over its committed seed corpus (the
//! recorded traffic), so CI exercises the targets on stable Rust.

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

macro_rules! seed_tests {
    ($($target:ident),*) => {$(
        #[test]
        fn $target() {
            for (path, data) in corpus(stringify!($target)) {
                eprintln!("{}", path.display());
                golem_providers::fuzzing::$target(&data);
            }
        }
    )*};
}

seed_tests!(
    sse,
    chat_stream,
    chat_response,
    http_date,
    eventstream,
    bedrock_stream,
    bedrock_events,
    bedrock_response,
    gemini_stream,
    gemini_response,
    anthropic_stream,
    anthropic_response,
    embeddings,
    responses_stream,
    responses_response
);
