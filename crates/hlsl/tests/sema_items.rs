//! Language items dxc accepts for Vulkan (issue 15): `DebugBreak`, specialization
//! constants, dual-source blending locations, stage I/O location order, alias
//! templates, `vk::BufferPointer` conversions. Each is checked in the typed tree, with
//! the neighbouring forms dxc rejects.

mod common;

use spirvkit_hlsl::ast::DeclKind;
use spirvkit_hlsl::frontend::{Frontend, FrontendOptions};
use spirvkit_hlsl::sema::tree::{Callee, ConstValue, GlobalStorage, Stage};
use spirvkit_hlsl::sema::StageIoOrder;

fn analyze(text: &str, stage: Option<Stage>) -> Frontend {
    let mut options = FrontendOptions::default();
    options.sema.stage = stage;
    options.sema.enable_16bit_types = true;
    common::analyze(text, &options)
}

fn ok(text: &str, stage: Option<Stage>) -> Frontend {
    common::without_errors(analyze(text, stage))
}

fn errors(text: &str, stage: Option<Stage>) -> String {
    common::with_errors(analyze(text, stage), text)
}

/// The declaration named `name` with its typed-tree entry.
fn decl_named<'a>(fe: &'a Frontend, name: &str) -> (usize, &'a spirvkit_hlsl::sema::tree::DeclInfo) {
    let tree = fe.typed.as_ref().expect("typed tree");
    let index = tree
        .ast
        .decls
        .iter()
        .position(|d| match &d.kind {
            DeclKind::Var(v) => v.name.is_some_and(|n| tree.ast.name(n.name) == name),
            DeclKind::Function(f) => f.name.last().is_some_and(|n| tree.ast.name(n.name) == name),
            _ => false,
        })
        .unwrap_or_else(|| panic!("no declaration {name}"));
    (index, &tree.decls[index])
}

#[test]
fn debug_break_is_a_void_intrinsic_without_arguments() {
    let fe = ok("[numthreads(1,1,1)] void main() { if (true) DebugBreak(); }", Some(Stage::Compute));
    let tree = fe.typed.as_ref().unwrap();
    let call = tree
        .calls
        .values()
        .find(|c| matches!(c.callee, Callee::Intrinsic { name: "DebugBreak", .. }))
        .expect("DebugBreak resolved as an intrinsic");
    assert_eq!(tree.types.display(call.ret), "void");
    assert!(call.params.is_empty());
    let e = errors("void f() { DebugBreak(1); }", None);
    assert!(e.contains("DebugBreak"), "{e}");
    let e = errors("void f() { int x = DebugBreak(); }", None);
    assert!(e.contains("cannot initialize"), "{e}");
}

#[test]
fn spec_constants_take_literal_defaults_of_each_scalar_type() {
    let fe = ok(
        "[[vk::constant_id(0)]] bool b0 = true;\n\
         [[vk::constant_id(1)]] bool b1 = 0;\n\
         [[vk::constant_id(2)]] bool b2 = 1.5;\n\
         [[vk::constant_id(10)]] int i1 = -42;\n\
         [[vk::constant_id(12)]] int i2 = (true);\n\
         [[vk::constant_id(13)]] int i3 = 2.5;\n\
         [[vk::constant_id(20)]] uint u0 = 56;\n\
         [[vk::constant_id(31)]] const float f1 = -4.2;\n\
         [[vk::constant_id(32)]] float f2 = true;\n\
         [[vk::constant_id(40)]] const int16_t s = -int16_t(3);\n\
         [[vk::constant_id(41)]] const half h = 0.5h;\n\
         static const int folded_never = i1 + 3;\n\
         float main() : A { return i1 * f2 + (b0 ? 1 : 0); }\n",
        Some(Stage::Vertex),
    );
    let expect = [
        ("b0", ConstValue::Bool(true)),
        ("b1", ConstValue::Bool(false)),
        ("b2", ConstValue::Bool(true)),
        ("i1", ConstValue::Int(-42)),
        ("i2", ConstValue::Int(1)),
        ("i3", ConstValue::Int(2)),
        ("u0", ConstValue::Int(56)),
        ("f2", ConstValue::Float(1.0)),
        ("s", ConstValue::Int(-3)),
        ("h", ConstValue::Float(0.5)),
    ];
    for (name, value) in expect {
        let (_, info) = decl_named(&fe, name);
        assert_eq!(info.storage, Some(GlobalStorage::SpecConstant), "{name}");
        assert_eq!(info.constant, Some(value), "{name}");
    }
    // A global computed from a spec constant is not folded (codegen emits an
    // OpSpecConstantOp), so it carries no constant value.
    let (_, info) = decl_named(&fe, "folded_never");
    assert_eq!(info.constant, None);
}

