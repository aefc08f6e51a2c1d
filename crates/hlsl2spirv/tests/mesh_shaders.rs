//! Mesh and amplification shaders (SPV_EXT_mesh_shader): execution modes, the output
//! arrays written straight into their stage variables, per-primitive decorations, the
//! task payload and `DispatchMesh`; NV targets refused. Each binary is validated when a
//! current spirv-val is at hand.

mod common;

use common::{assert_valid_binary, disassemble, run};

const MESH: &str = "struct V { float4 pos : SV_Position; float3 color : COLOR; float clip : SV_ClipDistance0; };\n\
struct P { uint layer : SV_RenderTargetArrayIndex; bool cull : SV_CullPrimitive; nointerpolation uint id : ID; };\n\
struct Payload { uint base; uint items[4]; };\n\
[outputtopology(\"triangle\")]\n\
[numthreads(32, 1, 1)]\n\
void main(uint tid : SV_GroupThreadID, in payload Payload pld,\n\
          out indices uint3 tris[16], out vertices V verts[8], out primitives P prims[16]) {\n\
  SetMeshOutputCounts(8, 16);\n\
  V v;\n\
  v.pos = float4(tid, 0, 0, 1);\n\
  v.color = float3(1, 0, 0);\n\
  v.clip = 1.0;\n\
  verts[tid] = v;\n\
  verts[tid].pos.yw = float2(2, 3);\n\
  verts[tid].color[1] = 0.5;\n\
  tris[tid] = uint3(0, 1, 2) + pld.base;\n\
  tris[tid].z = pld.items[tid % 4];\n\
  prims[tid].layer = 1;\n\
  prims[tid].cull = tid > 3;\n\
  prims[tid].id = pld.base;\n\
}\n";

fn args(target: &str) -> Vec<String> {
    ["-T", "ms_6_5", "-E", "main", "-spirv", &format!("-fspv-target-env={target}")]
        .iter()
        .map(|s| s.to_string())
        .collect()
}

#[test]
fn mesh_outputs_are_written_in_place_with_ext_mesh_shader() {
    let a = args("vulkan1.3");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let cgl: Vec<&str> = a.iter().copied().chain(["-fcgl"]).collect();
    let text = disassemble(&cgl, MESH);
    for wanted in [
        "OpCapability MeshShadingEXT",
        "OpExtension \"SPV_EXT_mesh_shader\"",
        "OpEntryPoint MeshEXT %main \"main\"",
        "OpExecutionMode %main LocalSize 32 1 1",
        "OpExecutionMode %main OutputVertices 8",
        "OpExecutionMode %main OutputPrimitivesEXT 16",
        "BuiltIn PrimitiveTriangleIndicesEXT",
        "OpDecorate %gl_Layer PerPrimitiveEXT",
        "OpDecorate %out_var_ID PerPrimitiveEXT",
        "OpDecorate %out_var_ID Flat",
        "BuiltIn CullPrimitiveEXT",
        "%in_var_pld = OpVariable %_ptr_TaskPayloadWorkgroupEXT_Payload TaskPayloadWorkgroupEXT",
        "%gl_Position = OpVariable %_ptr_Output__arr_v4float_uint_8 Output",
        "OpSetMeshOutputsEXT %uint_8 %uint_16",
        // Swizzled parts go component by component into the built-in at the element.
        "OpAccessChain %_ptr_Output_float %gl_Position",
        "OpAccessChain %_ptr_Output_v3uint",
        "OpAccessChain %_ptr_Output_uint",
    ] {
        assert!(text.contains(wanted), "missing `{wanted}` in:\n{text}");
    }
    // The wrapper never copies its `param.var.*` arrays out.
    assert!(!text.contains("OpLoad %_arr_V"), "{text}");
    // CullPrimitiveEXT is a bool array (Vulkan), the int written converted.
    assert!(text.contains("OpTypePointer Output %_arr_bool_uint_16"), "{text}");
    for level in [&cgl[..], &a[..]] {
        assert_valid_binary(level, MESH, &["--target-env", "vulkan1.3"]);
    }
}

