//! Resources and their methods as dxc emits them (`-fcgl`): image types and their
//! names, sampling with offsets, clamps and residency status, gathers, counter buffers,
//! byte-address loads and stores of any type, specialization constants. Each case
//! checks the disassembly and, when a `spirv-val` is found (`SPIRV_VAL`, or the
//! project's `.venv`), that the binary is valid.

mod common;

use common::run;

/// The disassembly of `source` compiled with `args` (plus `-fcgl`), validated when a
/// validator is at hand.
fn compile(source: &str, args: &[&str]) -> String {
    let mut all: Vec<&str> = vec!["-spirv", "-fcgl"];
    all.extend_from_slice(args);
    all.push("-");
    let out = run(&all, source);
    let stderr = String::from_utf8_lossy(&out.stderr).to_string();
    assert!(out.status.success(), "hlsl2spirv failed: {stderr}");
    let text = String::from_utf8_lossy(&out.stdout).to_string();
    common::assert_valid_binary(
        &all[..all.len() - 1],
        source,
        &["--target-env", "vulkan1.0", "--before-hlsl-legalization", "--relax-block-layout"],
    );
    text
}

fn assert_has(text: &str, wanted: &[&str]) {
    for w in wanted {
        assert!(text.contains(w), "missing `{w}` in:\n{text}");
    }
}

#[test]
fn sampling_takes_offsets_clamps_and_status() {
    let text = compile(
        "Texture2D<float4> t : register(t0); SamplerState s : register(s1); TextureCube<float> c;\n\
         float4 main(float2 uv : A, int2 o : B) : SV_Target {\n\
           uint status;\n\
           float4 a = t.Sample(s, uv, int2(1, 2), 0.5, status);\n\
           float4 b = t.SampleLevel(s, uv, 2.0, o);\n\
           float d = c.SampleLevel(s, float3(1, 2, 3), 1.0, status);\n\
           return a + b + d;\n\
         }\n",
        &["-T", "ps_6_0", "-E", "main"],
    );
    assert_has(
        &text,
        &[
            "%type_2d_image = OpTypeImage %float 2D 2 0 0 1 Unknown",
            "%type_sampler = OpTypeSampler",
            "%type_sampled_image = OpTypeSampledImage %type_2d_image",
            "%SparseResidencyStruct = OpTypeStruct %uint %v4float",
            "OpImageSparseSampleImplicitLod %SparseResidencyStruct",
            "ConstOffset|MinLod",
            // A variable offset is `Offset` (legalization makes it constant).
            "Lod|Offset",
            "OpCapability ImageGatherExtended",
            // A cube has no offset parameter: the fourth argument is the status.
            "OpImageSparseSampleExplicitLod",
        ],
    );
}

#[test]
fn gathers_pick_a_component_and_take_four_offsets() {
    let text = compile(
        "Texture2D<float4> t; SamplerState s;\n\
         float4 main(float2 uv : A) : SV_Target {\n\
           return t.GatherGreen(s, uv, int2(1, 2), int2(3, 4), int2(5, 6), int2(7, 8))\n\
                + t.GatherRed(s, uv, int2(1, 1));\n\
         }\n",
        &["-T", "ps_6_0", "-E", "main"],
    );
    assert_has(&text, &["OpImageGather %v4float", "%int_1 ConstOffsets", "%int_0 ConstOffset"]);
}

#[test]
fn append_buffers_get_counters_bound_after_them() {
    let text = compile(
        "struct S { float4 f; };\n\
         AppendStructuredBuffer<S> abuf;\n\
         RWStructuredBuffer<S> counted;\n\
         RWStructuredBuffer<S> plain;\n\
         [numthreads(1, 1, 1)] void main() {\n\
           S s; s.f = 1; abuf.Append(s);\n\
           uint i = counted.IncrementCounter();\n\
           plain[i] = s;\n\
         }\n",
        &["-T", "cs_6_0", "-E", "main"],
    );
    assert_has(
        &text,
        &[
            "OpDecorate %abuf DescriptorSet 0\n               OpDecorate %abuf Binding 0\n               \
             OpDecorate %counter_var_abuf DescriptorSet 0\n               OpDecorate %counter_var_abuf Binding 1",
            "OpDecorate %counted Binding 2",
            "OpDecorate %counter_var_counted Binding 3",
            "OpDecorate %plain Binding 4",
            "%type_ACSBuffer_counter = OpTypeStruct %int",
            "OpAtomicIAdd %int",
        ],
    );
    assert!(!text.contains("counter_var_plain"), "{text}");
}

