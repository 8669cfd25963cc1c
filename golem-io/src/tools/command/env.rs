//! The command's environment (issue 15): by default a minimal one — the
//! variables a program needs to find things and print text, copied from
//! this process — plus what the configuration adds. This process's
//! environment holds API keys; a command that can run `printenv` must not
//! see them unless told to.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::process::Command;

/// The variables a command gets from this process by default, when set
/// here: the search path, home and user, locale, terminal type, time zone
/// and temporary directory. Nothing that commonly holds a credential.
pub const PASSED_ENV: &[&str] = &[
    "PATH",
    "HOME",
    "USER",
    "LOGNAME",
    "LANG",
    "LANGUAGE",
    "LC_ALL",
    "LC_CTYPE",
    "LC_COLLATE",
    "LC_MESSAGES",
    "LC_MONETARY",
    "LC_NUMERIC",
    "LC_TIME",
    "TERM",
    "TZ",
    "TMPDIR",
];

/// What the command's environment starts from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Base {
    /// [`PASSED_ENV`] and the names passed explicitly (the default).
    Minimal,
    /// Everything this process has.
    Inherit,
    /// Nothing but the names passed explicitly.
    Empty,
}

/// The environment a command runs with.
#[derive(Clone, Debug)]
pub(super) struct Env {
    pub(super) base: Base,
    /// Further names copied from this process when set.
    pub(super) passed: Vec<OsString>,
    /// Values set (`Some`) or removed (`None`) last.
    pub(super) overrides: BTreeMap<OsString, Option<OsString>>,
}

impl Default for Env {
    fn default() -> Self {
        Env { base: Base::Minimal, passed: Vec::new(), overrides: BTreeMap::new() }
    }
}

impl Env {
    /// Set `command`'s environment.
    pub(super) fn apply(&self, command: &mut Command) {
        if self.base != Base::Inherit {
            command.env_clear();
            let defaults = if self.base == Base::Minimal { PASSED_ENV } else { &[] };
            let names = defaults.iter().map(OsString::from).chain(self.passed.iter().cloned());
            for name in names {
                if let Some(value) = std::env::var_os(&name) {
                    command.env(name, value);
                }
            }
        }
        for (key, value) in &self.overrides {
            match value {
                Some(value) => command.env(key, value),
                None => command.env_remove(key),
            };
        }
    }
}
