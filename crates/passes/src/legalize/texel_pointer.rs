//! `OpImageTexelPointer` needs a pointer to the image's variable (the Vulkan rule: a
//! UniformConstant pointer), where HLSL code reaches the image through a local
//! (`RWTexture2D<uint> t = textures[i]; InterlockedAdd(t[uv], 1)`). When the local is
//! stored exactly once, with a load of such a pointer defined where the texel
//! pointer can see it, the texel pointer takes that pointer instead, so the local
//! becomes an ordinary value mem2reg removes.

use super::util;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_ir::ir::{Ir, OpId, Value};
use spirvkit_ir::types::TypeKind;

pub(crate) fn run(ir: &mut Ir, func: OpId) {
    let ops = ir.ops_under(func);
    // Stores to each Function variable: (count, stored value).
    let mut stores: FxHashMap<Value, (usize, Value)> = FxHashMap::default();
    for &(_, op) in &ops {
        let o = ir.op(op);
        if o.name == "spirv.Store" && o.operands.len() == 2 {
            let e = stores.entry(o.operands[0]).or_insert((0, o.operands[1]));
            e.0 += 1;
        }
    }
    for (block, op) in ops {
        if ir.op(op).name != "spirv.ImageTexelPointer" {
            continue;
        }
        let Some(&var) = ir.op(op).operands.first() else { continue };
        if !is_function_variable(ir, var) {
            continue;
        }
        let Some(&(1, stored)) = stores.get(&var) else { continue };
        let Some(load) = util::defining_op(ir, stored) else { continue };
        if ir.op(load).name != "spirv.Load" {
            continue;
        }
        let Some(&pointer) = ir.op(load).operands.first() else { continue };
        if !matches!(ir.types.kind(ir.value_type(pointer)), TypeKind::Pointer { storage_class, .. } if storage_class == "UniformConstant")
        {
            continue;
        }
        // The pointer must be visible at the texel pointer: defined in an enclosing
        // region (or earlier in the same block).
        let Some(def_block) = util::defining_block(ir, pointer) else { continue };
        let (Some(def_region), Some(use_region)) = (ir.block(def_block).parent, ir.block(block).parent)
        else {
            continue;
        };
        let visible = if def_block == block {
            let order = &ir.block(block).ops;
            let def_op = util::defining_op(ir, pointer);
            match def_op {
                Some(d) => order.iter().position(|&o| o == d) < order.iter().position(|&o| o == op),
                None => true,
            }
        } else {
            def_region != use_region && util::region_within(ir, use_region, def_region)
                || (def_region == use_region && block_precedes(ir, def_block, block))
        };
        if visible {
            ir.op_mut(op).operands[0] = pointer;
        }
    }
}

fn is_function_variable(ir: &Ir, v: Value) -> bool {
    util::defining_op(ir, v).is_some_and(|d| ir.op(d).name == "spirv.Variable")
}

/// Whether `a` comes before `b` in their region when the region is a straight chain
/// (the shape of a function body between constructs: each block branches to the next).
fn block_precedes(ir: &Ir, a: spirvkit_ir::ir::BlockId, b: spirvkit_ir::ir::BlockId) -> bool {
    let Some(region) = ir.block(a).parent else { return false };
    let blocks = &ir.region(region).blocks;
    // Only the entry block dominates every other block of a region for certain.
    blocks.first() == Some(&a) && blocks.contains(&b)
}
