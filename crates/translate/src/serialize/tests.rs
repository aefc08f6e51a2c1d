//! Modules serialized and disassembled, against the text `spirv-dis` gives for
//! mlir-translate-22's binary of the same module (inputs are our own).

use super::*;

/// Parses `text`, serializes its only `spirv.module` and disassembles the words.
fn serialize_text(text: &str) -> Result<String> {
    serialize_text_with(text, &SerializeOptions::default())
}

fn serialize_text_with(text: &str, options: &SerializeOptions) -> Result<String> {
    let (ir, top) = spirvkit_ir::parse(text, "t.mlir").expect("parses");
    let module = crate::test_support::first_op(&ir, top, "spirv.module").expect("a spirv.module");
    let words = serialize(&ir, module, options)?;
    let bytes = spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::module::Endian::Little);
    let module = spirvkit_binary::read::read(&bytes).expect("our binary reads back");
    let options = spirvkit_binary::dis::DisOptions { header: false, ..Default::default() };
    Ok(String::from_utf8(spirvkit_binary::dis::disassemble(&module, &options)).expect("utf-8"))
}

fn assert_same(text: &str, expected: &str) {
    let got = serialize_text(text).expect("serializes");
    assert_eq!(got.trim_end(), expected.trim_end(), "got:\n{got}");
}

#[test]
fn globals_entry_points_ext_insts_constants_and_decorations() {
    assert_same(T1_IN, T1_OUT);
}

#[test]
fn control_flow_phis_switch_selection_and_loop() {
    assert_same(B_IN, B_OUT);
}

#[test]
fn refuses_ops_without_binary_form() {
    let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  spirv.func @f() \"None\" {\n    \"test.op\"() : () -> ()\n    spirv.Return\n  }\n}\n";
    let (ir, top) = spirvkit_ir::parse(text, "t.mlir").expect("parses");
    let module = crate::test_support::first_op(&ir, top, "spirv.module").unwrap();
    let e = serialize(&ir, module, &SerializeOptions::default()).unwrap_err();
    assert!(e.message.starts_with("not supported yet"), "{}", e.message);
}

#[test]
fn layouts_block_decorations_forward_pointers_and_signedness() {
    assert_same(STRUCTS_IN, STRUCTS_OUT);
}

#[test]
fn spec_constants_initializers_undef_and_forward_calls() {
    assert_same(SPEC_IN, SPEC_OUT);
}

#[test]
fn scopes_and_semantics_as_constant_ids_and_literal_operands() {
    assert_same(ATOMICS_IN, ATOMICS_OUT);
}

#[test]
fn imported_declarations_come_first() {
    assert_same(DECL_IN, DECL_OUT);
}

#[test]
fn refuses_modules_without_vce_and_unknown_attributes() {
    let e = serialize_text("spirv.module Logical GLSL450 {\n}\n").unwrap_err();
    assert_eq!(e.message, "module must have 'vce_triple' attribute to be serializeable");
    let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Linkage], []> {\n  spirv.func @f(%a: i32) -> i32 \"None\" {\n    %0 = spirv.IAdd %a, %a {not_a_decoration} : i32\n    spirv.ReturnValue %0 : i32\n  }\n}\n";
    let e = serialize_text(text).unwrap_err();
    assert_eq!(
        e.message,
        "non-argument attributes expected to have snake-case-ified decoration name, unhandled attribute with name : not_a_decoration"
    );
}

#[test]
fn debug_info_as_strings_and_lines() {
    // The expected text is mlir-translate-22's binary for `--test-spirv-roundtrip-debug`.
    let options = SerializeOptions { emit_debug_info: true, ..SerializeOptions::default() };
    let got = serialize_text_with(DEBUG_IN, &options).expect("serializes");
    assert_eq!(got.trim_end(), DEBUG_OUT.trim_end(), "got:\n{got}");
    let without = DEBUG_IN.replace("[SPV_KHR_non_semantic_info]", "[]");
    let e = serialize_text_with(&without, &options).unwrap_err();
    assert_eq!(e.message, "SPV_KHR_non_semantic_info extension not available");
}

#[test]
fn constructs_yielding_values_through_their_merge() {
    // mlir-translate-22's binary stops being valid at the loop's merge block: it
    // emits no phi for the merge block's argument, so the return reads id 0. Ours
    // matches it up to there and then has the phi.
    let expected = format!("{LOOP_RESULT_ORACLE_PREFIX}         %24 = OpPhi %uint %13 %8\n               OpReturnValue %24\n               OpFunctionEnd\n");
    assert_same(LOOP_RESULT_IN, &expected);
}

#[test]
fn group_dot_atomic_and_extended_ops() {
    // spirv-dis 2023.1 predates some capabilities here: the expected text is our
    // disassembler's (byte-identical to spirv-dis elsewhere) of mlir-translate-22's binary.
    assert_same(MISC1_IN, MISC1_OUT);
}

#[test]
fn kernel_pointers_opencl_ops_and_cooperative_matrices() {
    // spirv-dis 2023.1 predates some capabilities here: the expected text is our
    // disassembler's (byte-identical to spirv-dis elsewhere) of mlir-translate-22's binary.
    assert_same(MISC2_IN, MISC2_OUT);
}

#[test]
fn arm_tensors_graphs_and_replicated_composites() {
    // Expected: our disassembler's text of mlir-translate-22's binary (spirv-dis
    // 2023.1 does not know the ARM instructions).
    assert_same(ARM_IN, ARM_OUT);
}

#[test]
fn unsigned_and_signless_composites_share_one_declaration() {
    // mlir-translate-22 declares `vector<2xui32>` and `vector<2xi32>` (and the
    // pointers) twice over the same `OpTypeInt 32 0`, which spirv-val rejects as a
    // duplicate non-aggregate type; we declare each once.
    let got = serialize_text(VDUP_IN).expect("serializes");
    assert_eq!(got.matches("OpTypeVector").count(), 1, "{got}");
    assert_eq!(got.matches("OpTypePointer").count(), 1, "{got}");
    assert!(
        got.contains("%1 = OpTypeFunction %void %v2uint %v2uint %_ptr_Function_uint %_ptr_Function_uint"),
        "{got}"
    );
}

#[test]
fn execution_modes_taking_ids_use_constants() {
    // mlir-translate-22 writes the literals 8 4 1 into an `OpExecutionMode` where
    // the grammar wants <id>s (spirv-dis shows them as ids; spirv-val rejects it);
    // we write OpExecutionModeId with constants.
    let got = serialize_text(EMID_IN).expect("serializes");
    assert!(EMID_ORACLE.contains("OpExecutionMode %main LocalSizeId %8 %4 %1"), "{EMID_ORACLE}");
    assert!(got.contains("OpExecutionModeId %main LocalSizeId %uint_8 %uint_4 %uint_1"), "{got}");
    assert!(got.contains("%uint_8 = OpConstant %uint 8"), "{got}");
}

const T1_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  spirv.GlobalVariable @gid built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.func @f(%arg0: f32, %p : !spirv.ptr<f32, Function>) -> f32 "None" {
    %0 = spirv.Load "Function" %p ["Aligned", 4] : f32
    %1 = spirv.GL.Sqrt %0 : f32
    %c = spirv.Constant dense<[1.0, 2.0]> : vector<2xf32>
    %v = spirv.Variable : !spirv.ptr<f32, Function>
    spirv.Store "Function" %v, %1 ["Volatile"] : f32
    %x = spirv.FAdd %0, %1 {no_contraction} : f32
    spirv.ReturnValue %x : f32
  }
  spirv.EntryPoint "GLCompute" @f, @gid
  spirv.ExecutionMode @f "LocalSize", 1, 1, 1
}
"#;

const T1_OUT: &str = r#"               OpCapability Shader
         %14 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %f "f" %gid
               OpExecutionMode %f LocalSize 1 1 1
               OpName %gid "gid"
               OpName %f "f"
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %20 NoContraction
       %uint = OpTypeInt 32 0
     %v3uint = OpTypeVector %uint 3
%_ptr_Input_v3uint = OpTypePointer Input %v3uint
        %gid = OpVariable %_ptr_Input_v3uint Input
      %float = OpTypeFloat 32
%_ptr_Function_float = OpTypePointer Function %float
          %5 = OpTypeFunction %float %float %_ptr_Function_float
    %v2float = OpTypeVector %float 2
    %float_1 = OpConstant %float 1
    %float_2 = OpConstant %float 2
         %16 = OpConstantComposite %v2float %float_1 %float_2
          %f = OpFunction %float None %5
          %9 = OpFunctionParameter %float
         %10 = OpFunctionParameter %_ptr_Function_float
         %11 = OpLabel
         %19 = OpVariable %_ptr_Function_float Function
         %12 = OpLoad %float %10 Aligned 4
         %13 = OpExtInst %float %14 Sqrt %12
               OpStore %19 %13 Volatile
         %20 = OpFAdd %float %12 %13
               OpReturnValue %20
               OpFunctionEnd
"#;

