//! Binary -> IR -> binary on hand-written modules that exercise what MLIR's dialect
//! lacks (fallback ops and types), legacy decorations and grammar-driven decorations.

use spirvkit_binary::{
    assemble, disassemble, read, words_to_bytes, AsmOptions, DisOptions, Endian, TargetEnv,
};
use spirvkit_translate::{deserialize, serialize, DeserializeOptions, Ir, SerializeOptions};

fn round_trip(text: &str, env: &str) -> String {
    let options = AsmOptions { target_env: TargetEnv::parse(env).unwrap(), ..AsmOptions::default() };
    let words = assemble(text, &options).expect("assembles");
    let bytes = words_to_bytes(&words, Endian::Little);
    let mut ir = Ir::new();
    let module = deserialize(&bytes, &mut ir, &DeserializeOptions::default()).expect("deserializes");
    let out = serialize(
        &ir,
        module,
        &SerializeOptions { check_requirements: false, ..SerializeOptions::default() },
    )
    .expect("serializes");
    let module = read(&words_to_bytes(&out, Endian::Little)).expect("reads back");
    String::from_utf8(disassemble(&module, &DisOptions { header: false, ..DisOptions::default() }))
        .expect("UTF-8")
}

#[test]
fn instructions_and_types_the_dialect_lacks_survive() {
    let text = "OpCapability Shader\nOpCapability RayTracingKHR\nOpExtension \"SPV_KHR_ray_tracing\"\n\
        %glsl = OpExtInstImport \"GLSL.std.450\"\nOpMemoryModel Logical GLSL450\n\
        OpEntryPoint RayGenerationKHR %main \"main\" %tlas\n\
        OpDecorate %tlas DescriptorSet 0\nOpDecorate %tlas Binding 0\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%float = OpTypeFloat 32\n\
        %v4 = OpTypeVector %float 4\n%m4 = OpTypeMatrix %v4 4\n%pm = OpTypePointer Function %m4\n\
        %as = OpTypeAccelerationStructureKHR\n%pas = OpTypePointer UniformConstant %as\n\
        %tlas = OpVariable %pas UniformConstant\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%var = OpVariable %pm Function\n\
        %m = OpLoad %m4 %var\n%inv = OpExtInst %m4 %glsl MatrixInverse %m\nOpStore %var %inv\n\
        %a = OpLoad %as %tlas\nOpReturn\nOpFunctionEnd\n";
    let out = round_trip(text, "spv1.4");
    assert!(out.contains("OpTypeAccelerationStructureKHR"), "{out}");
    assert!(out.contains("MatrixInverse"), "{out}");
    assert!(out.contains("OpTypePointer UniformConstant"), "{out}");
}

#[test]
fn legacy_buffer_blocks_get_no_block_and_grammar_decorations_are_kept() {
    let text = "OpCapability Shader\nOpCapability ShaderNonUniform\nOpExtension \"SPV_EXT_descriptor_indexing\"\n\
        OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
        OpDecorate %S BufferBlock\nOpMemberDecorate %S 0 Offset 0\nOpDecorate %buf DescriptorSet 0\n\
        OpDecorate %buf Binding 0\nOpDecorate %x NonUniform\n\
        %void = OpTypeVoid\n%fn = OpTypeFunction %void\n%uint = OpTypeInt 32 0\n%S = OpTypeStruct %uint\n\
        %pS = OpTypePointer Uniform %S\n%pu = OpTypePointer Uniform %uint\n%buf = OpVariable %pS Uniform\n\
        %zero = OpConstant %uint 0\n\
        %main = OpFunction %void None %fn\n%entry = OpLabel\n%p = OpAccessChain %pu %buf %zero\n\
        %x = OpLoad %uint %p\n%y = OpIAdd %uint %x %x\nOpStore %p %y\nOpReturn\nOpFunctionEnd\n";
    let out = round_trip(text, "spv1.0");
    assert!(out.contains("BufferBlock"), "{out}");
    assert!(!out.contains("OpDecorate %S Block") && !out.contains(" Block\n"), "{out}");
    assert!(out.contains("NonUniform"), "{out}");
}

#[test]
fn shapeless_arm_tensors_round_trip() {
    use spirvkit_translate::driver::{run, Mode, TranslateOptions};
    let text = "spirv.module Logical Vulkan requires #spirv.vce<v1.0, [VulkanMemoryModel, Shader, TensorsARM, Linkage], \
                [SPV_KHR_vulkan_memory_model, SPV_ARM_tensors]> {\n\
                  spirv.func @unranked(%arg0: !spirv.arm.tensor<*xi32>) \"None\" {\n    spirv.Return\n  }\n\
                  spirv.func @unshaped(%arg0: !spirv.arm.tensor<?x?xi32>) \"None\" {\n    spirv.Return\n  }\n}\n";
    let options =
        TranslateOptions { mode: Mode::Roundtrip, no_implicit_module: true, ..TranslateOptions::default() };
    let result = run(text.as_bytes(), "t.mlir", &options);
    assert!(result.success, "{}", result.diagnostics_text);
    let out = String::from_utf8(result.output.into_bytes()).unwrap();
    assert!(out.contains("%arg0: !spirv.arm.tensor<*xi32>"), "{out}");
    assert!(out.contains("%arg0: !spirv.arm.tensor<?x?xi32>"), "{out}");
}
