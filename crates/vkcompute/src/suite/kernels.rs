//! The kernels with their inputs and expected outputs. Every expectation is computed here
//! from HLSL's rules (truncating division, masked shifts, column-major packing, subgroups
//! of consecutive invocations, Vulkan's sampling formulas...), never copied from a run.

use super::{bytes_of_f32, bytes_of_i32, bytes_of_u32, Case, Expect, Expected, Kernel, Needs, Tolerance};
use crate::{AddressMode, Binding, DeviceInfo, Filter, Format, Image2d, Resource, SamplerDesc};

macro_rules! kernel {
    ($name:ident) => {
        Kernel {
            name: stringify!($name),
            source: include_str!(concat!("../../kernels/", stringify!($name), ".hlsl")),
            case: $name,
        }
    };
}

/// Every kernel of the suite, in the order reports list them.
pub static KERNELS: &[Kernel] = &[
    kernel!(int_arith),
    kernel!(shift_mask),
    kernel!(float_arith),
    kernel!(casts),
    kernel!(vector_matrix),
    kernel!(matrix_buffer_layout),
    kernel!(control_flow),
    kernel!(switch),
    kernel!(functions_inout),
    kernel!(structs_arrays),
    kernel!(logic_shortcircuit),
    kernel!(groupshared_reduction),
    kernel!(groupshared_transpose),
    kernel!(atomics_structured),
    kernel!(atomics_byteaddress),
    kernel!(atomics_groupshared),
    kernel!(atomics_image),
    kernel!(append_consume),
    kernel!(wave_arith),
    kernel!(wave_ballot),
    kernel!(structured_struct),
    kernel!(byteaddress),
    kernel!(cbuffer_params),
    kernel!(texture_load),
    kernel!(texture_sample),
    kernel!(texture_gather),
    kernel!(rwtexture),
    kernel!(typed_buffers),
    kernel!(intrinsics_math),
    kernel!(intrinsics_bits),
];

fn storage(binding: u32, data: Vec<u8>) -> Binding {
    Binding { set: 0, binding, resource: Resource::StorageBuffer(data) }
}

fn zeros(words: usize) -> Vec<u8> {
    vec![0; words * 4]
}

fn expect(binding: u32, values: Expected) -> Expect {
    Expect { set: 0, binding, word_offset: 0, values }
}

fn floats(values: impl IntoIterator<Item = f32>, tolerance: Tolerance) -> Expected {
    Expected::F32(values.into_iter().map(|v| (v, tolerance)).collect())
}

fn simple(bindings: Vec<Binding>, groups: u32, expect: Vec<Expect>) -> Case {
    Case { bindings, groups: [groups, 1, 1], expect, needs: Needs::default() }
}

fn int_arith(_: &DeviceInfo) -> Case {
    let a: [i32; 8] = [7, -7, 7, -7, 1_000_000_007, -2_147_483_647, 123_456, 0x7FFF_FFFF];
    let b: [i32; 8] = [2, 2, -2, -2, 97, 3, -1000, 65536];
    let mut want = Vec::new();
    for i in 0..8 {
        let (a, b) = (a[i], b[i]);
        let (ua, ub) = (a as u32, b as u32);
        let s = i as u32 + 1;
        want.extend([
            a / b,
            a % b,
            (ua / ub) as i32,
            (ua % ub) as i32,
            a.wrapping_mul(b),
            a.wrapping_add(b),
            a.wrapping_sub(b),
            a >> s,
            (ua >> s) as i32,
            a.wrapping_shl(s),
            a & b,
            a | b,
            a ^ !b,
            a.wrapping_neg(),
            a.wrapping_abs().wrapping_add(a.min(b)),
            a.max(b) ^ ua.min(ub) as i32,
            (a % 4).wrapping_add((a / 4).wrapping_mul(100)),
        ]);
    }
    simple(
        vec![storage(1, bytes_of_i32(&a)), storage(2, bytes_of_i32(&b)), storage(0, zeros(136))],
        1,
        vec![expect(0, Expected::I32(want))],
    )
}

fn shift_mask(_: &DeviceInfo) -> Case {
    let amounts: [u32; 8] = [0, 1, 31, 32, 33, 36, 63, 64];
    let (u, n) = (0x8000_0F0Fu32, -0x10000i32);
    let want: Vec<u32> =
        amounts.iter().flat_map(|&s| [u << (s & 31), u >> (s & 31), (n >> (s & 31)) as u32]).collect();
    simple(
        vec![storage(1, bytes_of_u32(&amounts)), storage(0, zeros(24))],
        1,
        vec![expect(0, Expected::U32(want))],
    )
}

fn float_arith(_: &DeviceInfo) -> Case {
    let a: [f32; 8] = [1.5, -7.25, 10.0, -0.5, 3.0, 100.75, -2.0, 0.0];
    let b: [f32; 8] = [0.5, 2.0, -3.0, 0.25, 7.0, -9.5, -2.0, 4.0];
    let division = Tolerance { abs: 0.0, rel: 1e-6 };
    let root = Tolerance { abs: 0.0, rel: 1e-5 };
    let mut want = Vec::new();
    for i in 0..8 {
        let (a, b) = (a[i], b[i]);
        let exact = Tolerance::EXACT;
        want.extend([
            (a + b, exact),
            (a - b, exact),
            (a * b, exact),
            (a / b, division),
            (a % b, Tolerance::CLOSE),
            (a % b, Tolerance::CLOSE),
            (a - a.floor(), exact),
            (a.floor(), exact),
            (a.ceil(), exact),
            (a.trunc(), exact),
            (a.abs().sqrt(), root),
            (1.0 / (a.abs() + 1.0).sqrt(), root),
            (a.min(b), exact),
            (a.max(b), exact),
            (a * b + 1.5, Tolerance::CLOSE),
            (-a, exact),
        ]);
    }
    simple(
        vec![storage(1, bytes_of_f32(&a)), storage(2, bytes_of_f32(&b)), storage(0, zeros(128))],
        1,
        vec![expect(0, Expected::F32(want))],
    )
}

