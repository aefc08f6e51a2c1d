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
fn use_of_a_value_from_an_unreachable_block_is_an_error() {
    // Both edges of the selection go to %a, so %b is unreachable; the merge block
    // uses what %b defines (spirv-val: the definition does not dominate the use).
    // Set aside with the dead blocks, the value would be out of the use's sight.
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %bool = OpTypeBool\n%int = OpTypeInt 32 1\n%ptr = OpTypePointer Function %bool\n%c1 = OpConstant %int 1\n\
        %main = OpFunction %void None %fn\n%e = OpLabel\n%var = OpVariable %ptr Function\n\
        %c = OpSLessThan %bool %c1 %c1\nOpSelectionMerge %m None\nOpBranchConditional %c %a %a\n\
        %a = OpLabel\nOpBranch %m\n%b = OpLabel\n%v = OpLogicalNot %bool %c\nOpBranch %m\n\
        %m = OpLabel\nOpStore %var USE\nOpReturn\nOpFunctionEnd\n";
    let err = translate(&binary(&text.replace("USE", "%v")), true).expect_err("a use out of dominance");
    assert!(err.message.contains("defined in an unreachable block"), "{err}");
    // Used only where it is defined, the unreachable block is fine.
    assert!(translate(&binary(&text.replace("USE", "%c")), true).is_ok());
}

/// A value defined on one arm of a selection and used after its merge: the other arm
/// also leads there, so the definition does not dominate the use (spirv-val refuses
/// it). Refused with the value named, not given a `spirv.Undef` on the other path;
/// an OpPhi value from a block its definition does not dominate likewise.
#[test]
fn a_value_defined_on_one_arm_and_used_after_the_merge_is_an_error() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\nOpName %v \"v\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
        %bool = OpTypeBool\n%uint = OpTypeInt 32 0\n%uint_1 = OpConstant %uint 1\n%true = OpConstantTrue %bool\n\
        %pu = OpTypePointer Function %uint\n%main = OpFunction %void None %fn\n%entry = OpLabel\n\
        %var = OpVariable %pu Function\nOpSelectionMerge %merge None\nOpBranchConditional %true %then %else\n\
        %then = OpLabel\n%v = OpIAdd %uint %uint_1 %uint_1\nOpBranch %merge\n%else = OpLabel\nOpBranch %merge\n\
        %merge = OpLabel\nUSE\nOpReturn\nOpFunctionEnd\n";
    for structurize in [true, false] {
        let err = translate(&binary(&text.replace("USE", "OpStore %var %v")), structurize)
            .expect_err("a use out of dominance");
        assert!(err.message.contains("<id> 2 (v) is defined in block <id> 13"), "{err}");
        assert!(err.message.contains("does not dominate its use in block <id> 12 (spirv.Store)"), "{err}");
    }
    let phi = "%p = OpPhi %uint %v %then %v %else\nOpStore %var %p";
    let err = translate(&binary(&text.replace("USE", phi)), true).expect_err("a phi value out of dominance");
    assert!(err.message.contains("its use as an OpPhi value from block <id> 14"), "{err}");
    // From its own arm only, the value is fine.
    let phi = "%p = OpPhi %uint %v %then %uint_1 %else\nOpStore %var %p";
    assert!(translate(&binary(&text.replace("USE", phi)), true).is_ok());
}