const B_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {
  spirv.SpecConstant @a = 1 : i32
  spirv.SpecConstant @b = true
  spirv.SpecConstantComposite @c (@a, @a) : vector<2xi32>
  spirv.func @f(%c: i1, %x: i32 {spirv.decoration = #spirv.decoration<Restrict>}) -> i32 "Inline|Pure" {
    %t = spirv.Constant true
    %s = spirv.Constant dense<3> : vector<2xi32>
    %ar = spirv.Constant [1 : i32, 2 : i32] : !spirv.array<2 x i32>
    %u = spirv.Undef : i32
    spirv.BranchConditional %c [5, 10], ^a(%x : i32), ^b(%u, %x : i32, i32)
  ^a(%p: i32):
    spirv.Switch %x : i32, [
      default: ^c(%p : i32),
      0: ^c(%x : i32),
      1: ^d
    ]
  ^b(%q: i32, %r: i32):
    spirv.Branch ^c(%q : i32)
  ^c(%z: i32):
    %v = spirv.mlir.selection -> i32 {
      spirv.BranchConditional %c, ^t, ^m(%z : i32)
    ^t:
      spirv.Branch ^m(%x : i32)
    ^m(%w : i32):
      spirv.mlir.merge %w : i32
    }
    spirv.mlir.loop control(Unroll) {
      spirv.Branch ^h(%v : i32)
    ^h(%i: i32):
      spirv.BranchConditional %c, ^body, ^m
    ^body:
      spirv.Branch ^cont
    ^cont:
      spirv.Branch ^h(%i : i32)
    ^m:
      spirv.mlir.merge
    }
    spirv.ReturnValue %v : i32
  ^d:
    spirv.ReturnValue %x : i32
  }
}
"#;

const B_OUT: &str = r#"               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpName %a "a"
               OpName %b "b"
               OpName %c "c"
               OpName %f "f"
               OpDecorate %10 Restrict
       %uint = OpTypeInt 32 0
          %a = OpSpecConstant %uint 1
       %bool = OpTypeBool
          %b = OpSpecConstantTrue %bool
     %v2uint = OpTypeVector %uint 2
          %c = OpSpecConstantComposite %v2uint %a %a
          %7 = OpTypeFunction %uint %bool %uint
       %true = OpConstantTrue %bool
     %uint_3 = OpConstant %uint 3
         %13 = OpConstantComposite %v2uint %uint_3 %uint_3
     %uint_2 = OpConstant %uint 2
%_arr_uint_uint_2 = OpTypeArray %uint %uint_2
     %uint_1 = OpConstant %uint 1
         %17 = OpConstantComposite %_arr_uint_uint_2 %uint_1 %uint_2
         %19 = OpUndef %uint
          %f = OpFunction %uint Inline|Pure %7
          %9 = OpFunctionParameter %bool
         %10 = OpFunctionParameter %uint
         %11 = OpLabel
               OpBranchConditional %9 %20 %21 5 10
         %20 = OpLabel
         %22 = OpPhi %uint %10 %11
               OpSwitch %10 %23 0 %23 1 %24
         %23 = OpLabel
         %25 = OpPhi %uint %35 %21 %22 %20 %22 %20
               OpBranch %26
         %26 = OpLabel
               OpSelectionMerge %28 None
               OpBranchConditional %9 %27 %28
         %27 = OpLabel
               OpBranch %28
         %28 = OpLabel
         %29 = OpPhi %uint %10 %27 %25 %26
               OpBranch %30
         %30 = OpLabel
         %34 = OpPhi %uint %34 %32 %29 %28
               OpLoopMerge %33 %32 Unroll
               OpBranchConditional %9 %31 %33
         %31 = OpLabel
               OpBranch %32
         %32 = OpLabel
               OpBranch %30
         %33 = OpLabel
               OpReturnValue %29
         %24 = OpLabel
               OpReturnValue %10
         %21 = OpLabel
         %35 = OpPhi %uint %19 %11
         %36 = OpPhi %uint %10 %11
               OpBranch %23
               OpFunctionEnd
"#;

#[test]
fn refuses_what_the_vce_triple_does_not_cover() {
    let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  spirv.func @f(%a: i64) -> i64 \"None\" {\n    %0 = spirv.IAdd %a, %a : i64\n    spirv.ReturnValue %0 : i64\n  }\n}\n";
    let e = serialize_text(text).unwrap_err();
    assert!(e.message.contains("capabilities [Int64]"), "{}", e.message);
    assert!(matches!(e.location, Location::FileLineCol { line: 3, .. }), "{:?}", e.location);
    let text = text.replace("[Shader]", "[Shader, Int64]");
    assert!(serialize_text(&text).is_ok());
}

const STRUCTS_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, Linkage], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @ssbo bind(0, 1) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0, NonWritable])>, StorageBuffer>
  spirv.GlobalVariable @ubo bind(1, 0) {aliased} : !spirv.ptr<!spirv.struct<(!spirv.matrix<4 x vector<4xf32>> [0, ColMajor, MatrixStride=16], vector<2xi32> [64])>, Uniform>
  spirv.GlobalVariable @list : !spirv.ptr<!spirv.struct<Node, (i32, !spirv.ptr<!spirv.struct<Node>, Private>)>, Private>
  spirv.GlobalVariable @out {location = 2 : i32, flat} : !spirv.ptr<si32, Output>
  spirv.func @g() "None" {
    %0 = spirv.Constant 7 : si32
    %1 = spirv.mlir.addressof @out : !spirv.ptr<si32, Output>
    spirv.Store "Output" %1, %0 : si32
    %2 = spirv.Constant 7 : ui32
    %3 = spirv.Constant 7 : i32
    %4 = spirv.IAdd %2, %2 : ui32
    %5 = spirv.IAdd %3, %3 : i32
    spirv.Return
  }
}
"#;

const STRUCTS_OUT: &str = r#"               OpCapability Shader
               OpCapability Linkage
               OpExtension "SPV_KHR_storage_buffer_storage_class"
               OpMemoryModel Logical GLSL450
               OpName %ssbo "ssbo"
               OpName %ubo "ubo"
               OpName %Node "Node"
               OpName %list "list"
               OpName %out "out"
               OpName %g "g"
               OpDecorate %_runtimearr_float ArrayStride 4
               OpMemberDecorate %_struct_2 0 Offset 0
               OpMemberDecorate %_struct_2 0 NonWritable
               OpDecorate %_struct_2 Block
               OpDecorate %ssbo Binding 1
               OpDecorate %ssbo DescriptorSet 0
               OpMemberDecorate %_struct_7 0 Offset 0
               OpMemberDecorate %_struct_7 1 Offset 64
               OpMemberDecorate %_struct_7 0 ColMajor
               OpMemberDecorate %_struct_7 0 MatrixStride 16
               OpDecorate %_struct_7 Block
               OpDecorate %ubo Aliased
               OpDecorate %ubo Binding 0
               OpDecorate %ubo DescriptorSet 1
               OpDecorate %out Flat
               OpDecorate %out Location 2
      %float = OpTypeFloat 32
%_runtimearr_float = OpTypeRuntimeArray %float
  %_struct_2 = OpTypeStruct %_runtimearr_float
%_ptr_StorageBuffer__struct_2 = OpTypePointer StorageBuffer %_struct_2
       %ssbo = OpVariable %_ptr_StorageBuffer__struct_2 StorageBuffer
    %v4float = OpTypeVector %float 4
%mat4v4float = OpTypeMatrix %v4float 4
       %uint = OpTypeInt 32 0
     %v2uint = OpTypeVector %uint 2
  %_struct_7 = OpTypeStruct %mat4v4float %v2uint
%_ptr_Uniform__struct_7 = OpTypePointer Uniform %_struct_7
        %ubo = OpVariable %_ptr_Uniform__struct_7 Uniform
               OpTypeForwardPointer %_ptr_Private_Node Private
       %Node = OpTypeStruct %uint %_ptr_Private_Node
%_ptr_Private_Node = OpTypePointer Private %Node
%_ptr_Private_Node_0 = OpTypePointer Private %Node
       %list = OpVariable %_ptr_Private_Node_0 Private
        %int = OpTypeInt 32 1
%_ptr_Output_int = OpTypePointer Output %int
        %out = OpVariable %_ptr_Output_int Output
       %void = OpTypeVoid
         %20 = OpTypeFunction %void
      %int_7 = OpConstant %int 7
     %uint_7 = OpConstant %uint 7
   %uint_7_0 = OpConstant %uint 7
          %g = OpFunction %void None %20
         %23 = OpLabel
               OpStore %out %int_7
         %27 = OpIAdd %uint %uint_7 %uint_7
         %28 = OpIAdd %uint %uint_7_0 %uint_7_0
               OpReturn
               OpFunctionEnd
"#;

const SPEC_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Float64, Linkage], []> {
  spirv.SpecConstant @x spec_id(5) = 3 : i32
  spirv.SpecConstant @y = 2.5 : f64
  spirv.SpecConstant @flag = false
  spirv.SpecConstantComposite @xx (@x, @x) : !spirv.array<2 x i32>
  spirv.GlobalVariable @gv initializer(@x) : !spirv.ptr<i32, Private>
  spirv.func @use() -> i32 "None" {
    %0 = spirv.mlir.referenceof @x : i32
    %1 = spirv.SpecConstantOperation wraps "spirv.IMul"(%0, %0) : (i32, i32) -> i32
    %2 = spirv.Undef : i32
    %3 = spirv.Undef : i32
    %4 = spirv.IAdd %1, %2 : i32
    %5 = spirv.IAdd %4, %3 : i32
    %6 = spirv.FunctionCall @later(%5) : (i32) -> i32
    spirv.ReturnValue %6 : i32
  }
  spirv.func @later(%a: i32) -> i32 "Const" {
    spirv.ReturnValue %a : i32
  }
}
"#;

const SPEC_OUT: &str = r#"               OpCapability Shader
               OpCapability Float64
               OpCapability Linkage
               OpMemoryModel Logical GLSL450
               OpName %x "x"
               OpName %y "y"
               OpName %flag "flag"
               OpName %xx "xx"
               OpName %gv "gv"
               OpName %use "use"
               OpName %later "later"
               OpDecorate %x SpecId 5
       %uint = OpTypeInt 32 0
          %x = OpSpecConstant %uint 3
     %double = OpTypeFloat 64
          %y = OpSpecConstant %double 2.5
       %bool = OpTypeBool
       %flag = OpSpecConstantFalse %bool
     %uint_2 = OpConstant %uint 2
%_arr_uint_uint_2 = OpTypeArray %uint %uint_2
         %xx = OpSpecConstantComposite %_arr_uint_uint_2 %x %x
%_ptr_Private_uint = OpTypePointer Private %uint
         %gv = OpVariable %_ptr_Private_uint Private %x
         %12 = OpTypeFunction %uint
         %15 = OpSpecConstantOp %uint IMul %x %x
         %16 = OpUndef %uint
         %21 = OpTypeFunction %uint %uint
        %use = OpFunction %uint None %12
         %14 = OpLabel
         %17 = OpIAdd %uint %15 %16
         %18 = OpIAdd %uint %17 %16
         %20 = OpFunctionCall %uint %later %18
               OpReturnValue %20
               OpFunctionEnd
      %later = OpFunction %uint Const %21
         %22 = OpFunctionParameter %uint
         %23 = OpLabel
               OpReturnValue %22
               OpFunctionEnd
"#;

const ATOMICS_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.3, [Shader, GroupNonUniformArithmetic], [SPV_KHR_storage_buffer_storage_class]> {
  spirv.GlobalVariable @buf bind(0, 0) : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
  spirv.func @k(%v: i32) -> i32 "None" {
    %zero = spirv.Constant 0 : i32
    %ptr = spirv.mlir.addressof @buf : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>
    %elem = spirv.AccessChain %ptr[%zero, %zero] : !spirv.ptr<!spirv.struct<(!spirv.rtarray<i32, stride=4> [0])>, StorageBuffer>, i32, i32 -> !spirv.ptr<i32, StorageBuffer>
    %old = spirv.AtomicIAdd <Device> <AcquireRelease> %elem, %v : !spirv.ptr<i32, StorageBuffer>
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    %sum = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %old : i32 -> i32
    %vec = spirv.CompositeConstruct %sum, %v : (i32, i32) -> vector<2xi32>
    %x = spirv.CompositeExtract %vec[1 : i32] : vector<2xi32>
    %s = spirv.VectorShuffle [1 : i32, 0 : i32] %vec, %vec : vector<2xi32>, vector<2xi32> -> vector<2xi32>
    %y = spirv.GL.SMax %x, %sum : i32
    spirv.ReturnValue %y : i32
  }
}
"#;

