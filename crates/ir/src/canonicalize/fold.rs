//! The folds of the SPIR-V dialect's ops, as `mlir-opt-22` applies them: an op
//! whose result is already known becomes that value or a constant.
//!
//! Identities look at the right-hand operand only (the `Commutative` trait fold
//! moves constants there first). Arithmetic, bitwise, shift and logical-equality
//! folds give poison when an operand is `ub.poison`; comparisons and
//! `LogicalAnd`/`LogicalOr` do not fold poison. Integer arithmetic wraps; division
//! or remainder by zero, signed overflow (`MIN / -1`, `MIN % -1`) and shifts by
//! the width or more are not folded.

use super::constants::{
    extract, fold_ints, fold_ints_unary, int_attribute, ints, is_poison, mask, signed, splat_bool,
};
use super::driver::{has_trait, poison_result, FoldResult, Folded, Rewriter};
use crate::attr::Attribute;
use crate::ir::{Ir, OpId, Value, ValueDef};
use crate::types::{Type, TypeKind};

/// Folds `op`, given the constant each operand holds: its own fold first, then
/// the trait folds when that fails or works in place (MLIR's fold hook).
pub(crate) fn fold_op(rw: &mut Rewriter, op: OpId, constants: &[Option<Attribute>]) -> Option<Folded> {
    let own = fold_spirv_op(rw, op, constants);
    if let Some(Folded::Results(results)) = own {
        return Some(Folded::Results(results));
    }
    if fold_commutative(rw, op, constants) {
        return Some(Folded::InPlace);
    }
    own
}

/// Moves constant operands of a commutative op after the others, keeping order.
fn fold_commutative(rw: &mut Rewriter, op: OpId, constants: &[Option<Attribute>]) -> bool {
    let operands = rw.ir.op(op).operands.clone();
    if operands.len() < 2 || constants.len() != operands.len() || !has_trait(rw.ir, op, "Commutative") {
        return false;
    }
    let (mut reordered, mut constant): (Vec<Value>, Vec<Value>) = (Vec::new(), Vec::new());
    for (&v, c) in operands.iter().zip(constants) {
        if c.is_some() {
            constant.push(v);
        } else {
            reordered.push(v);
        }
    }
    reordered.extend(constant);
    if reordered == operands {
        return false;
    }
    rw.set_operands(op, reordered);
    true
}

fn value(v: Value) -> Option<Folded> {
    Some(Folded::Results(vec![FoldResult::Value(v)]))
}

fn attribute(a: Attribute) -> Option<Folded> {
    Some(Folded::Results(vec![FoldResult::Attribute(a)]))
}

/// MLIR's `constFoldBinaryOp` as the arithmetic ops use it: poison on either side
/// gives poison; otherwise both sides must be constants of the same type.
fn arith(
    ir: &Ir,
    lhs: &Option<Attribute>,
    rhs: &Option<Attribute>,
    result_ty: Type,
    f: impl Fn(u128, u128, u32) -> Option<u128>,
) -> Option<Folded> {
    if lhs.as_ref().is_some_and(is_poison) || rhs.as_ref().is_some_and(is_poison) {
        return Some(Folded::Results(vec![poison_result()]));
    }
    attribute(fold_ints(ir, lhs.as_ref()?, rhs.as_ref()?, result_ty, f)?)
}

/// The unary version of [`arith`].
fn arith_unary(
    ir: &Ir,
    operand: &Option<Attribute>,
    result_ty: Type,
    f: impl Fn(u128, u32) -> u128,
) -> Option<Folded> {
    let operand = operand.as_ref()?;
    if is_poison(operand) {
        return Some(Folded::Results(vec![poison_result()]));
    }
    attribute(fold_ints_unary(ir, operand, result_ty, f)?)
}

/// A comparison of two constants (no poison folding).
fn compare(
    ir: &Ir,
    lhs: &Option<Attribute>,
    rhs: &Option<Attribute>,
    result_ty: Type,
    f: impl Fn(u128, u128, u32) -> bool,
) -> Option<Folded> {
    attribute(fold_ints(ir, lhs.as_ref()?, rhs.as_ref()?, result_ty, |a, b, w| Some(f(a, b, w) as u128))?)
}

