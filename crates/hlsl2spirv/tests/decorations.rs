//! Decorations and intrinsics that follow dxc's rules rather than one instruction:
//! `precise` (NoContraction on what a precise value is computed from), `-fspv-reflect`
//! (UserSemantic, CounterBuffer, UserTypeGOOGLE), SV_Barycentrics and msad4. Each
//! binary is also checked with a current spirv-val when one is at hand.

mod common;

use common::{assert_valid_binary, disassemble};

/// The ids of the values decorated `NoContraction`.
fn no_contraction_ids(dis: &str) -> Vec<String> {
    dis.lines()
        .filter_map(|l| l.trim().strip_prefix("OpDecorate "))
        .filter(|l| l.ends_with(" NoContraction"))
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_string())
        .collect()
}

/// The opcode defining `id` (`OpFMul`).
fn opcode_of(dis: &str, id: &str) -> String {
    let prefix = format!("{id} = ");
    dis.lines()
        .find_map(|l| {
            l.trim().strip_prefix(&prefix).map(|r| r.split_whitespace().next().unwrap_or("").to_string())
        })
        .unwrap_or_default()
}

#[test]
fn precise_reaches_what_a_precise_variable_is_computed_from_and_no_further() {
    let source = r#"
float helper(float e, float f) { return e * f; }
float4 main(float4 a : A, float4 b : B) : SV_Target {
  float3 r = (float3)a * (float3)b;
  precise float4 v;
  v.xyz = r + 1;
  v.w = helper(a.w, b.w);
  float q = a.x * b.x;
  return v + q;
}
"#;
    let args = ["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"];
    let dis = disassemble(&args, source);
    let ids = no_contraction_ids(&dis);
    let ops: Vec<String> = ids.iter().map(|id| opcode_of(&dis, id)).collect();
    // r's multiply (stored to r, loaded for v.xyz) and the add stored to v; not the
    // multiply inside helper (precise does not cross into callees) nor `q`'s.
    assert_eq!(ops, ["OpFMul", "OpFAdd"], "{dis}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
}

#[test]
fn precise_parameters_fields_and_results_reach_their_arguments_and_stores() {
    let source = r#"
struct S { float4 a; precise float4 ap; };
precise float4 keep(precise float4 v) { return v; }
float twice(float i, precise out float k) { k = i * i; return 1.0; }
float4 main(float4 x : A) : SV_Target {
  S s;
  s.a = x * x;
  s.ap = x * 2;
  float k;
  twice(x.y + 1, k);
  return keep(x * 3) + s.a + s.ap + k;
}
"#;
    let args = ["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"];
    let dis = disassemble(&args, source);
    let mut ops: Vec<String> = no_contraction_ids(&dis).iter().map(|id| opcode_of(&dis, id)).collect();
    ops.sort();
    // s.ap's multiply, `x.y + 1` (passed to twice's i, which feeds precise k),
    // `x * 3` (keep's precise parameter) and `i * i` in twice; not s.a's multiply nor
    // the sums returned.
    assert_eq!(ops, ["OpFAdd", "OpFMul", "OpFMul", "OpFMul"], "{dis}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
}

#[test]
fn reflection_names_semantics_user_types_and_counters() {
    let source = r#"
struct S { float4 f; };
AppendStructuredBuffer<S> app;
Texture2DMSArray<float4, 64> ms;
Texture2D plain;
cbuffer Params { float4 scale; };
float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD3) : SV_Target {
  S s; s.f = pos * scale;
  app.Append(s);
  return ms.Load(int3(uv, 0), 0) + plain.Load(int3(0, 0, 0));
}
"#;
    let args = ["-T", "ps_6_0", "-E", "main", "-fspv-reflect", "-fcgl", "-spirv"];
    let dis = disassemble(&args, source);
    for needle in [
        "OpExtension \"SPV_GOOGLE_hlsl_functionality1\"",
        "OpExtension \"SPV_GOOGLE_user_type\"",
        "OpDecorateString %gl_FragCoord UserSemantic \"SV_Position\"",
        "OpDecorateString %in_var_TEXCOORD3 UserSemantic \"TEXCOORD3\"",
        "OpDecorateString %out_var_SV_Target UserSemantic \"SV_Target\"",
        "OpDecorateId %app CounterBuffer %counter_var_app",
        "OpDecorateString %app UserTypeGOOGLE \"appendstructuredbuffer:<S>\"",
        "OpDecorateString %ms UserTypeGOOGLE \"texture2dmsarray:<float4,64>\"",
        "OpDecorateString %plain UserTypeGOOGLE \"texture2d\"",
        "OpDecorateString %Params UserTypeGOOGLE \"cbuffer\"",
    ] {
        assert!(dis.contains(needle), "missing `{needle}` in\n{dis}");
    }
    assert!(!dis.contains("SPV_GOOGLE_decorate_string"), "{dis}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
    // Without the option, none of it.
    let plain = disassemble(&["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"], source);
    assert!(!plain.contains("GOOGLE") && !plain.contains("CounterBuffer"), "{plain}");
}

#[test]
fn barycentrics_pick_the_built_in_by_perspective_and_rebuild_the_third_weight() {
    let source = r#"
float4 main(noperspective centroid float3 b : SV_Barycentrics, sample float3 c : SV_Barycentrics1) : SV_Target {
  return float4(b + c, 1.0);
}
"#;
    let args = ["-T", "ps_6_1", "-E", "main", "-fcgl", "-spirv"];
    let dis = disassemble(&args, source);
    for needle in [
        "BuiltIn BaryCoordNoPerspKHR",
        "BuiltIn BaryCoordKHR",
        "Centroid",
        "Sample",
        "OpFSub %float %float_1",
    ] {
        assert!(dis.contains(needle), "missing `{needle}` in\n{dis}");
    }
    assert!(!dis.contains("NoPerspective"), "{dis}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
}

#[test]
fn msad4_sums_masked_byte_differences_of_four_windows() {
    let source = r#"
uint4 main(uint r : REF, uint2 s : SRC, uint4 acc : ACC) : SV_Target { return msad4(r, s, acc); }
"#;
    let args = ["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"];
    let dis = disassemble(&args, source);
    let count = |op: &str| dis.lines().filter(|l| l.contains(op)).count();
    assert_eq!(count("OpBitFieldInsert"), 3, "{dis}");
    assert_eq!(count("SAbs"), 16, "{dis}");
    assert_eq!(count("OpSelect %uint"), 16, "{dis}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
}

#[test]
fn a_precise_field_alone_makes_what_is_stored_to_it_precise() {
    let source = r#"
struct S { float4 a; precise float4 ap; };
float4 main(float4 x : A) : SV_Target {
  S s;
  s.a = x * x;
  s.ap = x + x;
  return s.a + s.ap;
}
"#;
    let args = ["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"];
    let dis = disassemble(&args, source);
    let ops: Vec<String> = no_contraction_ids(&dis).iter().map(|id| opcode_of(&dis, id)).collect();
    // The add stored to `ap`, not the multiply stored to `a` nor the sum returned.
    assert_eq!(ops, ["OpFAdd"], "{dis}");
    let add = &no_contraction_ids(&dis)[0];
    let stored =
        dis.lines().any(|l| l.trim().starts_with("OpStore ") && l.trim().ends_with(&format!(" {add}")));
    assert!(stored, "the decorated add is the stored one:\n{dis}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
}
