//! `cargo xtask mlir-print-compare [--corpus DIR]`: for every `// -----` case of
//! MLIR's SPIR-V dialect and target tests that `mlir-opt-22` accepts, compares
//! `spirvkit opt`'s output with `mlir-opt-22`'s, in the custom and in the generic
//! form. A development report (it needs mlir-opt-22, which CI does not install).

use anyhow::{bail, Result};
use std::path::{Path, PathBuf};
use std::process::Command;

fn run_opt(tool: &Path, args: &[&str], file: &Path) -> Option<String> {
    let out = Command::new(tool).args(args).arg(file).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).into_owned())
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
    println!("cases mlir-opt-22 accepts: {cases}");
    println!("spirvkit output identical, custom form:  {custom_same}/{cases}");
    println!("spirvkit output identical, generic form: {generic_same}/{cases}");
    for d in differing.iter().take(20) {
        println!("  differs: {d}");
    }
    Ok(())
}