/// A value defined before a `break` out of a loop from a nested selection and used
/// after the loop is valid: the structurizer threads it out of the selection with a
/// `spirv.Undef` on the path that does not break (and does not use it).
#[test]
fn a_value_defined_before_a_break_is_used_after_the_loop() {
    let text = "OpCapability Shader\n\
        OpMemoryModel Logical GLSL450\n\
        OpEntryPoint GLCompute %main \"main\"\n\
        OpExecutionMode %main LocalSize 1 1 1\n\
        OpName %v \"v\"\n\
        %void = OpTypeVoid\n\
        %fn = OpTypeFunction %void\n\
        %bool = OpTypeBool\n\
        %uint = OpTypeInt 32 0\n\
        %uint_1 = OpConstant %uint 1\n\
        %pu = OpTypePointer Function %uint\n\
        %main = OpFunction %void None %fn\n\
        %entry = OpLabel\n\
        %var = OpVariable %pu Function\n\
        OpBranch %header\n\
        %header = OpLabel\n\
        OpLoopMerge %exit %latch None\n\
        OpBranch %body\n\
        %body = OpLabel\n\
        %x = OpLoad %uint %var\n\
        %c = OpULessThan %bool %x %uint_1\n\
        OpSelectionMerge %sm None\n\
        OpBranchConditional %c %then %sm\n\
        %then = OpLabel\n\
        %v = OpIAdd %uint %x %uint_1\n\
        OpBranch %exit\n\
        %sm = OpLabel\n\
        OpBranch %latch\n\
        %latch = OpLabel\n\
        OpBranch %header\n\
        %exit = OpLabel\n\
        OpStore %var %v\n\
        OpReturn\n\
        OpFunctionEnd\n";
    let out = translate(&binary(text), true).expect("deserializes");
    assert!(out.contains("spirv.Undef"), "{out}");
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

/// Spec constants (SpecId, a composite, OpSpecConstantOp re-materialized at each use).
const SPEC: &str = r#"               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpName %sc "sc"
               OpName %scc "scc"
               OpName %f "f"
               OpDecorate %sc SpecId 3
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
      %v2int = OpTypeVector %int 2
         %fn = OpTypeFunction %uint %int
     %uint_1 = OpConstant %uint 1
     %uint_7 = OpConstant %uint 7
     %int_m5 = OpConstant %int -5
         %sc = OpSpecConstant %uint 42
        %sc2 = OpSpecConstant %int 3
        %scc = OpSpecConstantComposite %v2int %sc2 %sc2
         %op = OpSpecConstantOp %uint IAdd %sc %uint_1
        %op2 = OpSpecConstantOp %uint IMul %op %op
          %f = OpFunction %uint None %fn
          %x = OpFunctionParameter %int
      %entry = OpLabel
          %v = OpCompositeExtract %int %scc 1
          %s = OpIAdd %int %v %x
               OpReturnValue %op2
               OpFunctionEnd
"#;

/// `mlir-translate-22 --deserialize-spirv` of SPEC (assembled for SPIR-V 1.3).
const SPEC_MLIR: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []> {
  spirv.SpecConstant @sc spec_id(3) = 42 : i32
  spirv.SpecConstant @spirv_spec_const_11 = 3 : si32
  spirv.SpecConstantComposite @scc (@spirv_spec_const_11, @spirv_spec_const_11) : vector<2xsi32>
  spirv.func @f(%arg0: si32) -> i32 "None" {
    %0 = spirv.mlir.referenceof @scc : vector<2xsi32>
    %1 = spirv.CompositeExtract %0[1 : i32] : vector<2xsi32>
    %2 = spirv.IAdd %1, %arg0 : si32
    %3 = spirv.mlir.referenceof @sc : i32
    %cst1_i32 = spirv.Constant 1 : i32
    %4 = spirv.SpecConstantOperation wraps "spirv.IAdd"(%3, %cst1_i32) : (i32, i32) -> i32
    %5 = spirv.mlir.referenceof @sc : i32
    %cst1_i32_0 = spirv.Constant 1 : i32
    %6 = spirv.SpecConstantOperation wraps "spirv.IAdd"(%5, %cst1_i32_0) : (i32, i32) -> i32
    %7 = spirv.SpecConstantOperation wraps "spirv.IMul"(%4, %6) : (i32, i32) -> i32
    spirv.ReturnValue %7 : i32
  }
}
"#;

/// A recursive struct through OpTypeForwardPointer; member decorations (MLIR lists them in its hash map order).
const LAYOUT: &str = r#"               OpCapability Shader
               OpCapability PhysicalStorageBufferAddresses
               OpExtension "SPV_KHR_physical_storage_buffer"
               OpMemoryModel PhysicalStorageBuffer64 GLSL450
               OpName %Node "Node"
               OpName %Mats "Mats"
               OpName %nodes "nodes"
               OpName %mats "mats"
               OpMemberDecorate %Node 0 Offset 0
               OpMemberDecorate %Node 1 Offset 8
               OpDecorate %Node Block
               OpMemberDecorate %Mats 0 ColMajor
               OpMemberDecorate %Mats 0 NonWritable
               OpMemberDecorate %Mats 0 Offset 0
               OpMemberDecorate %Mats 0 MatrixStride 16
               OpMemberDecorate %Mats 1 RowMajor
               OpMemberDecorate %Mats 1 Offset 64
               OpMemberDecorate %Mats 1 MatrixStride 16
               OpDecorate %Mats Block
               OpDecorate %nodes DescriptorSet 0
               OpDecorate %nodes Binding 0
               OpDecorate %mats DescriptorSet 0
               OpDecorate %mats Binding 1
               OpTypeForwardPointer %ptr_Node PhysicalStorageBuffer
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
     %mat4 = OpTypeMatrix %v4float 4
       %Node = OpTypeStruct %ptr_Node %float
   %ptr_Node = OpTypePointer PhysicalStorageBuffer %Node
       %Mats = OpTypeStruct %mat4 %mat4
%ptr_sb_Node = OpTypePointer StorageBuffer %Node
%ptr_sb_Mats = OpTypePointer StorageBuffer %Mats
      %nodes = OpVariable %ptr_sb_Node StorageBuffer
       %mats = OpVariable %ptr_sb_Mats StorageBuffer
"#;

/// `mlir-translate-22 --deserialize-spirv` of LAYOUT (assembled for SPIR-V 1.3).
const LAYOUT_MLIR: &str = r#"spirv.module PhysicalStorageBuffer64 GLSL450 requires #spirv.vce<v1.3, [Shader, PhysicalStorageBufferAddresses], [SPV_KHR_physical_storage_buffer]> {
  spirv.GlobalVariable @nodes bind(0, 0) : !spirv.ptr<!spirv.struct<Node, (!spirv.ptr<!spirv.struct<Node>, PhysicalStorageBuffer> [0], f32 [8]), Block>, StorageBuffer>
  spirv.GlobalVariable @mats bind(0, 1) : !spirv.ptr<!spirv.struct<Mats, (!spirv.matrix<4 x vector<4xf32>> [0, MatrixStride=16, NonWritable, ColMajor], !spirv.matrix<4 x vector<4xf32>> [64, MatrixStride=16, RowMajor]), Block>, StorageBuffer>
}
"#;

