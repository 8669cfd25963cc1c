//! A calibration for the code-footprint measure (`footprint.py`): what one
//! more 64-byte line of code walked per run costs over the loopback on the
//! machine at hand (BENCHMARKS, twelfth part).
//!
//! `GOLEM_BENCH_BARE_EXTRA=walk:N` makes the bare loop call N distinct
//! small functions after each plain answer it parses (the same N at both
//! answers of a run in the 256-in-flight scenarios); each is 56 bytes of
//! code on a 64-byte stride, so it straddles one or two lines, and
//! `walk:425` adds 740 lines to what every run walks (`footprint.py`).
//! `hot:N` calls one of them N times instead: the same instructions in
//! one line. The difference between the two prices the lines alone, and
//! turns a footprint count into the runs/s it is worth.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

/// One distinct function per `K`: the constants differ, so no two
/// instances fold together, and each is a short straight line of code.
#[inline(never)]
fn step<const K: u64>(x: u64) -> u64 {
    let x = x.wrapping_mul(K.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1).rotate_left((K % 61 + 1) as u32);
    let x = (x ^ K.wrapping_mul(0xD1B5_4A32_D192_ED03)).wrapping_mul(K.wrapping_add(0x94D0_49BB_1331_11EB) | 1);
    x.wrapping_add(x >> (K % 29 + 3))
}

macro_rules! ten {
    ($h:literal, $t:literal) => {
        [
            step::<{ $h * 100 + $t * 10 }>,
            step::<{ $h * 100 + $t * 10 + 1 }>,
            step::<{ $h * 100 + $t * 10 + 2 }>,
            step::<{ $h * 100 + $t * 10 + 3 }>,
            step::<{ $h * 100 + $t * 10 + 4 }>,
            step::<{ $h * 100 + $t * 10 + 5 }>,
            step::<{ $h * 100 + $t * 10 + 6 }>,
            step::<{ $h * 100 + $t * 10 + 7 }>,
            step::<{ $h * 100 + $t * 10 + 8 }>,
            step::<{ $h * 100 + $t * 10 + 9 }>,
        ]
    };
}

macro_rules! hundred {
    ($h:literal) => {
        [
            ten!($h, 0),
            ten!($h, 1),
            ten!($h, 2),
            ten!($h, 3),
            ten!($h, 4),
            ten!($h, 5),
            ten!($h, 6),
            ten!($h, 7),
            ten!($h, 8),
            ten!($h, 9),
        ]
    };
}

type Step = fn(u64) -> u64;

/// 2,000 distinct functions, 125 KiB of code.
static STEPS: [[[Step; 10]; 10]; 20] = [
    hundred!(0),
    hundred!(1),
    hundred!(2),
    hundred!(3),
    hundred!(4),
    hundred!(5),
    hundred!(6),
    hundred!(7),
    hundred!(8),
    hundred!(9),
    hundred!(10),
    hundred!(11),
    hundred!(12),
    hundred!(13),
    hundred!(14),
    hundred!(15),
    hundred!(16),
    hundred!(17),
    hundred!(18),
    hundred!(19),
];

/// Calls per answer, 0 when unset; and whether they go to distinct
/// functions (`walk`) or all to the first (`hot`).
static CALLS: AtomicUsize = AtomicUsize::new(0);
static DISTINCT: AtomicBool = AtomicBool::new(false);

/// Read `GOLEM_BENCH_BARE_EXTRA`, before anything is measured.
pub fn configure() {
    let value = std::env::var("GOLEM_BENCH_BARE_EXTRA").unwrap_or_default();
    if value.is_empty() {
        return;
    }
    let usage = "GOLEM_BENCH_BARE_EXTRA=walk:N or hot:N";
    let (mode, calls) = value.split_once(':').expect(usage);
    assert!(matches!(mode, "walk" | "hot"), "{usage}, not {value:?}");
    CALLS.store(calls.parse().expect(usage), Ordering::Relaxed);
    DISTINCT.store(mode == "walk", Ordering::Relaxed);
}

/// Walk the extra code the setting asks for. Unset, this is one load and
/// a branch the bare loop's own line already holds, so the baseline pays
/// nothing for the instrument.
#[inline(always)]
pub fn walk() {
    let calls = CALLS.load(Ordering::Relaxed);
    if calls != 0 {
        walk_calls(calls);
    }
}

#[cold]
#[inline(never)]
fn walk_calls(calls: usize) {
    let distinct = DISTINCT.load(Ordering::Relaxed);
    let flat = STEPS.as_flattened().as_flattened();
    let mut x = std::hint::black_box(1u64);
    for i in 0..calls {
        x = flat[if distinct { i % flat.len() } else { 0 }](x);
    }
    std::hint::black_box(x);
}
