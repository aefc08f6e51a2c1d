//! The instruction sequences dxc emits for expressions in its raw (`-fcgl`) output:
//! temporaries for members and elements of values, swizzle chains, texel
//! read-modify-writes, assignment values, matrix truncation and `sizeof`. Each test
//! checks the disassembly and that the legalized binary is valid for the current
//! spirv-val (skipped with a message when the project's `.venv` validator is absent).

mod common;
use common::assert_consecutive;

const PS: [&str; 7] = ["-T", "ps_6_0", "-E", "main", "-HV", "2018", "-fcgl"];
const PS_LEGAL: [&str; 4] = ["-T", "ps_6_0", "-E", "main"];

fn compile(source: &str) -> String {
    common::disassemble(&PS, source)
}

fn assert_valid(source: &str) {
    common::assert_valid_binary(&PS_LEGAL, source, &["--target-env", "vulkan1.0"]);
}

const MEMBERS_OF_VALUES: &str = r#"
struct S { float4 d; float4 e[2]; };
S make(float4 x) { S s; s.d = x; s.e[0] = x; s.e[1] = x; return s; }
float4 main(float4 c : COLOR) : SV_Target {
    float4 a = make(c).d;
    float4 b = make(c).e[1];
    return a + b;
}
"#;

#[test]
fn members_and_elements_of_values_go_through_typed_temporaries() {
    let text = compile(MEMBERS_OF_VALUES);
    assert_consecutive(
        &text,
        &[
            "OpFunctionCall %S %make",
            "OpStore %temp_var_S",
            "OpAccessChain %_ptr_Function_v4float %temp_var_S %int_0",
            "OpLoad %v4float",
            "OpStore %a",
        ],
    );
    // An element of an array value: the array into `temp.var.` (clang names no
    // array type), then an access chain.
    assert_consecutive(
        &text,
        &[
            "OpAccessChain %_ptr_Function__arr_v4float_uint_2 %temp_var_S_0 %int_1",
            "OpLoad %_arr_v4float_uint_2",
            "OpStore %temp_var_ ",
            "OpAccessChain %_ptr_Function_v4float %temp_var_ %int_1",
        ],
    );
    assert_valid(MEMBERS_OF_VALUES);
}

const SWIZZLES: &str = r#"
float4 main(float4 c : COLOR) : SV_Target {
    float4 same = c.xyzw;
    float2 v = c.zy.yxy.xz;
    float w = c.www.x;
    float x, y;
    x = y = c.w;
    return same + float4(v, w, x + y);
}
"#;

#[test]
fn swizzle_chains_condense_up_to_a_repeating_swizzle() {
    let text = compile(SWIZZLES);
    // All components in order: the vector itself.
    assert_consecutive(&text, &["OpLoad %v4float %c", "OpStore %same"]);
    // `c.zy` is read as a value before the repeating `.yxy`; `.yxy.xz` is one shuffle.
    assert_consecutive(&text, &["OpVectorShuffle %v2float", "OpVectorShuffle %v2float", "OpStore %v"]);
    let shuffles: Vec<&str> = text.lines().filter(|l| l.contains("OpVectorShuffle %v2float")).collect();
    assert!(shuffles.len() == 2 && shuffles[0].ends_with(" 2 1") && shuffles[1].ends_with(" 1 1"), "{text}");
    // `.www.x`: the vector loaded, one element extracted (no access chain).
    assert_consecutive(&text, &["OpCompositeExtract %float", "OpStore %w"]);
    assert_valid(SWIZZLES);
}

#[test]
fn a_plain_assignment_yields_the_stored_value() {
    let text = compile(SWIZZLES);
    assert_consecutive(&text, &["OpLoad %float", "OpStore %y", "OpStore %x"]);
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let at = lines.iter().position(|l| l.starts_with("OpStore %y")).expect("store to y");
    let value = lines[at].rsplit(' ').next().unwrap_or_default();
    assert_eq!(lines[at + 1], format!("OpStore %x {value}"), "{text}");
}

const TEXELS: &str = r#"
RWTexture2D<float4> rw;
RWBuffer<uint3> rb;
float4 main(float4 c : COLOR, uint2 uv : UV) : SV_Target {
    rw[uv].zx = c.xy;
    float t = ++rw[uv].w;
    rb[3].y = 7;
    return t;
}
"#;

