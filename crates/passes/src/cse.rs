//! `--cse`: common subexpression elimination. A pure op (no regions) identical to an
//! earlier one that dominates it — same name, operands, attributes and result types —
//! is replaced by it. Dominance is approximated structurally: earlier in the same
//! block, or in a block enclosing this one; isolated-from-above ops start afresh and
//! sibling blocks of a multi-block region do not share.

use spirvkit_ir::ir::{BlockId, Ir, OpId};

/// Runs CSE over everything under `top`.
pub fn run(ir: &mut Ir, top: OpId) {
    let mut scope: Vec<OpId> = Vec::new();
    cse_op(ir, top, top, &mut scope);
}

fn cse_op(ir: &mut Ir, top: OpId, op: OpId, scope: &mut Vec<OpId>) {
    let isolated = ir.op(op).name.def().is_some_and(|d| d.traits.contains(&"IsolatedFromAbove"))
        || ir.op(op).name == "builtin.module";
    let saved = scope.len();
    if isolated {
        // Values from outside are not visible: hide the enclosing scope.
        let mut fresh = Vec::new();
        visit_regions(ir, top, op, &mut fresh);
    } else {
        visit_regions(ir, top, op, scope);
    }
    scope.truncate(saved);
}

fn visit_regions(ir: &mut Ir, top: OpId, op: OpId, scope: &mut Vec<OpId>) {
    let regions = ir.op(op).regions.clone();
    for r in regions {
        let blocks = ir.region(r).blocks.clone();
        for b in blocks {
            let saved = scope.len();
            cse_block(ir, top, b, scope);
            scope.truncate(saved);
        }
    }
}

fn is_cse_candidate(ir: &Ir, op: OpId) -> bool {
    let o = ir.op(op);
    o.regions.is_empty()
        && !o.results.is_empty()
        && o.name.def().is_some_and(|d| d.traits.contains(&"Pure") || d.traits.contains(&"ConstantLike"))
}

/// Same name, operands, attributes and result types.
pub(crate) fn equivalent(ir: &Ir, a: OpId, b: OpId) -> bool {
    let (x, y) = (ir.op(a), ir.op(b));
    x.name == y.name
        && x.operands == y.operands
        && x.properties == y.properties
        && x.attributes == y.attributes
        && x.results.len() == y.results.len()
        && x.results.iter().zip(&y.results).all(|(&p, &q)| ir.value_type(p) == ir.value_type(q))
}

fn cse_block(ir: &mut Ir, top: OpId, block: BlockId, scope: &mut Vec<OpId>) {
    let ops = ir.block(block).ops.clone();
    for op in ops {
        if is_cse_candidate(ir, op) {
            if let Some(existing) = scope.iter().rev().copied().find(|&e| equivalent(ir, e, op)) {
                let pairs: Vec<_> =
                    ir.op(op).results.iter().copied().zip(ir.op(existing).results.clone()).collect();
                for (old, new) in pairs {
                    crate::canonicalize::replace_all_uses(ir, top, old, new);
                }
                ir.erase_op(op);
                continue;
            }
            scope.push(op);
        } else {
            cse_op(ir, top, op, scope);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn duplicates_fold_into_the_first() {
        let options = crate::opt::OptOptions { passes: vec!["--cse".into()], ..Default::default() };
        let source = "spirv.module Logical GLSL450 {
  spirv.func @f(%a: i32) -> i32 \"None\" {
    %0 = spirv.IAdd %a, %a : i32
    %1 = spirv.IAdd %a, %a : i32
    %2 = spirv.IMul %0, %1 : i32
    spirv.ReturnValue %2 : i32
  }
}";
        let r = crate::opt::run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        assert_eq!(r.output.matches("spirv.IAdd").count(), 1, "{}", r.output);
        assert!(r.output.contains("spirv.IMul %0, %0 : i32"), "{}", r.output);
    }
}
