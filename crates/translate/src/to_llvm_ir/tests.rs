use super::constants::{f32_to_bf16_bits, f32_to_f16_bits, float_literal, signed_in_width};
use super::*;
use spirvkit_ir::types::FloatKind;

fn translate(text: &str) -> Result<String, ToLlvmIrError> {
    let (ir, top) = spirvkit_ir::parse(text, "test.mlir").expect("parses");
    to_llvm_ir(&ir, top)
}

fn func(signature: &str, name: &str, body: &str) -> String {
    format!(
        "\"builtin.module\"() ({{\n  \"llvm.func\"() <{{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<{signature}>, \
         linkage = #llvm.linkage<external>, sym_name = \"{name}\", visibility_ = 0 : i64}}> ({{\n{body}\n  }}) : () -> ()\n}}) : () -> ()\n"
    )
}

#[test]
fn floats_are_written_exactly() {
    assert_eq!(float_literal(1.5, FloatKind::F64).unwrap(), "0x3FF8000000000000");
    // A float is written as the double of the same value.
    assert_eq!(
        float_literal(0.1f32 as f64, FloatKind::F32).unwrap(),
        format!("0x{:016X}", (0.1f32 as f64).to_bits())
    );
    assert_eq!(float_literal(1.0, FloatKind::F16).unwrap(), "0xH3C00");
    assert_eq!(float_literal(1.0, FloatKind::BF16).unwrap(), "0xR3F80");
    assert!(float_literal(1.0, FloatKind::F8E5M2).unwrap_err().message.starts_with("not supported yet"));
}

#[test]
fn half_conversion_rounds_to_nearest_even() {
    assert_eq!(f32_to_f16_bits(0.0), 0x0000);
    assert_eq!(f32_to_f16_bits(-2.0), 0xC000);
    assert_eq!(f32_to_f16_bits(65504.0), 0x7BFF);
    assert_eq!(f32_to_f16_bits(65520.0), 0x7C00); // rounds up to infinity
    assert_eq!(f32_to_f16_bits(f32::INFINITY), 0x7C00);
    assert_eq!(f32_to_f16_bits(f32::NAN) & 0x7E00, 0x7E00);
    assert_eq!(f32_to_f16_bits(5.960_464_5e-8), 0x0001); // smallest subnormal
    assert_eq!(f32_to_f16_bits(6.103_515_6e-5), 0x0400); // smallest normal
    assert_eq!(f32_to_bf16_bits(1.0), 0x3F80);
}

#[test]
fn integers_are_signed_in_their_width() {
    assert_eq!(signed_in_width(4294967295, 32), -1);
    assert_eq!(signed_in_width(255, 8), -1);
    assert_eq!(signed_in_width(127, 8), 127);
    assert_eq!(signed_in_width(-5, 64), -5);
}

#[test]
fn block_arguments_become_phis_with_one_entry_per_edge() {
    // Two switch cases reach ^bb2 from the same block: LLVM wants one phi entry per edge.
    let body = r#"  ^bb0(%arg0: i32):
    %0 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
    "llvm.br"(%0)[^bb1] : (i32) -> ()
  ^bb1(%1: i32):
    %2 = "llvm.add"(%1, %arg0) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    "llvm.switch"(%2, %2, %1, %1)[^bb1, ^bb2, ^bb2] <{case_operand_segments = array<i32: 1, 1>, case_values = dense<[4294967295, 7]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 1, 2>}> : (i32, i32, i32, i32) -> ()
  ^bb2(%3: i32):
    "llvm.return"(%3) : (i32) -> ()"#;
    let text = translate(&func("i32 (i32)", "loop", body)).unwrap();
    let expected = "define i32 @loop(i32 %0) {
  br label %2

2:
  %3 = phi i32 [ 0, %1 ], [ %4, %2 ]
  %4 = add i32 %3, %0
  switch i32 %4, label %2 [
    i32 -1, label %5
    i32 7, label %5
  ]

5:
  %6 = phi i32 [ %3, %2 ], [ %3, %2 ]
  ret i32 %6
}
";
    assert!(text.contains(expected), "{text}");
}