fn is_zero(ir: &Ir, c: &Option<Attribute>) -> bool {
    c.as_ref().and_then(|a| ints(ir, a)).is_some_and(|i| i.is_zero())
}

fn is_one(ir: &Ir, c: &Option<Attribute>) -> bool {
    c.as_ref().and_then(|a| ints(ir, a)).is_some_and(|i| i.is_one())
}

fn is_all_ones(ir: &Ir, c: &Option<Attribute>) -> bool {
    c.as_ref().and_then(|a| ints(ir, a)).is_some_and(|i| i.is_all_ones())
}

/// The op defining `v`, if it has this name.
pub(crate) fn defined_by(ir: &Ir, v: Value, name: &str) -> Option<OpId> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    (ir.op(op).name == name).then_some(op)
}

/// `a / b` and `a % b` of `width`-bit signed values, `None` on division by zero
/// or overflow.
fn signed_div_rem(a: u128, b: u128, width: u32) -> Option<(i128, i128)> {
    let (x, y) = (signed(a, width), signed(b, width));
    if y == 0 || (y == -1 && a == 1u128 << (width - 1)) {
        return None;
    }
    Some((x / y, x % y))
}

fn shift_amount(s: u128, width: u32) -> Option<u32> {
    (s < width as u128).then_some(s as u32)
}

