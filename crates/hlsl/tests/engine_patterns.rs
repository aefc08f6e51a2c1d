//! Patterns from real engines' shaders (Wicked Engine's) that dxc accepts: each test
//! is one class of construct, written small, with what dxc does around it.

mod common;

use spirvkit_hlsl::frontend::{Frontend, FrontendOptions};
use spirvkit_hlsl::sema::tree::Callee;

fn analyze(text: &str) -> Frontend {
    common::analyze(text, &FrontendOptions::default())
}

/// Accepted with no diagnostic at all (no warning dxc would not give either).
fn clean(text: &str) -> Frontend {
    common::clean(analyze(text))
}

fn rejected(text: &str) -> String {
    common::with_errors(analyze(text), text)
}

#[test]
fn function_templates_are_instantiated_only_when_chosen() {
    // A one-parameter template beside three-parameter overloads: the template is
    // never viable for three arguments, so its body (`v.y` on a float) is not checked.
    let fe = clean(
        "template<typename T> float max3(T v) { return max(max(v.x, v.y), v.z); }\n\
         float max3(float a, float b, float c) { return max(max(a, b), c); }\n\
         float f(float3 v) { return max3(v.x, v.y, v.z) + max3(v); }\n",
    );
    let tree = fe.typed.as_ref().unwrap();
    assert_eq!(tree.instantiations.len(), 1, "only max3<float3> is instantiated");
    let functions = tree.calls.values().filter(|c| matches!(c.callee, Callee::Function(_))).count();
    assert_eq!(functions, 2);
}

#[test]
fn a_chosen_template_with_a_bad_body_is_still_an_error() {
    let text = rejected(
        "template<typename T> float second(T v) { return v.y; }\n\
         float f(float x) { return second(x); }\n",
    );
    assert!(text.contains("vector swizzle 'y' is out of bounds"), "{text}");
}

#[test]
fn explicit_template_arguments_that_do_not_fit_drop_the_candidate() {
    // Too many explicit arguments: not viable, no diagnostic of its own; the
    // non-template overload is chosen.
    clean(
        "template<typename T> float g(T v) { return v; }\n\
         float g(float v) { return v * 2; }\n\
         float f() { return g(1.0f) + g<float>(2.0f); }\n",
    );
    let text = rejected(
        "template<typename T> float g(T v) { return v; }\n\
         float f() { return g<float, int>(2.0f); }\n",
    );
    assert!(text.contains("no matching function for call to 'g'"), "{text}");
}

#[test]
fn a_signature_that_does_not_resolve_drops_the_candidate() {
    // `float::Inner` does not exist: substitution fails, silently (SFINAE).
    clean(
        "struct Box { typedef float Inner; Inner v; };\n\
         template<typename T> typename T::Inner get(T b) { return b.v; }\n\
         float get(float x) { return x; }\n\
         float f(Box b) { return get(b) + get(1.0f); }\n",
    );
    let text = rejected(
        "struct Box { typedef float Inner; Inner v; };\n\
         template<typename T> typename T::Inner get(T b) { return b.v; }\n\
         float f() { return get(1.0f); }\n",
    );
    assert!(text.contains("no matching function for call to 'get'") && text.contains("1 error"), "{text}");
    // A declaration dxc refuses for what it is, not for a type that fails to
    // resolve, is still reported.
    let text = rejected(
        "template<typename T> float get(T t) { return 0; }\n\
         [numthreads(1, 1, 1)] void main() { get(ResourceDescriptorHeap); }\n",
    );
    assert!(text.contains("Resource/sampler heaps are not allowed as function parameters."), "{text}");
}

#[test]
fn floating_point_indices_convert_to_uint() {
    // dxc casts a float array index to `uint` with no diagnostic (not even under
    // -Wconversion); vectors and matrices take it as their `uint` parameter.
    let fe = clean(
        "static const float3 table[3] = { float3(1, 0, 0), float3(0, 1, 0), float3(0, 0, 1) };\n\
         float3 f(float l, float4 v, float2x2 m) {\n\
         float3 a = table[floor(l)]; float3 b = table[ceil(l) + 0.5];\n\
         return a + b + v[l] + m[l].x + table[1.0].x; }\n",
    );
    let dump = fe.dump();
    assert!(dump.contains("'uint'"), "{dump}");
    // Only numbers index: a vector or a struct is still refused.
    let text = rejected("float f(float2 i) { float a[2] = { 1, 2 }; return a[i]; }\n");
    assert!(text.contains("array subscript is not an integer"), "{text}");
}

#[test]
fn interlocked_destinations_in_memory_are_scalars() {
    // A `uint` member of a structured buffer element, a vector component of one, a
    // groupshared struct member and array element: all scalars in memory.
    clean(
        "struct Counter { uint count; float weight; uint2 pair; };\n\
         RWStructuredBuffer<Counter> counters;\n\
         RWStructuredBuffer<uint4> quads;\n\
         groupshared Counter shared_counter;\n\
         groupshared uint shared_bins[8];\n\
         [numthreads(8, 1, 1)] void main(uint i : SV_GroupIndex) {\n\
         uint before;\n\
         InterlockedAdd(counters[i].count, 1, before);\n\
         InterlockedMax(counters[i].pair.y, before);\n\
         InterlockedAdd(quads[i].z, 2);\n\
         InterlockedOr(shared_counter.count, 4);\n\
         InterlockedAdd(shared_bins[i], 1);\n\
         }\n",
    );
    // A component of a vector texel of a typed UAV is still refused, as dxc does.
    for object in ["RWTexture2D<uint2>", "RWBuffer<uint4>"] {
        let text = rejected(&format!(
            "{object} target;\n\
             [numthreads(1, 1, 1)] void main() {{ InterlockedAdd(target[0].x, 1); }}\n"
        ));
        assert!(
            text.contains("Interlocked operation for texture buffer whose result type is non-scalar type is not allowed"),
            "{text}"
        );
    }
}

#[test]
fn unsized_arrays_take_their_length_from_flattened_initializers() {
    // HLSL flattens initializer lists: length = scalars / scalars per element,
    // whether the elements are braced, constructed or spelled flat.
    let fe = clean(
        "static const float3 braced[] = { { 0.2, -0.1, 1.0 }, { -0.2, 0.1, 1.0 }, { 1, 2, 3 }, { 4, 5, 6 } };\n\
         static const float2 mixed[] = { float2(1, 2), { 3, 4 }, 5, 6 };\n\
         static const float grid[][2] = { { 1, 2 }, { 3, 4 }, { 5, 6 } };\n\
         static const uint flat[] = { 1, 2, 3 };\n\
         float f() { return braced[3].x + mixed[2].y + grid[2][1] + flat[2]; }\n",
    );
    let dump = fe.dump();
    for (name, ty) in
        [("braced", "float3[4]"), ("mixed", "float2[3]"), ("grid", "float[3][2]"), ("flat", "uint[3]")]
    {
        let line = dump.lines().find(|l| l.contains(&format!(" {name} "))).expect("declaration dumped");
        assert!(line.contains(&format!(": '{ty}'")), "{name} should be {ty}: {line}");
    }
}
