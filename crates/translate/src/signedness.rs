//! Integer operands of mixed signedness. SPIR-V lets the integer operands of most
//! integer instructions (`OpIAdd %uint %int_a %uint_b`, `OpIEqual %bool %int %uint`)
//! differ from each other and from the result in signedness, as long as width and
//! component count agree; the dialect's ODS constraints (`SameOperandsAndResultType`,
//! `SameTypeOperands`, `AllTypesMatch<…>`) require one type. The deserializer
//! bridges the difference with a `spirv.Bitcast` to the required type, and the
//! serializer writes the bitcast's operand in its place again, so the binary round
//! trips to the same words.

use std::sync::OnceLock;

use spirvkit_grammar::fxhash::{FxHashMap, FxHashSet};
use spirvkit_ir::ir::Value;
use spirvkit_ir::opdef::{op_def_index, Arity, OpDef, OP_DEFS};
use spirvkit_ir::types::{Type, TypeKind, TypeStore};
use spirvkit_ir::{Ir, OpId};

/// The groups of positions of `def` that must share one type: operands by index,
/// the result at `def.operands.len()`. Empty unless every operand and the result are
/// single values (the groups then name value positions) and the group admits only
/// integer types (where SPIR-V allows mixed signedness; `OpSelect` and the like
/// require one type in SPIR-V too and are never mixed in valid input).
pub(crate) fn same_type_groups(def: &OpDef) -> &'static [Vec<usize>] {
    static GROUPS: OnceLock<Vec<OnceLock<Vec<Vec<usize>>>>> = OnceLock::new();
    let Some(index) = op_def_index(def) else { return &[] };
    let all = GROUPS.get_or_init(|| OP_DEFS.iter().map(|_| OnceLock::new()).collect());
    match all.get(index) {
        Some(slot) => slot.get_or_init(|| groups_of(def)),
        None => &[],
    }
}

fn groups_of(def: &OpDef) -> Vec<Vec<usize>> {
    let single = def.operands.iter().chain(def.results).all(|o| o.arity == Arity::Single);
    if !single || def.results.len() > 1 {
        return Vec::new();
    }
    let n_operands = def.operands.len();
    let names: Vec<&str> = def.operands.iter().chain(def.results).map(|o| o.name).collect();
    let mut groups: Vec<Vec<usize>> = Vec::new();
    if def.traits.contains(&"SameOperandsAndResultType") {
        groups.push((0..names.len()).collect());
    }
    if def.traits.contains(&"SameTypeOperands") {
        groups.push((0..n_operands).collect());
    }
    for t in def.traits {
        if let Some(list) = t.strip_prefix("AllTypesMatch<").and_then(|r| r.strip_suffix('>')) {
            groups.push(list.split(", ").filter_map(|n| names.iter().position(|x| *x == n)).collect());
        }
    }
    let integer_only = |position: usize| {
        let constraint = match def.operands.get(position) {
            Some(o) => o.constraint(),
            None => match def.results.first() {
                Some(r) => r.constraint(),
                None => return false,
            },
        };
        let summary = constraint.summary;
        summary.contains("integer") && !summary.contains("float") && !summary.contains("bool")
    };
    groups.retain(|g| g.len() > 1 && g.iter().all(|&p| integer_only(p)));
    groups
}

/// The operands of an op of `def` (typed `operand_types`, result typed `result`) that
/// differ from their type group's only in signedness, each with the group's type it
/// must be bitcast to: the result's when the result is in the group, else the first
/// operand's. Empty unless every operand of `def` is given.
pub(crate) fn bridges(
    types: &TypeStore,
    def: &OpDef,
    operand_types: &[Type],
    result: Option<Type>,
) -> Vec<(usize, Type)> {
    let groups = same_type_groups(def);
    if groups.is_empty() || operand_types.len() != def.operands.len() {
        return Vec::new();
    }
    let n_operands = operand_types.len();
    let mut current = operand_types.to_vec();
    let mut casts = Vec::new();
    for group in groups {
        let target = match (group.contains(&n_operands), result) {
            (true, Some(ty)) => ty,
            (true, None) => continue,
            (false, _) => match group.first().and_then(|&p| current.get(p)) {
                Some(&ty) => ty,
                None => continue,
            },
        };
        for &position in group {
            let Some(ty) = current.get_mut(position) else { continue };
            if differ_only_in_signedness(types, *ty, target) {
                *ty = target;
                casts.push((position, target));
            }
        }
    }
    casts
}

