//! The errors dxc reports for code it rejects, in dxc's words and at dxc's places:
//! one test per class of diagnostic (front end, code generation, legalization and
//! command line), each on a shader that breaks the rule and, where it matters, one
//! that keeps it.

mod common;

use common::run;

/// Compiles `src` (standard input) with `args`; the exit success and standard error.
fn compile(args: &[&str], src: &str) -> (bool, String) {
    let mut all: Vec<&str> = args.to_vec();
    all.push("-");
    let out = run(&all, src);
    (out.status.success(), String::from_utf8_lossy(&out.stderr).into_owned())
}

/// `src` must fail with every one of `expected` in standard error, in this order.
fn fails_with(args: &[&str], src: &str, expected: &[&str]) -> String {
    let (ok, err) = compile(args, src);
    assert!(!ok, "accepted:\n{src}\n{err}");
    let mut rest = err.as_str();
    for e in expected {
        let at = rest.find(e).unwrap_or_else(|| panic!("missing (in order) {e:?} in:\n{err}"));
        rest = &rest[at + e.len()..];
    }
    err
}

const PS: &[&str] = &["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"];
const VS: &[&str] = &["-T", "vs_6_0", "-E", "main", "-fcgl", "-spirv"];

#[test]
fn a_missing_include_is_fatal_and_ends_the_reporting() {
    let err = fails_with(
        PS,
        "#include \"does-not-exist.hlsl\"\nfloat4 main() : SV_Target { return undeclared; }\n",
        &["<stdin>:1:10: fatal error: 'does-not-exist.hlsl' file not found"],
    );
    assert!(!err.contains("undeclared"), "{err}");
}

#[test]
fn vk_builtin_rules_are_all_reported() {
    fails_with(
        VS,
        "[[vk::location(5), vk::builtin(\"HelperInvocation\")]]\nint main() : A { return 1; }\n",
        &[
            ":1:20: error: cannot use vk::builtin and vk::location together",
            ":1:20: error: HelperInvocation builtin must be of boolean type",
            ":1:20: error: HelperInvocation builtin can only be used as pixel shader input",
        ],
    );
    fails_with(
        VS,
        "float main([[vk::builtin(\"PointSize\")]] int input : A) : B { return input; }\n",
        &[
            "error: PointSize builtin must be of float type",
            "error: PointSize builtin cannot be used as VSIn",
        ],
    );
    fails_with(
        PS,
        "float4 main([[vk::builtin(\"BaseVertex\")]] float v : A) : SV_Target { return v; }\n",
        &[
            "error: BaseVertex builtin must be of 32-bit scalar integer type",
            "error: BaseVertex builtin cannot be used as PSIn",
        ],
    );
    // PointSize is a geometry shader's per-vertex input (fields of the input array).
    let gs = "struct V { float4 pos : SV_Position; [[vk::builtin(\"PointSize\")]] float size : PSIZE; };\n\
              [maxvertexcount(1)] void main(point V v[1], inout PointStream<V> s) { s.Append(v[0]); }\n";
    let (ok, err) = compile(&["-T", "gs_6_0", "-E", "main", "-fcgl", "-spirv"], gs);
    assert!(ok, "{err}");
}

#[test]
fn vk_attributes_on_the_wrong_declarations() {
    let src = "struct S {\n  [[vk::binding(5)]] float4 f;\n};\n\
               [[vk::location(3)]] ConsumeStructuredBuffer<S> b;\n\
               [[vk::counter_binding(4)]] Texture2D t;\n\
               [[vk::push_constant(5)]] S pcs;\n\
               float4 main([[vk::binding(1)]] float4 a : A) : SV_Target { return a; }\n";
    let err = fails_with(
        PS,
        src,
        &[
            ":2:5: error: 'binding' attribute only applies to global variables, cbuffers, and tbuffers",
            ":4:3: error: 'location' attribute only applies to functions, parameters, and fields",
            ":5:3: error: 'counter_binding' attribute only applies to RWStructuredBuffers, AppendStructuredBuffers, and ConsumeStructuredBuffers",
            ":6:3: error: 'push_constant' attribute takes no arguments",
            ":7:15: error: 'binding' attribute only applies to global variables, cbuffers, and tbuffers",
        ],
    );
    assert!(err.contains("5 errors generated."), "{err}");
    fails_with(
        VS,
        "struct S { float f; };\n[[vk::push_constant, vk::binding(5)]]\nS pcs;\nfloat main() : A { return pcs.f; }\n",
        &[":2:3: error: vk::push_constant attribute cannot be used together with vk::binding attribute"],
    );
}

