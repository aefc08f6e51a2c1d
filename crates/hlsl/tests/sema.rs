//! Semantic analysis through the public front end: types, resolutions, chosen
//! overloads in the typed tree and its dump; dxc's diagnostics; limits.

use spirvkit_hlsl::ast::{DeclKind, ExprKind, StmtKind};
use spirvkit_hlsl::frontend::{analyze_source, Frontend, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;
use spirvkit_hlsl::sema::tree::{Callee, GlobalStorage, Resolution, Stage};

fn analyze_with(text: &str, stage: Option<Stage>) -> Frontend {
    let mut options = FrontendOptions::default();
    options.sema.stage = stage;
    analyze_source("t.hlsl", None, text.to_string(), &options, &MemoryLoader::default())
}

fn ok(text: &str) -> Frontend {
    let fe = analyze_with(text, None);
    assert!(!fe.diags.has_errors(), "unexpected errors:\n{}", fe.render_diagnostics());
    fe
}

fn errors(text: &str, stage: Option<Stage>) -> String {
    let fe = analyze_with(text, stage);
    assert!(fe.diags.has_errors(), "expected errors for:\n{text}");
    fe.render_diagnostics()
}

#[test]
fn typed_dump_shows_types_resolutions_and_overloads() {
    let fe = ok("float3 n; float f(float3 a, float3 b) { return dot(a, b) + n.x; }\n\
                 float4 g() { return f(n, 1) * float4(1, 2, 3, 4); }\n");
    let dump = fe.dump();
    assert!(dump.contains("call intrinsic dot '(float3, float3) -> float'"), "{dump}");
    assert!(dump.contains("-> Var"), "{dump}");
    assert!(dump.contains("swizzle(0)"), "{dump}");
    assert!(dump.contains("<Splat 'float3'>"), "{dump}");
    assert!(dump.contains("call Function"), "{dump}");
    assert!(dump.contains("storage=Globals"), "{dump}");
}

#[test]
fn every_expression_of_a_function_gets_a_type() {
    let fe = ok("int x; float4 tex_color(Texture2D<float4> t, SamplerState s, float2 uv) {\n\
                 float4 c = t.Sample(s, uv, int2(1, 1)); c.xy += uv * x; return c; }\n");
    let tree = fe.typed.as_ref().expect("typed tree");
    let sample = tree
        .calls
        .values()
        .find(|c| matches!(c.callee, Callee::ObjectMethod { name: "Sample", .. }))
        .expect("Sample resolved");
    assert_eq!(tree.types.display(sample.ret), "float4");
    assert_eq!(sample.params.len(), 3);
    // Every expression has a non-error type (callees of method calls are resolved
    // through their call instead).
    let callees: Vec<usize> = tree
        .ast
        .exprs
        .iter()
        .filter_map(|e| match &e.kind {
            ExprKind::Call { callee, .. } => Some(callee.index()),
            _ => None,
        })
        .collect();
    let errors = tree
        .exprs
        .iter()
        .enumerate()
        .filter(|(i, e)| tree.types.is_error(e.ty) && !callees.contains(i))
        .count();
    assert_eq!(errors, 0, "{}", fe.dump());
}

#[test]
fn overloads_rank_by_conversion_cost() {
    let fe = ok("int f(int a) { return a; } float f(float a) { return a; }\n\
                 void g() { float x = f(1.5); int y = f(2); uint z = f(3u); }\n");
    let tree = fe.typed.as_ref().unwrap();
    let ast = &tree.ast;
    let mut chosen = Vec::new();
    for (id, call) in &tree.calls {
        if let Callee::Function(d) = call.callee {
            if let DeclKind::Function(_) = &ast.decl(d).kind {
                chosen.push((id.0, tree.types.display(call.ret)));
            }
        }
    }
    chosen.sort();
    let rets: Vec<&str> = chosen.iter().map(|(_, r)| r.as_str()).collect();
    assert_eq!(rets, ["float", "int", "int"]);
}

#[test]
fn globals_storage_and_constants() {
    let fe = ok("static const int N = 2 * 3; float a[N]; groupshared float s[4];\n\
                 Texture2D t; cbuffer C { float4 v; }; [[vk::push_constant]] struct P { float x; } p;\n");
    let tree = fe.typed.as_ref().unwrap();
    let ast = &tree.ast;
    let storage = |name: &str| {
        ast.decls
            .iter()
            .enumerate()
            .find(|(_, d)| matches!(&d.kind, DeclKind::Var(v) if v.name.is_some_and(|n| ast.name(n.name) == name)))
            .and_then(|(i, _)| tree.decls[i].storage)
    };
    assert_eq!(storage("N"), Some(GlobalStorage::Static));
    assert_eq!(storage("a"), Some(GlobalStorage::Globals));
    assert_eq!(storage("s"), Some(GlobalStorage::GroupShared));
    assert_eq!(storage("t"), Some(GlobalStorage::Resource));
    assert!(matches!(storage("v"), Some(GlobalStorage::Buffer(_))));
    assert_eq!(storage("p"), Some(GlobalStorage::PushConstant));
    assert!(fe.dump().contains("'float[6]'"), "{}", fe.dump());
}

#[test]
fn templates_instantiate_per_argument_list() {
    let fe = ok("template<typename T> T twice(T v) { return v + v; }\n\
                 template<typename T, int N> struct Arr { T data[N]; T get(int i) { return data[i]; } };\n\
                 void g() { float a = twice(1.0f); int b = twice(2); Arr<half, 3> x; half h = x.get(1); }\n");
    let tree = fe.typed.as_ref().unwrap();
    assert_eq!(tree.instantiations.len(), 3);
    let dump = fe.dump();
    assert!(dump.contains("Instantiation <float>"), "{dump}");
    assert!(dump.contains("Instantiation <half, Int(3)>"), "{dump}");
    assert!(dump.contains("'half[3]'"), "{dump}");
}

#[test]
fn names_resolve_through_namespaces_structs_and_enums() {
    let fe = ok("namespace A { namespace B { static const int K = 3; } }\n\
                 using namespace A;\n\
                 enum class Color { Red, Green = 5, Blue };\n\
                 enum Plain { One = 1 };\n\
                 struct Base { float b; float get() { return b; } };\n\
                 struct D : Base { float d; float sum() { return get() + d + b; } };\n\
                 int f() { D x; return B::K + (int)Color::Blue + One + (int)x.sum(); }\n");
    let tree = fe.typed.as_ref().unwrap();
    let constants: Vec<i64> = tree.exprs.iter().filter_map(|e| e.constant.and_then(|c| c.as_int())).collect();
    assert!(constants.contains(&3) && constants.contains(&6) && constants.contains(&1), "{constants:?}");
    let fields = tree.exprs.iter().filter(|e| matches!(e.resolution, Resolution::Field { .. })).count();
    assert!(fields >= 3);
}

#[test]
fn truncation_warns_with_dxcs_text() {
    let fe = ok("float3 f(float4 v) { return v; }\n");
    let text = fe.render_diagnostics();
    assert!(text.contains("warning: implicit truncation of vector type [-Wconversion]"), "{text}");
}

#[test]
fn narrowing_warns_with_dxcs_text() {
    let fe = ok("float f(double d) { return d; }\nfloat g(int i, float x) { return i + x; }\n\
                 double h(double d) { return ddx(d); }\n");
    let text = fe.render_diagnostics();
    assert_eq!(
        text.matches("warning: conversion from larger type 'double' to smaller type 'float', possible loss of data [-Wconversion]")
            .count(),
        2,
        "{text}"
    );
    // Same-width conversions and literals do not warn.
    assert!(!text.contains("'int'"), "{text}");
    let fe = ok("float f() { half h = 1.0; float g = 2.0; return g + h; }\n");
    assert_eq!(fe.render_diagnostics(), "");
}

#[test]
fn dxc_error_texts() {
    let cases: &[(&str, Option<Stage>, &str)] = &[
        ("float f() { return y; }", None, "use of undeclared identifier 'y'"),
        (
            "groupshared float g; void f() { InterlockedAdd(g, 1); }",
            None,
            "no matching function for call to 'InterlockedAdd'",
        ),
        (
            "struct S { float4 c; }; float4 f(S s) { return s; }",
            None,
            "cannot initialize return object of type 'float4' with an lvalue of type 'S'",
        ),
        (
            "void main() {}",
            Some(Stage::Compute),
            "compute entry point must have a valid numthreads attribute",
        ),
        (
            "[numthreads(1,1,1)] void main() { discard; }",
            Some(Stage::Compute),
            "discard statement may only be used in pixel shaders",
        ),
        (
            "void f() { const int c = 1; c = 2; }",
            None,
            "cannot assign to variable 'c' with const-qualified type 'const int'",
        ),
        (
            "void f() { float2 v; v.xx = 1; }",
            None,
            "vector is not assignable (contains duplicate components)",
        ),
        (
            "float4 f() { return float4(1, 2, 3); }",
            None,
            "too few elements in vector initialization (expected 4 elements, have 3)",
        ),
        ("void f() { int a[2] = { 1, 2, 3 }; }", None, "too many initializers in list for type 'int[2]'"),
        ("void f() { float2 v; v.z = 0; }", None, "vector swizzle 'z' is out of bounds"),
        (
            "RWBuffer<half> a; struct S { float a; }; RWBuffer<S> b;",
            None,
            "elements of typed buffers and textures must be scalars or vectors",
        ),
    ];
    for (text, stage, message) in cases {
        let rendered = errors(text, *stage);
        assert!(rendered.contains(message), "{text}\nwanted: {message}\ngot:\n{rendered}");
    }
}

#[test]
fn one_mistake_is_reported_once() {
    let rendered = errors("float f() { float x = undefined_thing; return x * 2 + dot(x, x) + x.x; }", None);
    assert_eq!(rendered.matches("error:").count(), 1, "{rendered}");
}

#[test]
fn entry_point_and_mesh_checks() {
    let fe = analyze_with(
        "[numthreads(8, 4, 1)] void main(uint3 id : SV_DispatchThreadID) {}",
        Some(Stage::Compute),
    );
    let tree = fe.typed.as_ref().unwrap();
    assert_eq!(tree.entry_points.len(), 1);
    assert_eq!(tree.entry_points[0].numthreads, Some([8, 4, 1]));
    let rendered = errors(
        "struct V { float4 p : SV_Position; };\n[outputtopology(\"triangle\")] [numthreads(1,1,1)]\n\
         void main(out vertices V v[3], out indices uint2 i[1]) {}",
        Some(Stage::Mesh),
    );
    assert!(rendered.contains("expected 1D array of uint3 type"), "{rendered}");
    let rendered = errors("float4 main(int a : A, int b : A) : SV_Target { return 0; }", Some(Stage::Pixel));
    assert!(rendered.contains("input semantic 'A' used more than once"), "{rendered}");
}

#[test]
fn operator_overloads_and_struct_methods() {
    let fe = ok("struct N { float v; N operator+(N o) { N r; r.v = v + o.v; return r; } float operator[](int i) { return v; } };\n\
                 float f(N a, N b) { N c = a + b; return c[0]; }\n");
    let tree = fe.typed.as_ref().unwrap();
    let methods = tree.exprs.iter().filter(|e| matches!(e.resolution, Resolution::Method(_))).count();
    assert_eq!(methods, 2);
}

#[test]
fn deep_expressions_do_not_overflow() {
    // As deep as the parser allows, on a thread with the driver's stack size.
    let depth = 1000;
    let text = format!("float f() {{ return {}1{}; }}", "(".repeat(depth), ")".repeat(depth));
    let handle = std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let fe = analyze_with(&text, None);
            fe.diags.error_count()
        })
        .unwrap();
    let _ = handle.join().expect("no stack overflow");
}

