//! `-spirv-canonicalize-gl`: min/max selection pairs become `spirv.GL.*Clamp`.
//!
//! `select(cmp(mid, max), mid, max)` with `mid = select(cmp(min, x), x, min)`, and
//! the mirrored `select(cmp(max, x), max, select(cmp(x, min), min, x))`, are
//! `clamp(x, min, max)` for the ordered float, signed and unsigned comparisons.

use crate::ir::{Ir, OpId, Value, ValueDef};

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

/// Rewrites every clamp pattern under `top`, then drops what became dead.
pub fn run(ir: &mut Ir, top: OpId) {
    let roots: Vec<_> =
        ir.ops_under(top).into_iter().filter_map(|(b, op)| Some((b, op, match_clamp(ir, op)?))).collect();
    for (block, root, (clamp, x, min, max)) in roots {
        let result = ir.op(root).results[0];
        let ty = ir.value_type(result);
        let location = ir.op(root).location.clone();
        let op = ir.create_op(clamp, vec![x, min, max], &[ty], location);
        ir.insert_op_before(block, root, op);
        let new = ir.op(op).results[0];
        crate::canonicalize::replace_all_uses(ir, top, result, new);
    }
    crate::canonicalize::erase_all_dead(ir, top);
}
