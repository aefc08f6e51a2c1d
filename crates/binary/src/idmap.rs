//! Per-id storage that cannot be blown up by a lying header bound.

use spirvkit_grammar::fxhash::FxHashMap;

/// Per-id values, densely stored for ids the input could plausibly use and
/// hashed beyond that, so a huge bound or id cannot force a huge allocation.
#[derive(Clone, Debug)]
pub struct IdMap<T: Clone + Default> {
    dense: Vec<T>,
    dense_limit: usize,
    sparse: FxHashMap<u32, T>,
    default: T,
}

impl<T: Clone + Default> IdMap<T> {
    /// `bound` is the module's id bound, `input_words` the size of the input.
    pub fn new(bound: u32, input_words: usize) -> Self {
        IdMap {
            dense: Vec::new(),
            dense_limit: (bound as usize).min(input_words.saturating_mul(2) + 64),
            sparse: FxHashMap::default(),
            default: T::default(),
        }
    }

    /// [`IdMap::new`] with the slots of ids below `min(bound, input_words)` made
    /// up front: a module defines at most one id per word, so ids of an honest
    /// bound never grow the table.
    pub fn presized(bound: u32, input_words: usize) -> Self {
        let mut map = IdMap::new(bound, input_words);
        map.dense = vec![T::default(); map.dense_limit.min(input_words)];
        map
    }

    pub fn set(&mut self, id: u32, value: T) {
        *self.get_mut(id) = value;
    }

    /// A mutable slot for `id`, created with the default value if absent.
    #[inline]
    pub fn get_mut(&mut self, id: u32) -> &mut T {
        let i = id as usize;
        if i < self.dense.len() {
            return &mut self.dense[i];
        }
        self.get_mut_slow(id)
    }

    #[inline(never)]
    fn get_mut_slow(&mut self, id: u32) -> &mut T {
        let i = id as usize;
        if i < self.dense_limit {
            // Ids mostly come in increasing order: grow geometrically (within the
            // limit) so that most new ids find their slot already there.
            let len = (i + 1).max(self.dense.len() * 2).min(self.dense_limit);
            self.dense.resize(len, T::default());
            &mut self.dense[i]
        } else {
            self.sparse.entry(id).or_default()
        }
    }

    #[inline]
    pub fn get(&self, id: u32) -> &T {
        let i = id as usize;
        if i < self.dense_limit {
            self.dense.get(i).unwrap_or(&self.default)
        } else {
            self.sparse.get(&id).unwrap_or(&self.default)
        }
    }
}
