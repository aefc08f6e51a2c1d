//! Access chains over access chains become one chain from the first base, with the
//! indices of both: what SPIRV-Tools' legalization leaves of the chains dxc's raw form
//! builds on one another (an element of an array of buffers, a component of a buffer
//! element, a buffer reached through an inlined parameter). The inner chains left
//! unused are dead code for `dce`.

use spirvkit_ir::ir::{Ir, OpId, Value};

use super::util;

/// Chains nested deeper than this are left as they are (they do not occur in code
/// generated from source; the bound keeps hostile input from costing quadratic time).
const MAX_DEPTH: usize = 64;

/// Rewrites every `spirv.AccessChain` of `func` whose base is an access chain.
pub(crate) fn run(ir: &mut Ir, func: OpId) {
    let chains: Vec<OpId> =
        ir.ops_under(func).into_iter().map(|(_, op)| op).filter(|&op| is_chain(ir, op)).collect();
    for op in chains {
        let Some(&base) = ir.op(op).operands.first() else { continue };
        let Some(inner) = util::defining_op(ir, base).filter(|&d| is_chain(ir, d)) else { continue };
        let mut prefix: Vec<Value> = Vec::new();
        let mut root = inner;
        let mut depth = 0;
        // Indices of every chain below, innermost first.
        loop {
            let operands = &ir.op(root).operands;
            prefix.splice(0..0, operands[1..].iter().copied());
            match util::defining_op(ir, operands[0]).filter(|&d| is_chain(ir, d)) {
                Some(next) if depth < MAX_DEPTH => {
                    root = next;
                    depth += 1;
                }
                _ => break,
            }
        }
        if depth >= MAX_DEPTH {
            continue;
        }
        let mut operands = vec![ir.op(root).operands[0]];
        operands.extend(prefix);
        operands.extend(ir.op(op).operands[1..].iter().copied());
        ir.op_mut(op).operands = operands;
    }
}

fn is_chain(ir: &Ir, op: OpId) -> bool {
    let o = ir.op(op);
    o.name == "spirv.AccessChain" && !o.operands.is_empty() && o.results.len() == 1
}
