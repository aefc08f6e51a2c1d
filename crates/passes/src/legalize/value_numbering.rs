//! `--spirv-value-numbering`: redundant computations removed from a function, as
//! SPIRV-Tools' local-redundancy-elimination and value numbering leave dxc's
//! optimized (`-O1`..`-O3`) code: an op that computes what a dominating op computes
//! already (same name, operands, properties and result types) is replaced by it.
//!
//! Candidates are pure ops and loads from memory no shader writes (SPIRV-Tools'
//! read-only pointers): a cbuffer (a `Uniform` block that is no `BufferBlock`),
//! push constants, stage inputs, and `UniformConstant` handles other than storage
//! images. Loads from any other memory stay: a store, call or barrier in between may
//! change what they read.
//!
//! Dominance is structural: an op dominates what follows it in its block, the
//! regions of later ops of the block, and, in the first block of a region, every
//! other block of that region. The work is linear in the function's size (one hash
//! lookup per op, one rewrite of the uses at the end).

use super::util;
use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_ir::ir::{BlockId, Ir, OpId, RegionId, Value};
use spirvkit_ir::opdef::op_has_trait;
use spirvkit_ir::types::{Type, TypeKind};

/// Nesting of regions followed (deeper ones are left as they are).
const MAX_DEPTH: usize = 256;

/// Removes `func`'s redundant ops; true when one went.
pub fn run(ir: &mut Ir, func: OpId) -> bool {
    let mut numbering = Numbering::default();
    for region in ir.op(func).regions.clone() {
        numbering.region(ir, region, 0);
    }
    if numbering.replace.is_empty() {
        return false;
    }
    util::replace_uses(ir, func, &numbering.replace);
    for op in numbering.redundant {
        util::detach(ir, op);
    }
    util::compact(ir, func);
    true
}

/// The key an op is looked up by (its name and resolved operands); candidates with
/// the same key are compared in full.
type Key = (String, Vec<Value>);

#[derive(Default)]
struct Numbering {
    /// The dominating ops in scope by key, innermost last.
    available: FxHashMap<Key, Vec<OpId>>,
    /// The keys added, to leave a scope by truncating.
    added: Vec<Key>,
    replace: FxHashMap<Value, Value>,
    redundant: Vec<OpId>,
}

impl Numbering {
    fn region(&mut self, ir: &Ir, region: RegionId, depth: usize) {
        if depth > MAX_DEPTH {
            return;
        }
        let blocks = &ir.region(region).blocks;
        let Some((&first, rest)) = blocks.split_first() else { return };
        let outer = self.added.len();
        self.block(ir, first, depth);
        for &b in rest {
            let mark = self.added.len();
            self.block(ir, b, depth);
            self.leave(mark);
        }
        self.leave(outer);
    }

    fn block(&mut self, ir: &Ir, block: BlockId, depth: usize) {
        for &op in &ir.block(block).ops {
            let o = ir.op(op);
            if !o.regions.is_empty() {
                for &r in &o.regions {
                    self.region(ir, r, depth + 1);
                }
                continue;
            }
            if o.results.is_empty() || !is_candidate(ir, op) {
                continue;
            }
            let operands: Vec<Value> = o.operands.iter().map(|&v| util::resolve(&self.replace, v)).collect();
            let key = (o.name.as_str().to_string(), operands);
            let found = self.available.get(&key).and_then(|ops| {
                ops.iter().rev().copied().find(|&e| same_computation(ir, e, op, &self.replace))
            });
            match found {
                Some(existing) => {
                    for (&old, &new) in o.results.iter().zip(&ir.op(existing).results) {
                        self.replace.insert(old, new);
                    }
                    self.redundant.push(op);
                }
                None => {
                    self.available.entry(key.clone()).or_default().push(op);
                    self.added.push(key);
                }
            }
        }
    }

    /// Forgets the ops added since `mark`.
    fn leave(&mut self, mark: usize) {
        while self.added.len() > mark {
            let Some(key) = self.added.pop() else { break };
            if let Some(ops) = self.available.get_mut(&key) {
                ops.pop();
                if ops.is_empty() {
                    self.available.remove(&key);
                }
            }
        }
    }
}

/// Same name, operands (after the replacements so far), properties, attributes and
/// result types.
fn same_computation(ir: &Ir, a: OpId, b: OpId, replace: &FxHashMap<Value, Value>) -> bool {
    let (x, y) = (ir.op(a), ir.op(b));
    x.name == y.name
        && x.operands.len() == y.operands.len()
        && x.operands
            .iter()
            .zip(&y.operands)
            .all(|(&p, &q)| util::resolve(replace, p) == util::resolve(replace, q))
        && x.properties == y.properties
        && x.attributes == y.attributes
        && x.successors.is_empty()
        && y.successors.is_empty()
        && x.results.len() == y.results.len()
        && x.results.iter().zip(&y.results).all(|(&p, &q)| ir.value_type(p) == ir.value_type(q))
}

fn is_candidate(ir: &Ir, op: OpId) -> bool {
    let o = ir.op(op);
    if o.name == "spirv.Load" {
        return o.operands.len() == 1 && reads_read_only_memory(ir, o.operands[0]);
    }
    // Constants are the module's (deduplicated when written); variables are places.
    // A group operation's result depends on the invocations active where it runs,
    // which a dominating one may not share.
    let name = o.name.as_str();
    name != "spirv.Constant"
        && name != "spirv.Variable"
        && !name.starts_with("spirv.Group")
        && !name.starts_with("spirv.KHR.Group")
        && op_has_trait(name, "Pure")
}

