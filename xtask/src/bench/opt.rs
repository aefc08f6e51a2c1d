//! The `spirvkit opt` rows of `cargo xtask bench`: parse + verify + print of a large
//! generated SPIR-V dialect module, in-process per phase and as whole processes next
//! to `mlir-opt-22` doing the same (no passes, custom and generic printing).

use anyhow::{bail, Context, Result};
use std::ffi::OsStr;
use std::fmt::Write as _;
use std::hint::black_box;
use std::path::Path;
use std::process::Command;

use super::{comparison_row, mb, measure, ms, rate, rel, time_process, Report, Settings, Stats, Table};

/// Functions in the generated module; about 2 KB of text each.
const FUNCTIONS: usize = 5000;
const REFERENCE: &str = "mlir-opt-22";

pub(super) fn bench(
    bench_dir: &Path,
    spirvkit: &Path,
    settings: &Settings,
    report: &mut Report,
) -> Result<()> {
    let path = bench_dir.join("large.mlir");
    let text = large_module(FUNCTIONS);
    if std::fs::read_to_string(&path).ok().as_deref() != Some(text.as_str()) {
        std::fs::write(&path, &text)?;
    }
    report.line(format!(
        "## opt: parse + verify + print\n\n`{}`: a generated SPIR-V dialect module, {} functions \
         (selections, loops, globals, access chains, composites), {} of text\n",
        rel(&path),
        FUNCTIONS,
        mb(text.len())
    ));
    report.flush();

    let mut table = Table::new(&["in-process", "input", "best", "median", "iters", "MB/s"]);
    let row = |table: &mut Table, name: &str, stats: Stats| {
        table.row(vec![
            name.into(),
            mb(text.len()),
            ms(stats.best),
            ms(stats.median),
            stats.iters.to_string(),
            rate(text.len(), stats.best),
        ]);
    };
    let (ir, top) = spirvkit_ir::parse(&text, "large.mlir").map_err(|e| anyhow::anyhow!("parse: {e:?}"))?;
    let errors = spirvkit_ir::verify::verify(&ir, top, &text);
    if !errors.is_empty() {
        bail!("the generated module does not verify: {:?}", errors[0]);
    }
    row(
        &mut table,
        "parse",
        measure(settings, || drop(black_box(spirvkit_ir::parse(black_box(&text), "large.mlir")))),
    );
    row(
        &mut table,
        "verify",
        measure(settings, || drop(black_box(spirvkit_ir::verify::verify(&ir, top, &text)))),
    );
    let printed = |generic| spirvkit_ir::PrintOptions { generic, ..Default::default() };
    row(
        &mut table,
        "print (custom)",
        measure(settings, || drop(black_box(spirvkit_ir::print(&ir, top, printed(false))))),
    );
    row(
        &mut table,
        "print (generic)",
        measure(settings, || drop(black_box(spirvkit_ir::print(&ir, top, printed(true))))),
    );
    let options = spirvkit_passes::opt::OptOptions::default();
    row(
        &mut table,
        "opt::run (parse+verify+print)",
        measure(settings, || {
            drop(black_box(spirvkit_passes::opt::run(black_box(&text), "large.mlir", &options)))
        }),
    );
    report.table(&table);

    let reference_ok = Command::new(REFERENCE).arg("--version").output().is_ok_and(|o| o.status.success());
    let mut table = Table::new(&[
        "whole-process",
        "spirvkit best",
        "spirvkit median",
        "reference best",
        "reference median",
        "ratio ref/spirvkit",
    ]);
    for (name, flags) in [("opt", &[][..]), ("opt --mlir-print-op-generic", &["--mlir-print-op-generic"][..])]
    {
        let mut ours = Vec::new();
        let mut theirs = Vec::new();
        for run in 0..settings.process_runs {
            // Alternate which tool goes first, so neither always profits from a warm cache.
            for ours_turn in if run % 2 == 0 { [true, false] } else { [false, true] } {
                if ours_turn {
                    ours.push(time_opt(spirvkit.as_os_str(), &["opt"], flags, &path)?);
                } else if reference_ok {
                    theirs.push(time_opt(OsStr::new(REFERENCE), &[], flags, &path)?);
                }
            }
        }
        let theirs = reference_ok.then(|| Stats::of(theirs));
        table.row(comparison_row(name, Stats::of(ours), theirs, REFERENCE));
    }
    report.table(&table);
    Ok(())
}

fn time_opt(
    program: &OsStr,
    subcommand: &[&str],
    flags: &[&str],
    input: &Path,
) -> Result<std::time::Duration> {
    let mut args: Vec<&OsStr> = subcommand.iter().map(OsStr::new).collect();
    args.extend(flags.iter().map(OsStr::new));
    args.extend([input.as_os_str(), OsStr::new("-o"), OsStr::new("/dev/null")]);
    time_process(program, &args)
        .with_context(|| format!("{} on {}", program.to_string_lossy(), input.display()))
}

