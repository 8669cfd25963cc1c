//! Shared by the examples' tests: the server side of one HTTP/1.1 request,
//! for the loopback stand-ins of real providers.

use std::io::Read;
use std::net::TcpStream;

/// Reads one request from `socket`: its head, through the blank line, and
/// a body of the head's `content-length` (none without one).
pub fn read_request(socket: &mut TcpStream) -> (String, Vec<u8>) {
    let mut seen = Vec::new();
    let mut buf = [0u8; 4096];
    let head_end = loop {
        let n = socket.read(&mut buf).unwrap();
        assert!(n > 0, "the client closed before sending a request");
        seen.extend_from_slice(&buf[..n]);
        if let Some(at) = seen.windows(4).position(|w| w == b"\r\n\r\n") {
            break at + 4;
        }
    };
    let head = String::from_utf8_lossy(&seen[..head_end]).to_string();
    let length: usize = head
        .lines()
        .find_map(|l| l.to_ascii_lowercase().strip_prefix("content-length:").map(|v| v.trim().parse().unwrap()))
        .unwrap_or(0);
    while seen.len() < head_end + length {
        let n = socket.read(&mut buf).unwrap();
        assert!(n > 0, "the client closed mid-body");
        seen.extend_from_slice(&buf[..n]);
    }
    (head, seen.split_off(head_end))
}
