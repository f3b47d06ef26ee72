//! The heights of the open thread's rows, measured or estimated, in a
//! Fenwick tree: where any row starts, and which row is at any offset, in
//! O(log n). The virtual list asks both every scroll, so no frame walks the
//! whole thread.

/// Height assumed for a row never measured, before any row was.
const FIRST_ESTIMATE: f64 = 64.0;
/// The most a row never measured is assumed to take (about half a screen).
const MAX_ESTIMATE: f64 = 400.0;

/// Height assumed for a row never measured: the mean of the `count` rows
/// measured so far (`sum` px), at most [`MAX_ESTIMATE`]. One huge answer
/// must not make every unseen row huge: a new row thought huge would push
/// the rows above it out of the window (to be mounted again once it is
/// measured), and a hundred of them would pass the browser's 2^25 px limit
/// on scroll height.
pub fn estimate(sum: f64, count: usize) -> f64 {
    if count == 0 {
        return FIRST_ESTIMATE;
    }
    (sum / count as f64).clamp(0.0, MAX_ESTIMATE)
}

#[derive(Debug, Clone, Default)]
pub struct Heights {
    /// Each row's height.
    values: Vec<f64>,
    /// Fenwick partial sums, 1-based: `tree[i]` sums `values[i - lsb(i)..i]`.
    tree: Vec<f64>,
}

fn lsb(i: usize) -> usize {
    i & i.wrapping_neg()
}

impl Heights {
    /// Builds the tree over `values` in O(n).
    pub fn from_values(values: Vec<f64>) -> Heights {
        let mut tree = vec![0.0; values.len() + 1];
        for i in 1..tree.len() {
            tree[i] += values[i - 1];
            let parent = i + lsb(i);
            if parent < tree.len() {
                tree[parent] += tree[i];
            }
        }
        Heights { values, tree }
    }

    /// Replaces rows `at..at + removed` with rows of `heights`, keeping
    /// every other row's height. O(n): it rebuilds the tree.
    pub fn splice(&mut self, at: usize, removed: usize, heights: impl IntoIterator<Item = f64>) {
        let mut values = std::mem::take(&mut self.values);
        let at = at.min(values.len());
        let end = (at + removed).min(values.len());
        values.splice(at..end, heights);
        *self = Heights::from_values(values);
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }

    /// Adds a row at the end.
    pub fn push(&mut self, height: f64) {
        if self.tree.is_empty() {
            self.tree.push(0.0);
        }
        let i = self.values.len() + 1;
        // tree[i] covers values[i - lsb(i) .. i]: the new value plus the
        // sum of the ones before it in that range.
        let covered = self.offset(i - 1) - self.offset(i - lsb(i));
        self.values.push(height);
        self.tree.push(height + covered);
    }

    /// Sets row `i`'s height (ignored past the end).
    pub fn set(&mut self, i: usize, height: f64) {
        let Some(old) = self.values.get_mut(i) else {
            return;
        };
        let delta = height - *old;
        *old = height;
        if delta == 0.0 {
            return;
        }
        let mut j = i + 1;
        while j < self.tree.len() {
            self.tree[j] += delta;
            j += lsb(j);
        }
    }

    /// Where row `i` starts: the heights of rows `0..i` summed.
    pub fn offset(&self, i: usize) -> f64 {
        let mut j = i.min(self.values.len());
        let mut sum = 0.0;
        while j > 0 {
            sum += self.tree[j];
            j -= lsb(j);
        }
        sum
    }

    pub fn total(&self) -> f64 {
        self.offset(self.values.len())
    }

    /// The row at offset `y`: the last row starting at or before `y` whose
    /// height is not zero, so empty rows never count as "at" an offset.
    /// `len()` when `y` is past the end; 0 when before the start.
    pub fn index_at(&self, y: f64) -> usize {
        let n = self.values.len();
        if n == 0 || y < 0.0 {
            return 0;
        }
        // Binary lifting: the most rows whose heights sum to at most `y`.
        let mut pos = 0;
        let mut rest = y;
        let mut step = n.next_power_of_two();
        while step > 0 {
            let next = pos + step;
            if next <= n && self.tree[next] <= rest {
                pos = next;
                rest -= self.tree[next];
            }
            step /= 2;
        }
        pos
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn estimates_follow_the_mean_but_not_a_giant_row() {
        assert_eq!(estimate(0.0, 0), FIRST_ESTIMATE);
        assert_eq!(estimate(300.0, 3), 100.0);
        // A 740,000 px answer and one small row: still half a screen.
        assert_eq!(estimate(740_060.0, 2), MAX_ESTIMATE);
    }

    fn naive_offset(values: &[f64], i: usize) -> f64 {
        values[..i].iter().sum()
    }

    #[test]
    fn offsets_match_plain_sums_after_pushes_and_sets() {
        let mut h = Heights::default();
        let mut plain = Vec::new();
        for i in 0..37 {
            let v = (i * 7 % 11) as f64 + 0.5;
            h.push(v);
            plain.push(v);
        }
        h.set(3, 100.0);
        plain[3] = 100.0;
        h.set(36, 0.0);
        plain[36] = 0.0;
        let built = Heights::from_values(plain.clone());
        let mut spliced = Heights::from_values(vec![1.0; 5]);
        spliced.splice(1, 2, [7.0, 8.0, 9.0]);
        assert_eq!(spliced.offset(6), 1.0 + 7.0 + 8.0 + 9.0 + 1.0 + 1.0);
        assert_eq!(spliced.offset(2), 8.0);
        for i in 0..=plain.len() {
            assert_eq!(h.offset(i), naive_offset(&plain, i), "offset({i})");
            assert_eq!(
                built.offset(i),
                naive_offset(&plain, i),
                "built offset({i})"
            );
        }
        assert_eq!(h.total(), plain.iter().sum::<f64>());
    }

    #[test]
    fn index_at_finds_the_row_under_an_offset() {
        let h = Heights::from_values(vec![10.0, 0.0, 20.0, 30.0]);
        assert_eq!(h.index_at(-5.0), 0);
        assert_eq!(h.index_at(0.0), 0);
        assert_eq!(h.index_at(9.9), 0);
        // Offset 10 starts both the empty row 1 and row 2: row 2 is there.
        assert_eq!(h.index_at(10.0), 2);
        assert_eq!(h.index_at(29.9), 2);
        assert_eq!(h.index_at(30.0), 3);
        assert_eq!(h.index_at(59.9), 3);
        assert_eq!(h.index_at(60.0), 4);
        assert_eq!(Heights::default().index_at(5.0), 0);
    }
}