/// A deterministic module in mlir-opt's canonical custom form (so printing it back
/// reproduces it), mixing the constructs real SPIR-V code has.
pub(crate) fn large_module(functions: usize) -> String {
    let mut s =
        String::from("module {\n  spirv.module Logical GLSL450 requires #spirv.vce<v1.0, [Shader], []> {\n");
    let buffer_type = "!spirv.ptr<!spirv.struct<(!spirv.rtarray<f32, stride=4> [0])>, StorageBuffer>";
    let buffers = functions.div_ceil(100).max(1);
    for b in 0..buffers {
        let _ = writeln!(s, "    spirv.GlobalVariable @buf{b} bind(0, {b}) : {buffer_type}");
    }
    for i in 0..functions {
        let b = i % buffers;
        // Distinct from the zero constant, whose printed name would clash.
        let step = i + 1;
        let _ = write!(
            s,
            r#"    spirv.func @f{i}(%arg0: f32, %arg1: i32, %arg2: !spirv.ptr<f32, Function>) -> f32 "None" {{
      %cst0_i32 = spirv.Constant 0 : i32
      %cst{step}_i32 = spirv.Constant {step} : i32
      %cst_vec_2xf32 = spirv.Constant dense<[1.000000e+00, 2.000000e+00]> : vector<2xf32>
      %0 = spirv.Variable : !spirv.ptr<i32, Function>
      spirv.Store "Function" %0, %cst0_i32 : i32
      %1 = spirv.FAdd %arg0, %arg0 : f32
      %2 = spirv.FMul %1, %arg0 : f32
      %3 = spirv.IAdd %arg1, %cst{step}_i32 : i32
      %4 = spirv.ConvertSToF %3 : i32 to f32
      %5 = spirv.GL.FMax %2, %4 : f32
      %6 = spirv.SLessThan %arg1, %cst{step}_i32 : i32
      spirv.mlir.selection {{
        spirv.BranchConditional %6, ^bb1, ^bb2
      ^bb1:  // pred: ^bb0
        spirv.Store "Function" %arg2, %5 : f32
        spirv.Branch ^bb2
      ^bb2:  // 2 preds: ^bb0, ^bb1
        spirv.mlir.merge
      }}
      spirv.mlir.loop {{
        spirv.Branch ^bb1(%cst0_i32 : i32)
      ^bb1(%12: i32):  // 2 preds: ^bb0, ^bb2
        %13 = spirv.SLessThan %12, %arg1 : i32
        spirv.BranchConditional %13, ^bb2, ^bb3
      ^bb2:  // pred: ^bb1
        %buf{b}_addr = spirv.mlir.addressof @buf{b} : {buffer_type}
        %14 = spirv.AccessChain %buf{b}_addr[%cst0_i32, %12] : {buffer_type}, i32, i32 -> !spirv.ptr<f32, StorageBuffer>
        %15 = spirv.Load "StorageBuffer" %14 : f32
        %16 = spirv.FAdd %15, %5 : f32
        spirv.Store "StorageBuffer" %14, %16 : f32
        %17 = spirv.IAdd %12, %cst{step}_i32 : i32
        spirv.Branch ^bb1(%17 : i32)
      ^bb3:  // pred: ^bb1
        spirv.mlir.merge
      }}
      %7 = spirv.Load "Function" %arg2 : f32
      %8 = spirv.CompositeConstruct %7, %5 : (f32, f32) -> vector<2xf32>
      %9 = spirv.FAdd %8, %cst_vec_2xf32 : vector<2xf32>
      %10 = spirv.CompositeExtract %9[1 : i32] : vector<2xf32>
      %11 = spirv.Select %6, %10, %7 : i1, f32
      spirv.ReturnValue %11 : f32
    }}
"#
        );
    }
    s.push_str("    spirv.func @main() \"None\" {\n      spirv.Return\n    }\n");
    s.push_str(
        "    spirv.EntryPoint \"GLCompute\" @main\n    spirv.ExecutionMode @main \"LocalSize\", 1, 1, 1\n",
    );
    s.push_str("  }\n}\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The generated module is mlir-opt's canonical form: printing it back gives it.
    #[test]
    fn large_module_prints_back_unchanged() {
        let text = large_module(3);
        let (ir, top) = spirvkit_ir::parse(&text, "large.mlir").expect("parses");
        assert!(spirvkit_ir::verify::verify(&ir, top, &text).is_empty());
        let printed = spirvkit_ir::print(&ir, top, spirvkit_ir::PrintOptions::default());
        assert_eq!(printed.trim_end(), text.trim_end());
    }
}
