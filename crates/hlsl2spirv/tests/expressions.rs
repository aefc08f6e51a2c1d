//! Expressions and statements in dxc's raw (`-fcgl`) shapes: short-circuit operators,
//! temporaries, constant folding and loop headers. Each test checks the disassembly
//! dxc's tests check, and that the legalized binary is valid for the current spirv-val
//! (skipped with a message when the project's `.venv` validator is absent).

mod common;

/// The disassembly of `source` compiled with `args`.
fn compile(args: &[&str], source: &str) -> String {
    common::disassemble(args, source)
}

/// Compiles `source` (legalized) to a binary and checks it with spirv-val.
fn assert_valid(args: &[&str], source: &str) {
    common::assert_valid_binary(args, source, &["--target-env", "vulkan1.0"]);
}

/// The lines of `text` from the first containing `from`, trimmed, for CHECK-NEXT-like
/// comparisons.
fn lines_from<'a>(text: &'a str, from: &str) -> Vec<&'a str> {
    let all: Vec<&str> = text.lines().map(str::trim).collect();
    let start =
        all.iter().position(|l| l.contains(from)).unwrap_or_else(|| panic!("no `{from}` in:\n{text}"));
    all[start..].to_vec()
}

/// Asserts that `expected` appear in this order, each on the line after the previous.
fn assert_consecutive(text: &str, expected: &[&str]) {
    let lines = lines_from(text, expected[0]);
    for (i, want) in expected.iter().enumerate() {
        let got = lines.get(i).copied().unwrap_or("<end>");
        assert!(got.contains(want), "line {i}: expected `{want}`, got `{got}` in:\n{text}");
    }
}

const PS_2021: [&str; 7] = ["-T", "ps_6_0", "-E", "main", "-HV", "2021", "-fcgl"];
const PS_2018: [&str; 7] = ["-T", "ps_6_0", "-E", "main", "-HV", "2018", "-fcgl"];

const LOGICAL: &str = r#"
float4 main(float4 c : COLOR) : SV_Target {
    bool a = c.x > 0, b = c.y > 0;
    bool x = a && b;
    bool y = a || b;
    return x && !y ? c : 0;
}
"#;

