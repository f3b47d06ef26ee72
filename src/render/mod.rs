//! Pure text → HTML and text → text helpers.