const ATOMICS_OUT: &str = r#"               OpCapability Shader
               OpCapability GroupNonUniformArithmetic
               OpExtension "SPV_KHR_storage_buffer_storage_class"
         %25 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpName %buf "buf"
               OpName %k "k"
               OpDecorate %_runtimearr_uint ArrayStride 4
               OpMemberDecorate %_struct_2 0 Offset 0
               OpDecorate %_struct_2 Block
               OpDecorate %buf Binding 0
               OpDecorate %buf DescriptorSet 0
       %uint = OpTypeInt 32 0
%_runtimearr_uint = OpTypeRuntimeArray %uint
  %_struct_2 = OpTypeStruct %_runtimearr_uint
%_ptr_StorageBuffer__struct_2 = OpTypePointer StorageBuffer %_struct_2
        %buf = OpVariable %_ptr_StorageBuffer__struct_2 StorageBuffer
          %6 = OpTypeFunction %uint %uint
     %uint_0 = OpConstant %uint 0
%_ptr_StorageBuffer_uint = OpTypePointer StorageBuffer %uint
     %uint_1 = OpConstant %uint 1
     %uint_8 = OpConstant %uint 8
     %uint_2 = OpConstant %uint 2
   %uint_264 = OpConstant %uint 264
     %uint_3 = OpConstant %uint 3
     %v2uint = OpTypeVector %uint 2
          %k = OpFunction %uint None %6
          %8 = OpFunctionParameter %uint
          %9 = OpLabel
         %12 = OpAccessChain %_ptr_StorageBuffer_uint %buf %uint_0 %uint_0
         %13 = OpAtomicIAdd %uint %12 %uint_1 %uint_8 %8
               OpControlBarrier %uint_2 %uint_2 %uint_264
         %18 = OpGroupNonUniformIAdd %uint %uint_3 Reduce %13
         %21 = OpCompositeConstruct %v2uint %18 %8
         %22 = OpCompositeExtract %uint %21 1
         %23 = OpVectorShuffle %v2uint %21 %21 1 0
         %24 = OpExtInst %uint %25 SMax %22 %18
               OpReturnValue %24
               OpFunctionEnd
"#;

const DECL_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Linkage, Float16], []> {
  spirv.func @caller() "None" {
    %0 = spirv.Constant 1.5 : f16
    spirv.FunctionCall @ext(%0) : (f16) -> ()
    spirv.Return
  }
  spirv.func @ext(%a: f16) "None" attributes {linkage_attributes = #spirv.linkage_attributes<linkage_name = "ext_impl", linkage_type = <Import>>}
}
"#;

const DECL_OUT: &str = r#"               OpCapability Shader
               OpCapability Linkage
               OpCapability Float16
               OpMemoryModel Logical GLSL450
               OpName %ext "ext"
               OpName %caller "caller"
               OpDecorate %ext LinkageAttributes "ext_impl" Import
       %void = OpTypeVoid
       %half = OpTypeFloat 16
          %1 = OpTypeFunction %void %half
          %6 = OpTypeFunction %void
%half_0x1_8p_0 = OpConstant %half 0x1.8p+0
        %ext = OpFunction %void None %1
          %5 = OpFunctionParameter %half
               OpFunctionEnd
     %caller = OpFunction %void None %6
          %8 = OpLabel
         %10 = OpFunctionCall %void %ext %half_0x1_8p_0
               OpReturn
               OpFunctionEnd
"#;

const DEBUG_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_non_semantic_info]> {
  spirv.GlobalVariable @g : !spirv.ptr<f32, Private>
  spirv.func @f(%c: i1, %x: f32) -> f32 "None" {
    %v = spirv.Variable : !spirv.ptr<f32, Function>
    %0 = spirv.FAdd %x, %x : f32
    spirv.mlir.selection {
      spirv.BranchConditional %c, ^t, ^m
    ^t:
      spirv.Store "Function" %v, %0 : f32
      spirv.Branch ^m
    ^m:
      spirv.mlir.merge
    }
    %1 = spirv.Load "Function" %v : f32
    spirv.ReturnValue %1 : f32
  }
}
"#;

const DEBUG_OUT: &str = r#"               OpCapability Shader
               OpExtension "SPV_KHR_non_semantic_info"
               OpMemoryModel Logical GLSL450
          %1 = OpString "t.mlir"
               OpName %g "g"
               OpName %f "f"
      %float = OpTypeFloat 32
%_ptr_Private_float = OpTypePointer Private %float
               OpLine %1 2 3
          %g = OpVariable %_ptr_Private_float Private
       %bool = OpTypeBool
          %5 = OpTypeFunction %float %bool %float
%_ptr_Function_float = OpTypePointer Function %float
          %f = OpFunction %float None %5
          %8 = OpFunctionParameter %bool
          %9 = OpFunctionParameter %float
         %10 = OpLabel
               OpLine %1 4 10
         %12 = OpVariable %_ptr_Function_float Function
               OpLine %1 5 10
         %13 = OpFAdd %float %9 %9
               OpBranch %14
         %14 = OpLabel
               OpLine %1 6 5
               OpSelectionMerge %16 None
               OpBranchConditional %8 %15 %16
         %15 = OpLabel
               OpLine %1 9 7
               OpStore %12 %13
               OpLine %1 10 7
               OpBranch %16
         %16 = OpLabel
               OpLine %1 14 10
         %17 = OpLoad %float %12
               OpLine %1 15 5
               OpReturnValue %17
               OpFunctionEnd
"#;

const LOOP_RESULT_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Linkage], []> {
  spirv.func @sum(%n: i32) -> i32 "None" {
    %zero = spirv.Constant 0 : i32
    %one = spirv.Constant 1 : i32
    %r = spirv.mlir.loop -> i32 {
      spirv.Branch ^header(%zero, %zero : i32, i32)
    ^header(%i: i32, %acc: i32):
      %cmp = spirv.SLessThan %i, %n : i32
      spirv.BranchConditional %cmp, ^body, ^merge(%acc : i32)
    ^body:
      %acc2 = spirv.IAdd %acc, %i : i32
      %sel = spirv.mlir.selection -> i32 {
        spirv.BranchConditional %cmp, ^then, ^join(%acc2 : i32)
      ^then:
        %d = spirv.IAdd %acc2, %one : i32
        spirv.Branch ^join(%d : i32)
      ^join(%j: i32):
        spirv.mlir.merge %j : i32
      }
      spirv.Branch ^continue(%sel : i32)
    ^continue(%a3: i32):
      %next = spirv.IAdd %i, %one : i32
      spirv.Branch ^header(%next, %a3 : i32, i32)
    ^merge(%out: i32):
      spirv.mlir.merge %out : i32
    }
    spirv.ReturnValue %r : i32
  }
}
"#;

const LOOP_RESULT_ORACLE_PREFIX: &str = r#"               OpCapability Shader
               OpCapability Linkage
               OpMemoryModel Logical GLSL450
               OpName %sum "sum"
       %uint = OpTypeInt 32 0
          %1 = OpTypeFunction %uint %uint
     %uint_0 = OpConstant %uint 0
     %uint_1 = OpConstant %uint 1
       %bool = OpTypeBool
        %sum = OpFunction %uint None %1
          %4 = OpFunctionParameter %uint
          %5 = OpLabel
               OpBranch %8
          %8 = OpLabel
         %12 = OpPhi %uint %23 %10 %uint_0 %5
         %13 = OpPhi %uint %22 %10 %uint_0 %5
         %15 = OpSLessThan %bool %12 %4
               OpLoopMerge %11 %10 None
               OpBranchConditional %15 %9 %11
          %9 = OpLabel
         %16 = OpIAdd %uint %13 %12
               OpBranch %17
         %17 = OpLabel
               OpSelectionMerge %19 None
               OpBranchConditional %15 %18 %19
         %18 = OpLabel
         %20 = OpIAdd %uint %16 %uint_1
               OpBranch %19
         %19 = OpLabel
         %21 = OpPhi %uint %20 %18 %16 %17
               OpBranch %10
         %10 = OpLabel
         %22 = OpPhi %uint %21 %19
         %23 = OpIAdd %uint %12 %uint_1
               OpBranch %8
         %11 = OpLabel
"#;

const MISC1_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.6, [Shader, Linkage, GroupNonUniformShuffle, GroupNonUniformBallot, GroupNonUniformArithmetic, GroupNonUniformClustered, DotProduct, DotProductInput4x8BitPacked, CooperativeMatrixKHR, ExpectAssumeKHR, AtomicFloat32AddEXT], [SPV_KHR_cooperative_matrix, SPV_KHR_expect_assume, SPV_EXT_shader_atomic_float_add]> {
  spirv.func @f(%a: i32, %b: i32, %v: vector<4xf32>, %p: !spirv.ptr<i32, StorageBuffer>, %fp: !spirv.ptr<f32, StorageBuffer>, %c: i1, %f: f32) -> i32 "None" {
    %0 = spirv.IAddCarry %a, %b : !spirv.struct<(i32, i32)>
    %1 = spirv.SMulExtended %a, %b : !spirv.struct<(i32, i32)>
    %2 = spirv.CompositeExtract %0[0 : i32] : !spirv.struct<(i32, i32)>
    %3 = spirv.VectorExtractDynamic %v[%a] : vector<4xf32>, i32
    %4 = spirv.VectorInsertDynamic %3, %v[%b] : vector<4xf32>, i32
    %5 = spirv.GroupNonUniformShuffle <Subgroup> %3, %a : f32, i32
    %cs = spirv.Constant 4 : i32
    %6 = spirv.GroupNonUniformFMax <Subgroup> <ClusteredReduce> %f cluster_size(%cs) : f32, i32 -> f32
    %7 = spirv.GroupNonUniformElect <Workgroup> : i1
    %8 = spirv.SDot %a, %b, <PackedVectorFormat4x8Bit> : i32 -> i32
    %9 = spirv.AtomicCompareExchange <Workgroup> <AcquireRelease> <Acquire> %p, %a, %b : !spirv.ptr<i32, StorageBuffer>
    %10 = spirv.EXT.AtomicFAdd <Device> <None> %fp, %f : !spirv.ptr<f32, StorageBuffer>
    spirv.KHR.AssumeTrue %c
    %11 = spirv.GL.FrexpStruct %f : f32 -> !spirv.struct<(f32, i32)>
    %v2 = spirv.VectorShuffle [0 : i32, 1 : i32] %v, %v : vector<4xf32>, vector<4xf32> -> vector<2xf32>
    %12 = spirv.GL.PackHalf2x16 %v2 : vector<2xf32> -> i32
    %13 = spirv.IsFinite %f : f32
    %bal = spirv.GroupNonUniformBallot <Subgroup> %c : vector<4xi32>
    %14 = spirv.GroupNonUniformBallotFindLSB <Subgroup> %bal : vector<4xi32>, i32
    spirv.ReturnValue %2 : i32
  }
}
"#;