/// Whether `a` and `b` are integers (or vectors of integers of one shape) that differ
/// only in signedness.
pub(crate) fn differ_only_in_signedness(types: &TypeStore, a: Type, b: Type) -> bool {
    if a == b {
        return false;
    }
    match (types.kind(a), types.kind(b)) {
        (
            TypeKind::Integer { width: wa, signedness: sa },
            TypeKind::Integer { width: wb, signedness: sb },
        ) => wa == wb && sa != sb,
        (
            TypeKind::Vector { shape: sa, scalable: ka, element: ea },
            TypeKind::Vector { shape: sb, scalable: kb, element: eb },
        ) => sa == sb && ka == kb && differ_only_in_signedness(types, *ea, *eb),
        _ => false,
    }
}

/// The discardable attribute that marks the bitcasts the deserializer made: an
/// `OpBitcast` of the input (`asuint(i) + u`) must stay one.
pub(crate) const MARKER: &str = "spirvkit.mixed_signedness";

pub(crate) fn marker() -> spirvkit_ir::attr::NamedAttribute {
    spirvkit_ir::attr::NamedAttribute::new(MARKER, spirvkit_ir::attr::Attribute::Unit)
}

/// The operand of `op` when `op` is one of the reader's bridges: a `spirv.Bitcast` that
/// changes only signedness and carries only [`MARKER`], or a
/// `spirv.SpecConstantOperation` wrapping such a bitcast (the bridge of an operand of
/// an `OpSpecConstantOp`).
pub(crate) fn bridged_source(ir: &Ir, op: OpId) -> Option<Value> {
    let o = ir.op(op);
    let bitcast = match o.name.as_str() {
        "spirv.Bitcast" => op,
        "spirv.SpecConstantOperation" if o.attributes.is_empty() => {
            let block = ir.entry_block(op)?;
            match ir.block(block).ops.as_slice() {
                [inner, yield_op]
                    if ir.op(*yield_op).operands.as_slice() == ir.op(*inner).results.as_slice() =>
                {
                    *inner
                }
                _ => return None,
            }
        }
        _ => return None,
    };
    let b = ir.op(bitcast);
    let marked = matches!(b.attributes.as_slice(), [a] if a.name == MARKER);
    if b.name != "spirv.Bitcast" || !b.properties.is_empty() || !marked {
        return None;
    }
    let ([source], [result]) = (b.operands.as_slice(), o.results.as_slice()) else { return None };
    differ_only_in_signedness(&ir.types, ir.value_type(*source), ir.value_type(*result)).then_some(*source)
}

/// The bridges ([`bridged_source`]) under `module` the serializer writes no instruction for: each
/// changes only signedness, carries only [`MARKER`], and every use is in a position of
/// a [`same_type_groups`] group, where SPIR-V takes the bitcast's operand as it is.
pub(crate) fn elidable_bitcasts(ir: &Ir, module: OpId) -> FxHashSet<OpId> {
    let mut candidates: FxHashMap<Value, OpId> = FxHashMap::default();
    ir.for_each_op_under(module, |_, op| {
        if bridged_source(ir, op).is_some() {
            candidates.insert(ir.op(op).results[0], op);
        }
    });
    if candidates.is_empty() {
        return FxHashSet::default();
    }
    let mut kept: FxHashSet<OpId> = FxHashSet::default();
    ir.for_each_op_under(module, |_, op| {
        let o = ir.op(op);
        let groups = match o.name.def() {
            Some(def) if o.operands.len() == def.operands.len() => same_type_groups(def),
            _ => &[],
        };
        for (position, operand) in o.operands.iter().enumerate() {
            if let Some(&bitcast) = candidates.get(operand) {
                if !groups.iter().any(|g| g.contains(&position)) {
                    kept.insert(bitcast);
                }
            }
        }
    });
    candidates.into_values().filter(|op| !kept.contains(op)).collect()
}
