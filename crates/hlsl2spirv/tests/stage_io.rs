//! Stage I/O of the graphics stages (geometry streams, hull shaders with their patch
//! constant function, domain shaders, clip distances): the disassembly has dxc's
//! shape and, when a validator is at hand (`SPIRV_VAL`), the binary is valid.

mod common;

use common::run;
use std::process::Command;

/// The disassembly of `source` compiled with `args` (`-fcgl`), after checking that
/// the binary validates.
fn compile(args: &[&str], source: &str) -> String {
    let mut all = args.to_vec();
    all.extend(["-spirv", "-fcgl", "-"]);
    let out = run(&all, source);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    if let Ok(validator) = std::env::var("SPIRV_VAL") {
        let path =
            std::env::temp_dir().join(format!("stage_io_{}_{}.spv", std::process::id(), args.join("_")));
        let path_text = path.to_string_lossy().to_string();
        let mut with_output = all.clone();
        with_output.extend(["-Fo", &path_text]);
        assert!(run(&with_output, source).status.success());
        let v = Command::new(validator)
            .args(["--target-env", "vulkan1.0", "--before-hlsl-legalization", &path_text])
            .output()
            .expect("spirv-val runs");
        assert!(v.status.success(), "{}", String::from_utf8_lossy(&v.stderr));
        let _ = std::fs::remove_file(path);
    } else {
        eprintln!("SPIRV_VAL not set: validity not checked");
    }
    String::from_utf8_lossy(&out.stdout).to_string()
}

fn assert_has(text: &str, needles: &[&str]) {
    for n in needles {
        assert!(text.contains(n), "missing `{n}` in\n{text}");
    }
}

#[test]
fn geometry_shader_streams_emit_vertices_and_read_per_vertex_arrays() {
    let source = r#"
struct Out { float4 pos : SV_Position; float3 color : COLOR; };
[maxvertexcount(2)]
[instance(3)]
void main(line float4 pos[2] : SV_Position, uint id : SV_GSInstanceID, inout LineStream<Out> stream) {
  Out o;
  o.pos = pos[0];
  o.color = float3(id, 0, 1);
  stream.Append(o);
  stream.RestartStrip();
}
"#;
    let dis = compile(&["-T", "gs_6_0", "-E", "main"], source);
    assert_has(
        &dis,
        &[
            "OpExecutionMode %main InputLines",
            "OpExecutionMode %main OutputVertices 2",
            "OpExecutionMode %main Invocations 3",
            "OpExecutionMode %main OutputLineStrip",
            "%gl_Position = OpVariable %_ptr_Input__arr_v4float_uint_2 Input",
            "%gl_Position_0 = OpVariable %_ptr_Output_v4float Output",
            "OpEmitVertex",
            "OpEndPrimitive",
        ],
    );
}

#[test]
fn hull_shader_runs_the_patch_constant_function_on_invocation_zero() {
    let source = r#"
struct CP { float3 pos : POS; };
struct PC { float edges[3] : SV_TessFactor; float inside : SV_InsideTessFactor; float3 extra : EXTRA; };
PC Constants(InputPatch<CP, 3> ip, uint id : SV_PrimitiveID) {
  PC o;
  o.edges[0] = 1; o.edges[1] = 2; o.edges[2] = 3;
  o.inside = 4;
  o.extra = ip[0].pos;
  return o;
}
[domain("tri")]
[partitioning("fractional_odd")]
[outputtopology("triangle_cw")]
[outputcontrolpoints(3)]
[patchconstantfunc("Constants")]
CP main(InputPatch<CP, 3> ip, uint i : SV_OutputControlPointID, uint id : SV_PrimitiveID) {
  return ip[i];
}
"#;
    let dis = compile(&["-T", "hs_6_0", "-E", "main"], source);
    assert_has(
        &dis,
        &[
            "OpExecutionMode %main Triangles",
            "OpExecutionMode %main SpacingFractionalOdd",
            "OpExecutionMode %main VertexOrderCw",
            "OpExecutionMode %main OutputVertices 3",
            "OpDecorate %gl_TessLevelOuter Patch",
            "%gl_TessLevelOuter = OpVariable %_ptr_Output__arr_float_uint_4 Output",
            "%gl_TessLevelInner = OpVariable %_ptr_Output__arr_float_uint_2 Output",
            "%in_var_POS = OpVariable %_ptr_Input__arr_v3float_uint_3 Input",
            "%out_var_POS = OpVariable %_ptr_Output__arr_v3float_uint_3 Output",
            "OpDecorate %out_var_EXTRA Patch",
            "OpControlBarrier %uint_2 %uint_4 %uint_0",
            "OpFunctionCall %PC %Constants %param_var_ip %param_var_id",
            "OpAccessChain %_ptr_Output_float %gl_TessLevelOuter %uint_2",
        ],
    );
}