const MISC1_OUT: &str = r#"               OpCapability Shader
               OpCapability Linkage
               OpCapability GroupNonUniformShuffle
               OpCapability GroupNonUniformBallot
               OpCapability GroupNonUniformArithmetic
               OpCapability GroupNonUniformClustered
               OpCapability DotProduct
               OpCapability DotProductInput4x8BitPacked
               OpCapability CooperativeMatrixKHR
               OpCapability ExpectAssumeKHR
               OpCapability AtomicFloat32AddEXT
               OpExtension "SPV_KHR_cooperative_matrix"
               OpExtension "SPV_KHR_expect_assume"
               OpExtension "SPV_EXT_shader_atomic_float_add"
         %37 = OpExtInstImport "GLSL.std.450"
               OpMemoryModel Logical GLSL450
               OpName %f "f"
       %uint = OpTypeInt 32 0
      %float = OpTypeFloat 32
    %v4float = OpTypeVector %float 4
%_ptr_StorageBuffer_uint = OpTypePointer StorageBuffer %uint
%_ptr_StorageBuffer_float = OpTypePointer StorageBuffer %float
       %bool = OpTypeBool
          %1 = OpTypeFunction %uint %uint %uint %v4float %_ptr_StorageBuffer_uint %_ptr_StorageBuffer_float %bool %float
 %_struct_17 = OpTypeStruct %uint %uint
     %uint_3 = OpConstant %uint 3
     %uint_4 = OpConstant %uint 4
     %uint_2 = OpConstant %uint 2
     %uint_8 = OpConstant %uint 8
     %uint_1 = OpConstant %uint 1
     %uint_0 = OpConstant %uint 0
 %_struct_35 = OpTypeStruct %float %uint
    %v2float = OpTypeVector %float 2
     %v4uint = OpTypeVector %uint 4
          %f = OpFunction %uint None %1
          %9 = OpFunctionParameter %uint
         %10 = OpFunctionParameter %uint
         %11 = OpFunctionParameter %v4float
         %12 = OpFunctionParameter %_ptr_StorageBuffer_uint
         %13 = OpFunctionParameter %_ptr_StorageBuffer_float
         %14 = OpFunctionParameter %bool
         %15 = OpFunctionParameter %float
         %16 = OpLabel
         %18 = OpIAddCarry %_struct_17 %9 %10
         %19 = OpSMulExtended %_struct_17 %9 %10
         %20 = OpCompositeExtract %uint %18 0
         %21 = OpVectorExtractDynamic %float %11 %9
         %22 = OpVectorInsertDynamic %v4float %11 %21 %10
         %23 = OpGroupNonUniformShuffle %float %uint_3 %21 %9
         %26 = OpGroupNonUniformFMax %float %uint_3 ClusteredReduce %15 %uint_4
         %27 = OpGroupNonUniformElect %bool %uint_2
         %29 = OpSDot %uint %9 %10 PackedVectorFormat4x8Bit
         %30 = OpAtomicCompareExchange %uint %12 %uint_2 %uint_8 %uint_2 %9 %10
         %32 = OpAtomicFAddEXT %float %13 %uint_1 %uint_0 %15
               OpAssumeTrueKHR %14
         %36 = OpExtInst %_struct_35 %37 FrexpStruct %15
         %39 = OpVectorShuffle %v2float %11 %11 0 1
         %40 = OpExtInst %uint %37 PackHalf2x16 %39
         %41 = OpIsFinite %bool %15
         %43 = OpGroupNonUniformBallot %v4uint %uint_3 %14
         %44 = OpGroupNonUniformBallotFindLSB %uint %uint_3 %43
               OpReturnValue %20
               OpFunctionEnd
"#;

const MISC2_IN: &str = r#"spirv.module Physical64 OpenCL requires #spirv.vce<v1.6, [Kernel, Addresses, Linkage, Int64, Int8, CooperativeMatrixKHR, Float16], [SPV_KHR_cooperative_matrix]> {
  spirv.func @k(%p: !spirv.ptr<f32, CrossWorkgroup>, %i: i64, %x: f32, %ip: !spirv.ptr<i32, Workgroup>, %s: i32, %mp: !spirv.ptr<i32, CrossWorkgroup>) -> f32 "None" {
    %0 = spirv.PtrAccessChain %p[%i] : !spirv.ptr<f32, CrossWorkgroup>, i64 -> !spirv.ptr<f32, CrossWorkgroup>
    %1 = spirv.InBoundsPtrAccessChain %0[%i] : !spirv.ptr<f32, CrossWorkgroup>, i64 -> !spirv.ptr<f32, CrossWorkgroup>
    %2 = spirv.Load "CrossWorkgroup" %1 ["Aligned", 8] : f32
    %3 = spirv.CL.fma %2, %x, %x : f32
    %4 = spirv.CL.s_max %s, %s : i32
    %5 = spirv.CL.atan2 %3, %x : f32
    %6 = spirv.AtomicIIncrement <Workgroup> <SequentiallyConsistent> %ip : !spirv.ptr<i32, Workgroup>
    %7 = spirv.AtomicExchange <Device> <Release> %ip, %4 : !spirv.ptr<i32, Workgroup>
    %m = spirv.KHR.CooperativeMatrixLoad %mp, %s, <RowMajor> : !spirv.ptr<i32, CrossWorkgroup>, i32 -> !spirv.coopmatrix<16x8xi32, Subgroup, MatrixA>
    %len = spirv.KHR.CooperativeMatrixLength : !spirv.coopmatrix<16x8xi32, Subgroup, MatrixA>
    spirv.KHR.CooperativeMatrixStore %mp, %m, %s, <ColumnMajor>, <Volatile> : !spirv.ptr<i32, CrossWorkgroup>, !spirv.coopmatrix<16x8xi32, Subgroup, MatrixA>, i32
    %h = spirv.FConvert %x : f32 to f16
    %u = spirv.UConvert %s : i32 to i8
    spirv.ReturnValue %5 : f32
  }
}
"#;

const MISC2_OUT: &str = r#"               OpCapability Kernel
               OpCapability Addresses
               OpCapability Linkage
               OpCapability Int64
               OpCapability Int8
               OpCapability CooperativeMatrixKHR
               OpCapability Float16
               OpExtension "SPV_KHR_cooperative_matrix"
         %20 = OpExtInstImport "OpenCL.std"
               OpMemoryModel Physical64 OpenCL
               OpName %k "k"
      %float = OpTypeFloat 32
%_ptr_CrossWorkgroup_float = OpTypePointer CrossWorkgroup %float
      %ulong = OpTypeInt 64 0
       %uint = OpTypeInt 32 0
%_ptr_Workgroup_uint = OpTypePointer Workgroup %uint
%_ptr_CrossWorkgroup_uint = OpTypePointer CrossWorkgroup %uint
          %1 = OpTypeFunction %float %_ptr_CrossWorkgroup_float %ulong %float %_ptr_Workgroup_uint %uint %_ptr_CrossWorkgroup_uint
     %uint_2 = OpConstant %uint 2
    %uint_16 = OpConstant %uint 16
     %uint_1 = OpConstant %uint 1
     %uint_4 = OpConstant %uint 4
     %uint_3 = OpConstant %uint 3
     %uint_8 = OpConstant %uint 8
     %uint_0 = OpConstant %uint 0
         %29 = OpTypeCooperativeMatrixKHR %uint %uint_3 %uint_16 %uint_8 %uint_0
       %half = OpTypeFloat 16
      %uchar = OpTypeInt 8 0
          %k = OpFunction %float None %1
          %9 = OpFunctionParameter %_ptr_CrossWorkgroup_float
         %10 = OpFunctionParameter %ulong
         %11 = OpFunctionParameter %float
         %12 = OpFunctionParameter %_ptr_Workgroup_uint
         %13 = OpFunctionParameter %uint
         %14 = OpFunctionParameter %_ptr_CrossWorkgroup_uint
         %15 = OpLabel
         %16 = OpPtrAccessChain %_ptr_CrossWorkgroup_float %9 %10
         %17 = OpInBoundsPtrAccessChain %_ptr_CrossWorkgroup_float %16 %10
         %18 = OpLoad %float %17 Aligned 8
         %19 = OpExtInst %float %20 fma %18 %11 %11
         %21 = OpExtInst %uint %20 s_max %13 %13
         %22 = OpExtInst %float %20 atan2 %19 %11
         %23 = OpAtomicIIncrement %uint %12 %uint_2 %uint_16
         %26 = OpAtomicExchange %uint %12 %uint_1 %uint_4 %21
         %33 = OpCooperativeMatrixLoadKHR %29 %14 %uint_0 %13
         %34 = OpCooperativeMatrixLengthKHR %uint %29
               OpCooperativeMatrixStoreKHR %14 %33 %uint_1 %13 Volatile
         %36 = OpFConvert %half %11
         %38 = OpUConvert %uchar %13
               OpReturnValue %22
               OpFunctionEnd
"#;

const ARM_IN: &str = r#"spirv.module Logical Vulkan requires #spirv.vce<v1.6, [VulkanMemoryModel, Shader, Int8, TensorsARM, GraphARM, ReplicatedCompositesEXT], [SPV_ARM_tensors, SPV_ARM_graph, SPV_EXT_replicated_composites]> {
  spirv.GlobalVariable @in bind(0, 0) : !spirv.ptr<!spirv.arm.tensor<2x3xi8>, UniformConstant>
  spirv.GlobalVariable @out bind(0, 1) : !spirv.ptr<!spirv.arm.tensor<2x3xi8>, UniformConstant>
  spirv.ARM.GraphEntryPoint @g, @in, @out
  spirv.ARM.Graph @g(%arg0 : !spirv.arm.tensor<2x3xi8>) -> !spirv.arm.tensor<2x3xi8> attributes {entry_point = true} {
    spirv.ARM.GraphOutputs %arg0 : !spirv.arm.tensor<2x3xi8>
  }
  spirv.func @consts() -> !spirv.arm.tensor<2x3xi32> "None" {
    %0 = spirv.Constant dense<[[1, 2, 3], [4, 5, 6]]> : !spirv.arm.tensor<2x3xi32>
    %1 = spirv.Constant dense<0> : !spirv.arm.tensor<2x3xi32>
    %2 = spirv.EXT.ConstantCompositeReplicate [7 : i32] : !spirv.arm.tensor<2x3xi32>
    %3 = spirv.EXT.ConstantCompositeReplicate [7 : i32] : !spirv.array<2 x vector<2xi32>>
    spirv.ReturnValue %0 : !spirv.arm.tensor<2x3xi32>
  }
}
"#;

const ARM_OUT: &str = r#"               OpCapability VulkanMemoryModel
               OpCapability Shader
               OpCapability Int8
               OpCapability TensorsARM
               OpCapability GraphARM
               OpCapability ReplicatedCompositesEXT
               OpExtension "SPV_ARM_tensors"
               OpExtension "SPV_ARM_graph"
               OpExtension "SPV_EXT_replicated_composites"
               OpMemoryModel Logical Vulkan
               OpName %in "in"
               OpName %out "out"
               OpName %consts "consts"
               OpDecorate %in Binding 0
               OpDecorate %in DescriptorSet 0
               OpDecorate %out Binding 1
               OpDecorate %out DescriptorSet 0
      %uchar = OpTypeInt 8 0
       %uint = OpTypeInt 32 0
     %uint_2 = OpConstant %uint 2
