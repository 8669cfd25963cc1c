//! Incremental gzip decoding for the async transport, with the body cap
//! applied to the decompressed bytes (SPEC PROV-COMMON-07).

use super::body::Cap;
use super::error::TransportError;
use bytes::Bytes;
use flate2::write::GzDecoder;
use std::io::Write;

/// Compressed bytes are fed in pieces this large, so one piece inflates to
/// at most about a megabyte (deflate's ratio tops out near 1:1032) before
/// the cap is checked again.
const PIECE: usize = 1024;

/// A push decoder: compressed bytes in, decompressed bytes out.
pub(crate) struct Gunzip {
    decoder: GzDecoder<Vec<u8>>,
}

impl Gunzip {
    pub(crate) fn new() -> Self {
        Gunzip { decoder: GzDecoder::new(Vec::new()) }
    }

    /// Decompress `input`; the output may be empty while the decoder waits
    /// for more.
    pub(crate) fn feed(&mut self, input: &[u8], cap: &mut Cap) -> Result<Bytes, TransportError> {
        let mut out = Vec::new();
        for piece in input.chunks(PIECE) {
            // `flush` hands over what the piece produced; without it the
            // output lags one write behind and a stream would stall.
            self.decoder.write_all(piece).and_then(|()| self.decoder.flush()).map_err(bad_gzip)?;
            let produced = std::mem::take(self.decoder.get_mut());
            cap.take(produced.len())?;
            out.extend_from_slice(&produced);
        }
        Ok(Bytes::from(out))
    }

    /// The body ended: whatever the decoder still holds.
    pub(crate) fn finish(&mut self, cap: &mut Cap) -> Result<Bytes, TransportError> {
        self.decoder.try_finish().map_err(bad_gzip)?;
        let rest = std::mem::take(self.decoder.get_mut());
        cap.take(rest.len())?;
        Ok(Bytes::from(rest))
    }
}

fn bad_gzip(error: std::io::Error) -> TransportError {
    TransportError::protocol(format!("bad gzip body: {error}"))
}