/// OpSwitch with a negative case and phis fed from every case.
const SWITCH: &str = r#"               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpName %f "f"
       %uint = OpTypeInt 32 0
        %int = OpTypeInt 32 1
         %fn = OpTypeFunction %uint %int
     %uint_7 = OpConstant %uint 7
     %uint_1 = OpConstant %uint 1
          %f = OpFunction %uint None %fn
          %x = OpFunctionParameter %int
      %entry = OpLabel
               OpSelectionMerge %merge None
               OpSwitch %x %d -5 %c1 7 %c2
         %c1 = OpLabel
               OpBranch %merge
         %c2 = OpLabel
               OpBranch %merge
          %d = OpLabel
               OpBranch %merge
      %merge = OpLabel
          %p = OpPhi %uint %uint_1 %c1 %uint_7 %c2 %uint_1 %d
               OpReturnValue %p
               OpFunctionEnd
"#;

/// `mlir-translate-22 --deserialize-spirv --spirv-structurize-control-flow=false` of SWITCH (assembled for SPIR-V 1.3).
const SWITCH_MLIR: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader], []> {
  spirv.func @f(%arg0: si32) -> i32 "None" {
    spirv.Switch %arg0 : si32, [
      default: ^bb2,
      4294967291: ^bb3,
      7: ^bb4
    ]
  ^bb1(%0: i32):  // 3 preds: ^bb2, ^bb3, ^bb4
    spirv.ReturnValue %0 : i32
  ^bb2:  // pred: ^bb0
    %cst1_i32 = spirv.Constant 1 : i32
    spirv.Branch ^bb1(%cst1_i32 : i32)
  ^bb3:  // pred: ^bb0
    %cst1_i32_0 = spirv.Constant 1 : i32
    spirv.Branch ^bb1(%cst1_i32_0 : i32)
  ^bb4:  // pred: ^bb0
    %cst7_i32 = spirv.Constant 7 : i32
    spirv.Branch ^bb1(%cst7_i32 : i32)
  }
}
"#;

fn binary_v13(text: &str) -> Vec<u8> {
    let target_env = TargetEnv::parse("spv1.3").expect("known target");
    let words =
        assemble(text, &AsmOptions { target_env, preserve_numeric_ids: false }).expect("valid assembly");
    words_to_bytes(&words, Endian::Little)
}

fn assert_v13(asm: &str, structurize: bool, expected: &str) {
    match translate(&binary_v13(asm), structurize) {
        Ok(text) => assert_eq!(text, expected),
        Err(e) => panic!("deserialization failed: {e}"),
    }
}

#[test]
fn spec_constants_and_spec_constant_operations_match_mlir() {
    assert_v13(SPEC, true, SPEC_MLIR);
}

#[test]
fn forward_pointers_and_member_decorations_match_mlir() {
    assert_v13(LAYOUT, true, LAYOUT_MLIR);
}

#[test]
fn switch_cases_pass_phi_values_as_mlir_does() {
    assert_v13(SWITCH, false, SWITCH_MLIR);
}

#[test]
fn unsupported_instructions_are_named_with_their_offset() {
    let text =
        COMPUTE.replace("OpDecorate %gid BuiltIn", "OpGroupDecorate %buf %gid\nOpDecorate %gid BuiltIn");
    let err = translate(&binary(&text), false).expect_err("not a group");
    assert!(err.message.contains("which is not a decoration group"), "{}", err.message);
    assert!(err.offset > 5);
}

#[test]
fn instructions_the_dialect_lacks_become_fallback_ops() {
    let text = COMPUTE.replace("%15 = OpFMul %float %14 %float_2", "%15 = OpCopyObject %float %14");
    let printed = translate(&binary(&text), false).expect("deserializes");
    assert!(printed.contains("%5 = \"spirv.CopyObject\"(%4) : (f32) -> f32"), "{printed}");
}

#[test]
fn op_lines_become_locations() {
    let text = LOOP
        .replace("OpName %f \"f\"", "%file = OpString \"a.hlsl\"\nOpName %f \"f\"")
        .replace("%lt = OpULessThan", "OpLine %file 12 3\n%lt = OpULessThan");
    let mut ir = Ir::new();
    let options = DeserializeOptions { structurize: false, debug_locations: true };
    let module = deserialize(&binary(&text), &mut ir, &options).expect("deserializes");
    let compare = crate::test_support::first_op(&ir, module, "spirv.ULessThan").expect("the comparison");
    assert_eq!(ir.op(compare).location, Location::FileLineCol { file: "a.hlsl".into(), line: 12, column: 3 });
}

#[test]
fn deeply_nested_types_are_refused() {
    let mut text = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%float = OpTypeFloat 32\n%uint = OpTypeInt 32 0\n\
         %one = OpConstant %uint 1\n%t0 = OpTypeArray %float %one\n",
    );
    for i in 1..200 {
        text.push_str(&format!("%t{i} = OpTypeArray %t{} %one\n", i - 1));
    }
    let err = translate(&binary(&text), false).expect_err("too deep");
    assert!(err.message.contains("nested more than"), "{err}");
}

