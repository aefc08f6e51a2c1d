//! The module-level shape dxc writes (`-fcgl`): names of laid-out structs, decorations,
//! capabilities and extensions, entry point interfaces and debug instructions. Each case
//! checks the disassembly and, when a `spirv-val` is found (`SPIRV_VAL`, or the
//! project's `.venv`), that the binary is valid.

mod common;

use common::run;

/// The disassembly of `source` compiled with `args` (plus `-spirv -fcgl`), validated
/// when a validator is at hand.
fn compile(source: &str, args: &[&str]) -> String {
    let mut all: Vec<&str> = vec!["-spirv", "-fcgl"];
    all.extend_from_slice(args);
    let out = run(&[all.as_slice(), &["-"]].concat(), source);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "hlsl2spirv failed: {stderr}");
    let env = if args.contains(&"-fspv-target-env=vulkan1.1") { "vulkan1.1" } else { "vulkan1.0" };
    common::assert_valid_binary(
        &all,
        source,
        &["--target-env", env, "--before-hlsl-legalization", "--relax-block-layout"],
    );
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn assert_has(text: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(text.contains(w), "missing `{w}` in:\n{text}");
    }
}

#[test]
fn laid_out_structs_keep_their_source_name() {
    // One struct under two layouts and as a plain local: three types, all named `S`
    // (the disassembler tells them apart as %S, %S_0, %S_1).
    let text = compile(
        "struct S { float a; float3 b; };\n\
         cbuffer C { S c; };\n\
         StructuredBuffer<S> sb;\n\
         float4 main() : SV_Target { S local = sb[0]; return c.a + local.b.x; }",
        &["-T", "ps_6_0", "-E", "main"],
    );
    assert_has(
        &text,
        &["OpName %S \"S\"", "OpName %S_0 \"S\"", "OpName %S_1 \"S\"", "OpMemberDecorate %S_0 1 Offset 4"],
    );
    assert!(!text.contains(".std"), "a layout suffix leaked into a name:\n{text}");
}

#[test]
fn global_variables_follow_every_type() {
    // dxc keeps the global variables in a section of their own, after all the types
    // and constants (the function types included).
    let text = compile(
        "Texture2D<float4> t1; Texture3D<uint4> t2; static int s = 3;\n\
         float4 main(float2 uv : A) : SV_Target { return t1.Load(int3(uv, 0)) + t2.Load(int4(0, 0, 0, 0)).x + s; }",
        &["-T", "ps_6_0", "-E", "main"],
    );
    let lines: Vec<&str> = text.lines().collect();
    let last_type = lines.iter().rposition(|l| l.contains("= OpType") || l.contains("= OpConstant"));
    let first_variable = lines.iter().position(|l| l.contains("= OpVariable"));
    assert!(last_type < first_variable, "a type or constant after a variable:\n{text}");
    assert_has(&text, &["%t1 = OpVariable", "%s = OpVariable %_ptr_Private_int Private"]);
}

#[test]
fn extension_built_ins_have_no_name_and_core_ones_do() {
    let text = compile(
        "float4 main(uint view : SV_ViewID, float4 pos : SV_Position) : SV_Target { return pos + view; }",
        &["-T", "ps_6_1", "-E", "main"],
    );
    assert_has(&text, &["OpName %gl_FragCoord \"gl_FragCoord\"", "BuiltIn ViewIndex"]);
    assert!(!text.contains("OpName %gl_ViewIndex"), "ViewIndex named:\n{text}");
}

#[test]
fn compute_ids_keep_the_declared_signedness() {
    let text = compile(
        "RWBuffer<int2> b; [numthreads(1, 1, 1)] void main(int2 tid : SV_GroupID) { b[0] = tid; }",
        &["-T", "cs_6_0", "-E", "main"],
    );
    assert_has(&text, &["%gl_WorkGroupID = OpVariable %_ptr_Input_v3int Input"]);
}

#[test]
fn static_groupshared_is_groupshared() {
    let text = compile(
        "static groupshared float3 b; RWBuffer<float> o;\n\
         [numthreads(1, 1, 1)] void main() { b = 1; o[0] = b.x; }",
        &["-T", "cs_6_0", "-E", "main"],
    );
    assert_has(&text, &["%b = OpVariable %_ptr_Workgroup_v3float Workgroup"]);
}

#[test]
fn entry_point_name_option_renames_the_entry_point_only() {
    let text = compile(
        "float4 PSMain(float4 c : COLOR) : SV_TARGET { return c; }",
        &["-T", "ps_6_0", "-E", "PSMain", "-fspv-entrypoint-name=main"],
    );
    assert_has(&text, &["OpEntryPoint Fragment %PSMain \"main\""]);
}

#[test]
fn buffers_of_vectors_and_matrices_are_named_by_their_spirv_types() {
    let text = compile(
        // (A buffer of matrices is named `type.StructuredBuffer.mat2v3float` too, but its
        // binary lacks the member's MatrixStride yet, so it is not checked here.)
        "StructuredBuffer<uint3> v; RWStructuredBuffer<half2> h;\n\
         float4 main() : SV_Target { h[0] = v[0].xy; return v[0].x; }",
        &["-T", "ps_6_0", "-E", "main"],
    );
    assert_has(&text, &["OpName %type_StructuredBuffer_v3uint ", "OpName %type_RWStructuredBuffer_v2float "]);
}

#[test]
fn locations_follow_the_other_stage_variable_decorations() {
    // dxc assigns locations once every stage variable exists: the built-ins' decorations
    // come first.
    let text = compile(
        "uint main(uint i : SV_RenderTargetArrayIndex) : SV_RenderTargetArrayIndex { return i; }",
        &["-T", "vs_6_0", "-E", "main"],
    );
    let layer = text.find("OpDecorate %gl_Layer BuiltIn Layer").expect("the Layer built-in");
    let location = text.find("OpDecorate %in_var_SV_RenderTargetArrayIndex Location 0").expect("a location");
    assert!(layer < location, "a location before a built-in:\n{text}");
}