#[test]
fn a_second_push_constant_block_notes_the_first() {
    fails_with(
        VS,
        "struct S { float f; };\n[[vk::push_constant]] S a;\n[[vk::push_constant]] S b;\nfloat main() : A { return 1; }\n",
        &[
            ":3:3: error: cannot have more than one push constant block",
            ":2:3: note: push constant block previously defined here",
        ],
    );
}

#[test]
fn more_than_twenty_errors_are_all_reported() {
    let src: String = (0..30).map(|i| format!("[[vk::location({i})]] Texture2D t{i};\n")).collect::<String>()
        + "float4 main() : SV_Target { return 0; }\n";
    let err = fails_with(PS, &src, &["30 errors generated."]);
    assert!(!err.contains("too many errors"), "{err}");
}

#[test]
fn gather_cmp_of_another_channel_is_reported_at_each_method_name() {
    let src = "SamplerComparisonState s;\nTexture2D<float4> t;\n\
               float4 main(float2 c : A) : SV_Target {\n  return t.GatherCmpGreen(s, c, 0.5) + t.GatherCmpAlpha(s, c, 0.5);\n}\n";
    fails_with(
        PS,
        src,
        &[
            ":4:12: error: no equivalent for GatherCmpGreen intrinsic method in Vulkan",
            ":4:42: error: no equivalent for GatherCmpAlpha intrinsic method in Vulkan",
        ],
    );
}

#[test]
fn implicit_lod_sampling_outside_fragment_and_compute_shaders() {
    let src = "SamplerState s;\nTexture2D t;\nfloat4 main() : SV_Position {\n  return t.Sample(s, 0.5) + t.SampleBias(s, 0.5, 1) + t.SampleLevel(s, 0.5, 0);\n}\n";
    let err = fails_with(
        VS,
        src,
        &[
            "error: sampling with implicit lod is only allowed in fragment and compute shaders",
            "error: sampling with implicit lod is only allowed in fragment and compute shaders",
        ],
    );
    assert!(err.contains("2 errors generated."), "{err}");
    let (ok, err) = compile(
        PS,
        "SamplerState s;\nTexture2D t;\nfloat4 main() : SV_Target { return t.Sample(s, 0.5); }\n",
    );
    assert!(ok, "{err}");
}

#[test]
fn sixteen_bit_float_sampled_types_only_outside_vulkan() {
    let src = "Buffer<half4> b;\nfloat4 main() : SV_Target { return b[0]; }\n";
    let args = ["-T", "ps_6_6", "-E", "main", "-fcgl", "-spirv", "-enable-16bit-types"];
    fails_with(
        &args,
        src,
        &["error: The sampled type for textures cannot be a floating point type smaller than 32-bits when targeting a Vulkan environment."],
    );
    let mut universal = args.to_vec();
    universal.push("-fspv-target-env=universal1.5");
    let (ok, err) = compile(&universal, src);
    assert!(ok, "{err}");
}

#[test]
fn global_structs_of_resources_feedback_textures_and_counter_buffer_arrays() {
    fails_with(
        PS,
        "struct S { Texture2D t; float a; };\nS g;\nfloat4 main() : SV_Target { return g.a; }\n",
        &[":2:3: error: global structures containing both resources and non-resources are not supported"],
    );
    fails_with(
        PS,
        "struct S { Texture2D t; RWStructuredBuffer<float> b; };\nS g;\nfloat4 main() : SV_Target { return g.b[0]; }\n",
        &[":2:3: error: global structures containing buffers are not supported"],
    );
    fails_with(
        &["-T", "ps_6_5", "-E", "main", "-fcgl", "-spirv"],
        "FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP> f;\nfloat main() : SV_Target { return 0; }\n",
        &[":1:45: error: Texture resource type 'FeedbackTexture2D' is not supported with -spirv"],
    );
    fails_with(
        PS,
        "RWStructuredBuffer<uint> b[2][3];\nfloat4 main() : SV_Target { return b[0][1][0]; }\n",
        &[":1:26: error: Multi-dimensional arrays of RW/append/consume structured buffers are unsupported in Vulkan"],
    );
}

