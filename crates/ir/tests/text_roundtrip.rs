//! Parsing and printing MLIR text.

use spirvkit_ir::{parse, print, PrintOptions};

const GENERIC: &str = r#""builtin.module"() ({
  "func.func"() <{function_type = (f32) -> f32, sym_name = "f"}> ({
  ^bb0(%arg0: f32):
    %0 = "spirv.FAdd"(%arg0, %arg0) : (f32, f32) -> f32
    %1 = "func.call"(%0) <{callee = @f}> : (f32) -> f32
    %2 = "spirv.Constant"() <{value = true}> : () -> i1
    %3 = "spirv.Constant"() <{value = 1.500000e+00 : f32}> : () -> f32
    "func.return"(%0) : (f32) -> ()
  }) : () -> ()
}) : () -> ()
"#;

#[test]
fn generic_form_round_trips() {
    let (ir, top) = parse(GENERIC, "test.mlir").unwrap();
    let text = print(&ir, top, PrintOptions { generic: true, ..Default::default() });
    assert_eq!(text, format!("{GENERIC}\n"));
}

#[test]
fn func_custom_form() {
    let (ir, top) = parse(GENERIC, "test.mlir").unwrap();
    let text = print(&ir, top, PrintOptions::default());
    assert!(text.starts_with("module {\n  func.func @f(%arg0: f32) -> f32 {\n"), "{text}");
    assert!(text.contains("    %1 = call @f(%0) : (f32) -> f32\n"), "{text}");
    assert!(text.contains("    return %0 : f32\n  }\n}\n"), "{text}");
}

#[test]
fn spirv_types_round_trip() {
    for ty in [
        "!spirv.array<4 x f32, stride=4>",
        "!spirv.rtarray<vector<4xf32>>",
        "!spirv.ptr<!spirv.struct<(f32 [0, NonWritable], i32 [4]), Block>, StorageBuffer>",
        "!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, SamplerUnknown, Unknown>",
        "!spirv.sampled_image<!spirv.image<f32, Dim1D, NoDepth, NonArrayed, SingleSampled, NeedSampler, Rgba8>>",
        "!spirv.matrix<3 x vector<3xf32>>",
        "!spirv.coopmatrix<8x16xi32, Subgroup, MatrixA>",
        "!spirv.struct<S, (!spirv.ptr<!spirv.struct<S>, StorageBuffer>)>",
        "vector<[4]xf32>",
        "tensor<4x?xf32>",
        "(i32, f32) -> (i32, i32)",
    ] {
        let src = format!("\"test.op\"() {{t = {ty}}} : () -> ()\n");
        let (ir, top) = parse(&src, "t.mlir").unwrap_or_else(|e| panic!("{ty}: {e}"));
        let text = print(&ir, top, PrintOptions { generic: true, ..Default::default() });
        assert!(text.contains(&format!("{{t = {ty}}}")), "{ty}\n{text}");
    }
}

#[test]
fn llvm_types_round_trip_with_nested_types_in_short_form() {
    for ty in [
        "!llvm.ptr",
        "!llvm.ptr<1>",
        "!llvm.array<4 x struct<(i32, ptr)>>",
        "!llvm.struct<packed (i8, array<2 x f32>)>",
        "!llvm.struct<\"id\", (i32, vector<4xf32>)>",
        "!llvm.struct<()>",
        "!llvm.func<void (ptr, ptr<1>, i64)>",
        "!llvm.func<i32 ()>",
        "!llvm.void",
    ] {
        let src = format!("\"test.op\"() {{t = {ty}}} : () -> ()\n");
        let (ir, top) = parse(&src, "t.mlir").unwrap_or_else(|e| panic!("{ty}: {e}"));
        let text = print(&ir, top, PrintOptions { generic: true, ..Default::default() });
        assert!(text.contains(&format!("{{t = {ty}}}")), "{ty}\n{text}");
    }
    // The long form of a nested type reads as the same type.
    let src = "\"test.op\"() {t = !llvm.array<2 x !llvm.ptr>} : () -> ()\n";
    let (ir, top) = parse(src, "t.mlir").unwrap();
    let text = print(&ir, top, PrintOptions { generic: true, ..Default::default() });
    assert!(text.contains("{t = !llvm.array<2 x ptr>}"), "{text}");
}

