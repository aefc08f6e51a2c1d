//! `CpuDevice` on real compute shaders: the kernels of ../shared/kernels compiled by
//! glslangValidator (skipped with a message when either is missing), run on the CPU
//! and checked against plain Rust versions of the same algorithms.

use std::path::{Path, PathBuf};
use std::process::Command;

mod common;

use common::{dispatch, f32s, read_f32s, read_u32s, u32s};

use spirvkit_jit::CpuDevice;
use spirvkit_run::{Binding, BufferKind, Device, RunError};

fn kernels_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/kernels")
}

/// The SPIR-V words of shared kernel `name`, or `None` (with a message) when the
/// kernels or glslangValidator are missing.
fn kernel_words(name: &str) -> Option<Vec<u32>> {
    compile_source(&kernels_dir().join(format!("{name}.hlsl")), &["-D"])
}

fn compile_source(source: &Path, extra: &[&str]) -> Option<Vec<u32>> {
    if !source.exists() {
        eprintln!("skipping: {} is absent", source.display());
        return None;
    }
    common::glslang_words(source, extra)
}

fn uniform(values: &[u32]) -> Binding {
    let mut data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    data.resize(16, 0);
    Binding { set: 0, binding: 0, kind: BufferKind::Uniform, data }
}

fn storage(binding: u32, data: Vec<u8>) -> Binding {
    Binding { set: 0, binding, kind: BufferKind::Storage, data }
}

/// The 1-D kernels' grid: groups of 256, rows of 1024 groups.
fn grid_1d(n: usize) -> [u32; 3] {
    let g = n.div_ceil(256) as u32;
    [g.min(1024), g.div_ceil(1024), 1]
}

#[test]
fn saxpy() {
    let Some(words) = kernel_words("saxpy") else { return };
    let n = 300_000usize;
    let a = 1.5f32;
    let x: Vec<f32> = (0..n).map(|i| (i % 1000) as f32 * 0.25).collect();
    let y: Vec<f32> = (0..n).map(|i| (i % 7) as f32).collect();
    let mut bindings =
        vec![uniform(&[n as u32, a.to_bits()]), storage(1, f32s(x.clone())), storage(2, f32s(y.clone()))];
    let timings = CpuDevice::new().run(&dispatch(&words, grid_1d(n)), &mut bindings, None).expect("runs");
    assert_eq!(timings.dispatch_ms.len(), 1);
    let got = read_f32s(&bindings[2].data);
    for i in 0..n {
        assert_eq!(got[i], a.mul_add(x[i], y[i]), "y[{i}]");
    }
}

#[test]
fn reduce() {
    let Some(words) = kernel_words("reduce") else { return };
    let n = 100_003usize;
    let g = n.div_ceil(256);
    let src: Vec<f32> = (0..n).map(|i| (i % 13) as f32).collect();
    let mut bindings = vec![uniform(&[n as u32]), storage(1, f32s(src.clone())), storage(2, vec![0; g * 4])];
    CpuDevice::new().run(&dispatch(&words, grid_1d(n)), &mut bindings, None).expect("runs");
    let got = read_f32s(&bindings[2].data);
    for (k, v) in got.iter().enumerate() {
        let want: f32 = src[k * 256..((k + 1) * 256).min(n)].iter().sum();
        assert_eq!(*v, want, "partial[{k}]");
    }
}

#[test]
fn histogram() {
    let Some(words) = kernel_words("histogram") else { return };
    let n = 200_000usize;
    let data: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761) >> 7).collect();
    let mut bindings =
        vec![uniform(&[n as u32]), storage(1, u32s(data.clone())), storage(2, vec![0; 256 * 4])];
    CpuDevice::new().run(&dispatch(&words, grid_1d(n)), &mut bindings, None).expect("runs");
    let mut want = vec![0u32; 256];
    for v in &data {
        want[(v & 255) as usize] += 1;
    }
    assert_eq!(read_u32s(&bindings[2].data), want);
}

