//! Whether this load is a new build of the app: the build names itself by
//! its hashed wasm file, and the name seen last time is kept in
//! localStorage. The service worker (js/sw.js) switches builds between
//! loads, so a changed name at start means "updated".

/// The localStorage key of the build seen on the previous load.
pub const SEEN_BUILD_KEY: &str = "aria.build";

/// What the app says when it starts as a build newer than the last one.
pub const UPDATED: &str = "Updated to a new version";

/// A first visit (nothing seen) is not an update; the same build is not.
pub fn is_update(previous: Option<&str>, current: &str) -> bool {
    previous.is_some_and(|p| !p.is_empty() && p != current)
}

#[cfg(test)]
mod tests {
    use super::is_update;

    #[test]
    fn only_a_different_earlier_build_is_an_update() {
        let a = "aria-web-0123456789abcdef_bg.wasm";
        let b = "aria-web-fedcba9876543210_bg.wasm";
        assert!(is_update(Some(a), b));
        assert!(!is_update(Some(b), b));
        assert!(!is_update(None, b));
        assert!(!is_update(Some(""), b));
    }
}
