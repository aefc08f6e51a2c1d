//! The parser over the constructs codegen will need, checked through the tree and
//! `-ast-dump`; error messages and recovery; limits on hostile input.

use spirvkit_hlsl::ast::{Annotation, DeclKind, ExprKind, Modifiers, StmtKind, TypeKind};
use spirvkit_hlsl::frontend::{parse_source, Frontend, FrontendOptions};
use spirvkit_hlsl::preprocessor::MemoryLoader;

fn parse(text: &str) -> Frontend {
    parse_source("t.hlsl", None, text.to_string(), &FrontendOptions::default(), &MemoryLoader::default())
}

fn parse_ok(text: &str) -> Frontend {
    let fe = parse(text);
    assert!(!fe.diags.has_errors(), "unexpected errors:\n{}", fe.render_diagnostics());
    fe
}

fn errors(text: &str) -> String {
    let fe = parse(text);
    assert!(fe.diags.has_errors(), "expected errors for:\n{text}");
    fe.render_diagnostics()
}

#[test]
fn resources_registers_and_vulkan_attributes() {
    let fe = parse_ok(
        "[[vk::binding(3, 1)]] Texture2D<float4> tex : register(t0, space2);\n\
         [[vk::push_constant]] ConstantBuffer<S> pc;\n\
         RWStructuredBuffer<uint> buf : register(u1);\n\
         [[vk::constant_id(7)]] const bool flag = true;\n",
    );
    let ast = &fe.ast;
    let DeclKind::Var(tex) = &ast.decl(ast.items[0]).kind else { panic!("not a variable") };
    assert_eq!(ast.type_spelling(tex.ty), "Texture2D<float4>");
    let Annotation::Register { slot, space: Some(space), profile: None, .. } = &tex.annotations[0] else {
        panic!("no register")
    };
    assert_eq!((ast.name(slot.name), ast.name(space.name)), ("t0", "space2"));
    let attr = &ast.decl(ast.items[0]).attrs[0];
    assert!(attr.double_bracket);
    assert_eq!(attr.namespace.map(|n| ast.name(n.name)), Some("vk"));
    assert_eq!(ast.name(attr.name.name), "binding");
    assert_eq!(attr.args.len(), 2);
    assert!(ast.decl(ast.items[3]).modifiers.contains(Modifiers::CONST));
}

#[test]
fn entry_attributes_semantics_and_interpolation() {
    let fe = parse_ok(
        "struct VSOut { float4 pos : SV_Position; nointerpolation uint id : ID; centroid float2 uv : TEXCOORD0; };\n\
         [numthreads(8, 8, 1)] [shader(\"compute\")]\n\
         void main(uint3 tid : SV_DispatchThreadID, in VSOut v, out float4 o : SV_Target1) {}\n",
    );
    let dump = fe.dump();
    assert!(dump.contains("Attribute <2:2, 2:20> numthreads [...]"), "{dump}");
    assert!(dump.contains("Attribute <2:24, 2:40> shader [...]"), "{dump}");
    assert!(dump.contains(" id 'uint' nointerpolation"), "{dump}");
    assert!(dump.contains(" uv 'float2' centroid"), "{dump}");
    assert!(dump.contains("VarDecl <3:56, 3:80> o 'float4' out"), "{dump}");
    assert!(dump.contains("Semantic <3:71, 3:80> SV_Target1"), "{dump}");
}

#[test]
fn cbuffers_with_packoffset_and_matrix_majorness() {
    let fe = parse_ok(
        "#pragma pack_matrix(row_major)\n\
         cbuffer Globals : register(b0) { column_major float4x4 m : packoffset(c0); float3 v : packoffset(c4.y); }\n",
    );
    let ast = &fe.ast;
    assert!(matches!(&ast.decl(ast.items[0]).kind, DeclKind::Pragma(t) if t == "pack_matrix(row_major)"));
    let DeclKind::Buffer { decls, annotations, .. } = &ast.decl(ast.items[1]).kind else { panic!() };
    assert_eq!(annotations.len(), 1);
    assert!(ast.decl(decls[0]).modifiers.contains(Modifiers::COLUMN_MAJOR));
    let DeclKind::Var(v) = &ast.decl(decls[1]).kind else { panic!() };
    let Annotation::PackOffset { register, component: Some(c), .. } = &v.annotations[0] else { panic!() };
    assert_eq!((ast.name(register.name), ast.name(c.name)), ("c4", "y"));
}