fn casts(_: &DeviceInfo) -> Case {
    // No value in (-1, 0): lavapipe (LLVM) folds float(int(x)) to trunc(x), which keeps the
    // sign of a zero result where HLSL gives +0.0.
    let input: [f32; 8] = [0.0, 1.5, -1.5, 2.99, -2.99, 16_777_215.0, 123.75, -100.25];
    let mut want = Vec::new();
    for (i, &f) in input.iter().enumerate() {
        let i = i as u32;
        want.extend([
            (f as i32) as u32,
            f.abs() as u32,
            f.to_bits(),
            ((f as i32) as f32).to_bits(),
            ((i.wrapping_mul(0x0100_0001).wrapping_add(0x7F_FFFF)) as f32).to_bits(),
            (f != 0.0) as u32 + (((f > 0.5) as u32) << 1) + (((i == 0) as u32) << 2),
            (-(i as i32) - 1) as u32,
            (f32::from_bits(0x3F80_0000 + i) * 2.0).to_bits() ^ (-f).to_bits(),
        ]);
    }
    simple(
        vec![storage(1, bytes_of_f32(&input)), storage(0, zeros(64))],
        1,
        vec![expect(0, Expected::U32(want))],
    )
}

type Vec4 = [f32; 4];

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn vector_matrix(_: &DeviceInfo) -> Case {
    let v: [Vec4; 8] = [
        [1.0, 2.0, 3.0, 4.0],
        [5.0, 6.0, 7.0, 8.0],
        [9.0, 10.0, 11.0, 12.0],
        [13.0, 14.0, 15.0, 16.0],
        [1.0, 0.5, -1.0, 2.0],
        [3.0, -1.0, 2.0, 0.0],
        [1.0, 4.0, -2.0, 5.0],
        [0.5, 1.5, 2.5, 3.5],
    ];
    let m = [v[0], v[1], v[2], v[3]]; // rows
    let x = v[4];
    let column = |c: usize| [m[0][c], m[1][c], m[2][c], m[3][c]];
    let mut out: Vec<Vec4> = vec![
        std::array::from_fn(|r| dot(&m[r], &x)),
        std::array::from_fn(|c| dot(&x, &column(c))),
        std::array::from_fn(|j| dot(&m[1], &m[j])),
        std::array::from_fn(|j| dot(&m[3], &m[j])),
    ];
    let (a, b) = ([v[5][0], v[5][1], v[5][2]], [v[6][0], v[6][1], v[6][2]]);
    let cross = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]];
    out.push([cross[0], cross[1], cross[2], dot(&a, &b)]);
    let (len_a, len_b) = (dot(&a, &a).sqrt(), dot(&b, &b).sqrt());
    out.push([a[0] / len_a, a[1] / len_a, a[2] / len_a, len_b]);
    let w = v[7];
    out.push([w[3] * 2.0 + w[0], w[2] * 2.0 + w[0], w[1] * 2.0 + w[1], w[0] * 2.0 + w[1]]);
    out.push([v[5][1], w[1], v[5][0], w[3]]);
    let gt: [f32; 4] = std::array::from_fn(|k| if v[5][k] > v[6][k] { 1.0 } else { 0.0 });
    out.push(std::array::from_fn(|k| gt[k] * 3.0 + 1.0));
    let count: f32 = gt.iter().sum();
    out.push([(count > 0.0) as u32 as f32, (count == 4.0) as u32 as f32, count, 0.0]);
    let q = [[m[0][0], m[0][1], m[0][2]], [m[1][0], m[1][1], m[1][2]]];
    let w3 = [x[0], x[1], x[2]];
    let row_times_q = |c: usize| x[0] * q[0][c] + x[1] * q[1][c];
    out.push([dot(&q[0], &w3), dot(&q[1], &w3), row_times_q(0), row_times_q(1)]);
    out.push([m[2][1], m[0][3], m[3][0], m[1][2]]);
    let tolerance = Tolerance { abs: 1e-6, rel: 1e-5 };
    simple(
        vec![storage(1, bytes_of_f32(&v.concat())), storage(0, zeros(48))],
        1,
        vec![expect(0, floats(out.concat(), tolerance))],
    )
}

fn matrix_buffer_layout(_: &DeviceInfo) -> Case {
    let data: Vec<f32> = (0..32).map(|k| k as f32).collect();
    // column_major: element (row, col) is word col * 4 + row; row_major: row * 4 + col.
    let c = |r: usize, k: usize| data[k * 4 + r];
    let rm = |r: usize, k: usize| data[16 + r * 4 + k];
    let mut want = Vec::new();
    for r in 0..4 {
        for k in 0..4 {
            want.push(c(r, k));
        }
    }
    for r in 0..4 {
        for k in 0..4 {
            want.push(rm(r, k));
        }
    }
    for r in 0..4 {
        for k in 0..4 {
            want.push((0..4).map(|j| c(r, j) * rm(j, k)).sum());
        }
    }
    Case {
        bindings: vec![storage(1, bytes_of_f32(&data)), storage(0, zeros(48))],
        groups: [1, 1, 1],
        expect: vec![expect(0, floats(want, Tolerance::EXACT))],
        needs: Needs::default(),
    }
}

fn control_flow(_: &DeviceInfo) -> Case {
    let input: [i32; 16] = [-5, 0, 1, 7, 9, 10, 27, 97, 12, 3, 25, 6, -1, 64, 1000, 31];
    let classify = |x: i32| match x {
        x if x < 0 => -1,
        0 => 0,
        x if x < 10 => 1,
        _ => 2,
    };
    let collatz = |mut x: i32| {
        let mut steps = 0;
        while x != 1 {
            if steps >= 100 {
                break;
            }
            x = if x & 1 != 0 { 3 * x + 1 } else { x / 2 };
            steps += 1;
        }
        steps
    };
    let loops = |mut n: i32| {
        let mut acc = 0;
        for i in 0..n.max(0) {
            if i % 3 == 0 {
                continue;
            }
            if i > 20 {
                break;
            }
            for j in 0..i {
                if j == 4 {
                    break;
                }
                acc += j * i;
            }
        }
        loop {
            acc += 100;
            n -= 1;
            if n <= 8 {
                break;
            }
        }
        acc
    };
    let lowest = |x: i32| (0..32).find(|&i| (x >> i) & 1 != 0).unwrap_or(-1);
    const UNTOUCHED: i32 = 0x7777;
    let mut want = vec![UNTOUCHED; 64];
    for (i, &x) in input.iter().enumerate().take(14) {
        want[i * 4..i * 4 + 4].copy_from_slice(&[classify(x), collatz(x.max(1)), loops(x), lowest(x)]);
    }
    simple(
        vec![storage(1, bytes_of_i32(&input)), storage(0, bytes_of_i32(&[UNTOUCHED; 64]))],
        1,
        vec![expect(0, Expected::I32(want))],
    )
}

