//! The SPIR-V dialect's canonicalization patterns (the rewrites beyond folds):
//!
//! - `LogicalNot` of `IEqual`/`INotEqual`/`LogicalEqual`/`LogicalNotEqual` becomes
//!   the opposite comparison (the comparison stays if it has other users);
//! - `UMod(UMod(x, a), b)` is `UMod(x, b)` when b divides a element-wise;
//! - an `AccessChain` of an `AccessChain` becomes one chain;
//! - `IAddCarry`, `UMulExtended` and `SMulExtended` of zero, of one (unsigned
//!   product) or of constants become `CompositeConstruct`s or constant inserts;
//! - a `spirv.mlir.selection` whose two branches store to the same pointer with the
//!   same attributes becomes a `spirv.Select` and one store.

use super::constants::{int_attribute, ints, is_poison, mask, poison, signed, value_constant, Ints};
use super::driver::Rewriter;
use super::fold::defined_by;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{OpId, Value, ValueDef};
use spirvkit_ir::types::Type;

/// Tries the patterns of `op`'s kind.
pub(crate) fn apply(rw: &mut Rewriter, op: OpId) -> bool {
    match rw.ir.op(op).name.as_str() {
        "spirv.LogicalNot" => invert_comparison(rw, op),
        "spirv.UMod" => combine_umod(rw, op),
        "spirv.AccessChain" => combine_access_chains(rw, op),
        "spirv.IAddCarry" | "spirv.UMulExtended" | "spirv.SMulExtended" => fold_extended_arithmetic(rw, op),
        "spirv.mlir.selection" => selection_to_select(rw, op),
        _ => false,
    }
}

/// Replaces single-result `op` with a new op before it.
fn replace_with_new(rw: &mut Rewriter, op: OpId, name: &str, operands: Vec<Value>) -> bool {
    let Some(&result) = rw.ir.op(op).results.first() else { return false };
    let ty = rw.ir.value_type(result);
    let Some(new) = rw.create_value_before(op, name, operands, ty, Vec::new()) else { return false };
    rw.replace_op(op, &[new]);
    true
}

fn invert_comparison(rw: &mut Rewriter, op: OpId) -> bool {
    let Some(&operand) = rw.ir.op(op).operands.first() else { return false };
    let ValueDef::Result { op: compare, .. } = rw.ir.value(operand).def else { return false };
    let inverse = match rw.ir.op(compare).name.as_str() {
        "spirv.IEqual" => "spirv.INotEqual",
        "spirv.INotEqual" => "spirv.IEqual",
        "spirv.LogicalEqual" => "spirv.LogicalNotEqual",
        "spirv.LogicalNotEqual" => "spirv.LogicalEqual",
        _ => return false,
    };
    let operands = rw.ir.op(compare).operands.clone();
    replace_with_new(rw, op, inverse, operands)
}

fn constant_ints(rw: &Rewriter, v: Value) -> Option<Ints> {
    ints(rw.ir, &value_constant(rw.ir, v)?)
}

fn combine_umod(rw: &mut Rewriter, op: OpId) -> bool {
    let operands = rw.ir.op(op).operands.clone();
    let [lhs, outer_divisor] = operands.as_slice() else { return false };
    let Some(inner) = defined_by(rw.ir, *lhs, "spirv.UMod") else { return false };
    let [x, inner_divisor] = rw.ir.op(inner).operands.clone()[..] else { return false };
    let (Some(a), Some(b)) = (constant_ints(rw, inner_divisor), constant_ints(rw, *outer_divisor)) else {
        return false;
    };
    let n = a.bits.len().max(b.bits.len());
    if a.ty != b.ty || !(0..n).all(|i| b.at(i) != 0 && a.at(i) % b.at(i) == 0) {
        return false;
    }
    replace_with_new(rw, op, "spirv.UMod", vec![x, *outer_divisor])
}

