//! Per-function tables keyed by SPIR-V id, cleared in O(1) between functions.

use spirvkit_grammar::fxhash::FxHashMap;

/// Values of ids, stored densely for the ids a module of this size plausibly uses and
/// hashed beyond that (a header's bound may lie, so it alone never sizes an
/// allocation). An entry counts only if it was set since the last [`IdTable::clear`]:
/// every function reuses the same storage.
pub(super) struct IdTable<T: Copy> {
    /// (generation, value); the slot is set when its generation is the current one.
    dense: Vec<(u32, Option<T>)>,
    sparse: FxHashMap<u32, T>,
    generation: u32,
}

impl<T: Copy> IdTable<T> {
    /// `bound` is the module's id bound, `input_words` its size in words.
    pub(super) fn new(bound: u32, input_words: usize) -> Self {
        let dense_len = (bound as usize).min(input_words.saturating_mul(2).saturating_add(64));
        IdTable { dense: vec![(0, None); dense_len], sparse: FxHashMap::default(), generation: 1 }
    }

    pub(super) fn get(&self, id: u32) -> Option<T> {
        match self.dense.get(id as usize) {
            Some(&(generation, value)) => value.filter(|_| generation == self.generation),
            None => self.sparse.get(&id).copied(),
        }
    }

    /// Sets `id`, returning its previous value.
    pub(super) fn insert(&mut self, id: u32, value: T) -> Option<T> {
        let generation = self.generation;
        match self.dense.get_mut(id as usize) {
            Some(slot) => {
                let old = slot.1.filter(|_| slot.0 == generation);
                *slot = (generation, Some(value));
                old
            }
            None => self.sparse.insert(id, value),
        }
    }

    /// Forgets every entry (keeping the storage).
    pub(super) fn clear(&mut self) {
        self.sparse.clear();
        if self.generation == u32::MAX {
            self.dense.iter_mut().for_each(|slot| *slot = (0, None));
            self.generation = 0;
        }
        self.generation += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::IdTable;

    #[test]
    fn entries_last_until_cleared() {
        let mut table = IdTable::new(10, 2);
        assert_eq!(table.insert(3, 'a'), None);
        assert_eq!(table.insert(3, 'b'), Some('a'));
        // Beyond the dense part (and the bound): hashed.
        assert_eq!(table.insert(1000, 'c'), None);
        assert_eq!((table.get(3), table.get(1000), table.get(4)), (Some('b'), Some('c'), None));
        table.clear();
        assert_eq!((table.get(3), table.get(1000)), (None, None));
        assert_eq!(table.insert(3, 'd'), None);
        assert_eq!(table.get(3), Some('d'));
    }

    #[test]
    fn a_lying_bound_allocates_by_the_input() {
        let table: IdTable<u32> = IdTable::new(u32::MAX, 100);
        assert_eq!(table.dense.len(), 264);
    }
}
