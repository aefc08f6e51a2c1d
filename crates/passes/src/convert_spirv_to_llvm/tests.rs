use crate::opt::{run, OptOptions, OptResult};

fn convert(source: &str, flag: &str, split: bool) -> OptResult {
    let options = OptOptions {
        passes: vec![flag.into()],
        split_input_file: split,
        generic: true,
        ..Default::default()
    };
    run(source, "t.mlir", &options)
}

fn kernel(source: &str) -> OptResult {
    convert(
        source,
        "-convert-spirv-to-llvm=explicit-layout=1 keep-global-names=1 all-storage-classes=1",
        false,
    )
}

/// Arithmetic, bitwise and bitfield, casts, comparisons and logical ops, GLSL ops:
/// the exact generic output of mlir-opt-22 (`testdata/families.generic`).
#[test]
fn pattern_families_match_mlir_opt_22() {
    let r = convert(include_str!("testdata/families.mlir"), "-convert-spirv-to-llvm", true);
    assert!(r.success, "{}", r.diagnostics_text);
    assert_eq!(r.output, include_str!("testdata/families.generic"));
}

#[test]
fn selection_and_loop_become_blocks_in_mlir_order() {
    let source = "spirv.func @f(%c: i1, %n: i32) -> i32 \"None\" {\n\
        %0 = spirv.Constant 0 : i32\n\
        %r = spirv.mlir.selection -> i32 {\n\
          spirv.BranchConditional %c, ^t, ^m(%0 : i32)\n\
        ^t:\n\
          spirv.Branch ^m(%n : i32)\n\
        ^m(%x: i32):\n\
          spirv.mlir.merge %x : i32\n\
        }\n\
        spirv.mlir.loop {\n\
          spirv.Branch ^h\n\
        ^h:\n\
          spirv.BranchConditional %c, ^b, ^e\n\
        ^b:\n\
          spirv.Branch ^h\n\
        ^e:\n\
          spirv.mlir.merge\n\
        }\n\
        spirv.ReturnValue %r : i32\n\
      }\n";
    let r = convert(source, "-convert-spirv-to-llvm", false);
    assert!(r.success, "{}", r.diagnostics_text);
    let blocks: Vec<&str> =
        r.output.lines().filter(|l| l.trim_start().starts_with("^bb")).map(str::trim).collect();
    // The entry (with the selection header merged); ^t; ^m; the continuation with
    // the result (mlir-opt-22 fails here: it forgets the continuation's argument);
    // the loop header, body and merge; the continuation.
    assert_eq!(blocks.len(), 8, "{}", r.output);
    assert!(blocks[3].starts_with("^bb3(%2: i32)"), "{}", r.output);
    assert!(r.output.contains("\"llvm.br\"(%1)[^bb3]"), "{}", r.output);
    assert!(r.output.contains("\"llvm.return\"(%"), "{}", r.output);
    assert!(!r.output.contains("spirv."), "{}", r.output);
}

