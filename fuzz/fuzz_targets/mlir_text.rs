//! MLIR text -> parser -> verifier -> printer (custom and generic forms), through
//! the `opt` driver with split files and expected diagnostics: never a panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_ir::opt::{run, OptOptions};

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else { return };
    for generic in [false, true] {
        let options = OptOptions { split_input_file: true, verify_diagnostics: !generic, generic, ..OptOptions::default() };
        let _ = run(text, "fuzz.mlir", &options);
    }
});
