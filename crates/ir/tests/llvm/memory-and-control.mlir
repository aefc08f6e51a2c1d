module @kernels {
  llvm.mlir.global external @ext_global() {addr_space = 0 : i32} : !llvm.struct<(i32, f32)>
  llvm.mlir.global internal constant @cst(dense<[1.0, 2.0]> : vector<2xf32>) {addr_space = 0 : i32, alignment = 16 : i64} : vector<2xf32>
  llvm.mlir.global private @buf() {addr_space = 1 : i32} : !llvm.array<16 x f32> {
    %0 = llvm.mlir.zero : !llvm.array<16 x f32>
    llvm.return %0 : !llvm.array<16 x f32>
  }
  llvm.mlir.global internal @wg() {addr_space = 3 : i32} : !llvm.array<64 x i32>
  llvm.mlir.global external constant @__builtin_var_GlobalInvocationId__() {addr_space = 0 : i32} : vector<3xi32>
  llvm.mlir.global internal @sz(42 : i32) {addr_space = 0 : i32} : i32
  llvm.func spir_funccc @_Z22__spirv_ControlBarrieriii(i32, i32, i32) attributes {convergent, no_unwind, will_return}
  llvm.func @decl(f32) -> f32
  llvm.func internal @callee(%arg0: f32) -> f32 attributes {passthrough = ["nounwind", ["frame-pointer", "all"]]} {
    llvm.return %arg0 : f32
  }
  llvm.func @main(%arg0: !llvm.ptr, %arg1: i32, %arg2: f32, %arg3: vector<4xf32>, %arg4: !llvm.ptr<1>) -> f32 {
    %c0 = llvm.mlir.constant(0 : i32) : i32
    %c1 = llvm.mlir.constant(1 : index) : i64
    %cf = llvm.mlir.constant(1.500000e+00 : f32) : f32
    %cv = llvm.mlir.constant(dense<0.000000e+00> : vector<4xf32>) : vector<4xf32>
    %t = llvm.mlir.constant(true) : i1
    %u = llvm.mlir.undef : !llvm.struct<(i32, f32)>
    %pz = llvm.mlir.poison : f32
    %z = llvm.mlir.zero : !llvm.ptr
    %a = llvm.mlir.addressof @buf : !llvm.ptr<1>
    %wg = llvm.mlir.addressof @wg : !llvm.ptr<3>
    %g0 = llvm.getelementptr %arg0[0, 1] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(i32, f32)>
    %g1 = llvm.getelementptr inbounds %a[%arg1] : (!llvm.ptr<1>, i32) -> !llvm.ptr<1>, f32
    %g2 = llvm.getelementptr inbounds|nuw %arg0[0, %arg1] : (!llvm.ptr, i32) -> !llvm.ptr, !llvm.array<16 x f32>
    %l0 = llvm.load %g1 : !llvm.ptr<1> -> f32
    %l1 = llvm.load volatile %g0 {alignment = 4 : i64} : !llvm.ptr -> f32
    %l2 = llvm.load %g0 atomic acquire {alignment = 4 : i64} : !llvm.ptr -> f32
    %l3 = llvm.load %g0 {nontemporal} : !llvm.ptr -> f32
    llvm.store %l0, %g1 : f32, !llvm.ptr<1>
    llvm.store volatile %l1, %g0 {alignment = 4 : i64} : f32, !llvm.ptr
    llvm.store %l2, %g0 atomic release {alignment = 4 : i64} : f32, !llvm.ptr
    %al = llvm.alloca %c1 x f32 : (i64) -> !llvm.ptr
    %al2 = llvm.alloca %c1 x !llvm.array<4 x i32> {alignment = 16 : i64} : (i64) -> !llvm.ptr
    %r0 = llvm.call @decl(%l0) : (f32) -> f32
    %r1 = llvm.call spir_funccc @decl(%l0) {convergent, no_unwind, will_return} : (f32) -> f32
    llvm.call spir_funccc @_Z22__spirv_ControlBarrieriii(%c0, %c0, %c0) {convergent, no_unwind, will_return} : (i32, i32, i32) -> ()
    %r2 = llvm.call tail @decl(%l0) : (f32) -> f32
    %r3 = llvm.call @decl(%l0) {fastmathFlags = #llvm.fastmath<fast>} : (f32) -> f32
    %i0 = llvm.icmp "slt" %arg1, %c0 : i32
    %f0 = llvm.fcmp "oeq" %l0, %cf : f32
    %f1 = llvm.fcmp "une" %l0, %cf {fastmathFlags = #llvm.fastmath<nnan, ninf>} : f32
    %iv = llvm.insertvalue %arg1, %u[0] : !llvm.struct<(i32, f32)>
    %ev = llvm.extractvalue %iv[1] : !llvm.struct<(i32, f32)>
    %ie = llvm.insertelement %cf, %arg3[%c0 : i32] : vector<4xf32>
    %ee = llvm.extractelement %ie[%c0 : i32] : vector<4xf32>
    %sv = llvm.shufflevector %arg3, %arg3 [0, 1, 2, -1] : vector<4xf32>
    %sv2 = llvm.shufflevector %arg3, %arg3 [0, 1] : vector<4xf32>
    %rmw = llvm.atomicrmw add %wg, %arg1 seq_cst : !llvm.ptr<3>, i32
    %rmw2 = llvm.atomicrmw volatile umin %wg, %arg1 acq_rel {alignment = 4 : i64} : !llvm.ptr<3>, i32
    %rmw3 = llvm.atomicrmw fadd %g0, %cf monotonic : !llvm.ptr, f32
    %cx = llvm.cmpxchg %wg, %arg1, %c0 acq_rel monotonic : !llvm.ptr<3>, i32
    %cx2 = llvm.cmpxchg weak volatile %wg, %arg1, %c0 seq_cst seq_cst {alignment = 4 : i64} : !llvm.ptr<3>, i32
    %cxv = llvm.extractvalue %cx[0] : !llvm.struct<(i32, i1)>
    llvm.fence acq_rel
    llvm.fence syncscope("workgroup") seq_cst
    %rmw4 = llvm.atomicrmw xchg %wg, %arg1 syncscope("agent") seq_cst : !llvm.ptr<3>, i32
    llvm.cond_br %i0, ^bb1(%l0 : f32), ^bb2
  ^bb1(%x: f32):
    llvm.br ^bb3(%x, %arg1 : f32, i32)
  ^bb2:
    llvm.switch %arg1 : i32, ^bb3(%cf, %c0 : f32, i32) [
      1: ^bb3(%l1, %c0 : f32, i32),
      5: ^bb4
    ]
  ^bb3(%y: f32, %k: i32):
    llvm.return %y : f32
  ^bb4:
    llvm.unreachable
  }
}
