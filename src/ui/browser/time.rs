//! The wall clock and the local time zone.

pub fn now_ms() -> f64 {
    js_sys::Date::now()
}

/// The local time zone's offset east of UTC, in minutes.
pub fn utc_offset_minutes() -> i32 {
    -(js_sys::Date::new_0().get_timezone_offset() as i32)
}
