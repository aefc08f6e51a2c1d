module {
  llvm.mlir.global private constant @sc_int(-5 : i32) {addr_space = 0 : i32} : i32
  llvm.mlir.global private constant @sc_unsigned(10 : i16) {addr_space = 0 : i32} : i16
  llvm.mlir.global private constant @sc_float(3.140000e+00 : f32) {addr_space = 0 : i32} : f32
  llvm.mlir.global private constant @sc_bool(true) {addr_space = 0 : i32} : i1
  llvm.mlir.global external @__builtin_var_LocalInvocationId__() {addr_space = 0 : i32} : vector<3xi32>
  llvm.func spir_funccc @_Z21__spirv_MemoryBarrierjj(i32, i32) attributes {convergent, no_unwind, will_return}
  llvm.func @math(%a: f32, %b: f32, %h: vector<3xf16>, %s: i16, %v: vector<3xi32>) {
    %0 = llvm.intr.sinh(%a) : (f32) -> f32
    %1 = llvm.intr.cosh(%h) : (vector<3xf16>) -> vector<3xf16>
    %2 = llvm.intr.exp10(%a) : (f32) -> f32
    %3 = llvm.intr.atan2(%a, %b) : (f32, f32) -> f32
    %4 = llvm.intr.asin(%a) : (f32) -> f32
    %5 = llvm.intr.atan(%a) : (f32) -> f32
    %6 = llvm.intr.tan(%a) : (f32) -> f32
    %7 = llvm.intr.rint(%a) : (f32) -> f32
    %8 = llvm.intr.log10(%a) : (f32) -> f32
    %9 = llvm.intr.log2(%h) : (vector<3xf16>) -> vector<3xf16>
    %10 = llvm.intr.round(%h) : (vector<3xf16>) -> vector<3xf16>
    %11 = llvm.intr.ceil(%a) : (f32) -> f32
    %12 = llvm.intr.maxnum(%a, %b) : (f32, f32) -> f32
    %13 = "llvm.intr.abs"(%s) <{is_int_min_poison = false}> : (i16) -> i16
    %14 = "llvm.intr.abs"(%v) <{is_int_min_poison = false}> : (vector<3xi32>) -> vector<3xi32>
    %15 = llvm.intr.smin(%v, %v) : (vector<3xi32>, vector<3xi32>) -> vector<3xi32>
    %16 = llvm.intr.umax(%s, %s) : (i16, i16) -> i16
    %17 = llvm.fsub %a, %b : f32
    %18 = llvm.fmul %h, %h : vector<3xf16>
    %19 = llvm.mlir.constant(dense<[1, 2, 3]> : vector<3xi32>) : vector<3xi32>
    %20 = llvm.mlir.constant(-2.500000e+00 : f32) : f32
    %21 = llvm.mlir.constant(65535 : i16) : i16
    %22 = llvm.mlir.constant(1 : i32) : i32
    %23 = llvm.mlir.constant(72 : i32) : i32
    llvm.call spir_funccc @_Z21__spirv_MemoryBarrierjj(%22, %23) {convergent, no_unwind, will_return} : (i32, i32) -> ()
    %24 = llvm.mlir.addressof @__builtin_var_LocalInvocationId__ : !llvm.ptr
    %25 = llvm.load %24 : !llvm.ptr -> vector<3xi32>
    %26 = llvm.extractelement %25[%22 : i32] : vector<3xi32>
    llvm.return
  }
}
