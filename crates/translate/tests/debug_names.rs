//! Debug names from the IR to the binary, as DXC writes them: value names (name
//! locations) and block names as `OpName` with `emit_op_names`, struct member names as
//! `OpMemberName`, the module's source as `OpSource`. Checked on the disassembly (the
//! friendly names `spirv-dis` gives: `%param_var_x = OpVariable`) and validated with
//! spirv-val when one is found (`SPIRV_VAL`, `<repo>/.venv/bin/spirv-val`, PATH).

mod common;

use common::validate;
use spirvkit_binary::{
    assemble, disassemble, read, words_to_bytes, AsmOptions, DisOptions, Endian, TargetEnv,
};
use spirvkit_ir::ir::BlockId;
use spirvkit_translate::{deserialize, serialize, DeserializeOptions, Ir, OpId, SerializeOptions};

const NAMED: SerializeOptions = SerializeOptions {
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

fn dis(words: &[u32]) -> String {
    let bytes = words_to_bytes(words, Endian::Little);
    let module = read(&bytes).expect("reads");
    String::from_utf8(disassemble(&module, &DisOptions { header: false, ..DisOptions::default() })).unwrap()
}

fn validated(words: &[u32], what: &str) {
    let bytes = words_to_bytes(words, Endian::Little);
    validate(&bytes, "vulkan1.0", what).unwrap_or_else(|e| panic!("{what}: invalid:\n{e}\n{}", dis(words)));
}

/// `line` with every numeric id (`%12`, names are what is checked) spelled `%N`.
fn numbered_ids_hidden(line: &str) -> String {
    let mut out = String::with_capacity(line.len());
    let mut rest = line;
    while let Some(at) = rest.find('%') {
        out.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        let ends = rest[digits..].chars().next().is_none_or(|c| !(c.is_alphanumeric() || c == '_'));
        if digits > 0 && ends {
            out.push('N');
            rest = &rest[digits..];
        }
    }
    out.push_str(rest);
    out
}

/// Each line of `expected` is a line of `text` (blanks around it ignored, numeric
/// ids written `%N`).
fn assert_lines(text: &str, expected: &[&str]) {
    let lines: Vec<String> = text.lines().map(|l| numbered_ids_hidden(l.trim())).collect();
    for &line in expected {
        assert!(lines.iter().any(|l| l == line), "no line {line:?} in\n{text}");
    }
}

/// The `index`th op named `name` under `top`.
fn nth_op(ir: &Ir, top: OpId, name: &str, index: usize) -> OpId {
    ir.ops_under(top).into_iter().map(|(_, op)| op).filter(|&op| ir.op(op).name == name).nth(index).unwrap()
}

fn region_blocks(ir: &Ir, op: OpId) -> Vec<BlockId> {
    ir.region(ir.op(op).regions[0]).blocks.clone()
}

/// A fragment shader as DXC lays it out: an entry function calling `src.main`, whose
/// parameter, variables and values carry name locations, with an if/else and a loop.
const SHADER: &str = r#"spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> attributes {spirvkit.source = {language = "HLSL", version = 600 : i32}} {
  spirv.GlobalVariable @S bind(0, 0) : !spirv.ptr<!spirv.struct<type.ConstantBuffer.S, (f32 [0], i32 [4]), Block>, Uniform>
  spirv.GlobalVariable @out.var.SV_Target {location = 0 : i32} : !spirv.ptr<f32, Output>
  spirv.func @main() "None" {
    %c = spirv.Constant 1.0 : f32
    %r = spirv.FunctionCall @src.main(%c) : (f32) -> f32 loc("temp.var.call")
    %out = spirv.mlir.addressof @out.var.SV_Target : !spirv.ptr<f32, Output> loc("not.a.name.of.the.variable")
    spirv.Store "Output" %out, %r : f32
    spirv.Return
  }
  spirv.func @src.main(%x: f32 loc("x")) -> f32 "None" {
    %result = spirv.Variable : !spirv.ptr<f32, Function> loc("param.var.x")
    %i = spirv.Variable : !spirv.ptr<i32, Function> loc("i")
    %zero = spirv.Constant 0.0 : f32 loc("zero")
    %zero_again = spirv.Constant 0.0 : f32 loc("zero.again")
    %izero = spirv.Constant 0 : i32
    %one = spirv.Constant 1 : i32
    %four = spirv.Constant 4 : i32
    spirv.Store "Function" %result, %x : f32
    spirv.Store "Function" %i, %izero : i32
    %s = spirv.mlir.addressof @S : !spirv.ptr<!spirv.struct<type.ConstantBuffer.S, (f32 [0], i32 [4]), Block>, Uniform>
    %a_ptr = spirv.AccessChain %s[%izero] : !spirv.ptr<!spirv.struct<type.ConstantBuffer.S, (f32 [0], i32 [4]), Block>, Uniform>, i32 -> !spirv.ptr<f32, Uniform>
    %a = spirv.Load "Uniform" %a_ptr : f32
    %cmp = spirv.FOrdGreaterThan %x, %a : f32 loc("cmp")
    spirv.mlir.selection {
      spirv.BranchConditional %cmp, ^bb1, ^bb2
    ^bb1:
      spirv.Store "Function" %result, %zero : f32
      spirv.Branch ^bb3
    ^bb2:
      spirv.Store "Function" %result, %zero_again : f32
      spirv.Branch ^bb3
    ^bb3:
      spirv.mlir.merge
    }
    spirv.mlir.loop {
      spirv.Branch ^bb1
    ^bb1:
      %iv = spirv.Load "Function" %i : i32
      %lt = spirv.SLessThan %iv, %four : i32 loc("cmp.loop")
      spirv.BranchConditional %lt, ^bb2, ^bb4
    ^bb2:
      spirv.Branch ^bb3
    ^bb3:
      %iv2 = spirv.Load "Function" %i : i32
      %inc = spirv.IAdd %iv2, %one : i32 loc("inc")
      spirv.Store "Function" %i, %inc : i32
      spirv.Branch ^bb1
    ^bb4:
      spirv.mlir.merge
    }
    %ret = spirv.Load "Function" %result : f32
    spirv.ReturnValue %ret : f32
  }
  spirv.EntryPoint "Fragment" @main, @out.var.SV_Target
  spirv.ExecutionMode @main "OriginUpperLeft"
}
"#;

