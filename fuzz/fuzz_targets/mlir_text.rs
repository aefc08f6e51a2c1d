//! MLIR text -> parser -> verifier -> passes -> printer (custom and generic forms),
//! through the `opt` driver with split files and expected diagnostics: never a panic; and the
//! two-thread parse (forced at any size) gives the one-thread IR.
#![no_main]

use libfuzzer_sys::fuzz_target;
use spirvkit_passes::opt::{run, OptOptions};

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
        let options = OptOptions {
            split_input_file: true,
            verify_diagnostics: !generic,
            generic,
            passes,
            ..OptOptions::default()
        };
        let _ = run(text, "fuzz.mlir", &options);
    }
    // The two-thread parse, forced at this size, gives what one parse gives.
    if let Some((ir, top)) = spirvkit_ir::text::split_parse::parse_with_min_size(text, "fuzz.mlir", 0) {
        let (whole, whole_top) =
            spirvkit_ir::parse(text, "fuzz.mlir").expect("a text parsed in halves parses whole");
        let options = spirvkit_ir::PrintOptions { generic: true, debug_info: true, ..Default::default() };
        assert_eq!(spirvkit_ir::print(&ir, top, options), spirvkit_ir::print(&whole, whole_top, options));
    }
});
