//! Specialization constants become plain constants before the conversion to LLVM:
//! `--spec ID=VALUE` sets a `spirv.SpecConstant`'s value, then every
//! `spirv.mlir.referenceof` becomes a `spirv.Constant` (a composite one a
//! `spirv.CompositeConstruct` of constants), every `spirv.SpecConstantOperation` is
//! unwrapped into the op it wraps, and the spec constant declarations are dropped.

use spirvkit_grammar::fxhash::FxHashMap;
use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::ir::{BlockId, Ir, Location, OpId, Value};
use spirvkit_ir::types::{FloatKind, Type, TypeKind};

use super::{module_ops, symbol, KernelError};
use crate::legalize::util;

/// Sets the value of each spec constant whose `SpecId` is given (`bits`: the raw bits,
/// low bits for narrower types; booleans 0 or 1). An id the module does not declare is
/// an error, as is a value that does not fit the constant's type.
pub fn set_spec_values(ir: &mut Ir, module: OpId, values: &[(u32, u64)]) -> Result<(), KernelError> {
    let ops = module_ops(ir, module);
    for &(id, bits) in values {
        let found = ops.iter().copied().find(|&op| {
            ir.op(op).name == "spirv.SpecConstant"
                && matches!(ir.op(op).attr("spec_id"), Some(Attribute::Integer { value, .. }) if *value == i128::from(id))
        });
        let Some(op) = found else {
            return Err(KernelError::new(
                &ir.op(module).location,
                format!("--spec {id}: the shader declares no spec constant with SpecId {id}"),
            ));
        };
        let old = ir.op(op).attr("default_value").cloned();
        let new = match old {
            Some(Attribute::Bool(_)) => {
                if bits > 1 {
                    return Err(KernelError::new(
                        &ir.op(op).location,
                        format!("--spec {id}: a boolean takes 0 or 1, not {bits}"),
                    ));
                }
                Attribute::Bool(bits == 1)
            }
            Some(Attribute::Integer { ty, .. }) => {
                let width = match ir.types.kind(ty) {
                    TypeKind::Integer { width, .. } => *width,
                    _ => 32,
                };
                if width == 1 && bits > 1 {
                    return Err(KernelError::new(
                        &ir.op(op).location,
                        format!("--spec {id}: a boolean takes 0 or 1, not {bits}"),
                    ));
                }
                if width < 64 && bits >> width != 0 && (bits as i64) >> (width - 1) != -1 {
                    return Err(KernelError::new(
                        &ir.op(op).location,
                        format!("--spec {id}: {bits} does not fit in {width} bits"),
                    ));
                }
                let masked = if width >= 64 { bits } else { bits & ((1u64 << width) - 1) };
                Attribute::Integer { value: ir.types.normalize_integer(i128::from(masked), ty), ty }
            }
            Some(Attribute::Float { ty, .. }) => {
                let value = match ir.types.kind(ty) {
                    TypeKind::Float(FloatKind::F64) => f64::from_bits(bits),
                    TypeKind::Float(FloatKind::F32) => f64::from(f32::from_bits(bits as u32)),
                    TypeKind::Float(FloatKind::F16) => half_to_f64(bits as u16),
                    _ => {
                        return Err(KernelError::new(
                            &ir.op(op).location,
                            format!("not supported yet: --spec {id} for this float type"),
                        ))
                    }
                };
                Attribute::Float { value, ty }
            }
            _ => {
                return Err(KernelError::new(
                    &ir.op(op).location,
                    format!("not supported yet: spec constant {id}'s value kind"),
                ))
            }
        };
        set_attr(ir, op, "default_value", new);
    }
    Ok(())
}

fn set_attr(ir: &mut Ir, op: OpId, name: &str, value: Attribute) {
    ir.set_property(op, name, value);
}

fn half_to_f64(h: u16) -> f64 {
    let sign = if h >> 15 == 1 { -1.0 } else { 1.0 };
    let exp = i32::from((h >> 10) & 0x1f);
    let frac = f64::from(h & 0x3ff);
    match exp {
        0 => sign * frac * 2f64.powi(-24),
        31 if frac == 0.0 => sign * f64::INFINITY,
        31 => f64::NAN,
        _ => sign * (1.0 + frac / 1024.0) * 2f64.powi(exp - 15),
    }
}

