//! Markdown for aria-web: untrusted text to HTML that is safe for
//! `innerHTML`, rendered incrementally while an answer streams, and to plain
//! text for screen readers. Pure (no DOM), tested on the host.
//!
//! Math (`$…$`, `$$…$$`, `\(…\)`, `\[…\]`) becomes sanitized MathML; a
//! single `$` obeys a currency and shell rule so that prices and `$HOME`
//! stay text (`math::delimiters`, and README.md, "Math in answers").
//!
//! The client links none of the parser into its first load: this crate is
//! compiled a second time as its own wasm module (`markdown/module`), which
//! the app fetches after it has started (docs/build.md, "At run time"). Only the parser-free helpers ([`escape_into`],
//! [`completed_prefix_len`], [`unchanged_prefix_len`], [`RenderDelta`]) are
//! called from the app itself.

/// The markdown dialect every parse uses.
mod dialect;
/// HTML escaping of text, and reading it back.
mod escape;
/// Streaming markdown: completed blocks are kept, only the tail re-renders.
mod incremental;
/// Formulas: delimiters, the currency rule, LaTeX → sanitized MathML.
mod math;
/// The words of a markdown text, without markup.
mod plain;
/// What two snapshots of a streamed text share.
mod prefix;
/// Markdown → HTML that is safe for `inner_html` (raw HTML escaped, link
/// schemes allow-listed, images click-to-load).
mod render;
/// Which link and image URLs rendered markdown may carry.
mod url_policy;
/// Hostile markdown inputs, kept with the browser suites' support code.
#[cfg(test)]
#[path = "../../tests/support/xss_corpus.rs"]
mod xss_corpus;

pub use escape::{escape_into, unescape};
pub use incremental::{completed_prefix_len, IncrementalMarkdown, RenderDelta};
pub use math::MathOptions;
pub use plain::plain_text;
pub use prefix::unchanged_prefix_len;
pub use render::{to_html, to_html_with};
