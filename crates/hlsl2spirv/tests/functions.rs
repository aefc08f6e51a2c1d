//! Functions, methods, statics and initializers in dxc's raw (`-fcgl`) shapes: the
//! order functions are emitted in, their names, `param.var` copies, static locals and
//! initializer lists. Each test checks what dxc's tests check, and that the binaries
//! (raw and legalized) are valid for the current spirv-val (skipped with a message
//! when the project's `.venv` validator is absent).

mod common;
use common::assert_consecutive;

const PS: [&str; 7] = ["-T", "ps_6_0", "-E", "main", "-HV", "2021", "-fcgl"];
const PS_LEGALIZED: [&str; 6] = ["-T", "ps_6_0", "-E", "main", "-HV", "2021"];

/// The raw disassembly of `source`, after checking that both the raw binary (with
/// spirv-val's `--before-hlsl-legalization`) and the legalized one are valid.
fn compile(source: &str) -> String {
    common::assert_valid_binary(&PS, source, &["--target-env", "vulkan1.0", "--before-hlsl-legalization"]);
    common::assert_valid_binary(&PS_LEGALIZED, source, &["--target-env", "vulkan1.0"]);
    common::disassemble(&PS, source)
}

/// Asserts that `expected` appear in this order (not necessarily adjacent).
fn assert_in_order(text: &str, expected: &[&str]) {
    let mut rest = text;
    for want in expected {
        let at = rest.find(want).unwrap_or_else(|| panic!("no `{want}` (in order) in:\n{text}"));
        rest = &rest[at + want.len()..];
    }
}

#[test]
fn prototypes_in_bodies_and_namespace_definitions_reach_their_definitions() {
    let text = compile(
        r#"
namespace A {
  float f();
  namespace B { float g(); }
  struct S { int x; int get() { return x; } };
}
float4 main() : SV_Target {
  float twice(float v);
  A::S s;
  s.x = 1;
  return float4(twice(1), A::f(), A::B::g(), s.get());
}
float twice(float v) { return v * 2; }
float A::f() { return 3; }
float A::B::g() { return 4; }
"#,
    );
    // Emitted in the order first called (dxc's work queue), named as dxc names them.
    assert_in_order(
        &text,
        &[
            "%src_main = OpFunction",
            "%twice = OpFunction",
            "%A__f = OpFunction",
            "%A__B__g = OpFunction",
            "%A__S_get = OpFunction",
        ],
    );
    assert!(text.contains("OpName %A__S_get \"A::S.get\""), "{text}");
}

#[test]
fn nested_calls_declare_their_param_vars_first() {
    let text = compile(
        r#"
int one(int v) { return v; }
int other(int v) { return one(v); }
float4 main() : SV_Target {
  return other(one(1));
}
"#,
    );
    assert_consecutive(
        &text,
        &[
            "%param_var_v = OpVariable %_ptr_Function_int Function",
            "%param_var_v_0 = OpVariable %_ptr_Function_int Function",
            "OpStore %param_var_v %int_1",
            "OpFunctionCall %int %one %param_var_v",
            "OpStore %param_var_v_0",
            "OpFunctionCall %int %other %param_var_v_0",
        ],
    );
}

#[test]
fn out_arguments_that_are_function_lvalues_are_passed_without_a_copy() {
    let text = compile(
        r#"
struct S { float a; float b; };
void set(out float x) { x = 1; }
float4 main() : SV_Target {
  S s;
  float arr[2];
  set(s.b);
  set(arr[1]);
  return float4(s.b, arr[1], 0, 0);
}
"#,
    );
    assert!(!text.contains("param_var_x"), "{text}");
    assert!(text.contains("OpFunctionCall %void %set"), "{text}");
}

#[test]
fn methods_on_temporaries_operator_call_and_noinline() {
    let text = compile(
        r#"
struct Number {
  int n;
  int operator()() { return n; }
  Number next() { Number r; r.n = n + 1; return r; }
};
[noinline] Number make() { Number r; r.n = 1; return r; }
int main() : SV_Target {
  Number a = make();
  Number b = make().next();
  return a() + b();
}
"#,
    );
    assert!(text.contains("OpFunctionCall %int %Number_operator_Call %a"), "{text}");
    assert!(text.contains("%temp_var_Number = OpVariable %_ptr_Function_Number Function"), "{text}");
    assert!(text.contains("%make = OpFunction %Number DontInline"), "{text}");
}

#[test]
fn out_of_line_static_members_and_auto() {
    let text = compile(
        r#"
struct T {
  static float4 M;
  static const uint Val;
  uint get() { return Val; }
};
float4 T::M = float4(1, 2, 3, 4);
static const uint T::Val = 3;
float4 main(float4 input : A) : SV_Target {
  T t;
  auto scale = 2.0f;
  auto count = t.get();
  T::M = input * scale;
  return T::M + t.M + count;
}
"#,
    );
    assert!(text.contains("%M = OpVariable %_ptr_Private_v4float Private"), "{text}");
    assert!(text.contains("%scale = OpVariable %_ptr_Function_float Function"), "{text}");
    assert!(text.contains("%count = OpVariable %_ptr_Function_uint Function"), "{text}");
    assert!(text.contains("OpReturnValue %uint_3"), "{text}");
}

