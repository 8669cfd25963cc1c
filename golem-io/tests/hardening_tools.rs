//! The common tools' bounds against hostile input (issue 15 item 5):
//! `read_file`'s line-range scan is bounded and the whole returned text is
//! checked for binary content, `web_fetch` sniffs bodies labelled as text,
//! and no error text quotes more than a short prefix of a URL, path,
//! program or name, however long the model (or a page) made it.

/// The most an error text may be: a fixed sentence around a 200-byte
/// quote and a length.
#[cfg(any(feature = "file-read", feature = "web-fetch", all(feature = "command", unix), feature = "skills"))]
const SHORT: usize = 600;

#[cfg(feature = "file-read")]
mod file_read {
    use super::SHORT;
    use golem_core::testing::ScriptedModel;
    use golem_core::Role;
    use golem_io::tools::file_read::{FileRead, ReadError, DEFAULT_MAX_SCAN_BYTES};
    use golem_io::Agent;
    use std::io::Write;

    #[test]
    fn a_start_line_deep_in_a_huge_file_costs_a_bounded_scan() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("huge.log");
        let mut file = std::fs::File::create(&path).unwrap();
        // Past the 8 KiB sniffed for NULs, so the zeros after are reached.
        for n in 0..2000 {
            writeln!(file, "line {n}").unwrap();
        }
        // Sparse: 96 MiB that cost no disk, past the 64 MiB scan bound.
        file.set_len(96 << 20).unwrap();
        drop(file);
        let files = FileRead::builder(dir.path()).build().unwrap();
        let error = files.read("huge.log", Some(1_000_000), None).unwrap_err();
        let ReadError::Failed(text) = &error else { panic!("a failed result: {error:?}") };
        assert!(text.contains(&format!("stopped reading after {DEFAULT_MAX_SCAN_BYTES} bytes")), "{text}");
        assert_eq!(files.read("huge.log", Some(2), Some(3)).unwrap(), "line 1\nline 2\n", "near ranges still read");

        let small = FileRead::builder(dir.path()).max_scan_bytes(100).build().unwrap();
        assert!(matches!(small.read("huge.log", Some(50), Some(50)), Err(ReadError::Failed(_))), "configurable");
        assert_eq!(files.read("huge.log", Some(1999), Some(2000)).unwrap(), "line 1998\nline 1999\n");
        assert_eq!(small.read("huge.log", Some(1), Some(1)).unwrap(), "line 0\n");
    }

    #[test]
    fn binary_content_anywhere_in_the_returned_text_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut text = "a plain line of text\n".repeat(1000).into_bytes(); // 21 KB, past the 8 KiB sniff
        text.extend_from_slice(b"hidden\0binary\nlast line\n");
        std::fs::write(dir.path().join("mixed.txt"), &text).unwrap();
        let files = FileRead::builder(dir.path()).build().unwrap();
        assert_eq!(files.read("mixed.txt", Some(1002), None).unwrap(), "last line\n");
        let error = files.read("mixed.txt", Some(1000), None).unwrap_err();
        assert_eq!(error, ReadError::Failed("mixed.txt: binary file".into()));
        assert_eq!(files.read("mixed.txt", None, None).unwrap_err(), error, "the whole file too");
    }

    #[test]
    fn errors_quote_only_a_prefix_of_a_long_path() {
        let dir = tempfile::tempdir().unwrap();
        let files = FileRead::builder(dir.path()).build().unwrap();
        let long = "a/".repeat(100_000);
        for path in [format!("/{long}"), format!("{long}../x"), format!("{long}missing"), "x".repeat(200_000)] {
            let error = files.read(&path, None, None).unwrap_err();
            assert!(
                error.to_string().len() < SHORT,
                "{} bytes: {}",
                error.to_string().len(),
                &error.to_string()[..300]
            );
        }
        // serde quotes a value of the wrong type whole; the rejection does not.
        let args = serde_json::json!({"path": "a", "start_line": "y".repeat(200_000)}).to_string();
        let model = ScriptedModel::new().tool_call("read_file", args).text("done");
        let agent = Agent::builder(model).tool(files.tool()).tool_retries(1).build().unwrap();
        let result = agent.run((), "go").unwrap();
        let rejection = &result.messages.iter().find(|m| m.role == Role::Tool).unwrap().content;
        assert!(rejection.contains("arguments must be") && rejection.len() < SHORT, "{rejection}");
    }
}