#[test]
fn statements_keep_their_typed_conditions() {
    let fe = ok("void f(int n) { for (int i = 0; i < n; ++i) { if (i) { continue; } } switch (n) { case 1 + 1: break; } }\n");
    let tree = fe.typed.as_ref().unwrap();
    let ast = &tree.ast;
    // The `if (i)` condition converts int -> bool.
    let conversions = ast
        .stmts
        .iter()
        .filter_map(|s| match &s.kind {
            StmtKind::If { condition, .. } => Some(*condition),
            _ => None,
        })
        .filter_map(|c| tree.expr(c).and_then(|e| e.conversion))
        .count();
    assert_eq!(conversions, 1);
    let case_value = ast
        .exprs
        .iter()
        .enumerate()
        .find(|(_, e)| matches!(e.kind, ExprKind::Binary { op: spirvkit_hlsl::ast::BinaryOp::Add, .. }))
        .and_then(|(i, _)| tree.exprs[i].constant);
    assert_eq!(case_value.and_then(|c| c.as_int()), Some(2));
}

const HULL: &str = "struct CP { float4 p : POSITION; };\n\
                    struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\n\
                    PC Const(InputPatch<CP, IN> v, OutputPatch<CP, OUT> o) { return (PC)0; }\n\
                    [domain(\"tri\")] [partitioning(\"fractional_odd\")] TOPOLOGY\n\
                    [patchconstantfunc(\"Const\")] [outputcontrolpoints(4)]\n\
                    CP main(InputPatch<CP, 3> v, uint id : SV_OutputControlPointID) { return v[id]; }\n";