#[test]
fn scan() {
    let Some(words) = kernel_words("scan") else { return };
    let n = 70_001usize;
    let src: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
    let mut bindings = vec![uniform(&[n as u32]), storage(1, u32s(src.clone())), storage(2, vec![0; n * 4])];
    CpuDevice::new().run(&dispatch(&words, grid_1d(n)), &mut bindings, None).expect("runs");
    let got = read_u32s(&bindings[2].data);
    let mut acc = 0u32;
    for i in 0..n {
        acc = if i % 256 == 0 { src[i] } else { acc.wrapping_add(src[i]) };
        assert_eq!(got[i], acc, "dst[{i}]");
    }
}

fn matmul(name: &str) {
    let Some(words) = kernel_words(name) else { return };
    let n = 37usize; // not a multiple of 16: partial tiles
    let a: Vec<f32> = (0..n * n).map(|i| ((i * 7) % 11) as f32 - 5.0).collect();
    let b: Vec<f32> = (0..n * n).map(|i| ((i * 5) % 13) as f32 * 0.5).collect();
    let mut bindings = vec![
        uniform(&[n as u32]),
        storage(1, f32s(a.clone())),
        storage(2, f32s(b.clone())),
        storage(3, vec![0; n * n * 4]),
    ];
    let g = n.div_ceil(16) as u32;
    CpuDevice::new().run(&dispatch(&words, [g, g, 1]), &mut bindings, None).expect("runs");
    let got = read_f32s(&bindings[3].data);
    for r in 0..n {
        for c in 0..n {
            let mut acc = 0f32;
            for k in 0..n {
                acc += a[r * n + k] * b[k * n + c];
            }
            assert_eq!(got[r * n + c], acc, "{name}: C[{r}][{c}]");
        }
    }
}

#[test]
fn matmul_naive() {
    matmul("matmul_naive");
}

#[test]
fn matmul_tiled() {
    matmul("matmul_tiled");
}

#[test]
fn mandelbrot() {
    let Some(words) = kernel_words("mandelbrot") else { return };
    let n = 100usize;
    let mut bindings = vec![uniform(&[n as u32]), storage(1, vec![0; n * n * 4])];
    let g = n.div_ceil(16) as u32;
    CpuDevice::new().run(&dispatch(&words, [g, g, 1]), &mut bindings, None).expect("runs");
    let got = read_u32s(&bindings[1].data);
    let scale = 3.0f32 / n as f32;
    for y in 0..n {
        for x in 0..n {
            let cx = -2.0 + (x as f32 + 0.5) * scale;
            let cy = -1.5 + (y as f32 + 0.5) * scale;
            let (mut zx, mut zy, mut it) = (0f32, 0f32, 0u32);
            while it < 256 {
                let (xx, yy) = (zx * zx, zy * zy);
                if xx + yy > 4.0 {
                    break;
                }
                let xy = zx * zy;
                zy = xy + xy + cy;
                zx = xx - yy + cx;
                it += 1;
            }
            assert_eq!(got[y * n + x], it, "pixel ({x}, {y})");
        }
    }
}

#[test]
fn a_missing_binding_is_an_argument_error() {
    let Some(words) = kernel_words("saxpy") else { return };
    let mut bindings = vec![uniform(&[16, 0]), storage(1, vec![0; 64])];
    let err = CpuDevice::new().run(&dispatch(&words, [1, 1, 1]), &mut bindings, None).unwrap_err();
    assert!(matches!(&err, RunError::Arguments(m) if m.contains("binding 2:0")), "{err}");
}

/// A GLSL source compiled for Vulkan 1.1 (subgroup operations).
fn glsl_words(name: &str, source: &str) -> Option<Vec<u32>> {
    let path = std::env::temp_dir().join(format!("spirvkit-device-{}-{name}.comp", std::process::id()));
    std::fs::write(&path, source).expect("write");
    let words = compile_source(&path, &["--target-env", "vulkan1.1"]);
    let _ = std::fs::remove_file(&path);
    words
}