fn switch(_: &DeviceInfo) -> Case {
    let input: [i32; 8] = [0, 1, 2, 5, -3, 7, 3, 100];
    let pick = |x: i32| match x {
        0 => 10,
        1 | 2 => 20 + x,
        5 => 55,
        -3 => 300,
        _ => -1,
    };
    let loop_with_switch = |n: i32| {
        let mut r = 0;
        for i in 0..8 {
            match (i + n) % 4 {
                1 => continue,
                2 => r += 1000,
                3 => {
                    if i > 5 {
                        return r + 7;
                    }
                    r += 10;
                }
                _ => r += 1,
            }
            r += 2;
        }
        r
    };
    let want: Vec<i32> = input.iter().flat_map(|&x| [pick(x), loop_with_switch(x)]).collect();
    simple(
        vec![storage(1, bytes_of_i32(&input)), storage(0, zeros(16))],
        1,
        vec![expect(0, Expected::I32(want))],
    )
}

fn functions_inout(_: &DeviceInfo) -> Case {
    let input: [f32; 8] = [2.75, -1.5, 0.25, 10.0, -7.75, 3.5, 0.0, 100.125];
    let mut want = Vec::new();
    for (i, &x) in input.iter().enumerate() {
        let whole = x as i32;
        let part = x - whole as f32;
        let arr = [1, 2, 3, 4];
        let total = 5 + whole + arr[i % 4] + 9;
        // twice(arr[1]) doubles it to 4 and returns 5; swap(arr[0], arr[3]) gives 4 and 1.
        want.extend([whole, part.to_bits() as i32, total, 9, 5, 4, 4, 1, 12, 2]);
    }
    simple(
        vec![storage(1, bytes_of_f32(&input)), storage(0, zeros(80))],
        1,
        vec![expect(0, Expected::I32(want))],
    )
}

fn structs_arrays(_: &DeviceInfo) -> Case {
    let input: [i32; 8] = [0, 1, 5, -3, 100, 7, 12, -20];
    const PRIMES: [i32; 8] = [2, 3, 5, 7, 11, 13, 17, 19];
    let mut want = Vec::new();
    for (i, &base) in input.iter().enumerate() {
        let keys: [i32; 4] = std::array::from_fn(|j| base + j as i32 * 10);
        let tags = |j: usize, t: usize| keys[j] + t as i32;
        let sum: i32 = (0..4).map(|k| keys[k] * PRIMES[(i + k) % 8] + tags(k, k % 3)).sum();
        let mut hist: [i32; 8] = std::array::from_fn(|h| h as i32);
        hist[(i * 3) % 8] += 50;
        hist[(base & 7) as usize] *= 2;
        want.extend([
            sum,
            keys[i % 4],
            tags(i % 4, 1),
            -1 + -2 * 1000,
            (keys[2] as f32 * 0.5).to_bits() as i32,
            hist[(i * 3) % 8],
            hist[(base & 7) as usize],
            hist[i],
        ]);
    }
    simple(
        vec![storage(1, bytes_of_i32(&input)), storage(0, zeros(64))],
        1,
        vec![expect(0, Expected::I32(want))],
    )
}

fn logic_shortcircuit(_: &DeviceInfo) -> Case {
    let input: [i32; 8] = [-2, 0, 3, 4, 5, 6, 7, 10];
    let mut want = Vec::new();
    for &x in &input {
        let mut effects = 0;
        let mut r = 0;
        if x > 2 {
            effects += 1;
            if x < 6 {
                r += 1;
            }
        }
        let second = if x < 0 {
            true
        } else {
            effects += 1;
            x % 2 == 0
        };
        if second {
            r += 10;
        }
        let t = if x > 4 {
            effects += 100;
            x * 2
        } else {
            -x
        };
        let a: i32 = (0..5).map(|i| i * (10 - i)).sum::<i32>() + 1;
        want.extend([r, effects, t, a, a * 2]);
    }
    simple(
        vec![storage(1, bytes_of_i32(&input)), storage(0, zeros(40))],
        1,
        vec![expect(0, Expected::I32(want))],
    )
}

fn groupshared_reduction(_: &DeviceInfo) -> Case {
    let input: Vec<u32> = (0..256u32).map(|i| (i * i * 7 + 3) % 1000).collect();
    let want: Vec<u32> =
        input.chunks(64).flat_map(|g| [g.iter().sum(), *g.iter().max().unwrap_or(&0)]).collect();
    simple(
        vec![storage(1, bytes_of_u32(&input)), storage(0, zeros(8))],
        4,
        vec![expect(0, Expected::U32(want))],
    )
}

fn groupshared_transpose(_: &DeviceInfo) -> Case {
    let input: Vec<u32> = (0..256u32).map(|k| (k / 16) * 100 + k % 16).collect();
    let want: Vec<u32> = (0..256usize).map(|k| input[(k % 16) * 16 + k / 16]).collect();
    Case {
        bindings: vec![storage(1, bytes_of_u32(&input)), storage(0, zeros(256))],
        groups: [2, 2, 1],
        expect: vec![expect(0, Expected::U32(want))],
        needs: Needs::default(),
    }
}

fn atomics_structured(_: &DeviceInfo) -> Case {
    let threads = 0..128u32;
    let counters = [0, u32::MAX, 0, 0, u32::MAX, 0, 0, 0];
    let want_counters = vec![
        128,
        threads.clone().map(|i| (i * 37 + 11) % 101 + 5).min().unwrap_or(0),
        threads.clone().map(|i| (i * 37 + 11) % 101).max().unwrap_or(0),
        threads.clone().fold(0, |acc, i| acc | 1 << (i % 32)),
        threads.clone().fold(u32::MAX, |acc, i| acc & !(1 << (i % 16))),
        threads.clone().fold(0, |acc, i| acc ^ i.wrapping_mul(0x0101_0101)),
        128,
        0,
    ];
    let signed = [i32::MAX, i32::MIN];
    let want_signed = vec![
        threads.clone().map(|i| i as i32 - 50).min().unwrap_or(0),
        threads.clone().map(|i| 40 - i as i32 * 3).max().unwrap_or(0),
    ];
    let mut exchanged = vec![0u32; 129];
    exchanged[128] = 1000;
    let want_exchanged: Vec<u32> = threads.clone().chain([1000]).collect();
    simple(
        vec![
            storage(0, bytes_of_u32(&counters)),
            storage(1, bytes_of_i32(&signed)),
            storage(2, zeros(128)),
            storage(3, bytes_of_u32(&exchanged)),
        ],
        2,
        vec![
            expect(0, Expected::U32(want_counters)),
            expect(1, Expected::I32(want_signed)),
            expect(2, Expected::U32AnyOrder(threads.clone().collect())),
            expect(3, Expected::U32AnyOrder(want_exchanged)),
        ],
    )
}

