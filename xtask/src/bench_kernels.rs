//! `cargo xtask bench-kernels [--kernels DIR] [--repeat N] [--scale F] [--only NAME,...]
//! [--devices cpu,vulkan] [--baseline-native]`: issue 17's kernel
//! benchmark. A benchmark, not a timed test: it asserts nothing on timings.
//!
//! Each kernel of `../shared/kernels` is compiled by `hlsl2spirv -T cs_6_0 -E main` (release)
//! and checked by spirv-val, then run from the same inputs (the INIT rule, see
//! [`spec`]) three ways, `--repeat` dispatches each (default 5), every dispatch starting
//! from the buffers as the previous one left them (as `spirvkit run` does without
//! `--fresh`):
//!
//! - native: plain Rust loops of the same algorithm on all cores ([`native`]);
//! - `spirvkit run --device vulkan` (lavapipe) and `spirvkit run --device cpu`, the CLI as a
//!   user runs it, with its `key=value` report parsed and its `--dump` files compared with
//!   the native result.
//!
//! A device that is not built or fails is reported as such in its column (with the
//! reason under the table), never left out. The table (medians, ratios, compile times,
//! agreement, the targets) is printed and written to `<target>/bench/kernels.md`.

mod cli;
mod native;
mod spec;

use anyhow::{bail, Context as _, Result};
use native::Isa;
use spec::{Agreement, ElemType, Kernel};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

const USAGE: &str =
    "usage: cargo xtask bench-kernels [--kernels DIR] [--repeat N] [--scale F] [--only NAME,...] \
                     [--devices cpu,vulkan] [--baseline-native]";

struct Options {
    kernels_dir: PathBuf,
    repeat: u32,
    scale: f64,
    only: Option<Vec<Kernel>>,
    cpu: bool,
    vulkan: bool,
    isa: Isa,
}

fn parse_options(args: &[String]) -> Result<Options> {
    let mut options = Options {
        kernels_dir: crate::workspace_root().join("../shared/kernels"),
        repeat: 5,
        scale: 1.0,
        only: None,
        cpu: true,
        vulkan: true,
        isa: Isa::detect(),
    };
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let mut value =
            |what: &str| iter.next().with_context(|| format!("{arg} needs {what}; {USAGE}")).cloned();
        match arg.as_str() {
            "--kernels" => options.kernels_dir = PathBuf::from(value("a directory")?),
            "--repeat" => {
                options.repeat = value("a count")?.parse().context("--repeat")?;
                if options.repeat == 0 {
                    bail!("--repeat must be at least 1");
                }
            }
            "--scale" => {
                options.scale = value("a factor")?.parse().context("--scale")?;
                if !(options.scale > 0.0 && options.scale <= 1.0) {
                    bail!("--scale takes a factor in (0, 1]");
                }
            }
            "--only" => {
                let names = value("kernel names")?;
                let kernels = names
                    .split(',')
                    .map(|name| Kernel::from_name(name).with_context(|| format!("no kernel named `{name}`")))
                    .collect::<Result<Vec<_>>>()?;
                options.only = Some(kernels);
            }
            "--devices" => {
                let list = value("a list")?;
                options.cpu = false;
                options.vulkan = false;
                for device in list.split(',').filter(|d| !d.is_empty()) {
                    match device {
                        "cpu" => options.cpu = true,
                        "vulkan" => options.vulkan = true,
                        other => bail!("unknown device `{other}` (cpu, vulkan)"),
                    }
                }
            }
            "--baseline-native" => options.isa = Isa::Baseline,
            other => bail!("unknown option `{other}`; {USAGE}"),
        }
    }
    Ok(options)
}

/// A storage buffer's contents, typed.
#[derive(Clone, Debug, PartialEq)]
enum Data {
    F32(Vec<f32>),
    U32(Vec<u32>),
}

impl Data {
    fn new(buffer: &spec::StorageBuffer) -> Data {
        match buffer.elem {
            ElemType::F32 => Data::F32(spec::init_f32(buffer.init, buffer.count)),
            ElemType::U32 => Data::U32(spec::init_u32(buffer.init, buffer.count)),
        }
    }

    fn to_le_bytes(&self) -> Vec<u8> {
        match self {
            Data::F32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
            Data::U32(v) => v.iter().flat_map(|x| x.to_le_bytes()).collect(),
        }
    }