/// Whether `ptr` points into memory no shader invocation writes.
fn reads_read_only_memory(ir: &Ir, ptr: Value) -> bool {
    let Some((_, storage_class)) = util::pointer_parts(ir, ir.value_type(ptr)) else { return false };
    match storage_class {
        "PushConstant" | "Input" => true,
        "Uniform" => root_pointee(ir, ptr).is_some_and(|t| !is_buffer_block(ir, t)),
        "UniformConstant" => root_pointee(ir, ptr).is_some_and(|t| !holds_storage_image(ir, t)),
        _ => false,
    }
}

/// The pointee of the variable `ptr` is an access chain into (`spirv.mlir.addressof`).
fn root_pointee(ir: &Ir, mut ptr: Value) -> Option<Type> {
    for _ in 0..MAX_DEPTH {
        let def = util::defining_op(ir, ptr)?;
        let o = ir.op(def);
        match o.name.as_str() {
            "spirv.mlir.addressof" => return util::pointer_parts(ir, ir.value_type(ptr)).map(|(t, _)| t),
            "spirv.AccessChain" | "spirv.InBoundsPtrAccessChain" | "spirv.PtrAccessChain" => {
                ptr = *o.operands.first()?
            }
            _ => return None,
        }
    }
    None
}

/// A struct decorated `BufferBlock` (a storage buffer in the `Uniform` class).
fn is_buffer_block(ir: &Ir, ty: Type) -> bool {
    match ir.types.kind(ty) {
        TypeKind::IdentifiedStruct { name } => {
            ir.types.struct_body(name).is_none_or(|b| b.decorations.iter().any(|(d, _)| d == "BufferBlock"))
        }
        TypeKind::LiteralStruct(body) => body.decorations.iter().any(|(d, _)| d == "BufferBlock"),
        // An array of buffers: its element decides.
        TypeKind::Array { element, .. } | TypeKind::RuntimeArray { element, .. } => {
            is_buffer_block(ir, *element)
        }
        _ => true,
    }
}

/// An image read without a sampler (a storage image or texel buffer), or an array of them.
fn holds_storage_image(ir: &Ir, ty: Type) -> bool {
    match ir.types.kind(ty) {
        TypeKind::Image { params, .. } => params[4] != "NeedSampler",
        TypeKind::Array { element, .. } | TypeKind::RuntimeArray { element, .. } => {
            holds_storage_image(ir, *element)
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    fn numbered(source: &str) -> String {
        let options =
            crate::opt::OptOptions { passes: vec!["--spirv-value-numbering".into()], ..Default::default() };
        let r = crate::opt::run(source, "t.mlir", &options);
        assert!(r.success, "{}", r.diagnostics_text);
        r.output
    }

    #[test]
    fn a_cbuffer_load_and_its_uses_are_computed_once() {
        let out = numbered(
            "spirv.module Logical GLSL450 {
  spirv.GlobalVariable @cb bind(0, 0) : !spirv.ptr<!spirv.struct<(i32 [0])>, Uniform>
  spirv.GlobalVariable @sb bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), BufferBlock>, Uniform>
  spirv.func @f() \"None\" {
    %zero = spirv.Constant 0 : i32
    %cb = spirv.mlir.addressof @cb : !spirv.ptr<!spirv.struct<(i32 [0])>, Uniform>
    %sb = spirv.mlir.addressof @sb : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), BufferBlock>, Uniform>
    %p = spirv.AccessChain %cb[%zero] : !spirv.ptr<!spirv.struct<(i32 [0])>, Uniform>, i32 -> !spirv.ptr<i32, Uniform>
    %a = spirv.Load \"Uniform\" %p : i32
    %q = spirv.AccessChain %sb[%zero, %a] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), BufferBlock>, Uniform>, i32, i32 -> !spirv.ptr<i32, Uniform>
    %x = spirv.Load \"Uniform\" %q : i32
    spirv.Store \"Uniform\" %q, %a : i32
    %b = spirv.Load \"Uniform\" %p : i32
    %r = spirv.AccessChain %sb[%zero, %b] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0]), BufferBlock>, Uniform>, i32, i32 -> !spirv.ptr<i32, Uniform>
    %y = spirv.Load \"Uniform\" %r : i32
    %s = spirv.IAdd %x, %y : i32
    spirv.Store \"Uniform\" %r, %s : i32
    spirv.Return
  }
}",
        );
        // One load of the cbuffer and one chain into the buffer; both buffer loads stay.
        assert_eq!(out.matches("spirv.Load \"Uniform\" %").count(), 3, "{out}");
        assert_eq!(out.matches("spirv.AccessChain").count(), 2, "{out}");
    }

    #[test]
    fn a_value_from_one_branch_is_not_used_in_the_other() {
        let out = numbered(
            "spirv.module Logical GLSL450 {
  spirv.func @f(%c: i1, %a: i32) -> i32 \"None\" {
    %r = spirv.mlir.selection -> i32 {
      spirv.BranchConditional %c, ^t, ^e
    ^t:
      %x = spirv.IAdd %a, %a : i32
      spirv.Branch ^m(%x : i32)
    ^e:
      %y = spirv.IAdd %a, %a : i32
      spirv.Branch ^m(%y : i32)
    ^m(%v: i32):
      spirv.mlir.merge %v : i32
    }
    spirv.ReturnValue %r : i32
  }
}",
        );
        assert_eq!(out.matches("spirv.IAdd").count(), 2, "{out}");
    }
}