%_arr_uint_uint_2 = OpTypeArray %uint %uint_2
     %uint_3 = OpConstant %uint 3
          %7 = OpConstantComposite %_arr_uint_uint_2 %uint_2 %uint_3
          %2 = OpTypeTensorARM %uchar %uint_2 %7
%_ptr_UniformConstant_2 = OpTypePointer UniformConstant %2
         %in = OpVariable %_ptr_UniformConstant_2 UniformConstant
        %out = OpVariable %_ptr_UniformConstant_2 UniformConstant
         %12 = OpTypeGraphARM 1 %2 %2
     %uint_0 = OpConstant %uint 0
         %17 = OpConstantComposite %_arr_uint_uint_2 %uint_2 %uint_3
         %16 = OpTypeTensorARM %uint %uint_2 %17
         %15 = OpTypeFunction %16
     %uint_1 = OpConstant %uint 1
%_arr_uint_uint_1 = OpTypeArray %uint %uint_1
         %24 = OpConstantComposite %_arr_uint_uint_1 %uint_3
         %21 = OpTypeTensorARM %uint %uint_1 %24
         %25 = OpConstantComposite %21 %uint_1 %uint_2 %uint_3
     %uint_4 = OpConstant %uint 4
     %uint_5 = OpConstant %uint 5
     %uint_6 = OpConstant %uint 6
         %26 = OpConstantComposite %21 %uint_4 %uint_5 %uint_6
         %20 = OpConstantComposite %16 %25 %26
         %30 = OpConstantNull %16
     %uint_7 = OpConstant %uint 7
         %32 = OpConstantCompositeReplicateEXT %16 %uint_7
     %v2uint = OpTypeVector %uint 2
%_arr_v2uint_uint_2 = OpTypeArray %v2uint %uint_2
         %35 = OpConstantCompositeReplicateEXT %v2uint %uint_7
         %36 = OpConstantCompositeReplicateEXT %_arr_v2uint_uint_2 %35
     %consts = OpFunction %16 None %15
         %19 = OpLabel
               OpReturnValue %20
               OpFunctionEnd
               OpGraphEntryPointARM %11 "g" %in %out
         %11 = OpGraphARM %12
         %13 = OpGraphInputARM %2 %uint_0
               OpGraphSetOutputARM %13 %uint_0
               OpGraphEndARM
"#;

const VDUP_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Linkage], []> {
  spirv.func @f(%a: vector<2xui32>, %b: vector<2xi32>, %p: !spirv.ptr<ui32, Function>, %q: !spirv.ptr<i32, Function>) "None" {
    spirv.Return
  }
}
"#;

const EMID_IN: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.2, [Shader], []> {
  spirv.func @main() "None" {
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSizeId", 8, 4, 1
}
"#;

const EMID_ORACLE: &str = r#"               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSizeId %8 %4 %1
               OpName %main "main"
       %void = OpTypeVoid
          %1 = OpTypeFunction %void
       %main = OpFunction %void None %1
          %4 = OpLabel
               OpReturn
               OpFunctionEnd
"#;

#[test]
fn malformed_unverified_ir_is_an_error_not_a_panic() {
    // The parser does not verify: these reach the serializer as they are.
    let wrap = |body: &str| {
        format!(
            "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Linkage], []> {{\n{body}\n}}\n"
        )
    };
    let cases = [
        // A loop without header, continue and merge blocks.
        "spirv.func @f() \"None\" {\n  spirv.mlir.loop {\n    spirv.mlir.merge\n  }\n  spirv.Return\n}",
        // A block argument no branch passes.
        "spirv.func @f(%c: i1) \"None\" {\n  spirv.Branch ^b\n^b(%x: i32):\n  spirv.Return\n}",
        // A use of a value defined in a block never reached.
        "spirv.func @f() -> i32 \"None\" {\n  spirv.Branch ^b\n^a:\n  %0 = spirv.Constant 1 : i32\n  spirv.Branch ^b\n^b:\n  %1 = spirv.IAdd %0, %0 : i32\n  spirv.ReturnValue %1 : i32\n}",
        // An entry point naming no function.
        "spirv.EntryPoint \"GLCompute\" @nowhere",
    ];
    let mut tried = 0;
    for body in cases {
        let text = wrap(body);
        let Ok((ir, top)) = spirvkit_ir::parse(&text, "t.mlir") else { continue };
        let Some(module) = crate::test_support::first_op(&ir, top, "spirv.module") else {
            continue;
        };
        let options = SerializeOptions { check_requirements: false, ..SerializeOptions::default() };
        assert!(serialize(&ir, module, &options).is_err(), "{text}");
        tried += 1;
    }
    assert_eq!(tried, cases.len());
}

#[test]
fn generic_extended_instructions_name_strings_symbols_and_constants() {
    let text = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_non_semantic_info]> {
  "spirv.ExtInst"() {instruction = "DebugSource", literals = ["t.mlir"], operand_layout = "r", set = "NonSemantic.Shader.DebugInfo.100", sym_name = "source"} : () -> ()
  "spirv.ExtInst"() {instruction = 9 : i32, literals = [@source, 7 : i32, true, none, @main], operand_layout = "rrrrr", set = "NonSemantic.Mine"} : () -> ()
  spirv.func @main() "None" {
    %0 = spirv.Constant 1.0 : f32
    %1 = "spirv.ExtInst"(%0) {instruction = "DebugPrintf", literals = ["t.mlir"], operand_layout = "ri", set = "NonSemantic.DebugPrintf"} : (f32) -> none
    "spirv.ExtInst"(%1) {instruction = 3 : i32, set = "NonSemantic.Mine"} : (none) -> ()
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}
"#;
    // With debug info, the file's string (the module is located in "t.mlir") is the
    // one the instructions name.
    let options = SerializeOptions { emit_debug_info: true, ..SerializeOptions::default() };
    let got = serialize_text_with(text, &options).expect("serializes");
    assert_eq!(got.matches("OpString").count(), 1, "{got}");
    for line in [
        "%1 = OpString \"t.mlir\"\n",
        "%4 = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"\n",
        "%11 = OpExtInstImport \"NonSemantic.Mine\"\n",
        "OpName %source \"source\"\n",
        "%source = OpExtInst %void %4 DebugSource %1\n",
        "%5 = OpExtInst %void %11 9 %source %uint_7 %true %void %main\n",
        "%16 = OpExtInst %void %17 1 %1 %float_1\n",
        "%18 = OpExtInst %void %11 3 %16\n",
    ] {
        assert!(got.contains(line), "{line}\n{got}");
    }
    // A symbol that names nothing defined before is an error, not a made-up id.
    let dangling = text.replace("literals = [@source, 7", "literals = [@nowhere, 7");
    let e = serialize_text(&dangling).unwrap_err();
    assert!(e.message.contains("'nowhere' names no function, variable"), "{}", e.message);
    let unknown = text.replace("instruction = \"DebugSource\"", "instruction = \"NoSuchThing\"");
    let e = serialize_text(&unknown).unwrap_err();
    assert!(
        e.message.contains("names no instruction of set NonSemantic.Shader.DebugInfo.100"),
        "{}",
        e.message
    );
}

/// Binary -> IR -> binary -> IR gives the first IR back, and the second binary is the
/// first: the structured control flow the deserializer makes (split headers, headers
/// moved into their region, guard flags) serializes into the binary shape it was
/// read from.
fn assert_settles(asm: &str) {
    let target_env = spirvkit_binary::TargetEnv::parse("spv1.0").expect("known target");
    let options = spirvkit_binary::AsmOptions { target_env, preserve_numeric_ids: false };
    let words = spirvkit_binary::assemble(asm, &options).expect("valid assembly");
    let round = |words: &[u32]| -> (String, Vec<u32>) {
        let bytes = spirvkit_binary::write::words_to_bytes(words, spirvkit_binary::module::Endian::Little);
        let mut ir = Ir::new();
        let module =
            crate::deserialize(&bytes, &mut ir, &crate::DeserializeOptions::default()).expect("deserializes");
        let text = spirvkit_ir::print(&ir, module, spirvkit_ir::PrintOptions::default());
        (text, serialize(&ir, module, &SerializeOptions::default()).expect("serializes"))
    };
    let (first, words1) = round(&words);
    let (second, words2) = round(&words1);
    assert_eq!(second, first, "IR after the second deserialization");
    let (third, words3) = round(&words2);
    assert_eq!(third, first);
    assert_eq!(words3, words2, "binaries of the second and third rounds");
}

const SETTLE_PRELUDE: &str = "OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%void = OpTypeVoid
%fn = OpTypeFunction %void
%bool = OpTypeBool
%int = OpTypeInt 32 1
%int_0 = OpConstant %int 0
%int_1 = OpConstant %int 1
%int_10 = OpConstant %int 10
%ptr = OpTypePointer Function %int
";

#[test]
fn round_trip_settles_for_a_header_in_the_entry_block() {
    assert_settles(&format!(
        "{SETTLE_PRELUDE}%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
%x = OpLoad %int %v
%c = OpSLessThan %bool %x %int_10
OpSelectionMerge %m None
OpBranchConditional %c %t %m
%t = OpLabel
OpStore %v %int_1
OpBranch %m
%m = OpLabel
OpSelectionMerge %m2 None
OpSwitch %int_0 %d
%d = OpLabel
OpBranch %m2
%m2 = OpLabel
OpReturn
OpFunctionEnd
"
    ));
}

#[test]
fn round_trip_settles_for_loops_with_phis_and_breaks() {
    assert_settles(&format!(
        "{SETTLE_PRELUDE}%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
OpBranch %h
%h = OpLabel
%i = OpPhi %int %int_0 %entry %next %cont
OpLoopMerge %exit %cont None
OpBranch %body
%body = OpLabel
%c = OpSLessThan %bool %i %int_10
OpSelectionMerge %sm None
OpBranchConditional %c %sm %brk
%brk = OpLabel
OpBranch %exit
%sm = OpLabel
OpStore %v %i
OpBranch %cont
%cont = OpLabel
%next = OpIAdd %int %i %int_1
OpBranch %h
%exit = OpLabel
OpBranch %h2
%h2 = OpLabel
%j = OpPhi %int %int_0 %exit %jn %c2
OpLoopMerge %e2 %c2 None
OpBranch %b2
%b2 = OpLabel
%d = OpSLessThan %bool %j %int_10
OpBranchConditional %d %c2 %e2
%c2 = OpLabel
%jn = OpIAdd %int %j %int_1
OpBranch %h2
%e2 = OpLabel
OpReturn
OpFunctionEnd
"
    ));
}

const EXT_INSTS: &str = "OpCapability Shader
OpExtension \"SPV_KHR_non_semantic_info\"
%dbg = OpExtInstImport \"NonSemantic.Shader.DebugInfo.100\"
OpMemoryModel Logical GLSL450
OpEntryPoint GLCompute %main \"main\"
OpExecutionMode %main LocalSize 1 1 1
%s1 = OpString \"a.hlsl\"
%s2 = OpString \"a.hlsl\"
OpName %src \"my_source\"
OpName %src2 \"other_source\"
%void = OpTypeVoid
%fn = OpTypeFunction %void
%src = OpExtInst %void %dbg DebugSource %s1
%src2 = OpExtInst %void %dbg DebugSource %s2
%main = OpFunction %void None %fn
%entry = OpLabel
OpReturn
OpFunctionEnd
";

/// Deserializes assembly and serializes the IR back.
fn round_trip_words(asm: &str) -> (Vec<u32>, Vec<u32>) {
    let target_env = spirvkit_binary::TargetEnv::parse("spv1.0").expect("known target");
    let options = spirvkit_binary::AsmOptions { target_env, preserve_numeric_ids: false };
    let words = spirvkit_binary::assemble(asm, &options).expect("valid assembly");
    let bytes = spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::module::Endian::Little);
    let mut ir = Ir::new();
    let module =
        crate::deserialize(&bytes, &mut ir, &crate::DeserializeOptions::default()).expect("deserializes");
    let back = serialize(&ir, module, &SerializeOptions::default()).expect("serializes");
    (words, back)
}

