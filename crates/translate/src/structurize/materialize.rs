//! Values the structurizer adds to branches (guard flags, `spirv.Undef` fillers) are
//! put where the deserializer would have materialized them, had the binary been read
//! with the branches already in place: a fresh op right before each use. Otherwise a
//! binary -> IR -> binary -> IR round trip would read them back elsewhere (as the
//! deserializer reads any constant: at its use) and the IR would not settle.

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::ir::{BlockId, Location, Value, ValueDef};
use spirvkit_ir::{Ir, OpId};

/// The ops the deserializer creates at each use of a module-level value (no operands,
/// no regions: spec constant operations, which carry their operands, are left alone).
fn materialized_at_use(ir: &Ir, op: OpId) -> bool {
    let o = ir.op(op);
    o.operands.is_empty()
        && o.regions.is_empty()
        && o.results.len() == 1
        && matches!(
            o.name.as_str(),
            "spirv.Constant"
                | "spirv.Undef"
                | "spirv.mlir.addressof"
                | "spirv.mlir.referenceof"
                | "spirv.EXT.ConstantCompositeReplicate"
        )
}

/// Rewrites each `(home, terminator_block)`: every use of a materialized value by an
/// op of `home` gets its own copy right before that op; when `terminator_block` is
/// not `home` (a selection header split from its terminator), the terminator of
/// `terminator_block` counts as standing before `home`'s (the two are one block of
/// the binary). Originals left without uses are dropped.
pub(super) fn rematerialize(ir: &mut Ir, func: OpId, touched: &[(BlockId, BlockId)]) {
    if touched.is_empty() {
        return;
    }
    let mut uses: FxHashMap<Value, usize> = FxHashMap::default();
    ir.for_each_op_under(func, |_, op| {
        for &v in &ir.op(op).operands {
            *uses.entry(v).or_default() += 1;
        }
    });
    let mut dropped: FxHashSet<OpId> = FxHashSet::default();
    let mut seen: FxHashSet<(BlockId, BlockId)> = FxHashSet::default();
    for &(home, terminator_block) in touched {
        if !seen.insert((home, terminator_block)) {
            continue;
        }
        let old_ops = ir.block(home).ops.clone();
        let split_terminator =
            if terminator_block == home { None } else { ir.block(terminator_block).ops.last().copied() };
        let mut new_ops = Vec::with_capacity(old_ops.len() + 4);
        for (index, &op) in old_ops.iter().enumerate() {
            if index + 1 == old_ops.len() {
                if let Some(t) = split_terminator {
                    copy_operands(ir, t, &mut new_ops, &mut uses, &mut dropped);
                }
            }
            copy_operands(ir, op, &mut new_ops, &mut uses, &mut dropped);
            new_ops.push(op);
        }
        for &op in &new_ops {
            ir.op_mut(op).parent = Some(home);
        }
        ir.block_mut(home).ops = new_ops;
    }
    let mut blocks: FxHashSet<BlockId> = FxHashSet::default();
    for &op in &dropped {
        if let Some(b) = ir.op(op).parent {
            blocks.insert(b);
        }
    }
    for b in blocks {
        let kept: Vec<OpId> = ir.block(b).ops.iter().copied().filter(|o| !dropped.contains(o)).collect();
        ir.block_mut(b).ops = kept;
    }
    for op in dropped {
        ir.op_mut(op).parent = None;
    }
}

/// Gives each materialized operand of `user` a copy of its own, pushed to `out`.
fn copy_operands(
    ir: &mut Ir,
    user: OpId,
    out: &mut Vec<OpId>,
    uses: &mut FxHashMap<Value, usize>,
    dropped: &mut FxHashSet<OpId>,
) {
    for index in 0..ir.op(user).operands.len() {
        let v = ir.op(user).operands[index];
        let ValueDef::Result { op: def, .. } = ir.value(v).def else { continue };
        if !materialized_at_use(ir, def) {
            continue;
        }
        let original = ir.op(def);
        let (name, properties, attributes) =
            (original.name.clone(), original.properties.clone(), original.attributes.clone());
        let copy = ir.create_op(name, Vec::new(), &[ir.value_type(v)], Location::Unknown);
        ir.op_mut(copy).properties = properties;
        ir.op_mut(copy).attributes = attributes;
        let fresh = ir.op(copy).results[0];
        ir.op_mut(user).operands[index] = fresh;
        uses.insert(fresh, 1);
        out.push(copy);
        if let Some(count) = uses.get_mut(&v) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                dropped.insert(def);
            }
        }
    }
}