fn hull(input: &str, output: &str, topology: &str) -> Frontend {
    let text = HULL.replace("IN>", &format!("{input}>")).replace("OUT>", &format!("{output}>"));
    analyze_with(&text.replace("TOPOLOGY", topology), Some(Stage::Hull))
}

#[test]
fn hull_entry_attributes_and_patch_sizes() {
    let fe = hull("3", "4", "[outputtopology(\"triangle_cw\")]");
    assert!(!fe.diags.has_errors(), "{}", fe.render_diagnostics());
    let r = hull("3", "4", "").render_diagnostics();
    assert!(
        r.contains("t.hlsl:6:4: error: hull entry point must have a valid outputtopology attribute"),
        "{r}"
    );
    let r = hull("2", "5", "[outputtopology(\"triangle_cw\")]").render_diagnostics();
    assert!(
        r.contains("t.hlsl:3:4: error: Patch constant function's input patch input should have 3 elements, but has 2."),
        "{r}"
    );
    assert!(
        r.contains("t.hlsl:3:4: error: Patch constant function's output patch input should have 4 elements, but has 5."),
        "{r}"
    );
}

#[test]
fn nointerpolation_parameters_take_nointerpolation_arguments() {
    let text = "float f(nointerpolation float4 a) { return GetAttributeAtVertex(a, 1).x; }\n\
                float4 main(nointerpolation float4 n : N, float4 i : I) : SV_Target {\n\
                  return float4(f(n), f((i)), f(n), 0);\n}\n";
    let r = errors(text, Some(Stage::Pixel));
    assert!(
        r.contains("t.hlsl:3:23: error: parameter 0 of f must have a 'nointerpolation' attribute"),
        "{r}"
    );
    assert!(r.contains("1 error generated."), "{r}");
}

