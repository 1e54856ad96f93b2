//! Bounds: `minimum`, `maximum` and their exclusive forms, and the least and most characters,
//! items and properties. A bound has a direction, so every change to one narrows or widens.

use serde_json::Value;

use super::{Effect, Node};

/// Which end of the accepted range a bound keyword closes.
#[derive(Clone, Copy)]
enum End {
    /// `minimum`, `minLength`, ...: a larger bound accepts less.
    Lower,
    /// `maximum`, `maxLength`, ...: a smaller bound accepts less.
    Upper,
}

impl End {
    /// Whether moving the bound from `from` to `to` accepts less.
    fn tightens(self, from: f64, to: f64) -> bool {
        match self {
            End::Lower => to > from,
            End::Upper => to < from,
        }
    }
}

impl Node<'_> {
    /// Every bound keyword, lower bounds first: adding a bound narrows, removing it widens, and
    /// moving it narrows or widens by its direction.
    pub(super) fn compare_bounds(&mut self) {
        for key in [
            "minimum",
            "exclusiveMinimum",
            "minLength",
            "minItems",
            "minProperties",
        ] {
            self.compare_bound(key, End::Lower);
        }
        for key in [
            "maximum",
            "exclusiveMaximum",
            "maxLength",
            "maxItems",
            "maxProperties",
        ] {
            self.compare_bound(key, End::Upper);
        }
    }

    /// One bound keyword `key`, which closes the range at `end`. A bound that is not a number in
    /// a version counts as absent from it.
    fn compare_bound(&mut self, key: &str, end: End) {
        let (x, y) = (
            self.old.get(key).and_then(Value::as_f64),
            self.new.get(key).and_then(Value::as_f64),
        );
        match (x, y) {
            (None, Some(to)) => self.push(
                key,
                Effect::Narrows,
                format!("`{key}` {} is added", num(to)),
            ),
            (Some(from), None) => self.push(
                key,
                Effect::Widens,
                format!("`{key}` {} is removed", num(from)),
            ),
            (Some(from), Some(to)) if from != to => self.push(
                key,
                if end.tightens(from, to) {
                    Effect::Narrows
                } else {
                    Effect::Widens
                },
                format!("`{key}` goes from {} to {}", num(from), num(to)),
            ),
            _ => {}
        }
    }
}

/// A bound for a sentence: whole numbers without a fraction (`3`, not `3.0`).
fn num(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{}", n as i64)
    } else {
        n.to_string()
    }
}
