//! The runtime end to end on kernels the kernel pass built (from the converted LLVM
//! dialect in crates/passes/tests/data/cpu_kernel), translated to LLVM IR text by
//! mlir-translate-22 (skipped with a message when it is missing), JIT-compiled and
//! dispatched on several threads: results, contained out-of-bounds accesses, a runaway
//! shader stopped by the time limit, and the argument checks.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use spirvkit_jit::runtime::{CompiledKernel, DeclaredDescriptor};
use spirvkit_jit::Jit;
use spirvkit_passes::cpu_kernel;
use spirvkit_run::{Binding, BufferKind, RunError};

fn data(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../passes/tests/data/cpu_kernel").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The kernel `name` compiled, or `None` when mlir-translate-22 is not installed.
fn compile(name: &str) -> Option<CompiledKernel> {
    let spirv = data(&format!("{name}.spirv.mlir"));
    let llvm = data(&format!("{name}.llvm.mlir"));
    let (mut sir, stop) = spirvkit_ir::parse(&spirv, "k.spirv.mlir").expect("parses");
    let module = sir.block(sir.region(sir.op(stop).regions[0]).blocks[0]).ops[0];
    let iface = cpu_kernel::prepare_spirv(&mut sir, module, None, &[]).expect("interface");
    let (mut ir, top) = spirvkit_ir::parse(&llvm, "k.llvm.mlir").expect("parses");
    let layout = cpu_kernel::build_workgroup_function(&mut ir, top, &iface).expect("kernel pass");
    let inner = ir.region(ir.op(top).regions[0]).blocks[0];
    let printed =
        ir.block(inner).ops.iter().copied().find(|&op| ir.op(op).name == "builtin.module").unwrap_or(top);
    let text =
        spirvkit_ir::print(&ir, printed, spirvkit_ir::PrintOptions { generic: true, ..Default::default() });
    let dir = std::env::temp_dir().join(format!("spirvkit-runtime-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mlir = dir.join("k.mlir");
    std::fs::write(&mlir, &text).expect("write");
    let out = match Command::new("mlir-translate-22").arg("--mlir-to-llvmir").arg(&mlir).output() {
        Ok(out) => out,
        Err(_) => {
            eprintln!("skipping {name}: mlir-translate-22 is not installed");
            return None;
        }
    };
    let _ = std::fs::remove_dir_all(&dir);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let ll = String::from_utf8(out.stdout).expect("utf-8");
    let declared = iface
        .descriptors()
        .map(|(_, d)| DeclaredDescriptor {
            set: d.set,
            binding: d.binding,
            kind: if d.is_storage() { BufferKind::Storage } else { BufferKind::Uniform },
        })
        .collect();
    let jit = Jit::new().expect("host JIT");
    Some(CompiledKernel::new(&jit, &ll, layout, declared).expect("compiles"))
}

fn f32s(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn read_f32s(bytes: &[u8]) -> Vec<f32> {
    bytes.chunks_exact(4).map(|c| f32::from_le_bytes(c.try_into().unwrap())).collect()
}

fn storage(binding: u32, data: Vec<u8>) -> Binding {
    Binding { set: 0, binding, kind: BufferKind::Storage, data }
}

#[test]
fn saxpy_on_two_threads_with_a_partial_last_group() {
    let Some(kernel) = compile("saxpy") else { return };
    let n = 1000usize; // 16 groups of 64: the last 24 invocations are out of bounds
    let mut params = 1000u32.to_le_bytes().to_vec();
    params.extend(2.5f32.to_le_bytes());
    let mut bindings = vec![
        Binding { set: 0, binding: 0, kind: BufferKind::Uniform, data: params },
        storage(1, f32s((0..n).map(|i| i as f32))),
        storage(2, f32s((0..n).map(|_| 1.0))),
    ];
    kernel.dispatch([16, 1, 1], &mut bindings, &[], 2, None).expect("runs");
    let y = read_f32s(&bindings[2].data);
    for (i, v) in y.iter().enumerate() {
        assert_eq!(*v, 2.5 * i as f32 + 1.0, "y[{i}]");
    }
}

#[test]
fn reduce_with_barriers_on_two_threads() {
    let Some(kernel) = compile("reduce") else { return };
    let n: usize = 64 * 100 + 17;
    let groups = n.div_ceil(64);
    let mut bindings =
        vec![storage(1, f32s((0..n).map(|i| (i % 7) as f32))), storage(2, vec![0; groups * 4])];
    kernel.dispatch([groups as u32, 1, 1], &mut bindings, &[], 2, None).expect("runs");
    let partial = read_f32s(&bindings[1].data);
    for (g, v) in partial.iter().enumerate() {
        let want: f32 = (g * 64..(g * 64 + 64).min(n)).map(|i| (i % 7) as f32).sum();
        assert_eq!(*v, want, "partial[{g}]");
    }
}

#[test]
fn a_runaway_shader_is_stopped_by_the_time_limit() {
    let Some(kernel) = compile("runaway") else { return };
    let mut bindings = vec![storage(0, vec![0; 4])];
    let start = std::time::Instant::now();
    let err =
        kernel.dispatch([4, 1, 1], &mut bindings, &[], 2, Some(Duration::from_millis(200))).unwrap_err();
    assert!(matches!(err, RunError::TimeLimit { .. }), "{err}");
    assert!(start.elapsed() < Duration::from_secs(5), "stopped promptly");
    assert_ne!(bindings[0].data, vec![0; 4], "the loop ran");
}

#[test]
fn arguments_are_checked() {
    let Some(kernel) = compile("saxpy") else { return };
    let params = Binding { set: 0, binding: 0, kind: BufferKind::Uniform, data: vec![0; 8] };
    // Missing binding 2.
    let mut bindings = vec![params.clone(), storage(1, vec![0; 16])];
    let err = kernel.dispatch([1, 1, 1], &mut bindings, &[], 1, None).unwrap_err();
    assert!(
        matches!(&err, RunError::Arguments(m) if m.contains("binding 2:0") && m.contains("missing")),
        "{err}"
    );
    // A binding the shader does not declare.
    let mut bindings =
        vec![params.clone(), storage(1, vec![0; 16]), storage(2, vec![0; 16]), storage(7, vec![0; 4])];
    let err = kernel.dispatch([1, 1, 1], &mut bindings, &[], 1, None).unwrap_err();
    assert!(
        matches!(&err, RunError::Arguments(m) if m.contains("binding 7:0") && m.contains("declares no buffer")),
        "{err}"
    );
    // A uniform block smaller than its fixed part.
    let mut bindings = vec![
        Binding { data: vec![0; 4], ..params.clone() },
        storage(1, vec![0; 16]),
        storage(2, vec![0; 16]),
    ];
    let err = kernel.dispatch([1, 1, 1], &mut bindings, &[], 1, None).unwrap_err();
    assert!(matches!(&err, RunError::Arguments(m) if m.contains("needs at least 8")), "{err}");
    // The wrong kind.
    let mut bindings = vec![
        Binding { kind: BufferKind::Storage, ..params },
        storage(1, vec![0; 16]),
        storage(2, vec![0; 16]),
    ];
    let err = kernel.dispatch([1, 1, 1], &mut bindings, &[], 1, None).unwrap_err();
    assert!(matches!(&err, RunError::Arguments(m) if m.contains("uniform buffer there")), "{err}");
}