fn atomics_byteaddress(_: &DeviceInfo) -> Case {
    let threads = 0..96u32;
    let mut initial = vec![0u32; 256];
    initial[1] = u32::MAX;
    initial[3] = 5;
    let head = vec![
        192,
        threads.clone().map(|i| (i * 13 + 7) % 97 + 3).min().unwrap_or(0),
        threads.clone().map(|i| (i * 13 + 7) % 97).max().unwrap_or(0),
        5 + threads.clone().sum::<u32>(),
        threads.clone().fold(0, |acc, i| acc | 1 << (i % 31)),
    ];
    simple(
        vec![storage(0, bytes_of_u32(&initial))],
        3,
        vec![
            expect(0, Expected::U32(head)),
            Expect {
                set: 0,
                binding: 0,
                word_offset: 16,
                values: Expected::U32AnyOrder(threads.clone().map(|i| i * 2).collect()),
            },
            Expect {
                set: 0,
                binding: 0,
                word_offset: 127,
                values: Expected::U32AnyOrder((0..=96).collect()),
            },
        ],
    )
}

fn atomics_groupshared(_: &DeviceInfo) -> Case {
    let input: Vec<u32> = (0..256u32).map(|i| (i * 31 + 7) % 200).collect();
    let mut want = Vec::new();
    for group in input.chunks(64) {
        let mut bins = [0u32; 8];
        for v in group {
            bins[(v % 8) as usize] += 1;
        }
        want.extend(bins);
        want.push(*group.iter().max().unwrap_or(&0));
    }
    simple(
        vec![storage(1, bytes_of_u32(&input)), storage(0, zeros(36))],
        4,
        vec![expect(0, Expected::U32(want))],
    )
}

fn r32ui_image(width: u32, height: u32, texels: &[u32]) -> Image2d {
    Image2d { format: Format::R32Uint, width, height, data: bytes_of_u32(texels) }
}

fn atomics_image(_: &DeviceInfo) -> Case {
    let input: Vec<u32> = (0..128u32).map(|i| (i * 37 + 5) % 97).collect();
    let mut hist = [0u32; 8];
    let mut largest = [0u32; 4];
    for &v in &input {
        hist[((v / 4) % 2 * 4 + v % 4) as usize] += 1;
        let slot = &mut largest[(v % 4) as usize];
        *slot = (*slot).max(v);
    }
    // Each texel's additions returned 0, 1, ..., count - 1 in some order.
    let originals: Vec<u32> = hist.iter().flat_map(|&count| 0..count).collect();
    Case {
        bindings: vec![
            Binding { set: 0, binding: 0, resource: Resource::StorageImage(r32ui_image(4, 2, &[0; 8])) },
            Binding { set: 0, binding: 1, resource: Resource::StorageImage(r32ui_image(4, 1, &[0; 4])) },
            storage(2, bytes_of_u32(&input)),
            storage(3, zeros(128)),
        ],
        groups: [2, 1, 1],
        expect: vec![
            expect(0, Expected::U32(hist.to_vec())),
            expect(1, Expected::U32(largest.to_vec())),
            expect(3, Expected::U32AnyOrder(originals)),
        ],
        needs: Needs::default(),
    }
}

fn append_consume(_: &DeviceInfo) -> Case {
    let source: Vec<u32> = (0..32u32).map(|i| (i * 7 + 3) % 50).collect();
    let appended: Vec<u32> = source.iter().filter(|v| *v % 2 == 0).map(|v| v * 10).collect();
    let count = appended.len() as u32;
    simple(
        vec![
            storage(0, zeros(32)),
            storage(1, zeros(1)),
            storage(2, bytes_of_u32(&source)),
            // Consume takes the element below the counter, which starts at the element count.
            storage(3, bytes_of_u32(&[32])),
        ],
        1,
        vec![
            expect(1, Expected::U32(vec![count])),
            expect(0, Expected::U32AnyOrder(appended)),
            expect(3, Expected::U32(vec![0])),
        ],
    )
}

/// The subgroup an invocation of a 1D workgroup of `group_size` belongs to: subgroups are
/// runs of consecutive local invocation indices, `size` long (the last may be shorter).
/// Returns (first invocation of the subgroup, one past its last, lane of `invocation`).
fn subgroup_of(invocation: usize, group_size: usize, size: usize) -> (usize, usize, usize) {
    let size = size.max(1);
    let group_start = invocation / group_size * group_size;
    let local = invocation - group_start;
    let start = group_start + local / size * size;
    let end = (start + size).min(group_start + group_size);
    (start, end, invocation - start)
}

fn wave_arith(info: &DeviceInfo) -> Case {
    let size = info.subgroup.size as usize;
    let value = |d: usize| ((d * 7 + 3) % 50) as u32;
    let mut want = Vec::new();
    for d in 0..128 {
        let (start, end, lane) = subgroup_of(d, 64, size);
        let wave: Vec<u32> = (start..end).map(value).collect();
        let before = &wave[..lane];
        want.extend([
            lane as u32,
            size as u32,
            wave.iter().sum(),
            before.iter().sum(),
            *wave.iter().min().unwrap_or(&0),
            *wave.iter().max().unwrap_or(&0),
            wave.iter().fold(0, |acc, v| acc | 1 << (v % 32)),
            wave.iter().map(|&v| v as f32 * 0.5).sum::<f32>().to_bits(),
            before.iter().fold(1u32, |acc, v| acc.wrapping_mul(v % 3 + 1)),
        ]);
    }
    Case {
        bindings: vec![storage(0, zeros(128 * 9))],
        groups: [2, 1, 1],
        expect: vec![expect(0, Expected::U32(want))],
        needs: Needs { subgroup_basic: true, subgroup_arithmetic: true, ..Needs::default() },
    }
}

fn wave_ballot(info: &DeviceInfo) -> Case {
    let size = info.subgroup.size as usize;
    let input: Vec<u32> = (0..128u32).map(|d| (d * 13 + 5) % 23).collect();
    let pred = |d: usize| input[d].is_multiple_of(3);
    let mut want = Vec::new();
    for d in 0..128 {
        let (start, end, lane) = subgroup_of(d, 64, size);
        let mut ballot = [0u32; 4];
        for m in (start..end).filter(|&m| pred(m)) {
            let bit = m - start;
            ballot[bit / 32] |= 1 << (bit % 32);
        }
        let count = (start..end).filter(|&m| pred(m)).count() as u32;
        let before = (start..start + lane).filter(|&m| pred(m)).count() as u32;
        let all_pred = count as usize == end - start;
        let votes = (count > 0) as u32 | 2 | (all_pred as u32) << 2;
        let first_in_branch = if pred(d) {
            (start..end).find(|&m| pred(m)).map(|m| input[m])
        } else {
            (start..end).find(|&m| !pred(m)).map(|m| input[m] + 1000)
        };
        let neighbour = start + (lane + 1) % size.max(1);
        let all_equal = (start..end).all(|m| input[m] == input[start]);
        want.extend([
            ballot[0],
            ballot[1],
            count,
            before,
            votes,
            (lane == 0) as u32,
            input[start],
            first_in_branch.unwrap_or(0),
            input.get(neighbour).copied().unwrap_or(0),
            1,
            all_equal as u32,
            ballot[2] | ballot[3],
        ]);
    }
    Case {
        bindings: vec![storage(1, bytes_of_u32(&input)), storage(0, zeros(128 * 12))],
        groups: [2, 1, 1],
        expect: vec![expect(0, Expected::U32(want))],
        needs: Needs {
            subgroup_basic: true,
            subgroup_ballot: true,
            subgroup_vote: true,
            subgroup_shuffle: true,
            ..Needs::default()
        },
    }
}

