//! Type constructs MLIR's dialect cannot express, round-tripped: our own assembly is
//! deserialized, printed, parsed back and serialized; the result must mean what the
//! original means, and a second round trip must change nothing.

use crate::{deserialize, serialize, DeserializeOptions, SerializeOptions};
use spirvkit_binary::{assemble, words_to_bytes, AsmOptions, Endian, TargetEnv};
use spirvkit_ir::Ir;

fn binary(text: &str, target: &str) -> Vec<u32> {
    let target_env = TargetEnv::parse(target).expect("known target");
    assemble(text, &AsmOptions { target_env, preserve_numeric_ids: false }).expect("valid assembly")
}

/// The printed IR of `words`.
fn print(words: &[u32]) -> String {
    let mut ir = Ir::new();
    let bytes = words_to_bytes(words, Endian::Little);
    let op = deserialize(&bytes, &mut ir, &DeserializeOptions::default()).expect("deserializes");
    spirvkit_ir::print(&ir, op, spirvkit_ir::PrintOptions::default())
}

/// Parses printed IR and serializes its module.
fn serialize_text(text: &str) -> Vec<u32> {
    let (ir, top) = spirvkit_ir::parse(text, "t.mlir").unwrap_or_else(|e| panic!("parses: {e:?}\n{text}"));
    let module = crate::test_support::first_op(&ir, top, "spirv.module").expect("a spirv.module");
    serialize(&ir, module, &SerializeOptions::default()).unwrap_or_else(|e| panic!("serializes: {e}\n{text}"))
}

fn module(words: &[u32]) -> spirvkit_binary::Module {
    spirvkit_binary::read(&words_to_bytes(words, Endian::Little)).expect("reads")
}

/// Round-trips `asm` twice and returns the printed IR.
fn round_trip(asm: &str, target: &str) -> String {
    let original = binary(asm, target);
    let text = print(&original);
    let words = serialize_text(&text);
    let comparison = spirvkit_binary::equiv::compare(&module(&original), &module(&words));
    let semantic: Vec<_> = comparison.semantic().collect();
    assert!(semantic.is_empty(), "{semantic:#?}\n{text}");
    let again = print(&words);
    assert_eq!(again, text, "the second round trip prints differently");
    assert_eq!(serialize_text(&again), words, "the second round trip serializes differently");
    text
}

/// Pointers decorated with `ArrayStride`, stepped through by `OpPtrAccessChain`.
const STRIDED_POINTERS: &str = r#"OpCapability Shader
OpCapability PhysicalStorageBufferAddresses
OpExtension "SPV_KHR_physical_storage_buffer"
OpMemoryModel PhysicalStorageBuffer64 GLSL450
OpEntryPoint GLCompute %main "main" %pc
OpExecutionMode %main LocalSize 1 1 1
OpDecorate %ptr ArrayStride 4
OpDecorate %S Block
OpMemberDecorate %S 0 Offset 0
OpMemberDecorate %S 1 Offset 8
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%ptr = OpTypePointer PhysicalStorageBuffer %float
%plain = OpTypePointer PhysicalStorageBuffer %int
%S = OpTypeStruct %ptr %plain
%pcptr = OpTypePointer PushConstant %S
%pptr = OpTypePointer PushConstant %ptr
%pc = OpVariable %pcptr PushConstant
%int_0 = OpConstant %int 0
%int_3 = OpConstant %int 3
%main = OpFunction %void None %fn
%l = OpLabel
%a = OpAccessChain %pptr %pc %int_0
%p = OpLoad %ptr %a
%q = OpPtrAccessChain %ptr %p %int_3
%v = OpLoad %float %q Aligned 4
OpStore %q %v Aligned 4
OpReturn
OpFunctionEnd
"#;

#[test]
fn pointer_strides_round_trip() {
    let text = round_trip(STRIDED_POINTERS, "vulkan1.2");
    assert!(text.contains("!spirv.ptr<f32, PhysicalStorageBuffer, stride=4>"), "{text}");
    // The unstrided pointer prints as MLIR prints it.
    assert!(text.contains("!spirv.ptr<si32, PhysicalStorageBuffer> [8]"), "{text}");
}

