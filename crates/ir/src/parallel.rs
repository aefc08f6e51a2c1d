//! Two pieces of work on two threads, for the paths that split a large module in
//! halves (parsing, verifying, deserializing, printing while verifying).

/// Runs `second` on a new thread and `first` on this one. The second result is
/// `None` when no thread could be started (callers then do that work another way);
/// a panic in `second` is carried on here.
pub fn both<'env, A, B: Send>(
    first: impl FnOnce() -> A,
    second: impl FnOnce() -> B + Send + 'env,
) -> (A, Option<B>) {
    std::thread::scope(|scope| {
        let thread = spirvkit_threads::spawn_scoped(scope, second).ok();
        let a = first();
        let b = thread.map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        (a, b)
    })
}

pub use spirvkit_threads::{cores, two_cores};

/// Whether work on an IR of `ops` ops is worth splitting over two threads: below
/// this, starting a thread costs about what it saves.
pub fn worth_two_threads(ops: usize) -> bool {
    ops >= MIN_OPS_FOR_TWO_THREADS && two_cores()
}

const MIN_OPS_FOR_TWO_THREADS: usize = 2048;

/// The `spirv.module` a two-thread path splits: `top` itself, or the only one in
/// `top`'s body.
pub fn spirv_module(ir: &crate::Ir, top: crate::OpId) -> Option<crate::OpId> {
    if ir.op(top).name == "spirv.module" {
        return Some(top);
    }
    let body = ir.entry_block(top)?;
    let mut modules = ir.block(body).ops.iter().copied().filter(|&op| ir.op(op).name == "spirv.module");
    let module = modules.next()?;
    modules.next().is_none().then_some(module)
}
