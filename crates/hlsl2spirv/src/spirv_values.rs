//! The values dxc's SPIR-V options accept: target environments, extension names,
//! debug-info categories and the optimizer passes `-Oconfig=` may name.

/// `-fspv-target-env=` values with the SPIR-V version each implies.
pub const TARGET_ENVS: &[(&str, (u32, u32))] = &[
    ("vulkan1.0", (1, 0)),
    ("vulkan1.1", (1, 3)),
    ("vulkan1.1spirv1.4", (1, 4)),
    ("vulkan1.2", (1, 5)),
    ("vulkan1.3", (1, 6)),
    ("vulkan1.4", (1, 6)),
    ("universal1.5", (1, 5)),
];

/// The SPIR-V version of a known target environment.
pub fn target_env_spirv_version(env: &str) -> Option<(u32, u32)> {
    TARGET_ENVS.iter().find(|(name, _)| *name == env).map(|(_, v)| *v)
}

/// `KHR` stands for every `SPV_KHR_*` extension below.
pub const ALL_KHR: &str = "KHR";

/// The extensions dxc's SPIR-V back end knows (its `FeatureManager`); any other
/// `-fspv-extension=` name is refused.
pub const EXTENSIONS: &[&str] = &[
    "SPV_KHR_16bit_storage",
    "SPV_KHR_bfloat16",
    "SPV_KHR_compute_shader_derivatives",
    "SPV_KHR_cooperative_matrix",
    "SPV_KHR_device_group",
    "SPV_KHR_float_controls",
    "SPV_KHR_fragment_shader_barycentric",
    "SPV_KHR_fragment_shading_rate",
    "SPV_KHR_maximal_reconvergence",
    "SPV_KHR_multiview",
    "SPV_KHR_non_semantic_info",
    "SPV_KHR_physical_storage_buffer",
    "SPV_KHR_post_depth_coverage",
    "SPV_KHR_quad_control",
    "SPV_KHR_ray_query",
    "SPV_KHR_ray_tracing",
    "SPV_KHR_shader_clock",
    "SPV_KHR_shader_draw_parameters",
    "SPV_KHR_untyped_pointers",
    "SPV_KHR_vulkan_memory_model",
    "SPV_EXT_demote_to_helper_invocation",
    "SPV_EXT_descriptor_heap",
    "SPV_EXT_descriptor_indexing",
    "SPV_EXT_float8",
    "SPV_EXT_fragment_fully_covered",
    "SPV_EXT_fragment_invocation_density",
    "SPV_EXT_fragment_shader_interlock",
    "SPV_EXT_mesh_shader",
    "SPV_EXT_shader_image_int64",
    "SPV_EXT_shader_stencil_export",
    "SPV_EXT_shader_viewport_index_layer",
    "SPV_AMD_gcn_shader",
    "SPV_AMD_gpu_shader_half_float",
    "SPV_AMD_gpu_shader_half_float_fetch",
    "SPV_AMD_gpu_shader_int16",
    "SPV_AMD_shader_ballot",
    "SPV_AMD_shader_early_and_late_fragment_tests",
    "SPV_AMD_shader_explicit_vertex_parameter",
    "SPV_AMD_shader_fragment_mask",
    "SPV_AMD_shader_image_load_store_lod",
    "SPV_AMD_shader_trinary_minmax",
    "SPV_AMD_texture_gather_bias_lod",
    "SPV_AMD_weak_linkage",
    "SPV_AMDX_shader_enqueue",
    "SPV_GOOGLE_hlsl_functionality1",
    "SPV_GOOGLE_user_type",
    "SPV_NV_compute_shader_derivatives",
    "SPV_NV_mesh_shader",
    "SPV_NV_ray_tracing",
    "SPV_NV_shader_subgroup_partitioned",
];

/// Whether `-fspv-extension=name` names something dxc knows.
pub fn is_known_extension(name: &str) -> bool {
    name == ALL_KHR || EXTENSIONS.contains(&name)
}

/// `-fspv-debug=` categories.
pub const DEBUG_INFO: &[&str] = &[
    "file",
    "source",
    "line",
    "tool",
    "rich",
    "rich-with-source",
    "vulkan",
    "vulkan-with-source",
    "vulkan-with-source-test",
];

/// The pass flags of SPIRV-Tools' optimizer (spirv-opt 2025.5 `--help`, without
/// the tool's own options), written without `--`. `-Oconfig=` hands its list to
/// the optimizer, which refuses any other name.
pub const OPTIMIZER_PASSES: &[&str] = &[
    "amd-ext-to-khr",
    "canonicalize-ids",
    "ccp",
    "cfg-cleanup",
    "combine-access-chains",
    "compact-ids",
    "convert-local-access-chains",
    "convert-relaxed-to-half",
    "convert-to-sampled-image",
    "copy-propagate-arrays",
    "descriptor-array-scalar-replacement",
    "descriptor-composite-scalar-replacement",
    "descriptor-scalar-replacement",
    "eliminate-dead-branches",
    "eliminate-dead-code-aggressive",
    "eliminate-dead-const",
    "eliminate-dead-functions",
    "eliminate-dead-input-components",
    "eliminate-dead-inserts",
    "eliminate-dead-variables",
    "eliminate-insert-extract",
    "eliminate-local-multi-store",
    "eliminate-local-single-block",
    "eliminate-local-single-store",
    "fix-func-call-param",
    "flatten-decorations",
    "fold-spec-const-op-composite",
    "freeze-spec-const",
    "graphics-robust-access",
    "if-conversion",
    "inline-entry-points-exhaustive",
    "legalize-hlsl",
    "local-redundancy-elimination",
    "loop-fission",
    "loop-fusion",
    "loop-invariant-code-motion",
    "loop-peeling",
    "loop-peeling-threshold",
    "loop-unroll",
    "loop-unroll-partial",
    "loop-unswitch",
    "merge-blocks",
    "merge-return",
    "modify-maximal-reconvergence",
    "private-to-local",
    "reduce-load-size",
    "redundancy-elimination",
    "relax-float-ops",
    "remove-duplicates",
    "remove-unused-interface-variables",
    "replace-desc-array-access-using-var-index",
    "replace-invalid-opcode",
    "resolve-binding-conflicts",
    "scalar-replacement",
    "set-spec-const-default-value",
    "simplify-instructions",
    "split-combined-image-sampler",
    "spread-volatile-semantics",
    "ssa-rewrite",
    "strength-reduction",
    "strip-debug",
    "strip-nonsemantic",
    "strip-reflect",
    "struct-packing",
    "switch-descriptorset",
    "trim-capabilities",
    "unify-const",
    "upgrade-memory-model",
    "vector-dce",
    "workaround-1209",
    "wrap-opkill",
];