fn combine_access_chains(rw: &mut Rewriter, op: OpId) -> bool {
    let operands = rw.ir.op(op).operands.clone();
    let Some((&base, indices)) = operands.split_first() else { return false };
    let Some(inner) = defined_by(rw.ir, base, "spirv.AccessChain") else { return false };
    let mut combined = rw.ir.op(inner).operands.clone();
    if combined.is_empty() {
        return false;
    }
    combined.extend_from_slice(indices);
    replace_with_new(rw, op, "spirv.AccessChain", combined)
}

/// The `(low, high)` or `(sum, carry)` members of an extended op on constants.
fn extended_members(name: &str, a: &Ints, b: &Ints) -> Option<(Vec<u128>, Vec<u128>)> {
    let w = a.width;
    if w > 64 || a.ty != b.ty {
        return None;
    }
    let n = a.bits.len().max(b.bits.len());
    let (mut low, mut high) = (Vec::with_capacity(n), Vec::with_capacity(n));
    for i in 0..n {
        let (x, y) = (a.at(i), b.at(i));
        let wide = match name {
            "spirv.IAddCarry" => x + y,
            "spirv.UMulExtended" => x * y,
            _ => (signed(x, w) * signed(y, w)) as u128,
        };
        low.push(wide & mask(w));
        high.push((wide >> w) & mask(w));
    }
    Some((low, high))
}

fn fold_extended_arithmetic(rw: &mut Rewriter, op: OpId) -> bool {
    let name = rw.ir.op(op).name.clone();
    let operands = rw.ir.op(op).operands.clone();
    let [lhs, rhs] = operands[..] else { return false };
    let Some(&result) = rw.ir.op(op).results.first() else { return false };
    let struct_ty = rw.ir.value_type(result);
    let ty = rw.ir.value_type(lhs);
    let (a, b) = (constant_ints(rw, lhs), constant_ints(rw, rhs));
    let (ca, cb) = (value_constant(rw.ir, lhs), value_constant(rw.ir, rhs));
    if b.as_ref().is_some_and(|b| b.is_zero()) {
        // MLIR builds the sum as (rhs, lhs); the products as (0, 0) of a new zero.
        if name == "spirv.IAddCarry" {
            return construct(rw, op, vec![rhs, lhs], struct_ty);
        }
        let Some(zero) = zero_before(rw, op, ty) else { return false };
        return construct(rw, op, vec![zero, zero], struct_ty);
    }
    if let (Some(a), Some(b)) = (&a, &b) {
        let Some((low, high)) = extended_members(&name, a, b) else { return false };
        let (Some(low), Some(high)) = (int_attribute(rw.ir, ty, &low), int_attribute(rw.ir, ty, &high))
        else {
            return false;
        };
        return insert_constants(rw, op, ty, struct_ty, low, high);
    }
    if ca.is_some()
        && cb.is_some()
        && (ca.as_ref().is_some_and(is_poison) || cb.as_ref().is_some_and(is_poison))
    {
        // MLIR folds a poison operand into `spirv.Constant`s holding `#ub.poison`
        // (which do not verify, unless later folds drop them).
        return insert_constants(rw, op, ty, struct_ty, poison(), poison());
    }
    if name == "spirv.UMulExtended" && b.as_ref().is_some_and(|b| b.is_one()) {
        let Some(zero) = zero_before(rw, op, ty) else { return false };
        return construct(rw, op, vec![lhs, zero], struct_ty);
    }
    false
}

fn zero_before(rw: &mut Rewriter, op: OpId, ty: Type) -> Option<Value> {
    let zero = int_attribute(rw.ir, ty, &[0])?;
    constant_before(rw, op, zero, ty)
}

fn constant_before(rw: &mut Rewriter, op: OpId, value: Attribute, ty: Type) -> Option<Value> {
    rw.create_value_before(op, "spirv.Constant", Vec::new(), ty, vec![NamedAttribute::new("value", value)])
}

fn construct(rw: &mut Rewriter, op: OpId, members: Vec<Value>, struct_ty: Type) -> bool {
    let Some(new) = rw.create_value_before(op, "spirv.CompositeConstruct", members, struct_ty, Vec::new())
    else {
        return false;
    };
    rw.replace_op(op, &[new]);
    true
}

