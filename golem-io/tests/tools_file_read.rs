//! `read_file` in temp workspaces (SPEC FILE): every traversal attempt is
//! refused, FIFOs are never opened, a swap race never leaks a file from
//! outside, binary files are failed results, caps and ranges hold.
#![cfg(all(feature = "file-read", unix))]

use crate::tools_support;

use golem_io::tools::file_read::{FileRead, ReadError};
use std::ffi::OsStr;
use std::fs;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{mpsc, Arc};
use std::time::Duration;

/// `<tmp>/root` with a few files, and `<tmp>/secret.txt` outside it.
fn workspace() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("root");
    fs::create_dir_all(root.join("sub/deeper")).unwrap();
    fs::write(tmp.path().join("secret.txt"), "TOP SECRET").unwrap();
    fs::write(root.join("notes.txt"), "one\ntwo\nthree\nfour\n").unwrap();
    fs::write(root.join("sub/deeper/inner.txt"), "inner").unwrap();
    (tmp, root)
}

fn mkfifo(path: &Path) {
    let status = std::process::Command::new("mkfifo").arg(path).status().expect("mkfifo runs");
    assert!(status.success());
}

#[test]
fn traversal_attempts_are_all_refused() {
    let (tmp, root) = workspace();
    let secret = tmp.path().join("secret.txt");
    symlink("../secret.txt", root.join("link_out")).unwrap();
    symlink(tmp.path(), root.join("dir_out")).unwrap();
    symlink(&secret, root.join("abs_link_out")).unwrap();
    symlink("loop_b", root.join("loop_a")).unwrap();
    symlink("loop_a", root.join("loop_b")).unwrap();
    symlink("/dev/null", root.join("devnull")).unwrap();
    fs::write(root.join(OsStr::from_bytes(b"caf\xe9.txt")), "latin-1 name").unwrap();
    symlink(&secret, root.join(OsStr::from_bytes(b"\xff-out"))).unwrap();
    mkfifo(&root.join("pipe"));
    let files = FileRead::builder(&root).build().unwrap();

    let long_path = "a/".repeat(3000) + "x";
    let long_name = "n".repeat(300);
    let secret_abs = secret.to_str().unwrap().to_string();
    let table: Vec<(&str, &str)> = vec![
        ("../secret.txt", "path must stay within the root directory, got \"../secret.txt\""),
        ("sub/../../secret.txt", "path must stay within the root directory"),
        ("sub/..", "path must stay within the root directory"),
        ("/etc/passwd", "path must be relative to the root directory, got \"/etc/passwd\""),
        (&secret_abs, "path must be relative to the root directory"),
        ("link_out", "path must stay within the root directory: link_out resolves outside it"),
        ("abs_link_out", "resolves outside it"),
        ("dir_out/secret.txt", "resolves outside it"),
        ("dir_out/root/../secret.txt", "path must stay within the root directory"),
        ("devnull", "resolves outside it"),
        ("loop_a", "cannot resolve loop_a:"),
        (&long_path, "no such file"),
        (&long_name, "cannot resolve"),
        ("caf\u{fffd}.txt", "no such file: caf\u{fffd}.txt"),
        ("café.txt", "no such file: café.txt"),
        ("\u{fffd}-out", "no such file"),
        ("pipe", "pipe is not a regular file"),
        ("sub", "sub is a directory, not a file"),
        (".", ". is a directory, not a file"),
        ("missing.txt", "no such file: missing.txt"),
        ("notes.txt/x", "no such file: notes.txt/x"),
        ("", "path is required"),
        ("notes\0.txt", "path must not contain a NUL byte"),
    ];
    for (path, expected) in table {
        // A FIFO opened for reading would block this thread: run each case
        // with a deadline so a regression fails instead of hanging.
        let (files, path_owned) = (files.clone(), path.to_string());
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || tx.send(files.read(&path_owned, None, None)));
        let result = rx.recv_timeout(Duration::from_secs(5)).unwrap_or_else(|_| panic!("{path:.40}: the read blocked"));
        let error = result.expect_err(&format!("{path:.40} must be refused"));
        assert!(error.is_rejection(), "{path:.40}: {error:?}");
        assert!(error.to_string().contains(expected), "{path:.40}: {error} (wanted {expected:?})");
        assert!(!error.to_string().contains("TOP SECRET"));
    }
}

