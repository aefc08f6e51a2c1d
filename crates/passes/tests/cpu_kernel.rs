//! The CPU kernel pass end to end without the JIT: the interface read from a SPIR-V
//! module, the pass run on the converted LLVM dialect module, and - when LLVM 22's
//! tools and a C compiler are installed - the result translated by mlir-translate-22,
//! compiled by llc-22, linked with a small C driver that fills the context and run:
//! the buffers must hold the right values, out-of-bounds accesses must be contained.

use std::path::{Path, PathBuf};
use std::process::Command;

use spirvkit_passes::cpu_kernel::{self, context as cx, KernelLayout};

fn data(name: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/cpu_kernel").join(name);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Runs the interface and the kernel pass; returns the generic text and the layout.
fn kernel(spirv: &str, llvm: &str, spec: &[(u32, u64)]) -> (String, KernelLayout) {
    let (mut sir, stop) = spirvkit_ir::parse(spirv, "k.spirv.mlir").expect("spirv parses");
    let module = sir.op(stop).regions[0];
    let module = sir.region(module).blocks[0];
    let module = sir.block(module).ops[0];
    let iface = cpu_kernel::prepare_spirv(&mut sir, module, None, spec).expect("interface");
    let (mut ir, top) = spirvkit_ir::parse(llvm, "k.llvm.mlir").expect("llvm parses");
    let layout = cpu_kernel::build_workgroup_function(&mut ir, top, &iface).expect("kernel pass");
    // mlir-translate-22 translates only the top-level module: print the nested one.
    let inner = ir.region(ir.op(top).regions[0]).blocks[0];
    let printed =
        ir.block(inner).ops.iter().copied().find(|&op| ir.op(op).name == "builtin.module").unwrap_or(top);
    let text =
        spirvkit_ir::print(&ir, printed, spirvkit_ir::PrintOptions { generic: true, ..Default::default() });
    (text, layout)
}

fn tool(name: &str) -> Option<PathBuf> {
    let out = Command::new("sh").arg("-c").arg(format!("command -v {name}")).output().ok()?;
    out.status.success().then(|| PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

/// The C side of the context (see `cpu_kernel::context`).
const C_PRELUDE: &str = r#"
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
typedef struct { void *base; uint64_t bytes; } Slot;
typedef struct {
  Slot *buffers; const void *push; uint64_t push_bytes; void *workgroup_memory; void *frames;
  const void *zero_page; void *sink_page; const uint32_t *cancel; uint32_t num_workgroups[3]; uint32_t pad;
  void **private_buffers;
} Ctx;
extern void spirvkit_workgroup(Ctx *, uint32_t, uint32_t, uint32_t);
static uint8_t zero_page[4096], sink_page[4096];
static uint32_t cancel_flag;
static Ctx make_ctx(Slot *slots, uint64_t wg_bytes, uint64_t frame_bytes, uint64_t invocations) {
  Ctx c; memset(&c, 0, sizeof c);
  c.buffers = slots; c.zero_page = zero_page; c.sink_page = sink_page; c.cancel = &cancel_flag;
  c.workgroup_memory = aligned_alloc(64, wg_bytes ? (wg_bytes + 63) / 64 * 64 : 64);
  c.frames = aligned_alloc(64, frame_bytes ? (frame_bytes * invocations + 63) / 64 * 64 : 64);
  return c;
}
"#;

/// Translates, compiles and runs `text` with the C `driver` (which prints "ok" on
/// success). `None` when the tools are missing.
fn execute(name: &str, text: &str, layout: &KernelLayout, driver: &str) -> Option<String> {
    let (Some(translate), Some(llc), Some(cc)) = (tool("mlir-translate-22"), tool("llc-22"), tool("cc"))
    else {
        eprintln!("skipping the execution of {name}: mlir-translate-22, llc-22 or cc is not installed");
        return None;
    };
    let dir = std::env::temp_dir().join(format!("spirvkit-cpu-kernel-{}-{name}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let mlir = dir.join("k.mlir");
    std::fs::write(&mlir, text).expect("write");
    let ll = dir.join("k.ll");
    let out =
        Command::new(translate).arg("--mlir-to-llvmir").arg(&mlir).arg("-o").arg(&ll).output().expect("runs");
    assert!(
        out.status.success(),
        "mlir-translate-22 refused the kernel:\n{}\n{text}",
        String::from_utf8_lossy(&out.stderr)
    );
    let obj = dir.join("k.o");
    let out = Command::new(llc)
        .args(["-O3", "-filetype=obj", "-relocation-model=pic"])
        .arg(&ll)
        .arg("-o")
        .arg(&obj)
        .output()
        .expect("runs");
    assert!(out.status.success(), "llc-22: {}", String::from_utf8_lossy(&out.stderr));
    let c = dir.join("driver.c");
    let layout_defs = format!(
        "#define WG_BYTES {}ull\n#define FRAME_BYTES {}ull\n#define INVOCATIONS {}ull\n",
        layout.workgroup_bytes,
        layout.frame_bytes,
        layout.workgroup_size.iter().map(|&d| u64::from(d)).product::<u64>()
    );
    std::fs::write(&c, format!("{C_PRELUDE}{layout_defs}{driver}")).expect("write");
    let exe = dir.join("run");
    let out =
        Command::new(cc).arg("-O1").arg(&c).arg(&obj).arg("-o").arg(&exe).arg("-lm").output().expect("runs");
    assert!(out.status.success(), "cc: {}", String::from_utf8_lossy(&out.stderr));
    let out = Command::new(&exe).output().expect("runs");
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "the kernel's driver failed: {stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    // SPIRVKIT_KEEP_KERNELS=1 keeps the translated kernels for inspection.
    if std::env::var_os("SPIRVKIT_KEEP_KERNELS").is_none() {
        let _ = std::fs::remove_dir_all(&dir);
    } else {
        eprintln!("kept {}", dir.display());
    }
    Some(stdout)
}

#[test]
fn context_offsets_match_the_c_layout() {
    // The C mirror above and the runtime's repr(C) struct follow these numbers.
    assert_eq!((cx::BUFFERS, cx::PUSH, cx::PUSH_BYTES, cx::WORKGROUP_MEMORY), (0, 8, 16, 24));
    assert_eq!(
        (
            cx::FRAMES,
            cx::ZERO_PAGE,
            cx::SINK_PAGE,
            cx::CANCEL,
            cx::NUM_WORKGROUPS,
            cx::PRIVATE_BUFFERS,
            cx::SIZE
        ),
        (32, 40, 48, 56, 64, 80, 88)
    );
}

#[test]
fn saxpy_layout_and_shape() {
    let (text, layout) = kernel(&data("saxpy.spirv.mlir"), &data("saxpy.llvm.mlir"), &[]);
    let names: Vec<(u32, u32)> = layout.descriptors.iter().map(|d| (d.set, d.binding)).collect();
    assert_eq!(names, [(0, 0), (0, 1), (0, 2)], "slots in first-use order");
    assert!(!layout.descriptors[0].storage && layout.descriptors[1].storage);
    assert_eq!(layout.descriptors[0].fixed_size, 8);
    assert_eq!(layout.descriptors[1].runtime_stride, Some(4));
    assert_eq!((layout.barriers, layout.frame_bytes, layout.workgroup_bytes), (0, 0, 0));
    assert!(text.contains("sym_name = \"spirvkit_workgroup\""), "{text}");
    assert!(text.contains("sym_name = \"spirvkit_invocation\""), "{text}");
    assert!(!text.contains("global_name = @x"), "descriptors come from the context: {text}");
    // Five checked accesses (two uniforms, x, y read and written); the built-in, read
    // whole from its own slot, needs no check.
    assert_eq!(text.matches("\"llvm.ptrtoint\"").count(), 10, "{text}");
}

#[test]
fn saxpy_runs_and_out_of_bounds_accesses_are_contained() {
    let (text, layout) = kernel(&data("saxpy.spirv.mlir"), &data("saxpy.llvm.mlir"), &[]);
    // 100 elements, 2 groups of 64: invocations 100..127 read zeros and write nothing.
    // y sits in a larger allocation whose tail must stay untouched.
    let driver = r#"
int main(void) {
  enum { N = 100 };
  struct { uint32_t n; float a; } params = { N, 2.0f };
  float *x = malloc(N * 4), *y = malloc((N + 64) * 4);
  for (int i = 0; i < N; i++) { x[i] = (float)i; y[i] = 1.0f; }
  for (int i = N; i < N + 64; i++) y[i] = -7.0f;
  Slot slots[3] = { { &params, 8 }, { x, N * 4 }, { y, N * 4 } };
  Ctx c = make_ctx(slots, WG_BYTES, FRAME_BYTES, INVOCATIONS);
  c.num_workgroups[0] = 2; c.num_workgroups[1] = 1; c.num_workgroups[2] = 1;
  for (uint32_t g = 0; g < 2; g++) spirvkit_workgroup(&c, g, 0, 0);
  for (int i = 0; i < N; i++) if (y[i] != 2.0f * i + 1.0f) { printf("y[%d] = %f\n", i, y[i]); return 1; }
  for (int i = N; i < N + 64; i++) if (y[i] != -7.0f) { printf("out of bounds write at %d\n", i); return 1; }
  for (int i = 0; i < 4096; i++) if (zero_page[i]) { printf("zero page written\n"); return 1; }
  printf("ok\n");
  return 0;
}
"#;
    if let Some(out) = execute("saxpy", &text, &layout, driver) {
        assert_eq!(out.trim(), "ok");
    }
}

#[test]
fn reduce_with_barriers_in_a_loop_runs() {
    let (text, layout) = kernel(&data("reduce.spirv.mlir"), &data("reduce.llvm.mlir"), &[]);
    assert_eq!(layout.barriers, 2);
    assert_eq!(layout.workgroup_bytes, 256);
    assert!(layout.frame_bytes > 0, "values live across barriers need frames");
    assert!(!text.contains("_Z22__spirv_ControlBarrieriii\""), "{text}");
    // 1000 elements (i + 1), 16 groups of 64: the last group reads 40 past the end as zero.
    let driver = r#"
int main(void) {
  enum { N = 1000, G = 16 };
  float *src = malloc(N * 4), *partial = malloc(G * 4);
  for (int i = 0; i < N; i++) src[i] = (float)(i + 1);
  Slot slots[2] = { { src, N * 4 }, { partial, G * 4 } };
  Ctx c = make_ctx(slots, WG_BYTES, FRAME_BYTES, INVOCATIONS);
  c.num_workgroups[0] = G; c.num_workgroups[1] = 1; c.num_workgroups[2] = 1;
  for (uint32_t g = 0; g < G; g++) spirvkit_workgroup(&c, g, 0, 0);
  for (int g = 0; g < G; g++) {
    double want = 0;
    for (int i = g * 64; i < g * 64 + 64 && i < N; i++) want += i + 1;
    if (partial[g] != (float)want) { printf("partial[%d] = %f, want %f\n", g, partial[g], want); return 1; }
  }
  printf("ok\n");
  return 0;
}
"#;
    if let Some(out) = execute("reduce", &text, &layout, driver) {
        assert_eq!(out.trim(), "ok");
    }
}

#[test]
fn runaway_loop_polls_the_cancel_flag() {
    let (text, _) = kernel(&data("runaway.spirv.mlir"), &data("runaway.llvm.mlir"), &[]);
    // Two atomic (monotonic) loads of the flag: one at the loop header, behind a
    // countdown from the poll interval, and one before a further round of the workgroup.
    assert_eq!(text.matches("ordering = 2 : i64").count(), 2, "{text}");
    let interval = format!("value = {} : i64", cpu_kernel::workgroup::POLL_INTERVAL);
    assert_eq!(text.matches(&interval).count(), 1, "the countdown starts once per call: {text}");
}
