//! Shared by the examples' tests: the server side of one HTTP/1.1 request,
//! for the loopback stand-ins of real providers.
// Each test file uses part of this module.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::thread::JoinHandle;

/// A server on 127.0.0.1 answering one request with `body` as
/// `content_type`; its URL, and a handle yielding the request's head (as
/// text) and body.
pub fn stand_in(content_type: &'static str, body: Vec<u8>) -> (String, JoinHandle<(String, Vec<u8>)>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let (mut socket, _) = listener.accept().unwrap();
        let request = read_request(&mut socket);
        let reply = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
            body.len()
        );
        socket.write_all(reply.as_bytes()).unwrap();
        socket.write_all(&body).unwrap();
        request
    });
    (url, server)
}

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

/// One request as a stand-in saw it: its head (as text) and body.
pub type Seen = (String, Vec<u8>);

/// A server on 127.0.0.1 answering successive requests, one connection
/// each (the replies close it), with `bodies` in order as `content_type`;
/// its URL, and a handle yielding every request's head and body.
pub fn stand_in_sequence(content_type: &'static str, bodies: Vec<Vec<u8>>) -> (String, JoinHandle<Vec<Seen>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    let server = std::thread::spawn(move || {
        let mut seen = Vec::new();
        for body in bodies {
            let (mut socket, _) = listener.accept().unwrap();
            seen.push(read_request(&mut socket));
            let reply = format!(
                "HTTP/1.1 200 OK\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(reply.as_bytes()).unwrap();
            socket.write_all(&body).unwrap();
        }
        seen
    });
    (url, server)
}
