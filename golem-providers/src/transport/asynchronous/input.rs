//! The bytes read from a connection and not yet consumed by the response
//! parser, in a buffer that reads land in without zero-filling it first.

use super::super::classify_io;
use super::super::config::TransportConfig;
use super::super::error::{TimeoutPhase, TransportError};
use super::conn::Conn;
use super::target::READ_CHUNK;
use super::timeout::{with_timeout, Deadline};
use futures_lite::AsyncReadExt;

/// The first read's room: most answers' head and body (or a stream's
/// first events) fit, and a bigger answer grows the room as it comes.
const FIRST_READ: usize = 4 * 1024;

/// Unconsumed socket bytes, `buf[..len]`. The rest of `buf` is initialized
/// already (zeros, or bytes consumed before), so a read writes into it as
/// is: growing a `Vec` by a zeroed chunk per read wrote 16 KiB of memory
/// per response, most of it never read, and evicted what the run needed
/// from the cache (issue 37). The room starts at [`FIRST_READ`] and
/// doubles while reads fill it, by at most [`READ_CHUNK`] at a time.
#[derive(Default)]
pub(crate) struct Input {
    buf: Vec<u8>,
    len: usize,
}

impl Input {
    /// The bytes not yet consumed.
    pub(crate) fn bytes(&self) -> &[u8] {
        &self.buf[..self.len]
    }

    /// Whether every byte read was consumed.
    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// How many bytes wait to be consumed.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Drop the first `used` bytes (all of them, if `used` is more).
    pub(crate) fn consume(&mut self, used: usize) {
        let used = used.min(self.len);
        self.buf.copy_within(used..self.len, 0);
        self.len -= used;
    }

    /// Read what the socket has (waiting at most the read timeout, and not
    /// past the request's deadline) after the unconsumed bytes; 0 means the
    /// server closed the connection.
    pub(crate) async fn read_more(
        &mut self,
        conn: &mut Conn,
        config: &TransportConfig,
        host: &str,
        deadline: Option<Deadline>,
    ) -> Result<usize, TransportError> {
        self.make_room();
        let room = &mut self.buf[self.len..];
        let read = with_timeout(config.read_timeout, TimeoutPhase::Read, deadline, async {
            conn.read(room).await.map_err(|e| classify_io(e, host, config))
        })
        .await?;
        self.len += read;
        Ok(read)
    }

    /// Make the free room at least half the buffer (so a full read doubles
    /// it next time), never less than [`FIRST_READ`], growing by at most
    /// [`READ_CHUNK`].
    fn make_room(&mut self) {
        let room = self.buf.len() - self.len;
        if room >= FIRST_READ && room * 2 >= self.buf.len().min(2 * READ_CHUNK) {
            return;
        }
        let grown = (self.buf.len() * 2).clamp(FIRST_READ, self.len + READ_CHUNK).max(self.len + FIRST_READ);
        self.buf.resize(grown, 0);
    }
}

#[cfg(test)]
mod tests {
    use super::{Input, FIRST_READ, READ_CHUNK};

    /// Simulate a read of `n` bytes of `fill` into the room.
    fn read(input: &mut Input, n: usize, fill: u8) -> usize {
        input.make_room();
        let n = n.min(input.buf.len() - input.len);
        input.buf[input.len..input.len + n].fill(fill);
        input.len += n;
        n
    }

    #[test]
    fn the_room_starts_small_doubles_while_reads_fill_it_and_is_reused() {
        let mut input = Input::default();
        assert_eq!(read(&mut input, usize::MAX, 1), FIRST_READ);
        // A full read: the next room is as big as what is held.
        assert_eq!(read(&mut input, usize::MAX, 2), FIRST_READ);
        assert_eq!(read(&mut input, usize::MAX, 3), 2 * FIRST_READ);
        assert_eq!(input.len(), 4 * FIRST_READ);
        // Never more than a chunk of new room at once, however much is held.
        for _ in 0..8 {
            assert!(read(&mut input, usize::MAX, 4) <= READ_CHUNK);
        }
        // Consumed bytes leave room behind without a new allocation.
        let capacity = input.buf.len();
        input.consume(input.len() - 3);
        assert_eq!(input.bytes(), [4, 4, 4]);
        read(&mut input, 10, 5);
        assert_eq!(input.bytes(), [4, 4, 4, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5]);
        assert_eq!(input.buf.len(), capacity);
    }

    #[test]
    fn consuming_keeps_the_order_and_more_than_held_empties_it() {
        let mut input = Input::default();
        read(&mut input, 3, 7);
        read(&mut input, 2, 8);
        input.consume(2);
        assert_eq!(input.bytes(), [7, 8, 8]);
        input.consume(100);
        assert!(input.is_empty());
        assert_eq!(input.bytes(), [] as [u8; 0]);
    }
}
