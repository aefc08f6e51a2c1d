// A runaway shader: invocation 0 loops forever counting in a storage buffer.
"builtin.module"() ({
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.struct<packed (array<1 x i32>)>, linkage = #llvm.linkage<private>, sym_name = "counter", visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "main", visibility_ = 0 : i64}> ({
    %0 = "llvm.mlir.addressof"() <{global_name = @counter}> : () -> !llvm.ptr
    %1 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
    "llvm.br"()[^bb1] : () -> ()
  ^bb1:
    %2 = "llvm.load"(%0) <{ordering = 0 : i64}> : (!llvm.ptr) -> i32
    %3 = "llvm.add"(%2, %1) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    "llvm.store"(%3, %0) <{ordering = 0 : i64}> : (i32, !llvm.ptr) -> ()
    "llvm.br"()[^bb1] : () -> ()
  }) : () -> ()
}) : () -> ()