fn disassembled(words: &[u32]) -> String {
    let bytes = spirvkit_binary::write::words_to_bytes(words, spirvkit_binary::module::Endian::Little);
    let module = spirvkit_binary::read::read(&bytes).expect("reads back");
    let options = spirvkit_binary::dis::DisOptions { header: false, ..Default::default() };
    String::from_utf8(spirvkit_binary::dis::disassemble(&module, &options)).expect("utf-8")
}

#[test]
fn module_level_extended_instructions_keep_their_names() {
    let (_, back) = round_trip_words(EXT_INSTS);
    let text = disassembled(&back);
    for name in ["my_source", "other_source"] {
        let line = text.lines().find(|l| l.contains(&format!("\"{name}\""))).unwrap_or_default();
        assert!(line.contains("OpName"), "no OpName {name} in:\n{text}");
    }
    assert_settles(EXT_INSTS);
    // Unnamed, they are named by their made-up symbols, which then read back alike.
    let unnamed: String =
        EXT_INSTS.lines().filter(|l| !l.starts_with("OpName")).map(|l| format!("{l}\n")).collect();
    assert_settles(&unnamed);
}

/// An `OpString` id means nothing but its text (operands refer to strings by text in
/// the IR; OpLine and OpSource, the other users, do not survive deserialization), so
/// two strings of one text become one, and the result means what the original does.
#[test]
fn strings_of_one_text_become_one() {
    let (words, back) = round_trip_words(EXT_INSTS);
    let text = disassembled(&back);
    assert_eq!(text.matches("OpString \"a.hlsl\"").count(), 1, "{text}");
    let bytes =
        |w: &[u32]| spirvkit_binary::write::words_to_bytes(w, spirvkit_binary::module::Endian::Little);
    let original = spirvkit_binary::read::read(&bytes(&words)).expect("reads");
    let result = spirvkit_binary::read::read(&bytes(&back)).expect("reads");
    let comparison = spirvkit_binary::equiv::compare(&original, &result);
    assert_eq!(comparison.semantic().count(), 0, "{:?}", comparison.differences);
}

#[test]
fn round_trip_settles_for_breaks_from_consecutive_selections() {
    // The second selection's header is the first one's merge block: its ops move on
    // when the first one dispatches its break, and its guard flag goes with them.
    assert_settles(&format!(
        "{SETTLE_PRELUDE}%int_6 = OpConstant %int 6
%main = OpFunction %void None %fn
%entry = OpLabel
%v = OpVariable %ptr Function
OpBranch %h
%h = OpLabel
OpLoopMerge %exit %cont None
OpBranch %a
%a = OpLabel
%x = OpLoad %int %v
%c = OpSLessThan %bool %x %int_6
OpSelectionMerge %b None
OpBranchConditional %c %b %brk1
%brk1 = OpLabel
OpBranch %exit
%b = OpLabel
%y = OpLoad %int %v
%d = OpSLessThan %bool %y %int_1
OpSelectionMerge %m2 None
OpBranchConditional %d %brk2 %m2
%brk2 = OpLabel
OpStore %v %int_0
OpBranch %exit
%m2 = OpLabel
OpBranch %cont
%cont = OpLabel
OpBranch %h
%exit = OpLabel
OpReturn
OpFunctionEnd
"
    ));
}

// ---------------------------------------------------------------------------
// OpenCL kernels (Addresses, no structured control flow)

const KERNEL_PRELUDE: &str = "OpCapability Addresses
OpCapability Kernel
OpCapability Int8
%cl = OpExtInstImport \"OpenCL.std\"
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main \"main\"
";

/// Assembly -> binary -> IR -> text -> IR -> binary: the text reads back, the binary
/// means what the original means (`equiv`) and a second round changes nothing.
fn assert_kernel_round_trips(asm: &str) -> String {
    let target_env = spirvkit_binary::TargetEnv::parse("spv1.0").expect("known target");
    let options = spirvkit_binary::AsmOptions { target_env, preserve_numeric_ids: false };
    let words = spirvkit_binary::assemble(asm, &options).expect("valid assembly");
    let bytes =
        |w: &[u32]| spirvkit_binary::write::words_to_bytes(w, spirvkit_binary::module::Endian::Little);
    let serialize_options = SerializeOptions { check_requirements: false, ..SerializeOptions::default() };
    let round = |words: &[u32]| -> (String, Vec<u32>) {
        let mut ir = Ir::new();
        let module = crate::deserialize(&bytes(words), &mut ir, &crate::DeserializeOptions::default())
            .expect("deserializes");
        let text = spirvkit_ir::print(&ir, module, spirvkit_ir::PrintOptions::default());
        let (parsed, top) = spirvkit_ir::parse(&text, "t.mlir").unwrap_or_else(|e| panic!("{e:?}\n{text}"));
        let module = crate::test_support::first_op(&parsed, top, "spirv.module").expect("a spirv.module");
        let back = serialize(&parsed, module, &serialize_options).unwrap_or_else(|e| panic!("{e}\n{text}"));
        (text, back)
    };
    let (first, words1) = round(&words);
    let original = spirvkit_binary::read::read(&bytes(&words)).expect("reads");
    let result = spirvkit_binary::read::read(&bytes(&words1)).expect("reads back");
    let comparison = spirvkit_binary::equiv::compare(&original, &result);
    assert_eq!(comparison.semantic().count(), 0, "{:?}\n{first}", comparison.differences);
    let (second, words2) = round(&words1);
    assert_eq!(second, first, "IR after the second deserialization");
    assert_eq!(words2, words1, "binaries of the first and second rounds");
    first
}

#[test]
fn opencl_void_extended_instructions_keep_their_void_result() {
    let text = assert_kernel_round_trips(&format!(
        "{KERNEL_PRELUDE}%void = OpTypeVoid
%uchar = OpTypeInt 8 0
%uint = OpTypeInt 32 0
%v2 = OpTypeVector %uchar 2
%ptr = OpTypePointer CrossWorkgroup %uchar
%fn = OpTypeFunction %void %ptr
%c1 = OpConstant %uchar 1
%c0 = OpConstant %uint 0
%vec = OpConstantComposite %v2 %c1 %c1
%main = OpFunction %void None %fn
%p = OpFunctionParameter %ptr
%l = OpLabel
%r = OpExtInst %void %cl vstoren %vec %c0 %p
OpReturn
OpFunctionEnd
"
    ));
    assert!(text.contains("spirv.CL.vstoren"), "{text}");
}

/// OpenCL.std instructions MLIR 22's ODS lacks and the dialect tables derive from the
/// grammar (`exp2` shaped like `exp`, ...) read as their ops, in the custom form, and
/// write back as the same extended instructions.
#[test]
fn opencl_instructions_derived_from_the_grammar_round_trip_as_ops() {
    let text = assert_kernel_round_trips(&format!(
        "{KERNEL_PRELUDE}%void = OpTypeVoid
%float = OpTypeFloat 32
%ptr = OpTypePointer CrossWorkgroup %float
%fn = OpTypeFunction %void %ptr
%main = OpFunction %void None %fn
%p = OpFunctionParameter %ptr
%l = OpLabel
%x = OpLoad %float %p
%a = OpExtInst %float %cl exp2 %x
%b = OpExtInst %float %cl exp10 %a
%c = OpExtInst %float %cl log2 %b
%d = OpExtInst %float %cl log10 %c
%e = OpExtInst %float %cl trunc %d
%f = OpExtInst %float %cl mad %e %e %x
OpStore %p %f
OpReturn
OpFunctionEnd
"
    ));
    for expected in [
        "spirv.CL.exp2 %",
        "spirv.CL.exp10 %",
        "spirv.CL.log2 %",
        "spirv.CL.log10 %",
        "spirv.CL.trunc %",
        "spirv.CL.mad %",
    ] {
        assert!(text.contains(expected), "{expected}: {text}");
    }
    assert!(!text.contains("\"spirv.CL."), "generic fallback ops: {text}");
}

#[test]
fn opencl_parameter_decorations_of_every_kind_round_trip() {
    let text = assert_kernel_round_trips(&format!(
        "{KERNEL_PRELUDE}OpDecorate %p FuncParamAttr NoAlias
OpDecorate %p FuncParamAttr NoCapture
OpDecorate %p Restrict
OpDecorate %p Volatile
OpDecorateId %q MaxByteOffsetId %c24
OpDecorate %q Alignment 4
OpDecorateString %g UserSemantic \"a b\"
OpDecorateString %g UserSemantic \"c\"
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%ptr = OpTypePointer CrossWorkgroup %uint
%fn = OpTypeFunction %void %ptr %ptr
%c24 = OpConstant %uint 24
%g = OpVariable %ptr CrossWorkgroup
%main = OpFunction %void None %fn
%p = OpFunctionParameter %ptr
%q = OpFunctionParameter %ptr
%l = OpLabel
OpStore %g %c24
OpReturn
OpFunctionEnd
"
    ));
    for expected in [
        "spirv.func_param_attr = [\"NoAlias\", \"NoCapture\"]",
        "spirv.decoration = #spirv.decoration<Restrict>",
        "spirv.volatile",
        "spirv.max_byte_offset_id = 24 : i32",
        "spirv.alignment = 4 : i32",
        "user_semantic = [\"a b\", \"c\"]",
    ] {
        assert!(text.contains(expected), "no {expected} in:\n{text}");
    }
}