/// The words of a `Particle` (float3 position at 0, mass 12, float4 velocity 16, id 32,
/// flags 36, float2 uv 40; 48 bytes, the 16-byte alignment of its float4).
fn particle_words(
    position: [f32; 3],
    mass: f32,
    velocity: Vec4,
    id: u32,
    flags: i32,
    uv: [f32; 2],
) -> [u32; 12] {
    [
        position[0].to_bits(),
        position[1].to_bits(),
        position[2].to_bits(),
        mass.to_bits(),
        velocity[0].to_bits(),
        velocity[1].to_bits(),
        velocity[2].to_bits(),
        velocity[3].to_bits(),
        id,
        flags as u32,
        uv[0].to_bits(),
        uv[1].to_bits(),
    ]
}

fn structured_struct(_: &DeviceInfo) -> Case {
    let position = |i: f32| [i, i + 0.5, -i];
    let mass = |i: f32| 1.0 + i;
    let velocity = |i: f32| [2.0, -4.0, 0.5 * i, 9.0];
    let uv = |i: f32| [0.25 * i, 1.0 - 0.25 * i];
    let mut input = Vec::new();
    let mut want = Vec::new();
    for i in 0..8u32 {
        let f = i as f32;
        input.extend(particle_words(position(f), mass(f), velocity(f), 100 + i, i as i32 - 3, uv(f)));
        let (p, v) = (position(f), velocity(f));
        let moved = [p[0] + v[0] * 0.5, p[1] + v[1] * 0.5, p[2] + v[2] * 0.5];
        let new_velocity = [v[0], v[1], v[2], mass(7.0 - f)];
        let [u, w] = uv(f);
        want.extend(particle_words(
            moved,
            mass(f) * 2.0,
            new_velocity,
            (100 + i) * 10 + i,
            3 - i as i32,
            [w, u],
        ));
    }
    simple(
        vec![storage(1, bytes_of_u32(&input)), storage(0, zeros(96)), storage(2, zeros(2))],
        1,
        vec![expect(0, Expected::U32(want)), expect(2, Expected::U32(vec![8, 48]))],
    )
}

fn byteaddress(_: &DeviceInfo) -> Case {
    let mut src: Vec<u32> = (0..64u32).map(|k| 0x0100_0000 * (k % 7) + k * 0x0001_0101).collect();
    let float_values: [f32; 8] = [0.5, -1.25, 3.0, 100.0, -0.0, 7.75, 0.125, 2.5];
    for (k, f) in float_values.iter().enumerate() {
        src[40 + k] = f.to_bits();
    }
    let mut want = vec![0u32; 128];
    for i in 0..8usize {
        want[i] = src[i].wrapping_mul(3);
        want[8 + 2 * i] = src[9 + 2 * i];
        want[9 + 2 * i] = src[8 + 2 * i];
        for k in 0..3 {
            want[25 + 3 * i + k] = src[25 + 3 * i + k] + k as u32 + 1;
        }
        for k in 0..4 {
            want[49 + 4 * i + k] = src[1 + 4 * i + k] ^ 0xFFFF_0000;
        }
        want[81 + i] = (f32::from_bits(src[40 + i]) * 2.0 + 1.0).to_bits();
    }
    want[89] = 256;
    simple(
        vec![storage(1, bytes_of_u32(&src)), storage(0, zeros(128))],
        1,
        vec![expect(0, Expected::U32(want))],
    )
}

fn cbuffer_params(_: &DeviceInfo) -> Case {
    let xform = |r: usize, c: usize| (r * 4 + c + 1) as f32;
    let (count, scale, offset, flags) = (3u32, 2.0f32, -3i32, 5u32);
    let bias = [0.5, -1.0, 0.0, 1.0];
    let mut params = vec![count, scale.to_bits(), offset as u32, flags];
    params.extend(bias.iter().map(|f: &f32| f.to_bits()));
    // column_major (the default): each column's four floats contiguous.
    for c in 0..4 {
        for r in 0..4 {
            params.push(xform(r, c).to_bits());
        }
    }
    let weights = |k: usize| [k as f32, k as f32 + 0.5, -(k as f32), 10.0];
    let rows = [[1.0f32, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]];
    let mut extra: Vec<f32> = (0..3).flat_map(weights).collect();
    extra.extend(rows.concat());
    const UNTOUCHED: f32 = -7.0;
    let mut want = vec![UNTOUCHED; 64];
    for i in 0..count as usize {
        let p = [i as f32, 1.0, offset as f32, flags as f32];
        let transformed: Vec4 =
            std::array::from_fn(|r| (0..4).map(|c| xform(r, c) * p[c]).sum::<f32>() * scale + bias[r]);
        let row: Vec4 = std::array::from_fn(|c| xform(i, c));
        let w = weights(i % 3);
        let sum: Vec4 = std::array::from_fn(|k| w[k] + rows[i % 2][k]);
        let picks = [rows[0][i], rows[1][3 - i], xform(0, i), xform(i, 3)];
        want[i * 16..i * 16 + 16].copy_from_slice(&[transformed, row, sum, picks].concat());
    }
    Case {
        bindings: vec![
            Binding { set: 0, binding: 1, resource: Resource::UniformBuffer(bytes_of_u32(&params)) },
            Binding { set: 0, binding: 2, resource: Resource::UniformBuffer(bytes_of_f32(&extra)) },
            storage(0, bytes_of_f32(&[UNTOUCHED; 64])),
        ],
        groups: [1, 1, 1],
        expect: vec![expect(0, floats(want, Tolerance::EXACT))],
        needs: Needs::default(),
    }
}

fn texel(x: u32, y: u32) -> Vec4 {
    [x as f32, y as f32, (x * y) as f32 + 0.5, 1.0]
}

