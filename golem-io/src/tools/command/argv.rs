//! The command string as argv, with POSIX quoting and nothing else (SPEC
//! SHELL-02): single quotes keep everything, double quotes keep everything
//! but `\"`, `\\`, `\$`, `` \` `` and a backslash-newline, a backslash
//! outside quotes keeps the next character. Whatever a shell would
//! interpret instead — pipes, redirections, lists, substitutions,
//! variables, globs, `~`, comments, assignments — is refused, never
//! passed on literally, so the model is not misled about what ran.

/// Why a command string is not one plain argv.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SplitError {
    /// Nothing but whitespace.
    Empty,
    /// A quote (`'` or `"`) is never closed.
    UnterminatedQuote(char),
    /// A backslash ends the command.
    TrailingBackslash,
    /// A shell feature, described for the model.
    ShellFeature(&'static str),
}

/// Split `command` into argv.
///
/// ```
/// use golem_io::tools::command::{split_command, SplitError};
///
/// assert_eq!(split_command(r#"grep -n "a b" 'c d' e\ f"#).unwrap(), ["grep", "-n", "a b", "c d", "e f"]);
/// assert!(matches!(split_command("ls | wc"), Err(SplitError::ShellFeature(_))));
/// ```
pub fn split_command(command: &str) -> Result<Vec<String>, SplitError> {
    let mut words = Vec::new();
    let mut word = String::new();
    // A word exists once anything, even `''`, was seen for it.
    let mut in_word = false;
    let mut chars = command.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnterminatedQuote('\'')),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some('\n') => {}
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(SplitError::UnterminatedQuote('"')),
                        },
                        Some('`') => return Err(SplitError::ShellFeature(BACKTICK)),
                        Some('$') if chars.peek().is_some_and(|n| starts_expansion(*n)) => {
                            return Err(SplitError::ShellFeature(dollar(chars.peek().copied())))
                        }
                        Some(c) => word.push(c),
                        None => return Err(SplitError::UnterminatedQuote('"')),
                    }
                }
            }
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(c) => {
                    in_word = true;
                    word.push(c);
                }
                None => return Err(SplitError::TrailingBackslash),
            },
            '|' => return Err(SplitError::ShellFeature("a pipe (|)")),
            '&' => return Err(SplitError::ShellFeature("a background job or && list (&)")),
            ';' | '\n' | '\r' => return Err(SplitError::ShellFeature("a command list (; or a newline)")),
            '<' | '>' => return Err(SplitError::ShellFeature("a redirection (< or >)")),
            '(' | ')' => return Err(SplitError::ShellFeature("a subshell (parentheses)")),
            '`' => return Err(SplitError::ShellFeature(BACKTICK)),
            '$' if chars.peek().is_some_and(|n| starts_expansion(*n) || *n == '\'' || *n == '"') => {
                return Err(SplitError::ShellFeature(dollar(chars.peek().copied())))
            }
            '*' | '?' | '[' => return Err(SplitError::ShellFeature("a glob (*, ? or [)")),
            '~' if !in_word => return Err(SplitError::ShellFeature("tilde expansion (~)")),
            '#' if !in_word => return Err(SplitError::ShellFeature("a comment (#)")),
            '=' if words.is_empty() && is_name(&word) => {
                return Err(SplitError::ShellFeature("a variable assignment (NAME=value)"))
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    if words.is_empty() {
        return Err(SplitError::Empty);
    }
    Ok(words)
}

const BACKTICK: &str = "command substitution (`…`)";

/// True when `$` followed by `next` is an expansion in a POSIX shell.
fn starts_expansion(next: char) -> bool {
    next.is_ascii_alphanumeric() || matches!(next, '_' | '{' | '(' | '?' | '@' | '*' | '#' | '$' | '!' | '-')
}

fn dollar(next: Option<char>) -> &'static str {
    match next {
        Some('(') => "command substitution ($(…))",
        Some('\'' | '"') => "ANSI-C or locale quoting ($'…' or $\"…\")",
        _ => "a variable ($…)",
    }
}

/// True for a shell variable name (what makes `NAME=value` an assignment).
fn is_name(word: &str) -> bool {
    let mut chars = word.chars();
    chars.next().is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
}
