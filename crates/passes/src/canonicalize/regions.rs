//! Region simplification after each driver iteration (MLIR's `simplifyRegions`
//! without block merging): unreachable blocks are erased, then dead code — ops
//! that would be trivially dead once their results' live users are counted, and
//! arguments of non-entry blocks that no live op needs, with the branch operands
//! feeding them.

use super::driver::{has_trait, would_be_trivially_dead, Rewriter};
use spirvkit_grammar::fxhash::FxHashSet;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{BlockId, Ir, OpId, RegionId, Value, ValueDef};

/// Simplifies the rewriter's scope; whether blocks or ops were erased.
pub(crate) fn simplify(rw: &mut Rewriter) -> bool {
    let scope = rw.scope();
    let erased_blocks = erase_unreachable_blocks(rw, scope);
    let erased_ops = run_region_dce(rw, scope);
    erased_blocks | erased_ops
}

/// The blocks a block's terminator may branch to.
fn successors(ir: &Ir, block: BlockId) -> Vec<BlockId> {
    ir.block(block).ops.last().map(|&t| ir.op(t).successors.to_vec()).unwrap_or_default()
}

/// The blocks of `region` reachable from its entry, in depth-first post-order.
fn post_order(ir: &Ir, region: RegionId) -> Vec<BlockId> {
    let Some(&entry) = ir.region(region).blocks.first() else { return Vec::new() };
    let mut out = Vec::new();
    let mut visited = FxHashSet::default();
    visited.insert(entry);
    let mut stack = vec![(entry, successors(ir, entry), 0usize)];
    while let Some((block, succs, next)) = stack.last_mut() {
        if let Some(&s) = succs.get(*next) {
            *next += 1;
            if visited.insert(s) {
                let s_succs = successors(ir, s);
                stack.push((s, s_succs, 0));
            }
        } else {
            out.push(*block);
            stack.pop();
        }
    }
    out
}

fn erase_block(rw: &mut Rewriter, region: RegionId, block: BlockId) {
    for op in rw.ir.block(block).ops.clone().into_iter().rev() {
        rw.erase_op(op);
    }
    rw.ir.region_mut(region).blocks.retain(|&b| b != block);
    rw.ir.block_mut(block).parent = None;
}

fn erase_unreachable_blocks(rw: &mut Rewriter, scope: RegionId) -> bool {
    let mut erased = false;
    let mut worklist = vec![scope];
    while let Some(region) = worklist.pop() {
        let blocks = rw.ir.region(region).blocks.clone();
        if blocks.len() == 1 {
            for &op in &rw.ir.block(blocks[0]).ops {
                worklist.extend(rw.ir.op(op).regions.iter().copied());
            }
            continue;
        }
        let reachable: FxHashSet<BlockId> = post_order(rw.ir, region).into_iter().collect();
        for block in blocks {
            if !reachable.contains(&block) {
                erase_block(rw, region, block);
                erased = true;
                continue;
            }
            for &op in &rw.ir.block(block).ops {
                worklist.extend(rw.ir.op(op).regions.iter().copied());
            }
        }
    }
    erased
}

/// Liveness as MLIR's region DCE proves it.
#[derive(Default)]
struct Live {
    ops: FxHashSet<OpId>,
    values: FxHashSet<Value>,
    changed: bool,
}

impl Live {
    fn mark_op(&mut self, op: OpId) {
        self.changed |= self.ops.insert(op);
    }

    fn mark_value(&mut self, v: Value) {
        self.changed |= self.values.insert(v);
    }
}

fn is_terminator(ir: &Ir, op: OpId) -> bool {
    has_trait(ir, op, "Terminator")
}

/// Whether the use of `v` as operand `slot` of `user` is known dead: a branch
/// operand feeding a block argument not (yet) proven live.
fn use_known_dead(ir: &Ir, user: OpId, slot: usize, live: &Live) -> bool {
    if !is_terminator(ir, user) {
        return false;
    }
    let Some(ranges) = ir.successor_operand_ranges(user) else { return false };
    for (i, r) in ranges.iter().enumerate() {
        if r.contains(&slot) {
            let Some(&successor) = ir.op(user).successors.get(i) else { return false };
            return match ir.block(successor).arguments.get(slot - r.start) {
                Some(arg) => !live.values.contains(arg),
                None => false,
            };
        }
    }
    false
}