#[test]
fn storage_images_of_unknown_format_declare_what_they_do() {
    let text = compile(
        "RWTexture2D<float4> img;\n\
         [numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { img[id.xy] = img[id.xy] * 2; }\n",
        &["-T", "cs_6_0", "-E", "main", "-fspv-use-unknown-image-format"],
    );
    assert_has(
        &text,
        &[
            "OpCapability StorageImageReadWithoutFormat",
            "OpCapability StorageImageWriteWithoutFormat",
            "OpTypeImage %float 2D 2 0 0 2 Unknown",
        ],
    );
    let inferred = compile(
        "RWTexture2D<float2> img; RWBuffer<uint> buf;\n\
         [numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) { img[id.xy] = 1; buf[id.x] = 2; }\n",
        &["-T", "cs_6_0", "-E", "main"],
    );
    assert_has(
        &inferred,
        &[
            "OpTypeImage %float 2D 2 0 0 2 Rg32f",
            "OpCapability StorageImageExtendedFormats",
            "OpCapability ImageBuffer",
            "%type_buffer_image = OpTypeImage %uint Buffer 2 0 0 2 R32ui",
        ],
    );
}

#[test]
fn byte_address_buffers_load_and_store_any_type() {
    let text = compile(
        "struct S { float16_t a; double b; uint3 c[2]; };\n\
         ByteAddressBuffer src; RWByteAddressBuffer dst;\n\
         [numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
           S s = src.Load<S>(id.x);\n\
           dst.Store<S>(id.x, s);\n\
           dst.Store<half>(2, src.Load<half>(6));\n\
         }\n",
        &["-T", "cs_6_2", "-E", "main", "-enable-16bit-types"],
    );
    assert_has(
        &text,
        &[
            "OpUMod %uint",
            "OpUConvert %ushort",
            "OpCompositeConstruct %v2uint",
            "OpBitcast %double",
            "OpBitcast %v2uint",
            "OpBitcast %half",
        ],
    );
    // A 64-bit value is two words joined by a bitcast, with no 64-bit integer.
    assert!(!text.contains("OpCapability Int64"), "{text}");
}

#[test]
fn byte_address_templated_accesses_walk_the_address_as_dxc() {
    let text = compile(
        "struct S { float16_t a; float b; };\n\
         ByteAddressBuffer src; RWByteAddressBuffer dst;\n\
         [numthreads(1, 1, 1)] void main(uint3 id : SV_DispatchThreadID) {\n\
           int2 i = src.Load<int2>(id.x);\n\
           uint16_t2x3 m = src.Load<uint16_t2x3>(id.x);\n\
           S s[2] = src.Load<S[2]>(id.x);\n\
           uint2 w = uint2(1, 2);\n\
           dst.Store2(id.y, w);\n\
         }\n",
        &["-T", "cs_6_2", "-E", "main", "-enable-16bit-types"],
    );
    // 32-bit elements advance the word index.
    common::assert_consecutive(
        &text,
        &[
            "OpShiftRightLogical %uint",
            "OpAccessChain %_ptr_Uniform_uint %src %uint_0",
            "OpLoad %uint",
            "OpBitcast %int",
            "OpIAdd %uint",
            "OpAccessChain %_ptr_Uniform_uint %src %uint_0",
        ],
    );
    // 16-bit elements: the byte address's word, shifted by its byte in the word, and
    // the byte address advanced by 2; a matrix is read column-major.
    assert_has(&text, &["OpUMod %uint", "OpUConvert %ushort", "%uint_2"]);
    let columns = text.lines().filter(|l| l.contains("OpCompositeConstruct %v3ushort")).count();
    assert_eq!(columns, 2, "{text}");
    // A struct's end is its start plus its aligned size (4 + 4 bytes).
    assert_has(&text, &["OpIAdd %uint", "%uint_8"]);
    // StoreN: the word index before the value, then each word extracted and stored.
    let lines: Vec<&str> = text.lines().map(str::trim).collect();
    let value = lines.iter().position(|l| l.contains("OpLoad %v2uint %w")).expect("Store2 loads its value");
    assert!(lines[value - 1].contains("OpShiftRightLogical %uint"), "{text}");
    common::assert_consecutive(
        &text,
        &[
            "OpLoad %v2uint %w",
            "OpCompositeExtract %uint",
            "OpAccessChain %_ptr_Uniform_uint %dst %uint_0",
            "OpStore",
            "OpCompositeExtract %uint",
            "OpIAdd %uint",
            "OpAccessChain %_ptr_Uniform_uint %dst %uint_0",
            "OpStore",
        ],
    );
}