/// Decoration groups mean the decorations they apply: the round trip writes those as
/// plain decorations, which `equiv` counts as the same.
#[test]
fn opencl_decoration_groups_become_the_decorations_they_apply() {
    let text = assert_kernel_round_trips(&format!(
        "{KERNEL_PRELUDE}OpDecorate %grp Volatile
OpDecorate %grp Alignment 8
%grp = OpDecorationGroup
OpGroupDecorate %grp %a %b
OpGroupMemberDecorate %grp %s 1
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%s = OpTypeStruct %uint %uint
%ptr = OpTypePointer CrossWorkgroup %uint
%sptr = OpTypePointer CrossWorkgroup %s
%fn = OpTypeFunction %void
%a = OpVariable %ptr CrossWorkgroup
%b = OpVariable %sptr CrossWorkgroup
%main = OpFunction %void None %fn
%l = OpLabel
%x = OpLoad %uint %a
%y = OpLoad %s %b
OpReturn
OpFunctionEnd
"
    ));
    assert_eq!(text.matches("alignment = 8 : i32").count(), 2, "{text}");
}

/// MLIR 22 has no struct constant: ours is the array of the members' values, nested
/// composites included, and an empty struct's is `[]`.
#[test]
fn opencl_struct_constants_are_arrays_of_member_values() {
    let text = assert_kernel_round_trips(&format!(
        "{KERNEL_PRELUDE}OpCapability Int16
%void = OpTypeVoid
%ushort = OpTypeInt 16 0
%uint = OpTypeInt 32 0
%uint_2 = OpConstant %uint 2
%v2 = OpTypeVector %uint 2
%arr = OpTypeArray %ushort %uint_2
%inner = OpTypeStruct %ushort %arr
%s = OpTypeStruct %uint %v2 %inner
%empty = OpTypeStruct
%ptr = OpTypePointer Function %s
%eptr = OpTypePointer Function %empty
%fn = OpTypeFunction %void
%ushort_7 = OpConstant %ushort 7
%vec = OpConstantComposite %v2 %uint_2 %uint_2
%a = OpConstantComposite %arr %ushort_7 %ushort_7
%i = OpConstantComposite %inner %ushort_7 %a
%c = OpConstantComposite %s %uint_2 %vec %i
%e = OpConstantComposite %empty
%main = OpFunction %void None %fn
%l = OpLabel
%v = OpVariable %ptr Function
%w = OpVariable %eptr Function
OpStore %v %c
OpStore %w %e
OpReturn
OpFunctionEnd
"
    ));
    assert!(text.contains("spirv.Constant [] : !spirv.struct<()>"), "{text}");
    assert!(
        text.contains("spirv.Constant [2 : i32, dense<2> : vector<2xi32>, [7 : i16, [7 : i16, 7 : i16]]]"),
        "{text}"
    );
}

/// A constant initializer has no symbol for MLIR's `initializer`: it is kept by value.
#[test]
fn opencl_constant_initializers_are_kept_by_value() {
    let text = assert_kernel_round_trips(&format!(
        "{KERNEL_PRELUDE}%void = OpTypeVoid
%uchar = OpTypeInt 8 0
%ulong = OpTypeInt 64 0
%uint = OpTypeInt 32 0
%uint_2 = OpConstant %uint 2
%arr = OpTypeArray %uchar %uint_2
%aptr = OpTypePointer UniformConstant %arr
%lptr = OpTypePointer CrossWorkgroup %ulong
%fn = OpTypeFunction %void
%h = OpConstant %uchar 104
%z = OpConstant %uchar 0
%str = OpConstantComposite %arr %h %z
%max = OpConstant %ulong 18446744073709551615
%s = OpVariable %aptr UniformConstant %str
%x = OpVariable %lptr CrossWorkgroup %max
%main = OpFunction %void None %fn
%l = OpLabel
%v = OpLoad %ulong %x
%w = OpLoad %arr %s
OpReturn
OpFunctionEnd
"
    ));
    assert!(text.contains("initializer_constant = [104 : i8, 0 : i8]"), "{text}");
    assert!(text.contains("initializer_constant = -1 : i64"), "{text}");
}

/// OpenCL.DebugInfo.100's DebugTypeMember names its parent type, which lists the
/// member: one of the two is a forward reference, by symbol in the IR.
#[test]
fn debug_information_may_name_a_later_instruction() {
    let text = assert_kernel_round_trips(
        "OpCapability Addresses
OpCapability Kernel
%dbg = OpExtInstImport \"OpenCL.DebugInfo.100\"
OpMemoryModel Physical64 OpenCL
OpEntryPoint Kernel %main \"main\"
%file = OpString \"a.cl\"
%m = OpString \"m\"
%s = OpString \"S\"
%void = OpTypeVoid
%uint = OpTypeInt 32 0
%uint_0 = OpConstant %uint 0
%fn = OpTypeFunction %void
%src = OpExtInst %void %dbg DebugSource %file
%none = OpExtInst %void %dbg DebugInfoNone
%member = OpExtInst %void %dbg DebugTypeMember %m %none %src 1 0 %comp %uint_0 %uint_0 FlagIsPublic
%comp = OpExtInst %void %dbg DebugTypeComposite %s Structure %src 1 0 %src %s %uint_0 FlagIsPublic %member
%main = OpFunction %void None %fn
%l = OpLabel
OpReturn
OpFunctionEnd
",
    );
    assert!(text.contains("@spirv_ext_inst_"), "{text}");
}

/// A module of `count` functions (large enough to be verified beside its
/// serialization), with `extra` at its module level.
fn large_module_text(count: usize, extra: &str) -> String {
    let mut text =
        String::from("spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader, Linkage], []> {\n");
    for i in 0..count {
        text.push_str(&format!("  spirv.func @f{i}(%arg0: i32) -> i32 \"None\" {{\n"));
        for k in 0..8 {
            text.push_str(&format!("    %{k} = spirv.IAdd %arg0, %arg0 : i32\n"));
        }
        text.push_str("    spirv.ReturnValue %7 : i32\n  }\n");
    }
    text.push_str(extra);
    text.push_str("}\n");
    text
}

#[test]
fn verified_beside_serialization_as_verified_before() {
    if !spirvkit_ir::parallel::two_cores() {
        eprintln!("skipped: verifying beside the serialization needs two cores");
        return;
    }
    let options = SerializeOptions { check_requirements: false, ..SerializeOptions::default() };
    // Small modules of every kind, forced.
    for text in [
        T1_IN,
        B_IN,
        STRUCTS_IN,
        SPEC_IN,
        ATOMICS_IN,
        DECL_IN,
        LOOP_RESULT_IN,
        MISC1_IN,
        MISC2_IN,
        ARM_IN,
        EMID_IN,
    ] {
        let (ir, top) = spirvkit_ir::parse(text, "t.mlir").expect("parses");
        let module = crate::test_support::first_op(&ir, top, "spirv.module").unwrap();
        let verifies = spirvkit_ir::verify::first_failure(&ir, top, text).is_none();
        match serialize_verifying_at_any_size(&ir, top, module, text, &options) {
            Some(beside) => {
                assert!(verifies);
                let first = serialize_read_back(&ir, module, &options).map(|m| m.words().to_vec());
                assert_eq!(
                    beside.map(|m| m.words().to_vec()).map_err(|e| e.message),
                    first.map_err(|e| e.message)
                );
            }
            None => assert!(!verifies, "{text}"),
        }
    }
    // The reader's mixed-signedness bitcasts are elided by a whole-module analysis:
    // the halves decline a module holding one (found in the text), the whole
    // serialization writes no OpBitcast for it.
    let mixed = "  spirv.func @mixed(%x: si32, %y: i32) -> i32 \"None\" {\n    %0 = spirv.Bitcast %x {spirvkit.mixed_signedness} : si32 to i32\n    %1 = spirv.IAdd %0, %y : i32\n    spirv.ReturnValue %1 : i32\n  }\n";
    let text = large_module_text(2500, mixed);
    let (ir, top) = spirvkit_ir::parse(&text, "t.mlir").expect("parses");
    let module = crate::test_support::first_op(&ir, top, "spirv.module").unwrap();
    let whole = serialize_read_back(&ir, module, &options).expect("serializes");
    assert!(!whole.words().contains(&((4 << 16) | 124)), "an OpBitcast was written");
    let mut halves = spirvkit_ir::text::split_parse::parse_halves_at_any_size(&text, "t.mlir").expect("cut");
    assert!(serialize_halves_at_any_size(&mut halves, &text, &options).is_none());
    let call_later = "  spirv.func @caller(%x: i32) -> i32 \"None\" {\n    %0 = spirv.FunctionCall @f3(%x) : (i32) -> i32\n    spirv.ReturnValue %0 : i32\n  }\n";
    let failing = "  spirv.func @bad(%x: i32) -> f32 \"None\" {\n    %0 = \"spirv.IAdd\"(%x, %x) : (i32, i32) -> f32\n    spirv.ReturnValue %0 : f32\n  }\n";
    let no_binary_form = "  \"test.op\"() : () -> ()\n";
    for (extra, verifies) in [("", true), (call_later, true), (failing, false), (no_binary_form, true)] {
        let text = large_module_text(2500, extra);
        let (ir, top) = spirvkit_ir::parse(&text, "t.mlir").expect("parses");
        assert!(ir.op_count() >= PARALLEL_CHECK_OPS);
        let module = crate::test_support::first_op(&ir, top, "spirv.module").unwrap();
        assert_eq!(spirvkit_ir::verify::first_failure(&ir, top, &text).is_none(), verifies, "{extra}");
        let beside = serialize_read_back_verifying(&ir, top, module, &text, &options);
        if !verifies {
            assert!(beside.is_none(), "{extra}");
            let mut halves =
                spirvkit_ir::text::split_parse::parse_halves_at_any_size(&text, "t.mlir").expect("cut");
            assert!(serialize_halves_at_any_size(&mut halves, &text, &options).is_none(), "{extra}");
            continue;
        }
        let before = serialize_read_back(&ir, module, &options);
        assert_eq!(before.is_err(), extra == no_binary_form, "{extra}");
        // From the text's two pieces: the same words, or declined.
        let mut halves =
            spirvkit_ir::text::split_parse::parse_halves_at_any_size(&text, "t.mlir").expect("cut");
        match serialize_halves_at_any_size(&mut halves, &text, &options) {
            Some(pieces) => {
                assert_ne!(extra, no_binary_form);
                assert_eq!(pieces.expect("serializes").words(), before.as_ref().expect("serializes").words());
            }
            None => assert_eq!(extra, no_binary_form, "declined"),
        }
        match (beside.expect("serialized while verified"), before) {
            (Ok(beside), Ok(before)) => assert_eq!(beside.words(), before.words(), "{extra}"),
            (Err(beside), Err(before)) => assert_eq!(beside.message, before.message, "{extra}"),
            (beside, before) => panic!("{extra}: {:?} against {:?}", beside.err(), before.err()),
        }
    }
}