#[test]
fn std140_blocks_get_padding_and_remapped_indices() {
    let source = "spirv.module Logical GLSL450 {\n\
        spirv.GlobalVariable @ubo bind(0, 0) : !spirv.ptr<!spirv.struct<(f32 [0], vector<3xf32> [16], f32 [28], !spirv.array<2 x f32, stride=16> [32]), Block>, Uniform>\n\
        spirv.func @f() -> f32 \"None\" {\n\
          %p = spirv.mlir.addressof @ubo : !spirv.ptr<!spirv.struct<(f32 [0], vector<3xf32> [16], f32 [28], !spirv.array<2 x f32, stride=16> [32]), Block>, Uniform>\n\
          %c3 = spirv.Constant 3 : i32\n\
          %c1 = spirv.Constant 1 : i32\n\
          %q = spirv.AccessChain %p[%c3, %c1] : !spirv.ptr<!spirv.struct<(f32 [0], vector<3xf32> [16], f32 [28], !spirv.array<2 x f32, stride=16> [32]), Block>, Uniform>, i32, i32 -> !spirv.ptr<f32, Uniform>\n\
          %v = spirv.Load \"Uniform\" %q : f32\n\
          spirv.ReturnValue %v : f32\n\
        }\n\
      }\n";
    // MLIR refuses the layout; the kernel options take it.
    let refused = convert(source, "-convert-spirv-to-llvm", false);
    assert!(!refused.success);
    assert!(refused.diagnostics_text.contains("failed to legalize operation 'spirv.GlobalVariable'"));
    let r = kernel(source);
    assert!(r.success, "{}", r.diagnostics_text);
    assert!(
        r.output.contains(
            "global_type = !llvm.struct<packed (f32, array<12 x i8>, array<3 x f32>, f32, \
             array<2 x struct<packed (f32, array<12 x i8>)>>)>"
        ),
        "{}",
        r.output
    );
    // The name is kept, and the array member (SPIR-V 3) is LLVM member 4, its
    // element wrapped (a trailing 0).
    assert!(r.output.contains("sym_name = \"ubo\""), "{}", r.output);
    assert!(
        r.output.contains("rawConstantIndices = array<i32: -2147483648, 4, -2147483648, 0>"),
        "{}",
        r.output
    );
}

#[test]
fn barriers_atomics_and_group_ops_follow_the_contract() {
    let source = "spirv.module Logical GLSL450 {\n\
        spirv.GlobalVariable @counter : !spirv.ptr<i32, Workgroup>\n\
        spirv.func @f(%x: i32) -> i32 \"None\" {\n\
          %p = spirv.mlir.addressof @counter : !spirv.ptr<i32, Workgroup>\n\
          %old = spirv.AtomicIAdd <Workgroup> <AcquireRelease|WorkgroupMemory> %p, %x : !spirv.ptr<i32, Workgroup>\n\
          spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>\n\
          spirv.MemoryBarrier <Workgroup>, <AcquireRelease|WorkgroupMemory>\n\
          %s = spirv.GroupNonUniformIAdd <Subgroup> <Reduce> %old : i32 -> i32\n\
          spirv.ReturnValue %s : i32\n\
        }\n\
      }\n";
    let r = kernel(source);
    assert!(r.success, "{}", r.diagnostics_text);
    for want in [
        "sym_name = \"counter\"",
        "\"llvm.atomicrmw\"",
        "bin_op = 1 : i64, ordering = 6 : i64",
        "callee = @_Z22__spirv_ControlBarrieriii",
        "callee = @_Z21__spirv_MemoryBarrierjj",
        "callee = @_Z27__spirv_GroupNonUniformIAddiij",
    ] {
        assert!(r.output.contains(want), "{want} missing:\n{}", r.output);
    }
}

#[test]
fn an_op_without_lowering_is_a_clear_error() {
    let source = "spirv.func @f() \"None\" {\n  spirv.Kill\n}\n";
    let r = convert(source, "-convert-spirv-to-llvm", false);
    assert!(!r.success);
    assert!(
        r.diagnostics_text.contains("t.mlir:2:3: error: not supported yet: spirv.Kill"),
        "{}",
        r.diagnostics_text
    );
    let image = "spirv.module Logical GLSL450 {\n  spirv.GlobalVariable @img bind(0, 0) : \
                 !spirv.ptr<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, UniformConstant>\n}\n";
    let r = kernel(image);
    assert!(r
        .diagnostics_text
        .contains("not supported yet: spirv.GlobalVariable of an image or sampler type"));
}

