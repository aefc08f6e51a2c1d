//! JIT handwritten LLVM IR and call it.

use std::sync::atomic::{AtomicI64, Ordering};

use spirvkit_jit::{Jit, JitError};

fn jit() -> Jit {
    Jit::new().expect("host target")
}

#[test]
fn adds_two_integers() {
    let ir = "define i32 @add(i32 %a, i32 %b) {\n  %s = add i32 %a, %b\n  ret i32 %s\n}\n";
    let module = jit().compile(ir, &[]).unwrap();
    let address = module.address("add").expect("add is defined");
    // SAFETY: @add has exactly this signature.
    let add: extern "C" fn(i32, i32) -> i32 = unsafe { std::mem::transmute(address) };
    assert_eq!(add(40, 2), 42);
    assert_eq!(add(-7, 3), -4);
    assert_eq!(module.address("missing"), None);
}

const SCALE_LOOP: &str = r#"
define void @scale(ptr noalias %out, ptr noalias %in, i64 %n, float %k) {
entry:
  %empty = icmp eq i64 %n, 0
  br i1 %empty, label %done, label %loop
loop:
  %i = phi i64 [ 0, %entry ], [ %next, %loop ]
  %src = getelementptr inbounds float, ptr %in, i64 %i
  %x = load float, ptr %src, align 4
  %y = fmul float %x, %k
  %dst = getelementptr inbounds float, ptr %out, i64 %i
  store float %y, ptr %dst, align 4
  %next = add nuw i64 %i, 1
  %end = icmp eq i64 %next, %n
  br i1 %end, label %done, label %loop
done:
  ret void
}
"#;

#[test]
fn runs_a_loop_over_a_buffer() {
    let module = jit().compile(SCALE_LOOP, &[]).unwrap();
    // SAFETY: @scale has exactly this signature.
    let scale: extern "C" fn(*mut f32, *const f32, u64, f32) =
        unsafe { std::mem::transmute(module.address("scale").unwrap()) };
    let input: Vec<f32> = (0..1003).map(|i| i as f32).collect();
    let mut output = vec![0.0f32; input.len()];
    scale(output.as_mut_ptr(), input.as_ptr(), input.len() as u64, 2.5);
    for (i, value) in output.iter().enumerate() {
        assert_eq!(*value, i as f32 * 2.5);
    }
}

#[test]
fn optimized_ir_is_vectorized_for_the_host() {
    let jit = jit();
    let optimized = jit.optimized_ir(SCALE_LOOP).unwrap();
    assert!(optimized.contains("define void @scale"), "{optimized}");
    assert!(optimized.contains(jit.triple()), "{optimized}");
    // x86-64 always has SSE2: the loop vectorizer must use at least 4 lanes.
    if jit.triple().starts_with("x86_64") {
        assert!(optimized.contains("x float>"), "{optimized}");
    }
}

static TOTAL: AtomicI64 = AtomicI64::new(0);

extern "C" fn host_accumulate(value: i64) -> i64 {
    TOTAL.fetch_add(value, Ordering::SeqCst) + value
}

#[test]
fn calls_a_host_symbol() {
    let ir = r#"
declare i64 @runtime_accumulate(i64)
define i64 @twice(i64 %v) {
  %a = call i64 @runtime_accumulate(i64 %v)
  %b = call i64 @runtime_accumulate(i64 %v)
  ret i64 %b
}
"#;
    let module = jit().compile(ir, &[("runtime_accumulate", host_accumulate as *const () as usize)]).unwrap();
    // SAFETY: @twice has exactly this signature.
    let twice: extern "C" fn(i64) -> i64 = unsafe { std::mem::transmute(module.address("twice").unwrap()) };
    let before = TOTAL.load(Ordering::SeqCst);
    assert_eq!(twice(21), before + 42);
}

#[test]
fn calls_libm_through_an_intrinsic() {
    let ir = r#"
declare float @llvm.sin.f32(float)
define float @sine(float %x) {
  %s = call float @llvm.sin.f32(float %x)
  ret float %s
}
"#;
    let module = jit().compile(ir, &[]).unwrap();
    // SAFETY: @sine has exactly this signature.
    let sine: extern "C" fn(f32) -> f32 = unsafe { std::mem::transmute(module.address("sine").unwrap()) };
    assert!((sine(1.0) - 1.0f32.sin()).abs() < 1e-6);
}

#[test]
fn globals_are_visible() {
    let ir = "@counter = global i32 7\ndefine i32 @get() {\n  %v = load i32, ptr @counter\n  ret i32 %v\n}\n";
    let module = jit().compile(ir, &[]).unwrap();
    let counter = module.address("counter").unwrap() as *const i32;
    // SAFETY: @counter is an i32 global of the live module.
    assert_eq!(unsafe { *counter }, 7);
}

#[test]
fn malformed_text_is_a_parse_error() {
    let error = jit().compile("define i32 @f( {", &[]).unwrap_err();
    assert!(matches!(error, JitError::Parse(_)), "{error}");
    let error = jit().compile("\0\u{1}garbage", &[]).unwrap_err();
    assert!(matches!(error, JitError::Parse(_)), "{error}");
}

#[test]
fn invalid_module_is_a_verifier_error() {
    // Parses (the parser checks types) but the verifier rejects a block without a
    // terminator reached by a use before its definition.
    let ir = "define i32 @f(i32 %a) {\nentry:\n  %b = add i32 %c, 1\n  %c = add i32 %a, 1\n  ret i32 %b\n}\n";
    let error = jit().compile(ir, &[]).unwrap_err();
    assert!(matches!(error, JitError::Verify(_)), "{error}");
    assert!(error.to_string().contains("dominate"), "{error}");
}

#[test]
fn undefined_external_is_a_link_error() {
    let ir = "declare void @not_provided()\ndefine void @f() {\n  call void @not_provided()\n  ret void\n}\n";
    let error = jit().compile(ir, &[]).unwrap_err();
    assert!(matches!(error, JitError::Link { .. }), "{error}");
    assert!(error.to_string().contains("not_provided"), "{error}");
}

#[test]
fn process_functions_outside_the_allow_list_are_unreachable() {
    let ir = "declare i32 @getpid()\ndefine i32 @f() {\n  %p = call i32 @getpid()\n  ret i32 %p\n}\n";
    let error = jit().compile(ir, &[]).unwrap_err();
    assert!(matches!(error, JitError::Link { .. }), "{error}");
}

#[test]
fn compiles_on_several_threads() {
    let jit = jit();
    std::thread::scope(|scope| {
        for k in 0..2 {
            let jit = &jit;
            scope.spawn(move || {
                let ir = format!("define i32 @k() {{\n  ret i32 {k}\n}}\n");
                let module = jit.compile(&ir, &[]).unwrap();
                // SAFETY: @k has exactly this signature.
                let f: extern "C" fn() -> i32 = unsafe { std::mem::transmute(module.address("k").unwrap()) };
                assert_eq!(f(), k);
            });
        }
    });
}
