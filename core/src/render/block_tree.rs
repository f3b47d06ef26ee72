//! Where a streamed answer's completed blocks go in the page: blocks in
//! chunks, chunks in groups, groups in the stable list. A block appended
//! to a long answer then lays out its chunk, the chunks of its group and
//! the groups, not every chunk: a block box with many children lays out
//! all of them (from cache, but each one) when one of them changes size.
//! In a finished 900 KiB answer, appending a paragraph and laying it out
//! took 1.6–3.5 ms with the chunks side by side and 0.7 ms in groups
//! (17–19 ms against 5 ms with the CPU 4× slower; bench/README.md).

/// Completed blocks per chunk (`div.md-chunk`).
pub const BLOCKS_PER_CHUNK: usize = 16;
/// Chunks per group (`div.md-group`): a group holds 256 blocks, so a
/// 1 MiB answer has about 60 groups.
pub const CHUNKS_PER_GROUP: usize = 16;

const BLOCKS_PER_GROUP: usize = BLOCKS_PER_CHUNK * CHUNKS_PER_GROUP;

/// Which element appended HTML goes into (its end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parent {
    /// The last chunk of the last group: blocks.
    LastChunk,
    /// The last group: chunks.
    LastGroup,
    /// The stable list: groups.
    Stable,
}

/// The HTML that appends `blocks` (each a block's sanitized HTML) after
/// the first `shown` blocks: first the last chunk is filled, then the last
/// group, then new groups follow; at most one string per parent, in that
/// order, so each is one HTML parse.
pub fn append_html(shown: usize, blocks: &[String]) -> Vec<(Parent, String)> {
    let mut out = Vec::new();
    let mut at = shown;
    let mut rest = blocks;
    let room = (BLOCKS_PER_CHUNK - at % BLOCKS_PER_CHUNK) % BLOCKS_PER_CHUNK;
    if room > 0 && !rest.is_empty() {
        let (fill, more) = rest.split_at(room.min(rest.len()));
        out.push((Parent::LastChunk, blocks_html(fill)));
        at += fill.len();
        rest = more;
    }
    let room = (BLOCKS_PER_GROUP - at % BLOCKS_PER_GROUP) % BLOCKS_PER_GROUP;
    if room > 0 && !rest.is_empty() {
        let (fill, more) = rest.split_at(room.min(rest.len()));
        out.push((Parent::LastGroup, chunks_html(fill)));
        rest = more;
    }
    if !rest.is_empty() {
        let html = rest
            .chunks(BLOCKS_PER_GROUP)
            .map(|group| format!("<div class=\"md-group\">{}</div>", chunks_html(group)))
            .collect();
        out.push((Parent::Stable, html));
    }
    out
}

fn blocks_html(blocks: &[String]) -> String {
    blocks
        .iter()
        .map(|html| format!("<div class=\"md-block\">{html}</div>"))
        .collect()
}

fn chunks_html(blocks: &[String]) -> String {
    blocks
        .chunks(BLOCKS_PER_CHUNK)
        .map(|chunk| format!("<div class=\"md-chunk\">{}</div>", blocks_html(chunk)))
        .collect()
}

/// The shape of the tree holding the first `keep` blocks: what a rewrite
/// that keeps them cuts back to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Kept {
    pub groups: usize,
    /// Chunks in the last group kept.
    pub chunks_in_last_group: usize,
    /// Blocks in the last chunk kept.
    pub blocks_in_last_chunk: usize,
}

pub fn kept(keep: usize) -> Kept {
    let chunks = keep.div_ceil(BLOCKS_PER_CHUNK);
    let groups = chunks.div_ceil(CHUNKS_PER_GROUP);
    Kept {
        groups,
        chunks_in_last_group: chunks - groups.saturating_sub(1) * CHUNKS_PER_GROUP,
        blocks_in_last_chunk: keep - chunks.saturating_sub(1) * BLOCKS_PER_CHUNK,
    }
}