#[test]
fn array_returns_and_member_template_calls_through_aliases() {
    let fe = ok("int f()[2] { int a[2] = {1, 2}; return a; }\n\
                 struct S { template<int N> static int g(int x) { return x + N; } };\n\
                 int h() { int b[2] = f(); typedef S T; using U = S; return T::g<1>(b[0]) + U::g<2>(b[1]); }\n");
    let dump = fe.dump();
    assert!(dump.contains("call Function #1 'f' '() -> int[2]'"), "{dump}");
    assert!(dump.contains("'T::g<1>'"), "{dump}");
    assert!(dump.contains("'U::g<2>'"), "{dump}");
    let r = errors("int f()[2] { int a[3] = {1, 2, 3}; return a; }", None);
    assert!(
        r.contains("cannot initialize return object of type 'int[2]' with an lvalue of type 'int[3]'"),
        "{r}"
    );
}

#[test]
fn counters_of_buffer_arrays_in_structs() {
    let text = "ConsumeStructuredBuffer<int> a[2];\nRWStructuredBuffer<int> o;\n\
                struct S { ConsumeStructuredBuffer<int> a[2]; AppendStructuredBuffer<int> b; };\n\
                void f() { S s; s.a = a; o[0] = s.a[0].Consume() + a[1].Consume(); s.b.Append(1);\n\
                uint n; uint st; s.a[1].GetDimensions(n, st); }\n";
    let r = errors(text, None);
    assert!(
        r.contains("t.hlsl:4:33: fatal error: Cannot access associated counter variable for an array of buffers in a struct."),
        "{r}"
    );
    assert!(r.contains("1 error generated."), "{r}");
}