fn fold_spirv_op(rw: &mut Rewriter, op: OpId, c: &[Option<Attribute>]) -> Option<Folded> {
    let o = rw.ir.op(op);
    let name = o.name.clone();
    let operands = o.operands.clone();
    let result = *o.results.first()?;
    let ty = rw.ir.value_type(result);
    let ir: &Ir = rw.ir;
    let (lhs, rhs) = (operands.first().copied(), operands.get(1).copied());
    let none = None;
    let (cl, cr) = (c.first().unwrap_or(&none), c.get(1).unwrap_or(&none));
    let same_operands = operands.len() == 2 && lhs == rhs;
    match name.as_str() {
        "spirv.Bitcast" => fold_bitcast(rw, op),
        "spirv.CompositeExtract" => fold_composite_extract(ir, op, cl),
        "spirv.Select" => fold_select(ir, &operands, c, ty),
        "spirv.IAdd" => {
            if is_zero(ir, cr) {
                return value(lhs?);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some(a.wrapping_add(b)))
        }
        "spirv.ISub" => {
            if same_operands {
                return attribute(int_attribute(ir, ty, &[0])?);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some(a.wrapping_sub(b)))
        }
        "spirv.IMul" => {
            if is_zero(ir, cr) {
                return value(rhs?);
            }
            if is_one(ir, cr) {
                return value(lhs?);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some(a.wrapping_mul(b)))
        }
        "spirv.UDiv" => {
            if is_one(ir, cr) {
                return value(lhs?);
            }
            arith(ir, cl, cr, ty, |a, b, _| a.checked_div(b))
        }
        "spirv.SDiv" => {
            if is_one(ir, cr) {
                return value(lhs?);
            }
            arith(ir, cl, cr, ty, |a, b, w| signed_div_rem(a, b, w).map(|(q, _)| q as u128))
        }
        "spirv.UMod" | "spirv.SMod" | "spirv.SRem" => {
            if is_one(ir, cr) {
                return attribute(int_attribute(ir, ty, &[0])?);
            }
            match name.as_str() {
                "spirv.UMod" => arith(ir, cl, cr, ty, |a, b, _| a.checked_rem(b)),
                "spirv.SRem" => {
                    arith(ir, cl, cr, ty, |a, b, w| signed_div_rem(a, b, w).map(|(_, r)| r as u128))
                }
                // The result takes the divisor's sign.
                _ => arith(ir, cl, cr, ty, |a, b, w| {
                    let (_, r) = signed_div_rem(a, b, w)?;
                    let d = signed(b, w);
                    Some(if r != 0 && (r < 0) != (d < 0) { r + d } else { r } as u128)
                }),
            }
        }
        "spirv.BitwiseAnd" => {
            if is_zero(ir, cr) {
                return value(rhs?);
            }
            if is_all_ones(ir, cr) || same_operands {
                return value(lhs?);
            }
            if let Some(v) = and_of_zero_extension(ir, lhs?, cr) {
                return value(v);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some(a & b))
        }
        "spirv.BitwiseOr" => {
            if is_zero(ir, cr) || same_operands {
                return value(lhs?);
            }
            if is_all_ones(ir, cr) {
                return value(rhs?);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some(a | b))
        }
        "spirv.BitwiseXor" => {
            if is_zero(ir, cr) {
                return value(lhs?);
            }
            if same_operands {
                return attribute(int_attribute(ir, ty, &[0])?);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some(a ^ b))
        }
        "spirv.ShiftLeftLogical" | "spirv.ShiftRightLogical" | "spirv.ShiftRightArithmetic" => {
            if is_zero(ir, cr) {
                return value(lhs?);
            }
            arith(ir, cl, cr, ty, |a, s, w| {
                let s = shift_amount(s, w)?;
                Some(match name.as_str() {
                    "spirv.ShiftLeftLogical" => a << s,
                    "spirv.ShiftRightLogical" => a >> s,
                    _ => (signed(a, w) >> s) as u128,
                })
            })
        }
        "spirv.Not" | "spirv.SNegate" | "spirv.LogicalNot" => {
            // Each is its own inverse.
            if let Some(inner) = lhs.and_then(|x| defined_by(ir, x, &name)) {
                return value(*ir.op(inner).operands.first()?);
            }
            arith_unary(ir, cl, ty, |a, w| match name.as_str() {
                "spirv.SNegate" => a.wrapping_neg(),
                _ => !a & mask(w),
            })
        }
        // A constant result is the right-hand attribute, materialized anew.
        "spirv.LogicalAnd" => {
            if is_all_ones(ir, cr) {
                return value(lhs?);
            }
            if is_zero(ir, cr) {
                return attribute(cr.clone()?);
            }
            None
        }
        "spirv.LogicalOr" => {
            if is_all_ones(ir, cr) {
                return attribute(cr.clone()?);
            }
            if is_zero(ir, cr) {
                return value(lhs?);
            }
            None
        }
        "spirv.LogicalEqual" => {
            if same_operands {
                return attribute(splat_bool(ir, ty, true)?);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some((a == b) as u128))
        }
        "spirv.LogicalNotEqual" => {
            if is_zero(ir, cr) {
                return value(lhs?);
            }
            if same_operands {
                return attribute(splat_bool(ir, ty, false)?);
            }
            arith(ir, cl, cr, ty, |a, b, _| Some((a != b) as u128))
        }
        "spirv.IEqual"
        | "spirv.INotEqual"
        | "spirv.SLessThan"
        | "spirv.SLessThanEqual"
        | "spirv.SGreaterThan"
        | "spirv.SGreaterThanEqual"
        | "spirv.ULessThan"
        | "spirv.ULessThanEqual"
        | "spirv.UGreaterThan"
        | "spirv.UGreaterThanEqual" => {
            let compare_bits = |a: u128, b: u128, w: u32| -> bool {
                let (x, y) = (signed(a, w), signed(b, w));
                match name.as_str() {
                    "spirv.IEqual" => a == b,
                    "spirv.INotEqual" => a != b,
                    "spirv.SLessThan" => x < y,
                    "spirv.SLessThanEqual" => x <= y,
                    "spirv.SGreaterThan" => x > y,
                    "spirv.SGreaterThanEqual" => x >= y,
                    "spirv.ULessThan" => a < b,
                    "spirv.ULessThanEqual" => a <= b,
                    "spirv.UGreaterThan" => a > b,
                    _ => a >= b,
                }
            };
            if same_operands {
                return attribute(splat_bool(ir, ty, compare_bits(0, 0, 1))?);
            }
            compare(ir, cl, cr, ty, compare_bits)
        }
        _ => None,
    }
}

/// `bitcast(x)` to x's own type is x; `bitcast(bitcast(x))` casts x directly.
fn fold_bitcast(rw: &mut Rewriter, op: OpId) -> Option<Folded> {
    let o = rw.ir.op(op);
    let (input, result) = (*o.operands.first()?, *o.results.first()?);
    let ty = rw.ir.value_type(result);
    if rw.ir.value_type(input) == ty {
        return value(input);
    }
    let inner = defined_by(rw.ir, input, "spirv.Bitcast")?;
    let source = *rw.ir.op(inner).operands.first()?;
    if rw.ir.value_type(source) == ty {
        return value(source);
    }
    rw.set_operand(op, 0, source);
    Some(Folded::InPlace)
}

