//! LLVM dialect (MLIR 22's generic form, as the SPIR-V conversion writes it) -> LLVM IR
//! text (`spirvkit_translate::to_llvm_ir`) -> machine code, called.

use std::sync::atomic::{AtomicU32, Ordering};

use spirvkit_jit::Jit;

/// `sum(ptr %data, i64 %n) -> f32`: the sum of the magnitudes (`llvm.intr.fabs`, an
/// intrinsic called by its unmangled name), a loop over block arguments; every element is also
/// counted through a call to a host function (the way barriers and group operations
/// reach the runtime).
const SUM: &str = r#""builtin.module"() ({
  "builtin.module"() <{sym_name = "kernel"}> ({
    "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<void (i32)>, linkage = #llvm.linkage<external>, sym_name = "host_count", visibility_ = 0 : i64}> ({
    }) : () -> ()
    "llvm.func"() <{CConv = #llvm.cconv<ccc>, function_type = !llvm.func<f32 (ptr, i64)>, linkage = #llvm.linkage<external>, sym_name = "sum", visibility_ = 0 : i64}> ({
    ^bb0(%data: !llvm.ptr, %n: i64):
      %zero = "llvm.mlir.constant"() <{value = 0 : i64}> : () -> i64
      %one = "llvm.mlir.constant"() <{value = 1 : i64}> : () -> i64
      %fzero = "llvm.mlir.constant"() <{value = 0.000000e+00 : f32}> : () -> f32
      "llvm.br"(%zero, %fzero)[^bb1] : (i64, f32) -> ()
    ^bb1(%i: i64, %acc: f32):
      %done = "llvm.icmp"(%i, %n) <{predicate = 5 : i64}> : (i64, i64) -> i1
      "llvm.cond_br"(%done, %acc)[^bb3, ^bb2] <{operandSegmentSizes = array<i32: 1, 1, 0>}> : (i1, f32) -> ()
    ^bb2:
      %p = "llvm.getelementptr"(%data, %i) <{elem_type = f32, noWrapFlags = 3 : i32, rawConstantIndices = array<i32: -2147483648>}> : (!llvm.ptr, i64) -> !llvm.ptr
      %x = "llvm.load"(%p) <{alignment = 4 : i64, ordering = 0 : i64}> : (!llvm.ptr) -> f32
      %magnitude = "llvm.intr.fabs"(%x) <{fastmathFlags = #llvm.fastmath<none>}> : (f32) -> f32
      %next_acc = "llvm.fadd"(%acc, %magnitude) <{fastmathFlags = #llvm.fastmath<none>}> : (f32, f32) -> f32
      %c1 = "llvm.mlir.constant"() <{value = 1 : i32}> : () -> i32
      "llvm.call"(%c1) <{CConv = #llvm.cconv<ccc>, TailCallKind = #llvm.tailcallkind<none>, callee = @host_count, fastmathFlags = #llvm.fastmath<none>, op_bundle_sizes = array<i32>, operandSegmentSizes = array<i32: 1, 0>}> : (i32) -> ()
      %next = "llvm.add"(%i, %one) <{overflowFlags = 0 : i32}> : (i64, i64) -> i64
      "llvm.br"(%next, %next_acc)[^bb1] : (i64, f32) -> ()
    ^bb3(%result: f32):
      "llvm.return"(%result) : (f32) -> ()
    }) : () -> ()
  }) : () -> ()
}) : () -> ()
"#;

static COUNTED: AtomicU32 = AtomicU32::new(0);

extern "C" fn host_count(amount: i32) {
    COUNTED.fetch_add(amount as u32, Ordering::SeqCst);
}

#[test]
fn llvm_dialect_runs_as_machine_code() {
    let (ir, top) = spirvkit_ir::parse(SUM, "sum.mlir").expect("parses");
    let llvm_ir = spirvkit_translate::to_llvm_ir(&ir, top).expect("translates");
    let jit = Jit::new().expect("host target");
    let module =
        jit.compile(&llvm_ir, &[("host_count", host_count as *const () as usize)]).expect("compiles");
    // SAFETY: @sum has exactly this signature.
    let sum: extern "C" fn(*const f32, i64) -> f32 =
        unsafe { std::mem::transmute(module.address("sum").expect("sum is defined")) };
    let data: Vec<f32> = (1..=100).map(|i| if i % 2 == 0 { i as f32 } else { -(i as f32) }).collect();
    assert_eq!(sum(data.as_ptr(), data.len() as i64), 5050.0);
    assert_eq!(COUNTED.load(Ordering::SeqCst), 100);
}
