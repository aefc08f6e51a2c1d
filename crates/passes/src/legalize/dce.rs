//! `--spirv-dce`: dead code left by inlining and mem2reg removed from a function:
//! side-effect-free ops whose results are unused, and Function variables only ever
//! stored to (with their stores).

use super::util;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId, Value};
use spirvkit_ir::opdef::op_has_trait;
use spirvkit_ir::types::TypeKind;

/// Ops without side effects MLIR does not mark `Pure` (loads may trap in no way
/// SPIR-V defines; an unused one can go).
const REMOVABLE: &[&str] = &[
    "spirv.Load",
    "spirv.AccessChain",
    "spirv.InBoundsPtrAccessChain",
    "spirv.PtrAccessChain",
    "spirv.Variable",
    "spirv.Undef",
    "spirv.Constant",
    "spirv.mlir.addressof",
    "spirv.SampledImage",
    "spirv.CompositeConstruct",
    "spirv.CompositeExtract",
    "spirv.CompositeInsert",
];

/// Removes `func`'s dead ops until none is left (after forwarding extracts of
/// composites built in place, which SROA's whole loads and stores leave).
pub fn run(ir: &mut Ir, func: OpId) {
    forward_extracts(ir, func);
    loop {
        let mut uses: FxHashMap<Value, usize> = FxHashMap::default();
        let ops = ir.ops_under(func);
        for &(_, op) in &ops {
            for &v in &ir.op(op).operands {
                *uses.entry(v).or_default() += 1;
            }
        }
        let stores_only = store_only_variables(ir, &ops, &uses);
        let mut removed = false;
        for &(_, op) in &ops {
            let o = ir.op(op);
            if stores_only.contains(&op) {
                ir.erase_op(op);
                removed = true;
                continue;
            }
            if !o.regions.is_empty() || o.results.is_empty() {
                continue;
            }
            let removable = REMOVABLE.contains(&o.name.as_str()) || op_has_trait(&o.name, "Pure");
            if removable && o.results.iter().all(|r| !uses.contains_key(r)) {
                ir.erase_op(op);
                removed = true;
            }
        }
        if !removed {
            break;
        }
    }
}

/// `spirv.CompositeExtract %c[i, ...]` of a `spirv.CompositeConstruct` holding one
/// operand per member reads that operand (then its `[...]`) directly.
fn forward_extracts(ir: &mut Ir, func: OpId) {
    let mut replace: FxHashMap<Value, Value> = FxHashMap::default();
    for (block, op) in ir.ops_under(func) {
        if ir.op(op).name != "spirv.CompositeExtract" {
            continue;
        }
        let Some(&composite) = ir.op(op).operands.first() else { continue };
        let composite = util::resolve(&replace, composite);
        let Some(construct) = util::defining_op(ir, composite) else { continue };
        if ir.op(construct).name != "spirv.CompositeConstruct" {
            continue;
        }
        let Some(Attribute::Array(indices)) = ir.op(op).attr("indices").cloned() else { continue };
        let Some(Attribute::Integer { value, .. }) = indices.first() else { continue };
        let members = member_count(ir, ir.value_type(composite));
        let parts = &ir.op(construct).operands;
        let Some(&part) =
            usize::try_from(*value).ok().filter(|_| members == Some(parts.len())).and_then(|i| parts.get(i))
        else {
            continue;
        };
        let result = ir.op(op).results[0];
        if indices.len() == 1 {
            replace.insert(result, part);
        } else {
            let ty = ir.value_type(result);
            let location = ir.op(op).location.clone();
            let inner =
                util::insert_before(ir, block, op, "spirv.CompositeExtract", vec![part], &[ty], location);
            ir.set_property(inner, "indices", Attribute::Array(indices[1..].to_vec()));
            replace.insert(result, ir.op(inner).results[0]);
        }
    }
    util::replace_uses(ir, func, &replace);
}

/// The member count of a struct or sized array type.
fn member_count(ir: &Ir, ty: spirvkit_ir::types::Type) -> Option<usize> {
    match ir.types.kind(ty) {
        TypeKind::LiteralStruct(body) => Some(body.members.len()),
        TypeKind::IdentifiedStruct { name } => ir.types.struct_body(name).map(|b| b.members.len()),
        TypeKind::Array { count, spec_length: None, .. } => Some(*count as usize),
        _ => None,
    }
}

/// Function variables whose every use is the pointer of a store, with those stores.
fn store_only_variables(
    ir: &Ir,
    ops: &[(spirvkit_ir::ir::BlockId, OpId)],
    uses: &FxHashMap<Value, usize>,
) -> Vec<OpId> {
    let mut stores: FxHashMap<Value, Vec<OpId>> = FxHashMap::default();
    for &(_, op) in ops {
        let o = ir.op(op);
        if o.name == "spirv.Store" {
            stores.entry(o.operands[0]).or_default().push(op);
        }
    }
    let mut out = Vec::new();
    for &(_, op) in ops {
        let o = ir.op(op);
        if o.name != "spirv.Variable" {
            continue;
        }
        let var = o.results[0];
        if !matches!(util::pointer_parts(ir, ir.value_type(var)), Some((_, "Function"))) {
            continue;
        }
        let store_list = stores.get(&var).map(Vec::as_slice).unwrap_or(&[]);
        let only_stores = uses.get(&var).copied().unwrap_or(0) == store_list.len()
            && store_list.iter().all(|&s| ir.op(s).operands.get(1) != Some(&var));
        if only_stores && !store_list.is_empty() {
            out.push(op);
            out.extend(store_list.iter().copied());
        }
    }
    out
}