#[test]
fn scalar_logical_operators_short_circuit_from_hlsl_2021() {
    let text = compile(&PS_2021, LOGICAL);
    assert!(text.contains("%temp_var_logical = OpVariable %_ptr_Function_bool Function"), "{text}");
    // a && b: false unless a, then b.
    assert_consecutive(
        &text,
        &[
            "OpStore %temp_var_logical %false",
            "OpSelectionMerge %logical_merge None",
            "OpBranchConditional",
            "%logical_lhs_cond = OpLabel",
            "OpLoad %bool %b",
            "OpStore %temp_var_logical",
            "OpBranch %logical_merge",
            "%logical_merge = OpLabel",
            "OpLoad %bool %temp_var_logical",
        ],
    );
    // a || b: true unless !a.
    assert_consecutive(
        &text,
        &[
            "OpStore %temp_var_logical_0 %true",
            "OpLogicalNot %bool",
            "OpSelectionMerge %logical_merge_0 None",
        ],
    );
    assert!(!text.contains("OpLogicalAnd"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main", "-HV", "2021"], LOGICAL);
}

#[test]
fn logical_operators_before_2021_evaluate_both_sides() {
    let text = compile(&PS_2018, LOGICAL);
    assert!(text.contains("OpLogicalAnd %bool"), "{text}");
    assert!(text.contains("OpLogicalOr %bool"), "{text}");
    assert!(!text.contains("logical_lhs_cond"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main", "-HV", "2018"], LOGICAL);
}

const TERNARY: &str = r#"
bool fn1() { return false; }
bool fn2() { return true; }
float4 main(float4 c : COLOR) : SV_Target {
    int m = 1, n = 2;
    int o = c.x > 0 ? m : n;
    bool p = c.y > 0 ? fn1() : fn2();
    float2x2 q = float2x2(c);
    float2x2 r = p ? q : q * 2;
    return o + r[0][0];
}
"#;

#[test]
fn conditional_operator_branches_from_2021_and_selects_before() {
    let text = compile(&PS_2021, TERNARY);
    assert!(text.contains("%temp_var_ternary = OpVariable %_ptr_Function_int Function"), "{text}");
    assert_consecutive(
        &text,
        &[
            "OpSelectionMerge %ternary_merge None",
            "OpBranchConditional",
            "%ternary_lhs = OpLabel",
            "OpLoad %int %m",
            "OpStore %temp_var_ternary",
            "OpBranch %ternary_merge",
            "%ternary_rhs = OpLabel",
        ],
    );
    assert!(!text.contains("OpSelect "), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main", "-HV", "2021"], TERNARY);

    // HLSL 2018: both sides first (calls included), then OpSelect; a matrix result
    // goes through a temporary stored by an if/else.
    let text = compile(&PS_2018, TERNARY);
    assert_consecutive(&text, &["OpFunctionCall %bool %fn1", "OpFunctionCall %bool %fn2", "OpSelect %bool"]);
    assert!(text.contains("%temp_var_ternary = OpVariable %_ptr_Function_mat2v2float Function"), "{text}");
    assert!(text.contains("OpBranchConditional") && text.contains("%if_false = OpLabel"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main", "-HV", "2018"], TERNARY);
}

#[test]
fn literal_conditional_takes_a_64_bit_target_width() {
    let source = r#"
float4 main(uint x : X) : SV_Target {
    uint64_t u = x < 64 ? 1 : 0;
    int64_t s = x < 32 ? 1 : 0;
    return float(u + s);
}
"#;
    let text = compile(&PS_2018, source);
    assert!(text.contains("OpSelect %long") && text.contains("%long_1 %long_0"), "{text}");
    assert!(text.contains("OpBitcast %ulong"), "{text}");
    assert!(!text.contains("OpSConvert"), "{text}");
    let text = compile(&PS_2021, source);
    assert!(text.contains("OpStore %temp_var_ternary %long_1"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main", "-HV", "2018"], source);
}

#[test]
fn constant_if_conditions_emit_only_the_branch_taken() {
    let source = r#"
void main(out float a : A, out float b : B) {
    if (3 + 5) { a = 1.0; } else { a = 0.0; }
    if (4 + 3 > 7 || 4 + 3 < 8) { b = 2.0; }
    if (4 + 3 > 7 && true) { b = 0.0; }
}
"#;
    let args = ["-T", "vs_6_0", "-E", "main", "-fcgl"];
    let text = compile(&args, source);
    assert_consecutive(
        &text,
        &["%bb_entry = OpLabel", "OpStore %a %float_1", "OpStore %b %float_2", "OpReturn"],
    );
    assert!(!text.contains("OpSelectionMerge"), "{text}");
    assert_valid(&["-T", "vs_6_0", "-E", "main"], source);
}

#[test]
fn loops_with_short_circuit_conditions_get_a_header_block() {
    let source = r#"
float4 main(float4 c : COLOR) : SV_Target {
    bool a = c.x > 0, b = c.y > 0;
    float s = 0;
    for (int i = 0; a && b; ++i) { s += 1; if (s > 4) break; }
    while (a || b) { s += 2; if (s > 8) break; }
    for (;;) { break; }
    return s;
}
"#;
    let text = compile(&PS_2021, source);
    assert_consecutive(
        &text,
        &[
            "OpBranch %for_header",
            "%for_header = OpLabel",
            "OpLoopMerge %for_merge %for_continue None",
            "OpBranch %for_check",
            "%for_check = OpLabel",
        ],
    );
    assert_consecutive(
        &text,
        &[
            "%while_header = OpLabel",
            "OpLoopMerge %while_merge %while_continue None",
            "OpBranch %while_check",
        ],
    );
    // No condition: dxc branches on `true`.
    assert!(text.contains("OpBranchConditional %true %for_body_0 %for_merge_0"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main", "-HV", "2021"], source);
}

#[test]
fn constant_initializers_of_vectors_fold_but_composites_are_constructed() {
    let source = r#"
struct S { uint a; bool2 b; float2x2 c; };
float4 main(float4 c : COLOR) : SV_Target {
    bool2 vb = {1, 15 - 15};
    float4 v = float4(float2(1, 2), 3, 4);
    float4 w = float4(0.5.xxxx);
    int3 k = int3(3.xxx);
    S s = {1, true, false, 1.0, 2.0, 3.0, 4.0};
    float1x3 m = {1., 2., 3.};
    return v + w + k.x + s.c[0][0] + vb.x;
}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fcgl"], source);
    // Vectors of constants (nested lists and constructors too) are one constant.
    assert!(text.contains("OpConstantComposite %v2bool %true %false"), "{text}");
    assert!(text.contains("OpConstantComposite %v4float %float_1 %float_2 %float_3 %float_4"), "{text}");
    // A swizzled scalar is constructed, even from a constant.
    assert!(
        text.contains("OpCompositeConstruct %v4float %float_0_5 %float_0_5 %float_0_5 %float_0_5"),
        "{text}"
    );
    assert!(text.contains("OpCompositeConstruct %v3int %int_3 %int_3 %int_3"), "{text}");
    // Structs, matrices (1xN ones included) and their vector members are constructed.
    assert_consecutive(
        &text,
        &[
            "OpCompositeConstruct %v2bool %true %false",
            "OpCompositeConstruct %v2float %float_1 %float_2",
            "OpCompositeConstruct %v2float %float_3 %float_4",
            "OpCompositeConstruct %mat2v2float",
            "OpCompositeConstruct %S %uint_1",
        ],
    );
    assert!(text.contains("OpCompositeConstruct %v3float %float_1 %float_2 %float_3"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source);
}

#[test]
fn vector_compound_assignment_with_a_scalar_applies_to_every_component() {
    let source = r#"
float4 main(float4 c : COLOR, int4 k : K) : SV_Target {
    float4 v = c;
    v.xyz *= 4.0;
    int4 i = k;
    i.xyz *= 4;
    i.yz += 2;
    return v + i;
}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fcgl"], source);
    assert_consecutive(
        &text,
        &[
            "OpVectorShuffle %v3float",
            "OpVectorTimesScalar %v3float",
            "OpLoad %v4float %v",
            "OpVectorShuffle %v4float",
        ],
    );
    assert!(text.contains("OpConstantComposite %v3int %int_4 %int_4 %int_4"), "{text}");
    assert_consecutive(&text, &["OpVectorShuffle %v3int", "OpIMul %v3int"]);
    assert!(text.contains("OpConstantComposite %v2int %int_2 %int_2"), "{text}");
    // No component is multiplied alone and splat back.
    assert!(!text.contains("OpIMul %int") && !text.contains("OpFMul %float"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source);
}

#[test]
fn matrix_increments_go_row_by_row_with_a_constant_row_of_ones() {
    let source = r#"
float4 main(float4 c : COLOR) : SV_Target {
    float2x3 g = float2x3(c.xyz, c.xyz);
    int2x3 m = int2x3(1, 2, 3, 4, 5, 6);
    float2x1 d = float2x1(c.xy);
    int3x2 e = 10;
    --g;
    m++;
    ++d;
    return g[0].x + m[1].y + d[0] + e[2][1];
}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fcgl"], source);
    assert!(text.contains("OpConstantComposite %v3float %float_1 %float_1 %float_1"), "{text}");
    assert!(text.contains("OpConstantComposite %v3int %int_1 %int_1 %int_1"), "{text}");
    assert!(text.contains("OpConstantComposite %v2float %float_1 %float_1"), "{text}");
    // A constant splat of a non-float matrix is a constant too.
    assert!(text.contains("OpConstantComposite %_arr_v2int_uint_3"), "{text}");
    assert_consecutive(
        &text,
        &[
            "OpLoad %mat2v3float %g",
            "OpCompositeExtract %v3float",
            "OpFSub %v3float",
            "OpCompositeExtract %v3float",
            "OpFSub %v3float",
            "OpCompositeConstruct %mat2v3float",
            "OpStore %g",
        ],
    );
    assert_consecutive(
        &text,
        &["OpLoad %_arr_v3int_uint_2 %m", "OpCompositeExtract %v3int", "OpIAdd %v3int"],
    );
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source);
}

#[test]
fn vector_truncation_extracts_and_constructs_or_folds_a_constant() {
    let source = r#"
float4 main(int4 k : K) : SV_Target {
    int3 a = k;
    float3 b = float4(1, 2, 3, 4);
    return float4(a, b.x);
}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fcgl"], source);
    assert_consecutive(
        &text,
        &[
            "OpLoad %v4int %k",
            "OpCompositeExtract %int",
            "OpCompositeExtract %int",
            "OpCompositeExtract %int",
            "OpCompositeConstruct %v3int",
        ],
    );
    assert!(text.contains("OpConstantComposite %v3float %float_1 %float_2 %float_3"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source);
}

#[test]
fn out_arguments_that_are_whole_locals_of_the_parameter_type_are_passed_without_copy() {
    let source = r#"
struct S { float4 val; };
void foo(out int a, inout uint2 b, inout S d, out float e[4], inout float f) {
    a = 0; b = 1; d.val = 3.0; e[0] = 4.0; f += 1;
}
float4 main(float4 c : COLOR) : SV_Target {
    int a; uint2 b = 0; S d = (S)0; float e[4]; int g = 2;
    foo(a, b, d, e, g);
    return d.val + a + b.x + e[0] + g;
}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fcgl"], source);
    // `g` is an int passed as a float: copied in and out.
    assert!(text.contains("OpFunctionCall %void %foo %a %b %d %e %param_var_f"), "{text}");
    assert!(!text.contains("%param_var_a"), "{text}");
    assert_valid(&["-T", "ps_6_0", "-E", "main"], source);
}

/// dxc's flat conversions: a scalar is converted once per vector, array or member it
/// fills; a struct to a struct of the same member types is rebuilt member by member;
/// other aggregates are decomposed level by level; a `ConstantBuffer<T>` read as `T`
/// is decomposed from its laid-out value, loaded straight from the global.
#[test]
fn flat_conversions_take_dxcs_shapes() {
    let source = "struct V { float4 p; uint3 n; int a[3]; float2x3 m; };
struct A { float3 x[2]; int2 y; };
struct B { float3 x[2]; int2 y; };
struct Q { float4 v; };
ConstantBuffer<Q> cb;
float4 main(int x : X) : SV_Target {
  float2 f[2];
  V v = (V)x;
  A a; B b = (B)a;
  float d[4] = (float[4])f;
  Q q = cb;
  return v.p + b.x[0].x + d[0] + q.v;
}
";
    let args = ["-T", "ps_6_0", "-E", "main", "-fcgl"];
    let text = compile(&args, source);
    // The splat: one conversion per member, replicated.
    assert_consecutive(
        &text,
        &[
            "OpConvertSToF %float",
            "OpCompositeConstruct %v4float",
            "OpBitcast %uint",
            "OpCompositeConstruct %v3uint",
            "OpCompositeConstruct %_arr_int_uint_3",
            "OpConvertSToF %float",
            "OpCompositeConstruct %v3float",
            "OpCompositeConstruct %mat2v3float",
            "OpCompositeConstruct %V",
        ],
    );
    // Same member types: members extracted and used as they are.
    assert_consecutive(
        &text,
        &[
            "OpLoad %A %a",
            "OpCompositeExtract %_arr_v3float_uint_2",
            "OpCompositeExtract %v2int",
            "OpCompositeConstruct %B",
        ],
    );
    // An array of vectors: the elements first, then their components.
    assert_consecutive(
        &text,
        &[
            "OpLoad %_arr_v2float_uint_2 %f",
            "OpCompositeExtract %v2float",
            "OpCompositeExtract %v2float",
            "OpCompositeExtract %float",
        ],
    );
    // The block loaded whole from the global, its vector decomposed and rebuilt.
    assert_consecutive(
        &text,
        &[
            "OpLoad %type_ConstantBuffer_Q %cb",
            "OpCompositeExtract %v4float",
            "OpCompositeExtract %float",
            "OpCompositeExtract %float",
            "OpCompositeExtract %float",
            "OpCompositeExtract %float",
            "OpCompositeConstruct %v4float",
            "OpCompositeConstruct %Q",
        ],
    );
    assert_valid(&args[..4], source);
}