fn texture_load(_: &DeviceInfo) -> Case {
    let (width, height) = (4u32, 6u32);
    let tex: Vec<f32> = (0..height).flat_map(|y| (0..width).flat_map(move |x| texel(x, y))).collect();
    let id = |x: u32, y: u32| y * 4 + x + 1;
    let ids: Vec<u32> = (0..4).flat_map(|y| (0..4).map(move |x| id(x, y))).collect();
    let mut want = Vec::new();
    let mut want_ids = Vec::new();
    for y in 0..4 {
        for x in 0..4 {
            let (a, b) = (texel(x, y), texel(3 - x, y));
            want.extend((0..4).map(|k| a[k] * 2.0 + b[k]));
            want_ids.push(id(x, y) + id(y, x) * 1000);
        }
    }
    want_ids.extend([width, height]);
    Case {
        bindings: vec![
            Binding {
                set: 0,
                binding: 1,
                resource: Resource::SampledImage(Image2d {
                    format: Format::Rgba32Float,
                    width,
                    height,
                    data: bytes_of_f32(&tex),
                }),
            },
            Binding {
                set: 0,
                binding: 2,
                resource: Resource::SampledImage(Image2d {
                    format: Format::R32Uint,
                    width: 4,
                    height: 4,
                    data: bytes_of_u32(&ids),
                }),
            },
            storage(0, zeros(64)),
            storage(3, zeros(18)),
        ],
        groups: [1, 1, 1],
        expect: vec![expect(0, floats(want, Tolerance::EXACT)), expect(3, Expected::U32(want_ids))],
        needs: Needs::default(),
    }
}

/// Vulkan's texel coordinate for a normalized coordinate under an address mode.
fn wrap(i: i64, size: i64, mode: AddressMode) -> i64 {
    match mode {
        AddressMode::ClampToEdge => i.clamp(0, size - 1),
        AddressMode::Repeat => i.rem_euclid(size),
        AddressMode::MirroredRepeat => {
            let period = i.rem_euclid(2 * size);
            if period < size {
                period
            } else {
                2 * size - 1 - period
            }
        }
    }
}

/// What `SampleLevel(uv, 0)` returns for a single-level image, by Vulkan's formulas.
fn sample(image: &dyn Fn(i64, i64) -> Vec4, size: (i64, i64), uv: [f32; 2], sampler: SamplerDesc) -> Vec4 {
    let (u, v) = (uv[0] as f64 * size.0 as f64, uv[1] as f64 * size.1 as f64);
    match sampler.filter {
        Filter::Nearest => {
            let (i, j) = (
                wrap(u.floor() as i64, size.0, sampler.address_mode),
                wrap(v.floor() as i64, size.1, sampler.address_mode),
            );
            image(i, j)
        }
        Filter::Linear => {
            let (u, v) = (u - 0.5, v - 0.5);
            let (i0, j0) = (u.floor() as i64, v.floor() as i64);
            let (alpha, beta) = ((u - u.floor()) as f32, (v - v.floor()) as f32);
            let at = |i: i64, j: i64| {
                image(wrap(i, size.0, sampler.address_mode), wrap(j, size.1, sampler.address_mode))
            };
            let (t00, t10, t01, t11) = (at(i0, j0), at(i0 + 1, j0), at(i0, j0 + 1), at(i0 + 1, j0 + 1));
            std::array::from_fn(|k| {
                (1.0 - alpha) * (1.0 - beta) * t00[k]
                    + alpha * (1.0 - beta) * t10[k]
                    + (1.0 - alpha) * beta * t01[k]
                    + alpha * beta * t11[k]
            })
        }
    }
}

fn texture_sample(_: &DeviceInfo) -> Case {
    let (width, height) = (4u32, 4u32);
    let value = |x: i64, y: i64| -> Vec4 { [x as f32 * 10.0, y as f32 * 10.0, (x + 4 * y) as f32, 1.0] };
    let data: Vec<f32> =
        (0..height as i64).flat_map(|y| (0..width as i64).flat_map(move |x| value(x, y))).collect();
    let coords: [[f32; 2]; 8] = [
        [0.125, 0.125],
        [0.375, 0.625],
        [0.25, 0.125],
        [0.5, 0.5],
        [1.125, -0.375],
        [0.9, 0.05],
        [0.3125, 0.875],
        [-0.0625, 0.5625],
    ];
    let point = SamplerDesc { filter: Filter::Nearest, address_mode: AddressMode::Repeat };
    let linear = SamplerDesc { filter: Filter::Linear, address_mode: AddressMode::ClampToEdge };
    let size = (width as i64, height as i64);
    let want: Vec<f32> = coords
        .iter()
        .flat_map(|&uv| [sample(&value, size, uv, point), sample(&value, size, uv, linear)].concat())
        .collect();
    let tolerance = Tolerance { abs: 1e-3, rel: 1e-4 };
    Case {
        bindings: vec![
            Binding {
                set: 0,
                binding: 1,
                resource: Resource::SampledImage(Image2d {
                    format: Format::Rgba32Float,
                    width,
                    height,
                    data: bytes_of_f32(&data),
                }),
            },
            Binding { set: 0, binding: 2, resource: Resource::Sampler(point) },
            Binding { set: 0, binding: 3, resource: Resource::Sampler(linear) },
            storage(4, bytes_of_f32(&coords.concat())),
            storage(0, zeros(64)),
        ],
        groups: [1, 1, 1],
        expect: vec![expect(0, floats(want, tolerance))],
        needs: Needs::default(),
    }
}

/// What `Gather` returns for component `component`: the texels around `uv` in the order
/// (i0, j1), (i1, j1), (i1, j0), (i0, j0), by Vulkan's formulas.
fn gather(
    image: &dyn Fn(i64, i64) -> Vec4,
    size: (i64, i64),
    uv: [f32; 2],
    mode: AddressMode,
    component: usize,
) -> Vec4 {
    let (u, v) = (uv[0] as f64 * size.0 as f64 - 0.5, uv[1] as f64 * size.1 as f64 - 0.5);
    let (i0, j0) = (u.floor() as i64, v.floor() as i64);
    let at = |i: i64, j: i64| image(wrap(i, size.0, mode), wrap(j, size.1, mode))[component];
    [at(i0, j0 + 1), at(i0 + 1, j0 + 1), at(i0 + 1, j0), at(i0, j0)]
}

