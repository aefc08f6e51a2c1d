llvm.func @f(%a: f32) -> f32 {
  %0 = llvm.fadd %a, %a {fastmathFlags = #llvm.fastmath<ninf, nnan>} : f32
  %1 = llvm.fmul %0, %a {fastmathFlags = #llvm.fastmath<nnan,ninf,nsz,arcp,contract,afn,reassoc>} : f32
  %2 = llvm.fsub %1, %a {fastmathFlags = #llvm.fastmath<none>} : f32
  llvm.return %2 : f32
}
