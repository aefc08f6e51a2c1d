//! The semantics suite compiled by glslang's HLSL mode and run on lavapipe: it proves the
//! harness and the Rust expectations (glslang is an independent compiler). Kernels glslang
//! cannot compile, or compiles differently from dxc, are listed with the reason; the test
//! fails when that list no longer describes the run.

mod common;

use spirvkit_vkcompute::suite::{self, Compiler, Config, Outcome};

/// Kernels glslang gets wrong or cannot compile, with why (each is valid HLSL for dxc).
const GLSLANG_DEVIATIONS: &[(&str, &str)] = &[
    ("float_arith", "glslang lowers fmod and float % to OpFMod (sign of the divisor); HLSL's result takes the dividend's sign (dxc: OpFRem)"),
    ("switch", "glslang lowers int % to OpSMod (floored); HLSL truncates (dxc: OpSRem)"),
    ("logic_shortcircuit", "glslang evaluates both sides of && || ?: (HLSL 2018); HLSL 2021, dxc's default, short-circuits scalars"),
    ("wave_arith", "glslang lowers WavePrefixSum/WavePrefixProduct to InclusiveScan; HLSL's prefix operations are exclusive (dxc: ExclusiveScan)"),
    ("byteaddress", "glslang's ByteAddressBuffer.GetDimensions gives the size in words; HLSL gives bytes (dxc multiplies OpArrayLength by 4)"),
    ("cbuffer_params", "glslang ignores row_major on a member of a ConstantBuffer<T> struct (decorates it as column_major)"),
];

#[test]
fn glslang_compiled_kernels_match_their_expectations() {
    let context = match common::context() {
        Ok(context) => context,
        Err(reason) => {
            eprintln!("skipping: {reason}");
            return;
        }
    };
    let Some(glslang) = common::glslang() else {
        eprintln!("skipping: glslangValidator is not installed");
        return;
    };
    let config = Config {
        compiler: Compiler::Glslang(glslang),
        spirv_val: common::spirv_val(),
        scratch: common::scratch("glslang"),
        filter: None,
    };
    let context = context.lock().unwrap_or_else(|e| e.into_inner());
    let results = suite::run(&context, &config).expect("scratch directory");
    let _ = std::fs::remove_dir_all(&config.scratch);
    println!("device: {} ({})", context.info().name, context.info().driver);
    println!("{}", suite::table(&results));
    assert!(results.len() >= 20);
    let mut unexpected = Vec::new();
    for result in &results {
        let known = GLSLANG_DEVIATIONS.iter().find(|(name, _)| *name == result.name);
        match (&result.outcome, known) {
            (Outcome::Matched, None) | (Outcome::Skipped(_), _) => {}
            (Outcome::Matched, Some(_)) => {
                unexpected.push(format!("{} now matches: drop it from GLSLANG_DEVIATIONS", result.name))
            }
            (outcome, None) => unexpected.push(format!("{}: {outcome:?}", result.name)),
            (_, Some(_)) => {}
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
