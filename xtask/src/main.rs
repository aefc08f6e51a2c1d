//! Project automation: `cargo xtask <command>`.
//!
//! - `gen-grammar [--check] [--grammar DIR] [--legacy-grammar DIR] [--registry FILE]`:
//!   regenerate (or verify) the grammar tables.
//! - `gen-dialect [--check] [--mlir-include DIR]`: regenerate (or verify) the SPIR-V dialect
//!   op tables from MLIR's ODS definitions (`libmlir-22-dev`, fetched into target/ if needed).
//! - `mlir-print-compare [--corpus DIR]`: spirvkit opt vs mlir-opt-22 output, case by case.
//! - `conformance [--corpus DIR] [--update-floor] [--jobs N]`: compare spirvkit with
//!   SPIRV-Tools over the .spv corpus against the floor in conformance/spv-floor.txt.
//! - `mlir-conformance [--corpus DIR] [--update-floor] [--filter SUBSTR] [--compare-mlir-opt]
//!   [--jobs N]`: run MLIR 22's own SPIR-V tests (their RUN lines) with `spirvkit opt` /
//!   `spirvkit translate` against the floor in conformance/mlir-floor.txt.
//! - `llvmir-conformance [--corpus DIR] [--update-floor] [--filter S]`: LLVM dialect from MLIR 22's
//!   SPIR-V -> LLVM tests written as LLVM IR (`--mlir-to-llvmir`), checked by llvm-as-22 and
//!   opt-22 and against mlir-translate-22, against the floor in conformance/llvmir-floor.txt.
//! - `hlsl-conformance [--corpus DIR] [--update-floor] [--jobs N]`: `hlsl2spirv -fsyntax-only`
//!   over DXC's SPIR-V tests against the floor in conformance/hlsl-floor.txt; with a corpus
//!   holding a `manifest.json` (`--corpus ../shared/corpus/wicked-engine`), over its compile
//!   jobs against conformance/<corpus folder>-floor.txt.
//! - `hlsl-conformance --filecheck [--filter SUBSTR] [--jobs N] [--update-floor]`: DXC's SPIR-V
//!   tests run as written (RUN lines, `FileCheck-22`), every binary checked by spirv-val,
//!   against conformance/hlsl-filecheck-floor.txt; per-line verdicts in
//!   <target>/hlsl-filecheck-report.txt.
//! - `spv-roundtrip [--corpus DIR] [--update-floor] [--filter S] [--jobs N] [--oracle]`: binary ->
//!   IR -> binary over the .spv corpus (spirv-val, semantic equivalence, mlir-opt-22 on the IR)
//!   against the floor in conformance/spv-roundtrip-floor.txt.
//! - `vk-kernels [--compiler hlsl2spirv|glslang] [--filter S] [--update-floor] [--debug]`: the
//!   HLSL compute kernels of crates/vkcompute compiled, validated, run on lavapipe and compared
//!   with their expected outputs, against the floor in conformance/vk-kernels-floor.txt.
//! - `run-corpus [DIR] [--filter S] [--ulps N] [--update-floor [--allow-lower]] [--debug]`: every
//!   GLCompute shader of the .spv corpus run with `spirvkit run` on vulkan and cpu from inputs
//!   derived from its descriptors, buffers compared, against conformance/run-corpus-floor.txt.
//! - `cpu-compile [--corpus DIR] [--filter S] [--jobs N] [--update-floor [--allow-lower]] [--debug]`:
//!   the compute jobs of an engine's `manifest.json` (../shared/corpus/wicked-engine) compiled by
//!   hlsl2spirv, then by the CPU device (to machine code, without running), refusals grouped by
//!   message, against conformance/cpu-compile-floor.txt.
//! - `bench [--corpus DIR] [--quick]`: throughput report (in-process and against
//!   spirv-dis/spirv-as), printed and written to target/bench/report.md.
//! - `bench-hlsl [--runs N] [--quick] [--only corpus|large] [--filter S] [--functions N]`:
//!   whole-process compile time and peak memory of `hlsl2spirv` against glslang's HLSL mode
//!   per shader (the corpora's shaders both accept, one large generated shader), printed and
//!   written to target/bench/hlsl-compile.md.
//! - `bench-kernels [--kernels DIR] [--repeat N] [--scale F] [--only NAME,...] [--devices cpu,vulkan]
//!   [--vulkan-direct] [--baseline-native]`: issue 17's kernel benchmark (../shared/kernels):
//!   native Rust loops vs `spirvkit run --device vulkan` (lavapipe) vs `--device cpu`, medians,
//!   ratios, compile times, output agreement and the targets, printed and written to
//!   target/bench/kernels.md.