/// Why the optimizer refuses a `-Oconfig=` entry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PassFlagProblem {
    /// Not `--name[=args]`, `-O` or `-Os`.
    NotAFlag,
    /// `--name` with a name the optimizer does not have (the name is returned).
    UnknownPass(String),
}

/// Checks one `-Oconfig=` entry as the optimizer's flag registration does.
pub fn check_pass_flag(flag: &str) -> Result<(), PassFlagProblem> {
    if flag == "-O" || flag == "-Os" {
        return Ok(());
    }
    let Some(body) = flag.strip_prefix("--") else { return Err(PassFlagProblem::NotAFlag) };
    let name = body.split_once('=').map_or(body, |(name, _)| name);
    if OPTIMIZER_PASSES.contains(&name) {
        Ok(())
    } else {
        Err(PassFlagProblem::UnknownPass(name.to_string()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_envs() {
        assert_eq!(target_env_spirv_version("vulkan1.1spirv1.4"), Some((1, 4)));
        assert_eq!(target_env_spirv_version("universal1.5"), Some((1, 5)));
        assert_eq!(target_env_spirv_version("vulkan1.1spirv1.3"), None);
        assert_eq!(target_env_spirv_version("vulkan1"), None);
    }

    #[test]
    fn extensions() {
        assert!(is_known_extension("KHR"));
        assert!(is_known_extension("SPV_NV_ray_tracing"));
        assert!(!is_known_extension("SPV_KHR"));
        assert!(!is_known_extension("spv_khr_multiview"));
        assert!(!is_known_extension("SPV_INTEL_subgroups"));
    }

    /// The extensions the Khronos grammar names (on instructions and on the
    /// enumerants of every operand kind they use).
    fn grammar_extensions() -> std::collections::BTreeSet<&'static str> {
        use spirvkit_grammar::{OperandKind, INSTRUCTIONS};
        let mut names = std::collections::BTreeSet::new();
        let mut kinds: Vec<OperandKind> = Vec::new();
        for instruction in INSTRUCTIONS.iter() {
            names.extend(instruction.availability.extensions.iter().copied());
            kinds.extend(instruction.operands.iter().map(|o| o.kind));
        }
        let mut seen = std::collections::BTreeSet::new();
        while let Some(kind) = kinds.pop() {
            if !seen.insert(kind.name()) {
                continue;
            }
            for enumerant in kind.info().enumerants {
                names.extend(enumerant.availability.extensions.iter().copied());
                kinds.extend(enumerant.parameters.iter().map(|o| o.kind));
            }
        }
        names
    }

    #[test]
    fn extensions_are_khronos_names() {
        // Extensions of extended instruction sets or with nothing to declare in
        // the core grammar.
        const OUTSIDE_THE_CORE_GRAMMAR: &[&str] = &[
            "SPV_AMD_gcn_shader",
            "SPV_AMD_gpu_shader_half_float",
            "SPV_AMD_gpu_shader_int16",
            "SPV_AMD_shader_ballot",
            "SPV_AMD_shader_explicit_vertex_parameter",
            "SPV_AMD_shader_trinary_minmax",
            "SPV_KHR_non_semantic_info",
        ];
        let grammar = grammar_extensions();
        let unknown: Vec<&str> = EXTENSIONS
            .iter()
            .copied()
            .filter(|name| !grammar.contains(name) && !OUTSIDE_THE_CORE_GRAMMAR.contains(name))
            .collect();
        assert_eq!(unknown, Vec::<&str>::new(), "not extensions of the SPIR-V grammar");
    }

    #[test]
    fn pass_flags() {
        assert_eq!(check_pass_flag("--loop-unroll"), Ok(()));
        assert_eq!(check_pass_flag("--scalar-replacement=100"), Ok(()));
        assert_eq!(check_pass_flag("-O"), Ok(()));
        assert_eq!(check_pass_flag("-Os"), Ok(()));
        assert_eq!(check_pass_flag("-O2"), Err(PassFlagProblem::NotAFlag));
        assert_eq!(check_pass_flag("-loop-unroll"), Err(PassFlagProblem::NotAFlag));
        assert_eq!(check_pass_flag("--print-all"), Err(PassFlagProblem::UnknownPass("print-all".into())));
        assert_eq!(check_pass_flag("--bogus=1"), Err(PassFlagProblem::UnknownPass("bogus".into())));
    }

    #[test]
    fn tables_are_free_of_duplicates() {
        for table in [EXTENSIONS, DEBUG_INFO, OPTIMIZER_PASSES] {
            let mut names = table.to_vec();
            names.sort_unstable();
            names.dedup();
            assert_eq!(names.len(), table.len());
        }
    }
}