/// [`SHADER`] parsed, its blocks and struct members named as a code generator would.
fn named_shader() -> (Ir, OpId) {
    let (mut ir, top) = spirvkit_ir::parse(SHADER, "shader.mlir").expect("parses");
    let module = nth_op(&ir, top, "spirv.module", 0);
    for (index, name) in [(0, "bb.entry"), (1, "bb.entry")] {
        let func = nth_op(&ir, module, "spirv.func", index);
        let entry = ir.entry_block(func).unwrap();
        ir.set_block_name(entry, name);
    }
    let selection = nth_op(&ir, module, "spirv.mlir.selection", 0);
    let blocks = region_blocks(&ir, selection);
    for (&block, name) in blocks[1..].iter().zip(["if.true", "if.false", "if.merge"]) {
        ir.set_block_name(block, name);
    }
    let a_loop = nth_op(&ir, module, "spirv.mlir.loop", 0);
    let blocks = region_blocks(&ir, a_loop);
    for (&block, name) in blocks[1..].iter().zip(["for.check", "for.body", "for.continue", "for.merge"]) {
        ir.set_block_name(block, name);
    }
    ir.types.set_struct_member_names("type.ConstantBuffer.S", vec!["a".into(), "b".into()]);
    (ir, module)
}

#[test]
fn value_block_member_names_and_the_source_reach_the_binary() {
    let (ir, module) = named_shader();
    let words = serialize(&ir, module, &NAMED).expect("serializes");
    let text = dis(&words);
    assert_lines(
        &text,
        &[
            "OpSource HLSL 600",
            "OpName %type_ConstantBuffer_S \"type.ConstantBuffer.S\"",
            "OpMemberName %type_ConstantBuffer_S 0 \"a\"",
            "OpMemberName %type_ConstantBuffer_S 1 \"b\"",
            "%temp_var_call = OpFunctionCall %float %src_main %float_1",
            "%src_main = OpFunction %float None %N",
            "%x = OpFunctionParameter %float",
            "%bb_entry = OpLabel",
            "%bb_entry_0 = OpLabel",
            "%param_var_x = OpVariable %_ptr_Function_float Function",
            "%i = OpVariable %_ptr_Function_uint Function",
            "%zero = OpConstant %float 0",
            "%cmp = OpFOrdGreaterThan %bool %x %N",
            "OpSelectionMerge %if_merge None",
            "%if_true = OpLabel",
            "%if_false = OpLabel",
            "%if_merge = OpLabel",
            "OpBranch %for_check",
            "%for_check = OpLabel",
            "%cmp_loop = OpSLessThan %bool %N %uint_4",
            "OpLoopMerge %for_merge %for_continue None",
            "OpBranchConditional %cmp_loop %for_body %for_merge",
            "%for_body = OpLabel",
            "%for_continue = OpLabel",
            "%inc = OpIAdd %uint %N %uint_1",
            "%for_merge = OpLabel",
        ],
    );
    // A uniqued constant is named once (by its first name); a symbol reference's
    // name location does not rename the symbol.
    assert!(!text.contains("zero.again") && !text.contains("not.a.name"), "{text}");
    // DXC's order: symbols, then each function's names in order of definition.
    let names: Vec<&str> = text.lines().map(str::trim).filter(|l| l.starts_with("OpName")).collect();
    let position = |name: &str| names.iter().position(|l| l.ends_with(&format!("\"{name}\""))).unwrap();
    let order = ["main", "src.main", "x", "param.var.x", "if.true", "if.merge", "for.check", "for.merge"];
    assert!(order.windows(2).all(|w| position(w[0]) < position(w[1])), "{names:#?}");
    validated(&words, "named shader");

    // Without `emit_op_names`, symbols and members keep their names, values and
    // blocks get none.
    let plain = dis(&serialize(&ir, module, &SerializeOptions::default()).expect("serializes"));
    assert_lines(
        &plain,
        &["OpMemberName %type_ConstantBuffer_S 0 \"a\"", "%src_main = OpFunction %float None %N"],
    );
    for name in ["%param_var_x", "%if_true", "%bb_entry", "%x ="] {
        assert!(!plain.contains(name), "{name} in\n{plain}");
    }
    // Without symbol names, no member names either.
    let bare = SerializeOptions { emit_symbol_names: false, ..SerializeOptions::default() };
    let bare = dis(&serialize(&ir, module, &bare).expect("serializes"));
    assert!(!bare.contains("OpMemberName") && !bare.contains("OpName"), "{bare}");
}

