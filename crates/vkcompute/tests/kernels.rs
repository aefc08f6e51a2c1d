//! The semantics suite compiled by glslang's HLSL mode and run on lavapipe: it proves the
//! harness and the Rust expectations (glslang is an independent compiler). Kernels glslang
//! cannot compile, or compiles differently from dxc, are listed with the reason; the test
//! fails when that list no longer describes the run.

mod common;

use spirvkit_vkcompute::suite::{self, Compiler, Config, Outcome};

/// Where glslang departs from HLSL (each kernel is valid HLSL for dxc): the kernel, why,
/// and the output words (binding, word index) the departure may change. Every other word
/// of these kernels must still match, so the harness is proven on them too.
struct Deviation {
    kernel: &'static str,
    why: &'static str,
    may_differ: fn(u32, usize) -> bool,
}

const GLSLANG_DEVIATIONS: &[Deviation] = &[
    Deviation {
        kernel: "int_arith",
        why: "glslang lowers int % to OpSMod (floored); HLSL truncates (dxc: OpSRem). \
              lavapipe (Mesa 22.3) computes OpSMod as a truncating remainder except by a constant power of two, so only `a % 4` shows it",
        may_differ: |_, word| word % 17 == 16,
    },
    Deviation {
        kernel: "float_arith",
        why: "glslang lowers fmod and float % to OpFMod (sign of the divisor); HLSL's result takes the dividend's sign (dxc: OpFRem)",
        may_differ: |_, word| matches!(word % 16, 4 | 5),
    },
    Deviation {
        kernel: "switch",
        why: "glslang lowers int % to OpSMod (floored); HLSL truncates (dxc: OpSRem); the switch selector is (i + n) % 4",
        may_differ: |_, word| word % 2 == 1,
    },
    Deviation {
        kernel: "logic_shortcircuit",
        why: "glslang evaluates both sides of && || ?: (HLSL 2018 rules); HLSL 2021, dxc's default, short-circuits scalars",
        may_differ: |_, word| word % 5 == 1,
    },
    Deviation {
        kernel: "append_consume",
        why: "glslang ignores [[vk::counter_binding]] and puts both counters at binding 0, aliasing the append buffer; \
              this kernel is not proven by glslang",
        may_differ: |_, _| true,
    },
    Deviation {
        kernel: "wave_arith",
        why: "glslang lowers WavePrefixSum/WavePrefixProduct to InclusiveScan; HLSL's prefix operations are exclusive (dxc: ExclusiveScan)",
        may_differ: |_, word| matches!(word % 9, 3 | 8),
    },
    Deviation {
        kernel: "byteaddress",
        why: "glslang's ByteAddressBuffer.GetDimensions gives the size in words; HLSL gives bytes (dxc multiplies OpArrayLength by 4)",
        may_differ: |_, word| word == 89,
    },
    Deviation {
        kernel: "cbuffer_params",
        why: "glslang ignores row_major on a member of a ConstantBuffer<T> struct (decorates it as column_major)",
        // Out[i * 4 + 2] (weights + rows) and the first two components of Out[i * 4 + 3].
        may_differ: |_, word| matches!(word % 16, 8..=13),
    },
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
        let known = GLSLANG_DEVIATIONS.iter().find(|d| d.kernel == result.name);
        match (&result.outcome, known) {
            (Outcome::Matched, None) | (Outcome::Skipped(_), _) => {}
            (Outcome::Matched, Some(_)) => {
                unexpected.push(format!("{} now matches: drop it from GLSLANG_DEVIATIONS", result.name))
            }
            (Outcome::Mismatch(differences), Some(deviation)) => {
                let outside: Vec<String> = differences
                    .iter()
                    .filter(|d| !(deviation.may_differ)(d.binding, d.word))
                    .map(|d| d.to_string())
                    .collect();
                if !outside.is_empty() {
                    unexpected.push(format!(
                        "{} differs beyond its known deviation ({}): {}",
                        result.name,
                        deviation.why,
                        outside.join("; ")
                    ));
                }
            }
            (outcome, _) => unexpected.push(format!("{}: {outcome:?}", result.name)),
        }
    }
    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
}
