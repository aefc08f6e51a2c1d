//! Group and non-uniform operations on the CPU. The subgroup size is defined as 1 (legal
//! in Vulkan: `SubgroupSize` may be 1): every invocation is its own subgroup, so the
//! `__spirv_Group*` calls the conversion emits with `Subgroup` scope are local: a
//! reduction or inclusive scan is its operand, an exclusive scan the operation's
//! identity, a broadcast or shuffle the value itself, elect is true, a ballot has bit 0
//! set by the predicate. Workgroup-scope group operations need the whole workgroup and
//! are not supported yet.

use spirvkit_ir::attr::Attribute;
use spirvkit_ir::ir::{Ir, OpId, Value, ValueDef};
use spirvkit_ir::types::{FloatKind, Signedness, TypeKind};

use super::KernelError;

/// `Subgroup` in SPIR-V's Scope enum.
const SCOPE_SUBGROUP: i128 = 3;
/// GroupOperation values.
const REDUCE: i128 = 0;
const INCLUSIVE_SCAN: i128 = 1;
const EXCLUSIVE_SCAN: i128 = 2;
const CLUSTERED_REDUCE: i128 = 3;

/// The builtin name of a mangled `__spirv_Group*` callee (`_Z27__spirv_GroupNonUniformIAddiij`
/// -> `GroupNonUniformIAdd`), if it is one.
pub fn group_builtin(callee: &str) -> Option<&str> {
    let rest = callee.strip_prefix("_Z")?;
    let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
    let len: usize = rest[..digits].parse().ok()?;
    let name = rest.get(digits..digits + len)?;
    name.strip_prefix("__spirv_").filter(|n| n.starts_with("Group"))
}

fn constant_int(ir: &Ir, v: Value) -> Option<i128> {
    let ValueDef::Result { op, .. } = ir.value(v).def else { return None };
    if ir.op(op).name != "llvm.mlir.constant" {
        return None;
    }
    match ir.op(op).attr("value")? {
        Attribute::Integer { value, .. } => Some(*value),
        _ => None,
    }
}

/// Replaces the group call `call` (in `block`) by its value for a subgroup of one.
pub fn lower_group_call(ir: &mut Ir, call: OpId, builtin: &str) -> Result<(), KernelError> {
    let location = ir.op(call).location.clone();
    let unsupported =
        |what: &str| KernelError::new(&location, format!("not supported yet: {what} on the CPU"));
    let args = ir.op(call).operands.clone();
    let scope = args.first().and_then(|&s| constant_int(ir, s));
    if scope != Some(SCOPE_SUBGROUP) {
        return Err(unsupported(&format!(
            "{builtin} with workgroup scope (group operations across the workgroup)"
        )));
    }
    let op =
        builtin.strip_prefix("GroupNonUniform").or_else(|| builtin.strip_prefix("Group")).unwrap_or(builtin);
    let result = ir.op(call).results.first().copied();
    let Some(result) = result else { return Err(unsupported(builtin)) };
    let ty = ir.value_type(result);
    let block = ir.op(call).parent.expect("call in a block");
    let i32 = ir.types.integer(32, Signedness::Signless);
    let i1 = ir.types.integer(1, Signedness::Signless);
    let insert = |ir: &mut Ir,
                  name: &str,
                  operands: Vec<Value>,
                  result: spirvkit_ir::types::Type,
                  props: Vec<(&str, Attribute)>|
     -> Value {
        let new = ir.create_op(name, operands, &[result], location.clone());
        for (k, v) in props {
            ir.set_property(new, k, v);
        }
        ir.insert_op_before(block, call, new);
        ir.op(new).results[0]
    };
    let value: Value = match op {
        "Elect" | "AllEqual" => insert(
            ir,
            "llvm.mlir.constant",
            vec![],
            i1,
            vec![("value", Attribute::Integer { value: 1, ty: i1 })],
        ),
        "All" | "Any" => args[1],
        "Broadcast" | "BroadcastFirst" | "Shuffle" | "ShuffleXor" | "ShuffleUp" | "ShuffleDown"
        | "QuadBroadcast" | "QuadSwap" | "RotateKHR" => args[1],
        "Ballot" => {
            // (predicate, 0, 0, 0)
            let bit = insert(ir, "llvm.zext", vec![args[1]], i32, vec![]);
            let zero = insert(ir, "llvm.mlir.zero", vec![], ty, vec![]);
            let index = insert(
                ir,
                "llvm.mlir.constant",
                vec![],
                i32,
                vec![("value", Attribute::Integer { value: 0, ty: i32 })],
            );
            insert(ir, "llvm.insertelement", vec![zero, bit, index], ty, vec![])
        }
        "InverseBallot" | "BallotBitExtract"
            if op == "InverseBallot" || args.get(2).and_then(|&i| constant_int(ir, i)) == Some(0) =>
        {
            let index = insert(
                ir,
                "llvm.mlir.constant",
                vec![],
                i32,
                vec![("value", Attribute::Integer { value: 0, ty: i32 })],
            );
            let x = insert(ir, "llvm.extractelement", vec![args[1], index], i32, vec![]);
            insert(ir, "llvm.trunc", vec![x], i1, vec![])
        }
        _ => {
            // Arithmetic: (scope, group operation, value[, cluster size]).
            let group = args.get(1).and_then(|&g| constant_int(ir, g));
            let value = *args.get(2).ok_or_else(|| unsupported(builtin))?;
            let identity = identity(op, ir.types.kind(ty).clone());
            match group {
                Some(REDUCE | INCLUSIVE_SCAN | CLUSTERED_REDUCE) if identity.is_some() => value,
                Some(EXCLUSIVE_SCAN) => {
                    let Some(id) = identity else { return Err(unsupported(builtin)) };
                    insert(ir, "llvm.mlir.constant", vec![], ty, vec![("value", id.attribute(ty))])
                }
                _ if op == "BallotBitCount" => return Err(unsupported(builtin)),
                _ => return Err(unsupported(builtin)),
            }
        }
    };
    for (_, user) in ir.ops_under(ir.parent_op_of_block(block).expect("in a function")) {
        for o in ir.op_mut(user).operands.iter_mut() {
            if *o == result {
                *o = value;
            }
        }
    }
    ir.erase_op(call);
    Ok(())
}

