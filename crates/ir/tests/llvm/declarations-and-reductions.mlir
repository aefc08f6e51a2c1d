llvm.func @d(i32 {llvm.signext}, !llvm.ptr) -> (i32 {llvm.noundef})
llvm.func @v() -> !llvm.ptr
llvm.func @w(...)
llvm.func internal fastcc @x() -> !llvm.struct<(i32, f32)> attributes {sym_visibility = "private", passthrough = ["noinline"]} {
  %0 = llvm.mlir.undef : !llvm.struct<(i32, f32)>
  llvm.return %0 : !llvm.struct<(i32, f32)>
}
llvm.mlir.global external thread_local unnamed_addr @tl(0 : i64) {addr_space = 0 : i32, alignment = 8 : i64, dso_local, section = ".data"} : i64
llvm.mlir.global appending @arr() {addr_space = 0 : i32} : !llvm.array<2 x i32>
llvm.func @g(%v: vector<4xi32>, %b: vector<4xi1>, %f: vector<4xf32>, %a: f32) -> i32 {
  %0 = "llvm.intr.vector.reduce.or"(%v) : (vector<4xi32>) -> i32
  %1 = "llvm.intr.vector.reduce.and"(%b) : (vector<4xi1>) -> i1
  %2 = llvm.intr.acos(%a) : (f32) -> f32
  %3 = llvm.intr.vector.reduce.fmax(%f) : (vector<4xf32>) -> f32
  %4 = llvm.mlir.zero : vector<4xf32>
  %5 = "llvm.intr.vector.reduce.fadd"(%a, %f) <{fastmathFlags = #llvm.fastmath<reassoc>}> : (f32, vector<4xf32>) -> f32
  %6 = llvm.mlir.constant(0 : i32) : i32
  %7 = llvm.icmp "eq" %6, %6 : i32
  llvm.cond_br %7, ^bb1, ^bb2
^bb1:
  llvm.unreachable
^bb2:
  llvm.return %0 : i32
}