#[test]
fn numbering_follows_llvm_rules() {
    let body = r#"  ^bb0(%a: i32, %b: i32):
    %0 = "llvm.add"(%a, %b) <{overflowFlags = 3 : i32}> : (i32, i32) -> i32
    "llvm.br"(%0)[^bb1] : (i32) -> ()
  ^bb1(%1: i32):
    %2 = "llvm.mul"(%1, %1) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    "llvm.return"(%2) : (i32) -> ()"#;
    let text = translate(&func("i32 (i32, i32)", "f", body)).unwrap();
    // Parameters 0-1, entry block 2, %3 the add, block 4, phi 5, mul 6.
    let expected = "define i32 @f(i32 %0, i32 %1) {\n  %3 = add nuw nsw i32 %0, %1\n  br label %4\n\n4:\n  %5 = phi i32 [ %3, %2 ]\n  %6 = mul i32 %5, %5\n  ret i32 %6\n}\n";
    assert!(text.contains(expected), "{text}");
}

#[test]
fn nested_modules_are_written_whole() {
    let text = r#""builtin.module"() ({
  "builtin.module"() <{sym_name = "kernel"}> ({
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = i32, linkage = #llvm.linkage<private>, sym_name = "counter", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "main", visibility_ = 0 : i64}> ({
      "llvm.return"() : () -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()
"#;
    let out = translate(text).unwrap();
    assert!(out.contains("@counter = private global i32 undef\n"), "{out}");
    assert!(out.contains("define void @main() {\n  ret void\n}\n"), "{out}");
}

#[test]
fn a_symbol_in_two_nested_modules_is_an_error() {
    let module = |name: &str| {
        format!(
            "  \"builtin.module\"() ({{\n    \"llvm.func\"() <{{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = \"{name}\", visibility_ = 0 : i64}}> ({{\n      \"llvm.return\"() : () -> ()\n    }}) : () -> ()\n  }}) : () -> ()\n"
        )
    };
    let text = format!("\"builtin.module\"() ({{\n{}{}}}) : () -> ()\n", module("f"), module("f"));
    let error = translate(&text).unwrap_err();
    assert!(error.message.contains("@f is defined twice"), "{}", error.message);
    assert!(matches!(error.location, Location::FileLineCol { line: 8, .. }), "{:?}", error.location);
}

#[test]
fn global_initializer_regions_fold_to_constants() {
    let text = r#""builtin.module"() ({
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = i32, linkage = #llvm.linkage<external>, sym_name = "x", visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 3 : i32, constant, alignment = 16 : i64, global_type = !llvm.struct<(i32, ptr, array<2 x f32>)>, linkage = #llvm.linkage<internal>, sym_name = "s", visibility_ = 0 : i64}> ({
    %0 = "llvm.mlir.undef"() : () -> !llvm.struct<(i32, ptr, array<2 x f32>)>
    %1 = "llvm.mlir.constant"() <{value = 7 : i32}> : () -> i32
    %2 = "llvm.insertvalue"(%0, %1) <{position = array<i64: 0>}> : (!llvm.struct<(i32, ptr, array<2 x f32>)>, i32) -> !llvm.struct<(i32, ptr, array<2 x f32>)>
    %3 = "llvm.mlir.addressof"() <{global_name = @x}> : () -> !llvm.ptr
    %4 = "llvm.insertvalue"(%2, %3) <{position = array<i64: 1>}> : (!llvm.struct<(i32, ptr, array<2 x f32>)>, !llvm.ptr) -> !llvm.struct<(i32, ptr, array<2 x f32>)>
    %5 = "llvm.mlir.constant"() <{value = 2.0 : f32}> : () -> f32
    %6 = "llvm.insertvalue"(%4, %5) <{position = array<i64: 2, 1>}> : (!llvm.struct<(i32, ptr, array<2 x f32>)>, f32) -> !llvm.struct<(i32, ptr, array<2 x f32>)>
    "llvm.return"(%6) : (!llvm.struct<(i32, ptr, array<2 x f32>)>) -> ()
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = vector<2xf16>, linkage = #llvm.linkage<external>, sym_name = "v", value = dense<[1.0, -2.0]> : vector<2xf16>, visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.array<3 x i8>, linkage = #llvm.linkage<private>, sym_name = "str", value = "a\"b", visibility_ = 0 : i64}> ({
  }) : () -> ()
}) : () -> ()
"#;
    let out = translate(text).unwrap();
    assert!(out.contains("@x = external global i32\n"), "{out}");
    assert!(
        out.contains(
            "@s = internal addrspace(3) constant { i32, ptr, [2 x float] } { i32 7, ptr @x, [2 x float] [float undef, float 0x4000000000000000] }, align 16\n"
        ),
        "{out}"
    );
    assert!(out.contains("@v = global <2 x half> <half 0xH3C00, half 0xHC000>\n"), "{out}");
    assert!(out.contains("@str = private global [3 x i8] c\"a\\22b\"\n"), "{out}");
}

