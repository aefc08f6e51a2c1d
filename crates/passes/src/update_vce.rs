//! `-spirv-update-vce`: deduces the minimal version, capabilities and extensions a
//! `spirv.module` needs from its ops, their enum values and their value types,
//! choosing among alternatives what the target environment allows, and stores the
//! result as the module's `vce_triple`. Order follows MLIR's: requirements in walk
//! order (inner ops first, the module last), then the implied capabilities.

use spirvkit_ir::attr::{Attribute, NamedAttribute};
use spirvkit_ir::availability::type_requirements;
use spirvkit_ir::diag::{Diagnostic, LineIndex};
use spirvkit_ir::ir::{Ir, OpId};
use spirvkit_ir::target_env::{close_capabilities, TargetEnv};
use spirvkit_ir::types::Type;

#[derive(Default)]
struct Deduced {
    version: (u8, u8),
    capabilities: Vec<String>,
    extensions: Vec<String>,
}

fn insert(list: &mut Vec<String>, item: &str) {
    if !list.iter().any(|x| x == item) {
        list.push(item.to_string());
    }
}

/// Runs the pass on every `spirv.module` under `top`; errors carry offsets into `text`.
pub fn run(ir: &mut Ir, top: OpId, text: &str) -> Vec<Diagnostic> {
    let index = LineIndex::new(text);
    let offset = |ir: &Ir, op: OpId| index.location_offset(&ir.op(op).location);
    let modules = spirvkit_ir::target_env::spirv_modules(ir, top);
    for module in modules {
        if let Err((op, message)) = update_module(ir, module) {
            let at = offset(ir, op);
            return vec![Diagnostic::error(at, message)
                .with_note(at, spirvkit_ir::diag::current_operation_note(ir, op))];
        }
    }
    Vec::new()
}

fn choose(
    ir: &Ir,
    op: OpId,
    groups: &[Vec<String>],
    allowed: &[String],
    into: &mut Vec<String>,
    what: &str,
) -> Result<(), (OpId, String)> {
    for group in groups {
        match group.iter().find(|g| allowed.contains(g)) {
            Some(chosen) => insert(into, chosen),
            None => {
                return Err((
                    op,
                    format!(
                        "'{}' requires at least one {what} in [{}] but none allowed in target environment",
                        ir.op(op).name,
                        group.join(", ")
                    ),
                ))
            }
        }
    }
    Ok(())
}

fn version_text(v: (u8, u8)) -> String {
    format!("v{}.{}", v.0, v.1)
}

