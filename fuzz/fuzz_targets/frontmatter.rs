//! Arbitrary bytes as a SKILL.md through the frontmatter reader (SPEC SKILL-02, ARCH-02).
#![no_main]
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| golem_io::tools::fuzzing::frontmatter(data));