#[test]
fn spec_constant_errors_match_dxc() {
    let e = errors(
        "[[vk::constant_id(0)]] const bool sc0 = true;\n\
         [[vk::constant_id(1)]] const bool sc1 = sc0;\n\
         [[vk::constant_id(2)]]\nconst double sc2 = 42;\n\
         [[vk::constant_id(3)]] const int sc3;\n\
         [[vk::constant_id(4)]] const int sc4 = sc0 + sc0;\n\
         [[vk::constant_id(5)]] static const int sc5 = 1;\n\
         [[vk::constant_id(6)]] int64_t sc6 = 1;\n",
        None,
    );
    assert!(e.contains("t.hlsl:2:41: error: unsupported specialization constant initializer"), "{e}");
    assert!(e.contains("t.hlsl:4:7: error: unsupported specialization constant type"), "{e}");
    assert!(e.contains("t.hlsl:5:34: error: missing default value for specialization constant"), "{e}");
    assert!(e.contains("t.hlsl:6:40: error: unsupported specialization constant initializer"), "{e}");
    assert!(e.contains("t.hlsl:7:41: error: specialization constant must be externally visible"), "{e}");
    assert!(e.contains("t.hlsl:8:24: error: unsupported specialization constant type"), "{e}");
    assert_eq!(e.matches("error:").count(), 6, "{e}");
}

#[test]
fn dual_source_outputs_share_location_zero_by_index() {
    let two_indices = "struct PSOut {\n\
        [[vk::location(0), vk::index(0)]] float4 a : SV_Target0;\n\
        [[vk::location(0), vk::index(1)]] float4 b : SV_Target1;\n\
        };\n\
        PSOut main() { PSOut o = (PSOut)0; return o; }\n";
    ok(two_indices, Some(Stage::Pixel));
    // The same location and index twice is still a clash.
    let clash = two_indices.replace("vk::index(0)", "vk::index(1)");
    let e = errors(&clash, Some(Stage::Pixel));
    assert!(e.contains("stage output location #0 already consumed by semantic 'SV_Target0'"), "{e}");
    let e = errors(
        "struct PSOut { [[vk::location(1), vk::index(5)]] float4 a : SV_Target0; };\n\
         PSOut main() { PSOut o = (PSOut)0; return o; }\n",
        Some(Stage::Pixel),
    );
    assert!(e.contains("1:18: error: dual-source blending should use vk::location 0"), "{e}");
    assert!(e.contains("1:35: error: dual-source blending only accepts 0 or 1 as vk::index"), "{e}");
    let e = errors("int main([[vk::index(1)]] int a : A) : B { return a; }", Some(Stage::Vertex));
    assert!(e.contains("1:12: error: vk::index only allowed in pixel shader"), "{e}");
    assert!(
        e.contains("vk::index should be used together with vk::location for dual-source blending"),
        "{e}"
    );
}

fn locations(text: &str, stage: Stage, order: StageIoOrder) -> Vec<(String, bool, u32, u32)> {
    let mut options = FrontendOptions::default();
    options.sema.stage = Some(stage);
    options.sema.stage_io_order = order;
    let fe = common::analyze(text, &options);
    assert!(!fe.diags.has_errors(), "unexpected errors:\n{}", fe.render_diagnostics());
    let tree = fe.typed.as_ref().unwrap();
    tree.entry_points[0]
        .locations
        .iter()
        .map(|l| (l.semantic.clone(), l.input, l.location, l.index))
        .collect()
}

