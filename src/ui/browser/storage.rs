//! localStorage and the ids kept in it. Storage may be disabled
//! (private modes, policies): reads then find nothing and writes are
//! dropped, so the app runs with its defaults.

fn storage() -> Option<web_sys::Storage> {
    web_sys::window()?.local_storage().ok().flatten()
}

pub fn load(key: &str) -> Option<String> {
    storage()?.get_item(key).ok().flatten()
}

pub fn save(key: &str, value: &str) {
    if let Some(s) = storage() {
        // Quota errors leave the previous value; nothing else to do.
        let _ = s.set_item(key, value);
    }
}

/// A random id from the browser's CSPRNG (falls back to Math.random).
pub fn random_id(prefix: &str) -> String {
    let mut bytes = [0u8; 12];
    let filled = web_sys::window()
        .and_then(|w| w.crypto().ok())
        .and_then(|c| c.get_random_values_with_u8_array(&mut bytes).ok())
        .is_some();
    if !filled {
        for b in &mut bytes {
            *b = (js_sys::Math::random() * 256.0) as u8;
        }
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{prefix}{hex}")
}

/// The id this browser keeps for itself across sessions (§2 `device_id`).
pub fn device_id() -> String {
    const KEY: &str = "aria.device_id";
    match load(KEY) {
        Some(id) if !id.is_empty() => id,
        _ => {
            let id = random_id("d_");
            save(KEY, &id);
            id
        }
    }
}