fn process_value(rw: &Rewriter, v: Value, live: &mut Live) {
    let ir = &*rw.ir;
    let mut users: Vec<OpId> = rw.uses(v).to_vec();
    users.dedup();
    let proven = users.iter().any(|&user| {
        live.ops.contains(&user)
            && ir
                .op(user)
                .operands
                .iter()
                .enumerate()
                .any(|(slot, &x)| x == v && !use_known_dead(ir, user, slot, live))
    });
    if proven {
        // A result is live with its op.
        match ir.value(v).def {
            ValueDef::Result { op, .. } => live.mark_op(op),
            ValueDef::Argument { .. } => live.mark_value(v),
        }
    }
}

fn propagate_region(rw: &Rewriter, region: RegionId, live: &mut Live) {
    let Some(&entry) = rw.ir.region(region).blocks.first() else { return };
    for block in post_order(rw.ir, region) {
        for op in rw.ir.block(block).ops.clone().into_iter().rev() {
            propagate_op(rw, op, live);
        }
        if block == entry {
            continue;
        }
        for arg in rw.ir.block(block).arguments.clone() {
            if !live.values.contains(&arg) {
                process_value(rw, arg, live);
            }
        }
    }
}

fn propagate_op(rw: &Rewriter, op: OpId, live: &mut Live) {
    let ir = &*rw.ir;
    for r in ir.op(op).regions.clone() {
        propagate_region(rw, r, live);
    }
    if is_terminator(ir, op) {
        live.mark_op(op);
        // Arguments fed by a terminator that is not a known branch stay alive.
        if ir.successor_operand_ranges(op).is_none() {
            for s in ir.op(op).successors.clone() {
                for arg in ir.block(s).arguments.clone() {
                    live.mark_value(arg);
                }
            }
        }
        return;
    }
    if live.ops.contains(&op) {
        return;
    }
    if !would_be_trivially_dead(ir, op) {
        live.mark_op(op);
        return;
    }
    for r in ir.op(op).results.clone() {
        process_value(rw, r, live);
    }
}

/// Drops the operands a branch forwards to arguments that are not live.
fn erase_dead_successor_operands(rw: &mut Rewriter, terminator: OpId, live: &Live) {
    let Some(ranges) = rw.ir.successor_operand_ranges(terminator) else { return };
    let o = rw.ir.op(terminator);
    let mut keep = vec![true; o.operands.len()];
    let mut counts: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
    for (i, r) in ranges.iter().enumerate() {
        let Some(&successor) = o.successors.get(i) else { continue };
        for slot in r.clone() {
            let arg = rw.ir.block(successor).arguments.get(slot - r.start);
            if arg.is_some_and(|a| !live.values.contains(a)) {
                keep[slot] = false;
                counts[i] -= 1;
            }
        }
    }
    if keep.iter().all(|&k| k) {
        return;
    }
    let operands: Vec<Value> = o.operands.iter().zip(&keep).filter(|(_, &k)| k).map(|(&v, _)| v).collect();
    let name = o.name.clone();
    rw.set_operands(terminator, operands);
    let i32t = rw.ir.types.integer(32, spirvkit_ir::types::Signedness::Signless);
    let array = |values: &[usize]| Attribute::DenseArray {
        element: i32t,
        values: values.iter().map(|&n| Attribute::Integer { value: n as i128, ty: i32t }).collect(),
    };
    match name.as_str() {
        "spirv.BranchConditional" => {
            rw.ir.set_property(terminator, "operandSegmentSizes", array(&[1, counts[0], counts[1]]))
        }
        "spirv.Switch" => {
            let cases = &counts[1..];
            rw.ir.set_property(terminator, "operandSegmentSizes", array(&[1, counts[0], cases.iter().sum()]));
            rw.ir.set_property(terminator, "case_operand_segments", array(cases));
        }
        _ => {}
    }
}

