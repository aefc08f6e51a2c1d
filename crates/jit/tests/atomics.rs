//! Atomics on the CPU device: workgroup-memory atomics run as plain read-modify-write,
//! reduction buffers are accumulated in per-thread private copies and flushed (see
//! `spirvkit_passes::cpu_kernel::atomics`). Every kernel is checked against Rust, on
//! two threads, so the flushes of both threads meet in the same buffer. GLSL sources
//! are compiled by glslangValidator (skipped with a message when it is missing).

mod common;

use spirvkit_jit::device::kernel_llvm_ir;
use spirvkit_jit::CpuDevice;
use spirvkit_passes::cpu_kernel::atomics::ReductionOp;
use spirvkit_run::{Binding, BufferKind, Device, Dispatch};

fn glsl_words(name: &str, source: &str) -> Option<Vec<u32>> {
    common::glsl_words("atomics", name, source)
}

fn dispatch(words: &[u32], groups: [u32; 3], repeat: u32) -> Dispatch<'_> {
    Dispatch { repeat, ..common::dispatch(words, groups) }
}

fn storage(binding: u32, values: &[u32]) -> Binding {
    let data = values.iter().flat_map(|v| v.to_le_bytes()).collect();
    Binding { set: 0, binding, kind: BufferKind::Storage, data }
}

/// Binding 9: `uniform Params { uint n; }`.
fn params(n: usize) -> Binding {
    let mut data = (n as u32).to_le_bytes().to_vec();
    data.resize(16, 0);
    Binding { set: 0, binding: 9, kind: BufferKind::Uniform, data }
}

const PARAMS: &str = "layout(set = 0, binding = 9) uniform Params { uint n; } params;";

fn words_of(b: &Binding) -> Vec<u32> {
    b.data.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

/// The reductions the kernel pass found: (slot's binding, op).
fn reductions(words: &[u32]) -> Vec<(u32, ReductionOp)> {
    let (_, layout, _) = kernel_llvm_ir(words, "main", &[]).expect("compiles");
    layout.reductions.iter().map(|r| (layout.descriptors[r.slot].binding, r.op)).collect()
}

fn inputs(n: usize) -> Vec<u32> {
    (0..n as u32).map(|i| i.wrapping_mul(2654435761) ^ (i >> 3)).collect()
}

const HISTOGRAM: &str = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Data { uint v[]; } data;
layout(set = 0, binding = 1) buffer Bins { uint v[]; } bins;
PARAMS
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.n) atomicAdd(bins.v[data.v[i] & BINS_MASK], 1u);
}
"#;

fn histogram_source(bins: u32) -> String {
    HISTOGRAM.replace("PARAMS", PARAMS).replace("BINS_MASK", &format!("{}u", bins - 1))
}

/// The histogram of `data` into `bins` bins, `repeat` dispatches accumulating.
fn run_histogram(bins: u32, n: usize, repeat: u32) -> Option<(Vec<u32>, Vec<u32>)> {
    let source = histogram_source(bins);
    let words = glsl_words(&format!("histogram{bins}"), &source)?;
    assert_eq!(reductions(&words), [(1, ReductionOp::Add)]);
    let data = inputs(n);
    let mut bindings = vec![storage(0, &data), storage(1, &vec![0; bins as usize]), params(n)];
    let groups = [(n as u32).div_ceil(64), 1, 1];
    CpuDevice::new().run(&dispatch(&words, groups, repeat), &mut bindings, None).expect("runs");
    let mut want = vec![0u32; bins as usize];
    for v in &data {
        want[(v & (bins - 1)) as usize] += repeat;
    }
    Some((words_of(&bindings[1]), want))
}

#[test]
fn a_histogram_privatized_per_thread_matches_rust() {
    let Some((got, want)) = run_histogram(256, 100_003, 1) else { return };
    assert_eq!(got, want);
}

#[test]
fn repeated_dispatches_accumulate_into_the_buffer() {
    let Some((got, want)) = run_histogram(256, 50_000, 3) else { return };
    assert_eq!(got, want);
}

#[test]
fn a_buffer_over_the_private_cap_keeps_real_atomics_and_the_same_result() {
    // 32768 bins = 128 KiB, above MAX_PRIVATE_BYTES.
    let bins = 32_768u32;
    assert!(u64::from(bins) * 4 > spirvkit_passes::cpu_kernel::atomics::MAX_PRIVATE_BYTES);
    let Some((got, want)) = run_histogram(bins, 200_000, 2) else { return };
    assert_eq!(got, want);
}