#[test]
fn storage_images_convert_to_texel_accesses_with_the_option() {
    let source = "spirv.module Logical GLSL450 {\n  spirv.GlobalVariable @img bind(0, 0) : \
                  !spirv.ptr<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, UniformConstant>\n\
                  spirv.func @f(%c: vector<2xsi32>) \"None\" {\n\
                  %a = spirv.mlir.addressof @img : !spirv.ptr<!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, UniformConstant>\n\
                  %i = spirv.Load \"UniformConstant\" %a : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>\n\
                  %t = spirv.ImageRead %i, %c : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, vector<2xsi32> -> vector<4xf32>\n\
                  spirv.ImageWrite %i, %c, %t : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, vector<2xsi32>, vector<4xf32>\n\
                  %s = spirv.ImageQuerySize %i : !spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8> -> vector<2xsi32>\n\
                  %l = spirv.CompositeExtract %c[0 : i32] : vector<2xsi32>\n\
                  %z = \"spirv.ImageQuerySizeLod\"(%i, %l) : (!spirv.image<f32, Dim2D, NoDepth, NonArrayed, SingleSampled, NoSampler, Rgba8>, si32) -> vector<2xsi32>\n\
                  spirv.Return\n  }\n}\n";
    let r = convert(
        source,
        "-convert-spirv-to-llvm=explicit-layout=1 keep-global-names=1 all-storage-classes=1 storage-images=1",
        false,
    );
    assert!(r.success, "{}", r.diagnostics_text);
    // The header global, texels loaded as 4 x i8 and converted, stored rounded to even.
    for expected in [
        "global_type = !llvm.array<32 x i32>, linkage = #llvm.linkage<external>, sym_name = \"img\"",
        "vector<4xi8>",
        "llvm.intr.roundeven",
        "llvm.uitofp",
        // ImageQuerySizeLod: max(1, extent >> lod).
        "llvm.lshr",
    ] {
        assert!(r.output.contains(expected), "{expected} in:\n{}", r.output);
    }
    // Without the option (MLIR's pass) images stay refused.
    let r = kernel(source);
    assert!(r
        .diagnostics_text
        .contains("not supported yet: spirv.GlobalVariable of an image or sampler type"));
    // A format without a lowering is named.
    let packed = source.replace("Rgba8>", "R11fG11fB10f>");
    let r = convert(
        &packed,
        "-convert-spirv-to-llvm=explicit-layout=1 keep-global-names=1 all-storage-classes=1 storage-images=1",
        false,
    );
    assert!(
        r.diagnostics_text.contains("not supported yet: storage images of format R11fG11fB10f"),
        "{}",
        r.diagnostics_text
    );
}

#[test]
fn options_as_mlir_opt_22_takes_them() {
    let r = convert("module {}\n", "-convert-spirv-to-llvm=client-api=Vulkan", false);
    assert!(r.success);
    assert!(r
        .diagnostics_text
        .contains("warning: address space mapping for client 'Vulkan' not implemented"));
    assert!(convert("module {}\n", "-convert-spirv-to-llvm=use-opaque-pointers=true", false).success);
    let r = convert("module {}\n", "-convert-spirv-to-llvm=use-opaque-pointers=false", false);
    assert!(!r.success);
    assert!(
        r.diagnostics_text.contains("not supported yet: use-opaque-pointers=false"),
        "{}",
        r.diagnostics_text
    );
    let r = convert("module {}\n", "-convert-spirv-to-llvm=client-api=Foo", false);
    assert!(r.diagnostics_text.contains("Cannot find option named 'Foo'!"), "{}", r.diagnostics_text);
}

#[test]
fn hostile_inputs_do_not_panic() {
    // A use before its definition in block order, a self-referencing struct, deep
    // nesting of selections.
    let mut deep = String::from("spirv.func @f(%c: i1) \"None\" {\n");
    for _ in 0..60 {
        deep.push_str("spirv.mlir.selection {\nspirv.BranchConditional %c, ^t, ^m\n^t:\n");
    }
    for _ in 0..60 {
        deep.push_str("spirv.Branch ^m\n^m:\nspirv.mlir.merge\n}\n");
    }
    deep.push_str("spirv.Return\n}\n");
    let r = kernel(&deep);
    assert!(r.success, "{}", r.diagnostics_text);
    let forward = "spirv.func @g(%a: i32) -> i32 \"None\" {\n\
        spirv.Branch ^b2\n\
      ^b1:\n\
        spirv.ReturnValue %x : i32\n\
      ^b2:\n\
        %x = spirv.IAdd %a, %a : i32\n\
        spirv.Branch ^b1\n\
      }\n";
    let r = kernel(forward);
    assert!(r.success, "{}", r.diagnostics_text);
    assert!(r.output.contains("\"llvm.return\"(%0)"), "{}", r.output);
}

