//! MLIR text -> parser -> verifier -> passes -> printer (custom and generic forms),
//! through the `opt` driver with split files and expected diagnostics: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_ir::opt::{run, OptOptions};

/// Every implemented pass, run in one pipeline on the second iteration.
const PASSES: &[&str] = &[
    "-spirv-unify-aliased-resource",
    "--inline",
    "-spirv-lower-abi-attrs",
    "-decorate-spirv-composite-type-layout",
    "-spirv-rewrite-inserts",
    "-spirv-canonicalize-gl",
    "--spirv-webgpu-prepare",
    "--canonicalize",
    "--cse",
    "-spirv-update-vce",
    "-test-spirv-op-availability",
];

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for generic in [false, true] {
        let passes = if generic { PASSES.iter().map(|p| p.to_string()).collect() } else { Vec::new() };
        let options =
            OptOptions { split_input_file: true, verify_diagnostics: !generic, generic, passes, ..OptOptions::default() };
        let _ = run(text, "fuzz.mlir", &options);
    }
});
