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
use super::{Construct, Kind};
use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
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

/// How each construct's header is treated.
pub(super) struct HeaderShape {
    /// MLIR splits the header (its work-list group).
    pub mlir_splits: bool,
    /// The rewrite splits the header (the region starts at `Node::Split`).
    pub splits: bool,
}

struct Sim<'a> {
    succ: FxHashMap<Node, Vec<Node>>,
    preds: FxHashMap<Node, Vec<Node>>,
    region: FxHashMap<Node, usize>,
    /// Constructs whose op is in a block, first op first.
    hosted: FxHashMap<Node, Vec<usize>>,
    forward: FxHashMap<BlockId, BlockId>,
    orders: Vec<Vec<Node>>,
    constructs: &'a [Construct],
    shapes: &'a [HeaderShape],
}

impl Sim<'_> {
    fn header(&self, c: usize) -> Node {
        let h = self.constructs[c].header;
        if self.shapes[c].splits {
            Node::Split(h)
        } else {
            Node::Block(h)
        }
    }

    fn resolve(&self, mut b: BlockId) -> BlockId {
        for _ in 0..=self.forward.len() {
            match self.forward.get(&b) {
                Some(&n) => b = n,
                None => break,
            }
        }
        b
    }

    /// The blocks of the regions of the ops in `n`, in order.
    fn children(&self, n: Node) -> Vec<Node> {
        let mut out = Vec::new();
        for &r in self.hosted.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
            out.extend(self.orders[r].iter().copied().filter(|x| self.region.get(x) == Some(&r)));
        }
        out
    }

    /// Simulates rewriting construct `c`; returns the blocks met, in the order MLIR
    /// updates the work list.
    fn rewrite(&mut self, c: usize) -> Vec<Node> {
        let header = self.header(c);
        let merge = Node::Block(self.resolve(self.constructs[c].merge));
        let home = self.region.get(&header).copied();
        let mut order = vec![header];
        let mut seen: FxHashSet<Node> = std::iter::once(header).collect();
        let mut i = 0;
        while let Some(&n) = order.get(i) {
            for &s in self.succ.get(&n).map(Vec::as_slice).unwrap_or(&[]) {
                if s != merge && self.region.get(&s).copied() == home && seen.insert(s) {
                    order.push(s);
                }
            }
            i += 1;
        }
        // Branches into the construct now enter its merge block.
        for p in self.preds.get(&header).cloned().unwrap_or_default() {
            if seen.contains(&p) {
                continue;
            }
            if let Some(succ) = self.succ.get_mut(&p) {
                let mut hit = false;
                for s in succ.iter_mut().filter(|s| **s == header) {
                    *s = merge;
                    hit = true;
                }
                if hit {
                    self.preds.entry(merge).or_default().push(p);
                }
            }
        }
        if let Node::Block(h) = header {
            if let Node::Block(m) = merge {
                self.forward.insert(h, m);
            }
        }
        // The blocks met: each block's nested blocks (post-order), then the block.
        // (Each block once: malformed input must not make the walk cycle.)
        let mut met = Vec::new();
        let mut walked: FxHashSet<Node> = order.iter().copied().collect();
        for &n in &order {
            let mut stack: Vec<(Node, bool)> = Vec::new();
            for x in self.children(n).into_iter().rev() {
                if walked.insert(x) {
                    stack.push((x, false));
                }
            }
            while let Some((x, expanded)) = stack.pop() {
                if expanded {
                    met.push(x);
                } else {
                    stack.push((x, true));
                    for y in self.children(x).into_iter().rev() {
                        if walked.insert(y) {
                            stack.push((y, false));
                        }
                    }
                }
            }
            met.push(n);
        }
        for &n in &order {
            self.region.insert(n, c);
        }
        self.hosted.entry(merge).or_default().insert(0, c);
        self.orders[c] = order;
        met
    }
}

/// For each construct, the position of each block in its region as MLIR orders it.
pub(super) fn mlir_orders(
    ir: &Ir,
    blocks: &[BlockId],
    constructs: &[Construct],
    shapes: &[HeaderShape],
) -> Vec<FxHashMap<Node, usize>> {
    let mut sim = Sim {
        succ: FxHashMap::default(),
        preds: FxHashMap::default(),
        region: FxHashMap::default(),
        hosted: FxHashMap::default(),
        forward: FxHashMap::default(),
        orders: vec![Vec::new(); constructs.len()],
        constructs,
        shapes,
    };
    let split_headers: FxHashSet<BlockId> =
        constructs.iter().zip(shapes).filter(|(_, s)| s.splits).map(|(c, _)| c.header).collect();
    for &b in blocks {
        let targets: Vec<Node> = successors(ir, b).iter().map(|&s| Node::Block(s)).collect();
        if split_headers.contains(&b) {
            sim.succ.insert(Node::Block(b), vec![Node::Split(b)]);
            sim.succ.insert(Node::Split(b), targets);
        } else {
            sim.succ.insert(Node::Block(b), targets);
        }
    }
    for (&n, targets) in &sim.succ {
        for &t in targets {
            sim.preds.entry(t).or_default().push(n);
        }
    }
    let position: FxHashMap<BlockId, usize> = blocks.iter().enumerate().map(|(i, &b)| (b, i)).collect();
    let mut initial: Vec<usize> = (0..constructs.len()).collect();
    initial.sort_by_key(|&c| (shapes[c].mlir_splits, position.get(&constructs[c].header).copied()));
    let header_of: FxHashMap<Node, usize> = (0..constructs.len()).map(|c| (sim.header(c), c)).collect();
    let mut generation = vec![0u32; constructs.len()];
    let mut done = vec![false; constructs.len()];
    let mut queue: VecDeque<(usize, u32)> = initial.into_iter().map(|c| (c, 0)).collect();
    while let Some((c, g)) = queue.pop_front() {
        if done[c] || generation[c] != g {
            continue;
        }
        done[c] = true;
        for n in sim.rewrite(c) {
            if let Some(&d) = header_of.get(&n) {
                if !done[d] {
                    generation[d] += 1;
                    queue.push_back((d, generation[d]));
                }
            }
        }
    }
    sim.orders.iter().map(|o| o.iter().enumerate().map(|(i, &n)| (n, i)).collect()).collect()
}

/// Whether MLIR splits the header of `c` (a selection header holding more than its
/// branch, or also the merge block of another construct).
pub(super) fn mlir_splits(ir: &Ir, c: &Construct, merge_blocks: &FxHashSet<BlockId>) -> bool {
    c.kind == Kind::Selection && (ir.block(c.header).ops.len() != 1 || merge_blocks.contains(&c.header))
}