#[test]
fn subgroup_operations_over_a_subgroup_of_one() {
    let source = r#"#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_KHR_shader_subgroup_ballot : require
layout(local_size_x = 8) in;
layout(set = 0, binding = 1) buffer Out { uint v[]; } o;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint b = i * 8;
  o.v[b + 0] = gl_SubgroupSize;
  o.v[b + 1] = gl_SubgroupInvocationID;
  o.v[b + 2] = subgroupAdd(i + 1);
  o.v[b + 3] = subgroupExclusiveAdd(i + 1);
  o.v[b + 4] = subgroupElect() ? 1 : 0;
  o.v[b + 5] = subgroupBallot(i % 2 == 0).x;
  o.v[b + 6] = i * 3; // subgroupBroadcastFirst: the conversion does not lower it yet
  o.v[b + 7] = subgroupMax(i) + subgroupExclusiveMin(i);
}
"#;
    let Some(words) = glsl_words("subgroup", source) else { return };
    let mut bindings = vec![storage(1, vec![0; 16 * 8 * 4])];
    CpuDevice::new().run(&dispatch(&words, [2, 1, 1]), &mut bindings, None).expect("runs");
    let got = read_u32s(&bindings[0].data);
    for i in 0..16u32 {
        let want = [1, 0, i + 1, 0, 1, u32::from(i % 2 == 0), i * 3, i.wrapping_add(u32::MAX)];
        assert_eq!(got[i as usize * 8..i as usize * 8 + 8], want, "invocation {i}");
    }
}

#[test]
fn hostile_indices_stay_inside_their_memory() {
    // Out-of-range dynamic indices into workgroup memory, a local array and a buffer:
    // reads give zero, writes are dropped, nothing else is touched.
    let source = r#"#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
shared uint tile[4];
void main() {
  uint i = gl_LocalInvocationID.x;
  uint far = io.v[0];            // 1000000 from the host
  uint local_array[2];
  local_array[0] = 7; local_array[1] = 8;
  tile[i] = 10 + i;
  barrier();
  tile[far + i] = 99;            // dropped
  local_array[far] = 5;          // dropped
  io.v[far + i] = 123;           // dropped
  barrier();
  io.v[1 + i] = tile[i] + tile[far] + local_array[far] + local_array[1] + io.v[far];
}
"#;
    let Some(words) = glsl_words("hostile", source) else { return };
    let mut data = u32s([1_000_000, 0, 0, 0, 0, 0, 0, 0]);
    data.resize(32, 0);
    let mut bindings = vec![storage(0, data)];
    CpuDevice::new().run(&dispatch(&words, [1, 1, 1]), &mut bindings, None).expect("runs");
    let got = read_u32s(&bindings[0].data);
    assert_eq!(got, [1_000_000, 18, 19, 20, 21, 0, 0, 0]);
}

