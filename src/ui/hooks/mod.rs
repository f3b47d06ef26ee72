//! Behaviours the app installs once or a component uses, each releasing
//! what it holds (listeners, timers) when its owner goes.

pub(crate) mod attention;
pub(crate) mod clock;
pub(crate) mod file_drop;
pub(crate) mod ime;
pub(crate) mod long_press;
pub(crate) mod shortcuts;
pub(crate) mod shown_file;
pub(crate) mod visual_viewport;
