//! Modules serialized and disassembled, against the text `spirv-dis` gives for
//! mlir-translate-22's binary of the same module (inputs are our own).

use super::*;

/// Parses `text`, serializes its only `spirv.module` and disassembles the words.
fn serialize_text(text: &str) -> Result<String> {
    let (ir, top) = spirvkit_ir::parse(text, "t.mlir").expect("parses");
    let module = ir
        .ops_under(top)
        .into_iter()
        .map(|(_, op)| op)
        .find(|&op| ir.op(op).name == "spirv.module")
        .expect("a spirv.module");
    let words = serialize(&ir, module, &SerializeOptions::default())?;
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
    let module =
        ir.ops_under(top).into_iter().map(|(_, op)| op).find(|&op| ir.op(op).name == "spirv.module").unwrap();
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