    fn f32s(&self) -> &[f32] {
        match self {
            Data::F32(v) => v,
            Data::U32(_) => panic!("the kernel spec gives this buffer f32 elements"),
        }
    }

    fn u32s(&self) -> &[u32] {
        match self {
            Data::U32(v) => v,
            Data::F32(_) => panic!("the kernel spec gives this buffer u32 elements"),
        }
    }
}

/// The native column of one kernel: per-dispatch times and the output after the last
/// dispatch.
struct NativeRun {
    dispatch_ms: Vec<f64>,
    after_last: Vec<u8>,
}

/// Runs `repeat` native dispatches of `kernel` from the INIT contents of its buffers.
fn run_native(kernel: Kernel, n: u32, repeat: u32, isa: Isa, threads: usize) -> NativeRun {
    let specs = kernel.buffers(n);
    let mut data: Vec<Data> = specs.iter().map(Data::new).collect();
    let output = specs.iter().position(|b| b.output).expect("every kernel has an output");
    // histogram's bins are shared atomics across dispatches, read back at the end.
    let bins: [AtomicU32; 256] = std::array::from_fn(|_| AtomicU32::new(0));
    let mut dispatch_ms = Vec::new();
    let n = n as usize;
    for _ in 0..repeat {
        let start = Instant::now();
        match kernel {
            Kernel::Saxpy => {
                let (x, y) = data.split_at_mut(1);
                let Data::F32(y) = &mut y[0] else { unreachable!() };
                native::saxpy(isa, threads, x[0].f32s(), y);
            }
            Kernel::Reduce => {
                let (src, partial) = data.split_at_mut(1);
                let Data::F32(partial) = &mut partial[0] else { unreachable!() };
                native::reduce(isa, threads, src[0].f32s(), partial);
            }
            Kernel::Histogram => native::histogram(isa, threads, data[0].u32s(), &bins),
            Kernel::Scan => {
                let (src, dst) = data.split_at_mut(1);
                let Data::U32(dst) = &mut dst[0] else { unreachable!() };
                native::scan(isa, threads, src[0].u32s(), dst);
            }
            Kernel::MatmulNaive | Kernel::MatmulTiled => {
                let (ab, c) = data.split_at_mut(2);
                let Data::F32(c) = &mut c[0] else { unreachable!() };
                native::matmul(isa, threads, n, ab[0].f32s(), ab[1].f32s(), c);
            }
            Kernel::Mandelbrot => {
                let Data::U32(img) = &mut data[0] else { unreachable!() };
                native::mandelbrot(isa, threads, n, img);
            }
        }
        dispatch_ms.push(start.elapsed().as_secs_f64() * 1e3);
        if kernel == Kernel::Histogram {
            data[output] = Data::U32(bins.iter().map(|b| b.load(Ordering::Relaxed)).collect());
        }
    }
    NativeRun { dispatch_ms, after_last: data[output].to_le_bytes() }
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    if sorted.len() % 2 == 1 {
        sorted[mid]
    } else {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    }
}

/// Whether a device's output agrees with the native one.
#[derive(Clone, Debug, PartialEq)]
enum Verdict {
    /// Bit for bit.
    Exact,
    /// Floats within the tolerance, with the largest relative difference seen.
    Within { max_rel: f64 },
    /// `count` elements differ (or the sizes do); the first one described.
    Differ { count: usize, first: String },
}

impl Verdict {
    fn describe(&self) -> String {
        match self {
            Verdict::Exact => "exact".into(),
            Verdict::Within { max_rel } => format!("ok (rel {max_rel:.1e})"),
            Verdict::Differ { count, first } => format!("DIFFER: {count} elements, first {first}"),
        }
    }
}

