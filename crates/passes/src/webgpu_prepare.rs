//! `--spirv-webgpu-prepare`: expands the ops WGSL lacks (`spirv.UMulExtended`,
//! `spirv.SMulExtended`, `spirv.IAddCarry` on 32-bit integers) into plain
//! arithmetic. The expansion is a pattern run by the greedy rewrite driver
//! (`canonicalize::driver`, in MLIR's default bottom-up configuration), which also
//! folds what it creates and uniques and hoists the constants.
//!
//! The 64-bit product is long multiplication over 16-bit digits held in i32 lanes,
//! so no intermediate product or sum overflows.

use crate::canonicalize::driver::{self, Rewriter};
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{Ir, OpId, Value};
use spirvkit_ir::types::{Type, TypeKind};

/// Whether `ty` is i32 or a vector of i32.
fn is_i32_based(ir: &Ir, ty: Type) -> bool {
    matches!(ir.types.kind(ir.types.scalar_of(ty)), TypeKind::Integer { width: 32, .. })
}

/// Creates ops right before the op being expanded.
struct Builder<'r, 'a> {
    rw: &'r mut Rewriter<'a>,
    before: OpId,
}

impl Builder<'_, '_> {
    fn op(&mut self, name: &str, operands: Vec<Value>, ty: Type) -> Option<Value> {
        self.rw.create_value_before(self.before, name, operands, ty, Vec::new())
    }

    /// A scalar constant, or a splat for a vector type.
    fn constant(&mut self, ty: Type, value: i128) -> Option<Value> {
        let scalar = self.rw.ir.types.scalar_of(ty);
        let attr = if scalar == ty {
            Attribute::Integer { value, ty }
        } else {
            Attribute::Dense { elements: vec![Attribute::Integer { value, ty: scalar }], ty }
        };
        let props = vec![NamedAttribute::new("value", attr)];
        self.rw.create_value_before(self.before, "spirv.Constant", Vec::new(), ty, props)
    }
}

/// The extended product of `lhs` and `rhs` as a `(low, high)` struct of `result_ty`.
fn expand_mul(b: &mut Builder, lhs: Value, rhs: Value, signed: bool, result_ty: Type) -> Option<Value> {
    let ty = b.rw.ir.value_type(lhs);
    let low_mask = b.constant(ty, 0xffff)?;
    let c16 = b.constant(ty, 16)?;
    let zero = b.constant(ty, 0)?;
    let low = |b: &mut Builder, v| b.op("spirv.BitwiseAnd", vec![v, low_mask], ty);
    let high = |b: &mut Builder, v| b.op("spirv.ShiftRightLogical", vec![v, c16], ty);
    // Shifting arithmetically by 16 then logically by 16 leaves the sign digit.
    let sign = |b: &mut Builder, v| {
        let s = b.op("spirv.ShiftRightArithmetic", vec![v, c16], ty)?;
        high(b, s)
    };
    let lhs_low = low(b, lhs)?;
    let lhs_high = high(b, lhs)?;
    let lhs_ext = if signed { sign(b, lhs)? } else { zero };
    let rhs_low = low(b, rhs)?;
    let rhs_high = high(b, rhs)?;
    let rhs_ext = if signed { sign(b, rhs)? } else { zero };
    let lhs_digits = [lhs_low, lhs_high, lhs_ext, lhs_ext];
    let rhs_digits = [rhs_low, rhs_high, rhs_ext, rhs_ext];
    let mut result = [zero; 4];
    // `zero + x` is folded on creation, as MLIR's `createOrFold` does.
    let add = |b: &mut Builder, x: Value, y: Value| {
        if x == zero {
            Some(y)
        } else {
            b.op("spirv.IAdd", vec![x, y], ty)
        }
    };
    for (i, &l) in lhs_digits.iter().enumerate() {
        for (j, &r) in rhs_digits.iter().enumerate() {
            if i + j >= result.len() || l == zero || r == zero {
                continue;
            }
            let product = b.op("spirv.IMul", vec![l, r], ty)?;
            let current = add(b, result[i + j], product)?;
            result[i + j] = low(b, current)?;
            if i + j + 1 != result.len() {
                let carry = high(b, current)?;
                result[i + j + 1] = add(b, result[i + j + 1], carry)?;
            }
        }
    }
    let combine = |b: &mut Builder, lo: Value, hi: Value| {
        let shifted = b.op("spirv.ShiftLeftLogical", vec![hi, c16], ty)?;
        b.op("spirv.BitwiseOr", vec![lo, shifted], ty)
    };
    let lo = combine(b, result[0], result[1])?;
    let hi = combine(b, result[2], result[3])?;
    b.op("spirv.CompositeConstruct", vec![lo, hi], result_ty)
}

fn expand_add_carry(b: &mut Builder, lhs: Value, rhs: Value, result_ty: Type) -> Option<Value> {
    let ty = b.rw.ir.value_type(lhs);
    let one = b.constant(ty, 1)?;
    let zero = b.constant(ty, 0)?;
    let sum = b.op("spirv.IAdd", vec![lhs, rhs], ty)?;
    let bool_ty = bool_like(b.rw.ir, ty);
    let overflowed = b.op("spirv.ULessThan", vec![sum, lhs], bool_ty)?;
    let carry = b.op("spirv.Select", vec![overflowed, one, zero], ty)?;
    b.op("spirv.CompositeConstruct", vec![sum, carry], result_ty)
}