mod bench;
mod bench_kernels;
mod conformance;
mod corpus;
mod cpu_compile;
mod gen_dialect;
mod gen_grammar;
mod hlsl_conformance;
mod hlsl_filecheck;
mod hlsl_manifest;
mod lit;
mod llvmir_conformance;
mod mlir_conformance;
mod mlir_print_compare;
mod run_corpus;
mod spv_roundtrip;
mod vk_kernels;

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("xtask lives in the workspace").to_path_buf()
}

/// Where cargo puts what it builds: `cargo metadata`'s `target_directory`, which follows
/// `CARGO_TARGET_DIR`, `CARGO_BUILD_TARGET_DIR` and `build.target-dir` in config files
/// as the build itself does. Asked once per run.
fn target_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let from_cargo = std::process::Command::new(cargo)
            .args(["metadata", "--format-version", "1", "--no-deps", "--offline"])
            .current_dir(workspace_root())
            .stderr(std::process::Stdio::null())
            .output()
            .ok()
            .filter(|o| o.status.success())
            .and_then(|o| serde_json::from_slice::<serde_json::Value>(&o.stdout).ok())
            .and_then(|v| v.get("target_directory")?.as_str().map(PathBuf::from));
        from_cargo.unwrap_or_else(|| {
            // Without cargo (not expected under `cargo xtask`), the variables it reads first.
            let dir = std::env::var_os("CARGO_TARGET_DIR")
                .or_else(|| std::env::var_os("CARGO_BUILD_TARGET_DIR"))
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from("target"));
            if dir.is_absolute() {
                dir
            } else {
                workspace_root().join(dir)
            }
        })
    })
    .clone()
}

/// A binary of the workspace as cargo built it for `profile` (`release` or `debug`).
fn built_binary(profile: &str, name: &str) -> PathBuf {
    target_dir().join(profile).join(format!("{name}{}", std::env::consts::EXE_SUFFIX))
}

/// The `spirv-val` our output is checked with: `SPIRV_VAL` when set, else the current
/// SPIRV-Tools that `scripts/install-deps.sh` puts in the project's `.venv` (Debian 12's
/// 2023.1 lacks capabilities in use today), else whatever `spirv-val` is on `PATH`.
/// Decided once per run (the corpus harnesses validate each file).
fn spirv_val_tool() -> &'static Path {
    static TOOL: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    TOOL.get_or_init(|| {
        if let Some(path) = std::env::var_os("SPIRV_VAL") {
            let path = PathBuf::from(path);
            return cmeel_native_binary(&path).unwrap_or(path);
        }
        let venv = workspace_root().join(".venv/bin/spirv-val");
        if venv.is_file() {
            return cmeel_native_binary(&venv).unwrap_or(venv);
        }
        PathBuf::from("spirv-val")
    })
}

/// The program a PyPI `cmeel` wrapper (`<venv>/bin/NAME`, a Python script) starts:
/// `<venv>/lib/python3.*/site-packages/cmeel.prefix/bin/NAME`. Running it directly
/// saves the interpreter's start, about 0.25 s per call, which harnesses calling
/// spirv-val once per file pay thousands of times.
fn cmeel_native_binary(wrapper: &Path) -> Option<PathBuf> {
    let name = wrapper.file_name()?;
    let venv = wrapper.parent().filter(|bin| bin.ends_with("bin"))?.parent()?;
    let mut candidates: Vec<PathBuf> = std::fs::read_dir(venv.join("lib"))
        .ok()?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|dir| dir.file_name().is_some_and(|n| n.to_string_lossy().starts_with("python3")))
        .map(|dir| dir.join("site-packages/cmeel.prefix/bin").join(name))
        .filter(|candidate| candidate.is_file())
        .collect();
    candidates.sort();
    candidates.pop()
}

/// Default location of the Khronos grammar: the shared reference next to the project.
fn default_grammar_dir() -> PathBuf {
    workspace_root().join("../shared/reference/spirv-headers/unified1")
}

const GENERATED_PATH: &str = "crates/grammar/src/generated.rs";

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some(command) = args.first() else {
        bail!("usage: cargo xtask <gen-grammar|gen-dialect|conformance|mlir-conformance|llvmir-conformance|hlsl-conformance|spv-roundtrip|vk-kernels|run-corpus|cpu-compile|bench|bench-hlsl|bench-kernels> [options]");
    };
    let rest = &args[1..];
    match command.as_str() {
        "gen-grammar" => gen_grammar_cmd(rest),
        "gen-dialect" => gen_dialect::run(rest),
        "conformance" => conformance::run(rest),
        "mlir-conformance" => mlir_conformance::run(rest),
        "llvmir-conformance" => llvmir_conformance::run(rest),
        "hlsl-conformance" => hlsl_conformance::run(rest),
        "mlir-print-compare" => mlir_print_compare::run(rest),
        "spv-roundtrip" => spv_roundtrip::run(rest),
        "vk-kernels" => vk_kernels::run(rest),
        "run-corpus" => run_corpus::run(rest),
        "cpu-compile" => cpu_compile::run(rest),
        "bench" => bench::run(rest),
        "bench-hlsl" => bench::run_compile(rest),
        "bench-kernels" => bench_kernels::run(rest),
        other => bail!("unknown xtask command `{other}`"),
    }
}