#[cfg(feature = "web-fetch")]
mod web_fetch {
    use super::SHORT;
    use crate::tools_support::{Reply, Server};
    use golem_io::tools::web_fetch::{FetchError, WebFetch};

    #[test]
    fn a_binary_body_labelled_as_text_is_a_failed_result() {
        let png = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x10\0\0\0\x10\x08\x06\0\0\0".to_vec();
        let server = Server::start(move |path| match path {
            "/png-as-text" => Reply::ok("text/plain", png.clone()),
            "/gzip-as-html" => Reply::ok("text/html", vec![0x1f, 0x8b, 8, 1, 2, 3, 4, 5, 6, 7, 0x13, 0x11, b'x']),
            _ => Reply::ok("text/plain; charset=utf-8", "real text\twith a tab\n"),
        });
        let fetch = WebFetch::builder().allow_private_networks(true).build().unwrap();
        for path in ["/png-as-text", "/gzip-as-html"] {
            let error = fetch.fetch(&server.url(path)).unwrap_err();
            assert!(
                matches!(&error, FetchError::Binary { content_type, .. } if content_type.starts_with("text/")),
                "{path}: {error:?}"
            );
            assert!(error.to_string().contains("the body is binary"), "{error}");
        }
        assert_eq!(fetch.fetch(&server.url("/text")).unwrap().text, "real text\twith a tab\n");
    }

    #[test]
    fn errors_quote_only_a_prefix_of_a_long_url() {
        let fetch = WebFetch::builder().build().unwrap();
        let tail = "a".repeat(200_000);
        for url in [
            format!("http://127.0.0.1/{tail}"),
            format!("http://169.254.169.254/latest/{tail}"),
            format!("ftp://example.com/{tail}"),
            format!("http://{}/", "b".repeat(200_000)),
        ] {
            let error = fetch.fetch(&url).unwrap_err();
            let text = error.to_string();
            assert!(text.len() < SHORT, "{} bytes for {error:?}", text.len());
        }
        let server = Server::start(|_| Reply::redirect(302, &format!("gopher://x/{}", "c".repeat(20_000))));
        let open = WebFetch::builder().allow_private_networks(true).build().unwrap();
        let text = open.fetch(&server.url("/moved")).unwrap_err().to_string();
        assert!(text.contains("refused") && text.len() < 2 * SHORT, "{} bytes", text.len());
    }
}

#[cfg(all(feature = "command", unix))]
mod command {
    use super::SHORT;
    use golem_io::tools::command::RunCommand;

    #[test]
    fn errors_quote_only_a_prefix_of_a_long_program_name() {
        let dir = tempfile::tempdir().unwrap();
        let long = "p".repeat(200_000);
        let open = RunCommand::builder(dir.path()).build().unwrap();
        let allowlisted = RunCommand::builder(dir.path()).allow_program("echo").build().unwrap();
        for runner in [open, allowlisted] {
            let text = runner.run(&long).unwrap_err().to_string();
            assert!(text.len() < SHORT, "{} bytes: {}", text.len(), &text[..300]);
        }
    }
}

#[cfg(feature = "skills")]
mod skills {
    use super::SHORT;
    use golem_io::tools::skills::Skills;

    #[test]
    fn errors_quote_only_a_prefix_of_a_long_skill_name() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("one")).unwrap();
        std::fs::write(dir.path().join("one/SKILL.md"), "---\nname: one\ndescription: The one.\n---\nBody.\n").unwrap();
        let skills = Skills::builder().dir(dir.path()).build().unwrap();
        let text = skills.load(&"n".repeat(200_000)).unwrap_err().to_string();
        assert!(text.len() < SHORT, "{} bytes", text.len());
    }
}