#[test]
fn an_entry_point_keeps_its_name_over_a_helper_named_alike() {
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %e \"main\"\n\
                OpExecutionMode %e LocalSize 1 1 1\nOpName %h \"main\"\nOpName %e \"entry\"\n\
                %void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                %h = OpFunction %void None %fn\n%l1 = OpLabel\nOpReturn\nOpFunctionEnd\n\
                %e = OpFunction %void None %fn\n%l2 = OpLabel\n%c = OpFunctionCall %void %h\nOpReturn\nOpFunctionEnd\n";
    let printed = translate(&binary(text), false).expect("deserializes");
    assert!(printed.contains("spirv.func @main_2() \"None\""), "{printed}");
    assert!(printed.contains("spirv.FunctionCall @main_2() : () -> ()"), "{printed}");
    assert!(printed.contains("spirv.EntryPoint \"GLCompute\" @main\n"), "{printed}");
}

/// Cooperative matrix ops: a layout given as a constant id, a type operand (written by
/// hand in MLIR's dialect, serialized by mlir-translate-22, disassembled by `spirvkit dis`).
const COOP: &str = r#"OpCapability Shader
OpCapability CooperativeMatrixKHR
OpCapability VulkanMemoryModel
OpExtension "SPV_KHR_cooperative_matrix"
OpExtension "SPV_KHR_vulkan_memory_model"
OpMemoryModel Logical GLSL450
OpName %4 "f"
%2 = OpTypeInt 32 0
%3 = OpTypePointer StorageBuffer %2
%1 = OpTypeFunction %2 %3 %2
%10 = OpConstant %2 3
%11 = OpConstant %2 8
%12 = OpConstant %2 16
%13 = OpConstant %2 0
%9 = OpTypeCooperativeMatrixKHR %2 %10 %11 %12 %13
%15 = OpConstant %2 1
%4 = OpFunction %2 None %1
%5 = OpFunctionParameter %3
%6 = OpFunctionParameter %2
%7 = OpLabel
%8 = OpCooperativeMatrixLengthKHR %2 %9
%14 = OpCooperativeMatrixLoadKHR %9 %5 %13 %6
OpCooperativeMatrixStoreKHR %5 %14 %15 %6
OpReturnValue %8
OpFunctionEnd
"#;

/// `mlir-translate-22 --deserialize-spirv` of COOP (assembled for SPIR-V 1.6).
const COOP_MLIR: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader, CooperativeMatrixKHR, VulkanMemoryModel], [SPV_KHR_cooperative_matrix, SPV_KHR_vulkan_memory_model]> {
  spirv.func @f(%arg0: !spirv.ptr<i32, StorageBuffer>, %arg1: i32) -> i32 "None" {
    %0 = spirv.KHR.CooperativeMatrixLength : !spirv.coopmatrix<8x16xi32, Subgroup, MatrixA>
    %1 = spirv.KHR.CooperativeMatrixLoad %arg0, %arg1, <RowMajor> : !spirv.ptr<i32, StorageBuffer>, i32 -> !spirv.coopmatrix<8x16xi32, Subgroup, MatrixA>
    spirv.KHR.CooperativeMatrixStore %arg0, %1, %arg1, <ColumnMajor> : !spirv.ptr<i32, StorageBuffer>, !spirv.coopmatrix<8x16xi32, Subgroup, MatrixA>, i32
    spirv.ReturnValue %0 : i32
  }
}
"#;

#[test]
fn constant_operands_and_type_operands_become_attributes() {
    let target_env = TargetEnv::parse("spv1.6").expect("known target");
    let words =
        assemble(COOP, &AsmOptions { target_env, preserve_numeric_ids: true }).expect("valid assembly");
    let printed = translate(&words_to_bytes(&words, Endian::Little), true).expect("deserializes");
    assert_eq!(printed, COOP_MLIR);
}

#[test]
fn phi_arguments_are_bounded_by_the_input() {
    // 400 cases to one block with 400 phis would be 160000 branch arguments from a few
    // thousand words.
    let mut text = String::from(
        "OpCapability Shader\nOpMemoryModel Logical GLSL450\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
         %uint = OpTypeInt 32 0\n%zero = OpConstant %uint 0\n%f = OpFunction %void None %fn\n%entry = OpLabel\n\
         OpSwitch %zero %join",
    );
    for i in 0..400 {
        text.push_str(&format!(" {i} %join"));
    }
    text.push_str("\n%join = OpLabel\n");
    for i in 0..400 {
        text.push_str(&format!("%p{i} = OpPhi %uint %zero %entry\n"));
    }
    text.push_str("OpReturn\nOpFunctionEnd\n");
    let err = translate(&binary(&text), false).expect_err("too many arguments");
    assert!(err.message.contains("materialized constants and phi arguments"), "{err}");
}

