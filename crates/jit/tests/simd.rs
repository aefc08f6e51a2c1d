//! The SIMD path of the CPU device (8 invocations as vector lanes, `cpu_kernel/simd.rs`):
//! kernels with divergent loops, lanes past the workgroup size, early returns, accesses
//! out of bounds in some lanes, compared with plain Rust models of the same shaders.
//! Each test first checks that the kernel does take the SIMD path. Skipped with a
//! message when glslangValidator is missing.

mod common;

use spirvkit_jit::device::kernel_llvm_ir;
use spirvkit_jit::CpuDevice;
use spirvkit_run::{Binding, BufferKind, Device, Dispatch, RunError};

fn glsl_words(name: &str, source: &str) -> Option<Vec<u32>> {
    common::glsl_words("simd", name, source)
}

fn assert_simd(words: &[u32]) {
    let (_, layout, _) = kernel_llvm_ir(words, "main", &[]).expect("compiles");
    assert_eq!(layout.lanes, 8, "the SIMD path was refused: {:?}", layout.simd_refused);
}

fn run(words: &[u32], groups: [u32; 3], threads: usize, data: Vec<u32>) -> Vec<u32> {
    let d = Dispatch {
        spirv: words,
        entry: "main",
        groups,
        spec: &[],
        push: &[],
        threads: Some(threads),
        time_limit: None,
        repeat: 1,
    };
    let bytes = data.iter().flat_map(|v| v.to_le_bytes()).collect();
    let mut bindings = vec![Binding { set: 0, binding: 0, kind: BufferKind::Storage, data: bytes }];
    CpuDevice::new().run(&d, &mut bindings, None).expect("runs");
    bindings[0].data.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

#[test]
fn a_divergent_loop_with_out_of_bounds_lanes() {
    // 12 invocations per group (the second call of a group has 4 lanes off); trip
    // counts differ per lane; some lanes read and write past the buffer's end.
    let source = r#"#version 450
layout(local_size_x = 12) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  uint g = gl_GlobalInvocationID.x;
  uint n = g % 7;
  uint acc = 0;
  for (uint i = 0; i < n; i++) {
    acc += io.v[64 + g * 3 + i] + i;   // past the end for large g: reads zero
  }
  io.v[g] = acc;
  io.v[220 + g] = 1;                    // past the end for g >= 36: dropped
}
"#;
    let Some(words) = glsl_words("divergent", source) else { return };
    assert_simd(&words);
    let len = 256usize;
    let input: Vec<u32> = (0..len as u32).map(|i| i * 7 + 1).collect();
    let got = run(&words, [4, 1, 1], 2, input.clone());
    let mut want = input.clone();
    for g in 0..48usize {
        let n = g % 7;
        let mut acc = 0u32;
        for i in 0..n {
            let at = 64 + g * 3 + i;
            acc = acc.wrapping_add(input.get(at).copied().unwrap_or(0)).wrapping_add(i as u32);
        }
        want[g] = acc;
        if 220 + g < len {
            want[220 + g] = 1;
        }
    }
    // The reads (64..=211) touch nothing the invocations write (below 48, from 220).
    assert_eq!(got, want);
}

#[test]
fn a_workgroup_size_not_a_multiple_of_the_lanes() {
    // 5 x 3 x 2 = 30 invocations: lanes of one call have different y and z.
    let source = r#"#version 450
layout(local_size_x = 5, local_size_y = 3, local_size_z = 2) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  uvec3 l = gl_LocalInvocationID;
  uint at = gl_LocalInvocationIndex + gl_WorkGroupID.x * 30;
  uint s = 0;
  for (uint i = 0; i <= l.y + l.z; i++) { s += i * 100; }
  io.v[at] = l.x + 10 * l.y + 1000 * l.z + s + 100000 * gl_WorkGroupID.x;
}
"#;
    let Some(words) = glsl_words("odd-size", source) else { return };
    assert_simd(&words);
    let got = run(&words, [3, 1, 1], 2, vec![0; 96]);
    let mut want = vec![0u32; 96];
    for g in 0..3u32 {
        for z in 0..2u32 {
            for y in 0..3u32 {
                for x in 0..5u32 {
                    let flat = (x + 5 * y + 15 * z + 30 * g) as usize;
                    let s: u32 = (0..=y + z).map(|i| i * 100).sum();
                    want[flat] = x + 10 * y + 1000 * z + s + 100_000 * g;
                }
            }
        }
    }
    assert_eq!(got, want);
}

#[test]
fn early_returns_in_some_lanes() {
    // Lanes return before the loop, inside it, or run it to its end; the store to one
    // shared address keeps the last writer of the scalar order.
    let source = r#"#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  uint g = gl_GlobalInvocationID.x;
  io.v[g] = 1;
  if (g % 3 == 0) return;
  uint x = g;
  for (uint i = 0; i < 20; i++) {
    x = x * 3 + 1;
    if ((x & 7) == 5) { io.v[g] = 100 + i; return; }
    if (x > 100000) break;
  }
  io.v[g] = x;
  if (g % 2 == 0) io.v[40] = g;
}
"#;
    let Some(words) = glsl_words("early-return", source) else { return };
    assert_simd(&words);
    let got = run(&words, [2, 1, 1], 1, vec![0; 48]);
    let mut want = vec![0u32; 48];
    for g in 0..32u32 {
        want[g as usize] = 1;
        if g % 3 == 0 {
            continue;
        }
        let mut x = g;
        let mut returned = false;
        for i in 0..20 {
            x = x.wrapping_mul(3).wrapping_add(1);
            if x & 7 == 5 {
                want[g as usize] = 100 + i;
                returned = true;
                break;
            }
            if x > 100_000 {
                break;
            }
        }
        if returned {
            continue;
        }
        want[g as usize] = x;
        if g % 2 == 0 {
            want[40] = g;
        }
    }
    assert_eq!(got, want);
}

#[test]
fn a_runaway_divergent_loop_stops_at_the_time_limit() {
    // Lane 0 never leaves the loop; the others do at once.
    let source = r#"#version 450
layout(local_size_x = 8) in;
layout(set = 0, binding = 0) buffer Io { uint v[]; } io;
void main() {
  uint g = gl_GlobalInvocationID.x;
  while (io.v[1] == 0 && g == 0) { io.v[2] += 1; }
  io.v[3 + g] = g;
}
"#;
    let Some(words) = glsl_words("runaway-divergent", source) else { return };
    assert_simd(&words);
    let d = Dispatch {
        spirv: &words,
        entry: "main",
        groups: [1, 1, 1],
        spec: &[],
        push: &[],
        threads: Some(1),
        time_limit: Some(std::time::Duration::from_millis(300)),
        repeat: 1,
    };
    let mut bindings = vec![Binding { set: 0, binding: 0, kind: BufferKind::Storage, data: vec![0; 64] }];
    let start = std::time::Instant::now();
    let err = CpuDevice::new().run(&d, &mut bindings, None).unwrap_err();
    assert!(matches!(err, RunError::TimeLimit { .. }), "{err}");
    assert!(start.elapsed() < std::time::Duration::from_secs(10));
}