fn delete_dead(rw: &mut Rewriter, regions: &[RegionId], live: &Live) -> bool {
    let mut erased = false;
    for &region in regions {
        let blocks = rw.ir.region(region).blocks.clone();
        if blocks.is_empty() {
            continue;
        }
        let single = blocks.len() == 1;
        for block in post_order(rw.ir, region) {
            if !single {
                if let Some(&terminator) = rw.ir.block(block).ops.last() {
                    erase_dead_successor_operands(rw, terminator, live);
                }
            }
            for op in rw.ir.block(block).ops.clone().into_iter().rev() {
                if !live.ops.contains(&op) {
                    rw.erase_op(op);
                    erased = true;
                } else {
                    let nested = rw.ir.op(op).regions.clone();
                    erased |= delete_dead(rw, &nested, live);
                }
            }
        }
        for &block in blocks.iter().skip(1) {
            let dead: Vec<usize> = rw
                .ir
                .block(block)
                .arguments
                .iter()
                .enumerate()
                .filter(|(_, a)| !live.values.contains(a))
                .map(|(i, _)| i)
                .collect();
            for i in dead.into_iter().rev() {
                rw.ir.erase_block_argument(block, i);
            }
        }
    }
    erased
}

fn run_region_dce(rw: &mut Rewriter, scope: RegionId) -> bool {
    let mut live = Live::default();
    loop {
        live.changed = false;
        propagate_region(rw, scope, &mut live);
        if !live.changed {
            break;
        }
    }
    delete_dead(rw, &[scope], &live)
}

#[cfg(test)]
mod tests {
    use crate::canonicalize::tests::canonicalized;

    #[test]
    fn dead_block_arguments_and_unreachable_blocks_go() {
        let source = r#"func.func @loop(%n: i32, %p: !spirv.ptr<i32, Function>) -> () {
  %c0 = spirv.Constant 0 : i32
  %c1 = spirv.Constant 1 : i32
  spirv.mlir.loop {
    spirv.Branch ^header(%c0, %c0 : i32, i32)
  ^header(%i: i32, %dead: i32):
    %cmp = spirv.SLessThan %i, %n : i32
    spirv.BranchConditional %cmp, ^body, ^merge
  ^body:
    %c2 = spirv.Constant 2 : i32
    %x = spirv.IMul %c2, %c1 : i32
    spirv.Store "Function" %p, %x : i32
    %d2 = spirv.IAdd %dead, %c1 : i32
    spirv.Branch ^continue
  ^continue:
    %i2 = spirv.IAdd %i, %c1 : i32
    spirv.Branch ^header(%i2, %d2 : i32, i32)
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}
func.func @unreach(%x: i32) -> i32 {
  %c1 = spirv.Constant 1 : i32
  spirv.Branch ^bb2(%c1 : i32)
^bb1(%a: i32):
  %y = spirv.IAdd %a, %x : i32
  spirv.Branch ^bb2(%y : i32)
^bb2(%b: i32):
  spirv.ReturnValue %b : i32
}"#;
        let expected = r#"module {
  func.func @loop(%arg0: i32, %arg1: !spirv.ptr<i32, Function>) {
    %cst2_i32 = spirv.Constant 2 : i32
    %cst0_i32 = spirv.Constant 0 : i32
    %cst1_i32 = spirv.Constant 1 : i32
    spirv.mlir.loop {
      spirv.Branch ^bb1(%cst0_i32 : i32)
    ^bb1(%0: i32):  // 2 preds: ^bb0, ^bb3
      %1 = spirv.SLessThan %0, %arg0 : i32
      spirv.BranchConditional %1, ^bb2, ^bb4
    ^bb2:  // pred: ^bb1
      spirv.Store "Function" %arg1, %cst2_i32 : i32
      spirv.Branch ^bb3
    ^bb3:  // pred: ^bb2
      %2 = spirv.IAdd %0, %cst1_i32 : i32
      spirv.Branch ^bb1(%2 : i32)
    ^bb4:  // pred: ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  func.func @unreach(%arg0: i32) -> i32 {
    %cst1_i32 = spirv.Constant 1 : i32
    spirv.Branch ^bb1(%cst1_i32 : i32)
  ^bb1(%0: i32):  // pred: ^bb0
    spirv.ReturnValue %0 : i32
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }
}
