//! Descriptor bindings and resource types as dxc assigns them (`-fcgl`): the three
//! binding passes and the order of their decorations, space-only registers, counters,
//! `$Globals`' place, flattened arrays; arrays of `ConstantBuffer`/`TextureBuffer`,
//! inferred image formats, subpass inputs and spec constant composites. Each case
//! checks the disassembly and, with a current spirv-val, the binary's validity.

mod common;

use common::{assert_valid_binary, disassemble};

/// The disassembly of `source` (`-fcgl`, `args`), after checking the binary is valid.
fn compile(args: &[&str], source: &str) -> String {
    let mut all = vec!["-spirv", "-fcgl"];
    all.extend_from_slice(args);
    assert_valid_binary(
        &all,
        source,
        &["--target-env", "vulkan1.0", "--before-hlsl-legalization", "--relax-block-layout"],
    );
    disassemble(&all, source)
}

/// The `DescriptorSet`/`Binding` decorations, in order, as `name set binding`.
fn bindings(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut set = None;
    for line in text.lines().map(str::trim) {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["OpDecorate", name, "DescriptorSet", n] => set = Some((name.to_string(), n.to_string())),
            ["OpDecorate", name, "Binding", b] => {
                let s = match &set {
                    Some((n, s)) if n == name => s.clone(),
                    _ => "?".into(),
                };
                out.push(format!("{} {s} {b}", name.trim_start_matches('%')));
            }
            _ => {}
        }
    }
    out
}

#[test]
fn bindings_are_decorated_in_dxc_passes_attribute_then_register_then_implicit() {
    let source = r#"
struct S { float4 f; };
SamplerState implicit0;
SamplerState reg1 : register(s1);
[[vk::binding(3, 1)]] Texture2D<float4> attr;
SamplerState implicit1;
AppendStructuredBuffer<S> abuf : register(u4);
[[vk::binding(2), vk::counter_binding(7)]] RWStructuredBuffer<S> rw;
float4 main() : SV_Target { rw.IncrementCounter(); return 1.0; }
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main"], source);
    assert_eq!(
        bindings(&text),
        [
            "attr 1 3",
            "rw 0 2",
            "counter_var_rw 0 7",
            "reg1 0 1",
            "abuf 0 4",
            "implicit0 0 0",
            "implicit1 0 3",
            "counter_var_abuf 0 5",
        ],
        "{text}"
    );
    // dxc declares a counter just before its buffer.
    let counter = text.find("%counter_var_abuf = OpVariable").expect("counter");
    let buffer = text.find("%abuf = OpVariable").expect("buffer");
    assert!(counter < buffer, "{text}");
}

#[test]
fn space_only_registers_take_the_first_free_binding_of_their_set() {
    let source = r#"
struct S { float4 f; };
SamplerState s0 : register(space1);
Texture2D<float4> t0 : register(t0, space1);
Texture2D<float4> t1 : register(space1);
AppendStructuredBuffer<S> a : register(space2);
float4 main() : SV_Target { return 1.0; }
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main"], source);
    assert_eq!(bindings(&text), ["t0 1 0", "s0 1 1", "t1 1 2", "a 2 0", "counter_var_a 2 1"], "{text}");
}

#[test]
fn globals_take_their_binding_where_their_first_member_is_declared() {
    let source = r#"
Texture2D<float4> before;
int g;
cbuffer after { float4 x; }
float4 main() : SV_Target { return x + g + before.Load(int3(0, 0, 0)); }
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main"], source);
    assert_eq!(bindings(&text), ["before 0 0", "_Globals 0 1", "after 0 2"], "{text}");
}

#[test]
fn flattened_resource_arrays_take_one_binding_per_element() {
    let source = r#"
Texture2D t[5] : register(t0);
Texture2D next;
Texture2D fixed : register(t5);
SamplerState s[2];
float4 main(float2 uv : TEXCOORD) : SV_Target {
  return t[1].Sample(s[0], uv) + next.Sample(s[1], uv) + fixed.Sample(s[1], uv);
}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "main", "-fspv-flatten-resource-arrays"], source);
    assert_eq!(bindings(&text), ["t 0 0", "fixed 0 5", "next 0 6", "s 0 7"], "{text}");
}

#[test]
fn arrays_of_constant_and_texture_buffers_are_arrays_of_blocks_indexed_to_views() {
    let source = r#"
struct T { float a; float2 b; };
ConstantBuffer<T> cbs[3];
TextureBuffer<T> tbs[];
float main(uint i : A) : B {
  T copy = cbs[i];
  return cbs[2].a + cbs[1].b.y + tbs[i].a + copy.b.x;
}
"#;
    let text = compile(&["-T", "vs_6_0", "-E", "main"], source);
    assert!(
        text.contains("%cbs = OpVariable %_ptr_Uniform__arr_type_ConstantBuffer_T_uint_3 Uniform"),
        "{text}"
    );
    assert!(
        text.contains("%tbs = OpVariable %_ptr_Uniform__runtimearr_type_TextureBuffer_T Uniform"),
        "{text}"
    );
    assert!(text.contains("OpCapability RuntimeDescriptorArray"), "{text}");
    // An element's field is one chain from the array.
    assert!(text.contains("OpAccessChain %_ptr_Uniform_float %cbs %int_2 %int_0"), "{text}");
}

#[test]
fn storage_image_formats_follow_the_declared_scalar() {
    let source = r#"
RWBuffer<half4> h;
RWTexture2D<min16float4> m;
RWTexture2D<min16uint2> mu;
RWTexture2D<uint64_t> u64;
[numthreads(1, 1, 1)]
void main() { h[0] = 1.0; m[uint2(0, 0)] = 1.0; mu[uint2(0, 0)] = 1; u64[uint2(0, 0)] = 1; }
"#;
    let text = compile(&["-T", "cs_6_0", "-E", "main"], source);
    assert!(text.contains("OpTypeImage %float Buffer 2 0 0 2 Rgba16f"), "{text}");
    assert!(text.contains("OpTypeImage %float 2D 2 0 0 2 Rgba16f"), "{text}");
    assert!(text.contains("OpTypeImage %uint 2D 2 0 0 2 Rg16ui"), "{text}");
    assert!(text.contains("OpTypeImage %ulong 2D 2 0 0 2 R64ui"), "{text}");
}

#[test]
fn subpass_inputs_carry_their_attachment_index_and_exist_in_pixel_shaders_only() {
    let source = r#"
[[vk::input_attachment_index(2)]] SubpassInput<float4> si : register(t5);
float4 use() { return si.SubpassLoad(); }
float4 ps() : SV_Target { return use(); }
[numthreads(1, 1, 1)] void cs() {}
"#;
    let text = compile(&["-T", "ps_6_0", "-E", "ps"], source);
    assert!(text.contains("OpDecorate %si InputAttachmentIndex 2"), "{text}");
    assert_eq!(bindings(&text), ["si 0 5"], "{text}");
    let text = compile(&["-T", "cs_6_0", "-E", "cs"], source);
    assert!(!text.contains("%si"), "{text}");
}

#[test]
fn a_splatted_spec_constant_is_a_spec_constant_composite() {
    let source = r#"
[[vk::constant_id(0)]] const uint k = 1;
RWTexture2D<float> img;
[numthreads(1, 1, 1)]
void main(uint3 id : SV_DispatchThreadID) { img[id.xy * k] = 0; }
"#;
    let text = compile(&["-T", "cs_6_0", "-E", "main"], source);
    assert!(text.contains("OpSpecConstantComposite %v2uint %k %k"), "{text}");
}