#[test]
fn amplification_payload_lives_in_task_payload_storage_and_dispatch_ends_the_invocation() {
    let src = "struct Payload { uint ids[32]; };\n\
        groupshared Payload pld;\n\
        [numthreads(32, 1, 1)]\n\
        void main(uint tid : SV_GroupIndex) {\n\
          pld.ids[tid] = tid;\n\
          if (tid == 0) { pld.ids[0] = 7; }\n\
          DispatchMesh(tid + 1, 1, 1, pld);\n\
        }\n";
    let a = ["-T", "as_6_5", "-E", "main", "-spirv", "-fspv-target-env=vulkan1.1spirv1.4"];
    let cgl: Vec<&str> = a.iter().copied().chain(["-fcgl"]).collect();
    let text = disassemble(&cgl, src);
    for wanted in [
        "OpEntryPoint TaskEXT %main \"main\"",
        "%pld = OpVariable %_ptr_TaskPayloadWorkgroupEXT_Payload TaskPayloadWorkgroupEXT",
        "OpControlBarrier %uint_2 %uint_2 %uint_264",
    ] {
        assert!(text.contains(wanted), "missing `{wanted}` in:\n{text}");
    }
    // OpEmitMeshTasksEXT ends its block: nothing follows it there.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let at = lines.iter().position(|l| l.starts_with("OpEmitMeshTasksEXT")).expect("OpEmitMeshTasksEXT");
    assert!(lines[at].ends_with("%pld"), "{}", lines[at]);
    assert_eq!(lines.get(at + 1).copied(), Some("OpFunctionEnd"), "{text}");
    for level in [&cgl[..], &a[..]] {
        assert_valid_binary(level, src, &["--target-env", "vulkan1.1spv1.4"]);
    }
}

#[test]
fn derivatives_in_a_mesh_shader_take_a_derivative_group() {
    let src = "struct V { float4 pos : SV_Position; };\n\
        [numthreads(4, 1, 1)]\n\
        [outputtopology(\"triangle\")]\n\
        void main(uint tid : SV_GroupThreadID, out vertices V verts[3], out indices uint3 tris[1]) {\n\
          SetMeshOutputCounts(3, 1);\n\
          verts[tid % 3].pos = ddx_coarse(float4(tid, 0, 0, 0));\n\
          tris[0] = uint3(0, 1, 2);\n\
        }\n";
    let a = ["-T", "ms_6_5", "-E", "main", "-spirv", "-fspv-target-env=vulkan1.3"];
    let text = disassemble(&a, src);
    assert!(text.contains("OpExecutionMode %main DerivativeGroupLinear"), "{text}");
    assert_valid_binary(&a, src, &["--target-env", "vulkan1.3"]);
}

#[test]
fn nv_mesh_shading_and_reading_mesh_outputs_are_refused() {
    let nv = run(&["-T", "ms_6_5", "-E", "main", "-spirv", "-"], MESH);
    assert!(!nv.status.success());
    let err = String::from_utf8_lossy(&nv.stderr);
    assert!(err.contains("not supported yet: mesh shaders with SPV_NV_mesh_shader"), "{err}");
    let reads = "struct V { float4 pos : SV_Position; };\n\
        [numthreads(1, 1, 1)]\n\
        [outputtopology(\"triangle\")]\n\
        void main(out vertices V verts[3], out indices uint3 tris[1]) {\n\
          SetMeshOutputCounts(3, 1);\n\
          verts[0].pos = 1;\n\
          verts[1].pos = verts[0].pos;\n\
        }\n";
    let out = run(&["-T", "ms_6_5", "-E", "main", "-spirv", "-fspv-target-env=vulkan1.3", "-"], reads);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not supported yet: reading a mesh shader output"), "{err}");
}
