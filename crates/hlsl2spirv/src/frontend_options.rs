//! The front end's options from dxc's command line: predefined macros (`__SHADER_TARGET_*`,
//! `__SPIRV_*_VERSION__`, ...), defines, include directories, the language version, the
//! stage and entry point, and the warning switches. Shared by the binary and the fuzz
//! targets, which run the same pipeline in process.

use crate::options::{Options, Stage};
use crate::spirv_values;
use spirvkit_hlsl::diag::DiagOptions;
use spirvkit_hlsl::parser::ParseOptions;
use spirvkit_hlsl::preprocessor::PreprocessOptions;
use spirvkit_hlsl::sema::tree::Stage as SemaStage;
use spirvkit_hlsl::sema::{SemaOptions, StageIoOrder};
use spirvkit_hlsl::FrontendOptions;
use std::path::PathBuf;

/// The SPIR-V version a `-fspv-target-env` implies (for `__SPIRV_*_VERSION__`).
fn spirv_version(target_env: Option<&str>) -> (u32, u32) {
    // An unknown environment is refused with `-spirv`; without it dxc ignores it.
    spirv_values::target_env_spirv_version(target_env.unwrap_or("vulkan1.0")).unwrap_or((1, 0))
}

fn sema_stage(stage: Stage) -> SemaStage {
    match stage {
        Stage::Pixel => SemaStage::Pixel,
        Stage::Vertex => SemaStage::Vertex,
        Stage::Geometry => SemaStage::Geometry,
        Stage::Hull => SemaStage::Hull,
        Stage::Domain => SemaStage::Domain,
        Stage::Compute => SemaStage::Compute,
        Stage::Library => SemaStage::Library,
        Stage::Mesh => SemaStage::Mesh,
        Stage::Amplification => SemaStage::Amplification,
    }
}

pub fn frontend_options(o: &Options) -> FrontendOptions {
    let mut predefined: Vec<(String, String)> = vec![
        ("__hlsl_dx_compiler".into(), "1".into()),
        ("__HLSL_VERSION".into(), o.hlsl_version.to_string()),
        ("__spirv__".into(), "1".into()),
        ("__DXC_VERSION_MAJOR".into(), "1".into()),
        ("__DXC_VERSION_MINOR".into(), "8".into()),
        ("__DXC_VERSION_RELEASE".into(), "0".into()),
        ("__DXC_VERSION_COMMITS".into(), "0".into()),
        // `__has_feature(x)` is 1 for the features below, 0 (or undeclared) otherwise.
        ("__has_feature(x)".into(), "__spirvkit_feature_##x".into()),
        ("__spirvkit_feature_hlsl_vk_buffer_pointer".into(), "1".into()),
    ];
    let stages = [
        ("PIXEL", Stage::Pixel),
        ("VERTEX", Stage::Vertex),
        ("GEOMETRY", Stage::Geometry),
        ("HULL", Stage::Hull),
        ("DOMAIN", Stage::Domain),
        ("COMPUTE", Stage::Compute),
        ("LIBRARY", Stage::Library),
        ("MESH", Stage::Mesh),
        ("AMPLIFICATION", Stage::Amplification),
    ];
    for (name, stage) in stages {
        predefined.push((format!("__SHADER_STAGE_{name}"), stage.target_stage_value().to_string()));
    }
    if let Some(p) = o.profile {
        predefined.push(("__SHADER_TARGET_STAGE".into(), p.stage.target_stage_value().to_string()));
        predefined.push(("__SHADER_TARGET_MAJOR".into(), p.major.to_string()));
        predefined.push(("__SHADER_TARGET_MINOR".into(), p.minor.to_string()));
    }
    if o.enable_16bit_types {
        predefined.push(("__HLSL_ENABLE_16_BIT".into(), "1".into()));
    }
    let (major, minor) = spirv_version(o.target_env.as_deref());
    predefined.push(("__SPIRV_MAJOR_VERSION__".into(), major.to_string()));
    predefined.push(("__SPIRV_MINOR_VERSION__".into(), minor.to_string()));
    FrontendOptions {
        preprocess: PreprocessOptions {
            predefined,
            defines: o.defines.clone(),
            include_dirs: o.include_dirs.iter().map(PathBuf::from).collect(),
        },
        parse: ParseOptions { hlsl_version: o.hlsl_version },
        sema: SemaOptions {
            hlsl_version: o.hlsl_version,
            enable_16bit_types: o.enable_16bit_types,
            payload_access_qualifiers: o.payload_qualifiers,
            stage: o.profile.map(|p| sema_stage(p.stage)),
            shader_model: o.profile.map_or((6, 0), |p| (p.major, p.minor)),
            entry: o.entry.clone(),
            stage_io_order: if o.stage_io_alpha { StageIoOrder::Alpha } else { StageIoOrder::Decl },
        },
        diag: DiagOptions {
            warnings_as_errors: o.warnings_as_errors,
            no_warnings: o.no_warnings,
            disabled_warnings: o.disabled_warnings.iter().cloned().collect(),
            // dxc sets no error limit (clang's 20 is its driver's); a high bound
            // still stops floods.
            error_limit: DXC_ERROR_LIMIT,
        },
    }
}

/// How many errors are reported before "too many errors emitted".
const DXC_ERROR_LIMIT: usize = 1000;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spirv_versions_of_target_envs() {
        assert_eq!(spirv_version(None), (1, 0));
        assert_eq!(spirv_version(Some("vulkan1.1")), (1, 3));
        assert_eq!(spirv_version(Some("vulkan1.1spirv1.4")), (1, 4));
        assert_eq!(spirv_version(Some("universal1.5")), (1, 5));
        assert_eq!(spirv_version(Some("vulkan1.3")), (1, 6));
    }
}
