// glslangValidator -V spec.comp, then spirvkit translate --deserialize-spirv.
spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> attributes {spirvkit.source = {language = "GLSL", version = 450 : i32}} {
  spirv.GlobalVariable @gl_GlobalInvocationID built_in("GlobalInvocationId") : !spirv.ptr<vector<3xi32>, Input>
  spirv.GlobalVariable @tile : !spirv.ptr<!spirv.array<64 x i32>, Workgroup>
  spirv.GlobalVariable @gl_LocalInvocationIndex built_in("LocalInvocationIndex") : !spirv.ptr<i32, Input>
  spirv.SpecConstant @SCALE spec_id(7) = 2 : i32
  spirv.SpecConstant @FLAG spec_id(8) = false
  spirv.GlobalVariable @b bind(0, 0) : !spirv.ptr<!spirv.struct<B, (i32 [0], !spirv.rtarray<i32, stride=4> [4]), BufferBlock>, Uniform>
  spirv.GlobalVariable @pc : !spirv.ptr<!spirv.struct<P, (i32 [0]), Block>, PushConstant>
  spirv.SpecConstant @spirv_spec_const_65 spec_id(3) = 1 : i32
  spirv.SpecConstantComposite @spirv_spec_const_66 (@spirv_spec_const_65, 1 : i32, 1 : i32) {built_in = "WorkgroupSize"} : vector<3xi32>
  spirv.func @main() "None" {
    %0 = spirv.Variable : !spirv.ptr<i32, Function>
    %1 = spirv.Variable : !spirv.ptr<i32, Function>
    %gl_GlobalInvocationID_addr = spirv.mlir.addressof @gl_GlobalInvocationID : !spirv.ptr<vector<3xi32>, Input>
    %cst0_i32 = spirv.Constant 0 : i32
    %2 = spirv.AccessChain %gl_GlobalInvocationID_addr[%cst0_i32] : !spirv.ptr<vector<3xi32>, Input>, i32 -> !spirv.ptr<i32, Input>
    %3 = spirv.Load "Input" %2 : i32
    spirv.Store "Function" %0, %3 : i32
    %gl_LocalInvocationIndex_addr = spirv.mlir.addressof @gl_LocalInvocationIndex : !spirv.ptr<i32, Input>
    %4 = spirv.Load "Input" %gl_LocalInvocationIndex_addr : i32
    %cst64_i32 = spirv.Constant 64 : i32
    %5 = spirv.UMod %4, %cst64_i32 : i32
    %6 = spirv.Load "Function" %0 : i32
    %tile_addr = spirv.mlir.addressof @tile : !spirv.ptr<!spirv.array<64 x i32>, Workgroup>
    %7 = spirv.AccessChain %tile_addr[%5] : !spirv.ptr<!spirv.array<64 x i32>, Workgroup>, i32 -> !spirv.ptr<i32, Workgroup>
    spirv.Store "Workgroup" %7, %6 : i32
    spirv.ControlBarrier <Workgroup>, <Workgroup>, <AcquireRelease|WorkgroupMemory>
    %8 = spirv.mlir.referenceof @SCALE : i32
    %cst3_i32 = spirv.Constant 3 : i32
    %9 = spirv.SpecConstantOperation wraps "spirv.IMul"(%8, %cst3_i32) : (i32, i32) -> i32
    %cst1_i32 = spirv.Constant 1 : i32
    %10 = spirv.SpecConstantOperation wraps "spirv.IAdd"(%9, %cst1_i32) : (i32, i32) -> i32
    spirv.Store "Function" %1, %10 : i32
    %11 = spirv.mlir.referenceof @FLAG : i1
    spirv.Branch ^bb1
  ^bb1:  // pred: ^bb0
    spirv.mlir.selection {
      spirv.BranchConditional %11, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %cst0_i32_0 = spirv.Constant 0 : i32
      spirv.Store "Function" %1, %cst0_i32_0 : i32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    %12 = spirv.Load "Function" %0 : i32
    %b_addr = spirv.mlir.addressof @b : !spirv.ptr<!spirv.struct<B, (i32 [0], !spirv.rtarray<i32, stride=4> [4]), BufferBlock>, Uniform>
    %cst0_si32 = spirv.Constant 0 : si32
    %13 = spirv.AccessChain %b_addr[%cst0_si32] : !spirv.ptr<!spirv.struct<B, (i32 [0], !spirv.rtarray<i32, stride=4> [4]), BufferBlock>, Uniform>, si32 -> !spirv.ptr<i32, Uniform>
    %14 = spirv.Load "Uniform" %13 : i32
    %15 = spirv.ULessThan %12, %14 : i32
    spirv.Branch ^bb2
  ^bb2:  // pred: ^bb1
    spirv.mlir.selection {
      spirv.BranchConditional %15, ^bb1, ^bb2
    ^bb1:  // pred: ^bb0
      %16 = spirv.Load "Function" %0 : i32
      %17 = spirv.Load "Function" %0 : i32
      %b_addr_0 = spirv.mlir.addressof @b : !spirv.ptr<!spirv.struct<B, (i32 [0], !spirv.rtarray<i32, stride=4> [4]), BufferBlock>, Uniform>
      %cst1_si32 = spirv.Constant 1 : si32
      %18 = spirv.AccessChain %b_addr_0[%cst1_si32, %17] : !spirv.ptr<!spirv.struct<B, (i32 [0], !spirv.rtarray<i32, stride=4> [4]), BufferBlock>, Uniform>, si32, i32 -> !spirv.ptr<i32, Uniform>
      %19 = spirv.Load "Uniform" %18 : i32
      %20 = spirv.Load "Function" %1 : i32
      %21 = spirv.IMul %19, %20 : i32
      %pc_addr = spirv.mlir.addressof @pc : !spirv.ptr<!spirv.struct<P, (i32 [0]), Block>, PushConstant>
      %cst0_si32_1 = spirv.Constant 0 : si32
      %22 = spirv.AccessChain %pc_addr[%cst0_si32_1] : !spirv.ptr<!spirv.struct<P, (i32 [0]), Block>, PushConstant>, si32 -> !spirv.ptr<i32, PushConstant>
      %23 = spirv.Load "PushConstant" %22 : i32
      %24 = spirv.IAdd %21, %23 : i32
      %25 = spirv.mlir.referenceof @spirv_spec_const_66 : vector<3xi32>
      %26 = spirv.CompositeExtract %25[0 : i32] : vector<3xi32>
      %27 = spirv.IAdd %24, %26 : i32
      %tile_addr_2 = spirv.mlir.addressof @tile : !spirv.ptr<!spirv.array<64 x i32>, Workgroup>
      %cst0_si32_3 = spirv.Constant 0 : si32
      %28 = spirv.AccessChain %tile_addr_2[%cst0_si32_3] : !spirv.ptr<!spirv.array<64 x i32>, Workgroup>, si32 -> !spirv.ptr<i32, Workgroup>
      %29 = spirv.Load "Workgroup" %28 : i32
      %30 = spirv.IAdd %27, %29 : i32
      %b_addr_4 = spirv.mlir.addressof @b : !spirv.ptr<!spirv.struct<B, (i32 [0], !spirv.rtarray<i32, stride=4> [4]), BufferBlock>, Uniform>
      %cst1_si32_5 = spirv.Constant 1 : si32
      %31 = spirv.AccessChain %b_addr_4[%cst1_si32_5, %16] : !spirv.ptr<!spirv.struct<B, (i32 [0], !spirv.rtarray<i32, stride=4> [4]), BufferBlock>, Uniform>, si32, i32 -> !spirv.ptr<i32, Uniform>
      spirv.Store "Uniform" %31, %30 : i32
      spirv.Branch ^bb2
    ^bb2:  // 2 preds: ^bb0, ^bb1
      spirv.mlir.merge
    }
    spirv.Return
  }
  spirv.EntryPoint "GLCompute" @main, @gl_GlobalInvocationID, @gl_LocalInvocationIndex
  spirv.ExecutionMode @main "LocalSize", 1, 1, 1
}