/// Replaces every use of a spec constant by its value and drops the composite declarations.
pub fn fold_spec_constants(ir: &mut Ir, module: OpId) -> Result<(), KernelError> {
    let ops = module_ops(ir, module);
    let mut decls: FxHashMap<String, OpId> = FxHashMap::default();
    for &op in &ops {
        if matches!(ir.op(op).name.as_str(), "spirv.SpecConstant" | "spirv.SpecConstantComposite") {
            decls.insert(symbol(ir, op, "sym_name").unwrap_or_default(), op);
        }
    }
    let mut replaced: FxHashMap<Value, Value> = FxHashMap::default();
    // Inner ops first, so an operation's operands are already constants.
    for (block, op) in ir.ops_under(module) {
        match ir.op(op).name.as_str() {
            "spirv.mlir.referenceof" => {
                let name = symbol(ir, op, "spec_const").unwrap_or_default();
                let ty = ir.value_type(ir.op(op).results[0]);
                let location = ir.op(op).location.clone();
                let value = materialize(ir, &decls, &name, ty, block, op, &location, 0)?;
                replaced.insert(ir.op(op).results[0], value);
                util::detach(ir, op);
            }
            "spirv.SpecConstantOperation" => {
                let Some(&region) = ir.op(op).regions.first() else { continue };
                let Some(&inner) = ir.region(region).blocks.first() else { continue };
                let inner_ops = ir.block(inner).ops.clone();
                let [wrapped, yield_op] = inner_ops[..] else {
                    return Err(KernelError::new(
                        &ir.op(op).location,
                        "a spirv.SpecConstantOperation without one op and its yield",
                    ));
                };
                let yielded = ir.op(yield_op).operands.first().copied();
                ir.block_mut(inner).ops.clear();
                ir.insert_op_before(block, op, wrapped);
                if let (Some(y), Some(&r)) = (yielded, ir.op(op).results.first()) {
                    replaced.insert(r, y);
                }
                util::detach(ir, op);
            }
            _ => {}
        }
    }
    util::replace_uses(ir, module, &replaced);
    // Scalar declarations stay: an array type may be sized by one (`!spirv.array<@n x T>`),
    // and the conversion reads its (substituted) value from the declaration.
    for (_, op) in decls {
        if ir.op(op).name != "spirv.SpecConstant" {
            util::detach(ir, op);
        }
    }
    util::compact(ir, module);
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn materialize(
    ir: &mut Ir,
    decls: &FxHashMap<String, OpId>,
    name: &str,
    ty: Type,
    block: BlockId,
    before: OpId,
    location: &Location,
    depth: u32,
) -> Result<Value, KernelError> {
    if depth > 32 {
        return Err(KernelError::new(location, "spec constant composites nested too deeply"));
    }
    let Some(&decl) = decls.get(name) else {
        return Err(KernelError::new(location, format!("no spec constant @{name}")));
    };
    if ir.op(decl).name == "spirv.SpecConstant" {
        let Some(value) = ir.op(decl).attr("default_value").cloned() else {
            return Err(KernelError::new(location, format!("spec constant @{name} has no value")));
        };
        return Ok(constant(ir, value, ty, block, before, location));
    }
    let Some(Attribute::Array(constituents)) = ir.op(decl).attr("constituents").cloned() else {
        return Err(KernelError::new(
            location,
            format!("spec constant composite @{name} has no constituents"),
        ));
    };
    let element_types = composite_members(ir, ty, constituents.len());
    let mut parts = Vec::new();
    for (c, member_ty) in constituents.into_iter().zip(element_types) {
        let v = match c {
            Attribute::SymbolRef(path) if path.len() == 1 => {
                materialize(ir, decls, &path[0], member_ty, block, before, location, depth + 1)?
            }
            other => constant(ir, other, member_ty, block, before, location),
        };
        parts.push(v);
    }
    let op =
        util::insert_before(ir, block, before, "spirv.CompositeConstruct", parts, &[ty], location.clone());
    Ok(ir.op(op).results[0])
}

fn composite_members(ir: &Ir, ty: Type, count: usize) -> Vec<Type> {
    match ir.types.kind(ty) {
        TypeKind::Vector { element, .. } | TypeKind::Array { element, .. } => vec![*element; count],
        TypeKind::Matrix { column, .. } => vec![*column; count],
        TypeKind::LiteralStruct(body) => body.members.iter().map(|m| m.ty).collect(),
        TypeKind::IdentifiedStruct { name } => {
            ir.types.struct_body(name).map(|b| b.members.iter().map(|m| m.ty).collect()).unwrap_or_default()
        }
        _ => vec![ty; count],
    }
}

fn constant(
    ir: &mut Ir,
    value: Attribute,
    ty: Type,
    block: BlockId,
    before: OpId,
    location: &Location,
) -> Value {
    let op = util::insert_before(ir, block, before, "spirv.Constant", vec![], &[ty], location.clone());
    ir.op_mut(op).properties.push(NamedAttribute::new("value", value));
    ir.op(op).results[0]
}