fn texture_gather(_: &DeviceInfo) -> Case {
    let (width, height) = (4u32, 4u32);
    let value = |x: i64, y: i64| -> Vec4 {
        [(x + 10 * y) as f32, (100 + x) as f32, (200 + y) as f32, (300 + x * y) as f32]
    };
    let data: Vec<f32> =
        (0..height as i64).flat_map(|y| (0..width as i64).flat_map(move |x| value(x, y))).collect();
    // Coordinates halfway between texel centres, so no rounding decides which texels count.
    let coords: [[f32; 2]; 4] = [[0.25, 0.5], [0.5, 0.25], [1.0, 1.0], [0.0, 0.75]];
    let clamp = SamplerDesc { filter: Filter::Nearest, address_mode: AddressMode::ClampToEdge };
    let size = (width as i64, height as i64);
    let mut want = Vec::new();
    for (i, &uv) in coords.iter().enumerate() {
        for component in [0, 1, 3] {
            want.extend(gather(&value, size, uv, AddressMode::ClampToEdge, component));
        }
        want.extend(value(i as i64, 2));
    }
    Case {
        bindings: vec![
            Binding {
                set: 0,
                binding: 1,
                resource: Resource::SampledImage(Image2d {
                    format: Format::Rgba32Float,
                    width,
                    height,
                    data: bytes_of_f32(&data),
                }),
            },
            Binding { set: 0, binding: 2, resource: Resource::Sampler(clamp) },
            storage(3, bytes_of_f32(&coords.concat())),
            storage(0, zeros(64)),
        ],
        groups: [1, 1, 1],
        expect: vec![expect(0, floats(want, Tolerance::EXACT))],
        needs: Needs::default(),
    }
}

fn rwtexture(_: &DeviceInfo) -> Case {
    let (width, height) = (8u32, 4u32);
    let color = |x: u32, y: u32| -> Vec4 { [x as f32, y as f32, 1.0, 0.5] };
    let count = |x: u32, y: u32| x * 3 + y * 7;
    let pixels = || (0..height).flat_map(move |y| (0..width).map(move |x| (x, y)));
    let colors: Vec<f32> = pixels().flat_map(|(x, y)| color(x, y)).collect();
    let counts: Vec<u32> = pixels().map(|(x, y)| count(x, y)).collect();
    let want_colors: Vec<f32> = pixels()
        .flat_map(|(x, y)| {
            let c = color(x, y);
            let fresh = [x as f32, y as f32, c[0] + c[1], 1.0];
            (0..4).map(move |k| fresh[k] * 0.25 + c[k] * 0.5)
        })
        .collect();
    let want_counts: Vec<u32> =
        pixels().map(|(x, y)| count(x, y) * 2 + x * 10 + y + (width << 16) + (height << 24)).collect();
    Case {
        bindings: vec![
            Binding {
                set: 0,
                binding: 0,
                resource: Resource::StorageImage(Image2d {
                    format: Format::Rgba32Float,
                    width,
                    height,
                    data: bytes_of_f32(&colors),
                }),
            },
            Binding {
                set: 0,
                binding: 1,
                resource: Resource::StorageImage(Image2d {
                    format: Format::R32Uint,
                    width,
                    height,
                    data: bytes_of_u32(&counts),
                }),
            },
        ],
        groups: [2, 1, 1],
        expect: vec![expect(0, floats(want_colors, Tolerance::CLOSE)), expect(1, Expected::U32(want_counts))],
        needs: Needs::default(),
    }
}

fn typed_buffers(_: &DeviceInfo) -> Case {
    let input = |i: usize| -> Vec4 { [i as f32, 0.5 * i as f32, -(i as f32), 1.0 + (i % 3) as f32] };
    let initial4 = |i: usize| -> Vec4 { [1.0, 2.0, 3.0, i as f32] };
    let data: Vec<f32> = (0..16).flat_map(input).collect();
    let out4: Vec<f32> = (0..16).flat_map(initial4).collect();
    let mut want: Vec<u32> = (0..16).map(|i| (i as f32 + 0.5 * i as f32 * 2.0) as u32).collect();
    want.push(16);
    let want4: Vec<f32> = (0..16)
        .flat_map(|i| {
            let (other, w, base) = (input(15 - i), input(i)[3], initial4(i));
            (0..4).map(move |k| other[k] * w + base[k])
        })
        .collect();
    Case {
        bindings: vec![
            Binding {
                set: 0,
                binding: 1,
                resource: Resource::UniformTexelBuffer {
                    format: Format::Rgba32Float,
                    data: bytes_of_f32(&data),
                },
            },
            Binding {
                set: 0,
                binding: 0,
                resource: Resource::StorageTexelBuffer { format: Format::R32Uint, data: zeros(17) },
            },
            Binding {
                set: 0,
                binding: 2,
                resource: Resource::StorageTexelBuffer {
                    format: Format::Rgba32Float,
                    data: bytes_of_f32(&out4),
                },
            },
        ],
        groups: [1, 1, 1],
        expect: vec![expect(0, Expected::U32(want)), expect(2, floats(want4, Tolerance::CLOSE))],
        needs: Needs::default(),
    }
}

fn intrinsics_math(_: &DeviceInfo) -> Case {
    let input: [[f32; 2]; 8] = [
        [0.5, -1.5],
        [1.0, 0.0],
        [2.0, 2.5],
        [3.0, 0.75],
        [0.1, 1.0],
        [10.0, -0.25],
        [1.5, 3.0],
        [7.0, -4.0],
    ];
    let approx = Tolerance::TRANSCENDENTAL;
    let close = Tolerance { abs: 1e-6, rel: 1e-5 };
    let mut want = Vec::new();
    for &[x, y] in &input {
        let (xd, yd) = (x as f64, y as f64);
        let t = (x / 4.0).clamp(0.0, 1.0);
        let q = (y * 0.25).clamp(-1.0, 1.0) as f64;
        want.extend([
            (xd.sin() as f32, approx),
            (xd.cos() as f32, approx),
            ((xd * 0.25).tan() as f32, approx),
            (xd.exp() as f32, approx),
            (yd.exp2() as f32, approx),
            (xd.ln() as f32, approx),
            (xd.log2() as f32, approx),
            (xd.powf(yd) as f32, approx),
            (yd.atan2(xd) as f32, approx),
            (q.asin() as f32, approx),
            (q.acos() as f32, approx),
            (y.clamp(-1.0, 2.0), Tolerance::EXACT),
            (y.clamp(0.0, 1.0), Tolerance::EXACT),
            (x + 0.25 * (y - x), close),
            (t * t * (3.0 - 2.0 * t), close),
            (if y >= 1.0 { 1.0 } else { 0.0 }, Tolerance::EXACT),
            (
                if y > 0.0 {
                    1.0
                } else if y < 0.0 {
                    -1.0
                } else {
                    0.0
                },
                Tolerance::EXACT,
            ),
            (y.abs(), Tolerance::EXACT),
            (x.max(y) + y.max(1.0), Tolerance::EXACT),
            (x.sqrt() / (x + 1.0), close),
        ]);
    }
    simple(
        vec![storage(1, bytes_of_f32(&input.concat())), storage(0, zeros(160))],
        1,
        vec![expect(0, Expected::F32(want))],
    )
}

