//! Entry points and the statements around them as dxc makes them: libraries with
//! several `[shader("...")]` entries (each its own wrapper and interface, built-ins
//! shared), `export` functions with linkage, nonzero vertex/instance bases, switches
//! as if series, geometry streams' outputs. Each binary is also checked with a current
//! spirv-val when one is at hand.

mod common;

use common::{assert_valid_binary, disassemble};

/// The line of the disassembly holding `needle`.
fn line_with<'a>(text: &'a str, needle: &str) -> &'a str {
    text.lines().find(|l| l.contains(needle)).unwrap_or_else(|| panic!("no line with `{needle}` in\n{text}"))
}

const TWO_PIXEL_ENTRIES: &str = r#"
[shader("pixel")]
float4 x() : SV_TARGET { return float4(1, 0, 0, 0); }

[shader("pixel")]
float4 y(float4 pos : SV_Position) : SV_TARGET { return pos; }
"#;

#[test]
fn each_library_entry_has_its_own_wrapper_and_interface() {
    let args = ["-T", "lib_6_6", "-spirv", "-fcgl"];
    let text = disassemble(&args, TWO_PIXEL_ENTRIES);
    let x = line_with(&text, "OpEntryPoint Fragment %x \"x\"");
    let y = line_with(&text, "OpEntryPoint Fragment %y \"y\"");
    assert!(x.contains("%out_var_SV_TARGET") && !x.contains("gl_FragCoord"), "{x}");
    assert!(y.contains("%gl_FragCoord") && y.contains("%out_var_SV_TARGET_0"), "{y}");
    assert!(text.contains("OpExecutionMode %x OriginUpperLeft"));
    assert!(text.contains("OpExecutionMode %y OriginUpperLeft"));
    assert!(text.contains("%src_x = OpFunction") && text.contains("%src_y = OpFunction"));
    assert_valid_binary(&["-T", "lib_6_6", "-spirv"], TWO_PIXEL_ENTRIES, &["--target-env", "vulkan1.0"]);
}

const TWO_COMPUTE_ENTRIES: &str = r#"
RWBuffer<uint> MyBuffer;
[shader("compute")] [numthreads(1, 1, 1)]
void bar(uint tid : SV_DispatchThreadId) { MyBuffer[0] = tid; }
[Shader("compute")] [numthreads(2, 1, 1)]
void foo(uint tid : SV_DispatchThreadId) { MyBuffer[1] = tid; }
"#;

#[test]
fn library_entries_share_built_ins_and_list_globals_from_spirv_1_4() {
    let args = ["-T", "lib_6_6", "-spirv", "-fcgl", "-fspv-target-env=vulkan1.2"];
    let text = disassemble(&args, TWO_COMPUTE_ENTRIES);
    assert_eq!(text.matches("BuiltIn GlobalInvocationId").count(), 1, "{text}");
    for name in ["%bar \"bar\"", "%foo \"foo\""] {
        let line = line_with(&text, name);
        assert!(line.contains("%MyBuffer") && line.contains("%gl_GlobalInvocationID"), "{line}");
    }
    assert!(text.contains("OpExecutionMode %foo LocalSize 2 1 1"));
    assert_valid_binary(
        &["-T", "lib_6_6", "-spirv", "-fspv-target-env=vulkan1.2"],
        TWO_COMPUTE_ENTRIES,
        &["--target-env", "vulkan1.2"],
    );
}

const EXPORTED: &str = r#"
int helper(int x) { return x + 1; }
export int twice(int x) { return helper(x) * 2; }
"#;

#[test]
fn export_functions_have_linkage_without_an_entry_point() {
    let args = ["-T", "lib_6_3", "-spirv", "-fcgl", "-fspv-target-env=universal1.5"];
    let text = disassemble(&args, EXPORTED);
    assert!(text.contains("OpCapability Linkage"), "{text}");
    assert!(text.contains("OpDecorate %twice LinkageAttributes \"twice\" Export"), "{text}");
    assert!(text.contains("%helper = OpFunction"), "{text}");
    assert!(!text.contains("OpEntryPoint"), "{text}");
    assert_valid_binary(
        &["-T", "lib_6_3", "-spirv", "-fspv-target-env=universal1.5"],
        EXPORTED,
        &["--target-env", "spv1.5"],
    );
}

