//! Dominance of SSA values as MLIR's verifier defines it: in a region with SSA
//! dominance (SSACFG, the default), a value may be used only where its definition
//! dominates the use; a use in a nested region is judged at its ancestor op in the
//! definition's region; graph regions (`builtin.module`, unregistered ops) have no
//! order. Blocks' dominance comes from a dominator tree per region, built on demand
//! (Cooper, Harvey and Kennedy's iterative algorithm) and kept for later queries.

use crate::ir::{BlockId, Ir, OpId, RegionId, Value, ValueDef};
use spirvkit_grammar::fxhash::FxHashMap;

/// The dominator tree of one region's blocks, by their position in the region.
struct RegionTree {
    /// Position of each block in the region's block list.
    position: FxHashMap<BlockId, u32>,
    /// Preorder and postorder numbers of each block in the dominator tree;
    /// `UNREACHABLE` for blocks the entry block does not reach.
    pre: Vec<u32>,
    post: Vec<u32>,
}

const UNREACHABLE: u32 = u32::MAX;

impl RegionTree {
    fn new(ir: &Ir, region: RegionId) -> RegionTree {
        let blocks = &ir.region(region).blocks;
        let n = blocks.len();
        let position: FxHashMap<BlockId, u32> =
            blocks.iter().enumerate().map(|(i, &b)| (b, i as u32)).collect();
        // Successors within the region, from each block's terminator (its last op).
        let successors: Vec<Vec<u32>> = blocks
            .iter()
            .map(|&b| match ir.block(b).ops.last() {
                Some(&t) => ir.op(t).successors.iter().filter_map(|s| position.get(s).copied()).collect(),
                None => Vec::new(),
            })
            .collect();
        // Reverse postorder from the entry block (an explicit stack: the graph is input).
        let mut order = Vec::with_capacity(n); // postorder
        let mut visited = vec![false; n];
        if n > 0 {
            let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
            visited[0] = true;
            while let Some(top) = stack.last_mut() {
                let (block, next) = *top;
                if let Some(&s) = successors[block as usize].get(next) {
                    top.1 += 1;
                    if !visited[s as usize] {
                        visited[s as usize] = true;
                        stack.push((s, 0));
                    }
                } else {
                    order.push(block);
                    stack.pop();
                }
            }
        }
        let mut rpo_number = vec![UNREACHABLE; n];
        for (i, &b) in order.iter().rev().enumerate() {
            rpo_number[b as usize] = i as u32;
        }
        let mut predecessors: Vec<Vec<u32>> = vec![Vec::new(); n];
        for (b, succ) in successors.iter().enumerate() {
            if rpo_number[b] != UNREACHABLE {
                for &s in succ {
                    predecessors[s as usize].push(b as u32);
                }
            }
        }
        // Immediate dominators, iterated to the fixed point in reverse postorder.
        let mut idom = vec![UNREACHABLE; n];
        if n > 0 {
            idom[0] = 0;
        }
        let intersect = |idom: &[u32], mut a: u32, mut b: u32| {
            while a != b {
                while rpo_number[a as usize] > rpo_number[b as usize] {
                    a = idom[a as usize];
                }
                while rpo_number[b as usize] > rpo_number[a as usize] {
                    b = idom[b as usize];
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in order.iter().rev().skip(1) {
                let mut new_idom = UNREACHABLE;
                for &p in &predecessors[b as usize] {
                    if idom[p as usize] == UNREACHABLE {
                        continue;
                    }
                    new_idom = if new_idom == UNREACHABLE { p } else { intersect(&idom, p, new_idom) };
                }
                if new_idom != idom[b as usize] {
                    idom[b as usize] = new_idom;
                    changed = true;
                }
            }
        }
        // Pre/post numbers of the dominator tree: `a` dominates `b` when `b`'s
        // interval lies in `a`'s.
        let mut children: Vec<Vec<u32>> = vec![Vec::new(); n];
        for &b in order.iter().rev().skip(1) {
            children[idom[b as usize] as usize].push(b);
        }
        let mut pre = vec![UNREACHABLE; n];
        let mut post = vec![UNREACHABLE; n];
        let mut counter = 0u32;
        if n > 0 {
            let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
            pre[0] = counter;
            counter += 1;
            while let Some(top) = stack.last_mut() {
                let (block, next) = *top;
                if let Some(&child) = children[block as usize].get(next) {
                    top.1 += 1;
                    pre[child as usize] = counter;
                    counter += 1;
                    stack.push((child, 0));
                } else {
                    post[block as usize] = counter;
                    counter += 1;
                    stack.pop();
                }
            }
        }
        RegionTree { position, pre, post }
    }

    fn index(&self, block: BlockId) -> Option<usize> {
        self.position.get(&block).map(|&i| i as usize)
    }

    fn is_reachable(&self, block: BlockId) -> bool {
        self.index(block).is_some_and(|i| self.pre[i] != UNREACHABLE)
    }

    /// Whether `a` dominates `b`, `b` != `a`, both of this region. As in LLVM's and
    /// MLIR's trees, an unreachable block is dominated by every block.
    fn properly_dominates(&self, a: BlockId, b: BlockId) -> bool {
        let (Some(a), Some(b)) = (self.index(a), self.index(b)) else { return false };
        if a == b {
            return false;
        }
        if self.pre[b] == UNREACHABLE {
            return true;
        }
        self.pre[a] != UNREACHABLE && self.pre[a] < self.pre[b] && self.post[b] < self.post[a]
    }
}

/// Dominance queries on one IR, with the trees and block positions computed so far.
#[derive(Default)]
pub struct Dominance {
    trees: FxHashMap<RegionId, RegionTree>,
    /// Position of ops in their block, filled a block at a time.
    op_positions: FxHashMap<OpId, u32>,
}

/// Whether the regions of `op` order their values (SSACFG): every registered op but
/// `builtin.module`; an unregistered op may hold graph regions, so it is not judged.
fn has_ssa_dominance(ir: &Ir, op: OpId) -> bool {
    let name = &ir.op(op).name;
    name.is_known() || *name == "func.func"
}

impl Dominance {
    fn tree(&mut self, ir: &Ir, region: RegionId) -> &RegionTree {
        self.trees.entry(region).or_insert_with(|| RegionTree::new(ir, region))
    }

    fn position(&mut self, ir: &Ir, op: OpId) -> u32 {
        if let Some(&p) = self.op_positions.get(&op) {
            return p;
        }
        if let Some(block) = ir.op(op).parent {
            for (i, &o) in ir.block(block).ops.iter().enumerate() {
                self.op_positions.insert(o, i as u32);
            }
        }
        self.op_positions.get(&op).copied().unwrap_or(UNREACHABLE)
    }

    /// Whether MLIR checks the operands of `user`: its block is reachable in its region
    /// (dominance means nothing in unreachable code).
    pub fn is_checked(&mut self, ir: &Ir, user: OpId) -> bool {
        let Some(block) = ir.op(user).parent else { return false };
        let Some(region) = ir.block(block).parent else { return false };
        if ir.region(region).blocks.len() == 1 {
            return true;
        }
        self.tree(ir, region).is_reachable(block)
    }

    /// Whether the definition of `value` properly dominates its use by `user` (false
    /// also when the value is not visible there at all: defined in a region that does
    /// not enclose the use). Detached definitions or uses cannot be judged: true.
    pub fn dominates_use(&mut self, ir: &Ir, value: Value, user: OpId) -> bool {
        let (def_block, def_op) = match ir.value(value).def {
            ValueDef::Result { op, .. } => match ir.op(op).parent {
                Some(block) => (block, Some(op)),
                None => return true,
            },
            ValueDef::Argument { block, .. } => (block, None),
        };
        let Some(def_region) = ir.block(def_block).parent else { return true };
        // The ancestor of `user` (itself included) in the definition's region.
        let mut ancestor = user;
        let ancestor_block: BlockId = loop {
            let Some(block) = ir.op(ancestor).parent else { return true };
            let Some(region) = ir.block(block).parent else { return true };
            if region == def_region {
                break block;
            }
            match ir.region(region).parent {
                Some(parent) => ancestor = parent,
                // The use is outside every region the value is visible in.
                None => return false,
            }
        };
        match ir.region(def_region).parent {
            Some(owner) if !has_ssa_dominance(ir, owner) => return true,
            _ => {}
        }
        if ancestor_block == def_block {
            return match def_op {
                None => true,
                // A result used inside its own op's regions does not dominate the use.
                Some(def) => def != ancestor && self.position(ir, def) < self.position(ir, ancestor),
            };
        }
        self.tree(ir, def_region).properly_dominates(def_block, ancestor_block)
    }
}

/// The index of the first operand of `user` whose definition does not dominate the use
/// (see [`Dominance::dominates_use`]); `None` when all do or the use is not checked.
pub fn first_non_dominating_operand(dominance: &mut Dominance, ir: &Ir, user: OpId) -> Option<usize> {
    let operands = &ir.op(user).operands;
    if operands.is_empty() || !dominance.is_checked(ir, user) {
        return None;
    }
    operands.iter().position(|&v| !dominance.dominates_use(ir, v, user))
}
