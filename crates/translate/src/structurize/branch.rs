//! Reading and rewriting the successors of branch terminators (`spirv.Branch`,
//! `spirv.BranchConditional`, `spirv.Switch`) together with the operands each
//! forwards to its successor's arguments.

use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::BlockId;
use spirvkit_ir::types::Signedness;
use spirvkit_ir::{Ir, OpId};

/// The successors of the terminator of `block` (empty when it has none).
pub(super) fn successors(ir: &Ir, block: BlockId) -> &[BlockId] {
    match ir.block(block).ops.last() {
        Some(&t) => &ir.op(t).successors,
        None => &[],
    }
}

/// The terminator of `block`, if its last op has successors or is any op at all.
pub(super) fn terminator(ir: &Ir, block: BlockId) -> Option<OpId> {
    ir.block(block).ops.last().copied()
}

fn i32_array(ir: &mut Ir, counts: &[usize]) -> Attribute {
    let i32t = ir.types.integer(32, Signedness::Signless);
    Attribute::DenseArray {
        element: i32t,
        values: counts.iter().map(|&n| Attribute::Integer { value: n as i128, ty: i32t }).collect(),
    }
}

/// Replaces successor `index` of the branch `op` by `target`, forwarding `operands`.
/// The caller has checked with [`Ir::successor_operand_ranges`] that `op` is a branch.
pub(super) fn set_successor(
    ir: &mut Ir,
    op: OpId,
    index: usize,
    target: BlockId,
    operands: Vec<spirvkit_ir::ir::Value>,
) {
    let Some(ranges) = ir.successor_operand_ranges(op) else { return };
    let Some(range) = ranges.get(index).cloned() else { return };
    let name = ir.op(op).name.as_str().to_string();
    let added = operands.len();
    {
        let o = ir.op_mut(op);
        o.operands.splice(range.clone(), operands);
        if let Some(s) = o.successors.get_mut(index) {
            *s = target;
        }
    }
    let mut counts: Vec<usize> = ranges.iter().map(|r| r.len()).collect();
    counts[index] = added;
    match name.as_str() {
        "spirv.BranchConditional" => {
            let sizes = i32_array(ir, &[1, counts[0], counts[1]]);
            ir.set_property(op, "operandSegmentSizes", sizes);
        }
        "spirv.Switch" => {
            let cases = i32_array(ir, &counts[1..]);
            let sizes = i32_array(ir, &[1, counts[0], counts[1..].iter().sum()]);
            ir.set_property(op, "case_operand_segments", cases);
            ir.set_property(op, "operandSegmentSizes", sizes);
        }
        _ => {}
    }
}

/// A new `spirv.BranchConditional %cond, ^t(t_args), ^f(f_args)`.
pub(super) fn branch_conditional(
    ir: &mut Ir,
    cond: spirvkit_ir::ir::Value,
    (t, t_args): (BlockId, Vec<spirvkit_ir::ir::Value>),
    (f, f_args): (BlockId, Vec<spirvkit_ir::ir::Value>),
) -> OpId {
    let sizes = i32_array(ir, &[1, t_args.len(), f_args.len()]);
    let mut operands = vec![cond];
    operands.extend(t_args);
    operands.extend(f_args);
    let op = ir.create_op("spirv.BranchConditional", operands, &[], Default::default());
    ir.op_mut(op).successors = vec![t, f];
    ir.op_mut(op).properties = vec![NamedAttribute::new("operandSegmentSizes", sizes)];
    op
}

/// A new `spirv.Branch ^target(args)`.
pub(super) fn branch(ir: &mut Ir, target: BlockId, args: Vec<spirvkit_ir::ir::Value>) -> OpId {
    let op = ir.create_op("spirv.Branch", args, &[], Default::default());
    ir.op_mut(op).successors = vec![target];
    op
}
