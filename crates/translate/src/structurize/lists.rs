//! Maps keyed by arena ids (`BlockId`, `Value`: small indices), stored densely over
//! a window of ids and reused from one function to the next: a function's ids are
//! close together (made while it was read), so the window stays small, and a reset
//! clears only the entries set since. Structurizing a function then costs no
//! allocation and no hashing for these maps.

/// An id usable as a dense index.
pub(super) trait Key: Copy {
    fn key(self) -> usize;
}

impl Key for spirvkit_ir::ir::BlockId {
    fn key(self) -> usize {
        self.index()
    }
}

impl Key for spirvkit_ir::ir::Value {
    fn key(self) -> usize {
        self.index()
    }
}

/// A map from ids to `T` (`empty` where nothing was set).
pub(super) struct IdMap<T> {
    /// Slot `i` holds the entry of id `base + i`.
    slots: Vec<T>,
    base: usize,
    /// Whether the window moves to the next id set (after `reset`).
    movable: bool,
    empty: T,
    /// The ids set since the last `clear`.
    set: Vec<usize>,
}

impl<T: Copy + PartialEq + Default> Default for IdMap<T> {
    fn default() -> Self {
        IdMap::new(T::default())
    }
}

impl<T: Copy + PartialEq> IdMap<T> {
    pub(super) fn new(empty: T) -> Self {
        IdMap { slots: Vec::new(), base: 0, movable: true, empty, set: Vec::new() }
    }

    /// Removes every entry, keeping the window.
    pub(super) fn clear(&mut self) {
        for &id in &self.set {
            if let Some(slot) = id.checked_sub(self.base).and_then(|i| self.slots.get_mut(i)) {
                *slot = self.empty;
            }
        }
        self.set.clear();
    }

    /// Removes every entry; the window moves to the next id set.
    pub(super) fn reset(&mut self) {
        self.clear();
        self.movable = true;
    }

    /// Removes every entry; the window starts at `base` (the smallest id expected).
    pub(super) fn reset_at(&mut self, base: usize) {
        self.clear();
        self.base = base;
        self.movable = false;
    }

    /// How many keys are set.
    pub(super) fn len(&self) -> usize {
        self.set.len()
    }

    #[inline]
    pub(super) fn get(&self, key: impl Key) -> T {
        match self.slots.get(key.key().wrapping_sub(self.base)) {
            Some(&value) => value,
            None => self.empty,
        }
    }

    #[inline]
    pub(super) fn insert(&mut self, key: impl Key, value: T) {
        *self.slot(key) = value;
    }

    /// The slot of `key`, counted as set (the caller stores a value other than
    /// `empty` in it).
    #[inline(always)]
    fn slot(&mut self, key: impl Key) -> &mut T {
        let id = key.key();
        let i = id.wrapping_sub(self.base);
        if i < self.slots.len() && !self.movable {
            if self.slots[i] == self.empty {
                self.set.push(id);
            }
            return &mut self.slots[i];
        }
        self.slot_outside(id)
    }

    /// The slot of an id outside the window, which widens to hold it, or of the
    /// first id after a `reset`, which moves the window.
    #[cold]
    fn slot_outside(&mut self, id: usize) -> &mut T {
        if self.movable {
            // Every slot is empty: the window can move for free, centered on the
            // first id (a function's ids are close together).
            self.movable = false;
            self.base = id.saturating_sub(self.slots.len() / 2);
        }
        if id < self.base {
            // Widen the window downwards at least as much as it is wide, so that ids
            // met in decreasing order cost amortized constant time.
            let new_base = self.base.saturating_sub((self.base - id).max(self.slots.len()));
            let empty = self.empty;
            self.slots.splice(0..0, std::iter::repeat_n(empty, self.base - new_base));
            self.base = new_base;
        }
        let i = id - self.base;
        if i >= self.slots.len() {
            let len = (i + 1).max(2 * self.slots.len());
            self.slots.resize(len, self.empty);
        }
        if self.slots[i] == self.empty {
            self.set.push(id);
        }
        &mut self.slots[i]
    }
}

const END: usize = usize::MAX;

/// A map from ids to lists of `V`, the lists linked through one flat vector (no
/// allocation per key). Removed entries are left as holes.
pub(super) struct ListMap<V> {
    /// First and last link of each key's list.
    ends: IdMap<(usize, usize)>,
    links: Vec<(Option<V>, usize)>,
}

