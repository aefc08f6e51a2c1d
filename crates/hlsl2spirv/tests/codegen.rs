//! Code generation end to end: HLSL in, the disassembly dxc's tests check out, and
//! every binary valid for the current spirv-val (skipped with a message when the
//! project's `.venv` validator is absent).

mod common;

/// The disassembly of `source` compiled with `args`.
fn compile(args: &[&str], source: &str) -> String {
    common::disassemble(args, source)
}

/// The error message of a compile that must fail.
fn compile_error(args: &[&str], source: &str) -> String {
    let mut all: Vec<&str> = args.to_vec();
    all.push("-");
    let out = common::run(&all, source);
    assert!(!out.status.success(), "hlsl2spirv should fail");
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Compiles `source` to a binary and checks it with spirv-val for `env`.
fn assert_valid(args: &[&str], source: &str, env: &str) {
    common::assert_valid_binary(args, source, &["--target-env", env]);
}

const COMPUTE: &str = r#"
RWStructuredBuffer<float> buf : register(u0);
[numthreads(64, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) {
    float x = buf[id.x];
    if (x > 1.0) x = x * 2.0; else x += 1;
    for (int i = 0; i < 4; i++) { if (i == 2) continue; x = x + i; }
    buf[id.x] = x;
}
"#;

#[test]
fn raw_form_keeps_dxc_names_and_structure() {
    let text = compile(&["-T", "cs_6_0", "-E", "main", "-fcgl"], COMPUTE);
    for expected in [
        "OpEntryPoint GLCompute %main \"main\" %gl_GlobalInvocationID",
        "OpExecutionMode %main LocalSize 64 1 1",
        "OpSource HLSL 600",
        "%src_main = OpFunction %void None",
        "%param_var_id = OpVariable %_ptr_Function_v3uint Function",
        "%bb_entry = OpLabel",
        "OpSelectionMerge %if_merge None",
        "OpLoopMerge %for_merge %for_continue None",
        "OpDecorate %buf DescriptorSet 0",
        "OpDecorate %buf Binding 0",
        "OpDecorate %type_RWStructuredBuffer_float BufferBlock",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in:\n{text}");
    }
    assert_valid(&["-T", "cs_6_0", "-E", "main", "-fcgl"], COMPUTE, "vulkan1.0");
}

#[test]
fn legalized_form_has_no_calls_and_is_valid() {
    let text = compile(&["-T", "cs_6_0", "-E", "main"], COMPUTE);
    assert!(!text.contains("OpFunctionCall"), "calls left after legalization:\n{text}");
    assert!(text.contains("OpPhi"), "locals were not promoted:\n{text}");
    assert_valid(&["-T", "cs_6_0", "-E", "main"], COMPUTE, "vulkan1.0");
    // From SPIR-V 1.4 storage buffers are StorageBuffer + Block, and every global is
    // an interface variable.
    let text = compile(&["-T", "cs_6_0", "-E", "main", "-fspv-target-env=vulkan1.2"], COMPUTE);
    assert!(text.contains("OpDecorate %type_RWStructuredBuffer_float Block"), "{text}");
    let entry = text.lines().find(|l| l.contains("OpEntryPoint")).expect("entry point");
    assert!(entry.contains("%buf") && entry.contains("%gl_GlobalInvocationID"), "{text}");
    assert_valid(&["-T", "cs_6_0", "-E", "main", "-fspv-target-env=vulkan1.2"], COMPUTE, "vulkan1.2");
}

#[test]
fn compound_assignment_reads_the_right_side_first() {
    let source = "void main() { int a, b; b += a; }";
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fcgl"], source);
    let a = text.find("OpLoad %int %a").expect("load of a");
    let b = text.find("OpLoad %int %b").expect("load of b");
    assert!(a < b, "dxc loads the right-hand side first:\n{text}");
}

#[test]
fn pixel_shader_stage_io_and_textures() {
    let source = r#"
Texture2D<float4> tex : register(t0);
SamplerState samp : register(s0);
cbuffer Params : register(b0) { float4 tint; float scale; };
struct PSIn { float4 pos : SV_Position; float2 uv : TEXCOORD0; nointerpolation uint id : ID; };
float4 main(PSIn i) : SV_Target {
    float4 c = tex.Sample(samp, i.uv * scale) * tint;
    return i.id > 3 ? c : c.bgra;
}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main"], source);
    for expected in [
        "OpExecutionMode %main OriginUpperLeft",
        "OpDecorate %gl_FragCoord BuiltIn FragCoord",
        "OpDecorate %in_var_TEXCOORD0 Location 0",
        "OpDecorate %in_var_ID Flat",
        "OpDecorate %out_var_SV_Target Location 0",
        "OpMemberName %type_Params 0 \"tint\"",
        "OpImageSampleImplicitLod",
    ] {
        assert!(text.contains(expected), "missing `{expected}` in:\n{text}");
    }
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source, "vulkan1.0");
}

#[test]
fn switch_with_fallthrough_and_64_bit_selector() {
    let source = r#"
RWStructuredBuffer<int> o;
[numthreads(1,1,1)] void main() {
    int r = 0; int64_t w = o[1];
    switch (o[0]) { case -3: r = 1; break; case 2: r = 5; default: r += 2; }
    switch (w) { case 5: r += 10; break; default: break; }
    o[2] = r;
}
"#;
    let text = compile(&["-T", "cs_6_0", "-E", "main", "-fcgl"], source);
    assert!(text.contains("OpSwitch"), "{text}");
    assert!(text.contains("-3 %switch_n3 2 %switch_2"), "dxc's case names:\n{text}");
    assert_valid(&["-T", "cs_6_0", "-E", "main", "-fcgl"], source, "vulkan1.0");
    assert_valid(&["-T", "cs_6_0", "-E", "main"], source, "vulkan1.0");
}

#[test]
fn unsupported_constructs_are_named_errors_not_crashes() {
    let message = compile_error(&["-T", "lib_6_3"], "[shader(\"raygeneration\")] void main() {}");
    assert!(message.contains("not supported yet"), "{message}");
}

#[test]
fn fuzz_findings_are_refused_not_written_invalid() {
    // A zero thread-group size is no valid LocalSize: dxc's error.
    let message = compile_error(&["-T", "cs_6_0", "-E", "main"], "[numthreads(0,1,1)] void main() {}");
    assert!(message.contains("Declared Thread Group X size 0 outside valid range [1..1024]"), "{message}");
    // Vulkan has no Output variables in compute shaders.
    let message = compile_error(
        &["-T", "cs_6_0", "-E", "main"],
        "[numthreads(1,1,1)] void main(out float x : X) { x = 1; }",
    );
    assert!(message.contains("cannot have outputs"), "{message}");
    // An unknown-format storage image read declares the capability.
    let source = "RWTexture2D<int3> z;\nfloat4 main() : SV_Target { int3 v = z[uint2(0, 0)]; return v.x; }";
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source, "vulkan1.0");
}

