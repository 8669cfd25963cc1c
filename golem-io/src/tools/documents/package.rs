//! An office file's zip package (OPC), read under the caps: the entry
//! count is checked before any part is read, a part's declared size before
//! it is inflated, and the bytes actually inflated are counted against the
//! call's budget as they come — a zip bomb stops at the cap whatever its
//! headers claim.

use super::error::{Fault, Limit};
use super::limits::Budget;
use std::io::{Read, Seek};

/// A zip package whose parts are read on demand.
pub(crate) struct Package<R> {
    archive: zip::ZipArchive<R>,
}

impl<R: Read + Seek> Package<R> {
    /// Open the package, refusing one with more than `max_entries` entries.
    pub(crate) fn open(reader: R, max_entries: usize) -> Result<Package<R>, Fault> {
        let archive = zip::ZipArchive::new(reader).map_err(zip_fault)?;
        if archive.len() > max_entries {
            return Err(Fault::Limit(Limit::Entries(max_entries)));
        }
        Ok(Package { archive })
    }

    /// The part's entry name as the archive spells it: exact, else the one
    /// equal ignoring ASCII case (OPC part names are case-insensitive).
    fn entry_name(&self, part: &str) -> Option<String> {
        if self.archive.index_for_name(part).is_some() {
            return Some(part.to_string());
        }
        self.archive.file_names().flatten().find(|name| name.eq_ignore_ascii_case(part)).map(|name| name.into_owned())
    }

    /// True when the package has `part`.
    pub(crate) fn has(&self, part: &str) -> bool {
        self.entry_name(part).is_some()
    }

    /// The bytes of `part` (`None` when the package has none), drawn from
    /// `budget`.
    pub(crate) fn read(&mut self, part: &str, budget: &mut Budget) -> Result<Option<Vec<u8>>, Fault> {
        let Some(name) = self.entry_name(part) else {
            return Ok(None);
        };
        let entry = self.archive.by_name(&name).map_err(zip_fault)?;
        if entry.encrypted() {
            return Err(Fault::Encrypted);
        }
        // The declared size first: a bomb that says what it is stops here.
        if entry.size() > budget.left() {
            return Err(budget.exceeded());
        }
        // Then the bytes themselves: one past what is left tells a part
        // that fits from one that lied about its size.
        let mut bytes = Vec::new();
        entry.take(budget.left().saturating_add(1)).read_to_end(&mut bytes).map_err(Fault::malformed)?;
        budget.take(bytes.len() as u64)?;
        Ok(Some(bytes))
    }
}

/// A zip error as a fault.
fn zip_fault(error: zip::result::ZipError) -> Fault {
    match error {
        zip::result::ZipError::InvalidPassword => Fault::Encrypted,
        zip::result::ZipError::DecompressedSizeLimitExceeded { limit, .. } => Fault::Limit(Limit::InflatedBytes(limit)),
        other => Fault::malformed(other),
    }
}
