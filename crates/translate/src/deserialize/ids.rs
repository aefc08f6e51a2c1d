//! Per-function tables keyed by SPIR-V id, cleared in O(1) between functions.

use spirvkit_grammar::fxhash::FxHashMap;

/// Values of ids: a dense slot per id a module of this size plausibly uses (up to
/// `dense_len`), hashed beyond that (a header's bound may lie, so it alone never
/// sizes an allocation).
///
/// The slots only locate entries in `entries`, and an entry counts only if it names
/// the id looking for it: clearing empties `entries` alone, so every function reuses
/// the same storage. The slots grow to the largest id set, not to the bound: fresh
/// memory costs more than the instructions filling it, and the deserializer of the
/// first half of a large module's functions never sets the ids of the second.
pub(super) struct IdTable<T: Copy> {
    slots: Vec<u32>,
    dense_len: usize,
    entries: Vec<(u32, T)>,
    sparse: FxHashMap<u32, T>,
}

impl<T: Copy> IdTable<T> {
    /// `bound` is the module's id bound, `input_words` its size in words.
    pub(super) fn new(bound: u32, input_words: usize) -> Self {
        let dense_len = (bound as usize).min(input_words.saturating_mul(2).saturating_add(64));
        IdTable { slots: Vec::new(), dense_len, entries: Vec::new(), sparse: FxHashMap::default() }
    }

    #[inline]
    pub(super) fn get(&self, id: u32) -> Option<T> {
        match self.slots.get(id as usize) {
            Some(&slot) => match self.entries.get(slot as usize) {
                Some(&(owner, value)) if owner == id => Some(value),
                _ if self.sparse.is_empty() => None,
                _ => self.get_sparse(id),
            },
            None if self.sparse.is_empty() => None,
            None => self.get_sparse(id),
        }
    }

    /// Ids beyond the slots (and any that found no room in `entries`).
    #[cold]
    fn get_sparse(&self, id: u32) -> Option<T> {
        self.sparse.get(&id).copied()
    }

    /// Sets `id`, returning its previous value.
    #[inline]
    pub(super) fn insert(&mut self, id: u32, value: T) -> Option<T> {
        let at = id as usize;
        if at >= self.slots.len() {
            if at >= self.dense_len {
                return self.insert_sparse(id, value);
            }
            self.grow(at);
        }
        let Some(slot) = self.slots.get_mut(at) else { return self.insert_sparse(id, value) };
        if let Some((owner, old)) = self.entries.get_mut(*slot as usize) {
            if *owner == id {
                return Some(std::mem::replace(old, value));
            }
        }
        // Fewer entries than slots (one per id set), so the position fits a u32
        // whenever the slot count does; beyond that, hashed.
        let Ok(position) = u32::try_from(self.entries.len()) else { return self.insert_sparse(id, value) };
        *slot = position;
        self.entries.push((id, value));
        None
    }

    #[cold]
    fn insert_sparse(&mut self, id: u32, value: T) -> Option<T> {
        self.sparse.insert(id, value)
    }

    /// Makes room for slot `at` (below `dense_len`); doubling keeps the copies amortized.
    #[cold]
    fn grow(&mut self, at: usize) {
        let len = (at + 1).max(self.slots.len() * 2).min(self.dense_len);
        self.slots.resize(len, 0);
    }

    /// The id set to `value`, if any (a search: for error messages).
    #[cold]
    pub(super) fn id_of(&self, value: T) -> Option<u32>
    where
        T: PartialEq,
    {
        let current = |&(id, v): &(u32, T)| v == value && self.get(id) == Some(value);
        self.entries
            .iter()
            .copied()
            .find(current)
            .or_else(|| self.sparse.iter().map(|(&id, &v)| (id, v)).find(current))
            .map(|(id, _)| id)
    }

    /// Forgets every entry (keeping the storage).
    pub(super) fn clear(&mut self) {
        self.entries.clear();
        self.sparse.clear();
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
    fn stale_slots_read_as_absent() {
        let mut table = IdTable::new(10, 10);
        table.insert(0, 'a');
        table.insert(5, 'b');
        table.clear();
        // Id 7's slot (zero) and id 5's slot (one) point at entries of other ids.
        table.insert(7, 'c');
        table.insert(2, 'd');
        assert_eq!(
            (table.get(0), table.get(5), table.get(7), table.get(2)),
            (None, None, Some('c'), Some('d'))
        );
        assert_eq!(table.insert(5, 'e'), None);
        assert_eq!(table.get(5), Some('e'));
    }

    #[test]
    fn a_lying_bound_allocates_by_the_input() {
        let table: IdTable<u32> = IdTable::new(u32::MAX, 100);
        assert_eq!(table.dense_len, 264);
        assert!(table.slots.is_empty());
    }
}
