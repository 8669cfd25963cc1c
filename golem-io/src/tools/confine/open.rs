//! Opening a checked file so that nothing swapped in after the check is
//! read (SPEC FILE-03): no symlink followed, no blocking on a FIFO, and
//! the handle's identity compared with the checked path's.

use std::fs::{File, Metadata};
use std::io;
use std::path::Path;

/// The root as a directory handle, for `openat2` (`None` when it cannot be
/// opened; reads then fall back to a plain open).
#[cfg(target_os = "linux")]
pub(super) fn open_root(root: &Path) -> Option<std::os::fd::OwnedFd> {
    use rustix::fs::{Mode, OFlags};
    rustix::fs::open(root, OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty()).ok()
}

/// Open `canonical` (inside `root`) for reading. On Linux, `openat2` from
/// the root refuses any symlink and any step outside it; where the kernel
/// lacks it (or a sandbox forbids it), a plain open without following a
/// final symlink, the identity check doing the rest.
#[cfg(target_os = "linux")]
pub(super) fn open_confined(root_fd: Option<&std::os::fd::OwnedFd>, root: &Path, canonical: &Path) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags, ResolveFlags};
    if let (Some(root_fd), Ok(relative)) = (root_fd, canonical.strip_prefix(root)) {
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY | OFlags::CLOEXEC;
        let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
        match rustix::fs::openat2(root_fd, relative, flags, Mode::empty(), resolve) {
            Ok(fd) => return Ok(File::from(fd)),
            Err(e) if e == rustix::io::Errno::NOSYS || e == rustix::io::Errno::PERM => {}
            Err(e) => return Err(e.into()),
        }
    }
    plain_open(canonical)
}

/// Open `canonical` for reading without following a final symlink.
#[cfg(not(target_os = "linux"))]
pub(super) fn open_confined(canonical: &Path) -> io::Result<File> {
    plain_open(canonical)
}

#[cfg(unix)]
fn plain_open(path: &Path) -> io::Result<File> {
    use rustix::fs::OFlags;
    use std::os::unix::fs::OpenOptionsExt;
    // O_NONBLOCK: a FIFO swapped in after the check must not block the open.
    let flags = OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::NOCTTY;
    std::fs::OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path)
}

#[cfg(not(unix))]
fn plain_open(path: &Path) -> io::Result<File> {
    File::open(path)
}

/// True when the open failed because a symlink appeared where the check
/// saw none.
pub(super) fn is_symlink_refusal(error: &io::Error) -> bool {
    #[cfg(unix)]
    {
        let code = error.raw_os_error();
        code == Some(rustix::io::Errno::LOOP.raw_os_error()) || code == Some(rustix::io::Errno::XDEV.raw_os_error())
    }
    #[cfg(not(unix))]
    {
        let _ = error;
        false
    }
}

/// True when two metadata describe the same file (device and inode).
pub(super) fn same_file(a: &Metadata, b: &Metadata) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        a.dev() == b.dev() && a.ino() == b.ino()
    }
    #[cfg(not(unix))]
    {
        a.len() == b.len() && a.modified().ok() == b.modified().ok()
    }
}
