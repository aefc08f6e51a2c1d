//! `#spirv.target_env`: what a SPIR-V module may use, as the passes read it.

use crate::attr::Attribute;
use crate::ir::{Ir, OpId};
use spirvkit_grammar::OperandKind;

/// The version, capabilities and extensions of a `#spirv.target_env`'s `#spirv.vce`,
/// with what they imply: capabilities their dependencies (transitively),
/// extensions those the core version includes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TargetEnv {
    pub version: (u8, u8),
    /// Declared capabilities in order, then the implied ones.
    pub capabilities: Vec<String>,
    /// Declared extensions in order, then those the version includes.
    pub extensions: Vec<String>,
    /// How many of `capabilities` were declared (the rest are implied).
    declared_capabilities: usize,
}

/// Extensions a core version includes (SPIR-V spec, appendix "Changes").
fn version_extensions(version: (u8, u8)) -> Vec<&'static str> {
    let mut out = Vec::new();
    if version >= (1, 3) {
        out.extend([
            "SPV_KHR_shader_draw_parameters",
            "SPV_KHR_16bit_storage",
            "SPV_KHR_device_group",
            "SPV_KHR_multiview",
            "SPV_KHR_storage_buffer_storage_class",
            "SPV_KHR_variable_pointers",
        ]);
    }
    if version >= (1, 4) {
        out.extend([
            "SPV_KHR_no_integer_wrap_decoration",
            "SPV_GOOGLE_decorate_string",
            "SPV_GOOGLE_hlsl_functionality1",
            "SPV_KHR_float_controls",
        ]);
    }
    if version >= (1, 5) {
        out.extend([
            "SPV_KHR_8bit_storage",
            "SPV_EXT_descriptor_indexing",
            "SPV_EXT_shader_viewport_index_layer",
            "SPV_EXT_physical_storage_buffer",
            "SPV_KHR_physical_storage_buffer",
            "SPV_KHR_vulkan_memory_model",
        ]);
    }
    out
}

pub fn capability_name(value: u32) -> Option<&'static str> {
    OperandKind::Capability.info().enumerant(value).map(|e| e.name)
}

pub fn capability_value(name: &str) -> Option<u32> {
    OperandKind::Capability.info().enumerant_by_name(name).map(|e| e.value)
}

/// Appends to `caps` everything its members imply, breadth first.
pub fn close_capabilities(caps: &mut Vec<String>) {
    let mut i = 0;
    while i < caps.len() {
        if let Some(v) = capability_value(&caps[i]) {
            for &implied in spirvkit_grammar::implied_capabilities(v) {
                if let Some(name) = capability_name(implied) {
                    if !caps.iter().any(|c| c == name) {
                        caps.push(name.to_string());
                    }
                }
            }
        }
        i += 1;
    }
}

/// The parts of a `#spirv.vce<...>` body (`v1.3, [A, B], [C]`), each `None` when
/// absent or unreadable.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct VceParts {
    /// `(major, minor)`, when the version reads as `vM.N`.
    pub version: Option<(u8, u8)>,
    pub capabilities: Option<Vec<String>>,
    pub extensions: Option<Vec<String>>,
}

/// Splits a `#spirv.vce<...>` body into its parts.
pub fn vce_parts(vce: &str) -> VceParts {
    let version = vce
        .split(',')
        .next()
        .and_then(|v| v.trim().strip_prefix('v'))
        .and_then(|v| v.split_once('.'))
        .and_then(|(major, minor)| Some((major.trim().parse().ok()?, minor.trim().parse().ok()?)));
    let mut lists = vce.split('[').skip(1).take(2).map(|l| -> Vec<String> {
        l.split(']')
            .next()
            .unwrap_or("")
            .split(',')
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect()
    });
    VceParts { version, capabilities: lists.next(), extensions: lists.next() }
}

impl TargetEnv {
    /// Parses the body of `#spirv.target_env<...>`.
    pub fn parse(body: &str) -> Option<TargetEnv> {
        let vce = &body[body.find("#spirv.vce<")? + "#spirv.vce<".len()..];
        let parts = vce_parts(vce);
        let version = parts.version?;
        let mut capabilities = parts.capabilities?;
        let mut extensions = parts.extensions.unwrap_or_default();
        let declared_capabilities = capabilities.len();
        close_capabilities(&mut capabilities);
        for e in version_extensions(version) {
            if !extensions.iter().any(|x| x == e) {
                extensions.push(e.to_string());
            }
        }
        Some(TargetEnv { version, capabilities, extensions, declared_capabilities })
    }

    /// The nearest `spirv.target_env` on `op` or an enclosing op, if any (and valid).
    pub fn lookup(ir: &Ir, op: OpId) -> Option<TargetEnv> {
        let mut cur = Some(op);
        while let Some(o) = cur {
            if let Some(Attribute::Dialect { body: Some(body), .. }) = ir.op(o).attr("spirv.target_env") {
                return TargetEnv::parse(body);
            }
            cur = ir.parent_op(o);
        }
        None
    }

    /// Whether any of `required` (capability values) is allowed; an empty list
    /// requires nothing.
    pub fn allows_any_capability(&self, required: &[u32]) -> bool {
        required.is_empty()
            || required
                .iter()
                .filter_map(|&c| capability_name(c))
                .any(|n| self.capabilities.iter().any(|c| c == n))
    }

    /// The execution model compute entry points get: the first of `Kernel` and
    /// `Shader` the environment declares.
    pub fn execution_model(&self) -> Option<&'static str> {
        self.capabilities[..self.declared_capabilities].iter().find_map(|c| match c.as_str() {
            "Kernel" => Some("Kernel"),
            "Shader" => Some("GLCompute"),
            _ => None,
        })
    }
}

/// Every `spirv.module` under `top` (not nested in another), in source order.
pub fn spirv_modules(ir: &Ir, top: OpId) -> Vec<OpId> {
    let mut modules = Vec::new();
    let mut stack = vec![top];
    while let Some(op) = stack.pop() {
        if ir.op(op).name == "spirv.module" {
            modules.push(op);
            continue;
        }
        for &r in ir.op(op).regions.iter().rev() {
            for &b in ir.region(r).blocks.iter().rev() {
                stack.extend(ir.block(b).ops.iter().rev());
            }
        }
    }
    modules
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_and_closes() {
        let env = TargetEnv::parse(
            "#spirv.vce<v1.3, [AtomicStorage], [SPV_KHR_shader_ballot]>, #spirv.resource_limits<>",
        )
        .unwrap();
        assert_eq!(env.version, (1, 3));
        assert!(env.capabilities.iter().any(|c| c == "Shader"));
        assert!(env.capabilities.iter().any(|c| c == "Matrix"));
        assert_eq!(env.extensions[0], "SPV_KHR_shader_ballot");
        assert!(env.extensions.iter().any(|e| e == "SPV_KHR_16bit_storage"));
        // Shader is only implied here, so no compute execution model is chosen.
        assert_eq!(env.execution_model(), None);
        assert!(TargetEnv::parse("#spirv.resource_limits<>").is_none());
    }
}