#[test]
fn min_max_and_bitwise_reductions_match_rust() {
    let source = r#"#version 450
layout(local_size_x = 32) in;
layout(set = 0, binding = 0) readonly buffer Data { uint v[]; } data;
layout(set = 0, binding = 1) buffer UMin { uint v[]; } umin_;
layout(set = 0, binding = 2) buffer UMax { uint v[]; } umax_;
layout(set = 0, binding = 3) buffer SMin { int v[]; } smin_;
layout(set = 0, binding = 4) buffer SMax { int v[]; } smax_;
layout(set = 0, binding = 5) buffer Or { uint v[]; } or_;
layout(set = 0, binding = 6) buffer And { uint v[]; } and_;
layout(set = 0, binding = 7) buffer Xor { uint v[]; } xor_;
layout(set = 0, binding = 8) buffer Sub { uint v[]; } sub_;
PARAMS
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i >= params.n) return;
  uint x = data.v[i];
  uint k = i % 8;
  atomicMin(umin_.v[k], x);
  atomicMax(umax_.v[k], x);
  atomicMin(smin_.v[k], int(x));
  atomicMax(smax_.v[k], int(x));
  atomicOr(or_.v[k], x & 0x00ff00ffu);
  atomicAnd(and_.v[k], x | 0x0f0f0f0fu);
  atomicXor(xor_.v[k], x);
  atomicAdd(sub_.v[k], 0u - (x & 1023u));
}
"#;
    let Some(words) = glsl_words("minmax", &source.replace("PARAMS", PARAMS)) else { return };
    let mut found = reductions(&words);
    found.sort_by_key(|&(b, _)| b);
    use ReductionOp::*;
    assert_eq!(found, [(1, UMin), (2, UMax), (3, SMin), (4, SMax), (5, Or), (6, And), (7, Xor), (8, Add)]);
    let n = 20_000;
    let data = inputs(n);
    // Starting contents that are not the identities: the flush combines with them.
    let start: [[u32; 8]; 8] = [
        [u32::MAX, 5, 1 << 31, 7, u32::MAX, 0, 0, 0],
        [0, 1, u32::MAX, 2, 3, 4, 5, 6],
        [0x7fff_ffff, 0, 0x8000_0000, 3, 0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff, 0x7fff_ffff],
        [0x8000_0000, 0, 0x7fff_ffff, 3, 0x8000_0000, 0x8000_0000, 0x8000_0000, 0x8000_0000],
        [1, 2, 4, 8, 16, 32, 64, 128],
        [u32::MAX, 0xffff_0000, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX, u32::MAX],
        [0, 1, 2, 3, 4, 5, 6, 7],
        [100, 200, 300, 400, 500, 600, 700, 800],
    ];
    let mut bindings = vec![storage(0, &data), params(n)];
    for (b, s) in start.iter().enumerate() {
        bindings.push(storage(b as u32 + 1, s));
    }
    let groups = [(n as u32).div_ceil(32), 1, 1];
    CpuDevice::new().run(&dispatch(&words, groups, 1), &mut bindings, None).expect("runs");
    let mut want = start;
    for (i, &x) in data.iter().enumerate() {
        let k = i % 8;
        want[0][k] = want[0][k].min(x);
        want[1][k] = want[1][k].max(x);
        want[2][k] = (want[2][k] as i32).min(x as i32) as u32;
        want[3][k] = (want[3][k] as i32).max(x as i32) as u32;
        want[4][k] |= x & 0x00ff_00ff;
        want[5][k] &= x | 0x0f0f_0f0f;
        want[6][k] ^= x;
        want[7][k] = want[7][k].wrapping_sub(x & 1023);
    }
    for (b, w) in want.iter().enumerate() {
        assert_eq!(words_of(&bindings[b + 2]), w, "binding {}", b + 1);
    }
}

#[test]
fn an_atomic_whose_result_is_read_keeps_real_atomics() {
    // Each invocation takes a distinct ticket: the old values are a permutation.
    let source = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Counter { uint next; } counter;
layout(set = 0, binding = 1) buffer Out { uint v[]; } tickets;
void main() {
  uint t = atomicAdd(counter.next, 1u);
  tickets.v[gl_GlobalInvocationID.x] = t;
}
"#;
    let Some(words) = glsl_words("tickets", source) else { return };
    assert_eq!(reductions(&words), []);
    let n = 64 * 500;
    let mut bindings = vec![storage(0, &[0]), storage(1, &vec![u32::MAX; n])];
    CpuDevice::new().run(&dispatch(&words, [500, 1, 1], 1), &mut bindings, None).expect("runs");
    assert_eq!(words_of(&bindings[0]), [n as u32]);
    let mut got = words_of(&bindings[1]);
    got.sort_unstable();
    assert_eq!(got, (0..n as u32).collect::<Vec<_>>());
}

