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

/// Whether the regions of `op` order their values (SSACFG): the ops of the dialect
/// tables and `func.func`. `builtin.module` holds a graph region, and MLIR does not
/// judge an unregistered op's regions (they may be graphs).
fn has_ssa_dominance(ir: &Ir, op: OpId) -> bool {
    let name = &ir.op(op).name;
    name.def_index().is_some() || *name == "func.func"
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
        let Some(user_block) = ir.op(user).parent else { return true };
        let mut ancestor = user;
        let mut block = user_block;
        let ancestor_block: BlockId = loop {
            let Some(region) = ir.block(block).parent else { return true };
            if region == def_region {
                break block;
            }
            // Past the outermost op the use is outside every region the value is
            // visible in.
            let Some(parent) = ir.region(region).parent else { return false };
            let Some(parent_block) = ir.op(parent).parent else { return false };
            ancestor = parent;
            block = parent_block;
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

#[cfg(test)]
mod tests {
    /// The first verifier message for a `spirv.func` with `body` (arguments `%c: i1`,
    /// `%i: i32`); empty when it verifies. Expected texts are mlir-opt-22's.
    fn first_error(body: &str) -> String {
        let text = format!(
            "spirv.module Logical GLSL450 {{\n spirv.func @f(%c: i1, %i: i32) \"None\" {{\n{body}\n }}\n}}\n"
        );
        let (ir, top) = crate::parse(&text, "t.mlir").expect("parses");
        crate::verify::verify(&ir, top, &text).first().map(|d| d.message.clone()).unwrap_or_default()
    }

    const NOT_DOMINATED: &str = "'spirv.IAdd' op operand #0 does not dominate this use";

    #[test]
    fn a_use_before_its_definition_in_one_block_is_an_error() {
        let body = "%b = spirv.IAdd %a, %i : i32\n%a = spirv.IAdd %i, %i : i32\nspirv.Return";
        assert_eq!(first_error(body), NOT_DOMINATED);
        let ordered = "%a = spirv.IAdd %i, %i : i32\n%b = spirv.IAdd %a, %i : i32\nspirv.Return";
        assert_eq!(first_error(ordered), "");
    }

    #[test]
    fn a_definition_on_one_arm_does_not_dominate_the_join() {
        let diamond = |entry: &str, then: &str| {
            first_error(&format!(
                "{entry}spirv.BranchConditional %c, ^t, ^e\n^t:\n{then} spirv.Branch ^m\n^e:\n spirv.Branch ^m\n\
                 ^m:\n %b = spirv.IAdd %a, %i : i32\n spirv.Return"
            ))
        };
        let def = "%a = spirv.IAdd %i, %i : i32\n";
        assert_eq!(diamond("", def), NOT_DOMINATED);
        // The entry block dominates every block.
        assert_eq!(diamond(def, ""), "");
    }

    #[test]
    fn a_loop_header_dominates_its_body_and_back_edge() {
        let body =
            "spirv.Branch ^h\n^h:\n %a = spirv.IAdd %i, %i : i32\n spirv.BranchConditional %c, ^b, ^x\n\
                    ^b:\n %b = spirv.IAdd %a, %i : i32\n spirv.Branch ^h\n^x:\n spirv.Return";
        assert_eq!(first_error(body), "");
        // Defined in the body, used in the header (reached first from the entry).
        let backwards =
            "spirv.Branch ^h\n^h:\n %b = spirv.IAdd %a, %i : i32\n spirv.BranchConditional %c, ^b, ^x\n\
                         ^b:\n %a = spirv.IAdd %i, %i : i32\n spirv.Branch ^h\n^x:\n spirv.Return";
        assert_eq!(first_error(backwards), NOT_DOMINATED);
    }

    #[test]
    fn a_use_in_a_nested_region_is_judged_at_its_enclosing_op() {
        let selection = "spirv.mlir.selection {\n spirv.BranchConditional %c, ^t, ^m\n^t:\n \
                         %b = spirv.IAdd %a, %i : i32\n spirv.Branch ^m\n^m:\n spirv.mlir.merge\n}";
        let def = "%a = spirv.IAdd %i, %i : i32";
        assert_eq!(first_error(&format!("{selection}\n{def}\nspirv.Return")), NOT_DOMINATED);
        assert_eq!(first_error(&format!("{def}\n{selection}\nspirv.Return")), "");
    }

    #[test]
    fn uses_in_unreachable_blocks_are_not_judged() {
        // As MLIR: dominance means nothing in a block the entry does not reach.
        let body =
            "spirv.Return\n^u:\n %b = spirv.IAdd %a, %i : i32\n %a = spirv.IAdd %i, %i : i32\n spirv.Return";
        assert_eq!(first_error(body), "");
    }

    #[test]
    fn graph_regions_have_no_order() {
        // The top-level `builtin.module` is a graph region; an unregistered op may be.
        let text = "%u = \"t.use\"(%d) : (i1) -> i1\n%d = \"t.def\"() : () -> i1\n";
        let (ir, top) = crate::parse(text, "t.mlir").expect("parses");
        let messages: Vec<String> =
            crate::verify::verify(&ir, top, text).into_iter().map(|d| d.message).collect();
        assert!(messages.is_empty(), "{messages:?}");
    }

    #[test]
    fn a_value_used_outside_the_region_defining_it_is_an_error() {
        // The parser refuses such text, so the IR is built: a selection's inner value
        // moved to a use after the selection (what a deserializer could produce).
        let body = "spirv.mlir.selection {\n spirv.BranchConditional %c, ^t, ^m\n^t:\n \
                    %a = spirv.IAdd %i, %i : i32\n spirv.Branch ^m\n^m:\n spirv.mlir.merge\n}\n\
                    %b = spirv.IAdd %i, %i : i32\nspirv.Return";
        let text = format!(
            "spirv.module Logical GLSL450 {{\n spirv.func @f(%c: i1, %i: i32) \"None\" {{\n{body}\n }}\n}}\n"
        );
        let (mut ir, top) = crate::parse(&text, "t.mlir").expect("parses");
        assert!(crate::verify::verify(&ir, top, &text).is_empty());
        let adds: Vec<_> = ir
            .ops_under(top)
            .into_iter()
            .map(|(_, op)| op)
            .filter(|&op| ir.op(op).name == "spirv.IAdd")
            .collect();
        let in_selection = |op| ir.parent_op(op).is_some_and(|p| ir.op(p).name == "spirv.mlir.selection");
        let (inner, outer) = if in_selection(adds[0]) { (adds[0], adds[1]) } else { (adds[1], adds[0]) };
        let value = ir.op(inner).results[0];
        ir.op_mut(outer).operands[0] = value;
        let messages: Vec<String> =
            crate::verify::verify(&ir, top, "").into_iter().map(|d| d.message).collect();
        assert_eq!(messages.first().map(String::as_str), Some(NOT_DOMINATED), "{messages:?}");
    }
}