#[test]
fn an_empty_cbuffer_has_no_variable() {
    let source = "cbuffer empty {};\n\
         cbuffer only_resources { Texture2D t; };\n\
         cbuffer full { float4 c; };\n\
         float4 main(float2 uv : TEXCOORD) : SV_Target { return uv.xyxy + c; }\n";
    let text = compile(source, &["-T", "ps_6_0", "-E", "main"]);
    assert!(!text.contains("%empty = OpVariable"), "{text}");
    assert!(!text.contains("%only_resources = OpVariable"), "{text}");
    assert_has(&text, &["%t = OpVariable", "%full = OpVariable"]);
    // Without optimization too (dxc had left an unbound variable there).
    let args = ["-spirv", "-T", "ps_6_0", "-E", "main", "-O0"];
    let optimized = common::disassemble(&args, source);
    assert!(!optimized.contains("type_empty"), "{optimized}");
    common::assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);
}

#[test]
fn spec_constants_have_ids_and_uses() {
    let text = compile(
        "[[vk::constant_id(3)]] const int count = 5;\n\
         float main() : A { return count * 2.0; }\n",
        &["-T", "vs_6_0", "-E", "main"],
    );
    assert_has(&text, &["OpDecorate %count SpecId 3", "%count = OpSpecConstant %int 5"]);
}

#[test]
fn sampled_textures_write_the_empty_mask_and_fold_truncated_offsets() {
    let text = compile(
        "vk::SampledTexture2D<float4> t; vk::SampledTexture1DArray<float4> a;\n\
         float4 main(float2 uv : A) : SV_Target {\n\
           float4 g = t.Gather(uv);\n\
           float c = t.GatherCmpRed(uv, 0.5).x;\n\
           float4 l = a.Load(int3(1, 2, 3), int2(4, 5));\n\
           return g + c + l;\n\
         }\n",
        &["-T", "ps_6_7", "-E", "main"],
    );
    assert_has(
        &text,
        &[
            "OpImageGather %v4float %",
            "%int_0 None",
            "OpImageDrefGather %v4float",
            "%float_0_5 None",
            // `int2(4, 5)` truncated to the 1D offset is the constant 4.
            "Lod|ConstOffset",
            "%int_4",
        ],
    );
}

#[test]
fn texel_access_evaluates_the_coordinate_before_the_image() {
    let text = compile(
        "Texture2D<float4> t; Texture2DMS<float4> m;\n\
         float4 main(uint2 p : A, uint s : B) : SV_Target { return t[p] + m.sample[s][p]; }\n",
        &["-T", "ps_6_0", "-E", "main"],
    );
    let coord = text.find("OpLoad %v2uint %p").expect("coordinate load");
    let image = text.find("OpLoad %type_2d_image %t").expect("image load");
    assert!(coord < image, "coordinate after image:\n{text}");
}

#[test]
fn sample_positions_come_from_the_standard_tables() {
    let text = compile(
        "Texture2DMS<float4> t;\n\
         float2 main(int i : A) : SV_Target { return t.GetSamplePosition(i); }\n",
        &["-T", "ps_6_0", "-E", "main"],
    );
    assert_has(
        &text,
        &[
            "%var_GetSamplePosition_data_16 = OpVariable %_ptr_Function__arr_v2float_uint_16 Function",
            "OpImageQuerySamples %uint",
            "OpIEqual %bool %",
            "OpSelectionMerge %if_GetSamplePosition_merge8 None",
            "%if_GetSamplePosition_else16 = OpLabel",
            "%float_n0_4375",
        ],
    );
}

#[test]
fn vk_binding_of_any_resource_and_auto_binding_space() {
    let text = compile(
        "[[vk::binding(3, 2)]] Buffer<int> b : register(t1);\n\
         [[vk::binding(4)]] RWBuffer<float4> w;\n\
         SamplerState s : register(s2);\n\
         float4 main() : SV_Target { return b.Load(0) + w[0] + float4(0, 0, 0, 0); }\n",
        &["-T", "ps_6_0", "-E", "main", "-auto-binding-space", "5"],
    );
    assert_has(
        &text,
        &[
            "OpDecorate %b DescriptorSet 2",
            "OpDecorate %b Binding 3",
            "OpDecorate %w DescriptorSet 5",
            "OpDecorate %w Binding 4",
        ],
    );
}