#[test]
fn a_runaway_shader_stops_at_the_time_limit() {
    let source = r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  while (io.v[1] == 0) { io.v[0] += 1; }
}
"#;
    let Some(words) = glsl_words("runaway", source) else { return };
    let mut bindings = vec![storage(0, vec![0; 8])];
    let mut d = dispatch(&words, [2, 1, 1]);
    d.time_limit = Some(std::time::Duration::from_millis(300));
    let start = std::time::Instant::now();
    let err = CpuDevice::new().run(&d, &mut bindings, None).unwrap_err();
    assert!(matches!(err, RunError::TimeLimit { .. }), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn a_runaway_loop_around_a_barrier_stops_at_the_time_limit() {
    // Each iteration ends at the barrier, so no call of the invocation function loops:
    // the workgroup's rounds are the runaway loop, and the flag is read between rounds.
    let source = r#"#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
shared uint s[4];
void main() {
  uint i = gl_LocalInvocationID.x;
  while (io.v[4] == 0) {
    s[i] = io.v[i] + 1;
    barrier();
    io.v[i] = s[(i + 1) % 4];
    barrier();
  }
}
"#;
    let Some(words) = glsl_words("runaway-barrier", source) else { return };
    let mut bindings = vec![storage(0, vec![0; 8 * 4])];
    let mut d = dispatch(&words, [2, 1, 1]);
    d.time_limit = Some(std::time::Duration::from_millis(300));
    let start = std::time::Instant::now();
    let err = CpuDevice::new().run(&d, &mut bindings, None).unwrap_err();
    assert!(matches!(err, RunError::TimeLimit { .. }), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn constant_trip_loops_and_a_long_loop_give_the_same_results_as_before() {
    // A constant-trip inner loop (its poll folds away), nested in a loop whose trip count
    // comes from the buffer and runs past the poll interval (the countdown resets):
    // the results must not depend on where the flag is read.
    let source = r#"#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  uint i = gl_GlobalInvocationID.x;
  uint n = io.v[0];
  uint acc = i;
  for (uint k = 0; k < n; k++) {
    for (uint j = 0; j < 16; j++) { acc = acc * 3u + j; }
  }
  io.v[1 + i] = acc;
}
"#;
    let Some(words) = glsl_words("poll-results", source) else { return };
    let n = 70_000u32; // more than 65536 header passes per invocation
    let mut data = vec![0u32; 17];
    data[0] = n;
    let mut bindings = vec![storage(0, u32s(data))];
    CpuDevice::new().run(&dispatch(&words, [2, 1, 1]), &mut bindings, None).expect("runs");
    let got = read_u32s(&bindings[0].data);
    for i in 0..16u32 {
        let mut acc = i;
        for _ in 0..n {
            for j in 0..16u32 {
                acc = acc.wrapping_mul(3).wrapping_add(j);
            }
        }
        assert_eq!(got[1 + i as usize], acc, "invocation {i}");
    }
}

#[test]
fn spec_constants_set_the_workgroup_size_and_values() {
    let source = r#"#version 450
layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint SCALE = 2;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  io.v[gl_GlobalInvocationID.x] = gl_WorkGroupSize.x * 1000 + gl_LocalInvocationID.x * SCALE;
}
"#;
    let Some(words) = glsl_words("spec", source) else { return };
    let mut bindings = vec![storage(0, vec![0; 8 * 4])];
    let spec = [spirvkit_run::SpecValue { id: 0, bits: 4 }, spirvkit_run::SpecValue { id: 1, bits: 10 }];
    let mut d = dispatch(&words, [2, 1, 1]);
    d.spec = &spec;
    CpuDevice::new().run(&d, &mut bindings, None).expect("runs");
    assert_eq!(read_u32s(&bindings[0].data), [4000, 4010, 4020, 4030, 4000, 4010, 4020, 4030]);
}

#[test]
fn a_workgroup_array_sized_by_a_spec_constant_takes_the_given_value() {
    // The nbody sample's shape: `shared vec4 data[SIZE]` with SIZE a spec constant. The
    // array type names the constant, so its declaration must survive the substitution.
    let source = r#"#version 450
layout(local_size_x = 4) in;
layout(constant_id = 0) const uint SIZE = 2;
shared uint data[SIZE];
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  uint l = gl_LocalInvocationID.x;
  data[l % SIZE] = 0;
  barrier();
  atomicAdd(data[l % SIZE], l + 1);
  barrier();
  io.v[gl_GlobalInvocationID.x] = data[l % SIZE] * 100 + SIZE;
}
"#;
    let Some(words) = glsl_words("spec_array", source) else { return };
    let mut bindings = vec![storage(0, vec![0; 4 * 4])];
    let spec = [spirvkit_run::SpecValue { id: 0, bits: 4 }];
    let mut d = dispatch(&words, [1, 1, 1]);
    d.spec = &spec;
    CpuDevice::new().run(&d, &mut bindings, None).expect("runs");
    // With SIZE = 4 every invocation has its own element.
    assert_eq!(read_u32s(&bindings[0].data), [104, 204, 304, 404]);
    // With the default SIZE = 2, invocations 0 and 2 share one, 1 and 3 the other.
    let mut bindings = vec![storage(0, vec![0; 4 * 4])];
    CpuDevice::new().run(&dispatch(&words, [1, 1, 1]), &mut bindings, None).expect("runs");
    assert_eq!(read_u32s(&bindings[0].data), [402, 602, 402, 602]);
}