/// IEEE binary16 bits of `value`, rounded to nearest even (what f32tof16 gives).
pub(crate) fn f32_to_f16_bits(value: f32) -> u32 {
    let bits = value.to_bits();
    let sign = (bits >> 16) & 0x8000;
    let exponent = ((bits >> 23) & 0xFF) as i32;
    let mantissa = bits & 0x7F_FFFF;
    if exponent == 0xFF {
        return sign | 0x7C00 | if mantissa != 0 { 0x200 } else { 0 };
    }
    let half_exponent = exponent - 127 + 15;
    if half_exponent >= 0x1F {
        return sign | 0x7C00;
    }
    // Normal halves keep 10 mantissa bits; subnormal halves fewer, with the implicit one.
    let (shift, significand, biased) = if half_exponent <= 0 {
        if half_exponent < -10 {
            return sign;
        }
        (14 - half_exponent, mantissa | 0x80_0000, 0)
    } else {
        (13, mantissa, half_exponent as u32)
    };
    let kept = significand >> shift;
    let rest = significand & ((1 << shift) - 1);
    let halfway = 1 << (shift - 1);
    let rounded = kept + u32::from(rest > halfway || (rest == halfway && kept & 1 == 1));
    // A carry out of the mantissa moves into the exponent, as it should.
    sign | ((biased << 10) + rounded)
}

/// The f32 value of IEEE binary16 bits (what f16tof32 gives).
pub(crate) fn f16_bits_to_f32(bits: u32) -> f32 {
    let sign = if bits & 0x8000 != 0 { -1.0 } else { 1.0 };
    let exponent = ((bits >> 10) & 0x1F) as i32;
    let mantissa = (bits & 0x3FF) as f32;
    match exponent {
        0 => sign * mantissa * 2f32.powi(-24),
        0x1F if mantissa == 0.0 => sign * f32::INFINITY,
        0x1F => f32::NAN,
        _ => sign * (1.0 + mantissa / 1024.0) * 2f32.powi(exponent - 15),
    }
}

fn intrinsics_bits(_: &DeviceInfo) -> Case {
    let input: [u32; 8] =
        [0, 0x3C00, 0x8000_0000, 0xFFFF_7BFF, 0x00F0_C000, 0x1234_5678, 0xFFFF_BC00, 0x7FFF_3C00];
    let halves: [f32; 8] = [0.0, 1.0, -2.5, 65504.0, 0.333_251_95, -0.000_976_562_5, 1025.0, 3.140_625];
    let mut want = Vec::new();
    for (&x, &h) in input.iter().zip(&halves) {
        let s = x as i32;
        let high_u = if x == 0 { u32::MAX } else { 31 - x.leading_zeros() };
        // For a negative int, the highest bit that differs from the sign (GLSL's FindSMsb).
        let magnitude = if s < 0 { !s } else { s } as u32;
        let high_s = if magnitude == 0 { u32::MAX } else { 31 - magnitude.leading_zeros() };
        let low = if x == 0 { u32::MAX } else { x.trailing_zeros() };
        want.extend([
            x.count_ones(),
            x.reverse_bits(),
            high_u,
            high_s,
            low,
            f32_to_f16_bits(h),
            f16_bits_to_f32(x & 0xFFFF).to_bits(),
            (x >> 4) & 0xFF,
        ]);
    }
    simple(
        vec![storage(1, bytes_of_u32(&input)), storage(2, bytes_of_f32(&halves)), storage(0, zeros(64))],
        1,
        vec![expect(0, Expected::U32(want))],
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_conversions_match_known_encodings() {
        for (value, bits) in [
            (0.0f32, 0x0000),
            (-0.0, 0x8000),
            (1.0, 0x3C00),
            (-2.5, 0xC100),
            (65504.0, 0x7BFF),
            (65520.0, 0x7C00),
            (1025.0, 0x6401),
            (1024.5, 0x6400),
            (0.333_251_95, 0x3555),
            (2f32.powi(-24), 0x0001),
            (1.0 + 2f32.powi(-11), 0x3C00),
            (1.0 + 3.0 * 2f32.powi(-11), 0x3C02),
        ] {
            assert_eq!(f32_to_f16_bits(value), bits, "{value}");
        }
        for bits in [0x0000u32, 0x3C00, 0xC100, 0x7BFF, 0x6401, 0x3555, 0x0001, 0x8400] {
            assert_eq!(f32_to_f16_bits(f16_bits_to_f32(bits)), bits, "{bits:#x}");
        }
    }

    #[test]
    fn subgroups_are_runs_of_consecutive_invocations() {
        assert_eq!(subgroup_of(0, 64, 8), (0, 8, 0));
        assert_eq!(subgroup_of(13, 64, 8), (8, 16, 5));
        assert_eq!(subgroup_of(70, 64, 8), (64, 72, 6));
        assert_eq!(subgroup_of(70, 64, 128), (64, 128, 6));
        assert_eq!(subgroup_of(63, 64, 48), (48, 64, 15));
    }

    #[test]
    fn sampling_follows_vulkan_formulas() {
        let image = |x: i64, y: i64| -> Vec4 { [x as f32, y as f32, 0.0, 0.0] };
        let linear = SamplerDesc { filter: Filter::Linear, address_mode: AddressMode::ClampToEdge };
        let point = SamplerDesc { filter: Filter::Nearest, address_mode: AddressMode::Repeat };
        assert_eq!(sample(&image, (4, 4), [0.25, 0.125], linear), [0.5, 0.0, 0.0, 0.0]);
        assert_eq!(sample(&image, (4, 4), [1.125, -0.375], point), [0.0, 2.0, 0.0, 0.0]);
        assert_eq!(sample(&image, (4, 4), [-0.0625, 0.5625], linear), [0.0, 1.75, 0.0, 0.0]);
        assert_eq!(wrap(-1, 4, AddressMode::MirroredRepeat), 0);
        assert_eq!(wrap(5, 4, AddressMode::MirroredRepeat), 2);
    }

    #[test]
    fn every_kernel_source_has_a_header_and_a_main() {
        assert!(KERNELS.len() >= 20);
        for kernel in KERNELS {
            assert!(kernel.source.starts_with("// "), "{} has no header comment", kernel.name);
            assert!(kernel.source.contains("void main("), "{} has no main", kernel.name);
        }
    }
}