#[test]
fn undefined_static_members() {
    let text = "template<uint N, typename T = double> struct G { const static T w[N]; };\n\
                struct D { static float m; static const uint v = 2; static float unused; };\n\
                float D::m = 1;\n\
                float f() { return float(G<2>::w[1]) + D::m + D::v; }\n";
    let r = errors(text, None);
    assert!(
        r.contains("t.hlsl:1:65: warning: variable 'G<2, double>::w' has internal linkage but is not defined [-Wundefined-internal]"),
        "{r}"
    );
    assert!(r.contains("t.hlsl:4:32: note: used here"), "{r}");
    assert!(r.contains("t.hlsl:1:65: fatal error: found unregistered decl"), "{r}");
    assert!(r.contains("1 warning and 1 error generated."), "{r}");
}

#[test]
fn location_conflicts_name_the_first_owner_of_the_location() {
    let text = "struct T { [[vk::location(3)]] float i : A; };\n\
                [[vk::location(3)]] float main([[vk::location(3)]] float m : M, out T t) : R { return 1.0; }\n";
    let r = errors(text, Some(Stage::Vertex));
    assert!(r.contains("error: stage output location #3 already consumed by semantic 'M'"), "{r}");
    assert!(r.contains("1 error generated."), "{r}");
}

#[test]
fn combined_image_sampler_partners() {
    let text = "Texture2D t1 : register(t1);\n[[vk::combinedImageSampler]] SamplerState s1 : register(s1);\n\
                [[vk::combinedImageSampler]] Texture2D t0 : register(t0);\n\
                [[vk::combinedImageSampler]] SamplerState s0 : register(s0);\nSamplerState other : register(s0);\n\
                [[vk::combinedImageSampler, vk::binding(3, 2)]] Texture2D t3;\n\
                [[vk::binding(3, 2)]] SamplerComparisonState s3;\n";
    let r = errors(text, None);
    assert!(
        r.contains("t.hlsl:1:11: fatal error: Texture or Sampler with vk::combinedImageSampler attribute is missing for descriptor set and binding: 0, 1"),
        "{r}"
    );
    // The error is fatal in dxc (vk.combined-image-sampler.error): nothing after it.
    assert!(!r.contains("missing for descriptor set and binding: 2, 3"), "{r}");
    assert!(r.contains("1 error generated."), "{r}");
}

#[test]
fn repeated_prototypes_and_a_prototype_after_the_definition_name_one_function() {
    // Two identical prototypes (dxc's inline-SPIR-V tests declare one twice) are
    // one function, not an ambiguous call.
    ok("void f(int x);\nvoid f(int x);\nvoid g() { f(1); }\n");
    ok("float h(int x) { return x; }\nfloat h(int x);\nfloat k() { return h(2); }\n");
}