/// The identity of a group operation on a scalar type.
enum Identity {
    Int(i128),
    Float(f64),
}

impl Identity {
    fn attribute(&self, ty: spirvkit_ir::types::Type) -> Attribute {
        match *self {
            Identity::Int(value) => Attribute::Integer { value, ty },
            Identity::Float(value) => Attribute::Float { value, ty },
        }
    }
}

fn identity(op: &str, kind: TypeKind) -> Option<Identity> {
    let (width, is_float) = match kind {
        TypeKind::Integer { width, .. } => (width, false),
        TypeKind::Float(FloatKind::F16 | FloatKind::F32 | FloatKind::F64) => (0, true),
        _ => return None,
    };
    let ones = if width >= 128 { -1 } else { (1i128 << width) - 1 };
    let smax = if width == 0 { 0 } else { (1i128 << (width - 1)) - 1 };
    Some(match (op, is_float) {
        ("IAdd" | "BitwiseOr" | "BitwiseXor" | "LogicalOr" | "LogicalXor" | "UMax", false) => {
            Identity::Int(0)
        }
        ("IMul", false) => Identity::Int(1),
        ("BitwiseAnd" | "LogicalAnd" | "UMin", false) => Identity::Int(ones),
        ("SMin", false) => Identity::Int(smax),
        ("SMax", false) => Identity::Int(-smax - 1),
        ("FAdd", true) => Identity::Float(0.0),
        ("FMul", true) => Identity::Float(1.0),
        ("FMin", true) => Identity::Float(f64::INFINITY),
        ("FMax", true) => Identity::Float(f64::NEG_INFINITY),
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn callee_names() {
        assert_eq!(group_builtin("_Z27__spirv_GroupNonUniformIAddiij"), Some("GroupNonUniformIAdd"));
        assert_eq!(group_builtin("_Z17__spirv_GroupIAddiij"), Some("GroupIAdd"));
        assert_eq!(group_builtin("_Z22__spirv_ControlBarrieriii"), None);
        assert_eq!(group_builtin("_Z99x"), None);
    }
}