/// How many chunks, counted from the last one back, hold blocks `shown..`
/// of `total`: those an append filled or made (their code blocks are
/// highlighted then).
pub fn chunks_touched(shown: usize, total: usize) -> usize {
    if total <= shown {
        return 0;
    }
    total.div_ceil(BLOCKS_PER_CHUNK) - shown / BLOCKS_PER_CHUNK
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The tree as nested counts: groups of chunks of blocks (by index).
    type Tree = Vec<Vec<Vec<usize>>>;

    /// Applies `append_html`'s output to `tree` as the browser would,
    /// reading the blocks back from the markup.
    fn apply(tree: &mut Tree, parts: &[(Parent, String)]) {
        for (parent, html) in parts {
            match parent {
                Parent::LastChunk => {
                    let chunk = tree.last_mut().and_then(|g| g.last_mut()).expect("a chunk");
                    chunk.extend(block_ids(html));
                }
                Parent::LastGroup => {
                    let group = tree.last_mut().expect("a group");
                    group.extend(
                        html.split("<div class=\"md-chunk\">")
                            .skip(1)
                            .map(block_ids),
                    );
                }
                Parent::Stable => {
                    tree.extend(html.split("<div class=\"md-group\">").skip(1).map(|g| {
                        g.split("<div class=\"md-chunk\">")
                            .skip(1)
                            .map(block_ids)
                            .collect()
                    }))
                }
            }
        }
    }

    fn block_ids(html: &str) -> Vec<usize> {
        html.split("<div class=\"md-block\"><p>")
            .skip(1)
            .filter_map(|b| b.split('<').next()?.parse().ok())
            .collect()
    }

    fn blocks(range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| format!("<p>{i}</p>\n")).collect()
    }

    /// The tree `n` blocks make when all are appended at once.
    fn canonical(n: usize) -> Tree {
        (0..n)
            .collect::<Vec<_>>()
            .chunks(BLOCKS_PER_GROUP)
            .map(|g| g.chunks(BLOCKS_PER_CHUNK).map(<[usize]>::to_vec).collect())
            .collect()
    }

    #[test]
    fn appends_in_any_steps_make_the_same_tree() {
        for step in [1, 3, 15, 16, 17, 255, 256, 257, 700] {
            let mut tree = Tree::new();
            let mut shown = 0;
            while shown < 1_000 {
                let next = (shown + step).min(1_000);
                apply(&mut tree, &append_html(shown, &blocks(shown..next)));
                shown = next;
                assert_eq!(tree, canonical(shown), "step {step}, {shown} blocks");
            }
        }
    }

    #[test]
    fn each_parent_gets_at_most_one_parse() {
        let parts = append_html(200, &blocks(200..900));
        let parents: Vec<Parent> = parts.iter().map(|p| p.0).collect();
        assert_eq!(
            parents,
            [Parent::LastChunk, Parent::LastGroup, Parent::Stable]
        );
        assert!(append_html(3, &[]).is_empty());
    }

    #[test]
    fn kept_cuts_back_to_the_tree_of_that_many_blocks() {
        for keep in [0, 1, 15, 16, 17, 255, 256, 257, 600] {
            let tree = canonical(keep);
            let k = kept(keep);
            assert_eq!(k.groups, tree.len(), "{keep}");
            assert_eq!(
                k.chunks_in_last_group,
                tree.last().map_or(0, Vec::len),
                "{keep}"
            );
            assert_eq!(
                k.blocks_in_last_chunk,
                tree.last().and_then(|g| g.last()).map_or(0, Vec::len),
                "{keep}"
            );
        }
    }

    #[test]
    fn the_chunks_touched_are_the_filled_one_and_the_new_ones() {
        assert_eq!(chunks_touched(0, 1), 1);
        assert_eq!(chunks_touched(5, 20), 2);
        assert_eq!(chunks_touched(16, 20), 1);
        assert_eq!(chunks_touched(16, 16), 0);
        assert_eq!(chunks_touched(15, 16), 1);
        assert_eq!(chunks_touched(250, 300), 4);
    }
}
