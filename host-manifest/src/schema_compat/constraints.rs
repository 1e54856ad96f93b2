//! `pattern`, `format` and `multipleOf`: constraints whose values have no order this module can
//! reason about (one pattern is not known to be stricter than another).

use super::{Effect, Node};

impl Node<'_> {
    /// `pattern`, `format`, `multipleOf`: adding one narrows, removing it widens, and changing it
    /// may do both.
    pub(super) fn compare_constraints(&mut self) {
        for key in ["pattern", "format", "multipleOf"] {
            match (self.old.get(key), self.new.get(key)) {
                (x, y) if x == y => {}
                (None, Some(y)) => {
                    self.push(key, Effect::Narrows, format!("`{key}` {y} is now required"))
                }
                (Some(x), None) => self.push(
                    key,
                    Effect::Widens,
                    format!("`{key}` {x} is no longer required"),
                ),
                (Some(x), Some(y)) => self.push(
                    key,
                    Effect::Both,
                    format!("`{key}` changes from {x} to {y}"),
                ),
                (None, None) => {}
            }
        }
    }
}
