//! What a file is, from its first bytes (never its name): a PDF, a zip
//! package (an office file, perhaps), an OLE compound file (a legacy or a
//! password-protected Office file), or something else.

/// How many leading bytes are looked at.
pub(crate) const HEAD_BYTES: usize = 1024;

/// A file's kind by its signature.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// `%PDF-` in the first kilobyte (readers allow leading junk).
    Pdf,
    /// A zip archive.
    Zip,
    /// An OLE compound file.
    Compound,
    /// Anything else.
    Other,
}

/// The kind of a file starting with `head`.
pub(crate) fn sniff(head: &[u8]) -> Kind {
    const COMPOUND: &[u8] = b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1";
    if head.starts_with(b"PK\x03\x04") || head.starts_with(b"PK\x05\x06") {
        Kind::Zip
    } else if head.starts_with(COMPOUND) {
        Kind::Compound
    } else if head.windows(5).any(|w| w == b"%PDF-") {
        Kind::Pdf
    } else {
        Kind::Other
    }
}

/// True when a compound file holds an encrypted OOXML package (its
/// directory names the `EncryptedPackage` stream, in UTF-16).
pub(crate) fn is_encrypted_package(file: &[u8]) -> bool {
    let name: Vec<u8> = "EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes).collect();
    file.windows(name.len()).any(|w| w == name.as_slice())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn signatures_decide() {
        assert_eq!(sniff(b"%PDF-1.7\n"), Kind::Pdf);
        assert_eq!(sniff(b"\xEF\xBB\xBF junk %PDF-1.4"), Kind::Pdf);
        assert_eq!(sniff(b"PK\x03\x04rest"), Kind::Zip);
        assert_eq!(sniff(b"\xD0\xCF\x11\xE0\xA1\xB1\x1A\xE1"), Kind::Compound);
        assert_eq!(sniff(b"hello"), Kind::Other);
        assert_eq!(sniff(b""), Kind::Other);
        let name: Vec<u8> = "EncryptedPackage".encode_utf16().flat_map(u16::to_le_bytes).collect();
        assert!(is_encrypted_package(&[b"\0\0".as_slice(), &name].concat()));
        assert!(!is_encrypted_package(b"EncryptedPackage"));
    }
}