#[test]
fn globals_members_ignore_initializers_and_refuse_bindings() {
    fails_with(
        VS,
        "[[vk::binding(10, 2)]] float4 gVec = 1.0;\nfloat4 main() : A { return gVec; }\n",
        &[
            ":1:38: warning: variable 'gVec' will be placed in $Globals so initializer ignored",
            ":1:3: error: variable 'gVec' will be placed in $Globals so cannot have vk::binding attribute",
        ],
    );
}

#[test]
fn a_builtin_needing_an_extension_not_allowed() {
    let src = "float4 main(uint viewid : SV_ViewID) : B { return viewid; }\n";
    fails_with(
        &["-T", "vs_6_1", "-E", "main", "-fcgl", "-spirv", "-fspv-extension=SPV_KHR_shader_draw_parameters"],
        src,
        &[":1:27: error: SPIR-V extension 'SPV_KHR_multiview' required for SV_ViewID but not permitted to use"],
    );
    let (ok, err) =
        compile(&["-T", "vs_6_1", "-E", "main", "-fcgl", "-spirv", "-fspv-extension=SPV_KHR_multiview"], src);
    assert!(ok, "{err}");
}

#[test]
fn fvk_bind_register_needs_every_binding() {
    let args = |extra: &[&'static str]| {
        let mut a = vec!["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"];
        a.extend_from_slice(extra);
        a
    };
    let textures = "Texture2D t : register(t5);\nSamplerState s : register(s0);\n\
                    float4 main() : SV_Target { return t.Sample(s, 0.5); }\n";
    fails_with(
        &args(&["-fvk-bind-register", "t5", "0", "1", "2"]),
        textures,
        &[":2:14: error: missing -fvk-bind-register for resource"],
    );
    let (ok, err) =
        compile(&args(&["-fvk-bind-register", "t5", "0", "1", "2", "-vkbr", "s0", "0", "3", "4"]), textures);
    assert!(ok, "{err}");
    fails_with(
        &args(&["-fvk-bind-register", "u1", "0", "1", "2"]),
        "RWStructuredBuffer<float4> b : register(u1);\nfloat4 main() : SV_Target { b.IncrementCounter(); return b[0]; }\n",
        &[":1:28: error: -fvk-bind-register for RW/Append/Consume StructuredBuffer unimplemented"],
    );
    fails_with(
        &args(&["-fvk-bind-register", "t5", "0", "1", "2", "-vkbr", "s0", "0", "3", "4"]),
        &format!("float4 g;\n{textures}"),
        &["error: -fvk-bind-register requires Globals buffer to be bound with -fvk-bind-globals"],
    );
}

#[test]
fn column_major_integer_matrices_in_buffers_are_reported_at_the_member() {
    fails_with(
        VS,
        "cbuffer B {\n  struct S { int2x3 m[5]; } s;\n}\nvoid main() { int2x3 x = s.m[1]; }\n",
        &[":2:29: error: externally initialized non-floating-point column-major matrices not supported yet"],
    );
    let (ok, err) = compile(
        VS,
        "cbuffer B {\n  struct S { row_major int2x3 m[5]; } s;\n}\nvoid main() { int2x3 x = s.m[1]; }\n",
    );
    assert!(ok, "{err}");
}

#[test]
fn an_unsized_array_parameter_cannot_be_initialized() {
    fails_with(
        VS,
        "void foo(uint v[]) { v[0] = 1; }\nfloat4 main() : SV_Position { uint m[2]; foo(m); return m[0]; }\n",
        &[":2:46: error: initializer for type 'unsigned int []' unimplemented"],
    );
}

