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
    extract, fold_ints, fold_ints_unary, int_attribute, ints, is_poison, mask, poison, signed, splat_bool,
};
use super::driver::{has_trait, FoldResult, Folded, Rewriter};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId, Value, ValueDef};
use spirvkit_ir::types::{Type, TypeKind};

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

/// The fold gives poison.
fn poison_result() -> FoldResult {
    FoldResult::Attribute(poison())
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
        TypeKind::Array { count, spec_length: None, .. } => *count as usize,
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

#[cfg(test)]
mod tests {
    use crate::canonicalize::tests::canonicalized;

    #[test]
    fn integer_arithmetic_wraps_and_drops_identities() {
        let source = r#"func.func @f(%x: i32) -> (i32, i32, i32, i32, i32, i32, i32) {
  %c0 = spirv.Constant 0 : i32
  %c1 = spirv.Constant 1 : i32
  %max = spirv.Constant 2147483647 : i32
  %0 = spirv.IAdd %c0, %x : i32
  %1 = spirv.IAdd %max, %c1 : i32
  %2 = spirv.ISub %x, %x : i32
  %3 = spirv.ISub %c0, %max : i32
  %4 = spirv.IMul %x, %c1 : i32
  %5 = spirv.IMul %max, %max : i32
  %6 = spirv.ISub %x, %c0 : i32
  return %0, %1, %2, %3, %4, %5, %6 : i32, i32, i32, i32, i32, i32, i32
}
func.func @v() -> (vector<3xi8>, vector<3xi8>) {
  %a = spirv.Constant dense<[100, -128, 7]> : vector<3xi8>
  %b = spirv.Constant dense<100> : vector<3xi8>
  %0 = spirv.IAdd %a, %b : vector<3xi8>
  %1 = spirv.IMul %b, %b : vector<3xi8>
  return %0, %1 : vector<3xi8>, vector<3xi8>
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32) -> (i32, i32, i32, i32, i32, i32, i32) {
    %cst0_i32 = spirv.Constant 0 : i32
    %cst-2147483648_i32 = spirv.Constant -2147483648 : i32
    %cst-2147483647_i32 = spirv.Constant -2147483647 : i32
    %cst1_i32 = spirv.Constant 1 : i32
    %0 = spirv.ISub %arg0, %cst0_i32 : i32
    return %arg0, %cst-2147483648_i32, %cst0_i32, %cst-2147483647_i32, %arg0, %cst1_i32, %0 : i32, i32, i32, i32, i32, i32, i32
  }
  func.func @v() -> (vector<3xi8>, vector<3xi8>) {
    %cst_vec_3xi8 = spirv.Constant dense<[-56, -28, 107]> : vector<3xi8>
    %cst_vec_3xi8_0 = spirv.Constant dense<16> : vector<3xi8>
    return %cst_vec_3xi8, %cst_vec_3xi8_0 : vector<3xi8>, vector<3xi8>
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn division_folds_except_by_zero_or_overflow() {
        let source = r#"func.func @f(%x: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %c0 = spirv.Constant 0 : i32
  %c1 = spirv.Constant 1 : i32
  %cm1 = spirv.Constant -1 : i32
  %min = spirv.Constant -2147483648 : i32
  %c7 = spirv.Constant 7 : i32
  %cm7 = spirv.Constant -7 : i32
  %c3 = spirv.Constant 3 : i32
  %0 = spirv.SDiv %x, %c1 : i32
  %1 = spirv.UDiv %c7, %c0 : i32
  %2 = spirv.SDiv %min, %cm1 : i32
  %3 = spirv.SDiv %cm7, %c3 : i32
  %4 = spirv.UDiv %cm7, %c3 : i32
  %5 = spirv.UMod %x, %c1 : i32
  %6 = spirv.SMod %cm7, %c3 : i32
  %7 = spirv.SRem %cm7, %c3 : i32
  %8 = spirv.SMod %c7, %cm7 : i32
  %9 = spirv.SRem %min, %cm1 : i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
    %cst2_i32 = spirv.Constant 2 : i32
    %cst1431655763_i32 = spirv.Constant 1431655763 : i32
    %cst-2_i32 = spirv.Constant -2 : i32
    %cst0_i32 = spirv.Constant 0 : i32
    %cst-1_i32 = spirv.Constant -1 : i32
    %cst-2147483648_i32 = spirv.Constant -2147483648 : i32
    %cst7_i32 = spirv.Constant 7 : i32
    %0 = spirv.UDiv %cst7_i32, %cst0_i32 : i32
    %1 = spirv.SDiv %cst-2147483648_i32, %cst-1_i32 : i32
    %2 = spirv.SRem %cst-2147483648_i32, %cst-1_i32 : i32
    return %arg0, %0, %1, %cst-2_i32, %cst1431655763_i32, %cst0_i32, %cst2_i32, %cst-1_i32, %cst0_i32, %2 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn bitwise_and_shift_folds() {
        let source = r#"func.func @f(%x: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
  %c0 = spirv.Constant 0 : i32
  %cm1 = spirv.Constant -1 : i32
  %c12 = spirv.Constant 12 : i32
  %c10 = spirv.Constant 10 : i32
  %c31 = spirv.Constant 31 : i32
  %c32 = spirv.Constant 32 : i32
  %0 = spirv.BitwiseAnd %x, %cm1 : i32
  %1 = spirv.BitwiseOr %cm1, %x : i32
  %2 = spirv.BitwiseXor %x, %x : i32
  %3 = spirv.BitwiseAnd %c12, %c10 : i32
  %4 = spirv.BitwiseXor %c12, %c10 : i32
  %5 = spirv.ShiftLeftLogical %x, %c0 : i32, i32
  %6 = spirv.ShiftLeftLogical %cm1, %c31 : i32, i32
  %7 = spirv.ShiftRightArithmetic %cm1, %c10 : i32, i32
  %8 = spirv.ShiftRightLogical %cm1, %c10 : i32, i32
  %9 = spirv.ShiftLeftLogical %c12, %c32 : i32, i32
  %10 = spirv.BitwiseXor %c12, %x : i32
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32) -> (i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32) {
    %cst-1_i32 = spirv.Constant -1 : i32
    %cst12_i32 = spirv.Constant 12 : i32
    %cst32_i32 = spirv.Constant 32 : i32
    %cst0_i32 = spirv.Constant 0 : i32
    %cst8_i32 = spirv.Constant 8 : i32
    %cst6_i32 = spirv.Constant 6 : i32
    %cst-2147483648_i32 = spirv.Constant -2147483648 : i32
    %cst4194303_i32 = spirv.Constant 4194303 : i32
    %0 = spirv.ShiftLeftLogical %cst12_i32, %cst32_i32 : i32, i32
    %1 = spirv.BitwiseXor %arg0, %cst12_i32 : i32
    return %arg0, %cst-1_i32, %cst0_i32, %cst8_i32, %cst6_i32, %arg0, %cst-2147483648_i32, %cst-1_i32, %cst4194303_i32, %0, %1 : i32, i32, i32, i32, i32, i32, i32, i32, i32, i32, i32
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn unary_ops_fold_and_cancel_in_pairs() {
        let source = r#"func.func @f(%x: i32, %b: i1) -> (i32, i32, i32, i8, i1, vector<2xi32>) {
  %0 = spirv.Not %x : i32
  %1 = spirv.Not %0 : i32
  %2 = spirv.SNegate %x : i32
  %3 = spirv.SNegate %2 : i32
  %c = spirv.Constant 12 : i32
  %4 = spirv.Not %c : i32
  %m = spirv.Constant -128 : i8
  %5 = spirv.SNegate %m : i8
  %6 = spirv.LogicalNot %b : i1
  %7 = spirv.LogicalNot %6 : i1
  %v = spirv.Constant dense<[1, -2]> : vector<2xi32>
  %8 = spirv.SNegate %v : vector<2xi32>
  return %1, %3, %4, %5, %7, %8 : i32, i32, i32, i8, i1, vector<2xi32>
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32, %arg1: i1) -> (i32, i32, i32, i8, i1, vector<2xi32>) {
    %cst-13_i32 = spirv.Constant -13 : i32
    %cst-128_i8 = spirv.Constant -128 : i8
    %cst_vec_2xi32 = spirv.Constant dense<[-1, 2]> : vector<2xi32>
    return %arg0, %arg0, %cst-13_i32, %cst-128_i8, %arg1, %cst_vec_2xi32 : i32, i32, i32, i8, i1, vector<2xi32>
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn comparisons_and_logical_ops_fold() {
        let source = r#"func.func @f(%x: i32, %b: i1, %v: vector<2xi32>) -> (i1, i1, i1, i1, vector<2xi1>, vector<2xi1>, i1, i1, i1, i1, i1, i1) {
  %0 = spirv.SLessThanEqual %x, %x : i32
  %1 = spirv.UGreaterThan %x, %x : i32
  %cm1 = spirv.Constant -1 : i32
  %c1 = spirv.Constant 1 : i32
  %2 = spirv.SLessThan %cm1, %c1 : i32
  %3 = spirv.ULessThan %cm1, %c1 : i32
  %a = spirv.Constant dense<[1, -1]> : vector<2xi32>
  %e = spirv.Constant dense<[1, 2]> : vector<2xi32>
  %4 = spirv.IEqual %a, %e : vector<2xi32>
  %5 = spirv.INotEqual %v, %v : vector<2xi32>
  %t = spirv.Constant true
  %f = spirv.Constant false
  %6 = spirv.LogicalAnd %b, %t : i1
  %7 = spirv.LogicalAnd %f, %b : i1
  %8 = spirv.LogicalOr %b, %t : i1
  %9 = spirv.LogicalEqual %b, %b : i1
  %10 = spirv.LogicalNotEqual %b, %f : i1
  %11 = spirv.LogicalEqual %b, %t : i1
  return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11 : i1, i1, i1, i1, vector<2xi1>, vector<2xi1>, i1, i1, i1, i1, i1, i1
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32, %arg1: i1, %arg2: vector<2xi32>) -> (i1, i1, i1, i1, vector<2xi1>, vector<2xi1>, i1, i1, i1, i1, i1, i1) {
    %true = spirv.Constant true
    %false = spirv.Constant false
    %cst_vec_2xi1 = spirv.Constant dense<[true, false]> : vector<2xi1>
    %cst_vec_2xi1_0 = spirv.Constant dense<false> : vector<2xi1>
    %0 = spirv.LogicalEqual %arg1, %true : i1
    return %true, %false, %true, %false, %cst_vec_2xi1, %cst_vec_2xi1_0, %arg1, %false, %true, %true, %arg1, %0 : i1, i1, i1, i1, vector<2xi1>, vector<2xi1>, i1, i1, i1, i1, i1, i1
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn select_folds_on_constant_conditions() {
        let source = r#"func.func @f(%c: i1, %x: i32, %y: i32) -> (i32, i32, i32, vector<2xi32>, vector<2xi32>) {
  %t = spirv.Constant true
  %0 = spirv.Select %c, %x, %x : i1, i32
  %1 = spirv.Select %t, %x, %y : i1, i32
  %a = spirv.Constant 1 : i32
  %b = spirv.Constant 2 : i32
  %2 = spirv.Select %c, %a, %b : i1, i32
  %va = spirv.Constant dense<[1, 2]> : vector<2xi32>
  %vb = spirv.Constant dense<[3, 4]> : vector<2xi32>
  %vc = spirv.Constant dense<[true, false]> : vector<2xi1>
  %3 = spirv.Select %vc, %va, %vb : vector<2xi1>, vector<2xi32>
  %vf = spirv.Constant dense<false> : vector<2xi1>
  %4 = spirv.Select %vf, %va, %vb : vector<2xi1>, vector<2xi32>
  return %0, %1, %2, %3, %4 : i32, i32, i32, vector<2xi32>, vector<2xi32>
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i1, %arg1: i32, %arg2: i32) -> (i32, i32, i32, vector<2xi32>, vector<2xi32>) {
    %cst_vec_2xi32 = spirv.Constant dense<[1, 4]> : vector<2xi32>
    %cst_vec_2xi32_0 = spirv.Constant dense<[3, 4]> : vector<2xi32>
    %cst2_i32 = spirv.Constant 2 : i32
    %cst1_i32 = spirv.Constant 1 : i32
    %0 = spirv.Select %arg0, %cst1_i32, %cst2_i32 : i1, i32
    return %arg1, %arg1, %0, %cst_vec_2xi32, %cst_vec_2xi32_0 : i32, i32, i32, vector<2xi32>, vector<2xi32>
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn composite_extract_folds_constants_and_inserts() {
        let source = r#"func.func @f(%s: !spirv.struct<(f32, f32)>, %x: f32) -> (i32, vector<2xi32>, f32, i1, f32) {
  %a = spirv.Constant [[1 : i32, 2 : i32], [3 : i32, 4 : i32]] : !spirv.array<2 x !spirv.array<2 x i32>>
  %0 = spirv.CompositeExtract %a[1 : i32, 0 : i32] : !spirv.array<2 x !spirv.array<2 x i32>>
  %m = spirv.Constant [dense<7> : vector<2xi32>, dense<[1, 2]> : vector<2xi32>] : !spirv.array<2 x vector<2xi32>>
  %1 = spirv.CompositeExtract %m[0 : i32] : !spirv.array<2 x vector<2xi32>>
  %f = spirv.Constant dense<[1.5, 2.0]> : vector<2xf32>
  %2 = spirv.CompositeExtract %f[1 : i32] : vector<2xf32>
  %b = spirv.Constant dense<[true, false]> : vector<2xi1>
  %3 = spirv.CompositeExtract %b[0 : i32] : vector<2xi1>
  %i = spirv.CompositeInsert %x, %s[1 : i32] : f32 into !spirv.struct<(f32, f32)>
  %4 = spirv.CompositeExtract %i[1 : i32] : !spirv.struct<(f32, f32)>
  return %0, %1, %2, %3, %4 : i32, vector<2xi32>, f32, i1, f32
}"#;
        let expected = r#"module {
  func.func @f(%arg0: !spirv.struct<(f32, f32)>, %arg1: f32) -> (i32, vector<2xi32>, f32, i1, f32) {
    %cst3_i32 = spirv.Constant 3 : i32
    %cst_vec_2xi32 = spirv.Constant dense<7> : vector<2xi32>
    %cst_f32 = spirv.Constant 2.000000e+00 : f32
    %true = spirv.Constant true
    return %cst3_i32, %cst_vec_2xi32, %cst_f32, %true, %arg1 : i32, vector<2xi32>, f32, i1, f32
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn poison_propagates_through_arithmetic_only() {
        let source = r#"func.func @f(%x: i32, %b: i1) -> (i32, i32, i32, i32, i1, i1, i1) {
  %p = ub.poison : i32
  %pb = ub.poison : i1
  %c0 = spirv.Constant 0 : i32
  %0 = spirv.IAdd %x, %p : i32
  %1 = spirv.UDiv %p, %c0 : i32
  %2 = spirv.BitwiseAnd %p, %c0 : i32
  %3 = spirv.Select %b, %p, %x : i1, i32
  %4 = spirv.IEqual %x, %p : i32
  %5 = spirv.LogicalNot %pb : i1
  %6 = spirv.LogicalAnd %b, %pb : i1
  return %0, %1, %2, %3, %4, %5, %6 : i32, i32, i32, i32, i1, i1, i1
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32, %arg1: i1) -> (i32, i32, i32, i32, i1, i1, i1) {
    %0 = ub.poison : i32
    %1 = ub.poison : i1
    %cst0_i32 = spirv.Constant 0 : i32
    %2 = spirv.Select %arg1, %0, %arg0 : i1, i32
    %3 = spirv.IEqual %arg0, %0 : i32
    %4 = spirv.LogicalAnd %arg1, %1 : i1
    return %0, %0, %cst0_i32, %2, %3, %1, %4 : i32, i32, i32, i32, i1, i1, i1
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }
}