/// The CPU device's LLVM IR for the compute kernel `main` in SPIR-V assembly `body`
/// (after a shared header declaring `%void`, `%fn`, `%uint`, `%v2uint`, `%bool`,
/// `%uint_3`, `%true` and `%v`, a `uvec2` constant); `None` when spirv-as is absent.
fn kernel_ir_of(name: &str, body: &str) -> Option<Result<String, RunError>> {
    let source = format!(
        r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main"
               OpExecutionMode %main LocalSize 1 1 1
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
     %v2uint = OpTypeVector %uint 2
       %bool = OpTypeBool
     %uint_3 = OpConstant %uint 3
       %true = OpConstantTrue %bool
          %v = OpConstantComposite %v2uint %uint_3 %uint_3
       %main = OpFunction %void None %fn
      %entry = OpLabel
{body}
               OpFunctionEnd
"#
    );
    let words = assembled_words(name, &source)?;
    Some(spirvkit_jit::device::kernel_llvm_ir(&words, "main", &[]).map(|(text, _, _)| text))
}

/// [`kernel_ir_of`]'s refusal (the test fails if the kernel is accepted).
fn refusal(name: &str, body: &str) -> Option<String> {
    kernel_ir_of(name, body).map(|r| r.expect_err("refused").to_string())
}

#[test]
fn an_ill_typed_module_is_refused_before_llvm_sees_it() {
    // `OpIMul` of a uint by a bool: the reader takes it (SPIR-V's typing rules are the
    // validator's), so the conversion would write `mul i32 %x, %flag` with an i1 operand.
    // The deserialized module is verified first and refused by op.
    let Some(err) = refusal("ill-typed", "%m = OpIMul %uint %uint_3 %true\nOpReturn") else { return };
    assert!(err.contains("is not valid SPIR-V (spirv.IMul)"), "{err}");
}

#[test]
fn a_value_used_where_its_definition_does_not_dominate_is_refused() {
    // Fuzz finding class: a loop's continue block branching on a value of its body, which
    // the header may skip, so LLVM's verifier rejects it ("Instruction does not dominate
    // all uses"). A value defined on one arm of a selection and used after it is the
    // same class.
    let body = "OpBranch %header\n%header = OpLabel\nOpLoopMerge %merge %cont None\n\
                OpBranchConditional %true %body %cont\n%body = OpLabel\n%c = OpLogicalNot %bool %true\n\
                OpBranch %cont\n%cont = OpLabel\nOpBranchConditional %c %header %merge\n\
                %merge = OpLabel\nOpReturn";
    let Some(err) = refusal("dominance", body) else { return };
    // The reader refuses it now (as spirv-val does), naming the value and both blocks.
    assert!(err.contains("the module does not deserialize"), "{err}");
    assert!(err.contains("which does not dominate its use in block"), "{err}");
    assert!(err.contains("(spirv.BranchConditional)"), "{err}");
}

#[test]
fn a_vector_shuffle_selector_out_of_range_is_refused() {
    // Fuzz finding class: a selector past both vectors became an invalid `shufflevector`.
    let Some(err) = refusal("shuffle", "%s = OpVectorShuffle %v2uint %v %v 0 4\nOpReturn") else { return };
    assert!(err.contains("component selector 4 out of range: expected to be in [0, 4)"), "{err}");
    // 0xFFFFFFFF (an undefined component) is valid, and so are both vectors' components.
    let undefined =
        kernel_ir_of("shuffle-undef", "%s = OpVectorShuffle %v2uint %v %v 3 4294967295\nOpReturn");
    assert!(undefined.as_ref().is_none_or(|r| r.is_ok()), "{undefined:?}");
}