impl<V> Default for ListMap<V> {
    fn default() -> Self {
        ListMap { ends: IdMap::new((END, END)), links: Vec::new() }
    }
}

impl<V: Copy + PartialEq> ListMap<V> {
    /// Removes every list; the window moves to the next key used.
    pub(super) fn reset(&mut self) {
        self.ends.reset();
        self.links.clear();
    }

    /// Removes every list; the window starts at `base` (the smallest key expected).
    pub(super) fn reset_at(&mut self, base: usize) {
        self.ends.reset_at(base);
        self.links.clear();
    }

    /// Appends `value` to the list of `key`.
    #[inline(always)]
    pub(super) fn push(&mut self, key: impl Key, value: V) {
        let at = self.links.len();
        self.links.push((Some(value), END));
        let ends = self.ends.slot(key);
        if ends.0 == END {
            *ends = (at, at);
        } else {
            if let Some(link) = self.links.get_mut(ends.1) {
                link.1 = at;
            }
            ends.1 = at;
        }
    }

    /// Puts `value` at the front of the list of `key`.
    pub(super) fn push_front(&mut self, key: impl Key, value: V) {
        let at = self.links.len();
        let (first, last) = self.ends.get(key);
        self.links.push((Some(value), first));
        self.ends.insert(key, (at, if last == END { at } else { last }));
    }

    /// The list of `key`, in order.
    #[inline]
    pub(super) fn iter(&self, key: impl Key) -> ListIter<'_, V> {
        ListIter { links: &self.links, at: self.ends.get(key).0 }
    }

    /// Removes every `value` from the list of `key`.
    pub(super) fn remove(&mut self, key: impl Key, value: V) {
        let mut at = self.ends.get(key).0;
        while let Some(link) = self.links.get_mut(at) {
            if link.0 == Some(value) {
                link.0 = None;
            }
            at = link.1;
        }
    }

    /// Removes the whole list of `key`.
    pub(super) fn remove_all(&mut self, key: impl Key) {
        if self.ends.get(key).0 != END {
            self.ends.insert(key, (END, END));
        }
    }
}

pub(super) struct ListIter<'a, V> {
    links: &'a [(Option<V>, usize)],
    at: usize,
}

impl<V: Copy> Iterator for ListIter<'_, V> {
    type Item = V;

    fn next(&mut self) -> Option<V> {
        // Each link is visited once: links only point forward to later pushes or
        // (push_front) to the list's older head, so a list never cycles.
        while let Some(&(value, next)) = self.links.get(self.at) {
            self.at = next;
            if value.is_some() {
                return value;
            }
        }
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use spirvkit_ir::Ir;

    #[test]
    fn maps_move_their_window() {
        #[derive(Clone, Copy)]
        struct K(usize);
        impl Key for K {
            fn key(self) -> usize {
                self.0
            }
        }
        let mut map: IdMap<u32> = IdMap::new(0);
        map.insert(K(1000), 1);
        map.insert(K(990), 2);
        map.insert(K(5), 3);
        map.insert(K(2000), 4);
        assert_eq!((map.get(K(1000)), map.get(K(990)), map.get(K(5)), map.get(K(2000))), (1, 2, 3, 4));
        assert_eq!((map.get(K(0)), map.get(K(999)), map.get(K(5000)), map.len()), (0, 0, 0, 4));
        map.reset();
        assert_eq!((map.get(K(1000)), map.get(K(5)), map.len()), (0, 0, 0));
        map.insert(K(7), 9);
        assert_eq!((map.get(K(7)), map.get(K(1000))), (9, 0));
        map.reset_at(100);
        map.insert(K(150), 1);
        map.insert(K(3), 2);
        assert_eq!((map.get(K(150)), map.get(K(3)), map.get(K(7))), (1, 2, 0));
    }

    #[test]
    fn lists_keep_order_and_reset() {
        let mut ir = Ir::new();
        let (a, b) = (ir.create_block(), ir.create_block());
        let mut map: ListMap<u32> = ListMap::default();
        map.push(a, 1);
        map.push(a, 2);
        map.push_front(a, 0);
        map.push(b, 7);
        map.remove(a, 1);
        assert_eq!(map.iter(a).collect::<Vec<_>>(), [0, 2]);
        map.remove_all(b);
        assert_eq!(map.iter(b).count(), 0);
        map.reset();
        assert_eq!(map.iter(a).count(), 0);
        map.push_front(b, 3);
        map.push(b, 4);
        assert_eq!(map.iter(b).collect::<Vec<_>>(), [3, 4]);
    }
}