#[test]
fn intrinsics_take_their_immediates_as_arguments() {
    let body = r#"  ^bb0(%a: i32, %x: f32):
    %0 = "llvm.intr.ctlz"(%a) <{is_zero_poison = true}> : (i32) -> i32
    %1 = "llvm.intr.fma"(%x, %x, %x) <{fastmathFlags = #llvm.fastmath<contract>}> : (f32, f32, f32) -> f32
    %2 = "llvm.intr.is.fpclass"(%x) <{bit = 3 : i32}> : (f32) -> i1
    "llvm.return"(%0) : (i32) -> ()"#;
    let out = translate(&func("i32 (i32, f32)", "f", body)).unwrap();
    assert!(out.contains("%3 = call i32 @llvm.ctlz(i32 %0, i1 true)"), "{out}");
    assert!(out.contains("%4 = call contract float @llvm.fma(float %1, float %1, float %1)"), "{out}");
    assert!(out.contains("%5 = call i1 @llvm.is.fpclass(float %1, i32 3)"), "{out}");
}

#[test]
fn memory_ops_keep_their_atomic_and_volatile_flags() {
    let body = r#"  ^bb0(%p: !llvm.ptr, %v: i32):
    "llvm.store"(%v, %p) <{alignment = 4 : i64, ordering = 5 : i64, syncscope = "workgroup"}> : (i32, !llvm.ptr) -> ()
    %0 = "llvm.load"(%p) <{ordering = 0 : i64, volatile_, nontemporal}> : (!llvm.ptr) -> i32
    %1 = "llvm.atomicrmw"(%p, %v) <{bin_op = 3 : i64, ordering = 7 : i64}> : (!llvm.ptr, i32) -> i32
    %2 = "llvm.cmpxchg"(%p, %v, %0) <{failure_ordering = 2 : i64, success_ordering = 6 : i64, weak}> : (!llvm.ptr, i32, i32) -> !llvm.struct<(i32, i1)>
    "llvm.fence"() <{ordering = 6 : i64, syncscope = "workgroup"}> : () -> ()
    "llvm.return"() : () -> ()"#;
    let out = translate(&func("void (ptr, i32)", "m", body)).unwrap();
    assert!(out.contains("store atomic i32 %1, ptr %0 syncscope(\"workgroup\") release, align 4"), "{out}");
    assert!(out.contains("%3 = load volatile i32, ptr %0, !nontemporal !0"), "{out}");
    assert!(out.contains("%4 = atomicrmw and ptr %0, i32 %1 seq_cst"), "{out}");
    assert!(out.contains("%5 = cmpxchg weak ptr %0, i32 %1, i32 %3 acq_rel monotonic"), "{out}");
    assert!(out.contains("fence syncscope(\"workgroup\") acq_rel"), "{out}");
    assert!(out.ends_with("\n!0 = !{i32 1}\n"), "{out}");
}

#[test]
fn an_op_without_translation_is_an_error_at_its_location() {
    let body = r#"    "llvm.inline_asm"() <{asm_string = "nop", constraints = ""}> : () -> ()
    "llvm.return"() : () -> ()"#;
    let error = translate(&func("void ()", "f", body)).unwrap_err();
    assert_eq!(error.message, "not supported yet: llvm.inline_asm");
    assert!(matches!(error.location, Location::FileLineCol { line: 3, .. }), "{:?}", error.location);
}

#[test]
fn an_unknown_property_is_refused_rather_than_dropped() {
    let body = r#"  ^bb0(%a: i32):
    %0 = "llvm.intr.ctpop"(%a) <{mystery = 1 : i32}> : (i32) -> i32
    "llvm.return"() : () -> ()"#;
    let error = translate(&func("void (i32)", "f", body)).unwrap_err();
    assert!(error.message.starts_with("not supported yet: property 'mystery'"), "{}", error.message);
}

#[test]
fn types_without_llvm_form_are_errors() {
    let body = r#"  ^bb0(%a: index):
    "llvm.return"() : () -> ()"#;
    let error = translate(&func("void (index)", "f", body)).unwrap_err();
    assert_eq!(error.message, "not supported yet: type index");
}

#[test]
fn leftover_spirv_ops_are_errors() {
    let error = translate("spirv.module Logical GLSL450 {\n}\n").unwrap_err();
    assert!(error.message.starts_with("not supported yet: spirv.module"), "{}", error.message);
}

#[test]
fn identified_structs_are_defined_once() {
    let body = r#"  ^bb0(%p: !llvm.ptr):
    %0 = "llvm.load"(%p) <{ordering = 0 : i64}> : (!llvm.ptr) -> !llvm.struct<"Pair", (i32, f32)>
    "llvm.return"() : () -> ()"#;
    let out = translate(&func("void (ptr)", "f", body)).unwrap();
    assert!(out.starts_with("%Pair = type { i32, float }\n"), "{out}");
    assert!(out.contains("load %Pair, ptr %0"), "{out}");
}

#[test]
fn two_edges_from_one_block_with_different_values_are_refused() {
    let body = r#"  ^bb0(%c: i1, %a: i32, %b: i32):
    "llvm.cond_br"(%c, %a, %b)[^bb1, ^bb1] <{operandSegmentSizes = array<i32: 1, 1, 1>}> : (i1, i32, i32) -> ()
  ^bb1(%0: i32):
    "llvm.return"(%0) : (i32) -> ()"#;
    let error = translate(&func("i32 (i1, i32, i32)", "f", body)).unwrap_err();
    assert!(error.message.contains("branching twice to the same block"), "{}", error.message);
}

#[test]
fn huge_splats_are_refused() {
    let body = r#"    %0 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> vector<100000000xi32>
    "llvm.return"() : () -> ()"#;
    let error = translate(&func("void ()", "f", body)).unwrap_err();
    assert!(error.message.starts_with("not supported yet: a splat constant"), "{}", error.message);
}

#[test]
fn casts_to_the_same_type_are_their_operand() {
    let body = r#"  ^bb0(%p: !llvm.ptr):
    %0 = "llvm.addrspacecast"(%p) : (!llvm.ptr) -> !llvm.ptr
    %1 = "llvm.addrspacecast"(%0) : (!llvm.ptr) -> !llvm.ptr<1>
    "llvm.return"(%1) : (!llvm.ptr<1>) -> ()"#;
    let out = translate(&func("ptr<1> (ptr)", "f", body)).unwrap();
    assert!(
        out.contains("  %2 = addrspacecast ptr %0 to ptr addrspace(1)\n  ret ptr addrspace(1) %2\n"),
        "{out}"
    );
}

#[test]
fn arguments_of_unreachable_blocks_are_poison() {
    let body = r#"  ^bb0(%a: i32):
    "llvm.return"(%a) : (i32) -> ()
  ^bb1(%0: i32):
    %1 = "llvm.add"(%0, %0) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    "llvm.return"(%1) : (i32) -> ()"#;
    let out = translate(&func("i32 (i32)", "f", body)).unwrap();
    assert!(out.contains("\n2:\n  %3 = add i32 poison, poison\n  ret i32 %3\n"), "{out}");
}

#[test]
fn malformed_terminators_are_errors_not_panics() {
    let body = r#"  ^bb0(%c: i1):
    "llvm.cond_br"(%c)[^bb1] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
  ^bb1:
    "llvm.br"() : () -> ()"#;
    assert!(translate(&func("void (i1)", "f", body)).is_err());
    let body = r#"    "llvm.switch"() <{case_operand_segments = array<i32>, operandSegmentSizes = array<i32: 0, 0, 0>}> : () -> ()"#;
    assert!(translate(&func("void ()", "g", body)).is_err());
}

#[test]
fn nested_modules_share_a_declaration() {
    let module = |body: &str| {
        format!(
            "  \"builtin.module\"() ({{\n    \"llvm.func\"() <{{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void (i32)>, linkage = #llvm.linkage<external>, sym_name = \"barrier\", visibility_ = 0 : i64}}> ({{\n    }}) : () -> ()\n{body}  }}) : () -> ()\n"
        )
    };
    let text = format!("\"builtin.module\"() ({{\n{}{}}}) : () -> ()\n", module(""), module(""));
    let out = translate(&text).unwrap();
    assert_eq!(out.matches("declare void @barrier(i32)").count(), 1, "{out}");
}

#[test]
fn function_and_parameter_attributes() {
    let text = r#""builtin.module"() ({
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, arg_attrs = [{llvm.noalias, llvm.align = 16 : i64}, {}], function_type = !llvm.func<void (ptr, i32)>, linkage = #llvm.linkage<internal>, no_unwind, passthrough = ["alwaysinline", ["frame-pointer", "all"], "spirvkit-kernel"], sym_name = "k", visibility_ = 0 : i64}> ({
  ^bb0(%p: !llvm.ptr, %n: i32):
    "llvm.return"() : () -> ()
  }) : () -> ()
}) : () -> ()
"#;
    let out = translate(text).unwrap();
    assert!(
        out.contains(
            "define internal void @k(ptr noalias align 16 %0, i32 %1) nounwind alwaysinline \"frame-pointer\"=\"all\" \"spirvkit-kernel\" {"
        ),
        "{out}"
    );
}