#[test]
fn a_phi_of_another_type_than_its_incoming_value_is_refused() {
    // Fuzz finding class: an `OpPhi` of uint fed a bool became `phi i32 [true, ...]`;
    // the branch forwarding it does not match its target's argument.
    let body = "OpBranch %next\n%next = OpLabel\n%p = OpPhi %uint %true %entry\nOpReturn";
    let Some(err) = refusal("phi", body) else { return };
    assert!(err.contains("type mismatch for bb argument #0 of successor #0"), "{err}");
}

#[test]
fn runtime_array_lengths_come_from_the_bound_buffers_sizes() {
    // OpArrayLength: the elements of the trailing runtime array that fit in the bound
    // buffer after the members before it (Vulkan's rule; a partial element does not
    // count, nor does one with too few bytes for an element).
    let source = r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer Items { uint header; vec4 items[]; } items;
layout(set = 0, binding = 1) buffer Short { uvec4 head; uint rest[]; } short_buffer;
layout(set = 0, binding = 2) buffer Out { uint v[]; } o;
void main() {
  o.v[0] = items.items.length();
  o.v[1] = short_buffer.rest.length();
  o.v[2] = o.v.length();
  uint sum = 0;
  for (int i = 0; i < items.items.length(); i++) sum += uint(items.items[i].x);
  o.v[3] = sum;
}
"#;
    let Some(words) = glsl_words("array_length", source) else { return };
    // 16 bytes of header, then 5 whole vec4s and half of a sixth.
    let mut items = vec![0u8; 16 + 5 * 16 + 8];
    for i in 0..5 {
        items[16 + i * 16..16 + i * 16 + 4].copy_from_slice(&((i + 1) as f32).to_le_bytes());
    }
    let mut bindings = vec![storage(0, items), storage(1, vec![0; 16 + 3]), storage(2, vec![0; 6 * 4])];
    CpuDevice::new().run(&dispatch(&words, [1, 1, 1]), &mut bindings, None).expect("runs");
    assert_eq!(read_u32s(&bindings[2].data), [5, 0, 6, 15, 0, 0]);
}