#[test]
fn execution_modes_with_id_operands_hold_the_constants_values() {
    // mlir-translate-22 refuses OpExecutionModeId ("unhandled opcode"); the serializer
    // writes it for the modes that take ids, so the values come back from the constants.
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
                OpExecutionModeId %main LocalSizeId %c8 %c1 %c1\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                %uint = OpTypeInt 32 0\n%c8 = OpConstant %uint 8\n%c1 = OpConstant %uint 1\n\
                %main = OpFunction %void None %fn\n%entry = OpLabel\nOpReturn\nOpFunctionEnd\n";
    let printed = translate(&binary_v13(text), true).expect("deserializes");
    assert!(printed.contains("spirv.ExecutionMode @main \"LocalSizeId\", 8, 1, 1\n"), "{printed}");
}

/// Binary -> IR text -> parsed back and verified -> binary: the printed text and the
/// round trip's disassembly (friendly names). The round trip must be equivalent to the
/// original (`spirvkit_binary::equiv`) and keep its non-semantic instructions, which
/// the equivalence check leaves out.
fn round_trip(bytes: &[u8]) -> (String, String) {
    let printed = translate(bytes, true).expect("deserializes");
    let (ir, top) = spirvkit_ir::parse(&printed, "t.mlir").expect("the printed IR parses back");
    let diagnostics = spirvkit_ir::verify::verify(&ir, top, &printed);
    assert!(diagnostics.is_empty(), "{diagnostics:?}\n{printed}");
    let module = crate::test_support::first_op(&ir, top, "spirv.module").expect("a spirv.module");
    let words = crate::serialize::serialize(&ir, module, &crate::serialize::SerializeOptions::default())
        .expect("serializes");
    let ours = spirvkit_binary::read(&words_to_bytes(&words, Endian::Little)).expect("reads back");
    let original = spirvkit_binary::read(bytes).expect("reads");
    let comparison = spirvkit_binary::equiv::compare(&original, &ours);
    let semantic: Vec<_> = comparison.semantic().collect();
    assert!(semantic.is_empty(), "{semantic:?}\n{printed}");
    let options = spirvkit_binary::dis::DisOptions { header: false, ..Default::default() };
    let dis = |m: &spirvkit_binary::Module| String::from_utf8(spirvkit_binary::dis::disassemble(m, &options));
    let (ours, original) = (dis(&ours).expect("utf-8"), dis(&original).expect("utf-8"));
    let non_semantic =
        |text: &str| text.lines().filter(|l| l.contains("OpExtInst ") || l.contains("OpString")).count();
    assert_eq!(non_semantic(&ours), non_semantic(&original), "{ours}\n{original}");
    (printed, ours)
}

const MATRICES: &str = r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Vertex %main "main" %out
OpDecorate %out Location 0
OpDecorate %sc SpecId 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%f32 = OpTypeFloat 32
%v2 = OpTypeVector %f32 2
%m2 = OpTypeMatrix %v2 2
%u32 = OpTypeInt 32 0
%u2 = OpConstant %u32 2
%am = OpTypeArray %m2 %u2
%av = OpTypeArray %v2 %u2
%ptr = OpTypePointer Output %m2
%out = OpVariable %ptr Output
%pfam = OpTypePointer Function %am
%pfav = OpTypePointer Function %av
%pfm = OpTypePointer Function %m2
%c1 = OpConstant %f32 1
%c2 = OpConstant %f32 2
%c0 = OpConstant %f32 0
%col1 = OpConstantComposite %v2 %c1 %c0
%col2 = OpConstantComposite %v2 %c0 %c1
%col3 = OpConstantComposite %v2 %c2 %c2
%mat = OpConstantComposite %m2 %col1 %col2
%mat2 = OpConstantComposite %m2 %col3 %col3
%arr = OpConstantComposite %am %mat %mat2
%vecs = OpConstantComposite %av %col1 %col2
%sc = OpSpecConstant %f32 3
%scol = OpSpecConstantComposite %v2 %sc %sc
%smat = OpSpecConstantComposite %m2 %scol %scol
%main = OpFunction %void None %fn
%l = OpLabel
%v = OpVariable %pfam Function %arr
%a = OpVariable %pfav Function %vecs
%w = OpVariable %pfm Function
OpStore %out %mat
OpStore %w %smat
OpReturn
OpFunctionEnd
"#;

#[test]
fn matrix_constants_are_arrays_of_columns_and_round_trip() {
    let (printed, dis) = round_trip(&binary(MATRICES));
    let column = |a: &str, b: &str| format!("dense<[{a}, {b}]> : vector<2xf32>");
    let (one, zero) = ("1.000000e+00", "0.000000e+00");
    let identity = format!("[{}, {}]", column(one, zero), column(zero, one));
    let expected = format!("spirv.Constant {identity} : !spirv.matrix<2 x vector<2xf32>>\n");
    assert!(printed.contains(&expected), "{printed}");
    // Arrays of matrices nest the columns one level deeper.
    let twos = "dense<2.000000e+00> : vector<2xf32>";
    let nested =
        format!("[{identity}, [{twos}, {twos}]] : !spirv.array<2 x !spirv.matrix<2 x vector<2xf32>>>");
    assert!(printed.contains(&nested), "{printed}");
    assert!(printed.contains(": !spirv.array<2 x vector<2xf32>>\n"), "{printed}");
    assert!(printed.contains("spirv.SpecConstantComposite @spirv_spec_const_"), "{printed}");
    // The identity's columns as a matrix and as an array are two constants.
    assert_eq!(dis.matches("OpConstantComposite %mat2v2float").count(), 2, "{dis}");
    assert_eq!(dis.matches("OpConstantComposite %_arr_v2float_uint_2").count(), 1, "{dis}");
}