/// Compares `got` with `want` (little-endian `elem`s) under `agreement`.
fn compare(agreement: Agreement, elem: ElemType, got: &[u8], want: &[u8]) -> Verdict {
    if got.len() != want.len() {
        return Verdict::Differ {
            count: got.len().abs_diff(want.len()) / 4,
            first: format!("size {} bytes, expected {}", got.len(), want.len()),
        };
    }
    if got == want {
        return Verdict::Exact;
    }
    let words = |bytes: &[u8]| -> Vec<u32> {
        bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect()
    };
    let (got, want) = (words(got), words(want));
    let mut count = 0;
    let mut first = None;
    let mut max_rel = 0.0f64;
    for (i, (&g, &w)) in got.iter().zip(&want).enumerate() {
        let ok = match (agreement, elem) {
            (Agreement::Relative(rel), ElemType::F32) => {
                let (g, w) = (f64::from(f32::from_bits(g)), f64::from(f32::from_bits(w)));
                let diff = (g - w).abs();
                let rel_diff = if w == 0.0 { diff } else { diff / w.abs() };
                if rel_diff.is_finite() {
                    max_rel = max_rel.max(rel_diff);
                }
                diff <= rel * w.abs()
            }
            _ => g == w,
        };
        if !ok {
            count += 1;
            if first.is_none() {
                first = Some(match elem {
                    ElemType::F32 => format!("[{i}] = {} (want {})", f32::from_bits(g), f32::from_bits(w)),
                    ElemType::U32 => format!("[{i}] = {g} (want {w})"),
                });
            }
        }
    }
    match first {
        Some(first) => Verdict::Differ { count, first },
        None => Verdict::Within { max_rel },
    }
}

/// One device's column for one kernel.
enum Column {
    Ran {
        timings: cli::Report,
        verdict: Verdict,
        /// The compile figures of a one-workgroup run (see [`compile_probe`]), when it ran.
        probe: Option<cli::Report>,
    },
    /// Not built, not available, or failed: the reason, shown in the table.
    Missing(String),
}

impl Column {
    fn median(&self) -> Option<f64> {
        match self {
            Column::Ran { timings, .. } => Some(timings.median_ms),
            Column::Missing(_) => None,
        }
    }

    /// `compile_ms + first-dispatch extra`, as `A + B` (either may be missing).
    fn compile(&self) -> String {
        match self {
            Column::Ran { timings, probe, .. } => {
                let figures = probe.as_ref().unwrap_or(timings);
                format!("{} + {}", ms(figures.compile_ms), ms(figures.first_extra_ms()))
            }
            Column::Missing(_) => "-".into(),
        }
    }
}

struct Row {
    kernel: Kernel,
    n: u32,
    native_ms: f64,
    vulkan: Column,
    cpu: Column,
}

pub fn run(args: &[String]) -> Result<()> {
    let options = parse_options(args)?;
    if !options.kernels_dir.join("saxpy.hlsl").is_file() {
        println!(
            "bench-kernels: skipped: no kernels at {} (pass --kernels DIR)",
            options.kernels_dir.display()
        );
        return Ok(());
    }
    crate::vk_kernels::force_lavapipe();
    let scratch = crate::target_dir().join("bench-kernels");
    std::fs::create_dir_all(&scratch).with_context(|| format!("creating {}", scratch.display()))?;
    let hlsl2spirv = crate::vk_kernels::build_hlsl2spirv(false)?;
    let spirvkit = if options.cpu || options.vulkan { Some(cli::Spirvkit::build()?) } else { None };
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let kernels: Vec<Kernel> = options.only.clone().unwrap_or_else(|| spec::ALL.to_vec());
    println!(
        "bench-kernels: {} kernel(s), --repeat {} --scale {}, native on {threads} threads ({}); spirvkit {}",
        kernels.len(),
        options.repeat,
        options.scale,
        options.isa.name(),
        match &spirvkit {
            Some(s) if s.has_run => "run: yes",
            Some(_) => "run: NOT BUILT (this spirvkit has no `run` command)",
            None => "not used",
        }
    );
    let mut rows = Vec::new();
    for kernel in kernels {
        let n = kernel.scaled_n(options.scale);
        let source = options.kernels_dir.join(format!("{}.hlsl", kernel.name()));
        let spv = scratch.join(format!("{}.spv", kernel.name()));
        if let Err(error) = compile_and_validate(&hlsl2spirv, &source, &spv, kernel.workgroup()) {
            println!("{}: {error:#}", kernel.name());
            let missing = || Column::Missing("compile failed".into());
            rows.push(Row { kernel, n, native_ms: f64::NAN, vulkan: missing(), cpu: missing() });
            continue;
        }
        let native = run_native(kernel, n, options.repeat, options.isa, threads);
        let native_ms = median(&native.dispatch_ms);
        let vulkan = if options.vulkan {
            device_column(spirvkit.as_ref(), "vulkan", kernel, n, &spv, &scratch, options.repeat, &native)
        } else {
            Column::Missing("not asked".into())
        };
        let cpu = if options.cpu {
            device_column(spirvkit.as_ref(), "cpu", kernel, n, &spv, &scratch, options.repeat, &native)
        } else {
            Column::Missing("not asked".into())
        };
        let row = Row { kernel, n, native_ms, vulkan, cpu };
        println!("{}", row_line(&row));
        rows.push(row);
    }
    let report = table(&rows, &options, threads);
    println!("\n{report}");
    let path = crate::target_dir().join("bench/kernels.md");
    std::fs::create_dir_all(path.parent().expect("has a parent"))?;
    std::fs::write(&path, &report).with_context(|| format!("writing {}", path.display()))?;
    println!("written to {}", path.display());
    Ok(())
}