#[test]
fn glsl_std_450_modf_frexp_inverse_and_packing_give_glsls_answers() {
    let source = r#"#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer In { float x[4]; mat3 m3; mat4 m4; } src;
layout(set = 0, binding = 1) buffer Out { float f[32]; uint u[8]; int e[4]; } o;
struct Parts { float fraction; float whole; };
void main() {
  float whole;
  o.f[0] = modf(src.x[0], whole);              // -2.75: -0.75, -2
  o.f[1] = whole;
  vec2 wv;
  vec2 fv = modf(vec2(src.x[1], src.x[2]), wv); // 5.5, -3: 0.5 / -0, 5 / -3
  o.f[2] = fv.x; o.f[3] = fv.y; o.f[4] = wv.x; o.f[5] = wv.y;
  int ex;
  o.f[6] = frexp(src.x[3], ex);                 // 48: 0.75 * 2^6
  o.e[0] = ex;
  ivec2 exs;
  vec2 sig = frexp(vec2(src.x[0], 0.0), exs);  // -2.75: -0.6875 * 2^2; 0: 0, 0
  o.f[7] = sig.x; o.f[8] = sig.y; o.e[1] = exs.x; o.e[2] = exs.y;
  mat3 i3 = inverse(src.m3);
  o.f[9] = i3[0][0]; o.f[10] = i3[1][0]; o.f[11] = i3[2][2]; o.f[12] = i3[0][1];
  mat4 i4 = inverse(src.m4);
  o.f[13] = i4[0][0]; o.f[14] = i4[3][3]; o.f[15] = i4[3][0];
  mat2 i2 = inverse(mat2(src.x[3], 1.0, 2.0, 1.0)); // [[48,1],[2,1]]: det 46
  o.f[16] = i2[0][0]; o.f[17] = i2[0][1]; o.f[18] = i2[1][0]; o.f[19] = i2[1][1];
  o.u[0] = packUnorm4x8(vec4(0.0, 0.5, 1.5, 1.0 / 255.0));
  o.u[1] = packSnorm4x8(vec4(-1.0, -0.5, 0.25, 2.0));
  o.u[2] = packUnorm2x16(vec2(0.25, 1.0));
  o.u[3] = packSnorm2x16(vec2(-0.25, 1.0));
  vec4 un = unpackUnorm4x8(0x80ff0033u);
  o.f[20] = un.x; o.f[21] = un.y; o.f[22] = un.z; o.f[23] = un.w;
  vec4 sn = unpackSnorm4x8(0x8081007fu);
  o.f[24] = sn.x; o.f[25] = sn.y; o.f[26] = sn.z; o.f[27] = sn.w;
  o.f[28] = asinh(src.x[1]);
  o.f[29] = acosh(src.x[1]);
  o.f[30] = atanh(0.5);
  o.f[31] = asinh(-src.x[1]);
}
"#;
    let Some(words) = glsl_words("glsl_ops", source) else { return };
    // m3 (std430: three vec3 columns at a 16-byte stride) = diag(2, 4, 8) with m3[1][0] = 1;
    // m4 = diag(1, 2, 4, 8) with m4[3][0] = 3 (a translation).
    let mut input = f32s([-2.75, 5.5, -3.0, 48.0]);
    let m3 = [[2.0, 0.0, 0.0, 0.0], [1.0, 4.0, 0.0, 0.0], [0.0, 0.0, 8.0, 0.0]];
    input.extend(f32s(m3.iter().flatten().copied()));
    let m4 = [[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 0.0, 0.0], [0.0, 0.0, 4.0, 0.0], [3.0, 0.0, 0.0, 8.0]];
    input.extend(f32s(m4.iter().flatten().copied()));
    let mut bindings = vec![storage(0, input), storage(1, vec![0; (32 + 8 + 4) * 4])];
    CpuDevice::new().run(&dispatch(&words, [1, 1, 1]), &mut bindings, None).expect("runs");
    let out = &bindings[1].data;
    let f = read_f32s(&out[..128]);
    let u = read_u32s(&out[128..160]);
    let e: Vec<i32> = read_u32s(&out[160..176]).into_iter().map(|v| v as i32).collect();
    let bits = |v: f32| v.to_bits();
    // modf: the fraction keeps x's sign (-0.0 for -3.0).
    assert_eq!(
        f[..6].iter().map(|&v| bits(v)).collect::<Vec<_>>(),
        [-0.75f32, -2.0, 0.5, -0.0, 5.0, -3.0].map(bits)
    );
    assert_eq!((f[6], e[0]), (0.75, 6));
    assert_eq!((f[7], e[1], f[8], e[2]), (-0.6875, 2, 0.0, 0));
    // inverse(m3): [[0.5, 0, 0], [-0.125, 0.25, 0], [0, 0, 0.125]] by columns.
    assert_eq!(f[9..13], [0.5, -0.125, 0.125, 0.0]);
    // inverse(m4): diag(1, 0.5, 0.25, 0.125), translation -3 * 1 / 1 scaled: i4[3][0] = -3 / 8.
    assert_eq!(f[13..16], [1.0, 0.125, -0.375]);
    let want2 = [1.0 / 46.0, -1.0 / 46.0, -2.0 / 46.0, 48.0 / 46.0];
    for (got, want) in f[16..20].iter().zip(want2) {
        assert!((got - want).abs() <= f32::EPSILON * want.abs(), "{got} vs {want}");
    }
    // Packing: clamped, scaled, rounded to even, first component lowest.
    assert_eq!(u[0], 0x01ff_8000);
    assert_eq!(u[1], 0x7f20_c081);
    assert_eq!(u[2], 0xffff_4000);
    assert_eq!(u[3], 0x7fff_e000);
    assert_eq!(f[20..24], [0x33 as f32 / 255.0, 0.0, 1.0, 128.0 / 255.0]);
    assert_eq!(f[24..28], [1.0, 0.0, -1.0, -1.0]);
    for (got, want) in [
        (f[28], 5.5f32.asinh()),
        (f[29], 5.5f32.acosh()),
        (f[30], 0.5f32.atanh()),
        (f[31], -(5.5f32.asinh())),
    ] {
        assert!((got - want).abs() <= 4.0 * f32::EPSILON * want.abs(), "{got} vs {want}");
    }
}

