//! `-convert-spirv-to-llvm` against its references:
//!
//! - MLIR's own tests (`../shared/corpus/mlir-spirv/test/Conversion/SPIRVToLLVM`):
//!   every `// -----` case of every file run through `mlir-opt-22` and `spirvkit
//!   opt` with the file's pass options and `--mlir-print-op-generic`; where
//!   mlir-opt-22 converts the case, the output must be byte-identical, where it
//!   fails, spirvkit must fail too unless the case is one spirvkit converts beyond
//!   MLIR 22 (none in this folder). Skipped without the corpus or `mlir-opt-22`.
//! - Real compute shaders (`../shared/corpus/spv`): every GLCompute binary is
//!   deserialized and converted with `ConvertOptions::kernel`; at least the floor
//!   must convert (with `mlir-translate-22` and `opt-22` installed: to a module
//!   LLVM 22's verifier accepts), and none may panic. Skipped without the corpus.

use std::path::{Path, PathBuf};
use std::process::Command;

use spirvkit_ir::ir::Ir;
use spirvkit_ir::text::printer::{print_op, PrintOptions};
use spirvkit_passes::convert_spirv_to_llvm::{convert_spirv_module, ConvertOptions};
use spirvkit_passes::opt::{run, OptOptions};
use spirvkit_translate::{deserialize, DeserializeOptions};

/// GLCompute shaders of the `.spv` corpus that convert (12 of 20: the rest use
/// storage images).
const REAL_SHADER_FLOOR: usize = 12;

fn shared() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpus")
}

fn mlir_opt() -> Option<&'static str> {
    Command::new("mlir-opt-22")
        .arg("--version")
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|_| "mlir-opt-22")
}

/// The `-convert-spirv-to-llvm[=...]` flag of each RUN line of a file.
fn pass_flags(text: &str) -> Vec<String> {
    text.lines()
        .filter_map(|l| l.split_once("RUN:").map(|(_, r)| r))
        .filter_map(|r| r.split_whitespace().find(|w| w.starts_with("-convert-spirv-to-llvm")))
        .map(|w| w.replace('\'', ""))
        .collect()
}

#[test]
fn mlir_conversion_tests_match_mlir_opt_22_byte_for_byte() {
    let dir = shared().join("mlir-spirv/test/Conversion/SPIRVToLLVM");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("no corpus at {}: test skipped", dir.display());
        return;
    };
    let Some(tool) = mlir_opt() else {
        eprintln!("mlir-opt-22 not found: test skipped");
        return;
    };
    let scratch = std::env::temp_dir().join(format!("spirvkit-convert-{}", std::process::id()));
    std::fs::create_dir_all(&scratch).unwrap();
    let mut files: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    files.sort();
    let (mut identical, mut both_fail) = (0, 0);
    let mut failures = Vec::new();
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "mlir")) {
        let text = std::fs::read_to_string(path).unwrap();
        for flag in pass_flags(&text) {
            for (i, case) in text.split("\n// -----").enumerate() {
                let case_path = scratch.join("case.mlir");
                std::fs::write(&case_path, case).unwrap();
                let theirs = Command::new(tool)
                    .args([flag.as_str(), "--mlir-print-op-generic"])
                    .arg(&case_path)
                    .output()
                    .unwrap();
                let options = OptOptions { passes: vec![flag.clone()], generic: true, ..Default::default() };
                let ours = run(case, "case.mlir", &options);
                let what = format!("{} case {i} ({flag})", path.file_name().unwrap().to_string_lossy());
                match (theirs.status.success(), ours.success) {
                    (true, true) if ours.output == String::from_utf8_lossy(&theirs.stdout) => identical += 1,
                    (true, true) => failures.push(format!("{what}: output differs")),
                    (false, false) => both_fail += 1,
                    (true, false) => failures.push(format!("{what}: refused: {}", ours.diagnostics_text)),
                    (false, true) => {
                        failures.push(format!("{what}: mlir-opt-22 refuses it, spirvkit converts it"))
                    }
                }
            }
        }
    }
    let _ = std::fs::remove_dir_all(&scratch);
    eprintln!("SPIRVToLLVM cases: {identical} byte-identical, {both_fail} refused by both");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    // 17 of the 20 case runs of MLIR 22's folder convert; the other 3 are refusals.
    assert!(identical >= 17, "only {identical} identical cases");
}

fn spv_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            spv_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "spv") {
            out.push(path);
        }
    }
}