#[test]
fn descriptor_heaps_are_runtime_arrays_bound_after_the_other_resources() {
    let text = compile(
        "RWStructuredBuffer<uint> a;\n\
         RWStructuredBuffer<uint> get() { return ResourceDescriptorHeap[4]; }\n\
         [numthreads(1, 1, 1)] void main() {\n\
           RWStructuredBuffer<uint> b = ResourceDescriptorHeap[1];\n\
           RWStructuredBuffer<uint> c = get();\n\
           Texture2D t = ResourceDescriptorHeap[2];\n\
           SamplerState s = SamplerDescriptorHeap[3];\n\
           a.IncrementCounter();\n\
           b.IncrementCounter();\n\
           c.DecrementCounter();\n\
           b[0] = (uint)t.SampleLevel(s, float2(0, 0), 0).x;\n\
         }\n",
        &["-T", "cs_6_6", "-E", "main"],
    );
    assert_has(
        &text,
        &[
            "OpCapability RuntimeDescriptorArray",
            "OpExtension \"SPV_EXT_descriptor_indexing\"",
            "OpDecorate %a Binding 0",
            "OpDecorate %counter_var_a Binding 1",
            "OpDecorate %ResourceDescriptorHeap Binding 2",
            "OpDecorate %SamplerDescriptorHeap Binding 3",
            "OpDecorate %counter_var_ResourceDescriptorHeap Binding 4",
            "OpAccessChain %_ptr_Uniform_type_RWStructuredBuffer_uint %ResourceDescriptorHeap %uint_1",
            "OpAccessChain %_ptr_UniformConstant_type_sampler %SamplerDescriptorHeap %uint_3",
            // Counters share their buffer's index, through a function's return too.
            "OpAccessChain %_ptr_Uniform_int %counter_var_ResourceDescriptorHeap %uint_1 %uint_0",
            "OpAccessChain %_ptr_Uniform_int %counter_var_ResourceDescriptorHeap %uint_4 %uint_0",
        ],
    );
}

#[test]
fn heap_bindings_from_the_command_line_are_reserved() {
    let text = compile(
        "RWStructuredBuffer<uint> a;\n\
         [numthreads(1, 1, 1)] void main() { a.IncrementCounter(); }\n",
        &[
            "-T",
            "cs_6_6",
            "-E",
            "main",
            "-fvk-bind-resource-heap",
            "0",
            "0",
            "-fvk-bind-counter-heap",
            "1",
            "0",
        ],
    );
    assert_has(&text, &["OpDecorate %a Binding 2", "OpDecorate %counter_var_a Binding 3"]);
}

#[test]
fn image_instructions_write_the_empty_operand_mask() {
    let text = compile(
        "Buffer<int> b; RWTexture2D<float4> w; Texture2D t; SamplerState s;\n\
         float4 main(float2 uv : A) : SV_Target { w[uint2(0, 0)] = t.Sample(s, uv); return b[3] + w[uint2(1, 1)]; }\n",
        &["-T", "ps_6_0", "-E", "main"],
    );
    assert_has(
        &text,
        &[
            "OpImageSampleImplicitLod %v4float %",
            "OpImageFetch %v4int %",
            "%uint_3 None",
            "OpImageWrite %",
            "OpImageRead %v4float %",
        ],
    );
    for line in text.lines().filter(|l| l.contains("= OpImage") && !l.contains("OpImageQuery")) {
        if line.contains("OpImageSample") || line.contains("OpImageFetch") || line.contains("OpImageRead") {
            assert!(line.trim_end().ends_with("None"), "no mask: {line}");
        }
    }
}

#[test]
fn disassembly_uses_the_canonical_enumerant_names() {
    let text = compile(
        "Texture2D t; SamplerState s; RWStructuredBuffer<float4> o;\n\
         [numthreads(2, 2, 1)] void main(uint3 id : SV_GroupThreadID) { o[id.x] = t.Sample(s, float2(0.5, 0.5)); }\n",
        &["-T", "cs_6_6", "-E", "main", "-fspv-extension=SPV_NV_compute_shader_derivatives"],
    );
    assert_has(
        &text,
        &["OpCapability ComputeDerivativeGroupQuadsKHR", "OpExecutionMode %main DerivativeGroupQuadsKHR"],
    );
}