/// Arrays sized by a spec constant and by a spec constant operation, used through
/// access chains.
const SPEC_LENGTH_ARRAYS: &str = r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main "main" %buf %shared
OpExecutionMode %main LocalSize 1 1 1
OpName %N "N"
OpDecorate %N SpecId 0
OpDecorate %arr ArrayStride 16
OpDecorate %arr2 ArrayStride 4
OpDecorate %S Block
OpMemberDecorate %S 0 Offset 0
OpDecorate %buf DescriptorSet 0
OpDecorate %buf Binding 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%int = OpTypeInt 32 1
%uint = OpTypeInt 32 0
%N = OpSpecConstant %int 64
%int_1 = OpConstant %int 1
%int_0 = OpConstant %int 0
%len = OpSpecConstantOp %int IAdd %N %int_1
%arr = OpTypeArray %v4float %N
%arr2 = OpTypeArray %uint %len
%S = OpTypeStruct %arr
%ptr_S = OpTypePointer Uniform %S
%ptr_v4 = OpTypePointer Uniform %v4float
%ptr_arr2 = OpTypePointer Workgroup %arr2
%ptr_u = OpTypePointer Workgroup %uint
%buf = OpVariable %ptr_S Uniform
%shared = OpVariable %ptr_arr2 Workgroup
%main = OpFunction %void None %fn
%l = OpLabel
%a = OpAccessChain %ptr_v4 %buf %int_0 %int_1
%v = OpLoad %v4float %a
%b = OpAccessChain %ptr_u %shared %int_1
%w = OpLoad %uint %b
OpStore %b %w
OpReturn
OpFunctionEnd
"#;

#[test]
fn arrays_sized_by_spec_constants_round_trip() {
    let text = round_trip(SPEC_LENGTH_ARRAYS, "spv1.3");
    assert!(text.contains("!spirv.array<@N x vector<4xf32>, stride=16>"), "{text}");
    assert!(text.contains("!spirv.array<IAdd(@N, 1 : si32) : si32 x i32, stride=4>"), "{text}");
}

#[test]
fn array_lengths_of_non_integer_spec_operations_are_refused() {
    let text = SPEC_LENGTH_ARRAYS.replace(
        "%len = OpSpecConstantOp %int IAdd %N %int_1",
        "%len = OpSpecConstantOp %int CompositeExtract %N 0",
    );
    let mut ir = Ir::new();
    let bytes = words_to_bytes(&binary(&text, "spv1.3"), Endian::Little);
    let err = deserialize(&bytes, &mut ir, &DeserializeOptions::default()).expect_err("refused");
    assert!(
        err.message.contains("not supported yet: array length of OpSpecConstantOp OpCompositeExtract"),
        "{err}"
    );
}

/// A descriptor heap through untyped pointers: OpTypeUntypedPointerKHR,
/// OpUntypedVariableKHR, OpUntypedAccessChainKHR (its base type an operand),
/// OpTypeBufferEXT, OpBufferPointerEXT, and runtime arrays strided by
/// OpConstantSizeOfEXT (ArrayStrideIdEXT).
const UNTYPED_HEAP: &str = r#"OpCapability Shader
OpCapability UntypedPointersKHR
OpCapability DescriptorHeapEXT
OpExtension "SPV_EXT_descriptor_heap"
OpExtension "SPV_KHR_untyped_pointers"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %heap %out
OpExecutionMode %main OriginUpperLeft
OpDecorate %heap BuiltIn ResourceHeapEXT
OpDecorateId %images ArrayStrideIdEXT %image_size
OpDecorateId %buffers ArrayStrideIdEXT %buffer_size
OpDecorate %Data Block
OpMemberDecorate %Data 0 Offset 0
OpDecorate %out Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%float = OpTypeFloat 32
%v4float = OpTypeVector %float 4
%uint = OpTypeInt 32 0
%int = OpTypeInt 32 1
%int_0 = OpConstant %int 0
%uint_3 = OpConstant %uint 3
%heap_ptr = OpTypeUntypedPointerKHR UniformConstant
%heap = OpUntypedVariableKHR %heap_ptr UniformConstant
%image = OpTypeImage %float 2D 0 0 0 1 Unknown
%image_size = OpConstantSizeOfEXT %uint %image
%images = OpTypeRuntimeArray %image
%buffer = OpTypeBufferEXT StorageBuffer
%buffer_size = OpConstantSizeOfEXT %uint %buffer
%buffers = OpTypeRuntimeArray %buffer
%Data = OpTypeStruct %v4float
%ptr_Data = OpTypePointer StorageBuffer %Data
%ptr_v4 = OpTypePointer StorageBuffer %v4float
%ptr_out = OpTypePointer Output %v4float
%out = OpVariable %ptr_out Output
%main = OpFunction %void None %fn
%l = OpLabel
%a = OpUntypedAccessChainKHR %heap_ptr %images %heap %uint_3
%img = OpLoad %image %a
%b = OpUntypedAccessChainKHR %heap_ptr %buffers %heap %uint_3
%data = OpBufferPointerEXT %ptr_Data %b
%c = OpAccessChain %ptr_v4 %data %int_0
%v = OpLoad %v4float %c
OpStore %out %v
OpReturn
OpFunctionEnd
"#;