#[test]
fn every_type_spelling() {
    let fe = parse_ok(
        "vector<float, 4> a; matrix<float, 2, 3> b; float2x3 c; min16float4 d; uint64_t e; half f;\n\
         unsigned int g; InputPatch<VSOut, 3> h; TriangleStream<VSOut> i; Buffer<unorm float4> j;\n\
         vk::SpirvOpaqueType</* OpTypeForwardPointer */ 39, float> k; RWTexture2D<vector<float, 4>> l;\n",
    );
    let ast = &fe.ast;
    let spellings: Vec<String> = ast
        .items
        .iter()
        .map(|&d| match &ast.decl(d).kind {
            DeclKind::Var(v) => ast.type_spelling(v.ty),
            _ => String::new(),
        })
        .collect();
    assert_eq!(spellings[0], "vector<float, 4>");
    assert_eq!(spellings[1], "matrix<float, 2, 3>");
    assert_eq!(spellings[6], "unsigned int");
    assert_eq!(spellings[7], "InputPatch<VSOut, 3>");
    assert_eq!(spellings[9], "Buffer<unorm float4>");
    assert_eq!(spellings[10], "vk::SpirvOpaqueType<39, float>");
    assert_eq!(spellings[11], "RWTexture2D<vector<float, 4>>");
}

#[test]
fn expressions_casts_constructors_and_templates() {
    let fe = parse_ok(
        "ByteAddressBuffer b;\n\
         float4 f(float x) {\n\
           float4 v = float4(x, 1, 2.0h, 3.xx);\n\
           int i = (int)x + int(x) * -i++;\n\
           v.xy += b.Load<float2>(0) ? v.zw : (float2)0;\n\
           float s = sizeof(float4) , t = (0.xxx).x;\n\
           return v._m00 > 1 && x < 2 ? v : { 1, 2, 3, 4 };\n\
         }\n",
    );
    let dump = fe.dump();
    assert!(dump.contains("CXXFunctionalCastExpr <3:12, 3:35> 'float4'"), "{dump}");
    assert!(dump.contains("CStyleCastExpr <4:9, 4:14> 'int'"), "{dump}");
    assert!(dump.contains("MemberExpr <5:9, 5:22> .Load<float2>"), "{dump}");
    assert!(dump.contains("CompoundAssignOperator <5:1, 5:44> '+='"), "{dump}");
    assert!(dump.contains("UnaryExprOrTypeTraitExpr <6:11, 6:24> sizeof 'float4'"), "{dump}");
    assert!(dump.contains("UnaryOperator <4:28, 4:30> postfix '++'"), "{dump}");
}

#[test]
fn templates_structs_methods_and_operators() {
    let fe = parse_ok(
        "template<typename T, int N = 2> struct Arr { T data[N]; T get(int i) { return data[i]; } static const int size = N; };\n\
         struct Base { float b; }; struct Derived : Base { float d; Derived operator+(Derived o) { return o; } };\n\
         template<typename T> T twice(T x) { return x * 2; }\n\
         namespace ns { enum class Color : uint { Red, Green = 2 }; typedef Arr<float, 3> A3; }\n\
         using F4 = float4;\n\
         void g() { ns::A3 a; float y = twice<float>(a.get(0)) + Arr<int, 2>::size; F4 z = F4(0, 0, 0, 0); }\n",
    );
    let ast = &fe.ast;
    let DeclKind::Template { params, decl } = &ast.decl(ast.items[0]).kind else { panic!() };
    assert_eq!(params.len(), 2);
    assert!(matches!(ast.decl(*decl).kind, DeclKind::Struct { .. }));
    let dump = fe.dump();
    assert!(dump.contains("FunctionDecl <2:60, 2:101> operator+ 'Derived (Derived)'"), "{dump}");
    assert!(dump.contains("EnumDecl <4:16, 4:57> class Color 'uint'"), "{dump}");
    assert!(dump.contains("DeclRefExpr <6:32, 6:43> 'twice<float>'"), "{dump}");
    assert!(dump.contains("DependentScopeDeclRefExpr <6:57, 6:73> 'Arr<int, 2>::size'"), "{dump}");
}

