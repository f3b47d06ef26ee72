//! Small display formats: durations, token counts, CSS pixel lengths, tool
//! arguments, previews. No `f64` is ever formatted by `core::fmt` here (see `compact`).

use serde_json::Value;

use crate::protocol::Choice;

/// A duration for humans: `0.4 s`, `12 s`, `1 m 05 s`, `1 h 02 m`;
/// negative, NaN or infinite → `—`.
pub fn duration(secs: f64) -> String {
    if !secs.is_finite() || secs < 0.0 {
        return "—".into();
    }
    if secs < 9.95 {
        let tenths = (secs * 10.0).round() as u64;
        return format!("{}.{} s", tenths / 10, tenths % 10);
    }
    // Saturating cast; rounding first so 59.6 s reads "1 m 00 s".
    let total = secs.round() as u64;
    match total {
        0..60 => format!("{total} s"),
        60..3600 => format!("{} m {:02} s", total / 60, total % 60),
        _ => format!("{} h {:02} m", total / 3600, total % 3600 / 60),
    }
}

/// A token count: `1 token`, `42 tokens`, `1.2k tokens`, `3.4M tokens`.
pub fn tokens(n: u64) -> String {
    match n {
        1 => "1 token".into(),
        0..1000 => format!("{n} tokens"),
        _ => format!("{} tokens", compact(n)),
    }
}

/// `1.2k`, `12k`, `340k`, `3.4M`, `1.1B`, `2T` (n ≥ 1000). Integer
/// arithmetic on rounded tenths: `{:.1}` would pull float-to-decimal
/// formatting into the wasm (bench/history/2026-11-30-to-12-03.md, "Size (2026-12-01, evening)").
fn compact(n: u64) -> String {
    const UNITS: [(f64, &str); 4] = [(1e3, "k"), (1e6, "M"), (1e9, "B"), (1e12, "T")];
    let mut out = String::new();
    for (i, (unit, suffix)) in UNITS.iter().enumerate() {
        let v = n as f64 / unit;
        let tenths = (v * 10.0).round() as u64;
        if tenths < 1000 {
            out = match tenths % 10 {
                0 => format!("{}{suffix}", tenths / 10),
                d => format!("{}.{d}{suffix}", tenths / 10),
            };
            break;
        }
        let whole = v.round() as u64;
        if whole < 1000 || i == UNITS.len() - 1 {
            out = format!("{whole}{suffix}");
            break;
        }
    }
    out
}

/// A CSS length in pixels to a hundredth, `12.35px` (non-finite → `0.00px`),
/// written with integer arithmetic for the reason given at `compact`.
pub fn px(v: f64) -> String {
    let v = if v.is_finite() { v } else { 0.0 };
    // Saturating cast: a length past u64::MAX hundredths is not a real one.
    let hundredths = (v.abs() * 100.0).round() as u64;
    let sign = if v < 0.0 && hundredths > 0 { "-" } else { "" };
    format!("{sign}{}.{:02}px", hundredths / 100, hundredths % 100)
}

/// Pretty-printed JSON of a tool's arguments, cut at a char boundary to at
/// most `max_bytes` plus a `… (N more bytes)` note.
pub fn args_pretty(args: &Value, max_bytes: usize) -> String {
    let full = serde_json::to_string_pretty(args).unwrap_or_else(|_| args.to_string());
    if full.len() <= max_bytes {
        return full;
    }
    let cut = full.floor_char_boundary(max_bytes);
    format!("{}\n… ({} more bytes)", &full[..cut], full.len() - cut)
}

/// Whitespace collapsed to single spaces, cut to `max_chars` with `…`.
pub fn short_preview(s: &str, max_chars: usize) -> String {
    let mut words = s.split_whitespace();
    let mut out = String::new();
    if let Some(first) = words.next() {
        out.push_str(first);
        for w in words {
            out.push(' ');
            out.push_str(w);
        }
    }
    let len = out.chars().count();
    if len <= max_chars {
        return out;
    }
    let mut cut: String = out.chars().take(max_chars.saturating_sub(1)).collect();
    if max_chars > 0 {
        cut.push('…');
    }
    cut
}

