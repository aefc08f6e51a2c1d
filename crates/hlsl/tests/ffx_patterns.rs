//! Patterns from AMD's FidelityFX shaders (FSR, CACAO, SSSR, SPD, parallel sort) that
//! dxc accepts, in their 16-bit (`-enable-16bit-types`) and 32-bit permutations. Each
//! test is one class of construct, written small, with what dxc does around it.

use spirvkit_hlsl::frontend::{analyze_source, Frontend, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;

fn analyze(text: &str, sixteen_bit: bool) -> Frontend {
    let mut options = FrontendOptions::default();
    options.sema.enable_16bit_types = sixteen_bit;
    analyze_source("t.hlsl", None, text.to_string(), &options, &MemoryLoader::default())
}

/// Accepted with no diagnostic at all (no warning dxc would not give either).
fn clean(text: &str, sixteen_bit: bool) -> Frontend {
    let fe = analyze(text, sixteen_bit);
    assert!(fe.diags.is_empty(), "unexpected diagnostics:\n{}", fe.render_diagnostics());
    fe
}

#[test]
fn constructor_elements_convert_without_the_narrowing_warning() {
    // dxc fits a constructor's arguments as an initializer list: `half2(f, f)` from
    // floats (FSR's 16-bit paths) and `float2(1, d)` from a double convert silently,
    // as `{ 1, d }` does.
    let text = "float f; double d;\n\
                half2 g() { return half2(f, f) + half3(float2(f, f), f).xy; }\n\
                float2 k() { float2 a = { 1, d }; return a + float2(1, d); }\n";
    clean(text, true);
    clean(text, false);
}

#[test]
fn assignments_that_narrow_still_warn() {
    // The warning stays where dxc gives it: an implicit conversion outside a list.
    let fe = analyze("float f; half g() { half h = f; return h; }\n", true);
    let text = fe.render_diagnostics();
    assert!(text.contains("conversion from larger type 'float' to smaller type 'half'"), "{text}");
    assert!(!fe.diags.has_errors(), "{text}");
}