fn update_module(ir: &mut Ir, module: OpId) -> Result<(), (OpId, String)> {
    let allowed =
        TargetEnv::lookup(ir, module).ok_or((module, "missing 'spirv.target_env' attribute".to_string()))?;
    let mut deduced = Deduced { version: (1, 0), ..Default::default() };
    // Inner ops first, the module last.
    let mut ops = spirvkit_ir::availability::post_order(ir, module);
    ops.push(module);
    for op in ops {
        if let Some(r) = spirvkit_ir::availability::of_op(ir, op) {
            deduced.version = deduced.version.max(r.min_version);
            if deduced.version > allowed.version {
                return Err((
                    op,
                    format!(
                        "'{}' requires min version {} but target environment allows up to {}",
                        ir.op(op).name,
                        version_text(deduced.version),
                        version_text(allowed.version)
                    ),
                ));
            }
            choose(ir, op, &r.extensions, &allowed.extensions, &mut deduced.extensions, "extension")?;
            choose(ir, op, &r.capabilities, &allowed.capabilities, &mut deduced.capabilities, "capability")?;
        }
        let o = ir.op(op);
        let mut types: Vec<Type> = o.operands.iter().map(|&v| ir.value_type(v)).collect();
        types.extend(o.results.iter().map(|&v| ir.value_type(v)));
        if o.name == "spirv.GlobalVariable" {
            if let Some(Attribute::Type(t)) = o.attr("type") {
                types.push(*t);
            }
        }
        for ty in types {
            let (extensions, capabilities) = type_requirements(ir, ty);
            choose(ir, op, &extensions, &allowed.extensions, &mut deduced.extensions, "extension")?;
            choose(ir, op, &capabilities, &allowed.capabilities, &mut deduced.capabilities, "capability")?;
        }
    }
    // Then everything the deduced capabilities imply.
    close_capabilities(&mut deduced.capabilities);
    // Capabilities that entered the core at some version raise the version too.
    for cap in &deduced.capabilities {
        let Some(min) = spirvkit_ir::availability::enum_case("Capability", cap).and_then(|a| a.min_version)
        else {
            continue;
        };
        deduced.version = deduced.version.max(min);
        if deduced.version > allowed.version {
            return Err((
                module,
                format!(
                    "Capability '{cap}' requires min version {} but target environment allows up to {}",
                    version_text(min),
                    version_text(allowed.version)
                ),
            ));
        }
    }
    let triple = format!(
        "{}, [{}], [{}]",
        version_text(deduced.version),
        deduced.capabilities.join(", "),
        deduced.extensions.join(", ")
    );
    let value = Attribute::Dialect { name: "spirv.vce".into(), body: Some(triple) };
    let o = ir.op_mut(module);
    match o.properties.iter_mut().find(|a| a.name == "vce_triple") {
        Some(a) => a.value = value,
        None => {
            let at = o
                .properties
                .iter()
                .position(|a| a.name.as_str() > "vce_triple")
                .unwrap_or(o.properties.len());
            o.properties.insert(at, NamedAttribute::new("vce_triple", value));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    fn update(source: &str) -> crate::opt::OptResult {
        let options =
            crate::opt::OptOptions { passes: vec!["-spirv-update-vce".into()], ..Default::default() };
        crate::opt::run(source, "t.mlir", &options)
    }

    fn module(target: &str, body: &str) -> String {
        format!(
            "spirv.module Logical GLSL450 attributes {{ spirv.target_env = #spirv.target_env<#spirv.vce<{target}>, #spirv.resource_limits<>> }} {{ {body} }}"
        )
    }

    #[test]
    fn deduces_from_ops_enums_and_types() {
        // The expected triples are what mlir-opt-22 prints for the same modules.
        let r = update(&module(
            "v1.5, [Shader, GroupNonUniformBallot], []",
            "spirv.func @f(%p: i1) -> vector<4xi32> \"None\" {
               %0 = spirv.GroupNonUniformBallot <Workgroup> %p : vector<4xi32>
               spirv.ReturnValue %0 : vector<4xi32>
             }",
        ));
        assert!(r.success, "{}", r.diagnostics_text);
        assert!(
            r.output.contains(
                "requires #spirv.vce<v1.3, [GroupNonUniformBallot, Shader, GroupNonUniform, Matrix], []>"
            ),
            "{}",
            r.output
        );

        let r = update(&module(
            "v1.3, [Shader, StorageBuffer16BitAccess, Int16], []",
            "spirv.func @f(%p: !spirv.ptr<i16, StorageBuffer>) -> i16 \"None\" {
               %0 = spirv.Load \"StorageBuffer\" %p : i16
               spirv.ReturnValue %0 : i16
             }",
        ));
        assert!(r.output.contains("requires #spirv.vce<v1.0, [StorageBuffer16BitAccess, Shader, Int16, Matrix], [SPV_KHR_16bit_storage, SPV_KHR_storage_buffer_storage_class]>"), "{}", r.output);
    }

    #[test]
    fn unsatisfiable_requirements_are_errors() {
        let r = update(&module(
            "v1.0, [Shader], []",
            "spirv.func @f(%a: i8) -> i8 \"None\" {
               %0 = spirv.IAdd %a, %a : i8
               spirv.ReturnValue %0 : i8
             }",
        ));
        assert!(!r.success);
        assert!(
            r.diagnostics_text.contains(
                "requires at least one capability in [Int8] but none allowed in target environment"
            ),
            "{}",
            r.diagnostics_text
        );

        let r = update(
            "spirv.module Logical Vulkan attributes { spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader, VulkanMemoryModel], [SPV_KHR_vulkan_memory_model]>, #spirv.resource_limits<>> } {}",
        );
        assert!(
            r.diagnostics_text
                .contains("Capability 'VulkanMemoryModel' requires min version v1.5 but target environment allows up to v1.0"),
            "{}",
            r.diagnostics_text
        );

        let r = update("spirv.module Logical GLSL450 {}");
        assert!(!r.success);
        assert!(
            r.diagnostics_text.contains("missing 'spirv.target_env' attribute"),
            "{}",
            r.diagnostics_text
        );
    }
}
