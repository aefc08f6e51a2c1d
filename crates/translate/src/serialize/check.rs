//! What is refused before anything is written: ops with no binary form, and ops,
//! enum values and types the module's `#spirv.vce` does not cover.

use super::{Result, SerializeError};
use spirvkit_ir::attr::Attribute;
use spirvkit_ir::target_env::TargetEnv;
use spirvkit_ir::types::Type;
use spirvkit_ir::{Ir, OpId};

/// Refuses modules with constructs that have no binary form, or that need a
/// version, capability or extension their VCE triple does not declare. Returns a
/// generous estimate of the words the module takes (per op its opcode, result
/// type, result and operands and a word more, plus a label per block), counted on
/// the walk.
pub(super) fn check_module(ir: &Ir, module: OpId, requirements: bool) -> Result<usize> {
    let vce = match ir.op(module).attr("vce_triple") {
        Some(Attribute::Dialect { body: Some(body), .. }) => TargetEnv::parse(&format!("#spirv.vce<{body}>")),
        _ => None,
    };
    // Without a triple the serializer refuses the module itself.
    let mut env = vce;
    // Extensions SPIR-V 1.6 made core (the IR's table stops at 1.5).
    if let Some(env) = env.as_mut().filter(|env| env.version >= (1, 6)) {
        for e in [
            "SPV_KHR_integer_dot_product",
            "SPV_KHR_terminate_invocation",
            "SPV_EXT_demote_to_helper_invocation",
        ] {
            env.extensions.push(e.to_string());
        }
    }
    // The first refusal, in the order of `Ir::ops_under`.
    let mut refusal = None;
    let env = env.as_ref().filter(|_| requirements);
    let mut words = ir.block_count().saturating_mul(2);
    ir.for_each_op_under(module, |_, op| {
        let o = ir.op(op);
        words = words.saturating_add(4 + o.operands.len());
        // Without requirements to check, an op with a definition passes.
        if refusal.is_some() || (env.is_none() && o.name.def().is_some()) {
            return;
        }
        refusal = check_op(ir, op, env).err();
    });
    refusal.map_or(Ok(words), Err)
}

/// Whether `op` has no binary form (which [`check_module`] refuses).
pub(super) fn has_no_binary_form(ir: &Ir, op: OpId) -> bool {
    let name = &ir.op(op).name;
    // Only an op without a definition needs the (by-name) fallback lookups.
    name.def().is_none()
        && crate::fallback::fallback_opcode(name).is_none()
        && crate::fallback::fallback_ext_inst(name).is_none()
}

/// One op's refusal, if any: no binary form, or (with `env`) requirements the
/// triple does not cover.
fn check_op(ir: &Ir, op: OpId, env: Option<&TargetEnv>) -> Result<()> {
    let o = ir.op(op);
    let refuse = |message: String| SerializeError { location: o.location.clone(), message };
    if has_no_binary_form(ir, op) {
        return Err(refuse(format!("not supported yet: serializing op '{}'", o.name)));
    }
    let Some(env) = env else { return Ok(()) };
    if let Some(r) = spirvkit_ir::availability::of_op(ir, op) {
        if r.min_version > env.version {
            return Err(refuse(format!(
                "'{}' requires SPIR-V v{}.{} but the module's VCE triple declares v{}.{}",
                o.name, r.min_version.0, r.min_version.1, env.version.0, env.version.1
            )));
        }
        check_groups(env, &o.name, &r.capabilities, &r.extensions).map_err(refuse)?;
    }
    let mut types: Vec<Type> = o.operands.iter().chain(&o.results).map(|&v| ir.value_type(v)).collect();
    if let Some(Attribute::Type(t)) = o.attr("type") {
        types.push(*t);
    }
    for ty in types {
        let (extensions, capabilities) = spirvkit_ir::availability::type_requirements(ir, ty);
        check_groups(env, &o.name, &capabilities, &extensions).map_err(refuse)?;
    }
    Ok(())
}

/// Each group needs one of its members among what the triple allows.
fn check_groups(
    env: &TargetEnv,
    op: &str,
    capabilities: &[Vec<String>],
    extensions: &[Vec<String>],
) -> std::result::Result<(), String> {
    for group in capabilities {
        if !group.iter().any(|c| env.capabilities.contains(c)) {
            return Err(format!(
                "'{op}' requires one of the capabilities [{}], which the module's VCE triple does not declare",
                group.join(", ")
            ));
        }
    }
    for group in extensions {
        if !group.iter().any(|e| env.extensions.contains(e)) {
            return Err(format!(
                "'{op}' requires one of the extensions [{}], which the module's VCE triple does not declare",
                group.join(", ")
            ));
        }
    }
    Ok(())
}
