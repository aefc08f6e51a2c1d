//! The order of the blocks in each region as MLIR's deserializer leaves it.
//!
//! MLIR rewrites the constructs one at a time, in the order of a work list: headers
//! whose block is not split first, then the split selection headers, each group in
//! block order; rewriting a construct moves the constructs found in its blocks
//! (directly, or nested in ops already made, in a post-order walk) to the end of the
//! list. A region's blocks are the breadth-first order of the construct's blocks
//! from its header at the time it is rewritten, so an outer construct rewritten
//! before an inner one lists the inner one's blocks, and keeps the inner merge block
//! where the walk met it. The rewrite itself (innermost first) does not depend on
//! this order; it only sorts each region's blocks by this simulation of MLIR's.

use super::branch::successors;
use super::lists::{IdMap, Key, ListMap};
use super::{Construct, Kind};
use spirvkit_ir::ir::BlockId;
use spirvkit_ir::Ir;
use std::collections::VecDeque;

/// A block of the simulation: a function block, or the block a split selection
/// header's terminator moved into.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Node {
    Block(BlockId),
    Split(BlockId),
}

/// The key of `Node::Block` (or `Node::Split`) of the block numbered `index`.
pub(super) fn node_key(index: usize, split: bool) -> usize {
    2 * index + usize::from(split)
}

impl Key for Node {
    #[inline]
    fn key(self) -> usize {
        match self {
            Node::Block(b) => node_key(b.index(), false),
            Node::Split(b) => node_key(b.index(), true),
        }
    }
}

/// How each construct's header is treated.
pub(super) struct HeaderShape {
    /// MLIR splits the header (its work-list group).
    pub mlir_splits: bool,
    /// The rewrite splits the header (the region starts at `Node::Split`).
    pub splits: bool,
}

/// The simulation's state, kept from one function to the next (see `lists`).
#[derive(Default)]
pub(super) struct Scratch {
    /// Each node's successors: a range of `succ_nodes`.
    succ: IdMap<Option<(usize, usize)>>,
    succ_nodes: Vec<Node>,
    preds: ListMap<Node>,
    region: IdMap<Option<usize>>,
    /// Constructs whose op is in a block, first op first.
    hosted: ListMap<usize>,
    forward: IdMap<Option<BlockId>>,
    /// Each construct's region order: a range of `order_nodes`.
    order_ranges: Vec<(usize, usize)>,
    order_nodes: Vec<Node>,
    header_of: IdMap<Option<usize>>,
    split_headers: IdMap<bool>,
    position: IdMap<Option<usize>>,
    seen: IdMap<bool>,
    walked: IdMap<bool>,
    order: Vec<Node>,
    met: Vec<Node>,
    children: Vec<Node>,
    stack: Vec<(Node, bool)>,
    header_preds: Vec<Node>,
    /// The work list: each construct with its generation, which a later entry
    /// for it supersedes.
    queue: VecDeque<(usize, u32)>,
    initial: Vec<usize>,
    generation: Vec<u32>,
    done: Vec<bool>,
}

impl Scratch {
    /// Empties everything for a function whose blocks are numbered from
    /// `block_base` on.
    pub(super) fn reset(&mut self, block_base: usize) {
        let Scratch {
            succ,
            succ_nodes,
            preds,
            region,
            hosted,
            forward,
            order_ranges,
            order_nodes,
            header_of,
            split_headers,
            position,
            seen,
            walked,
            order,
            met,
            children,
            stack,
            header_preds,
            queue,
            initial,
            generation,
            done,
        } = self;
        let node_base = node_key(block_base, false);
        succ.reset_at(node_base);
        succ_nodes.clear();
        preds.reset_at(node_base);
        region.reset_at(node_base);
        hosted.reset_at(node_base);
        forward.reset_at(block_base);
        order_ranges.clear();
        order_nodes.clear();
        header_of.reset_at(node_base);
        split_headers.reset_at(block_base);
        position.reset_at(block_base);
        seen.reset_at(node_base);
        walked.reset_at(node_base);
        order.clear();
        met.clear();
        children.clear();
        stack.clear();
        header_preds.clear();
        queue.clear();
        initial.clear();
        generation.clear();
        done.clear();
    }

