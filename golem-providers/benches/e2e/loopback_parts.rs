//! Parts of what the loopback costs, added one at a time to the in-memory
//! transport's answers, to find which of them makes golem's runs cost more
//! than the hand-written loop's over sockets when in memory they cost the
//! same. Each is off unless its variable is set; each costs every
//! contender the same, so only a difference between contenders means
//! something:
//!
//! - `GOLEM_BENCH_EVICT=<KiB>` writes that much memory first, pushing the
//!   client's code and data out of the CPU's caches as the kernel and the
//!   server thread do between a request and its answer;
//! - `GOLEM_BENCH_ROUND_TRIP=1` hands off to a helper thread and waits for
//!   its answer: a blocking wait and a wake-up through the kernel, without
//!   TCP;
//! - `GOLEM_BENCH_TCP_ECHO=1` passes the request and the answer through a
//!   loopback TCP connection whose both ends the client's thread holds:
//!   the kernel's TCP path on the client's CPU, without waiting;
//! - `GOLEM_BENCH_INTERLEAVE=1` has each async answer wait once (a yield)
//!   before it arrives, so the runs in flight take turns between request
//!   and answer as they do over sockets — each run's state goes cold while
//!   the others run — without the kernel.

use std::cell::RefCell;
use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Mutex, OnceLock};

/// Adds the parts the environment asks for, around one exchange of
/// `request` and `answer`.
pub fn add(request: &[u8], answer: &[u8]) {
    evict();
    round_trip();
    tcp_echo(request, answer);
}

/// `GOLEM_BENCH_INTERLEAVE=1`: async answers yield once before arriving.
pub fn interleave() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| enabled("GOLEM_BENCH_INTERLEAVE"))
}

fn enabled(variable: &str) -> bool {
    std::env::var(variable).is_ok_and(|v| v == "1")
}

/// Bytes `GOLEM_BENCH_EVICT` asks to write before each answer (0: none).
fn evict_bytes() -> usize {
    static BYTES: OnceLock<usize> = OnceLock::new();
    *BYTES.get_or_init(|| {
        std::env::var("GOLEM_BENCH_EVICT").ok().and_then(|k| k.parse::<usize>().ok()).unwrap_or(0) * 1024
    })
}

/// Touches every cache line of a per-thread buffer of `evict_bytes()`.
fn evict() {
    let bytes = evict_bytes();
    if bytes == 0 {
        return;
    }
    thread_local! {
        static BUFFER: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    }
    BUFFER.with_borrow_mut(|buffer| {
        buffer.resize(bytes, 0);
        for line in buffer.chunks_mut(64) {
            line[0] = line[0].wrapping_add(1);
        }
        std::hint::black_box(&buffer);
    });
}

/// Wakes the helper thread and waits until it answers.
fn round_trip() {
    type Helper = Mutex<(Sender<()>, Receiver<()>)>;
    static HELPER: OnceLock<Option<Helper>> = OnceLock::new();
    let helper = HELPER.get_or_init(|| {
        enabled("GOLEM_BENCH_ROUND_TRIP").then(|| {
            let (ask, asked) = channel::<()>();
            let (answer, answered) = channel::<()>();
            std::thread::spawn(move || {
                while asked.recv().is_ok() {
                    if answer.send(()).is_err() {
                        return;
                    }
                }
            });
            Mutex::new((ask, answered))
        })
    });
    if let Some(helper) = helper {
        let helper = helper.lock().expect("the helper's lock");
        helper.0.send(()).expect("the helper is alive");
        helper.1.recv().expect("the helper answers");
    }
}

/// Sends `request` one way and `answer` back over this thread's own
/// loopback connection.
fn tcp_echo(request: &[u8], answer: &[u8]) {
    thread_local! {
        static PAIR: Option<RefCell<(TcpStream, TcpStream, Vec<u8>)>> =
            enabled("GOLEM_BENCH_TCP_ECHO").then(|| {
                let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
                let near = TcpStream::connect(listener.local_addr().expect("its address")).expect("connect");
                let (far, _) = listener.accept().expect("accept");
                near.set_nodelay(true).expect("nodelay");
                far.set_nodelay(true).expect("nodelay");
                RefCell::new((near, far, Vec::new()))
            });
    }
    PAIR.with(|pair| {
        let Some(pair) = pair else { return };
        let (near, far, scratch) = &mut *pair.borrow_mut();
        for (mut from, mut to, bytes) in [(&*near, &*far, request), (&*far, &*near, answer)] {
            from.write_all(bytes).expect("write");
            scratch.resize(bytes.len(), 0);
            to.read_exact(scratch).expect("read");
        }
    });
}