#[test]
fn matrix_constants_of_the_wrong_shape_are_errors() {
    let text = MATRICES
        .replace("%mat2 = OpConstantComposite %m2 %col3 %col3", "%mat2 = OpConstantComposite %m2 %col3");
    let err = translate(&binary(&text), false).expect_err("one column short");
    assert!(err.message.contains("wrong number of constituents"), "{err}");
    let text = MATRICES
        .replace("%mat2 = OpConstantComposite %m2 %col3 %col3", "%mat2 = OpConstantComposite %m2 %c1 %c2");
    let err = translate(&binary(&text), false).expect_err("scalar columns");
    assert!(err.message.contains("not supported yet: matrix constant of non-vector columns"), "{err}");
}

/// Non-semantic debug information as `glslangValidator -gVS` writes it (module-level
/// instructions naming strings, constants, types, variables and each other; function-
/// level ones naming those, functions and local values), DebugPrintf, a `NonSemantic.*`
/// set the grammar does not know, and a semantic set without a dialect prefix.
const EXTENDED: &str = r#"OpCapability Shader
OpExtension "SPV_KHR_non_semantic_info"
OpExtension "SPV_AMD_shader_trinary_minmax"
%dbg = OpExtInstImport "NonSemantic.Shader.DebugInfo.100"
%printf = OpExtInstImport "NonSemantic.DebugPrintf"
%vendor = OpExtInstImport "NonSemantic.Vendor.Tool.3"
%amd = OpExtInstImport "SPV_AMD_shader_trinary_minmax"
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %color
OpExecutionMode %main OriginUpperLeft
%file = OpString "a.frag"
%source = OpString "void main() {}"
%name_main = OpString "main"
%name_float = OpString "float"
%name_color = OpString "color"
%format = OpString "x = %f"
OpName %main "main"
OpName %color "color"
OpDecorate %color Location 0
%void = OpTypeVoid
%fn = OpTypeFunction %void
%uint = OpTypeInt 32 0
%bool = OpTypeBool
%true = OpConstantTrue %bool
%u0 = OpConstant %uint 0
%u3 = OpConstant %uint 3
%u32 = OpConstant %uint 32
%dbg_fn_type = OpExtInst %void %dbg DebugTypeFunction %u3 %void
%dbg_source = OpExtInst %void %dbg DebugSource %file %source
%dbg_unit = OpExtInst %void %dbg DebugCompilationUnit %u3 %u3 %dbg_source %u3
%dbg_main = OpExtInst %void %dbg DebugFunction %name_main %dbg_fn_type %dbg_source %u0 %u0 %dbg_unit %name_main %u3 %u0
%float = OpTypeFloat 32
%dbg_float = OpExtInst %void %dbg DebugTypeBasic %name_float %u32 %u3 %u0
%dbg_matrix = OpExtInst %void %dbg DebugTypeMatrix %dbg_float %u3 %true
%ptr = OpTypePointer Output %float
%color = OpVariable %ptr Output
%dbg_color = OpExtInst %void %dbg DebugGlobalVariable %name_color %dbg_float %dbg_source %u3 %u0 %dbg_unit %name_color %color %u3
%vendor_note = OpExtInst %void %vendor 7 %dbg_color %u32 %float
%f1 = OpConstant %float 1
%main = OpFunction %void None %fn
%entry = OpLabel
%def = OpExtInst %void %dbg DebugFunctionDefinition %dbg_main %main
%scope = OpExtInst %void %dbg DebugScope %dbg_main
%line = OpExtInst %void %dbg DebugLine %dbg_source %u3 %u3 %u0 %u0
%m = OpExtInst %float %amd FMax3AMD %f1 %f1 %f1
%print = OpExtInst %void %printf 1 %format %m
%local = OpExtInst %void %vendor 2 %print %m
OpStore %color %m
OpReturn
OpFunctionEnd
"#;