#[test]
fn stage_io_order_numbers_locations_by_declaration_or_semantic() {
    let vs = "struct VSOut { float4 pos : SV_Position; float3 n : NORMAL; double4 c : COLOR; float2 uv : ATEX; };\n\
              VSOut main(float3 p : POSITION, float2 b : BTEX, uint id : SV_VertexID, float4 a : SV_Position) {\n\
              VSOut o = (VSOut)0; return o; }\n";
    let decl = locations(vs, Stage::Vertex, StageIoOrder::Decl);
    let s = |t: &str, i: bool, l: u32| (t.to_string(), i, l, 0);
    assert_eq!(
        decl,
        vec![
            s("POSITION", true, 0),
            s("BTEX", true, 1),
            // A vertex shader reads SV_Position as a plain input; SV_VertexID is built in.
            s("SV_Position", true, 2),
            s("NORMAL", false, 0),
            // A double4 takes two locations.
            s("COLOR", false, 1),
            s("ATEX", false, 3),
        ]
    );
    let alpha = locations(vs, Stage::Vertex, StageIoOrder::Alpha);
    assert_eq!(
        alpha,
        vec![
            s("BTEX", true, 0),
            s("POSITION", true, 1),
            s("SV_Position", true, 2),
            s("ATEX", false, 0),
            s("COLOR", false, 1),
            s("NORMAL", false, 3),
        ]
    );
    // SV_TargetN keeps N whatever the order; explicit locations are taken as written.
    let ps = "struct O { float4 b : SV_Target1; float4 a : SV_Target0; };\n\
              O main(float4 z : ZED, float4 y : WHY) { O o = (O)0; return o; }\n";
    assert_eq!(
        locations(ps, Stage::Pixel, StageIoOrder::Alpha),
        vec![s("WHY", true, 0), s("ZED", true, 1), s("SV_Target1", false, 1), s("SV_Target0", false, 0)]
    );
    let dual = "struct O { [[vk::location(0), vk::index(1)]] float4 b : SV_Target1;\n\
                [[vk::location(0)]] float4 a : SV_Target0; };\n\
                O main() { O o = (O)0; return o; }\n";
    assert_eq!(
        locations(dual, Stage::Pixel, StageIoOrder::Decl),
        vec![("SV_Target1".to_string(), false, 0, 1), s("SV_Target0", false, 0)]
    );
    let e = errors(
        "float4 main([[vk::location(1)]] float4 a : A, float4 b : B) : SV_Position { return a + b; }",
        Some(Stage::Vertex),
    );
    assert!(
        e.contains("partial explicit stage input location assignment via vk::location(X) unsupported"),
        "{e}"
    );
}

#[test]
fn buffer_pointers_convert_cast_and_initialize_structs() {
    let fe = ok(
        "struct Node;\n\
         typedef vk::BufferPointer<Node> NodePtr;\n\
         struct Node { float v; NodePtr next; };\n\
         struct Base { int b; };\n\
         struct Derived : Base { int d; };\n\
         struct Holder { vk::BufferPointer<float4, 8> p; int n; };\n\
         struct Globals { uint64_t addr; NodePtr head; vk::BufferPointer<Derived, 16> derived; };\n\
         [[vk::push_constant]] Globals g;\n\
         float value(NodePtr p) { return p.Get().v; }\n\
         NodePtr follow(NodePtr p) { return p.Get().next; }\n\
         [numthreads(1,1,1)] void main() {\n\
           NodePtr a = vk::BufferPointer<Node>(g.addr);\n\
           NodePtr b = NodePtr(g.addr);\n\
           vk::BufferPointer<float4, 8> c = vk::reinterpret_pointer_cast<float4, 8>(a);\n\
           vk::BufferPointer<Base, 16> base = vk::static_pointer_cast<Base, 16>(g.derived);\n\
           Holder h = {c, 1};\n\
           Holder h2 = { vk::BufferPointer<float4, 8>(g.addr), 2 };\n\
           float x = value(a) + value(follow(b)) + h.p.Get().x + h2.p.Get().y + base.Get().b;\n\
           uint64_t back = (uint64_t)a;\n\
         }\n",
        Some(Stage::Compute),
    );
    let tree = fe.typed.as_ref().unwrap();
    let casts: Vec<String> = tree
        .calls
        .values()
        .filter(|c| matches!(c.callee, Callee::Intrinsic { name, .. } if name.ends_with("pointer_cast")))
        .map(|c| tree.types.display(c.ret))
        .collect();
    assert_eq!(casts.len(), 2);
    assert!(casts.contains(&"vk::BufferPointer<float4, 8>".to_string()), "{casts:?}");
    assert!(casts.contains(&"vk::BufferPointer<Base, 16>".to_string()), "{casts:?}");

    let e = errors(
        "struct Base { }; struct Derived : Base { int val; };\n\
         cbuffer Test { vk::BufferPointer<Derived, 32> derivedBuf; vk::BufferPointer<int> intBuf; };\n\
         void f() {\n\
           vk::BufferPointer<Base, 64> a = vk::static_pointer_cast<Base, 64>(derivedBuf);\n\
           vk::BufferPointer<float> b = vk::static_pointer_cast<float>(intBuf);\n\
           vk::BufferPointer<float> ok = vk::reinterpret_pointer_cast<float>(intBuf);\n\
           vk::BufferPointer<Base, 16> wrong = vk::reinterpret_pointer_cast<float>(intBuf);\n\
         }\n",
        None,
    );
    assert!(e.contains("4:33: error: Vulkan buffer pointer cannot be cast to greater alignment"), "{e}");
    assert!(
        e.contains("5:30: error: vk::static_pointer_cast() content type must be base class of argument's content type"),
        "{e}"
    );
    assert!(e.contains("7:37: error: cannot initialize a variable of type"), "{e}");
    assert_eq!(e.matches("error:").count(), 3, "{e}");
}