/// `mlir-translate-22 --mlir-to-llvmir` and `opt-22 -passes=verify` accept the
/// converted module (checked when both tools are installed).
fn llvm_accepts(ir: &Ir, module: spirvkit_ir::ir::OpId) -> Result<(), String> {
    let options = PrintOptions { generic: true, threads: 1, ..Default::default() };
    let text = print_op(ir, module, options);
    let dir = std::env::temp_dir();
    let mlir = dir.join(format!("spirvkit-convert-{}.mlir", std::process::id()));
    let ll = dir.join(format!("spirvkit-convert-{}.ll", std::process::id()));
    std::fs::write(&mlir, text).map_err(|e| e.to_string())?;
    let translate =
        Command::new("mlir-translate-22").arg("--mlir-to-llvmir").arg(&mlir).arg("-o").arg(&ll).output();
    let result = match translate {
        Err(_) => Ok(()),
        Ok(out) if !out.status.success() => {
            Err(String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").to_string())
        }
        Ok(_) => match Command::new("opt-22").args(["-passes=verify", "-disable-output"]).arg(&ll).output() {
            Ok(out) if !out.status.success() => {
                Err(String::from_utf8_lossy(&out.stderr).lines().next().unwrap_or("").to_string())
            }
            _ => Ok(()),
        },
    };
    let _ = std::fs::remove_file(&mlir);
    let _ = std::fs::remove_file(&ll);
    result
}

#[test]
fn real_compute_shaders_convert_for_the_cpu() {
    let dir = shared().join("spv");
    let mut files = Vec::new();
    spv_files(&dir, &mut files);
    if files.is_empty() {
        eprintln!("no .spv corpus at {}: test skipped", dir.display());
        return;
    }
    let (mut compute, mut converted, mut unverified) = (0, 0, 0);
    let mut stops = Vec::new();
    for path in files {
        let bytes = std::fs::read(&path).unwrap();
        let mut ir = Ir::new();
        let Ok(module) = deserialize(&bytes, &mut ir, &DeserializeOptions::default()) else { continue };
        let is_compute = ir.ops_under(module).iter().any(|&(_, op)| {
            ir.op(op).name == "spirv.EntryPoint"
                && matches!(ir.op(op).attr("execution_model"), Some(spirvkit_ir::attr::Attribute::Dialect { body: Some(b), .. }) if b == "GLCompute")
        });
        if !is_compute {
            continue;
        }
        compute += 1;
        // The library path (the CPU pipeline's) does not need IR that verifies: the
        // deserializer keeps glslang's signed integer types where MLIR's dialect wants
        // signless ones (`spirv.IAdd (i32, si32)`), which the conversion makes signless.
        if !spirvkit_ir::verify::verify(&ir, module, "").is_empty() {
            unverified += 1;
        }
        match convert_spirv_module(&mut ir, module, &ConvertOptions::kernel()) {
            Ok(llvm) => {
                let left: Vec<String> = ir
                    .ops_under(llvm)
                    .iter()
                    .map(|&(_, op)| ir.op(op).name.to_string())
                    .filter(|n| n.starts_with("spirv."))
                    .collect();
                assert!(left.is_empty(), "{}: SPIR-V ops left: {left:?}", path.display());
                if let Err(e) = llvm_accepts(&ir, llvm) {
                    stops.push(format!("{}: LLVM 22 refuses the result: {e}", path.display()));
                    continue;
                }
                converted += 1;
            }
            Err(e) => stops.push(format!("{}: {}", path.display(), e.message)),
        }
    }
    eprintln!(
        "GLCompute shaders: {converted} of {compute} convert ({unverified} deserialize to IR that does not \
         verify); stopped:\n{}",
        stops.join("\n")
    );
    assert!(converted >= REAL_SHADER_FLOOR, "{converted} converted, floor {REAL_SHADER_FLOOR}");
}

/// The seven benchmark kernels (`../shared/kernels`), compiled by glslang, convert
/// with the kernel options to modules LLVM 22 accepts. Skipped without the kernels
/// or `glslangValidator`.
#[test]
fn benchmark_kernels_convert_for_the_cpu() {
    let dir = shared().join("../kernels");
    let Ok(entries) = std::fs::read_dir(&dir) else {
        eprintln!("no kernels at {}: test skipped", dir.display());
        return;
    };
    let mut kernels: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "hlsl"))
        .collect();
    kernels.sort();
    let out = std::env::temp_dir().join(format!("spirvkit-kernel-{}.spv", std::process::id()));
    for kernel in kernels {
        let compiled = Command::new("glslangValidator")
            .args(["-D", "-V", "-S", "comp", "-e", "main", "-o"])
            .arg(&out)
            .arg(&kernel)
            .output();
        match compiled {
            Err(_) => {
                eprintln!("glslangValidator not found: test skipped");
                return;
            }
            Ok(o) => assert!(
                o.status.success(),
                "{}: glslang: {}",
                kernel.display(),
                String::from_utf8_lossy(&o.stdout)
            ),
        }
        let bytes = std::fs::read(&out).unwrap();
        let mut ir = Ir::new();
        let module = deserialize(&bytes, &mut ir, &DeserializeOptions::default()).unwrap();
        let llvm = convert_spirv_module(&mut ir, module, &ConvertOptions::kernel())
            .unwrap_or_else(|e| panic!("{}: {}", kernel.display(), e.message));
        llvm_accepts(&ir, llvm).unwrap_or_else(|e| panic!("{}: {e}", kernel.display()));
    }
    let _ = std::fs::remove_file(&out);
}
