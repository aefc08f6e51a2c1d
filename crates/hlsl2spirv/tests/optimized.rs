//! What dxc's optimized output (the default `-O3`) and its legalization leave that the
//! plain legalized form does not: struct copies kept whole, read-only loads and
//! their uses computed once, dxc's words for a buffer chosen by control flow, and
//! inline SPIR-V conversions (`vk/opcode_selector.h`).

mod common;

use common::{assert_valid_binary, disassemble, run};

const COPY: &str = "struct S { float4 f; };
int i;
StructuredBuffer<S> gSBuffer;
RWStructuredBuffer<S> gRWSBuffer;
[numthreads(1, 1, 1)]
void main() {
  S local = gSBuffer[i];
  gRWSBuffer[i] = local;
}
";

fn function_body(text: &str) -> &str {
    text.find("OpFunction ").map_or(text, |at| &text[at..])
}

#[test]
fn a_struct_copied_between_buffers_of_one_layout_stays_one_load_and_store() {
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv"];
    let text = disassemble(&args, COPY);
    let body = function_body(&text);
    assert!(!body.contains("OpCompositeConstruct"), "{body}");
    assert!(!body.contains("OpCompositeExtract"), "{body}");
    // The index is loaded from the cbuffer once at -O3.
    assert_eq!(body.matches("OpLoad %int").count(), 1, "{body}");
    assert_valid_binary(&args, COPY, &["--target-env", "vulkan1.0"]);
}

#[test]
fn without_optimization_read_only_loads_are_not_merged() {
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv", "-O0"];
    let body = disassemble(&args, COPY);
    assert_eq!(function_body(&body).matches("OpLoad %int").count(), 2, "{body}");
    assert_valid_binary(&args, COPY, &["--target-env", "vulkan1.0"]);
}

#[test]
fn loads_of_writable_buffers_are_not_merged() {
    let source = "RWStructuredBuffer<uint> b;
[numthreads(1, 1, 1)]
void main() {
  uint x = b[0];
  b[1] = x;
  b[2] = b[0];
}
";
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv"];
    let text = disassemble(&args, source);
    assert_eq!(function_body(&text).matches("OpLoad %uint").count(), 2, "{text}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);
}

fn error_of(source: &str) -> String {
    let out = run(&["-T", "cs_6_0", "-E", "main", "-spirv", "-"], source);
    assert!(!out.status.success());
    String::from_utf8_lossy(&out.stderr).to_string()
}

#[test]
fn a_buffer_chosen_by_an_if_is_reported_as_the_select_dxc_would_make() {
    let source = "int i;
StructuredBuffer<float> a;
StructuredBuffer<float> b;
RWStructuredBuffer<float> o;
[numthreads(1, 1, 1)]
void main() {
  StructuredBuffer<float> l;
  if (i > 0) { l = a; } else { l = b; }
  o[i] = l[i];
}
";
    let err = error_of(source);
    assert!(err.contains("Using pointers with OpSelect requires capability"), "{err}");
    // [branch] keeps the phi (DontFlatten), as a switch does.
    let err = error_of(&source.replace("if (i > 0)", "[branch] if (i > 0)"));
    assert!(err.contains("Using pointers with OpPhi requires capability"), "{err}");
}

#[test]
fn a_buffer_chosen_by_returns_is_reported_as_a_phi() {
    let source = "int i;
RWStructuredBuffer<float> a;
RWStructuredBuffer<float> b;
RWStructuredBuffer<float> pick(int l) {
  if (l == 0) { return a; } else { return b; }
}
[numthreads(1, 1, 1)]
void main() {
  RWStructuredBuffer<float> l = pick(i);
  l[i] = 1.0;
}
";
    let err = error_of(source);
    assert!(err.contains("Using pointers with OpPhi requires capability"), "{err}");
}

#[test]
fn the_conversion_selector_takes_the_targets_signedness() {
    let source = "#include <vk/opcode_selector.h>
RWStructuredBuffer<uint4> s;
RWStructuredBuffer<int16_t4> t;
RWStructuredBuffer<uint64_t> u;
RWStructuredBuffer<float> f;
[numthreads(1, 1, 1)]
void main() {
  t[0] = vk::util::ConversionSelector<uint32_t, int16_t>::Convert<int16_t4>(s[0]);
  u[0] = vk::util::ConversionSelector<int32_t, uint64_t>::Convert<uint64_t>(int(s[1].x));
  f[0] = vk::util::ConversionSelector<float, float>::Convert<float>(f[1]);
}
";
    let args = ["-T", "cs_6_2", "-E", "main", "-spirv", "-enable-16bit-types", "-fspv-target-env=vulkan1.3"];
    let text = disassemble(&args, source);
    let body = function_body(&text);
    assert!(body.contains("OpSConvert %v4short"), "{body}");
    assert!(body.contains("OpUConvert %ulong"), "{body}");
    assert!(!body.contains("OpCopyObject"), "{body}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.3"]);
}

#[test]
fn inline_spirv_with_literal_operands_is_refused() {
    let source =
        "[[vk::ext_instruction(/* OpBitFieldInsert */ 201)]] uint insert(uint a, uint b, uint o, uint c);
RWStructuredBuffer<uint> s;
[numthreads(1, 1, 1)]
void main() { s[0] = insert(s[1], s[2], 0, 1); }
";
    // All four are ids, so it compiles to the instruction itself.
    let args = ["-T", "cs_6_0", "-E", "main", "-spirv"];
    let text = disassemble(&args, source);
    assert!(function_body(&text).contains("OpBitFieldInsert %uint"), "{text}");
    assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);
    // OpExtInst-like operands (a literal) are not supported yet, and say so.
    let literal = "[[vk::ext_instruction(/* OpCompositeExtract */ 81)]] float first(float4 v, [[vk::ext_literal]] int i);
RWStructuredBuffer<float4> s;
[numthreads(1, 1, 1)]
void main() { s[0].x = first(s[1], 0); }
";
    let out = run(&["-T", "cs_6_0", "-E", "main", "-spirv", "-"], literal);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("not supported yet"), "{err}");
}

/// A texture offset computed from constants (`2 * int2(-1, 1)`, the Wicked Engine's
/// shadow filter) is a constant for clang; legalization folds the arithmetic and writes
/// `ConstOffset` (a variable `Offset` is for gathers only in Vulkan).
#[test]
fn an_offset_computed_from_constants_becomes_a_const_offset() {
    let source = "Texture2D<float> t : register(t0);
SamplerComparisonState s : register(s0);
RWTexture2D<float> o : register(u0);
[numthreads(8, 8, 1)]
void main(uint2 id : SV_DispatchThreadID) {
  float2 uv = id / 8.0;
  o[id] = t.SampleCmpLevelZero(s, uv, 0.5, 2 * int2(-1, 1) + -int2(0, 1)).r;
}
";
    for level in ["-O0", "-O3"] {
        let args = ["-T", "cs_6_0", "-E", "main", "-spirv", level];
        let text = disassemble(&args, source);
        assert!(text.contains("Lod|ConstOffset"), "{level}:\n{text}");
        assert!(text.contains("OpConstantComposite %v2int %int_n2 %int_1"), "{level}:\n{text}");
        assert_valid_binary(&args, source, &["--target-env", "vulkan1.0"]);
    }
}
