//! Times the CPU device on the shared kernels at their reference sizes (a quick check,
//! not the benchmark): `cargo run --release -p spirvkit-jit --example cpu_kernels --
//! PATH/TO/shared/kernels [REPEAT]`. Needs glslangValidator.

use std::path::Path;
use std::process::Command;

use spirvkit_jit::CpuDevice;
use spirvkit_run::{Binding, BufferKind, Device, Dispatch};

fn words(dir: &Path, name: &str) -> Vec<u32> {
    let out = std::env::temp_dir().join(format!("spirvkit-cpu-kernels-{name}.spv"));
    let status = Command::new("glslangValidator")
        .args(["-D", "-V", "-S", "comp", "-e", "main"])
        .arg(dir.join(format!("{name}.hlsl")))
        .arg("-o")
        .arg(&out)
        .output()
        .expect("glslangValidator runs");
    assert!(status.status.success(), "{}", String::from_utf8_lossy(&status.stdout));
    let bytes = std::fs::read(&out).expect("written");
    bytes.chunks_exact(4).map(|c| u32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn buffer(binding: u32, kind: BufferKind, bytes: usize, fill: impl Fn(usize) -> u32) -> Binding {
    let data = (0..bytes / 4).flat_map(|i| fill(i).to_le_bytes()).collect();
    Binding { set: 0, binding, kind, data }
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(args.get(1).map(String::as_str).unwrap_or("../shared/kernels"));
    let repeat: u32 = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(5);
    let grid_1d = |n: usize| {
        let g = n.div_ceil(256) as u32;
        [g.min(1024), g.div_ceil(1024), 1]
    };
    let grid_2d = |n: usize| {
        let g = n.div_ceil(16) as u32;
        [g, g, 1]
    };
    let uniform = |values: &[u32]| {
        let mut data: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        data.resize(16, 0);
        Binding { set: 0, binding: 0, kind: BufferKind::Uniform, data }
    };
    let st = BufferKind::Storage;
    type Setup = Box<dyn Fn() -> (Vec<Binding>, [u32; 3])>;
    let kernels: Vec<(&str, Setup)> = vec![
        (
            "saxpy",
            Box::new(move || {
                let n = 33_554_432;
                (
                    vec![
                        uniform(&[n as u32, 2f32.to_bits()]),
                        buffer(1, st, n * 4, |i| (i as f32).to_bits()),
                        buffer(2, st, n * 4, |_| 1f32.to_bits()),
                    ],
                    grid_1d(n),
                )
            }),
        ),
        (
            "reduce",
            Box::new(move || {
                let n = 4_194_304;
                (
                    vec![
                        uniform(&[n as u32]),
                        buffer(1, st, n * 4, |i| ((i % 7) as f32).to_bits()),
                        buffer(2, st, n.div_ceil(256) * 4, |_| 0),
                    ],
                    grid_1d(n),
                )
            }),
        ),
        (
            "histogram",
            Box::new(move || {
                let n = 8_388_608;
                (
                    vec![
                        uniform(&[n as u32]),
                        buffer(1, st, n * 4, |i| (i as u32).wrapping_mul(2654435761)),
                        buffer(2, st, 1024, |_| 0),
                    ],
                    grid_1d(n),
                )
            }),
        ),
        (
            "scan",
            Box::new(move || {
                let n = 2_097_152;
                (
                    vec![
                        uniform(&[n as u32]),
                        buffer(1, st, n * 4, |i| i as u32),
                        buffer(2, st, n * 4, |_| 0),
                    ],
                    grid_1d(n),
                )
            }),
        ),
        (
            "matmul_naive",
            Box::new(move || {
                let n = 384;
                (
                    vec![
                        uniform(&[n as u32]),
                        buffer(1, st, n * n * 4, |i| ((i % 5) as f32).to_bits()),
                        buffer(2, st, n * n * 4, |i| ((i % 3) as f32).to_bits()),
                        buffer(3, st, n * n * 4, |_| 0),
                    ],
                    grid_2d(n),
                )
            }),
        ),
        (
            "matmul_tiled",
            Box::new(move || {
                let n = 384;
                (
                    vec![
                        uniform(&[n as u32]),
                        buffer(1, st, n * n * 4, |i| ((i % 5) as f32).to_bits()),
                        buffer(2, st, n * n * 4, |i| ((i % 3) as f32).to_bits()),
                        buffer(3, st, n * n * 4, |_| 0),
                    ],
                    grid_2d(n),
                )
            }),
        ),
        (
            "mandelbrot",
            Box::new(move || {
                let n = 2048;
                (vec![uniform(&[n as u32]), buffer(1, st, n * n * 4, |_| 0)], grid_2d(n))
            }),
        ),
    ];
    for (name, setup) in kernels {
        let spirv = words(dir, name);
        let (mut bindings, groups) = setup();
        let dispatch = Dispatch {
            spirv: &spirv,
            entry: "main",
            groups,
            spec: &[],
            push: &[],
            threads: None,
            time_limit: None,
            repeat,
        };
        match CpuDevice::new().run(&dispatch, &mut bindings, None) {
            Ok(t) => {
                let mut ms = t.dispatch_ms.clone();
                ms.sort_by(f64::total_cmp);
                println!(
                    "{name}: compile_ms={:.1} first_ms={:.2} median_ms={:.2} min_ms={:.2}",
                    t.compile_ms,
                    t.dispatch_ms[0],
                    ms[ms.len() / 2],
                    ms[0]
                );
            }
            Err(e) => println!("{name}: error: {e}"),
        }
    }
}
