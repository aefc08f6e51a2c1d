//! Barriers on the CPU device: one invocation loop nest per barrier state, values live
//! across a barrier kept in slot-major frames (varying) or once per workgroup (uniform,
//! passed to the next rounds' invocations as parameters), built-ins recomputed (see `spirvkit_passes::cpu_kernel::workgroup`).
//! Kernels are checked against Rust. GLSL is compiled by glslangValidator and optimized
//! by spirv-opt (so values live across barriers are SSA values, not variables); each is
//! skipped with a message when missing.

mod common;

use std::process::Command;

use spirvkit_jit::device::kernel_llvm_ir;
use spirvkit_jit::CpuDevice;
use spirvkit_run::{Binding, BufferKind, Device};

fn tool(name: &str, args: &[&str]) -> Option<()> {
    match Command::new(name).args(args).output() {
        Ok(out) => {
            assert!(
                out.status.success(),
                "{name}: {}{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            Some(())
        }
        Err(_) => {
            eprintln!("skipping: {name} is not installed");
            None
        }
    }
}

/// The GLSL compute shader `source`, compiled and optimized (`spirv-opt -O`).
fn optimized_glsl_words(name: &str, source: &str) -> Option<Vec<u32>> {
    let dir = std::env::temp_dir();
    let stem = format!("spirvkit-barriers-{}-{name}", std::process::id());
    let glsl = dir.join(format!("{stem}.comp"));
    let raw = dir.join(format!("{stem}.spv"));
    let opt = dir.join(format!("{stem}.opt.spv"));
    std::fs::write(&glsl, source).expect("write");
    let compiled = tool("glslangValidator", &["-V", "-S", "comp", path(&glsl), "-o", path(&raw)]);
    let optimized = compiled.and_then(|()| tool("spirv-opt", &["-O", path(&raw), "-o", path(&opt)]));
    let bytes = optimized.map(|()| std::fs::read(&opt).expect("spv written"));
    for p in [&glsl, &raw, &opt] {
        let _ = std::fs::remove_file(p);
    }
    Some(bytes?.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect())
}

fn path(p: &std::path::Path) -> &str {
    p.to_str().expect("a UTF-8 temporary path")
}

fn storage(binding: u32, values: &[u32]) -> Binding {
    Binding { set: 0, binding, kind: BufferKind::Storage, data: common::u32s(values.iter().copied()) }
}

fn words_of(b: &Binding) -> Vec<u32> {
    common::read_u32s(&b.data)
}

/// Uniform values (four vectors from the group's inputs, and one read from workgroup
/// memory at a uniform index after the first barrier) and a varying one live across
/// three barriers.
const UNIFORM_AND_VARYING: &str = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(set = 0, binding = 1) buffer In { uint x[]; } i;
shared uint tile[64];
void main() {
  uint l = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x;
  uvec4 a = uvec4(i.x[g], i.x[g + 1u], i.x[g + 2u], i.x[g + 3u]) * 3u + 7u;
  uvec4 b = a * a + uvec4(1u, 2u, 3u, 4u);
  uvec4 c = (b ^ a) + 5u;
  uvec4 d = c * 9u + b;
  uint w = i.x[g * 64u + l] * 5u + l;
  tile[l] = w;
  barrier();
  uint t = tile[0] + tile[63u - l];
  uint s = tile[5];
  barrier();
  tile[l] = t * 2u;
  barrier();
  uvec4 sum = a + b + c + d;
  o.v[g * 64u + l] = tile[(l + 1u) % 64u] + sum.x * w + sum.y + sum.z * s + sum.w + (w ^ s);
}
"#;

fn expected(x: &[u32], groups: usize) -> Vec<u32> {
    let mut out = vec![0u32; groups * 64];
    for g in 0..groups {
        let a: Vec<u32> = (0..4).map(|k| x[g + k].wrapping_mul(3).wrapping_add(7)).collect();
        let b: Vec<u32> = (0..4).map(|k| a[k].wrapping_mul(a[k]).wrapping_add(k as u32 + 1)).collect();
        let c: Vec<u32> = (0..4).map(|k| (b[k] ^ a[k]).wrapping_add(5)).collect();
        let d: Vec<u32> = (0..4).map(|k| c[k].wrapping_mul(9).wrapping_add(b[k])).collect();
        let sum: Vec<u32> =
            (0..4).map(|k| a[k].wrapping_add(b[k]).wrapping_add(c[k]).wrapping_add(d[k])).collect();
        let w: Vec<u32> = (0..64).map(|l| x[g * 64 + l].wrapping_mul(5).wrapping_add(l as u32)).collect();
        let s = w[5];
        let tile: Vec<u32> = (0..64).map(|l| w[0].wrapping_add(w[63 - l]).wrapping_mul(2)).collect();
        for l in 0..64 {
            out[g * 64 + l] = tile[(l + 1) % 64]
                .wrapping_add(sum[0].wrapping_mul(w[l]))
                .wrapping_add(sum[1])
                .wrapping_add(sum[2].wrapping_mul(s))
                .wrapping_add(sum[3])
                .wrapping_add(w[l] ^ s);
        }
    }
    out
}

#[test]
fn uniform_and_varying_values_across_barriers_match_rust() {
    let Some(words) = optimized_glsl_words("uniform-varying", UNIFORM_AND_VARYING) else { return };
    let groups = 37usize;
    let x: Vec<u32> = (0..groups as u32 * 64).map(|j| j.wrapping_mul(2_654_435_761) >> 7).collect();
    let mut bindings = vec![storage(0, &vec![0; groups * 64]), storage(1, &x)];
    let dispatch = common::dispatch(&words, [groups as u32, 1, 1]);
    CpuDevice::new().run(&dispatch, &mut bindings, None).expect("runs");
    assert_eq!(words_of(&bindings[0]), expected(&x, groups));
}

/// The four uniform vectors and `s` (68 bytes) are kept once per workgroup: the frames
/// hold the varying `w` per invocation (16 bytes each, aligned) and 80 bytes for the
/// workgroup, 32 bytes per invocation once spread. Kept per invocation they would need
/// at least 72.
#[test]
fn uniform_values_are_kept_once_per_workgroup() {
    let Some(words) = optimized_glsl_words("uniform-once", UNIFORM_AND_VARYING) else { return };
    let (_, layout, _) = kernel_llvm_ir(&words, "main", &[]).expect("compiles");
    assert_eq!(layout.barriers, 3);
    assert!(layout.frame_bytes <= 32, "{layout:?}");
}

/// Built-ins read by component (`gl_WorkGroupID.x`) are recomputed after a barrier,
/// not kept: a kernel whose only values live across its barrier come from built-ins
/// needs no frame.
#[test]
fn built_in_components_are_recomputed_after_a_barrier() {
    let source = r#"#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
shared uint tile[32];
void main() {
  uint l = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x;
  uint n = gl_NumWorkGroups.x;
  tile[l] = l * 3u + g;
  barrier();
  o.v[g * 32u + l] = tile[31u - l] + n * 1000u + l;
}
"#;
    let Some(words) = optimized_glsl_words("builtins", source) else { return };
    let (_, layout, _) = kernel_llvm_ir(&words, "main", &[]).expect("compiles");
    assert_eq!(layout.frame_bytes, 0, "{layout:?}");
    let groups = 5u32;
    let mut bindings = vec![storage(0, &vec![0; groups as usize * 32])];
    let dispatch = common::dispatch(&words, [groups, 1, 1]);
    CpuDevice::new().run(&dispatch, &mut bindings, None).expect("runs");
    let want: Vec<u32> =
        (0..groups).flat_map(|g| (0..32).map(move |l| (31 - l) * 3 + g + groups * 1000 + l)).collect();
    assert_eq!(words_of(&bindings[0]), want);
}

/// A tree reduction: the stride `s` is uniform, changes every round and is kept across
/// the barrier in its loop; each round's invocations must see the value the previous
/// round left, never the one their own round writes.
const TREE_SUM: &str = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
layout(set = 0, binding = 1) buffer In { uint x[]; } i;
shared uint part[64];
void main() {
  uint l = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x;
  part[l] = i.x[g * 64u + l];
  barrier();
  for (uint s = 32u; s > 0u; s >>= 1u) {
    if (l < s)
      part[l] = part[l] * 3u + part[l + s];
    barrier();
  }
  if (l == 0u)
    o.v[g] = part[0];
}
"#;

fn tree_sum(x: &[u32]) -> u32 {
    let mut part = x.to_vec();
    let mut s = part.len() / 2;
    while s > 0 {
        for l in 0..s {
            part[l] = part[l].wrapping_mul(3).wrapping_add(part[l + s]);
        }
        s /= 2;
    }
    part[0]
}

#[test]
fn a_uniform_value_changed_every_round_reaches_the_next_round() {
    let Some(words) = optimized_glsl_words("tree-sum", TREE_SUM) else { return };
    let groups = 19usize;
    let x: Vec<u32> = (0..groups as u32 * 64).map(|j| j.wrapping_mul(2_654_435_761) >> 9).collect();
    let mut bindings = vec![storage(0, &vec![0; groups]), storage(1, &x)];
    let dispatch = common::dispatch(&words, [groups as u32, 1, 1]);
    CpuDevice::new().run(&dispatch, &mut bindings, None).expect("runs");
    let expected: Vec<u32> = x.chunks(64).map(tree_sum).collect();
    assert_eq!(words_of(&bindings[0]), expected);
}

/// The uniform values kept across barriers enter the invocation function as parameters
/// after its state, loaded once per round before the loops (so LLVM needs no alias
/// facts to keep them out of the loops), and the frames are `noalias`.
#[test]
fn uniform_values_kept_across_barriers_are_parameters_of_the_invocation() {
    let Some(words) = optimized_glsl_words("tree-sum-ir", TREE_SUM) else { return };
    let (text, _, _) = kernel_llvm_ir(&words, "main", &[]).expect("compiles");
    let define = text
        .lines()
        .find(|l| l.starts_with("define internal i32 @spirvkit_invocation("))
        .expect("the invocation function");
    let parameters = define.split('(').nth(1).expect("parameters").split(',').count();
    assert!(parameters > 9, "{define}");
    assert!(define.contains("ptr noalias"), "{define}");
}