#[test]
fn untyped_pointers_and_descriptor_heaps_round_trip() {
    let text = round_trip(UNTYPED_HEAP, "spv1.5");
    for expected in [
        "spirv.GlobalVariable @spirv_var_2 built_in(\"ResourceHeapEXT\") : !spirv.UntypedPointerKHR<UniformConstant>",
        "!spirv.rtarray<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>, stride=sizeof(!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Unknown>) : i32>",
        "!spirv.rtarray<!spirv.BufferEXT<StorageBuffer>, stride=sizeof(!spirv.BufferEXT<StorageBuffer>) : i32>",
        "\"spirv.BufferPointerEXT\"",
    ] {
        assert!(text.contains(expected), "{expected}\n{text}");
    }
}

#[test]
fn constant_strides_round_trip() {
    let text = UNTYPED_HEAP.replace(
        "OpDecorateId %images ArrayStrideIdEXT %image_size",
        "OpDecorateId %images ArrayStrideIdEXT %uint_3",
    );
    let printed = round_trip(&text, "spv1.5");
    assert!(printed.contains(", stride=3 : i32>"), "{printed}");
}

#[test]
fn decorations_an_array_or_pointer_type_cannot_hold_are_refused() {
    for (from, to) in [
        ("OpDecorate %arr2 ArrayStride 4", "OpDecorate %arr2 RelaxedPrecision"),
        ("OpDecorate %arr2 ArrayStride 4", "OpDecorateId %arr2 ArrayStrideIdEXT %int_1"),
        ("OpDecorate %S Block", "OpDecorate %S Block\nOpDecorate %ptr_u Volatile"),
    ] {
        let text = SPEC_LENGTH_ARRAYS.replace(from, to);
        let mut ir = Ir::new();
        let bytes = words_to_bytes(&binary(&text, "spv1.3"), Endian::Little);
        let err = deserialize(&bytes, &mut ir, &DeserializeOptions::default()).expect_err("refused");
        assert!(err.message.starts_with("not supported yet: "), "{err}");
    }
}

#[test]
fn array_lengths_the_serializer_cannot_resolve_are_errors() {
    for length in ["@n", "NoSuchOperation(@n) : i32"] {
        let text = format!(
            "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {{\n  \
             spirv.GlobalVariable @v : !spirv.ptr<!spirv.array<{length} x f32>, Private>\n  \
             spirv.SpecConstant @n = 4 : i32\n}}\n"
        );
        let (ir, top) = spirvkit_ir::parse(&text, "t.mlir").unwrap_or_else(|e| panic!("parses: {e:?}"));
        let module = crate::test_support::first_op(&ir, top, "spirv.module");
        let result = serialize(&ir, module.expect("a module"), &SerializeOptions::default());
        assert!(result.is_err(), "{length}");
    }
}

/// Corrupted modules using the constructs above: deserializing, printing, parsing back
/// and serializing what deserializes never panics.
#[test]
fn bit_flips_in_these_constructs_never_panic() {
    for (asm, target) in
        [(STRIDED_POINTERS, "vulkan1.2"), (SPEC_LENGTH_ARRAYS, "spv1.3"), (UNTYPED_HEAP, "spv1.5")]
    {
        let bytes = words_to_bytes(&binary(asm, target), Endian::Little);
        for i in 20..bytes.len() {
            for bit in [0x01u8, 0x04, 0x80] {
                let mut flipped = bytes.clone();
                flipped[i] ^= bit;
                let mut ir = Ir::new();
                let Ok(op) = deserialize(&flipped, &mut ir, &DeserializeOptions::default()) else { continue };
                let _ = serialize(&ir, op, &SerializeOptions::default());
                let text = spirvkit_ir::print(&ir, op, spirvkit_ir::PrintOptions::default());
                if let Ok((ir, top)) = spirvkit_ir::parse(&text, "t.mlir") {
                    if let Some(module) = crate::test_support::first_op(&ir, top, "spirv.module") {
                        let _ = serialize(&ir, module, &SerializeOptions::default());
                    }
                }
            }
        }
    }
}