#[test]
fn deep_nesting_is_an_error_not_a_stack_overflow() {
    // Run on a thread with a small stack, like a library caller might.
    let result = std::thread::Builder::new()
        .stack_size(4 << 20)
        .spawn(|| {
            let deep_types = format!(
                "\"t.op\"() {{a = {}f32{}}} : () -> ()",
                "!spirv.array<2 x ".repeat(10_000),
                ">".repeat(10_000)
            );
            let e = parse(&deep_types, "t.mlir").unwrap_err();
            assert!(e.message.contains("nesting deeper than"), "{}", e.message);
            let deep_attrs =
                format!("\"t.op\"() {{a = {}{}}} : () -> ()", "[".repeat(100_000), "]".repeat(100_000));
            assert!(parse(&deep_attrs, "t.mlir").is_err());
            let n = 200;
            let ok = format!(
                "func.func @f() {{{}{} return }}",
                " spirv.mlir.loop {".repeat(n),
                " spirv.mlir.merge }".repeat(n)
            );
            let (ir, top) = parse(&ok, "t.mlir").unwrap();
            assert!(print(&ir, top, PrintOptions::default()).contains("spirv.mlir.merge"));
        })
        .unwrap()
        .join();
    assert!(result.is_ok());
}

#[test]
fn nested_regions_may_use_values_their_parent_defines_in_a_later_block() {
    // As mlir-opt-22 reads it: the use waits for the enclosing region's definition.
    let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n\
                spirv.func @f(%c: i1) \"None\" {\n  spirv.Branch ^bb2\n^bb1:\n  spirv.mlir.selection {\n    \
                spirv.BranchConditional %x, ^bb1, ^bb2\n  ^bb1:\n    spirv.Branch ^bb2\n  ^bb2:\n    \
                spirv.mlir.merge\n  }\n  spirv.Return\n^bb2:\n  %x = spirv.LogicalNot %c : i1\n  spirv.Branch ^bb1\n}\n}\n";
    let (ir, top) = parse(text, "t.mlir").expect("parses");
    let printed = print(&ir, top, PrintOptions::default());
    assert!(printed.contains("spirv.BranchConditional %0, ^bb1, ^bb2"), "{printed}");
    assert!(printed.contains("%0 = spirv.LogicalNot %arg0 : i1"), "{printed}");
    // Never defined: mlir-opt's message, at the use.
    let undefined = text.replace("BranchConditional %x", "BranchConditional %y");
    let e = parse(&undefined, "t.mlir").unwrap_err();
    assert_eq!(e.message, "use of undeclared SSA value name");
    assert_eq!(e.offset, undefined.find("%y").unwrap());
    // A function is isolated from above: its uses never resolve outside it.
    let outside =
        "%x = \"t.def\"() : () -> i1\nfunc.func @g() {\n  \"t.use\"(%x) : (i1) -> ()\n  return\n}\n";
    assert!(parse(outside, "t.mlir").is_err());
}

#[test]
fn signed_words_in_custom_forms_read_back() {
    // A descriptor set of 2^31 (from a binary) prints as a negative i32, as mlir-opt-22
    // prints and reads it.
    let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  \
                spirv.GlobalVariable @s bind(-2147483648, 1) : !spirv.ptr<f32, Uniform>\n}\n";
    let (ir, top) = parse(text, "t.mlir").expect("parses");
    let printed = print(&ir, top, PrintOptions::default());
    assert!(printed.contains("bind(-2147483648, 1)"), "{printed}");
    let (again, top) = parse(&printed, "t.mlir").expect("reads back");
    assert_eq!(print(&again, top, PrintOptions::default()), printed);
}

#[test]
fn ternary_ops_with_mixed_operand_types_print_generic() {
    // MLIR's verifier lets `spirv.GL.FClamp` mix types; its custom form cannot say so.
    let text = "spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n  \
                spirv.func @f(%a: vector<3xf32>, %b: f32) \"None\" {\n    \
                %0 = \"spirv.GL.FClamp\"(%a, %b, %b) : (vector<3xf32>, f32, f32) -> f32\n    \
                %1 = spirv.GL.FClamp %b, %b, %b : f32\n    spirv.Return\n  }\n}\n";
    let (ir, top) = parse(text, "t.mlir").expect("parses");
    let printed = print(&ir, top, PrintOptions::default());
    assert!(
        printed.contains("\"spirv.GL.FClamp\"(%arg0, %arg1, %arg1) : (vector<3xf32>, f32, f32) -> f32"),
        "{printed}"
    );
    assert!(printed.contains("%1 = spirv.GL.FClamp %arg1, %arg1, %arg1 : f32"), "{printed}");
    parse(&printed, "t.mlir").expect("reads back");
}