/// Disassembles `module` of `ir` serialized with `options`.
fn serialize_ir(ir: &Ir, module: OpId, options: &SerializeOptions) -> Result<String> {
    let words = serialize(ir, module, options)?;
    let bytes = spirvkit_binary::write::words_to_bytes(&words, spirvkit_binary::module::Endian::Little);
    let module = spirvkit_binary::read::read(&bytes).expect("our binary reads back");
    let options = spirvkit_binary::dis::DisOptions { header: false, ..Default::default() };
    Ok(String::from_utf8(spirvkit_binary::dis::disassemble(&module, &options)).expect("utf-8"))
}

const OP_NAMES: SerializeOptions = SerializeOptions {
    emit_symbol_names: true,
    emit_op_names: true,
    emit_debug_info: false,
    check_requirements: true,
    dxc_decoration_order: false,
    dxc_constants_first: false,
    struct_names: std::collections::BTreeMap::new(),
    unnamed_variables: std::collections::BTreeSet::new(),
    entry_point_names: std::collections::BTreeMap::new(),
    dxc_debug_lines: false,
    module_processed: Vec::new(),
    binding_order: Vec::new(),
};

/// A module built op by op, as a code generator does: `float src.main(float x)` with
/// a function variable, an if/else and a phi, every value and block named.
fn built_with_names() -> (Ir, OpId) {
    use spirvkit_ir::attr::NamedAttribute;
    use spirvkit_ir::types::FloatKind;
    let mut ir = Ir::new();
    let module = ir.create_op("spirv.module", vec![], &[], Location::Unknown);
    let dialect = |name: &str, body: &str| Attribute::Dialect { name: name.into(), body: Some(body.into()) };
    ir.op_mut(module).properties = vec![
        NamedAttribute::new("addressing_model", dialect("spirv.addressing_model", "Logical")),
        NamedAttribute::new("memory_model", dialect("spirv.memory_model", "GLSL450")),
        NamedAttribute::new("vce_triple", dialect("spirv.vce", "v1.0, [Shader, Linkage], []")),
    ];
    let body = ir.add_region(module);
    let module_block = ir.create_block();
    ir.append_block(body, module_block);
    let f32t = ir.types.float(FloatKind::F32);
    let i1 = ir.types.integer(1, spirvkit_ir::types::Signedness::Signless);
    let ptr = ir.types.pointer(f32t, "Function");
    let fn_type = ir.types.function(vec![f32t], vec![f32t]);
    let func = ir.create_op("spirv.func", vec![], &[], Location::Unknown);
    ir.op_mut(func).properties = vec![
        NamedAttribute::new("function_control", dialect("spirv.function_control", "None")),
        NamedAttribute::new("function_type", Attribute::Type(fn_type)),
        NamedAttribute::new("sym_name", Attribute::String("src.main".into())),
    ];
    ir.op_mut(func).attributes.push(NamedAttribute::new(
        "linkage_attributes",
        dialect("spirv.linkage_attributes", "linkage_name = \"src.main\", linkage_type = <Export>"),
    ));
    ir.append_op(module_block, func);
    let region = ir.add_region(func);
    let blocks: Vec<BlockId> = (0..4).map(|_| ir.create_block()).collect();
    for (&b, name) in blocks.iter().zip(["bb.entry", "if.true", "if.false", "if.merge"]) {
        ir.append_block(region, b);
        ir.set_block_name(b, name);
    }
    let x = ir.add_block_argument(blocks[0], f32t, Location::named("x"));
    let phi = ir.add_block_argument(blocks[3], f32t, Location::named("phi.value"));
    let op =
        |ir: &mut Ir, block: usize, name: &str, operands: Vec<Value>, results: &[Type], loc: Location| {
            let op = ir.create_op(name, operands, results, loc);
            ir.append_op(blocks[block], op);
            op
        };
    let var = op(&mut ir, 0, "spirv.Variable", vec![], &[ptr], Location::named("param.var.x"));
    ir.set_property(var, "storage_class", dialect("spirv.storage_class", "Function"));
    let var = ir.op(var).results[0];
    op(&mut ir, 0, "spirv.Store", vec![var, x], &[], Location::Unknown);
    let zero = op(&mut ir, 0, "spirv.Constant", vec![], &[f32t], Location::named("zero"));
    ir.set_property(zero, "value", Attribute::Float { value: 0.0, ty: f32t });
    let zero = ir.op(zero).results[0];
    let cmp = op(&mut ir, 0, "spirv.FOrdGreaterThan", vec![x, zero], &[i1], Location::named("cmp"));
    let cmp = ir.op(cmp).results[0];
    let branch = op(&mut ir, 0, "spirv.BranchConditional", vec![cmp], &[], Location::Unknown);
    ir.op_mut(branch).successors = spirvkit_ir::ir::thin_vec![blocks[1], blocks[2]];
    let sizes = Attribute::DenseArray {
        element: ir.types.integer(32, spirvkit_ir::types::Signedness::Signless),
        values: [1, 0, 0]
            .map(|v| Attribute::Integer {
                value: v,
                ty: ir.types.integer(32, spirvkit_ir::types::Signedness::Signless),
            })
            .to_vec(),
    };
    ir.set_property(branch, "operandSegmentSizes", sizes);
    for (block, value) in [(1, x), (2, zero)] {
        let to_merge = op(&mut ir, block, "spirv.Branch", vec![value], &[], Location::Unknown);
        ir.op_mut(to_merge).successors = spirvkit_ir::ir::thin_vec![blocks[3]];
    }
    let loaded = op(&mut ir, 3, "spirv.Load", vec![var], &[f32t], Location::Unknown);
    let loaded = ir.op(loaded).results[0];
    let sum = op(
        &mut ir,
        3,
        "spirv.FAdd",
        vec![loaded, phi],
        &[f32t],
        Location::named_at("sum", Location::Unknown),
    );
    let sum = ir.op(sum).results[0];
    op(&mut ir, 3, "spirv.ReturnValue", vec![sum], &[], Location::Unknown);
    (ir, module)
}

#[test]
fn op_names_name_values_parameters_phis_and_labels_of_built_ir() {
    let (ir, module) = built_with_names();
    let got = serialize_ir(&ir, module, &OP_NAMES).expect("serializes");
    let lines: Vec<&str> = got.lines().map(str::trim).collect();
    for line in [
        "OpName %src_main \"src.main\"",
        "OpName %x \"x\"",
        "OpName %bb_entry \"bb.entry\"",
        "OpName %param_var_x \"param.var.x\"",
        "OpName %phi_value \"phi.value\"",
        "%x = OpFunctionParameter %float",
        "%bb_entry = OpLabel",
        "%param_var_x = OpVariable %_ptr_Function_float Function",
        "%zero = OpConstant %float 0",
        "%cmp = OpFOrdGreaterThan %bool %x %zero",
        "OpBranchConditional %cmp %if_true %if_false",
        "%if_true = OpLabel",
        "%if_false = OpLabel",
        "%if_merge = OpLabel",
        "%phi_value = OpPhi %float %zero %if_false %x %if_true",
        "%sum = OpFAdd %float %15 %phi_value",
    ] {
        assert!(lines.contains(&line), "no line {line:?} in\n{got}");
    }
    // Names in order of definition, after the symbols' (`OpName` of the function first).
    let order: Vec<&str> = lines.iter().filter_map(|l| l.strip_prefix("OpName %")).collect();
    // (The blocks are written depth first: `if.false` last.)
    let expected = [
        "src_main",
        "x",
        "bb_entry",
        "param_var_x",
        "zero",
        "cmp",
        "if_true",
        "if_merge",
        "phi_value",
        "sum",
        "if_false",
    ];
    let firsts: Vec<&str> =
        order.iter().map(|l| l.split(' ').next().unwrap_or("")).take(expected.len()).collect();
    assert_eq!(firsts, expected, "{got}");
    // Off by default: the words are those of the same IR without any name.
    let plain = serialize_ir(&ir, module, &SerializeOptions::default()).expect("serializes");
    assert_eq!(plain.lines().filter(|l| l.contains("OpName")).count(), 1, "{plain}");
    assert!(plain.contains("%1 = OpFunction") || plain.contains("%src_main = OpFunction"), "{plain}");
}

#[test]
fn member_names_follow_their_struct_name_and_stop_at_its_members() {
    let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  \
                spirv.GlobalVariable @cb bind(0, 0) : !spirv.ptr<!spirv.struct<type.ConstantBuffer.S, (f32 [0], f32 [4], i32 [8]), Block>, Uniform>\n}\n";
    let (mut ir, top) = spirvkit_ir::parse(text, "t.mlir").expect("parses");
    let module = crate::test_support::first_op(&ir, top, "spirv.module").expect("a spirv.module");
    // An empty name is not written; a name past the last member names nothing.
    let names = ["a", "", "c", "past.the.end"].map(String::from).to_vec();
    ir.types.set_struct_member_names("type.ConstantBuffer.S", names);
    let got = serialize_ir(&ir, module, &SerializeOptions::default()).expect("serializes");
    let names: Vec<&str> = got.lines().map(str::trim).filter(|l| l.contains("Name")).collect();
    assert_eq!(
        names,
        [
            "OpName %type_ConstantBuffer_S \"type.ConstantBuffer.S\"",
            "OpMemberName %type_ConstantBuffer_S 0 \"a\"",
            "OpMemberName %type_ConstantBuffer_S 2 \"c\"",
            "OpName %cb \"cb\"",
        ],
        "{got}"
    );
}

#[test]
fn a_module_source_is_written_as_op_source() {
    let module_with = |source: &str| {
        format!(
            "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], [SPV_KHR_non_semantic_info]> \
             attributes {{spirvkit.source = {source}}} {{\n}}\n"
        )
    };
    let trimmed = |text: String| text.lines().map(str::trim).collect::<Vec<_>>().join("\n");
    let got = trimmed(
        serialize_text(&module_with("{language = \"HLSL\", version = 600 : i32}")).expect("serializes"),
    );
    assert!(got.ends_with("OpMemoryModel Logical GLSL450\nOpSource HLSL 600"), "{got}");
    // With its file, after the file's OpString; debug information shares the string.
    let with_file = module_with("{file = \"t.mlir\", language = \"GLSL\", version = 450 : i32}");
    let got = trimmed(serialize_text(&with_file).expect("serializes"));
    assert!(got.ends_with("%1 = OpString \"t.mlir\"\nOpSource GLSL 450 %1"), "{got}");
    let debug = SerializeOptions { emit_debug_info: true, ..SerializeOptions::default() };
    let got = serialize_text_with(&with_file, &debug).expect("serializes");
    assert_eq!(got.matches("OpString").count(), 1, "{got}");
    // Refused: a language the grammar does not know, a value of another shape.
    let e = serialize_text(&module_with("{language = \"Cobol\", version = 1 : i32}")).unwrap_err();
    assert_eq!(e.message, "unknown source language 'Cobol'");
    let e = serialize_text(&module_with("\"HLSL 600\"")).unwrap_err();
    assert!(e.message.starts_with("'spirvkit.source' must be"), "{}", e.message);
}