#[test]
fn alias_templates_resolve_deduce_and_nest() {
    let fe = ok(
        "template<typename T> using Vec = vector<T, 3>;\n\
         template<typename T, int N = 3> using V = vector<T, N>;\n\
         template<typename T> using Vec2 = Vec<T>;\n\
         template<typename T> using Arr3 = T[3];\n\
         template<typename T> using Mat = matrix<T, 2, 2>;\n\
         template<int N> using FloatN = vector<float, N>;\n\
         template<typename T> struct W { Vec<T> v; Vec<T> get() { return v; } };\n\
         struct Holder { template<typename T> using Pair = vector<T, 2>; Pair<float> p; };\n\
         template<typename T> struct Box { T v; };\n\
         template<typename T, int N> T sum(V<T, N> x) { T s = 0; for (int i = 0; i < N; ++i) s += x[i]; return s; }\n\
         template<int N> float len(FloatN<N> x) { return length(x); }\n\
         template<typename T> T first(Arr3<T> a) { return a[0]; }\n\
         template<typename T> T det2(Mat<T> m) { return m[0][0] * m[1][1] - m[0][1] * m[1][0]; }\n\
         Vec<float> scale(Vec<float> a) { return a * 2; }\n\
         void f() {\n\
           V<int, 2> b = int2(1, 2);\n\
           Vec2<uint> c = uint3(1, 2, 3);\n\
           W<float> w; float3 g = w.get();\n\
           Holder::Pair<int> hp = int2(3, 4);\n\
           Box<Vec<int> > bx; bx.v = int3(1, 2, 3);\n\
           Vec<float> k = scale(Vec<float>(1, 2, 3));\n\
           Arr3<float> arr = { 1, 2, 3 };\n\
           float total = sum(k) + sum(b) + len(float4(1, 2, 3, 4)) + first(arr) + det2(float2x2(1, 2, 3, 4));\n\
         }\n",
        None,
    );
    let tree = fe.typed.as_ref().unwrap();
    let mut chosen: Vec<String> = tree
        .calls
        .values()
        .filter(|c| matches!(c.callee, Callee::Function(_)))
        .map(|c| {
            let params: Vec<String> = c.params.iter().map(|p| tree.types.display(p.0)).collect();
            format!("({}) -> {}", params.join(", "), tree.types.display(c.ret))
        })
        .collect();
    chosen.sort();
    for expected in [
        "(float3) -> float",
        "(int2) -> int",
        "(float4) -> float",
        "(float[3]) -> float",
        "(float2x2) -> float",
        "(float3) -> float3",
    ] {
        assert!(chosen.contains(&expected.to_string()), "{expected} not in {chosen:?}");
    }
    let (_, hp) = decl_named(&fe, "hp");
    assert_eq!(tree.types.display(hp.ty), "int2");

    let e = errors(
        "template<typename T> using Vec = vector<T, 3>;\n\
         Vec v;\n\
         Vec<float, 2> w;\n\
         Vec<> x;\n",
        None,
    );
    assert!(e.contains("2:1: error: use of alias template 'Vec' requires template arguments"), "{e}");
    assert!(e.contains("3:1: error: too many template arguments for alias template 'Vec'"), "{e}");
    assert!(e.contains("4:1: error: too few template arguments for alias template 'Vec'"), "{e}");
}

