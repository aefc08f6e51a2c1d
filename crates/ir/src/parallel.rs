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
        let thread = std::thread::Builder::new().spawn_scoped(scope, second).ok();
        let a = first();
        let b = thread.map(|t| t.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
        (a, b)
    })
}
