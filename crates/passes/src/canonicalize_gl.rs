//! `-spirv-canonicalize-gl`: min/max selection pairs become `spirv.GL.*Clamp`.
//!
//! `select(cmp(mid, max), mid, max)` with `mid = select(cmp(min, x), x, min)`, and
//! the mirrored `select(cmp(max, x), max, select(cmp(x, min), min, x))`, are
//! `clamp(x, min, max)` for the ordered float, signed and unsigned comparisons.
//! The rewrite is a pattern of the greedy rewrite driver, as in MLIR.

use crate::canonicalize::driver::{self, Rewriter};
use spirvkit_ir::ir::{Ir, OpId, Value, ValueDef};

/// The clamp op for a less-than comparison.
fn clamp_for(cmp: &str) -> Option<&'static str> {
    Some(match cmp {
        "spirv.FOrdLessThan" | "spirv.FOrdLessThanEqual" => "spirv.GL.FClamp",
        "spirv.SLessThan" | "spirv.SLessThanEqual" => "spirv.GL.SClamp",
        "spirv.ULessThan" | "spirv.ULessThanEqual" => "spirv.GL.UClamp",
        _ => return None,
    })
}

/// `v`'s defining op if it has this name.
fn defined_by(ir: &Ir, v: Value, name: &str) -> Option<OpId> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    (ir.op(op).name == name).then_some(op)
}

/// `(cmp name, lhs, rhs)` of a comparison value.
fn comparison(ir: &Ir, v: Value) -> Option<(&str, Value, Value)> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    let o = ir.op(op);
    clamp_for(&o.name)?;
    Some((o.name.as_str(), *o.operands.first()?, *o.operands.get(1)?))
}

/// `(condition, true value, false value)` of a `spirv.Select`.
fn select(ir: &Ir, op: OpId) -> Option<(Value, Value, Value)> {
    let o = ir.op(op);
    if o.name != "spirv.Select" || o.operands.len() != 3 {
        return None;
    }
    Some((o.operands[0], o.operands[1], o.operands[2]))
}

/// `(clamp op, x, min, max)` when the select rooted at `root` is a clamp.
fn match_clamp(ir: &Ir, root: OpId) -> Option<(&'static str, Value, Value, Value)> {
    let (cond, t, f) = select(ir, root)?;
    let (cmp, a, b) = comparison(ir, cond)?;
    // Form 1: select(cmp(mid, max), mid, max), mid = select(cmp(min, x), x, min).
    if a == t && b == f {
        if let Some(inner) = defined_by(ir, t, "spirv.Select") {
            let (c2, t2, f2) = select(ir, inner)?;
            let (cmp2, min, x) = comparison(ir, c2)?;
            if cmp2 == cmp && t2 == x && f2 == min {
                return Some((clamp_for(cmp)?, x, min, b));
            }
        }
    }
    // Form 2: select(cmp(max, x), max, select(cmp(x, min), min, x)).
    if a == t {
        let max = a;
        let x = b;
        let inner = defined_by(ir, f, "spirv.Select")?;
        let (c2, t2, f2) = select(ir, inner)?;
        let (cmp2, x2, min) = comparison(ir, c2)?;
        if cmp2 == cmp && x2 == x && t2 == min && f2 == x {
            return Some((clamp_for(cmp)?, x, min, max));
        }
    }
    None
}

/// Rewrites every clamp pattern under `top` with the greedy rewrite driver (which
/// also folds, drops what became dead and uniques and hoists constants).
pub fn run(ir: &mut Ir, top: OpId) {
    driver::apply_patterns_greedily(ir, top, driver::Config::default(), &clamp);
}

/// The pattern: a select pair rooted at `root` becomes a clamp.
fn clamp(rw: &mut Rewriter, root: OpId) -> bool {
    let Some((clamp, x, min, max)) = match_clamp(rw.ir, root) else { return false };
    let Some(&result) = rw.ir.op(root).results.first() else { return false };
    let ty = rw.ir.value_type(result);
    let Some(new) = rw.create_value_before(root, clamp, vec![x, min, max], ty, Vec::new()) else {
        return false;
    };
    rw.replace_op(root, &[new]);
    true
}

#[cfg(test)]
mod tests {
    #[test]
    fn clamps_form_and_the_driver_folds_the_rest() {
        let source = r#"func.func @f(%x: f32, %y: i32) -> (f32, i32, i32) {
  %min = spirv.Constant 0.0 : f32
  %max = spirv.Constant 1.0 : f32
  %0 = spirv.FOrdLessThan %min, %x : f32
  %mid = spirv.Select %0, %x, %min : i1, f32
  %1 = spirv.FOrdLessThan %mid, %max : f32
  %2 = spirv.Select %1, %mid, %max : i1, f32
  %c1 = spirv.Constant 1 : i32
  %c2 = spirv.Constant 2 : i32
  %3 = spirv.IAdd %c1, %c2 : i32
  %4 = spirv.IAdd %y, %c1 : i32
  %5 = spirv.IAdd %c1, %y : i32
  return %2, %3, %5 : f32, i32, i32
}"#;
        let expected = r#"module {
  func.func @f(%arg0: f32, %arg1: i32) -> (f32, i32, i32) {
    %cst3_i32 = spirv.Constant 3 : i32
    %cst1_i32 = spirv.Constant 1 : i32
    %cst_f32 = spirv.Constant 0.000000e+00 : f32
    %cst_f32_0 = spirv.Constant 1.000000e+00 : f32
    %0 = spirv.GL.FClamp %arg0, %cst_f32, %cst_f32_0 : f32
    %1 = spirv.IAdd %arg1, %cst1_i32 : i32
    return %0, %cst3_i32, %1 : f32, i32, i32
  }
}"#;
        let options =
            crate::opt::OptOptions { passes: vec!["-spirv-canonicalize-gl".into()], ..Default::default() };
        let r = crate::opt::run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        assert_eq!(r.output.trim_end(), expected);
    }
}
