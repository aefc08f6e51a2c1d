// reduce: 64 invocations add their 64 elements with a tree in workgroup memory, a barrier
// after the store and after every step of the loop (barriers inside a loop); invocation 0
// writes the sum. Converted by mlir-opt-22 -convert-spirv-to-llvm --mlir-print-op-generic from
// a Private form; the barrier is a call to the declaration the conversion contract names.
"builtin.module"() ({
  "builtin.module"() ({
    "llvm.mlir.global"() <{addr_space = 0 : i32, constant, global_type = !llvm.struct<(i32, array<3 x i32>)>, linkage = #llvm.linkage<external>, sym_name = "__spv__main_execution_mode_info_17", visibility_ = 0 : i64}> ({
      %40 = "llvm.mlir.poison"() : () -> !llvm.struct<(i32, array<3 x i32>)>
      %41 = "llvm.mlir.constant"() <{value = 17 : i32}> : () -> i32
      %42 = "llvm.insertvalue"(%40, %41) <{position = array<i64: 0>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      %43 = "llvm.mlir.constant"() <{value = 64 : i32}> : () -> i32
      %44 = "llvm.insertvalue"(%42, %43) <{position = array<i64: 1, 0>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      %45 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
      %46 = "llvm.insertvalue"(%44, %45) <{position = array<i64: 1, 1>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      %47 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
      %48 = "llvm.insertvalue"(%46, %47) <{position = array<i64: 1, 2>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      "llvm.return"(%48) : (!llvm.struct<(i32, array<3 x i32>)>) -> ()
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.struct<packed (array<1 x f32>)>, linkage = #llvm.linkage<private>, sym_name = "src", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.struct<packed (array<1 x f32>)>, linkage = #llvm.linkage<private>, sym_name = "partial", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.array<64 x f32>, linkage = #llvm.linkage<private>, sym_name = "sdata", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = vector<3xi32>, linkage = #llvm.linkage<private>, sym_name = "lid", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = vector<3xi32>, linkage = #llvm.linkage<private>, sym_name = "gid", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void (i32, i32, i32)>, linkage = #llvm.linkage<external>, sym_name = "_Z22__spirv_ControlBarrieriii", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "main", visibility_ = 0 : i64}> ({
      %0 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %1 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
      %2 = "llvm.mlir.constant"() <{value = 2 : i32}> : () -> i32
      %3 = "llvm.mlir.constant"() <{value = 64 : i32}> : () -> i32
      %4 = "llvm.mlir.constant"() <{value = 32 : i32}> : () -> i32
      %5 = "llvm.mlir.constant"() <{value = 264 : i32}> : () -> i32
      %6 = "llvm.mlir.addressof"() <{global_name = @lid}> : () -> !llvm.ptr
      %7 = "llvm.load"(%6) <{ordering = 0 : i64}> : (!llvm.ptr) -> vector<3xi32>
      %8 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %9 = "llvm.extractelement"(%7, %8) : (vector<3xi32>, i32) -> i32
      %10 = "llvm.mlir.addressof"() <{global_name = @gid}> : () -> !llvm.ptr
      %11 = "llvm.load"(%10) <{ordering = 0 : i64}> : (!llvm.ptr) -> vector<3xi32>
      %12 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %13 = "llvm.extractelement"(%11, %12) : (vector<3xi32>, i32) -> i32
      %14 = "llvm.mul"(%13, %3) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
      %15 = "llvm.add"(%14, %9) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
      %16 = "llvm.mlir.addressof"() <{global_name = @src}> : () -> !llvm.ptr
      %17 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %18 = "llvm.getelementptr"(%16, %17, %15) <{elem_type = !llvm.struct<packed (array<1 x f32>)>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, 0, -2147483648>}> : (!llvm.ptr, i32, i32) -> !llvm.ptr
      %19 = "llvm.load"(%18) <{ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %20 = "llvm.mlir.addressof"() <{global_name = @sdata}> : () -> !llvm.ptr
      %21 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %22 = "llvm.getelementptr"(%20, %21, %9) <{elem_type = !llvm.array<64 x f32>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, -2147483648>}> : (!llvm.ptr, i32, i32) -> !llvm.ptr
      "llvm.store"(%19, %22) <{ordering = 0 : i64}> : (f32, !llvm.ptr) -> ()
      "llvm.call"(%2, %2, %5) <{CConv = #llvm.cconv<ccc>, TailCallKind = #llvm.tailcallkind<none>, callee = @_Z22__spirv_ControlBarrieriii, fastmathFlags = #llvm.fastmath<none>, op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 3, 0>}> : (i32, i32, i32) -> ()
      "llvm.br"(%4)[^bb1] : (i32) -> ()
    ^bb1(%23: i32):  // 2 preds: ^bb0, ^bb5
      %24 = "llvm.icmp"(%23, %0) <{predicate = 8 : i64}> : (i32, i32) -> i1
      "llvm.cond_br"(%24)[^bb2, ^bb6] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
    ^bb2:  // pred: ^bb1
      %25 = "llvm.icmp"(%9, %23) <{predicate = 6 : i64}> : (i32, i32) -> i1
      "llvm.cond_br"(%25)[^bb3, ^bb4] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
    ^bb3:  // pred: ^bb2
      %26 = "llvm.add"(%9, %23) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
      %27 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %28 = "llvm.getelementptr"(%20, %27, %26) <{elem_type = !llvm.array<64 x f32>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, -2147483648>}> : (!llvm.ptr, i32, i32) -> !llvm.ptr
      %29 = "llvm.load"(%22) <{ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %30 = "llvm.load"(%28) <{ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %31 = "llvm.fadd"(%29, %30) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
      "llvm.store"(%31, %22) <{ordering = 0 : i64}> : (f32, !llvm.ptr) -> ()
      "llvm.br"()[^bb4] : () -> ()
    ^bb4:  // 2 preds: ^bb2, ^bb3
      "llvm.br"()[^bb5] : () -> ()
    ^bb5:  // pred: ^bb4
      "llvm.call"(%2, %2, %5) <{CConv = #llvm.cconv<ccc>, TailCallKind = #llvm.tailcallkind<none>, callee = @_Z22__spirv_ControlBarrieriii, fastmathFlags = #llvm.fastmath<none>, op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 3, 0>}> : (i32, i32, i32) -> ()
      %32 = "llvm.lshr"(%23, %1) : (i32, i32) -> i32
      "llvm.br"(%32)[^bb1] : (i32) -> ()
    ^bb6:  // pred: ^bb1
      "llvm.br"()[^bb7] : () -> ()
    ^bb7:  // pred: ^bb6
      %33 = "llvm.icmp"(%9, %0) <{predicate = 0 : i64}> : (i32, i32) -> i1
      "llvm.cond_br"(%33)[^bb8, ^bb9] <{operandSegmentSizes = array<i32: 1, 0, 0>}> : (i1) -> ()
    ^bb8:  // pred: ^bb7
      %34 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %35 = "llvm.getelementptr"(%20, %34, %0) <{elem_type = !llvm.array<64 x f32>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, -2147483648>}> : (!llvm.ptr, i32, i32) -> !llvm.ptr
      %36 = "llvm.load"(%35) <{ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %37 = "llvm.mlir.addressof"() <{global_name = @partial}> : () -> !llvm.ptr
      %38 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %39 = "llvm.getelementptr"(%37, %38, %13) <{elem_type = !llvm.struct<packed (array<1 x f32>)>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, 0, -2147483648>}> : (!llvm.ptr, i32, i32) -> !llvm.ptr
      "llvm.store"(%36, %39) <{ordering = 0 : i64}> : (f32, !llvm.ptr) -> ()
      "llvm.br"()[^bb9] : () -> ()
    ^bb9:  // 2 preds: ^bb7, ^bb8
      "llvm.br"()[^bb10] : () -> ()
    ^bb10:  // pred: ^bb9
      "llvm.return"() : () -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()

