//! The `Bearer` challenge of a `WWW-Authenticate` header (RFC 6750 §3,
//! RFC 9728 §5.1): `error`, `scope` and `resource_metadata` are what the
//! flow acts on. Anything malformed reads as "no such parameter", never as
//! an error: a challenge is a hint.

/// The parameters of a `Bearer` challenge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct Challenge {
    /// `error` (`invalid_token`, `insufficient_scope`, …).
    pub error: Option<String>,
    /// `scope`: the scopes the resource wants, space-separated.
    pub scope: Option<String>,
    /// `resource_metadata`: where the protected-resource metadata is.
    pub resource_metadata: Option<String>,
}

impl Challenge {
    /// Read the `Bearer` challenge of a header value (which may hold
    /// several challenges); the default when there is none.
    ///
    /// ```
    /// use golem_io::mcp::Challenge;
    ///
    /// let c = Challenge::parse(r#"Bearer error="insufficient_scope", scope="files:read files:write", resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource""#);
    /// assert_eq!(c.error.as_deref(), Some("insufficient_scope"));
    /// assert_eq!(c.scope.as_deref(), Some("files:read files:write"));
    /// ```
    pub fn parse(header: &str) -> Challenge {
        let mut challenge = Challenge::default();
        let mut in_bearer = false;
        for item in split_items(header) {
            let item = item.trim();
            // A new challenge starts with its scheme: `Scheme [param]`.
            let (scheme, rest) = match item.split_once(' ') {
                Some((first, rest)) if !first.contains('=') => (Some(first), rest.trim()),
                _ if !item.contains('=') && !item.is_empty() => (Some(item), ""),
                _ => (None, item),
            };
            if let Some(scheme) = scheme {
                in_bearer = scheme.eq_ignore_ascii_case("bearer");
            }
            if !in_bearer || rest.is_empty() {
                continue;
            }
            let Some((name, value)) = rest.split_once('=') else { continue };
            let value = unquote(value.trim());
            let slot = match name.trim().to_ascii_lowercase().as_str() {
                "error" => &mut challenge.error,
                "scope" => &mut challenge.scope,
                "resource_metadata" => &mut challenge.resource_metadata,
                _ => continue,
            };
            if slot.is_none() {
                *slot = Some(value);
            }
        }
        challenge
    }

    /// True for `error="insufficient_scope"`: a step-up is asked for.
    pub fn insufficient_scope(&self) -> bool {
        self.error.as_deref() == Some("insufficient_scope")
    }
}

/// Split at commas outside quoted strings.
fn split_items(header: &str) -> Vec<&str> {
    let mut items = Vec::new();
    let (mut start, mut quoted, mut escaped) = (0, false, false);
    for (at, c) in header.char_indices() {
        match c {
            _ if escaped => escaped = false,
            '\\' if quoted => escaped = true,
            '"' => quoted = !quoted,
            ',' if !quoted => {
                items.push(&header[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    items.push(&header[start..]);
    items
}

fn unquote(value: &str) -> String {
    let Some(inner) = value.strip_prefix('"') else { return value.to_string() };
    let inner = inner.strip_suffix('"').unwrap_or(inner);
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        out.push(if c == '\\' { chars.next().unwrap_or('\\') } else { c });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_parameters_are_read_among_other_challenges() {
        let c = Challenge::parse(
            r#"Basic realm="x, y", Bearer realm="mcp", error="invalid_token", error_description="Missing \"Authorization\" header", resource_metadata="http://localhost:1/.well-known/oauth-protected-resource/mcp""#,
        );
        assert_eq!(c.error.as_deref(), Some("invalid_token"));
        assert_eq!(c.resource_metadata.as_deref(), Some("http://localhost:1/.well-known/oauth-protected-resource/mcp"));
        assert_eq!(c.scope, None);
        assert_eq!(
            Challenge::parse("Bearer scope=read"),
            Challenge { scope: Some("read".into()), ..Challenge::default() }
        );
        assert_eq!(Challenge::parse("Basic realm=\"a\""), Challenge::default());
        assert_eq!(Challenge::parse("Bearer"), Challenge::default());
        assert_eq!(Challenge::parse("\"unterminated, scope=\"x"), Challenge::default());
        assert!(Challenge::parse(r#"Bearer error="insufficient_scope""#).insufficient_scope());
    }

    proptest::proptest! {
        /// A header is outside input: any text reads as some challenge.
        #[test]
        fn any_header_parses(header in "\\PC{0,80}", quoted in r#"[a-z ,="\\]{0,40}"#) {
            let _ = Challenge::parse(&header);
            let _ = Challenge::parse(&format!("Bearer {quoted}"));
        }
    }
}