/// What DXC writes for an if/else then a loop, with its label names.
const DXC_BINARY: &str = r#"OpCapability Shader
OpMemoryModel Logical GLSL450
OpEntryPoint Fragment %main "main" %out_var_SV_Target
OpExecutionMode %main OriginUpperLeft
OpSource HLSL 600
OpName %main "main"
OpName %out_var_SV_Target "out.var.SV_Target"
OpName %src_main "src.main"
OpName %bb_entry "bb.entry"
OpName %bb_entry_0 "bb.entry"
OpName %if_true "if.true"
OpName %if_false "if.false"
OpName %if_merge "if.merge"
OpName %if_true_0 "if.true"
OpName %if_merge_0 "if.merge"
OpName %for_check "for.check"
OpName %for_body "for.body"
OpName %for_continue "for.continue"
OpName %for_merge "for.merge"
OpDecorate %out_var_SV_Target Location 0
%float = OpTypeFloat 32
%int = OpTypeInt 32 1
%int_0 = OpConstant %int 0
%int_1 = OpConstant %int 1
%int_4 = OpConstant %int 4
%float_0 = OpConstant %float 0
%float_1 = OpConstant %float 1
%bool = OpTypeBool
%_ptr_Output_float = OpTypePointer Output %float
%_ptr_Function_float = OpTypePointer Function %float
%_ptr_Function_int = OpTypePointer Function %int
%void = OpTypeVoid
%vf = OpTypeFunction %void
%ff = OpTypeFunction %float %_ptr_Function_float
%out_var_SV_Target = OpVariable %_ptr_Output_float Output
%main = OpFunction %void None %vf
%bb_entry = OpLabel
%param = OpVariable %_ptr_Function_float Function
OpStore %param %float_1
%res = OpFunctionCall %float %src_main %param
OpStore %out_var_SV_Target %res
OpReturn
OpFunctionEnd
%src_main = OpFunction %float None %ff
%x = OpFunctionParameter %_ptr_Function_float
%bb_entry_0 = OpLabel
%r = OpVariable %_ptr_Function_float Function
%i = OpVariable %_ptr_Function_int Function
%xv = OpLoad %float %x
%cmp = OpFOrdGreaterThan %bool %xv %float_0
OpSelectionMerge %if_merge None
OpBranchConditional %cmp %if_true %if_false
%if_true = OpLabel
OpStore %r %float_1
OpBranch %if_merge
%if_false = OpLabel
OpStore %r %float_0
OpBranch %if_merge
%if_merge = OpLabel
%cmp2 = OpFOrdLessThan %bool %xv %float_1
OpSelectionMerge %if_merge_0 None
OpBranchConditional %cmp2 %if_true_0 %if_merge_0
%if_true_0 = OpLabel
OpStore %r %xv
OpBranch %if_merge_0
%if_merge_0 = OpLabel
OpStore %i %int_0
OpBranch %for_check
%for_check = OpLabel
%iv = OpLoad %int %i
%lt = OpSLessThan %bool %iv %int_4
OpLoopMerge %for_merge %for_continue None
OpBranchConditional %lt %for_body %for_merge
%for_body = OpLabel
OpBranch %for_continue
%for_continue = OpLabel
%iv2 = OpLoad %int %i
%inc = OpIAdd %int %iv2 %int_1
OpStore %i %inc
OpBranch %for_check
%for_merge = OpLabel
%rv = OpLoad %float %r
OpReturnValue %rv
OpFunctionEnd
"#;