#[test]
fn statements_with_attributes() {
    let fe = parse_ok(
        "void f(int n) {\n\
           [unroll(4)] for (int i = 0; i < n; ++i) { if (i == 2) continue; else break; }\n\
           [loop] while (n > 0) { n--; }\n\
           do { n++; } while (n < 3);\n\
           [branch] switch (n) { case 0: case 1: n = 2; break; default: discard; }\n\
           [flatten] if (int k = n) { return; }\n\
         }\n",
    );
    let ast = &fe.ast;
    let DeclKind::Function(f) = &ast.decl(ast.items[0]).kind else { panic!() };
    let Some(body) = f.body else { panic!() };
    let StmtKind::Block(stmts) = &ast.stmt(body).kind else { panic!() };
    assert_eq!(stmts.len(), 5);
    let first = ast.stmt(stmts[0]);
    assert!(matches!(first.kind, StmtKind::For { .. }));
    assert_eq!(ast.name(first.attrs[0].name.name), "unroll");
    let StmtKind::If { condition, .. } = ast.stmt(stmts[4]).kind else { panic!() };
    assert!(matches!(ast.expr(condition).kind, ExprKind::DeclCondition(_)));
}

#[test]
fn inline_struct_and_typedef_of_struct() {
    let fe = parse_ok("typedef struct { float a; } T; struct { int b; } s; T t;");
    let ast = &fe.ast;
    let DeclKind::Var(s) = &ast.decl(ast.items[3]).kind else { panic!("{:?}", ast.items) };
    assert!(matches!(ast.ty(s.ty).kind, TypeKind::Struct(_)));
}

#[test]
fn clang_style_errors_and_recovery() {
    let e = errors("float4 main() : SV_Target {\n  float a = 1\n  return a;\n}\n");
    assert!(e.contains("t.hlsl:2:14: error: expected ';' at end of declaration"), "{e}");
    let e = errors("void f() { g(1, 2; }\nint ok;\nvoid h() { x = ; }\n");
    assert!(e.contains("error: expected ')'"), "{e}");
    assert!(e.contains("note: to match this '('"), "{e}");
    assert!(e.contains("t.hlsl:3:16: error: expected expression"), "{e}");
    assert!(e.contains("2 errors generated."), "{e}");
    let e = errors("Foo bar;\n");
    assert!(e.contains("t.hlsl:1:1: error: unknown type name 'Foo'"), "{e}");
    let e = errors("void f() {\n");
    assert!(e.contains("error: expected '}'"), "{e}");
}

#[test]
fn errors_do_not_cascade_into_floods() {
    let text = "void f() { @ @ @ }\n".repeat(500);
    let fe = parse(&text);
    assert!(fe.diags.len() <= 25, "{} diagnostics", fe.diags.len());
}

#[test]
fn deep_nesting_is_an_error_not_a_crash() {
    for text in [
        format!("void f() {{ x = {}1{}; }}", "(".repeat(100_000), ")".repeat(100_000)),
        format!("void f() {}{}", "{".repeat(100_000), "}".repeat(100_000)),
        format!("void f() {{ x = {}1; }}", "-".repeat(100_000)),
        format!("vector<{}float{}> v;", "vector<".repeat(50_000), ", 4>".repeat(50_000)),
        format!("void f() {{ if (a) {} }}", "if (a) ".repeat(100_000)),
        format!("int x = {}1{};", "{".repeat(100_000), "}".repeat(100_000)),
    ] {
        let e = errors(&text);
        assert!(e.contains("bracket nesting level exceeded maximum of 256"), "{e}");
    }
    let long_chain = format!("int x = {}1;", "1 + ".repeat(5000));
    assert!(errors(&long_chain).contains("expression is too complex"));
}

#[test]
fn macros_keep_expansion_locations() {
    let e = errors("#define BAD(x) x +\nvoid f() { int y = BAD(1); }\n");
    assert!(e.contains("t.hlsl:2:26: error: expected expression"), "{e}");
}