/// `x & m` where x zero-extends a narrower value whose bits `m` all keeps is x.
fn and_of_zero_extension(ir: &Ir, x: Value, m: &Option<Attribute>) -> Option<Value> {
    let m = ints(ir, m.as_ref()?)?;
    let convert = defined_by(ir, x, "spirv.UConvert")?;
    let source = *ir.op(convert).operands.first()?;
    let from = match ir.types.kind(ir.types.scalar_of(ir.value_type(source))) {
        TypeKind::Integer { width, .. } => *width,
        _ => return None,
    };
    let keep = mask(from);
    m.all(|b| b & keep == keep).then_some(x)
}

/// The number of members a composite type has.
fn composite_len(ir: &Ir, ty: Type) -> Option<usize> {
    Some(match ir.types.kind(ty) {
        TypeKind::Vector { shape, .. } if shape.len() == 1 => shape[0] as usize,
        TypeKind::Array { count, .. } => *count as usize,
        TypeKind::LiteralStruct(body) => body.members.len(),
        TypeKind::IdentifiedStruct { name } => ir.types.struct_body(name)?.members.len(),
        _ => return None,
    })
}

fn indices_of(a: Option<&Attribute>) -> Option<Vec<usize>> {
    match a? {
        Attribute::Array(items) => items
            .iter()
            .map(|i| match i {
                Attribute::Integer { value, .. } => usize::try_from(*value).ok(),
                _ => None,
            })
            .collect(),
        _ => None,
    }
}

/// `spirv.CompositeExtract` of a constant, or of a member some insert or construct
/// just provided.
fn fold_composite_extract(ir: &Ir, op: OpId, constant: &Option<Attribute>) -> Option<Folded> {
    let o = ir.op(op);
    let indices_attr = o.attr("indices")?;
    let indices = indices_of(Some(indices_attr))?;
    if let Some(c) = constant {
        if !is_poison(c) {
            if let Some(member) = extract(ir, c, &indices) {
                return attribute(member);
            }
        }
    }
    let mut composite = *o.operands.first()?;
    loop {
        let ValueDef::Result { op: def, .. } = ir.value(composite).def else { return None };
        let d = ir.op(def);
        match d.name.as_str() {
            "spirv.CompositeInsert" => {
                if d.attr("indices") == Some(indices_attr) {
                    return value(*d.operands.first()?);
                }
                composite = *d.operands.get(1)?;
            }
            "spirv.CompositeConstruct" => {
                let [index] = indices.as_slice() else { return None };
                if d.operands.len() != composite_len(ir, ir.value_type(composite))? {
                    return None;
                }
                return value(*d.operands.get(*index)?);
            }
            _ => return None,
        }
    }
}

/// `select(c, x, x)` is x; a constant condition picks a side; constant operands
/// throughout select element by element.
fn fold_select(ir: &Ir, operands: &[Value], c: &[Option<Attribute>], ty: Type) -> Option<Folded> {
    let [_, on_true, on_false] = operands else { return None };
    if on_true == on_false {
        return value(*on_true);
    }
    let condition = ints(ir, c.first()?.as_ref()?)?;
    if condition.bits.iter().all(|&b| b == condition.bits[0]) {
        return value(if condition.bits[0] != 0 { *on_true } else { *on_false });
    }
    let (t, f) = (c.get(1)?.as_ref()?, c.get(2)?.as_ref()?);
    let (Attribute::Dense { elements: te, .. }, Attribute::Dense { elements: fe, .. }) = (t, f) else {
        return None;
    };
    let n = condition.bits.len();
    let pick = |list: &[Attribute], i: usize| list.get(if list.len() == 1 { 0 } else { i }).cloned();
    let elements = (0..n)
        .map(|i| if condition.at(i) != 0 { pick(te, i) } else { pick(fe, i) })
        .collect::<Option<Vec<_>>>()?;
    let elements =
        if elements.iter().all(|e| *e == elements[0]) { vec![elements[0].clone()] } else { elements };
    attribute(Attribute::Dense { elements, ty })
}
