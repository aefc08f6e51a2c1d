//! Inline SPIR-V (SPIR-V.rst, "Inline SPIR-V"): capabilities and extensions asked for
//! where they are written, execution modes, built-in variables, decorations and
//! instructions of extended instruction sets. Every binary must validate.

mod common;

use common::{assert_valid_binary, disassemble, run};

#[test]
fn capabilities_and_extensions_join_the_module_from_where_they_are_written() {
    let source = r#"
[[vk::ext_extension("SPV_KHR_shader_clock")]] int g;
struct T {
  [[vk::ext_extension("SPV_KHR_16bit_storage")]] int f;
};
[[vk::ext_capability(/* Int8 */ 39)]]
[noinline] uint Identity(uint x) { return x; }
RWStructuredBuffer<uint> buf;
[numthreads(1, 1, 1)]
void main(uint3 tid : SV_DispatchThreadID) {
  T t;
  t.f = 1;
  [[vk::ext_capability(/* Int16 */ 22)]]
  buf[0] = Identity(tid.x) + t.f + g;
}
"#;
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv"];
    let text = disassemble(&args, source);
    for expected in [
        "OpCapability Int8",
        "OpCapability Int16",
        "OpExtension \"SPV_KHR_shader_clock\"",
        "OpExtension \"SPV_KHR_16bit_storage\"",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);
}

#[test]
fn an_unknown_capability_is_refused() {
    let source = "[[vk::ext_capability(99999)]] int g;
float4 main() : SV_Target { return g; }
";
    let out = run(&["-T", "ps_6_0", "-E", "main", "-spirv", "-"], source);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not supported yet") && err.contains("99999"), "{err}");
}

