"builtin.module"() ({
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = vector<2xf32>, linkage = #llvm.linkage<external>, sym_name = "gbuf", unnamed_addr = 0 : i64, value = dense<[1.000000e+00, 2.000000e+00]> : vector<2xf32>, visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 1 : i32, alignment = 16 : i64, constant, global_type = i32, linkage = #llvm.linkage<internal>, sym_name = "gconst", unnamed_addr = 0 : i64, value = 42 : i32, visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 3 : i32, global_type = !llvm.array<4 x i32>, linkage = #llvm.linkage<private>, sym_name = "gzero", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
    %98 = "llvm.mlir.zero"() : () -> !llvm.array<4 x i32>
    "llvm.return"(%98) : (!llvm.array<4 x i32>) -> ()
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.struct<(i32, f32)>, linkage = #llvm.linkage<external>, sym_name = "gstruct", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
    %95 = "llvm.mlir.undef"() : () -> !llvm.struct<(i32, f32)>
    %96 = "llvm.mlir.constant"() <{value = 7 : i32}> : () -> i32
    %97 = "llvm.insertvalue"(%95, %96) <{position = array<i64: 0>}> : (!llvm.struct<(i32, f32)>, i32) -> !llvm.struct<(i32, f32)>
    "llvm.return"(%97) : (!llvm.struct<(i32, f32)>) -> ()
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = i32, linkage = #llvm.linkage<external>, sym_name = "gext", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.mlir.global"() <{addr_space = 0 : i32, global_type = !llvm.ptr, linkage = #llvm.linkage<linkonce_odr>, sym_name = "gptr", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
    %94 = "llvm.mlir.addressof"() <{global_name = @gext}> : () -> !llvm.ptr
    "llvm.return"(%94) : (!llvm.ptr) -> ()
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<i32 (i32, f32)>, linkage = #llvm.linkage<external>, sym_name = "callee", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void (i32, i32, i32)>, linkage = #llvm.linkage<external>, passthrough = ["nounwind", "convergent"], sym_name = "_Z22__spirv_ControlBarrieriii", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<fastcc>, function_type = !llvm.func<i32 (i32, i32, f32, f32, vector<4xf32>, ptr)>, linkage = #llvm.linkage<external>, passthrough = ["nounwind"], sym_name = "arith", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
  ^bb0(%arg7: i32, %arg8: i32, %arg9: f32, %arg10: f32, %arg11: vector<4xf32>, %arg12: !llvm.ptr):
    %25 = "llvm.add"(%arg7, %arg8) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    %26 = "llvm.sub"(%arg7, %arg8) <{overflowFlags = 1 : i32}> : (i32, i32) -> i32
    %27 = "llvm.mul"(%arg7, %arg8) <{overflowFlags = 3 : i32}> : (i32, i32) -> i32
    %28 = "llvm.sdiv"(%arg7, %arg8) : (i32, i32) -> i32
    %29 = "llvm.udiv"(%arg7, %arg8) : (i32, i32) -> i32
    %30 = "llvm.srem"(%arg7, %arg8) : (i32, i32) -> i32
    %31 = "llvm.urem"(%arg7, %arg8) : (i32, i32) -> i32
    %32 = "llvm.and"(%arg7, %arg8) : (i32, i32) -> i32
    %33 = "llvm.or"(%arg7, %arg8) : (i32, i32) -> i32
    %34 = "llvm.xor"(%arg7, %arg8) : (i32, i32) -> i32
    %35 = "llvm.shl"(%arg7, %arg8) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    %36 = "llvm.lshr"(%arg7, %arg8) : (i32, i32) -> i32
    %37 = "llvm.ashr"(%arg7, %arg8) : (i32, i32) -> i32
    %38 = "llvm.fadd"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
    %39 = "llvm.fsub"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<fast>}> : (f32, f32) -> f32
    %40 = "llvm.fmul"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<nnan, ninf>}> : (f32, f32) -> f32
    %41 = "llvm.fdiv"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
    %42 = "llvm.frem"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
    %43 = "llvm.fneg"(%arg9) <{fastmathFlags = #llvm.fastmath<none>}> : (f32) -> f32
    %44 = "llvm.fadd"(%arg11, %arg11) <{fastmathFlags = #llvm.fastmath<none>}> : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
    %45 = "llvm.icmp"(%arg7, %arg8) <{predicate = 2 : i64}> : (i32, i32) -> i1
    %46 = "llvm.fcmp"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>, predicate = 1 : i64}> : (f32, f32) -> i1
    %47 = "llvm.fcmp"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>, predicate = 14 : i64}> : (f32, f32) -> i1
    %48 = "llvm.select"(%45, %arg7, %arg8) <{fastmathFlags = #llvm.fastmath<none>}> : (i1, i32, i32) -> i32
    %49 = "llvm.sext"(%arg7) : (i32) -> i64
    %50 = "llvm.zext"(%arg7) : (i32) -> i64
    %51 = "llvm.trunc"(%49) <{overflowFlags = 0 : i32}> : (i64) -> i16
    %52 = "llvm.fptosi"(%arg9) : (f32) -> i32
    %53 = "llvm.fptoui"(%arg9) : (f32) -> i32
    %54 = "llvm.sitofp"(%arg7) : (i32) -> f32
    %55 = "llvm.uitofp"(%arg7) : (i32) -> f64
    %56 = "llvm.fpext"(%arg9) : (f32) -> f64
    %57 = "llvm.fptrunc"(%56) : (f64) -> f16
    %58 = "llvm.bitcast"(%arg9) : (f32) -> i32
    %59 = "llvm.ptrtoint"(%arg12) : (!llvm.ptr) -> i64
    %60 = "llvm.inttoptr"(%59) : (i64) -> !llvm.ptr
    %61 = "llvm.addrspacecast"(%arg12) : (!llvm.ptr) -> !llvm.ptr<1>
    %62 = "llvm.call"(%arg7, %arg9) <{CConv = #llvm.cconv<ccc>, TailCallKind = #llvm.tailcallkind<none>, callee = @callee, fastmathFlags = #llvm.fastmath<none>, op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 2, 0>}> : (i32, f32) -> i32
    %63 = "llvm.mlir.constant"() <{value = 3 : i32}> : () -> i32
    %64 = "llvm.mlir.constant"() <{value = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : vector<4xf32>}> : () -> vector<4xf32>
    %65 = "llvm.mlir.constant"() <{value = 1.500000e+00 : f32}> : () -> f32
    %66 = "llvm.mlir.constant"() <{value = true}> : () -> i1
    %67 = "llvm.mlir.constant"() <{value = dense<0> : vector<4xi32>}> : () -> vector<4xi32>
    %68 = "llvm.mlir.poison"() : () -> vector<4xf32>
    %69 = "llvm.mlir.undef"() : () -> i32
    %70 = "llvm.mlir.zero"() : () -> !llvm.ptr
    %71 = "llvm.extractelement"(%arg11, %63) : (vector<4xf32>, i32) -> f32
    %72 = "llvm.insertelement"(%arg11, %arg9, %63) : (vector<4xf32>, f32, i32) -> vector<4xf32>
    %73 = "llvm.shufflevector"(%arg11, %arg11) <{mask = array<i32: 0, 1, -1, 7>}> : (vector<4xf32>, vector<4xf32>) -> vector<4xf32>
    %74 = "llvm.mlir.constant"() <{value = 0x7F800000 : f32}> : () -> f32
    %75 = "llvm.mlir.constant"() <{value = -2.500000e-03 : f64}> : () -> f64
    %76 = "llvm.intr.fma"(%arg9, %arg10, %arg9) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32, f32) -> f32
    %77 = "llvm.intr.sqrt"(%arg11) <{fastmathFlags = #llvm.fastmath<none>}> : (vector<4xf32>) -> vector<4xf32>
    %78 = "llvm.intr.smax"(%arg7, %arg8) : (i32, i32) -> i32
    %79 = "llvm.intr.ctpop"(%arg7) : (i32) -> i32
    %80 = "llvm.intr.ctlz"(%arg7) <{is_zero_poison = false}> : (i32) -> i32
    %81 = "llvm.intr.fabs"(%arg9) <{fastmathFlags = #llvm.fastmath<none>}> : (f32) -> f32
    %82 = "llvm.intr.pow"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
    %83 = "llvm.intr.maxnum"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
    %84 = "llvm.intr.copysign"(%arg9, %arg10) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
    %85 = "llvm.intr.floor"(%arg9) <{fastmathFlags = #llvm.fastmath<none>}> : (f32) -> f32
    %86 = "llvm.intr.exp2"(%arg9) <{fastmathFlags = #llvm.fastmath<none>}> : (f32) -> f32
    %87 = "llvm.intr.is.fpclass"(%arg9) <{bit = 3 : i32}> : (f32) -> i1
    %88 = "llvm.intr.abs"(%arg7) <{is_int_min_poison = false}> : (i32) -> i32
    %89 = "llvm.intr.bitreverse"(%arg7) : (i32) -> i32
    %90 = "llvm.intr.cttz"(%arg7) <{is_zero_poison = true}> : (i32) -> i32
    %91 = "llvm.intr.umin"(%arg7, %arg8) : (i32, i32) -> i32
    %92 = "llvm.mlir.constant"() <{value = 5 : i64}> : () -> i64
    %93 = "llvm.freeze"(%arg7) : (i32) -> i32
    "llvm.return"(%25) : (i32) -> ()
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<i32 (ptr, ptr<1>, i64, i32)>, linkage = #llvm.linkage<external>, sym_name = "memory", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
  ^bb0(%arg3: !llvm.ptr, %arg4: !llvm.ptr<1>, %arg5: i64, %arg6: i32):
    %9 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
    %10 = "llvm.alloca"(%9) <{alignment = 4 : i64, elem_type = i32}> : (i32) -> !llvm.ptr
    %11 = "llvm.alloca"(%9) <{elem_type = !llvm.struct<(i32, array<4 x f32>)>}> : (i32) -> !llvm.ptr
    "llvm.store"(%arg6, %10) <{alignment = 4 : i64, ordering = 0 : i64}> : (i32, !llvm.ptr) -> ()
    "llvm.store"(%arg6, %arg3) <{ordering = 0 : i64, volatile_}> : (i32, !llvm.ptr) -> ()
    "llvm.store"(%arg6, %arg4) <{nontemporal, ordering = 0 : i64}> : (i32, !llvm.ptr<1>) -> ()
    %12 = "llvm.load"(%10) <{alignment = 4 : i64, ordering = 0 : i64}> : (!llvm.ptr) -> i32
    %13 = "llvm.load"(%arg3) <{ordering = 0 : i64, volatile_}> : (!llvm.ptr) -> i32
    %14 = "llvm.load"(%arg3) <{alignment = 4 : i64, ordering = 4 : i64}> : (!llvm.ptr) -> i32
    "llvm.store"(%arg6, %arg3) <{alignment = 4 : i64, ordering = 5 : i64}> : (i32, !llvm.ptr) -> ()
    %15 = "llvm.getelementptr"(%11, %arg5) <{elem_type = !llvm.struct<(i32, array<4 x f32>)>, noWrapFlags = 0 : i32, rawConstantIndices = array<i32: 0, 1, -2147483648>}> : (!llvm.ptr, i64) -> !llvm.ptr
    %16 = "llvm.getelementptr"(%arg3, %arg5) <{elem_type = f32, noWrapFlags = 3 : i32, rawConstantIndices = array<i32: -2147483648>}> : (!llvm.ptr, i64) -> !llvm.ptr
    %17 = "llvm.atomicrmw"(%arg3, %arg6) <{bin_op = 1 : i64, ordering = 2 : i64}> : (!llvm.ptr, i32) -> i32
    %18 = "llvm.atomicrmw"(%arg3, %arg6) <{bin_op = 9 : i64, ordering = 7 : i64}> : (!llvm.ptr, i32) -> i32
    %19 = "llvm.atomicrmw"(%arg4, %arg6) <{bin_op = 0 : i64, ordering = 6 : i64}> : (!llvm.ptr<1>, i32) -> i32
    %20 = "llvm.cmpxchg"(%arg3, %arg6, %9) <{failure_ordering = 2 : i64, success_ordering = 6 : i64}> : (!llvm.ptr, i32, i32) -> !llvm.struct<(i32, i1)>
    %21 = "llvm.extractvalue"(%20) <{position = array<i64: 0>}> : (!llvm.struct<(i32, i1)>) -> i32
    %22 = "llvm.cmpxchg"(%arg3, %arg6, %9) <{failure_ordering = 7 : i64, success_ordering = 7 : i64, syncscope = "workgroup", volatile_, weak}> : (!llvm.ptr, i32, i32) -> !llvm.struct<(i32, i1)>
    "llvm.fence"() <{ordering = 4 : i64}> : () -> ()
    "llvm.fence"() <{ordering = 7 : i64, syncscope = "singlethread"}> : () -> ()
    %23 = "llvm.bitcast"(%arg6) : (i32) -> f32
    %24 = "llvm.atomicrmw"(%arg3, %23) <{bin_op = 11 : i64, ordering = 2 : i64}> : (!llvm.ptr, f32) -> f32
    "llvm.return"(%21) : (i32) -> ()
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<i32 (i1, i32)>, linkage = #llvm.linkage<external>, sym_name = "control", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
  ^bb0(%arg1: i1, %arg2: i32):
    %1 = "llvm.mlir.constant"() <{value = 0 : i32}> : () -> i32
    %2 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
    "llvm.br"(%1, %1)[^bb1] : (i32, i32) -> ()
  ^bb1(%3: i32, %4: i32):  // 2 preds: ^bb0, ^bb2
    %5 = "llvm.icmp"(%3, %arg2) <{predicate = 5 : i64}> : (i32, i32) -> i1
    "llvm.cond_br"(%5, %4)[^bb3, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, i32) -> ()
  ^bb2:  // pred: ^bb1
    %6 = "llvm.add"(%3, %2) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    %7 = "llvm.add"(%4, %3) <{overflowFlags = 0 : i32}> : (i32, i32) -> i32
    "llvm.switch"(%3, %6, %7, %2)[^bb1, ^bb3, ^bb4] <{case_operand_segments = array<i32: 1, 0>, case_values = dense<[5, 7]> : vector<2xi32>, operandSegmentSizes = array<i32: 1, 2, 1>}> : (i32, i32, i32, i32) -> ()
  ^bb3(%8: i32):  // 2 preds: ^bb1, ^bb2
    "llvm.return"(%8) : (i32) -> ()
  ^bb4:  // pred: ^bb2
    "llvm.unreachable"() : () -> ()
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void ()>, linkage = #llvm.linkage<external>, sym_name = "void_fn", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
    %0 = "llvm.mlir.constant"() <{value = 2 : i32}> : () -> i32
    "llvm.call"(%0, %0, %0) <{CConv = #llvm.cconv<ccc>, TailCallKind = #llvm.tailcallkind<none>, callee = @_Z22__spirv_ControlBarrieriii, fastmathFlags = #llvm.fastmath<none>, op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 3, 0>}> : (i32, i32, i32) -> ()
    "llvm.return"() : () -> ()
  }) : () -> ()
  "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<f64 (f64)>, linkage = #llvm.linkage<internal>, sym_name = "internal_fn", sym_visibility = "private", unnamed_addr = 0 : i64, visibility_ = 0 : i64}> ({
  ^bb0(%arg0: f64):
    "llvm.return"(%arg0) : (f64) -> ()
  }) : () -> ()
}) : () -> ()