/// Beyond MLIR 22: matrices, GLSL expansions, generic atomics and a switch lower
/// with no SPIR-V op left (their LLVM validity is checked by the integration tests
/// on real shaders).
#[test]
fn matrices_glsl_expansions_atomics_and_switches_lower() {
    let source = "spirv.module Logical GLSL450 {\n\
        spirv.GlobalVariable @w : !spirv.ptr<i32, Workgroup>\n\
        spirv.func @f(%m: !spirv.matrix<3 x vector<3xf32>>, %v: vector<3xf32>, %s: f32, %i: i32) -> f32 \"None\" {\n\
          %a = spirv.MatrixTimesVector %m, %v : !spirv.matrix<3 x vector<3xf32>>, vector<3xf32> -> vector<3xf32>\n\
          %b = spirv.VectorTimesMatrix %a, %m : vector<3xf32>, !spirv.matrix<3 x vector<3xf32>> -> vector<3xf32>\n\
          %t = spirv.Transpose %m : !spirv.matrix<3 x vector<3xf32>> -> !spirv.matrix<3 x vector<3xf32>>\n\
          %mm = spirv.MatrixTimesMatrix %t, %m : !spirv.matrix<3 x vector<3xf32>>, !spirv.matrix<3 x vector<3xf32>> -> !spirv.matrix<3 x vector<3xf32>>\n\
          %ms = spirv.MatrixTimesScalar %mm, %s : !spirv.matrix<3 x vector<3xf32>>, f32\n\
          %c = spirv.GL.Cross %a, %b : vector<3xf32>\n\
          %n = spirv.GL.Normalize %c : vector<3xf32>\n\
          %l = spirv.GL.Length %n : vector<3xf32> -> f32\n\
          %cl = spirv.GL.FClamp %l, %s, %s : f32\n\
          %sm = \"spirv.GL.SmoothStep\"(%s, %cl, %l) : (f32, f32, f32) -> f32\n\
          %msb = spirv.GL.FindUMsb %i : i32\n\
          %p = spirv.mlir.addressof @w : !spirv.ptr<i32, Workgroup>\n\
          %old = spirv.AtomicCompareExchange <Workgroup> <AcquireRelease> <Acquire> %p, %msb, %i : !spirv.ptr<i32, Workgroup>\n\
          %r = spirv.SMod %old, %i : i32\n\
          %f = spirv.FMod %sm, %s : f32\n\
          spirv.ReturnValue %f : f32\n\
        }\n\
      }\n";
    let r = kernel(source);
    assert!(r.success, "{}", r.diagnostics_text);
    assert!(!r.output.contains("\"spirv."), "{}", r.output);
    for want in [
        "\"llvm.cmpxchg\"",
        "failure_ordering = 4 : i64, success_ordering = 6 : i64",
        "llvm.intr.ctlz",
        "llvm.srem",
        "llvm.frem",
    ] {
        assert!(r.output.contains(want), "{want} missing:\n{}", r.output);
    }
}

/// A Private global with a constant initializer (kept by value by the deserializer)
/// gets a region computing it.
#[test]
fn constant_initializers_become_global_regions() {
    let source = "spirv.module Logical GLSL450 {\n\
        spirv.GlobalVariable @lut {initializer_constant = [1.500000e+00 : f32, 2.500000e+00 : f32]} : !spirv.ptr<!spirv.array<2 x f32>, Private>\n\
      }\n";
    let r = kernel(source);
    assert!(r.success, "{}", r.diagnostics_text);
    assert!(r.output.contains("\"llvm.insertvalue\""), "{}", r.output);
    assert!(r.output.contains("\"llvm.return\"(%"), "{}", r.output);
    assert!(r.output.contains("linkage = #llvm.linkage<private>, sym_name = \"lut\""), "{}", r.output);
}

