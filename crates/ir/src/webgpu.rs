//! `--spirv-webgpu-prepare`: expands the ops WGSL lacks (`spirv.UMulExtended`,
//! `spirv.SMulExtended`, `spirv.IAddCarry` on 32-bit integers) into plain
//! arithmetic, then cleans up as MLIR's greedy rewrite driver does: folds, dead
//! pure ops removed, constants uniqued and hoisted to the top of their function
//! (existing ones in walk order, then the new ones in creation order).
//!
//! The 64-bit product is long multiplication over 16-bit digits held in i32 lanes,
//! so no intermediate product or sum overflows.

use crate::attr::Attribute;
use crate::ir::{BlockId, Ir, Location, OpId, Value};
use crate::opdef::op_def;
use crate::types::{Type, TypeKind};

/// Whether `ty` is i32 or a vector of i32.
fn is_i32_based(ir: &Ir, ty: Type) -> bool {
    matches!(ir.types.kind(ir.types.scalar_of(ty)), TypeKind::Integer { width: 32, .. })
}

struct Builder<'a> {
    ir: &'a mut Ir,
    block: BlockId,
    before: OpId,
    location: Location,
    /// The constants created, in order.
    constants: &'a mut Vec<OpId>,
}

impl Builder<'_> {
    fn op(&mut self, name: &str, operands: Vec<Value>, ty: Type) -> Value {
        let op = self.ir.create_op(name, operands, &[ty], self.location.clone());
        self.ir.insert_op_before(self.block, self.before, op);
        self.ir.op(op).results[0]
    }

    /// A scalar constant, or a splat for a vector type.
    fn constant(&mut self, ty: Type, value: i128) -> Value {
        let scalar = self.ir.types.scalar_of(ty);
        let attr = if scalar == ty {
            Attribute::Integer { value, ty }
        } else {
            Attribute::Dense { elements: vec![Attribute::Integer { value, ty: scalar }], ty }
        };
        let op = self.ir.create_op("spirv.Constant", Vec::new(), &[ty], self.location.clone());
        self.ir.op_mut(op).properties = vec![crate::attr::NamedAttribute::new("value", attr)];
        self.ir.insert_op_before(self.block, self.before, op);
        self.constants.push(op);
        self.ir.op(op).results[0]
    }
}

/// The extended product of `lhs` and `rhs` as a `(low, high)` struct of `result_ty`.
fn expand_mul(b: &mut Builder, lhs: Value, rhs: Value, signed: bool, result_ty: Type) -> Value {
    let ty = b.ir.value_type(lhs);
    let low_mask = b.constant(ty, 0xffff);
    let c16 = b.constant(ty, 16);
    let zero = b.constant(ty, 0);
    let low = |b: &mut Builder, v| b.op("spirv.BitwiseAnd", vec![v, low_mask], ty);
    let high = |b: &mut Builder, v| b.op("spirv.ShiftRightLogical", vec![v, c16], ty);
    // Shifting arithmetically by 16 then logically by 16 leaves the sign digit.
    let sign = |b: &mut Builder, v| {
        let s = b.op("spirv.ShiftRightArithmetic", vec![v, c16], ty);
        high(b, s)
    };
    let lhs_low = low(b, lhs);
    let lhs_high = high(b, lhs);
    let lhs_ext = if signed { sign(b, lhs) } else { zero };
    let rhs_low = low(b, rhs);
    let rhs_high = high(b, rhs);
    let rhs_ext = if signed { sign(b, rhs) } else { zero };
    let lhs_digits = [lhs_low, lhs_high, lhs_ext, lhs_ext];
    let rhs_digits = [rhs_low, rhs_high, rhs_ext, rhs_ext];
    let mut result = [zero; 4];
    // `zero + x` is folded on creation, as MLIR's `createOrFold` does.
    let add = |b: &mut Builder, x: Value, y: Value| {
        if x == zero {
            y
        } else {
            b.op("spirv.IAdd", vec![x, y], ty)
        }
    };
    for (i, &l) in lhs_digits.iter().enumerate() {
        for (j, &r) in rhs_digits.iter().enumerate() {
            if i + j >= result.len() || l == zero || r == zero {
                continue;
            }
            let product = b.op("spirv.IMul", vec![l, r], ty);
            let current = add(b, result[i + j], product);
            result[i + j] = low(b, current);
            if i + j + 1 != result.len() {
                let carry = high(b, current);
                result[i + j + 1] = add(b, result[i + j + 1], carry);
            }
        }
    }
    let combine = |b: &mut Builder, lo: Value, hi: Value| {
        let shifted = b.op("spirv.ShiftLeftLogical", vec![hi, c16], ty);
        b.op("spirv.BitwiseOr", vec![lo, shifted], ty)
    };
    let lo = combine(b, result[0], result[1]);
    let hi = combine(b, result[2], result[3]);
    b.op("spirv.CompositeConstruct", vec![lo, hi], result_ty)
}

fn expand_add_carry(b: &mut Builder, lhs: Value, rhs: Value, result_ty: Type) -> Value {
    let ty = b.ir.value_type(lhs);
    let one = b.constant(ty, 1);
    let zero = b.constant(ty, 0);
    let sum = b.op("spirv.IAdd", vec![lhs, rhs], ty);
    let bool_ty = bool_like(b.ir, ty);
    let overflowed = b.op("spirv.ULessThan", vec![sum, lhs], bool_ty);
    let carry = b.op("spirv.Select", vec![overflowed, one, zero], ty);
    b.op("spirv.CompositeConstruct", vec![sum, carry], result_ty)
}