#[test]
fn symlinks_inside_the_root_are_followed() {
    let (_tmp, root) = workspace();
    symlink("sub/deeper/inner.txt", root.join("shortcut")).unwrap();
    symlink("sub", root.join("subdir")).unwrap();
    let files = FileRead::builder(&root).build().unwrap();
    assert_eq!(files.read("shortcut", None, None).unwrap(), "inner");
    assert_eq!(files.read("subdir/deeper/inner.txt", None, None).unwrap(), "inner");
    assert_eq!(files.read("./sub//deeper/inner.txt", None, None).unwrap(), "inner");
}

#[test]
fn a_root_reached_through_a_symlink_is_stored_canonical() {
    let (tmp, root) = workspace();
    let alias = tmp.path().join("alias");
    symlink(&root, &alias).unwrap();
    let files = FileRead::builder(&alias).build().unwrap();
    assert_eq!(files.root(), fs::canonicalize(&root).unwrap());
    assert_eq!(files.read("notes.txt", Some(1), Some(1)).unwrap(), "one\n");
    assert!(FileRead::builder(tmp.path().join("missing")).build().is_err());
    assert!(FileRead::builder(root.join("notes.txt")).build().is_err());
}

#[test]
fn a_file_swapped_for_a_symlink_is_never_read_through_it() {
    let (tmp, root) = workspace();
    fs::write(root.join("decoy.txt"), "harmless").unwrap();
    symlink(tmp.path().join("secret.txt"), root.join("evil")).unwrap();
    let files = FileRead::builder(&root).build().unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let swapper = {
        let (root, stop) = (root.clone(), Arc::clone(&stop));
        std::thread::spawn(move || {
            // Flip `target` between a regular file and a symlink out of the
            // root, atomically, as fast as possible.
            let mut n = 0u32;
            while !stop.load(Ordering::SeqCst) && n < 200_000 {
                let _ = fs::hard_link(root.join("decoy.txt"), root.join("tmp-file"));
                let _ = fs::rename(root.join("tmp-file"), root.join("target"));
                let _ = symlink(root.parent().unwrap().join("secret.txt"), root.join("tmp-link"));
                let _ = fs::rename(root.join("tmp-link"), root.join("target"));
                n += 1;
            }
        })
    };
    let mut outcomes = (0, 0);
    for _ in 0..3000 {
        match files.read("target", None, None) {
            Ok(text) => {
                assert_eq!(text, "harmless");
                outcomes.0 += 1;
            }
            Err(e) => {
                assert!(!e.to_string().contains("TOP SECRET"));
                outcomes.1 += 1;
            }
        }
    }
    stop.store(true, Ordering::SeqCst);
    swapper.join().unwrap();
    assert!(outcomes.0 + outcomes.1 == 3000);
}

