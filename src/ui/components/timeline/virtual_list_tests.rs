//! The list's bookkeeping on the host: edits batched in one sync are each
//! given the final order, which a later edit of the batch may have cut.

use super::*;
use crate::store::RowKey;
use crate::ui::wiring::order_edits::OrderEdit;

fn keys(n: usize) -> Vec<RowKey> {
    (0..n).map(|i| RowKey::message(&format!("m{i}"))).collect()
}

#[test]
fn an_append_then_a_cut_below_it_in_one_batch_keeps_the_list_whole() {
    let mut list = VirtualList::new();
    list.on_order(&[OrderEdit::Reset], &keys(3));
    // A row appended at 3, then a branch switch removing rows 1..4: the
    // final order has one row, shorter than where the append went.
    let edits = [
        OrderEdit::Splice {
            at: 3,
            removed: 0,
            inserted: 1,
        },
        OrderEdit::Splice {
            at: 1,
            removed: 3,
            inserted: 0,
        },
    ];
    list.on_order(&edits, &keys(1));
    assert_eq!(list.heights.len(), 1);
    // And an insertion past the end of the final order.
    let edits = [
        OrderEdit::Splice {
            at: 1,
            removed: 0,
            inserted: 2,
        },
        OrderEdit::Splice {
            at: 0,
            removed: 3,
            inserted: 0,
        },
        OrderEdit::Splice {
            at: 5,
            removed: 1,
            inserted: 2,
        },
    ];
    list.on_order(&edits, &[]);
    assert_eq!(list.heights.len(), 0);
}
