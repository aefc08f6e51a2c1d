//! Access chains as dxc writes them: one `OpAccessChain` per lvalue expression from
//! its base variable, with dxc's index types, and the cases where dxc starts a chain
//! of its own (a swizzle, an outermost array element, a cbuffer member, an element of
//! an array of buffers). Every binary is checked with the current spirv-val (skipped
//! with a message when the project's `.venv` validator is absent).

mod common;

/// The disassembly of `source` compiled with `args`.
fn compile(args: &[&str], source: &str) -> String {
    common::disassemble(args, source)
}

/// Compiles `source` to a binary and checks it with spirv-val for `env`: dxc's raw
/// form passes pointers into objects to functions, which only legalization makes
/// valid (spirv-val's mode for it, as the conformance run).
fn assert_valid(args: &[&str], source: &str, env: &str) {
    let raw: &[&str] = if args.contains(&"-fcgl") { &["--before-hlsl-legalization"] } else { &[] };
    let mut val_args = vec!["--target-env", env];
    val_args.extend(raw);
    common::assert_valid_binary(args, source, &val_args);
}

/// The access chains of the function `name` (`OpAccessChain` operands after the
/// result type), in order.
fn chains_of(text: &str, name: &str) -> Vec<String> {
    let start = text.find(&format!("%{name} = OpFunction")).expect("function");
    let body = &text[start..];
    let body = &body[..body.find("OpFunctionEnd").expect("end")];
    body.lines()
        .filter_map(|l| l.split_once("= OpAccessChain ").map(|(_, rest)| rest))
        .map(|rest| rest.split_once(' ').map_or("", |(_, operands)| operands).trim().to_string())
        .collect()
}

const PS_FCGL: &[&str] = &["-T", "ps_6_0", "-E", "main", "-fcgl"];
const PS: &[&str] = &["-T", "ps_6_0", "-E", "main"];

const BUFFER: &str = r#"
struct S { float f; };
struct T { float a; float2 b[2]; float3x4 c[3]; S s[2]; float t[4]; };
RWStructuredBuffer<T> sb;
float main(uint index : A) : SV_Target {
    float x = sb[2].c[2][1][2] + sb[3].s[0].f;
    sb[index].t[3] = x;
    sb[1].b[1].x = x;
    return x;
}
"#;

#[test]
fn members_and_element_indices_fold_into_one_chain() {
    let text = compile(PS_FCGL, BUFFER);
    let chains = chains_of(&text, "src_main");
    let index = |prefix: &str| chains.iter().position(|c| c.starts_with(prefix));
    // A member after buffer and array elements, matrix indices as uint: one chain each.
    assert_eq!(chains[0], "%sb %int_0 %uint_2 %int_2 %int_2 %uint_1 %uint_2", "{chains:?}");
    assert_eq!(chains[1], "%sb %int_0 %uint_3 %int_3 %int_0 %int_0", "{chains:?}");
    // An outermost array element and a swizzle start chains of their own.
    let t = index("%sb %int_0 %").expect("t chain");
    assert!(chains[t + 1..].iter().any(|c| c.ends_with("%int_3")), "{chains:?}");
    assert!(chains.iter().any(|c| c == "%sb %int_0 %uint_1 %int_1"), "{chains:?}");
    // Nothing folded away is left behind.
    assert_eq!(chains.len(), 7, "{chains:?}");
    assert_valid(PS, BUFFER, "vulkan1.0");
    assert_valid(PS_FCGL, BUFFER, "vulkan1.0");
}

const CBUFFER: &str = r#"
cbuffer C { float2x3 m; float4 v; };
struct P { float3 f2; float2x3 f3; };
[[vk::push_constant]] P pcs;
float main() : SV_Target {
    return m[1][2] + v.y + v[2] + pcs.f3[1][2] + pcs.f2.z;
}
"#;

#[test]
fn cbuffer_members_are_roots_and_vector_indices_are_uint() {
    let text = compile(PS_FCGL, CBUFFER);
    let chains = chains_of(&text, "src_main");
    let cbuffer = chains.iter().position(|c| c == "%C %int_0").expect("member chain");
    assert!(chains[cbuffer + 1].ends_with(" %uint_1 %uint_2"), "{chains:?}");
    assert!(!chains[cbuffer + 1].starts_with("%C "), "{chains:?}");
    // `v.y` chains from the member's chain with an int; `v[2]` folds with a uint.
    assert!(chains.iter().any(|c| c.ends_with(" %int_1") && !c.starts_with("%C ")), "{chains:?}");
    assert!(chains.iter().any(|c| c.ends_with(" %uint_2") && !c.contains("%uint_1")), "{chains:?}");
    // A push-constant struct is not a view: its members fold.
    assert!(chains.iter().any(|c| c == "%pcs %int_1 %uint_1 %uint_2"), "{chains:?}");
    assert!(chains.iter().any(|c| c == "%pcs %int_0"), "{chains:?}");
    assert_valid(PS, CBUFFER, "vulkan1.0");
    assert_valid(PS_FCGL, CBUFFER, "vulkan1.0");
}