#[test]
fn binary_files_are_failed_results() {
    let (_tmp, root) = workspace();
    fs::write(root.join("nul.bin"), b"text\0more").unwrap();
    fs::write(root.join("latin1.txt"), b"caf\xe9").unwrap();
    let mut late_nul = "a".repeat(9000).into_bytes();
    late_nul.push(0);
    fs::write(root.join("late-nul.txt"), &late_nul).unwrap();
    let files = FileRead::builder(&root).build().unwrap();
    for name in ["nul.bin", "latin1.txt"] {
        let error = files.read(name, None, None).unwrap_err();
        assert_eq!(error, ReadError::Failed(format!("{name}: binary file")));
    }
    // A NUL after the first 8 KiB is binary too: the whole returned text
    // is checked (issue 15).
    assert_eq!(
        files.read("late-nul.txt", None, None).unwrap_err(),
        ReadError::Failed("late-nul.txt: binary file".into())
    );
    let message = tools_support::through_agent(files.tool(), r#"{"path":"nul.bin"}"#);
    assert!(message.failed);
    assert_eq!(message.content, "nul.bin: binary file");
}

#[test]
fn oversized_files_are_cut_with_a_marker() {
    let (_tmp, root) = workspace();
    fs::write(root.join("big.txt"), "x".repeat(5000)).unwrap();
    fs::write(root.join("accents.txt"), "é".repeat(10)).unwrap();
    let files = FileRead::builder(&root).max_bytes(1000).build().unwrap();
    let text = files.read("big.txt", None, None).unwrap();
    assert_eq!(text, format!("{}\n\n[fileread: file truncated at 1000 bytes]", "x".repeat(1000)));
    // The cap falls inside an é: the half character is dropped, not
    // mistaken for binary.
    let small = FileRead::builder(&root).max_bytes(5).build().unwrap();
    assert_eq!(small.read("accents.txt", None, None).unwrap(), "éé\n\n[fileread: file truncated at 5 bytes]");
}

#[test]
fn line_ranges_are_one_based_inclusive_and_clamp_at_the_end() {
    let (_tmp, root) = workspace();
    let files = FileRead::builder(&root).build().unwrap();
    let read = |s, e| files.read("notes.txt", s, e);
    assert_eq!(read(Some(2), Some(3)).unwrap(), "two\nthree\n");
    assert_eq!(read(Some(3), None).unwrap(), "three\nfour\n");
    assert_eq!(read(None, Some(2)).unwrap(), "one\ntwo\n");
    assert_eq!(read(Some(4), Some(99)).unwrap(), "four\n");
    assert_eq!(read(Some(1), Some(1)).unwrap(), "one\n");
    let past = read(Some(5), None).unwrap_err();
    assert_eq!(past, ReadError::Rejected("start_line 5 is past the end of notes.txt, which has 4 lines".into()));
    assert!(read(Some(0), None).unwrap_err().is_rejection());
    assert_eq!(read(Some(3), Some(2)).unwrap_err(), ReadError::Rejected("end_line 2 is before start_line 3".into()));
    fs::write(root.join("no-newline.txt"), "a\nb").unwrap();
    assert_eq!(files.read("no-newline.txt", Some(2), None).unwrap(), "b");
}

#[test]
fn with_a_range_the_cap_counts_returned_lines() {
    let (_tmp, root) = workspace();
    let mut big = String::new();
    for i in 1..=200_000 {
        big.push_str(&format!("line {i}\n"));
    }
    fs::write(root.join("big.txt"), &big).unwrap();
    let files = FileRead::builder(&root).max_bytes(64 * 1024).build().unwrap();
    // Far past the first 64 KiB of the file, still readable by range.
    assert_eq!(files.read("big.txt", Some(150_000), Some(150_001)).unwrap(), "line 150000\nline 150001\n");
    let cut = files.read("big.txt", Some(10), None).unwrap();
    assert!(cut.ends_with("\n\n[fileread: file truncated at 65536 bytes]"));
    assert_eq!(cut.len(), 65536 + "\n\n[fileread: file truncated at 65536 bytes]".len());
    assert!(cut.starts_with("line 10\nline 11\n"));
}

#[test]
fn the_tool_reads_through_an_agent() {
    let (_tmp, root) = workspace();
    let files = FileRead::builder(&root).build().unwrap();
    let message = tools_support::through_agent(files.tool(), r#"{"path":"notes.txt","start_line":2,"end_line":2}"#);
    assert_eq!((message.content.as_str(), message.failed), ("two\n", false));
    let tool = files.tool::<()>();
    assert_eq!(tool.name(), "read_file");
    assert_eq!(
        tool.spec().definition.parameters["properties"]["path"]["description"],
        "File path relative to the root directory, without .. segments."
    );
}
