//! The `mcp_message` fuzz target's body over its committed seed corpus (the
//! recorded MCP traffic), so CI exercises the target on stable Rust.
#![cfg(feature = "mcp")]

use std::path::PathBuf;

#[test]
fn mcp_message_seeds() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fuzz/corpus/mcp_message");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("seed corpus {} missing: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 10, "seed corpus {} is too small", dir.display());
    for path in files {
        eprintln!("{}", path.display());
        golem_io::mcp::fuzzing::message(&std::fs::read(&path).unwrap());
    }
}

#[test]
fn mcp_message_survives_hostile_shapes() {
    let deep = format!("{}{}", "[".repeat(10_000), "]".repeat(10_000));
    let cases: [&[u8]; 6] = [
        b"",
        b"\n\n\n",
        b"\xff\xfe\x00",
        deep.as_bytes(),
        b"data: \r\r\n\n\rdata:x\n\n",
        b"{\"jsonrpc\":\"2.0\",\"id\":-1,\"result\":null}",
    ];
    for case in cases {
        golem_io::mcp::fuzzing::message(case);
    }
}
