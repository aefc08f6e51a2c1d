module attributes {llvm.data_layout = "e", spirv.target_env = #spirv.target_env<#spirv.vce<v1.0, [Shader], []>, #spirv.resource_limits<>>} {
  module @inner {
    llvm.func @empty() {
      llvm.return
    }
  }
  llvm.mlir.global internal constant @str("hello\00") {addr_space = 0 : i32}
  llvm.mlir.global private unnamed_addr constant @u(0 : i32) {addr_space = 0 : i32} : i32
  llvm.mlir.global weak_odr hidden thread_local @t(1.0 : f32) {addr_space = 0 : i32, alignment = 4 : i64} : f32
  llvm.func @printf(!llvm.ptr, ...) -> i32
  llvm.func linkonce_odr hidden local_unnamed_addr @attrs(%arg0: !llvm.ptr {llvm.noalias, llvm.nocapture}, %arg1: i32 {llvm.signext}) -> (i32 {llvm.zeroext}) attributes {no_inline} {
    llvm.return %arg1 : i32
  }
  llvm.func @intrinsics(%a: f32, %b: f32, %c: f32, %i: i32, %j: i32, %v: vector<4xf32>, %vi: vector<4xi32>, %p: !llvm.ptr, %q: !llvm.ptr, %n: i64) {
    %0 = llvm.intr.fma(%a, %b, %c) : (f32, f32, f32) -> f32
    %1 = llvm.intr.fmuladd(%a, %b, %c) : (f32, f32, f32) -> f32
    %2 = llvm.intr.smax(%i, %j) : (i32, i32) -> i32
    %3 = llvm.intr.umin(%i, %j) : (i32, i32) -> i32
    %4 = llvm.intr.floor(%a) : (f32) -> f32
    %5 = llvm.intr.exp2(%a) : (f32) -> f32
    %6 = llvm.intr.copysign(%a, %b) : (f32, f32) -> f32
    %7 = "llvm.intr.ctlz"(%i) <{is_zero_poison = false}> : (i32) -> i32
    %8 = "llvm.intr.cttz"(%i) <{is_zero_poison = true}> : (i32) -> i32
    %9 = llvm.intr.ctpop(%i) : (i32) -> i32
    "llvm.intr.memcpy"(%p, %q, %n) <{isVolatile = false}> : (!llvm.ptr, !llvm.ptr, i64) -> ()

    %10 = llvm.intr.sqrt(%v) : (vector<4xf32>) -> vector<4xf32>
    %11 = llvm.intr.fabs(%a) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
    %12 = llvm.intr.minnum(%a, %b) : (f32, f32) -> f32
    %13 = llvm.intr.maximum(%a, %b) : (f32, f32) -> f32
    %14 = llvm.intr.pow(%a, %b) : (f32, f32) -> f32
    %15 = llvm.intr.log(%a) : (f32) -> f32
    %16 = llvm.intr.sin(%a) : (f32) -> f32
    %17 = llvm.intr.trunc(%a) : (f32) -> f32
    %18 = llvm.intr.roundeven(%a) : (f32) -> f32
    %19 = "llvm.intr.abs"(%i) <{is_int_min_poison = false}> : (i32) -> i32
    %20 = llvm.intr.bitreverse(%i) : (i32) -> i32
    %21 = "llvm.intr.vector.reduce.fadd"(%a, %v) : (f32, vector<4xf32>) -> f32
    %22 = "llvm.intr.vector.reduce.add"(%vi) : (vector<4xi32>) -> i32
    %23 = llvm.intr.ldexp(%a, %i) : (f32, i32) -> f32
    %24 = llvm.intr.tanh(%a) : (f32) -> f32
    %25 = llvm.intr.fshl(%i, %j, %i) : (i32, i32, i32) -> i32
    %26 = llvm.intr.uadd.sat(%i, %j) : (i32, i32) -> i32
    %27 = "llvm.intr.umul.with.overflow"(%i, %j) : (i32, i32) -> !llvm.struct<(i32, i1)>
    %28 = "llvm.intr.is.fpclass"(%a) <{bit = 3 : i32}> : (f32) -> i1
    llvm.return
  }
  llvm.func @arith(%a: f32, %b: f32, %i: i32, %j: i32, %k: i64, %p: !llvm.ptr, %v: vector<4xi32>, %cnd: i1) -> i32 {
    %0 = llvm.fneg %a : f32
    %1 = llvm.fdiv %a, %b : f32
    %2 = llvm.frem %a, %b {fastmathFlags = #llvm.fastmath<nnan>} : f32
    %3 = llvm.sdiv %i, %j : i32
    %4 = llvm.udiv exact %i, %j : i32
    %5 = llvm.urem %i, %j : i32
    %6 = llvm.srem %i, %j : i32
    %7 = llvm.mul %i, %j overflow<nsw, nuw> : i32
    %8 = llvm.sub %i, %j overflow<nuw> : i32
    %9 = llvm.shl %i, %j : i32
    %10 = llvm.lshr exact %i, %j : i32
    %11 = llvm.or disjoint %i, %j : i32
    %12 = llvm.xor %i, %j : i32
    %13 = llvm.select %cnd, %i, %j : i1, i32
    %14 = llvm.select %cnd, %a, %b {fastmathFlags = #llvm.fastmath<fast>} : i1, f32
    %15 = llvm.bitcast %a : f32 to i32
    %16 = llvm.sext %i : i32 to i64
    %17 = llvm.zext nneg %i : i32 to i64
    %18 = llvm.trunc %k : i64 to i32
    %19 = llvm.trunc %k overflow<nsw> : i64 to i32
    %20 = llvm.fptosi %a : f32 to i32
    %21 = llvm.fptoui %a : f32 to i32
    %22 = llvm.sitofp %i : i32 to f32
    %23 = llvm.uitofp nneg %i : i32 to f32
    %24 = llvm.fpext %a : f32 to f64
    %25 = llvm.fptrunc %24 : f64 to f32
    %26 = llvm.ptrtoint %p : !llvm.ptr to i64
    %27 = llvm.inttoptr %k : i64 to !llvm.ptr
    %28 = llvm.addrspacecast %p : !llvm.ptr to !llvm.ptr<1>
    %29 = llvm.bitcast %v : vector<4xi32> to vector<4xf32>
    %30 = llvm.freeze %i : i32
    %31 = llvm.add %i, %j : i32
    %32 = llvm.icmp "ugt" %v, %v : vector<4xi32>
    %33 = llvm.fcmp "_false" %a, %b : f32
    %34 = llvm.fcmp "uno" %a, %b : f32
    %35 = llvm.call @printf(%p, %i) vararg(!llvm.func<i32 (ptr, ...)>) : (!llvm.ptr, i32) -> i32
    llvm.switch %i : i32, ^bb1 [
    ]
  ^bb1:
    llvm.switch %i : i32, ^bb2 [
      -1: ^bb2,
      2: ^bb3
    ]
  ^bb2:
    %40 = llvm.mlir.constant(-1 : i32) : i32
    llvm.cond_br %cnd weights([1, 2]), ^bb3, ^bb3
  ^bb3:
    llvm.return %31 : i32
  }
}