#[test]
fn access_groups_and_parallel_loops_become_metadata() {
    let body = r#"  ^bb0(%p: !llvm.ptr):
    %c0 = "llvm.mlir.constant"() <{value = 0 : i64}> : () -> i64
    "llvm.br"(%c0) [^bb1] : (i64) -> ()
  ^bb1(%i: i64):
    %q = "llvm.getelementptr"(%p, %i) <{elem_type = i32, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648>}> : (!llvm.ptr, i64) -> !llvm.ptr
    %v = "llvm.load"(%q) <{access_groups = [#llvm.access_group<id = distinct[0]<>>], ordering = 0 : i64}> : (!llvm.ptr) -> i32
    "llvm.store"(%v, %q) <{access_groups = [#llvm.access_group<id = distinct[0]<>>, #llvm.access_group<id = distinct[1]<>>], ordering = 0 : i64}> : (i32, !llvm.ptr) -> ()
    %c1 = "llvm.mlir.constant"() <{value = 1 : i64}> : () -> i64
    %n = "llvm.add"(%i, %c1) <{overflowFlags = #llvm.overflow<none>}> : (i64, i64) -> i64
    %c = "llvm.icmp"(%n, %c1) <{predicate = 6 : i64}> : (i64, i64) -> i1
    "llvm.cond_br"(%c, %n) [^bb1, ^bb2] <{loop_annotation = #llvm.loop_annotation<parallelAccesses = #llvm.access_group<id = distinct[0]<>>>, operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i64) -> ()
  ^bb2:
    "llvm.return"() : () -> ()"#;
    let out = translate(&func("void (ptr)", "f", body)).unwrap();
    assert!(out.contains("%5 = load i32, ptr %4, !llvm.access.group !0\n"), "{out}");
    assert!(out.contains("store i32 %5, ptr %4, !llvm.access.group !2\n"), "{out}");
    assert!(out.contains("label %2, label %8, !llvm.loop !3\n"), "{out}");
    assert!(
        out.ends_with(
            "!0 = distinct !{}\n!1 = distinct !{}\n!2 = !{!0, !1}\n!3 = distinct !{!3, !4}\n!4 = !{!\"llvm.loop.parallel_accesses\", !0}\n"
        ),
        "{out}"
    );
    let unknown = body.replace("parallelAccesses = ", "mustProgress = true, parallelAccesses = ");
    assert!(translate(&func("void (ptr)", "f", &unknown)).is_err());
}

#[test]
fn dereferenceable_loads_become_metadata() {
    let body = r#"  ^bb0(%p: !llvm.ptr):
    %q = "llvm.load"(%p) <{dereferenceable = #llvm.dereferenceable<bytes = 48>, ordering = 0 : i64}> : (!llvm.ptr) -> !llvm.ptr
    %r = "llvm.load"(%q) <{dereferenceable = #llvm.dereferenceable<bytes = 8, mayBeNull = true>, ordering = 0 : i64}> : (!llvm.ptr) -> !llvm.ptr
    "llvm.return"() : () -> ()"#;
    let out = translate(&func("void (ptr)", "f", body)).unwrap();
    assert!(out.contains("= load ptr, ptr %0, !dereferenceable !0\n"), "{out}");
    assert!(out.contains(", !dereferenceable_or_null !1\n"), "{out}");
    assert!(out.ends_with("!0 = !{i64 48}\n!1 = !{i64 8}\n"), "{out}");
}
