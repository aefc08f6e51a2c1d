//! Bytes -> SPIR-V module -> the CPU runner's whole compile path without the JIT:
//! deserialize, spec/interface preparation, `-convert-spirv-to-llvm` with the kernel
//! options, the workgroup (kernel) pass and the LLVM IR writer. Never a panic, and every
//! LLVM module we write must be accepted by LLVM 22's parser and verifier.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_jit::Jit;

thread_local! {
    /// LLVM's verifier through the JIT crate; the pipeline only verifies (no O3), so
    /// each input stays cheap.
    static VERIFIER: Jit = Jit::new().expect("the host target initializes").with_pipeline("verify");
}

fuzz_target!(|data: &[u8]| {
    let Ok(words) = spirvkit_run::words_from_bytes(data) else { return };
    let Ok(reflection) = spirvkit_run::reflect(&words) else { return };
    for entry in reflection.entry_points.iter().filter(|e| e.is_compute()).take(2) {
        let Ok((text, _, _)) = spirvkit_jit::device::kernel_llvm_ir(&words, &entry.name, &[]) else {
            continue;
        };
        if let Err(e) = VERIFIER.with(|jit| jit.optimized_ir(&text)) {
            panic!("LLVM rejects the module we wrote for entry {}: {e}\n{text}", entry.name);
        }
    }
});