#[test]
fn label_names_survive_the_structurizer_where_they_read_as_dxc_wrote_them() {
    let options = AsmOptions { target_env: TargetEnv::parse("vulkan1.0").unwrap(), ..AsmOptions::default() };
    let words = assemble(DXC_BINARY, &options).expect("assembles");
    let original = words_to_bytes(&words, Endian::Little);
    validate(&original, "vulkan1.0", "dxc-like original").expect("the test module is valid");
    let mut ir = Ir::new();
    let module = deserialize(&original, &mut ir, &DeserializeOptions::default()).expect("deserializes");
    // The source is kept as the module's attribute.
    let source = spirvkit_ir::source::module_source(&ir, module).expect("well formed");
    assert_eq!(source.map(|s| (s.language, s.version)), Some(("HLSL".to_string(), 600)));
    let words = serialize(&ir, module, &NAMED).expect("serializes");
    let text = dis(&words);
    assert_lines(
        &text,
        &[
            "OpSource HLSL 600",
            "%bb_entry = OpLabel",
            "%bb_entry_0 = OpLabel",
            "OpSelectionMerge %if_merge None",
            "OpBranchConditional %N %if_true %if_false",
            "%if_true = OpLabel",
            "%if_false = OpLabel",
            "%if_merge = OpLabel",
            "OpSelectionMerge %if_merge_0 None",
            "OpBranchConditional %N %if_true_0 %if_merge_0",
            "%if_true_0 = OpLabel",
            "%if_merge_0 = OpLabel",
            "%for_check = OpLabel",
            "OpLoopMerge %for_merge %for_continue None",
            "OpBranchConditional %N %for_body %for_merge",
            "%for_body = OpLabel",
            "%for_continue = OpLabel",
            "%for_merge = OpLabel",
        ],
    );
    // Each name once: no label took a name that is another's.
    let labels = text.lines().filter(|l| l.trim_end().ends_with("= OpLabel")).count();
    let names = text.lines().filter(|l| l.trim_start().starts_with("OpName %")).count();
    assert_eq!(names, 3 + labels, "{text}");
    assert!(!text.contains("_1 = OpLabel"), "a name given twice:\n{text}");
    validated(&words, "dxc-like round trip");
}
