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
use crate::attr::{Attribute, NamedAttribute};
use crate::ir::{OpId, Value, ValueDef};
use crate::types::Type;

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
    let i32t = rw.ir.types.integer(32, crate::types::Signedness::Signless);
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
fn store_then_branch(rw: &Rewriter, block: crate::ir::BlockId) -> Option<(OpId, crate::ir::BlockId)> {
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