#[allow(clippy::too_many_arguments)]
fn device_column(
    spirvkit: Option<&cli::Spirvkit>,
    device: &'static str,
    kernel: Kernel,
    n: u32,
    spv: &Path,
    scratch: &Path,
    repeat: u32,
    native: &NativeRun,
) -> Column {
    let Some(spirvkit) = spirvkit.filter(|s| s.has_run) else {
        return Column::Missing("not built: spirvkit has no `run` command".into());
    };
    match spirvkit.run(device, kernel, n, spv, scratch, repeat) {
        Ok(run) => {
            let output = kernel.buffers(n).into_iter().find(|b| b.output).expect("an output");
            let mut verdict = compare(kernel.agreement(), output.elem, &run.output, &native.after_last);
            // Inputs the kernel only reads must come back as INIT made them: a difference
            // there is the INIT rule, not the kernel.
            for (buffer, bytes) in &run.inputs {
                if *bytes != Data::new(buffer).to_le_bytes() {
                    verdict = Verdict::Differ {
                        count: 0,
                        first: format!(
                            "input binding {} differs from random:SEED (INIT rule)",
                            buffer.binding
                        ),
                    };
                }
            }
            let probe = compile_probe(spirvkit, device, kernel, spv, scratch);
            Column::Ran { timings: run.report, verdict, probe }
        }
        Err(error) => Column::Missing(format!("failed: {error:#}")),
    }
}

/// Compiles `source` to `spv`, validates it, and checks that its `LocalSize` is the
/// workgroup shape the spec (and the dispatch formulas) assume.
/// A run of one workgroup, three dispatches: its first dispatch's excess over the median
/// is the work a driver defers to the first dispatch, measured without the noise of a
/// large dispatch on a loaded machine. `None` when it fails (the main run's figures are
/// shown instead).
fn compile_probe(
    spirvkit: &cli::Spirvkit,
    device: &str,
    kernel: Kernel,
    spv: &Path,
    scratch: &Path,
) -> Option<cli::Report> {
    let one_group = kernel.workgroup()[0] * kernel.workgroup()[1];
    let n = if kernel.workgroup()[1] > 1 { kernel.workgroup()[0] } else { one_group };
    spirvkit.run(device, kernel, n, spv, scratch, 3).ok().map(|run| run.report)
}

fn compile_and_validate(hlsl2spirv: &Path, source: &Path, spv: &Path, workgroup: [u32; 3]) -> Result<()> {
    let output = std::process::Command::new(hlsl2spirv)
        .args(["-T", "cs_6_0", "-E", "main"])
        .arg(source)
        .arg("-Fo")
        .arg(spv)
        .output()
        .context("running hlsl2spirv")?;
    if !output.status.success() {
        bail!("hlsl2spirv failed: {}", String::from_utf8_lossy(&output.stderr).lines().next().unwrap_or(""));
    }
    let val = crate::spirv_val_tool();
    let output = std::process::Command::new(val).arg(spv).output().context("running spirv-val")?;
    if !output.status.success() {
        bail!(
            "spirv-val rejects hlsl2spirv's binary: {}",
            String::from_utf8_lossy(&output.stderr).lines().next().unwrap_or("")
        );
    }
    let bytes = std::fs::read(spv).with_context(|| format!("reading {}", spv.display()))?;
    let words: Vec<u32> =
        bytes.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect();
    match local_size(&words) {
        Some(size) if size == workgroup => Ok(()),
        other => bail!("the kernel's LocalSize is {other:?}, the benchmark's spec says {workgroup:?}"),
    }
}

/// The first `OpExecutionMode %f LocalSize X Y Z` of a SPIR-V binary.
fn local_size(words: &[u32]) -> Option<[u32; 3]> {
    const OP_EXECUTION_MODE: u32 = 16;
    const LOCAL_SIZE: u32 = 17;
    let mut at = 5;
    while at < words.len() {
        let (count, opcode) = ((words[at] >> 16) as usize, words[at] & 0xffff);
        let instruction = words.get(at..at + count.max(1))?;
        if opcode == OP_EXECUTION_MODE && count == 6 && instruction[2] == LOCAL_SIZE {
            return Some([instruction[3], instruction[4], instruction[5]]);
        }
        at += count.max(1);
    }
    None
}