#[test]
fn nonzero_base_vertex_is_subtracted_into_a_semantic_named_variable() {
    let source = "int main(int input : SV_VertexID) : A { return input; }";
    let args = ["-T", "vs_6_0", "-E", "main", "-spirv", "-fcgl", "-fvk-support-nonzero-base-vertex"];
    let text = disassemble(&args, source);
    assert!(text.contains("BuiltIn BaseVertex"), "{text}");
    assert!(text.contains("%SV_VertexID = OpVariable %_ptr_Function_int Function"), "{text}");
    assert!(text.contains("OpISub %int"), "{text}");
    assert_valid_binary(
        &["-T", "vs_6_0", "-E", "main", "-spirv", "-fvk-support-nonzero-base-vertex"],
        source,
        &["--target-env", "vulkan1.1"],
    );
}

#[test]
fn unsigned_int_is_uint() {
    let source = "unsigned int main(unsigned int input : SV_InstanceID) : SV_InstanceID { return input; }";
    let text = disassemble(&["-T", "vs_6_0", "-E", "main", "-spirv", "-fcgl"], source);
    assert!(text.contains("%gl_InstanceIndex = OpVariable %_ptr_Input_uint Input"), "{text}");
}

const BRANCH_SWITCH: &str = r#"
int a;
float4 main() : SV_Target {
  int b = 0;
  [branch] switch (a) {
    default: b = 7;
    case 1: b += 1; break;
    case 2: b = 2;
  }
  return b;
}
"#;

#[test]
fn switches_with_if_attributes_are_if_series() {
    let args = ["-T", "ps_6_0", "-E", "main", "-spirv", "-fcgl"];
    let text = disassemble(&args, BRANCH_SWITCH);
    assert!(!text.contains("OpSwitch"), "{text}");
    assert!(text.contains("OpIEqual %bool"), "{text}");
    assert_valid_binary(
        &["-T", "ps_6_0", "-E", "main", "-spirv"],
        BRANCH_SWITCH,
        &["--target-env", "vulkan1.0"],
    );
}

const STREAM: &str = r#"
struct GS_OUT { float4 position : SV_POSITION; float4 color : COLOR0; };
[maxvertexcount(3)]
void main(triangle float4 id[3] : VertexID, inout LineStream<GS_OUT> outstream) {}
"#;

#[test]
fn stream_outputs_are_declared_without_an_append() {
    let text = disassemble(&["-T", "gs_6_0", "-E", "main", "-spirv", "-fcgl"], STREAM);
    let line = line_with(&text, "OpEntryPoint Geometry");
    assert!(line.contains("%gl_Position") && line.contains("%out_var_COLOR0"), "{line}");
    assert_valid_binary(&["-T", "gs_6_0", "-E", "main", "-spirv"], STREAM, &["--target-env", "vulkan1.0"]);
}

const ZERO_STRUCT_AND_OFFSETS: &str = r#"
struct S { float4 a; int b; };
Texture2D<float4> t;
SamplerState s;
float4 main(float2 uv : UV, int2 o : OFF) : SV_Target {
  S v = (S)0;
  float4 r = t.GatherRed(s, uv, o, int2(3, 4), int2(5, 6), o);
  return v.a + r + t.Sample(s, uv, uint2(-5, 7));
}
"#;

#[test]
fn zero_cast_to_struct_is_null_and_gathers_take_variable_offsets_one_by_one() {
    let text = disassemble(&["-T", "ps_6_0", "-E", "main", "-spirv", "-fcgl"], ZERO_STRUCT_AND_OFFSETS);
    assert!(text.contains("OpConstantNull %S"), "{text}");
    assert_eq!(text.matches("OpImageGather").count(), 4, "{text}");
    assert!(text.contains("OpConstantComposite %v2int %int_n5 %int_7"), "{text}");
    assert_valid_binary(
        &["-T", "ps_6_0", "-E", "main", "-spirv"],
        ZERO_STRUCT_AND_OFFSETS,
        &["--target-env", "vulkan1.0"],
    );
}
