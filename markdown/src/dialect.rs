//! The markdown dialect every parse of this crate uses: CommonMark plus
//! tables, strikethrough and task lists (math is added by
//! `MathOptions::parser_options`). A leaf, so the renderer and the math
//! delimiters can both read it without importing each other.

use pulldown_cmark::Options;

pub(crate) fn options() -> Options {
    Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TASKLISTS
}
