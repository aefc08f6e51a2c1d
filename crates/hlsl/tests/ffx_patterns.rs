//! Patterns from AMD's FidelityFX shaders (FSR, CACAO, SSSR, SPD, parallel sort) that
//! dxc accepts, in their 16-bit (`-enable-16bit-types`) and 32-bit permutations. Each
//! test is one class of construct, written small, with what dxc does around it.

mod common;

use spirvkit_hlsl::frontend::{Frontend, FrontendOptions};
use spirvkit_hlsl::sema::tree::Stage;

fn analyze(text: &str, sixteen_bit: bool) -> Frontend {
    let mut options = FrontendOptions::default();
    options.sema.enable_16bit_types = sixteen_bit;
    common::analyze(text, &options)
}

/// Accepted with no diagnostic at all (no warning dxc would not give either).
fn clean(text: &str, sixteen_bit: bool) -> Frontend {
    common::clean(analyze(text, sixteen_bit))
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

fn analyze_entry(text: &str, entry: &str) -> Frontend {
    let mut options = FrontendOptions::default();
    options.sema.stage = Some(Stage::Compute);
    options.sema.shader_model = (6, 2);
    options.sema.entry = Some(entry.to_string());
    common::analyze(text, &options)
}

#[test]
fn emitter_errors_apply_only_to_functions_the_entry_point_reaches() {
    // CACAO keeps a `LoadNormal(pos, offset)` that forwards its offset to `Load` but
    // calls it only from commented-out code: dxc emits no SPIR-V for it, so its
    // "immediate offset" error (a SPIR-V emitter error) never fires.
    let text = "Texture2D t : register(t0);\n\
                RWTexture2D<float4> o : register(u0);\n\
                float3 LoadNormal(int2 p, int2 offset) { return t.Load(int3(p, 0), offset).xyz; }\n\
                float3 Forward(int2 p) { return LoadNormal(p, int2(1, 0)); }\n\
                float3 Used(int2 p) { return t.Load(int3(p, 0), int2(1, 0)).xyz; }\n\
                [numthreads(8, 8, 1)] void Clean(uint2 id : SV_DispatchThreadID) { o[id] = float4(Used(id), 1); }\n\
                [numthreads(8, 8, 1)] void Reaches(uint2 id : SV_DispatchThreadID) { o[id] = float4(Forward(id), 1); }\n";
    let fe = analyze_entry(text, "Clean");
    assert!(fe.diags.is_empty(), "{}", fe.render_diagnostics());
    // Reached through a call chain, it is dxc's error again, at the offset.
    let fe = analyze_entry(text, "Reaches");
    let rendered = fe.render_diagnostics();
    assert!(rendered.contains("t.hlsl:3:"), "{rendered}");
    assert!(
        rendered.contains("Offsets to texture access operations must be immediate values."),
        "{rendered}"
    );
    // Without an entry point every function counts as reached.
    assert!(analyze(text, false).diags.has_errors());
}

#[test]
fn min_precision_spellings_warn_with_the_type_they_become() {
    // dxc's -Wconversion warning at each spelling (not at uses of a typedef of it):
    // under -enable-16bit-types every min-precision type is a real 16-bit type (the
    // SDK's own build notes the flood); without it only min10float and min12int are
    // promoted.
    let text = "typedef min16float MF;\n\
                MF f(MF a) { return a; }\n\
                min10float g(min12int i, min16uint u, min16int4 v) { return 1; }\n";
    let fe = analyze(text, true);
    let rendered = fe.render_diagnostics();
    for expected in [
        "t.hlsl:1:9: warning: 'min16float' is promoted to 'half'",
        "t.hlsl:3:1: warning: 'min10float' is promoted to 'half'",
        "t.hlsl:3:14: warning: 'min12int' is promoted to 'int16_t'",
        "t.hlsl:3:26: warning: 'min16uint' is promoted to 'uint16_t'",
        "t.hlsl:3:39: warning: 'min16int' is promoted to 'int16_t'",
    ] {
        assert!(rendered.contains(expected), "missing {expected}:\n{rendered}");
    }
    assert_eq!(rendered.matches("is promoted to").count(), 5, "{rendered}");
    let fe = analyze(text, false);
    let rendered = fe.render_diagnostics();
    assert!(rendered.contains("t.hlsl:3:1: warning: 'min10float' is promoted to 'min16float'"), "{rendered}");
    assert!(rendered.contains("t.hlsl:3:14: warning: 'min12int' is promoted to 'min16int'"), "{rendered}");
    assert_eq!(rendered.matches("is promoted to").count(), 2, "{rendered}");
    // min16float, min16int and min16uint stay as they are without 16-bit types.
    clean("min16float f(min16int i, min16uint u) { return i + u; }\n", false);
}