    /// The blocks of construct `c`'s region in MLIR's order (empty before
    /// [`mlir_orders`]).
    pub(super) fn order_of(&self, c: usize) -> &[Node] {
        self.order_ranges.get(c).and_then(|&(start, end)| self.order_nodes.get(start..end)).unwrap_or(&[])
    }
}

struct Sim<'a> {
    s: &'a mut Scratch,
    constructs: &'a [Construct],
    shapes: &'a [HeaderShape],
}

impl Sim<'_> {
    fn header(&self, c: usize) -> Node {
        header(self.constructs, self.shapes, c)
    }

    fn resolve(&self, mut b: BlockId) -> BlockId {
        for _ in 0..=self.s.forward.len() {
            match self.s.forward.get(b) {
                Some(n) => b = n,
                None => break,
            }
        }
        b
    }

    /// Puts the blocks of the regions of the ops in `n`, in order, in `children`.
    fn children(&mut self, n: Node) {
        let s = &mut *self.s;
        s.children.clear();
        for r in s.hosted.iter(n) {
            let Some(&(start, end)) = s.order_ranges.get(r) else { continue };
            for &x in s.order_nodes.get(start..end).unwrap_or(&[]) {
                if s.region.get(x) == Some(r) {
                    s.children.push(x);
                }
            }
        }
    }

    /// Simulates rewriting construct `c`; leaves the blocks met in `met`, in the order
    /// MLIR updates the work list.
    fn rewrite(&mut self, c: usize) {
        let header = self.header(c);
        let merge = Node::Block(self.resolve(self.constructs[c].merge));
        let s = &mut *self.s;
        let home = s.region.get(header);
        s.order.clear();
        s.order.push(header);
        s.seen.insert(header, true);
        let mut i = 0;
        while let Some(&n) = s.order.get(i) {
            let (start, end) = s.succ.get(n).unwrap_or((0, 0));
            for k in start..end {
                let Some(&t) = s.succ_nodes.get(k) else { break };
                if t != merge && s.region.get(t) == home && !s.seen.get(t) {
                    s.seen.insert(t, true);
                    s.order.push(t);
                }
            }
            i += 1;
        }
        // Branches into the construct now enter its merge block.
        // (A copy: the merge block can be the header itself in input rejected later.)
        s.header_preds.clear();
        s.header_preds.extend(s.preds.iter(header));
        for k in 0..s.header_preds.len() {
            let p = s.header_preds[k];
            if s.seen.get(p) {
                continue;
            }
            if let Some((start, end)) = s.succ.get(p) {
                let mut hit = false;
                for t in s.succ_nodes.get_mut(start..end).unwrap_or(&mut []) {
                    if *t == header {
                        *t = merge;
                        hit = true;
                    }
                }
                if hit {
                    s.preds.push(merge, p);
                }
            }
        }
        if let Node::Block(h) = header {
            if let Node::Block(m) = merge {
                s.forward.insert(h, Some(m));
            }
        }
        // The blocks met: each block's nested blocks (post-order), then the block.
        // (Each block once: malformed input must not make the walk cycle.)
        s.met.clear();
        for &n in &s.order {
            s.walked.insert(n, true);
        }
        for j in 0..self.s.order.len() {
            // `n` is marked walked already: the walk expands it first and meets it last.
            let n = self.s.order[j];
            self.s.stack.clear();
            self.s.stack.push((n, false));
            while let Some((x, expanded)) = self.s.stack.pop() {
                if expanded {
                    self.s.met.push(x);
                } else {
                    self.s.stack.push((x, true));
                    self.children(x);
                    let s = &mut *self.s;
                    for &y in s.children.iter().rev() {
                        if !s.walked.get(y) {
                            s.walked.insert(y, true);
                            s.stack.push((y, false));
                        }
                    }
                }
            }
        }
        let s = &mut *self.s;
        s.seen.clear();
        s.walked.clear();
        for &n in &s.order {
            s.region.insert(n, Some(c));
        }
        s.hosted.push_front(merge, c);
        let start = s.order_nodes.len();
        s.order_nodes.extend_from_slice(&s.order);
        if let Some(range) = s.order_ranges.get_mut(c) {
            *range = (start, s.order_nodes.len());
        }
    }
}

