//! `cargo xtask mlir-print-compare [--corpus DIR]`: for every `// -----` case of
//! MLIR's SPIR-V dialect and target tests that `mlir-opt-22` accepts, compares
//! `spirvkit opt`'s output with `mlir-opt-22`'s, in the custom and in the generic
//! form. A development report (it needs mlir-opt-22, which CI does not install).
//!
//! It also reports the LLVM dialect row ([`llvm_dialect_print`]), which
//! `cargo xtask mlir-conformance` checks against its floor.

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

fn run_opt(tool: &Path, args: &[&str], file: &Path) -> Option<String> {
    let out = Command::new(tool).args(args).arg(file).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The floor key of the LLVM dialect print comparison in `conformance/mlir-floor.txt`.
pub const LLVM_PRINT_ROW: &str = "llvm-dialect:print-identical";

/// The corpus folders whose SPIR-V cases `mlir-opt-22 -convert-spirv-to-llvm` turns into
/// LLVM dialect text for the comparison.
const LLVM_SOURCE_DIRS: [&str; 2] =
    ["test/Conversion/SPIRVToLLVM", "newer-than-mlir22/test/Conversion/SPIRVToLLVM"];

/// LLVM dialect texts of our own (ops the conversion produces beyond MLIR's tests:
/// atomics, fences, switches, intrinsics), relative to the workspace root.
pub const OWN_LLVM_TEXTS: &str = "crates/ir/tests/llvm";

pub struct LlvmPrintReport {
    /// LLVM dialect texts compared: the conversion's output for every corpus case
    /// `mlir-opt-22` converts, and our own texts.
    pub cases: usize,
    /// Cases where `spirvkit opt` prints exactly `mlir-opt-22`'s text in the custom and
    /// the generic form, and reads its own generic output back to the same text.
    pub identical: usize,
    pub custom_same: usize,
    pub generic_same: usize,
    pub read_back: usize,
    pub differing: Vec<String>,
}

/// Compares `spirvkit opt` (`ours`) with `mlir-opt-22` on LLVM dialect text: `None`
/// when `mlir-opt-22` is not installed (the oracle).
pub fn llvm_dialect_print(corpus: &Path, ours: &Path) -> Result<Option<LlvmPrintReport>> {
    let reference = PathBuf::from("mlir-opt-22");
    if Command::new(&reference).arg("--version").output().is_err() {
        return Ok(None);
    }
    let scratch = std::env::temp_dir().join(format!("spirvkit-llvm-print-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)?;
    let _guard = crate::corpus::ScratchDir(scratch.clone());
    let source = scratch.join("source.mlir");
    let llvm = scratch.join("llvm.mlir");
    let generic_copy = scratch.join("generic.mlir");
    // (label, LLVM dialect text)
    let mut texts: Vec<(String, String)> = Vec::new();
    for dir in LLVM_SOURCE_DIRS {
        let Ok(files) = crate::corpus::files_with_extension(&corpus.join(dir), "mlir") else { continue };
        for file in files {
            let text = std::fs::read_to_string(&file)?;
            for (i, case) in text.split("\n// -----").enumerate() {
                std::fs::write(&source, case)?;
                if let Some(converted) = run_opt(&reference, &["-convert-spirv-to-llvm"], &source) {
                    texts.push((format!("{}#{i}", crate::corpus::display_path(corpus, &file)), converted));
                }
            }
        }
    }
    let own = crate::workspace_root().join(OWN_LLVM_TEXTS);
    if let Ok(files) = crate::corpus::files_with_extension(&own, "mlir") {
        for file in files {
            texts.push((
                format!("{OWN_LLVM_TEXTS}/{}", crate::corpus::display_path(&own, &file)),
                std::fs::read_to_string(&file)?,
            ));
        }
    }
    let mut report = LlvmPrintReport {
        cases: 0,
        identical: 0,
        custom_same: 0,
        generic_same: 0,
        read_back: 0,
        differing: Vec::new(),
    };
    for (label, text) in texts {
        std::fs::write(&llvm, &text)?;
        let generic = ["--mlir-print-op-generic"];
        let (Some(reference_custom), Some(reference_generic)) =
            (run_opt(&reference, &[], &llvm), run_opt(&reference, &generic, &llvm))
        else {
            continue;
        };
        report.cases += 1;
        let custom = run_opt(ours, &["opt"], &llvm).is_some_and(|o| o == reference_custom);
        let ours_generic = run_opt(ours, &["opt", "--mlir-print-op-generic"], &llvm);
        let generic_same = ours_generic.as_deref() == Some(reference_generic.as_str());
        let read_back = match &ours_generic {
            Some(g) => {
                std::fs::write(&generic_copy, g)?;
                run_opt(ours, &["opt", "--mlir-print-op-generic"], &generic_copy).as_ref() == Some(g)
            }
            None => false,
        };
        report.custom_same += usize::from(custom);
        report.generic_same += usize::from(generic_same);
        report.read_back += usize::from(read_back);
        if custom && generic_same && read_back {
            report.identical += 1;
        } else {
            let what: Vec<&str> = [(custom, "custom"), (generic_same, "generic"), (read_back, "read back")]
                .iter()
                .filter(|(ok, _)| !ok)
                .map(|(_, w)| *w)
                .collect();
            report.differing.push(format!("{label} ({})", what.join(", ")));
        }
    }
    Ok(Some(report))
}

/// Prints the LLVM dialect row's figures.
pub fn print_llvm_report(report: &LlvmPrintReport) {
    println!(
        "LLVM dialect texts (the conversion's output for the SPIRVToLLVM cases mlir-opt-22 converts, \
         and {OWN_LLVM_TEXTS}): {}",
        report.cases
    );
    println!("  identical custom form:   {}/{}", report.custom_same, report.cases);
    println!("  identical generic form:  {}/{}", report.generic_same, report.cases);
    println!("  generic form read back:  {}/{}", report.read_back, report.cases);
    println!("  all three ({LLVM_PRINT_ROW}): {}/{}", report.identical, report.cases);
    for d in report.differing.iter().take(20) {
        println!("  differs: {d}");
    }
}

pub fn run(args: &[String]) -> Result<()> {
    let root = crate::workspace_root();
    let corpus = crate::option_value(args, "--corpus")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("../shared/corpus/mlir-spirv"));
    if !corpus.join("test").is_dir() {
        println!("skipping: MLIR corpus not found at {}", corpus.display());
        return Ok(());
    }
    let reference = PathBuf::from("mlir-opt-22");
    if Command::new(&reference).arg("--version").output().is_err() {
        bail!("mlir-opt-22 not found: apt-get install mlir-22-tools");
    }
    let ours = crate::built_binary("release", "spirvkit");
    if !ours.exists() {
        bail!("{} not found: cargo build --release -p spirvkit-cli", ours.display());
    }
    let scratch = std::env::temp_dir().join(format!("spirvkit-print-compare-{}.mlir", std::process::id()));
    let (mut cases, mut custom_same, mut generic_same) = (0, 0, 0);
    let mut differing = Vec::new();
    for dir in ["test/Dialect/SPIRV/IR", "test/Target/SPIRV"] {
        let mut files: Vec<PathBuf> = std::fs::read_dir(corpus.join(dir))?
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "mlir"))
            .collect();
        files.sort();
        for file in files {
            let text = std::fs::read_to_string(&file)?;
            for (i, case) in text.split("\n// -----").enumerate() {
                std::fs::write(&scratch, case)?;
                let Some(reference_custom) = run_opt(&reference, &["--allow-unregistered-dialect"], &scratch)
                else {
                    continue;
                };
                cases += 1;
                let ours_custom = run_opt(&ours, &["opt", "--allow-unregistered-dialect"], &scratch);
                if ours_custom.as_deref() == Some(reference_custom.as_str()) {
                    custom_same += 1;
                } else {
                    differing.push(format!("{}#{i} (custom)", file.display()));
                }
                let generic = ["--allow-unregistered-dialect", "--mlir-print-op-generic"];
                let reference_generic = run_opt(&reference, &generic, &scratch);
                let ours_generic = run_opt(
                    &ours,
                    &["opt", "--allow-unregistered-dialect", "--mlir-print-op-generic"],
                    &scratch,
                );
                if reference_generic.is_some() && ours_generic == reference_generic {
                    generic_same += 1;
                } else {
                    differing.push(format!("{}#{i} (generic)", file.display()));
                }
            }
        }
    }
    let _ = std::fs::remove_file(&scratch);
    if let Some(report) = llvm_dialect_print(&corpus, &ours)? {
        print_llvm_report(&report);
    }
    println!("cases mlir-opt-22 accepts: {cases}");
    println!("spirvkit output identical, custom form:  {custom_same}/{cases}");
    println!("spirvkit output identical, generic form: {generic_same}/{cases}");
    for d in differing.iter().take(20) {
        println!("  differs: {d}");
    }
    Ok(())
}
