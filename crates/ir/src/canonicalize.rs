//! `--canonicalize`: the SPIR-V dialect's folds the MLIR tests check, then removal
//! of pure ops whose results are unused. Grows fold by fold; ops without a fold are
//! left as they are.

use crate::attr::Attribute;
use crate::ir::{Ir, OpId, Value, ValueDef};
use crate::opdef::op_def;
use crate::types::TypeKind;
use spirvkit_grammar::fxhash::FxHashMap;

/// Canonicalizes everything under `top`.
pub fn run(ir: &mut Ir, top: OpId) {
    loop {
        let rewritten = skip_chained_bitcasts(ir, top);
        let folded = fold_all(ir, top) | rewritten;
        let erased = erase_dead(ir, top);
        if !folded && !erased {
            break;
        }
    }
}

/// The integer bits of a constant operand, if it is a scalar or splat constant.
fn constant_bits(ir: &Ir, v: Value) -> Option<(i128, u32)> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    let o = ir.op(op);
    if o.name != "spirv.Constant" {
        return None;
    }
    let value = match o.attr("value")? {
        Attribute::Integer { value, .. } => *value,
        Attribute::Dense { elements, .. }
            if !elements.is_empty() && elements.windows(2).all(|w| w[0] == w[1]) =>
        {
            match &elements[0] {
                Attribute::Integer { value, .. } => *value,
                _ => return None,
            }
        }
        _ => return None,
    };
    let width = match ir.types.kind(ir.types.scalar_of(ir.value_type(v))) {
        TypeKind::Integer { width, .. } => *width,
        _ => return None,
    };
    Some((value, width))
}

fn mask(width: u32) -> u128 {
    if width >= 128 {
        u128::MAX
    } else {
        (1u128 << width) - 1
    }
}

fn is_zero(bits: (i128, u32)) -> bool {
    (bits.0 as u128) & mask(bits.1) == 0
}

fn is_all_ones(bits: (i128, u32)) -> bool {
    (bits.0 as u128) & mask(bits.1) == mask(bits.1)
}

/// The number of elements a composite type has, if it is one.
fn composite_len(ir: &Ir, ty: crate::types::Type) -> Option<usize> {
    Some(match ir.types.kind(ty) {
        TypeKind::Vector { shape, .. } if shape.len() == 1 => shape[0] as usize,
        TypeKind::Array { count, .. } => *count as usize,
        TypeKind::LiteralStruct(body) => body.members.len(),
        TypeKind::IdentifiedStruct { name } => ir.types.struct_body(name)?.members.len(),
        _ => return None,
    })
}

/// `spirv.CompositeExtract` of an element some insert or construct just provided.
fn fold_composite_extract(ir: &Ir, op: OpId) -> Option<Value> {
    let o = ir.op(op);
    let indices = match o.attr("indices")? {
        Attribute::Array(a) => a,
        _ => return None,
    };
    let mut composite = *o.operands.first()?;
    loop {
        let ValueDef::Result { op: def, .. } = ir.value(composite).def else { return None };
        let d = ir.op(def);
        match d.name.as_str() {
            "spirv.CompositeInsert" => {
                if d.attr("indices") == Some(&Attribute::Array(indices.clone())) {
                    return d.operands.first().copied();
                }
                composite = *d.operands.get(1)?;
            }
            "spirv.CompositeConstruct" => {
                let [Attribute::Integer { value, .. }] = indices.as_slice() else { return None };
                let len = composite_len(ir, ir.value_type(composite))?;
                if d.operands.len() != len {
                    return None;
                }
                return usize::try_from(*value).ok().and_then(|i| d.operands.get(i).copied());
            }
            _ => return None,
        }
    }
}

/// `bitcast(bitcast(x))` becomes `bitcast(x)` (MLIR's chained-bitcast pattern).
fn skip_chained_bitcasts(ir: &mut Ir, top: OpId) -> bool {
    let mut changed = false;
    for (_, op) in ir.ops_under(top) {
        if ir.op(op).name != "spirv.Bitcast" {
            continue;
        }
        let Some(&operand) = ir.op(op).operands.first() else { continue };
        let ValueDef::Result { op: def, .. } = ir.value(operand).def else { continue };
        if ir.op(def).name != "spirv.Bitcast" {
            continue;
        }
        let Some(&inner) = ir.op(def).operands.first() else { continue };
        ir.op_mut(op).operands[0] = inner;
        changed = true;
    }
    changed
}