/// `i1`, or a vector of `i1` shaped like `ty`.
fn bool_like(ir: &mut Ir, ty: Type) -> Type {
    let i1 = ir.types.integer(1, crate::types::Signedness::Signless);
    match ir.types.kind(ty).clone() {
        TypeKind::Vector { shape, scalable, .. } => {
            ir.types.intern(TypeKind::Vector { shape, scalable, element: i1 })
        }
        _ => i1,
    }
}

/// Runs the pass on every `spirv.module` under `top` (the op MLIR anchors it on).
pub fn run(ir: &mut Ir, top: OpId) {
    for module in crate::target_env::spirv_modules(ir, top) {
        run_on_module(ir, module);
    }
}

fn run_on_module(ir: &mut Ir, top: OpId) {
    let targets: Vec<_> = ir
        .ops_under(top)
        .into_iter()
        .filter(|&(_, op)| {
            let o = ir.op(op);
            matches!(o.name.as_str(), "spirv.UMulExtended" | "spirv.SMulExtended" | "spirv.IAddCarry")
                && o.operands.len() == 2
                && o.results.len() == 1
                && is_i32_based(ir, ir.value_type(o.operands[0]))
        })
        .collect();
    let mut folder = Folder::default();
    for c in constants_under(ir, top) {
        folder.insert_known_constant(ir, c);
    }
    let mut created = Vec::new();
    for (block, op) in targets {
        let o = ir.op(op);
        let (name, lhs, rhs, result) = (o.name.clone(), o.operands[0], o.operands[1], o.results[0]);
        let result_ty = ir.value_type(result);
        let location = o.location.clone();
        let mut b = Builder { ir, block, before: op, location, constants: &mut created };
        let new = match name.as_str() {
            "spirv.IAddCarry" => expand_add_carry(&mut b, lhs, rhs, result_ty),
            _ => expand_mul(&mut b, lhs, rhs, name == "spirv.SMulExtended", result_ty),
        };
        crate::canonicalize::replace_all_uses(ir, top, result, new);
        ir.erase_op(op);
    }
    crate::canonicalize::run(ir, top);
    for c in created {
        if ir.op(c).parent.is_some() {
            folder.insert_known_constant(ir, c);
        }
    }
}

/// The nearest isolated-from-above op enclosing `op` (its function), if not a module.
fn constant_scope(ir: &Ir, op: OpId) -> Option<OpId> {
    let mut cur = ir.parent_op(op);
    while let Some(p) = cur {
        if is_module_like(ir, p) {
            return None;
        }
        if op_def(&ir.op(p).name).is_some_and(|d| d.traits.contains(&"IsolatedFromAbove")) {
            return Some(p);
        }
        cur = ir.parent_op(p);
    }
    None
}

fn is_module_like(ir: &Ir, op: OpId) -> bool {
    matches!(ir.op(op).name.as_str(), "spirv.module" | "builtin.module")
}

fn is_constant(ir: &Ir, op: OpId) -> bool {
    let o = ir.op(op);
    o.regions.is_empty()
        && o.results.len() == 1
        && op_def(&o.name).is_some_and(|d| d.traits.contains(&"ConstantLike"))
}

/// MLIR's `OperationFolder` bookkeeping: per function, the constants it owns, which
/// sit at the start of the function's entry block.
#[derive(Default)]
struct Folder {
    owned: Vec<(OpId, Vec<OpId>)>,
}

impl Folder {
    /// Takes charge of constant `c`: a duplicate of an owned constant is replaced by
    /// it; otherwise `c` moves to the start of the entry block unless it is already
    /// in the run of owned constants there.
    fn insert_known_constant(&mut self, ir: &mut Ir, c: OpId) {
        let Some(func) = constant_scope(ir, c) else { return };
        let Some(entry) = ir.entry_block(func) else { return };
        let at = match self.owned.iter().position(|(f, _)| *f == func) {
            Some(at) => at,
            None => {
                self.owned.push((func, Vec::new()));
                self.owned.len() - 1
            }
        };
        let owned = &mut self.owned[at].1;
        let same = owned.iter().copied().find(|&k| crate::cse::equivalent(ir, k, c));
        if let Some(k) = same {
            let (old, new) = (ir.op(c).results[0], ir.op(k).results[0]);
            crate::canonicalize::replace_all_uses(ir, func, old, new);
            ir.erase_op(c);
            return;
        }
        let ops = &ir.block(entry).ops;
        let stays = ir.op(c).parent == Some(entry)
            && match ops.iter().position(|&o| o == c) {
                Some(0) => true,
                Some(i) => owned.contains(&ops[i - 1]),
                None => false,
            };
        if !stays {
            ir.erase_op(c);
            match ir.block(entry).ops.first().copied() {
                Some(first) => ir.insert_op_before(entry, first, c),
                None => ir.append_op(entry, c),
            }
        }
        owned.push(c);
    }
}

/// Every constant under `top`, in walk order.
fn constants_under(ir: &Ir, top: OpId) -> Vec<OpId> {
    let mut out = Vec::new();
    let mut stack = vec![top];
    while let Some(op) = stack.pop() {
        if is_constant(ir, op) {
            out.push(op);
        }
        for &r in ir.op(op).regions.iter().rev() {
            for &b in ir.region(r).blocks.iter().rev() {
                stack.extend(ir.block(b).ops.iter().rev());
            }
        }
    }
    out
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
}
