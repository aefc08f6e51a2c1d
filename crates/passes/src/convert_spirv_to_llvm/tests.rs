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
                  spirv.Return\n  }\n}\n";
    let r = convert(
        source,
        "-convert-spirv-to-llvm=explicit-layout=1 keep-global-names=1 all-storage-classes=1 storage-images=1",
        false,
    );
    assert!(r.success, "{}", r.diagnostics_text);
    // The header global, texels loaded as 4 x i8 and converted, stored rounded to even.
    for expected in [
        "global_type = !llvm.array<4 x i32>, linkage = #llvm.linkage<external>, sym_name = \"img\"",
        "vector<4xi8>",
        "llvm.intr.roundeven",
        "llvm.uitofp",
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