/// `i1`, or a vector of `i1` shaped like `ty`.
fn bool_like(ir: &mut Ir, ty: Type) -> Type {
    let i1 = ir.types.integer(1, spirvkit_ir::types::Signedness::Signless);
    match ir.types.kind(ty).clone() {
        TypeKind::Vector { shape, scalable, .. } => {
            ir.types.intern(TypeKind::Vector { shape, scalable, element: i1 })
        }
        _ => i1,
    }
}

/// Runs the pass on every `spirv.module` under `top` (the op MLIR anchors it on).
pub fn run(ir: &mut Ir, top: OpId) {
    for module in spirvkit_ir::target_env::spirv_modules(ir, top) {
        driver::apply_patterns_greedily(ir, module, driver::Config::default(), &expand);
    }
}

/// The pattern: expands an extended op on i32 values in place.
fn expand(rw: &mut Rewriter, op: OpId) -> bool {
    let o = rw.ir.op(op);
    let name = o.name.clone();
    if !matches!(name.as_str(), "spirv.UMulExtended" | "spirv.SMulExtended" | "spirv.IAddCarry")
        || o.operands.len() != 2
        || o.results.len() != 1
        || !is_i32_based(rw.ir, rw.ir.value_type(o.operands[0]))
    {
        return false;
    }
    let (lhs, rhs, result) = (o.operands[0], o.operands[1], o.results[0]);
    let result_ty = rw.ir.value_type(result);
    let mut b = Builder { rw, before: op };
    let new = match name.as_str() {
        "spirv.IAddCarry" => expand_add_carry(&mut b, lhs, rhs, result_ty),
        _ => expand_mul(&mut b, lhs, rhs, name == "spirv.SMulExtended", result_ty),
    };
    let Some(new) = new else { return false };
    rw.replace_op(op, &[new]);
    true
}

#[cfg(test)]
mod tests {
    fn prepare(source: &str) -> String {
        let options =
            crate::opt::OptOptions { passes: vec!["--spirv-webgpu-prepare".into()], ..Default::default() };
        let r = crate::opt::run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output
    }

    #[test]
    fn add_carry_expands_only_for_i32() {
        let out = prepare(
            "spirv.module Logical GLSL450 {
  spirv.func @f(%a: i32, %b: i32) -> !spirv.struct<(i32, i32)> \"None\" {
    %0 = spirv.IAddCarry %a, %b : !spirv.struct<(i32, i32)>
    spirv.ReturnValue %0 : !spirv.struct<(i32, i32)>
  }
  spirv.func @g(%a: i16) -> !spirv.struct<(i16, i16)> \"None\" {
    %0 = spirv.IAddCarry %a, %a : !spirv.struct<(i16, i16)>
    spirv.ReturnValue %0 : !spirv.struct<(i16, i16)>
  }
}",
        );
        assert!(out.contains("%0 = spirv.IAdd %arg0, %arg1 : i32"), "{out}");
        assert!(out.contains("spirv.ULessThan %0, %arg0 : i32"), "{out}");
        assert_eq!(out.matches("spirv.IAddCarry").count(), 1, "{out}");
    }

    #[test]
    fn expansions_of_constants_fold_away() {
        let out = prepare(
            r#"spirv.module Logical GLSL450 {
  spirv.func @f(%x: i32) -> !spirv.struct<(i32, i32)> "None" {
    %c = spirv.Constant 123456 : i32
    %d = spirv.Constant -5 : i32
    %0 = spirv.SMulExtended %c, %d : !spirv.struct<(i32, i32)>
    %1 = spirv.CompositeExtract %0[1 : i32] : !spirv.struct<(i32, i32)>
    %2 = spirv.IAddCarry %x, %1 : !spirv.struct<(i32, i32)>
    spirv.ReturnValue %2 : !spirv.struct<(i32, i32)>
  }
}"#,
        );
        let expected = r#"module {
  spirv.module Logical GLSL450 {
    spirv.func @f(%arg0: i32) -> !spirv.struct<(i32, i32)> "None" {
      %cst-1_i32 = spirv.Constant -1 : i32
      %cst1_i32 = spirv.Constant 1 : i32
      %cst0_i32 = spirv.Constant 0 : i32
      %0 = spirv.IAdd %arg0, %cst-1_i32 : i32
      %1 = spirv.ULessThan %0, %arg0 : i32
      %2 = spirv.Select %1, %cst1_i32, %cst0_i32 : i1, i32
      %3 = spirv.CompositeConstruct %0, %2 : (i32, i32) -> !spirv.struct<(i32, i32)>
      spirv.ReturnValue %3 : !spirv.struct<(i32, i32)>
    }
  }
}"#;
        assert_eq!(out.trim_end(), expected);
    }
}
