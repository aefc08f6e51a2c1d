// saxpy without a bounds check in the shader: y[i] = a * x[i] + y[i] for i = GlobalInvocationId.x.
// Converted by mlir-opt-22 -convert-spirv-to-llvm --mlir-print-op-generic from a form with
// Private globals (MLIR 22 converts no other storage class); saxpy.spirv.mlir gives the real
// interface by the same symbol names.
"builtin.module"() ({
  "builtin.module"() ({
    "llvm.mlir.global"() <{addr_space = 0 : i32, constant, global_type = !llvm.struct<(i32, array<3 x i32>)>, linkage = #llvm.linkage<external>, sym_name = "__spv__main_execution_mode_info_17", visibility_ = 0 : i64}> ({
      %23 = "llvm.mlir.poison"() : () -> !llvm.struct<(i32, array<3 x i32>)>
      %24 = "llvm.mlir.constant"() <{value = 17 : i32}> : () -> i32
      %25 = "llvm.insertvalue"(%23, %24) <{position = array<i64: 0>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      %26 = "llvm.mlir.constant"() <{value = 64 : i32}> : () -> i32
      %27 = "llvm.insertvalue"(%25, %26) <{position = array<i64: 1, 0>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      %28 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
      %29 = "llvm.insertvalue"(%27, %28) <{position = array<i64: 1, 1>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      %30 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
      %31 = "llvm.insertvalue"(%29, %30) <{position = array<i64: 1, 2>}> : (!llvm.struct<(i32, array<3 x i32>)>, i32) -> !llvm.struct<(i32, array<3 x i32>)>
      "llvm.return"(%31) : (!llvm.struct<(i32, array<3 x i32>)>) -> ()
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.struct<packed (i32, f32)>, linkage = #llvm.linkage<private>, sym_name = "params", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.struct<packed (array<1 x f32>)>, linkage = #llvm.linkage<private>, sym_name = "x", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.struct<packed (array<1 x f32>)>, linkage = #llvm.linkage<private>, sym_name = "y", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = vector<3xi32>, linkage = #llvm.linkage<private>, sym_name = "gid", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "main", visibility_ = 0 : i64}> ({
      %0 = "llvm.mlir.addressof"() <{global_name = @gid}> : () -> !llvm.ptr
      %1 = "llvm.load"(%0) <{ordering = 0 : i64}> : (!llvm.ptr) -> vector<3xi32>
      %2 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %3 = "llvm.extractelement"(%1, %2) : (vector<3xi32>, i32) -> i32
      %4 = "llvm.mlir.addressof"() <{global_name = @params}> : () -> !llvm.ptr
      %5 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %6 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
      %7 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %8 = "llvm.getelementptr"(%4, %7) <{elem_type = !llvm.struct<packed (i32, f32)>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, 0>}> : (!llvm.ptr, i32) -> !llvm.ptr
      %9 = "llvm.load"(%8) <{ordering = 0 : i64}> : (!llvm.ptr) -> i32
      %10 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %11 = "llvm.getelementptr"(%4, %10) <{elem_type = !llvm.struct<packed (i32, f32)>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, 1>}> : (!llvm.ptr, i32) -> !llvm.ptr
      %12 = "llvm.load"(%11) <{ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %13 = "llvm.mlir.addressof"() <{global_name = @x}> : () -> !llvm.ptr
      %14 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %15 = "llvm.getelementptr"(%13, %14, %3) <{elem_type = !llvm.struct<packed (array<1 x f32>)>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, 0, -2147483648>}> : (!llvm.ptr, i32, i32) -> !llvm.ptr
      %16 = "llvm.load"(%15) <{ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %17 = "llvm.mlir.addressof"() <{global_name = @y}> : () -> !llvm.ptr
      %18 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
      %19 = "llvm.getelementptr"(%17, %18, %3) <{elem_type = !llvm.struct<packed (array<1 x f32>)>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: -2147483648, 0, -2147483648>}> : (!llvm.ptr, i32, i32) -> !llvm.ptr
      %20 = "llvm.load"(%19) <{ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %21 = "llvm.fmul"(%12, %16) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
      %22 = "llvm.fadd"(%21, %20) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
      "llvm.store"(%22, %19) <{ordering = 0 : i64}> : (f32, !llvm.ptr) -> ()
      "llvm.return"() : () -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()

