//! Deserialization tests: our own assembly in, mlir-translate-22's text (captured for the
//! same binaries) out; malformed binaries give errors, never panics.

use super::*;
use spirvkit_binary::{assemble, words_to_bytes, AsmOptions, Endian, TargetEnv};

fn binary(text: &str) -> Vec<u8> {
    // Version 1.0, as `spirv-as --target-env spv1.0` made the oracle's inputs.
    let target_env = TargetEnv::parse("spv1.0").expect("known target");
    let words =
        assemble(text, &AsmOptions { target_env, preserve_numeric_ids: false }).expect("valid assembly");
    words_to_bytes(&words, Endian::Little)
}

fn translate(bytes: &[u8], structurize: bool) -> std::result::Result<String, DeserializeError> {
    let mut ir = Ir::new();
    let options = DeserializeOptions { structurize, debug_locations: false };
    let op = deserialize(bytes, &mut ir, &options)?;
    let mut text = spirvkit_ir::print(&ir, op, spirvkit_ir::PrintOptions::default());
    text.truncate(text.trim_end_matches('\n').len());
    text.push('\n');
    Ok(text)
}

fn assert_deserializes(asm: &str, structurize: bool, expected: &str) {
    match translate(&binary(asm), structurize) {
        Ok(text) => assert_eq!(text, expected),
        Err(e) => panic!("deserialization failed: {e}"),
    }
}

/// Globals with decorations, a block struct, constants at their uses, GLSL.std.450,
/// entry point and execution mode.
const COMPUTE: &str = r#"               OpCapability Shader
          %1 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 8 1 1
               OpName %main "main"
               OpName %buf "buf"
               OpName %gid "gid"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rt ArrayStride 4
               OpMemberDecorate %S 0 Offset 0
               OpDecorate %S Block
               OpDecorate %buf DescriptorSet 0
               OpDecorate %buf Binding 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %float = OpTypeFloat 32
     %v3uint = OpTypeVector %uint 3
         %rt = OpTypeRuntimeArray %float
          %S = OpTypeStruct %rt
      %ptr_S = OpTypePointer StorageBuffer %S
    %ptr_f = OpTypePointer StorageBuffer %float
     %ptr_in = OpTypePointer Input %v3uint
        %buf = OpVariable %ptr_S StorageBuffer
        %gid = OpVariable %ptr_in Input
      %int_0 = OpConstant %int 0
    %float_2 = OpConstant %float 2.5
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %10 = OpLoad %v3uint %gid
         %11 = OpCompositeExtract %uint %10 0
         %12 = OpAccessChain %ptr_f %buf %int_0 %11
         %13 = OpLoad %float %12 Aligned 4
         %14 = OpExtInst %float %1 Sqrt %13
         %15 = OpFMul %float %14 %float_2
               OpStore %12 %15
               OpReturn
               OpFunctionEnd
"#;

/// `mlir-translate-22 --deserialize-spirv` of COMPUTE.
const COMPUTE_MLIR: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  spirv.GlobalVariable @buf bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @main() "None" {
    %gid_addr = spirv.mlir.addressof @gid : !spirv.ptr<vector<3xi32>, Input>
    %0 = spirv.Load "Input" %gid_addr : vector<3xi32>
    %1 = spirv.CompositeExtract %0[0 : i32] : vector<3xi32>
    %buf_addr = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>
    %cst0_si32 = spirv.Constant 0 : si32
    %2 = spirv.AccessChain %buf_addr[%cst0_si32, %1] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0]), Block>, StorageBuffer>, si32, i32 -> !spirv.ptr<f32, StorageBuffer>
    %3 = spirv.Load "StorageBuffer" %2 ["Aligned", 4] : f32
    %4 = spirv.GL.Sqrt %3 : f32
    %cst_f32 = spirv.Constant 2.500000e+00 : f32
    %5 = spirv.FMul %4, %cst_f32 : f32
    spirv.Store "StorageBuffer" %2, %5 : f32
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main, @gid
  spirv.ExecutionMode @main "LocalSize", 8, 1, 1
}
"#;

/// A loop with phis (plain CFG: structurization off).
const LOOP: &str = r#"               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpName %f "f"
       %uint = OpTypeInt 32 0
       %bool = OpTypeBool
         %fn = OpTypeFunction %uint %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
    %uint_10 = OpConstant %uint 10
          %f = OpFunction %uint None %fn
          %n = OpFunctionParameter %uint
      %entry = OpLabel
               OpBranch %header
     %header = OpLabel
          %i = OpPhi %uint %uint_0 %entry %next %body
        %acc = OpPhi %uint %uint_1 %entry %acc2 %body
               OpLoopMerge %exit %body None
         %lt = OpULessThan %bool %i %n
               OpBranchConditional %lt %body %exit
       %body = OpLabel
       %acc2 = OpIMul %uint %acc %uint_10
       %next = OpIAdd %uint %i %uint_1
               OpBranch %header
       %exit = OpLabel
               OpReturnValue %acc
               OpFunctionEnd
"#;

/// `mlir-translate-22 --deserialize-spirv --spirv-structurize-control-flow=false` of LOOP.
const LOOP_MLIR: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  spirv.func @f(%arg0: i32) -> i32 "None" {
    %cst0_i32 = spirv.Constant 0 : i32
    %cst1_i32 = spirv.Constant 1 : i32
    spirv.Branch ^bb1(%cst0_i32, %cst1_i32 : i32, i32)
  ^bb1(%0: i32, %1: i32):  // 2 preds: ^bb0, ^bb2
    %2 = spirv.ULessThan %0, %arg0 : i32
    spirv.BranchConditional %2, ^bb2, ^bb3
  ^bb2:  // pred: ^bb1
    %cst10_i32 = spirv.Constant 10 : i32
    %3 = spirv.IMul %1, %cst10_i32 : i32
    %cst1_i32_0 = spirv.Constant 1 : i32
    %4 = spirv.IAdd %0, %cst1_i32_0 : i32
    spirv.Branch ^bb1(%4, %3 : i32, i32)
  ^bb3:  // pred: ^bb1
    spirv.ReturnValue %1 : i32
  }
}
"#;

#[test]
fn compute_shader_matches_mlir() {
    assert_deserializes(COMPUTE, true, COMPUTE_MLIR);
}

#[test]
fn phis_become_block_arguments_passed_by_branches() {
    assert_deserializes(LOOP, false, LOOP_MLIR);
}

#[test]
fn malformed_headers_are_errors() {
    for bytes in
        [&b""[..], b"garbage!", &[0x03, 0x02, 0x23, 0x07, 0, 0, 1, 0, 0, 0, 0, 0, 9, 0, 0, 0, 0, 0, 0]]
    {
        assert!(translate(bytes, true).is_err());
    }
}

#[test]
fn phi_of_an_undefined_id_is_an_error() {
    let text = LOOP.replace("%acc2 %body", "%missing %body").replace("%acc2 = OpIMul", "%unused = OpIMul");
    let err = translate(&binary(&text), false).expect_err("undefined phi value");
    assert!(err.message.contains("use of undefined <id>"), "{err}");
}

#[test]
fn truncations_and_bit_flips_never_panic() {
    let bytes = binary(COMPUTE);
    for len in (0..bytes.len()).step_by(4) {
        let _ = translate(&bytes[..len], false);
    }
    for i in 20..bytes.len() {
        for bit in [0x01u8, 0x10, 0x80] {
            let mut flipped = bytes.clone();
            flipped[i] ^= bit;
            let _ = translate(&flipped, false);
        }
    }
}
