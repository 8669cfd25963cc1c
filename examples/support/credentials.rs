//! Shared by the examples that need a real model: say which variables are
//! missing, so CI (which has no credentials) runs them and exits 0.

/// The value of `name`, if set and not blank.
pub fn var(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
}

/// True when every variable in `names` is set. Otherwise prints what this
/// example needs and returns false; the caller then exits successfully.
pub fn present(example: &str, names: &[&str]) -> bool {
    let missing: Vec<&str> = names.iter().copied().filter(|name| var(name).is_none()).collect();
    if missing.is_empty() {
        return true;
    }
    println!("The {example} example talks to a real model and needs these environment variables:");
    for name in names {
        let state = if missing.contains(name) { "missing" } else { "set" };
        println!("  {name} ({state})");
    }
    println!("Set them and run it again; nothing was sent.");
    false
}