/// Replaces `op` with a struct of two constants: `spirv.Undef` and two inserts.
fn insert_constants(
    rw: &mut Rewriter,
    op: OpId,
    ty: Type,
    struct_ty: Type,
    low: Attribute,
    high: Attribute,
) -> bool {
    let (Some(low), Some(high)) = (constant_before(rw, op, low, ty), constant_before(rw, op, high, ty))
    else {
        return false;
    };
    let Some(undef) = rw.create_value_before(op, "spirv.Undef", Vec::new(), struct_ty, Vec::new()) else {
        return false;
    };
    let i32t = rw.ir.types.integer(32, spirvkit_ir::types::Signedness::Signless);
    let index = |i: i128| {
        NamedAttribute::new("indices", Attribute::Array(vec![Attribute::Integer { value: i, ty: i32t }]))
    };
    let Some(first) =
        rw.create_value_before(op, "spirv.CompositeInsert", vec![low, undef], struct_ty, vec![index(0)])
    else {
        return false;
    };
    let Some(second) =
        rw.create_value_before(op, "spirv.CompositeInsert", vec![high, first], struct_ty, vec![index(1)])
    else {
        return false;
    };
    rw.replace_op(op, &[second]);
    true
}

/// `(block, store, branch target)` of a branch block holding just a store and a
/// branch.
fn store_then_branch(
    rw: &Rewriter,
    block: spirvkit_ir::ir::BlockId,
) -> Option<(OpId, spirvkit_ir::ir::BlockId)> {
    let ops = &rw.ir.block(block).ops;
    let [store, branch] = ops.as_slice() else { return None };
    let (s, b) = (rw.ir.op(*store), rw.ir.op(*branch));
    if s.name != "spirv.Store" || b.name != "spirv.Branch" || s.operands.len() != 2 || !b.operands.is_empty()
    {
        return None;
    }
    Some((*store, *b.successors.first()?))
}

fn selection_to_select(rw: &mut Rewriter, op: OpId) -> bool {
    let Some(&region) = rw.ir.op(op).regions.first() else { return false };
    if !rw.ir.op(op).results.is_empty() {
        return false;
    }
    let blocks = rw.ir.region(region).blocks.clone();
    let (Some(&header), Some(&merge)) = (blocks.first(), blocks.last()) else { return false };
    let [branch] = rw.ir.block(header).ops[..] else { return false };
    let b = rw.ir.op(branch);
    if b.name != "spirv.BranchConditional" || b.operands.len() != 1 || b.successors.len() != 2 {
        return false;
    }
    let (condition, on_true, on_false) = (b.operands[0], b.successors[0], b.successors[1]);
    let (Some((true_store, t)), Some((false_store, f))) =
        (store_then_branch(rw, on_true), store_then_branch(rw, on_false))
    else {
        return false;
    };
    if t != merge || f != merge {
        return false;
    }
    let (ts, fs) = (rw.ir.op(true_store), rw.ir.op(false_store));
    if ts.operands[0] != fs.operands[0] || ts.properties != fs.properties || ts.attributes != fs.attributes {
        return false;
    }
    let (pointer, true_value, false_value) = (ts.operands[0], ts.operands[1], fs.operands[1]);
    // A value defined inside the region would not outlive it.
    let inside = |v: Value| match rw.ir.value(v).def {
        ValueDef::Argument { block, .. } => blocks.contains(&block),
        ValueDef::Result { op: def, .. } => rw.ir.op(def).parent.is_some_and(|b| blocks.contains(&b)),
    };
    if inside(true_value) || inside(false_value) || inside(pointer) {
        return false;
    }
    let (properties, attributes) = (ts.properties.clone(), ts.attributes.clone());
    let ty = rw.ir.value_type(true_value);
    let Some(select) =
        rw.create_value_before(op, "spirv.Select", vec![condition, true_value, false_value], ty, Vec::new())
    else {
        return false;
    };
    let Some(store) = rw.create_op_before(op, "spirv.Store", vec![pointer, select], &[], properties) else {
        return false;
    };
    rw.ir.op_mut(store).attributes = attributes;
    rw.erase_op(op);
    true
}

