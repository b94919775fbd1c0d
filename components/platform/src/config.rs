//! Operator configuration: Spin variables, read when needed.

/// A Spin variable's value; `None` when unset, empty or not declared for this component.
pub fn var(name: &str) -> Option<String> {
    spin_sdk::variables::get(name).ok().filter(|value| !value.trim().is_empty())
}

pub fn var_or(name: &str, default: &str) -> String {
    var(name).unwrap_or_else(|| default.to_string())
}

pub fn var_u64(name: &str, default: u64) -> u64 {
    var(name).and_then(|v| v.trim().parse().ok()).unwrap_or(default)
}

pub fn var_bool(name: &str) -> bool {
    var(name).is_some_and(|v| matches!(v.trim().to_ascii_lowercase().as_str(), "true" | "1" | "yes"))
}
