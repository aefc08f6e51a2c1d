use crate::frontend::{parse_source, Frontend, FrontendOptions};
use crate::preprocessor::MemoryLoader;

fn parse(text: &str) -> Frontend {
    parse_source("t.hlsl", None, text.to_string(), &FrontendOptions::default(), &MemoryLoader::default())
}

fn parse_ok(text: &str) -> String {
    let fe = parse(text);
    assert!(!fe.diags.has_errors(), "unexpected errors:\n{}", fe.render_diagnostics());
    fe.dump()
}

fn parse_err(text: &str) -> String {
    let fe = parse(text);
    assert!(fe.diags.has_errors(), "expected errors for:\n{text}");
    fe.render_diagnostics()
}

#[test]
fn smoke() {
    let dump = parse_ok("float4 main(float4 p : POSITION) : SV_Target { return p * 2.0f; }");
    assert!(dump.contains("FunctionDecl <1:1, 1:65> main 'float4 (float4)'"), "{dump}");
    assert!(dump.contains("Semantic <1:36, 1:44> SV_Target"), "{dump}");
    assert!(dump.contains("Semantic <1:24, 1:31> POSITION"), "{dump}");
}

#[test]
fn reports_missing_semicolon_after_expression() {
    let diags = parse_err("void f() { int a; a = 1\n a = 2; }");
    assert!(diags.contains("t.hlsl:1:24: error: expected ';' after expression"), "{diags}");
}

#[test]
fn functions_returning_arrays() {
    let dump = parse_ok(
        "int f()[2];\nint f()[2] { int a[2] = {1, 2}; return a; }\n\
         struct S { float g(int i)[3] { float r[3] = {0, 0, 0}; return r; } };\n",
    );
    assert!(dump.contains("FunctionDecl <1:1, 1:11> f 'int[2] ()'"), "{dump}");
    assert!(dump.contains("g 'float[3] (int)'"), "{dump}");
    let diags = parse_err("int f()[2] x;");
    assert!(diags.contains("error: expected function body after function declarator"), "{diags}");
}

#[test]
fn qualified_member_template_calls() {
    // `T` is not a type the parser knows (a local alias): `T::f<1>(x)` is still a
    // template call, and comparisons elsewhere stay comparisons.
    let dump = parse_ok("struct S {};\nvoid g() { typedef S T; int y = T::f<1>(2); bool c = a < 1 > (2); }");
    assert!(dump.contains("'T::f<1>'"), "{dump}");
    assert!(!dump.contains("BinaryOperator <2:33"), "{dump}");
    assert!(dump.contains("BinaryOperator <2:54, 2:64> '>'"), "{dump}");
}