#[test]
fn static_locals_have_an_init_done_flag_starting_false() {
    let text = compile(
        r#"
float4 main(float4 input : A) : SV_Target {
  static int calls = 5;
  static float4 zero;
  calls++;
  return zero + calls;
}
"#,
    );
    assert!(text.contains("%calls = OpVariable %_ptr_Private_int Private"), "{text}");
    assert!(text.contains("%init_done_calls = OpVariable %_ptr_Private_bool Private %false"), "{text}");
    assert!(text.contains("%init_done_zero = OpVariable %_ptr_Private_bool Private %false"), "{text}");
    assert_consecutive(
        &text,
        &[
            "OpBranchConditional",
            "%if_init_todo = OpLabel",
            "OpStore %calls %int_5",
            "OpStore %init_done_calls %true",
        ],
    );
    // Without an initializer: the zero value.
    assert!(text.contains("OpConstantNull %v4float"), "{text}");
}

#[test]
fn initializer_lists_evaluate_items_first_and_use_fitting_ones_whole() {
    let text = compile(
        r#"
struct T { float2 p; int q; };
float4 main(float2 y : A, int s : B, uint2 u : C) : SV_Target {
  float4 z = {y, y};
  T ts[2] = { (T)0, (T)1 };
  T copy[2] = { ts };
  float4 w = float4(s, u, 1);
  return z + w + copy[1].q;
}
"#,
    );
    // Both loads before any extract.
    assert_consecutive(
        &text,
        &[
            "OpLoad %v2float %y",
            "OpLoad %v2float %y",
            "OpCompositeExtract %float",
            "OpCompositeExtract %float",
            "OpCompositeExtract %float",
            "OpCompositeExtract %float",
            "OpCompositeConstruct %v4float",
        ],
    );
    // An array of the target's type is used whole.
    assert!(text.contains("OpStore %copy"), "{text}");
    // A scalar item is converted as it is evaluated, a vector one piecewise later.
    assert_consecutive(&text, &["OpLoad %int %s", "OpConvertSToF %float", "OpLoad %v2uint %u"]);
}

#[test]
fn buffer_member_initializers_are_ignored_with_a_warning() {
    let source = "cbuffer C { float a = 1.0; };\nfloat4 main() : SV_Target { return a; }\n";
    let out = common::run(&["-T", "ps_6_0", "-E", "main", "-fcgl", "-"], source);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(":1:23: warning: cbuffer member initializer ignored since no Vulkan equivalent"),
        "{stderr}"
    );
    let quiet =
        common::run(&["-T", "ps_6_0", "-E", "main", "-fcgl", "-Wno-vk-ignored-features", "-"], source);
    assert!(!String::from_utf8_lossy(&quiet.stderr).contains("initializer"));
}

#[test]
fn member_function_template_instances_are_methods() {
    let text = compile(
        r#"
struct Access {
  uint handle;
  template<typename T> T load(uint index) { return (T)(handle + index); }
};
float4 main() : SV_Target {
  Access a;
  a.handle = 2;
  return a.load<float>(1);
}
"#,
    );
    assert!(text.contains("%param_this = OpFunctionParameter %_ptr_Function_Access"), "{text}");
}

#[test]
fn a_method_on_a_buffer_element_writes_its_copy_back() {
    let text = compile(
        r#"
struct C { int n; void incr() { n++; } };
RWStructuredBuffer<C> b;
float4 main() : SV_Target {
  b[0].incr();
  return 0;
}
"#,
    );
    // The element is copied into a Function variable, the method works on it, and
    // the copy goes back to the element.
    assert_consecutive(
        &text,
        &[
            "= OpAccessChain %_ptr_Uniform_C %b %int_0 %uint_0",
            "OpLoad %C ",
            "OpCompositeExtract %int",
            "OpCompositeConstruct %C_0",
            "OpStore %temp_var_C",
            "OpFunctionCall %void %C_incr %temp_var_C",
            "OpLoad %C_0 %temp_var_C",
            "OpCompositeExtract %int",
            "OpCompositeConstruct %C ",
            "OpStore %",
        ],
    );
}

#[test]
fn a_method_on_a_static_takes_the_variable_in_a_function_of_its_storage_class() {
    let text = compile(
        r#"
struct C { int n; void incr() { n++; } };
static C s;
float4 main() : SV_Target {
  C local;
  local.n = 1;
  local.incr();
  s.incr();
  return float4(s.n, local.n, 0, 0);
}
"#,
    );
    // One function per storage-class signature: the static is passed itself.
    assert_in_order(
        &text,
        &[
            "OpFunctionCall %void %C_incr %local",
            "OpFunctionCall %void %C_incr_0 %s",
            "%C_incr = OpFunction",
            "OpFunctionParameter %_ptr_Function_C",
            "%C_incr_0 = OpFunction",
            "OpFunctionParameter %_ptr_Private_C",
        ],
    );
}

#[test]
fn a_constant_buffer_object_is_copied_for_a_method_and_not_written_back() {
    let text = compile(
        r#"
struct A { float a; float get() { return a; } };
ConstantBuffer<A> foo;
float4 main() : SV_Target { return foo.get(); }
"#,
    );
    assert_consecutive(&text, &["OpStore %temp_var_A", "OpFunctionCall %float %A_get %temp_var_A"]);
    assert!(!text.contains("OpLoad %A %temp_var_A"), "no write-back into a constant buffer:\n{text}");
}