#[test]
fn texel_components_are_read_merged_and_written_back() {
    let text = compile(TEXELS);
    // Two components: shuffled into the texel read, written with the coordinate
    // evaluated again.
    assert_consecutive(
        &text,
        &[
            "OpLoad %v2uint %uv",
            "OpLoad %type_2d_image %rw",
            "OpImageRead %v4float",
            "OpVectorShuffle %v4float",
            "OpLoad %v2uint %uv",
            "OpLoad %type_2d_image %rw",
            "OpImageWrite",
        ],
    );
    assert!(text.contains("OpVectorShuffle %v4float") && text.contains(" 5 1 4 3"), "{text}");
    // One component of a 3-component texel: inserted.
    assert_consecutive(
        &text,
        &[
            "OpImageRead %v4uint",
            "OpVectorShuffle %v3uint",
            "OpCompositeInsert %v3uint %uint_7",
            "OpLoad %type_buffer_image %rb",
            "OpImageWrite",
        ],
    );
    // `++texel`: its value is the one written, not read back.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let add = lines.iter().find(|l| l.contains("OpFAdd %float")).expect("the increment");
    let id = add.split(' ').next().unwrap_or_default();
    assert!(lines.contains(&format!("OpStore %t {id}").as_str()), "{text}");
    assert_valid(TEXELS);
}

const MATRICES: &str = r#"
float4 main(float4 c : COLOR, uint i : INDEX) : SV_Target {
    float1x1 m11 = c.x;
    float2 p = m11._11_11;
    float2x2 m22 = float2x2(c.xy, c.zw);
    float4 flat = m22;
    float3x4 m34 = float3x4(c, c, c);
    float1x3 row = m34;
    float2x1 col = m34;
    float k = (m22 + m22)[1][i];
    return flat + float4(p, row._m00 + col._m10, k);
}
"#;

#[test]
fn matrices_truncate_by_rows_and_index_values_in_one_chain() {
    let text = compile(MATRICES);
    // A 1x1 matrix swizzle reads the element once per component.
    assert_consecutive(&text, &["OpLoad %float %m11", "OpLoad %float %m11", "OpCompositeConstruct %v2float"]);
    // 2x2 to a 4-vector: both rows, one shuffle.
    assert_consecutive(
        &text,
        &[
            "OpLoad %mat2v2float %m22",
            "OpCompositeExtract %v2float",
            "OpCompositeExtract %v2float",
            "OpVectorShuffle %v4float",
            "OpStore %flat",
        ],
    );
    // Truncation: the first row cut by a shuffle; one column: each row's first element.
    assert_consecutive(
        &text,
        &[
            "OpLoad %mat3v4float %m34",
            "OpCompositeExtract %v4float",
            "OpVectorShuffle %v3float",
            "OpStore %row",
        ],
    );
    assert_consecutive(
        &text,
        &[
            "OpStore %row",
            "OpLoad %mat3v4float %m34",
            "OpCompositeExtract %v4float",
            "OpCompositeExtract %float",
            "OpCompositeExtract %v4float",
            "OpCompositeExtract %float",
            "OpCompositeConstruct %v2float",
            "OpStore %col",
        ],
    );
    // `(m + m)[1][i]`: the index first, the matrix into `temp.var.vector`, one chain.
    assert_consecutive(
        &text,
        &["OpStore %temp_var_vector", "OpAccessChain %_ptr_Function_float %temp_var_vector %uint_1"],
    );
    let index_load = text.find("OpLoad %uint %i").expect("index loaded");
    assert!(index_load < text.find("OpStore %temp_var_vector").unwrap_or(0), "{text}");
    assert_valid(MATRICES);
}

const OPERAND_ORDER: &str = r#"
float4 main(float4 c : COLOR, int t : T) : SV_Target {
    float s = c.x;
    float4 b = s * c;
    int3 iv = int3(1, 2, 3);
    iv *= t;
    return b + iv.x;
}
"#;

#[test]
fn vector_operands_are_read_before_scalars_and_splats_before_the_left_side() {
    let text = compile(OPERAND_ORDER);
    assert_consecutive(&text, &["OpLoad %v4float %c", "OpLoad %float %s", "OpVectorTimesScalar %v4float"]);
    assert_consecutive(
        &text,
        &[
            "OpLoad %int %t",
            "OpCompositeConstruct %v3int",
            "OpLoad %v3int %iv",
            "OpIMul %v3int",
            "OpStore %iv",
        ],
    );
    assert_valid(OPERAND_ORDER);
}

const SIZES: &str = r#"
enum E64 : uint64_t { A = 0 };
struct Empty {};
struct Padded { int16_t a; float b; Empty e; };
struct WithEnum { E64 e; uint u; };
RWBuffer<int> b;
[numthreads(1, 1, 1)]
void main() {
    b[0] = sizeof(Padded);
    b[1] = sizeof(E64);
    b[2] = sizeof(WithEnum);
    b[3] = sizeof(Empty[2]);
    b[4] = sizeof(half3[2]);
}
"#;

#[test]
fn sizeof_follows_the_c_layout() {
    let args = ["-T", "cs_6_2", "-E", "main", "-enable-16bit-types", "-fcgl"];
    let text = common::disassemble(&args, SIZES);
    for (index, size) in [(0, 8), (1, 8), (2, 16), (3, 0), (4, 12)] {
        let want = format!("%uint_{index} %int_{size} None");
        assert!(text.lines().any(|l| l.contains("OpImageWrite") && l.contains(&want)), "{want}:\n{text}");
    }
}
