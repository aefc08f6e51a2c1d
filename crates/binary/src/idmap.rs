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

    pub fn set(&mut self, id: u32, value: T) {
        let i = id as usize;
        if i < self.dense_limit {
            if i >= self.dense.len() {
                self.dense.resize(i + 1, T::default());
            }
            self.dense[i] = value;
        } else {
            self.sparse.insert(id, value);
        }
    }

    /// A mutable slot for `id`, created with the default value if absent.
    pub fn get_mut(&mut self, id: u32) -> &mut T {
        let i = id as usize;
        if i < self.dense_limit {
            if i >= self.dense.len() {
                self.dense.resize(i + 1, T::default());
            }
            &mut self.dense[i]
        } else {
            self.sparse.entry(id).or_default()
        }
    }

    pub fn get(&self, id: u32) -> &T {
        let i = id as usize;
        if i < self.dense_limit {
            self.dense.get(i).unwrap_or(&self.default)
        } else {
            self.sparse.get(&id).unwrap_or(&self.default)
        }
    }
}
