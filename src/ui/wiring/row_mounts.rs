//! The context through which each mounted row hands its element to the
//! timeline, which measures it (its ResizeObserver also sees it grow) and
//! anchors the scroll position to it. A leaf: the rows import it, the
//! timeline provides it, and neither side imports the other.

use std::rc::Rc;

use leptos::prelude::*;

use crate::store::RowKey;

/// What the timeline does when a row mounts or unmounts.
pub trait MountSink {
    fn mounted(&self, key: &RowKey, el: web_sys::Element);
    fn unmounted(&self, key: &RowKey);
}

#[derive(Clone, Copy)]
pub struct RowMounts(StoredValue<Rc<dyn MountSink>, LocalStorage>);

impl RowMounts {
    pub fn new(sink: impl MountSink + 'static) -> Self {
        Self(StoredValue::new_local(Rc::new(sink)))
    }

    pub fn mounted(&self, key: &RowKey, el: web_sys::Element) {
        self.0.try_with_value(|s| s.mounted(key, el));
    }

    pub fn unmounted(&self, key: &RowKey) {
        self.0.try_with_value(|s| s.unmounted(key));
    }
}