#[cfg(test)]
mod tests {
    use crate::canonicalize::tests::canonicalized;

    #[test]
    fn comparison_umod_and_access_chain_patterns() {
        let source = r#"func.func @not(%x: i32, %y: i32, %a: i1, %b: i1, %p: !spirv.ptr<i1, Function>) -> (i1, i1, i1) {
  %0 = spirv.IEqual %x, %y : i32
  %1 = spirv.LogicalNot %0 : i1
  %2 = spirv.LogicalNotEqual %a, %b : i1
  %3 = spirv.LogicalNot %2 : i1
  spirv.Store "Function" %p, %2 : i1
  %4 = spirv.SLessThan %x, %y : i32
  %5 = spirv.LogicalNot %4 : i1
  return %1, %3, %5 : i1, i1, i1
}
func.func @umod(%x: i32) -> (i32, i32) {
  %c12 = spirv.Constant 12 : i32
  %c4 = spirv.Constant 4 : i32
  %c5 = spirv.Constant 5 : i32
  %0 = spirv.UMod %x, %c12 : i32
  %1 = spirv.UMod %0, %c4 : i32
  %2 = spirv.UMod %0, %c5 : i32
  return %1, %2 : i32, i32
}
func.func @chain(%i: i32, %j: i32) -> f32 {
  %v = spirv.Variable : !spirv.ptr<!spirv.array<4 x !spirv.array<4 x f32>>, Function>
  %p = spirv.AccessChain %v[%i] : !spirv.ptr<!spirv.array<4 x !spirv.array<4 x f32>>, Function>, i32 -> !spirv.ptr<!spirv.array<4 x f32>, Function>
  %q = spirv.AccessChain %p[%j] : !spirv.ptr<!spirv.array<4 x f32>, Function>, i32 -> !spirv.ptr<f32, Function>
  %l = spirv.Load "Function" %q : f32
  return %l : f32
}"#;
        let expected = r#"module {
  func.func @not(%arg0: i32, %arg1: i32, %arg2: i1, %arg3: i1, %arg4: !spirv.ptr<i1, Function>) -> (i1, i1, i1) {
    %0 = spirv.INotEqual %arg0, %arg1 : i32
    %1 = spirv.LogicalNotEqual %arg2, %arg3 : i1
    %2 = spirv.LogicalEqual %arg2, %arg3 : i1
    spirv.Store "Function" %arg4, %1 : i1
    %3 = spirv.SLessThan %arg0, %arg1 : i32
    %4 = spirv.LogicalNot %3 : i1
    return %0, %2, %4 : i1, i1, i1
  }
  func.func @umod(%arg0: i32) -> (i32, i32) {
    %cst12_i32 = spirv.Constant 12 : i32
    %cst4_i32 = spirv.Constant 4 : i32
    %cst5_i32 = spirv.Constant 5 : i32
    %0 = spirv.UMod %arg0, %cst12_i32 : i32
    %1 = spirv.UMod %arg0, %cst4_i32 : i32
    %2 = spirv.UMod %0, %cst5_i32 : i32
    return %1, %2 : i32, i32
  }
  func.func @chain(%arg0: i32, %arg1: i32) -> f32 {
    %0 = spirv.Variable : !spirv.ptr<!spirv.array<4 x !spirv.array<4 x f32>>, Function>
    %1 = spirv.AccessChain %0[%arg0, %arg1] : !spirv.ptr<!spirv.array<4 x !spirv.array<4 x f32>>, Function>, i32, i32 -> !spirv.ptr<f32, Function>
    %2 = spirv.Load "Function" %1 : f32
    return %2 : f32
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn extended_arithmetic_of_constants() {
        let source = r#"func.func @f(%x: i32) -> (!spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>) {
  %c0 = spirv.Constant 0 : i32
  %c1 = spirv.Constant 1 : i32
  %cm1 = spirv.Constant -1 : i32
  %c5 = spirv.Constant 5 : i32
  %0 = spirv.IAddCarry %c0, %x : !spirv.struct<(i32, i32)>
  %1 = spirv.IAddCarry %cm1, %c5 : !spirv.struct<(i32, i32)>
  %2 = spirv.UMulExtended %x, %c1 : !spirv.struct<(i32, i32)>
  %3 = spirv.SMulExtended %cm1, %c5 : !spirv.struct<(i32, i32)>
  %4 = spirv.UMulExtended %x, %c0 : !spirv.struct<(i32, i32)>
  return %0, %1, %2, %3, %4 : !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i32) -> (!spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>) {
    %cst-1_i32 = spirv.Constant -1 : i32
    %cst-5_i32 = spirv.Constant -5 : i32
    %cst1_i32 = spirv.Constant 1 : i32
    %cst4_i32 = spirv.Constant 4 : i32
    %cst0_i32 = spirv.Constant 0 : i32
    %0 = spirv.CompositeConstruct %cst0_i32, %arg0 : (i32, i32) -> !spirv.struct<(i32, i32)>
    %1 = spirv.Undef : !spirv.struct<(i32, i32)>
    %2 = spirv.CompositeInsert %cst4_i32, %1[0 : i32] : i32 into !spirv.struct<(i32, i32)>
    %3 = spirv.CompositeInsert %cst1_i32, %2[1 : i32] : i32 into !spirv.struct<(i32, i32)>
    %4 = spirv.CompositeConstruct %arg0, %cst0_i32 : (i32, i32) -> !spirv.struct<(i32, i32)>
    %5 = spirv.Undef : !spirv.struct<(i32, i32)>
    %6 = spirv.CompositeInsert %cst-5_i32, %5[0 : i32] : i32 into !spirv.struct<(i32, i32)>
    %7 = spirv.CompositeInsert %cst-1_i32, %6[1 : i32] : i32 into !spirv.struct<(i32, i32)>
    %8 = spirv.CompositeConstruct %cst0_i32, %cst0_i32 : (i32, i32) -> !spirv.struct<(i32, i32)>
    return %0, %3, %4, %7, %8 : !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>, !spirv.struct<(i32, i32)>
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }

    #[test]
    fn selection_of_two_stores_becomes_select() {
        let source = r#"func.func @f(%cond: i1, %p: !spirv.ptr<i32, Function>, %x: i32, %y: i32) -> () {
  spirv.mlir.selection {
    spirv.BranchConditional %cond, ^then, ^else
  ^then:
    spirv.Store "Function" %p, %x ["Volatile"] : i32
    spirv.Branch ^merge
  ^else:
    spirv.Store "Function" %p, %y ["Volatile"] : i32
    spirv.Branch ^merge
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}
func.func @g(%cond: i1, %p: !spirv.ptr<i32, Function>, %x: i32, %y: i32) -> () {
  spirv.mlir.selection {
    spirv.BranchConditional %cond, ^then, ^else
  ^then:
    spirv.Store "Function" %p, %x ["Volatile"] : i32
    spirv.Branch ^merge
  ^else:
    spirv.Store "Function" %p, %y : i32
    spirv.Branch ^merge
  ^merge:
    spirv.mlir.merge
  }
  spirv.Return
}"#;
        let expected = r#"module {
  func.func @f(%arg0: i1, %arg1: !spirv.ptr<i32, Function>, %arg2: i32, %arg3: i32) {
    %0 = spirv.Select %arg0, %arg2, %arg3 : i1, i32
    spirv.Store "Function" %arg1, %0 ["Volatile"] : i32
    spirv.Return
  }
  func.func @g(%arg0: i1, %arg1: !spirv.ptr<i32, Function>, %arg2: i32, %arg3: i32) {
    spirv.mlir.selection {
      spirv.BranchConditional %arg0, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      spirv.Store "Function" %arg1, %arg2 ["Volatile"] : i32
      spirv.Branch ^bb3
    ^bb2:  // pred: ^bb0
      spirv.Store "Function" %arg1, %arg3 : i32
      spirv.Branch ^bb3
    ^bb3:  // 2 preds: ^bb1, ^bb2
      spirv.mlir.merge
    }
    spirv.Return
  }
}"#;
        assert_eq!(canonicalized(source), expected);
    }
}
