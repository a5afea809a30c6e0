//! The one helper every invariant check shares: a condition, or what broke.

/// Ok when `holds`, else `what`.
pub(super) fn ensure(holds: bool, what: impl FnOnce() -> String) -> Result<(), String> {
    if holds {
        Ok(())
    } else {
        Err(what())
    }
}