const MATRIX: &str = r#"
float4 main(float3 v : A) : SV_Target {
    float2x3 m = (float2x3)0;
    float1x3 r = (float1x3)0;
    m._21_12_11 = v;
    r._m00_m02 = v.xy;
    float2 a = m._m01_m02;
    return float4(a, m._m12, r._12);
}
"#;

#[test]
fn matrix_elements_in_memory_are_one_chain_each() {
    let text = compile(PS_FCGL, MATRIX);
    let chains = chains_of(&text, "src_main");
    let expected = [
        "%m %int_1 %int_0",
        "%m %int_0 %int_1",
        "%m %int_0 %int_0",
        "%r %int_0",
        "%r %int_2",
        "%m %int_0 %int_1",
        "%m %int_0 %int_2",
        "%m %int_1 %int_2",
        "%r %int_1",
    ];
    assert_eq!(chains, expected);
    // Stores take each element extracted from the value, in order.
    let store = text.find("%m %int_1 %int_0").expect("first element");
    assert!(text[..store].contains("OpCompositeExtract %float"), "{text}");
    assert_valid(PS, MATRIX, "vulkan1.0");
    assert_valid(PS_FCGL, MATRIX, "vulkan1.0");
}

const BUFFER_ARRAY: &str = r#"
struct S { float4 f; };
RWStructuredBuffer<S> bufs[4];
float4 main(uint i : A) : SV_Target {
    return bufs[i][1].f;
}
"#;

#[test]
fn an_element_of_an_array_of_buffers_is_indexed_from_its_own_chain() {
    let text = compile(PS_FCGL, BUFFER_ARRAY);
    let chains = chains_of(&text, "src_main");
    assert_eq!(chains.len(), 2, "{chains:?}");
    assert!(chains[0].starts_with("%bufs %"), "{chains:?}");
    assert!(chains[1].ends_with(" %int_0 %uint_1 %int_0") && !chains[1].starts_with("%bufs"), "{chains:?}");
    assert_valid(PS_FCGL, BUFFER_ARRAY, "vulkan1.0");
}

const BASE_METHOD: &str = r#"
struct A { float4 a; void SetA(float4 v) { a = v; } float4 GetA() { return a; } };
struct B : A { float4 b; float4 Both() { return GetA() + b; } };
struct C : B { float4 c; };
float4 main(float4 v : A) : SV_Target {
    C obj = (C)0;
    obj.SetA(v);
    return obj.Both() + obj.GetA();
}
"#;

#[test]
fn a_base_method_takes_a_chain_to_the_base_part() {
    let text = compile(PS_FCGL, BASE_METHOD);
    let chains = chains_of(&text, "src_main");
    assert!(chains.iter().any(|c| c == "%obj %uint_0 %uint_0"), "{chains:?}");
    assert!(chains.iter().any(|c| c == "%obj %uint_0"), "{chains:?}");
    // Inside B's method, the call of A's method passes `this`'s base part.
    assert!(text.contains("OpAccessChain %_ptr_Function_A %param_this"), "{text}");
    assert_valid(PS_FCGL, BASE_METHOD, "vulkan1.0");
    assert_valid(PS, BASE_METHOD, "vulkan1.0");
}

const RVALUE_INDEX: &str = r#"
float4 main(float4 a : A, uint i : B) : SV_Target {
    float1x3 row = (float1x3)a.x;
    float3 whole = row[0];
    return float4(whole, (a + a)[1] + (a * a)[i]);
}
"#;

#[test]
fn a_component_of_a_computed_vector_is_read_through_a_temporary() {
    let text = compile(PS_FCGL, RVALUE_INDEX);
    let chains = chains_of(&text, "src_main");
    // `row[0]` of a 1xN matrix is the row itself: no chain.
    assert!(!chains.iter().any(|c| c.starts_with("%row ")), "{chains:?}");
    assert!(chains.iter().any(|c| c == "%temp_var_vector %uint_1"), "{chains:?}");
    assert!(chains.iter().any(|c| c.starts_with("%temp_var_vector_0 %")), "{chains:?}");
    assert!(!text.contains("OpVectorExtractDynamic"), "{text}");
    assert_valid(PS_FCGL, RVALUE_INDEX, "vulkan1.0");
    assert_valid(PS, RVALUE_INDEX, "vulkan1.0");
}
