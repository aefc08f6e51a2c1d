llvm.func @f(%a: vector<4xf32>, %i: i32) -> vector<4xf32> {
  %0 = llvm.call_intrinsic "llvm.x86.sse.rcp.ps"(%a) : (vector<4xf32>) -> vector<4xf32>
  llvm.call_intrinsic "llvm.donothing"() : () -> ()
  %1 = llvm.call_intrinsic "llvm.fma.f32"(%i, %i, %i) {fastmathFlags = #llvm.fastmath<fast>} : (i32, i32, i32) -> i32
  llvm.return %0 : vector<4xf32>
}