#[test]
fn derivatives_left_in_a_vertex_shader_make_an_invalid_module() {
    let src = |cond: &str| {
        format!(
            "float4 main(float4 p : POSITION) : SV_Position {{ float4 o = p; if ({cond}) o += ddx(p); return o; }}\n"
        )
    };
    let args = ["-T", "vs_6_0", "-E", "main", "-fspv-target-env=vulkan1.3", "-spirv"];
    fails_with(
        &args,
        &src("true"),
        &["error: generated SPIR-V is invalid:\nDerivative instructions require Fragment, GLCompute, MeshEXT or TaskEXT execution model: DPdx"],
    );
    let (ok, err) = compile(&args, &src("false"));
    assert!(ok, "{err}");
}

#[test]
fn codegen_rejections_in_dxcs_words() {
    let cs = ["-T", "cs_6_0", "-E", "main", "-fcgl", "-spirv"];
    fails_with(
        &cs,
        "string s = \"a\";\n[numthreads(1,1,1)] void main() {\n  s = \"b\";\n}\n",
        &[":3:3: error: string variables are immutable in SPIR-V."],
    );
    fails_with(
        &["-T", "ps_6_0", "-E", "main", "-fcgl", "-spirv"],
        "void main() { uint64_t x = 1; int l = firstbitlow(x); }\n",
        &["error: firstbitlow is currently limited to 32-bit width components when targeting SPIR-V"],
    );
    fails_with(
        &["-T", "cs_6_10", "-spirv"],
        "RWStructuredBuffer<uint> o;\n[numthreads(1,1,1)] void main() {\n  if (dx::IsDebuggingEnabled()) o[0] = 1;\n}\n",
        &[":3:7: error: no equivalent for IsDebuggingEnabled intrinsic function in Vulkan"],
    );
    fails_with(
        &["-T", "gs_6_0", "-E", "main", "-fcgl", "-spirv"],
        "struct O { float4 p : SV_Position; };\n[maxvertexcount(3)]\n\
         void main(triangle in uint i[3] : A, inout PointStream<O> a, inout LineStream<O> b) {}\n",
        &["error: only one output primitive type can be specified in the geometry shader"],
    );
}

/// Found by fuzzing: a second body of one function was taken silently (two pixel entry
/// points named alike in a library made an invalid binary).
#[test]
fn a_function_defined_twice_is_a_redefinition() {
    let err = fails_with(
        &["-T", "lib_6_7", "-spirv"],
        "float f() { return 1; }\nfloat f() { return 2; }\n[shader(\"pixel\")]\nfloat4 ps() : SV_Target0 { return f(); }\n",
        &["<stdin>:2:7: error: redefinition of 'f'", "<stdin>:1:1: note: previous definition is here"],
    );
    assert!(!err.contains("ambiguous"), "the redefinition must stay out of lookup:\n{err}");
    // Prototypes and one definition remain one function.
    let (ok, err) = compile(
        PS,
        "float f();\nfloat f() { return 1; }\nfloat f();\nfloat4 main() : SV_Target { return f(); }\n",
    );
    assert!(ok, "{err}");
}

/// Found by fuzzing: a `[[vk::offset]]` that breaks the block's layout rule made an
/// invalid binary; dxc's words, as an error (its validator fails the compile).
#[test]
fn a_misaligned_vk_offset_is_refused() {
    let src = "struct C { float r; float i; };\nstruct E { float2 a; [[vk::offset(8)]] C b; };\ncbuffer Stuff { E e[2]; };\n[numthreads(1, 1, 1)]\nvoid main() { E v = e[0]; }\n";
    let cs = ["-T", "cs_6_0", "-E", "main", "-spirv"];
    fails_with(&cs, src, &["error: The offset provided in the attribute should be 16-byte aligned."]);
    let mut scalar = cs.to_vec();
    scalar.push("-fvk-use-scalar-layout");
    let (ok, err) = compile(&scalar, src);
    assert!(ok, "the scalar layout places a struct at 8:\n{err}");
}