/// The value `op`'s result folds to, if a fold applies.
fn fold(ir: &Ir, op: OpId) -> Option<Value> {
    let o = ir.op(op);
    if o.name == "spirv.CompositeExtract" {
        return fold_composite_extract(ir, op);
    }
    if o.name == "spirv.Bitcast" {
        // A cast to the operand's own type is the operand.
        let (&x, &r) = (o.operands.first()?, o.results.first()?);
        return (ir.value_type(x) == ir.value_type(r)).then_some(x);
    }
    if o.operands.len() != 2 || o.results.len() != 1 {
        return None;
    }
    let (a, b) = (o.operands[0], o.operands[1]);
    // Both ops are commutative: look for the constant on either side.
    let (x, c, bits) = match (constant_bits(ir, b), constant_bits(ir, a)) {
        (Some(bits), _) => (a, b, bits),
        (None, Some(bits)) => (b, a, bits),
        _ => return None,
    };
    match o.name.as_str() {
        "spirv.BitwiseOr" if is_zero(bits) => Some(x),
        "spirv.BitwiseOr" if is_all_ones(bits) => Some(c),
        "spirv.BitwiseAnd" if is_zero(bits) => Some(c),
        "spirv.BitwiseAnd" if is_all_ones(bits) => Some(x),
        "spirv.BitwiseAnd" => {
            // `zext(y) & m` is `zext(y)` when m keeps all of y's bits.
            let ValueDef::Result { op: def, .. } = ir.value(x).def else { return None };
            let d = ir.op(def);
            if d.name != "spirv.UConvert" {
                return None;
            }
            let from = match ir.types.kind(ir.types.scalar_of(ir.value_type(*d.operands.first()?))) {
                TypeKind::Integer { width, .. } => *width,
                _ => return None,
            };
            let keep = mask(from);
            ((bits.0 as u128) & keep == keep).then_some(x)
        }
        _ => None,
    }
}

fn fold_all(ir: &mut Ir, top: OpId) -> bool {
    let mut replacements: FxHashMap<Value, Value> = FxHashMap::default();
    for (_, op) in ir.ops_under(top) {
        if let Some(v) = fold(ir, op) {
            let result = ir.op(op).results[0];
            if ir.value_type(v) == ir.value_type(result) {
                replacements.insert(result, v);
            }
        }
    }
    if replacements.is_empty() {
        return false;
    }
    for (_, op) in ir.ops_under(top) {
        for v in ir.op_mut(op).operands.iter_mut() {
            while let Some(&r) = replacements.get(v) {
                *v = r;
            }
        }
    }
    true
}

/// Removes dead pure ops under `top` until none is left.
pub fn erase_all_dead(ir: &mut Ir, top: OpId) {
    while erase_dead(ir, top) {}
}

/// Points every use of `old` under `top` at `new`.
pub fn replace_all_uses(ir: &mut Ir, top: OpId, old: Value, new: Value) {
    for (_, op) in ir.ops_under(top) {
        for v in ir.op_mut(op).operands.iter_mut() {
            if *v == old {
                *v = new;
            }
        }
    }
}

/// Removes pure ops (no regions) whose results nothing uses.
fn erase_dead(ir: &mut Ir, top: OpId) -> bool {
    let all = ir.ops_under(top);
    let mut used: FxHashMap<Value, usize> = FxHashMap::default();
    for &(_, op) in &all {
        for &v in &ir.op(op).operands {
            *used.entry(v).or_default() += 1;
        }
    }
    let mut erased = false;
    for (block, op) in all {
        let o = ir.op(op);
        let pure =
            op_def(&o.name).is_some_and(|d| d.traits.contains(&"Pure") || d.traits.contains(&"ConstantLike"));
        if pure
            && o.regions.is_empty()
            && !o.results.is_empty()
            && o.results.iter().all(|r| !used.contains_key(r))
        {
            ir.block_mut(block).ops.retain(|&x| x != op);
            ir.op_mut(op).parent = None;
            erased = true;
        }
    }
    erased
}

#[cfg(test)]
mod tests {
    #[test]
    fn bitcast_chains_collapse() {
        let source = "func.func @f(%a: vector<2xf32>) -> (vector<2xf32>, f64) {
  %0 = spirv.Bitcast %a : vector<2xf32> to vector<2xi32>
  %1 = spirv.Bitcast %0 : vector<2xi32> to i64
  %2 = spirv.Bitcast %1 : i64 to f64
  %3 = spirv.Bitcast %0 : vector<2xi32> to vector<2xf32>
  return %3, %2 : vector<2xf32>, f64
}";
        let options = crate::opt::OptOptions { passes: vec!["--canonicalize".into()], ..Default::default() };
        let r = crate::opt::run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        assert!(r.output.contains("%0 = spirv.Bitcast %arg0 : vector<2xf32> to f64"), "{}", r.output);
        assert!(r.output.contains("return %arg0, %0 : vector<2xf32>, f64"), "{}", r.output);
        assert_eq!(r.output.matches("spirv.Bitcast").count(), 1, "{}", r.output);
    }
}