/// How a request for approval ended, for people.
pub fn choice_label(choice: Choice) -> &'static str {
    match choice {
        Choice::Once => "Allowed once",
        Choice::Session => "Allowed for this thread",
        Choice::Always => "Always allowed",
        Choice::Deny => "Denied",
        Choice::Timeout => "Timed out",
        Choice::Cancelled => "Cancelled",
        Choice::Other => "Answered",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn durations() {
        for (secs, want) in [
            (0.0, "0.0 s"),
            (-0.0, "0.0 s"),
            (0.4, "0.4 s"),
            (0.04, "0.0 s"),
            (9.9, "9.9 s"),
            (9.96, "10 s"),
            (12.0, "12 s"),
            (12.4, "12 s"),
            (59.4, "59 s"),
            (59.6, "1 m 00 s"),
            (65.0, "1 m 05 s"),
            (3599.4, "59 m 59 s"),
            (3599.6, "1 h 00 m"),
            (3720.0, "1 h 02 m"),
            (90000.0, "25 h 00 m"),
            (-1.0, "—"),
            (f64::NAN, "—"),
            (f64::INFINITY, "—"),
            (f64::NEG_INFINITY, "—"),
        ] {
            assert_eq!(duration(secs), want, "{secs}");
        }
        assert!(duration(f64::MAX).ends_with(" m"));
    }

    #[test]
    fn token_counts() {
        for (n, want) in [
            (0, "0 tokens"),
            (1, "1 token"),
            (42, "42 tokens"),
            (999, "999 tokens"),
            (1000, "1k tokens"),
            (1234, "1.2k tokens"),
            (12_345, "12.3k tokens"),
            (99_960, "100k tokens"),
            (123_456, "123k tokens"),
            (999_499, "999k tokens"),
            (999_500, "1M tokens"),
            (3_400_000, "3.4M tokens"),
            (2_500_000_000, "2.5B tokens"),
            (u64::MAX, "18446744T tokens"),
        ] {
            assert_eq!(tokens(n), want, "{n}");
        }
    }

    #[test]
    fn pixel_lengths() {
        for (v, want) in [
            (0.0, "0.00px"),
            (-0.0, "0.00px"),
            (12.0, "12.00px"),
            (12.345_6, "12.35px"),
            (0.004, "0.00px"),
            (-0.004, "0.00px"),
            (-3.5, "-3.50px"),
            (1_234_567.891, "1234567.89px"),
            (f64::NAN, "0.00px"),
            (f64::INFINITY, "0.00px"),
        ] {
            assert_eq!(px(v), want, "{v}");
        }
    }

    #[test]
    fn args_pretty_truncates_at_char_boundary() {
        let args = json!({"command": "ls -la"});
        assert_eq!(args_pretty(&args, 1000), "{\n  \"command\": \"ls -la\"\n}");
        let args = json!({"text": "é".repeat(100)});
        let full = serde_json::to_string_pretty(&args).unwrap_or_default();
        for max in 0..40 {
            let s = args_pretty(&args, max);
            let (head, note) = s.rsplit_once("\n… (").unwrap_or_default();
            assert!(head.len() <= max);
            assert!(full.starts_with(head));
            assert_eq!(note, format!("{} more bytes)", full.len() - head.len()));
        }
        assert_eq!(args_pretty(&Value::Null, 10), "null");
    }

    #[test]
    fn short_previews() {
        assert_eq!(short_preview("  a\n b\t c ", 10), "a b c");
        assert_eq!(short_preview("abcdef", 4), "abc…");
        assert_eq!(short_preview("日本語テキスト", 3), "日本…");
        assert_eq!(short_preview("abc", 0), "");
        assert_eq!(short_preview("", 5), "");
    }

    #[cfg(not(target_arch = "wasm32"))]
    mod props {
        use super::super::*;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn formats_never_panic(secs in any::<f64>(), n in any::<u64>(), s in any::<String>(), max in 0usize..64) {
                let _ = duration(secs);
                prop_assert!(tokens(n).ends_with("tokens") || n == 1);
                prop_assert!(short_preview(&s, max).chars().count() <= max);
                let v = Value::String(s);
                let _ = args_pretty(&v, max);
            }
        }
    }
}