/// dxc writes the constants the functions use, in the order they use them, before
/// the global variables (and the types only those need).
#[test]
fn constants_come_before_global_variables_in_first_use_order() {
    let text = compile(
        &["-T", "ps_6_0", "-E", "main", "-fcgl"],
        "Texture2D<float4> tex; SamplerState s;\n\
         float4 main() : SV_Target { float a = 7.0; int b = 3; return tex.Sample(s, float2(a, b)); }",
    );
    let at = |needle: &str| text.find(needle).unwrap_or_else(|| panic!("{needle} missing:\n{text}"));
    assert!(at("%float_7 = OpConstant") < at("%int_3 = OpConstant"), "{text}");
    assert!(at("%int_3 = OpConstant") < at("OpTypeImage"), "{text}");
    assert!(at("OpTypeImage") < at("%tex = OpVariable"), "{text}");
}

/// A prototype after the definition (FidelityFX's headers redeclare functions the
/// including shader defined) names that definition: the call compiles.
#[test]
fn prototype_after_the_definition_refers_to_it() {
    let source = "typedef float4 F4; typedef int2 I2;\n\
                  F4 load(I2 p) { return float4(p, 0, 1); }\n\
                  float4 load(int2 p);\n\
                  float4 main() : SV_Target { return load(int2(1, 2)); }";
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fcgl"], source);
    assert!(text.contains("OpFunctionCall %v4float %load"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source, "vulkan1.0");
}

/// Structs may hold textures and samplers (FXAA's `FxaaTex tex = { s, t };`): the
/// struct is built from the objects and legalization takes it apart again.
#[test]
fn structs_holding_resources_compile_and_legalize() {
    let source = "struct Pair { SamplerState smp; Texture2D tex; };\n\
                  SamplerState s0; Texture2D t0; RWTexture2D<float4> o;\n\
                  float4 fetch(Pair p, float2 uv) { return p.tex.SampleLevel(p.smp, uv, 0); }\n\
                  [numthreads(8, 8, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                    Pair a = { s0, t0 };\n\
                    Pair b; b.smp = s0; b.tex = t0;\n\
                    o[id.xy] = fetch(a, id.xy * 0.5) + fetch(b, id.xy);\n\
                  }";
    let raw = compile(&["-T", "cs_6_0", "-E", "main", "-fcgl"], source);
    assert!(raw.contains("%Pair = OpTypeStruct %type_sampler %type_2d_image"), "{raw}");
    let legal = compile(&["-T", "cs_6_0", "-E", "main"], source);
    assert!(!legal.contains("%Pair = OpTypeStruct"), "{legal}");
    assert_valid(&["-T", "cs_6_0", "-E", "main"], source, "vulkan1.0");
}