#[test]
fn domain_shader_reads_tess_coord_and_patch_constants() {
    let source = r#"
struct CP { float3 pos : POS; };
struct PC { float edges[4] : SV_TessFactor; float inside[2] : SV_InsideTessFactor; float3 extra : EXTRA; };
[domain("quad")]
float4 main(PC pc, float2 uv : SV_DomainLocation, const OutputPatch<CP, 4> patch) : SV_Position {
  return float4(patch[0].pos * uv.x + pc.extra, pc.edges[1]);
}
"#;
    let dis = compile(&["-T", "ds_6_0", "-E", "main"], source);
    assert_has(
        &dis,
        &[
            "OpExecutionMode %main Quads",
            "%gl_TessCoord = OpVariable %_ptr_Input_v3float Input",
            "%gl_TessLevelOuter = OpVariable %_ptr_Input__arr_float_uint_4 Input",
            "OpDecorate %in_var_EXTRA Patch",
            "%in_var_POS = OpVariable %_ptr_Input__arr_v3float_uint_4 Input",
        ],
    );
}

#[test]
fn clip_distances_share_one_array_in_semantic_index_order() {
    let source = r#"
struct Out {
  float4 pos : SV_Position;
  float2 clip1 : SV_ClipDistance1;
  float clip0 : SV_ClipDistance0;
  float cull : SV_CullDistance;
};
Out main(float4 p : POSITION) {
  Out o = (Out)0;
  o.pos = p;
  return o;
}
"#;
    let dis = compile(&["-T", "vs_6_0", "-E", "main"], source);
    assert_has(
        &dis,
        &[
            "OpCapability ClipDistance",
            "OpCapability CullDistance",
            "%gl_ClipDistance = OpVariable %_ptr_Output__arr_float_uint_3 Output",
            "%gl_CullDistance = OpVariable %_ptr_Output__arr_float_uint_1 Output",
            // clip0 at offset 0, clip1 at offsets 1 and 2.
            "OpAccessChain %_ptr_Output_float %gl_ClipDistance %uint_2",
        ],
    );
}

#[test]
fn bool_stage_variables_travel_as_uint() {
    let source = r#"
struct V { float4 pos : SV_Position; bool flag : FLAG; };
struct PC { float edges[2] : SV_TessFactor; };
PC Constants() { PC o; o.edges[0] = 1; o.edges[1] = 1; return o; }
[domain("isoline")]
[partitioning("integer")]
[outputtopology("line")]
[outputcontrolpoints(2)]
[patchconstantfunc("Constants")]
V main(InputPatch<V, 2> ip, uint i : SV_OutputControlPointID) { return ip[i]; }
"#;
    let dis = compile(&["-T", "hs_6_0", "-E", "main"], source);
    assert_has(
        &dis,
        &["%in_var_FLAG = OpVariable %_ptr_Input__arr_uint_uint_2 Input", "OpExecutionMode %main Isolines"],
    );
}

#[test]
fn a_struct_member_with_a_semantic_numbers_its_leaves_and_each_takes_its_locations() {
    let text = compile(
        // A profile no other test here uses: the validated binary's file is named
        // by the arguments, and tests run in parallel.
        &["-T", "vs_6_1", "-E", "main"],
        "struct S { float4x3 m; float4 o; };\n\
         struct VI { float3 p : POSITION; S s : TEXCOORD4; float4 c : COLOR; };\n\
         float4 main(VI v) : SV_Position { return v.s.o + v.c + v.s.m[0].x; }",
    );
    assert_has(
        &text,
        &[
            "OpDecorate %in_var_TEXCOORD4 Location 1",
            "OpDecorate %in_var_TEXCOORD5 Location 5",
            "OpDecorate %in_var_COLOR Location 6",
        ],
    );
}
