//! Deterministic fakes for tests (SPEC TEST).
