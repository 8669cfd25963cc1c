//! The `transcript` example's `--html` (SPEC OBS-06): it writes the run
//! report page of a recorded run.

use std::process::Command;

#[test]
fn transcript_writes_the_run_report_with_html() {
    let dir = tempfile::tempdir().unwrap();
    let page = dir.path().join("run.html");
    let out = Command::new(env!("CARGO_BIN_EXE_transcript")).env_clear().arg("--html").arg(&page).output().unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(stdout.contains(&format!("run report: {}", page.display())), "{stdout}");
    let html = std::fs::read_to_string(&page).unwrap();
    for want in [
        "<b id=\"turn-count\">2</b>",
        "<b id=\"attempt-count\">3</b>",
        "<span class=\"tool-name\">forecast</span>",
        "<b id=\"input-tokens\">280</b>",
        "<b id=\"output-tokens\">30</b>",
        "the service is busy (status 503)",
    ] {
        assert!(html.contains(want), "the page lacks {want}");
    }
    let bad = Command::new(env!("CARGO_BIN_EXE_transcript")).env_clear().arg("--html").output().unwrap();
    assert!(!bad.status.success());
}