#[test]
fn a_buffer_also_read_or_mixed_keeps_real_atomics() {
    // Bins is also read; Mixed takes two operation classes on the same words.
    let source = r#"#version 450
layout(local_size_x = 16) in;
layout(set = 0, binding = 0) buffer Bins { uint v[]; } bins;
layout(set = 0, binding = 1) buffer Mixed { uint v[]; } mixed;
layout(set = 0, binding = 2) buffer Out { uint v[]; } o;
void main() {
  uint i = gl_GlobalInvocationID.x;
  atomicAdd(bins.v[i % 4], 1u);
  o.v[i] = bins.v[4];
  atomicAdd(mixed.v[i % 2], 2u);
  atomicOr(mixed.v[i % 2], 1u);
}
"#;
    let Some(words) = glsl_words("mixed", source) else { return };
    assert_eq!(reductions(&words), []);
    let mut bindings = vec![storage(0, &[0, 0, 0, 0, 77]), storage(1, &[0, 0]), storage(2, &[0; 64])];
    CpuDevice::new().run(&dispatch(&words, [4, 1, 1], 1), &mut bindings, None).expect("runs");
    assert_eq!(words_of(&bindings[0]), [16, 16, 16, 16, 77]);
    assert_eq!(words_of(&bindings[2]), [77; 64]);
    // Any interleaving of (+2, |1) ends odd.
    assert!(words_of(&bindings[1]).iter().all(|v| v % 2 == 1));
}

#[test]
fn out_of_bounds_atomic_indices_are_dropped_on_both_paths() {
    // 300 bins given 256 words: indices 256..299 are out of bounds (and dropped), the
    // neighbouring buffer is untouched. Once with a private copy (1 KiB), once over
    // the cap (64 Ki words given, indices far past the end).
    let source = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Data { uint v[]; } data;
layout(set = 0, binding = 1) buffer Bins { uint v[]; } bins;
layout(set = 0, binding = 2) buffer Guard { uint v[]; } guard;
PARAMS
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < params.n) atomicAdd(bins.v[data.v[i] % 300u + (data.v[i] & 0x40000000u)], 1u);
  if (i == 0) guard.v[0] = guard.v[0] + 1;
}
"#;
    let Some(words) = glsl_words("oob", &source.replace("PARAMS", PARAMS)) else { return };
    assert_eq!(reductions(&words), [(1, ReductionOp::Add)]);
    let n = 30_000;
    let data = inputs(n);
    for bins in [256usize, 65_536] {
        let mut bindings =
            vec![storage(0, &data), storage(1, &vec![0; bins]), storage(2, &[5, 6, 7]), params(n)];
        CpuDevice::new()
            .run(&dispatch(&words, [(n as u32).div_ceil(64), 1, 1], 1), &mut bindings, None)
            .expect("runs");
        let mut want = vec![0u32; bins];
        for v in &data {
            let index = (v % 300 + (v & 0x4000_0000)) as usize;
            if index < bins {
                want[index] += 1;
            }
        }
        assert_eq!(words_of(&bindings[1]), want, "{bins} bins");
        assert_eq!(words_of(&bindings[2]), [6, 6, 7]);
    }
}

