//! Matrices in uniform blocks on the CPU device: row-major members (what HLSL's default
//! `column_major` becomes in SPIR-V) and column-major ones with a MatrixStride wider than
//! their columns (std140 `mat2`), read whole, by column and by element. Checked against
//! the values computed in Rust from the block's bytes; GLSL compiled by glslangValidator
//! (skipped with a message when it is missing).

mod common;

use spirvkit_jit::CpuDevice;
use spirvkit_run::{Binding, BufferKind, Device, Dispatch};

const SHADER: &str = r#"#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0, std140) uniform P {
    layout(row_major) mat4 m;     // offset 0: rows 16 bytes apart
    layout(row_major) mat3 n;     // offset 64: 3 rows of 3, 16 bytes apart
    layout(row_major) mat2x3 w;   // offset 112: 2 columns of 3, as 3 rows of 2
    mat2 c2;                      // offset 160: column-major, columns 16 bytes apart
} p;
layout(set = 0, binding = 1, std430) buffer O { float o[]; };
void main() {
    uint i = gl_GlobalInvocationID.x;
    vec4 v = vec4(1.0, 2.0, 3.0, 4.0) + float(i);
    vec4 a = p.m * v;
    vec4 b = p.m[i];
    float e = p.m[i][(i + 1u) % 4u];
    vec3 nn = p.n * v.xyz;
    vec3 ww = p.w * v.xy;
    vec2 cc = p.c2 * v.xy + p.c2[i % 2u];
    uint at = i * 20u;
    for (int k = 0; k < 4; k++) { o[at + k] = a[k]; o[at + 4 + k] = b[k]; }
    o[at + 8] = e;
    for (int k = 0; k < 3; k++) { o[at + 9 + k] = nn[k]; o[at + 12 + k] = ww[k]; }
    o[at + 15] = cc.x;
    o[at + 16] = cc.y;
}
"#;

/// The block's floats: element k is k + 0.5.
fn block() -> Vec<f32> {
    (0..48).map(|k| k as f32 + 0.5).collect()
}

/// What the shader writes for invocation `i`, from the block's memory.
fn expected(i: usize) -> Vec<f32> {
    let u = block();
    // (column, row) of each matrix, by its layout.
    let m = |c: usize, r: usize| u[r * 4 + c];
    let n = |c: usize, r: usize| u[16 + r * 4 + c];
    let w = |c: usize, r: usize| u[28 + r * 4 + c];
    let c2 = |c: usize, r: usize| u[40 + c * 4 + r];
    let v: Vec<f32> = [1.0, 2.0, 3.0, 4.0].iter().map(|x| x + i as f32).collect();
    let mut out = vec![0.0; 17];
    for r in 0..4 {
        out[r] = (0..4).map(|c| m(c, r) * v[c]).sum();
        out[4 + r] = m(i, r);
    }
    out[8] = m(i, (i + 1) % 4);
    for r in 0..3 {
        out[9 + r] = (0..3).map(|c| n(c, r) * v[c]).sum();
        out[12 + r] = (0..2).map(|c| w(c, r) * v[c]).sum();
    }
    for r in 0..2 {
        out[15 + r] = (0..2).map(|c| c2(c, r) * v[c]).sum::<f32>() + c2(i % 2, r);
    }
    out
}

#[test]
fn row_major_and_strided_matrices_read_whole_by_column_and_by_element() {
    let Some(words) = common::glsl_words("matrices", "row_major", SHADER) else { return };
    let data = block().iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut bindings = vec![
        Binding { set: 0, binding: 0, kind: BufferKind::Uniform, data },
        Binding { set: 0, binding: 1, kind: BufferKind::Storage, data: vec![0; 4 * 80] },
    ];
    let dispatch = Dispatch {
        spirv: &words,
        entry: "main",
        groups: [1, 1, 1],
        spec: &[],
        push: &[],
        threads: Some(1),
        time_limit: None,
        repeat: 1,
    };
    CpuDevice::new().run(&dispatch, &mut bindings, None).expect("runs");
    let got: Vec<f32> =
        bindings[1].data.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect();
    for i in 0..4 {
        let want = expected(i);
        for (k, &w) in want.iter().enumerate() {
            let g = got[i * 20 + k];
            assert!(
                (g - w).abs() <= 1e-4 * w.abs().max(1.0),
                "invocation {i}, output {k}: got {g}, want {w}"
            );
        }
    }
}
