//! Input methods (IME) in a text field: the Enter that confirms a Chinese,
//! Japanese or Korean composition must never send. Chromium and Firefox
//! flag its keydown `isComposing`; Safari gives only `keyCode` 229 and, on
//! some versions, sends the keydown after `compositionend`. The field's
//! own composition events are tracked too, and a blur ends the state (a
//! composition abandoned by leaving the field never ends with an event).

use leptos::prelude::*;
use web_sys::KeyboardEvent;

use crate::shortcuts::ime_owns;

/// One text field's composition state. Bind [`ImeGuard::start`],
/// [`ImeGuard::end`] and [`ImeGuard::blur`] to its `compositionstart`,
/// `compositionend` and `blur`.
#[derive(Clone, Copy)]
pub struct ImeGuard(StoredValue<bool>);

impl ImeGuard {
    pub fn new() -> Self {
        Self(StoredValue::new(false))
    }

    pub fn start(self) {
        self.0.set_value(true);
    }

    pub fn end(self) {
        self.0.set_value(false);
    }

    pub fn blur(self) {
        self.0.set_value(false);
    }

    /// Whether this key press belongs to the input method.
    pub fn owns(self, ev: &KeyboardEvent) -> bool {
        self.0.get_value() || ime_owns(ev.is_composing(), ev.key_code())
    }
}