fn option_value(args: &[String], name: &str) -> Option<String> {
    args.iter().position(|a| a == name).and_then(|i| args.get(i + 1).cloned())
}

fn gen_grammar_cmd(args: &[String]) -> Result<()> {
    let dir = option_value(args, "--grammar").map(PathBuf::from).unwrap_or_else(default_grammar_dir);
    let check = args.iter().any(|a| a == "--check");
    if !dir.join("spirv.core.grammar.json").exists() {
        bail!("grammar not found in {} (pass --grammar DIR)", dir.display());
    }
    let legacy = option_value(args, "--legacy-grammar")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/include/spirv/unified1"));
    let registry = option_value(args, "--registry")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("/usr/include/spirv/spir-v.xml"));
    if !legacy.join("spirv.core.grammar.json").exists() || !registry.exists() {
        bail!(
            "legacy grammar or registry missing ({} / {}): install Debian's spirv-headers",
            legacy.display(),
            registry.display()
        );
    }
    let text = gen_grammar::generate(&gen_grammar::Inputs {
        grammar_dir: &dir,
        legacy_grammar: &legacy,
        registry: &registry,
    })?;
    let text = rustfmt(&text)?;
    let target = workspace_root().join(GENERATED_PATH);
    if check {
        let committed = std::fs::read_to_string(&target).context("reading committed tables")?;
        if committed != text {
            bail!("{GENERATED_PATH} is stale: run `cargo xtask gen-grammar`");
        }
        println!("{GENERATED_PATH} is up to date");
    } else {
        std::fs::write(&target, text)?;
        println!("wrote {GENERATED_PATH}");
    }
    Ok(())
}

/// Formats generated code the way `cargo fmt` would, so the committed file is stable.
fn rustfmt(text: &str) -> Result<String> {
    use std::io::Write;
    use std::process::{Command, Stdio};
    let mut child = Command::new("rustfmt")
        .args(["--edition", "2021", "--emit", "stdout"])
        .arg("--config-path")
        .arg(workspace_root())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .context("running rustfmt")?;
    child.stdin.take().expect("piped").write_all(text.as_bytes())?;
    let output = child.wait_with_output()?;
    if !output.status.success() {
        bail!("rustfmt failed on generated code");
    }
    Ok(String::from_utf8(output.stdout)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cmeel_wrappers_resolve_to_their_program() {
        let venv = std::env::temp_dir().join(format!("spirvkit-cmeel-test-{}", std::process::id()));
        let native = venv.join("lib/python3.11/site-packages/cmeel.prefix/bin");
        std::fs::create_dir_all(&native).unwrap();
        std::fs::create_dir_all(venv.join("bin")).unwrap();
        std::fs::write(venv.join("bin/spirv-val"), "#!python\n").unwrap();
        assert_eq!(cmeel_native_binary(&venv.join("bin/spirv-val")), None);
        std::fs::write(native.join("spirv-val"), "").unwrap();
        assert_eq!(cmeel_native_binary(&venv.join("bin/spirv-val")), Some(native.join("spirv-val")));
        assert_eq!(cmeel_native_binary(Path::new("spirv-val")), None);
        let _ = std::fs::remove_dir_all(&venv);
    }

    /// The committed tables are exactly what the generator produces from the grammar.
    #[test]
    fn committed_grammar_tables_are_current() {
        let grammar = default_grammar_dir();
        let legacy = PathBuf::from("/usr/include/spirv/unified1");
        let registry = PathBuf::from("/usr/include/spirv/spir-v.xml");
        if !grammar.exists() || !legacy.exists() || !registry.exists() {
            eprintln!("skipping: grammar inputs not found (shared reference or Debian spirv-headers)");
            return;
        }
        let text = gen_grammar::generate(&gen_grammar::Inputs {
            grammar_dir: &grammar,
            legacy_grammar: &legacy,
            registry: &registry,
        })
        .unwrap();
        let committed = std::fs::read_to_string(workspace_root().join(GENERATED_PATH)).unwrap();
        assert!(rustfmt(&text).unwrap() == committed, "run `cargo xtask gen-grammar`");
    }
}