#[test]
fn execution_modes_from_intrinsics_and_attributes() {
    let source = r#"
[[vk::spvexecutionmode(/* DepthLess */ 15)]]
float4 main() : SV_Target {
  vk::ext_execution_mode(/* EarlyFragmentTests */ 9);
  return 1;
}
"#;
    let args = ["-T", "ps_6_0", "-E", "main", "-spirv", "-fcgl"];
    let text = disassemble(&args, source);
    assert!(text.contains("OpExecutionMode %main DepthLess"), "{text}");
    assert!(text.contains("OpExecutionMode %main EarlyFragmentTests"), "{text}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);

    // Operands that are ids: constants of the arguments' types.
    let ids = "[numthreads(1, 1, 1)]
void main() { vk::ext_execution_mode_id(/* LocalSizeId */ 38, 4, 2u, 1); }
";
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv", "-fcgl", "-fspv-target-env=vulkan1.3"];
    let text = disassemble(&args, ids);
    assert!(text.contains("OpExecutionModeId %main LocalSizeId %int_4 %uint_2 %int_1"), "{text}");
    assert_valid_binary(&args, ids, &["--target-env", "vulkan1.3"]);
}

#[test]
fn an_execution_mode_of_the_wrong_intrinsic_is_refused() {
    // LocalSizeId takes ids: `ext_execution_mode` (literals) cannot write it.
    let source = "[numthreads(1, 1, 1)]
void main() { vk::ext_execution_mode(/* LocalSizeId */ 38, 1, 1, 1); }
";
    let out = run(&["-T", "cs_6_0", "-E", "main", "-spirv", "-"], source);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not supported yet"), "{err}");
    // LocalSizeHintId is a kernel's (the Kernel capability, which Vulkan lacks).
    let kernel = "[numthreads(1, 1, 1)]
void main() { vk::ext_execution_mode_id(/* LocalSizeHintId */ 39, 1, 1, 1); }
";
    let out = run(&["-T", "cs_6_0", "-E", "main", "-spirv", "-fspv-target-env=vulkan1.3", "-"], kernel);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not supported yet") && err.contains("Kernel"), "{err}");
}

#[test]
fn ext_builtin_globals_are_the_stage_variables() {
    let source = "
[[vk::ext_builtin_input(/* NumWorkgroups */ 24)]]
static const uint3 gl_NumWorkGroups;
RWStructuredBuffer<uint> buf;
[numthreads(1, 1, 1)]
void main() { buf[0] = gl_NumWorkGroups.x; }
";
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv", "-fcgl"];
    let text = disassemble(&args, source);
    assert!(text.contains("OpDecorate %gl_NumWorkGroups BuiltIn NumWorkgroups"), "{text}");
    assert!(text.contains("%gl_NumWorkGroups = OpVariable %_ptr_Input_v3uint Input"), "{text}");
    assert!(text.contains("OpEntryPoint GLCompute %main \"main\" %gl_NumWorkGroups"), "{text}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);

    let output = r#"
[[vk::ext_extension("SPV_EXT_shader_stencil_export")]]
[[vk::ext_builtin_output(/* FragStencilRefEXT */ 5014)]]
static int stencil;
float4 main() : SV_Target { stencil = 10; return 1; }
"#;
    let args = ["-T", "ps_6_0", "-E", "main", "-spirv", "-fcgl"];
    let text = disassemble(&args, output);
    assert!(text.contains("BuiltIn FragStencilRefEXT"), "{text}");
    assert!(text.contains("OpCapability StencilExportEXT"), "{text}");
    assert_valid_binary(&args, output, &["--target-env", "vulkan1.0"]);
}

#[test]
fn ext_decorate_decorates_functions_and_variables() {
    let source = "
[[vk::ext_decorate(/* RelaxedPrecision */ 0)]]
[noinline] float Half(float x) { return x * 0.5; }
float4 main(float4 c : COLOR) : SV_Target {
  [[vk::ext_decorate(/* RelaxedPrecision */ 0)]] float local = Half(c.x);
  return local;
}
";
    let args = ["-T", "ps_6_0", "-E", "main", "-spirv", "-fcgl"];
    let text = disassemble(&args, source);
    assert!(text.contains("OpDecorate %Half RelaxedPrecision"), "{text}");
    assert!(text.contains("OpDecorate %local RelaxedPrecision"), "{text}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);
}

#[test]
fn instructions_of_extended_sets_and_with_capabilities() {
    let source = r#"
[[vk::ext_capability(/* ShaderClockKHR */ 5055)]]
[[vk::ext_extension("SPV_KHR_shader_clock")]]
[[vk::ext_instruction(/* OpReadClockKHR */ 5056)]]
uint64_t ReadClock(uint scope);
[[vk::ext_instruction(/* Sin */ 13, "GLSL.std.450")]]
float4 spv_sin(float4 v);
[[vk::ext_instruction(/* FMin3AMD */ 1, "SPV_AMD_shader_trinary_minmax")]]
float FMin3AMD(float x, float y, float z);
[[vk::ext_extension("SPV_KHR_non_semantic_info")]]
[[vk::ext_instruction(1, "NonSemantic.DebugBreak")]]
void debugBreak();
float4 main(float4 v : COLOR) : SV_Position {
  float4 r = spv_sin(v);
  r.w = FMin3AMD(r.x, r.y, r.z) + float(ReadClock(vk::DeviceScope));
  debugBreak();
  return r;
}
"#;
    let args = ["-T", "vs_6_0", "-E", "main", "-spirv", "-fcgl", "-fspv-target-env=vulkan1.1"];
    let text = disassemble(&args, source);
    for expected in [
        "OpCapability ShaderClockKHR",
        "OpExtension \"SPV_KHR_shader_clock\"",
        "OpExtension \"SPV_KHR_non_semantic_info\"",
        "OpExtInstImport \"NonSemantic.DebugBreak\"",
        "OpExtInstImport \"SPV_AMD_shader_trinary_minmax\"",
        "OpReadClockKHR %ulong %uint_1",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    assert!(text.contains("Sin %"), "{text}");
    assert!(text.contains("FMin3AMD %"), "{text}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.1"]);
}

#[test]
fn raw_buffer_loads_and_stores_go_through_physical_pointers() {
    let source = "
struct Data { float f; float3 v; };
uint64_t Address;
[numthreads(1, 1, 1)]
void main() {
  float x = vk::RawBufferLoad<float>(Address);
  bool b = vk::RawBufferLoad<bool>(Address + 4, 4);
  Data d = vk::RawBufferLoad<Data>(Address, 16);
  d.f = x + (b ? 1.0 : 0.0);
  vk::RawBufferStore<Data>(Address + 32, d);
  vk::RawBufferStore<double>(Address + 64, 1.0, 8);
}
";
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv", "-fcgl"];
    let text = disassemble(&args, source);
    for expected in [
        "OpCapability PhysicalStorageBufferAddresses",
        "OpExtension \"SPV_KHR_physical_storage_buffer\"",
        "OpMemoryModel PhysicalStorageBuffer64 GLSL450",
        "OpMemberDecorate %Data_0 1 Offset 4",
        "OpLoad %float",
        "Aligned 4",
        "Aligned 16",
        "Aligned 8",
        "OpINotEqual %bool",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    assert!(text.contains("OpBitcast %_ptr_PhysicalStorageBuffer_Data_0"), "{text}");
    // dxc's relaxed std430 layout (a float3 at offset 4), as for storage buffers.
    let val = ["--target-env", "vulkan1.0", "--relax-block-layout"];
    assert_valid_binary(&args, source, &[&val[..], &["--before-hlsl-legalization"]].concat());
    // The default optimized output too.
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv"];
    assert_valid_binary(&args, source, &val);
}
