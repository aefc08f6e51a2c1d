//! `-spirv-rewrite-inserts`: a chain of `spirv.CompositeInsert`s that fills every
//! element of a composite in order (indices 0..n) becomes one
//! `spirv.CompositeConstruct`, as MLIR's pass does.

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, Location, OpId, Value, ValueDef};
use spirvkit_ir::types::TypeKind;

/// Rewrites every complete insertion chain under `top`.
pub fn run(ir: &mut Ir, top: OpId) {
    let chains: Vec<_> =
        ir.ops_under(top).into_iter().filter_map(|(_, op)| insertion_chain(ir, op)).collect();
    for chain in chains {
        rewrite(ir, &chain);
    }
}

fn single_index(ir: &Ir, op: OpId) -> Option<i128> {
    match ir.op(op).attr("indices")? {
        Attribute::Array(items) if items.len() == 1 => match &items[0] {
            Attribute::Integer { value, .. } => Some(*value),
            _ => None,
        },
        _ => None,
    }
}

fn element_count(ir: &Ir, v: Value) -> Option<i128> {
    Some(match ir.types.kind(ir.value_type(v)) {
        TypeKind::Vector { shape, .. } => shape.iter().product::<u64>() as i128,
        TypeKind::Array { count, spec_length: None, .. } => *count as i128,
        TypeKind::Matrix { columns, .. } => *columns as i128,
        TypeKind::LiteralStruct(body) => body.members.len() as i128,
        TypeKind::IdentifiedStruct { name } => ir.types.struct_body(name)?.members.len() as i128,
        _ => return None,
    })
}

/// The chain ending at `op` (which must insert the last element), first insert first.
fn insertion_chain(ir: &Ir, op: OpId) -> Option<Vec<OpId>> {
    if ir.op(op).name != "spirv.CompositeInsert" {
        return None;
    }
    let mut index = single_index(ir, op)?;
    let n = element_count(ir, *ir.op(op).operands.get(1)?)?;
    if index + 1 != n {
        return None;
    }
    let mut chain = vec![op];
    let mut current = op;
    while index > 0 {
        let composite = *ir.op(current).operands.get(1)?;
        let ValueDef::Result { op: def, .. } = ir.value(composite).def else { return None };
        if ir.op(def).name != "spirv.CompositeInsert" || single_index(ir, def)? != index - 1 {
            return None;
        }
        chain.push(def);
        current = def;
        index -= 1;
    }
    chain.reverse();
    Some(chain)
}

fn rewrite(ir: &mut Ir, chain: &[OpId]) {
    let last = *chain.last().expect("chains are not empty");
    let Some(block) = ir.op(last).parent else { return };
    let result = ir.op(last).results[0];
    let ty = ir.value_type(result);
    let objects: Vec<Value> = chain.iter().map(|&op| ir.op(op).operands[0]).collect();
    let location: Location = ir.op(last).location.clone();
    let construct = ir.create_op("spirv.CompositeConstruct", objects, &[ty], location);
    ir.insert_op_before(block, last, construct);
    let new_value = ir.op(construct).results[0];
    replace_all_uses(ir, result, new_value);
    // Erase the inserts nothing uses any more, last first.
    for &op in chain.iter().rev() {
        let r = ir.op(op).results[0];
        if !is_used(ir, r) {
            ir.erase_op(op);
        }
    }
}

/// Every op that is attached to a block (reachable or not is not tracked here).
fn attached_ops(ir: &Ir) -> impl Iterator<Item = OpId> + '_ {
    ir.op_ids().filter(move |&op| ir.op(op).parent.is_some())
}

fn replace_all_uses(ir: &mut Ir, old: Value, new: Value) {
    let ops: Vec<OpId> = attached_ops(ir).collect();
    for op in ops {
        for v in ir.op_mut(op).operands.iter_mut() {
            if *v == old {
                *v = new;
            }
        }
    }
}

fn is_used(ir: &Ir, v: Value) -> bool {
    attached_ops(ir).any(|op| ir.op(op).operands.contains(&v))
}
