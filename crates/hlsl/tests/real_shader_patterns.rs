//! Patterns from real shaders outside the DXC and Wicked Engine corpora (Microsoft's
//! D3D12 samples and MiniEngine) that dxc accepts or rejects: each test is one class of
//! construct, written small, with what dxc does around it.

mod common;

use std::path::PathBuf;

use spirvkit_hlsl::frontend::{analyze_source, Frontend, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;

fn analyze_with(text: &str, files: &[(&str, &str)]) -> Frontend {
    let loader =
        MemoryLoader { files: files.iter().map(|(p, t)| (PathBuf::from(p), t.to_string())).collect() };
    analyze_source(
        "main.hlsl",
        Some(PathBuf::from("/src/main.hlsl")),
        text.to_string(),
        &FrontendOptions::default(),
        &loader,
    )
}

fn analyze(text: &str) -> Frontend {
    analyze_with(text, &[])
}

/// Accepted with no diagnostic at all (no warning dxc would not give either).
fn clean(text: &str) -> Frontend {
    common::clean(analyze(text))
}

/// Accepted, with warnings only; returns them.
fn accepted(text: &str) -> String {
    common::without_errors(analyze(text)).render_diagnostics()
}

fn rejected(text: &str) -> String {
    common::with_errors(analyze(text), text)
}

#[test]
fn texture_subscript_takes_a_longer_index_of_the_same_component_type() {
    // `RenderTarget[DispatchRaysIndex()]` (D3D12RaytracingHelloWorld): a uint3 cut to the
    // uint2 a 2D texture takes, with dxc's truncation warning.
    let text = accepted(
        "RWTexture2D<float4> RenderTarget : register(u0);\n\
         Texture2DArray<float4> Layers;\n\
         void f(uint3 id, uint4 id4) {\n\
           RenderTarget[id] = float4(0, 0, 0, 1);\n\
           RenderTarget[id.xy] = Layers[id4];\n\
         }\n",
    );
    assert_eq!(text.matches("implicit truncation of vector type").count(), 2, "{text}");
}

#[test]
fn texture_subscript_refuses_truncation_with_a_component_change_and_splats() {
    // dxc's indexing-operator and SampledTexture tests: int3 -> uint2 needs two
    // conversions at once, and a scalar is never replicated to a coordinate.
    for index in ["int3(1, 2, 3)", "0", "i", "u"] {
        let text = rejected(&format!(
            "RWTexture2D<float4> t;\n\
             void f(int i, uint u) {{ t[{index}] = 0; }}\n"
        ));
        assert!(
            text.contains("no viable overloaded operator[] for type 'RWTexture2D<float4>'"),
            "{index}: {text}"
        );
    }
    // A component change alone stays fine (int2 -> uint2).
    clean("Texture2D<float4> t;\nfloat4 f(int2 p) { return t[p]; }\n");
}

#[test]
fn include_names_with_backslashes_resolve_on_this_host() {
    // `#include "util\HlslCompat.h"` (D3D12RaytracingProceduralGeometry): dxc hands
    // include names to the file system in the host's separator style.
    let fe = analyze_with(
        "#include \"util\\HlslCompat.h\"\n#include \"shared\\deep\\Common.h\"\nUINT f(XMFLOAT3 v) { return (UINT)v.x + kCommon; }\n",
        &[
            ("/src/util/HlslCompat.h", "#pragma once\ntypedef float3 XMFLOAT3;\ntypedef uint UINT;\n"),
            ("/src/shared/deep/Common.h", "static const uint kCommon = 1;\n"),
        ],
    );
    assert!(fe.diags.is_empty(), "{}", fe.render_diagnostics());
}

fn analyze_profile(
    text: &str,
    stage: spirvkit_hlsl::sema::tree::Stage,
    shader_model: (u32, u32),
) -> Frontend {
    let mut options = FrontendOptions::default();
    options.sema.stage = Some(stage);
    options.sema.shader_model = shader_model;
    analyze_source("main.hlsl", None, text.to_string(), &options, &MemoryLoader::default())
}

const PAYLOAD_WITH_ACCESS_QUALIFIERS: &str = "struct [raypayload] RayPayload\n\
{\n\
    float4 color : write(caller, closesthit, miss) : read(caller);\n\
    uint iterations : write(caller) : read(closesthit);\n\
    uint unused : read() : write();\n\
};\n\
[shader(\"miss\")]\n\
void Miss(inout RayPayload payload) { payload.color = float4(0, 0, 0, 1); }\n";

#[test]
fn payload_fields_take_access_qualifiers() {
    // D3D12RaytracingHelloShaderExecutionReordering: `: write(...) : read(...)` after a
    // [raypayload] field, on by default from lib_6_7.
    use spirvkit_hlsl::sema::tree::Stage;
    let fe = analyze_profile(PAYLOAD_WITH_ACCESS_QUALIFIERS, Stage::Library, (6, 7));
    assert!(fe.diags.is_empty(), "{}", fe.render_diagnostics());
    // Below lib_6_7 dxc parses them and says, once, that they are ignored.
    let fe = analyze_profile(PAYLOAD_WITH_ACCESS_QUALIFIERS, Stage::Library, (6, 3));
    let text = fe.render_diagnostics();
    assert!(!fe.diags.has_errors(), "{text}");
    assert_eq!(text.matches("payload access qualifiers ignored").count(), 1, "{text}");
    // A semantic spelled `read` without arguments stays a semantic.
    clean("float4 main(float4 p : read) : SV_Target { return p; }\n");
}

#[test]
fn payload_access_qualifiers_name_ray_tracing_stages() {
    let text = rejected("struct [raypayload] P { float4 color : write(caller, pixel) : read(caller); };\n");
    assert!(text.contains("invalid shader stage 'pixel' in payload access qualifier"), "{text}");
}

#[test]
fn shader_execution_reordering_is_reported_as_not_supported_yet() {
    // D3D12RaytracingHelloShaderExecutionReordering: dxc's SM 6.9 `dx::HitObject` and
    // `dx::MaybeReorderThread` are not modeled; say so instead of "undeclared".
    use spirvkit_hlsl::sema::tree::Stage;
    let text = "using namespace dx;\n\
                [shader(\"raygeneration\")]\n\
                void Gen() { dx::MaybeReorderThread(1, 1); }\n";
    let fe = analyze_profile(text, Stage::Library, (6, 9));
    let out = fe.render_diagnostics();
    assert_eq!(out.matches("not supported yet: 'dx::MaybeReorderThread'").count(), 1, "{out}");
    assert_eq!(fe.diags.error_count(), 1, "`using namespace dx;` holds at 6.9: {out}");
    let fe = analyze_profile(
        "using namespace dx;
void f() { HitObject h = HitObject::MakeNop(); }
",
        Stage::Library,
        (6, 9),
    );
    let out = fe.render_diagnostics();
    assert!(out.contains("not supported yet: 'HitObject"), "{out}");
    // Below shader model 6.9 these names do not exist in dxc either.
    let fe = analyze_profile(text, Stage::Library, (6, 3));
    let out = fe.render_diagnostics();
    assert!(out.contains("expected namespace name 'dx'") && !out.contains("not supported yet"), "{out}");
}