fn ms(value: Option<f64>) -> String {
    match value {
        Some(v) if v.is_finite() => format!("{v:.2}"),
        _ => "-".into(),
    }
}

fn ratio(numerator: Option<f64>, denominator: Option<f64>) -> String {
    match (numerator, denominator) {
        (Some(a), Some(b)) if a.is_finite() && b.is_finite() && b > 0.0 => format!("{:.2}", a / b),
        _ => "-".into(),
    }
}

fn row_line(row: &Row) -> String {
    let column = |c: &Column| match c {
        Column::Ran { timings, verdict, .. } => {
            format!("{} ms ({})", ms(Some(timings.median_ms)), verdict.describe())
        }
        Column::Missing(why) => why.clone(),
    };
    format!(
        "{} (N = {}): native {} ms; lavapipe {}; cpu {}",
        row.kernel.name(),
        row.n,
        ms(Some(row.native_ms)),
        column(&row.vulkan),
        column(&row.cpu)
    )
}

fn table(rows: &[Row], options: &Options, threads: usize) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Kernel benchmark (issue 17): median ms over --repeat {} dispatches, --scale {}; native: Rust loops \
         on {threads} threads ({})\n",
        options.repeat,
        options.scale,
        options.isa.name()
    );
    let _ = writeln!(
        out,
        "| kernel | N | native ms | lavapipe ms | cpu ms | lavapipe/cpu | cpu/native | lavapipe/native | \
         cpu compile ms | lavapipe compile ms | lavapipe output | cpu output | targets (cpu) |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|---|");
    let mut notes = Vec::new();
    for row in rows {
        let native = Some(row.native_ms).filter(|v| v.is_finite());
        let (lvp, cpu) = (row.vulkan.median(), row.cpu.median());
        let mut output = |c: &Column| match c {
            Column::Ran { verdict, .. } => verdict.describe(),
            Column::Missing(why) => {
                if !notes.contains(why) {
                    notes.push(why.clone());
                }
                why.split(':').next().unwrap_or("missing").to_string()
            }
        };
        let targets: Vec<String> = row
            .kernel
            .targets()
            .iter()
            .map(|t| {
                let verdict = match t.met(cpu, lvp, native) {
                    Some(true) => "met",
                    Some(false) => "MISSED",
                    None => "n/a",
                };
                format!("{}: {verdict}", t.describe())
            })
            .collect();
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.kernel.name(),
            row.n,
            ms(native),
            ms(lvp),
            ms(cpu),
            ratio(lvp, cpu),
            ratio(cpu, native),
            ratio(lvp, native),
            row.cpu.compile(),
            row.vulkan.compile(),
            output(&row.vulkan),
            output(&row.cpu),
            targets.join("; ")
        );
    }
    let _ = writeln!(
        out,
        "\nRatios: lavapipe/cpu > 1 means the CPU device is faster than lavapipe; x/native > 1 means \
         slower than the native loops. Outputs are compared with the native result: integers and \
         mandelbrot bit for bit, saxpy and reduce within 1e-5 relative, matmul within 1e-4 relative \
         (a driver may fuse multiply-adds). Compile ms, from a one-workgroup run of 3 dispatches: the device's `compile_ms` + what its \
         first dispatch took beyond the median (lavapipe's llvmpipe JIT-compiles the shader at its first \
         dispatch, so its pipeline creation alone understates its compile time); Mesa's shader cache \
         is disabled for the runs."
    );
    for note in notes {
        let _ = writeln!(out, "- missing column: {note}");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f32_bytes(values: &[f32]) -> Vec<u8> {
        values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }

    #[test]
    fn comparison_is_exact_for_integers_and_relative_for_floats() {
        let ints = |v: &[u32]| v.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>();
        assert_eq!(compare(Agreement::Exact, ElemType::U32, &ints(&[1, 2]), &ints(&[1, 2])), Verdict::Exact);
        assert_eq!(
            compare(Agreement::Exact, ElemType::U32, &ints(&[1, 3, 4]), &ints(&[1, 2, 5])),
            Verdict::Differ { count: 2, first: "[1] = 3 (want 2)".into() }
        );
        let want = f32_bytes(&[1.0, 100.0, 0.0]);
        let close = f32_bytes(&[1.000001, 100.0, 0.0]);
        let Verdict::Within { max_rel } = compare(Agreement::Relative(1e-5), ElemType::F32, &close, &want)
        else {
            panic!("within tolerance")
        };
        assert!(max_rel > 0.0 && max_rel < 1e-5);
        let far = f32_bytes(&[1.0, 100.1, 0.0]);
        assert!(matches!(
            compare(Agreement::Relative(1e-5), ElemType::F32, &far, &want),
            Verdict::Differ { .. }
        ));
        // A NaN never agrees; nor does a float where exactness is asked.
        let nan = f32_bytes(&[f32::NAN, 100.0, 0.0]);
        assert!(matches!(
            compare(Agreement::Relative(1e-5), ElemType::F32, &nan, &want),
            Verdict::Differ { .. }
        ));
        assert!(matches!(compare(Agreement::Exact, ElemType::F32, &close, &want), Verdict::Differ { .. }));
        // So does a dump of the wrong size.
        assert!(matches!(
            compare(Agreement::Exact, ElemType::U32, &ints(&[1]), &ints(&[1, 2])),
            Verdict::Differ { .. }
        ));
    }

    #[test]
    fn native_runs_accumulate_across_dispatches_like_a_device() {
        // saxpy: y = a*x + y once per dispatch.
        let n = 1000;
        let x = spec::init_f32(spec::Init::Random { seed: 1 }, n as usize);
        let mut y = spec::init_f32(spec::Init::Random { seed: 2 }, n as usize);
        for repeat in 1..=2 {
            for (y, x) in y.iter_mut().zip(&x) {
                *y += 1.5 * x;
            }
            let run = run_native(Kernel::Saxpy, n, repeat, Isa::detect(), 2);
            assert_eq!(run.after_last, f32_bytes(&y));
            assert_eq!(run.dispatch_ms.len(), repeat as usize);
        }
        // histogram: the bins count every element, and double with a second dispatch.
        let words =
            |b: &[u8]| b.chunks(4).map(|w| u32::from_le_bytes(w.try_into().unwrap())).collect::<Vec<_>>();
        let first = words(&run_native(Kernel::Histogram, 5000, 1, Isa::Baseline, 2).after_last);
        let last = words(&run_native(Kernel::Histogram, 5000, 2, Isa::Baseline, 2).after_last);
        assert_eq!(first.iter().sum::<u32>(), 5000);
        assert_eq!(last, first.iter().map(|c| c * 2).collect::<Vec<_>>());
        // mandelbrot: idempotent.
        let once = run_native(Kernel::Mandelbrot, 20, 1, Isa::detect(), 2);
        assert_eq!(run_native(Kernel::Mandelbrot, 20, 3, Isa::detect(), 2).after_last, once.after_last);
    }

    #[test]
    fn local_size_is_read_from_the_binary() {
        // Header, OpCapability Shader, OpExecutionMode %1 LocalSize 256 1 1.
        let words = [0x0723_0203, 0x10000, 0, 10, 0, (2 << 16) | 17, 1, (6 << 16) | 16, 1, 17, 256, 1, 1];
        assert_eq!(local_size(&words), Some([256, 1, 1]));
        assert_eq!(local_size(&words[..7]), None);
        // A truncated instruction ends the walk.
        assert_eq!(local_size(&words[..10]), None);
    }

    #[test]
    fn medians() {
        assert_eq!(median(&[3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(&[4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(&[7.0]), 7.0);
    }

    #[test]
    fn options_parse() {
        let args = |s: &str| s.split_whitespace().map(String::from).collect::<Vec<_>>();
        let o = parse_options(&args("--repeat 3 --scale 0.01 --only saxpy,scan --devices cpu")).unwrap();
        assert_eq!((o.repeat, o.scale, o.cpu, o.vulkan), (3, 0.01, true, false));
        assert_eq!(o.only, Some(vec![Kernel::Saxpy, Kernel::Scan]));
        assert!(parse_options(&args("--repeat 0")).is_err());
        assert!(parse_options(&args("--scale 2")).is_err());
        assert!(parse_options(&args("--only nope")).is_err());
        assert!(parse_options(&args("--devices gpu")).is_err());
        assert!(parse_options(&args("--repeat")).is_err());
    }
}