/// The words of a SPIR-V assembly text, or `None` (with a message) without spirv-as.
fn assembled_words(name: &str, source: &str) -> Option<Vec<u32>> {
    let dir = std::env::temp_dir();
    let asm = dir.join(format!("spirvkit-{name}-{}.spvasm", std::process::id()));
    let spv = asm.with_extension("spv");
    std::fs::write(&asm, source).expect("write");
    let assembled = Command::new("spirv-as").arg(&asm).arg("-o").arg(&spv).status();
    let _ = std::fs::remove_file(&asm);
    if !assembled.is_ok_and(|s| s.success()) {
        eprintln!("skipped: spirv-as is not installed");
        return None;
    }
    let bytes = std::fs::read(&spv).expect("read");
    let _ = std::fs::remove_file(&spv);
    Some(bytes.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect())
}

#[test]
fn private_variables_start_from_their_initializer_in_every_invocation() {
    // `Private uint table[3] = {10, 20, 30}`: each invocation adds its index to element
    // id % 3 and writes it; every invocation must see the initial table, also after a
    // barrier (the frame keeps the variable, the initializer runs once per invocation).
    let source = r#"
               OpCapability Shader
               OpMemoryModel Logical GLSL450
               OpEntryPoint GLCompute %main "main" %gid
               OpExecutionMode %main LocalSize 4 1 1
               OpDecorate %gid BuiltIn GlobalInvocationId
               OpDecorate %rta ArrayStride 4
               OpMemberDecorate %Out 0 Offset 0
               OpDecorate %Out Block
               OpDecorate %out DescriptorSet 0
               OpDecorate %out Binding 0
       %void = OpTypeVoid
         %fn = OpTypeFunction %void
       %uint = OpTypeInt 32 0
      %v3int = OpTypeVector %uint 3
     %uint_0 = OpConstant %uint 0
     %uint_2 = OpConstant %uint 2
     %uint_3 = OpConstant %uint 3
   %uint_264 = OpConstant %uint 264
    %uint_10 = OpConstant %uint 10
    %uint_20 = OpConstant %uint 20
    %uint_30 = OpConstant %uint 30
      %table = OpTypeArray %uint %uint_3
       %init = OpConstantComposite %table %uint_10 %uint_20 %uint_30
  %ptr_table = OpTypePointer Private %table
   %ptr_elem = OpTypePointer Private %uint
        %rta = OpTypeRuntimeArray %uint
        %Out = OpTypeStruct %rta
    %ptr_out = OpTypePointer StorageBuffer %Out
    %ptr_buf = OpTypePointer StorageBuffer %uint
     %ptr_id = OpTypePointer Input %v3int
        %gid = OpVariable %ptr_id Input
        %out = OpVariable %ptr_out StorageBuffer
          %g = OpVariable %ptr_table Private %init
       %main = OpFunction %void None %fn
      %entry = OpLabel
         %id = OpLoad %v3int %gid
          %x = OpCompositeExtract %uint %id 0
          %k = OpUMod %uint %x %uint_3
          %p = OpAccessChain %ptr_elem %g %k
          %v = OpLoad %uint %p
          %s = OpIAdd %uint %v %x
               OpStore %p %s
               OpControlBarrier %uint_2 %uint_2 %uint_264
         %v2 = OpLoad %uint %p
          %q = OpAccessChain %ptr_buf %out %uint_0 %x
               OpStore %q %v2
               OpReturn
               OpFunctionEnd
"#;
    let Some(words) = assembled_words("private_init", source) else { return };
    let mut bindings = vec![storage(0, vec![0; 8 * 4])];
    CpuDevice::new().run(&dispatch(&words, [2, 1, 1]), &mut bindings, None).expect("runs");
    let want: Vec<u32> = (0..8u32).map(|x| [10, 20, 30][(x % 3) as usize] + x).collect();
    assert_eq!(read_u32s(&bindings[0].data), want);
}