fn header(constructs: &[Construct], shapes: &[HeaderShape], c: usize) -> Node {
    let h = constructs[c].header;
    if shapes[c].splits {
        Node::Split(h)
    } else {
        Node::Block(h)
    }
}

/// Computes, for each construct, the order of the blocks in its region as MLIR
/// leaves it (read it with [`Scratch::order_of`]).
pub(super) fn mlir_orders(
    ir: &Ir,
    blocks: &[BlockId],
    constructs: &[Construct],
    shapes: &[HeaderShape],
    scratch: &mut Scratch,
    block_base: usize,
) {
    scratch.reset(block_base);
    scratch.order_ranges.resize(constructs.len(), (0, 0));
    for (c, shape) in constructs.iter().zip(shapes) {
        if shape.splits {
            scratch.split_headers.insert(c.header, true);
        }
    }
    for &b in blocks {
        let targets = successors(ir, b);
        let start = scratch.succ_nodes.len();
        scratch.succ_nodes.extend(targets.iter().map(|&t| Node::Block(t)));
        let range = (start, scratch.succ_nodes.len());
        if scratch.split_headers.get(b) {
            let at = scratch.succ_nodes.len();
            scratch.succ_nodes.push(Node::Split(b));
            scratch.succ.insert(Node::Block(b), Some((at, at + 1)));
            scratch.succ.insert(Node::Split(b), Some(range));
        } else {
            scratch.succ.insert(Node::Block(b), Some(range));
        }
    }
    for &b in blocks {
        for n in [Node::Block(b), Node::Split(b)] {
            let (start, end) = scratch.succ.get(n).unwrap_or((0, 0));
            for k in start..end {
                if let Some(&t) = scratch.succ_nodes.get(k) {
                    scratch.preds.push(t, n);
                }
            }
        }
    }
    for (i, &b) in blocks.iter().enumerate() {
        scratch.position.insert(b, Some(i));
    }
    let mut initial = std::mem::take(&mut scratch.initial);
    initial.extend(0..constructs.len());
    initial.sort_by_key(|&c| (shapes[c].mlir_splits, scratch.position.get(constructs[c].header)));
    for c in 0..constructs.len() {
        scratch.header_of.insert(header(constructs, shapes, c), Some(c));
    }
    scratch.generation.resize(constructs.len(), 0);
    scratch.done.resize(constructs.len(), false);
    scratch.queue.extend(initial.iter().map(|&c| (c, 0)));
    scratch.initial = initial;
    let mut sim = Sim { s: scratch, constructs, shapes };
    while let Some((c, g)) = sim.s.queue.pop_front() {
        if sim.s.done[c] || sim.s.generation[c] != g {
            continue;
        }
        sim.s.done[c] = true;
        sim.rewrite(c);
        let s = &mut *sim.s;
        for &n in &s.met {
            if let Some(d) = s.header_of.get(n) {
                if !s.done[d] {
                    s.generation[d] += 1;
                    s.queue.push_back((d, s.generation[d]));
                }
            }
        }
    }
}

/// Whether MLIR splits the header of `c` (a selection header holding more than its
/// branch, or also the merge block of another construct).
pub(super) fn mlir_splits(ir: &Ir, c: &Construct, header_is_merge: bool) -> bool {
    c.kind == Kind::Selection && (ir.block(c.header).ops.len() != 1 || header_is_merge)
}