#[test]
fn member_templates_overload_by_template_parameters_and_name_other_instantiations() {
    let fe = ok(
        "static const uint Row = 0;\n\
         template <typename C> struct M {\n\
           C v;\n\
           template <uint ops, uint layout, class T> static M Load(RWStructuredBuffer<T> d, uint i) { M m; m.v = (C)(ops + layout + d[i]); return m; }\n\
           template <uint layout, class T> static M Load(RWStructuredBuffer<T> d, uint i) { return Load<0, layout>(d, i); }\n\
           template <class N> M<N> cast() { M<N> r; r.v = (N)v; return r; }\n\
         };\n\
         RWStructuredBuffer<float> buf;\n\
         void f() {\n\
           M<float> a = M<float>::Load<Row>(buf, 0);\n\
           M<float> b = M<float>::Load<8, Row>(buf, 0);\n\
           M<int> c = a.cast<int>();\n\
         }\n",
        None,
    );
    let tree = fe.typed.as_ref().unwrap();
    let rets: Vec<String> = tree
        .calls
        .values()
        .filter(|c| matches!(c.callee, Callee::Function(_)))
        .map(|c| tree.types.display(c.ret))
        .collect();
    assert!(rets.iter().filter(|r| r.as_str() == "M<float>").count() >= 3, "{rets:?}");
    assert!(rets.contains(&"M<int>".to_string()), "{rets:?}");
    // A value where only a type fits leaves no candidate.
    let e = errors(
        "template <class T> T id(T x) { return x; }\n\
         void f() { float y = id<1>(2.0); }\n",
        None,
    );
    assert!(e.contains("no matching function for call to 'id'"), "{e}");
}

#[test]
fn patches_streams_and_patch_constant_outputs_take_locations() {
    let hs = "struct VSOut { float4 pos : SV_Position; float3 n : NORMAL; float2 uv : TEXCOORD; };\n\
              struct HSOut { float3 n : NORMAL; float2 uv : TEXCOORD; float w : BLEND; };\n\
              struct PC { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; float3 c : CENTER; float3 a : AXIS; };\n\
              PC pcf(InputPatch<VSOut, 3> p) { PC o = (PC)0; return o; }\n\
              [domain(\"tri\")] [partitioning(\"integer\")] [outputtopology(\"triangle_cw\")]\n\
              [outputcontrolpoints(3)] [patchconstantfunc(\"pcf\")]\n\
              HSOut main(InputPatch<VSOut, 3> p, uint id : SV_OutputControlPointID) { HSOut o = (HSOut)0; return o; }\n";
    let s = |t: &str, i: bool, l: u32| (t.to_string(), i, l, 0);
    // Inputs in declaration order; hull outputs (with the patch constants) alphabetical.
    assert_eq!(
        locations(hs, Stage::Hull, StageIoOrder::Decl),
        vec![
            s("NORMAL", true, 0),
            s("TEXCOORD", true, 1),
            s("AXIS", false, 0),
            s("BLEND", false, 1),
            s("CENTER", false, 2),
            s("NORMAL", false, 3),
            s("TEXCOORD", false, 4),
        ]
    );
    let gs = "struct V { float4 pos : SV_Position; float4 color : COLOR; float2 uv : TEXCOORD; };\n\
              [maxvertexcount(3)] void main(triangle V input[3], inout TriangleStream<V> stream) {}\n";
    assert_eq!(
        locations(gs, Stage::Geometry, StageIoOrder::Decl),
        vec![s("COLOR", true, 0), s("TEXCOORD", true, 1), s("COLOR", false, 0), s("TEXCOORD", false, 1)]
    );
}

#[test]
fn member_types_of_instantiations_in_alias_targets_and_declarations() {
    let fe = ok(
        "template<typename T> struct Traits { template<typename U> using Rebind = vector<U, 2>; typedef T type; };\n\
         template<typename T> using Elem = typename Traits<T>::type;\n\
         template<typename T = float> using V3 = vector<T, 3>;\n\
         void f() {\n\
           Traits<int>::Rebind<float> r = float2(1, 2);\n\
           Elem<uint> e = 3u;\n\
           const Traits<bool>::type b = true;\n\
           V3<> d = float3(1, 2, 3);\n\
         }\n",
        None,
    );
    let tree = fe.typed.as_ref().unwrap();
    for (name, ty) in [("r", "float2"), ("e", "uint"), ("b", "const bool"), ("d", "float3")] {
        let (_, info) = decl_named(&fe, name);
        let shown = tree.types.display(info.ty);
        assert!(shown == ty || shown == ty.trim_start_matches("const "), "{name}: {shown}");
    }
    let e = errors(
        "template<typename T> struct Traits { typedef T type; template<typename U> struct Inner { U u; }; };\n\
         void f() { typename Traits<int>::missing x; Traits<int>::Inner y; }\n",
        None,
    );
    assert!(e.contains("2:12: error: no type named 'missing' in 'Traits<int>'"), "{e}");
    assert!(e.contains("error: use of class template 'Inner' requires template arguments"), "{e}");
    // Hostile nesting stops early.
    let deep = format!("template<typename T> struct S {{ typedef T t; }};\nS<int>{} z;\n", "::t".repeat(200));
    let e = errors(&deep, None);
    assert!(e.contains("nested name specifier is too deep"), "{e}");
}