#[test]
fn workgroup_atomics_run_as_plain_read_modify_write_with_the_same_results() {
    let source = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { uint v[]; } o;
shared uint count;
shared uint lowest;
shared int highest;
shared uint bits;
shared uint swapped;
shared uint last;
void main() {
  uint l = gl_LocalInvocationID.x;
  uint g = gl_WorkGroupID.x;
  if (l == 0) { count = 0; lowest = 0xffffffffu; highest = -1000; bits = 0; swapped = 0; last = 0; }
  barrier();
  uint ticket = atomicAdd(count, 1u);
  atomicMin(lowest, (l * 7u + g) % 61u + 3u);
  atomicMax(highest, int(l) - 40);
  atomicOr(bits, 1u << (l % 32u));
  atomicCompSwap(swapped, 0u, l + 1u);
  atomicExchange(last, 5u);
  barrier();
  o.v[g * 64u + l] = ticket;
  if (l == 0) {
    o.v[64u * gl_NumWorkGroups.x + g * 6u + 0u] = count;
    o.v[64u * gl_NumWorkGroups.x + g * 6u + 1u] = lowest;
    o.v[64u * gl_NumWorkGroups.x + g * 6u + 2u] = uint(highest);
    o.v[64u * gl_NumWorkGroups.x + g * 6u + 3u] = bits;
    o.v[64u * gl_NumWorkGroups.x + g * 6u + 4u] = swapped;
    o.v[64u * gl_NumWorkGroups.x + g * 6u + 5u] = last;
  }
}
"#;
    let Some(words) = glsl_words("shared-atomics", source) else { return };
    let (text, _, _) = kernel_llvm_ir(&words, "main", &[]).expect("compiles");
    assert!(!text.contains("atomicrmw") && !text.contains("cmpxchg"), "{text}");
    let groups = 40u32;
    let mut bindings = vec![storage(0, &vec![0; groups as usize * 70])];
    CpuDevice::new().run(&dispatch(&words, [groups, 1, 1], 1), &mut bindings, None).expect("runs");
    let got = words_of(&bindings[0]);
    for g in 0..groups as usize {
        let mut tickets = got[g * 64..g * 64 + 64].to_vec();
        tickets.sort_unstable();
        assert_eq!(tickets, (0..64).collect::<Vec<u32>>(), "group {g}");
        let lowest = (0..64u32).map(|l| (l * 7 + g as u32) % 61 + 3).min().unwrap();
        let summary = &got[64 * groups as usize + g * 6..][..6];
        // One compare-exchange in the group wins: it stores its invocation's l + 1.
        assert_eq!(summary[..4], [64, lowest, 23, u32::MAX], "group {g}");
        assert!((1..=64).contains(&summary[4]), "group {g}: {summary:?}");
        assert_eq!(summary[5], 5, "group {g}");
    }
}

/// The lines of `text` accessing memory (loads and stores) of the LLVM type `ty`.
fn accesses_of<'t>(text: &'t str, ty: &str) -> Vec<&'t str> {
    let load = format!("load {ty}, ");
    let store = format!("store {ty} ");
    text.lines().filter(|l| l.contains(&load) || l.trim_start().starts_with(&store)).collect()
}

/// The plain read-modify-writes of workgroup atomics (here the only `i32` accesses
/// besides the built-ins) stay out of the invocation loops' access group: two
/// invocations update one word. The kernel's other workgroup accesses (`float`) are in it.
#[test]
fn workgroup_atomics_stay_out_of_the_parallel_access_group() {
    let source = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer Out { float v[]; } o;
shared float slots[64];
shared uint count;
void main() {
  uint l = gl_LocalInvocationID.x;
  slots[l] = float(l);
  uint ticket = atomicAdd(count, 1u);
  atomicCompSwap(count, 1000u, 0u);
  o.v[gl_GlobalInvocationID.x] = slots[l] + float(ticket);
}
"#;
    let Some(words) = glsl_words("shared-atomics-groups", source) else { return };
    let (text, _, _) = kernel_llvm_ir(&words, "main", &[]).expect("compiles");
    let ints = accesses_of(&text, "i32");
    assert!(ints.len() >= 4, "the read-modify-writes: {text}");
    assert!(ints.iter().all(|l| !l.contains("!llvm.access.group")), "{text}");
    let floats = accesses_of(&text, "float");
    assert!(floats.len() >= 3 && floats.iter().all(|l| l.contains("!llvm.access.group")), "{text}");
}

/// A privatized reduction's accesses to the thread's copy stay out of the access group
/// (invocations add to the same bin); the input read is in it.
#[test]
fn private_copy_accesses_stay_out_of_the_parallel_access_group() {
    let source = r#"#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) buffer In { float x[]; } i;
layout(set = 0, binding = 1) buffer Bins { uint b[]; } o;
void main() {
  uint id = gl_GlobalInvocationID.x;
  atomicAdd(o.b[uint(i.x[id]) % 16u], 1u);
}
"#;
    let Some(words) = glsl_words("private-copy-groups", source) else { return };
    assert_eq!(reductions(&words).len(), 1);
    let (text, _, _) = kernel_llvm_ir(&words, "main", &[]).expect("compiles");
    let ints = accesses_of(&text, "i32");
    assert!(ints.len() >= 2, "the copy's read-modify-write: {text}");
    assert!(ints.iter().all(|l| !l.contains("!llvm.access.group")), "{text}");
    let floats = accesses_of(&text, "float");
    assert!(!floats.is_empty() && floats.iter().all(|l| l.contains("!llvm.access.group")), "{text}");
}