#[test]
fn extended_instructions_of_other_sets_round_trip_generically() {
    let (printed, _) = round_trip(&binary(EXTENDED));
    let debug_info = "set = \"NonSemantic.Shader.DebugInfo.100\"";
    // Module level: symbols, with strings, constants, types and variables as attributes.
    let source = format!(
        "\"spirv.ExtInst\"() {{instruction = \"DebugSource\", literals = [\"a.frag\", \"void main() {{}}\"], \
         operand_layout = \"rr\", {debug_info}, sym_name = \"spirv_ext_inst_"
    );
    assert!(printed.contains(&source), "{printed}");
    assert!(printed.contains("literals = [3 : i32, none], operand_layout = \"rr\""), "{printed}");
    assert!(printed.contains("literals = [@spirv_ext_inst_"), "{printed}");
    assert!(printed.contains(", 3 : i32, true], operand_layout = \"rrr\""), "{printed}");
    assert!(printed.contains("\"color\", @color, 3 : i32]"), "{printed}");
    // An unknown non-semantic set: the instruction by number, every operand an id.
    assert!(printed.contains("{instruction = 7 : i32, literals = [@spirv_ext_inst_"), "{printed}");
    assert!(
        printed.contains(", 32 : i32, f32], operand_layout = \"rrr\", set = \"NonSemantic.Vendor.Tool.3\"")
    );
    // In the function: values as operands, a void result as a `none` value.
    assert!(printed.contains("literals = [@spirv_ext_inst_"), "{printed}");
    assert!(printed.contains(", @main], operand_layout = \"rr\""), "{printed}");
    let amd =
        "{instruction = \"FMax3AMD\", set = \"SPV_AMD_shader_trinary_minmax\"} : (f32, f32, f32) -> f32";
    assert!(printed.contains(amd), "{printed}");
    let print = "{instruction = \"DebugPrintf\", literals = [\"x = %f\"], operand_layout = \"ri\", \
                 set = \"NonSemantic.DebugPrintf\"} : (f32) -> none";
    assert!(printed.contains(print), "{printed}");
    assert!(printed
        .contains("{instruction = 2 : i32, set = \"NonSemantic.Vendor.Tool.3\"} : (none, f32) -> none"));
}

#[test]
fn module_level_extended_instructions_that_cannot_be_kept_are_errors() {
    // Only non-semantic instructions may sit outside functions.
    let text = EXTENDED.replace(
        "%f1 = OpConstant %float 1\n",
        "%f1 = OpConstant %float 1\n%bad = OpExtInst %float %amd FMax3AMD %f1 %f1 %f1\n",
    );
    let err = translate(&binary(&text), false).expect_err("semantic instruction at module level");
    assert!(err.message.contains("must be of a NonSemantic.* or debug information set"), "{err}");
    // A forward reference (OpenCL.DebugInfo.100's member naming its parent) names the
    // later instruction's symbol, chosen at the reference.
    let text = EXTENDED.replace("DebugTypeMatrix %dbg_float", "DebugTypeMatrix %dbg_color");
    let ir = translate(&binary(&text), false).expect("forward reference");
    assert!(ir.contains("literals = [@spirv_ext_inst_28, 3 : i32, true]"), "{ir}");
    // A module-level undef has no form there.
    let text = EXTENDED
        .replace("%f1 = OpConstant %float 1\n", "%f1 = OpConstant %float 1\n%undef = OpUndef %float\n")
        .replace("DebugTypeMatrix %dbg_float", "DebugTypeMatrix %undef");
    let err = translate(&binary(&text), false).expect_err("an undef named by debug information");
    assert!(err.message.starts_with("not supported yet: OpExtInst outside a function naming <id>"), "{err}");
}

#[test]
fn argument_and_call_locations_print_as_mlir_translate_does() {
    // Lines of `mlir-translate-22 --deserialize-spirv --mlir-print-debuginfo
    // --mlir-print-local-scope` for the same binary: parameters and phi arguments are
    // unknown, and so are calls, whatever OpLine says.
    let text = "OpCapability Shader\nOpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
                OpExecutionMode %main LocalSize 1 1 1\n%file = OpString \"a.comp\"\n%void = OpTypeVoid\n\
                %fn = OpTypeFunction %void\n%int = OpTypeInt 32 1\n%bool = OpTypeBool\n\
                %fn2 = OpTypeFunction %int %int %int\n%c1 = OpConstant %int 1\nOpLine %file 3 4\n\
                %f = OpFunction %int None %fn2\n%a = OpFunctionParameter %int\n%b = OpFunctionParameter %int\n\
                %entry = OpLabel\nOpLine %file 9 1\n%cond = OpSLessThan %bool %a %b\n\
                OpSelectionMerge %merge None\nOpBranchConditional %cond %then %merge\n%then = OpLabel\n\
                OpLine %file 10 2\n%s = OpIAdd %int %a %c1\nOpBranch %merge\n%merge = OpLabel\n\
                OpLine %file 11 3\n%p = OpPhi %int %b %entry %s %then\nOpReturnValue %p\nOpFunctionEnd\n\
                %main = OpFunction %void None %fn\n%l = OpLabel\nOpLine %file 12 5\n\
                %r = OpFunctionCall %int %f %c1 %c1\nOpReturn\nOpFunctionEnd\n";
    let mut ir = Ir::new();
    let options = DeserializeOptions { structurize: true, debug_locations: true };
    let module = deserialize(&binary(text), &mut ir, &options).expect("deserializes");
    let debug = spirvkit_ir::PrintOptions { debug_info: true, ..Default::default() };
    let printed = spirvkit_ir::print(&ir, module, debug);
    for line in [
        "(%arg0: si32 loc(unknown), %arg1: si32 loc(unknown)) -> si32 \"None\" {\n",
        "    %0 = spirv.SLessThan %arg0, %arg1 : si32 loc(\"a.comp\":9:1)\n",
        "    ^bb2(%3: si32 loc(unknown)):  // 2 preds: ^bb0, ^bb1\n",
        "(%cst1_si32, %cst1_si32_0) : (si32, si32) -> si32 loc(unknown)\n",
    ] {
        assert!(printed.contains(line), "{line}\n{printed}");
    }
}

