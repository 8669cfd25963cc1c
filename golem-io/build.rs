//! Turns on `cfg(golem_guides)` when the repository's guides sit beside this
//! crate, so `src/guides.rs` compiles them (and the README) as doctests.
//!
//! The published package holds this crate alone — no `docs/`, no README of
//! the workspace — so there the guides module is simply not built, and
//! `cargo test` on the package tests what the package contains.

use std::path::Path;

fn main() {
    println!("cargo::rustc-check-cfg=cfg(golem_guides)");
    println!("cargo::rerun-if-changed=build.rs");
    let manifest_dir = std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default();
    let crate_dir = Path::new(&manifest_dir);
    let in_repository =
        crate_dir.join("src/guides.rs").is_file() && crate_dir.join("../docs/guides/getting-started.md").is_file();
    if in_repository {
        println!("cargo::rustc-cfg=golem_guides");
    }
}
