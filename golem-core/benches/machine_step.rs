//! Machine step benchmarks (filled in by the bench work).
fn main() {}
