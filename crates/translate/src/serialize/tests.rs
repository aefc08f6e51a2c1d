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