#[test]
fn opencl_debug_info_keeps_its_literals_and_enumerants() {
    // OpenCL.DebugInfo.100 mixes literal and enumerant operands with ids, and sits at
    // module level like the non-semantic sets.
    let text = "OpCapability Shader\n%dbg = OpExtInstImport \"OpenCL.DebugInfo.100\"\n\
                OpMemoryModel Logical GLSL450\nOpEntryPoint GLCompute %main \"main\"\n\
                OpExecutionMode %main LocalSize 1 1 1\n%file = OpString \"k.cl\"\n%void = OpTypeVoid\n\
                %fn = OpTypeFunction %void\n%src = OpExtInst %void %dbg DebugSource %file\n\
                %unit = OpExtInst %void %dbg DebugCompilationUnit 65536 5 %src OpenCL_C\n\
                %none = OpExtInst %void %dbg DebugInfoNone\n\
                %main = OpFunction %void None %fn\n%entry = OpLabel\n\
                %scope = OpExtInst %void %dbg DebugScope %unit\nOpReturn\nOpFunctionEnd\n";
    let (printed, dis) = round_trip(&binary(text));
    let unit = "{instruction = \"DebugCompilationUnit\", literals = [65536 : i32, 5 : i32, @spirv_ext_inst_";
    assert!(printed.contains(unit), "{printed}");
    assert!(
        printed.contains(", 3 : i32], operand_layout = \"llrl\", set = \"OpenCL.DebugInfo.100\""),
        "{printed}"
    );
    assert!(dis.contains("DebugCompilationUnit 65536 5 %"), "{dis}");
    assert!(dis.contains(" OpenCL_C\n"), "{dis}");
}

#[test]
fn damaged_matrix_constants_and_extended_instructions_never_panic() {
    for text in [MATRICES, EXTENDED] {
        let bytes = binary(text);
        for len in (0..bytes.len()).step_by(4) {
            let _ = translate(&bytes[..len], true);
        }
        for i in 20..bytes.len() {
            for bit in [0x01u8, 0x80] {
                let mut flipped = bytes.clone();
                flipped[i] ^= bit;
                // What deserializes must print, parse back and serialize or fail cleanly.
                if let Ok(printed) = translate(&flipped, true) {
                    if let Ok((ir, top)) = spirvkit_ir::parse(&printed, "t.mlir") {
                        let module = crate::test_support::first_op(&ir, top, "spirv.module");
                        if let Some(module) = module {
                            let options = crate::serialize::SerializeOptions::default();
                            let _ = crate::serialize::serialize(&ir, module, &options);
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn extended_instructions_after_the_functions_stay_after_them() {
    // clspv writes its reflection after the functions it names.
    let text = "OpCapability Shader\nOpExtension \"SPV_KHR_non_semantic_info\"\n\
                %refl = OpExtInstImport \"NonSemantic.ClspvReflection.5\"\nOpMemoryModel Logical GLSL450\n\
                OpEntryPoint GLCompute %main \"main\"\nOpExecutionMode %main LocalSize 1 1 1\n\
                %name = OpString \"main\"\n%void = OpTypeVoid\n%fn = OpTypeFunction %void\n\
                %main = OpFunction %void None %fn\n%l = OpLabel\nOpReturn\nOpFunctionEnd\n\
                %kernel = OpExtInst %void %refl Kernel %main %name\n";
    let (printed, dis) = round_trip(&binary(text));
    let kernel = "  \"spirv.ExtInst\"() {instruction = \"Kernel\", literals = [@main, \"main\"], \
                  operand_layout = \"rr\", set = \"NonSemantic.ClspvReflection.5\"";
    assert!(printed.contains(&format!("  }}\n{kernel}")), "{printed}");
    assert!(
        // Named by its symbol, as a global variable is.
        dis.trim_end().ends_with("OpFunctionEnd\n%spirv_ext_inst_7 = OpExtInst %void %7 Kernel %main %6"),
        "{dis}"
    );
}

#[test]
fn the_first_op_source_becomes_the_module_source_attribute() {
    let module = |debug: &str| {
        format!(
            "OpCapability Shader\nOpCapability Linkage\nOpMemoryModel Logical GLSL450\n{debug}\
             %void = OpTypeVoid\n"
        )
    };
    let printed = translate(&binary(&module("OpSource HLSL 600\n")), true).expect("deserializes");
    assert_eq!(
        printed,
        "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Linkage], []> attributes \
         {spirvkit.source = {language = \"HLSL\", version = 600 : i32}} {\n}\n"
    );
    // The file of an `OpString`; the source text is not kept; a second `OpSource` is
    // left out. (One of a language the grammar does not know is refused by the reader.)
    let file = "%f = OpString \"a.glsl\"\nOpSource GLSL 450 %f \"void main() {}\"\nOpSource ESSL 310\n";
    let printed = translate(&binary(&module(file)), true).expect("deserializes");
    assert!(
        printed.contains("{spirvkit.source = {file = \"a.glsl\", language = \"GLSL\", version = 450 : i32}}"),
        "{printed}"
    );
}
