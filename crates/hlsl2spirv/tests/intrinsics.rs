//! Intrinsic functions as dxc generates them (`-fcgl`): the instruction sequences its
//! tests check, and every binary valid (when a validator is at hand).

mod common;

use common::run;
use std::path::PathBuf;

/// The disassembly of `source` compiled with `args` (and `-fcgl`).
fn compile(profile: &str, args: &[&str], source: &str) -> String {
    let mut all = vec!["-T", profile, "-E", "main", "-fcgl", "-spirv"];
    all.extend_from_slice(args);
    all.push("-");
    let out = run(&all, source);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    validate(profile, args, source);
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The error `source` gives.
fn error(profile: &str, args: &[&str], source: &str) -> String {
    let mut all = vec!["-T", profile, "-E", "main", "-fcgl", "-spirv"];
    all.extend_from_slice(args);
    all.push("-");
    let out = run(&all, source);
    assert_eq!(out.status.code(), Some(1), "{}", String::from_utf8_lossy(&out.stdout));
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A current spirv-val: `SPIRV_VAL`, or the repository's `.venv`.
fn validator() -> Option<PathBuf> {
    if let Some(p) = std::env::var_os("SPIRV_VAL") {
        return Some(PathBuf::from(p));
    }
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../.venv/bin/spirv-val");
    p.exists().then_some(p)
}

fn validate(profile: &str, args: &[&str], source: &str) {
    let Some(val) = validator() else {
        eprintln!("spirv-val not found (SPIRV_VAL or .venv): binaries not validated");
        return;
    };
    let dir = std::env::temp_dir().join(format!("spirvkit-intrinsics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = dir.join(format!("{:x}.spv", fxhash(source) ^ fxhash(&args.join(" "))));
    let file_s = file.to_string_lossy().into_owned();
    let mut all = vec!["-T", profile, "-E", "main", "-fcgl", "-spirv"];
    all.extend_from_slice(args);
    all.extend(["-Fo", &file_s, "-"]);
    let out = run(&all, source);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let env =
        args.iter().find_map(|a| a.strip_prefix("-fspv-target-env=")).unwrap_or("vulkan1.0").to_string();
    let v = std::process::Command::new(val)
        .args(["--target-env", &env, "--before-hlsl-legalization", &file_s])
        .output()
        .expect("spirv-val runs");
    assert!(
        v.status.success(),
        "invalid binary: {}{}",
        String::from_utf8_lossy(&v.stdout),
        String::from_utf8_lossy(&v.stderr)
    );
}

fn fxhash(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3))
}

/// The instructions of `text` with result ids and spacing dropped: `OpDPdx %v3float %5`
/// becomes `OpDPdx %v3float`, so sequences compare without numbering.
fn ops(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| {
            let l = l.trim();
            let l = l.split_once(" = ").map_or(l, |(_, r)| r);
            l.split_whitespace()
                .filter(|w| !w.starts_with('%') || !w[1..].starts_with(char::is_numeric))
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect()
}

fn assert_sequence(text: &str, expected: &[&str]) {
    let ops = ops(text);
    let found = ops.windows(expected.len()).any(|w| w.iter().zip(expected).all(|(a, b)| a == b));
    assert!(found, "{expected:#?} not in\n{text}");
}

#[test]
fn componentwise_intrinsics_go_row_by_row_on_matrices() {
    let text = compile(
        "ps_6_0",
        &[],
        "float4 main(float2x3 c : A, float2x3 d : B) : SV_Target {\n\
           float2x3 r = ddx(c) + fmod(c, d) + rcp(c);\n\
           bool2x3 n = isnan(c);\n\
           return r._m00 + n._m01; }",
    );
    assert_sequence(
        &text,
        &[
            "OpLoad %mat2v3float %c",
            "OpCompositeExtract %v3float 0",
            "OpDPdx %v3float",
            "OpCompositeExtract %v3float 1",
            "OpDPdx %v3float",
            "OpCompositeConstruct %mat2v3float",
        ],
    );
    assert!(text.contains("OpFRem %v3float"), "{text}");
    assert!(text.contains("OpIsNan %v3bool"), "{text}");
    assert!(text.contains("OpCompositeConstruct %_arr_v3bool_uint_2"), "{text}");
}

#[test]
fn out_parameter_intrinsics_store_through_their_arguments() {
    let text = compile(
        "vs_6_0",
        &[],
        "float4 main(float4 a : A) : SV_Position {\n\
           float4 s, c, ip, e;\n\
           sincos(a, s, c);\n\
           float4 f = modf(a, ip);\n\
           float4 m = frexp(a, e);\n\
           return s + c + f + ip + m + e; }",
    );
    assert_sequence(&text, &["OpLoad %v4float %a", "OpExtInst %v4float Sin", "OpStore %s"]);
    assert!(text.contains("ModfStruct"), "{text}");
    assert!(text.contains("FrexpStruct"), "{text}");
    assert!(text.contains("OpMemberName %ModfStructType 1 \"ip\""), "{text}");
}

#[test]
fn integer_matrices_multiply_by_dot_products() {
    let text = compile(
        "ps_6_0",
        &[],
        "int4 main(int2 v : A, int2x3 m : B, int3x2 n : C) : SV_Target {\n\
           int3 a = mul(v, m);\n\
           int2 b = mul(m, a);\n\
           int2x2 c = mul(m, n);\n\
           int2x3 d = mul(2, m);\n\
           return int4(a.x + b.y + c._m11 + d._m12, 0, 0, 0); }",
    );
    assert!(text.contains("OpIMul %int"), "{text}");
    assert!(text.contains("OpIAdd %int"), "{text}");
    assert!(text.contains("OpIMul %v3int"), "{text}");
    assert!(!text.contains("OpMatrixTimes"), "{text}");
}

#[test]
fn sign_of_unsigned_and_mad_as_dxc() {
    let text = compile(
        "vs_6_0",
        &[],
        "float4 main(uint3 u : A, int3 i : B, float f : C) : SV_Position {\n\
           int3 s = sign(u);\n\
           int3 m = mad(i, i, i);\n\
           return float4(s + m, mad(f, f, f)); }",
    );
    assert_sequence(&text, &["OpUGreaterThan %v3bool", "OpSelect %v3int"]);
    assert!(text.contains("OpDecorate") && text.contains("NoContraction"), "{text}");
}

#[test]
fn bit_intrinsics_on_wide_integers() {
    let text = compile(
        "vs_6_0",
        &[],
        "float4 main(uint64_t x : A, double d : B) : SV_Position {\n\
           uint lo, hi;\n\
           asuint(d, lo, hi);\n\
           return float4(countbits(x), lo, hi, asdouble(lo, hi)); }",
    );
    assert!(text.contains("OpShiftRightLogical %ulong"), "{text}");
    assert!(text.contains("OpBitCount %uint"), "{text}");
    assert!(text.contains("OpBitcast %v2uint"), "{text}");
    assert!(text.contains("OpBitcast %double"), "{text}");
}

#[test]
fn clip_kills_or_demotes_as_the_target_allows() {
    const CLIP: &str = "float4 main(float4 a : A) : SV_Target { clip(a); return a; }";
    let kill = compile("ps_6_0", &[], CLIP);
    assert!(kill.contains("OpKill"), "{kill}");
    let demote = compile("ps_6_0", &["-fspv-target-env=vulkan1.3"], CLIP);
    assert!(demote.contains("OpDemoteToHelperInvocation") && !demote.contains("OpKill"), "{demote}");
    let demote = compile("ps_6_0", &["-fspv-extension=SPV_EXT_demote_to_helper_invocation"], CLIP);
    assert!(demote.contains("OpDemoteToHelperInvocation"), "{demote}");
}

#[test]
fn intrinsics_without_a_vulkan_equivalent_are_errors_in_dxcs_words() {
    let e = error("ps_6_0", &[], "void main() {\n    abort();\n}");
    assert!(e.contains(":2:5: error: no equivalent for abort intrinsic function in Vulkan"), "{e}");
    let e = error("ps_6_0", &[], "uint main() : SV_Target { return GetRenderTargetSampleCount(); }");
    assert!(e.contains("no equivalent for GetRenderTargetSampleCount intrinsic function in Vulkan"), "{e}");
    let e = error(
        "cs_6_0",
        &[],
        "RWStructuredBuffer<uint> b;\n[numthreads(1,1,1)] void main() { b[0] = WaveIsFirstLane(); }",
    );
    assert!(e.contains("error: Vulkan 1.1 is required for Wave Operation but not permitted to use"), "{e}");
}

#[test]
fn wave_lane_builtins_declare_group_non_uniform() {
    let text = compile(
        "ps_6_0",
        &["-fspv-target-env=vulkan1.1"],
        "uint4 main() : SV_Target { return uint4(WaveGetLaneCount(), WaveGetLaneIndex(), QuadReadLaneAt(1u, 0), 0); }",
    );
    assert!(text.contains("OpCapability GroupNonUniform\n"), "{text}");
    assert!(text.contains("OpDecorate %SubgroupSize Flat"), "{text}");
    assert!(text.contains("OpGroupNonUniformQuadBroadcast %uint"), "{text}");
}

#[test]
fn vk_read_clock_takes_the_vk_scope_constants_and_declares_its_extension() {
    let text = compile(
        "vs_6_0",
        &[],
        "float4 main() : SV_Position {\n  uint s = vk::WorkgroupScope;\n  uint64_t c = vk::ReadClock(vk::SubgroupScope);\n  return float4(s, c, 0, 1);\n}",
    );
    assert!(text.contains("OpCapability ShaderClockKHR"), "{text}");
    assert!(text.contains("OpExtension \"SPV_KHR_shader_clock\""), "{text}");
    assert!(text.contains("OpStore %s %uint_2"), "{text}");
    assert!(text.contains("OpReadClockKHR %ulong %uint_3"), "{text}");
}

#[test]
fn modf_and_frexp_structs_share_dxcs_name_and_store_the_out_argument_first() {
    let text = compile(
        "vs_6_0",
        &[],
        "float4 main(float a : A, float4 b : B) : SV_Position {\n  float ia; float4 ib;\n  float fa = modf(a, ia);\n  float4 fb = modf(b, ib);\n  return fb + fa + ia + ib;\n}",
    );
    assert!(text.contains("OpName %ModfStructType \"ModfStructType\""), "{text}");
    assert!(text.contains("OpName %ModfStructType_0 \"ModfStructType\""), "{text}");
    let at = text.find("OpExtInst %ModfStructType ").expect("modf");
    let rest = &text[at..];
    let store = rest.find("OpStore %ia").expect("store");
    let frac = rest.find("OpCompositeExtract %float").map(|i| rest[i..].find(" 0\n").map(|j| i + j));
    assert!(frac.flatten().is_some_and(|f| f > store), "{text}");
}

#[test]
fn intrinsic_narrowing_warnings_name_parameters_as_template_instances() {
    let out = run(
        &["-T", "ps_6_2", "-E", "main", "-fcgl", "-spirv", "-"],
        "float2 main(double2 b : B) : SV_Target { return ddx(b); }",
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("conversion from larger type 'double2' to smaller type 'vector<float, 2>'"),
        "{stderr}"
    );
}

#[test]
fn quad_ops_in_compute_use_the_current_grammars_names() {
    let text = compile(
        "cs_6_0",
        &["-fspv-target-env=vulkan1.1"],
        "RWStructuredBuffer<uint> b;\n[numthreads(32,1,1)] void main(uint3 id : SV_DispatchThreadID) { b[0] = QuadReadAcrossX(id.x); }",
    );
    assert!(text.contains("OpCapability ComputeDerivativeGroupLinearKHR"), "{text}");
    assert!(text.contains("OpExecutionMode %main DerivativeGroupLinearKHR"), "{text}");
}

/// `select` takes one shape for the condition and the values: a vector condition
/// selects per component from scalars (Wicked Engine's SSR raytracing did this).
#[test]
fn select_of_a_vector_condition_and_scalars_selects_a_vector() {
    let source = "RWStructuredBuffer<int2> o;\n\
                  [numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
                    bool2 c = bool2(id.x > 1, id.y > 2);\n\
                    o[0] = select(c, 1, 2);\n\
                  }";
    let text = compile("cs_6_0", &[], source);
    assert!(text.contains("OpSelect %v2int"), "{text}");
    validate("cs_6_0", &[], source);
}

#[test]
fn select_of_a_scalar_condition_on_matrices_branches_through_a_temporary() {
    let text = compile(
        "ps_6_0",
        &["-HV", "2021"],
        "float4 main(int c : A, float2x3 u : B, float2x3 v : C, float f : D) : SV_Target {\n\
           float2x3 m = select(c, u, v);\n\
           int3 w = select(f, int3(1, 2, 3), int3(4, 5, 6));\n\
           return m._m00 + w.x; }",
    );
    assert_sequence(&text, &["OpINotEqual %bool %int_0", "OpLoad %mat2v3float %u", "OpLoad %mat2v3float %v"]);
    assert!(text.contains("%temp_var_ternary = OpVariable %_ptr_Function_mat2v3float Function"), "{text}");
    // A scalar condition becomes a bool before it is splat.
    assert_sequence(&text, &["OpFOrdNotEqual %bool %float_0", "OpCompositeConstruct %v3bool"]);
}

#[test]
fn select_of_literals_wider_than_32_bits_selects_64_bit_integers() {
    let text = compile(
        "ps_6_0",
        &[],
        "float4 main(bool c : A) : SV_Target { double d = select(c, 3000000000, 4000000000);\n\
           return (float)d; }",
    );
    assert_sequence(&text, &["OpSelect %long %long_3000000000 %long_4000000000", "OpConvertSToF %double"]);
}

#[test]
fn asuint_of_a_double_matrix_splits_every_element() {
    let text =
        compile("vs_6_0", &[], "void main() { double2x2 v; uint2x2 lo; uint2x2 hi; asuint(v, lo, hi); }");
    assert_sequence(
        &text,
        &[
            "OpLoad %mat2v2double %v",
            "OpCompositeExtract %v2double 0",
            "OpCompositeExtract %double 0",
            "OpBitcast %v2uint",
            "OpCompositeExtract %uint 0",
            "OpCompositeExtract %uint 1",
        ],
    );
    assert_sequence(
        &text,
        &[
            "OpCompositeConstruct %_arr_v2uint_uint_2",
            "OpCompositeConstruct %_arr_v2uint_uint_2",
            "OpStore %lo",
            "OpStore %hi",
        ],
    );
}

#[test]
fn asdouble_of_constants_constructs_its_pair() {
    let text = compile("vs_6_0", &[], "void main() { double a = asdouble(1u, 2u); }");
    assert_sequence(&text, &["OpCompositeConstruct %v2uint %uint_1 %uint_2", "OpBitcast %double"]);
}

#[test]
fn isnormal_of_a_matrix_tests_the_exponent_row_by_row() {
    let text = compile("ps_6_0", &[], "void main() { float2x3 c; bool2x3 n = isnormal(c); }");
    assert_sequence(
        &text,
        &[
            "OpCompositeExtract %v3float 0",
            "OpBitcast %v3uint",
            "OpBitwiseAnd %v3uint",
            "OpINotEqual %v3bool",
            "OpINotEqual %v3bool",
            "OpLogicalAnd %v3bool",
            "OpCompositeExtract %v3float 1",
        ],
    );
}

#[test]
fn byte_address_atomics_take_literals_as_uint_and_bools_are_stored_after_addressing() {
    let text = compile(
        "ps_6_0",
        &[],
        "RWByteAddressBuffer foo;\n\
         void main() { float bar; foo.InterlockedAdd(16, 42, bar); bool b = bar > 0; foo.Store(0, b); }",
    );
    assert_sequence(&text, &["OpAtomicIAdd %uint %uint_1 %uint_0 %uint_42", "OpConvertUToF %float"]);
    assert_sequence(
        &text,
        &[
            "OpShiftRightLogical %uint %uint_0 %uint_2",
            "OpAccessChain %_ptr_Uniform_uint %foo %uint_0",
            "OpSelect %uint %uint_1 %uint_0",
        ],
    );
}

#[test]
fn globallycoherent_resources_are_coherent() {
    let text = compile(
        "ps_6_0",
        &[],
        "globallycoherent RWByteAddressBuffer a; RWByteAddressBuffer b; globallycoherent RWTexture2D<float> t;\n\
         void main() { b.Store(0, a.Load(0)); t[uint2(0, 0)] = 1; }",
    );
    assert!(text.contains("OpDecorate %a Coherent"), "{text}");
    assert!(text.contains("OpDecorate %t Coherent"), "{text}");
    assert!(!text.contains("OpDecorate %b Coherent"), "{text}");
}

/// The opcodes of the instructions whose result `text` decorates `NonUniform`, in
/// definition order.
fn non_uniform_opcodes(text: &str) -> Vec<String> {
    let decorated: std::collections::HashSet<&str> = text
        .lines()
        .filter_map(|l| l.trim().strip_prefix("OpDecorate ")?.strip_suffix(" NonUniform"))
        .collect();
    text.lines()
        .filter_map(|l| {
            let (id, rest) = l.trim().split_once(" = ")?;
            decorated.contains(id).then(|| rest.split_whitespace().next().unwrap_or("").to_string())
        })
        .collect()
}

const NON_UNIFORM: &str = "Texture2D t[4]; SamplerState s[4]; RWStructuredBuffer<float4> b[4];\n\
     Buffer<float4> tb[4];\n\
     float4 main(uint i : A, float2 uv : B) : SV_Target {\n\
       float4 r = t[NonUniformResourceIndex(i)].Sample(s[NonUniformResourceIndex(i + 1)], uv);\n\
       r += b[NonUniformResourceIndex(i) % 3][0];\n\
       r += tb[NonUniformResourceIndex(i)][2];\n\
       return r + t[i].Sample(s[0], uv);\n\
     }";

#[test]
fn non_uniform_resource_index_decorates_the_index_chain_load_and_sampled_image() {
    let text = compile("ps_6_0", &[], NON_UNIFORM);
    for capability in [
        "ShaderNonUniform",
        "SampledImageArrayNonUniformIndexing",
        "StorageBufferArrayNonUniformIndexing",
        "UniformTexelBufferArrayNonUniformIndexing",
    ] {
        assert!(text.contains(&format!("OpCapability {capability}\n")), "{capability}: {text}");
    }
    assert!(!text.contains("StorageImageArrayNonUniformIndexing"), "{text}");
    assert!(text.contains("OpExtension \"SPV_EXT_descriptor_indexing\""), "{text}");
    let decorated = non_uniform_opcodes(&text);
    let count = |op: &str| decorated.iter().filter(|o| *o == op).count();
    // The index copies, the modulo computed from one, the chains into the four
    // arrays (and the one into the buffer's element), the loads through them and the
    // sampled image; not the uniform `t[i]` / `s[0]` nor the image operations.
    assert_eq!(count("OpCopyObject"), 4, "{decorated:?}\n{text}");
    assert_eq!(count("OpUMod"), 1, "{decorated:?}");
    assert_eq!(count("OpSampledImage"), 1, "{decorated:?}");
    assert!(count("OpAccessChain") >= 4, "{decorated:?}");
    assert!(count("OpLoad") >= 4, "{decorated:?}");
    assert!(
        !decorated.iter().any(|o| o.starts_with("OpImageSample") || o == "OpImageFetch"),
        "{decorated:?}"
    );
}

#[test]
fn non_uniform_decorations_survive_legalization() {
    let args = ["-T", "ps_6_0", "-E", "main", "-spirv"];
    let text = common::disassemble(&args, NON_UNIFORM);
    let decorated = non_uniform_opcodes(&text);
    let count = |op: &str| decorated.iter().filter(|o| *o == op).count();
    // One chain into each of the four descriptor arrays, the descriptors' loads (the
    // structured buffer's load reads its element through the chain) and the sampled
    // image.
    assert!(count("OpAccessChain") >= 4, "{decorated:?}\n{text}");
    assert!(count("OpLoad") >= 4, "{decorated:?}\n{text}");
    assert_eq!(count("OpSampledImage"), 1, "{decorated:?}\n{text}");
    assert!(text.contains("OpCapability ShaderNonUniform\n"), "{text}");
    common::assert_valid_binary(&args, NON_UNIFORM, &["--target-env", "vulkan1.0"]);
}

#[test]
fn descriptor_indexing_is_core_from_spirv_1_5() {
    let text = compile("ps_6_0", &["-fspv-target-env=vulkan1.2"], NON_UNIFORM);
    assert!(text.contains("OpCapability ShaderNonUniform\n"), "{text}");
    assert!(!text.contains("SPV_EXT_descriptor_indexing"), "{text}");
}