/// IR that does not verify (the library path takes the deserializer's output as it
/// is) is refused op by op, never indexed out of bounds.
#[test]
fn ops_missing_operands_are_refused_not_panicked_on() {
    use spirvkit_ir::ir::{Ir, Location};
    let mut ir = Ir::new();
    let i32t = ir.types.integer(32, spirvkit_ir::types::Signedness::Signless);
    let module = ir.create_op("spirv.module", vec![], &[], Location::Unknown);
    let body = ir.add_region(module);
    let block = ir.create_block();
    ir.append_block(body, block);
    let fn_ty = ir.types.function(vec![], vec![]);
    for name in ["spirv.SNegate", "spirv.Store", "spirv.AtomicStore", "spirv.VectorShuffle", "spirv.Constant"]
    {
        let f = ir.create_op("spirv.func", vec![], &[], Location::Unknown);
        ir.set_property(f, "function_type", spirvkit_ir::attr::Attribute::Type(fn_ty));
        ir.set_property(f, "sym_name", spirvkit_ir::attr::Attribute::String(format!("f_{name}")));
        let r = ir.add_region(f);
        let entry = ir.create_block();
        ir.append_block(r, entry);
        let bad = ir.create_op(name, vec![], &[i32t], Location::Unknown);
        ir.append_op(entry, bad);
        ir.append_op(block, f);
        let mut copy = ir.clone();
        let err =
            super::convert_spirv_module(&mut copy, module, &super::ConvertOptions::kernel()).unwrap_err();
        assert!(err.message.contains(name), "{name}: {}", err.message);
        ir.block_mut(block).ops.clear();
    }
}

#[test]
fn array_length_is_the_bound_buffers_room_after_the_header_divided_by_the_stride() {
    let block = "!spirv.ptr<!spirv.struct<(i32 [0], !spirv.rtarray<vector<4xf32>, stride=32> [16]), Block>, StorageBuffer>";
    let source = format!(
        "spirv.module Logical GLSL450 {{\n  spirv.GlobalVariable @buf bind(0, 0) : {block}\n\
         spirv.func @f() -> i32 \"None\" {{\n\
         %a = spirv.mlir.addressof @buf : {block}\n\
         %n = \"spirv.ArrayLength\"(%a) {{literals = [1 : i32], operand_layout = \"il\"}} : ({block}) -> i32\n\
         spirv.ReturnValue %n : i32\n  }}\n}}\n"
    );
    let options = "-convert-spirv-to-llvm=explicit-layout=1 keep-global-names=1 all-storage-classes=1";
    let r = convert(&source, &format!("{options} buffer-lengths=1"), false);
    assert!(r.success, "{}", r.diagnostics_text);
    // The size query on the buffer's address, the header's 16 bytes, the padded stride.
    for expected in [
        "callee = @spirvkit_buffer_bytes",
        "sym_name = \"spirvkit_buffer_bytes\"",
        "value = 16 : i64",
        "value = 32 : i64",
        "\"llvm.udiv\"",
        "\"llvm.intr.umax\"",
        "\"llvm.trunc\"",
    ] {
        assert!(r.output.contains(expected), "{expected} in:\n{}", r.output);
    }
    // Without the option (MLIR has no lowering) it is named as not supported.
    let r = convert(&source, options, false);
    assert!(r.diagnostics_text.contains("not supported yet: spirv.ArrayLength"), "{}", r.diagnostics_text);
}

