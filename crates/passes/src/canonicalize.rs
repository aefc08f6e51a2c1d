//! `--canonicalize`: MLIR's canonicalizer over the SPIR-V dialect. The greedy
//! rewrite driver (`driver.rs`: worklist, folding with constant materialization,
//! constant uniquing and hoisting, dead-op erasure, region simplification in
//! `regions.rs`) runs the dialect's folds (`fold.rs`) and canonicalization patterns
//! (`patterns.rs`); `constants.rs` is the constant-value model they share.
//!
//! Also home to `replace_all_uses`, which simpler passes use.

mod constants;
pub(crate) mod driver;
mod fold;
mod patterns;
mod regions;

use spirvkit_ir::ir::{Ir, OpId, Value};

/// Canonicalizes everything under `top` (an op isolated from above, normally the
/// top-level module).
pub fn run(ir: &mut Ir, top: OpId) {
    driver::apply_patterns_greedily(ir, top, driver::Config::canonicalizer(), &patterns::apply);
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

#[cfg(test)]
pub(crate) mod tests {
    /// `source` after `--canonicalize`, as printed (without the trailing newlines).
    pub(crate) fn canonicalized(source: &str) -> String {
        let options = crate::opt::OptOptions { passes: vec!["--canonicalize".into()], ..Default::default() };
        let r = crate::opt::run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output.trim_end().to_string()
    }

    #[test]
    fn running_on_each_function_matches_running_on_the_module() {
        // What `builtin.module(func.func(canonicalize))` does: one driver per function.
        let source = "func.func @f(%x: i32) -> (i32, i32) {
  %c1 = spirv.Constant 1 : i32
  %a = spirv.IAdd %x, %c1 : i32
  %c2 = spirv.Constant 2 : i32
  %c3 = spirv.Constant 3 : i32
  %b = spirv.IMul %c2, %c3 : i32
  return %a, %b : i32, i32
}
func.func @g() -> i1 {
  %t = spirv.Constant true
  %0 = spirv.LogicalNot %t : i1
  return %0 : i1
}";
        let (mut ir, top) = spirvkit_ir::parse(source, "t.mlir").expect("parses");
        let functions: Vec<_> =
            ir.ops_under(top).into_iter().filter(|&(_, op)| ir.op(op).name == "func.func").collect();
        for (_, func) in functions {
            super::run(&mut ir, func);
        }
        let per_function = spirvkit_ir::print(&ir, top, spirvkit_ir::PrintOptions::default());
        assert_eq!(per_function.trim_end(), canonicalized(source));
    }

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