#[test]
fn glsl_ops_beyond_mlir_convert_to_verifying_llvm_dialect() {
    // Modf/Frexp (pointer and struct forms), MatrixInverse, the inverse hyperbolics and
    // the normalized packings: each converts (the runner's verifier then checks types).
    let source = "spirv.func @f(%x: f32, %v: vector<4xf32>, %m: !spirv.matrix<3 x vector<3xf32>>, %p: i32, %wp: !spirv.ptr<f32, Function>, %ep: !spirv.ptr<i32, Function>) \"None\" {\n\
        %0 = \"spirv.GL.Modf\"(%x, %wp) : (f32, !spirv.ptr<f32, Function>) -> f32\n\
        %1 = \"spirv.GL.ModfStruct\"(%x) : (f32) -> !spirv.struct<(f32, f32)>\n\
        %2 = \"spirv.GL.Frexp\"(%x, %ep) : (f32, !spirv.ptr<i32, Function>) -> f32\n\
        %3 = spirv.GL.FrexpStruct %x : f32 -> !spirv.struct<(f32, i32)>\n\
        %4 = \"spirv.GL.MatrixInverse\"(%m) : (!spirv.matrix<3 x vector<3xf32>>) -> !spirv.matrix<3 x vector<3xf32>>\n\
        %5 = spirv.GL.Asinh %x : f32\n\
        %6 = spirv.GL.Acosh %x : f32\n\
        %7 = spirv.GL.Atanh %x : f32\n\
        %8 = spirv.GL.PackSnorm4x8 %v : vector<4xf32> -> i32\n\
        %9 = \"spirv.GL.PackUnorm4x8\"(%v) : (vector<4xf32>) -> i32\n\
        %10 = spirv.GL.UnpackSnorm4x8 %p : i32 -> vector<4xf32>\n\
        %11 = \"spirv.GL.UnpackUnorm2x16\"(%p) : (i32) -> vector<2xf32>\n\
        spirv.Return\n\
      }\n";
    let r = kernel(source);
    assert!(r.success, "{}", r.diagnostics_text);
    for expected in [
        "\"llvm.intr.frexp\"",
        "\"llvm.intr.trunc\"",
        "\"llvm.intr.copysign\"",
        "\"llvm.intr.roundeven\"",
        "\"llvm.fdiv\"",
    ] {
        assert!(r.output.contains(expected), "{expected} in:\n{}", r.output);
    }
    // Interpolation has no meaning in a compute kernel: still refused by name.
    let interp = "spirv.func @g(%x: f32) \"None\" {\n  %0 = \"spirv.GL.InterpolateAtCentroid\"(%x) : (f32) -> f32\n  spirv.Return\n}\n";
    assert!(kernel(interp).diagnostics_text.contains("not supported yet: spirv.GL.InterpolateAtCentroid"));
}

/// The OpenCL.std ops the dialect tables derive from the grammar (newer MLIR's ops)
/// lower to the intrinsics of the same meaning, as newer MLIR lowers them.
#[test]
fn opencl_ops_derived_from_the_grammar_lower_to_intrinsics() {
    let source = "spirv.func @f(%x: f32, %v: vector<3xf32>) \"None\" {\n\
        %0 = spirv.CL.exp2 %x : f32\n\
        %1 = spirv.CL.exp10 %0 : f32\n\
        %2 = spirv.CL.log2 %1 : f32\n\
        %3 = spirv.CL.log10 %2 : f32\n\
        %4 = spirv.CL.trunc %v : vector<3xf32>\n\
        spirv.Return\n\
      }\n";
    let r = convert(source, "-convert-spirv-to-llvm", false);
    assert!(r.success, "{}", r.diagnostics_text);
    for intrinsic in ["exp2", "exp10", "log2", "log10", "trunc"] {
        assert!(r.output.contains(&format!("\"llvm.intr.{intrinsic}\"(")), "{intrinsic}: {}", r.output);
    }
    assert!(r.output.contains("(vector<3xf32>) -> vector<3xf32>"), "{}", r.output);
}
